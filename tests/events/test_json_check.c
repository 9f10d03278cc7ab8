/* The strict JSON checker the printer's tests rely on (json_check.h):
 * it accepts JSON and refuses what is not, the printer's own mistakes
 * first (NaN, raw control characters, bytes that are not UTF-8), so a
 * test that finds every line valid has not passed for want of a check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base.h"
#include "json_check.h"

static void test_json_is_accepted(void **state)
{
	static const char *const good[] = {
		"0", "-0", "1.5", "-12e+3", "2E-7", "true", "false", "null", "\"\"",
		" [ ] ", "{}", "[1,[2,[3]],{\"a\":{}}]", "{\"k\":\"v\",\"k2\":[null,true]}\n",
		"\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ufffd \\ud83d\\ude00\"",
		"\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbd\"",
		"{\"trace_id\":1,\"items\":[{\"kind\":\"value\",\"value\":\"0x1000\"}]}\n",
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(good); i++) {
		size_t at = 0;
		const char *why = json_check(good[i], strlen(good[i]), &at);

		if (why)
			fail_msg("%s: refused at %zu: %s", good[i], at, why);
	}
}

static void test_what_is_not_json_is_refused_where_it_goes_wrong(void **state)
{
	static const struct {
		const char *text;
		size_t len; /* 0: strlen */
		size_t at;
	} bad[] = {
		{ "", 0, 0 },
		{ "NaN", 0, 0 },
		{ "-Infinity", 0, 1 },
		{ "01", 0, 1 },
		{ "1.", 0, 2 },
		{ "1e", 0, 2 },
		{ "+1", 0, 0 },
		{ "[1,]", 0, 3 },
		{ "[1 2]", 0, 3 },
		{ "{\"a\" 1}", 0, 5 },
		{ "{\"a\":1,}", 0, 7 },
		{ "{a:1}", 0, 1 },
		{ "[", 0, 1 },
		{ "\"open", 0, 5 },
		{ "\"tab\there\"", 0, 4 },
		{ "\"nl\nhere\"", 0, 3 },
		{ "\"\\x41\"", 0, 2 },
		{ "\"\\u12g4\"", 0, 5 },
		{ "\"\\udc00\"", 0, 7 },
		{ "\"\\ud800x\"", 0, 7 },
		{ "\"\xff\"", 0, 1 },
		{ "\"\xc0\xaf\"", 0, 1 },          /* overlong '/' */
		{ "\"\xed\xa0\x80\"", 0, 1 },      /* a surrogate in UTF-8 */
		{ "\"\xf4\x90\x80\x80\"", 0, 1 },  /* past U+10FFFF */
		{ "\"\xe2\x82\"", 0, 1 },          /* cut short */
		{ "\"a\0b\"", 5, 2 },
		{ "true false", 0, 5 },
		{ "nul", 0, 0 },
		{ "{}\n{}", 0, 3 },
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad); i++) {
		size_t n = bad[i].len ? bad[i].len : strlen(bad[i].text), at = (size_t)-1;
		const char *why = json_check(bad[i].text, n, &at);

		if (!why)
			fail_msg("case %zu (%s): accepted", i, bad[i].text);
		if (at != bad[i].at)
			fail_msg("case %zu (%s): %s at %zu, expected at %zu", i, bad[i].text, why,
				 at, bad[i].at);
	}
}

/* `depth` arrays one inside the other: "[[...]]". */
static size_t nested(char *buf, size_t depth)
{
	memset(buf, '[', depth);
	memset(buf + depth, ']', depth);
	return 2 * depth;
}

/* The printer nests at most 32 deep; the checker refuses past 512 rather
 * than run out of stack. */
static void test_nesting_is_bounded(void **state)
{
	char buf[2 * 600];

	(void)state;
	assert_null(json_check(buf, nested(buf, 512), NULL));
	assert_non_null(json_check(buf, nested(buf, 513), NULL));
	assert_non_null(json_check(buf, nested(buf, 600), NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_is_accepted),
		cmocka_unit_test(test_what_is_not_json_is_refused_where_it_goes_wrong),
		cmocka_unit_test(test_nesting_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
