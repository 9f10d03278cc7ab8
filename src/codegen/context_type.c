/* The context type table entry each printed value is shown as (the
 * event's decoder reads types from the trace context, not the wire): a
 * source-level value's DWARF type copied in once, a read's u8..i64, a
 * truth value's bool, a computed value's u64 or i64. The indices are kept
 * in the values' part so that each type is added once. */
#include <errno.h>

#include "base.h"
#include "cg.h"

int cg_context_type(struct gs_cg *cg, const struct gs_type *t)
{
	struct cg_values *v = cg->values;
	int idx;

	for (uint32_t i = 0; i < v->nadded; i++)
		if (v->added_from[i] == t)
			return v->added_index[i];
	idx = gs_context_add_type(&cg->prog->ctx, t, cg->err);
	if (idx < 0) {
		cg_fail(cg, idx, "%s", cg->err ? cg->err->msg : "cannot add a type");
		return idx;
	}
	if (v->nadded < BASE_ARRAY_SIZE(v->added_from)) {
		v->added_from[v->nadded] = t;
		v->added_index[v->nadded++] = idx;
	}
	return idx;
}

int cg_context_int64(struct gs_cg *cg, bool is_signed)
{
	struct cg_values *v = cg->values;
	struct gs_trace_context *ctx = &cg->prog->ctx;

	if (!is_signed) {
		if (v->type_u64 < 0)
			v->type_u64 = gs_context_type(ctx, GS_TYPE_U64, 8, "u64", cg->err);
		return v->type_u64;
	}
	if (v->type_i64 < 0)
		v->type_i64 = gs_context_type(ctx, GS_TYPE_I64, 8, "i64", cg->err);
	return v->type_i64;
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
	struct cg_values *v = cg->values;
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

		slot = &v->type_deref[e->is_signed][lg];
		*size = e->size;
		if (*slot < 0)
			*slot = gs_context_type(ctx, deref_kinds[e->is_signed][lg], e->size,
						deref_names[e->is_signed][lg], cg->err);
		return *slot;
	}
	if ((e->kind == GS_EXPR_BINARY && (cg_op_is_compare(e->op) || e->op == GS_OP_LAND ||
					   e->op == GS_OP_LOR)) ||
	    (e->kind == GS_EXPR_UNARY && e->op == '!')) {
		*size = 1;
		if (v->type_bool < 0)
			v->type_bool = gs_context_type(ctx, GS_TYPE_BOOL, 1, "bool", cg->err);
		return v->type_bool;
	}
	*size = 8;
	/* A computed value is shown as the 64-bit integer of its C type's
	 * signedness: the register holds its value, extended as C says. */
	return cg_context_int64(cg, cg_ctype(cg, e).is_signed);
}
