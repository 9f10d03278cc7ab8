/* A trace of many conditions over pointer dereferences, as a spec the
 * dwarf layer would hand over (GhostScope's scripts with 21 such `if`s
 * did not load). Condition i is one of five shapes, so the
 * spec mixes members, members of members, array elements, && and ||,
 * a chain of three dereferences, and else branches:
 *   0: r->next->id == i                          { print "T<i> {}", r->next->id; }
 *   1: r->next->values[i % 4] != i               { print "T<i> {}", r->next->id; }
 *   2: r->next->pos.y < i && r->id > i           { ... } else { print "F<i>"; }
 *   3: r->next->next->id == i || r->values[1] >= i { ... }
 *   4: r->pos.x == i                             { ... } else { print "F<i>"; } */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_specs.h"

#define NODES 12 /* expression nodes of the largest shape */
#define TEXT 48  /* bytes of one node's source text */

/* Everything one spec points into, in one allocation: the arrays follow
 * the struct (all their element sizes are multiples of 8, the texts last). */
struct many_ifs {
	struct gs_trace_spec spec; /* first: the pointer handed out */
	struct gs_stmt *stmts, *then_body, *else_body;
	struct gs_expr *nodes;
	const struct gs_expr **args;
	char *texts;
};

struct builder {
	struct gs_expr *node;
	char *text;
};

static const struct gs_expr *node(struct builder *b, struct gs_expr e, const char *fmt, long i)
{
	struct gs_expr *n = b->node++;

	snprintf(b->text, TEXT, fmt, i);
	e.text = b->text;
	b->text += TEXT;
	*n = e;
	return n;
}

#define NODE(b, fmt, i, ...) node((b), (struct gs_expr){ __VA_ARGS__ }, (fmt), (i))

static const struct gs_expr *member(struct builder *b, const struct gs_expr *l, const char *m,
				    const char *fmt, long i)
{
	return NODE(b, fmt, i, .kind = GS_EXPR_MEMBER, .lhs = l, .name = m);
}

static const struct gs_expr *binary(struct builder *b, int op, const struct gs_expr *l,
				    const struct gs_expr *r, const char *fmt, long i)
{
	return NODE(b, fmt, i, .kind = GS_EXPR_BINARY, .op = op, .lhs = l, .rhs = r);
}

static const struct gs_expr *condition(struct builder *b, size_t i, const struct gs_expr **id)
{
	long k = (long)i;
	const struct gs_expr *r = NODE(b, "r", 0, .kind = GS_EXPR_NAME, .name = "r",
				       .dvar = gs_cgv_rec_ptr);
	const struct gs_expr *lit = NODE(b, "%ld", k, .kind = GS_EXPR_INT, .value = k);
	const struct gs_expr *next = member(b, r, "next", "r->next", 0);
	const struct gs_expr *l, *rr;

	*id = member(b, next, "id", "r->next->id", 0);
	switch (i % 5) {
	case 0:
		return binary(b, GS_OP_EQ, *id, lit, "r->next->id == %ld", k);
	case 1:
		l = member(b, next, "values", "r->next->values", 0);
		rr = NODE(b, "%ld", k % 4, .kind = GS_EXPR_INT, .value = k % 4);
		l = NODE(b, "r->next->values[%ld]", k % 4, .kind = GS_EXPR_INDEX, .lhs = l,
			 .rhs = rr);
		return binary(b, GS_OP_NE, l, lit, "r->next->values[i %% 4] != %ld", k);
	case 2:
		l = member(b, member(b, next, "pos", "r->next->pos", 0), "y", "r->next->pos.y", 0);
		l = binary(b, GS_OP_LT, l, lit, "r->next->pos.y < %ld", k);
		rr = binary(b, GS_OP_GT, member(b, r, "id", "r->id", 0), lit, "r->id > %ld", k);
		return binary(b, GS_OP_LAND, l, rr, "r->next->pos.y < i && r->id > %ld", k);
	case 3:
		l = member(b, member(b, next, "next", "r->next->next", 0), "id",
			   "r->next->next->id", 0);
		l = binary(b, GS_OP_EQ, l, lit, "r->next->next->id == %ld", k);
		rr = member(b, r, "values", "r->values", 0);
		rr = NODE(b, "r->values[1]", 0, .kind = GS_EXPR_INDEX, .lhs = rr,
			  .rhs = NODE(b, "1", 0, .kind = GS_EXPR_INT, .value = 1));
		rr = binary(b, GS_OP_GE, rr, lit, "r->values[1] >= %ld", k);
		return binary(b, GS_OP_LOR, l, rr, "r->next->next->id == i || r->values[1] >= %ld",
			      k);
	default:
		l = member(b, member(b, r, "pos", "r->pos", 0), "x", "r->pos.x", 0);
		return binary(b, GS_OP_EQ, l, lit, "r->pos.x == %ld", k);
	}
}

struct gs_trace_spec *gs_cgv_many_ifs(size_t n)
{
	size_t size = sizeof(struct many_ifs) + 3 * n * sizeof(struct gs_stmt) +
		      n * NODES * sizeof(struct gs_expr) + n * sizeof(struct gs_expr *) +
		      n * (NODES + 2) * TEXT;
	struct many_ifs *m = calloc(1, size);
	struct builder b;

	if (!m)
		return NULL;
	m->stmts = (struct gs_stmt *)(m + 1);
	m->then_body = m->stmts + n;
	m->else_body = m->then_body + n;
	m->nodes = (struct gs_expr *)(m->else_body + n);
	m->args = (const struct gs_expr **)(m->nodes + n * NODES);
	m->texts = (char *)(m->args + n);
	b = (struct builder){ .node = m->nodes, .text = m->texts };
	for (size_t i = 0; i < n; i++) {
		struct gs_stmt *s = &m->stmts[i];
		char *then_text = m->texts + (n * NODES + 2 * i) * TEXT;
		char *else_text = then_text + TEXT;

		b.node = m->nodes + i * NODES;
		b.text = m->texts + i * NODES * TEXT;
		s->kind = GS_STMT_IF;
		s->expr = condition(&b, i, &m->args[i]);
		snprintf(then_text, TEXT, "T%zu {}", i);
		m->then_body[i] = (struct gs_stmt){ .kind = GS_STMT_PRINT_FORMAT, .text = then_text,
						    .args = &m->args[i], .nargs = 1 };
		s->then_body = &m->then_body[i];
		s->nthen = 1;
		if (i % 5 == 2 || i % 5 == 4) {
			snprintf(else_text, TEXT, "F%zu", i);
			m->else_body[i] = (struct gs_stmt){ .kind = GS_STMT_PRINT_STRING,
							    .text = else_text };
			s->else_body = &m->else_body[i];
			s->nelse = 1;
		}
	}
	m->spec = (struct gs_trace_spec){ .trace_id = 40, .target = "many_ifs", .body = m->stmts,
					  .nbody = n };
	return &m->spec;
}

void gs_cgv_many_ifs_free(struct gs_trace_spec *spec)
{
	free(spec); /* the struct many_ifs it opens */
}
