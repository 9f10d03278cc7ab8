/* --quiet with the real binary and the kernel: a script's events, its
 * @aggregations at exit and --profile's table print on stdout without it
 * and nothing with it, the run otherwise the same (exit 0, nothing on
 * stderr). Skips, saying why, where BPF programs cannot be loaded. */
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

extern char **environ;

struct ran {
	int status;
	char out[8192], err[4096];
};

static void read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t got;

	while (n + 1 < size && (got = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)got;
	buf[n] = '\0';
}

/* gstrace with args (args[0] is replaced by the binary), the fixture
 * launched after `--`. Reads stderr after stdout: both fit their pipes. */
static void run_gstrace(const char **args, struct ran *r)
{
	const char *bin = getenv("GSTRACE_BIN"), *dir = getenv("GS_CLI_FIXTURES");
	char fixture[4096], *argv[32];
	posix_spawn_file_actions_t fa;
	int out[2], err[2], st, n = 0;
	pid_t pid;

	assert_non_null(bin);
	assert_non_null(dir);
	snprintf(fixture, sizeof(fixture), "%s/quiet_fixture", dir);
	argv[n++] = (char *)bin;
	for (const char **a = args; *a; a++)
		argv[n++] = (char *)*a;
	argv[n++] = "--";
	argv[n++] = fixture;
	argv[n] = NULL;
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
	read_all(out[0], r->out, sizeof(r->out));
	read_all(err[0], r->err, sizeof(r->err));
	close(out[0]);
	close(err[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_quiet_drops_a_scripts_events_and_aggregations(void **state)
{
	const char *loud[] = { NULL, "-s", "trace tick { print \"tick {}\", i; @calls = count(); }",
			       NULL };
	const char *quiet[] = { NULL, "--quiet", "-s",
				"trace tick { print \"tick {}\", i; @calls = count(); }", NULL };
	struct ran r;

	(void)state;
	run_gstrace(loud + 1, &r);
	if (r.status != 0)
		fail_msg("without --quiet: status %d, stderr '%s'", r.status, r.err);
	assert_non_null(strstr(r.out, "tick 0"));
	assert_non_null(strstr(r.out, "tick 4"));
	assert_non_null(strstr(r.out, "@calls: 5"));
	run_gstrace(quiet + 1, &r);
	if (r.status != 0)
		fail_msg("with --quiet: status %d, stderr '%s'", r.status, r.err);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "");
}

static void test_quiet_drops_the_profiles_table(void **state)
{
	const char *loud[] = { "--profile", "999", NULL };
	const char *quiet[] = { "--profile", "999", "--quiet", NULL };
	struct ran r;

	(void)state;
	run_gstrace(loud, &r);
	if (r.status != 0)
		fail_msg("without --quiet: status %d, stderr '%s'", r.status, r.err);
	assert_non_null(strstr(r.out, "events, "));
	assert_non_null(strstr(r.out, "main"));
	run_gstrace(quiet, &r);
	if (r.status != 0)
		fail_msg("with --quiet: status %d, stderr '%s'", r.status, r.err);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "");
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
