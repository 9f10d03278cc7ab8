/* A deep copy of a spec body, for a caller that resolves the parser's
 * trees against one probe's DWARF: each probe address gets its own copy
 * with its own variables and types, the parser's trees stay untouched. */
#include <errno.h>

#include <gs/spec.h>

static void *take(struct gs_spec_copier *c, size_t size)
{
	void *p = c->rc ? NULL : c->alloc(c, size);

	if (!p && !c->rc)
		c->rc = -ENOMEM;
	return p;
}

static const struct gs_expr *copy_expr(struct gs_spec_copier *c, const struct gs_expr *e)
{
	struct gs_expr *n;
	int rc;

	if (!e || !(n = take(c, sizeof(*n))))
		return NULL;
	*n = *e;
	if (c->expr && (rc = c->expr(c, n)) != 0) {
		c->rc = rc;
		return NULL;
	}
	n->lhs = copy_expr(c, e->lhs);
	n->rhs = copy_expr(c, e->rhs);
	n->len = copy_expr(c, e->len);
	return c->rc ? NULL : n;
}

const struct gs_stmt *gs_spec_copy_body(struct gs_spec_copier *c, const struct gs_stmt *body,
					size_t n)
{
	struct gs_stmt *out;

	if (!n || !(out = take(c, n * sizeof(*out))))
		return NULL;
	for (size_t i = 0; i < n && !c->rc; i++) {
		const struct gs_stmt *s = &body[i];
		const struct gs_expr **args = NULL;

		out[i] = *s;
		out[i].expr = copy_expr(c, s->expr);
		if (s->nargs && (args = take(c, s->nargs * sizeof(*args))))
			for (size_t k = 0; k < s->nargs; k++)
				args[k] = copy_expr(c, s->args[k]);
		out[i].args = args;
		out[i].then_body = gs_spec_copy_body(c, s->then_body, s->nthen);
		out[i].else_body = gs_spec_copy_body(c, s->else_body, s->nelse);
	}
	return c->rc ? NULL : out;
}
