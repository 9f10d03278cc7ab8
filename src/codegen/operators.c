/* C's operators on script values, in the types the typed pass chose
 * (spec/ctype.c): arithmetic, shifts and bitwise operators, comparisons,
 * division and modulo with DivisionByZero, && and || with C's short
 * circuit, unary - ~ !. Operands are evaluated by cg_expr (expr.c) and
 * converted by convert.c. */
#include <errno.h>

#include "cg.h"

/* Signed division and modulo on any kernel (no BPF v4 sdiv): divide the
 * magnitudes, then fix the sign. lhs in r0, rhs in r1 (not zero: divmod
 * checks it). */
static void signed_divmod(struct gs_cg *cg, bool mod)
{
	struct gs_asm *a = cg->a;
	struct gs_label lhs_pos = gs_asm_label(a, "div_lhs_positive");
	struct gs_label rhs_pos = gs_asm_label(a, "div_rhs_positive");
	struct gs_label res_pos = gs_asm_label(a, "div_result_positive");

	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R0));
	if (!mod)
		gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, GS_R2, GS_R1));
	gs_asm_jmp_imm(a, BPF_JSGE, GS_R0, 0, lhs_pos);
	gs_asm_emit(a, GS_NEG64(GS_R0));
	gs_asm_bind(a, lhs_pos);
	gs_asm_jmp_imm(a, BPF_JSGE, GS_R1, 0, rhs_pos);
	gs_asm_emit(a, GS_NEG64(GS_R1));
	gs_asm_bind(a, rhs_pos);
	gs_asm_emit(a, GS_ALU64_REG(mod ? BPF_MOD : BPF_DIV, GS_R0, GS_R1));
	gs_asm_jmp_imm(a, BPF_JSGE, GS_R2, 0, res_pos);
	gs_asm_emit(a, GS_NEG64(GS_R0));
	gs_asm_bind(a, res_pos);
}

static const uint8_t alu_op[] = {
	[GS_OP_ADD] = BPF_ADD, [GS_OP_SUB] = BPF_SUB, [GS_OP_MUL] = BPF_MUL,
	[GS_OP_SHL] = BPF_LSH, [GS_OP_SHR] = BPF_ARSH, [GS_OP_AND] = BPF_AND,
	[GS_OP_OR] = BPF_OR, [GS_OP_XOR] = BPF_XOR,
};

static const uint8_t cmp_op[] = {
	[GS_OP_EQ] = BPF_JEQ, [GS_OP_NE] = BPF_JNE, [GS_OP_LT] = BPF_JSLT,
	[GS_OP_LE] = BPF_JSLE, [GS_OP_GT] = BPF_JSGT, [GS_OP_GE] = BPF_JSGE,
};

static const uint8_t ucmp_op[] = {
	[GS_OP_EQ] = BPF_JEQ, [GS_OP_NE] = BPF_JNE, [GS_OP_LT] = BPF_JLT,
	[GS_OP_LE] = BPF_JLE, [GS_OP_GT] = BPF_JGT, [GS_OP_GE] = BPF_JGE,
};

/* r0 = r0 / or % r1 in C's signedness: BPF's own for unsigned operands. */
static void divide(struct gs_cg *cg, bool mod, bool uns)
{
	if (uns)
		gs_asm_emit(cg->a, GS_ALU64_REG(mod ? BPF_MOD : BPF_DIV, GS_R0, GS_R1));
	else
		signed_divmod(cg, mod);
}

/* r0 = r0 / or % (r1 or imm). A zero divisor is an error of the
 * expression (status DivisionByZero, value 0), not BPF's silent 0 or
 * dividend: a condition then gives ExprError, a print shows the status. */
static void divmod(struct gs_cg *cg, bool mod, bool use_imm, int32_t imm, bool uns,
		   const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	struct gs_label zero = gs_asm_label(a, "div_by_zero");
	struct gs_label done = gs_asm_label(a, "div_done");

	if (use_imm && imm != 0) {
		gs_asm_emit(a, GS_MOV64_IMM(GS_R1, imm));
		divide(cg, mod, uns);
		return;
	}
	if (!use_imm) {
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, zero);
		divide(cg, mod, uns);
		gs_asm_ja(a, done);
	}
	gs_asm_bind(a, zero);
	gs_asm_note(a, "division by zero: status DivisionByZero");
	cg_error_tail(cg, rec, GS_VAR_DIV_BY_ZERO, false, 0, NULL);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_bind(a, done);
}

/* r0 = r0 op (r1 or imm), both operands of C type `t` (the typed pass's
 * choice): its signedness picks division, modulo, right shift and
 * comparison. */
static void apply(struct gs_cg *cg, int op, bool use_imm, int32_t imm, struct gs_ctype t,
		  const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	bool uns = !t.is_signed;

	if (op == GS_OP_DIV || op == GS_OP_MOD) {
		divmod(cg, op == GS_OP_MOD, use_imm, imm, uns, rec);
	} else if (cg_op_is_compare(op)) {
		struct gs_label yes = gs_asm_label(a, "compare_true");

		gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R0));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
		if (use_imm)
			gs_asm_jmp_imm(a, (uns ? ucmp_op : cmp_op)[op], GS_R2, imm, yes);
		else
			gs_asm_jmp_reg(a, (uns ? ucmp_op : cmp_op)[op], GS_R2, GS_R1, yes);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
		gs_asm_bind(a, yes);
	} else if (use_imm) {
		/* A shift by a register is masked to 0..63 at run time; a constant
		 * count gets the same masking here (the ISA refuses others). */
		if (op == GS_OP_SHL || op == GS_OP_SHR)
			imm &= 63;
		gs_asm_emit(a, GS_ALU64_IMM(op == GS_OP_SHR && uns ? BPF_RSH : alu_op[op], GS_R0, imm));
	} else {
		gs_asm_emit(a, GS_ALU64_REG(op == GS_OP_SHR && uns ? BPF_RSH : alu_op[op], GS_R0, GS_R1));
	}
}

/* r0 = side as a truth value of && and ||: a struct or union is true when
 * it can be read (GhostScope's `1 || *c.friend_ref`; C refuses it), any
 * other operand as cg_expr gives it. */
static void truth(struct gs_cg *cg, const struct gs_expr *side, const struct cg_err_record *rec)
{
	const struct gs_type *t = cg_is_value(cg, side) ? cg_value_type(cg, side) : NULL;

	if (t && (t->kind == GS_TYPE_STRUCT || t->kind == GS_TYPE_UNION)) {
		struct gs_label zero = gs_asm_label(cg->a, "object_unreadable");

		cg_object_address(cg, side, rec);
		gs_asm_jmp_imm(cg->a, BPF_JEQ, GS_R0, 0, zero);
		gs_asm_emit(cg->a, GS_MOV64_IMM(GS_R0, 1));
		gs_asm_bind(cg->a, zero);
		return;
	}
	cg_expr(cg, side, rec);
}

/* && and ||: the right side runs only when the left does not decide. */
static void logical(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	struct gs_label one = gs_asm_label(a, "logical_true");
	struct gs_label done = gs_asm_label(a, "logical_done");

	truth(cg, e->lhs, rec);
	if (e->op == GS_OP_LAND)
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
	else
		gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, one);
	truth(cg, e->rhs, rec);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
	gs_asm_bind(a, one);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_bind(a, done);
}

/* lhs op rhs in the types the typed pass chose: both sides converted to
 * the operands' type (a shift's count is not), the operation in its
 * signedness, the result cut to its type where it can overflow. */
void cg_binary(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	struct gs_ctype lt, rt;
	struct gs_ctype_op o;
	bool shift = e->op == GS_OP_SHL || e->op == GS_OP_SHR;
	int64_t k;

	if (e->op == GS_OP_LAND || e->op == GS_OP_LOR) {
		logical(cg, e, rec);
		return;
	}
	if (e->op < 0 || e->op > GS_OP_GE) {
		cg_fail_at(cg, e, -EINVAL, "%s: unknown binary operator %d", e->text ? e->text : "?", e->op);
		return;
	}
	if ((e->op == GS_OP_EQ || e->op == GS_OP_NE) &&
	    (e->lhs->kind == GS_EXPR_BYTES || e->rhs->kind == GS_EXPR_BYTES)) {
		cg_string_equal(cg, e, rec);
		return;
	}
	lt = cg_ctype(cg, e->lhs);
	rt = cg_ctype(cg, e->rhs);
	if ((e->op == GS_OP_ADD || e->op == GS_OP_SUB) &&
	    (lt.kind == GS_CT_POINTER || rt.kind == GS_CT_POINTER)) {
		cg_pointer_arith(cg, e, rec);
		return;
	}
	o = gs_ctype_binary(e->op, lt, rt);
	cg_expr(cg, e->lhs, rec);
	cg_convert(cg, GS_R0, lt, o.operands);
	k = shift ? e->rhs->value : gs_ctype_convert(e->rhs->value, o.operands);
	if (e->rhs->kind == GS_EXPR_INT && cg_fits_imm(k)) {
		/* BPF sign-extends the immediate: right for every 64-bit value
		 * in int32 range, whatever the operands' signedness. */
		apply(cg, e->op, true, (int32_t)k, o.operands, rec);
	} else if (e->rhs->kind == GS_EXPR_INT) {
		gs_asm_ld_imm64(a, GS_R1, (uint64_t)k);
		apply(cg, e->op, false, 0, o.operands, rec);
	} else if (cg_expr_is_simple(e->rhs)) {
		cg_simple_into(cg, e->rhs, GS_R1);
		if (!shift)
			cg_convert(cg, GS_R1, rt, o.operands);
		apply(cg, e->op, false, 0, o.operands, rec);
	} else {
		size_t mark = gs_asm_stack_mark(a);
		int16_t lhs = gs_asm_slot(a, "binary_lhs", 8, 8);

		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, lhs));
		cg_expr(cg, e->rhs, rec);
		if (!shift)
			cg_convert(cg, GS_R0, rt, o.operands);
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R0));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, lhs));
		gs_asm_stack_release(a, mark);
		apply(cg, e->op, false, 0, o.operands, rec);
	}
	/* Bitwise operators, division and right shifts of values that fit
	 * the type give values that fit; these may carry past its width. */
	if (e->op == GS_OP_ADD || e->op == GS_OP_SUB || e->op == GS_OP_MUL || e->op == GS_OP_SHL)
		cg_normalize(cg, GS_R0, o.result);
}

void cg_unary(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;

	cg_expr(cg, e->lhs, rec);
	if (e->op == '-' || e->op == '~') {
		struct gs_ctype t = cg_ctype(cg, e);

		cg_convert(cg, GS_R0, cg_ctype(cg, e->lhs), t);
		if (e->op == '-')
			gs_asm_emit(a, GS_NEG64(GS_R0));
		else
			gs_asm_emit(a, GS_ALU64_IMM(BPF_XOR, GS_R0, -1));
		/* a signed result stays sign-extended; an unsigned one is cut */
		if (!t.is_signed)
			cg_normalize(cg, GS_R0, t);
	} else if (e->op == '!') {
		struct gs_label zero = gs_asm_label(a, "not_zero_operand");

		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R0));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, zero);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
		gs_asm_bind(a, zero);
	} else {
		cg_fail_at(cg, e, -EINVAL, "%s: unknown unary operator '%c'", e->text ? e->text : "?",
			e->op);
	}
}
