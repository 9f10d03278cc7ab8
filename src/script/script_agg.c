/* Aggregation statements: `@name = count();`, `@name[k1, k2] = hist(x);`
 * and the other functions of docs/cli.md ("Aggregations"). One @name is
 * one aggregation of the whole script, whatever trace updates it: its
 * first use fixes its function and number of keys, and a later use that
 * differs is an error at that use. */
#include <string.h>

#include "script_int.h"

static const struct {
	const char *name;
	uint8_t fn;
	uint8_t nargs; /* the value, and lhist's bounds */
} funcs[] = {
	{ "count", GS_AGG_COUNT, 0 }, { "sum", GS_AGG_SUM, 1 },   { "min", GS_AGG_MIN, 1 },
	{ "max", GS_AGG_MAX, 1 },     { "avg", GS_AGG_AVG, 1 },   { "stats", GS_AGG_STATS, 1 },
	{ "hist", GS_AGG_HIST, 1 },   { "lhist", GS_AGG_LHIST, 4 },
};

#define FUNCS "count() sum(x) min(x) max(x) avg(x) stats(x) hist(x) lhist(x, min, max, step)"

static const char *fn_name(uint8_t fn)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(funcs); i++)
		if (funcs[i].fn == fn)
			return funcs[i].name;
	return "?";
}

/* lhist's bounds are integer literals (a leading '-' allowed): the
 * buckets are fixed when the program is built. */
static bool constant(struct parser *p, int64_t *v, const char *what)
{
	size_t at = sp_peek(p)->off;
	const struct gs_expr *e = sp_expr(p);

	if (!e)
		return false;
	if (e->kind == GS_EXPR_INT) {
		*v = e->value;
		return true;
	}
	if (e->kind == GS_EXPR_UNARY && e->op == '-' && e->lhs->kind == GS_EXPR_INT) {
		*v = -e->lhs->value;
		return true;
	}
	sp_err(p, at, "lhist()'s %s must be an integer literal: the buckets are fixed when "
	       "the program is built", what);
	return false;
}

static bool lhist_bounds(struct parser *p, struct gs_agg_stmt *a, size_t at)
{
	if (!sp_expect(p, T_COMMA, "','", "after lhist()'s value") ||
	    !constant(p, &a->lmin, "min") || !sp_expect(p, T_COMMA, "','", "after lhist()'s min") ||
	    !constant(p, &a->lmax, "max") || !sp_expect(p, T_COMMA, "','", "after lhist()'s max") ||
	    !constant(p, &a->lstep, "step"))
		return false;
	if (a->lstep <= 0 || a->lstep > INT32_MAX) {
		sp_err(p, at, "lhist()'s step is %lld: it must be 1..%d", (long long)a->lstep,
		       INT32_MAX);
		return false;
	}
	if (a->lmin < INT32_MIN || a->lmax > INT32_MAX || a->lmax <= a->lmin) {
		sp_err(p, at, "lhist()'s bounds [%lld, %lld) are empty or outside the 32-bit "
		       "range: write min < max", (long long)a->lmin, (long long)a->lmax);
		return false;
	}
	if ((a->lmax - a->lmin) / a->lstep > GS_AGG_LHIST_MAX_BUCKETS) {
		sp_err(p, at, "lhist() would have %lld buckets, more than %d: raise the step",
		       (long long)((a->lmax - a->lmin) / a->lstep), GS_AGG_LHIST_MAX_BUCKETS);
		return false;
	}
	return true;
}

/* The script's aggregation `name` (the token t), declared on first use;
 * its id, or -1 after an error (a use that differs from the first). */
static long declare(struct parser *p, const struct token *t, const char *name, uint8_t fn,
		    size_t nkeys)
{
	char where[32];

	for (size_t i = 0; i < p->naggs; i++) {
		const struct sp_agg *g = &p->aggs[i];

		if (strcmp(g->name, name))
			continue;
		sp_pos_string(p, g->off, where, sizeof(where));
		if (g->fn != fn) {
			sp_err(p, t->off, "%s is %s() since %s and cannot also be %s(): use "
			       "another name", name, fn_name(g->fn), where, fn_name(fn));
			return -1;
		}
		if (g->nkeys != nkeys) {
			sp_err(p, t->off, "%s has %u key%s since %s, not %zu: every use of an "
			       "aggregation has the same keys", name, g->nkeys,
			       g->nkeys == 1 ? "" : "s", where, nkeys);
			return -1;
		}
		return (long)i;
	}
	if (base_arena_grow(p->arena, &p->aggs, &p->aggs_cap, p->naggs, sizeof(*p->aggs))) {
		sp_nomem(p);
		return -1;
	}
	p->aggs[p->naggs] = (struct sp_agg){ name, t->off, fn, (uint8_t)nkeys };
	return (long)p->naggs++;
}

/* '[' expr (',' expr)* ']' into st->args */
static bool keys(struct parser *p, struct gs_stmt *st, const char *name)
{
	const struct gs_expr **v = NULL;
	size_t n = 0, cap = 0;

	if (!sp_accept(p, T_LBRACKET))
		return true;
	do {
		size_t at = sp_peek(p)->off;
		const struct gs_expr *e;

		if (n == GS_AGG_MAX_KEYS) {
			sp_err(p, at, "%s has more than %d keys", name, GS_AGG_MAX_KEYS);
			return false;
		}
		if (!(e = sp_expr(p)))
			return false;
		if (base_arena_grow(p->arena, &v, &cap, n, sizeof(*v))) {
			sp_nomem(p);
			return false;
		}
		v[n++] = e;
	} while (sp_accept(p, T_COMMA));
	if (!sp_expect(p, T_RBRACKET, "']'", "after the aggregation's keys"))
		return false;
	st->args = v;
	st->nargs = n;
	return true;
}

int sp_agg_stmt(struct parser *p, struct gs_stmt *st)
{
	struct token t = *sp_peek(p), f;
	struct gs_agg_stmt *a = base_arena_alloc(p->arena, sizeof(*a));
	const char *name = base_arena_strndup(p->arena, p->src + t.off, t.len);
	char desc[64];
	size_t k;
	long id;

	if (!a || !name) {
		sp_nomem(p);
		return -1;
	}
	memset(a, 0, sizeof(*a));
	sp_next(p);
	if (!keys(p, st, name) || !sp_expect(p, T_ASSIGN, "'='", "after the aggregation's name"))
		return -1;
	f = *sp_peek(p);
	for (k = 0; k < BASE_ARRAY_SIZE(funcs); k++)
		if (f.kind == T_IDENT && sp_tok_is(p, &f, funcs[k].name))
			break;
	if (k == BASE_ARRAY_SIZE(funcs)) {
		sp_tok_describe(p, &f, desc, sizeof(desc));
		sp_err(p, f.off, "expected an aggregation function after '%s =', found %s: the "
		       "functions are " FUNCS, name, desc);
		return -1;
	}
	sp_next(p);
	if (!sp_expect(p, T_LPAREN, "'('", "after the aggregation function"))
		return -1;
	if (funcs[k].nargs) {
		st->expr = sp_expr(p);
		if (!st->expr)
			return -1;
		if (funcs[k].fn == GS_AGG_LHIST && !lhist_bounds(p, a, f.off))
			return -1;
	}
	if (!sp_expect(p, T_RPAREN, "')'", funcs[k].nargs == 4 ? "after lhist(x, min, max, step)" :
		       funcs[k].nargs ? "after the aggregated value" : "after count(")  ||
	    !sp_expect(p, T_SEMI, "';'", "after the aggregation"))
		return -1;
	id = declare(p, &t, name, funcs[k].fn, st->nargs);
	if (id < 0)
		return -1;
	a->name = name;
	a->id = (uint32_t)id;
	a->fn = funcs[k].fn;
	st->kind = GS_STMT_AGGREGATE;
	st->text = name;
	st->agg = a;
	return 0;
}
