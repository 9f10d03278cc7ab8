/* The base library every layer may use: one arena and one growable array.
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
#include <stddef.h>

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

#endif /* GS_BASE_H */
