/* Source-level values in expressions (docs/cli.md, "Values"): the postfix
 * chains a.b, p->b, a[i] over DWARF names, `*p` and `&x`, cast(expr, "TYPE"),
 * the comparison builtins memcmp / strncmp / starts_with with string and
 * hex("de ad") operands, len(x) of a container or an array, and `let` aliases
 * of such values. Names are not known here (no DWARF): the runtime resolves
 * them per probe address, and messages about them point at the node's `pos`. */
#include <stdio.h>
#include <string.h>

#include "script_int.h"

/* What a non-value is, for "x has no members" messages. */
static const char *what_is(const struct gs_expr *e)
{
	switch (e->kind) {
	case GS_EXPR_INT:
		return "a number";
	case GS_EXPR_REG:
		return "a register, a 64-bit integer";
	case GS_EXPR_VAR:
		return "a let variable holding a 64-bit integer";
	case GS_EXPR_SPECIAL:
		return "a special variable, a 64-bit integer";
	case GS_EXPR_DEREF:
		return "a memory read, a plain integer";
	case GS_EXPR_BUILTIN:
		return "a comparison, 0 or 1";
	case GS_EXPR_BYTES:
		return "a string";
	default:
		return "a computed 64-bit integer";
	}
}

/* Members, elements and pointees exist for source-level values only (and
 * $retval, typed by the function's DWARF in a return probe), and for p + n,
 * n + p and p - n over one: pointer arithmetic when p turns out to be a
 * pointer or an array, which the code generator knows from DWARF. */
static bool can_be_value(const struct gs_expr *e)
{
	return gs_expr_is_value(e) || (e->kind == GS_EXPR_SPECIAL && e->special == GS_SPECIAL_RETVAL) ||
	       sp_may_be_pointer(e);
}

bool sp_may_be_pointer(const struct gs_expr *e)
{
	return e->kind == GS_EXPR_BINARY &&
	       ((e->op == GS_OP_ADD && (can_be_value(e->lhs) || can_be_value(e->rhs))) ||
		(e->op == GS_OP_SUB && can_be_value(e->lhs)));
}

static bool check_base(struct parser *p, const struct gs_expr *e, size_t at, const char *what)
{
	if (can_be_value(e))
		return true;
	sp_err(p, at, "'%s' is %s and has no %s: cast it to a pointer type first, e.g. "
	       "cast(%s, \"struct foo *\")", e->text, what_is(e), what, e->text);
	return false;
}

/* ---- postfix: a.b  p->b  a[i] ------------------------------------------------ */

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0 && n < 10;
}

/* value.0: a Rust tuple's or tuple struct's field, its member __0 in
 * DWARF. */
static struct gs_expr *tuple_field(struct parser *p, struct gs_expr *base, size_t start,
				   const struct token *name)
{
	struct gs_expr *e;
	char field[16];

	sp_next(p);
	snprintf(field, sizeof(field), "__%.*s", (int)name->len, p->src + name->off);
	e = sp_node(p, GS_EXPR_MEMBER, start, sp_depth(base) + 1);
	if (!e)
		return NULL;
	e->lhs = base;
	e->name = base_arena_strndup(p->arena, field, strlen(field));
	e->pos = (uint32_t)name->off;
	if (!e->name)
		sp_nomem(p);
	return p->code ? NULL : e;
}

static struct gs_expr *member(struct parser *p, struct gs_expr *base, size_t start)
{
	struct token op = *sp_peek(p), name;
	struct gs_expr *e;
	char desc[64];

	if (!check_base(p, base, op.off, "members"))
		return NULL;
	sp_next(p);
	name = *sp_peek(p);
	if (op.kind == T_DOT && name.kind == T_INT && all_digits(p->src + name.off, name.len))
		return tuple_field(p, base, start, &name);
	if (name.kind != T_IDENT) {
		if (!p->code) {
			sp_tok_describe(p, &name, desc, sizeof(desc));
			sp_err(p, name.off, "expected a member name after '%s', found %s",
			       op.kind == T_ARROW ? "->" : ".", desc);
		}
		return NULL;
	}
	sp_next(p);
	e = sp_node(p, GS_EXPR_MEMBER, start, sp_depth(base) + 1);
	if (!e)
		return NULL;
	e->lhs = base;
	e->name = base_arena_strndup(p->arena, p->src + name.off, name.len);
	e->pos = (uint32_t)name.off;
	if (!e->name)
		sp_nomem(p);
	return p->code ? NULL : e;
}

static struct gs_expr *element(struct parser *p, struct gs_expr *base, size_t start)
{
	size_t open = sp_peek(p)->off;
	const struct gs_expr *index;
	struct gs_expr *e;
	char where[32], context[64];
	unsigned d;

	if (!check_base(p, base, open, "elements"))
		return NULL;
	sp_next(p);
	index = sp_expr(p);
	if (!index)
		return NULL;
	if (!sp_at(p, T_RBRACKET)) {
		sp_pos_string(p, open, where, sizeof(where));
		snprintf(context, sizeof(context), "to close the '[' at %s", where);
		sp_expect(p, T_RBRACKET, "']'", context);
		return NULL;
	}
	sp_next(p);
	d = sp_depth(base) > sp_depth(index) ? sp_depth(base) : sp_depth(index);
	e = sp_node(p, GS_EXPR_INDEX, start, d + 1);
	if (e) {
		e->lhs = base;
		e->rhs = index;
		e->pos = (uint32_t)open;
	}
	return e;
}

struct gs_expr *sp_postfix(struct parser *p, struct gs_expr *e, size_t start)
{
	while (e && !p->code) {
		enum tok_kind k = sp_peek(p)->kind;

		if (k == T_DOT || k == T_ARROW)
			e = member(p, e, start);
		else if (k == T_LBRACKET)
			e = element(p, e, start);
		else
			break;
	}
	return p->code ? NULL : e;
}

/* ---- *p and &x ---------------------------------------------------------------------- */

struct gs_expr *sp_value_deref(struct parser *p, size_t start)
{
	const struct gs_expr *operand = sp_unary(p);
	struct gs_expr *e;

	if (!operand)
		return NULL;
	if (!can_be_value(operand)) {
		sp_err(p, start, "'%s' is %s: a memory read needs a size, *(u64 *)%s, or a "
		       "pointer type, *cast(%s, \"int *\")", operand->text, what_is(operand),
		       operand->text, operand->text);
		return NULL;
	}
	e = sp_node(p, GS_EXPR_DEREF, start, sp_depth(operand) + 1);
	if (e) {
		e->lhs = operand;
		e->pos = (uint32_t)start;
	}
	return e;
}

struct gs_expr *sp_address_of(struct parser *p, size_t start)
{
	const struct gs_expr *operand = sp_unary(p);
	struct gs_expr *e;

	if (!operand)
		return NULL;
	if (!gs_expr_is_value(operand) || operand->kind == GS_EXPR_ADDR ||
	    operand->kind == GS_EXPR_CAST) {
		sp_err(p, start, "'&' takes a variable, a member or an element, and '%s' is %s",
		       operand->text, gs_expr_is_value(operand) ? "an address or a cast, not stored "
		       "anywhere" : what_is(operand));
		return NULL;
	}
	e = sp_node(p, GS_EXPR_ADDR, start, sp_depth(operand) + 1);
	if (e) {
		e->lhs = operand;
		e->pos = (uint32_t)start;
	}
	return e;
}

/* ---- let aliases --------------------------------------------------------------------- */

struct gs_expr *sp_alias(struct parser *p, const struct scope_var *v, const struct token *t)
{
	struct gs_expr *e;

	sp_next(p);
	e = sp_node(p, v->alias->kind, t->off, sp_depth(v->alias));
	if (!e)
		return NULL;
	/* The aliased node, shown under its let name. */
	{
		const char *text = e->text;

		*e = *v->alias;
		e->text = text;
		e->pos = (uint32_t)t->off;
	}
	return e;
}

/* ---- builtins -------------------------------------------------------------------------- */

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ?
	       (c | 0x20) - 'a' + 10 : -1;
}

/* hex("de ad be ef"): pairs of hex digits, spaces between pairs allowed. */
static struct gs_expr *hex_bytes(struct parser *p, const struct token *name)
{
	struct token s;
	struct gs_expr *e;
	uint8_t *out;
	size_t n = 0;

	sp_next(p); /* hex */
	if (!sp_expect(p, T_LPAREN, "'('", "after hex"))
		return NULL;
	s = *sp_peek(p);
	if (s.kind != T_STRING) {
		sp_err(p, s.off, "hex() takes a string of hex digits, e.g. hex(\"de ad be ef\")");
		return NULL;
	}
	out = base_arena_alloc(p->arena, s.len);
	if (!out) {
		sp_nomem(p);
		return NULL;
	}
	for (size_t i = s.off + 1; i + 1 < s.off + s.len;) {
		char c = p->src[i];

		if (c == ' ' || c == '\t') {
			i++;
			continue;
		}
		if (hex_digit(c) < 0 || i + 2 >= s.off + s.len || hex_digit(p->src[i + 1]) < 0) {
			sp_err(p, hex_digit(c) < 0 || i + 2 >= s.off + s.len ? i : i + 1,
			       "hex() takes pairs of hex digits "
			       "(0-9, a-f), spaces between pairs allowed: hex(\"de ad be ef\")");
			return NULL;
		}
		out[n++] = (uint8_t)(hex_digit(c) << 4 | hex_digit(p->src[i + 1]));
		i += 2;
	}
	if (!n) {
		sp_err(p, s.off, "hex() needs at least one byte, e.g. hex(\"00\")");
		return NULL;
	}
	sp_next(p);
	if (!sp_expect(p, T_RPAREN, "')'", "to close hex("))
		return NULL;
	e = sp_node(p, GS_EXPR_BYTES, name->off, 1);
	if (e) {
		e->bytes = out;
		e->nbytes = (uint32_t)n;
		e->pos = (uint32_t)name->off;
	}
	return e;
}

/* A builtin's operand: a string literal or hex() (bytes), or an expression. */
static const struct gs_expr *operand(struct parser *p)
{
	const struct token *t = sp_peek(p);

	if (t->kind == T_IDENT && sp_tok_is(p, t, "hex")) {
		struct token name = *t;

		return hex_bytes(p, &name);
	}
	return sp_expr(p);
}

struct gs_expr *sp_string_literal(struct parser *p, const struct token *t)
{
	struct token s = *t;
	struct gs_expr *e;
	char *text = sp_string_value(p, &s, false);

	if (!text)
		return NULL;
	sp_next(p);
	e = sp_node(p, GS_EXPR_BYTES, s.off, 1);
	if (e) {
		e->bytes = (const uint8_t *)text;
		e->nbytes = (uint32_t)strlen(text);
		e->pos = (uint32_t)s.off;
	}
	return e;
}

static bool is_bytes(const struct gs_expr *e)
{
	return e->kind == GS_EXPR_BYTES;
}

/* The length argument of memcmp and strncmp: any expression, a constant
 * one 0 or more. */
static const struct gs_expr *length(struct parser *p, const char *fn)
{
	size_t at = sp_peek(p)->off;
	const struct gs_expr *n = sp_expr(p);

	if (n && ((n->kind == GS_EXPR_INT && n->value < 0) ||
		  (n->kind == GS_EXPR_UNARY && n->op == '-' && n->lhs->kind == GS_EXPR_INT &&
		   n->lhs->value > 0))) {
		sp_err(p, at, "the length of %s is a number of bytes, 0 or more, and '%s' is not",
		       fn, n->text);
		return NULL;
	}
	return n;
}

/* cast(expr, "TYPE") */
static struct gs_expr *cast_call(struct parser *p, size_t start)
{
	const struct gs_expr *what = sp_expr(p);
	struct token s;
	struct gs_expr *e;
	char *type;

	if (!what || !sp_expect(p, T_COMMA, "','", "after cast's value: cast(expr, \"TYPE\")"))
		return NULL;
	s = *sp_peek(p);
	if (s.kind != T_STRING) {
		sp_err(p, s.off, "cast's type is a string: cast(expr, \"struct foo *\")");
		return NULL;
	}
	type = sp_string_value(p, &s, false);
	if (!type)
		return NULL;
	if (!type[strspn(type, " \t")]) {
		sp_err(p, s.off, "cast's type is empty: name one, e.g. \"int\" or \"struct foo *\"");
		return NULL;
	}
	sp_next(p);
	if (!sp_expect(p, T_RPAREN, "')'", "to close cast("))
		return NULL;
	e = sp_node(p, GS_EXPR_CAST, start, sp_depth(what) + 1);
	if (e) {
		e->lhs = what;
		e->type_name = type;
		e->pos = (uint32_t)s.off;
	}
	return e;
}

struct gs_expr *sp_builtin(struct parser *p, const struct token *t)
{
	static const struct { const char *name; uint8_t id; } compares[] = {
		{ "memcmp", GS_BUILTIN_MEMCMP }, { "strncmp", GS_BUILTIN_STRNCMP },
		{ "starts_with", GS_BUILTIN_STARTS_WITH },
	};
	const struct gs_expr *a, *b, *n = NULL;
	char fn[16], context[48];
	struct gs_expr *e;
	int id = -1;

	snprintf(fn, sizeof(fn), "%.*s", (int)t->len, p->src + t->off);
	if (strcmp(fn, "hex") == 0) {
		sp_err(p, t->off, "hex(\"..\") is an operand of memcmp, e.g. memcmp(buf, "
		       "hex(\"de ad\"), 2)");
		return NULL;
	}
	if (sp_peek2(p).kind != T_LPAREN) {
		sp_err(p, t->off, "%s is a builtin function: call it, %s(...)", fn, fn);
		return NULL;
	}
	sp_next(p);
	sp_next(p); /* ( */
	if (strcmp(fn, "cast") == 0)
		return cast_call(p, t->off);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(compares); i++)
		if (strcmp(fn, compares[i].name) == 0)
			id = compares[i].id;
	snprintf(context, sizeof(context), "between %s's arguments", fn);
	a = operand(p);
	if (!a || !sp_expect(p, T_COMMA, "','", context) || !(b = operand(p)))
		return NULL;
	if (id != GS_BUILTIN_STARTS_WITH && sp_accept(p, T_COMMA) && !(n = length(p, fn)))
		return NULL;
	if (!sp_expect(p, T_RPAREN, "')'", id == GS_BUILTIN_STARTS_WITH ?
		       "to close starts_with(value, \"prefix\")" : "after the length"))
		return NULL;
	if (is_bytes(a) && is_bytes(b)) {
		sp_err(p, t->off, "%s compares memory of the target: one operand must be a "
		       "variable or an address, not both literals", fn);
		return NULL;
	}
	if (id != GS_BUILTIN_MEMCMP && !is_bytes(a) && !is_bytes(b)) {
		sp_err(p, b->pos ? b->pos : t->off, "%s compares with a string literal: write "
		       "%s(value, \"text\"%s)", fn, fn, id == GS_BUILTIN_STRNCMP ? ", n" : "");
		return NULL;
	}
	if (!n && id != GS_BUILTIN_STARTS_WITH) {
		if (id == GS_BUILTIN_STRNCMP || (!is_bytes(a) && !is_bytes(b))) {
			sp_err(p, p->prev_end - 1, "%s needs a length: %s(a, b, n)", fn, fn);
			return NULL;
		}
		n = NULL; /* memcmp against literal bytes: all of them */
	}
	if (n && id == GS_BUILTIN_MEMCMP && n->kind == GS_EXPR_INT && (uint64_t)n->value >
	    (is_bytes(a) ? a->nbytes : is_bytes(b) ? b->nbytes : UINT32_MAX)) {
		sp_err(p, n->pos, "memcmp of %lld bytes against a literal of %u: the literal has "
		       "no more bytes to compare", (long long)n->value,
		       is_bytes(a) ? a->nbytes : b->nbytes);
		return NULL;
	}
	e = sp_node(p, GS_EXPR_BUILTIN, t->off, (sp_depth(a) > sp_depth(b) ? sp_depth(a) :
						 sp_depth(b)) + 1);
	if (!e)
		return NULL;
	if (!n && id == GS_BUILTIN_MEMCMP) {
		struct gs_expr *len = sp_node(p, GS_EXPR_INT, t->off, 1);

		if (!len)
			return NULL;
		len->value = is_bytes(a) ? a->nbytes : b->nbytes;
		n = len;
	}
	e->builtin = (uint8_t)id;
	e->lhs = a;
	e->rhs = b;
	e->len = n;
	e->pos = (uint32_t)t->off;
	return e;
}

/* len(x): the elements of a standard-library container or a C array; the
 * code generator checks x's type against DWARF. */
struct gs_expr *sp_len(struct parser *p, const struct token *t)
{
	const struct gs_expr *x;
	struct gs_expr *e;
	size_t at;

	sp_next(p);
	sp_next(p); /* ( */
	at = sp_peek(p)->off;
	x = sp_expr(p);
	if (!x || !sp_expect(p, T_RPAREN, "')'", "to close len(value)") ||
	    !check_base(p, x, at, "length"))
		return NULL;
	e = sp_node(p, GS_EXPR_BUILTIN, t->off, sp_depth(x) + 1);
	if (!e)
		return NULL;
	e->builtin = GS_BUILTIN_LEN;
	e->lhs = x;
	e->pos = (uint32_t)t->off;
	return e;
}
