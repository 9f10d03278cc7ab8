/* Scale: the time to build 1000 print traces (dry run, nothing loaded), and
 * the time 1000 attached probes take to detach, measured from SIGINT to
 * gstrace's exit (gstrace stops reading at once, then tears down). Targets:
 * build.ms.traces1000 <= 1000, teardown.ms.probes1000 <= 2000.
 * The teardown figure needs root. Each is the best of 5 runs (the machine
 * may be shared). Then 100,000 traces planned in a dry run (hardening
 * issue, item 11): time and peak RSS, targets build.ms.traces100k <= 10000
 * and rss.kb.traces100k <= 1000000 (1 GB), best of 3. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GS_BENCH_GSTRACE
#define GS_BENCH_GSTRACE "gstrace"
#endif
#ifndef GS_BENCH_FIXTURE
#define GS_BENCH_FIXTURE "tracer_bench_fixture"
#endif

#define TRACES 1000
#define TRACES_100K 100000
#define RUNS_100K 3
#define FILLERS 512 /* filler_000 .. filler_777 of the fixture */
#define RUNS 5 /* the best run is reported: the machine may be shared */
#define READY "GS_SCALE_READY"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A script of n traces, each `trace <f> { print "..."; }` on distinct
 * functions where the fixture has them (every filler, then again). */
static char *script(size_t n, bool same_function)
{
	size_t cap = n * 64 + 1, len = 0;
	char *s = malloc(cap);

	if (!s)
		exit(1);
	for (size_t i = 0; i < n; i++) {
		if (same_function)
			len += (size_t)snprintf(s + len, cap - len, "trace dummy_touch { print \"t%zu\"; }\n", i);
		else
			len += (size_t)snprintf(s + len, cap - len, "trace filler_%03zo { print \"t%zu\"; }\n",
						i % FILLERS, i);
	}
	return s;
}

/* Runs argv with stderr piped; returns the pid, *err_fd the pipe. */
static pid_t spawn(char *const argv[], int *err_fd)
{
	int ep[2];
	pid_t pid;

	if (pipe2(ep, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(ep[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(ep[1]);
	*err_fd = ep[0];
	return pid;
}

/* Reads stderr until `needle` shows up (true) or it closes (false). */
static bool wait_for(int fd, const char *needle, int timeout_ms, char *buf, size_t cap)
{
	size_t len = 0;
	double end = now_ms() + timeout_ms;

	buf[0] = '\0';
	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, buf + len, cap - 1 - len);
		if (n <= 0)
			return false;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, needle))
			return true;
		if (len > cap / 2) { /* keep the tail */
			memmove(buf, buf + len - cap / 4, cap / 4);
			len = cap / 4;
			buf[len] = '\0';
		}
	}
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void build_1000(void)
{
	char *s = script(TRACES, false);
	double t[RUNS];

	for (int i = 0; i < RUNS; i++) {
		char *argv[] = { GS_BENCH_GSTRACE, "-t", GS_BENCH_FIXTURE, "--dry-run", "-o",
				 "/dev/null", "-s", s, NULL };
		int err_fd, status;
		double t0 = now_ms();
		pid_t pid = spawn(argv, &err_fd);

		close(err_fd);
		waitpid(pid, &status, 0);
		t[i] = now_ms() - t0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# skipped: build.ms.traces1000: gstrace --dry-run failed (0x%x)\n",
			       status);
			free(s);
			return;
		}
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_double);
	printf("BENCH build.ms.traces1000 %.0f ms\n", t[0]);
	free(s);
}

static void teardown_1000(void)
{
	char *argv_fx[] = { GS_BENCH_FIXTURE, NULL };
	char pid_s[16], buf[8192], *s = script(TRACES, true);
	int fx_err, err_fd, status;
	pid_t fx, pid;
	double t[RUNS];

	if (geteuid() != 0) {
		printf("# skipped: teardown.ms.probes1000: not root (uprobes need it)\n");
		free(s);
		return;
	}
	fx = spawn(argv_fx, &fx_err);
	usleep(200000);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)fx);
	for (int i = 0; i < RUNS; i++) {
		char *argv[] = { GS_BENCH_GSTRACE, "-p", pid_s, "--max-probes", "1000", "-o",
				 "/dev/null", "--emit-ready-marker", READY, "-s", s, NULL };
		double t0;

		pid = spawn(argv, &err_fd);
		if (!wait_for(err_fd, READY, 120000, buf, sizeof(buf))) {
			printf("# skipped: teardown.ms.probes1000: gstrace did not attach: %s\n", buf);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto out;
		}
		t0 = now_ms();
		kill(pid, SIGINT);
		waitpid(pid, &status, 0);
		t[i] = now_ms() - t0;
		close(err_fd);
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_double);
	printf("BENCH teardown.ms.probes1000 %.0f ms\n", t[0]);
out:
	close(fx_err);
	kill(fx, SIGKILL);
	waitpid(fx, NULL, 0);
	free(s);
}

/* 100k traces do not fit in one argument (128 KiB): through a script file. */
static void build_100k(void)
{
	char path[] = "/tmp/gs_scale_XXXXXX", *s = script(TRACES_100K, false);
	double t[RUNS_100K];
	long rss[RUNS_100K];
	size_t len = strlen(s);
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, s, len) != (ssize_t)len) {
		printf("# skipped: build.ms.traces100k: cannot write %s: %s\n", path, strerror(errno));
		goto out;
	}
	for (int i = 0; i < RUNS_100K; i++) {
		char *argv[] = { GS_BENCH_GSTRACE, "-t", GS_BENCH_FIXTURE, "--dry-run", "-o",
				 "/dev/null", "--max-probes", "100000", "--script-file", path, NULL };
		int err_fd, status;
		struct rusage ru;
		double t0 = now_ms();
		pid_t pid = spawn(argv, &err_fd);

		close(err_fd);
		wait4(pid, &status, 0, &ru);
		t[i] = now_ms() - t0;
		rss[i] = ru.ru_maxrss; /* KiB */
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# skipped: build.ms.traces100k: gstrace --dry-run failed (0x%x)\n",
			       status);
			goto out;
		}
	}
	qsort(t, RUNS_100K, sizeof(t[0]), cmp_double);
	for (int i = 1; i < RUNS_100K; i++)
		rss[0] = rss[i] < rss[0] ? rss[i] : rss[0];
	printf("BENCH build.ms.traces100k %.0f ms\n", t[0]);
	printf("BENCH rss.kb.traces100k %ld KiB\n", rss[0]);
out:
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(s);
}

int main(void)
{
	build_1000();
	teardown_1000();
	build_100k();
	return 0;
}
