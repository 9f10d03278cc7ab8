/* The values differential test's comparison on texts gdb and gstrace give
 * for the same values: what each shows that the other does not is left
 * out, and nothing else; different values stay different. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base.h"
#include "values_canon.h"

struct pair {
	const char *gdb, *ours, *where;
	enum vc_kind want;
};

static void test_same_values_printed_two_ways_match(void **state)
{
	static const struct pair cases[] = {
		{ "42", "42", "", VC_MATCH },
		{ "{x = 1, y = -2}", "{x = 1, y = -2}", "", VC_MATCH },
		{ "(record_t *) 0x7ffd1234", "0x7ffd1234", "", VC_MATCH },
		{ "0x555555556004 \"hello\\tworld\"", "0x555555556004 \"hello\\tworld\"", "",
		  VC_MATCH },
		{ "0x555555556004 \"caf\\303\\251\"", "0x555555556004 \"caf\\xc3\\xa9\"", "",
		  VC_MATCH },
		{ "0x10 <error: Cannot access memory at address 0x10>",
		  "0x10 <error: Cannot access memory at address 0x10>", "", VC_MATCH },
		{ "(void (*)(const void *, long)) 0x401136 <vt_sink>", "0x401136", "", VC_MATCH },
		{ "{void (const void *, long)} 0x401136 <vt_sink>", "0x401136", "", VC_MATCH },
		{ "200 '\\310'", "200 '\\xc8'", "", VC_MATCH },
		{ "113 'q'", "113 'q'", "", VC_MATCH },
		{ "\"inner\"", "\"inner\"", "", VC_MATCH },
		{ "\"caf\\303\\251\"", "\"caf\xc3\xa9\"", "", VC_MATCH },
		{ "\"a\\033[1m\"", "\"a\\x1b[1m\"", "", VC_MATCH },
		{ "0.100000001", "0.1", "", VC_MATCH },
		{ "{d = 2.5, f = 12.1414223}", "{d = 2.5, f = 12.141422}", "", VC_MATCH },
		{ "{tag = \"tag\", {lo = 7, hi = 7}, c = GREEN}",
		  "{tag = \"tag\", {lo = 7, hi = 7}, c = GREEN}", "", VC_MATCH },
		{ "<optimized out>", "<optimized out>", "optimized out here", VC_BOTH_OPTIMIZED },
		{ "{lo = 1, hi = <optimized out>}", "<optimized out>", "composite", VC_PARTIAL },
		{ "7", "<optimized out>", "optimized out (entry value)", VC_ENTRY_VALUE },
		{ "7", "<optimized out>", "unavailable (unsupported DWARF expression)",
		  VC_UNSUPPORTED },
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++)
		if (vc_classify(cases[i].gdb, cases[i].ours, cases[i].where) != cases[i].want)
			fail_msg("case %zu: gdb '%s', ours '%s': %s, want %s", i, cases[i].gdb,
				 cases[i].ours,
				 vc_label(vc_classify(cases[i].gdb, cases[i].ours, cases[i].where)),
				 vc_label(cases[i].want));
}

static void test_different_values_stay_different(void **state)
{
	static const struct pair cases[] = {
		{ "42", "43", "", VC_MISMATCH },
		{ "{x = 1, y = -2}", "{x = 1, y = 2}", "", VC_MISMATCH },
		{ "{x = 1, y = -2}", "{y = 1, x = -2}", "", VC_MISMATCH },
		{ "(int *) 0x7ffd1234", "0x7ffd1235", "", VC_MISMATCH },
		{ "0x555555556004 \"hello\"", "0x555555556004", "", VC_MISMATCH },
		{ "0x555555556004 \"hello\"", "0x555555556004 \"hellx\"", "", VC_MISMATCH },
		{ "200 '\\310'", "201 '\\xc9'", "", VC_MISMATCH },
		{ "\"inner\"", "\"innex\"", "", VC_MISMATCH },
		{ "2.5", "2.6", "", VC_MISMATCH },
		{ "GREEN", "5", "", VC_MISMATCH },
		{ "7", "<optimized out>", "register rdi", VC_GDB_ONLY },
		{ "7", NULL, "register rdi", VC_GDB_ONLY },
		{ NULL, "7", "register rdi", VC_OURS_ONLY },
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++)
		if (vc_classify(cases[i].gdb, cases[i].ours, cases[i].where) != cases[i].want)
			fail_msg("case %zu: gdb '%s', ours '%s': %s, want %s", i,
				 cases[i].gdb ? cases[i].gdb : "(none)",
				 cases[i].ours ? cases[i].ours : "(none)",
				 vc_label(vc_classify(cases[i].gdb, cases[i].ours, cases[i].where)),
				 vc_label(cases[i].want));
	assert_true(vc_failure(VC_MISMATCH));
	/* gdb has a value and gstrace not: a failure whatever the reason,
	 * unless the test lists it */
	assert_true(vc_failure(VC_ENTRY_VALUE));
	assert_true(vc_failure(VC_PARTIAL));
	assert_true(vc_failure(VC_UNSUPPORTED));
	assert_false(vc_failure(VC_KNOWN));
	assert_false(vc_failure(VC_BOTH_OPTIMIZED));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_values_printed_two_ways_match),
		cmocka_unit_test(test_different_values_stay_different),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
