/* Fuzzy path matching: what matches, and which paths rank first for the
 * queries people type into the file picker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base.h"
#include "fuzzy.h"

static void test_subsequence_case_insensitive(void **state)
{
	(void)state;
	assert_true(tui_fuzzy_score("mc", "src/main.c") >= 0);
	assert_true(tui_fuzzy_score("MAIN", "src/main.c") >= 0);
	assert_true(tui_fuzzy_score("smc", "src/main.c") >= 0);
	assert_true(tui_fuzzy_score("cm", "src/main.c") >= 0); /* the c of src */
	assert_true(tui_fuzzy_score("xyz", "src/main.c") < 0);
	assert_true(tui_fuzzy_score("mainc.", "src/main.c") < 0); /* order matters */
	assert_true(tui_fuzzy_score("main.cc", "main.c") < 0);
	assert_int_equal(tui_fuzzy_score("", "anything"), 0);
}

/* query: the path expected first, then the one expected behind it. */
static void test_preferences(void **state)
{
	static const struct {
		const char *query, *better, *worse;
	} cases[] = {
		{ "mc", "src/main.c", "src/mica/x.c" },            /* base name, word starts */
		{ "main", "src/main.c", "src/domain/x.c" },         /* a word start, basename */
		{ "main", "src/main.c", "src/m/a/i/n.c" },          /* contiguous */
		{ "rd", "src/read_dwarf.c", "src/reader.c" },       /* after '_' */
		{ "gs", "lib/getSize.c", "lib/gauss.c" },           /* a camel hump */
		{ "fb", "foo-bar.c", "fob.c" },                     /* after '-' */
		{ "util", "util.c", "src/deep/er/util.c" },         /* shorter */
		{ "plan", "src/runtime/plan.c", "src/planner/x/y.c" },
		{ "x.c", "tests/x.c", "tests/xyz_long_name.c" },
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		long b = tui_fuzzy_score(cases[i].query, cases[i].better);
		long w = tui_fuzzy_score(cases[i].query, cases[i].worse);

		if (b <= w)
			fail_msg("'%s': '%s' (%ld) should rank above '%s' (%ld)", cases[i].query,
				 cases[i].better, b, cases[i].worse, w);
	}
}

static void test_rank_orders_and_breaks_ties(void **state)
{
	static const char *const paths[] = {
		"src/mica/x.c", "docs/readme", "src/main.c", "b/main.c", "a/main.c",
	};
	size_t out[5];

	(void)state;
	assert_int_equal(tui_fuzzy_rank("mc", paths, 5, out, 5), 4);
	/* Equal scores and lengths: in the paths' order. */
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 4);
	assert_int_equal(out[2], 2);
	assert_int_equal(out[3], 0);
	assert_int_equal(tui_fuzzy_rank("mc", paths, 5, out, 2), 2);
	assert_int_equal(out[0], 3);
	/* An empty query: every path, the shorter first. */
	assert_int_equal(tui_fuzzy_rank("", paths, 5, out, 5), 5);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[4], 0);
	assert_int_equal(tui_fuzzy_rank("zzz", paths, 5, out, 5), 0);
	assert_int_equal(tui_fuzzy_rank("a", paths, 0, out, 5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subsequence_case_insensitive),
		cmocka_unit_test(test_preferences),
		cmocka_unit_test(test_rank_orders_and_breaks_ties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
