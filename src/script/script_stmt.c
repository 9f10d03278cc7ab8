/* Statements of a trace body (docs/cli.md, "Script"): print in its
 * three forms with the format string checked against its arguments, bt /
 * backtrace with its options, if / else if / else, and `let` with block
 * scopes and no shadowing; what the language rejects (assignment, nested
 * trace, expressions alone) fails with a message saying what to write. */
#include <stdio.h>
#include <string.h>

#include <gs/format.h>

#include "script_int.h"

struct stmt_vec {
	struct gs_stmt *v;
	size_t n, cap;
};

static struct gs_stmt *push_stmt(struct parser *p, struct stmt_vec *vec)
{
	if (base_arena_grow(p->arena, &vec->v, &vec->cap, vec->n, sizeof(*vec->v))) {
		sp_nomem(p);
		return NULL;
	}
	return &vec->v[vec->n++];
}

static void describe_next(struct parser *p, char *buf, size_t size)
{
	sp_tok_describe(p, sp_peek(p), buf, size);
}

/* ---- print -------------------------------------------------------------------------- */

#define MAX_FORMAT_ARGS 255 /* PrintComplexFormat's arg_count is a u8 */

/* Source offset of byte `at` of string token s's value (escapes are two
 * source bytes for one value byte). */
static size_t value_pos(const struct parser *p, const struct token *s, size_t at)
{
	size_t i = s->off + 1;

	for (size_t k = 0; k < at && i < s->off + s->len - 1; k++)
		i += p->src[i] == '\\' ? 2 : 1;
	return i;
}

/* One checked placeholder: where it is, and the let variable of .name$. */
struct placeholder {
	size_t off;
	unsigned nargs;               /* arguments it takes from the list: 1 or 2 */
	const struct scope_var *var;  /* .name$ */
};

/* The placeholders of the format (value fmt of token s), checked, into an
 * arena array; their number, or -1 after an error. */
static long scan_format(struct parser *p, const struct token *s, const char *fmt,
			struct placeholder **out)
{
	struct placeholder *v = NULL;
	struct gs_fmt_item it;
	size_t pos = 0, cap = 0;
	long n = 0;

	while (gs_fmt_next(fmt, &pos, &it)) {
		size_t at = value_pos(p, s, it.off);
		struct placeholder ph = { .off = at, .nargs = 1 };

		if (it.kind == GS_FMT_TEXT)
			continue;
		if (it.kind != GS_FMT_VALUE) {
			if (it.kind == GS_FMT_BAD_SPEC)
				sp_err(p, at, "placeholder '%.*s' is not understood: %s", (int)it.len,
				       fmt + it.off, it.why);
			else
				sp_err(p, at, "%s", it.why);
			return -1;
		}
		if (it.len_kind == GS_FMT_LEN_ARG)
			ph.nargs = 2;
		if (it.len_kind == GS_FMT_LEN_VAR) {
			ph.var = sp_scope_find(p, fmt + it.name_off, it.name_len);
			if (!ph.var) {
				sp_err(p, value_pos(p, s, it.name_off), "'%.*s' in '%.*s' is not a let "
				       "variable bound before this print: bind the length first (let "
				       "%.*s = ...;) or write a number", (int)it.name_len,
				       fmt + it.name_off, (int)it.len, fmt + it.off, (int)it.name_len,
				       fmt + it.name_off);
				return -1;
			}
		}
		if (base_arena_grow(p->arena, &v, &cap, (size_t)n, sizeof(*v))) {
			sp_nomem(p);
			return -1;
		}
		v[n++] = ph;
	}
	*out = v;
	return n;
}

/* Placeholders and arguments must pair up exactly: `.*` takes two. */
static int check_format(struct parser *p, const struct token *s, const char *fmt,
			struct placeholder **ph_out, long *nph, const size_t *arg_offs,
			size_t nargs)
{
	struct placeholder *ph = NULL;
	long n = scan_format(p, s, fmt, &ph);
	size_t want = 0;
	bool star = false;

	if (n < 0)
		return -1;
	*nph = n;
	*ph_out = ph;
	for (long i = 0; i < n; i++) {
		star |= ph[i].nargs == 2;
		if (want + ph[i].nargs > nargs) {
			if (nargs == 0)
				sp_err(p, ph[i].off, "placeholder 1 has no argument: pass values after "
				       "the string (print \"x={}\", expr;) or write {{ and }} for literal "
				       "braces");
			else if (star)
				sp_err(p, ph[i].off, "placeholder %ld has no argument: the format string "
				       "takes more arguments than the %zu that follow ({:x.*} takes two: "
				       "the length, then the value)", i + 1, nargs);
			else
				sp_err(p, ph[i].off, "placeholder %ld has no argument: the format string "
				       "has %ld placeholders but %zu argument%s follow%s", i + 1, n,
				       nargs, nargs == 1 ? "" : "s", nargs == 1 ? "s" : "");
			return -1;
		}
		want += ph[i].nargs;
	}
	if (nargs > want) {
		if (n == 0)
			sp_err(p, arg_offs[0], "the format string has no placeholder for this "
			       "argument: add {} where its value goes");
		else
			sp_err(p, arg_offs[want], "the format string has %ld placeholder%s but %zu "
			       "arguments follow: add a placeholder for this argument or remove it",
			       n, n == 1 ? "" : "s", nargs);
		return -1;
	}
	if (nargs > MAX_FORMAT_ARGS) {
		sp_err(p, arg_offs[MAX_FORMAT_ARGS], "a print takes at most %d arguments: split it",
		       MAX_FORMAT_ARGS);
		return -1;
	}
	return 0;
}

static int print_format(struct parser *p, const struct token *s, struct gs_stmt *st)
{
	const struct gs_expr **args = NULL, **wire;
	size_t *offs = NULL, nargs = 0, cap = 0, cap_offs = 0, nwire = 0, k = 0;
	struct placeholder *ph;
	long nph;
	char *fmt;

	do {
		size_t off = sp_peek(p)->off;
		const struct gs_expr *e;

		if (base_arena_grow(p->arena, &args, &cap, nargs, sizeof(*args)) ||
		    base_arena_grow(p->arena, &offs, &cap_offs, nargs, sizeof(*offs))) {
			sp_nomem(p);
			return -1;
		}
		e = sp_expr(p);
		if (!e)
			return -1;
		offs[nargs] = off;
		args[nargs++] = e;
	} while (sp_accept(p, T_COMMA));
	if (!sp_expect(p, T_SEMI, "';' or ','", "after the print argument"))
		return -1;
	fmt = sp_string_value(p, s, false);
	if (!fmt || check_format(p, s, fmt, &ph, &nph, offs, nargs))
		return -1;
	/* .name$ lengths become the argument before their value. */
	wire = base_arena_alloc(p->arena, (nargs + (size_t)nph) * sizeof(*wire));
	if (!wire) {
		sp_nomem(p);
		return -1;
	}
	for (long i = 0; i < nph; i++) {
		if (ph[i].var) {
			const struct scope_var *v = ph[i].var;
			struct gs_expr *len = sp_node(p, v->alias ? v->alias->kind : GS_EXPR_VAR,
						      ph[i].off, 1);

			if (!len)
				return -1;
			if (v->alias)
				*len = *v->alias;
			len->text = v->name;
			len->var = v->index;
			len->pos = (uint32_t)ph[i].off;
			wire[nwire++] = len;
		}
		for (unsigned a = 0; a < ph[i].nargs; a++)
			wire[nwire++] = args[k++];
	}
	if (nwire > MAX_FORMAT_ARGS) {
		sp_err(p, k < nargs ? offs[k] : s->off, "a print takes at most %d values on the wire "
		       "(a .* or .name$ length counts as one): split it", MAX_FORMAT_ARGS);
		return -1;
	}
	st->kind = GS_STMT_PRINT_FORMAT;
	st->text = fmt;
	st->args = wire;
	st->nargs = nwire;
	return 0;
}

static int print_stmt(struct parser *p, struct gs_stmt *st)
{
	struct token s;
	char desc[64];

	sp_next(p); /* print */
	s = *sp_peek(p);
	if (s.kind == T_SEMI) {
		sp_err(p, s.off, "print needs something to print: a string, a format string with "
		       "arguments, or an expression");
		return -1;
	}
	if (s.kind != T_STRING) {
		st->kind = GS_STMT_PRINT_EXPR;
		st->expr = sp_expr(p);
		return st->expr && sp_expect(p, T_SEMI, "';'", "after the print statement") ? 0 : -1;
	}
	sp_next(p);
	if (sp_accept(p, T_COMMA))
		return print_format(p, &s, st);
	if (!sp_at(p, T_SEMI)) {
		if (!p->code) {
			describe_next(p, desc, sizeof(desc));
			sp_err(p, p->prev_end, "expected ';' or ',' after the print string, found %s",
			       desc);
		}
		return -1;
	}
	sp_next(p);
	{
		struct placeholder *ph;
		char *fmt = sp_string_value(p, &s, false);
		long nph;

		if (!fmt || check_format(p, &s, fmt, &ph, &nph, NULL, 0))
			return -1;
	}
	st->kind = GS_STMT_PRINT_STRING;
	st->text = sp_string_value(p, &s, true);
	return st->text ? 0 : -1;
}

/* ---- bt ----------------------------------------------------------------------------- */

static int bt_stmt(struct parser *p, struct gs_stmt *st)
{
	uint8_t flags = GS_BT_FLAG_INLINE; /* inline unless noinline */
	char desc[64];

	sp_next(p); /* bt | backtrace */
	for (;;) {
		struct token o = *sp_peek(p);

		if (p->code)
			return -1;
		if (o.kind == T_SEMI) {
			sp_next(p);
			break;
		}
		if (o.kind == T_INT) {
			sp_err(p, o.off, "bt takes no depth: the backtrace depth is global, set it "
			       "with --backtrace-depth N (1..512)");
			return -1;
		}
		if (o.kind == T_IDENT && !sp_reserved_name(p->src + o.off, o.len)) {
			if (sp_tok_is(p, &o, "raw"))
				flags |= GS_BT_FLAG_RAW;
			else if (sp_tok_is(p, &o, "full"))
				flags |= GS_BT_FLAG_FULL;
			else if (sp_tok_is(p, &o, "inline"))
				flags |= GS_BT_FLAG_INLINE;
			else if (sp_tok_is(p, &o, "noinline"))
				flags &= (uint8_t)~GS_BT_FLAG_INLINE;
			else {
				sp_err(p, o.off, "unknown bt option '%.*s': the options are raw, full, "
				       "inline and noinline", (int)o.len, p->src + o.off);
				return -1;
			}
			sp_next(p);
			continue;
		}
		sp_tok_describe(p, &o, desc, sizeof(desc));
		sp_err(p, p->prev_end, "expected ';' after bt, found %s", desc);
		return -1;
	}
	st->kind = GS_STMT_BACKTRACE;
	st->bt_flags = flags;
	return 0;
}

/* ---- let ---------------------------------------------------------------------------- */

/* 0, or 1 when the name is an alias of a source-level value (no statement
 * is left: the value is read where the name is used), -1 on error. */
static int let_stmt(struct parser *p, struct gs_stmt *st)
{
	struct token name;
	const struct scope_var *prior;
	const char *what, *s;
	char desc[64], where[32], context[96];
	const char *copy;

	sp_next(p); /* let */
	name = *sp_peek(p);
	s = p->src + name.off;
	if (name.kind != T_IDENT) {
		if (name.kind == T_SPECIAL)
			sp_err(p, name.off, "'%.*s' is a special variable: a let name is a plain "
			       "identifier", (int)name.len, s);
		else if (!p->code) {
			sp_tok_describe(p, &name, desc, sizeof(desc));
			sp_err(p, name.off, "expected a variable name after 'let', found %s", desc);
		}
		return -1;
	}
	what = sp_reserved_name(s, name.len);
	if (what) {
		sp_err(p, name.off, "'%.*s' is %s and cannot name a variable", (int)name.len, s,
		       what);
		return -1;
	}
	if (p->nvars >= GS_SCRIPT_LETS_MAX) {
		sp_err(p, name.off, "'%.*s' is let variable %u of this trace, and a trace can "
		       "bind at most %u (each takes 8 of the 512 bytes of BPF stack); reuse an "
		       "expression, or split the work into two traces", (int)name.len, s,
		       p->nvars + 1, GS_SCRIPT_LETS_MAX);
		return -1;
	}
	prior = sp_scope_find(p, s, name.len);
	if (prior) {
		sp_pos_string(p, prior->off, where, sizeof(where));
		sp_err(p, name.off, "'%.*s' is already bound at %s: script variables cannot be "
		       "redefined or shadowed, pick another name", (int)name.len, s, where);
		return -1;
	}
	sp_next(p);
	snprintf(context, sizeof(context), "after 'let %.*s'", name.len > 40 ? 40 : (int)name.len,
		 s);
	if (!sp_expect(p, T_ASSIGN, "'='", context))
		return -1;
	st->expr = sp_expr(p);
	if (!st->expr || !sp_expect(p, T_SEMI, "';'", "after the let statement"))
		return -1;
	copy = base_arena_strndup(p->arena, s, name.len);
	if (copy && (gs_expr_is_value(st->expr) || sp_may_be_pointer(st->expr) ||
		     st->expr->kind == GS_EXPR_BYTES)) {
		/* A source-level value (or p + n over one), or a string: an
		 * alias, read where it is used. */
		if (base_arena_grow(p->arena, &p->scope, &p->scope_cap, p->nscope,
				  sizeof(*p->scope))) {
			sp_nomem(p);
			return -1;
		}
		p->scope[p->nscope++] = (struct scope_var){ copy, name.off, 0, st->expr };
		return 1;
	}
	if (!copy || base_arena_grow(p->arena, &p->scope, &p->scope_cap, p->nscope,
				   sizeof(*p->scope)) ||
	    base_arena_grow(p->arena, &p->var_names, &p->var_names_cap, p->nvars,
			  sizeof(*p->var_names))) {
		sp_nomem(p);
		return -1;
	}
	p->scope[p->nscope++] = (struct scope_var){ copy, name.off, p->nvars, NULL };
	p->var_names[p->nvars] = copy;
	st->kind = GS_STMT_LET;
	st->text = copy;
	st->var = p->nvars++;
	return 0;
}

/* ---- if ----------------------------------------------------------------------------- */

/* '{' statements '}' */
static int braced(struct parser *p, const char *what, const char *context,
		  const struct gs_stmt **body, size_t *n)
{
	size_t open;

	if (!sp_at(p, T_LBRACE)) {
		sp_expect(p, T_LBRACE, "'{'", context);
		return -1;
	}
	open = sp_peek(p)->off;
	sp_next(p);
	return sp_block(p, open, what, body, n);
}

static int if_stmt(struct parser *p, struct gs_stmt *st)
{
	struct gs_stmt *elif;
	int rc;

	if (p->block_depth >= SCRIPT_MAX_DEPTH) {
		sp_err(p, sp_peek(p)->off, "if / else is nested too deeply (more than %d levels)",
		       SCRIPT_MAX_DEPTH);
		return -1;
	}
	sp_next(p); /* if */
	if (sp_at(p, T_LBRACE)) {
		sp_err(p, sp_peek(p)->off, "expected a condition after 'if'");
		return -1;
	}
	st->kind = GS_STMT_IF;
	st->expr = sp_expr(p);
	if (!st->expr)
		return -1;
	if (sp_at(p, T_ASSIGN)) {
		sp_err(p, sp_peek(p)->off, "'=' is not a comparison: write '==' to compare");
		return -1;
	}
	p->block_depth++;
	rc = braced(p, "if block", "after the if condition", &st->then_body, &st->nthen);
	if (!rc && sp_tok_is(p, sp_peek(p), "else")) {
		sp_next(p);
		if (sp_tok_is(p, sp_peek(p), "if")) {
			elif = base_arena_alloc(p->arena, sizeof(*elif));
			if (!elif) {
				sp_nomem(p);
				rc = -1;
			} else {
				rc = if_stmt(p, elif);
				st->else_body = elif;
				st->nelse = 1;
			}
		} else {
			rc = braced(p, "else block", "or 'if' after 'else'", &st->else_body,
				    &st->nelse);
		}
	}
	p->block_depth--;
	return rc;
}

/* ---- statements ------------------------------------------------------------------------ */

/* `name = value;` and `expr;`: neither is a statement of the language. */
static void not_a_statement(struct parser *p, const struct token *t)
{
	const struct scope_var *var = NULL;
	const struct gs_expr *e;
	char where[32];

	if (t->kind == T_IDENT && sp_peek2(p).kind == T_ASSIGN) {
		var = sp_scope_find(p, p->src + t->off, t->len);
		if (var) {
			sp_pos_string(p, var->off, where, sizeof(where));
			sp_err(p, t->off, "variables are immutable: '%s' was bound at %s and cannot "
			       "be assigned; bind the new value to a new name with let", var->name,
			       where);
		} else {
			sp_err(p, t->off, "variables are immutable, there is no assignment: bind "
			       "'%.*s' once with let %.*s = ...;", (int)t->len, p->src + t->off,
			       (int)t->len, p->src + t->off);
		}
		return;
	}
	e = sp_expr(p);
	if (!e)
		return;
	if (sp_at(p, T_ASSIGN))
		sp_err(p, t->off, "variables are immutable, there is no assignment: bind a value "
		       "once with let name = ...;");
	else
		sp_err(p, t->off, "an expression alone does nothing: print it with print %s;",
		       e->text);
}

static int statement(struct parser *p, struct stmt_vec *out)
{
	struct token t = *sp_peek(p);
	struct gs_stmt *st;

	if (sp_tok_is(p, &t, "trace")) {
		sp_err(p, t.off, "'trace' cannot be nested: close this trace block with '}' "
		       "before the next trace");
		return -1;
	}
	if (sp_tok_is(p, &t, "else")) {
		sp_err(p, t.off, "'else' without 'if': else follows the '}' of an if block");
		return -1;
	}
	if (t.kind == T_LBRACE) {
		sp_err(p, t.off, "a block needs 'if' or 'else' in front: bare { } blocks are not "
		       "supported");
		return -1;
	}
	if (t.kind == T_SEMI) {
		sp_err(p, t.off, "empty statement: remove this ';'");
		return -1;
	}
	st = push_stmt(p, out);
	if (!st)
		return -1;
	if (sp_tok_is(p, &t, "print"))
		return print_stmt(p, st);
	if (sp_tok_is(p, &t, "bt") || sp_tok_is(p, &t, "backtrace"))
		return bt_stmt(p, st);
	if (sp_tok_is(p, &t, "if"))
		return if_stmt(p, st);
	if (t.kind == T_AGG)
		return sp_agg_stmt(p, st);
	if (sp_tok_is(p, &t, "let")) {
		int rc = let_stmt(p, st);

		if (rc == 1) /* an alias: no statement */
			out->n--;
		return rc < 0 ? -1 : 0;
	}
	not_a_statement(p, &t);
	return -1;
}

int sp_block(struct parser *p, size_t open_off, const char *what,
	     const struct gs_stmt **body, size_t *n)
{
	struct stmt_vec vec = { 0 };
	size_t mark = p->nscope;
	char where[32];

	for (;;) {
		bool eof = sp_at(p, T_EOF);

		if (p->code)
			break;
		if (sp_accept(p, T_RBRACE))
			break;
		if (eof) {
			sp_pos_string(p, open_off, where, sizeof(where));
			sp_err(p, p->prev_end, "expected '}' to close the %s opened at %s", what,
			       where);
			break;
		}
		if (statement(p, &vec))
			break;
	}
	p->nscope = mark;
	*body = vec.v;
	*n = vec.n;
	return p->code ? -1 : 0;
}
