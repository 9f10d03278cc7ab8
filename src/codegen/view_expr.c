/* Standard-library values in expressions (gs/view.h): the
 * sequence or string a view describes, indexed and measured (`v[i]`,
 * `len(v)`, `s == "lit"`). What these find at build time comes from the
 * view alone (the container a type is: value_type.c); at run time the
 * data pointer and the length are two reads of the value's own bytes. */
#include <errno.h>

#include "cg.h"

const struct gs_view *cg_view_bounds_of(struct gs_cg *cg, struct cg_place *p, int16_t ptr_slot,
				       int16_t len_slot, const struct cg_err_record *rec,
				       struct gs_label fail)
{
	const struct gs_type *c = cg_seq_container(p->type);

	if (gs_asm_failed(cg->a) || !c)
		return NULL;
	if (p->kind == CG_PLACE_NONE) {
		cg_error_tail(cg, rec, GS_VAR_ACCESS_ERROR, false, 0, &fail);
		return c->view;
	}
	cg_place_reach(cg, p, c, rec, fail);
	p->type = c;
	cg_view_bounds(cg, p, c->view, ptr_slot, len_slot, rec, fail);
	return c->view;
}

const struct gs_view *cg_view_place_bounds(struct gs_cg *cg, const struct gs_expr *x,
					   int16_t ptr_slot, int16_t len_slot,
					   const struct cg_err_record *rec, struct gs_label fail)
{
	struct cg_place p;

	cg_place(cg, x, rec, fail, &p);
	return cg_view_bounds_of(cg, &p, ptr_slot, len_slot, rec, fail);
}

void cg_len(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	const struct gs_expr *x = e->lhs;
	const struct gs_type *t = x && cg_is_value(cg, x) ? cg_value_type(cg, x) : NULL;
	struct gs_label fail = gs_asm_label(a, "len_failed");
	struct gs_label done = gs_asm_label(a, "len_done");
	size_t mark = gs_asm_stack_mark(a), fixups = a->nfixups;
	int16_t ptr, len;
	const char *prev;

	if (gs_asm_failed(a))
		return;
	if (t && t->kind == GS_TYPE_ARRAY && t->count) {
		prev = gs_asm_notef(a, "len(%s): %u elements", cg_text(x), t->count);
		if (t->count <= INT32_MAX)
			gs_asm_emit(a, GS_MOV64_IMM(GS_R0, (int32_t)t->count));
		else
			gs_asm_ld_imm64(a, GS_R0, t->count);
		gs_asm_note(a, prev);
		return;
	}
	if (!cg_seq_container(t)) {
		cg_fail_at(cg, e, -EINVAL, "%s: len() measures a std::vector, span, string or "
			"string_view, a Rust Vec, slice, String or str, or a C array of known bound; "
			"%s is %s %s", cg_text(e), x ? cg_text(x) : "its operand", t ? "a" : "a script",
			t ? t->name : "integer");
		return;
	}
	ptr = gs_asm_slot(a, "view_data", 8, 8);
	len = gs_asm_slot(a, "view_length", 8, 8);
	prev = gs_asm_notef(a, "len(%s)", cg_text(x));
	cg_view_place_bounds(cg, x, ptr, len, rec, fail);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, len));
	if (cg_label_used(a, fixups, fail)) {
		gs_asm_ja(a, done);
		gs_asm_bind(a, fail);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	}
	gs_asm_bind(a, done);
	gs_asm_note(a, prev);
	gs_asm_stack_release(a, mark);
}
