/* Memory helpers private to the assembler: growing arrays and a string
 * arena that owns label names, map names and formatted notes until the
 * assembler is reset or freed. */
#ifndef GS_ASM_MEM_H
#define GS_ASM_MEM_H

#include <stdarg.h>
#include <stddef.h>

struct gs_arena_block;

/* Makes room for `need` elements of `elem` bytes in *ptr (capacity *cap),
 * doubling. 0 or -ENOMEM (then *ptr and *cap are unchanged). */
int asm_grow(void **ptr, size_t *cap, size_t need, size_t elem);
/* Gives back the room past n elements (n > 0; nothing on ENOMEM). */
void asm_shrink(void **ptr, size_t *cap, size_t n, size_t elem);

struct gs_asm;
/* Every array of a finished assembler shrunk to its length (asm.c): a
 * plan holds one per probe until it is loaded. */
void asm_fit(struct gs_asm *a);

/* Copies len bytes of s plus a NUL into the arena; NULL on ENOMEM. */
char *asm_arena_strndup(struct gs_arena_block **arena, const char *s, size_t len);
/* Formats into the arena (at most 255 characters kept); NULL on ENOMEM. */
__attribute__((format(printf, 2, 0)))
char *asm_arena_vformat(struct gs_arena_block **arena, const char *fmt, va_list ap);
void asm_arena_free(struct gs_arena_block **arena);

#endif /* GS_ASM_MEM_H */
