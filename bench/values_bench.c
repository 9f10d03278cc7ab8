/* Source-level values: the BPF time per hit of a print of five
 * variables (a parameter, a struct member through a pointer, a global, an
 * array element, a 16-byte string) next to bpftrace's args-> on the same
 * function in the same run; the time to build that program; the same for
 * standard-library values (a std::string, a std::vector<int> of
 * 16, a Rust Vec<i32> of 16 and HashMap<i32, i32> of 16, and the build of
 * a print of five C++ ones); and launch to
 * the first event of a print of a local in libpython (the pyenv build has
 * DWARF) with the interpreter running, cold (no cache: every unit of its
 * DWARF walked for the function index) and warm (the index a first run
 * left on disk), next to bpftrace's uprobe printing arg0 (it has no DWARF
 * locals); the BPF time per call of `@h = hist($duration)` in a return
 * probe (its entry program included) next to bpftrace's @start/hist pair.
 * Needs root for the BPF figures. */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gs/internal/runtime.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include "bench_util.h"

#ifndef GS_BENCH_GSTRACE
#define GS_BENCH_GSTRACE "gstrace"
#endif
#ifndef GS_BENCH_VALUES_FIXTURE
#define GS_BENCH_VALUES_FIXTURE "values_bench_fixture"
#endif

#ifndef GS_BENCH_VIEWS_FIXTURE
#define GS_BENCH_VIEWS_FIXTURE "views_bench_fixture"
#endif

#define READY_MARKER "GS_BENCH_READY"
#define BUILD_RUNS 2000
#define VARS5 "trace vb_probe { print \"{} {} {} {} {:s}\", n, it->x, g_counter, g_table[3], " \
	"it->name; }"
/* five standard-library values of the C++ fixture (references, hence
 * the stars), in one print */
#define CPP5 "trace vb_cpp { print \"{} {} {} {} {}\", *s, *v, *m, *sp, *o; }"
/* a local of libpython, in a function a dict-filling loop calls */
#define PY_LOCAL "trace insertdict { print old_value; }"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* ---- building the program -------------------------------------------------- */

/* Median time of gs_program_build of the first probe of script in module,
 * its names resolved once by the plan (as the run does). */
static void bench_build(const char *metric, const char *module, const char *script)
{
	struct gs_plan_opts po = { .sz = sizeof(po), .module = module };
	static double t[BUILD_RUNS];
	const struct gs_plan_trace *tr;
	struct gs_script *s = NULL;
	struct gs_plan *p = NULL;
	struct gs_trace_spec spec;
	struct gs_error err;

	if (gs_script_parse(script, strlen(script), NULL, &s, &err) || gs_plan_new(&po, &p, &err) ||
	    gs_plan_add_script(p, s, &err)) {
		printf("# skipped: %s: %s\n", metric, err.msg);
		goto out;
	}
	tr = gs_plan_trace_at(p, 0);
	spec = tr->spec;
	spec.body = tr->probes[0].body;
	for (int i = 0; i < BUILD_RUNS; i++) {
		struct gs_program *prog;
		double t0 = now_us();

		if (gs_program_build(&spec, gs_plan_program_opts(p), &prog, &err)) {
			printf("# skipped: %s: %s\n", metric, err.msg);
			goto out;
		}
		t[i] = now_us() - t0;
		if (i == 0)
			printf("# %s: %zu instructions\n", metric, prog->main.len);
		gs_program_free(prog);
	}
	qsort(t, BUILD_RUNS, sizeof(t[0]), bench_cmp_double);
	printf("BENCH %s %.1f us\n", metric, t[BUILD_RUNS / 2]);
out:
	gs_plan_free(p);
	gs_script_free(s);
}

/* ---- BPF run time: gstrace and bpftrace on the same function -------------- */

static double median(double *v, int n)
{
	if (n == 0)
		return -1;
	qsort(v, (size_t)n, sizeof(v[0]), bench_cmp_double);
	return v[n / 2];
}

/* Medians of STATS_RUNS runs each, gstrace's (reads without faults, and
 * sleepable with reads that fault pages in) and bpftrace's taking turns so
 * that the load of a shared machine weighs on all alike. */
static void bench_run_ns(pid_t fixture, const char *bpftrace)
{
	char pid[16], old[16] = "0", prog[1024];
	FILE *f = bench_bpf_stats_on(old, sizeof(old));
	char *gs[] = { GS_BENCH_GSTRACE, "-p", pid, "--emit-ready-marker", READY_MARKER,
		       "--fault-in", "off", "-s", VARS5, NULL };
	char *gs_sleep[] = { GS_BENCH_GSTRACE, "-p", pid, "--emit-ready-marker", READY_MARKER,
			     "--fault-in", "on", "-s", VARS5, NULL };
	char *bt[] = { (char *)bpftrace, "-e", prog, NULL };
	double ours[STATS_RUNS], sleep[STATS_RUNS], peer[STATS_RUNS];
	int n_ours = 0, n_sleep = 0, n_peer = 0;
	bool sleepable = gs_sleepable_uprobe_supported();

	if (!f) {
		printf("# skipped: bpf.run_ns.print_vars5: no kernel.bpf_stats_enabled\n");
		return;
	}
	snprintf(pid, sizeof(pid), "%d", (int)fixture);
	/* the same five: args-> through DWARF, the globals by uaddr() */
	snprintf(prog, sizeof(prog), "uprobe:%s:vb_probe /pid == %d/ { printf(\"%%d %%d %%d "
		 "%%d %%s\\n\", args->n, args->it->x, *(int32 *)uaddr(\"g_counter\"), "
		 "*((int32 *)uaddr(\"g_table\") + 3), args->it->name); }",
		 GS_BENCH_VALUES_FIXTURE, (int)fixture);
	for (int i = 0; i < STATS_RUNS; i++) {
		struct run_stats st;

		if (bench_run_stats(gs, true, READY_MARKER, "gs_trace", "gs_trace0", &st) == 0)
			ours[n_ours++] = (double)st.time_ns / (double)st.main_cnt;
		if (sleepable &&
		    bench_run_stats(gs_sleep, true, READY_MARKER, "gs_trace", "gs_trace0", &st) == 0)
			sleep[n_sleep++] = (double)st.time_ns / (double)st.main_cnt;
		if (bpftrace && bench_run_stats(bt, false, "Attaching", "", NULL, &st) == 0)
			peer[n_peer++] = (double)st.time_ns / (double)st.main_cnt;
	}
	bench_print_ns("bpf.run_ns.print_vars5", median(ours, n_ours));
	if (sleepable)
		bench_print_ns("bpf.run_ns.print_vars5.sleepable", median(sleep, n_sleep));
	else
		printf("# skipped: bpf.run_ns.print_vars5.sleepable: no sleepable uprobes "
		       "(Linux 6.0+)\n");
	if (bpftrace)
		bench_print_ns("peer.bpftrace.run_ns.print_vars5", median(peer, n_peer));
	else
		printf("# skipped: peer.bpftrace.run_ns.print_vars5: bpftrace not installed\n");
	bench_bpf_stats_restore(f, old);
}

/* ---- BPF run time of latency: an entry and a return per call ------------ */

/* `@h = hist($duration)` in a return probe is two programs per
 * call, the entry's (the time kept by thread and sp) and the return's (it
 * found, removed, the histogram updated): their run time together per
 * call, next to bpftrace's @start[tid] / hist / delete pair. */
static void bench_latency_run_ns(pid_t fixture, const char *bpftrace)
{
	char pid[16], old[16] = "0", prog[1024];
	FILE *f = bench_bpf_stats_on(old, sizeof(old));
	char *gs[] = { GS_BENCH_GSTRACE, "-p", pid, "--emit-ready-marker", READY_MARKER, "-s",
		       "trace vb_probe return { @h = hist($duration); }", NULL };
	char *bt[] = { (char *)bpftrace, "-e", prog, NULL };
	double ours[STATS_RUNS], peer[STATS_RUNS];
	int n_ours = 0, n_peer = 0;

	if (!f) {
		printf("# skipped: latency.bpf.run_ns.entry_return: no kernel.bpf_stats_enabled\n");
		return;
	}
	snprintf(pid, sizeof(pid), "%d", (int)fixture);
	snprintf(prog, sizeof(prog), "uprobe:%s:vb_probe /pid == %d/ { @start[tid] = nsecs; } "
		 "uretprobe:%s:vb_probe /pid == %d && @start[tid]/ { "
		 "@h = hist(nsecs - @start[tid]); delete(@start[tid]); }",
		 GS_BENCH_VALUES_FIXTURE, (int)fixture, GS_BENCH_VALUES_FIXTURE, (int)fixture);
	for (int i = 0; i < STATS_RUNS; i++) {
		struct run_stats st;

		/* both gs_trace0 (the return) and gs_trace0_entry, per return */
		if (bench_run_stats(gs, true, READY_MARKER, "gs_trace", "gs_trace0", &st) == 0)
			ours[n_ours++] = (double)st.time_ns / (double)st.main_cnt;
		if (bpftrace && bench_run_stats(bt, false, "Attaching", "", NULL, &st) == 0)
			peer[n_peer++] = (double)st.time_ns / (double)st.main_cnt;
	}
	bench_print_ns("latency.bpf.run_ns.entry_return", median(ours, n_ours));
	if (bpftrace)
		bench_print_ns("latency.bpftrace.run_ns.entry_return", median(peer, n_peer));
	else
		printf("# skipped: latency.bpftrace.run_ns.entry_return: bpftrace not installed\n");
	bench_bpf_stats_restore(f, old);
}

/* ---- BPF run time of standard-library values ----------------------------- */

/* Median BPF time per hit of gstrace printing `script` in pid (reads
 * without faults, as print_vars5), and of bpftrace's `peer` program when
 * there is one (it has no standard-library printers: the same bytes read
 * and printed raw), taking turns. */
static void bench_view_run_ns(const char *metric, pid_t pid, const char *script,
			      const char *bpftrace, const char *peer)
{
	char p[16], prog[1024], peer_metric[128];
	char *gs[] = { GS_BENCH_GSTRACE, "-p", p, "--emit-ready-marker", READY_MARKER,
		       "--fault-in", "off", "-s", (char *)script, NULL };
	char *bt[] = { (char *)bpftrace, "-e", prog, NULL };
	double ours[STATS_RUNS], theirs[STATS_RUNS];
	int n_ours = 0, n_theirs = 0;

	snprintf(p, sizeof(p), "%d", (int)pid);
	snprintf(prog, sizeof(prog), "%s", peer ? peer : "");
	for (int i = 0; i < STATS_RUNS; i++) {
		struct run_stats st;

		if (bench_run_stats(gs, true, READY_MARKER, "gs_trace", "gs_trace0", &st) == 0)
			ours[n_ours++] = (double)st.time_ns / (double)st.main_cnt;
		if (bpftrace && peer && bench_run_stats(bt, false, "Attaching", "", NULL, &st) == 0)
			theirs[n_theirs++] = (double)st.time_ns / (double)st.main_cnt;
	}
	bench_print_ns(metric, median(ours, n_ours));
	if (!peer)
		return;
	/* bpf.run_ns.X -> peer.bpftrace.run_ns.X, as print_vars5's */
	snprintf(peer_metric, sizeof(peer_metric), "peer.bpftrace.%s",
		 strncmp(metric, "bpf.", 4) ? metric : metric + 4);
	if (bpftrace)
		bench_print_ns(peer_metric, median(theirs, n_theirs));
	else
		printf("# skipped: %s: bpftrace not installed\n", peer_metric);
}

/* One std::string of 20 characters and one std::vector<int> of 16 (C++,
 * next to bpftrace's str() and buf() of the same bytes), a Rust Vec<i32>
 * of 16 and a HashMap<i32, i32> of 16 entries. */
static void bench_views_run_ns(const char *bpftrace)
{
	char *cpp[] = { GS_BENCH_VIEWS_FIXTURE, NULL };
	char str[512], vec[512];
	char old[16] = "0";
	FILE *f = bench_bpf_stats_on(old, sizeof(old));
	struct child c;

	if (!f) {
		printf("# skipped: bpf.run_ns.print_cpp_string and the other views: "
		       "no kernel.bpf_stats_enabled\n");
		return;
	}
	if (bench_spawn(&c, cpp, false, false)) {
		printf("# skipped: bpf.run_ns.print_cpp_string, print_vector16: "
		       "cannot start the C++ fixture\n");
	} else {
		usleep(100000);
		/* std::string's _M_p, the vector's 16 ints from _M_start */
		snprintf(str, sizeof(str), "uprobe:%s:_Z6vb_cpp* /pid == %d/ { printf(\"%%s\\n\", "
			 "str(*(uint64 *)arg0)); }", GS_BENCH_VIEWS_FIXTURE, (int)c.pid);
		snprintf(vec, sizeof(vec), "uprobe:%s:_Z6vb_cpp* /pid == %d/ { printf(\"%%r\\n\", "
			 "buf(*(uint64 *)arg1, 64)); }", GS_BENCH_VIEWS_FIXTURE, (int)c.pid);
		bench_view_run_ns("bpf.run_ns.print_cpp_string", c.pid, "trace vb_cpp { print *s; }",
				  bpftrace, str);
		bench_view_run_ns("bpf.run_ns.print_vector16", c.pid, "trace vb_cpp { print *v; }",
				  bpftrace, vec);
		bench_finish(&c, SIGKILL, NULL);
	}
#ifdef GS_BENCH_VIEWS_RUST
	char *rust[] = { GS_BENCH_VIEWS_RUST, NULL };

	if (bench_spawn(&c, rust, false, false)) {
		printf("# skipped: bpf.run_ns.print_rust_vec16, print_hashmap16: "
		       "cannot start the Rust fixture\n");
	} else {
		usleep(100000);
		bench_view_run_ns("bpf.run_ns.print_rust_vec16", c.pid,
				  "trace vb_rust { print *v; }", bpftrace, NULL);
		bench_view_run_ns("bpf.run_ns.print_hashmap16", c.pid,
				  "trace vb_rust { print *h; }", bpftrace, NULL);
		bench_finish(&c, SIGKILL, NULL);
	}
#else
	printf("# skipped: bpf.run_ns.print_rust_vec16, print_hashmap16: no fixture, "
	       "because /usr/bin/rustc is absent\n");
#endif
	bench_bpf_stats_restore(f, old);
}

/* ---- launch to the first event in libpython ------------------------------- */

/* pyenv's global python3 (its `version` file; else the last installed)
 * and its libpython, or false. */
static bool find_python(char *python, char *libpython, size_t size)
{
	const char *root = getenv("PYENV_ROOT") ? getenv("PYENV_ROOT") : "/root/.pyenv";
	char pattern[512], version[64] = "3.*";
	FILE *f;
	glob_t g;
	bool ok = false;

	snprintf(pattern, sizeof(pattern), "%s/version", root);
	if ((f = fopen(pattern, "r"))) {
		if (fscanf(f, "%63s", version) != 1 || strncmp(version, "3.", 2))
			snprintf(version, sizeof(version), "3.*");
		fclose(f);
	}
	snprintf(pattern, sizeof(pattern), "%s/versions/%s/lib/libpython3.*.so.1.0", root, version);
	if (glob(pattern, 0, NULL, &g) != 0)
		return false;
	for (size_t i = g.gl_pathc; i-- > 0 && !ok;) {
		const char *lib = g.gl_pathv[i], *ver = strstr(lib, "libpython");

		snprintf(libpython, size, "%s", lib);
		snprintf(python, size, "%.*sbin/python%.*s", (int)(strstr(lib, "lib/") - lib), lib,
			 (int)(strstr(ver, ".so") - ver - 9), ver + 9);
		ok = access(python, X_OK) == 0;
	}
	globfree(&g);
	return ok;
}

/* bpftrace's line for print(arg0): a number. */
static bool line_is_number(const char *line, void *arg)
{
	(void)arg;
	return line[0] >= '0' && line[0] <= '9' && line[strspn(line, "0123456789")] == '\0';
}

/* Launch to the first event with the cache of function indexes (and CFI
 * tables) at dir: "off" is a first run's cost (every unit of libpython's
 * DWARF walked), a directory a run filled is every later run's. */
static void python_startup_with(char *const gs[], const char *dir, const char *metric,
				const char *phases)
{
	struct phases ph = { 0 };
	double ms;

	setenv("GSTRACE_CFI_CACHE", dir, 1);
	ms = bench_startup_ms(gs, bench_line_contains, "TraceID:", &ph);
	if (ms < 0) {
		printf("# skipped: %s: no event from gstrace\n", metric);
		return;
	}
	printf("BENCH %s %.2f ms\n", metric, ms);
	bench_print_phases(&ph, phases);
}

static void bench_python_startup(void)
{
	char python[512], libpython[512], pid[16], dir[] = "/tmp/gs-bench-cache-XXXXXX";
	char *py[] = { python, "-c", "d = {}\nwhile True:\n    d = {i: i for i in range(64)}\n",
		       NULL };
	char *gs[] = { GS_BENCH_GSTRACE, "-p", pid, "--max-events", "1", "--verbose", "-s",
		       PY_LOCAL, NULL };
	char bpftrace[512], prog[1024], *bt[] = { bpftrace, "-e", prog, NULL };
	const char *old = getenv("GSTRACE_CFI_CACHE");
	char *saved = old ? strdup(old) : NULL;
	struct phases ignored = { 0 };
	struct child c;
	double ms;

	if (!find_python(python, libpython, sizeof(python))) {
		printf("# skipped: startup.first_event_ms.vars: no pyenv python with libpython\n");
		free(saved);
		return;
	}
	printf("# %s\n", libpython);
	bench_build("codegen.vars.build_us.libpython_local", libpython, PY_LOCAL);
	if (bench_spawn(&c, py, false, false)) {
		printf("# skipped: startup.first_event_ms.vars: cannot start %s\n", python);
		free(saved);
		return;
	}
	usleep(300000);
	snprintf(pid, sizeof(pid), "%d", (int)c.pid);
	python_startup_with(gs, "off", "startup.first_event_ms.vars.cold",
			    "startup.phase_ms.vars.cold");
	if (mkdtemp(dir)) {
		setenv("GSTRACE_CFI_CACHE", dir, 1);
		bench_startup_ms(gs, bench_line_contains, "TraceID:", &ignored); /* fills it */
		python_startup_with(gs, dir, "startup.first_event_ms.vars",
				    "startup.phase_ms.vars");
		snprintf(prog, sizeof(prog), "rm -rf %s", dir);
		if (system(prog) != 0)
			printf("# could not remove %s\n", dir);
	}
	if (saved)
		setenv("GSTRACE_CFI_CACHE", saved, 1);
	else
		unsetenv("GSTRACE_CFI_CACHE");
	free(saved);
	/* bpftrace has no DWARF locals: the same probe printing its first
	 * argument (the dict), launch to the first line */
	if (bench_have_program("bpftrace", bpftrace, sizeof(bpftrace))) {
		snprintf(prog, sizeof(prog), "uprobe:%s:insertdict /pid == %d/ { print(arg0); "
			 "exit(); }", libpython, (int)c.pid);
		ms = bench_startup_ms(bt, line_is_number, NULL, NULL);
		if (ms < 0)
			printf("# skipped: peer.bpftrace.startup.first_event_ms.vars: no line\n");
		else
			printf("BENCH peer.bpftrace.startup.first_event_ms.vars %.2f ms\n", ms);
	} else {
		printf("# skipped: peer.bpftrace.startup.first_event_ms.vars: not installed\n");
	}
	bench_finish(&c, SIGKILL, NULL);
}

int main(void)
{
	char bpftrace[512], *fx[] = { GS_BENCH_VALUES_FIXTURE, NULL };
	struct child c;

	bool have_bpftrace = bench_have_program("bpftrace", bpftrace, sizeof(bpftrace));

	bench_build("codegen.vars.build_us", GS_BENCH_VALUES_FIXTURE, VARS5);
	/* The code generator alone on real DWARF: the C++ fixture's types,
	 * views and locations resolved and planned once, outside the timed
	 * gs_program_build (target: 200 us). */
	bench_build("codegen.cpp.build_us", GS_BENCH_VIEWS_FIXTURE, CPP5);
	if (geteuid() != 0) {
		printf("# skipped: bpf.run_ns.print_vars5, startup.first_event_ms.vars: not root\n");
		return 0;
	}
	if (bench_spawn(&c, fx, false, false)) {
		printf("# skipped: bpf.run_ns.print_vars5: cannot start the fixture\n");
	} else {
		usleep(100000);
		bench_run_ns(c.pid, have_bpftrace ? bpftrace : NULL);
		bench_latency_run_ns(c.pid, have_bpftrace ? bpftrace : NULL);
		bench_finish(&c, SIGKILL, NULL);
	}
	bench_views_run_ns(have_bpftrace ? bpftrace : NULL);
	bench_python_startup();
	return 0;
}
