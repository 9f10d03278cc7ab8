/* Child processes of the e2e harness: start one with its stdout and stderr
 * on pipes, read both without blocking until a marker, its exit or a
 * deadline, and stop it at the deadline (SIGINT, then SIGKILL). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

void e2e_buf_add(struct e2e_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *ns;

		while (b->len + n + 1 > cap)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns)
			abort();
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void e2e_buf_printf(struct e2e_buf *b, const char *fmt, ...)
{
	char *t = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	e2e_buf_add(b, t, (size_t)n);
	free(t);
}

void e2e_buf_free(struct e2e_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

const char *e2e_buf_str(const struct e2e_buf *b)
{
	return b->s ? b->s : "";
}

double e2e_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int e2e_run_start(struct e2e_run *r, char *const argv[])
{
	int out[2], err[2];

	memset(r, 0, sizeof(*r));
	r->pid = -1;
	r->out_fd = r->err_fd = -1;
	for (size_t i = 0; argv[i]; i++) {
		bool quote = strpbrk(argv[i], " \t\n'\"{};$|&<>") != NULL;

		e2e_buf_printf(&r->cmdline, "%s%s%s%s", i ? " " : "", quote ? "'" : "", argv[i],
			       quote ? "'" : "");
	}
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	r->start = e2e_now();
	r->pid = fork();
	if (r->pid < 0)
		return -errno;
	if (r->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		/* A fresh process group: a ^C in the terminal running the
		 * tests reaches the harness, and the harness alone decides. */
		setpgid(0, 0);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	r->out_fd = out[0];
	r->err_fd = err[0];
	fcntl(r->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(r->err_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Drains whatever is readable within wait_ms; closes fds at EOF. */
static void pump(struct e2e_run *r, int wait_ms)
{
	struct pollfd p[2];
	int n = 0;

	if (r->out_fd >= 0)
		p[n++] = (struct pollfd){ .fd = r->out_fd, .events = POLLIN };
	if (r->err_fd >= 0)
		p[n++] = (struct pollfd){ .fd = r->err_fd, .events = POLLIN };
	if (n == 0) {
		if (wait_ms > 0)
			usleep((useconds_t)wait_ms * 1000);
		return;
	}
	if (poll(p, (nfds_t)n, wait_ms) <= 0)
		return;
	for (int i = 0; i < n; i++) {
		bool is_out = p[i].fd == r->out_fd;
		char chunk[65536];
		ssize_t got;

		if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		while ((got = read(p[i].fd, chunk, sizeof(chunk))) > 0)
			e2e_buf_add(is_out ? &r->out : &r->err, chunk, (size_t)got);
		if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
			close(p[i].fd);
			if (is_out)
				r->out_fd = -1;
			else
				r->err_fd = -1;
		}
	}
}

static void reap(struct e2e_run *r, bool block)
{
	int status;

	if (r->exited || r->pid <= 0)
		return;
	if (waitpid(r->pid, &status, block ? 0 : WNOHANG) == r->pid) {
		r->exited = true;
		r->status = status;
		r->secs = e2e_now() - r->start;
	}
}

bool e2e_run_wait_for(struct e2e_run *r, const char *needle, bool in_stdout, int timeout_ms)
{
	double deadline = e2e_now() + timeout_ms / 1000.0;

	for (;;) {
		const struct e2e_buf *b = in_stdout ? &r->out : &r->err;

		if (b->s && strstr(b->s, needle))
			return true;
		reap(r, false);
		if (r->exited && r->out_fd < 0 && r->err_fd < 0)
			return false;
		if (e2e_now() >= deadline)
			return false;
		pump(r, 20);
	}
}

bool e2e_run_finish(struct e2e_run *r, int timeout_ms)
{
	double deadline = e2e_now() + timeout_ms / 1000.0;
	int stage = 0;

	for (;;) {
		reap(r, false);
		if (r->exited && r->out_fd < 0 && r->err_fd < 0)
			break;
		if (r->exited) {
			/* A grandchild may hold the pipes: drain what is there. */
			pump(r, 50);
			if (e2e_now() >= deadline + 3)
				break;
			continue;
		}
		if (e2e_now() >= deadline && stage == 0) {
			kill(r->pid, SIGINT);
			r->killed = true;
			stage = 1;
		} else if (e2e_now() >= deadline + 3 && stage == 1) {
			kill(r->pid, SIGKILL);
			stage = 2;
		}
		pump(r, 20);
	}
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	r->out_fd = r->err_fd = -1;
	return !r->killed;
}

int e2e_run_exit_code(const struct e2e_run *r)
{
	if (!r->exited)
		return -1;
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	if (WIFSIGNALED(r->status))
		return 128 + WTERMSIG(r->status);
	return -1;
}

void e2e_run_free(struct e2e_run *r)
{
	if (r->pid > 0 && !r->exited) {
		kill(r->pid, SIGKILL);
		reap(r, true);
	}
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	e2e_buf_free(&r->out);
	e2e_buf_free(&r->err);
	e2e_buf_free(&r->cmdline);
	memset(r, 0, sizeof(*r));
	r->out_fd = r->err_fd = -1;
}
