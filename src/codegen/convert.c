/* C's conversions of a value in a register, between the typed pass's C
 * types (spec/ctype.c): to _Bool, and to a narrower or other-signed
 * integer by zero or sign extension. Every emitter that converts an
 * operand or a result uses these; they emit straight-line code (a jump
 * over one instruction for _Bool) and call no other emitter. */
#include <assert.h>

#include "cg.h"

/* reg holds a value of C type `from` (sign- or zero-extended to 64 bits);
 * make it the same value converted to `to`, as C converts: nothing to do
 * when every value of `from` is one of `to`. */
void cg_convert(struct gs_cg *cg, uint8_t reg, struct gs_ctype from, struct gs_ctype to)
{
	assert(cg_writable_reg(reg));
	if (to.kind == GS_CT_BOOL) {
		struct gs_label zero = gs_asm_label(cg->a, "bool_false");

		gs_asm_jmp_imm(cg->a, BPF_JEQ, reg, 0, zero);
		gs_asm_emit(cg->a, GS_MOV64_IMM(reg, 1));
		gs_asm_bind(cg->a, zero);
		return;
	}
	if (to.size == 8 || (from.kind != GS_CT_OTHER &&
			     ((from.size < to.size && (!from.is_signed || to.is_signed)) ||
			      (from.size == to.size && from.is_signed == to.is_signed))))
		return;
	cg_normalize(cg, reg, to);
}

/* reg's low to.size bytes as a value of `to`: zero- or sign-extended. */
void cg_normalize(struct gs_cg *cg, uint8_t reg, struct gs_ctype to)
{
	struct gs_asm *a = cg->a;
	int shift = 64 - 8 * to.size;

	assert(cg_writable_reg(reg));
	if (to.size >= 8)
		return;
	if (to.is_signed) {
		gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, reg, shift));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, reg, shift));
	} else if (to.size == 4) {
		gs_asm_emit(a, GS_MOV32_REG(reg, reg));
	} else {
		gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, reg, to.size == 2 ? 0xffff : 0xff));
	}
}
