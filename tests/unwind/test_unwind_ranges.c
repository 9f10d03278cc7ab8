/* The map writes (docs/unwind.md, "Map layouts"), against an in-memory fake
 * of named BPF hash/array maps: the double-buffered proc_module_ranges
 * snapshot (the inactive slot is cleared, filled sorted, then meta flips), the
 * proc_module_offsets key layout, and the row tables of many modules
 * (cookie order, contiguous ranges, append-only writes, capacity). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "unwind_int.h" /* the steps checked one by one */

#define FAKE_MAX 512

struct fake_entry {
	const char *map;
	uint8_t key[16], value[64];
	size_t klen, vlen;
};

struct fake_maps {
	struct fake_entry e[FAKE_MAX];
	size_t n;
	int fail_update; /* -errno returned by every update when set */
	int updates, removes;
};

static size_t key_size(const char *map)
{
	if (!strcmp(map, GS_MAP_PROC_MODULE_RANGE_META) || !strcmp(map, GS_MAP_BT_UNWIND_ROWS))
		return 4;
	if (!strcmp(map, GS_MAP_BT_MODULE_ROW_RANGES))
		return 8;
	return 16;
}

static size_t value_size(const char *map)
{
	if (!strcmp(map, GS_MAP_PROC_MODULE_RANGE_META) || !strcmp(map, GS_MAP_BT_MODULE_ROW_RANGES))
		return 8;
	if (!strcmp(map, GS_MAP_PROC_MODULE_RANGES))
		return 32;
	if (!strcmp(map, GS_MAP_PROC_MODULE_OFFSETS))
		return 48;
	return 56;
}

static struct fake_entry *find(struct fake_maps *f, const char *map, const void *key)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->e[i].map, map) && !memcmp(f->e[i].key, key, key_size(map)))
			return &f->e[i];
	return NULL;
}

static int fake_update(void *ctx, const char *map, const void *key, const void *value)
{
	struct fake_maps *f = ctx;
	struct fake_entry *e = find(f, map, key);

	f->updates++;
	if (f->fail_update)
		return f->fail_update;
	if (!e) {
		assert_true(f->n < FAKE_MAX);
		e = &f->e[f->n++];
		e->map = map;
		memcpy(e->key, key, key_size(map));
	}
	memcpy(e->value, value, value_size(map));
	return 0;
}

static int fake_remove(void *ctx, const char *map, const void *key)
{
	struct fake_maps *f = ctx;
	struct fake_entry *e = find(f, map, key);

	f->removes++;
	if (!e)
		return -ENOENT;
	*e = f->e[--f->n];
	return 0;
}

static int fake_lookup(void *ctx, const char *map, const void *key, void *value)
{
	struct fake_entry *e = find(ctx, map, key);

	if (!e)
		return -ENOENT;
	memcpy(value, e->value, value_size(map));
	return 0;
}

static struct gs_map_writer writer_of(struct fake_maps *f)
{
	return (struct gs_map_writer){ f, fake_update, fake_remove, fake_lookup };
}

static size_t count_slot(struct fake_maps *f, uint32_t pid, uint32_t slot)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++) {
		struct gs_proc_module_range_key k;

		if (strcmp(f->e[i].map, GS_MAP_PROC_MODULE_RANGES))
			continue;
		memcpy(&k, f->e[i].key, sizeof(k));
		n += k.pid == pid && k.slot == slot;
	}
	return n;
}

static struct gs_proc_module_range slot_entry(struct fake_maps *f, uint32_t pid, uint32_t slot,
					      uint32_t index)
{
	struct gs_proc_module_range_key k = { pid, slot, index, 0 };
	struct gs_proc_module_range v = { 0 };

	assert_int_equal(fake_lookup(f, GS_MAP_PROC_MODULE_RANGES, &k, &v), 0);
	return v;
}

static struct gs_proc_module_range_meta meta_of(struct fake_maps *f, uint32_t pid)
{
	struct gs_proc_module_range_meta m = { 0 };

	assert_int_equal(fake_lookup(f, GS_MAP_PROC_MODULE_RANGE_META, &pid, &m), 0);
	return m;
}

static void test_ranges_build_sorts_and_drops_empty_or_wrapping(void **state)
{
	const struct gs_range_item items[] = {
		{ 0x7f0000000000, 0x1000, 0x7f0000000000, 0xbbbb000000000002 },
		{ 0x400000, 0x2000, 0, 0xaaaa },
		{ 0x500000, 0, 0, 0xcccc },                     /* empty */
		{ UINT64_MAX - 0xfff, 0x2000, 0, 0xdddd },      /* wraps */
		{ 0x7f0000000000, 0x1000, 0x7f0000000000, 0x1 }, /* same range, smaller cookie */
	};
	struct gs_proc_module_range out[5];

	(void)state;
	assert_int_equal(uw_ranges_build(items, 5, out), 3);
	assert_int_equal(out[0].base, 0x400000);
	assert_int_equal(out[0].end, 0x402000);
	assert_int_equal(out[0].cookie_lo, 0xaaaa);
	assert_int_equal(out[1].cookie_lo, 1);
	assert_int_equal(out[2].cookie_lo, 2);
	assert_int_equal(out[2].cookie_hi, 0xbbbb0000);
	assert_int_equal(out[2].text, 0x7f0000000000ULL);
}

/* First snapshot goes to slot 1 (meta absent = active 0), the next to slot
 * 0, the next to slot 1 again with the stale entries gone. */
static void test_ranges_replace_fills_inactive_slot_then_flips(void **state)
{
	static struct fake_maps f;
	struct gs_map_writer w = writer_of(&f);
	const struct gs_range_item three[] = {
		{ 0x7000, 0x1000, 0x7000, 3 }, { 0x1000, 0x1000, 0x1000, 1 }, { 0x4000, 0x1000, 0x4000, 2 },
	};
	const struct gs_range_item one[] = { { 0x9000, 0x1000, 0x9000, 9 } };

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(gs_ranges_replace(&w, 42, three, 3, NULL), 0);
	assert_int_equal(meta_of(&f, 42).active_slot, 1);
	assert_int_equal(meta_of(&f, 42).count, 3);
	assert_int_equal(count_slot(&f, 42, 1), 3);
	assert_int_equal(slot_entry(&f, 42, 1, 0).base, 0x1000);
	assert_int_equal(slot_entry(&f, 42, 1, 1).base, 0x4000);
	assert_int_equal(slot_entry(&f, 42, 1, 2).base, 0x7000);

	/* While slot 0 is written, slot 1 (what BPF reads) stays whole. */
	assert_int_equal(gs_ranges_replace(&w, 42, one, 1, NULL), 0);
	assert_int_equal(meta_of(&f, 42).active_slot, 0);
	assert_int_equal(meta_of(&f, 42).count, 1);
	assert_int_equal(count_slot(&f, 42, 0), 1);
	assert_int_equal(count_slot(&f, 42, 1), 3);

	assert_int_equal(gs_ranges_replace(&w, 42, one, 1, NULL), 0);
	assert_int_equal(meta_of(&f, 42).active_slot, 1);
	assert_int_equal(count_slot(&f, 42, 1), 1); /* the three old ones cleared */
	assert_int_equal(slot_entry(&f, 42, 1, 0).cookie_lo, 9);

	/* Other pids are untouched. */
	assert_int_equal(gs_ranges_replace(&w, 7, NULL, 0, NULL), 0);
	assert_int_equal(meta_of(&f, 7).count, 0);
	assert_int_equal(count_slot(&f, 42, 1), 1);
}

static void test_ranges_replace_reports_writer_failure(void **state)
{
	static struct fake_maps f;
	struct gs_map_writer w = writer_of(&f);
	const struct gs_range_item one[] = { { 0x9000, 0x1000, 0x9000, 9 } };
	struct gs_error err = { 0 };

	(void)state;
	memset(&f, 0, sizeof(f));
	f.fail_update = -E2BIG;
	assert_int_equal(gs_ranges_replace(&w, 5, one, 1, &err), -E2BIG);
	assert_non_null(strstr(err.msg, GS_MAP_PROC_MODULE_RANGES));
	assert_int_equal(fake_lookup(&f, GS_MAP_PROC_MODULE_RANGE_META, &(uint32_t){ 5 },
				     &(struct gs_proc_module_range_meta){ 0 }), -ENOENT);
}

static void test_offsets_key_is_pid_pad_cookie(void **state)
{
	static struct fake_maps f;
	struct gs_map_writer w = writer_of(&f);
	struct gs_proc_module_offsets o = { 1, 1, 1, 1, 0x1000, 0x2000 }, got;
	struct gs_proc_module_key key = { 99, 0, 0x89abcdef, 0x01234567 };

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(gs_offsets_write(&w, 99, 0x0123456789abcdefULL, &o, NULL), 0);
	assert_int_equal(fake_lookup(&f, GS_MAP_PROC_MODULE_OFFSETS, &key, &got), 0);
	assert_memory_equal(&got, &o, sizeof(o));
}

static struct gs_unwind_row row(uint64_t lo, uint64_t hi, int64_t cfa)
{
	return (struct gs_unwind_row){ .pc_start = lo, .pc_end = hi, .cfa_offset = cfa,
				       .cfa_register = 7, .ra_kind = 1, .ra_offset = -8,
				       .ra_register = 16, .rbp_kind = 4, .rbp_register = 6 };
}

static void test_rows_find_is_half_open_and_sees_gaps(void **state)
{
	const struct gs_unwind_row rows[] = { row(0x10, 0x20, 8), row(0x20, 0x28, 16), row(0x40, 0x50, 24) };

	(void)state;
	assert_null(gs_rows_find(rows, 0, 3, 0x0f));
	assert_int_equal(gs_rows_find(rows, 0, 3, 0x10)->cfa_offset, 8);
	assert_int_equal(gs_rows_find(rows, 0, 3, 0x1f)->cfa_offset, 8);
	assert_int_equal(gs_rows_find(rows, 0, 3, 0x20)->cfa_offset, 16);
	assert_null(gs_rows_find(rows, 0, 3, 0x28)); /* gap */
	assert_int_equal(gs_rows_find(rows, 0, 3, 0x4f)->cfa_offset, 24);
	assert_null(gs_rows_find(rows, 0, 3, 0x50));
	assert_null(gs_rows_find(rows, 1, 2, 0x10)); /* outside [lo, hi) */
}

/* Modules in cookie order whatever the insertion order; each range maps the
 * module's own rows; duplicates and empty tables are ignored. */
static void test_rowset_orders_modules_by_cookie(void **state)
{
	const struct gs_unwind_row a[] = { row(0x100, 0x200, 8), row(0x200, 0x300, 16) };
	const struct gs_unwind_row b[] = { row(0x100, 0x180, 32) };
	const struct gs_unwind_row c[] = { row(0x10, 0x20, 40), row(0x20, 0x30, 48), row(0x30, 0x40, 56) };
	struct gs_rowset s;

	(void)state;
	gs_rowset_init(&s);
	assert_int_equal(gs_rowset_add(&s, 0x30, a, 2, NULL), 0);
	assert_int_equal(gs_rowset_add(&s, 0x10, b, 1, NULL), 0);
	assert_int_equal(gs_rowset_add(&s, 0x20, c, 3, NULL), 0);
	assert_int_equal(gs_rowset_add(&s, 0x20, a, 2, NULL), 0); /* cookie taken */
	assert_int_equal(gs_rowset_add(&s, 0x05, a, 0, NULL), 0); /* empty */
	assert_int_equal(s.nmodules, 3);
	assert_int_equal(s.nrows, 6);
	assert_int_equal(s.modules[0].cookie, 0x10);
	assert_int_equal(s.modules[0].range.row_start, 0);
	assert_int_equal(s.modules[0].range.row_end, 1);
	assert_int_equal(s.modules[1].range.row_start, 1);
	assert_int_equal(s.modules[1].range.row_end, 4);
	assert_int_equal(s.modules[2].range.row_start, 4);
	assert_int_equal(s.modules[2].range.row_end, 6);
	assert_int_equal(gs_rowset_find(&s, 0x30, 0x250)->cfa_offset, 16);
	assert_int_equal(gs_rowset_find(&s, 0x10, 0x150)->cfa_offset, 32);
	assert_int_equal(gs_rowset_find(&s, 0x20, 0x25)->cfa_offset, 48);
	assert_null(gs_rowset_find(&s, 0x10, 0x250)); /* another module's pc */
	assert_null(gs_rowset_find(&s, 0x99, 0x150));
	assert_null(gs_rowset_module(&s, 0x05));
	gs_rowset_fini(&s);
}

/* Writing appends after the rows already in the map, skips modules another
 * trace wrote, and refuses to pass the capacity. */
static void test_rowset_write_appends_and_respects_capacity(void **state)
{
	static struct fake_maps f;
	struct gs_map_writer w = writer_of(&f);
	const struct gs_unwind_row a[] = { row(0x100, 0x200, 8), row(0x200, 0x300, 16) };
	const struct gs_unwind_row b[] = { row(0x100, 0x180, 32) };
	struct gs_module_row_range r;
	struct gs_unwind_row got;
	struct gs_rowset s;
	struct gs_error err = { 0 };
	uint32_t count = 10, key = 12;

	(void)state;
	memset(&f, 0, sizeof(f));
	gs_rowset_init(&s);
	assert_int_equal(gs_rowset_add(&s, 0xa, a, 2, NULL), 0);
	assert_int_equal(gs_rowset_add(&s, 0xb, b, 1, NULL), 0);
	/* Module 0xb is already in the maps. */
	assert_int_equal(fake_update(&f, GS_MAP_BT_MODULE_ROW_RANGES, &(uint64_t){ 0xb },
				     &(struct gs_module_row_range){ 0, 1 }), 0);
	assert_int_equal(gs_rowset_write(&s, &w, &count, 100, NULL), 0);
	assert_int_equal(count, 12);
	assert_int_equal(fake_lookup(&f, GS_MAP_BT_MODULE_ROW_RANGES, &(uint64_t){ 0xa }, &r), 0);
	assert_int_equal(r.row_start, 10);
	assert_int_equal(r.row_end, 12);
	key = 11;
	assert_int_equal(fake_lookup(&f, GS_MAP_BT_UNWIND_ROWS, &key, &got), 0);
	assert_memory_equal(&got, &a[1], sizeof(got));
	key = 12;
	assert_int_equal(fake_lookup(&f, GS_MAP_BT_UNWIND_ROWS, &key, &got), -ENOENT);

	/* A fresh map with room for one row: capacity exceeded. */
	memset(&f, 0, sizeof(f));
	count = 0;
	assert_int_equal(gs_rowset_write(&s, &w, &count, 1, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "capacity exceeded"));
	gs_rowset_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_build_sorts_and_drops_empty_or_wrapping),
		cmocka_unit_test(test_ranges_replace_fills_inactive_slot_then_flips),
		cmocka_unit_test(test_ranges_replace_reports_writer_failure),
		cmocka_unit_test(test_offsets_key_is_pid_pad_cookie),
		cmocka_unit_test(test_rows_find_is_half_open_and_sees_gaps),
		cmocka_unit_test(test_rowset_orders_modules_by_cookie),
		cmocka_unit_test(test_rowset_write_appends_and_respects_capacity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
