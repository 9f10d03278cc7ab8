/* The gstrace binary without the kernel: --dry-run and --dump-insns on the
 * output fixture (resolve and build, nothing loaded, no privileges needed),
 * and the target checks that run before anything is loaded: an unknown
 * function and a bt where no CFI covers the probe exit 2 with the trace's
 * position in the script, its source line and a caret under the target. */
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base.h"

extern char **environ;

struct ran {
	int status;
	char *out, *err;
};

static char *read_all(int fd)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t got;

	assert_non_null(buf);
	while ((got = read(fd, buf + n, cap - 1 - n)) > 0) {
		n += (size_t)got;
		if (cap - 1 - n == 0) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[n] = '\0';
	return buf;
}

/* Runs gstrace with argv (NULL-terminated, argv[0] ignored). stderr is read
 * after stdout: the cases here write little to stderr. */
static void run(char **argv, struct ran *r)
{
	const char *bin = getenv("GSTRACE_BIN");
	posix_spawn_file_actions_t fa;
	int out[2], err[2], st;
	pid_t pid;

	assert_non_null(bin);
	argv[0] = (char *)bin;
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(err), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	posix_spawn_file_actions_addclose(&fa, err[0]);
	assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	r->out = read_all(out[0]);
	r->err = read_all(err[0]);
	close(out[0]);
	close(err[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void ran_free(struct ran *r)
{
	free(r->out);
	free(r->err);
}

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
	struct ran r;

	(void)state;
	run(argv, &r);
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
	struct ran r;
	const char *step, *second;

	(void)state;
	run(argv, &r);
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
	struct ran r;

	(void)state;
	run(argv, &r);
	if (r.status != 0)
		fail_msg("status %d, stderr: %s", r.status, r.err);
	assert_non_null(strstr(r.out, "  entry program gs_trace0_entry ($duration, at the "
			       "function's entry): "));
	assert_non_null(strstr(r.out, "gs_aggs[100], gs_agg_drops[1], gs_entry_times[16384]"));
	ran_free(&r);
	run(dump, &r);
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
	struct ran r;

	(void)state;
	run(argv, &r);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "script:2:7: @n is keyed by other types here than in trace "
			    "#0 (out_leaf): keep each key's type\n"
			    " 2 | trace out_mid { @n[\"x\"] = count(); }\n"
			    "   |       ^\n");
	ran_free(&r);
	run(same, &r);
	assert_int_equal(r.status, 0);
	ran_free(&r);
}

static void test_unknown_function_points_at_the_trace(void **state)
{
	char *argv[] = { NULL, "--dry-run", "-t", fixture("libgs_out_fixture.so"), "-s",
			 "trace out_leaf { bt; }\ntrace no_such_fn { bt; }", NULL };
	struct ran r;

	(void)state;
	run(argv, &r);
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
	struct ran r;

	(void)state;
	run(argv, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "script:1:7: no CFI (.eh_frame or .debug_frame) covers 0x"));
	assert_non_null(strstr(r.err, "bt cannot unwind"));
	ran_free(&r);
	/* without a bt the same target is fine */
	run(print_only, &r);
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
