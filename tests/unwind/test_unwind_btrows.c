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

#include <gs/unwind.h>

#include "fixtures.h"

/* The full row a compact row stands for (pc range aside). */
static struct gs_unwind_row expand(const struct gs_bt_rowtab *t, const struct gs_bt_row *r)
{
	struct gs_unwind_row u = { 0 };

	if (r->cfa >> 4 == GS_BT_CFA_OVERFLOW)
		return t->overflow[(uint16_t)r->cfa_off];
	u.cfa_register = r->cfa & 15;
	u.cfa_offset = r->cfa_off;
	u.ra_kind = r->ra >> 4;
	u.ra_register = r->ra & 15;
	u.ra_offset = r->ra_off * 8;
	u.rbp_kind = r->rbp >> 4;
	u.rbp_register = r->rbp & 15;
	u.rbp_offset = r->rbp_off * 8;
	return u;
}

/* Rules whose value is a register's: the walkers read the register field. */
static bool reg_rule(uint8_t kind)
{
	return kind == GS_RECOVERY_REGISTER || kind == GS_RECOVERY_SAME_VALUE;
}

static bool same_rules(const struct gs_unwind_row *a, const struct gs_unwind_row *b)
{
	bool ra_off = a->ra_kind != GS_RECOVERY_AT_CFA_OFFSET &&
		      a->ra_kind != GS_RECOVERY_VAL_CFA_OFFSET;
	bool rbp_off = a->rbp_kind != GS_RECOVERY_AT_CFA_OFFSET &&
		       a->rbp_kind != GS_RECOVERY_VAL_CFA_OFFSET;

	return a->cfa_register == b->cfa_register && a->cfa_offset == b->cfa_offset &&
	       a->ra_kind == b->ra_kind && (ra_off || a->ra_offset == b->ra_offset) &&
	       a->rbp_kind == b->rbp_kind && (rbp_off || a->rbp_offset == b->rbp_offset) &&
	       (!reg_rule(a->ra_kind) || a->ra_register == b->ra_register) &&
	       (!reg_rule(a->rbp_kind) || a->rbp_register == b->rbp_register);
}

/* Every pc from 16 bytes before the first row to 16 past the last. */
static void check_every_pc(const struct gs_unwind_row *rows, size_t n)
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
		const struct gs_unwind_row *want = gs_rows_find(rows, 0, n, pc);
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
			struct gs_unwind_row got = expand(&t, &t.rows[i]);

			if (!same_rules(want, &got))
				fail_msg("pc 0x%llx: compact row %ld gives other rules", (unsigned long long)pc, i);
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
	check_every_pc(t.rows, t.nrows);
	gs_cfi_table_free(&t);
}

static void test_compact_lookup_equals_cfi_table_on_fixtures(void **state)
{
	static const char *const names[] = { "bt_O0_fp", "bt_O2_nofp", "bt_O3_nofp", "bt_nopie",
					     "bt_debug_frame", "libbt_fixture.so" };
	char path[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
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
	const struct gs_unwind_row rows[] = {
		{ 0x0ff0, 0x1004, 8, -8, 0, 7, 16, 6, 1, 0, { 0 } },
		{ 0x1004, 0x1004, 16, -8, -16, 7, 16, 6, 1, 1, { 0 } },    /* empty */
		{ 0x1004, 0x2010, 16, -8, -16, 7, 16, 6, 1, 1, { 0 } },
		{ 0x2100, 0x2200, 100000, -8, 0, 7, 16, 6, 1, 0, { 0 } }, /* large CFA */
		{ 0x2200, 0x2201, 8, -12, 0, 7, 16, 6, 1, 0, { 0 } },     /* odd RA offset */
		{ 0x2300, 0x2310, 8, 0, 0, 7, 16, 6, 4, 4, { 0 } },       /* RA same as rip */
		{ 0x5000, 0x5001, 16, -8, -16, 6, 16, 6, 1, 1, { 0 } },   /* pages apart */
	};
	struct gs_bt_rowtab t;
	struct gs_error err;

	(void)state;
	check_every_pc(rows, sizeof(rows) / sizeof(rows[0]));
	assert_int_equal(gs_bt_rowtab_build(rows, sizeof(rows) / sizeof(rows[0]), &t, &err), 0);
	assert_int_equal(t.noverflow, 3);
	assert_int_equal(t.first_page, 0);
	assert_int_equal(t.npages, 6);
	assert_int_equal(t.pages[t.npages], t.nrows);
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
	       strcmp(map, GS_MAP_NAME_BT_PAGES) == 0 ? 4 : sizeof(struct gs_unwind_row);
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
	const struct gs_unwind_row rows[] = {
		{ 0x1000, 0x1010, 8, -8, 0, 7, 16, 6, 1, 0, { 0 } },
		{ 0x1010, 0x1020, 16, -8, 0, 7, 16, 6, 1, 0, { 0 } },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_lookup_equals_cfi_table_on_fixtures),
		cmocka_unit_test(test_compact_lookup_equals_cfi_table_on_libc),
		cmocka_unit_test(test_gaps_large_rules_and_page_edges),
		cmocka_unit_test(test_modules_are_laid_out_after_each_other_and_snapshots_flip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
