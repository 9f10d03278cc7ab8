/* The emitters every kind of statement shares, one each: a map lookup,
 * a read of user memory (its second try after a fault: fault.c; a failed
 * one recorded by status.c). Each keeps the exact instructions its
 * callers emitted by hand before. With fail.c and status.c, the bottom
 * of the code generator: no emitter of a statement is called from here. */
#include <assert.h>

#include "cg.h"

void cg_map_lookup_at(struct gs_cg *cg, int map_kind, uint8_t key_base, int16_t key_off)
{
	struct gs_asm *a = cg->a;

	/* a map program.c declared for this program, a key in a register or
	 * in a slot of the frame */
	assert(map_kind >= 0 && map_kind < GS_MAP_KINDS && cg->prog->map_index[map_kind] >= 0);
	assert(key_base <= GS_FP && (key_base != GS_FP || cg_slot_held(a, key_off, 1)));
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

void cg_count_one(struct gs_cg *cg, int map_kind, struct gs_label missing)
{
	cg_map_lookup(cg, map_kind, cg->key_slot);
	gs_asm_jmp_imm(cg->a, BPF_JEQ, GS_R0, 0, missing);
	gs_asm_emit(cg->a, GS_MOV64_IMM(GS_R1, 1));
	gs_asm_emit(cg->a, GS_ATOMIC_ADD(BPF_DW, GS_R0, GS_R1, 0));
}


void cg_read_user(struct gs_cg *cg, const struct cg_user_read *r)
{
	struct gs_asm *a = cg->a;
	bool fault = cg_fault_read(cg->fault, r);
	struct gs_label ok;

	/* the destination: a pointer kept in a slot, or a register (our
	 * stack: len bytes of a slot); the slot the address is kept in */
	assert(r->dst_slot ? cg_slot_held(a, r->dst_slot, 8) : r->dst_base <= GS_FP);
	assert(r->dst_slot || r->dst_base != GS_FP || cg_slot_held(a, r->dst_off, r->len));
	assert(!r->save_addr || cg_slot_held(a, r->addr_slot, 8));
	assert(!r->load_src || r->src_base <= GS_FP);
	if (r->save_addr)
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, r->addr_slot));
	if (r->dst_slot)
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, r->dst_slot));
	else
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, r->dst_base));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, r->dst_off));
	if (!r->len_in_r2)
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)r->len));
	if (r->load_src) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, r->src_base, r->src_off));
		if (r->src_add)
			gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, r->src_add));
	}
	if (fault)
		cg_fault_save(a, cg->fault, r);
	gs_asm_call(a, r->str ? BPF_FUNC_probe_read_user_str : BPF_FUNC_probe_read_user);
	if (fault)
		cg_fault_retry(cg, r);
	if (!r->fail)
		return;
	/* The _str helper returns the bytes read, NUL included. */
	ok = gs_asm_label(a, r->ok_name ? r->ok_name : "read_ok");
	gs_asm_jmp_imm(a, r->str ? BPF_JSGE : BPF_JEQ, GS_R0, 0, ok);
	cg_error_tail(cg, r->rec, GS_VAR_READ_ERROR, true, r->addr_slot, r->fail);
	gs_asm_bind(a, ok);
}

void cg_add_offset(struct gs_cg *cg, uint8_t dst, int64_t offset)
{
	struct gs_asm *a = cg->a;
	uint8_t tmp = dst == GS_R5 ? GS_R4 : GS_R5;

	assert(cg_writable_reg(dst));
	if (cg_fits_imm(offset)) {
		if (offset)
			gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, dst, (int32_t)offset));
		return;
	}
	/* past an immediate's reach: through a scratch register */
	gs_asm_ld_imm64(a, tmp, (uint64_t)offset);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, dst, tmp));
}

void cg_signed_divmod(struct gs_cg *cg, uint8_t dst, uint8_t src, uint8_t tmp, uint8_t tmp2,
		      bool mod)
{
	struct gs_asm *a = cg->a;

	/* four registers, each written */
	assert(cg_writable_reg(dst) && cg_writable_reg(src) && cg_writable_reg(tmp) &&
	       cg_writable_reg(tmp2));
	assert(dst != src && dst != tmp && dst != tmp2 && src != tmp && src != tmp2 && tmp != tmp2);
	/* s = x >> 63 (all ones when negative): |x| = (x ^ s) - s, and the
	 * result's sign (the dividend's for %, both operands' for /) is put
	 * back the same way; no branch, so no verifier state to fork */
	gs_asm_emit(a, GS_MOV64_REG(tmp, dst));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, tmp, 63));
	gs_asm_emit(a, GS_MOV64_REG(tmp2, src));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, tmp2, 63));
	gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, dst, tmp));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, dst, tmp));
	gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, src, tmp2));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, src, tmp2));
	gs_asm_emit(a, GS_ALU64_REG(mod ? BPF_MOD : BPF_DIV, dst, src));
	if (!mod)
		gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, tmp, tmp2));
	gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, dst, tmp));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, dst, tmp));
}

bool cg_label_used(const struct gs_asm *a, size_t fixup_mark, struct gs_label l)
{
	assert(fixup_mark <= a->nfixups); /* a mark taken earlier in this program */
	for (size_t i = fixup_mark; i < a->nfixups; i++)
		if (a->fixups[i].label == l.id)
			return true;
	return false;
}
