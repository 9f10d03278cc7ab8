/* Fixture processes of the e2e suite (started, driven by signals, stopped)
 * and the checks that say whether this machine can run the suite at all:
 * root, uprobes, gdb, the gstrace binary. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

const char *e2e_fixture_path(const char *name)
{
	static char paths[8][PATH_MAX];
	static unsigned next;
	const char *dir = getenv("GS_E2E_DIR");
	char *p = paths[next++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", dir ? dir : ".", name);
	return p;
}

const char *e2e_gstrace_path(void)
{
	const char *p = getenv("GS_E2E_GSTRACE");

	return p ? p : "gstrace";
}

int e2e_source_line(const char *file, const char *marker)
{
	const char *src = getenv("GS_SOURCE_DIR");
	char path[PATH_MAX], line[1024];
	int n = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/e2e/fixtures/%s", src ? src : ".", file);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker))
			found = n;
	}
	if (f)
		fclose(f);
	return found;
}

/* Reads the fixture's stdout until `line` is a whole line of it. */
bool e2e_fixture_wait_line(struct e2e_fixture *f, const char *line, int timeout_ms)
{
	double deadline = e2e_now() + timeout_ms / 1000.0;
	size_t ll = strlen(line);

	while (f->out_fd >= 0) {
		struct pollfd p = { .fd = f->out_fd, .events = POLLIN };
		char chunk[4096];
		ssize_t got;
		const char *s = e2e_buf_str(&f->out);

		for (const char *h = strstr(s, line); h; h = strstr(h + 1, line))
			if ((h == s || h[-1] == '\n') && h[ll] == '\n')
				return true;
		if (e2e_now() >= deadline)
			return false;
		if (poll(&p, 1, 20) <= 0)
			continue;
		got = read(f->out_fd, chunk, sizeof(chunk));
		if (got > 0) {
			e2e_buf_add(&f->out, chunk, (size_t)got);
		} else if (got == 0 || errno != EINTR) {
			close(f->out_fd);
			f->out_fd = -1;
		}
	}
	return false;
}

bool e2e_fixture_start(struct e2e_fixture *f, const char *name)
{
	const char *path = e2e_fixture_path(name);
	char want[64];
	int out[2];

	memset(f, 0, sizeof(*f));
	f->name = name;
	f->out_fd = -1;
	if (pipe2(out, O_CLOEXEC))
		return false;
	f->pid = fork();
	if (f->pid < 0)
		return false;
	if (f->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(out[1], 1);
		setpgid(0, 0);
		execl(path, path, (char *)NULL);
		fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(out[1]);
	f->out_fd = out[0];
	snprintf(want, sizeof(want), "ready %d", (int)f->pid);
	if (!e2e_fixture_wait_line(f, want, 5000)) {
		fprintf(stderr, "fixture %s did not get ready: %s\n", path, e2e_buf_str(&f->out));
		e2e_fixture_stop(f);
		return false;
	}
	return true;
}

bool e2e_fixture_running(const struct e2e_fixture *f)
{
	char path[64], buf[512], *close_paren;
	FILE *st;
	size_t n;

	if (f->pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)f->pid);
	st = fopen(path, "r");
	if (!st)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, st);
	fclose(st);
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')'. */
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && strchr("RSD", close_paren[2]);
}

int e2e_fixture_quit(struct e2e_fixture *f, int timeout_ms)
{
	double deadline = e2e_now() + timeout_ms / 1000.0;
	int status;

	if (f->pid <= 0)
		return -1;
	kill(f->pid, SIGUSR1);
	while (e2e_now() < deadline) {
		if (waitpid(f->pid, &status, WNOHANG) == f->pid) {
			f->pid = 0;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		usleep(5000);
	}
	return -1;
}

void e2e_fixture_stop(struct e2e_fixture *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
	}
	f->pid = 0;
	if (f->out_fd >= 0)
		close(f->out_fd);
	f->out_fd = -1;
	e2e_buf_free(&f->out);
}

/* ---- can this machine run the suite? ------------------------------------- */

const char *e2e_why_no_tracing(void)
{
	if (geteuid() != 0)
		return "not root: uprobes and bpf() need CAP_SYS_ADMIN/CAP_BPF+CAP_PERFMON";
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK) != 0 &&
	    access("/sys/kernel/tracing/uprobe_events", W_OK) != 0 &&
	    access("/sys/kernel/debug/tracing/uprobe_events", W_OK) != 0)
		return "no uprobes: neither the perf uprobe PMU nor tracefs uprobe_events";
	return NULL;
}

const char *e2e_why_no_gdb(void)
{
	int rc = system("gdb --version >/dev/null 2>&1");

	if (rc != 0)
		return "gdb is not installed (scripts/deps installs it): no ground truth";
	return NULL;
}

const char *e2e_why_no_gstrace(void)
{
	static char why[PATH_MAX + 64];
	const char *p = e2e_gstrace_path();

	if (access(p, X_OK) != 0) {
		snprintf(why, sizeof(why), "no gstrace binary at %s", p);
		return why;
	}
	return NULL;
}

int e2e_lock(const char *fixture, bool exclusive)
{
	char name[256];
	int fd;

	snprintf(name, sizeof(name), "%s.lock", fixture);
	fd = open(e2e_fixture_path(name), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	while (flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

void e2e_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* drops the flock */
}

char *e2e_uprobe_events(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/uprobe_events", "/sys/kernel/debug/tracing/uprobe_events",
	};
	struct e2e_buf b = { 0 };

	for (size_t i = 0; i < BASE_ARRAY_SIZE(paths) && !b.len; i++) {
		FILE *f = fopen(paths[i], "r");
		char line[1024];

		while (f && fgets(line, sizeof(line), f))
			e2e_buf_add(&b, line, strlen(line));
		if (f)
			fclose(f);
	}
	e2e_buf_add(&b, "", 0);
	return b.s;
}
