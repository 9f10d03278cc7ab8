/* Backtraces folded into `root;...;leaf` stacks, and the userspace table
 * that counts identical stacks or events (an open-addressing hash of byte
 * keys). Counting here, on decoded and symbolized frames, keeps the BPF
 * side unchanged: events arrive as they always do. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/fold.h>

#include "base.h"

/* ---- folding -------------------------------------------------------------- */

struct sink {
	char *buf;
	size_t size, len;
};

/* Appends a frame name, separated by ';' from the one before. */
static void put_name(struct sink *s, const char *name)
{
	if (s->len) {
		if (s->len + 1 < s->size)
			s->buf[s->len] = ';';
		s->len++;
	}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		char c = (*p < 0x20 || *p >= 0x7f || *p == ';') ? '?' : (char)*p;

		if (s->len + 1 < s->size)
			s->buf[s->len] = c;
		s->len++;
	}
}

/* A Python frame: `leaf (pyb.py:4)`, the file's base name; without lines
 * `leaf (pyb.py)`, so a function's samples fold together. */
static void put_python(struct sink *s, const struct gs_stack_frame *f, bool lines)
{
	const char *file = f->file ? strrchr(f->file, '/') : NULL;
	char name[224];

	file = file ? file + 1 : f->file;
	if (!f->function)
		snprintf(name, sizeof(name), "[python 0x%" PRIx64 "]", f->addr);
	else if (!file)
		snprintf(name, sizeof(name), "%.120s", f->function);
	else if (lines && f->line > 0)
		snprintf(name, sizeof(name), "%.120s (%.60s:%d)", f->function, file, f->line);
	else
		snprintf(name, sizeof(name), "%.120s (%.60s)", f->function, file);
	put_name(s, name);
}

static void put_frame(struct sink *s, const struct gs_stack_frame *f, bool py_lines)
{
	const struct gs_frame *r = &f->native;
	char name[128];

	switch (f->kind) {
	case GS_FRAME_KERNEL:
		if (f->function)
			snprintf(name, sizeof(name), "%.100s_[k]", f->function);
		else
			snprintf(name, sizeof(name), "0x%" PRIx64 "_[k]", f->addr);
		put_name(s, name);
		return;
	case GS_FRAME_PYTHON:
		put_python(s, f, py_lines);
		return;
	case GS_FRAME_JIT:
		put_name(s, f->function ? f->function : GS_FRAME_JIT_NAME);
		return;
	default:
		break;
	}
	if (r->sym && r->sym->function) {
		put_name(s, r->sym->function);
		for (size_t i = 0; r->sym->from_dwarf && i < r->sym->ninlines; i++)
			if (r->sym->inlines[i].name)
				put_name(s, r->sym->inlines[i].name);
	} else if (r->resolved) {
		snprintf(name, sizeof(name), "%.60s+0x%" PRIx64, r->module ? r->module : "?", r->pc);
		put_name(s, name);
	} else {
		put_name(s, "[unknown]");
	}
}

size_t gs_fold_stack(const struct gs_stack *st, size_t first, bool py_lines, char *buf,
		     size_t size)
{
	struct sink s = { .buf = buf, .size = size };

	for (size_t k = st->count; k-- > first;)
		put_frame(&s, &st->frames[k], py_lines);
	if (size)
		buf[s.len < size ? s.len : size - 1] = '\0';
	return s.len;
}

size_t gs_fold_backtrace(struct gs_frames *f, const struct gs_event *ev, const struct gs_inst *bt,
			 char *buf, size_t size)
{
	struct gs_stack st;

	gs_frames_stack(f, ev, bt, &st);
	return gs_fold_stack(&st, st.kernel, true, buf, size);
}

size_t gs_fold_kernel_stack(struct gs_frames *f, const struct gs_inst *ks, char *buf, size_t size)
{
	struct sink s = { .buf = buf, .size = size };

	for (unsigned k = ks->kernel_stack.frame_count; k-- > 0;) {
		struct gs_stack_frame fr = { .kind = GS_FRAME_KERNEL, .index = k };

		memcpy(&fr.addr, ks->kernel_stack.addrs + 8u * k, 8);
		fr.function = f ? gs_frames_kernel_symbol(f, fr.addr, &fr.offset) : NULL;
		put_frame(&s, &fr, true);
	}
	if (size)
		buf[s.len < size ? s.len : size - 1] = '\0';
	return s.len;
}

/* ---- counting ------------------------------------------------------------- */

struct slot {
	uint64_t hash;
	long entry; /* index + 1; 0: empty */
};

struct entry {
	uint64_t hash;
	void *key;
	size_t len;
	uint64_t count;
	char *text;
};

struct gs_counts {
	struct slot *slots;
	size_t nslots; /* a power of two, at most half full */
	struct entry *v;
	size_t n, cap;
	uint64_t total;
};

static uint64_t fnv1a(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

struct gs_counts *gs_counts_new(void)
{
	struct gs_counts *c = calloc(1, sizeof(*c));

	if (c && !(c->slots = calloc(64, sizeof(*c->slots)))) {
		free(c);
		return NULL;
	}
	if (c)
		c->nslots = 64;
	return c;
}

void gs_counts_free(struct gs_counts *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].key);
		free(c->v[i].text);
	}
	free(c->v);
	free(c->slots);
	free(c);
}

static void place(struct slot *slots, size_t nslots, uint64_t hash, long entry)
{
	size_t i = hash & (nslots - 1);

	while (slots[i].entry)
		i = (i + 1) & (nslots - 1);
	slots[i] = (struct slot){ .hash = hash, .entry = entry };
}

static int grow(struct gs_counts *c)
{
	size_t n = c->nslots * 2;
	struct slot *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i].entry)
			place(s, n, c->slots[i].hash, c->slots[i].entry);
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return 0;
}

long gs_counts_add(struct gs_counts *c, const void *key, size_t len, uint64_t n, bool *is_new)
{
	uint64_t h = fnv1a(key, len);
	size_t i = h & (c->nslots - 1);
	struct entry *e;

	if (is_new)
		*is_new = false;
	for (; c->slots[i].entry; i = (i + 1) & (c->nslots - 1)) {
		e = &c->v[c->slots[i].entry - 1];
		if (c->slots[i].hash == h && e->len == len && memcmp(e->key, key, len) == 0) {
			e->count += n;
			c->total += n;
			return c->slots[i].entry - 1;
		}
	}
	if (base_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	if (2 * (c->n + 1) > c->nslots && grow(c))
		return -ENOMEM;
	e = &c->v[c->n];
	*e = (struct entry){ .hash = h, .len = len, .count = n, .key = malloc(len ? len : 1) };
	if (!e->key)
		return -ENOMEM;
	memcpy(e->key, key, len);
	place(c->slots, c->nslots, h, (long)++c->n);
	c->total += n;
	if (is_new)
		*is_new = true;
	return (long)c->n - 1;
}

int gs_counts_set_text(struct gs_counts *c, long index, const char *text)
{
	char *t;

	if (index < 0 || (size_t)index >= c->n)
		return -EINVAL;
	if (!(t = strdup(text)))
		return -ENOMEM;
	free(c->v[index].text);
	c->v[index].text = t;
	return 0;
}

size_t gs_counts_size(const struct gs_counts *c)
{
	return c->n;
}

uint64_t gs_counts_total(const struct gs_counts *c)
{
	return c->total;
}

static int by_count(const void *a, const void *b)
{
	const struct gs_count *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int k;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	k = memcmp(x->key, y->key, n);
	return k ? k : (x->len > y->len) - (x->len < y->len);
}

struct gs_count *gs_counts_sorted(const struct gs_counts *c)
{
	struct gs_count *v = c->n ? malloc(c->n * sizeof(*v)) : NULL;

	if (!v)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		v[i] = (struct gs_count){ .key = c->v[i].key, .len = c->v[i].len,
					  .count = c->v[i].count, .text = c->v[i].text };
	qsort(v, c->n, sizeof(*v), by_count);
	return v;
}
