/* The type questions the emitters ask about source-level values, answered
 * at build time and emitting nothing: whether an expression is such a
 * value (p + n over a typed pointer is one), its static type through a
 * name / member / index / deref / address-of / cast / pointer-arithmetic
 * chain (checked, with messages naming the member and type), the member
 * a name finds, the containers and smart pointers the views (gs/view.h)
 * make of a type, and the types codegen makes for `&x` and casts. Below
 * every emitter: nothing here calls one (value.c finds where a value is
 * at run time, value_read.c reads it). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "cg.h"

/* The typed pass gives p + n over a pointer or an array the pointer type:
 * such an expression is a typed pointer, a value like a variable. */
bool cg_is_value(const struct gs_cg *cg, const struct gs_expr *e)
{
	return gs_expr_is_value(e) ||
	       (e && e->kind == GS_EXPR_BINARY && (e->op == GS_OP_ADD || e->op == GS_OP_SUB) &&
		cg_ctype(cg, e).kind == GS_CT_POINTER);
}

/* A type codegen makes (`&x`, a cast of a script value), owned by the
 * values' part: it lives as long as the build (the trace context keeps
 * copies of the types it needs). */
static struct gs_type *synth(struct gs_cg *cg)
{
	struct cg_values *v = cg->values;
	struct gs_type *t;

	if (v->nsynth == CG_MAX_SYNTH_TYPES) {
		cg_fail(cg, -E2BIG, "too many address-of and cast expressions in one trace "
			"(at most %d)", CG_MAX_SYNTH_TYPES);
		return NULL;
	}
	t = base_arena_alloc(&v->synth_arena, sizeof(*t));
	if (!t) {
		cg_fail(cg, -ENOMEM, "out of memory typing an expression");
		return NULL;
	}
	v->synth[v->nsynth++] = t;
	return t;
}

const struct gs_type *cg_pointer_to(struct gs_cg *cg, const struct gs_type *t)
{
	struct cg_values *v = cg->values;
	struct gs_type *p;
	size_t n = strlen(t->name);

	/* one per pointee: the typed pass and the emitters both ask */
	for (uint32_t i = 0; i < v->nsynth; i++)
		if (v->synth[i]->kind == GS_TYPE_POINTER && v->synth[i]->target == t)
			return v->synth[i];
	p = synth(cg);
	if (!p)
		return NULL;
	p->kind = GS_TYPE_POINTER;
	p->size = 8;
	p->byte_size = 8;
	p->target = t;
	p->name = v->synth_names[v->nsynth - 1];
	snprintf(v->synth_names[v->nsynth - 1], sizeof(v->synth_names[0]), "%s%s*", t->name,
		 n && t->name[n - 1] == '*' ? "" : " ");
	return p;
}

const struct gs_type *cg_referent(const struct gs_type *t)
{
	return t && t->kind == GS_TYPE_POINTER && (t->flags & GS_TYPEF_REFERENCE) && t->target ?
		t->target : t;
}

const struct gs_view *cg_seq_view(const struct gs_type *t)
{
	const struct gs_view *v = t ? t->view : NULL;

	if (!v || (v->kind != GS_VIEW_SEQ && v->kind != GS_VIEW_STRING) || !v->elem ||
	    !v->elem->byte_size)
		return NULL;
	return v;
}

const struct gs_type *cg_seq_container(const struct gs_type *t)
{
	if (t && t->kind == GS_TYPE_POINTER && cg_seq_view(t->target))
		return t->target;
	return cg_seq_view(t) ? t : NULL;
}

const struct gs_view_field *cg_smart_pointer(const struct gs_type *t)
{
	const struct gs_view *v = t ? t->view : NULL;

	if (!v || !v->nfields || !v->fields || (v->style != GS_VSTYLE_CPP_UNIQUE_PTR &&
						  v->style != GS_VSTYLE_CPP_SHARED_PTR))
		return NULL;
	if (!v->fields[0].type || v->fields[0].type->kind != GS_TYPE_POINTER ||
	    !v->fields[0].type->target)
		return NULL;
	return &v->fields[0];
}

const struct gs_type *cg_through_smart_pointers(const struct gs_type *t, const char *member)
{
	uint32_t off = 0;

	for (int hop = 0; hop < 4 && t && cg_is_aggregate(t) && !gs_type_find_member(t, member, &off) &&
			  cg_smart_pointer(t); hop++)
		t = cg_smart_pointer(t)->type->target;
	return t;
}

/* The pointer side of e (a pointer or an array) and its DWARF type. */
static const struct gs_expr *pointer_side(struct gs_cg *cg, const struct gs_expr *e)
{
	return cg_ctype(cg, e->lhs).kind == GS_CT_POINTER ? e->lhs : e->rhs;
}

const struct gs_type *cg_pointer_arith_type(struct gs_cg *cg, const struct gs_expr *e)
{
	const struct gs_expr *p = pointer_side(cg, e);
	const struct gs_type *t = cg_is_value(cg, p) ? cg_value_type(cg, p) : NULL;

	if (!t)
		return NULL;
	if (t->kind == GS_TYPE_ARRAY)
		return t->target ? cg_pointer_to(cg, t->target) : NULL;
	return t;
}

const struct gs_type *cg_value_type(struct gs_cg *cg, const struct gs_expr *e)
{
	return cg_referent(cg_declared_type(cg, e));
}

const struct gs_type *cg_declared_type(struct gs_cg *cg, const struct gs_expr *e)
{
	const struct gs_type *t;
	uint32_t off = 0;
	const struct gs_type_member *m;

	switch (e->kind) {
	case GS_EXPR_NAME:
		if (!e->dvar || !e->dvar->type) {
			cg_fail_at(cg, e, -EINVAL, "%s: the name was not resolved against the probe's "
				"DWARF before the build", cg_text(e));
			return NULL;
		}
		return e->dvar->type;
	case GS_EXPR_CAST:
		if (!e->cast_type) {
			cg_fail_at(cg, e, -EINVAL, "%s: the type \"%s\" was not resolved against the "
				"probe's DWARF before the build", cg_text(e),
				e->type_name ? e->type_name : "?");
			return NULL;
		}
		if (cg_is_value(cg, e->lhs) && !cg_value_type(cg, e->lhs))
			return NULL;
		return e->cast_type;
	case GS_EXPR_ADDR:
		if (!gs_expr_is_value(e->lhs)) {
			cg_fail_at(cg, e, -EINVAL, "%s: & takes a variable, a member or an element",
				cg_text(e));
			return NULL;
		}
		t = cg_value_type(cg, e->lhs);
		return t ? cg_pointer_to(cg, t) : NULL;
	case GS_EXPR_BINARY:
		if (cg_is_value(cg, e))
			return cg_pointer_arith_type(cg, e);
		break;
	default:
		break;
	}
	if (!e->lhs) {
		cg_fail_at(cg, e, -EINVAL, "%s: an operand is missing", cg_text(e));
		return NULL;
	}
	t = cg_is_value(cg, e->lhs) ? cg_value_type(cg, e->lhs) : NULL;
	if (!t) {
		if (!gs_asm_failed(cg->a))
			cg_fail_at(cg, e, -EINVAL, "%s: %s is a script value, not a source-level one: "
				"cast() it to a pointer type first", cg_text(e), cg_text(e->lhs));
		return NULL;
	}
	if (t->kind == GS_TYPE_OPTIMIZED_OUT) {
		/* a placeholder the dwarf layer made (an implicit pointer, a
		 * member in a missing piece): nothing there to follow */
		cg_fail_at(cg, e, -EINVAL, "%s: %s (%s) has no value here to follow: it is %s",
			   cg_text(e), cg_text(e->lhs), t->name, t->flags & GS_TYPEF_SYNTHETIC ?
			   "<synthetic pointer> (DW_OP_implicit_pointer, or past the DWARF pieces)" :
			   "<optimized out> (a DWARF piece without a location)");
		return NULL;
	}
	switch (e->kind) {
	case GS_EXPR_MEMBER:
		if (t->kind == GS_TYPE_POINTER && t->target)
			t = t->target;
		t = cg_through_smart_pointers(t, e->name ? e->name : "");
		if (!cg_is_aggregate(t)) {
			cg_fail_at(cg, e, -EINVAL, "%s: %s is a %s, not a struct or union (or a pointer to "
				"one)", cg_text(e), cg_text(e->lhs), t->name);
			return NULL;
		}
		m = gs_type_find_member(t, e->name ? e->name : "", &off);
		if (!m) {
			cg_fail_at(cg, e, -EINVAL, "%s: %s has no member named '%s'", cg_text(e), t->name,
				e->name ? e->name : "");
			return NULL;
		}
		return m->type;
	case GS_EXPR_INDEX:
	case GS_EXPR_DEREF:
		if (e->kind == GS_EXPR_INDEX && cg_seq_container(t))
			return cg_seq_container(t)->view->elem;
		if (e->kind == GS_EXPR_DEREF && cg_smart_pointer(t))
			return cg_smart_pointer(t)->type->target;
		if ((t->kind == GS_TYPE_POINTER || t->kind == GS_TYPE_ARRAY) && t->target)
			return t->target;
		cg_fail_at(cg, e, -EINVAL, "%s: %s is a %s: only arrays and (non-void) pointers can be "
			"%s%s", cg_text(e), cg_text(e->lhs), t->name,
			e->kind == GS_EXPR_INDEX ? "indexed" : "dereferenced",
			e->kind == GS_EXPR_INDEX ? " (and standard-library sequences and strings: "
			"vector, span, string, Vec, slices, str)" : "");
		return NULL;
	default:
		cg_fail_at(cg, e, -EINVAL, "%s: not a source-level value", cg_text(e));
		return NULL;
	}
}

/* Whether e is known, at build time, to have no value here. */
bool cg_value_unavailable(const struct gs_expr *e)
{
	while (e && (e->kind == GS_EXPR_MEMBER || e->kind == GS_EXPR_INDEX ||
		     (e->kind == GS_EXPR_CAST && gs_expr_is_value(e->lhs))))
		e = e->lhs;
	return e && e->kind == GS_EXPR_NAME && e->dvar && !e->dvar->loc.npieces;
}
