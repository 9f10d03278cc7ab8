/* The base library every layer may use: one arena, one growable array, and
 * the small helpers below (clock, array size, prefixes, lower bound).
 * Not installed; nothing here knows about tracing.
 *
 * An arena is a chain of blocks owned by one object (a script, a trace
 * context, an assembler, a DWARF handle) and freed with it at once, so the
 * many small nodes and names such an object holds cost no malloc each. A
 * NULL `struct gs_arena *` is an empty arena. Blocks double from 256 bytes
 * to 16 KiB as the arena is used (100,000 small programs pay for little);
 * a request larger than that gets a block of its own, behind the current
 * one so that block keeps its room. */
#ifndef GS_BASE_H
#define GS_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

struct gs_arena;

/* n zeroed bytes aligned for any object; NULL on ENOMEM (n == 0 gives a
 * valid distinct pointer). */
void *base_arena_alloc(struct gs_arena **a, size_t n);
/* len bytes of s and a NUL, packed (no alignment); NULL on ENOMEM. */
char *base_arena_strndup(struct gs_arena **a, const char *s, size_t len);
/* s, or "" for NULL, copied; NULL on ENOMEM. */
char *base_arena_strdup(struct gs_arena **a, const char *s);
/* printf into the arena, whole; NULL on ENOMEM. */
__attribute__((format(printf, 2, 0)))
char *base_arena_vformat(struct gs_arena **a, const char *fmt, va_list ap);
__attribute__((format(printf, 2, 3)))
char *base_arena_format(struct gs_arena **a, const char *fmt, ...);
/* Room for n + 1 elements of elem bytes in the array *(void **)v of
 * capacity *cap, taken from the arena (the old room stays there until the
 * arena goes): for arrays whose owner is an arena's. 0 or -ENOMEM. */
int base_arena_grow(struct gs_arena **a, void *v, size_t *cap, size_t n, size_t elem);
void base_arena_free(struct gs_arena **a);

/* The growable array: room for `need` elements of `elem` bytes in *v
 * (capacity *cap), doubling from 16. 0, or -ENOMEM with *v and *cap as
 * they were. */
int base_grow(void **v, size_t *cap, size_t need, size_t elem);
/* Gives back the room past n elements (n > 0; nothing on ENOMEM). */
void base_shrink(void **v, size_t *cap, size_t n, size_t elem);

/* CLOCK_MONOTONIC in nanoseconds (and milliseconds): what phases are
 * timed with and waits, refreshes and ticks are paced by, in every layer;
 * no change of the wall clock moves it. */
static inline int64_t base_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static inline int64_t base_now_ms(void)
{
	return base_now_ns() / 1000000;
}

/* The number of elements of an array (not of a pointer: that does not
 * compile, since gcc tells the two apart). */
#define BASE_ARRAY_SIZE(a)                                                              \
	(sizeof(a) / sizeof((a)[0]) +                                                   \
	 0 * sizeof(struct { int not_an_array : __builtin_types_compatible_p(           \
				     __typeof__(a), __typeof__(&(a)[0])) ? -1 : 1; }))

/* Whether s starts with prefix (the length is the prefix's own, never
 * counted by hand). */
/* The value of a hexadecimal digit (either case), or -1 for any other
 * byte. */
static inline int base_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline bool base_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What follows prefix in s, or NULL when s does not start with it. */
static inline const char *base_after_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* The lower-bound search, the one binary search of the tree: the first i
 * in [lo, hi) for which below(ctx, i) is false, or hi when there is none.
 * below must hold for a prefix of the range and fail after it (elements
 * sorted by the key it compares). Inline so that a static predicate is
 * inlined too: several callers are on hot paths (rows, symbols). */
static inline size_t base_lower_bound(size_t lo, size_t hi, const void *ctx,
				      bool (*below)(const void *ctx, size_t i))
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (below(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif /* GS_BASE_H */
