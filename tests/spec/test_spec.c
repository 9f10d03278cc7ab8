/* The spec layer alone (suite unit): the one visitor's order and its
 * skip/stop answers, the costliest path through ifs, the copy with its
 * rewrite and failure paths, the `bt` counts, the format grammar and the
 * side tables. Linked with the spec layer only: nothing here needs the
 * code generator. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/context.h>
#include <gs/format.h>
#include <gs/protocol.h>
#include <gs/spec.h>

/* ---- a tree: let v = *(u64 *)(rdi + 8); if (v > 1) { print v; bt; }
 *      else { print "x"; bt raw; print "a {} b {}", v, x.y; } ---------------- */

static const struct gs_expr e_rdi = { .kind = GS_EXPR_REG, .reg = 5, .text = "rdi" };
static const struct gs_expr e_8 = { .kind = GS_EXPR_INT, .value = 8, .text = "8" };
static const struct gs_expr e_add = { .kind = GS_EXPR_BINARY, .op = GS_OP_ADD, .lhs = &e_rdi,
				      .rhs = &e_8, .text = "rdi + 8" };
static const struct gs_expr e_deref = { .kind = GS_EXPR_DEREF, .size = 8, .lhs = &e_add,
					.text = "*(u64 *)(rdi + 8)" };
static const struct gs_expr e_v = { .kind = GS_EXPR_VAR, .var = 0, .text = "v" };
static const struct gs_expr e_1 = { .kind = GS_EXPR_INT, .value = 1, .text = "1" };
static const struct gs_expr e_gt = { .kind = GS_EXPR_BINARY, .op = GS_OP_GT, .lhs = &e_v,
				     .rhs = &e_1, .text = "v > 1" };
static const struct gs_expr e_x = { .kind = GS_EXPR_NAME, .name = "x", .text = "x" };
static const struct gs_expr e_xy = { .kind = GS_EXPR_MEMBER, .name = "y", .lhs = &e_x,
				     .text = "x.y" };
static const struct gs_expr *const fmt_args[] = { &e_v, &e_xy };

static const struct gs_stmt then_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &e_v },
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_INLINE },
};
static const struct gs_stmt else_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "x" },
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_RAW },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "a {} b {}", .args = fmt_args, .nargs = 2 },
};
static const struct gs_stmt body[] = {
	{ .kind = GS_STMT_LET, .var = 0, .expr = &e_deref },
	{ .kind = GS_STMT_IF, .expr = &e_gt, .then_body = then_body, .nthen = 2,
	  .else_body = else_body, .nelse = 3 },
};

/* ---- the visitor ----------------------------------------------------------- */

struct trail {
	struct gs_visitor v;
	char text[512];
	const char *skip, *stop; /* the node (by text) to skip or stop at */
};

static void add(struct trail *t, const char *what)
{
	size_t n = strlen(t->text);

	snprintf(t->text + n, sizeof(t->text) - n, "%s%s", n ? "|" : "", what);
}

static enum gs_visit on_stmt(struct gs_visitor *v, const struct gs_stmt *s)
{
	static const char *const names[] = { "PS", "PF", "PE", "LET", "IF", "BT" };
	struct trail *t = (struct trail *)v;

	add(t, names[s->kind]);
	return GS_VISIT_CONTINUE;
}

static enum gs_visit on_expr(struct gs_visitor *v, const struct gs_expr *e)
{
	struct trail *t = (struct trail *)v;

	add(t, e->text);
	if (t->stop && !strcmp(e->text, t->stop))
		return GS_VISIT_STOP;
	if (t->skip && !strcmp(e->text, t->skip))
		return GS_VISIT_SKIP;
	return GS_VISIT_CONTINUE;
}

static void test_visitor_walks_in_source_order(void **state)
{
	struct trail t = { .v = { .stmt = on_stmt, .expr = on_expr } };

	(void)state;
	assert_false(gs_visit_stmts(&t.v, body, 2));
	assert_string_equal(t.text, "LET|*(u64 *)(rdi + 8)|rdi + 8|rdi|8|IF|v > 1|v|1|PE|v|BT|"
				    "PS|BT|PF|v|x.y|x");
}

static void test_visitor_skip_leaves_out_the_children_only(void **state)
{
	struct trail t = { .v = { .stmt = on_stmt, .expr = on_expr }, .skip = "rdi + 8" };

	(void)state;
	assert_false(gs_visit_stmts(&t.v, body, 1));
	assert_string_equal(t.text, "LET|*(u64 *)(rdi + 8)|rdi + 8");
	memset(t.text, 0, sizeof(t.text));
	t.skip = "v > 1";
	assert_false(gs_visit_stmts(&t.v, body + 1, 1));
	assert_string_equal(t.text, "IF|v > 1|PE|v|BT|PS|BT|PF|v|x.y|x");
}

static void test_visitor_stop_ends_the_whole_walk(void **state)
{
	struct trail t = { .v = { .stmt = on_stmt, .expr = on_expr }, .stop = "v > 1" };

	(void)state;
	assert_true(gs_visit_stmts(&t.v, body, 2));
	assert_string_equal(t.text, "LET|*(u64 *)(rdi + 8)|rdi + 8|rdi|8|IF|v > 1");
	assert_false(gs_visit_expr(&t.v, NULL));
}

/* ---- the costliest path, and the bt counts ---------------------------------- */

static uint64_t one_each(const struct gs_stmt *s, void *arg)
{
	(void)arg;
	return s->kind == GS_STMT_IF ? 10 : 1; /* the if's own cost: its condition */
}

static uint64_t huge(const struct gs_stmt *s, void *arg)
{
	(void)s;
	(void)arg;
	return UINT64_MAX / 2;
}

static void test_path_max_takes_the_larger_branch(void **state)
{
	(void)state;
	/* let (1) + if (10) + the else branch (3) */
	assert_int_equal(gs_spec_path_max(body, 2, one_each, NULL), 14);
	assert_int_equal(gs_spec_path_max(then_body, 2, one_each, NULL), 2);
	assert_int_equal(gs_spec_path_max(body, 0, one_each, NULL), 0);
	assert_true(gs_spec_path_max(body, 2, huge, NULL) == UINT64_MAX);
}

static void test_bt_counts_look_into_both_branches(void **state)
{
	(void)state;
	assert_int_equal(gs_stmts_count_bt(body, 2), 2);
	assert_int_equal(gs_stmts_count_bt_symbolized(body, 2), 1);
	assert_int_equal(gs_stmts_count_bt(body, 1), 0);
}

/* ---- the copy ----------------------------------------------------------------- */

struct copy {
	struct gs_spec_copier c;
	void *blocks[64];
	size_t nblocks, fail_at; /* fail the fail_at-th allocation (1-based; 0: never) */
	int names;
};

static void *copy_alloc(struct gs_spec_copier *c, size_t n)
{
	struct copy *k = (struct copy *)c;

	if (k->nblocks == 64 || (k->fail_at && k->nblocks + 1 == k->fail_at))
		return NULL;
	return k->blocks[k->nblocks++] = calloc(1, n);
}

static int rename_names(struct gs_spec_copier *c, struct gs_expr *e)
{
	struct copy *k = (struct copy *)c;

	if (e->kind == GS_EXPR_NAME) {
		e->name = "renamed";
		k->names++;
	}
	return e->kind == GS_EXPR_MEMBER && k->fail_at == 999 ? -ENOENT : 0;
}

static void free_copy(struct copy *k)
{
	for (size_t i = 0; i < k->nblocks; i++)
		free(k->blocks[i]);
}

static void test_copy_is_deep_and_rewritten(void **state)
{
	struct copy k = { .c = { .alloc = copy_alloc, .expr = rename_names } };
	const struct gs_stmt *out;
	struct trail t = { .v = { .stmt = on_stmt, .expr = on_expr } }, u = t;

	(void)state;
	out = gs_spec_copy_body(&k.c, body, 2);
	assert_non_null(out);
	assert_int_equal(k.c.rc, 0);
	assert_int_equal(k.names, 1);
	gs_visit_stmts(&t.v, body, 2);
	gs_visit_stmts(&u.v, out, 2);
	assert_string_equal(t.text, u.text);
	/* no node is shared with the original */
	assert_ptr_not_equal(out[1].else_body[2].args[1], &e_xy);
	assert_string_equal(out[1].else_body[2].args[1]->lhs->name, "renamed");
	assert_string_equal(e_x.name, "x");
	assert_ptr_not_equal(out[0].expr->lhs->lhs, &e_rdi);
	free_copy(&k);
}

static void test_copy_stops_on_failure(void **state)
{
	(void)state;
	for (size_t fail = 1; fail < 20; fail++) {
		struct copy k = { .c = { .alloc = copy_alloc }, .fail_at = fail };

		if (gs_spec_copy_body(&k.c, body, 2)) {
			assert_int_equal(k.c.rc, 0); /* fewer allocations than fail */
			free_copy(&k);
			break;
		}
		assert_int_equal(k.c.rc, -ENOMEM);
		free_copy(&k);
	}
	struct copy k = { .c = { .alloc = copy_alloc, .expr = rename_names }, .fail_at = 999 };

	assert_null(gs_spec_copy_body(&k.c, body, 2));
	assert_int_equal(k.c.rc, -ENOENT);
	free_copy(&k);
}

/* ---- the format grammar -------------------------------------------------------- */

struct fmt_case {
	const char *fmt;
	const char *items; /* kind letters: T text, V value, C bad close, S bad spec, U unclosed */
	char conv;         /* of the first value */
	uint8_t len_kind;
	uint32_t length;
};

static const struct fmt_case fmt_cases[] = {
	{ "a {} b", "TVT", 0, GS_FMT_LEN_NONE, 0 },
	{ "{:x}", "V", 'x', GS_FMT_LEN_NONE, 0 },
	{ "{:s.16}", "V", 's', GS_FMT_LEN_CONST, 16 },
	{ "{:X.0x10}", "V", 'X', GS_FMT_LEN_CONST, 16 },
	{ "{:x.0b101}", "V", 'x', GS_FMT_LEN_CONST, 5 },
	{ "{:x.*}", "V", 'x', GS_FMT_LEN_ARG, 0 },
	{ "{:s.len$}", "V", 's', GS_FMT_LEN_VAR, 0 },
	{ "{{}}", "TT", 0, 0, 0 },
	{ "x }", "TC", 0, 0, 0 },
	{ "{:q}", "S", 0, 0, 0 },
	{ "{:p.4}", "S", 0, 0, 0 },
	{ "{:x.0}", "S", 0, 0, 0 },
	{ "{:x.65536}", "S", 0, 0, 0 },
	{ "{:x.1len$}", "S", 0, 0, 0 },
	{ "{ never", "U", 0, 0, 0 },
};

static void test_format_grammar_table(void **state)
{
	static const char letters[] = "TVCSU";

	(void)state;
	for (size_t i = 0; i < sizeof(fmt_cases) / sizeof(fmt_cases[0]); i++) {
		const struct fmt_case *c = &fmt_cases[i];
		struct gs_fmt_item it;
		char got[16] = "";
		size_t pos = 0, n = 0;
		bool first = true;

		while (gs_fmt_next(c->fmt, &pos, &it) && n < sizeof(got) - 1) {
			got[n++] = letters[it.kind];
			if (it.kind >= GS_FMT_BAD_CLOSE)
				assert_non_null(it.why);
			if (it.kind == GS_FMT_VALUE && first) {
				first = false;
				if (c->conv != it.conv || c->len_kind != it.len_kind ||
				    c->length != it.length)
					fail_msg("%s: conv %c len_kind %u length %u", c->fmt,
						 it.conv ? it.conv : '0', it.len_kind, it.length);
			}
		}
		if (strcmp(got, c->items))
			fail_msg("%s: items %s, expected %s", c->fmt, got, c->items);
	}
}

static void test_format_value_takes_two_wire_arguments_with_a_runtime_length(void **state)
{
	struct gs_fmt_item it;
	size_t pos = 0;

	(void)state;
	assert_true(gs_fmt_next("{:s.n$}", &pos, &it));
	assert_int_equal(gs_fmt_args(&it), 2);
	assert_int_equal(it.name_off, 4);
	assert_int_equal(it.name_len, 1);
	pos = 0;
	assert_true(gs_fmt_next("{:s.4}", &pos, &it));
	assert_int_equal(gs_fmt_args(&it), 1);
}

/* ---- side tables --------------------------------------------------------------- */

static void test_context_dedupes_and_bounds_lookups(void **state)
{
	struct gs_trace_context c;
	struct gs_error err;
	static const struct gs_type t_int = { .kind = GS_TYPE_I32, .size = 4, .name = "int", .byte_size = 4 };
	static const struct gs_type_member m[] = { { .name = "a", .type = &t_int, .offset = 0 } };
	struct gs_type node = { .kind = GS_TYPE_STRUCT, .name = "struct s", .byte_size = 4, .members = m,
				.nmembers = 1 };
	const struct gs_type *copy;

	(void)state;
	gs_context_init(&c);
	assert_int_equal(gs_context_string(&c, "one", &err), 0);
	assert_int_equal(gs_context_string(&c, "two", &err), 1);
	assert_int_equal(gs_context_string(&c, "one", &err), 0);
	assert_int_equal(gs_context_var_name(&c, "one", &err), 0); /* its own table */
	assert_string_equal(gs_context_get_string(&c, 1), "two");
	assert_null(gs_context_get_string(&c, 2));
	assert_null(gs_context_get_var_name(&c, 7));
	assert_int_equal(gs_context_add_type(&c, &node, &err), 0);
	copy = gs_context_get_type(&c, 0);
	assert_ptr_not_equal(copy, &node);
	node.name = "changed";
	assert_string_equal(copy->name, "struct s");
	assert_string_equal(copy->members[0].name, "a");
	assert_ptr_not_equal(copy->members[0].type, &t_int);
	assert_string_equal(copy->members[0].type->name, "int");
	assert_null(gs_context_get_type(&c, 1));
	gs_context_fini(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visitor_walks_in_source_order),
		cmocka_unit_test(test_visitor_skip_leaves_out_the_children_only),
		cmocka_unit_test(test_visitor_stop_ends_the_whole_walk),
		cmocka_unit_test(test_path_max_takes_the_larger_branch),
		cmocka_unit_test(test_bt_counts_look_into_both_branches),
		cmocka_unit_test(test_copy_is_deep_and_rewritten),
		cmocka_unit_test(test_copy_stops_on_failure),
		cmocka_unit_test(test_format_grammar_table),
		cmocka_unit_test(test_format_value_takes_two_wire_arguments_with_a_runtime_length),
		cmocka_unit_test(test_context_dedupes_and_bounds_lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
