/* The gstrace binary without the kernel: --dry-run and --dump-insns on the
 * output fixture (resolve and build, nothing loaded, no privileges needed),
 * and the target checks that run before anything is loaded: an unknown
 * function and a bt where no CFI covers the probe exit 2 with the trace's
 * position in the script, its source line and a caret under the target. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base.h"
#include "run_gstrace.h"

static char *fixture(const char *name)
{
	static char path[2][512];
	static int k;
	const char *dir = getenv("GS_CLI_FIXTURES");

	assert_non_null(dir);
	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

static void test_dry_run_summarizes_without_loading(void **state)
{
	char *argv[] = { NULL, "--dry-run", "-t", fixture("libgs_out_fixture.so"), "-s",
			 "trace out_leaf { print \"v={}\", rdi; bt; }", "--backtrace-depth", "7",
			 "--unwinder", "tailcall", NULL };
	struct ran r = { 0 };

	(void)state;
	run_gstrace(argv, &r);
	if (r.status != 0)
		fail_msg("status %d, stderr: %s", r.status, r.err);
	assert_non_null(strstr(r.out, "trace #0 out_leaf: "));
	assert_non_null(strstr(r.out, "libgs_out_fixture.so 0x"));
	assert_non_null(strstr(r.out, "  program gs_trace0: "));
	assert_non_null(strstr(r.out, "  step program gs_trace0_bt: "));
	assert_non_null(strstr(r.out, "  backtrace: depth 7, "));
	assert_non_null(strstr(r.out, "probe row usable"));
	assert_non_null(strstr(r.out, "dry run: 1 trace, 1 probe built; nothing loaded\n"));
	assert_string_equal(r.err, "");
	ran_free(&r);
}

static void test_dump_insns_prints_main_then_step_program(void **state)
{
	char *argv[] = { NULL, "--dump-insns", "-t", fixture("libgs_out_fixture.so"), "-s",
			 "trace out_leaf { bt; } trace out_mid { print \"mid\"; }", "--unwinder",
			 "tailcall", NULL };
	struct ran r = { 0 };
	const char *step, *second;

	(void)state;
	run_gstrace(argv, &r);
	if (r.status != 0)
		fail_msg("status %d, stderr: %s", r.status, r.err);
	assert_true(base_has_prefix(r.out, "; trace #0 out_leaf at "));
	/* the golden-file format: `%5zu: (op) text` lines, labels, notes */
	assert_non_null(strstr(r.out, "\n    0: (bf) r6 = r1"));
	step = strstr(r.out, "\n; step program gs_trace0_bt\n");
	second = strstr(r.out, "\n; trace #1 out_mid at ");
	assert_non_null(step);
	assert_non_null(second);
	assert_true(step < second);
	assert_null(strstr(second, "; step program"));
	ran_free(&r);
}

/* $duration: the return probe's program has an entry program beside it,
 * in the summary and in the listing; aggregations share their maps. */
static void test_duration_adds_an_entry_program(void **state)
{
	char *argv[] = { NULL, "--dry-run", "-t", fixture("libgs_out_fixture.so"), "-s",
			 "trace out_leaf return { @lat[$tid] = hist($duration); }", "--max-keys",
			 "100", NULL };
	char *dump[] = { NULL, "--dump-insns", "-t", fixture("libgs_out_fixture.so"), "-s",
			 "trace out_leaf return { @lat = avg($duration); }", NULL };
	struct ran r = { 0 };

	(void)state;
	run_gstrace(argv, &r);
	if (r.status != 0)
		fail_msg("status %d, stderr: %s", r.status, r.err);
	assert_non_null(strstr(r.out, "  entry program gs_trace0_entry ($duration, at the "
			       "function's entry): "));
	assert_non_null(strstr(r.out, "gs_aggs[100], gs_agg_drops[1], gs_entry_times[16384]"));
	run_gstrace(dump, &r);
	if (r.status != 0)
		fail_msg("status %d, stderr: %s", r.status, r.err);
	assert_non_null(strstr(r.out, "\n; entry program gs_trace0_entry\n"));
	assert_non_null(strstr(r.out, "bpf_map_update_elem"));
	ran_free(&r);
}

/* One @name in two traces is one table: keyed alike, or refused at the
 * second trace (exit 2). */
static void test_aggregation_keys_agree_across_traces(void **state)
{
	char *argv[] = { NULL, "--dry-run", "-t", fixture("libgs_out_fixture.so"), "-s",
			 "trace out_leaf { @n[1] = count(); }\ntrace out_mid { @n[\"x\"] = count(); }",
			 NULL };
	char *same[] = { NULL, "--dry-run", "-t", fixture("libgs_out_fixture.so"), "-s",
			 "trace out_leaf { @n[1] = count(); }\ntrace out_mid { @n[2] = count(); }",
			 NULL };
	struct ran r = { 0 };

	(void)state;
	run_gstrace(argv, &r);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "script:2:7: @n is keyed by other types here than in trace "
			    "#0 (out_leaf): keep each key's type\n"
			    " 2 | trace out_mid { @n[\"x\"] = count(); }\n"
			    "   |       ^\n");
	run_gstrace(same, &r);
	assert_int_equal(r.status, 0);
	ran_free(&r);
}

static void test_unknown_function_points_at_the_trace(void **state)
{
	char *argv[] = { NULL, "--dry-run", "-t", fixture("libgs_out_fixture.so"), "-s",
			 "trace out_leaf { bt; }\ntrace no_such_fn { bt; }", NULL };
	struct ran r = { 0 };

	(void)state;
	run_gstrace(argv, &r);
	assert_int_equal(r.status, 2);
	/* the trace's position, then its line and a caret under the target */
	assert_true(base_has_prefix(r.err, "script:2:7: unknown function `no_such_fn`"));
	assert_non_null(strstr(r.err, "\n 2 | trace no_such_fn { bt; }\n   |       ^\n"));
	assert_string_equal(r.out, "");
	ran_free(&r);
}

static void test_bt_without_cfi_is_refused_before_loading(void **state)
{
	char *argv[] = { NULL, "--dry-run", "-t", fixture("libgs_out_fixture_nocfi.so"), "-s",
			 "trace out_leaf { bt; }", NULL };
	char *print_only[] = { NULL, "--dry-run", "-t", fixture("libgs_out_fixture_nocfi.so"),
			       "-s", "trace out_leaf { print \"x\"; }", NULL };
	struct ran r = { 0 };

	(void)state;
	run_gstrace(argv, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "script:1:7: no CFI (.eh_frame or .debug_frame) covers 0x"));
	assert_non_null(strstr(r.err, "bt cannot unwind"));
	/* without a bt the same target is fine */
	run_gstrace(print_only, &r);
	assert_int_equal(r.status, 0);
	ran_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dry_run_summarizes_without_loading),
		cmocka_unit_test(test_dump_insns_prints_main_then_step_program),
		cmocka_unit_test(test_unknown_function_points_at_the_trace),
		cmocka_unit_test(test_duration_adds_an_entry_program),
		cmocka_unit_test(test_aggregation_keys_agree_across_traces),
		cmocka_unit_test(test_bt_without_cfi_is_refused_before_loading),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
