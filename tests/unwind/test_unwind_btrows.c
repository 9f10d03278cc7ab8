/* The bpf_loop walker's compact rows (btrows.c): for every pc of real
 * modules, the page index + 16-byte rows give the rules the full CFI table
 * gives; gaps and ends read as "no row"; rules too large for a row go to
 * the overflow table; the writers lay modules out one after another and
 * flip a process's module snapshot between two regions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/unwind.h>

#include "base.h"
#include "fixtures.h"

/* A row: CFA = reg + cfa_off, RA at CFA + ra_off, rbp by kind/offset,
 * the callee-saved registers unchanged. */
static struct gs_cfi_row row(uint64_t lo, uint64_t hi, uint8_t cfa_reg, int32_t cfa_off,
			     int32_t ra_off, uint8_t rbp_kind, int32_t rbp_off)
{
	struct gs_cfi_row r = { .pc_start = lo, .pc_end = hi };

	r.rules.cfa = (struct gs_bt_rule){ .kind = GS_BT_CFA_REG_OFF, .reg = cfa_reg, .off = cfa_off };
	r.rules.ra = (struct gs_bt_rule){ .kind = GS_RECOVERY_AT_CFA_OFFSET, .off = ra_off };
	r.rules.rbp = (struct gs_bt_rule){ .kind = rbp_kind, .off = rbp_off };
	for (int i = 0; i < GS_BT_NSAVED; i++)
		r.rules.saved[i].kind = GS_RECOVERY_SAME_VALUE;
	return r;
}

/* What a rule means, without the fields its kind ignores. */
static void norm_rule(struct gs_bt_rule *r, bool saved)
{
	bool has_reg = r->kind == GS_RECOVERY_REGISTER || r->kind == GS_RECOVERY_EXPRESSION ||
		       r->kind == GS_RECOVERY_VAL_EXPRESSION;

	if (saved && r->kind == GS_RECOVERY_UNDEFINED)
		r->kind = GS_RECOVERY_SAME_VALUE;
	if (r->kind == GS_RECOVERY_SAME_VALUE || r->kind == GS_RECOVERY_UNDEFINED ||
	    r->kind == GS_RECOVERY_REGISTER)
		r->off = 0;
	if (!has_reg)
		r->reg = 0;
}

static bool same_rules(struct gs_bt_rules a, struct gs_bt_rules b)
{
	struct gs_bt_rules *v[] = { &a, &b };

	for (int k = 0; k < 2; k++) {
		norm_rule(&v[k]->ra, false);
		norm_rule(&v[k]->rbp, false);
		for (int i = 0; i < GS_BT_NSAVED; i++)
			norm_rule(&v[k]->saved[i], true);
	}
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* Every pc from 16 bytes before the first row to 16 past the last. */
static void check_every_pc(const struct gs_cfi_row *rows, size_t n)
{
	struct gs_bt_rowtab t;
	struct gs_error err;
	uint64_t lo, hi;
	size_t checked = 0;

	assert_int_equal(gs_bt_rowtab_build(rows, n, &t, &err), 0);
	if (n == 0) {
		assert_int_equal(t.nrows, 0);
		return;
	}
	lo = rows[0].pc_start > 16 ? rows[0].pc_start - 16 : 0;
	hi = rows[n - 1].pc_end + 16;
	for (uint64_t pc = lo; pc < hi; pc++) {
		const struct gs_cfi_table table = { .xrows = (struct gs_cfi_row *)rows, .nxrows = n };
		struct gs_cfi_row want_row;
		const struct gs_cfi_row *want = gs_cfi_table_xlookup(&table, pc, &want_row) == 0 ?
						&want_row : NULL;
		long i = gs_bt_rows_find(t.rows, t.pages, t.first_page, t.npages, pc);
		bool none = i < 0 || t.rows[i].cfa >> 4 == GS_BT_CFA_NONE;

		if (!want) {
			if (!none)
				fail_msg("pc 0x%llx: no CFI row, but compact row %ld", (unsigned long long)pc, i);
			continue;
		}
		if (none)
			fail_msg("pc 0x%llx: CFI row [0x%llx, 0x%llx) but no compact row",
				 (unsigned long long)pc, (unsigned long long)want->pc_start,
				 (unsigned long long)want->pc_end);
		{
			struct gs_bt_rules got;
			bool signal = (t.rows[i].pc & GS_BT_ROW_F_SIGNAL) != 0;

			gs_bt_rowtab_rules(&t, (size_t)i, &got);
			if (!same_rules(want->rules, got))
				fail_msg("pc 0x%llx: compact row %ld gives other rules", (unsigned long long)pc, i);
			if (signal != ((want->flags & GS_CFI_ROW_SIGNAL) != 0))
				fail_msg("pc 0x%llx: compact row %ld: signal flag differs", (unsigned long long)pc, i);
		}
		checked++;
	}
	assert_true(checked > 0);
	assert_true(t.nrows <= 2 * n + 1);
	gs_bt_rowtab_free(&t);
}

static void check_file(const char *path)
{
	struct gs_cfi_table t;
	struct gs_error err;

	if (gs_cfi_table_from_file(path, NULL, &t, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
	check_every_pc(t.xrows, t.nxrows);
	gs_cfi_table_free(&t);
}

static void test_compact_lookup_equals_cfi_table_on_fixtures(void **state)
{
	static const char *const names[] = { "bt_O0_fp", "bt_O2_nofp", "bt_O3_nofp", "bt_nopie",
					     "bt_debug_frame", "libbt_fixture.so" };
	char path[4096];

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(names); i++)
		check_file(fx_path(names[i], path, sizeof(path)));
}

static void test_compact_lookup_equals_cfi_table_on_libc(void **state)
{
	const char *libc = fx_libc();

	(void)state;
	if (!libc) {
		print_message("skipped: the test process maps no libc.so.6\n");
		skip();
	}
	check_file(libc);
}

/* Gaps between FDEs, a large frame, an RA offset that is no multiple of 8,
 * a same-value rule naming rip (16, past a nibble), a zero-length row and
 * rows across page boundaries. */
static void test_gaps_large_rules_and_page_edges(void **state)
{
	const struct gs_cfi_row rows[] = {
		row(0x0ff0, 0x1004, 7, 8, -8, GS_RECOVERY_SAME_VALUE, 0),
		row(0x1004, 0x1004, 7, 16, -8, GS_RECOVERY_AT_CFA_OFFSET, -16), /* empty */
		row(0x1004, 0x2010, 7, 16, -8, GS_RECOVERY_AT_CFA_OFFSET, -16),
		row(0x2100, 0x2200, 7, 100000, -8, GS_RECOVERY_SAME_VALUE, 0),  /* large CFA */
		row(0x2200, 0x2201, 7, 8, -12, GS_RECOVERY_SAME_VALUE, 0),      /* odd RA offset */
		row(0x5000, 0x5001, 6, 16, -8, GS_RECOVERY_AT_CFA_OFFSET, -16), /* pages apart */
	};
	struct gs_bt_rowtab t;
	struct gs_error err;

	(void)state;
	check_every_pc(rows, BASE_ARRAY_SIZE(rows));
	assert_int_equal(gs_bt_rowtab_build(rows, BASE_ARRAY_SIZE(rows), &t, &err), 0);
	assert_int_equal(t.noverflow, 2);
	assert_int_equal(t.first_page, 0);
	assert_int_equal(t.npages, 6);
	assert_int_equal(t.pages[t.npages], t.nrows);
	gs_bt_rowtab_free(&t);
}

/* Rows of the harder rule kinds: a CFA read through memory (DRAP, signal frames), an RA
 * and rbp given by DW_OP_breg7 expressions (the kernel's ucontext), rbx
 * and r12-r15 at CFA offsets (compact) or as expressions (overflow), a CFA
 * on rbx, the end of the stack, and the signal flag. */
static void test_expression_rules_survive_compaction(void **state)
{
	struct gs_cfi_row rows[6];
	struct gs_bt_rowtab t;
	struct gs_error err;

	(void)state;
	rows[0] = row(0x1000, 0x1010, 6, -8, -8, GS_RECOVERY_EXPRESSION, 0); /* DRAP */
	rows[0].rules.cfa.kind = GS_BT_CFA_REG_DEREF;
	rows[0].rules.rbp.reg = 6;
	rows[0].rules.saved[1] = (struct gs_bt_rule){ .kind = GS_RECOVERY_AT_CFA_OFFSET, .off = -24 };
	rows[1] = row(0x1010, 0x1020, 7, 160, 0, GS_RECOVERY_EXPRESSION, 120); /* sigreturn */
	rows[1].rules.cfa.kind = GS_BT_CFA_REG_DEREF;
	rows[1].rules.ra = (struct gs_bt_rule){ .kind = GS_RECOVERY_EXPRESSION, .reg = 7, .off = 168 };
	rows[1].rules.rbp.reg = 7;
	for (int i = 0; i < GS_BT_NSAVED; i++)
		rows[1].rules.saved[i] = (struct gs_bt_rule){ .kind = GS_RECOVERY_EXPRESSION,
							      .reg = 7, .off = 72 + 8 * i };
	rows[1].flags = GS_CFI_ROW_SIGNAL;
	rows[2] = row(0x1020, 0x1030, 3, 16, -8, GS_RECOVERY_SAME_VALUE, 0); /* CFA on rbx */
	rows[2].rules.saved[0] = (struct gs_bt_rule){ .kind = GS_RECOVERY_AT_CFA_OFFSET, .off = -16 };
	rows[3] = row(0x1030, 0x1040, 7, 8, 0, GS_RECOVERY_SAME_VALUE, 0); /* _start */
	rows[3].rules.ra.kind = GS_RECOVERY_UNDEFINED;
	rows[4] = row(0x1040, 0x1050, 7, 8, -8, GS_RECOVERY_VAL_EXPRESSION, 16);
	rows[4].rules.rbp.reg = 12;
	rows[5] = row(0x1050, 0x1060, 7, 8, -8, GS_RECOVERY_SAME_VALUE, 0);
	rows[5].rules.saved[4] = (struct gs_bt_rule){ .kind = GS_RECOVERY_AT_CFA_OFFSET, .off = -264 };
	check_every_pc(rows, 6);
	assert_int_equal(gs_bt_rowtab_build(rows, 6, &t, &err), 0);
	/* the sigreturn row (expression saves) and the far r15 save */
	assert_int_equal(t.noverflow, 2);
	assert_int_equal(t.rows[0].cfa >> 4, GS_BT_CFA_REG_DEREF);
	assert_int_equal(t.rows[1].cfa >> 4, GS_BT_CFA_OVERFLOW);
	assert_true(t.rows[1].pc & GS_BT_ROW_F_SIGNAL);
	assert_false(t.rows[0].pc & GS_BT_ROW_F_SIGNAL);
	assert_int_equal(t.rows[2].cfa, GS_BT_CFA_REG_OFF << 4 | 3);
	assert_int_equal(t.rows[3].ra >> 4, GS_RECOVERY_UNDEFINED);
	gs_bt_rowtab_free(&t);
}

/* ---- the writers, on a small fake of named maps ------------------------- */

#define FAKE_MAX 256

struct fake {
	struct { const char *map; uint8_t key[8], value[64]; bool used; } e[FAKE_MAX];
};

static size_t key_size(const char *map)
{
	return strcmp(map, GS_MAP_NAME_BT_MODULE_ROWS) == 0 ? 8 : 4;
}

static int find(struct fake *f, const char *map, const void *key)
{
	for (int i = 0; i < FAKE_MAX; i++)
		if (f->e[i].used && strcmp(f->e[i].map, map) == 0 &&
		    memcmp(f->e[i].key, key, key_size(map)) == 0)
			return i;
	return -1;
}

static size_t value_size(const char *map)
{
	return strcmp(map, GS_MAP_NAME_BT_MODULE_ROWS) == 0 ? sizeof(struct gs_bt_module_rows) :
	       strcmp(map, GS_MAP_NAME_BT_PROC_MODULES) == 0 ? sizeof(struct gs_bt_proc_modules) :
	       strcmp(map, GS_MAP_NAME_BT_MODULES) == 0 ? sizeof(struct gs_bt_module) :
	       strcmp(map, GS_MAP_NAME_BT_CROWS) == 0 ? sizeof(struct gs_bt_row) :
	       strcmp(map, GS_MAP_NAME_BT_PAGES) == 0 ? 4 : sizeof(struct gs_bt_rules);
}

static int fake_update(void *ctx, const char *map, const void *key, const void *value)
{
	struct fake *f = ctx;
	int i = find(f, map, key);
	size_t vs = value_size(map);

	for (int j = 0; i < 0 && j < FAKE_MAX; j++)
		if (!f->e[j].used)
			i = j;
	assert_true(i >= 0);
	f->e[i].used = true;
	f->e[i].map = map;
	memcpy(f->e[i].key, key, key_size(map));
	memcpy(f->e[i].value, value, vs);
	return 0;
}

static int fake_lookup(void *ctx, const char *map, const void *key, void *value)
{
	struct fake *f = ctx;
	int i = find(f, map, key);

	if (i < 0)
		return -2; /* -ENOENT */
	memcpy(value, f->e[i].value, value_size(map));
	return 0;
}

static int fake_remove(void *ctx, const char *map, const void *key)
{
	(void)ctx, (void)map, (void)key;
	return 0;
}

static void test_modules_are_laid_out_after_each_other_and_snapshots_flip(void **state)
{
	const struct gs_cfi_row rows[] = {
		row(0x1000, 0x1010, 7, 8, -8, GS_RECOVERY_SAME_VALUE, 0),
		row(0x1010, 0x1020, 7, 16, -8, GS_RECOVERY_SAME_VALUE, 0),
	};
	struct gs_bt_table_caps caps = { 64, 64, 8 };
	struct fake *f = calloc(1, sizeof(*f));
	struct gs_map_writer w = { f, fake_update, fake_remove, fake_lookup };
	struct gs_bt_rowtab t;
	struct gs_bt_module_rows a, b;
	struct gs_bt_proc_modules meta;
	struct gs_range_item items[] = { { 0x7000, 0x100, 0x6000, 0xbb }, { 0x1000, 0x100, 0, 0xaa } };
	struct gs_bt_module m0;
	struct gs_error err;
	uint64_t ka = 0xaa, kb = 0xbb;
	uint32_t pid = 42, first;

	(void)state;
	assert_int_equal(gs_bt_rowtab_build(rows, 2, &t, &err), 0);
	assert_int_equal(gs_bt_rowtab_write(&w, ka, &t, &caps, &err), 0);
	assert_int_equal(gs_bt_rowtab_write(&w, kb, &t, &caps, &err), 0);
	assert_int_equal(gs_bt_rowtab_write(&w, kb, &t, &caps, &err), 0); /* once only */
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_MODULE_ROWS, &ka, &a), 0);
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_MODULE_ROWS, &kb, &b), 0);
	assert_int_equal(a.row_lo, 0);
	assert_int_equal(b.row_lo, a.row_hi);
	assert_int_equal(b.page_lo, a.page_lo + a.npages + 1);
	gs_bt_rowtab_free(&t);

	assert_int_equal(gs_bt_modules_replace(&w, pid, items, 2, 256, &err), 0);
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_PROC_MODULES, &pid, &meta), 0);
	assert_int_equal(meta.count, 2);
	first = meta.first;
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_MODULES, &first, &m0), 0);
	assert_int_equal(m0.start, 0x1000); /* sorted by start */
	assert_int_equal(m0.cookie, 0xaa);
	assert_int_equal(m0.row_hi, a.row_hi);
	assert_int_equal(gs_bt_modules_replace(&w, pid, items, 2, 256, &err), 0);
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_PROC_MODULES, &pid, &meta), 0);
	assert_int_not_equal(meta.first, first); /* the other region */
	assert_int_equal(gs_bt_modules_replace(&w, pid, items, 2, 256, &err), 0);
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_PROC_MODULES, &pid, &meta), 0);
	assert_int_equal(meta.first, first);
	free(f);
}

static int fake_remove_real(void *ctx, const char *map, const void *key)
{
	struct fake *f = ctx;
	int i = find(f, map, key);

	if (i < 0)
		return -2;
	f->e[i].used = false;
	return 0;
}

/* Processes that come and go (target mode) and snapshots that grow past
 * their regions: the regions they leave are reused, so bt_modules does not
 * run out under churn. */
static void test_module_regions_are_reused(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct gs_map_writer w = { f, fake_update, fake_remove_real, fake_lookup };
	struct gs_range_item items[70];
	struct gs_bt_proc_modules meta, alloc;
	struct gs_error err;
	uint32_t zero = 0;

	(void)state;
	for (int i = 0; i < 70; i++)
		items[i] = (struct gs_range_item){ 0x1000 * (uint64_t)(i + 1), 0x100, 0, 0xa0 + (uint64_t)i };
	/* 20 processes in turn in a table of room for two pairs of 64 */
	for (uint32_t pid = 100; pid < 120; pid++) {
		assert_int_equal(gs_bt_modules_replace(&w, pid, items, 2, 256, &err), 0);
		assert_int_equal(gs_bt_modules_remove(&w, pid, &err), 0);
		assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_PROC_MODULES, &pid, &meta), -2);
	}
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_PROC_MODULES, &zero, &alloc), 0);
	assert_int_equal(alloc.base, 128); /* one pair ever allocated */
	/* a process growing past 64 modules takes a larger pair and frees its
	 * old one, which the next process takes */
	assert_int_equal(gs_bt_modules_replace(&w, 7, items, 2, 512, &err), 0);
	assert_int_equal(gs_bt_modules_replace(&w, 7, items, 70, 512, &err), 0);
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_PROC_MODULES, &zero, &alloc), 0);
	assert_int_equal(alloc.count, 1);
	assert_int_equal(alloc.base, 128 + 280);
	assert_int_equal(gs_bt_modules_replace(&w, 8, items, 2, 512, &err), 0);
	assert_int_equal(fake_lookup(f, GS_MAP_NAME_BT_PROC_MODULES, &zero, &alloc), 0);
	assert_int_equal(alloc.count, 0);
	assert_int_equal(alloc.base, 128 + 280);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_lookup_equals_cfi_table_on_fixtures),
		cmocka_unit_test(test_compact_lookup_equals_cfi_table_on_libc),
		cmocka_unit_test(test_gaps_large_rules_and_page_edges),
		cmocka_unit_test(test_expression_rules_survive_compaction),
		cmocka_unit_test(test_modules_are_laid_out_after_each_other_and_snapshots_flip),
		cmocka_unit_test(test_module_regions_are_reused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
