/* The assembler as an embedder sees it: made and freed whole, read through
 * accessors, so its layout can change without breaking libgs's ABI. */
#include <stdlib.h>

#include <gs/internal/asm.h>

struct gs_asm *gs_asm_new(void)
{
	struct gs_asm *a = malloc(sizeof(*a));

	if (a)
		gs_asm_init(a);
	return a;
}

void gs_asm_free(struct gs_asm *a)
{
	if (!a)
		return;
	gs_asm_fini(a);
	free(a);
}

size_t gs_asm_pc(const struct gs_asm *a)
{
	return a->len;
}

const struct bpf_insn *gs_asm_insns(const struct gs_asm *a, size_t *n)
{
	*n = a->len;
	return a->insns;
}

const char *gs_asm_insn_note(const struct gs_asm *a, size_t i)
{
	return i < a->len && a->notes ? a->notes[i] : NULL;
}

const struct gs_reloc *gs_asm_relocs(const struct gs_asm *a, size_t *n)
{
	*n = a->nrelocs;
	return a->relocs;
}

const char *gs_asm_map_name(const struct gs_asm *a, uint32_t map)
{
	return map < a->nmaps ? a->maps[map] : NULL;
}

size_t gs_asm_map_count(const struct gs_asm *a)
{
	return a->nmaps;
}

int gs_asm_stack_size(const struct gs_asm *a)
{
	return a->stack_max;
}
