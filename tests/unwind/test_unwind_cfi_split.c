/* The two-thread walk of a large .eh_frame (cfi_split.c) builds the table
 * the serial walk builds, field for field: rows, the loop walker's rows,
 * dropped ranges (a dropped range cut in two by the split is joined again)
 * and statistics, merged or not, on fixtures, libc and node's binary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/unwind.h>

#include "base.h"
#include "fixtures.h"
#include "unwind_int.h"

static void assert_same_table(const struct gs_cfi_table *a, const struct gs_cfi_table *b)
{
	assert_int_equal(a->nrows, b->nrows);
	assert_int_equal(a->nxrows, b->nxrows);
	assert_int_equal(a->ndropped, b->ndropped);
	assert_memory_equal(a->rows, b->rows, a->nrows * sizeof(*a->rows));
	assert_memory_equal(a->xrows, b->xrows, a->nxrows * sizeof(*a->xrows));
	for (size_t i = 0; i < a->ndropped; i++) {
		assert_int_equal(a->dropped[i].pc_start, b->dropped[i].pc_start);
		assert_int_equal(a->dropped[i].pc_end, b->dropped[i].pc_end);
		assert_int_equal(a->dropped[i].reason, b->dropped[i].reason);
	}
	assert_memory_equal(&a->stats, &b->stats, sizeof(a->stats));
}

/* Serial and split (from any FDE count) tables of path, with and without
 * merging; returns the FDE count. */
static size_t check_split_equals_serial(const char *path)
{
	GS_OPTS(gs_cfi_opts, no_merge, .no_merge = true);
	const struct gs_cfi_opts *opts[] = { NULL, &no_merge };
	struct gs_error err = { 0 };
	size_t fdes = 0;
	Elf *elf;
	int fd;

	assert_int_equal(mf_elf_open(path, &fd, &elf, &err), 0);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(opts); i++) {
		struct gs_cfi_table serial, split;

		if (uw_cfi_table_build(elf, opts[i], SIZE_MAX, &serial, NULL, &err) != 0)
			fail_msg("%s: %s", path, err.msg);
		assert_int_equal(uw_cfi_table_build(elf, opts[i], 0, &split, NULL, &err), 0);
		assert_same_table(&serial, &split);
		fdes = serial.stats.fdes;
		gs_cfi_table_free(&serial);
		gs_cfi_table_free(&split);
	}
	mf_elf_close(fd, elf);
	print_message("  %s: %zu FDEs, split and serial tables equal\n", path, fdes);
	return fdes;
}

static void test_split_table_equals_serial_on_fixture(void **state)
{
	char path[4096];

	assert_true(check_split_equals_serial(fx_path(*state, path, sizeof(path))) >= 2);
}

static void test_split_table_equals_serial_on_libc(void **state)
{
	const char *libc = fx_libc();

	(void)state;
	if (!libc)
		skip();
	check_split_equals_serial(libc);
}

/* The module the split is for (node's rows in 300 ms cold). */
static void test_split_table_equals_serial_on_node(void **state)
{
	static const char *const c[] = { "/usr/bin/node", "/usr/local/bin/node" };

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		if (access(c[i], R_OK) == 0) {
			assert_true(check_split_equals_serial(c[i]) >= UW_CFI_SPLIT_MIN_FDES);
			return;
		}
	print_message("  skipped: node not installed\n");
	skip();
}

/* _start's rows are all dropped (return address undefined): cut its FDE
 * range in two, one half per thread, and the halves' dropped ranges are
 * one range again, as when one walk goes over both. */
static void test_split_joins_a_dropped_range_cut_in_two(void **state)
{
	struct gs_cfi_table serial = { 0 }, split = { 0 };
	struct uw_cfi_builder bs = { .t = &serial }, bp = { .t = &split };
	struct mf_fde_ranges eh;
	struct mf_fde_range v[2] = { 0 };
	char path[4096];
	uint64_t start, size;
	Dwarf_CFI *cfi;
	Elf *elf;
	int fd;

	(void)state;
	fx_path("bt_O2_nofp", path, sizeof(path));
	assert_true(fx_symbol(path, "_start", &start, &size));
	assert_int_equal(mf_elf_open(path, &fd, &elf, NULL), 0);
	assert_int_equal(mf_fde_ranges_read(elf, true, &eh, NULL), 0);
	for (size_t i = 0; i < eh.n; i++)
		if (eh.v[i].lo == start && eh.v[i].hi - eh.v[i].lo >= 4) {
			v[0] = (struct mf_fde_range){ eh.v[i].lo, eh.v[i].lo + 2, false };
			v[1] = (struct mf_fde_range){ eh.v[i].lo + 2, eh.v[i].hi, false };
		}
	assert_true(v[1].hi > v[1].lo);
	cfi = dwarf_getcfi_elf(elf);
	assert_non_null(cfi);
	uw_cfi_walk(&bs, cfi, v, 2);
	assert_int_equal(uw_cfi_walk_split(&bp, elf, cfi, v, 2), 0);
	assert_int_equal(serial.ndropped, 1);
	assert_int_equal(serial.dropped[0].pc_start, v[0].lo);
	assert_int_equal(serial.dropped[0].reason, GS_CFI_DROP_RA_UNDEFINED);
	assert_same_table(&serial, &split);
	gs_cfi_table_free(&serial);
	gs_cfi_table_free(&split);
	dwarf_cfi_end(cfi);
	free(eh.v);
	mf_elf_close(fd, elf);
}

#define FIXTURE_TEST(name) \
	cmocka_unit_test_prestate(test_split_table_equals_serial_on_fixture, (void *)(name))

int main(void)
{
	const struct CMUnitTest tests[] = {
		FIXTURE_TEST("bt_O2_nofp"),
		FIXTURE_TEST("bt_O3_fp"),
		FIXTURE_TEST("bt_debug_frame"),
		FIXTURE_TEST("libbt_fixture.so"),
		FIXTURE_TEST("libcfi_forms.so"),
		cmocka_unit_test(test_split_table_equals_serial_on_libc),
		cmocka_unit_test(test_split_table_equals_serial_on_node),
		cmocka_unit_test(test_split_joins_a_dropped_range_cut_in_two),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
