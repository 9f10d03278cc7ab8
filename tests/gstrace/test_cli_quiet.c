/* --quiet with the real binary and the kernel: a script's events, its
 * @aggregations at exit and --profile's table print on stdout without it
 * and nothing with it, the run otherwise the same (exit 0, nothing on
 * stderr). Skips, saying why, where BPF programs cannot be loaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_gstrace.h"

/* gstrace with args, the fixture launched after `--`; the run must exit 0
 * (what names the run in the failure). */
static void run_on_fixture(const char *what, const char **args, struct ran *r)
{
	const char *dir = getenv("GS_CLI_FIXTURES");
	char fixture[4096], *argv[32];
	int n = 0;

	assert_non_null(dir);
	snprintf(fixture, sizeof(fixture), "%s/quiet_fixture", dir);
	argv[n++] = NULL; /* the binary, set by run_gstrace() */
	for (const char **a = args; *a; a++)
		argv[n++] = (char *)*a;
	argv[n++] = "--";
	argv[n++] = fixture;
	argv[n] = NULL;
	run_gstrace(argv, r);
	if (r->status != 0)
		fail_msg("%s: status %d, stderr '%s'", what, r->status, r->err);
}

/* args (with --quiet): exit 0 and nothing on stdout or stderr. */
static void assert_quiet_run(const char **args)
{
	struct ran r = { 0 };

	run_on_fixture("with --quiet", args, &r);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "");
	ran_free(&r);
}

static void test_quiet_drops_a_scripts_events_and_aggregations(void **state)
{
	const char *loud[] = { "-s", "trace tick { print \"tick {}\", i; @calls = count(); }",
			       NULL };
	const char *quiet[] = { "--quiet", "-s",
				"trace tick { print \"tick {}\", i; @calls = count(); }", NULL };
	struct ran r = { 0 };

	(void)state;
	run_on_fixture("without --quiet", loud, &r);
	assert_non_null(strstr(r.out, "tick 0"));
	assert_non_null(strstr(r.out, "tick 4"));
	assert_non_null(strstr(r.out, "@calls: 5"));
	ran_free(&r);
	assert_quiet_run(quiet);
}

static void test_quiet_drops_the_profiles_table(void **state)
{
	const char *loud[] = { "--profile", "999", NULL };
	const char *quiet[] = { "--profile", "999", "--quiet", NULL };
	struct ran r = { 0 };

	(void)state;
	run_on_fixture("without --quiet", loud, &r);
	assert_non_null(strstr(r.out, "events, "));
	assert_non_null(strstr(r.out, "main"));
	ran_free(&r);
	assert_quiet_run(quiet);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_drops_a_scripts_events_and_aggregations),
		cmocka_unit_test(test_quiet_drops_the_profiles_table),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "cli-quiet: skipped: not root: loading BPF programs and "
			"attaching uprobes needs root (or CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN)\n");
		return 77; /* meson: skipped */
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
