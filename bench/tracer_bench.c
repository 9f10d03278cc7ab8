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

#include "base.h"
#include "bench_util.h"

#ifndef GS_BENCH_GSTRACE
#define GS_BENCH_GSTRACE "gstrace"
#endif
/* GSTRACE_BENCH_BINARY=PATH measures another build (a before/after). */
#define GSTRACE (getenv("GSTRACE_BENCH_BINARY") ? getenv("GSTRACE_BENCH_BINARY") : GS_BENCH_GSTRACE)
#ifndef GS_BENCH_FIXTURE
#define GS_BENCH_FIXTURE "tracer_bench_fixture"
#endif
#ifndef GS_BENCH_RATE_FIXTURE
#define GS_BENCH_RATE_FIXTURE "bt_rate_fixture"
#endif

#define STATS_RATE "2000" /* probe hits a second while run time is measured */
#define DELIVERY_SECONDS "3"
#define READY_MARKER "GS_BENCH_READY"

/* ---- startup ----------------------------------------------------------- */

static void bench_startup(pid_t fixture, const char *bpftrace)
{
	char pid[16], prog[512];
	struct phases ph = { 0 };
	double ms;

	snprintf(pid, sizeof(pid), "%d", (int)fixture);
	char *gs[] = { GSTRACE, "-p", pid, "--max-events", "1",
		       "-s", "trace hot_bt_leaf { print \"x\"; }", NULL };
	ms = bench_startup_ms(gs, bench_line_contains, "TraceID:", NULL);
	if (ms < 0)
		printf("# skipped: startup.first_event_ms: no event from gstrace\n");
	else
		printf("BENCH startup.first_event_ms %.2f ms\n", ms);
	/* With a backtrace: rows of every module, the walker verified. */
	char *gsbt[] = { GSTRACE, "-p", pid, "--max-events", "1", "--verbose",
			 "-s", "trace hot_bt_leaf { bt; }", NULL };
	ms = bench_startup_ms(gsbt, bench_line_contains, "TraceID:", &ph);
	if (ms < 0) {
		printf("# skipped: startup.first_event_ms.bt: no event from gstrace\n");
	} else {
		printf("BENCH startup.first_event_ms.bt %.2f ms\n", ms);
		bench_print_phases(&ph, "startup.phase_ms.bt");
	}
	/* The same without symbolizing the frames: the first symbolized event
	 * reads each module's DWARF once (libc's debug file, when installed,
	 * is decompressed then). */
	gsbt[7] = "trace hot_bt_leaf { bt raw; }";
	ms = bench_startup_ms(gsbt, bench_line_contains, "TraceID:", NULL);
	if (ms < 0)
		printf("# skipped: startup.first_event_ms.bt_raw: no event from gstrace\n");
	else
		printf("BENCH startup.first_event_ms.bt_raw %.2f ms\n", ms);

	/* Variables with a cold index: the on-disk cache off, so every run
	 * reads the fixture's DWARF afresh. */
	char *gsvars[] = { GSTRACE, "-p", pid, "--max-events", "1",
			   "-s", "trace hot_bt_leaf { print value; }", NULL };
	setenv("GSTRACE_CFI_CACHE", "off", 1);
	ms = bench_startup_ms(gsvars, bench_line_contains, "value = ", NULL);
	unsetenv("GSTRACE_CFI_CACHE");
	if (ms < 0)
		printf("# skipped: startup.first_event_ms.vars.cold: no event from gstrace\n");
	else
		printf("BENCH startup.first_event_ms.vars.cold %.2f ms\n", ms);

	if (!bpftrace) {
		printf("# skipped: peer.bpftrace.startup.first_event_ms: bpftrace not installed\n");
		return;
	}
	snprintf(prog, sizeof(prog), "uprobe:%s:hot_bt_leaf { printf(\"x\\n\"); exit(); }",
		 GS_BENCH_FIXTURE);
	char *bt[] = { (char *)bpftrace, "-e", prog, NULL };
	ms = bench_startup_ms(bt, bench_line_is, "x", NULL);
	if (ms < 0)
		printf("# skipped: peer.bpftrace.startup.first_event_ms: no event from bpftrace\n");
	else
		printf("BENCH peer.bpftrace.startup.first_event_ms %.2f ms\n", ms);
	/* bpftrace's ustack, for the bt figure's peer */
	snprintf(prog, sizeof(prog), "uprobe:%s:hot_bt_leaf { printf(\"%%s\\n\", ustack); "
		 "exit(); }", GS_BENCH_FIXTURE);
	ms = bench_startup_ms(bt, bench_line_contains, "hot_bt_", NULL);
	if (ms < 0)
		printf("# skipped: peer.bpftrace.startup.first_event_ms.bt: no event from bpftrace\n");
	else
		printf("BENCH peer.bpftrace.startup.first_event_ms.bt %.2f ms\n", ms);
}

/* ---- resident memory --------------------------------------------------- */

/* Peak RSS (KiB) of argv tracing for RSS_TRACE_MS after its first line
 * holding key: the start-up, the first symbolizing and a steady state. */
#define RSS_TRACE_MS 500

static long rss_peak_kb(char *const argv[], const char *key)
{
	struct child c;
	struct rusage ru;
	int r;

	if (bench_spawn(&c, argv, true, false))
		return -1;
	r = bench_drive(&c, bench_line_contains, NULL, (void *)key, WAIT_MS);
	if (r == 1) {
		double end = bench_now_ms() + RSS_TRACE_MS;

		/* keep reading: a tracer blocked on a full pipe stops working */
		while (bench_now_ms() < end &&
		       bench_drive(&c, bench_line_contains, NULL, "\x01never", 50) == -1)
			;
	}
	memset(&ru, 0, sizeof(ru));
	bench_finish(&c, SIGINT, &ru);
	return r == 1 ? ru.ru_maxrss : -1;
}

static void print_rss(const char *metric, long kb)
{
	if (kb < 0)
		printf("# skipped: %s: no event\n", metric);
	else
		printf("BENCH %s %ld KiB\n", metric, kb);
}

/* gstrace's peak RSS with `print`, `bt` (symbolized: libc's debug file
 * read when installed) and `bt raw`, beside bpftrace's printf and ustack.
 * GS_BENCH_RSS_TAG=".static" names another build's figures. */
static void bench_rss(pid_t fixture, const char *bpftrace)
{
	const char *tag = getenv("GS_BENCH_RSS_TAG") ? getenv("GS_BENCH_RSS_TAG") : "";
	static const char *const scripts[][2] = {
		{ "print", "trace hot_bt_leaf { print \"x\"; }" },
		{ "bt", "trace hot_bt_leaf { bt; }" },
		{ "bt_raw", "trace hot_bt_leaf { bt raw; }" },
	};
	char pid[16], metric[64], prog[512];

	snprintf(pid, sizeof(pid), "%d", (int)fixture);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(scripts); i++) {
		char *gs[] = { GSTRACE, "-p", pid, "-s", (char *)scripts[i][1], NULL };

		snprintf(metric, sizeof(metric), "rss.kb.%s%s", scripts[i][0], tag);
		print_rss(metric, rss_peak_kb(gs, "TraceID:"));
	}
	if (*tag)
		return;
	if (!bpftrace) {
		printf("# skipped: peer.bpftrace.rss.kb: bpftrace not installed\n");
		return;
	}
	snprintf(prog, sizeof(prog), "uprobe:%s:hot_bt_leaf /pid == %d/ { printf(\"x\\n\"); }",
		 GS_BENCH_FIXTURE, (int)fixture);
	char *bt[] = { (char *)bpftrace, "-e", prog, NULL };
	print_rss("peer.bpftrace.rss.kb.print", rss_peak_kb(bt, "x"));
	snprintf(prog, sizeof(prog), "uprobe:%s:hot_bt_leaf /pid == %d/ { printf(\"%%s\\n\", "
		 "ustack); }", GS_BENCH_FIXTURE, (int)fixture);
	print_rss("peer.bpftrace.rss.kb.bt", rss_peak_kb(bt, "hot_bt_"));
}

/* ---- BPF run time ------------------------------------------------------ */

static double gstrace_run_ns(pid_t fixture, const char *depth, const char *script)
{
	char pid[16];
	char *gs[] = { GSTRACE, "-p", pid, "--backtrace-depth", (char *)depth,
		       "--emit-ready-marker", READY_MARKER, "-s", (char *)script, NULL };

	snprintf(pid, sizeof(pid), "%d", (int)fixture);
	return bench_median_run_ns(gs, true, READY_MARKER, "gs_trace", "gs_trace0");
}

static double bpftrace_run_ns(const char *bpftrace, pid_t fixture, const char *action)
{
	char prog[512];

	snprintf(prog, sizeof(prog), "uprobe:%s:bench_leaf /pid == %d/ { %s }",
		 GS_BENCH_RATE_FIXTURE, (int)fixture, action);
	char *bt[] = { (char *)bpftrace, "-e", prog, NULL };

	return bench_median_run_ns(bt, false, "Attaching", "", NULL);
}

/* Per hit of bench_leaf at the bottom of a 600-frame recursion, medians of
 * STATS_RUNS runs each: `print` against bpftrace's printf, `bt` at depths
 * 1 to 512 (depth 1 is the walk's fixed cost, the slope over 8..128 the
 * cost of a frame) against
 * bpftrace's ustack (frame pointers: -O2 code has none, it stops early). */
static void bench_bpf_stats(pid_t fixture, const char *bpftrace)
{
	static const unsigned depths[] = { 1, 8, 16, 32, 64, 128, 512 };
	double ns[BASE_ARRAY_SIZE(depths)], print, sx = 0, sy = 0, sxx = 0, sxy = 0;
	char old[16] = "0", metric[64];
	int n = 0;
	FILE *f = bench_bpf_stats_on(old, sizeof(old));

	if (!f) {
		printf("# skipped: bpf.run_ns: no /proc/sys/kernel/bpf_stats_enabled\n");
		return;
	}

	print = gstrace_run_ns(fixture, "8", "trace bench_leaf { print \"x\"; }");
	bench_print_ns("bpf.run_ns.print", print);
	if (bpftrace)
		bench_print_ns("peer.bpftrace.run_ns.printf",
			       bpftrace_run_ns(bpftrace, fixture, "printf(\"x\\n\");"));
	else
		printf("# skipped: peer.bpftrace.run_ns.printf: bpftrace not installed\n");
	for (size_t i = 0; i < BASE_ARRAY_SIZE(depths); i++) {
		char depth[16];

		snprintf(depth, sizeof(depth), "%u", depths[i]);
		snprintf(metric, sizeof(metric), "bpf.run_ns.bt_depth%u", depths[i]);
		ns[i] = gstrace_run_ns(fixture, depth, "trace bench_leaf { bt; }");
		bench_print_ns(metric, ns[i]);
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
		bench_print_ns("peer.bpftrace.run_ns.ustack",
			       bpftrace_run_ns(bpftrace, fixture, "@[ustack] = count();"));
	else
		printf("# skipped: peer.bpftrace.run_ns.ustack: bpftrace not installed\n");

	bench_bpf_stats_restore(f, old);
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
		d->first_ms = bench_now_ms();
	else if (strstr(line, " lost ") && (t = strstr(line, "(total ")))
		d->lost = strtoull(t + 7, NULL, 10);
	return false;
}

/* gstrace -p on a bt_rate_fixture (16-frame backtraces, symbolized, pretty
 * output read here) for DELIVERY_SECONDS with a ring buffer of `ringbuf`
 * bytes (NULL: gstrace's default size): events printed per second and the
 * losses gstrace reports. rate "0": as fast as the fixture calls. */
static int delivery_run(const char *rate, const char *ringbuf, struct delivery *d, double *secs,
			struct rusage *ru)
{
	char *fx[] = { GS_BENCH_RATE_FIXTURE, "20", (char *)rate, NULL };
	char pid[16];
	char *gs[] = { GSTRACE, "-p", pid, "--duration", DELIVERY_SECONDS,
		       "--backtrace-depth", "16", "--emit-ready-marker", READY_MARKER,
		       "-s", "trace bench_leaf { bt; }", "--ringbuf-size", (char *)ringbuf, NULL };
	struct child fixture, c;
	int status, r = -1;

	memset(d, 0, sizeof(*d));
	if (!ringbuf)
		gs[BASE_ARRAY_SIZE(gs) - 3] = NULL; /* no --ringbuf-size */
	if (bench_spawn(&fixture, fx, true, false) ||
	    bench_drive(&fixture, bench_line_contains, NULL, "ready", WAIT_MS) != 1)
		goto out;
	snprintf(pid, sizeof(pid), "%d", (int)fixture.pid);
	if (bench_spawn(&c, gs, true, true))
		goto out;
	r = bench_drive(&c, delivery_out, delivery_err, d, 4 * WAIT_MS);
	*secs = (bench_now_ms() - d->first_ms) / 1e3;
	memset(ru, 0, sizeof(*ru));
	status = bench_finish(&c, r == 0 ? 0 : SIGKILL, ru);
	if (r != 0 || d->first_ms == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		r = -1;
out:
	bench_finish(&fixture, SIGINT, NULL);
	return r;
}

/* As fast as the fixture calls (one thread: 100k+ hits a second with
 * optimized uprobes), with a 4 MiB ring buffer (256 KiB holds 6 ms of 100k
 * 450-byte events, less than a reader may wait for a CPU on a loaded
 * machine); then 10k/s with a 256 KiB buffer, and 100k/s with the size
 * gstrace chooses by itself (room for 8192 of the largest event: 4 MiB
 * here), both of which must lose nothing. */
static void bench_delivery(void)
{
	struct delivery d;
	struct rusage ru;
	double secs;

	if (delivery_run("0", "4M", &d, &secs, &ru)) {
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
	if (delivery_run("10000", "256K", &d, &secs, &ru)) {
		printf("# skipped: delivery at 10k/s: gstrace failed\n");
		return;
	}
	printf("BENCH delivery.events_per_s_at_10k %.0f events/s\n", (double)d.events / secs);
	printf("BENCH delivery.lost_events_at_10k %llu events\n", (unsigned long long)d.lost);
	if (delivery_run("100000", NULL, &d, &secs, &ru)) {
		printf("# skipped: delivery at 100k/s with the default buffer: gstrace failed\n");
		return;
	}
	printf("BENCH delivery.events_per_s.default %.0f events/s\n", (double)d.events / secs);
	printf("BENCH delivery.lost_events.default %llu events\n", (unsigned long long)d.lost);
}

/* ---- size -------------------------------------------------------------- */

static void bench_size(void)
{
	char tmp[] = "/tmp/gs_bench_stripXXXXXX";
	char *argv[] = { "strip", "-o", tmp, GSTRACE, NULL };
	struct child c;
	struct stat sb;
	int fd = mkstemp(tmp), status;

	if (fd < 0 || bench_spawn(&c, argv, false, false)) {
		printf("# skipped: size.dynamic_stripped_bytes: no temporary file\n");
		return;
	}
	close(fd);
	status = bench_finish(&c, 0, NULL);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && stat(tmp, &sb) == 0)
		printf("BENCH size.dynamic_stripped_bytes %lld bytes\n", (long long)sb.st_size);
	else
		printf("# skipped: size.dynamic_stripped_bytes: strip failed\n");
	unlink(tmp);
}

/* Sections named on the command line run alone (size, startup, rss, bpf,
 * delivery). */
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
	if (bench_have_program("bpftrace", bpftrace, sizeof(bpftrace)))
		peer = bpftrace;

	if (bench_spawn(&fixture, fx, true, false) ||
	    bench_drive(&fixture, bench_line_contains, NULL, "ready", WAIT_MS) != 1) {
		printf("# skipped: startup, bpf.run_ns, delivery, rss: fixture did not start\n");
		bench_finish(&fixture, SIGKILL, NULL);
		return 0;
	}
	fpid = fixture.pid;
	if (wanted(argc, argv, "startup"))
		bench_startup(fpid, peer);
	if (wanted(argc, argv, "rss"))
		bench_rss(fpid, peer);
	bench_finish(&fixture, SIGUSR1, NULL);

	if (!wanted(argc, argv, "bpf")) {
		/* nothing */
	} else if (bench_spawn(&deep, deep_fx, true, false) ||
	    bench_drive(&deep, bench_line_contains, NULL, "ready", WAIT_MS) != 1) {
		printf("# skipped: bpf.run_ns: the rate fixture did not start\n");
		bench_finish(&deep, SIGKILL, NULL);
	} else {
		bench_bpf_stats(deep.pid, peer);
		bench_finish(&deep, SIGINT, NULL);
	}
	if (wanted(argc, argv, "delivery"))
		bench_delivery();
	return 0;
}
