/* The frame-text cache of the symbolized printers: the lines of a
 * symbolized frame depend only on its symbol, module and pc and on the bt
 * flags, so they are rendered once, by the one writer of such a frame
 * (ev_put_frame, print_frame.c), and kept without their `#N` prefixes. A
 * backtrace's frames are then copies, instead of escaping every name of
 * every frame on every event. Frames the cache cannot hold (raw,
 * unresolved, unsymbolized, signal frames) are rendered the normal way,
 * which the printer (print.c) decides. */
#include <stdlib.h>
#include <string.h>

#include "ev_int.h"

#define MAX_ENTRIES (1u << 20) /* past this many frames, the normal way */
#define MAX_TEXT (64u << 20)   /* bytes of kept text */

/* One frame's lines: each is '\n' and what follows its `#N` (".inline ..."
 * or " fn(...) at ..."). */
struct frame_text {
	const struct gs_sym_info *sym; /* NULL: empty slot */
	const char *module;
	uint64_t pc;
	uint8_t flags;
	bool one_line; /* no inline calls: the text is one line */
	uint32_t len;
	char *text;
};

struct ev_frame_cache {
	struct frame_text *v;
	size_t cap, used; /* cap a power of two */
	size_t text_bytes;
	bool full; /* out of memory or past the limits: no more entries */
};

void ev_frame_cache_free(struct ev_frame_cache *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->cap; i++)
		free(f->v[i].text);
	free(f->v);
	free(f);
}

static size_t slot_of(const struct ev_frame_cache *f, const struct gs_sym_info *sym,
		      const char *module, uint64_t pc, uint8_t flags)
{
	uint64_t h = ((uint64_t)(uintptr_t)sym ^ (uint64_t)(uintptr_t)module * 31 ^ pc * 131 ^ flags) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 24) & (f->cap - 1);
}

static struct frame_text *probe(struct ev_frame_cache *f, const struct gs_sym_info *sym,
				const char *module, uint64_t pc, uint8_t flags)
{
	size_t i = slot_of(f, sym, module, pc, flags);

	while (f->v[i].sym && (f->v[i].sym != sym || f->v[i].module != module ||
			       f->v[i].pc != pc || f->v[i].flags != flags))
		i = (i + 1) & (f->cap - 1);
	return &f->v[i];
}

static bool grow(struct ev_frame_cache *f)
{
	struct ev_frame_cache bigger = { .cap = f->cap ? 2 * f->cap : 1024 };

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

/* The frame's kept text: rendered now by ev_put_frame (index 0, no
 * indent, so every line starts with "\n#0"), the "#0"s cut. NULL when it
 * cannot be kept. */
static const struct frame_text *frame_text(struct ev_frame_cache *f, struct gs_frames *frames,
					   uint8_t flags, const struct gs_backtrace_frame *fr,
					   const struct gs_frame *r)
{
	struct ev_out m = { .grow = true };
	struct frame_text *e;
	size_t n = 0, size;

	if (f->full || (2 * (f->used + 1) > f->cap && (f->used + 1 > MAX_ENTRIES || !grow(f)))) {
		f->full = true;
		return NULL;
	}
	e = probe(f, r->sym, r->module, r->pc, flags);
	if (e->sym)
		return e;
	ev_put_frame(&m, frames, "", 0, flags, fr, r);
	size = m.len;
	if (!m.buf || size + 1 > m.size || f->text_bytes + size > MAX_TEXT) {
		free(m.buf);
		f->full = true;
		return NULL;
	}
	for (size_t i = 0; i < size;) { /* each line: "\n#0" + tail */
		char *nl = memchr(m.buf + i + 1, '\n', size - i - 1);
		size_t end = nl ? (size_t)(nl - m.buf) : size;

		if (end - i < 3 || m.buf[i] != '\n' || m.buf[i + 1] != '#' || m.buf[i + 2] != '0') {
			free(m.buf);
			f->full = true; /* not the shape assumed: never cache */
			return NULL;
		}
		m.buf[n++] = '\n';
		memmove(m.buf + n, m.buf + i + 3, end - i - 3);
		n += end - i - 3;
		i = end;
	}
	*e = (struct frame_text){ r->sym, r->module, r->pc, flags,
				  memchr(m.buf + 1, '\n', n - 1) == NULL, (uint32_t)n, m.buf };
	f->used++;
	f->text_bytes += size;
	return e;
}

/* Each kept line after `\n<indent>#<i>`. */
static void put_kept(struct ev_out *o, const char *indent, unsigned i, const struct frame_text *t)
{
	if (t->one_line) {
		ev_put_char(o, '\n');
		ev_put_str(o, indent);
		ev_put_char(o, '#');
		ev_put_udec(o, i);
		ev_put(o, t->text + 1, t->len - 1);
		return;
	}
	for (uint32_t k = 0; k < t->len;) {
		const char *nl = memchr(t->text + k + 1, '\n', t->len - k - 1);
		uint32_t end = nl ? (uint32_t)(nl - t->text) : t->len;

		ev_put_char(o, '\n');
		ev_put_str(o, indent);
		ev_put_char(o, '#');
		ev_put_udec(o, i);
		ev_put(o, t->text + k + 1, end - k - 1);
		k = end;
	}
}

int ev_frame_cache_new(struct ev_frame_cache **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -1;
}

bool ev_frame_cache_put(struct ev_out *o, struct ev_frame_cache *c, struct gs_frames *frames,
			const char *indent, unsigned i, uint8_t flags,
			const struct gs_backtrace_frame *fr, const struct gs_frame *r)
{
	const struct frame_text *t = frame_text(c, frames, flags, fr, r);

	if (!t)
		return false;
	put_kept(o, indent, i, t);
	return true;
}
