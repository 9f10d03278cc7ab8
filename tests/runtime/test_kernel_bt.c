/* Kernel suite: `bt` on a live fixture, unwound inside BPF from the rows
 * the runtime wrote. The raw return addresses of each decoded Backtrace,
 * symbolized independently through /proc/PID/maps and the symbolizer, must
 * give the fixture's call chain: in one module and across modules, in
 * tail-call and inline mode, and after a dlopen once the maps are
 * refreshed. Skips (exit 77) when bpf() or uprobes are not usable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/program.h>
#include <gs/render.h>
#include <gs/runtime.h>

#include "rt_fixture.h"
#include "rt_trace.h"

#define TRACE_ID 3
#define WAIT_MS 5000

static const struct gs_stmt bt_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "bt" },
	{ .kind = GS_STMT_BACKTRACE },
};

struct bt_case {
	const char *function;  /* probed */
	bool per_process;      /* the multi-module plan (rows of every module) */
	uint32_t depth;        /* 0: the default, 128 (tail calls) */
	const char *command;   /* makes the fixture hit the probe */
	const char *chain[5];  /* expected innermost frames, NULL-terminated */
};

/* Function of each frame: its module from the process's maps now, pc
 * made module-relative (a return address minus one for callers). The first
 * `checked` frames' pc and cookie must agree with that module (a one-module
 * plan takes every frame to be in the probe module, so its frames past the
 * chain may not). */
static size_t symbolize(pid_t pid, const struct rt_event *e, const char **names, size_t max,
			size_t checked)
{
	struct gs_proc_modules mods;
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);
	struct gs_error err;
	size_t n = 0;

	assert_non_null(s);
	assert_int_equal(gs_proc_modules_load(pid, NULL, &mods, &err), 0);
	for (; n < e->bt_frames && n < max; n++) {
		const struct gs_backtrace_frame *f = &e->frames[n];
		const struct gs_proc_module *m = gs_proc_modules_find(&mods, f->raw_ip);
		const struct gs_sym_info *info;
		uint64_t pc;
		int h;

		names[n] = "??";
		if (!m)
			continue;
		pc = f->raw_ip - m->offsets.text;
		print_message("  #%zu %s+0x%llx cookie=%016llx pc=0x%llx\n", n, m->path,
			      (unsigned long long)pc, (unsigned long long)f->module_cookie,
			      (unsigned long long)f->pc);
		if (n < checked) {
			assert_int_equal(f->module_cookie, m->id.cookie);
			assert_int_equal(f->pc, pc);
		}
		h = gs_symbolizer_module(s, m->open_path, &err);
		if (h >= 0 && gs_symbolize(s, h, n ? pc - 1 : pc, &info, &err) == 0 && info->found)
			names[n] = strdup(info->function);
	}
	gs_proc_modules_free(&mods);
	gs_symbolizer_free(s);
	return n;
}

static void check_chain(pid_t pid, const struct rt_event *e, const char *const *chain)
{
	const char *names[8];
	size_t want = 0, n;

	while (chain[want])
		want++;
	print_message("backtrace: %u frames, status %s (error %u)\n", e->bt_frames,
		      gs_bt_status_label(e->bt_status), e->bt_error);
	n = symbolize(pid, e, names, 8, want);
	assert_true(n >= want);
	for (size_t i = 0; i < want; i++)
		assert_string_equal(names[i], chain[i]);
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], "??") != 0)
			free((char *)names[i]);
}

/* Starts a bt trace on c's process as the case says. */
static void start(const struct bt_case *bc, struct rt_child *c, struct gs_modfiles *files,
		  struct gs_bt_plan *plan, struct rt_trace *tr)
{
	struct gs_resolve_opts ro = { .sz = sizeof(ro) };
	struct gs_bt_plan_opts po = { .sz = sizeof(po), .files = files };
	struct rt_trace_desc d = {
		.body = bt_body, .nbody = 2, .trace_id = TRACE_ID, .plan = plan,
		.opts = { .sz = sizeof(d.opts), .backtrace_depth = bc->depth },
		.attach = { .sz = sizeof(d.attach) },
	};
	struct gs_target t;
	struct gs_error err;

	ro.pid = c->pid;
	if (rt_resolve(bc->function, &ro, &t, &err))
		fail_msg("%s", err.msg);
	po.pid = bc->per_process ? c->pid : 0;
	if (gs_bt_plan_build(t.module, t.locs[0].addr, &po, plan, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(plan->probe.first_row_kind, GS_BT_ROW_USABLE);
	assert_int_equal(plan->probe.module_ranges, bc->per_process);
	d.module = t.module;
	d.file_offset = t.locs[0].file_offset;
	d.attach.pid = c->pid;
	d.fill_pid = c->pid;
	d.files = files;
	if (rt_trace_start(tr, &d, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(tr->prog->has_step, bc->depth == 0 || bc->depth > 5);
	print_message("%s at %s+0x%llx: %u rows (%s), depth %u, main %u insns (%u verified)%s\n",
		      bc->function, t.module, (unsigned long long)t.locs[0].addr, plan->probe.nrows,
		      bc->per_process ? "every module" : "probe module", tr->prog->backtrace_depth,
		      (unsigned)tr->prog->main.len, tr->loaded.main_verified_insns,
		      tr->prog->has_step ? ", step program in bt_prog_array" : "");
	gs_target_free(&t);
}

static void run_case(const struct bt_case *bc)
{
	struct gs_modfiles *files;
	struct rt_child c;
	struct gs_bt_plan plan;
	struct rt_trace tr;
	char path[PATH_MAX];

	assert_int_equal(gs_modfiles_new(NULL, &files, NULL), 0);
	assert_true(rt_spawn(rt_path("rt_loop", path, sizeof(path)), &c));
	start(bc, &c, files, &plan, &tr);
	assert_true(rt_command(&c, "%s", bc->command));
	assert_int_equal(rt_trace_wait(&tr, 3, WAIT_MS), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(tr.events[i].trace_id, TRACE_ID);
		assert_int_equal(tr.events[i].pid, (uint32_t)c.pid);
		assert_string_equal(tr.events[i].text, "bt");
		assert_true(tr.events[i].has_bt);
		assert_int_equal(tr.events[i].bt_depth, bc->depth ? bc->depth : GS_BT_MAX_DEPTH);
		check_chain(c.pid, &tr.events[i], bc->chain);
	}
	rt_trace_stop(&tr);
	gs_bt_plan_fini(&plan);
	gs_modfiles_free(files);
	rt_stop(&c);
}

static void test_bt_every_module_with_tail_calls(void **state)
{
	static const struct bt_case bc = {
		.function = "rt_leaf", .per_process = true, .command = "c 3",
		.chain = { "rt_leaf", "rt_mid", "main", NULL },
	};

	(void)state;
	run_case(&bc);
}

static void test_bt_from_a_library_into_the_executable(void **state)
{
	static const struct bt_case bc = {
		.function = "rtlib_inner", .per_process = true, .command = "l 3",
		.chain = { "rtlib_inner", "rtlib_work", "rt_call_lib", "main" },
	};

	(void)state;
	run_case(&bc);
}

static void test_bt_one_module_inline(void **state)
{
	static const struct bt_case bc = {
		.function = "rt_leaf", .per_process = false, .depth = 4, .command = "c 3",
		.chain = { "rt_leaf", "rt_mid", "main", NULL },
	};

	(void)state;
	run_case(&bc);
}

/* A frame in a library mapped after the maps were filled is unknown (pc
 * stays the raw ip) until gs_procfill_refresh adds its range and rows. */
static void test_bt_through_a_dlopened_library_after_refresh(void **state)
{
	static const struct bt_case bc = {
		.function = "rt_cb", .per_process = true, .depth = 16,
		.chain = { "rt_cb", "dl_call", "main", NULL },
	};
	struct gs_modfiles *files;
	struct rt_child c;
	struct gs_bt_plan plan;
	struct rt_trace tr;
	struct gs_error err;
	char path[PATH_MAX], lib[PATH_MAX];
	const struct rt_event *e;

	(void)state;
	assert_int_equal(gs_modfiles_new(NULL, &files, NULL), 0);
	assert_true(rt_spawn(rt_path("rt_loop", path, sizeof(path)), &c));
	start(&bc, &c, files, &plan, &tr);
	assert_true(rt_command(&c, "d %s", rt_path("librt_dl.so", lib, sizeof(lib))));
	assert_true(rt_command(&c, "x 1"));
	assert_int_equal(rt_trace_wait(&tr, 1, WAIT_MS), 1);
	e = &tr.events[0];
	print_message("before refresh: %u frames, status %s\n", e->bt_frames,
		      gs_bt_status_label(e->bt_status));
	assert_true(e->bt_frames >= 2);
	assert_int_equal(e->frames[1].pc, e->frames[1].raw_ip); /* module not found */

	assert_int_equal(gs_procfill_refresh(&tr.fill, &tr.maps, true, &err), 1);
	assert_int_equal(gs_procfill_refresh(&tr.fill, &tr.maps, true, &err), 0);
	tr.nevents = 0;
	assert_true(rt_command(&c, "x 2"));
	assert_int_equal(rt_trace_wait(&tr, 2, WAIT_MS), 2);
	for (size_t i = 0; i < 2; i++)
		check_chain(c.pid, &tr.events[i], bc.chain);
	rt_trace_stop(&tr);
	gs_bt_plan_fini(&plan);
	gs_modfiles_free(files);
	rt_stop(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bt_every_module_with_tail_calls),
		cmocka_unit_test(test_bt_from_a_library_into_the_executable),
		cmocka_unit_test(test_bt_one_module_inline),
		cmocka_unit_test(test_bt_through_a_dlopened_library_after_refresh),
	};

	if (rt_kernel_usable())
		return 77; /* meson: skipped */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
