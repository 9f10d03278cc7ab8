/* The loop walker's row converter (cfi_xrow.c) on hand-written CFI
 * (fixtures/cfi_forms.S): each expression form becomes the rule it means,
 * the signal flag follows the CIE's 'S', an undefined return address is
 * the end of the stack, and what the walker cannot evaluate is left out
 * with its reason while the reference's rows stay as they were. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/internal/unwind.h>

#include "base.h"
#include "fixtures.h"

struct forms {
	char path[4096];
	struct gs_cfi_table t;
};

static int setup(void **state)
{
	static struct forms f;
	struct gs_error err;

	fx_path("libcfi_forms.so", f.path, sizeof(f.path));
	if (gs_cfi_table_from_file(f.path, NULL, &f.t, &err) != 0) {
		print_message("%s\n", err.msg);
		return -1;
	}
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct forms *f = *state;

	gs_cfi_table_free(&f->t);
	return 0;
}

/* The row after the first nop of `fn`: 0 and *row, or -ENOENT. */
static int row_of(struct forms *f, const char *fn, struct gs_cfi_row *row)
{
	uint64_t addr, size;

	assert_true(fx_symbol(f->path, fn, &addr, &size));
	return gs_cfi_table_xlookup(&f->t, addr + 1, row);
}

static void assert_rule(struct gs_bt_rule r, uint8_t kind, uint8_t reg, int32_t off)
{
	assert_int_equal(r.kind, kind);
	assert_int_equal(r.reg, reg);
	assert_int_equal(r.off, off);
}

static void test_drap_cfa_is_read_through_rbp(void **state)
{
	struct gs_cfi_row r;

	assert_int_equal(row_of(*state, "cfi_drap", &r), 0);
	assert_rule(r.rules.cfa, GS_BT_CFA_REG_DEREF, 6, -8);
	assert_rule(r.rules.rbp, GS_RECOVERY_EXPRESSION, 6, 0);
	assert_rule(r.rules.ra, GS_RECOVERY_AT_CFA_OFFSET, 0, -8);
	assert_int_equal(r.flags, 0);
}

static void test_sigreturn_reads_the_ucontext(void **state)
{
	struct gs_cfi_row r;

	assert_int_equal(row_of(*state, "cfi_sigreturn", &r), 0);
	assert_true(r.flags & GS_CFI_ROW_SIGNAL);
	assert_rule(r.rules.cfa, GS_BT_CFA_REG_DEREF, 7, 160);
	assert_rule(r.rules.ra, GS_RECOVERY_EXPRESSION, 7, 168);
	assert_rule(r.rules.rbp, GS_RECOVERY_EXPRESSION, 7, 120);
	assert_rule(r.rules.saved[0], GS_RECOVERY_EXPRESSION, 7, 128); /* rbx */
	assert_rule(r.rules.saved[1], GS_RECOVERY_EXPRESSION, 7, 72);  /* r12 */
	assert_int_equal(r.rules.saved[2].kind, GS_RECOVERY_SAME_VALUE);
}

static void test_cfa_on_rbx_and_saved_rbx(void **state)
{
	struct gs_cfi_row r;

	assert_int_equal(row_of(*state, "cfi_rbx_cfa", &r), 0);
	assert_rule(r.rules.cfa, GS_BT_CFA_REG_OFF, 3, 16);
	assert_rule(r.rules.saved[0], GS_RECOVERY_AT_CFA_OFFSET, 0, -24);
}

static void test_undefined_return_address_is_kept(void **state)
{
	struct gs_cfi_row r;

	assert_int_equal(row_of(*state, "cfi_end_of_stack", &r), 0);
	assert_int_equal(r.rules.ra.kind, GS_RECOVERY_UNDEFINED);
}

static void test_val_expression_and_register_rules(void **state)
{
	struct gs_cfi_row r;

	assert_int_equal(row_of(*state, "cfi_val_expression", &r), 0);
	assert_rule(r.rules.saved[1], GS_RECOVERY_VAL_EXPRESSION, 7, 16); /* r12 */
	assert_rule(r.rules.saved[2], GS_RECOVERY_REGISTER, 3, 0);        /* r13 = rbx */
}

static void test_other_expressions_and_registers_are_left_out(void **state)
{
	struct forms *f = *state;
	struct gs_cfi_row r;

	assert_int_equal(row_of(f, "cfi_unsupported", &r), -ENOENT);
	assert_int_equal(row_of(f, "cfi_untracked", &r), -ENOENT);
	assert_true(f->t.stats.xdropped[GS_CFI_DROP_CFA_EXPRESSION] >= 1);
	assert_true(f->t.stats.xdropped[GS_CFI_DROP_CFA_REGISTER] >= 1);
	assert_int_equal(f->t.stats.signal_rows, 2);
}

/* The tail-call walker keeps the reference's rules: expression rows,
 * CFAs on rbx and an undefined RA stay out of its rows. */
static void test_reference_rows_are_unchanged(void **state)
{
	static const char *const out[] = { "cfi_drap", "cfi_sigreturn", "cfi_rbx_cfa",
					   "cfi_end_of_stack", "cfi_unsupported", "cfi_untracked" };
	struct forms *f = *state;
	enum gs_cfi_drop reason;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(out); i++) {
		uint64_t addr, size;

		assert_true(fx_symbol(f->path, out[i], &addr, &size));
		assert_int_equal(gs_cfi_table_lookup(&f->t, addr + 1, NULL, &reason), -EOPNOTSUPP);
	}
	assert_int_equal(gs_cfi_table_lookup(&f->t, 0x100c + 1, NULL, &reason), 0);
}

static bool same_table(const struct gs_cfi_table *a, const struct gs_cfi_table *b)
{
	return a->nrows == b->nrows && a->nxrows == b->nxrows && a->ndropped == b->ndropped &&
	       memcmp(a->rows, b->rows, a->nrows * sizeof(*a->rows)) == 0 &&
	       memcmp(a->xrows, b->xrows, a->nxrows * sizeof(*a->xrows)) == 0 &&
	       memcmp(a->dropped, b->dropped, a->ndropped * sizeof(*a->dropped)) == 0 &&
	       memcmp(&a->stats, &b->stats, sizeof(a->stats)) == 0;
}

/* Tables cached by build id (for large modules): the second read
 * comes from the cache file and equals the first; a damaged file is
 * ignored and written again. */
static void test_tables_cached_by_build_id_are_the_same(void **state)
{
	struct forms *f = *state;
	char dir[] = "/tmp/gs-cfi-cache-XXXXXX", cmd[256];
	struct gs_cfi_opts o = { .sz = sizeof(o), .cache_dir = dir };
	struct gs_cfi_table a, b;
	struct gs_error err;
	char *files;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(gs_cfi_table_from_file(f->path, &o, &a, &err), 0);
	snprintf(cmd, sizeof(cmd), "ls %s", dir);
	files = fx_run(cmd);
	assert_non_null(files);
	assert_non_null(strstr(files, ".cfi")); /* written */
	free(files);
	assert_int_equal(gs_cfi_table_from_file(f->path, &o, &b, &err), 0);
	assert_true(same_table(&a, &f->t) && same_table(&b, &f->t));
	gs_cfi_table_free(&b);
	/* cut the file short: not this format, computed and replaced */
	snprintf(cmd, sizeof(cmd), "for x in %s/*.cfi; do truncate -s 100 $x; done", dir);
	free(fx_run(cmd));
	assert_int_equal(gs_cfi_table_from_file(f->path, &o, &b, &err), 0);
	assert_true(same_table(&b, &f->t));
	gs_cfi_table_free(&b);
	assert_int_equal(gs_cfi_table_from_file(f->path, &o, &b, &err), 0);
	assert_true(same_table(&b, &f->t));
	gs_cfi_table_free(&b);
	gs_cfi_table_free(&a);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	free(fx_run(cmd));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drap_cfa_is_read_through_rbp),
		cmocka_unit_test(test_sigreturn_reads_the_ucontext),
		cmocka_unit_test(test_cfa_on_rbx_and_saved_rbx),
		cmocka_unit_test(test_undefined_return_address_is_kept),
		cmocka_unit_test(test_val_expression_and_register_rules),
		cmocka_unit_test(test_other_expressions_and_registers_are_left_out),
		cmocka_unit_test(test_reference_rows_are_unchanged),
		cmocka_unit_test(test_tables_cached_by_build_id_are_the_same),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
