/* Expressions of the script, evaluated into r0 (clobbering r0-r5): integer
 * literals, special variables, pt_regs registers, `let` variables,
 * arithmetic and comparisons with C precedence already resolved by the
 * parser, and dereferences of user memory through bpf_probe_read_user with
 * the status semantics of reference spec 5.10. */
#include <errno.h>

#include "cg.h"

static bool is_simple(const struct gs_expr *e)
{
	switch (e->kind) {
	case GS_EXPR_INT:
	case GS_EXPR_REG:
	case GS_EXPR_VAR:
		return true;
	case GS_EXPR_SPECIAL:
		return e->special == GS_SPECIAL_PC || e->special == GS_SPECIAL_SP ||
		       e->special == GS_SPECIAL_RETVAL;
	default:
		return false;
	}
}

/* A division or modulo whose divisor may be zero at run time. */
static bool divides_unsafely(const struct gs_expr *e)
{
	return e->kind == GS_EXPR_BINARY && (e->op == GS_OP_DIV || e->op == GS_OP_MOD) &&
	       !(e->rhs && e->rhs->kind == GS_EXPR_INT && e->rhs->value != 0);
}

/* Whether e can fail at run time (a read, or a division by zero): its
 * callers then keep an error record for it. */
static enum gs_visit can_fail(struct gs_visitor *v, const struct gs_expr *e)
{
	(void)v;
	return divides_unsafely(e) || e->kind == GS_EXPR_DEREF || gs_expr_is_value(e) ?
		       GS_VISIT_STOP : GS_VISIT_CONTINUE;
}

bool cg_expr_reads_memory(const struct gs_expr *e)
{
	struct gs_visitor v = { .expr = can_fail };

	return gs_visit_expr(&v, e);
}

static bool fits_imm(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static void load_int(struct gs_cg *cg, uint8_t reg, int64_t v)
{
	if (fits_imm(v))
		gs_asm_emit(cg->a, GS_MOV64_IMM(reg, (int32_t)v));
	else
		gs_asm_ld_imm64(cg->a, reg, (uint64_t)v);
}

/* A DWARF register's pt_regs offset, or -1 after failing the build. */
static int reg_offset(struct gs_cg *cg, const struct gs_expr *e)
{
	if (e->reg <= GS_DWARF_REG_MAX)
		return gs_dwarf_reg_pt_regs_offset[e->reg];
	if (e->reg >= 17 && e->reg <= 32)
		cg_fail_at(cg, e, -EINVAL, "%s: uprobe pt_regs does not expose XMM register values "
			"(DWARF register %u)", e->text ? e->text : "register", e->reg);
	else
		cg_fail_at(cg, e, -EINVAL, "%s: unsupported DWARF register %u (x86_64 has 0..16 "
			"in pt_regs)", e->text ? e->text : "register", e->reg);
	return -1;
}

/* Evaluates a simple expression (no helper call) straight into `reg`. */
static void simple_into(struct gs_cg *cg, const struct gs_expr *e, uint8_t reg)
{
	struct gs_asm *a = cg->a;
	int off;

	switch (e->kind) {
	case GS_EXPR_INT:
		load_int(cg, reg, e->value);
		break;
	case GS_EXPR_REG:
		off = reg_offset(cg, e);
		if (off >= 0)
			gs_asm_emit(a, GS_LDX_MEM(BPF_DW, reg, GS_R6, off));
		break;
	case GS_EXPR_VAR:
		if (e->var >= cg->spec->nvars) {
			cg_fail(cg, -EINVAL, "variable %s (index %u) was never defined with let",
				e->text ? e->text : "?", e->var);
			break;
		}
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, reg, GS_FP, cg->var_slots[e->var]));
		break;
	default: /* $pc, $sp, $retval */
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, reg, GS_R6, e->special == GS_SPECIAL_PC ?
					  GS_PT_REGS_IP : e->special == GS_SPECIAL_SP ?
					  GS_PT_REGS_SP : GS_PT_REGS_AX));
		break;
	}
}

/* $pid and $tid as seen in the configured PID namespace (helper 120),
 * falling back to host values when the helper fails. */
static void special_pid(struct gs_cg *cg, enum gs_special which)
{
	struct gs_asm *a = cg->a;
	const struct gs_program_opts *o = &cg->opts;
	uint64_t dev = o->pid_ns_ino ? o->pid_ns_dev : o->special_ns_dev;
	uint64_t ino = o->pid_ns_ino ? o->pid_ns_ino : o->special_ns_ino;
	struct gs_label host = gs_asm_label(a, "pid_host_fallback");
	struct gs_label done = gs_asm_label(a, "pid_done");

	if (ino) {
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, cg->nsinfo_slot, 0));
		gs_asm_ld_imm64(a, GS_R1, dev);
		gs_asm_ld_imm64(a, GS_R2, ino);
		gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, cg->nsinfo_slot));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 8));
		gs_asm_call(a, BPF_FUNC_get_ns_current_pid_tgid);
		gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, host);
		/* struct bpf_pidns_info { u32 pid; u32 tgid; } */
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R0, GS_FP,
					  cg->nsinfo_slot + (which == GS_SPECIAL_TID ? 0 : 4)));
		gs_asm_ja(a, done);
	}
	gs_asm_bind(a, host);
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	if (which == GS_SPECIAL_TID)
		gs_asm_emit(a, GS_MOV32_REG(GS_R0, GS_R0));
	else
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
	gs_asm_bind(a, done);
}

static void special(struct gs_cg *cg, const struct gs_expr *e)
{
	struct gs_asm *a = cg->a;

	switch (e->special) {
	case GS_SPECIAL_PID:
	case GS_SPECIAL_TID:
		special_pid(cg, e->special);
		break;
	case GS_SPECIAL_HOST_PID:
		gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
		break;
	case GS_SPECIAL_TIMESTAMP:
		gs_asm_call(a, BPF_FUNC_ktime_get_ns);
		break;
	default:
		simple_into(cg, e, GS_R0);
		break;
	}
}



/* *(size *)(addr): NULL -> NullDeref, helper error -> ReadError with its
 * errno and the address; either way the value is 0 and any_fail is set. */
static void deref(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	size_t mark = gs_asm_stack_mark(a);
	int16_t addr = gs_asm_slot(a, "read_addr", 8, 8);
	int16_t buf = gs_asm_slot(a, "read_buf", 8, 8);
	struct gs_label null = gs_asm_label(a, "read_null");
	struct gs_label failed = gs_asm_label(a, "read_failed");
	struct gs_label done = gs_asm_label(a, "read_done");
	int shift = 64 - 8 * e->size;
	const char *prev;

	if (e->size != 1 && e->size != 2 && e->size != 4 && e->size != 8) {
		cg_fail_at(cg, e, -EINVAL, "%s: a read is 1, 2, 4 or 8 bytes, not %u",
			e->text ? e->text : "dereference", e->size);
		return;
	}
	cg_expr(cg, e->lhs, rec);
	prev = gs_asm_notef(a, "read %u bytes of user memory: %s", e->size, e->text ? e->text : "*");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, addr));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R0));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, null);
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = buf,
						 .len = e->size });
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, failed);
	gs_asm_emit(a, GS_LDX_MEM(cg_bpf_size(e->size), GS_R0, GS_FP, buf));
	if (e->is_signed && shift) {
		gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R0, shift));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R0, shift));
	}
	cg_mark_success(cg);
	gs_asm_ja(a, done);

	gs_asm_bind(a, null);
	gs_asm_note(a, "read of NULL: status NullDeref");
	cg_error_tail(cg, rec, GS_VAR_NULL_DEREF, false, 0, NULL);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_ja(a, done);

	gs_asm_bind(a, failed);
	gs_asm_note(a, "read failed: status ReadError {errno, addr}");
	cg_error_tail(cg, rec, GS_VAR_READ_ERROR, true, addr, NULL);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_bind(a, done);
	gs_asm_note(a, prev);
	gs_asm_stack_release(a, mark);
}

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

static bool is_compare(int op)
{
	return op >= GS_OP_EQ && op <= GS_OP_GE;
}

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
	} else if (is_compare(op)) {
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

/* reg holds a value of C type `from` (sign- or zero-extended to 64 bits);
 * make it the same value converted to `to`, as C converts: nothing to do
 * when every value of `from` is one of `to`. */
void cg_convert(struct gs_cg *cg, uint8_t reg, struct gs_ctype from, struct gs_ctype to)
{
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

struct gs_ctype cg_ctype(const struct gs_cg *cg, const struct gs_expr *e)
{
	return gs_typed_get(cg->typed, e);
}

/* lhs op rhs in the types the typed pass chose: both sides converted to
 * the operands' type (a shift's count is not), the operation in its
 * signedness, the result cut to its type where it can overflow. */
static void binary(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
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
	if (e->rhs->kind == GS_EXPR_INT && fits_imm(k)) {
		/* BPF sign-extends the immediate: right for every 64-bit value
		 * in int32 range, whatever the operands' signedness. */
		apply(cg, e->op, true, (int32_t)k, o.operands, rec);
	} else if (e->rhs->kind == GS_EXPR_INT) {
		gs_asm_ld_imm64(a, GS_R1, (uint64_t)k);
		apply(cg, e->op, false, 0, o.operands, rec);
	} else if (is_simple(e->rhs)) {
		simple_into(cg, e->rhs, GS_R1);
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

static void unary(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
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

void cg_expr(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	if (!e) {
		cg_fail(cg, -EINVAL, "an expression is missing (NULL operand)");
		return;
	}
	switch (e->kind) {
	case GS_EXPR_SPECIAL:
		special(cg, e);
		break;
	case GS_EXPR_UNARY:
		unary(cg, e, rec);
		break;
	case GS_EXPR_BINARY:
		binary(cg, e, rec);
		break;
	case GS_EXPR_DEREF:
		if (e->size)
			deref(cg, e, rec);
		else
			cg_value_expr(cg, e, rec);
		break;
	case GS_EXPR_NAME:
	case GS_EXPR_MEMBER:
	case GS_EXPR_INDEX:
	case GS_EXPR_ADDR:
	case GS_EXPR_CAST:
		cg_value_expr(cg, e, rec);
		break;
	case GS_EXPR_BUILTIN:
		cg_builtin(cg, e, rec);
		break;
	case GS_EXPR_BYTES:
		cg_fail_at(cg, e, -EINVAL, "%s: a string or hex() is not a number: compare it (s == "
			"\"lit\", memcmp, strncmp, starts_with) or print it", e->text ? e->text : "hex(...)");
		break;
	default:
		simple_into(cg, e, GS_R0);
		break;
	}
}

/* Type table index of a value of e's type; *size is its byte size. */
int cg_expr_type(struct gs_cg *cg, const struct gs_expr *e, uint8_t *size)
{
	static const char *const deref_names[2][4] = {
		{ "u8", "u16", "u32", "u64" }, { "i8", "i16", "i32", "i64" },
	};
	static const uint8_t deref_kinds[2][4] = {
		{ GS_TYPE_U8, GS_TYPE_U16, GS_TYPE_U32, GS_TYPE_U64 },
		{ GS_TYPE_I8, GS_TYPE_I16, GS_TYPE_I32, GS_TYPE_I64 },
	};
	struct gs_trace_context *ctx = &cg->prog->ctx;
	int *slot;

	if (cg_is_value(cg, e)) {
		const struct gs_type *t = cg_value_type(cg, e);

		if (!t)
			return -EINVAL;
		*size = t->byte_size > 255 ? 255 : (uint8_t)t->byte_size;
		return cg_context_type(cg, t);
	}
	if (e->kind == GS_EXPR_DEREF && (e->size == 1 || e->size == 2 || e->size == 4 ||
					 e->size == 8)) {
		int lg = e->size == 8 ? 3 : e->size == 4 ? 2 : e->size == 2 ? 1 : 0;

		slot = &cg->values->type_deref[e->is_signed][lg];
		*size = e->size;
		if (*slot < 0)
			*slot = gs_context_type(ctx, deref_kinds[e->is_signed][lg], e->size,
						deref_names[e->is_signed][lg], cg->err);
		return *slot;
	}
	if ((e->kind == GS_EXPR_BINARY && (is_compare(e->op) || e->op == GS_OP_LAND ||
					   e->op == GS_OP_LOR)) ||
	    (e->kind == GS_EXPR_UNARY && e->op == '!')) {
		*size = 1;
		if (cg->values->type_bool < 0)
			cg->values->type_bool = gs_context_type(ctx, GS_TYPE_BOOL, 1, "bool", cg->err);
		return cg->values->type_bool;
	}
	*size = 8;
	/* A computed value is shown as the 64-bit integer of its C type's
	 * signedness: the register holds its value, extended as C says. */
	if (!cg_ctype(cg, e).is_signed) {
		if (cg->values->type_u64 < 0)
			cg->values->type_u64 = gs_context_type(ctx, GS_TYPE_U64, 8, "u64", cg->err);
		return cg->values->type_u64;
	}
	if (cg->values->type_i64 < 0)
		cg->values->type_i64 = gs_context_type(ctx, GS_TYPE_I64, 8, "i64", cg->err);
	return cg->values->type_i64;
}
