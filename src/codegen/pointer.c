/* Pointer arithmetic as C does it (C11 6.5.6): p + n, n + p and p - n step
 * by the pointee's size (void * and function pointers by one byte, as gcc
 * does), an array operand is the address of its first element, and p - q
 * counts the elements between two pointers of one pointee size. p + n is
 * itself a typed pointer: a source-level value that prints as a pointer and
 * can be followed, indexed and read as a string (its type, and whether an
 * expression is one: value_type.c). */
#include <errno.h>

#include "cg.h"

static const char *text(const struct gs_expr *e)
{
	return e->text ? e->text : "expression";
}

/* The bytes one step of a pointer of type t moves (t a pointer or an
 * array), or 0 after failing the build. */
static uint32_t stride(struct gs_cg *cg, const struct gs_expr *e, const struct gs_type *t)
{
	const struct gs_type *to = t->target;

	/* gcc's void * (qualified too: const void is an unknown type without
	 * a size) and function pointer arithmetic */
	if (!to || (to->kind == GS_TYPE_UNKNOWN && !to->byte_size &&
		    !(to->flags & (GS_TYPEF_CYCLIC | GS_TYPEF_TOO_DEEP))))
		return 1;
	if (to->byte_size > INT32_MAX) {
		cg_fail_at(cg, e, -EINVAL, "%s: %s points to elements of %u bytes, too large to "
			"step by", text(e), t->name, to->byte_size);
		return 0;
	}
	if (!to->byte_size) {
		cg_fail_at(cg, e, -EINVAL, "%s: %s points to an incomplete type (%s): its elements "
			"have no size", text(e), t->name, to->name);
		return 0;
	}
	return to->byte_size;
}

/* r0 = (r0 - r1) / size, exactly: the distance between two pointers to
 * elements of `size` bytes is a multiple of it (C leaves it undefined
 * otherwise; this truncates toward zero as gcc's code does). */
static void elements_between(struct gs_cg *cg, uint32_t size)
{
	struct gs_asm *a = cg->a;
	struct gs_label pos = gs_asm_label(a, "ptrdiff_positive");
	struct gs_label done = gs_asm_label(a, "ptrdiff_done");

	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R0, GS_R1));
	if (size == 1)
		return;
	gs_asm_jmp_imm(a, BPF_JSGE, GS_R0, 0, pos);
	gs_asm_emit(a, GS_NEG64(GS_R0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_DIV, GS_R0, (int32_t)size));
	gs_asm_emit(a, GS_NEG64(GS_R0));
	gs_asm_ja(a, done);
	gs_asm_bind(a, pos);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_DIV, GS_R0, (int32_t)size));
	gs_asm_bind(a, done);
}

void cg_pointer_arith(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	bool lptr = cg_ctype(cg, e->lhs).kind == GS_CT_POINTER;
	bool rptr = cg_ctype(cg, e->rhs).kind == GS_CT_POINTER;
	const struct gs_expr *p = lptr ? e->lhs : e->rhs, *n = lptr ? e->rhs : e->lhs;
	const struct gs_type *pt, *qt;
	size_t mark;
	int16_t slot;
	uint32_t size;

	if (lptr && rptr && e->op == GS_OP_ADD) {
		cg_fail_at(cg, e, -EINVAL, "%s: two pointers cannot be added (C allows a pointer plus "
			"an integer, or the difference of two pointers)", text(e));
		return;
	}
	if (!lptr && e->op == GS_OP_SUB) {
		cg_fail_at(cg, e, -EINVAL, "%s: a pointer cannot be subtracted from an integer",
			text(e));
		return;
	}
	pt = lptr && rptr ? cg_value_type(cg, p) : cg_pointer_arith_type(cg, e);
	if (!pt || !(size = stride(cg, e, pt)))
		return;
	if (lptr && rptr) {
		qt = cg_value_type(cg, n);
		if (!qt || stride(cg, e, qt) != size) {
			if (qt)
				cg_fail_at(cg, e, -EINVAL, "%s: %s and %s point to elements of different "
					"sizes: their difference counts no element", text(e), pt->name,
					qt->name);
			return;
		}
	}
	mark = gs_asm_stack_mark(a);
	slot = gs_asm_slot(a, "pointer_arith", 8, 8);
	gs_asm_notef(a, "pointer arithmetic: %s, steps of %u bytes", text(e), size);
	cg_expr(cg, p, rec); /* an array: its address (cg_value_expr) */
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, slot));
	if (lptr && rptr) {
		cg_expr(cg, n, rec);
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R0));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, slot));
		gs_asm_stack_release(a, mark);
		elements_between(cg, size);
		return;
	}
	cg_expr(cg, n, rec);
	cg_convert(cg, GS_R0, cg_ctype(cg, n), GS_CTYPE_LONG);
	if (size != 1)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R0, (int32_t)size));
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, slot));
	gs_asm_stack_release(a, mark);
	gs_asm_emit(a, GS_ALU64_REG(e->op == GS_OP_ADD ? BPF_ADD : BPF_SUB, GS_R0, GS_R1));
}
