/* What the end-to-end benchmarks share (tracer_bench.c, values_bench.c):
 * children with their output read line by line, the median time from launch
 * to a line, and the BPF run time of the programs a tracer loaded
 * (kernel.bpf_stats_enabled). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bench_util.h"

double bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Starts argv[0] with stdout and/or stderr piped (else /dev/null). */
int bench_spawn(struct child *c, char *const argv[], bool want_out, bool want_err)
{
	int op[2] = { -1, -1 }, ep[2] = { -1, -1 };

	memset(c, 0, sizeof(*c));
	c->out = c->err = -1;
	if ((want_out && pipe2(op, O_CLOEXEC)) || (want_err && pipe2(ep, O_CLOEXEC)))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(want_out ? op[1] : null, 1);
		dup2(want_err ? ep[1] : null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (want_out) {
		close(op[1]);
		c->out = op[0];
	}
	if (want_err) {
		close(ep[1]);
		c->err = ep[0];
	}
	return 0;
}

/* Reads whatever is ready on fd into buf, calling on_line for each complete
 * line; returns 0 at EOF (fd closed), 1 otherwise. */
static int bench_pump(int *fd, char *buf, size_t *len, size_t cap,
		      bool (*on_line)(const char *line, void *arg), void *arg, bool *hit)
{
	ssize_t n = read(*fd, buf + *len, cap - 1 - *len);
	char *start, *nl;

	if (n <= 0) {
		if (n < 0 && errno == EINTR)
			return 1;
		close(*fd);
		*fd = -1;
		return 0;
	}
	*len += (size_t)n;
	buf[*len] = '\0';
	start = buf;
	while ((nl = strchr(start, '\n'))) {
		*nl = '\0';
		if (on_line && on_line(start, arg))
			*hit = true;
		start = nl + 1;
	}
	*len -= (size_t)(start - buf);
	memmove(buf, start, *len);
	if (*len == cap - 1) /* over-long line: drop it */
		*len = 0;
	return 1;
}

/* Polls the child's pipes, feeding lines to the callbacks, until one returns
 * true (returns 1), both pipes close (0) or timeout_ms passes (-1). */
int bench_drive(struct child *c, bool (*out_line)(const char *, void *),
		bool (*err_line)(const char *, void *), void *arg, int timeout_ms)
{
	double end = bench_now_ms() + timeout_ms;

	while (c->out >= 0 || c->err >= 0) {
		struct pollfd p[2] = { { .fd = c->out, .events = POLLIN },
				       { .fd = c->err, .events = POLLIN } };
		int left = (int)(end - bench_now_ms());
		bool hit = false;

		if (left <= 0)
			return -1;
		if (poll(p, 2, left) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[0].revents && c->out >= 0)
			bench_pump(&c->out, c->obuf, &c->olen, sizeof(c->obuf), out_line, arg, &hit);
		if (p[1].revents && c->err >= 0)
			bench_pump(&c->err, c->ebuf, &c->elen, sizeof(c->ebuf), err_line, arg, &hit);
		if (hit)
			return 1;
	}
	return 0;
}

/* Ends the child (sig, then SIGKILL after 3 s), closes its pipes. */
int bench_finish(struct child *c, int sig, struct rusage *ru)
{
	int status = -1;
	double end = bench_now_ms() + 3000;

	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	c->out = c->err = -1;
	if (c->pid <= 0)
		return -1;
	if (sig)
		kill(c->pid, sig);
	for (;;) {
		pid_t r = wait4(c->pid, &status, WNOHANG, ru);

		if (r == c->pid || (r < 0 && errno != EINTR))
			break;
		if (bench_now_ms() > end) {
			kill(c->pid, SIGKILL);
			wait4(c->pid, &status, 0, ru);
			break;
		}
		usleep(2000);
	}
	c->pid = 0;
	return status;
}

bool bench_line_contains(const char *line, void *arg)
{
	return strstr(line, (const char *)arg) != NULL;
}

bool bench_line_is(const char *line, void *arg)
{
	return strcmp(line, (const char *)arg) == 0;
}

bool bench_have_program(const char *name, char *path, size_t cap)
{
	const char *env = getenv("PATH");
	char dirs[4096], *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s", env ? env : "/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, cap, "%s/%s", d, name);
		if (access(path, X_OK) == 0)
			return true;
	}
	return false;
}

int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "gstrace: start-up: resolve 1.7 ms, plan rows 36.5 ms, ...; ...". */
static bool phase_line(const char *line, void *arg)
{
	struct phases *ph = arg;
	const char *p = strstr(line, "start-up:");
	size_t k = 0;

	if (!ph || !p || ph->run >= STARTUP_RUNS)
		return false;
	for (p += 9; *p && *p != ';' && k < MAX_PHASES; k++) {
		const char *end = p + strcspn(p, ",;");
		char item[64], *ms;
		size_t n = (size_t)(end - p) < sizeof(item) ? (size_t)(end - p) : sizeof(item) - 1;

		memcpy(item, p, n);
		item[n] = '\0';
		ms = strstr(item, " ms");
		if (ms) {
			char *num = ms;

			*ms = '\0';
			while (num > item && num[-1] != ' ')
				num--;
			ph->ms[ph->run][k] = atof(num);
			while (num > item && num[-1] == ' ')
				num--;
			*num = '\0';
			for (char *q = item; *q; q++)
				if (*q == ' ' || *q == '/')
					*q = '_';
			snprintf(ph->name[k], sizeof(ph->name[k]), "%s", item + strspn(item, "_"));
		}
		p = *end == ',' ? end + 1 : end;
	}
	ph->n = k;
	ph->seen = true;
	return false;
}

/* What the stdout and stderr callbacks of one startup run share. */
struct startup_arg {
	bool (*match)(const char *, void *);
	const char *key;
	struct phases *ph;
};

static bool startup_out(const char *line, void *arg)
{
	const struct startup_arg *a = arg;

	return a->match(line, (void *)a->key);
}

static bool startup_err(const char *line, void *arg)
{
	const struct startup_arg *a = arg;

	return phase_line(line, a->ph);
}

/* Median of STARTUP_RUNS times from fork/exec to the line matched by
 * match(line, key) on stdout; < 0 when it never came. With ph, stderr is
 * read too for --verbose's phase line. */
double bench_startup_ms(char *const argv[], bool (*match)(const char *, void *), const char *key,
			struct phases *ph)
{
	double t[STARTUP_RUNS];

	for (int i = 0; i < STARTUP_RUNS; i++) {
		struct startup_arg a = { match, key, ph };
		struct child c;
		double t0 = bench_now_ms();

		if (ph) {
			ph->run = i;
			ph->seen = false;
		}
		if (bench_spawn(&c, argv, true, ph != NULL))
			return -1;
		if (bench_drive(&c, startup_out, startup_err, &a, WAIT_MS) != 1) {
			bench_finish(&c, SIGKILL, NULL);
			return -1;
		}
		t[i] = bench_now_ms() - t0;
		if (ph) {
			/* printed before the first event: already in the pipe */
			for (int k = 0; k < 50 && !ph->seen && c.err >= 0; k++) {
				struct pollfd p = { .fd = c.err, .events = POLLIN };
				bool hit = false;

				if (poll(&p, 1, 20) > 0)
					bench_pump(&c.err, c.ebuf, &c.elen, sizeof(c.ebuf), phase_line, ph, &hit);
			}
		}
		bench_finish(&c, SIGINT, NULL);
	}
	qsort(t, STARTUP_RUNS, sizeof(t[0]), bench_cmp_double);
	return t[STARTUP_RUNS / 2];
}

/* Each phase's median over the runs. */
void bench_print_phases(const struct phases *ph, const char *metric)
{
	for (size_t k = 0; k < ph->n; k++) {
		double v[STARTUP_RUNS];

		for (int i = 0; i < STARTUP_RUNS; i++)
			v[i] = ph->ms[i][k];
		qsort(v, STARTUP_RUNS, sizeof(v[0]), bench_cmp_double);
		printf("BENCH %s.%s %.2f ms\n", metric, ph->name[k], v[STARTUP_RUNS / 2]);
	}
}

/* The BPF programs process pid holds (fdinfo "prog_id:"): only its own,
 * whatever other tracers run on the machine meanwhile. Each once: a
 * program's fd and its perf event or link fd both name it, and counting
 * it twice doubled its run time. */
static size_t held_prog_ids(pid_t pid, uint32_t *ids, size_t max)
{
	char path[64], line[128];
	size_t n = 0;

	for (int fd = 0; fd < 1024 && n < max; fd++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			uint32_t id;
			size_t k = 0;

			if (strncmp(line, "prog_id:", 8) != 0)
				continue;
			id = (uint32_t)strtoul(line + 8, NULL, 10);
			while (k < n && ids[k] != id)
				k++;
			if (k == n && n < max)
				ids[n++] = id;
		}
		fclose(f);
	}
	return n;
}

/* Sums run_time_ns over pid's programs whose name starts with prefix (""
 * for all); main_cnt is run_cnt of the program named main_name, or the
 * largest run_cnt when main_name is NULL. */
void bench_collect_stats(pid_t pid, const char *prefix, const char *main_name,
			 struct run_stats *st)
{
	uint32_t ids[256];
	size_t n = held_prog_ids(pid, ids, 256);

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < n; i++) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    strncmp(info.name, prefix, strlen(prefix)) == 0) {
			st->time_ns += info.run_time_ns;
			st->progs++;
			printf("#   prog %u %s: run_time_ns %llu run_cnt %llu\n", ids[i], info.name,
			       (unsigned long long)info.run_time_ns,
			       (unsigned long long)info.run_cnt);
			if (main_name ? strcmp(info.name, main_name) == 0
				      : info.run_cnt > st->main_cnt)
				st->main_cnt = info.run_cnt;
		}
		close(fd);
	}
}

/* Runs argv, waits for its ready line (stderr for gstrace, stdout for
 * bpftrace), lets it run STATS_SECONDS and reads its programs' stats. */
int bench_run_stats(char *const argv[], bool ready_on_err, const char *ready,
		    const char *prefix, const char *main_name, struct run_stats *st)
{
	struct child c;
	int r;

	if (bench_spawn(&c, argv, !ready_on_err, ready_on_err))
		return -1;
	r = bench_drive(&c, ready_on_err ? NULL : bench_line_contains,
			ready_on_err ? bench_line_contains : NULL, (void *)ready, WAIT_MS);
	if (r == 1) {
		sleep(STATS_SECONDS);
		bench_collect_stats(c.pid, prefix, main_name, st);
	}
	bench_finish(&c, SIGINT, NULL);
	return r == 1 && st->main_cnt ? 0 : -1;
}

/* Median of the BPF run time per hit of argv's programs over STATS_RUNS runs. */
double bench_median_run_ns(char *const argv[], bool ready_on_err, const char *ready,
			   const char *prefix, const char *main_name)
{
	double v[STATS_RUNS];
	int n = 0;

	for (int i = 0; i < STATS_RUNS; i++) {
		struct run_stats st;

		if (bench_run_stats(argv, ready_on_err, ready, prefix, main_name, &st) == 0)
			v[n++] = (double)st.time_ns / (double)st.main_cnt;
	}
	if (n == 0)
		return -1;
	qsort(v, (size_t)n, sizeof(v[0]), bench_cmp_double);
	return v[n / 2];
}

void bench_print_ns(const char *metric, double ns)
{
	if (ns < 0)
		printf("# skipped: %s: no stats for its programs\n", metric);
	else
		printf("BENCH %s %.0f ns\n", metric, ns);
}

FILE *bench_bpf_stats_on(char *old, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r+");

	if (!f)
		return NULL;
	if (!fgets(old, (int)size, f))
		snprintf(old, size, "0");
	rewind(f);
	fputs("1\n", f);
	fflush(f);
	return f;
}

void bench_bpf_stats_restore(FILE *f, const char *old)
{
	rewind(f);
	fputs(old, f);
	fclose(f);
}
