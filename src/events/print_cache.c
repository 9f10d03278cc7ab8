/* The text output's fast path for backtrace frames: the lines of a
 * symbolized frame depend only on its symbol, module and pc and on the bt
 * flags, so they are rendered once, by output.c's own writer
 * (out_put_frame into memory), and kept without their `#N` prefixes. A
 * backtrace's frames are then one buffer of copies, written at once,
 * instead of escaping every name of every frame through stdio on every
 * event. Frames the cache cannot hold (raw, unresolved, unsymbolized,
 * signal frames) are written the normal way, in order. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output_int.h"

#define MAX_ENTRIES (1u << 20) /* past this many frames, the normal way */
#define MAX_TEXT (64u << 20)   /* bytes of kept text */

/* One frame's lines: each starts right after its `#N` (".inline ..." or
 * " fn(...) at ..."), ends with '\n'. */
struct frame_text {
	const struct gs_sym_info *sym; /* NULL: empty slot */
	const char *module;
	uint64_t pc;
	uint8_t flags;
	bool one_line; /* no inline calls: the text is one line */
	uint32_t len;
	char *text;
};

struct out_fast {
	struct frame_text *v;
	size_t cap, used; /* cap a power of two */
	size_t text_bytes;
	char *buf; /* the backtrace being written */
	size_t len, buf_cap;
	FILE *f;   /* where it goes */
	bool full; /* out of memory or past the limits: no more entries */
};

void out_fast_free(struct out_fast *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->cap; i++)
		free(f->v[i].text);
	free(f->v);
	free(f->buf);
	free(f);
}

/* Writes what the buffer holds. */
static void flush_buf(struct out_fast *f)
{
	if (f->len)
		fwrite(f->buf, 1, f->len, f->f);
	f->len = 0;
}

static bool reserve(struct out_fast *f, size_t more)
{
	size_t cap = f->buf_cap ? f->buf_cap : 4096;
	char *nb;

	if (f->len + more <= f->buf_cap)
		return true;
	while (cap < f->len + more)
		cap *= 2;
	nb = realloc(f->buf, cap);
	if (!nb)
		return false;
	f->buf = nb;
	f->buf_cap = cap;
	return true;
}

/* Into the buffer; straight to the file when it cannot grow. */
static void append(struct out_fast *f, const char *s, size_t n)
{
	if (reserve(f, n)) {
		memcpy(f->buf + f->len, s, n);
		f->len += n;
		return;
	}
	flush_buf(f);
	fwrite(s, 1, n, f->f);
}

static void append_str(struct out_fast *f, const char *s)
{
	append(f, s, strlen(s));
}

static void append_uint(struct out_fast *f, uint64_t v)
{
	char t[20];
	size_t i = sizeof(t);

	do
		t[--i] = (char)('0' + v % 10);
	while (v /= 10);
	append(f, t + i, sizeof(t) - i);
}

static size_t slot_of(const struct out_fast *f, const struct gs_sym_info *sym, const char *module,
		      uint64_t pc, uint8_t flags)
{
	uint64_t h = ((uint64_t)(uintptr_t)sym ^ (uint64_t)(uintptr_t)module * 31 ^ pc * 131 ^ flags) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 24) & (f->cap - 1);
}

static struct frame_text *probe(struct out_fast *f, const struct gs_sym_info *sym,
				const char *module, uint64_t pc, uint8_t flags)
{
	size_t i = slot_of(f, sym, module, pc, flags);

	while (f->v[i].sym && (f->v[i].sym != sym || f->v[i].module != module ||
			       f->v[i].pc != pc || f->v[i].flags != flags))
		i = (i + 1) & (f->cap - 1);
	return &f->v[i];
}

static bool grow(struct out_fast *f)
{
	struct out_fast bigger = { .cap = f->cap ? 2 * f->cap : 1024 };

	bigger.v = calloc(bigger.cap, sizeof(*bigger.v));
	if (!bigger.v)
		return false;
	for (size_t i = 0; i < f->cap; i++)
		if (f->v[i].sym)
			*probe(&bigger, f->v[i].sym, f->v[i].module, f->v[i].pc, f->v[i].flags) =
				f->v[i];
	free(f->v);
	f->v = bigger.v;
	f->cap = bigger.cap;
	return true;
}

/* The frame's kept text: rendered now by out_put_frame into memory (index
 * 0, no indent, so every line starts with "#0"), the "#0"s cut. NULL when
 * it cannot be kept. */
static const struct frame_text *frame_text(struct cli_out *o, uint8_t flags,
					   const struct gs_backtrace_frame *fr,
					   const struct gs_frame *r)
{
	struct out_fast *f = o->fast;
	struct frame_text *e;
	char *mem = NULL, *out;
	size_t size = 0, n = 0;
	FILE *m, *saved = o->f;

	if (f->full || (2 * (f->used + 1) > f->cap && (f->used + 1 > MAX_ENTRIES || !grow(f)))) {
		f->full = true;
		return NULL;
	}
	e = probe(f, r->sym, r->module, r->pc, flags);
	if (e->sym)
		return e;
	m = open_memstream(&mem, &size);
	if (!m) {
		f->full = true;
		return NULL;
	}
	o->f = m;
	out_put_frame(o, "", 0, flags, fr, r);
	o->f = saved;
	if (fclose(m) != 0 || !mem || f->text_bytes + size > MAX_TEXT) {
		free(mem);
		f->full = true;
		return NULL;
	}
	out = mem;
	for (size_t i = 0; i < size;) { /* each line: "#0" + tail */
		char *nl = memchr(mem + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - mem) + 1 : size;

		if (end - i < 2 || mem[i] != '#' || mem[i + 1] != '0') {
			free(mem);
			f->full = true; /* not the shape assumed: never cache */
			return NULL;
		}
		memmove(out + n, mem + i + 2, end - i - 2);
		n += end - i - 2;
		i = end;
	}
	*e = (struct frame_text){ r->sym, r->module, r->pc, flags,
				  memchr(mem, '\n', n) == mem + n - 1, (uint32_t)n, mem };
	f->used++;
	f->text_bytes += size;
	return e;
}

/* indent#i + each kept line. */
static void append_frame(struct out_fast *f, const char *indent, unsigned i,
			 const struct frame_text *t)
{
	if (t->one_line) {
		append_str(f, indent);
		append(f, "#", 1);
		append_uint(f, i);
		append(f, t->text, t->len);
		return;
	}
	for (uint32_t k = 0; k < t->len;) {
		const char *nl = memchr(t->text + k, '\n', t->len - k);
		uint32_t end = nl ? (uint32_t)(nl - t->text) + 1 : t->len;

		append_str(f, indent);
		append(f, "#", 1);
		append_uint(f, i);
		append(f, t->text + k, end - k);
		k = end;
	}
}

int out_fast_new(struct out_fast **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -1;
}

bool out_fast_frames(struct cli_out *o, const struct gs_event *ev, const struct gs_inst *in,
		     const char *frame_indent)
{
	struct out_fast *f = o->fast;
	/* what out_put_frame's text of a symbolized frame depends on */
	uint8_t flags = in->backtrace.flags & GS_BT_FLAG_INLINE;
	bool raw = in->backtrace.flags & GS_BT_FLAG_RAW, last_known = false;

	if (f) {
		f->len = 0;
		f->f = o->f;
	}
	for (unsigned i = 0; i < in->backtrace.frame_count; i++) {
		const struct gs_backtrace_frame *fr = &in->backtrace.frames[i];
		const struct frame_text *t = NULL;
		struct gs_frame r;

		gs_frames_resolve(o->frames, ev, in, i, &r);
		last_known = r.resolved;
		if (f && !raw && r.sym && r.resolved && !r.signal_frame)
			t = frame_text(o, flags, fr, &r);
		if (t) {
			append_frame(f, frame_indent, i, t);
			continue;
		}
		if (f)
			flush_buf(f);
		out_put_frame(o, frame_indent, i, in->backtrace.flags, fr, &r);
	}
	if (f)
		flush_buf(f);
	return last_known;
}
