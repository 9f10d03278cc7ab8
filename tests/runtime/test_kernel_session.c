/* Kernel suite: the plan and session API end to end on a live fixture, two
 * traces (one with `bt`, one in a shared library), events of both decoded,
 * loss readable, and freeing the session leaves no probe firing. Skips
 * (exit 77) when bpf() or uprobes are not usable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gs/runtime.h>

#include "rt_fixture.h"
#include "rt_trace.h"

struct seen {
	size_t by_id[4];
	size_t bt_frames_min;
	uint32_t pid;
	bool wrong_pid;
};

static int on_event(void *arg, const struct gs_event *ev)
{
	struct seen *s = arg;

	if (ev->trace_id < 4)
		s->by_id[ev->trace_id]++;
	if (ev->pid != s->pid)
		s->wrong_pid = true;
	for (size_t i = 0; i < ev->ninsts; i++)
		if (ev->insts[i].type == GS_INST_BACKTRACE &&
		    ev->insts[i].backtrace.frame_count < s->bt_frames_min)
			s->bt_frames_min = ev->insts[i].backtrace.frame_count;
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void poll_until(struct gs_session *s, const struct seen *seen, size_t id, size_t want)
{
	double end = now_ms() + 5000;
	struct gs_error err;

	while (seen->by_id[id] < want && now_ms() < end)
		if (gs_session_poll(s, 100, &err) < 0)
			fail_msg("%s", err.msg);
}

/* Adds `target` with spec to p, or fails the test. */
static void plan_add(struct gs_plan *p, const char *target, const struct gs_trace_spec *spec,
		     struct gs_target_pattern **pat)
{
	struct gs_error err;

	if (gs_target_pattern_parse(target, pat, &err) || gs_plan_add(p, *pat, spec, &err))
		fail_msg("%s: %s", target, err.msg);
}

static void test_session_two_traces(void **state)
{
	static const struct gs_stmt leaf_body[] = {
		{ .kind = GS_STMT_PRINT_STRING, .text = "leaf" },
		{ .kind = GS_STMT_BACKTRACE },
	};
	static const struct gs_stmt lib_body[] = {
		{ .kind = GS_STMT_PRINT_STRING, .text = "lib" },
	};
	struct gs_trace_spec leaf = { .trace_id = 1, .target = "rt_leaf", .body = leaf_body,
				      .nbody = 2 };
	struct gs_trace_spec lib = { .trace_id = 2, .target = "rtlib_work", .body = lib_body,
				     .nbody = 1 };
	struct gs_trace_spec bad = { .trace_id = 3, .target = "no_such_fn", .body = lib_body,
				     .nbody = 1 };
	struct seen seen = { .bt_frames_min = 255 };
	struct gs_session_opts o = { .sz = sizeof(o), .on_event = on_event, .arg = &seen };
	struct gs_program_opts prog = { .sz = sizeof(prog) };
	struct gs_plan_opts po = { .sz = sizeof(po), .program = &prog };
	struct gs_target_pattern *pats[3];
	struct gs_session *s;
	struct gs_plan *p;
	struct gs_error err;
	struct rt_child c;
	char path[PATH_MAX];
	uint64_t lost = 1;
	double t0;

	(void)state;
	assert_true(rt_spawn(rt_path("rt_loop", path, sizeof(path)), &c));
	seen.pid = (uint32_t)c.pid;
	po.pid = c.pid;
	prog.filter_pid = (uint32_t)c.pid;
	t0 = now_ms();
	assert_int_equal(gs_plan_new(&po, &p, &err), 0);
	plan_add(p, "rt_leaf", &leaf, &pats[0]);
	print_message("trace with bt on every module planned in %.1f ms\n", now_ms() - t0);
	t0 = now_ms();
	plan_add(p, "rtlib_work", &lib, &pats[1]);
	print_message("trace in a library planned in %.1f ms\n", now_ms() - t0);
	t0 = now_ms();
	assert_int_equal(gs_target_pattern_parse("no_such_fn", &pats[2], &err), 0);
	assert_true(gs_plan_add(p, pats[2], &bad, &err) < 0);
	assert_non_null(strstr(err.msg, "no_such_fn"));
	print_message("unknown function refused in %.1f ms: %s\n", now_ms() - t0, err.msg);
	assert_int_equal(gs_plan_trace_count(p), 2);
	if (gs_plan_build(p, &err))
		fail_msg("%s", err.msg);
	t0 = now_ms();
	assert_int_equal(gs_session_new(&o, &s, &err), 0);
	if (gs_session_start(s, p, &err) != 2)
		fail_msg("%s", err.msg);
	print_message("2 probes loaded and attached in %.1f ms\n", now_ms() - t0);

	assert_true(rt_command(&c, "c 3"));
	assert_true(rt_command(&c, "l 2"));
	poll_until(s, &seen, 1, 3);
	poll_until(s, &seen, 2, 2);
	assert_int_equal(seen.by_id[1], 3);
	assert_int_equal(seen.by_id[2], 2);
	assert_false(seen.wrong_pid);
	assert_true(seen.bt_frames_min >= 3); /* rt_leaf, rt_mid, main at least */
	assert_int_equal(gs_session_lost(s, &lost, &err), 0);
	assert_int_equal(lost, 0);
	t0 = now_ms();
	gs_session_free(s);
	print_message("session freed (2 probes detached) in %.1f ms\n", now_ms() - t0);
	gs_plan_free(p);
	for (size_t i = 0; i < 3; i++)
		free(pats[i]);
	rt_stop(&c);
}

struct target_seen {
	pid_t pids[2];
	size_t n[2];
	uint64_t pcs[2][3]; /* the last event's first three frame pcs */
	uint8_t frames[2], status[2];
};

static int on_target_event(void *arg, const struct gs_event *ev)
{
	struct target_seen *s = arg;

	for (size_t k = 0; k < 2; k++) {
		if (ev->pid != (uint32_t)s->pids[k])
			continue;
		s->n[k]++;
		for (size_t i = 0; i < ev->ninsts; i++) {
			const struct gs_inst *in = &ev->insts[i];

			if (in->type != GS_INST_BACKTRACE)
				continue;
			s->frames[k] = in->backtrace.frame_count;
			s->status[k] = in->backtrace.status;
			for (size_t f = 0; f < 3 && f < in->backtrace.frame_count; f++)
				memcpy(&s->pcs[k][f], (const uint8_t *)&in->backtrace.frames[f] +
				       offsetof(struct gs_backtrace_frame, pc), sizeof(uint64_t));
		}
	}
	return 0;
}

/* Target mode (-t, every process): the offsets of each process mapping the
 * traced binary are filled, at attach time and, for a process started
 * later, by the poll's rescan; frame pcs are then link-time addresses. */
static void test_session_target_mode_fills_every_process(void **state)
{
	static const struct gs_stmt body[] = { { .kind = GS_STMT_BACKTRACE } };
	struct gs_trace_spec leaf = { .trace_id = 1, .target = "rt_leaf", .body = body, .nbody = 1 };
	struct target_seen seen = { 0 };
	struct gs_session_opts o = { .sz = sizeof(o), .on_event = on_target_event, .arg = &seen };
	struct gs_program_opts prog = { .sz = sizeof(prog), .backtrace_depth = 4 };
	struct gs_plan_opts po = { .sz = sizeof(po), .program = &prog };
	struct gs_target_pattern *pat;
	struct gs_session *s;
	struct gs_plan *p;
	struct gs_error err;
	struct rt_child c[2];
	char path[PATH_MAX];
	uint64_t leaf_sym, mid_sym, main_sym;
	double end;

	(void)state;
	rt_path("rt_loop", path, sizeof(path));
	assert_true(rt_nm(path, "rt_leaf", false, &leaf_sym));
	assert_true(rt_nm(path, "rt_mid", false, &mid_sym));
	assert_true(rt_nm(path, "main", false, &main_sym));
	assert_true(rt_spawn(path, &c[0]));
	seen.pids[0] = c[0].pid;
	po.module = path;
	assert_int_equal(gs_plan_new(&po, &p, &err), 0);
	plan_add(p, "rt_leaf", &leaf, &pat);
	if (gs_plan_build(p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(gs_session_new(&o, &s, &err), 0);
	if (gs_session_start(s, p, &err) != 1)
		fail_msg("%s", err.msg);
	assert_true(rt_spawn(path, &c[1])); /* started after attach */
	seen.pids[1] = c[1].pid;
	end = now_ms() + 1500; /* past one rescan */
	while (now_ms() < end)
		assert_true(gs_session_poll(s, 100, &err) >= 0);
	for (size_t k = 0; k < 2; k++) {
		assert_true(rt_command(&c[k], "c 2"));
		end = now_ms() + 5000;
		while (seen.n[k] < 2 && now_ms() < end)
			assert_true(gs_session_poll(s, 100, &err) >= 0);
		print_message("pid %d: %zu events, %u frames, status %u, pcs 0x%llx 0x%llx 0x%llx\n",
			      (int)seen.pids[k], seen.n[k], seen.frames[k], seen.status[k],
			      (unsigned long long)seen.pcs[k][0], (unsigned long long)seen.pcs[k][1],
			      (unsigned long long)seen.pcs[k][2]);
		assert_int_equal(seen.n[k], 2);
		assert_int_equal(seen.frames[k], 4);
		assert_int_equal(seen.status[k], GS_BT_TRUNCATED);
		assert_int_equal(seen.pcs[k][0], leaf_sym); /* prologue-free at -O2 */
		assert_true(seen.pcs[k][1] > mid_sym && seen.pcs[k][1] < mid_sym + 0x80);
		assert_true(seen.pcs[k][2] > main_sym && seen.pcs[k][2] < main_sym + 0x400);
	}
	gs_session_free(s);
	gs_plan_free(p);
	free(pat);
	rt_stop(&c[0]);
	rt_stop(&c[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_two_traces),
		cmocka_unit_test(test_session_target_mode_fills_every_process),
	};

	if (rt_kernel_usable())
		return 77; /* meson: skipped */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
