/* The typed pass: the C type of every expression of a spec, by the
 * integer promotions and the usual arithmetic conversions (C11 6.3.1.1,
 * 6.3.1.8), so that the code generator divides, shifts, compares and
 * truncates as C does. Types live in a table beside the trees, keyed by
 * node; the trees stay const. */
#include <errno.h>
#include <stdlib.h>

#include <gs/context.h>
#include <gs/spec.h>

#include "base.h"

/* ---- the rules ------------------------------------------------------------- */

static struct gs_ctype make(uint8_t kind, uint8_t size, bool is_signed, uint8_t value)
{
	return (struct gs_ctype){ .kind = kind, .size = size, .is_signed = is_signed,
				  .value = value };
}

static uint8_t scalar_size(uint32_t bytes)
{
	return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 ? (uint8_t)bytes : 0;
}

struct gs_ctype gs_ctype_of_type(const struct gs_type *t)
{
	static const struct { uint8_t size; bool is_signed; } ints[] = {
		[GS_TYPE_U8] = { 1, false },  [GS_TYPE_U16] = { 2, false },
		[GS_TYPE_U32] = { 4, false }, [GS_TYPE_U64] = { 8, false },
		[GS_TYPE_I8] = { 1, true },   [GS_TYPE_I16] = { 2, true },
		[GS_TYPE_I32] = { 4, true },  [GS_TYPE_I64] = { 8, true },
	};
	struct gs_ctype other = make(GS_CT_OTHER, 8, false, GS_VK_MEMORY);

	if (!t)
		return other;
	switch (t->kind) {
	case GS_TYPE_U8: case GS_TYPE_U16: case GS_TYPE_U32: case GS_TYPE_U64:
	case GS_TYPE_I8: case GS_TYPE_I16: case GS_TYPE_I32: case GS_TYPE_I64:
		return make(GS_CT_INT, ints[t->kind].size, ints[t->kind].is_signed, GS_VK_MEMORY);
	case GS_TYPE_CHAR:
		return make(GS_CT_INT, 1, t->flags & GS_TYPEF_SIGNED, GS_VK_MEMORY);
	case GS_TYPE_ENUM:
		/* its underlying integer type, as DWARF gives the enum's size and
		 * the dwarf layer its signedness */
		if (!scalar_size(t->byte_size))
			return other;
		return make(GS_CT_INT, scalar_size(t->byte_size), t->flags & GS_TYPEF_SIGNED,
			    GS_VK_MEMORY);
	case GS_TYPE_BOOL:
		return make(GS_CT_BOOL, scalar_size(t->byte_size) ? scalar_size(t->byte_size) : 1,
			    false, GS_VK_MEMORY);
	case GS_TYPE_POINTER:
	case GS_TYPE_NULL_POINTER:
		return make(GS_CT_POINTER, 8, false, GS_VK_MEMORY);
	case GS_TYPE_ARRAY:
		/* in an expression, an array is the address of its first element
		 * (C11 6.3.2.1) */
		return make(GS_CT_POINTER, 8, false, GS_VK_COMPUTED);
	default:
		return other;
	}
}

struct gs_ctype gs_ctype_promote(struct gs_ctype t)
{
	/* Every value of bool, char, short (and of an enum that narrow) fits
	 * an int: they all become int. */
	if (t.kind == GS_CT_BOOL || (t.kind == GS_CT_INT && t.size < 4))
		return make(GS_CT_INT, 4, true, t.value);
	return t;
}

struct gs_ctype gs_ctype_common(struct gs_ctype a, struct gs_ctype b)
{
	const struct gs_ctype *u, *s;

	/* A pointer computes as unsigned long (its scaled forms are the
	 * pointer arithmetic of the emitters). */
	if (a.kind != GS_CT_INT || b.kind != GS_CT_INT)
		return GS_CTYPE_ULONG;
	if (a.is_signed == b.is_signed)
		return a.size >= b.size ? make(GS_CT_INT, a.size, a.is_signed, GS_VK_COMPUTED) :
					  make(GS_CT_INT, b.size, b.is_signed, GS_VK_COMPUTED);
	u = a.is_signed ? &b : &a;
	s = a.is_signed ? &a : &b;
	/* The unsigned one's rank is not lower: unsigned. A wider signed type
	 * holds every value of the unsigned one: signed. (Between the sizes
	 * here, 4 and 8, no third case is left.) */
	if (u->size >= s->size)
		return make(GS_CT_INT, u->size, false, GS_VK_COMPUTED);
	return make(GS_CT_INT, s->size, true, GS_VK_COMPUTED);
}

int64_t gs_ctype_convert(int64_t v, struct gs_ctype t)
{
	if (t.kind == GS_CT_BOOL)
		return v != 0;
	switch (t.size) {
	case 1:
		return t.is_signed ? (int64_t)(int8_t)v : (int64_t)(uint8_t)v;
	case 2:
		return t.is_signed ? (int64_t)(int16_t)v : (int64_t)(uint16_t)v;
	case 4:
		return t.is_signed ? (int64_t)(int32_t)v : (int64_t)(uint32_t)v;
	default:
		return v;
	}
}

struct gs_ctype_op gs_ctype_binary(int op, struct gs_ctype lhs, struct gs_ctype rhs)
{
	struct gs_ctype l = gs_ctype_promote(lhs), r = gs_ctype_promote(rhs), c;

	switch (op) {
	case GS_OP_LAND:
	case GS_OP_LOR:
		return (struct gs_ctype_op){ .operands = GS_CTYPE_LONG, .result = GS_CTYPE_INT };
	case GS_OP_SHL:
	case GS_OP_SHR:
		l.value = GS_VK_COMPUTED;
		return (struct gs_ctype_op){ .operands = l, .result = l };
	case GS_OP_EQ: case GS_OP_NE: case GS_OP_LT: case GS_OP_LE: case GS_OP_GT: case GS_OP_GE:
		return (struct gs_ctype_op){ .operands = gs_ctype_common(l, r),
					     .result = GS_CTYPE_INT };
	case GS_OP_ADD:
	case GS_OP_SUB:
		/* C11 6.5.6: a pointer and an integer give a pointer that steps
		 * by elements; two pointers' difference is a ptrdiff_t */
		if (l.kind == GS_CT_POINTER && r.kind == GS_CT_POINTER && op == GS_OP_SUB)
			return (struct gs_ctype_op){ .operands = GS_CTYPE_ULONG,
						     .result = GS_CTYPE_LONG };
		if (l.kind == GS_CT_POINTER || r.kind == GS_CT_POINTER) {
			c = make(GS_CT_POINTER, 8, false, GS_VK_COMPUTED);
			return (struct gs_ctype_op){ .operands = GS_CTYPE_ULONG, .result = c };
		}
		c = gs_ctype_common(l, r);
		return (struct gs_ctype_op){ .operands = c, .result = c };
	default:
		c = gs_ctype_common(l, r);
		return (struct gs_ctype_op){ .operands = c, .result = c };
	}
}

/* ---- the table ------------------------------------------------------------- */

struct slot {
	const struct gs_expr *e;
	struct gs_ctype t;
};

struct gs_typed {
	struct slot *slots;
	size_t nslots, n; /* nslots: a power of two, or 0 */
	struct gs_ctype *vars;
	size_t nvars, vars_cap; /* nvars: past the highest variable let so far */
	/* the pass in progress */
	struct gs_visitor v;
	const struct gs_type *(*value_type)(const struct gs_expr *e, void *arg);
	void *arg;
	int rc;
};

struct gs_typed *gs_typed_new(void)
{
	return calloc(1, sizeof(struct gs_typed));
}

void gs_typed_free(struct gs_typed *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->vars);
	free(t);
}

static size_t slot_of(const struct slot *slots, size_t nslots, const struct gs_expr *e)
{
	size_t i = (((uintptr_t)e >> 3) * 0x9E3779B97F4A7C15ull) & (nslots - 1);

	while (slots[i].e && slots[i].e != e)
		i = (i + 1) & (nslots - 1);
	return i;
}

static int put(struct gs_typed *t, const struct gs_expr *e, struct gs_ctype ct)
{
	size_t i;

	if (2 * (t->n + 1) > t->nslots) {
		size_t n = t->nslots ? 2 * t->nslots : 64;
		struct slot *big = calloc(n, sizeof(*big));

		if (!big)
			return -ENOMEM;
		for (size_t k = 0; k < t->nslots; k++)
			if (t->slots[k].e)
				big[slot_of(big, n, t->slots[k].e)] = t->slots[k];
		free(t->slots);
		t->slots = big;
		t->nslots = n;
	}
	i = slot_of(t->slots, t->nslots, e);
	t->n += !t->slots[i].e;
	t->slots[i] = (struct slot){ e, ct };
	return 0;
}

struct gs_ctype gs_typed_get(const struct gs_typed *t, const struct gs_expr *e)
{
	size_t i;

	if (!t || !t->nslots || !e)
		return GS_CTYPE_LONG;
	i = slot_of(t->slots, t->nslots, e);
	return t->slots[i].e ? t->slots[i].t : GS_CTYPE_LONG;
}

static struct gs_ctype special(const struct gs_expr *e)
{
	struct gs_ctype t;

	switch (e->special) {
	case GS_SPECIAL_PC:
	case GS_SPECIAL_SP:
	case GS_SPECIAL_TIMESTAMP:
	case GS_SPECIAL_DURATION:
		t = GS_CTYPE_ULONG;
		break;
	default: /* $pid, $tid, $host_pid; $retval without a DWARF type */
		t = GS_CTYPE_LONG;
		break;
	}
	t.value = GS_VK_REGISTER;
	return t;
}

static struct gs_ctype unary(const struct gs_typed *t, const struct gs_expr *e)
{
	struct gs_ctype r;

	if (e->op == '!')
		return GS_CTYPE_INT;
	r = gs_ctype_promote(gs_typed_get(t, e->lhs));
	if (r.kind != GS_CT_INT)
		r = GS_CTYPE_ULONG;
	r.value = GS_VK_COMPUTED;
	return r;
}

static struct gs_ctype typed(struct gs_typed *t, const struct gs_expr *e)
{
	struct gs_ctype r;

	switch (e->kind) {
	case GS_EXPR_INT:
		if (e->size == 4 || e->size == 8)
			r = make(GS_CT_INT, e->size, e->is_signed, GS_VK_CONSTANT);
		else
			r = e->value >= INT32_MIN && e->value <= INT32_MAX ? GS_CTYPE_INT :
										GS_CTYPE_LONG;
		r.value = GS_VK_CONSTANT;
		return r;
	case GS_EXPR_SPECIAL:
		return special(e);
	case GS_EXPR_REG:
		r = GS_CTYPE_ULONG;
		r.value = GS_VK_REGISTER;
		return r;
	case GS_EXPR_VAR:
		r = e->var < t->nvars ? t->vars[e->var] : GS_CTYPE_LONG;
		r.value = GS_VK_COMPUTED;
		return r;
	case GS_EXPR_UNARY:
		return unary(t, e);
	case GS_EXPR_BINARY:
		return gs_ctype_binary(e->op, gs_typed_get(t, e->lhs), gs_typed_get(t, e->rhs)).result;
	case GS_EXPR_BUILTIN:
		return e->builtin == GS_BUILTIN_LEN ? GS_CTYPE_ULONG : GS_CTYPE_INT;
	case GS_EXPR_BYTES:
		return make(GS_CT_OTHER, 8, false, GS_VK_CONSTANT);
	case GS_EXPR_DEREF:
		if (e->size)
			return make(GS_CT_INT, scalar_size(e->size) ? e->size : 8, e->is_signed,
				    GS_VK_MEMORY);
		break;
	default:
		break;
	}
	/* A source-level value: its DWARF type. A cast of a script value and
	 * an address are computed, not read. */
	r = t->value_type ? gs_ctype_of_type(t->value_type(e, t->arg)) : GS_CTYPE_ULONG;
	if (e->kind == GS_EXPR_ADDR || (e->kind == GS_EXPR_CAST && !gs_expr_is_value(e->lhs)))
		r.value = GS_VK_COMPUTED;
	return r;
}

static enum gs_visit type_expr(struct gs_visitor *v, const struct gs_expr *e)
{
	struct gs_typed *t = v->arg;

	t->rc = put(t, e, typed(t, e));
	return t->rc ? GS_VISIT_STOP : GS_VISIT_CONTINUE;
}

static enum gs_visit type_let(struct gs_visitor *v, const struct gs_stmt *s)
{
	struct gs_typed *t = v->arg;

	if (s->kind != GS_STMT_LET)
		return GS_VISIT_CONTINUE;
	if (s->var >= t->nvars) {
		size_t n = s->var + 1;

		if (base_grow((void **)&t->vars, &t->vars_cap, n, sizeof(*t->vars))) {
			t->rc = -ENOMEM;
			return GS_VISIT_STOP;
		}
		for (size_t i = t->nvars; i < n; i++)
			t->vars[i] = GS_CTYPE_LONG;
		t->nvars = n;
	}
	t->vars[s->var] = gs_typed_get(t, s->expr);
	return GS_VISIT_CONTINUE;
}

int gs_typed_body(struct gs_typed *t, const struct gs_stmt *body, size_t n,
		  const struct gs_type *(*value_type)(const struct gs_expr *e, void *arg),
		  void *arg)
{
	t->v = (struct gs_visitor){ .expr_after = type_expr, .stmt_after = type_let, .arg = t };
	t->value_type = value_type;
	t->arg = arg;
	t->rc = 0;
	gs_visit_stmts(&t->v, body, n);
	return t->rc;
}
