/* The emitters every kind of statement shares, one each: a map lookup,
 * a read of user memory, the tail that records a failed read. Each keeps
 * the exact instructions its callers emitted by hand before. */
#include "cg.h"

void cg_map_lookup_at(struct gs_cg *cg, int map_kind, uint8_t key_base, int16_t key_off)
{
	struct gs_asm *a = cg->a;

	gs_asm_ld_map(a, GS_R1, (uint32_t)cg->prog->map_index[map_kind]);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, key_base));
	if (key_off)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, key_off));
	gs_asm_call(a, BPF_FUNC_map_lookup_elem);
}

void cg_lookup_key0(struct gs_cg *cg, int map_kind)
{
	cg_map_lookup(cg, map_kind, cg->key_slot);
	gs_asm_jmp_imm(cg->a, BPF_JEQ, GS_R0, 0, cg->exit0);
}
