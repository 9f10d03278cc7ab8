/* Kernel suite: what the agent (gstrace --serve) asks of a running
 * session, on the rt_loop fixture: stack counts drained (each drain gives
 * what came since the last, and leaves the map empty), the CPU sampler's
 * clock stopped and started, samples kept per thread, each trace's run
 * statistics with the kernel's run-time statistics on, the maps' memory,
 * a poll woken by the caller's descriptor, a script's probes beside a
 * counting sampler in one plan and one session, and the module maps of
 * --all and -t under processes that come and go, or that do not fit. Skips (exit 77) when bpf()
 * or uprobes are not usable, and each sampler test when this kernel has no
 * bpf_loop (Linux 5.17+). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <gs/internal/program.h>
#include <gs/modfile.h>
#include <gs/runtime.h>

#include "rt_fixture.h"
#include "rt_trace.h"

#define SAMPLE_HZ 499
#define SAMPLE_ID 100
/* calls of rt_mid: about half a second of CPU in the fixture */
#define BURN "c 100000000"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* What the events and the counts said. */
struct seen {
	size_t events;          /* events of the script's trace */
	uint64_t counted;       /* the counts' sum */
	size_t stacks;          /* distinct stacks */
	size_t other_pid;       /* counts of another tgid than pid */
	size_t tid_zero, tid_pid; /* counts whose tid is 0, or the fixture's */
	uint32_t pid;
	uint64_t trace_id;      /* of the counts */
	uint64_t mine, deep;    /* counts of pid, and of its stacks of 4 frames or more */
	uint32_t watch;         /* another process... */
	uint64_t watched;       /* ...and its counts */
};

static int on_event(void *arg, const struct gs_event *ev)
{
	struct seen *s = arg;

	s->events++;
	(void)ev;
	return 0;
}

static int on_count(void *arg, const struct gs_event *ev, uint64_t count)
{
	struct seen *s = arg;

	s->counted += count;
	s->stacks++;
	s->trace_id = ev->trace_id;
	s->other_pid += ev->pid != s->pid;
	if (s->watch && ev->pid == s->watch)
		s->watched += count;
	s->tid_zero += ev->tid == 0;
	s->tid_pid += ev->tid == s->pid;
	if (ev->pid == s->pid)
		s->mine += count;
	for (size_t i = 0; ev->pid == s->pid && i < ev->ninsts; i++)
		if (ev->insts[i].type == GS_INST_BACKTRACE &&
		    ev->insts[i].backtrace.frame_count >= 4)
			s->deep += count;
	return 0;
}

static void reset(struct seen *s)
{
	uint32_t pid = s->pid, watch = s->watch;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->watch = watch;
}

static bool loop_walker(void)
{
	if (gs_bpf_loop_supported())
		return true;
	print_message("skipped: this kernel has no bpf_loop (Linux 5.17+): no CPU samples\n");
	return false;
}

/* A plan on the fixture's pid, built: trace rt_leaf { bt; } counted in
 * BPF when leaf_counts, and (samples) a sampler of the process. */
static struct gs_plan *plan_for(pid_t pid, bool leaf_counts, const struct gs_sample_opts *samples,
				struct gs_target_pattern **pat)
{
	static const struct gs_stmt bt[] = { { .kind = GS_STMT_BACKTRACE } };
	static struct gs_trace_spec leaf = { .trace_id = 1, .target = "rt_leaf", .body = bt,
					     .nbody = 1 };
	struct gs_program_opts prog = { .sz = sizeof(prog), .unwinder = GS_UNWINDER_LOOP,
					.filter_pid = (uint32_t)pid,
					.count_stacks = leaf_counts };
	struct gs_plan_opts po = { .sz = sizeof(po), .pid = pid, .program = &prog };
	struct gs_plan *p;
	struct gs_error err;

	*pat = NULL;
	assert_int_equal(gs_plan_new(&po, &p, &err), 0);
	if (leaf_counts && (gs_target_pattern_parse("rt_leaf", pat, &err) ||
			    gs_plan_add(p, *pat, &leaf, &err)))
		fail_msg("rt_leaf: %s", err.msg);
	if (samples && gs_plan_add_samples(p, samples, &err))
		fail_msg("samples: %s", err.msg);
	if (gs_plan_build(p, &err))
		fail_msg("%s", err.msg);
	return p;
}

/* A plan of a script's probes and a counting sampler (trace SAMPLE_ID):
 * on pid, filtered to it, or (pid 0) on the processes running module. */
static struct gs_plan *script_and_sampler_plan(const char *text, pid_t pid, const char *module,
					       struct gs_script **script)
{
	struct gs_sample_opts so = { .sz = sizeof(so), .trace_id = SAMPLE_ID,
				     .frequency = SAMPLE_HZ, .count_stacks = true };
	struct gs_program_opts prog = { .sz = sizeof(prog), .unwinder = GS_UNWINDER_LOOP,
					.filter_pid = (uint32_t)pid };
	struct gs_plan_opts po = { .sz = sizeof(po), .pid = pid, .module = module,
				   .program = &prog };
	struct gs_plan *p;
	struct gs_error err;

	assert_int_equal(gs_script_parse(text, strlen(text), NULL, script, &err), 0);
	assert_int_equal(gs_plan_new(&po, &p, &err), 0);
	if (gs_plan_add_script(p, *script, &err) || gs_plan_add_samples(p, &so, &err) ||
	    gs_plan_build(p, &err))
		fail_msg("%s", err.msg);
	return p;
}

static struct gs_session *start(const struct gs_plan *p, struct seen *seen)
{
	struct gs_session_opts o = { .sz = sizeof(o), .on_event = on_event, .arg = seen };
	struct gs_session *s;
	struct gs_error err;

	assert_int_equal(gs_session_new(&o, &s, &err), 0);
	if (gs_session_start(s, p, &err) < 0)
		fail_msg("%s", err.msg);
	return s;
}

/* The rt_loop fixture and a session on it, with what the session saw. */
struct loop_run {
	struct rt_child c;
	char path[PATH_MAX];            /* of rt_loop */
	struct seen seen;
	struct gs_target_pattern *pat;  /* rt_leaf's, or NULL */
	struct gs_plan *p;
	struct gs_session *s;
};

static void loop_spawn(struct loop_run *r)
{
	assert_true(rt_spawn(rt_path("rt_loop", r->path, sizeof(r->path)), &r->c));
	r->seen.pid = (uint32_t)r->c.pid;
}

/* rt_loop spawned, and plan_for()'s plan on it started. */
static void loop_start(struct loop_run *r, bool leaf_counts, const struct gs_sample_opts *samples)
{
	loop_spawn(r);
	r->p = plan_for(r->c.pid, leaf_counts, samples, &r->pat);
	r->s = start(r->p, &r->seen);
}

static void loop_stop(struct loop_run *r)
{
	gs_session_free(r->s);
	gs_plan_free(r->p);
	free(r->pat);
	rt_stop(&r->c);
}

static void drain(struct loop_run *r)
{
	struct gs_error err;

	reset(&r->seen);
	if (gs_session_drain_stack_counts(r->s, on_count, &r->seen, &err))
		fail_msg("%s", err.msg);
}

/* Polls for ms, whatever comes (a -t session's scan finds the processes). */
static void poll_for(struct gs_session *s, double ms)
{
	double end = now_ms() + ms;
	struct gs_error err;

	while (now_ms() < end)
		assert_true(gs_session_poll(s, 50, &err) >= 0);
}

static void test_drain_gives_the_counts_since_the_last_drain(void **state)
{
	struct loop_run r = { 0 };
	struct gs_error err;

	(void)state;
	if (!loop_walker())
		skip();
	loop_start(&r, true, NULL);
	assert_true(rt_command(&r.c, "c 100"));
	drain(&r);
	print_message("first drain: %llu counts in %zu stacks\n",
		      (unsigned long long)r.seen.counted, r.seen.stacks);
	assert_int_equal(r.seen.counted, 100);
	assert_int_equal(r.seen.trace_id, 1);
	assert_int_equal(r.seen.other_pid, 0);
	assert_int_equal(r.seen.tid_zero, r.seen.stacks); /* threads together */
	/* the map is empty now: a read sees nothing, and so does a drain */
	reset(&r.seen);
	assert_int_equal(gs_session_stack_counts(r.s, on_count, &r.seen, &err), 0);
	assert_int_equal(r.seen.stacks, 0);
	drain(&r);
	assert_int_equal(r.seen.stacks, 0);
	assert_true(rt_command(&r.c, "c 30"));
	drain(&r);
	assert_int_equal(r.seen.counted, 30);
	loop_stop(&r);
}

/* A sampler that starts stopped samples nothing until it is started, and
 * nothing once it is stopped again; per thread, each count carries the
 * tid (the fixture has one thread: its pid). */
static void test_sampling_paused_samples_nothing_until_started(void **state)
{
	struct gs_sample_opts so = { .sz = sizeof(so), .trace_id = SAMPLE_ID,
				     .frequency = SAMPLE_HZ, .count_stacks = true,
				     .paused = true, .per_thread = true };
	struct loop_run r = { 0 };
	struct gs_trace_stats st;
	struct gs_error err;
	int stats_fd;

	(void)state;
	if (!loop_walker())
		skip();
	stats_fd = gs_bpf_run_stats_enable(&err);
	if (stats_fd < 0)
		fail_msg("%s", err.msg);
	loop_start(&r, false, &so);
	/* the plan's programs do not count: this trace alone does */
	assert_false(gs_plan_program_opts(r.p)->count_stacks);

	assert_true(rt_command(&r.c, BURN));
	drain(&r);
	print_message("paused: %llu samples\n", (unsigned long long)r.seen.counted);
	assert_int_equal(r.seen.counted, 0);

	assert_int_equal(gs_session_sampling(r.s, true, &err), 0);
	assert_true(rt_command(&r.c, BURN));
	drain(&r);
	print_message("started: %llu samples in %zu stacks\n", (unsigned long long)r.seen.counted,
		      r.seen.stacks);
	assert_true(r.seen.counted > 0);
	assert_int_equal(r.seen.trace_id, SAMPLE_ID);
	assert_int_equal(r.seen.other_pid, 0);
	assert_int_equal(r.seen.tid_pid, r.seen.stacks); /* per thread */

	assert_int_equal(gs_session_trace_stats(r.s, 0, &st, &err), 0);
	print_message("trace %u: %u program(s), %llu runs, %llu ns, %llu lost, %llu stacks "
		      "dropped; maps %llu bytes\n", st.trace_id, st.programs,
		      (unsigned long long)st.run_cnt, (unsigned long long)st.run_time_ns,
		      (unsigned long long)st.lost, (unsigned long long)st.stacks_dropped,
		      (unsigned long long)gs_session_map_bytes(r.s));
	assert_int_equal(st.trace_id, SAMPLE_ID);
	assert_int_equal(st.programs, 1);
	/* the program ran at least once per sample it counted */
	assert_true(st.run_cnt >= r.seen.counted);
	assert_true(st.run_time_ns > 0);
	assert_int_equal(st.stacks_dropped, 0);
	assert_int_equal(gs_session_trace_stats(r.s, 1, &st, &err), -ENOENT);
	assert_true(gs_session_map_bytes(r.s) > 0);

	assert_int_equal(gs_session_sampling(r.s, false, &err), 0);
	drain(&r); /* what came before the stop */
	assert_true(rt_command(&r.c, BURN));
	drain(&r);
	print_message("stopped again: %llu samples\n", (unsigned long long)r.seen.counted);
	assert_int_equal(r.seen.counted, 0);
	close(stats_fd);
	loop_stop(&r);
}

/* The maps the session created, each once: a second counting probe adds
 * its own maps but not again the ones every probe shares (the unwind
 * rows, the module maps), and a session charges at least its stack map. */
static void test_map_bytes_counts_each_map_once(void **state)
{
	static const struct gs_stmt bt[] = { { .kind = GS_STMT_BACKTRACE } };
	struct gs_trace_spec mid = { .trace_id = 2, .target = "rt_mid", .body = bt, .nbody = 1 };
	struct gs_program_opts prog;
	struct gs_target_pattern *pat2;
	struct loop_run r = { 0 };
	struct gs_error err;
	uint64_t one, two, counts;
	const struct gs_program *leaf;
	const struct gs_map_spec *m;

	(void)state;
	if (!loop_walker())
		skip();
	loop_start(&r, true, NULL);
	one = gs_session_map_bytes(r.s);
	leaf = gs_plan_trace_program(gs_plan_trace_at(r.p, 0), 0);
	m = &leaf->maps[leaf->map_index[GS_MAP_STACK_COUNTS]];
	counts = (uint64_t)(m->key_size + m->value_size) * m->max_entries;
	gs_session_free(r.s);
	gs_plan_free(r.p);

	/* the same plan with a second probe */
	prog = (struct gs_program_opts){ .sz = sizeof(prog), .unwinder = GS_UNWINDER_LOOP,
					 .filter_pid = (uint32_t)r.c.pid, .count_stacks = true };
	{
		struct gs_plan_opts po = { .sz = sizeof(po), .pid = r.c.pid, .program = &prog };
		struct gs_trace_spec leaf_spec = { .trace_id = 1, .target = "rt_leaf", .body = bt,
						   .nbody = 1 };

		assert_int_equal(gs_plan_new(&po, &r.p, &err), 0);
		if (gs_plan_add(r.p, r.pat, &leaf_spec, &err) ||
		    gs_target_pattern_parse("rt_mid", &pat2, &err) ||
		    gs_plan_add(r.p, pat2, &mid, &err) || gs_plan_build(r.p, &err))
			fail_msg("%s", err.msg);
	}
	r.s = start(r.p, &r.seen);
	two = gs_session_map_bytes(r.s);
	print_message("maps: one probe %llu bytes (its stack counts %llu), two probes %llu\n",
		      (unsigned long long)one, (unsigned long long)counts,
		      (unsigned long long)two);
	assert_true(one >= counts);
	assert_true(two > one);
	assert_true(two < 2 * one); /* the shared maps once */
	loop_stop(&r);
	free(pat2);
}

/* A descriptor the caller gives ends a poll as soon as it is readable,
 * with no events, and goes on doing so until the caller reads it. */
static void test_wake_on_ends_a_poll_early(void **state)
{
	struct loop_run r = { 0 };
	struct gs_error err;
	uint64_t one = 1;
	double t0, took;
	int efd, n;

	(void)state;
	if (!loop_walker())
		skip();
	loop_start(&r, true, NULL);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(efd >= 0);
	assert_int_equal(gs_session_wake_on(r.s, efd, &err), 0);
	assert_int_equal(write(efd, &one, sizeof(one)), sizeof(one));
	t0 = now_ms();
	n = gs_session_poll(r.s, 20000, &err);
	took = now_ms() - t0;
	print_message("woken poll: %d events after %.1f ms (timeout 20000)\n", n, took);
	assert_int_equal(n, 0);
	assert_true(took < 10000);
	/* still readable: woken again */
	t0 = now_ms();
	assert_int_equal(gs_session_poll(r.s, 20000, &err), 0);
	assert_true(now_ms() - t0 < 10000);
	/* read: the poll waits its time out again */
	assert_int_equal(read(efd, &one, sizeof(one)), sizeof(one));
	t0 = now_ms();
	assert_int_equal(gs_session_poll(r.s, 300, &err), 0);
	took = now_ms() - t0;
	print_message("poll after the read: %.1f ms (timeout 300)\n", took);
	assert_true(took >= 250);
	close(efd);
	loop_stop(&r);
}

/* A script's probe and a counting sampler in one plan: the script's
 * events come as events (exactly one per call), the samples as counts of
 * the sampler's trace. In pid mode, and in target mode (-t: the module's
 * processes), where the script's probe is planned first. */
static void script_and_sampler(bool target_mode)
{
	static const char text[] = "trace rt_leaf { print \"leaf\"; bt; }";
	struct loop_run r = { 0 };
	struct gs_script *script;
	struct gs_error err;
	double end;

	loop_spawn(&r);
	r.p = target_mode ? script_and_sampler_plan(text, 0, r.path, &script)
			  : script_and_sampler_plan(text, r.c.pid, NULL, &script);
	assert_int_equal(gs_plan_trace_count(r.p), 2);
	assert_false(gs_plan_trace_samples(gs_plan_trace_at(r.p, 0)));
	assert_true(gs_plan_trace_samples(gs_plan_trace_at(r.p, 1)));
	r.s = start(r.p, &r.seen);
	if (target_mode) /* the scan finds the fixture */
		poll_for(r.s, 300);

	assert_true(rt_command(&r.c, "c 50"));
	end = now_ms() + 5000;
	while (r.seen.events < 50 && now_ms() < end)
		assert_true(gs_session_poll(r.s, 100, &err) >= 0);
	print_message("%s: %zu events of the script's trace\n", target_mode ? "-t" : "-p",
		      r.seen.events);
	assert_int_equal(r.seen.events, 50);

	/* the library's loop: the script's probe never fires there */
	assert_true(rt_command(&r.c, "l 100000000"));
	assert_true(gs_session_poll(r.s, 100, &err) >= 0);
	drain(&r);
	print_message("%s: %llu samples in %zu stacks, %llu of the fixture, %llu of them of 4 "
		      "frames or more\n", target_mode ? "-t" : "-p",
		      (unsigned long long)r.seen.counted, r.seen.stacks,
		      (unsigned long long)r.seen.mine, (unsigned long long)r.seen.deep);
	assert_int_equal(r.seen.trace_id, SAMPLE_ID);
	/* unwound through the library into the executable (rtlib_work,
	 * rt_call_lib, main, libc): the sampler has every module's rows */
	assert_true(r.seen.deep >= r.seen.mine / 2);
	/* -p: the fixture alone; -t: every process running rt_loop (another
	 * test's may run meanwhile), the fixture among them */
	if (!target_mode)
		assert_int_equal(r.seen.other_pid, 0);
	assert_true(r.seen.mine > 0);
	loop_stop(&r);
	gs_script_free(script);
}

static void test_script_probes_and_a_counting_sampler_in_one_session(void **state)
{
	(void)state;
	if (!loop_walker())
		skip();
	script_and_sampler(false);
	script_and_sampler(true);
}

/* -t: the sampler samples the processes running the plan's module, not
 * those mapping the module of the script's first trace (here a library
 * every variant of the fixture maps, probed by address). */
static void test_target_mode_samples_the_plan_module(void **state)
{
	char other[PATH_MAX], lib[PATH_MAX], text[PATH_MAX + 64];
	struct loop_run r = { 0 };
	struct gs_script *script;
	struct rt_child b;
	struct gs_error err;
	uint64_t addr;

	(void)state;
	if (!loop_walker())
		skip();
	rt_path("rt_loop_O0", other, sizeof(other)); /* maps the library, not rt_loop */
	rt_path("librt_lib.so", lib, sizeof(lib));
	assert_true(rt_nm(lib, "rtlib_work", false, &addr));
	snprintf(text, sizeof(text), "trace %s:0x%llx { print \"lib\"; }", lib,
		 (unsigned long long)addr);
	loop_spawn(&r);
	assert_true(rt_spawn(other, &b));
	r.seen.watch = (uint32_t)b.pid;
	r.p = script_and_sampler_plan(text, 0, r.path, &script);
	assert_string_equal(gs_plan_trace_target(gs_plan_trace_at(r.p, 0))->module, lib);
	r.s = start(r.p, &r.seen);
	poll_for(r.s, 300); /* past a scan */
	assert_true(rt_command(&b, "c 100000000"));
	assert_true(rt_command(&r.c, "c 100000000"));
	assert_true(gs_session_poll(r.s, 100, &err) >= 0);
	drain(&r);
	print_message("-t %s: %llu samples of it, %llu of %s\n", r.path,
		      (unsigned long long)r.seen.mine, (unsigned long long)r.seen.watched, other);
	assert_true(r.seen.mine > 0);
	assert_int_equal(r.seen.watched, 0);
	loop_stop(&r);
	gs_script_free(script);
	rt_stop(&b);
}

/* A plan of a counting sampler alone, on the processes running module
 * (NULL: every process, --all), its module maps holding offsets_max
 * entries (0: the default). */
static struct gs_plan *sampler_plan(const char *module, uint32_t offsets_max)
{
	struct gs_sample_opts so = { .sz = sizeof(so), .trace_id = SAMPLE_ID,
				     .frequency = SAMPLE_HZ, .count_stacks = true };
	struct gs_program_opts prog = { .sz = sizeof(prog), .unwinder = GS_UNWINDER_LOOP,
					.proc_offsets_max = offsets_max };
	struct gs_plan_opts po = { .sz = sizeof(po), .module = module, .program = &prog };
	struct gs_plan *p;
	struct gs_error err;

	assert_int_equal(gs_plan_new(&po, &p, &err), 0);
	if (gs_plan_add_samples(p, &so, &err) || gs_plan_build(p, &err))
		fail_msg("%s", err.msg);
	return p;
}

static struct gs_sample_stats sample_stats(const struct gs_session *s)
{
	struct gs_sample_stats st;
	struct gs_error err;

	if (gs_session_sample_stats(s, &st, &err))
		fail_msg("%s", err.msg);
	return st;
}

#define CHURN 40
/* --all while CHURN short processes start (one every 25 ms, each living a
 * second) and exit, reaped at once: the session fills them, and once they are gone and a
 * refresh has run, none of their module entries stays (each maps four
 * modules or more: a leak is 4 * CHURN entries; other processes of the
 * host may come and go meanwhile, hence the slack of CHURN). */
static void test_all_scope_forgets_the_processes_that_exit(void **state)
{
	struct gs_sample_stats before, during, after;
	pid_t kids[CHURN];
	struct seen seen = { 0 };
	struct gs_plan *p;
	struct gs_session *s;

	(void)state;
	if (!loop_walker())
		skip();
	p = sampler_plan(NULL, 0);
	s = start(p, &seen);
	poll_for(s, 300);
	before = sample_stats(s);
	/* reaped as they exit, as a shell or a service manager does: no
	 * zombie (whose maps read empty) for the session to see */
	signal(SIGCHLD, SIG_IGN);
	for (int i = 0; i < CHURN; i++) {
		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0) {
			execl("/bin/sleep", "sleep", "1", (char *)NULL);
			_exit(127);
		}
		poll_for(s, 25);
	}
	poll_for(s, 200);
	during = sample_stats(s);
	for (int i = 0; i < CHURN; i++)
		while (kill(kids[i], 0) == 0)
			poll_for(s, 20);
	signal(SIGCHLD, SIG_DFL);
	poll_for(s, 1500); /* past a refresh */
	after = sample_stats(s);
	print_message("--all: %zu processes, %llu module entries before; %zu, %llu with %d more; "
		      "%zu, %llu once they exited\n", before.processes,
		      (unsigned long long)before.module_entries, during.processes,
		      (unsigned long long)during.module_entries, CHURN, after.processes,
		      (unsigned long long)after.module_entries);
	/* they were filled */
	assert_true(during.module_entries >= before.module_entries + CHURN);
	assert_true(after.module_entries <= before.module_entries + CHURN);
	assert_true(after.processes <= before.processes + CHURN / 4);
	assert_int_equal(after.processes_skipped, 0);
	gs_session_free(s);
	gs_plan_free(p);
}

/* Module snapshot regions a process takes at least (two of 64 entries),
 * and proc_offsets_max whose bt_modules (four entries per module entry)
 * hold exactly one process's. */
#define ONE_PROCESS_OFFSETS (2 * 64 / 4)

/* -t rt_loop with module maps that hold one process: a second rt_loop is
 * left out, nothing of it in the maps (a half-written fill is undone),
 * and counted; the first goes on being refilled (a dlopen) and the
 * session goes on. */
static void test_full_module_maps_leave_a_process_out(void **state)
{
	char dl[PATH_MAX];
	struct gs_proc_modules mods;
	struct gs_sample_stats one, two, after;
	struct loop_run r = { 0 };
	struct rt_child b;
	struct gs_error err;
	uint64_t k;
	double end;

	(void)state;
	if (!loop_walker())
		skip();
	rt_path("librt_dl.so", dl, sizeof(dl));
	loop_spawn(&r);
	assert_int_equal(gs_proc_modules_load(r.c.pid, NULL, &mods, &err), 0);
	k = mods.n;
	gs_proc_modules_free(&mods);
	r.p = sampler_plan(r.path, ONE_PROCESS_OFFSETS);
	r.s = start(r.p, &r.seen);
	poll_for(r.s, 300);
	one = sample_stats(r.s);
	assert_true(rt_spawn(r.path, &b));
	poll_for(r.s, 300);
	two = sample_stats(r.s);
	assert_true(rt_command(&r.c, "d %s", dl));
	end = now_ms() + 1500; /* past a refresh */
	while (now_ms() < end)
		if (gs_session_poll(r.s, 50, &err) < 0)
			fail_msg("the session ended: %s", err.msg);
	after = sample_stats(r.s);
	print_message("rt_loop maps %llu modules; one rt_loop: %zu processes, %llu entries; "
		      "two: %zu, %llu, %llu left out; after a dlopen: %zu, %llu, %llu left out\n",
		      (unsigned long long)k, one.processes,
		      (unsigned long long)one.module_entries, two.processes,
		      (unsigned long long)two.module_entries,
		      (unsigned long long)two.processes_skipped, after.processes,
		      (unsigned long long)after.module_entries,
		      (unsigned long long)after.processes_skipped);
	assert_int_equal(one.processes, 1);
	assert_int_equal(one.module_entries, k);
	assert_int_equal(two.processes, 1);
	assert_int_equal(two.module_entries, k); /* none of the second */
	assert_true(two.processes_skipped >= 1);
	assert_int_equal(after.processes, 1);
	assert_int_equal(after.module_entries, k + 1);
	loop_stop(&r);
	rt_stop(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_gives_the_counts_since_the_last_drain),
		cmocka_unit_test(test_sampling_paused_samples_nothing_until_started),
		cmocka_unit_test(test_map_bytes_counts_each_map_once),
		cmocka_unit_test(test_wake_on_ends_a_poll_early),
		cmocka_unit_test(test_script_probes_and_a_counting_sampler_in_one_session),
		cmocka_unit_test(test_target_mode_samples_the_plan_module),
		cmocka_unit_test(test_all_scope_forgets_the_processes_that_exit),
		cmocka_unit_test(test_full_module_maps_leave_a_process_out),
	};

	if (rt_kernel_usable())
		return 77; /* meson: skipped */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
