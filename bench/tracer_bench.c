/* End to end: first-event latency on the running backtrace_hot fixture
 * (-O2); BPF run time per hit (kernel.bpf_stats_enabled) and the delivery
 * rate and losses on bt_rate_fixture's deep stacks; peak RSS, stripped
 * size; bpftrace is the peer where installed, in the same run. Needs root. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#ifndef GS_BENCH_GSTRACE
#define GS_BENCH_GSTRACE "gstrace"
#endif
#ifndef GS_BENCH_FIXTURE
#define GS_BENCH_FIXTURE "tracer_bench_fixture"
#endif
#ifndef GS_BENCH_RATE_FIXTURE
#define GS_BENCH_RATE_FIXTURE "bt_rate_fixture"
#endif

#define STARTUP_RUNS 5
#define STATS_SECONDS 2
#define STATS_RUNS 5      /* medians of this many runs */
#define STATS_RATE "2000" /* probe hits a second while run time is measured */
#define DELIVERY_SECONDS "3"
#define READY_MARKER "GS_BENCH_READY"
#define WAIT_MS 10000

struct child {
	pid_t pid;
	int out; /* stdout pipe, -1 when not captured */
	int err; /* stderr pipe, -1 when not captured */
	char obuf[4096], ebuf[4096];
	size_t olen, elen;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Starts argv[0] with stdout and/or stderr piped (else /dev/null). */
static int spawn(struct child *c, char *const argv[], bool want_out, bool want_err)
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
static int pump(int *fd, char *buf, size_t *len, size_t cap,
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
static int drive(struct child *c, bool (*out_line)(const char *, void *),
		 bool (*err_line)(const char *, void *), void *arg, int timeout_ms)
{
	double end = now_ms() + timeout_ms;

	while (c->out >= 0 || c->err >= 0) {
		struct pollfd p[2] = { { .fd = c->out, .events = POLLIN },
				       { .fd = c->err, .events = POLLIN } };
		int left = (int)(end - now_ms());
		bool hit = false;

		if (left <= 0)
			return -1;
		if (poll(p, 2, left) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[0].revents && c->out >= 0)
			pump(&c->out, c->obuf, &c->olen, sizeof(c->obuf), out_line, arg, &hit);
		if (p[1].revents && c->err >= 0)
			pump(&c->err, c->ebuf, &c->elen, sizeof(c->ebuf), err_line, arg, &hit);
		if (hit)
			return 1;
	}
	return 0;
}

/* Ends the child (sig, then SIGKILL after 3 s), closes its pipes. */
static int finish(struct child *c, int sig, struct rusage *ru)
{
	int status = -1;
	double end = now_ms() + 3000;

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
		if (now_ms() > end) {
			kill(c->pid, SIGKILL);
			wait4(c->pid, &status, 0, ru);
			break;
		}
		usleep(2000);
	}
	c->pid = 0;
	return status;
}

static bool line_contains(const char *line, void *arg)
{
	return strstr(line, (const char *)arg) != NULL;
}

static bool line_is(const char *line, void *arg)
{
	return strcmp(line, (const char *)arg) == 0;
}

static bool have_program(const char *name, char *path, size_t cap)
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ---- startup ----------------------------------------------------------- */

/* The phases of gstrace --verbose's "start-up:" line, per run. */
#define MAX_PHASES 12

struct phases {
	size_t n;
	char name[MAX_PHASES][32];
	double ms[STARTUP_RUNS][MAX_PHASES];
	int run;
	bool seen;
};

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
static double startup_ms(char *const argv[], bool (*match)(const char *, void *), const char *key,
			 struct phases *ph)
{
	double t[STARTUP_RUNS];

	for (int i = 0; i < STARTUP_RUNS; i++) {
		struct startup_arg a = { match, key, ph };
		struct child c;
		double t0 = now_ms();

		if (ph) {
			ph->run = i;
			ph->seen = false;
		}
		if (spawn(&c, argv, true, ph != NULL))
			return -1;
		if (drive(&c, startup_out, startup_err, &a, WAIT_MS) != 1) {
			finish(&c, SIGKILL, NULL);
			return -1;
		}
		t[i] = now_ms() - t0;
		if (ph) {
			/* printed before the first event: already in the pipe */
			for (int k = 0; k < 50 && !ph->seen && c.err >= 0; k++) {
				struct pollfd p = { .fd = c.err, .events = POLLIN };
				bool hit = false;

				if (poll(&p, 1, 20) > 0)
					pump(&c.err, c.ebuf, &c.elen, sizeof(c.ebuf), phase_line, ph, &hit);
			}
		}
		finish(&c, SIGINT, NULL);
	}
	qsort(t, STARTUP_RUNS, sizeof(t[0]), cmp_double);
	return t[STARTUP_RUNS / 2];
}

/* Each phase's median over the runs. */
static void print_phases(const struct phases *ph, const char *metric)
{
	for (size_t k = 0; k < ph->n; k++) {
		double v[STARTUP_RUNS];

		for (int i = 0; i < STARTUP_RUNS; i++)
			v[i] = ph->ms[i][k];
		qsort(v, STARTUP_RUNS, sizeof(v[0]), cmp_double);
		printf("BENCH %s.%s %.2f ms\n", metric, ph->name[k], v[STARTUP_RUNS / 2]);
	}
}

static void bench_startup(pid_t fixture, const char *bpftrace)
{
	char pid[16], prog[512];
	struct phases ph = { 0 };
	double ms;

	snprintf(pid, sizeof(pid), "%d", (int)fixture);
	char *gs[] = { GS_BENCH_GSTRACE, "-p", pid, "--max-events", "1",
		       "-s", "trace hot_bt_leaf { print \"x\"; }", NULL };
	ms = startup_ms(gs, line_contains, "TraceID:", NULL);
	if (ms < 0)
		printf("# skipped: startup.first_event_ms: no event from gstrace\n");
	else
		printf("BENCH startup.first_event_ms %.2f ms\n", ms);
	/* With a backtrace: rows of every module, the walker verified. */
	char *gsbt[] = { GS_BENCH_GSTRACE, "-p", pid, "--max-events", "1", "--verbose",
			 "-s", "trace hot_bt_leaf { bt; }", NULL };
	ms = startup_ms(gsbt, line_contains, "TraceID:", &ph);
	if (ms < 0) {
		printf("# skipped: startup.first_event_ms.bt: no event from gstrace\n");
	} else {
		printf("BENCH startup.first_event_ms.bt %.2f ms\n", ms);
		print_phases(&ph, "startup.phase_ms.bt");
	}
	/* The same without symbolizing the frames: the first symbolized event
	 * reads each module's DWARF once (libc's debug file, when installed,
	 * is decompressed then). */
	gsbt[7] = "trace hot_bt_leaf { bt raw; }";
	ms = startup_ms(gsbt, line_contains, "TraceID:", NULL);
	if (ms < 0)
		printf("# skipped: startup.first_event_ms.bt_raw: no event from gstrace\n");
	else
		printf("BENCH startup.first_event_ms.bt_raw %.2f ms\n", ms);

	if (!bpftrace) {
		printf("# skipped: peer.bpftrace.startup.first_event_ms: bpftrace not installed\n");
		return;
	}
	snprintf(prog, sizeof(prog), "uprobe:%s:hot_bt_leaf { printf(\"x\\n\"); exit(); }",
		 GS_BENCH_FIXTURE);
	char *bt[] = { (char *)bpftrace, "-e", prog, NULL };
	ms = startup_ms(bt, line_is, "x", NULL);
	if (ms < 0)
		printf("# skipped: peer.bpftrace.startup.first_event_ms: no event from bpftrace\n");
	else
		printf("BENCH peer.bpftrace.startup.first_event_ms %.2f ms\n", ms);
}

/* ---- BPF run time ------------------------------------------------------ */

struct run_stats {
	uint64_t time_ns, main_cnt;
	int progs;
};

/* The BPF programs process pid holds (fdinfo "prog_id:"): only its own,
 * whatever other tracers run on the machine meanwhile. */
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
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "prog_id:", 8) == 0 && n < max)
				ids[n++] = (uint32_t)strtoul(line + 8, NULL, 10);
		fclose(f);
	}
	return n;
}

/* Sums run_time_ns over pid's programs whose name starts with prefix (""
 * for all); main_cnt is run_cnt of the program named main_name, or the
 * largest run_cnt when main_name is NULL. */
static void collect_stats(pid_t pid, const char *prefix, const char *main_name,
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
static int run_stats(char *const argv[], bool ready_on_err, const char *ready,
		     const char *prefix, const char *main_name, struct run_stats *st)
{
	struct child c;
	int r;

	if (spawn(&c, argv, !ready_on_err, ready_on_err))
		return -1;
	r = drive(&c, ready_on_err ? NULL : line_contains, ready_on_err ? line_contains : NULL,
		  (void *)ready, WAIT_MS);
	if (r == 1) {
		sleep(STATS_SECONDS);
		collect_stats(c.pid, prefix, main_name, st);
	}
	finish(&c, SIGINT, NULL);
	return r == 1 && st->main_cnt ? 0 : -1;
}

/* Median of the BPF run time per hit of argv's programs over STATS_RUNS runs. */
static double median_run_ns(char *const argv[], bool ready_on_err, const char *ready,
			    const char *prefix, const char *main_name)
{
	double v[STATS_RUNS];
	int n = 0;

	for (int i = 0; i < STATS_RUNS; i++) {
		struct run_stats st;

		if (run_stats(argv, ready_on_err, ready, prefix, main_name, &st) == 0)
			v[n++] = (double)st.time_ns / (double)st.main_cnt;
	}
	if (n == 0)
		return -1;
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

static double gstrace_run_ns(pid_t fixture, const char *depth, const char *script)
{
	char pid[16];
	char *gs[] = { GS_BENCH_GSTRACE, "-p", pid, "--backtrace-depth", (char *)depth,
		       "--emit-ready-marker", READY_MARKER, "-s", (char *)script, NULL };

	snprintf(pid, sizeof(pid), "%d", (int)fixture);
	return median_run_ns(gs, true, READY_MARKER, "gs_trace", "gs_trace0");
}

static double bpftrace_run_ns(const char *bpftrace, pid_t fixture, const char *action)
{
	char prog[512];

	snprintf(prog, sizeof(prog), "uprobe:%s:bench_leaf /pid == %d/ { %s }",
		 GS_BENCH_RATE_FIXTURE, (int)fixture, action);
	char *bt[] = { (char *)bpftrace, "-e", prog, NULL };

	return median_run_ns(bt, false, "Attaching", "", NULL);
}

static void print_ns(const char *metric, double ns)
{
	if (ns < 0)
		printf("# skipped: %s: no stats for its programs\n", metric);
	else
		printf("BENCH %s %.0f ns\n", metric, ns);
}

/* Per hit of bench_leaf at the bottom of a 600-frame recursion, medians of
 * STATS_RUNS runs each: `print` against bpftrace's printf, `bt` at depths
 * 1 to 512 (depth 1 is the walk's fixed cost, the slope over 8..128 the
 * cost of a frame) against
 * bpftrace's ustack (frame pointers: -O2 code has none, it stops early). */
static void bench_bpf_stats(pid_t fixture, const char *bpftrace)
{
	static const unsigned depths[] = { 1, 8, 16, 32, 64, 128, 512 };
	double ns[sizeof(depths) / sizeof(depths[0])], print, sx = 0, sy = 0, sxx = 0, sxy = 0;
	char old[16] = "0", metric[64];
	int n = 0;
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r+");

	if (!f) {
		printf("# skipped: bpf.run_ns: no /proc/sys/kernel/bpf_stats_enabled\n");
		return;
	}
	if (!fgets(old, sizeof(old), f))
		snprintf(old, sizeof(old), "0");
	rewind(f);
	fputs("1\n", f);
	fflush(f);

	print = gstrace_run_ns(fixture, "8", "trace bench_leaf { print \"x\"; }");
	print_ns("bpf.run_ns.print", print);
	if (bpftrace)
		print_ns("peer.bpftrace.run_ns.printf",
			 bpftrace_run_ns(bpftrace, fixture, "printf(\"x\\n\");"));
	else
		printf("# skipped: peer.bpftrace.run_ns.printf: bpftrace not installed\n");
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		char depth[16];

		snprintf(depth, sizeof(depth), "%u", depths[i]);
		snprintf(metric, sizeof(metric), "bpf.run_ns.bt_depth%u", depths[i]);
		ns[i] = gstrace_run_ns(fixture, depth, "trace bench_leaf { bt; }");
		print_ns(metric, ns[i]);
		if (ns[i] >= 0 && depths[i] >= 8 && depths[i] <= 128) {
			sx += depths[i];
			sy += ns[i];
			sxx += (double)depths[i] * depths[i];
			sxy += depths[i] * ns[i];
			n++;
		}
	}
	if (ns[1] >= 0 && print >= 0)
		printf("BENCH bpf.run_ns.bt_depth8_minus_print %.0f ns\n", ns[1] - print);
	if (n >= 2)
		printf("BENCH bpf.run_ns.bt_per_frame %.1f ns\n",
		       (n * sxy - sx * sy) / (n * sxx - sx * sx));
	if (bpftrace)
		print_ns("peer.bpftrace.run_ns.ustack",
			 bpftrace_run_ns(bpftrace, fixture, "@[ustack] = count();"));
	else
		printf("# skipped: peer.bpftrace.run_ns.ustack: bpftrace not installed\n");

	rewind(f);
	fputs(old, f);
	fclose(f);
}

/* ---- delivery, RSS ----------------------------------------------------- */

struct delivery {
	uint64_t events, lost;
	double first_ms;
};

static bool delivery_out(const char *line, void *arg)
{
	struct delivery *d = arg;

	if (line[0] == '[' && strstr(line, "TraceID:"))
		d->events++;
	return false;
}

static bool delivery_err(const char *line, void *arg)
{
	struct delivery *d = arg;
	const char *t;

	if (strstr(line, READY_MARKER))
		d->first_ms = now_ms();
	else if (strstr(line, " lost ") && (t = strstr(line, "(total ")))
		d->lost = strtoull(t + 7, NULL, 10);
	return false;
}

/* gstrace -p on a bt_rate_fixture (16-frame backtraces, symbolized, pretty
 * output read here) for DELIVERY_SECONDS: events printed per second and
 * the losses gstrace reports. rate "0": as fast as the fixture calls. */
static int delivery_run(const char *rate, struct delivery *d, double *secs, struct rusage *ru)
{
	char *fx[] = { GS_BENCH_RATE_FIXTURE, "20", (char *)rate, NULL };
	char pid[16];
	char *gs[] = { GS_BENCH_GSTRACE, "-p", pid, "--duration", DELIVERY_SECONDS,
		       "--backtrace-depth", "16", "--emit-ready-marker", READY_MARKER,
		       "-s", "trace bench_leaf { bt; }", NULL };
	struct child fixture, c;
	int status, r = -1;

	memset(d, 0, sizeof(*d));
	if (spawn(&fixture, fx, true, false) ||
	    drive(&fixture, line_contains, NULL, "ready", WAIT_MS) != 1)
		goto out;
	snprintf(pid, sizeof(pid), "%d", (int)fixture.pid);
	if (spawn(&c, gs, true, true))
		goto out;
	r = drive(&c, delivery_out, delivery_err, d, 4 * WAIT_MS);
	*secs = (now_ms() - d->first_ms) / 1e3;
	memset(ru, 0, sizeof(*ru));
	status = finish(&c, r == 0 ? 0 : SIGKILL, ru);
	if (r != 0 || d->first_ms == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		r = -1;
out:
	finish(&fixture, SIGINT, NULL);
	return r;
}

static void bench_delivery(void)
{
	struct delivery d;
	struct rusage ru;
	double secs;

	if (delivery_run("0", &d, &secs, &ru)) {
		printf("# skipped: delivery: gstrace failed\n");
		return;
	}
	printf("BENCH delivery.events_per_s %.0f events/s\n", (double)d.events / secs);
	printf("BENCH delivery.lost_events %llu events\n", (unsigned long long)d.lost);
	/* The uprobe path bounds the rate one fixture thread makes; what
	 * gstrace itself could carry is events per second of its CPU time. */
	printf("BENCH delivery.events_per_cpu_s %.0f events/s\n", (double)d.events /
	       ((double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6));
	printf("BENCH rss.peak_kb %ld kB\n", ru.ru_maxrss);
	if (delivery_run("10000", &d, &secs, &ru)) {
		printf("# skipped: delivery at 10k/s: gstrace failed\n");
		return;
	}
	printf("BENCH delivery.events_per_s_at_10k %.0f events/s\n", (double)d.events / secs);
	printf("BENCH delivery.lost_events_at_10k %llu events\n", (unsigned long long)d.lost);
}

/* ---- size -------------------------------------------------------------- */

static void bench_size(void)
{
	char tmp[] = "/tmp/gs_bench_stripXXXXXX";
	char *argv[] = { "strip", "-o", tmp, GS_BENCH_GSTRACE, NULL };
	struct child c;
	struct stat sb;
	int fd = mkstemp(tmp), status;

	if (fd < 0 || spawn(&c, argv, false, false)) {
		printf("# skipped: size.dynamic_stripped_bytes: no temporary file\n");
		return;
	}
	close(fd);
	status = finish(&c, 0, NULL);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && stat(tmp, &sb) == 0)
		printf("BENCH size.dynamic_stripped_bytes %lld bytes\n", (long long)sb.st_size);
	else
		printf("# skipped: size.dynamic_stripped_bytes: strip failed\n");
	unlink(tmp);
}

/* Sections named on the command line run alone (startup, bpf, delivery). */
static bool wanted(int argc, char **argv, const char *section)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], section) == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	char *fx[] = { GS_BENCH_FIXTURE, NULL };
	char bpftrace[512];
	const char *peer = NULL;
	char *deep_fx[] = { GS_BENCH_RATE_FIXTURE, "600", STATS_RATE, NULL };
	struct child fixture, deep;
	pid_t fpid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (wanted(argc, argv, "size"))
		bench_size();
	if (geteuid() != 0) {
		printf("# skipped: startup, bpf.run_ns, delivery, rss: not root\n");
		return 0;
	}
	if (have_program("bpftrace", bpftrace, sizeof(bpftrace)))
		peer = bpftrace;

	if (spawn(&fixture, fx, true, false) ||
	    drive(&fixture, line_contains, NULL, "ready", WAIT_MS) != 1) {
		printf("# skipped: startup, bpf.run_ns, delivery, rss: fixture did not start\n");
		finish(&fixture, SIGKILL, NULL);
		return 0;
	}
	fpid = fixture.pid;
	if (wanted(argc, argv, "startup"))
		bench_startup(fpid, peer);
	finish(&fixture, SIGUSR1, NULL);

	if (!wanted(argc, argv, "bpf")) {
		/* nothing */
	} else if (spawn(&deep, deep_fx, true, false) ||
	    drive(&deep, line_contains, NULL, "ready", WAIT_MS) != 1) {
		printf("# skipped: bpf.run_ns: the rate fixture did not start\n");
		finish(&deep, SIGKILL, NULL);
	} else {
		bench_bpf_stats(deep.pid, peer);
		finish(&deep, SIGINT, NULL);
	}
	if (wanted(argc, argv, "delivery"))
		bench_delivery();
	return 0;
}
