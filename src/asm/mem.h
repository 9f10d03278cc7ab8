/* Memory helpers private to the assembler. Arrays grow with base_grow and
 * label names, map names and formatted notes live in the assembler's
 * arena (base.h) until it is reset or freed. */
#ifndef GS_ASM_MEM_H
#define GS_ASM_MEM_H

#include "base.h"

struct gs_asm;
/* Every array of a finished assembler shrunk to its length (asm.c): a
 * plan holds one per probe until it is loaded. */
void asm_fit(struct gs_asm *a);

#endif /* GS_ASM_MEM_H */
