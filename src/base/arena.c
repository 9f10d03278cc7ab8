/* The arena of base.h: blocks chained from the newest, bumped, freed at
 * once. Objects are aligned for max_align_t; strings are packed. */
#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

#define FIRST_BLOCK 256
#define MAX_BLOCK 16384

struct gs_arena {
	struct gs_arena *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

static void *take(struct gs_arena **a, size_t n, size_t align)
{
	struct gs_arena *b = *a;
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
	void *out;

	if (n > SIZE_MAX / 2 - MAX_BLOCK)
		return NULL;
	if (!b || at > b->cap || b->cap - at < n) {
		size_t grown = !b ? FIRST_BLOCK : b->cap < MAX_BLOCK ? 2 * b->cap : MAX_BLOCK;
		size_t cap = n > grown ? n : grown;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		if (*a && n > grown) {
			/* a big block goes behind the current one, which keeps its room */
			b->next = (*a)->next;
			(*a)->next = b;
		} else {
			b->next = *a;
			*a = b;
		}
		at = 0;
	}
	out = b->data + at;
	b->used = at + n;
	return out;
}

void *base_arena_alloc(struct gs_arena **a, size_t n)
{
	void *p = take(a, n ? n : 1, alignof(max_align_t));

	if (p)
		memset(p, 0, n ? n : 1);
	return p;
}

char *base_arena_strndup(struct gs_arena **a, const char *s, size_t len)
{
	char *out = len < SIZE_MAX ? take(a, len + 1, 1) : NULL;

	if (out) {
		if (len)
			memcpy(out, s, len);
		out[len] = '\0';
	}
	return out;
}

char *base_arena_strdup(struct gs_arena **a, const char *s)
{
	return base_arena_strndup(a, s ? s : "", s ? strlen(s) : 0);
}

char *base_arena_vformat(struct gs_arena **a, const char *fmt, va_list ap)
{
	char buf[256];
	va_list again;
	int n;
	char *out;

	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0) {
		va_end(again);
		return base_arena_strndup(a, "", 0);
	}
	if ((size_t)n < sizeof(buf)) {
		va_end(again);
		return base_arena_strndup(a, buf, (size_t)n);
	}
	out = take(a, (size_t)n + 1, 1);
	if (out)
		vsnprintf(out, (size_t)n + 1, fmt, again);
	va_end(again);
	return out;
}

char *base_arena_format(struct gs_arena **a, const char *fmt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, fmt);
	out = base_arena_vformat(a, fmt, ap);
	va_end(ap);
	return out;
}

int base_arena_grow(struct gs_arena **a, void *v, size_t *cap, size_t n, size_t elem)
{
	void *old, *grown;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	if (!elem || ncap > SIZE_MAX / 2 / elem)
		return -ENOMEM;
	grown = base_arena_alloc(a, ncap * elem);
	if (!grown)
		return -ENOMEM;
	memcpy(&old, v, sizeof(old));
	if (n)
		memcpy(grown, old, n * elem);
	memcpy(v, &grown, sizeof(grown));
	*cap = ncap;
	return 0;
}

void base_arena_free(struct gs_arena **a)
{
	struct gs_arena *b = *a;

	while (b) {
		struct gs_arena *next = b->next;

		free(b);
		b = next;
	}
	*a = NULL;
}
