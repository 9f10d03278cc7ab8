/* The descriptors and files of the command itself: what a launched
 * command inherits (nothing past stderr, whichever way the kernel lets us
 * mark them). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_sweep_with_close_range),
		cmocka_unit_test(test_launch_sweep_without_close_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
