/* The comparison builtins (docs/cli.md, "Values"): memcmp(a, b, n),
 * strncmp(a, "lit", n), starts_with(a, "lit"), with hex("..") or string
 * literal operands compared as immediates, and C-string equality with a
 * literal, s == "lit" and s != "lit". Operands are read once each into our
 * stack (capped by compare_cap, a string by max_string_len); the result in
 * r0 is 1 when the comparison holds, 0 otherwise or when a read failed
 * (status in rec). */
#include <errno.h>
#include <stdio.h>

#include "cg.h"

static const char *text(const struct gs_expr *e)
{
	return e->text ? e->text : "builtin";
}

/* Reads n bytes of operand x (a pointer's pointee or an array) into the
 * stack at buf; a C string read (str) stops at its NUL. With n_slot, the
 * length is the u64 there instead (1..n, checked by the caller). */
static void read_operand(struct gs_cg *cg, const struct gs_expr *x, int16_t buf, uint32_t n,
			 bool str, int16_t n_slot, const struct cg_err_record *rec,
			 struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	struct cg_place p;

	if (!cg_is_value(cg, x)) {
		/* A script integer used as an address. */
		cg_expr(cg, x, rec);
		gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R0));
	} else {
		cg_place(cg, x, rec, fail, &p);
		cg_value_address(cg, &p, rec, fail);
	}
	if (n_slot)
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, n_slot));
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = buf,
						 .len = str ? n + 1 : n, .len_in_r2 = n_slot != 0,
						 .str = str,
						 .save_addr = true,
						 .addr_slot = cg->values->addr_slot + 8, .rec = rec,
						 .fail = &fail, .ok_name = "operand_read_ok" });
}

/* Jumps to differ at the first of n bytes at r10 + bx that is not y's:
 * literal bytes (past their end a NUL, a C string's end) or the bytes at
 * r10 + by. */
static void compare_bytes_from(struct gs_cg *cg, int16_t bx, const struct gs_expr *y, int16_t by,
			       uint32_t from, uint32_t n, struct gs_label differ)
{
	struct gs_asm *a = cg->a;

	for (uint32_t i = from; i < n; i++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, bx + (int16_t)i));
		if (y->kind == GS_EXPR_BYTES) {
			gs_asm_jmp_imm(a, BPF_JNE, GS_R1, i < y->nbytes ? y->bytes[i] : 0, differ);
		} else {
			gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, GS_FP, by + (int16_t)i));
			gs_asm_jmp_reg(a, BPF_JNE, GS_R1, GS_R2, differ);
		}
	}
}

/* The end of a comparison: r0 = 1 here, 0 at fail and differ; the note
 * and the stack of the comparison end. */
static void compare_result(struct gs_cg *cg, struct gs_label fail, struct gs_label differ,
			   struct gs_label done, size_t mark)
{
	struct gs_asm *a = cg->a;

	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_ja(a, done);
	gs_asm_bind(a, fail);
	gs_asm_bind(a, differ);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_bind(a, done);
	gs_asm_note(a, NULL);
	gs_asm_stack_release(a, mark);
}

/* memcmp(x, y, n) or strncmp(x, "lit", n) with n known at run time: n <= 0
 * compares nothing (1), more than compare_cap (or than y's literal bytes,
 * with its NUL for strncmp) compares that many. memcmp reads n bytes;
 * strncmp reads x's string (up to its NUL, at most the cap). */
static void length_run_time(struct gs_cg *cg, const struct gs_expr *e, const struct gs_expr *x,
			    const struct gs_expr *y, bool str, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	uint32_t cap = cg->opts.compare_cap;
	size_t mark = gs_asm_stack_mark(a);
	struct gs_label equal = gs_asm_label(a, "memcmp_equal");
	struct gs_label differ = gs_asm_label(a, "memcmp_differs");
	struct gs_label fail = gs_asm_label(a, "memcmp_failed");
	struct gs_label done = gs_asm_label(a, "memcmp_done");
	struct gs_label capped = gs_asm_label(a, "memcmp_length_ok");
	int16_t n_slot, bx, by = 0;

	if (y->kind == GS_EXPR_BYTES && y->nbytes + str < cap)
		cap = y->nbytes + str;
	if (!cap) {
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
		return;
	}
	gs_asm_notef(a, "%s over (%s) bytes, at most %u", str ? "strncmp" : "memcmp", text(e->len),
		     cap);
	n_slot = gs_asm_slot(a, "memcmp_length", 8, 8);
	cg_expr(cg, e->len, rec);
	cg_convert(cg, GS_R0, cg_ctype(cg, e->len), GS_CTYPE_LONG);
	gs_asm_jmp_imm(a, BPF_JSLE, GS_R0, 0, equal);
	gs_asm_jmp_imm(a, BPF_JLE, GS_R0, (int32_t)cap, capped);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, (int32_t)cap));
	gs_asm_bind(a, capped);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, n_slot));
	bx = gs_asm_slot(a, "compare_a", (uint16_t)((cap + str + 7) & ~7u), 8);
	read_operand(cg, x, bx, cap, str, str ? 0 : n_slot, rec, fail);
	if (y->kind != GS_EXPR_BYTES) {
		by = gs_asm_slot(a, "compare_b", (uint16_t)((cap + 7) & ~7u), 8);
		read_operand(cg, y, by, cap, false, n_slot, rec, fail);
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, GS_FP, n_slot));
	for (uint32_t i = 0; i < cap; i++) {
		gs_asm_jmp_imm(a, BPF_JLE, GS_R4, (int32_t)i, equal);
		compare_bytes_from(cg, bx, y, by, i, i + 1, differ);
	}
	gs_asm_bind(a, equal);
	compare_result(cg, fail, differ, done, mark);
}

static void compare_bytes(struct gs_cg *cg, int16_t bx, const struct gs_expr *y, int16_t by,
			  uint32_t n, struct gs_label differ)
{
	compare_bytes_from(cg, bx, y, by, 0, n, differ);
}

/* The longest literal s == "lit" compares: its bytes, the NUL and one
 * more byte are read into our stack. */
#define STRING_EQ_MAX 254

/* The end of an equality: r0 = eq here, !eq at differ, 0 at fail (a read
 * failed); the note `note` again and the comparison's stack released. */
static void equality_result(struct gs_cg *cg, bool eq, struct gs_label differ,
			    struct gs_label fail, struct gs_label done, const char *note,
			    size_t mark)
{
	struct gs_asm *a = cg->a;

	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, eq));
	gs_asm_ja(a, done);
	gs_asm_bind(a, differ);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, !eq));
	gs_asm_ja(a, done);
	gs_asm_bind(a, fail);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_bind(a, done);
	gs_asm_note(a, note);
	gs_asm_stack_release(a, mark);
}

/* s == "lit" on a standard-library string (std::string, string_view,
 * Rust String, &str): the lengths are equal, then the len bytes at its data
 * pointer are the literal's. */
static void view_string_equal(struct gs_cg *cg, const struct gs_expr *e, const struct gs_expr *x,
			      const struct gs_expr *lit, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	bool eq = e->op == GS_OP_EQ;
	uint32_t n = lit->nbytes;
	size_t mark = gs_asm_stack_mark(a);
	struct gs_label differ = gs_asm_label(a, "string_differs");
	struct gs_label fail = gs_asm_label(a, "string_failed");
	struct gs_label done = gs_asm_label(a, "string_done");
	int16_t ptr, len, buf = 0;
	const char *prev;

	if (n > STRING_EQ_MAX) {
		cg_fail_at(cg, e, -EINVAL, "%s: the literal has %u bytes, more than a comparison "
			"reads (%d)", text(e), n, STRING_EQ_MAX);
		return;
	}
	ptr = gs_asm_slot(a, "view_data", 8, 8);
	len = gs_asm_slot(a, "view_length", 8, 8);
	if (n)
		buf = gs_asm_slot(a, "string_eq", (uint16_t)((n + 7) & ~7u), 8);
	prev = gs_asm_notef(a, "%s %s a literal of %u bytes: lengths, then bytes", text(x),
			    eq ? "==" : "!=", n);
	cg_view_place_bounds(cg, x, ptr, len, rec, fail);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, len));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, (int32_t)n, differ);
	if (n) {
		cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = buf, .len = n,
							 .load_src = true, .src_base = GS_FP,
							 .src_off = ptr, .addr_slot = ptr,
							 .rec = rec, .fail = &fail,
							 .ok_name = "string_read_ok" });
		compare_bytes(cg, buf, lit, 0, n, differ);
	}
	equality_result(cg, eq, differ, fail, done, prev, mark);
}

void cg_string_equal(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	bool lit_left = e->lhs->kind == GS_EXPR_BYTES;
	const struct gs_expr *x = lit_left ? e->rhs : e->lhs, *lit = lit_left ? e->lhs : e->rhs;
	const struct gs_type *t = cg_is_value(cg, x) ? cg_value_type(cg, x) : NULL;
	const struct gs_type *el = t ? t->target : NULL;
	bool eq = e->op == GS_OP_EQ, array;
	uint32_t n = lit->nbytes + 1; /* with the literal's NUL */
	size_t mark = gs_asm_stack_mark(a);
	struct gs_label differ = gs_asm_label(a, "string_differs");
	struct gs_label fail = gs_asm_label(a, "string_failed");
	struct gs_label done = gs_asm_label(a, "string_done");
	int16_t buf;

	if (gs_asm_failed(a))
		return;
	if (cg_seq_container(t) && cg_seq_container(t)->view->kind == GS_VIEW_STRING) {
		view_string_equal(cg, e, x, lit, rec);
		return;
	}
	if (!t || (t->kind != GS_TYPE_POINTER && t->kind != GS_TYPE_ARRAY) || !el ||
	    !(el->flags & GS_TYPEF_CHAR || el->byte_size == 1)) {
		cg_fail_at(cg, e, -EINVAL, "%s: a string literal compares with a char * or a char "
			"array (C string equality), and %s is %s %s", text(e), text(x),
			t ? "a" : "a script", t ? t->name : "integer");
		return;
	}
	if (lit->nbytes > cg->opts.max_string_len || lit->nbytes > STRING_EQ_MAX) {
		cg_fail_at(cg, e, -EINVAL, "%s: the literal has %u bytes, more than a string is read "
			"(%u: --max-string-len, at most %d here)", text(e), lit->nbytes,
			cg->opts.max_string_len, STRING_EQ_MAX);
		return;
	}
	array = t->kind == GS_TYPE_ARRAY && t->count;
	gs_asm_notef(a, "C string %s a literal of %u bytes", eq ? "==" : "!=", lit->nbytes);
	if (array && t->count * el->byte_size < n) {
		/* char[N] with no room for the literal and its NUL holds a
		 * shorter string (or none): never equal, and nothing to read */
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, !eq));
		gs_asm_note(a, NULL);
		return;
	}
	/* A pointer's string is read up to one byte past the literal's NUL,
	 * so a longer string differs there; an array's bytes as they are. */
	buf = gs_asm_slot(a, "string_eq", (uint16_t)((n + 1 + 7) & ~7u), 8);
	read_operand(cg, x, buf, n, !array, 0, rec, fail);
	compare_bytes(cg, buf, lit, 0, n, differ);
	equality_result(cg, eq, differ, fail, done, NULL, mark);
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

	if (e->builtin == GS_BUILTIN_LEN) {
		cg_len(cg, e, rec);
		return;
	}
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
	if (e->builtin != GS_BUILTIN_STARTS_WITH && e->len && e->len->kind != GS_EXPR_INT) {
		length_run_time(cg, e, x, y, str, rec);
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
	read_operand(cg, x, bx, n, str, 0, rec, fail);
	if (y->kind != GS_EXPR_BYTES) {
		by = gs_asm_slot(a, "compare_b", (uint16_t)((cap + 8) & ~7u), 8);
		read_operand(cg, y, by, n, false, 0, rec, fail);
	}
	compare_bytes(cg, bx, y, by, n, differ);
	compare_result(cg, fail, differ, done, mark);
}
