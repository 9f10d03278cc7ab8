/* The walks every pass over a spec shares: one visitor in source order,
 * the costliest path through a body (what an event or EndInstruction must
 * allow for), and the counts of `bt` statements built on the visitor. */
#include <gs/spec.h>

static enum gs_visit visit_node(struct gs_visitor *v, const struct gs_expr *e)
{
	enum gs_visit r = v->expr ? v->expr(v, e) : GS_VISIT_CONTINUE;

	if (r != GS_VISIT_CONTINUE)
		return r;
	if (gs_visit_expr(v, e->lhs) || gs_visit_expr(v, e->rhs) || gs_visit_expr(v, e->len))
		return GS_VISIT_STOP;
	return v->expr_after ? v->expr_after(v, e) : GS_VISIT_CONTINUE;
}

bool gs_visit_expr(struct gs_visitor *v, const struct gs_expr *e)
{
	return e && visit_node(v, e) == GS_VISIT_STOP;
}

static bool visit_stmt(struct gs_visitor *v, const struct gs_stmt *s)
{
	enum gs_visit r = v->stmt ? v->stmt(v, s) : GS_VISIT_CONTINUE;

	if (r != GS_VISIT_CONTINUE)
		return r == GS_VISIT_STOP;
	if (gs_visit_expr(v, s->expr))
		return true;
	for (size_t k = 0; k < s->nargs; k++)
		if (gs_visit_expr(v, s->args[k]))
			return true;
	if (gs_visit_stmts(v, s->then_body, s->nthen) ||
	    gs_visit_stmts(v, s->else_body, s->nelse))
		return true;
	return v->stmt_after && v->stmt_after(v, s) == GS_VISIT_STOP;
}

bool gs_visit_stmts(struct gs_visitor *v, const struct gs_stmt *body, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (visit_stmt(v, &body[i]))
			return true;
	return false;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t gs_spec_path_max(const struct gs_stmt *body, size_t n,
			  uint64_t (*cost)(const struct gs_stmt *s, void *arg), void *arg)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gs_stmt *s = &body[i];

		total = add_sat(total, cost(s, arg));
		if (s->kind == GS_STMT_IF) {
			uint64_t t = gs_spec_path_max(s->then_body, s->nthen, cost, arg);
			uint64_t e = gs_spec_path_max(s->else_body, s->nelse, cost, arg);

			total = add_sat(total, t > e ? t : e);
		}
	}
	return total;
}

/* ---- counts of `bt` -------------------------------------------------------- */

struct bt_count {
	struct gs_visitor v;
	uint8_t without; /* flags that leave a `bt` out */
	uint32_t count;
};

static enum gs_visit count_bt(struct gs_visitor *v, const struct gs_stmt *s)
{
	struct bt_count *c = (struct bt_count *)v;

	if (s->kind == GS_STMT_BACKTRACE)
		c->count += !(s->bt_flags & c->without);
	/* Only an if holds statements; expressions hold none. */
	return s->kind == GS_STMT_IF ? GS_VISIT_CONTINUE : GS_VISIT_SKIP;
}

static uint32_t count(const struct gs_stmt *body, size_t n, uint8_t without)
{
	struct bt_count c = { .v = { .stmt = count_bt }, .without = without };

	gs_visit_stmts(&c.v, body, n);
	return c.count;
}

uint32_t gs_stmts_count_bt(const struct gs_stmt *body, size_t n)
{
	return count(body, n, 0);
}

uint32_t gs_stmts_count_bt_symbolized(const struct gs_stmt *body, size_t n)
{
	return count(body, n, GS_BT_FLAG_RAW);
}

static enum gs_visit reads_user(struct gs_visitor *v, const struct gs_expr *e)
{
	(void)v;
	return e->kind == GS_EXPR_DEREF || e->kind == GS_EXPR_BUILTIN || gs_expr_is_value(e) ?
		       GS_VISIT_STOP : GS_VISIT_CONTINUE;
}

bool gs_stmts_read_user_memory(const struct gs_stmt *body, size_t n)
{
	return gs_visit_stmts(&(struct gs_visitor){ .expr = reads_user }, body, n);
}

/* ---- what a body shows per hit, and what it times ------------------------- */

static enum gs_visit shows(struct gs_visitor *v, const struct gs_stmt *s)
{
	(void)v;
	switch (s->kind) {
	case GS_STMT_PRINT_STRING:
	case GS_STMT_PRINT_FORMAT:
	case GS_STMT_PRINT_EXPR:
	case GS_STMT_BACKTRACE:
		return GS_VISIT_STOP;
	default:
		return s->kind == GS_STMT_IF ? GS_VISIT_CONTINUE : GS_VISIT_SKIP;
	}
}

static enum gs_visit aggregates(struct gs_visitor *v, const struct gs_stmt *s)
{
	(void)v;
	return s->kind == GS_STMT_AGGREGATE ? GS_VISIT_STOP :
	       s->kind == GS_STMT_IF ? GS_VISIT_CONTINUE : GS_VISIT_SKIP;
}

bool gs_stmts_aggregate(const struct gs_stmt *body, size_t n)
{
	return gs_visit_stmts(&(struct gs_visitor){ .stmt = aggregates }, body, n);
}

bool gs_stmts_emit_events(const struct gs_stmt *body, size_t n)
{
	return gs_visit_stmts(&(struct gs_visitor){ .stmt = shows }, body, n);
}

static enum gs_visit times(struct gs_visitor *v, const struct gs_expr *e)
{
	(void)v;
	return e->kind == GS_EXPR_SPECIAL && e->special == GS_SPECIAL_DURATION ? GS_VISIT_STOP :
		       GS_VISIT_CONTINUE;
}

bool gs_stmts_use_duration(const struct gs_stmt *body, size_t n)
{
	return gs_visit_stmts(&(struct gs_visitor){ .expr = times }, body, n);
}
