/* Stack profiles: counting of bt depth-16 events under --aggregate at a
 * fixed hit rate, in userspace and in BPF (--count-in; events counted per
 * second, events lost or stacks dropped at that rate, gstrace's CPU per
 * event), the flame graph of 10k distinct stacks, and the pprof profile
 * of 10k distinct stacks of the fixture's frames (symbolized, then packed
 * and gzipped).
 * The live part needs root; it says why when it skips. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gs/fold.h>
#include <gs/modfile.h>
#include <gs/pprof.h>

#ifndef GS_BENCH_GSTRACE
#define GS_BENCH_GSTRACE "gstrace"
#endif
#ifndef GS_BENCH_PROFILE_FIXTURE
#define GS_BENCH_PROFILE_FIXTURE "profile_bench_fixture"
#endif

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void bench_flamegraph(void)
{
	struct gs_counts *c = gs_counts_new();
	char stack[1024];
	double best = 1e9;
	FILE *f = fopen("/dev/null", "w");

	srand(1);
	for (int i = 0; c && i < 10000; i++) {
		size_t n = (size_t)snprintf(stack, sizeof(stack), "_start;main");

		for (int d = 0; d < 14; d++)
			n += (size_t)snprintf(stack + n, sizeof(stack) - n, ";fn_%d_%d", d,
					      d < 4 ? rand() % 4 : rand() % 50);
		gs_counts_add(c, stack, n, 1 + (uint64_t)(rand() % 100), NULL);
	}
	for (int run = 0; f && c && run < 5; run++) {
		double t0 = now_ms();

		gs_flamegraph_write(c, "bench", f);
		if (now_ms() - t0 < best)
			best = now_ms() - t0;
	}
	printf("BENCH flamegraph.ms.10k_stacks %.1f ms\n", best);
	if (f)
		fclose(f);
	gs_counts_free(c);
}

/* 10k distinct depth-16 stacks of pcs in the fixture's main, resolved by
 * cookie (their process gone): the time to add them (symbolizing each pc
 * once) and the best of five writes. */
static void bench_pprof(void)
{
	const char *modules[] = { GS_BENCH_PROFILE_FIXTURE };
	GS_OPTS(gs_frames_opts, fo, .modules = modules, .nmodules = 1);
	struct gs_backtrace_frame frames[16];
	struct gs_inst insts[2] = { { .type = GS_INST_BACKTRACE }, { .type = GS_INST_END } };
	struct gs_event ev = { .pid = 0x7ffffff0u, .insts = insts, .ninsts = 2 };
	struct gs_modfiles *files = NULL;
	struct gs_modfile *m = NULL;
	struct gs_frames *fr = NULL;
	struct gs_pprof *p = NULL;
	uint64_t main_pc = 0, main_size = 0;
	double t0, add_ms, best = 1e9;
	FILE *f = fopen("/dev/null", "w");

	if (gs_modfiles_new(NULL, &files, NULL) || gs_modfile_open(files, modules[0], &m, NULL) ||
	    gs_modfile_symbols_named(m, "main", &main_pc, &main_size, 1) != 1 || main_size < 64 ||
	    gs_frames_new(&fo, &fr, NULL) || !f) {
		printf("BENCH pprof skipped: %s has no main to put frames in\n", modules[0]);
		goto out;
	}
	{
		GS_OPTS(gs_pprof_opts, po, .frames = fr);

		if (gs_pprof_new(&po, &p, NULL))
			goto out;
	}
	insts[0].backtrace.frame_count = insts[0].backtrace.requested_depth = 16;
	insts[0].backtrace.frames = frames;
	srand(2);
	t0 = now_ms();
	for (int i = 0; i < 10000; i++) {
		for (int d = 0; d < 16; d++) {
			uint64_t pc = main_pc + 1 + (uint64_t)(rand() % 64) * (main_size - 1) / 64;

			frames[d] = (struct gs_backtrace_frame){
				.module_cookie = gs_modfile_id(m)->cookie, .pc = pc, .raw_ip = pc };
		}
		gs_pprof_add(p, &ev, 1 + (uint64_t)(rand() % 100));
	}
	add_ms = now_ms() - t0;
	for (int run = 0; run < 5; run++) {
		t0 = now_ms();
		gs_pprof_write(p, f, NULL);
		if (now_ms() - t0 < best)
			best = now_ms() - t0;
	}
	printf("BENCH pprof.add_ms.10k_stacks %.1f ms (%zu distinct samples)\n", add_ms,
	       gs_pprof_samples(p));
	printf("BENCH pprof.write_ms.10k_stacks %.1f ms\n", best);
out:
	gs_pprof_free(p);
	gs_frames_free(fr);
	gs_modfiles_free(files);
	if (f)
		fclose(f);
}

/* gstrace --aggregate on the fixture at `rate` hits/s for 3 s, counting
 * in BPF or in userspace (metrics of BPF's end in .bpf). */
static void bench_aggregate(long rate, bool bpf)
{
	const char *sfx = bpf ? ".bpf" : "";
	char rate_s[32], pid_s[32], line[512];
	char *fx[] = { GS_BENCH_PROFILE_FIXTURE, rate_s, "60", NULL };
	int out[2], err[2], fxp[2];
	pid_t fixture, gs;
	FILE *fo, *fe, *ff;
	unsigned long long events = 0, lost = 0, total;
	double secs = 0;
	struct rusage ru;
	int st;

	if (geteuid() != 0) {
		printf("# aggregate: skipped, needs root (uprobes and BPF)\n");
		return;
	}
	snprintf(rate_s, sizeof(rate_s), "%ld", rate);
	if (pipe(out) || pipe(err) || pipe(fxp))
		return;
	fixture = fork();
	if (fixture == 0) {
		/* gstrace's pipes are not the fixture's: holding them would keep
		 * the reads below waiting for the fixture's end */
		close(out[0]);
		close(out[1]);
		close(err[0]);
		close(err[1]);
		dup2(fxp[1], 1);
		execv(fx[0], fx);
		_exit(127);
	}
	close(fxp[1]);
	ff = fdopen(fxp[0], "r");
	if (!ff || !fgets(line, sizeof(line), ff)) {
		printf("# aggregate: the fixture did not start\n");
		return;
	}
	snprintf(pid_s, sizeof(pid_s), "%d", (int)fixture);
	gs = fork();
	if (gs == 0) {
		char *argv[] = { GS_BENCH_GSTRACE, "-p", pid_s, "--aggregate", "--backtrace-depth",
				 "16", "--ringbuf-size", "64M", "--duration", "3",
				 "--count-in", bpf ? "bpf" : "user", "-s",
				 "trace prof_leaf { bt; }", NULL };

		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	fo = fdopen(out[0], "r");
	fe = fdopen(err[0], "r");
	while (fo && fgets(line, sizeof(line), fo))
		(void)sscanf(line, "@ %llu events, %*u distinct, in %lf s", &events, &secs);
	while (fe && fgets(line, sizeof(line), fe))
		if (strstr(line, " lost ") && sscanf(strstr(line, "(total "), "(total %llu",
						     &total) == 1)
			lost = total;
	wait4(gs, &st, 0, &ru);
	kill(fixture, SIGKILL);
	waitpid(fixture, NULL, 0);
	if (fo)
		fclose(fo);
	if (fe)
		fclose(fe);
	fclose(ff);
	if (!secs) {
		printf("# aggregate: gstrace printed no table (exit %d)\n", WEXITSTATUS(st));
		return;
	}
	printf("BENCH aggregate.events_per_s%s %.0f events/s (offered %ld hits/s, bt depth 16, "
	       "%s counting)\n", sfx, (double)events / secs, rate, bpf ? "BPF" : "userspace");
	/* BPF counting: stacks a full stack_counts map dropped, reported as lost */
	printf("BENCH aggregate.lost_events%s %llu events\n", sfx, lost);
	/* what counting costs gstrace itself: its CPU time per event */
	if (events)
		printf("BENCH aggregate.cpu_us_per_event%s %.2f us\n", sfx,
		       ((double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
			(double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec) /
			       (double)events);
}

int main(int argc, char **argv)
{
	bench_flamegraph();
	bench_pprof();
	bench_aggregate(argc > 1 ? atol(argv[1]) : 100000, false);
	bench_aggregate(argc > 1 ? atol(argv[1]) : 100000, true);
	return 0;
}
