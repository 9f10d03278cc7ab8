/* Qualified label names, private to the assembler: the disassembly and
 * the label errors of label.c name a label the same way (scope.c). */
#ifndef GS_ASM_SCOPE_H
#define GS_ASM_SCOPE_H

#include <gs/internal/asm.h>

/* ord[i] = the ordinal of label i among the labels of the same scope and
 * name (1, 2, ... in creation order), or 0 when its qualified name is
 * unique. ord has a->nlabels entries. 0 or -ENOMEM. */
int asm_label_ordinals(const struct gs_asm *a, uint32_t *ord);
/* The same for one label, by a scan (for error messages). */
uint32_t asm_label_ordinal(const struct gs_asm *a, uint32_t id);
/* "s2.f3.name.4" into buf (truncated to size); the length it needs. */
size_t asm_label_format(const struct gs_asm *a, uint32_t id, uint32_t ord, char *buf,
			size_t size);

#endif /* GS_ASM_SCOPE_H */
