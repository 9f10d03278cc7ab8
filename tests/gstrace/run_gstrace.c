/* run_gstrace.h: posix_spawn with stdout and stderr on pipes, read whole
 * into growing buffers. */
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_gstrace.h"

extern char **environ;

static char *read_all(int fd)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t got;

	assert_non_null(buf);
	while ((got = read(fd, buf + n, cap - 1 - n)) > 0) {
		n += (size_t)got;
		if (n + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[n] = '\0';
	return buf;
}

void run_gstrace(char **argv, struct ran *r)
{
	const char *bin = getenv("GSTRACE_BIN");
	posix_spawn_file_actions_t fa;
	int out[2], err[2], st;
	pid_t pid;

	if (!bin)
		fail_msg("GSTRACE_BIN is not set (meson sets it)");
	ran_free(r);
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

void ran_free(struct ran *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}
