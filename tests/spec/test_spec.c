/* The spec layer alone (suite unit): the one visitor's order and its
 * skip/stop answers, the costliest path through ifs, the copy with its
 * rewrite and failure paths, the `bt` counts, the format grammar and the
 * side tables. Linked with the spec layer only: nothing here needs the
 * code generator. */
#include <errno.h>
#include <inttypes.h>
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

#include "base.h"

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

/* The let's *(u64 *)(rdi + 8) reads memory, and so does x.y in the else
 * branch; v > 1, print "x" and bt do not. */
static void test_user_reads_are_found_in_any_branch(void **state)
{
	(void)state;
	assert_true(gs_stmts_read_user_memory(body, 2));
	assert_false(gs_stmts_read_user_memory(then_body, 2));
	assert_true(gs_stmts_read_user_memory(else_body, 3));
	assert_false(gs_stmts_read_user_memory(else_body, 2));
	assert_true(gs_stmts_read_user_memory(&body[1], 1));
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
	for (size_t i = 0; i < BASE_ARRAY_SIZE(fmt_cases); i++) {
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

/* ---- the typed pass's rules, checked against the C compiler itself ----------- */

#define CT_TYPES(X)                                                                         \
	X(i8, int8_t, GS_TYPE_I8) X(u8, uint8_t, GS_TYPE_U8) X(i16, int16_t, GS_TYPE_I16)    \
	X(u16, uint16_t, GS_TYPE_U16) X(i32, int32_t, GS_TYPE_I32)                           \
	X(u32, uint32_t, GS_TYPE_U32) X(i64, int64_t, GS_TYPE_I64)                           \
	X(u64, uint64_t, GS_TYPE_U64) X(bool, _Bool, GS_TYPE_BOOL)
#define CT_RIGHT(X, NA, TA)                                                                 \
	X(NA, TA, i8, int8_t) X(NA, TA, u8, uint8_t) X(NA, TA, i16, int16_t)                 \
	X(NA, TA, u16, uint16_t) X(NA, TA, i32, int32_t) X(NA, TA, u32, uint32_t)            \
	X(NA, TA, i64, int64_t) X(NA, TA, u64, uint64_t) X(NA, TA, bool, _Bool)
#define CT_N 9

enum { CT_DIV, CT_MOD, CT_SHR, CT_AND, CT_OR, CT_XOR, CT_LT, CT_GT, CT_EQ, CT_ADD, CT_SUB,
       CT_MUL, CT_NOPS };
static const int ct_binop[CT_NOPS] = { GS_OP_DIV, GS_OP_MOD, GS_OP_SHR, GS_OP_AND, GS_OP_OR,
				       GS_OP_XOR, GS_OP_LT, GS_OP_GT, GS_OP_EQ, GS_OP_ADD,
				       GS_OP_SUB, GS_OP_MUL };

/* What C gives for (TA)a op (TB)b as a 64-bit register holds it (signed
 * results sign-extended, unsigned ones zero-extended), and whether the
 * result's type is signed, as the compiler says ((R)-1 < 0). Signed + - *
 * may overflow: they answer 0 and only their signedness is compared. */
#define CT_RESULT(E) (*is_signed = (__typeof__(E))-1 < 0, (int64_t)(E))
#define CT_DEF(NA, TA, NB, TB)                                                              \
	static int64_t ct_##NA##_##NB(int op, int64_t a, int64_t b, bool *is_signed)        \
	{                                                                                   \
		TA x = (TA)a;                                                               \
		TB y = (TB)b;                                                               \
		switch (op) {                                                               \
		case CT_DIV: return CT_RESULT(x / y);                                       \
		case CT_MOD: return CT_RESULT(x % y);                                       \
		case CT_SHR: return CT_RESULT(x >> (y & 7));                                \
		case CT_AND: return CT_RESULT(x & y);                                       \
		case CT_OR: return CT_RESULT(x | y);                                        \
		case CT_XOR: return CT_RESULT(x ^ y);                                       \
		case CT_LT: return CT_RESULT(x < y);                                        \
		case CT_GT: return CT_RESULT(x > y);                                        \
		case CT_EQ: return CT_RESULT(x == y);                                       \
		case CT_ADD: CT_RESULT(x + y); return *is_signed ? 0 : (int64_t)(x + y);    \
		case CT_SUB: CT_RESULT(x - y); return *is_signed ? 0 : (int64_t)(x - y);    \
		default: CT_RESULT(x * y); return *is_signed ? 0 : (int64_t)(x * y);        \
		}                                                                           \
	}
#define CT_DEFS(NA, TA, KA) CT_RIGHT(CT_DEF, NA, TA)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wbool-operation"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
CT_TYPES(CT_DEFS)
#pragma GCC diagnostic pop

typedef int64_t (*ct_fn)(int op, int64_t a, int64_t b, bool *is_signed);
#define CT_PTR(NA, TA, NB, TB) ct_##NA##_##NB,
#define CT_ROW(NA, TA, KA) { CT_RIGHT(CT_PTR, NA, TA) },
static const ct_fn ct_c[CT_N][CT_N] = { CT_TYPES(CT_ROW) };
#define CT_KIND(NA, TA, KA) KA,
static const uint8_t ct_kind[CT_N] = { CT_TYPES(CT_KIND) };
#define CT_NAME(NA, TA, KA) #NA,
static const char *const ct_name[CT_N] = { CT_TYPES(CT_NAME) };

static const int64_t ct_values[] = {
	0, 1, 2, 7, -1, -2, -7, 100, 127, -128, 255, 32767, -32768, 65535, INT32_MAX,
	INT32_MIN, (int64_t)UINT32_MAX, INT64_MAX, INT64_MIN, 4000000000, -12345678,
};

/* Our side: the pass's types, then the operation as the emitters do it. */
static int64_t ct_ours(int op, struct gs_ctype ta, struct gs_ctype tb, int64_t a, int64_t b,
		       bool *skip)
{
	struct gs_ctype_op o = gs_ctype_binary(ct_binop[op], ta, tb);
	int64_t x = gs_ctype_convert(gs_ctype_convert(a, ta), o.operands);
	int64_t y = gs_ctype_convert(gs_ctype_convert(b, tb), o.operands), r;
	bool s = o.operands.is_signed;
	int64_t min = o.operands.size == 8 ? INT64_MIN : INT32_MIN;

	*skip = (op == CT_DIV || op == CT_MOD) && (y == 0 || (s && x == min && y == -1));
	if (*skip)
		return 0;
	switch (op) {
	case CT_DIV: r = s ? x / y : (int64_t)((uint64_t)x / (uint64_t)y); break;
	case CT_MOD: r = s ? x % y : (int64_t)((uint64_t)x % (uint64_t)y); break;
	case CT_SHR: {
		int64_t n = gs_ctype_convert(b, tb) & 7; /* the count as C takes it */

		r = s ? x >> n : (int64_t)((uint64_t)x >> n);
		break;
	}
	case CT_AND: r = x & y; break;
	case CT_OR: r = x | y; break;
	case CT_XOR: r = x ^ y; break;
	case CT_LT: r = s ? x < y : (uint64_t)x < (uint64_t)y; break;
	case CT_GT: r = s ? x > y : (uint64_t)x > (uint64_t)y; break;
	case CT_EQ: r = x == y; break;
	case CT_ADD: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
	case CT_SUB: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
	default: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
	}
	if (o.result.is_signed && op >= CT_ADD)
		return 0;
	return gs_ctype_convert(r, o.result);
}

static void test_typed_rules_equal_the_compilers(void **state)
{
	size_t checked = 0;

	(void)state;
	for (int i = 0; i < CT_N; i++)
		for (int k = 0; k < CT_N; k++)
			for (int op = 0; op < CT_NOPS; op++)
				for (size_t va = 0; va < sizeof(ct_values) / 8; va++)
					for (size_t vb = 0; vb < sizeof(ct_values) / 8; vb++) {
		struct gs_type a = { .kind = ct_kind[i], .byte_size = ct_kind[i] == GS_TYPE_BOOL ? 1 : 0 };
		struct gs_type b = { .kind = ct_kind[k], .byte_size = ct_kind[k] == GS_TYPE_BOOL ? 1 : 0 };
		struct gs_ctype ta = gs_ctype_of_type(&a), tb = gs_ctype_of_type(&b);
		struct gs_ctype_op o = gs_ctype_binary(ct_binop[op], ta, tb);
		bool c_signed, skip;
		int64_t ours = ct_ours(op, ta, tb, ct_values[va], ct_values[vb], &skip), c;

		if (skip)
			continue;
		c = ct_c[i][k](op, ct_values[va], ct_values[vb], &c_signed);
		if (ours != c || o.result.is_signed != c_signed)
			fail_msg("(%s)%" PRId64 " op#%d (%s)%" PRId64 ": ours %" PRId64
				 " (%s), C %" PRId64 " (%s)", ct_name[i], ct_values[va], op,
				 ct_name[k], ct_values[vb], ours,
				 o.result.is_signed ? "signed" : "unsigned", c,
				 c_signed ? "signed" : "unsigned");
		checked++;
	}
	assert_true(checked > 100000);
}

static void test_typed_unary_and_literals(void **state)
{
	(void)state;
	/* ~(uint32_t)0 is 4294967295 in C; -(uint8_t)1 is the int -1 */
	struct gs_ctype u32 = { GS_CT_INT, 4, false, GS_VK_MEMORY };
	struct gs_ctype u8 = { GS_CT_INT, 1, false, GS_VK_MEMORY };

	assert_int_equal(gs_ctype_convert(~(int64_t)0, gs_ctype_promote(u32)), (int64_t)~(uint32_t)0);
	assert_int_equal(gs_ctype_convert(-(int64_t)1, gs_ctype_promote(u8)), -(uint8_t)1);
	assert_true(gs_ctype_promote(u8).is_signed);
	assert_int_equal(gs_ctype_promote(u8).size, 4);
}

/* A body typed as a whole: lets carry their value's type to their uses. */
static const struct gs_type td_u32 = { .kind = GS_TYPE_U32, .size = 4, .name = "uint32_t",
				       .byte_size = 4 };

static const struct gs_type *td_value_type(const struct gs_expr *e, void *arg)
{
	(void)e;
	(void)arg;
	return &td_u32;
}

static void test_typed_body_through_lets(void **state)
{
	static const struct gs_expr u = { .kind = GS_EXPR_NAME, .name = "u", .text = "u" };
	static const struct gs_expr m1 = { .kind = GS_EXPR_INT, .value = -1, .text = "-1" };
	static const struct gs_expr big = { .kind = GS_EXPR_INT, .value = 1ll << 40 };
	static const struct gs_expr v = { .kind = GS_EXPR_VAR, .var = 0, .text = "v" };
	static const struct gs_expr cmp = { .kind = GS_EXPR_BINARY, .op = GS_OP_GT, .lhs = &m1,
					    .rhs = &v };
	static const struct gs_expr div = { .kind = GS_EXPR_BINARY, .op = GS_OP_DIV, .lhs = &v,
					    .rhs = &big };
	static const struct gs_stmt b[] = {
		{ .kind = GS_STMT_LET, .var = 0, .expr = &u },
		{ .kind = GS_STMT_PRINT_EXPR, .expr = &cmp },
		{ .kind = GS_STMT_PRINT_EXPR, .expr = &div },
	};
	struct gs_typed *t = gs_typed_new();
	struct gs_ctype ct;

	(void)state;
	assert_non_null(t);
	assert_int_equal(gs_typed_body(t, b, 3, td_value_type, NULL), 0);
	ct = gs_typed_get(t, &v);
	assert_int_equal(ct.size, 4);
	assert_false(ct.is_signed);
	assert_int_equal(ct.value, GS_VK_COMPUTED);
	/* -1 > u: compared as unsigned int, as C does */
	assert_false(gs_ctype_binary(GS_OP_GT, gs_typed_get(t, &m1), ct).operands.is_signed);
	ct = gs_typed_get(t, &div); /* unsigned int / long: long */
	assert_int_equal(ct.size, 8);
	assert_true(ct.is_signed);
	assert_int_equal(gs_typed_get(t, &m1).value, GS_VK_CONSTANT);
	assert_int_equal(gs_typed_get(t, &u).value, GS_VK_MEMORY);
	gs_typed_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visitor_walks_in_source_order),
		cmocka_unit_test(test_visitor_skip_leaves_out_the_children_only),
		cmocka_unit_test(test_visitor_stop_ends_the_whole_walk),
		cmocka_unit_test(test_path_max_takes_the_larger_branch),
		cmocka_unit_test(test_bt_counts_look_into_both_branches),
		cmocka_unit_test(test_user_reads_are_found_in_any_branch),
		cmocka_unit_test(test_copy_is_deep_and_rewritten),
		cmocka_unit_test(test_copy_stops_on_failure),
		cmocka_unit_test(test_format_grammar_table),
		cmocka_unit_test(test_format_value_takes_two_wire_arguments_with_a_runtime_length),
		cmocka_unit_test(test_context_dedupes_and_bounds_lookups),
		cmocka_unit_test(test_typed_rules_equal_the_compilers),
		cmocka_unit_test(test_typed_unary_and_literals),
		cmocka_unit_test(test_typed_body_through_lets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
