/* The comparison builtins (reference 12.3): memcmp(a, b, n),
 * strncmp(a, "lit", n), starts_with(a, "lit"), with hex("..") or string
 * literal operands compared as immediates. Operands are read once each
 * into our stack (capped by compare_cap); the result in r0 is 1 when the
 * bytes are equal, 0 otherwise or when a read failed (status in rec). */
#include <errno.h>
#include <stdio.h>

#include "cg.h"

static const char *text(const struct gs_expr *e)
{
	return e->text ? e->text : "builtin";
}

/* Reads n bytes of operand x (a pointer's pointee or an array) into the
 * stack at buf; a C string read (str) stops at its NUL. */
static void read_operand(struct gs_cg *cg, const struct gs_expr *x, int16_t buf, uint32_t n,
			 bool str, const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	struct cg_place p;

	if (!gs_expr_is_value(x)) {
		/* A script integer used as an address. */
		cg_expr(cg, x, rec);
		gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R0));
	} else {
		cg_place(cg, x, rec, fail, &p);
		cg_value_address(cg, &p, rec, fail);
	}
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = buf,
						 .len = str ? n + 1 : n, .str = str,
						 .save_addr = true,
						 .addr_slot = cg->value_addr_slot + 8, .rec = rec,
						 .fail = &fail, .ok_name = "operand_read_ok" });
}

void cg_builtin(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	static const char *const names[] = { "memcmp", "strncmp", "starts_with" };
	struct gs_asm *a = cg->a;
	const struct gs_expr *x = e->lhs, *y = e->rhs;
	bool str = e->builtin != GS_BUILTIN_MEMCMP;
	uint32_t cap = cg->opts.compare_cap, n;
	size_t mark = gs_asm_stack_mark(a);
	struct gs_label differ = gs_asm_label(a, "compare_differs");
	struct gs_label fail = gs_asm_label(a, "compare_failed");
	struct gs_label done = gs_asm_label(a, "compare_done");
	int16_t bx, by = 0;

	if (e->builtin > GS_BUILTIN_STARTS_WITH || !x || !y) {
		cg_fail_at(cg, e, -EINVAL, "%s: unknown builtin or missing operand", text(e));
		return;
	}
	if (x->kind == GS_EXPR_BYTES && y->kind != GS_EXPR_BYTES) {
		const struct gs_expr *t = x;

		x = y;
		y = t;
	}
	if (str && y->kind != GS_EXPR_BYTES) {
		cg_fail_at(cg, e, -EINVAL, "%s: the second operand of %s must be a string literal",
			text(e), names[e->builtin]);
		return;
	}
	if (e->builtin == GS_BUILTIN_STARTS_WITH) {
		n = y->nbytes;
	} else if (!e->len || e->len->kind != GS_EXPR_INT || e->len->value < 0) {
		cg_fail_at(cg, e, -EINVAL, "%s: the length of %s must be a constant >= 0", text(e),
			names[e->builtin]);
		return;
	} else {
		n = e->len->value > (int64_t)cap ? cap : (uint32_t)e->len->value;
		/* strncmp stops at the literal's NUL: compare it too, no further. */
		if (e->builtin == GS_BUILTIN_STRNCMP && n > y->nbytes + 1)
			n = y->nbytes + 1;
		if (e->builtin == GS_BUILTIN_MEMCMP && y->kind == GS_EXPR_BYTES && n > y->nbytes) {
			cg_fail_at(cg, e, -EINVAL, "%s: memcmp of %u bytes against %u literal bytes",
				text(e), n, y->nbytes);
			return;
		}
	}
	if (n > cap)
		n = cap;
	gs_asm_notef(a, "%s over %u bytes", names[e->builtin], n);
	if (!n) {
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
		return;
	}
	bx = gs_asm_slot(a, "compare_a", (uint16_t)((cap + 8) & ~7u), 8);
	read_operand(cg, x, bx, n, str, rec, fail);
	if (y->kind != GS_EXPR_BYTES) {
		by = gs_asm_slot(a, "compare_b", (uint16_t)((cap + 8) & ~7u), 8);
		read_operand(cg, y, by, n, false, rec, fail);
	}
	for (uint32_t i = 0; i < n; i++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, bx + (int16_t)i));
		if (y->kind == GS_EXPR_BYTES) {
			gs_asm_jmp_imm(a, BPF_JNE, GS_R1, i < y->nbytes ? y->bytes[i] : 0, differ);
		} else {
			gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, GS_FP, by + (int16_t)i));
			gs_asm_jmp_reg(a, BPF_JNE, GS_R1, GS_R2, differ);
		}
	}
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_ja(a, done);
	gs_asm_bind(a, fail);
	gs_asm_bind(a, differ);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_bind(a, done);
	gs_asm_note(a, NULL);
	gs_asm_stack_release(a, mark);
}
