/* The text of aggregation tables (gs/aggs.h) against what bpftrace v0.17
 * prints for the same values (run on this machine: `bpftrace -e 'BEGIN {
 * @h = hist(0); @h = hist(1); ... exit(); }'`), and their JSON shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gs/aggs.h>
#include <gs/context.h>

#include "agg_entries.h"

#define BAR "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@"
#define NOBAR "                                                    "

static char *render(const struct gs_agg_table *t, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(json ? gs_agg_print_json(f, t) : gs_agg_print_text(f, t), 0);
	fclose(f);
	return buf;
}

static void test_hist_prints_power_of_two_buckets(void **state)
{
	static const int64_t v[] = { 0, 1, 5, 5000, 1500000 };
	struct gs_agg_desc d = { .name = "@h", .fn = GS_AGG_HIST };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	char *got;

	(void)state;
	agg_sample(&e, &d, v, 5);
	got = render(&t, false);
	assert_string_equal(got,
		"@h: \n"
		"[0]                    1 |" BAR "|\n"
		"[1]                    1 |" BAR "|\n"
		"[2, 4)                 0 |" NOBAR "|\n"
		"[4, 8)                 1 |" BAR "|\n"
		"[8, 16)                0 |" NOBAR "|\n"
		"[16, 32)               0 |" NOBAR "|\n"
		"[32, 64)               0 |" NOBAR "|\n"
		"[64, 128)              0 |" NOBAR "|\n"
		"[128, 256)             0 |" NOBAR "|\n"
		"[256, 512)             0 |" NOBAR "|\n"
		"[512, 1K)              0 |" NOBAR "|\n"
		"[1K, 2K)               0 |" NOBAR "|\n"
		"[2K, 4K)               0 |" NOBAR "|\n"
		"[4K, 8K)               1 |" BAR "|\n"
		"[8K, 16K)              0 |" NOBAR "|\n"
		"[16K, 32K)             0 |" NOBAR "|\n"
		"[32K, 64K)             0 |" NOBAR "|\n"
		"[64K, 128K)            0 |" NOBAR "|\n"
		"[128K, 256K)           0 |" NOBAR "|\n"
		"[256K, 512K)           0 |" NOBAR "|\n"
		"[512K, 1M)             0 |" NOBAR "|\n"
		"[1M, 2M)               1 |" BAR "|\n"
		"\n");
	free(got);
	free(e.buckets);
}

/* Bars are count / most * 52, cut; a negative value is (..., 0). */
static void test_hist_bars_scale_to_the_fullest_bucket(void **state)
{
	static const int64_t v[] = { -3, 4096, 4097, 5000, 8000, 9000 };
	struct gs_agg_desc d = { .name = "@lat", .fn = GS_AGG_HIST, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_INT } };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	char *got;

	(void)state;
	agg_put_int(&e, &d, 0, 7);
	agg_sample(&e, &d, v, 6);
	got = render(&t, false);
	/* 1/4 * 52 = 13, 4/4: 52, 1/4: 13 */
	assert_string_equal(got,
		"@lat[7]: \n"
		"(..., 0)               1 |@@@@@@@@@@@@@                                       |\n"
		"[0]                    0 |" NOBAR "|\n"
		"[1]                    0 |" NOBAR "|\n"
		"[2, 4)                 0 |" NOBAR "|\n"
		"[4, 8)                 0 |" NOBAR "|\n"
		"[8, 16)                0 |" NOBAR "|\n"
		"[16, 32)               0 |" NOBAR "|\n"
		"[32, 64)               0 |" NOBAR "|\n"
		"[64, 128)              0 |" NOBAR "|\n"
		"[128, 256)             0 |" NOBAR "|\n"
		"[256, 512)             0 |" NOBAR "|\n"
		"[512, 1K)              0 |" NOBAR "|\n"
		"[1K, 2K)               0 |" NOBAR "|\n"
		"[2K, 4K)               0 |" NOBAR "|\n"
		"[4K, 8K)               4 |" BAR "|\n"
		"[8K, 16K)              1 |@@@@@@@@@@@@@                                       |\n"
		"\n");
	free(got);
	free(e.buckets);
}

static void test_lhist_prints_linear_buckets_with_under_and_over(void **state)
{
	static const int64_t v[] = { 3, 55, -5, 1000 };
	struct gs_agg_desc d = { .name = "@l", .fn = GS_AGG_LHIST, .lmin = 0, .lmax = 100,
				 .lstep = 10 };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	char *got;

	(void)state;
	agg_sample(&e, &d, v, 4);
	got = render(&t, false);
	assert_string_equal(got,
		"@l: \n"
		"(..., 0)               1 |" BAR "|\n"
		"[0, 10)                1 |" BAR "|\n"
		"[10, 20)               0 |" NOBAR "|\n"
		"[20, 30)               0 |" NOBAR "|\n"
		"[30, 40)               0 |" NOBAR "|\n"
		"[40, 50)               0 |" NOBAR "|\n"
		"[50, 60)               1 |" BAR "|\n"
		"[60, 70)               0 |" NOBAR "|\n"
		"[70, 80)               0 |" NOBAR "|\n"
		"[80, 90)               0 |" NOBAR "|\n"
		"[90, 100)              0 |" NOBAR "|\n"
		"[100, ...)             1 |" BAR "|\n"
		"\n");
	free(got);
	free(e.buckets);
}

/* lhist labels in K and M where exact: [1K, 2K), [1M, ...). */
static void test_lhist_labels_use_k_and_m_when_exact(void **state)
{
	static const int64_t v[] = { 1500, 1048576 };
	struct gs_agg_desc d = { .name = "@b", .fn = GS_AGG_LHIST, .lmin = 0, .lmax = 1048576,
				 .lstep = 1024 };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	char *got, *line;

	(void)state;
	agg_sample(&e, &d, v, 2);
	got = render(&t, false);
	line = strchr(got, '\n') + 1;
	assert_memory_equal(line, "[1K, 2K)               1 |", 26);
	assert_non_null(strstr(got, "\n[1M, ...)              1 |" BAR "|\n\n"));
	free(got);
	free(e.buckets);
}

/* Value maps sorted by value ascending; avg is an integer division; keys
 * comma-separated, strings as they are; an empty line after the map. */
static void test_value_maps_sort_by_value(void **state)
{
	static const int64_t a3[] = { 7, 8 }, am1[] = { 100 };
	struct gs_agg_desc d = { .name = "@a", .fn = GS_AGG_AVG, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_INT } };
	struct gs_agg_entry e[2] = { 0 };
	struct gs_agg_table t = { &d, e, 2 };
	struct gs_agg_desc c = { .name = "@c", .fn = GS_AGG_COUNT, .nkeys = 2,
				 .key_kind = { GS_AGG_KEY_STRING, GS_AGG_KEY_UINT },
				 .key_off = { 0, GS_AGG_STRING_MAX } };
	struct gs_agg_entry ce[2] = { 0 };
	struct gs_agg_table ct = { &c, ce, 2 };
	static const int64_t one[] = { 1 }, three[] = { 1, 1, 1 };
	char *got;

	(void)state;
	agg_put_int(&e[0], &d, 0, -1);
	agg_sample(&e[0], &d, am1, 1);
	agg_put_int(&e[1], &d, 0, 3);
	agg_sample(&e[1], &d, a3, 2);
	got = render(&t, false);
	assert_string_equal(got, "@a[3]: 7\n@a[-1]: 100\n\n");
	free(got);

	memcpy(ce[0].keys, "main\tx", 7);
	agg_put_int(&ce[0], &c, 1, 3);
	agg_sample(&ce[0], &c, three, 3);
	memcpy(ce[1].keys, "foo", 4);
	agg_put_int(&ce[1], &c, 1, 18446744073709551615ull);
	agg_sample(&ce[1], &c, one, 1);
	got = render(&ct, false);
	assert_string_equal(got, "@c[foo, 18446744073709551615]: 1\n@c[main\\x09x, 3]: 3\n\n");
	free(got);
}

static void test_stats_min_max_sum(void **state)
{
	static const int64_t s1[] = { 10, 21 }, s2[] = { 5 }, m[] = { 9, -4, 12 };
	struct gs_agg_desc d = { .name = "@s", .fn = GS_AGG_STATS, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_INT } };
	struct gs_agg_entry e[2] = { 0 };
	struct gs_agg_table t = { &d, e, 2 };
	struct gs_agg_desc one = { .name = "@m", .fn = GS_AGG_MIN };
	struct gs_agg_entry me = { 0 };
	struct gs_agg_table mt = { &one, &me, 1 };
	char *got;

	(void)state;
	agg_put_int(&e[0], &d, 0, 1);
	agg_sample(&e[0], &d, s1, 2);
	agg_put_int(&e[1], &d, 0, 2);
	agg_sample(&e[1], &d, s2, 1);
	got = render(&t, false);
	assert_string_equal(got, "@s[2]: count 1, average 5, total 5\n"
				 "@s[1]: count 2, average 15, total 31\n\n");
	free(got);
	agg_sample(&me, &one, m, 3);
	got = render(&mt, false);
	assert_string_equal(got, "@m: -4\n\n");
	free(got);
	one.fn = GS_AGG_MAX;
	got = render(&mt, false);
	assert_string_equal(got, "@m: 12\n\n");
	free(got);
	one.fn = GS_AGG_SUM;
	got = render(&mt, false);
	assert_string_equal(got, "@m: 17\n\n");
	free(got);
}

/* Keyed histograms: ordered by their total, each with its header. */
static void test_keyed_hists_sort_by_total(void **state)
{
	static const int64_t big[] = { 1, 1, 1 }, small[] = { 2 };
	struct gs_agg_desc d = { .name = "@h", .fn = GS_AGG_HIST, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_BOOL } };
	struct gs_agg_entry e[2] = { 0 };
	struct gs_agg_table t = { &d, e, 2 };
	char *got;

	(void)state;
	agg_put_int(&e[0], &d, 0, 1);
	agg_sample(&e[0], &d, big, 3);
	agg_put_int(&e[1], &d, 0, 0);
	agg_sample(&e[1], &d, small, 1);
	got = render(&t, false);
	assert_string_equal(got, "@h[false]: \n[2, 4)                 1 |" BAR "|\n\n"
				 "@h[true]: \n[1]                    3 |" BAR "|\n\n");
	free(got);
	free(e[0].buckets);
	free(e[1].buckets);
}

/* An enum key by its enumerator's name; a value none names as a number. */
static void test_enum_keys_by_name(void **state)
{
	static const struct gs_type_enumerator colors[] = { { "RED", 0 }, { "GREEN", 7 } };
	static const struct gs_type t_color = { .kind = GS_TYPE_ENUM, .size = 4,
						.name = "enum color", .byte_size = 4,
						.enumerators = colors, .nenumerators = 2 };
	static const int64_t one[] = { 1 }, two[] = { 1, 1 }, three[] = { 1, 1, 1 };
	struct gs_agg_desc d = { .name = "@c", .fn = GS_AGG_COUNT, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_UINT }, .key_enum = { &t_color } };
	struct gs_agg_entry e[3] = { 0 };
	struct gs_agg_table t = { &d, e, 3 };
	char *got;

	(void)state;
	agg_put_int(&e[0], &d, 0, 7);
	agg_sample(&e[0], &d, two, 2);
	agg_put_int(&e[1], &d, 0, 0);
	agg_sample(&e[1], &d, one, 1);
	agg_put_int(&e[2], &d, 0, 5);
	agg_sample(&e[2], &d, three, 3);
	got = render(&t, false);
	assert_string_equal(got, "@c[RED]: 1\n@c[GREEN]: 2\n@c[5]: 3\n\n");
	free(got);
	got = render(&t, true);
	assert_string_equal(got, "{\"type\":\"aggregation\",\"name\":\"@c\",\"function\":\"count\","
			    "\"entries\":[{\"keys\":[\"RED\"],\"value\":1},{\"keys\":[\"GREEN\"],"
			    "\"value\":2},{\"keys\":[5],\"value\":3}]}\n");
	free(got);
}

static void test_json_shape(void **state)
{
	static const int64_t v[] = { 0, 5, 5 }, w[] = { 3 };
	struct gs_agg_desc d = { .name = "@h", .fn = GS_AGG_HIST, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_STRING } };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	struct gs_agg_desc l = { .name = "@l", .fn = GS_AGG_LHIST, .lmin = 0, .lmax = 10,
				 .lstep = 5 };
	struct gs_agg_entry le = { 0 };
	struct gs_agg_table lt = { &l, &le, 1 };
	struct gs_agg_desc s = { .name = "@s", .fn = GS_AGG_STATS };
	struct gs_agg_entry se = { 0 };
	struct gs_agg_table st = { &s, &se, 1 };
	char *got;

	(void)state;
	memcpy(e.keys, "a\"b", 4);
	agg_sample(&e, &d, v, 3);
	got = render(&t, true);
	assert_string_equal(got, "{\"type\":\"aggregation\",\"name\":\"@h\",\"function\":\"hist\","
			    "\"entries\":[{\"keys\":[\"a\\\"b\"],\"buckets\":["
			    "{\"low\":0,\"high\":1,\"count\":1},{\"low\":4,\"high\":8,\"count\":2}]}]}\n");
	free(got);
	agg_sample(&le, &l, w, 1);
	got = render(&lt, true);
	assert_string_equal(got, "{\"type\":\"aggregation\",\"name\":\"@l\",\"function\":\"lhist\","
			    "\"entries\":[{\"keys\":[],\"buckets\":["
			    "{\"low\":0,\"high\":5,\"count\":1}]}]}\n");
	free(got);
	agg_sample(&se, &s, w, 1);
	got = render(&st, true);
	assert_string_equal(got, "{\"type\":\"aggregation\",\"name\":\"@s\",\"function\":\"stats\","
			    "\"entries\":[{\"keys\":[],\"count\":1,\"average\":3,\"total\":3}]}\n");
	free(got);
	free(e.buckets);
	free(le.buckets);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_prints_power_of_two_buckets),
		cmocka_unit_test(test_hist_bars_scale_to_the_fullest_bucket),
		cmocka_unit_test(test_lhist_prints_linear_buckets_with_under_and_over),
		cmocka_unit_test(test_lhist_labels_use_k_and_m_when_exact),
		cmocka_unit_test(test_value_maps_sort_by_value),
		cmocka_unit_test(test_stats_min_max_sum),
		cmocka_unit_test(test_keyed_hists_sort_by_total),
		cmocka_unit_test(test_enum_keys_by_name),
		cmocka_unit_test(test_json_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
