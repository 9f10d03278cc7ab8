/* Rows from CFI against an independent reader: every exported row of each
 * fixture and of the system libc.so.6 has the rules readelf's frames-interp
 * gives at its start address, every readelf row gets the same verdict from
 * the table lookup (exported with equal rules, or dropped for the same
 * reason), merging never changes a lookup, and the .debug_frame fallback
 * unwinds a -fno-asynchronous-unwind-tables build. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "fixtures.h"
#include "readelf_frames.h"

#define REPORT_MAX 8

static bool same_rules(const struct gs_unwind_row *a, const struct gs_unwind_row *b)
{
	return a->cfa_register == b->cfa_register && a->cfa_offset == b->cfa_offset &&
	       a->ra_kind == b->ra_kind && a->ra_offset == b->ra_offset &&
	       a->ra_register == b->ra_register && a->rbp_kind == b->rbp_kind &&
	       a->rbp_offset == b->rbp_offset && a->rbp_register == b->rbp_register;
}

static void print_row(const char *who, const struct gs_unwind_row *r)
{
	print_message("    %s: cfa r%u%+lld ra kind %u %+lld rbp kind %u r%u %+lld\n", who,
		      r->cfa_register, (long long)r->cfa_offset, r->ra_kind,
		      (long long)r->ra_offset, r->rbp_kind, r->rbp_register,
		      (long long)r->rbp_offset);
}

/* The readelf row describing pc: .eh_frame first, .debug_frame only where
 * .eh_frame has no FDE (the rule gs_cfi_table_from_elf follows). */
static const struct rf_row *reference_row(const struct rf_frames *rf, uint64_t pc,
					  const struct rf_fde **fde, uint64_t *end)
{
	const struct rf_row *r = rf_row_at(rf, pc, false, fde, end);

	if (r)
		return r;
	r = rf_row_at(rf, pc, true, fde, end);
	if (r && rf_eh_overlaps(rf, (*fde)->lo, (*fde)->hi))
		return NULL;
	return r;
}

/* Each exported (unmerged) row equals readelf's row at its start. */
static size_t check_exported_rows(const struct gs_cfi_table *t, const struct rf_frames *rf)
{
	size_t bad = 0;

	for (size_t i = 0; i < t->nrows; i++) {
		const struct gs_unwind_row *row = &t->rows[i];
		const struct rf_fde *fde;
		const struct rf_row *ref = reference_row(rf, row->pc_start, &fde, &(uint64_t){ 0 });
		struct gs_unwind_row want;
		int verdict = ref ? rf_expect(fde, ref, row->pc_start, &want) : -2;

		if (verdict == -1 && same_rules(row, &want))
			continue;
		if (bad++ < REPORT_MAX) {
			print_message("  row 0x%llx-0x%llx: readelf %s\n",
				      (unsigned long long)row->pc_start,
				      (unsigned long long)row->pc_end,
				      !ref ? "has no row there" :
				      verdict >= 0 ? gs_cfi_drop_name(verdict) : "disagrees");
			print_row("ours", row);
			if (verdict == -1)
				print_row("readelf", &want);
		}
	}
	return bad;
}

/* Whether the lookup at pc gives readelf's verdict on row r of FDE d;
 * the first REPORT_MAX disagreements (counted in *bad) are printed. */
static void check_reference_pc(const struct gs_cfi_table *t, const struct rf_fde *d,
			       const struct rf_row *r, uint64_t pc, size_t *bad)
{
	struct gs_unwind_row want, got;
	enum gs_cfi_drop reason = GS_CFI_DROP_NREASONS;
	int verdict = rf_expect(d, r, pc, &want);
	int rc = gs_cfi_table_lookup(t, pc, &got, &reason);

	if (verdict == -1 && rc == 0 && same_rules(&got, &want))
		return;
	if (verdict >= 0 && rc == -EOPNOTSUPP && (int)reason == verdict)
		return;
	if ((*bad)++ < REPORT_MAX) {
		print_message("  readelf row at 0x%llx (%s): readelf says %s, lookup gives %s\n",
			      (unsigned long long)pc, d->debug_frame ? ".debug_frame" : ".eh_frame",
			      verdict >= 0 ? gs_cfi_drop_name(verdict) : "exported",
			      rc == 0 ? "a row" : rc == -EOPNOTSUPP ? gs_cfi_drop_name(reason) : "nothing");
		if (rc == 0)
			print_row("ours", &got);
		if (verdict == -1)
			print_row("readelf", &want);
	}
}

/* Where the next check of a readelf row starting at pc goes: its end, or
 * for a PLT expression row the next cut, entry + K or the next entry. */
static uint64_t next_probe(const struct rf_fde *d, const struct rf_row *r, uint64_t pc,
			   uint64_t end)
{
	uint64_t entry = pc & ~(uint64_t)15, next;

	if (r->cfa_reg != -1 || !d->plt_k)
		return end;
	next = entry + ((pc & 15) < (uint64_t)d->plt_k ? (uint64_t)d->plt_k : 16);
	return next < end ? next : end;
}

/* Each non-empty readelf row gets the same verdict from the lookup (a PLT
 * expression row, at each of its pieces). */
static size_t check_reference_rows(const struct gs_cfi_table *t, const struct rf_frames *rf,
				   size_t *checked)
{
	size_t bad = 0;

	for (size_t i = 0; i < rf->n; i++) {
		const struct rf_fde *d = &rf->fdes[i];

		if (d->debug_frame && rf_eh_overlaps(rf, d->lo, d->hi))
			continue;
		for (size_t j = 0; j < d->nrows; j++) {
			uint64_t pc = d->rows[j].loc, end = j + 1 < d->nrows ? d->rows[j + 1].loc : d->hi;

			if (pc >= end || pc >= d->hi)
				continue;
			if (!d->debug_frame && rf_row_at(rf, pc, false, NULL, NULL) != &d->rows[j])
				continue; /* overlapping FDEs: the first one wins in both readers */
			for (; pc < end; pc = next_probe(d, &d->rows[j], pc, end)) {
				(*checked)++;
				check_reference_pc(t, d, &d->rows[j], pc, &bad);
			}
		}
	}
	return bad;
}

static void report_stats(const char *path, const struct gs_cfi_table *raw,
			 const struct gs_cfi_table *merged)
{
	const struct gs_cfi_stats *s = &merged->stats;

	print_message("%s: %zu FDEs (+%zu from .debug_frame, %zu shadowed), %zu rows, %zu exported, %zu merged -> %zu rows; dropped:",
		      path, s->fdes, s->debug_frame_fdes, s->shadowed_fdes, s->rows, s->exported,
		      s->merged, merged->nrows);
	for (int i = 0; i < GS_CFI_DROP_NREASONS; i++)
		if (s->dropped[i])
			print_message(" %s=%zu", gs_cfi_drop_name(i), s->dropped[i]);
	print_message("\n");
	assert_int_equal(raw->nrows, raw->stats.exported);
	assert_int_equal(merged->nrows + s->merged, s->exported);
}

/* Merging only joins rows: every pc a raw row covers finds equal rules. */
static void check_merge_keeps_lookups(const struct gs_cfi_table *raw,
				      const struct gs_cfi_table *merged)
{
	for (size_t i = 0; i < raw->nrows; i++) {
		const struct gs_unwind_row *r = &raw->rows[i];
		uint64_t probes[2] = { r->pc_start, r->pc_end - 1 };

		for (int k = 0; k < 2; k++) {
			const struct gs_unwind_row *m = gs_rows_find(merged->rows, 0, merged->nrows, probes[k]);

			assert_non_null(m);
			assert_true(same_rules(m, gs_rows_find(raw->rows, 0, raw->nrows, probes[k])));
		}
	}
	for (size_t i = 1; i < merged->nrows; i++)
		assert_true(merged->rows[i - 1].pc_start <= merged->rows[i].pc_start);
}

static void check_module(const char *path)
{
	GS_OPTS(gs_cfi_opts, no_merge, .no_merge = true);
	struct gs_cfi_table raw, merged;
	struct gs_error err = { 0 };
	struct rf_frames rf;
	size_t bad_rows, bad_refs, checked = 0;

	assert_int_equal(rf_load(path, &rf), 0);
	assert_true(rf.n > 0);
	if (gs_cfi_table_from_file(path, &no_merge, &raw, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(gs_cfi_table_from_file(path, NULL, &merged, &err), 0);
	report_stats(path, &raw, &merged);

	bad_rows = check_exported_rows(&raw, &rf);
	bad_refs = check_reference_rows(&merged, &rf, &checked);
	print_message("  %zu exported rows and %zu readelf rows checked: %zu + %zu disagreements\n",
		      raw.nrows, checked, bad_rows, bad_refs);
	assert_int_equal(bad_rows, 0);
	assert_int_equal(bad_refs, 0);
	assert_true(checked >= raw.nrows - raw.nrows / 100 || checked >= raw.stats.rows);
	check_merge_keeps_lookups(&raw, &merged);

	gs_cfi_table_free(&raw);
	gs_cfi_table_free(&merged);
	rf_free(&rf);
}

static void test_fixture_rows_agree_with_readelf(void **state)
{
	char path[4096];

	check_module(fx_path(*state, path, sizeof(path)));
}

static void test_libc_rows_agree_with_readelf(void **state)
{
	const char *libc = fx_libc();

	(void)state;
	if (!libc)
		skip();
	check_module(libc);
}

/* -fno-asynchronous-unwind-tables -g: the functions' CFI is only in
 * .debug_frame, and the table still covers them. */
static void test_debug_frame_only_build_still_has_rows(void **state)
{
	GS_OPTS(gs_cfi_opts, eh_only, .no_debug_frame = true);
	struct gs_cfi_table with, without;
	struct gs_unwind_row row;
	char path[4096];
	uint64_t leaf, size;

	(void)state;
	fx_path("bt_debug_frame", path, sizeof(path));
	assert_true(fx_symbol(path, "hot_bt_leaf", &leaf, &size));
	assert_int_equal(gs_cfi_table_from_file(path, NULL, &with, NULL), 0);
	assert_int_equal(gs_cfi_table_from_file(path, &eh_only, &without, NULL), 0);
	assert_true(with.stats.debug_frame_fdes >= 5);
	assert_int_equal(gs_cfi_table_lookup(&without, leaf, &row, NULL), -ENOENT);
	assert_int_equal(gs_cfi_table_lookup(&with, leaf, &row, NULL), 0);
	/* At the entry the CFA is rsp + 8 and the return address is at CFA - 8. */
	assert_int_equal(row.cfa_register, 7);
	assert_int_equal(row.cfa_offset, 8);
	assert_int_equal(row.ra_offset, -8);
	gs_cfi_table_free(&with);
	gs_cfi_table_free(&without);
}

/* _start's CFI marks the return address undefined: its rows are dropped
 * and the lookup says so rather than "no row". */
static void test_start_rows_are_dropped_as_ra_undefined(void **state)
{
	struct gs_cfi_table t;
	enum gs_cfi_drop reason;
	char path[4096];
	uint64_t start, size;

	(void)state;
	fx_path("bt_O2_nofp", path, sizeof(path));
	assert_true(fx_symbol(path, "_start", &start, &size));
	assert_int_equal(gs_cfi_table_from_file(path, NULL, &t, NULL), 0);
	assert_int_equal(gs_cfi_table_lookup(&t, start, NULL, &reason), -EOPNOTSUPP);
	assert_int_equal(reason, GS_CFI_DROP_RA_UNDEFINED);
	assert_true(t.stats.dropped[GS_CFI_DROP_RA_UNDEFINED] >= 1);
	gs_cfi_table_free(&t);
}

/* Like the reference's known-good value: at -O0 -fomit-frame-pointer,
 * inside dummy_touch (a 200-byte local array, partly in the red zone of
 * this leaf) the CFA is rsp plus the frame, and RA sits at CFA - 8. */
static void test_o0_nofp_dummy_touch_cfa_is_rsp_based(void **state)
{
	struct gs_cfi_table t;
	struct gs_unwind_row row;
	char path[4096];
	uint64_t fn, size;

	(void)state;
	fx_path("bt_O0_nofp", path, sizeof(path));
	assert_true(fx_symbol(path, "dummy_touch", &fn, &size));
	assert_int_equal(gs_cfi_table_from_file(path, NULL, &t, NULL), 0);
	assert_int_equal(gs_cfi_table_lookup(&t, fn + size / 2, &row, NULL), 0);
	assert_int_equal(row.cfa_register, 7);
	assert_true(row.cfa_offset > 100);
	assert_int_equal(row.ra_kind, GS_RECOVERY_AT_CFA_OFFSET);
	assert_int_equal(row.ra_offset, -8);
	gs_cfi_table_free(&t);
}

static void test_missing_file_names_the_path(void **state)
{
	struct gs_cfi_table t;
	struct gs_error err = { 0 };

	(void)state;
	assert_int_equal(gs_cfi_table_from_file("/nonexistent/lib.so", NULL, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/lib.so"));
	assert_int_equal(gs_cfi_table_from_file("/etc/hostname", NULL, &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not an ELF"));
}

#define FIXTURE_TEST(name) \
	cmocka_unit_test_prestate(test_fixture_rows_agree_with_readelf, (void *)(name))

int main(void)
{
	const struct CMUnitTest tests[] = {
		FIXTURE_TEST("bt_O0_fp"),
		FIXTURE_TEST("bt_O0_nofp"),
		FIXTURE_TEST("bt_O2_fp"),
		FIXTURE_TEST("bt_O2_nofp"),
		FIXTURE_TEST("bt_O3_fp"),
		FIXTURE_TEST("bt_O3_nofp"),
		FIXTURE_TEST("bt_nopie"),
		FIXTURE_TEST("bt_debug_frame"),
		FIXTURE_TEST("libbt_fixture.so"),
		cmocka_unit_test(test_libc_rows_agree_with_readelf),
		cmocka_unit_test(test_debug_frame_only_build_still_has_rows),
		cmocka_unit_test(test_start_rows_are_dropped_as_ra_undefined),
		cmocka_unit_test(test_o0_nofp_dummy_touch_cfa_is_rsp_based),
		cmocka_unit_test(test_missing_file_names_the_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
