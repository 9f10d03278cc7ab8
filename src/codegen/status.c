/* What an event reports about its reads, at the bottom of the code
 * generator (emitters call it, it calls no emitter): the any_fail and
 * any_success flags EndInstruction turns into the execution status, and
 * the first error of a value or condition kept in its error record. */
#include <assert.h>

#include "cg.h"

void cg_mark_fail(struct gs_cg *cg)
{
	gs_asm_emit(cg->a, GS_ST_MEM(BPF_B, GS_FP, cg->flags_slot, CG_FLAG_YES));
}

void cg_mark_success(struct gs_cg *cg)
{
	gs_asm_emit(cg->a, GS_ST_MEM(BPF_B, GS_FP, cg->flags_slot + 1, CG_FLAG_YES));
}

/* All of code, pad and errno at once: a store of the whole 8 bytes ends
 * the verifier's interest in what the slot held, so the states after an
 * `if` do not differ by the last condition's error (docs/cli.md). */
void cg_err_record_reset(struct gs_cg *cg, const struct cg_err_record *rec)
{
	assert(!rec || cg_slot_held(cg->a, rec->slot, sizeof(struct cg_err_slot)));
	if (rec)
		gs_asm_emit(cg->a, GS_ST_MEM(BPF_DW, GS_FP, rec->slot, 0));
}

/* First error wins: code (and errno in r1, addr in r2) only when none yet. */
void cg_record_error(struct gs_cg *cg, const struct cg_err_record *rec, uint8_t code)
{
	struct gs_asm *a = cg->a;
	struct gs_label kept = gs_asm_label(a, "first_error_kept");

	assert(!rec || cg_slot_held(a, rec->slot, sizeof(struct cg_err_slot)));
	cg_mark_fail(cg);
	if (!rec)
		return;
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R3, GS_FP, rec->slot + CG_ERR(code)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R3, 0, kept);
	CG_ST_FIELD(a, GS_FP, rec->slot, struct cg_err_slot, code, code);
	CG_STX_FIELD(a, GS_FP, rec->slot, struct cg_err_slot, err, GS_R1);
	CG_STX_FIELD(a, GS_FP, rec->slot, struct cg_err_slot, addr, GS_R2);
	gs_asm_bind(a, kept);
}

void cg_error_tail(struct gs_cg *cg, const struct cg_err_record *rec, uint8_t code,
		   bool errno_in_r0, int16_t addr_slot, const struct gs_label *fail)
{
	struct gs_asm *a = cg->a;

	assert(!addr_slot || cg_slot_held(a, addr_slot, 8));
	gs_asm_emit(a, errno_in_r0 ? GS_MOV64_REG(GS_R1, GS_R0) : GS_MOV64_IMM(GS_R1, 0));
	gs_asm_emit(a, addr_slot ? GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, addr_slot) :
			  GS_MOV64_IMM(GS_R2, 0));
	cg_record_error(cg, rec, code);
	if (fail)
		gs_asm_ja(a, *fail);
}
