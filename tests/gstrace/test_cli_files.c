/* The descriptors and files of the command itself: what a launched
 * command inherits (nothing past stderr, whichever way the kernel lets us
 * mark them), and the files it writes (never through a symbolic link, nor
 * into another user's file in a sticky directory, nor truncated first). */
#define _GNU_SOURCE /* posix_openpt, ptsname */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch.h"
#include "outfile.h"

#define NOBODY 65534

static bool cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags >= 0 && (flags & FD_CLOEXEC);
}

/* In a child (the flags are the test process's otherwise): descriptors
 * opened without O_CLOEXEC, one far up, marked; 0-2 left as they are. */
static void sweep_marks_every_descriptor_past_stderr(bool try_close_range)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		int a = open("/dev/null", O_RDONLY), b = dup(a), far = dup2(a, 900);
		bool ok = a > 2 && b > 2 && far == 900 && !cloexec(a) && !cloexec(far);

		cli_fds_cloexec(try_close_range);
		ok = ok && cloexec(a) && cloexec(b) && cloexec(far);
		for (int fd = 0; fd < 3; fd++)
			ok = ok && !cloexec(fd);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_launch_sweep_with_close_range(void **state)
{
	(void)state;
	sweep_marks_every_descriptor_past_stderr(true);
}

/* the path of kernels before 5.11: /proc/self/fd read with getdents64 */
static void test_launch_sweep_without_close_range(void **state)
{
	(void)state;
	sweep_marks_every_descriptor_past_stderr(false);
}

/* ---- files written ----------------------------------------------------- */

struct dirs {
	char own[64];    /* 0700, ours */
	char sticky[80]; /* own/tmp: 1777, as /tmp */
	char path[160];
};

static int dirs_setup(void **state)
{
	struct dirs *d = calloc(1, sizeof(*d));

	snprintf(d->own, sizeof(d->own), "/tmp/gs-cli-files-XXXXXX");
	if (!mkdtemp(d->own))
		return -1;
	snprintf(d->sticky, sizeof(d->sticky), "%s/tmp", d->own);
	if (mkdir(d->sticky, 0700) || chmod(d->sticky, 01777))
		return -1;
	*state = d;
	return 0;
}

static int dirs_teardown(void **state)
{
	struct dirs *d = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->own);
	free(d);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *at(struct dirs *d, const char *dir, const char *name)
{
	snprintf(d->path, sizeof(d->path), "%s/%s", dir, name);
	return d->path;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void expect_text(const char *path, const char *want)
{
	char buf[256] = "";
	FILE *f = fopen(path, "re");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, want);
}

/* Refused with a message holding each needle; *out stays NULL. */
static void expect_refused(const char *flag, const char *path, const char *n1, const char *n2)
{
	char msg[1024] = "";
	FILE *f = (FILE *)1;

	assert_true(cli_open_write(flag, path, &f, msg, sizeof(msg)) < 0);
	assert_null(f);
	if (!strstr(msg, n1) || (n2 && !strstr(msg, n2)))
		fail_msg("message '%s' lacks '%s'%s%s", msg, n1, n2 ? " or " : "", n2 ? n2 : "");
}

static void test_write_refuses_a_symlink_and_leaves_its_target(void **state)
{
	struct dirs *d = *state;
	char target[160], link[160];

	snprintf(target, sizeof(target), "%s", at(d, d->own, "secret"));
	write_text(target, "root's\n");
	chmod(target, 0600);
	/* planted in the sticky directory, or anywhere else */
	snprintf(link, sizeof(link), "%s", at(d, d->sticky, "out.txt"));
	assert_int_equal(symlink(target, link), 0);
	expect_refused("-o", link, "-o ", "is a symbolic link (to ");
	expect_refused("--flamegraph", link, "--flamegraph ", "give the real path");
	snprintf(link, sizeof(link), "%s", at(d, d->own, "link.svg"));
	assert_int_equal(symlink(target, link), 0);
	expect_refused("--flamegraph", link, "is a symbolic link", NULL);
	expect_text(target, "root's\n");
}

/* A dangling link would create its target: refused, nothing created. */
static void test_write_refuses_a_dangling_symlink(void **state)
{
	struct dirs *d = *state;
	char target[160];
	struct stat st;

	snprintf(target, sizeof(target), "%s", at(d, d->own, "created-through-link"));
	assert_int_equal(symlink(target, at(d, d->sticky, "dangling")), 0);
	expect_refused("-o", d->path, "is a symbolic link", NULL);
	assert_int_equal(lstat(target, &st), -1);
}

/* Files of another user need chown: root only (skipped otherwise). */
#define NEED_ROOT()                 \
	do {                        \
		if (geteuid() != 0) \
			skip();     \
	} while (0)

static void test_write_refuses_another_users_file_in_a_sticky_dir(void **state)
{
	struct dirs *d = *state;

	NEED_ROOT();
	write_text(at(d, d->sticky, "theirs"), "nobody's\n");
	assert_int_equal(chown(d->path, NOBODY, NOBODY), 0);
	expect_refused("-o", d->path, "belongs to uid 65534", "sticky directory");
	expect_text(d->path, "nobody's\n"); /* not truncated */
	/* a FIFO of theirs too, before an open that would wait for a reader */
	assert_int_equal(mkfifo(at(d, d->sticky, "fifo"), 0666), 0);
	assert_int_equal(chown(d->path, NOBODY, NOBODY), 0);
	expect_refused("-o", d->path, "belongs to uid 65534", NULL);
}

/* Outside a sticky directory the owner alone could have put it there. */
static void test_write_takes_another_users_file_in_a_plain_dir(void **state)
{
	struct dirs *d = *state;
	char msg[256];
	FILE *f;

	NEED_ROOT();
	write_text(at(d, d->own, "given"), "old\n");
	assert_int_equal(chown(d->path, NOBODY, NOBODY), 0);
	assert_int_equal(cli_open_write("-o", d->path, &f, msg, sizeof(msg)), 0);
	fclose(f);
	expect_text(d->path, "");
}

static void test_write_refuses_a_hard_link_in_a_sticky_dir(void **state)
{
	struct dirs *d = *state;
	char target[160];

	snprintf(target, sizeof(target), "%s", at(d, d->own, "linked"));
	write_text(target, "kept\n");
	assert_int_equal(link(target, at(d, d->sticky, "hard")), 0);
	expect_refused("-o", d->path, "has 2 hard links", NULL);
	expect_text(target, "kept\n");
}

/* An own file is emptied once it passed; a new one is created; both are
 * close-on-exec. */
static void test_write_own_files(void **state)
{
	struct dirs *d = *state;
	const char *dirs[] = { d->own, d->sticky };
	char msg[256];
	FILE *f;

	for (size_t i = 0; i < 2; i++) {
		write_text(at(d, dirs[i], "mine"), "previous run\n");
		assert_int_equal(cli_open_write("-o", d->path, &f, msg, sizeof(msg)), 0);
		assert_true(cloexec(fileno(f)));
		fputs("new\n", f);
		assert_int_equal(fclose(f), 0);
		expect_text(d->path, "new\n");
		assert_int_equal(cli_open_write("-o", at(d, dirs[i], "fresh"), &f, msg,
						sizeof(msg)), 0);
		assert_true(cloexec(fileno(f)));
		fclose(f);
		expect_text(d->path, "");
	}
}

static void test_write_names_the_flag_and_the_fix(void **state)
{
	struct dirs *d = *state;

	(void)d;
	expect_refused("-o", "/nonexistent-dir-gs/x", "-o /nonexistent-dir-gs/x: directory "
		       "/nonexistent-dir-gs", "check the directory");
	expect_refused("-o", "/tmp/", "names a directory", NULL);
	expect_refused("-o", "/proc/version", "does not store what is written", NULL);
}

/* A profile is binary: a terminal is refused for it (a pty here), a
 * regular file taken. */
static void test_binary_output_refuses_a_terminal(void **state)
{
	char msg[512], path[] = "/tmp/gs_cli_bin_XXXXXX";
	int m = posix_openpt(O_RDWR | O_NOCTTY), fd;
	const char *tty;
	FILE *f = NULL;

	(void)state;
	if (m < 0 || grantpt(m) || unlockpt(m) || !(tty = ptsname(m)))
		skip(); /* no pseudo-terminals in this container */
	assert_int_equal(cli_open_binary("--pprof", tty, &f, msg, sizeof(msg)), -EINVAL);
	assert_null(f);
	assert_non_null(strstr(msg, "--pprof"));
	assert_non_null(strstr(msg, "is a terminal"));
	assert_non_null(strstr(msg, "give a file"));
	close(m);
	assert_true((fd = mkstemp(path)) >= 0);
	close(fd);
	assert_int_equal(cli_open_binary("--pprof", path, &f, msg, sizeof(msg)), 0);
	assert_non_null(f);
	fclose(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_sweep_with_close_range),
		cmocka_unit_test(test_binary_output_refuses_a_terminal),
		cmocka_unit_test(test_launch_sweep_without_close_range),
		cmocka_unit_test_setup_teardown(test_write_refuses_a_symlink_and_leaves_its_target,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_write_refuses_a_dangling_symlink, dirs_setup,
						dirs_teardown),
		cmocka_unit_test_setup_teardown(test_write_refuses_another_users_file_in_a_sticky_dir,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_write_takes_another_users_file_in_a_plain_dir,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_write_refuses_a_hard_link_in_a_sticky_dir,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_write_own_files, dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_write_names_the_flag_and_the_fix, dirs_setup,
						dirs_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
