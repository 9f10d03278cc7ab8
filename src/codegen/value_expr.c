/* A location program (gs/value.h) as BPF: the DWARF stack lives in stack
 * slots, entry i at dwarf_stack + 8 * i; the depth before each operation
 * is fixed by the dwarf layer, so every operation reads and writes known
 * slots and the verifier sees straight-line code with forward jumps.
 * Each deref is one bpf_probe_read_user whose failure is the value's
 * read error; a division by zero is the value's error (gdb: "Division by
 * zero"), an entry value whose call site did not match makes the value
 * <optimized out>, as gdb says. */
#include <errno.h>

#include "cg.h"

/* The program keeps the shape the dwarf layer promised: known depths,
 * forward jumps, pt_regs registers. Anything else is a bug upstream. */
static bool valid(const struct gs_loc_prog *pr, uint8_t *end_depth)
{
	int end = -1;

	if (!pr || !pr->ops || !pr->nops || pr->nops > GS_LOC_PROG_MAX_OPS ||
	    !pr->max_depth || pr->max_depth > GS_LOC_PROG_MAX_DEPTH)
		return false;
	for (uint16_t i = 0; i < pr->nops; i++) {
		const struct gs_loc_op *op = &pr->ops[i];
		unsigned d = op->depth, need = 0, after = d;

		switch (op->code) {
		case GS_LOP_CONST: case GS_LOP_MODULE: case GS_LOP_PICK: after = d + 1; break;
		case GS_LOP_REG:
			if (op->reg > GS_DWARF_REG_MAX)
				return false;
			after = d + 1;
			break;
		case GS_LOP_DEREF:
			if (!op->size || op->size > 8)
				return false;
			need = 1;
			break;
		case GS_LOP_NEG: case GS_LOP_NOT: case GS_LOP_ABS: case GS_LOP_CONVERT:
			need = 1;
			break;
		case GS_LOP_DROP: case GS_LOP_BRA: need = 1; after = d - 1; break;
		case GS_LOP_SWAP: need = 2; break;
		case GS_LOP_ROT: need = 3; break;
		case GS_LOP_SKIP: case GS_LOP_FAIL: case GS_LOP_NOP: break;
		default:
			if (op->code < GS_LOP_ADD || op->code > GS_LOP_GE)
				return false;
			need = 2;
			after = d - 1;
			break;
		}
		if (d < need || after > pr->max_depth || op->size > 8 ||
		    (op->code == GS_LOP_PICK && (op->arg < 0 || op->arg >= (int64_t)d)))
			return false;
		if ((op->code == GS_LOP_BRA || op->code == GS_LOP_SKIP) &&
		    (op->arg <= i || op->arg > pr->nops))
			return false;
		if ((op->code == GS_LOP_BRA || op->code == GS_LOP_SKIP) && op->arg == pr->nops) {
			if (end >= 0 && end != (int)after)
				return false;
			end = (int)after;
		}
		if (i + 1 == pr->nops && op->code != GS_LOP_SKIP && op->code != GS_LOP_FAIL) {
			if (end >= 0 && end != (int)after)
				return false;
			end = (int)after;
		}
	}
	if (end < 1)
		return false;
	*end_depth = (uint8_t)end;
	return true;
}

/* reg = reg cut to `size` bytes (1..7) and extended; 0 and 8: as it is. */
static void cut(struct gs_asm *a, uint8_t reg, uint8_t size, bool sign)
{
	if (!size || size >= 8)
		return;
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, reg, 64 - 8 * size));
	gs_asm_emit(a, GS_ALU64_IMM(sign ? BPF_ARSH : BPF_RSH, reg, 64 - 8 * size));
}

static void load_imm(struct gs_asm *a, uint8_t reg, int64_t v)
{
	if (v >= INT32_MIN && v <= INT32_MAX)
		gs_asm_emit(a, GS_MOV64_IMM(reg, (int32_t)v));
	else
		gs_asm_ld_imm64(a, reg, (uint64_t)v);
}

struct prog_ctx {
	struct gs_cg *cg;
	int16_t stack;  /* entry i at stack + 8 * i */
	int16_t buf;    /* a deref's destination */
	int16_t addr;   /* a deref's address, for its read error */
	uint64_t cookie;
	const struct cg_err_record *rec;
	struct gs_label fail;
};

static int16_t slot(const struct prog_ctx *c, unsigned i)
{
	return (int16_t)(c->stack + 8 * (int)i);
}

static void deref(const struct prog_ctx *c, const struct gs_loc_op *op, unsigned top)
{
	struct gs_asm *a = c->cg->a;
	uint8_t n = op->size;

	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, c->buf, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, slot(c, top)));
	cg_read_user(c->cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = c->buf,
						    .len = n, .save_addr = true,
						    .addr_slot = c->addr, .rec = c->rec,
						    .fail = &c->fail, .ok_name = "dwexpr_read_ok" });
	gs_asm_emit(a, GS_LDX_MEM(n == 1 || n == 2 || n == 4 ? cg_bpf_size(n) : BPF_DW, GS_R1,
				  GS_FP, c->buf));
	cut(a, GS_R1, n, op->flags & GS_LOPF_SIGNED);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, top)));
}

static void unavailable(const struct prog_ctx *c)
{
	cg_error_tail(c->cg, c->rec, GS_VAR_OPTIMIZED_OUT, false, 0, &c->fail);
}

/* A shift by the type's width or more: 0, or the sign for shra. */
static void shift(const struct prog_ctx *c, const struct gs_loc_op *op)
{
	struct gs_asm *a = c->cg->a;
	uint8_t bits = op->size && op->size < 8 ? 8 * op->size : 64;
	bool sign = op->flags & GS_LOPF_SIGNED;
	struct gs_label wide = gs_asm_label(a, "dwexpr_shift_wide");
	struct gs_label done = gs_asm_label(a, "dwexpr_shift_done");
	uint8_t code = op->code == GS_LOP_SHL ? BPF_LSH : op->code == GS_LOP_SHR ? BPF_RSH : BPF_ARSH;

	/* shr and shra see the value as unsigned and signed of its width */
	if (op->code == GS_LOP_SHR)
		cut(a, GS_R1, op->size, false);
	else if (op->code == GS_LOP_SHRA)
		cut(a, GS_R1, op->size, true);
	gs_asm_jmp_imm(a, BPF_JGE, GS_R2, bits, wide);
	gs_asm_emit(a, GS_ALU64_REG(code, GS_R1, GS_R2));
	gs_asm_ja(a, done);
	gs_asm_bind(a, wide);
	if (op->code == GS_LOP_SHRA)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R1, 63));
	else
		gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 0));
	gs_asm_bind(a, done);
	cut(a, GS_R1, op->size, sign);
}

static void compare(struct gs_asm *a, const struct gs_loc_op *op)
{
	static const uint8_t sjmp[] = { BPF_JEQ, BPF_JNE, BPF_JSLT, BPF_JSLE, BPF_JSGT, BPF_JSGE };
	static const uint8_t ujmp[] = { BPF_JEQ, BPF_JNE, BPF_JLT, BPF_JLE, BPF_JGT, BPF_JGE };
	struct gs_label yes = gs_asm_label(a, "dwexpr_compare_true");
	unsigned k = op->code - GS_LOP_EQ;

	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 1));
	gs_asm_jmp_reg(a, (op->flags & GS_LOPF_SIGNED ? sjmp : ujmp)[k], GS_R1, GS_R2, yes);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 0));
	gs_asm_bind(a, yes);
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R3));
}

/* pop b, pop a, push a OP b: r1 = a, r2 = b. */
static void binary(const struct prog_ctx *c, const struct gs_loc_op *op, unsigned d)
{
	static const uint8_t alu[] = {
		[GS_LOP_ADD] = BPF_ADD, [GS_LOP_SUB] = BPF_SUB, [GS_LOP_MUL] = BPF_MUL,
		[GS_LOP_AND] = BPF_AND, [GS_LOP_OR] = BPF_OR, [GS_LOP_XOR] = BPF_XOR,
	};
	struct gs_asm *a = c->cg->a;
	bool sign = op->flags & GS_LOPF_SIGNED;

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, slot(c, d - 2)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, slot(c, d - 1)));
	switch (op->code) {
	case GS_LOP_DIV:
	case GS_LOP_MOD: {
		struct gs_label nonzero = gs_asm_label(a, "dwexpr_divisor_not_zero");

		gs_asm_jmp_imm(a, BPF_JNE, GS_R2, 0, nonzero);
		cg_error_tail(c->cg, c->rec, GS_VAR_DIV_BY_ZERO, false, 0, &c->fail);
		gs_asm_bind(a, nonzero);
		if (sign)
			cg_signed_divmod(c->cg, GS_R1, GS_R2, GS_R3, GS_R4, op->code == GS_LOP_MOD);
		else
			gs_asm_emit(a, GS_ALU64_REG(op->code == GS_LOP_DIV ? BPF_DIV : BPF_MOD,
						    GS_R1, GS_R2));
		cut(a, GS_R1, op->size, sign);
		break;
	}
	case GS_LOP_SHL: case GS_LOP_SHR: case GS_LOP_SHRA:
		shift(c, op);
		break;
	case GS_LOP_EQ: case GS_LOP_NE: case GS_LOP_LT: case GS_LOP_LE: case GS_LOP_GT:
	case GS_LOP_GE:
		compare(a, op);
		break;
	default:
		gs_asm_emit(a, GS_ALU64_REG(alu[op->code], GS_R1, GS_R2));
		cut(a, GS_R1, op->size, sign);
		break;
	}
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, d - 2)));
}

static void unary(const struct prog_ctx *c, const struct gs_loc_op *op, unsigned d)
{
	struct gs_asm *a = c->cg->a;

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, slot(c, d - 1)));
	if (op->code == GS_LOP_NEG) {
		gs_asm_emit(a, GS_ALU64_IMM(BPF_NEG, GS_R1, 0));
	} else if (op->code == GS_LOP_NOT) {
		gs_asm_emit(a, GS_ALU64_IMM(BPF_XOR, GS_R1, -1));
	} else if (op->code == GS_LOP_ABS) {
		struct gs_label pos = gs_asm_label(a, "dwexpr_abs_positive");

		gs_asm_jmp_imm(a, BPF_JSGE, GS_R1, 0, pos);
		gs_asm_emit(a, GS_ALU64_IMM(BPF_NEG, GS_R1, 0));
		gs_asm_bind(a, pos);
	}
	cut(a, GS_R1, op->size, op->flags & GS_LOPF_SIGNED);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, d - 1)));
}

static void one_op(const struct prog_ctx *c, const struct gs_loc_op *op,
		   const struct gs_label *at)
{
	struct gs_asm *a = c->cg->a;
	unsigned d = op->depth;

	switch (op->code) {
	case GS_LOP_CONST:
		if (op->arg >= INT32_MIN && op->arg <= INT32_MAX) {
			gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, slot(c, d), (int32_t)op->arg));
			break;
		}
		load_imm(a, GS_R1, op->arg);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, d)));
		break;
	case GS_LOP_REG:
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, gs_dwarf_reg_pt_regs_offset[op->reg]));
		if (op->arg) {
			load_imm(a, GS_R2, op->arg);
			gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
		}
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, d)));
		break;
	case GS_LOP_MODULE:
		cg_module_bias(c->cg, c->cookie, GS_R1, c->rec, c->fail);
		cg_add_offset(c->cg, GS_R1, op->arg);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, d)));
		break;
	case GS_LOP_DEREF:
		deref(c, op, d - 1);
		break;
	case GS_LOP_NEG: case GS_LOP_NOT: case GS_LOP_ABS: case GS_LOP_CONVERT:
		unary(c, op, d);
		break;
	case GS_LOP_PICK:
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, slot(c, d - 1 - (unsigned)op->arg)));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, d)));
		break;
	case GS_LOP_SWAP:
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, slot(c, d - 1)));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, slot(c, d - 2)));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, d - 2)));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, slot(c, d - 1)));
		break;
	case GS_LOP_ROT: /* a b c -> c a b */
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, slot(c, d - 3)));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, slot(c, d - 2)));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, slot(c, d - 1)));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, slot(c, d - 3)));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot(c, d - 2)));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, slot(c, d - 1)));
		break;
	case GS_LOP_BRA:
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, slot(c, d - 1)));
		gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, at[op->arg]);
		break;
	case GS_LOP_SKIP:
		gs_asm_ja(a, at[op->arg]);
		break;
	case GS_LOP_FAIL:
		unavailable(c);
		break;
	case GS_LOP_DROP:
	case GS_LOP_NOP:
		break;
	default:
		binary(c, op, d);
		break;
	}
}

void cg_loc_program(struct gs_cg *cg, const struct gs_loc_prog *pr, uint64_t cookie,
		    uint8_t dst, const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	struct gs_label at[GS_LOC_PROG_MAX_OPS + 1];
	bool target[GS_LOC_PROG_MAX_OPS + 1] = { false };
	size_t mark = gs_asm_stack_mark(a);
	struct prog_ctx c = { .cg = cg, .cookie = cookie, .rec = rec, .fail = fail };
	uint8_t end;
	const char *note;

	if (!valid(pr, &end)) {
		cg_fail(cg, -EINVAL, "internal error: a DWARF location program breaks its "
			"invariants (depths, forward jumps, registers)");
		return;
	}
	c.stack = gs_asm_slot(a, "dwarf_stack", (uint16_t)(8 * pr->max_depth), 8);
	c.buf = gs_asm_slot(a, "dwarf_deref", 8, 8);
	c.addr = gs_asm_slot(a, "dwarf_deref_address", 8, 8);
	for (uint16_t i = 0; i < pr->nops; i++)
		if (pr->ops[i].code == GS_LOP_BRA || pr->ops[i].code == GS_LOP_SKIP)
			target[pr->ops[i].arg] = true;
	for (uint16_t i = 0; i <= pr->nops; i++)
		if (target[i])
			at[i] = gs_asm_labelf(a, "dwexpr_op_%u", i);
	note = gs_asm_notef(a, "DWARF expression (%u ops)", pr->nops);
	for (uint16_t i = 0; i < pr->nops; i++) {
		if (target[i])
			gs_asm_bind(a, at[i]);
		one_op(&c, &pr->ops[i], at);
	}
	if (target[pr->nops])
		gs_asm_bind(a, at[pr->nops]);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, dst, GS_FP, slot(&c, end - 1u)));
	gs_asm_note(a, note);
	gs_asm_stack_release(a, mark);
}
