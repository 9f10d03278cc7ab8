/* Array growth and the string arena of the assembler. Strings are bumped
 * into blocks that double from 256 bytes to 4 KiB (larger strings get a
 * block of their own) and are all freed at once, so a label name or note
 * costs no malloc of its own, and a small program's few names no 4 KiB. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

#define GS_ARENA_BLOCK 4096
#define GS_ARENA_FIRST 256

struct gs_arena_block {
	struct gs_arena_block *next;
	size_t used, cap;
	char data[];
};

int asm_grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*ptr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*ptr = p;
	*cap = ncap;
	return 0;
}

void asm_shrink(void **ptr, size_t *cap, size_t n, size_t elem)
{
	void *p;

	if (n == 0 || n >= *cap || !(p = realloc(*ptr, n * elem)))
		return;
	*ptr = p;
	*cap = n;
}

char *asm_arena_strndup(struct gs_arena_block **arena, const char *s, size_t len)
{
	struct gs_arena_block *b = *arena;
	char *out;

	if (len >= SIZE_MAX - sizeof(*b) - GS_ARENA_BLOCK)
		return NULL;
	if (!b || b->cap - b->used < len + 1) {
		/* 100,000 programs of a few names each: blocks grow with use */
		size_t grown = !b ? GS_ARENA_FIRST : b->cap < GS_ARENA_BLOCK ? 2 * b->cap :
			       GS_ARENA_BLOCK;
		size_t cap = len + 1 > grown ? len + 1 : grown;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = *arena;
		*arena = b;
	}
	out = b->data + b->used;
	memcpy(out, s, len);
	out[len] = '\0';
	b->used += len + 1;
	return out;
}

char *asm_arena_vformat(struct gs_arena_block **arena, const char *fmt, va_list ap)
{
	char buf[256];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return asm_arena_strndup(arena, buf, (size_t)n);
}

void asm_arena_free(struct gs_arena_block **arena)
{
	struct gs_arena_block *b = *arena;

	while (b) {
		struct gs_arena_block *next = b->next;

		free(b);
		b = next;
	}
	*arena = NULL;
}
