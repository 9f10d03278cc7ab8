/* What the end-to-end benchmarks share (bench_util.c): children with their
 * output read line by line, the median time from launch to a line (with
 * gstrace --verbose's start-up phases), and the BPF run time of the
 * programs a tracer loads. */
#ifndef GS_BENCH_UTIL_H
#define GS_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#define STARTUP_RUNS 5
#define STATS_SECONDS 2
#define STATS_RUNS 5 /* medians of this many runs */
#define WAIT_MS 10000

struct child {
	pid_t pid;
	int out; /* stdout pipe, -1 when not captured */
	int err; /* stderr pipe, -1 when not captured */
	char obuf[1 << 16], ebuf[4096]; /* stdout: a fast trace prints 100+ MB/s */
	size_t olen, elen;
};

double bench_now_ms(void);
/* Starts argv[0] with stdout and/or stderr piped (else /dev/null). */
int bench_spawn(struct child *c, char *const argv[], bool want_out, bool want_err);
/* Polls the child's pipes, feeding lines to the callbacks, until one returns
 * true (returns 1), both pipes close (0) or timeout_ms passes (-1). */
int bench_drive(struct child *c, bool (*out_line)(const char *, void *),
		bool (*err_line)(const char *, void *), void *arg, int timeout_ms);
/* Ends the child (sig, then SIGKILL after 3 s), closes its pipes. */
int bench_finish(struct child *c, int sig, struct rusage *ru);
bool bench_line_contains(const char *line, void *arg);
bool bench_line_is(const char *line, void *arg);
bool bench_have_program(const char *name, char *path, size_t cap);
int bench_cmp_double(const void *a, const void *b);

/* The phases of gstrace --verbose's "start-up:" line, per run. */
#define MAX_PHASES 12

struct phases {
	size_t n;
	char name[MAX_PHASES][32];
	double ms[STARTUP_RUNS][MAX_PHASES];
	int run;
	bool seen;
};

/* Median of STARTUP_RUNS times from fork/exec to the line matched by
 * match(line, key) on stdout; < 0 when it never came. With ph, stderr is
 * read too for --verbose's phase line. */
double bench_startup_ms(char *const argv[], bool (*match)(const char *, void *), const char *key,
			struct phases *ph);
/* Each phase's median over the runs, as `BENCH <metric>.<phase> ...`. */
void bench_print_phases(const struct phases *ph, const char *metric);

struct run_stats {
	uint64_t time_ns, main_cnt;
	int progs;
};

/* Sums run_time_ns over pid's programs whose name starts with prefix (""
 * for all); main_cnt is run_cnt of the program named main_name, or the
 * largest run_cnt when main_name is NULL. */
void bench_collect_stats(pid_t pid, const char *prefix, const char *main_name,
			 struct run_stats *st);
/* Runs argv, waits for its ready line (stderr for gstrace, stdout for
 * bpftrace), lets it run STATS_SECONDS and reads its programs' stats. */
int bench_run_stats(char *const argv[], bool ready_on_err, const char *ready,
		    const char *prefix, const char *main_name, struct run_stats *st);
/* Median of the BPF run time per hit of argv's programs over STATS_RUNS
 * runs; < 0 when no run gave stats. */
double bench_median_run_ns(char *const argv[], bool ready_on_err, const char *ready,
			   const char *prefix, const char *main_name);
/* `BENCH metric N ns`, or a skip line when ns < 0. */
void bench_print_ns(const char *metric, double ns);
/* Turns kernel.bpf_stats_enabled on, keeping its old value in old; NULL
 * when the sysctl cannot be opened. */
FILE *bench_bpf_stats_on(char *old, size_t size);
/* Writes old back and closes f. */
void bench_bpf_stats_restore(FILE *f, const char *old);

#endif /* GS_BENCH_UTIL_H */
