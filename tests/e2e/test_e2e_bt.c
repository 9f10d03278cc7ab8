/* The reference's backtrace scenarios on its fixtures (depths, bt modes,
 * cross-module, dlopen, non-PIE, perf array, -t mode); every block is also
 * compared with gdb's `bt` stopped at the same pc of the same process. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "e2e.h"

static const char *const hot_chain[] = {
	"dummy_touch", "hot_bt_leaf", "hot_bt_mid", "hot_bt_probe", "main",
};
static const char *const cross_chain[] = {
	"cross_module_lib_leaf", "cross_module_lib_probe", "cross_module_main_caller",
	"cross_module_main_loop", "main",
};
static const char *const dlopen_chain[] = {
	"dlopen_main_callback", "dlopen_lib_leaf", "dlopen_lib_middle", "dlopen_lib_driver", "main",
};

#define HOT_SCRIPT "trace dummy_touch { print \"HOT_STACK\"; bt full; }"

/* Every block: `header` in it, the first n names of `chain` in order (raw
 * blocks have addresses, not names: gdb's comparison checks those), and
 * none of `absent`. */
static void check_each(struct e2e_ctx *c, const struct e2e_traced *t, const char *header,
		       const char *const *chain, size_t n, const char *const *absent)
{
	for (size_t i = 0; i < t->out.nblocks; i++) {
		const struct e2e_block *b = &t->out.blocks[i];

		if (header)
			e2e_expect(c, e2e_block_has(b, header), "event %zu: no '%s'", b->event, header);
		e2e_expect(c, (b->nf && b->frames[0].raw) || e2e_block_ordered(b, chain, n),
			   "event %zu: frames #0..#%zu are not %s .. %s in order", b->event, n - 1,
			   chain[0], chain[n - 1]);
		for (size_t j = 0; absent && absent[j]; j++)
			e2e_expect(c, !e2e_block_has(b, absent[j]), "event %zu: has '%s'", b->event,
				   absent[j]);
	}
}

/* ---- depths (1, 4, 5, 7, default 128) ------------------------------------ */

static void hot_depth(struct e2e_ctx *c, const char *fixture, unsigned depth, bool perf)
{
	struct e2e_trace tr = { .script = HOT_SCRIPT, .depth = depth, .perf = perf };
	static const bool shown[] = { true };
	char header[64], beyond[16];
	struct e2e_traced t;

	snprintf(header, sizeof(header), "backtrace: truncated, %u frame%s (max %u)", depth,
		 depth == 1 ? "" : "s", depth);
	snprintf(beyond, sizeof(beyond), "#%u ", depth);
	if (e2e_trace_fixture(c, &t, fixture, &tr, "dummy_touch")) {
		const char *const absent[] = { beyond, " raw=0x", " cookie=0x", "#5 0x0 ",
					       "#6 0x0 ", NULL };

		check_each(c, &t, header, hot_chain, depth < 5 ? depth : 5, absent);
		for (size_t i = 0; i < t.out.nblocks; i++) {
			const struct e2e_event *ev = &t.out.events[t.out.blocks[i].event];

			e2e_expect(c, strstr(e2e_buf_str(&ev->text), "HOT_STACK") != NULL,
				   "event %zu: no HOT_STACK line", t.out.blocks[i].event);
		}
		e2e_check_blocks(c, &t, depth, shown, 1);
	}
	e2e_traced_free(&t);
}

static void s_depth1(struct e2e_ctx *c)
{
	hot_depth(c, "backtrace_hot_program", 1, false);
}

static void s_depth4(struct e2e_ctx *c)
{
	hot_depth(c, "backtrace_hot_program", 4, false);
}

static void s_depth5(struct e2e_ctx *c)
{
	hot_depth(c, "backtrace_hot_program", 5, false);
}

static void s_depth7(struct e2e_ctx *c)
{
	hot_depth(c, "backtrace_hot_program", 7, false);
}

static void s_depth5_o2(struct e2e_ctx *c)
{
	hot_depth(c, "backtrace_hot_program_O2", 5, false);
}

static void s_perf_array(struct e2e_ctx *c)
{
	hot_depth(c, "backtrace_hot_program", 5, true);
}

static void s_perf_array_depth7(struct e2e_ctx *c)
{
	hot_depth(c, "backtrace_hot_program_O2", 7, true);
}

/* The whole stack: default depth 128 reaches libc and _start. */
static void hot_default_depth(struct e2e_ctx *c, const char *fixture)
{
	struct e2e_trace tr = { .script = HOT_SCRIPT };
	static const bool shown[] = { true };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, fixture, &tr, "dummy_touch")) {
		check_each(c, &t, "(max 128)", hot_chain, 5, NULL);
		for (size_t i = 0; i < t.out.nblocks; i++) {
			const struct e2e_block *b = &t.out.blocks[i];

			e2e_expect(c, strcmp(b->status, "complete") == 0 ||
				   strcmp(b->status, "truncated") == 0,
				   "event %zu: status %s", b->event, b->status);
			e2e_expect(c, e2e_block_has(b, "[libc.so.6+"), "event %zu: no libc frame",
				   b->event);
		}
		e2e_check_blocks(c, &t, 0, shown, 1);
	}
	e2e_traced_free(&t);
}

static void s_depth128(struct e2e_ctx *c)
{
	hot_default_depth(c, "backtrace_hot_program");
}

static void s_depth128_o2(struct e2e_ctx *c)
{
	hot_default_depth(c, "backtrace_hot_program_O2");
}

/* ---- bt modes -------------------------------------------------------------- */

/* `bt; backtrace raw noinline;` (spec: bt vs backtrace alias). */
static void s_bt_alias(struct e2e_ctx *c)
{
	struct e2e_trace tr = {
		.script = "trace dummy_touch { bt; backtrace raw noinline; }", .depth = 5,
	};
	static const bool shown[] = { true, false };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, "backtrace_hot_program", &tr, "dummy_touch")) {
		for (size_t e = 0; e < t.out.nevents; e++) {
			const struct e2e_event *ev = &t.out.events[e];
			const struct e2e_block *b1 = &t.out.blocks[ev->first_block];
			const struct e2e_block *b2 = b1 + 1;

			if (ev->nblocks == 0)
				continue;
			e2e_expect(c, ev->nblocks == 2, "event %zu: %zu blocks, want 2", e,
				   ev->nblocks);
			if (ev->nblocks != 2)
				continue;
			e2e_expect(c, e2e_block_has(b1, "#0 dummy_touch(long unsigned int value)") &&
				   e2e_block_has(b1, "#1 hot_bt_leaf(long unsigned int value)"),
				   "event %zu: `bt` block lacks the symbolized frames", e);
			e2e_expect(c, !e2e_block_has(b1, " raw=0x") && !e2e_block_has(b1, " cookie=0x"),
				   "event %zu: `bt` block shows raw fields", e);
			e2e_expect(c, e2e_block_has(b2, " raw=0x") && e2e_block_has(b2, " cookie=0x"),
				   "event %zu: `backtrace raw` block lacks raw=/cookie=", e);
			e2e_expect(c, !e2e_block_has(b2, ".inline"),
				   "event %zu: `noinline` block has .inline frames", e);
			e2e_expect(c, e2e_block_has(b2, "backtrace: truncated, 5 frames (max 5)"),
				   "event %zu: raw block header", e);
		}
		e2e_check_blocks(c, &t, 5, shown, 2);
	}
	e2e_traced_free(&t);
}

static void s_raw(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace dummy_touch { bt raw; }", .depth = 5 };
	static const bool shown[] = { false };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, "backtrace_hot_program", &tr, "dummy_touch")) {
		for (size_t i = 0; i < t.out.nblocks; i++) {
			const struct e2e_block *b = &t.out.blocks[i];

			e2e_expect(c, e2e_block_has(b, " raw=0x") && e2e_block_has(b, " cookie=0x"),
				   "event %zu: no raw=/cookie=", b->event);
			e2e_expect(c, e2e_block_has(b, "[backtrace_hot_program+0x"),
				   "event %zu: raw frames without [module+0xpc]", b->event);
			e2e_expect(c, b->nf == 5, "event %zu: %zu frames, want 5", b->event, b->nf);
			for (size_t j = 0; j < b->nf; j++)
				e2e_expect(c, b->frames[j].raw && b->frames[j].cookie != 0,
					   "event %zu: frame %zu is not raw with a cookie: %s",
					   b->event, j, b->frames[j].line);
		}
		e2e_check_blocks(c, &t, 5, shown, 1);
	}
	e2e_traced_free(&t);
}

/* `bt full`: symbolized, parameters rendered, no raw metadata. */
static void s_full(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace dummy_touch { bt full; }", .depth = 5 };
	static const char *const absent[] = { " raw=0x", " cookie=0x", NULL };
	static const bool shown[] = { true };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, "backtrace_hot_program", &tr, "dummy_touch")) {
		check_each(c, &t, "#0 dummy_touch(long unsigned int value) at ", hot_chain, 5, absent);
		check_each(c, &t, "#1 hot_bt_leaf(long unsigned int value) at ", hot_chain, 5, NULL);
		check_each(c, &t, "#2 hot_bt_mid(long unsigned int value) at ", hot_chain, 5, NULL);
		check_each(c, &t, "backtrace_hot_program.c:", hot_chain, 5, NULL);
		e2e_check_blocks(c, &t, 5, shown, 1);
	}
	e2e_traced_free(&t);
}

/* `bt inline; bt noinline;` at a line inside the always-inline add3. */
static void s_inline_noinline(struct e2e_ctx *c)
{
	static const bool shown[] = { true, false };
	int line = e2e_source_line("inline_callsite_program.c", "/* ADD3_BODY */");
	char script[256], where[64];
	struct e2e_trace tr = { .script = script, .depth = 5 };
	struct e2e_traced t;

	snprintf(where, sizeof(where), "inline_callsite_program.c:%d", line);
	snprintf(script, sizeof(script),
		 "trace %s { print \"INLINE_BT_MODES\"; bt inline; bt noinline; }", where);
	if (e2e_trace_fixture(c, &t, "inline_callsite_program", &tr, where)) {
		for (size_t e = 0; e < t.out.nevents; e++) {
			const struct e2e_event *ev = &t.out.events[e];
			const struct e2e_block *b1 = &t.out.blocks[ev->first_block];
			const struct e2e_block *b2 = b1 + 1;

			if (ev->nblocks == 0)
				continue;
			e2e_expect(c, ev->nblocks == 2, "event %zu: %zu blocks, want 2", e,
				   ev->nblocks);
			if (ev->nblocks != 2)
				continue;
			e2e_expect(c, strstr(e2e_buf_str(&ev->text), "INLINE_BT_MODES") != NULL,
				   "event %zu: no INLINE_BT_MODES", e);
			e2e_expect(c, e2e_block_has(b1, "#0.inline add3") && e2e_block_has(b1, "#0 wrapper"),
				   "event %zu: `bt inline` lacks #0.inline add3 / #0 wrapper", e);
			e2e_expect(c, !e2e_block_has(b2, ".inline") && e2e_block_has(b2, "#0 wrapper"),
				   "event %zu: `bt noinline` has .inline or lacks #0 wrapper", e);
		}
		e2e_check_blocks(c, &t, 5, shown, 2);
	}
	e2e_traced_free(&t);
}

/* Two deep `bt` in one trace: two tail-call slots. */
static void s_two_bt(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace dummy_touch { bt full; bt raw noinline; }" };
	static const bool shown[] = { true, false };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, "backtrace_hot_program", &tr, "dummy_touch")) {
		for (size_t e = 0; e < t.out.nevents; e++) {
			const struct e2e_event *ev = &t.out.events[e];

			e2e_expect(c, ev->nblocks == 2, "event %zu: %zu blocks, want 2", e,
				   ev->nblocks);
			for (size_t k = 0; k < ev->nblocks; k++) {
				const struct e2e_block *b = &t.out.blocks[ev->first_block + k];

				e2e_expect(c, e2e_block_has(b, "#5 ") && e2e_block_has(b, "libc.so.6+"),
					   "event %zu block %zu: no #5 / libc frame", e, k);
				e2e_expect(c, (k == 1) == (e2e_block_has(b, " raw=0x") &&
							   e2e_block_has(b, " cookie=0x")),
					   "event %zu block %zu: raw fields %s", e, k,
					   k ? "missing" : "in a `bt full` block");
			}
		}
		check_each(c, &t, "(max 128)", hot_chain, 5, NULL);
		e2e_check_blocks(c, &t, 0, shown, 2);
	}
	e2e_traced_free(&t);
}

/* A `bt` in each branch of an if: one block per event, whichever ran. */
static void s_if_branches(struct e2e_ctx *c)
{
	struct e2e_trace tr = {
		.script = "trace dummy_touch {\n"
			  "  if $timestamp / 1000 % 2 == 0 { print \"HOT_COND_EVEN\"; bt full; }\n"
			  "  else { print \"HOT_COND_ODD\"; bt raw noinline; }\n"
			  "}",
		.max_events = 24,
	};
	static const bool shown[] = { true };
	size_t even = 0, odd = 0;
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, "backtrace_hot_program", &tr, "dummy_touch")) {
		for (size_t e = 0; e < t.out.nevents; e++) {
			const struct e2e_event *ev = &t.out.events[e];
			const char *text = e2e_buf_str(&ev->text);
			bool is_even = strstr(text, "HOT_COND_EVEN") != NULL;
			bool is_odd = strstr(text, "HOT_COND_ODD") != NULL;
			const struct e2e_block *b = &t.out.blocks[ev->first_block];

			e2e_expect(c, is_even != is_odd, "event %zu: not exactly one marker", e);
			e2e_expect(c, ev->nblocks == 1, "event %zu: %zu blocks, want 1", e, ev->nblocks);
			if (ev->nblocks != 1)
				continue;
			even += is_even;
			odd += is_odd;
			e2e_expect(c, e2e_block_has(b, "#5 ") && e2e_block_has(b, "libc.so.6+"),
				   "event %zu: no #5 / libc frame", e);
			e2e_expect(c, is_odd == (e2e_block_has(b, " raw=0x") &&
						 e2e_block_has(b, " cookie=0x")),
				   "event %zu: %s block %s raw fields", e, is_odd ? "odd" : "even",
				   is_odd ? "without" : "with");
		}
		e2e_expect(c, even > 0 && odd > 0, "both branches should run in %zu events: "
			   "%zu even, %zu odd", t.out.nevents, even, odd);
		check_each(c, &t, NULL, hot_chain, 5, NULL);
		e2e_check_blocks(c, &t, 0, shown, 1);
	}
	e2e_traced_free(&t);
}

/* ---- modules ------------------------------------------------------------------ */

/* How cross_module() names its target: -p, -t lib.so, or both. */
enum cross_mode { CROSS_PID, CROSS_TARGET, CROSS_PID_TARGET };

static void cross_module(struct e2e_ctx *c, enum cross_mode mode)
{
	char lib[4096];
	struct e2e_trace tr = {
		.script = "trace cross_module_lib_leaf { print \"CROSS_MODULE_STACK\"; bt full; }",
		.depth = 5,
	};
	static const char *const absent[] = { "<proc offsets unavailable>", NULL };
	static const bool shown[] = { true };
	struct e2e_traced t;

	snprintf(lib, sizeof(lib), "%s", e2e_fixture_path("libbacktrace_cross_module.so"));
	if (mode != CROSS_PID)
		tr.target = lib;
	if (mode == CROSS_PID_TARGET) {
		tr.pid = -1; /* with -t: the fixture's pid all the same */
		tr.extra[0] = "--script-output";
		tr.extra[1] = "plain";
	}
	if (e2e_trace_fixture(c, &t, "backtrace_cross_module_program", &tr, "cross_module_lib_leaf")) {
		check_each(c, &t, "backtrace: truncated, 5 frames (max 5)", cross_chain, 5, absent);
		check_each(c, &t, "[libbacktrace_cross_module.so+", cross_chain, 5, NULL);
		check_each(c, &t, "[backtrace_cross_module_program+", cross_chain, 5, NULL);
		e2e_check_blocks(c, &t, 5, shown, 1);
	}
	e2e_traced_free(&t);
}

static void s_cross_module(struct e2e_ctx *c)
{
	cross_module(c, CROSS_PID);
}

/* -t lib.so alone: every process that maps the library. */
static void s_target_lib(struct e2e_ctx *c)
{
	cross_module(c, CROSS_TARGET);
}

/* -p PID -t lib.so: that process, targets resolved in the library; plain
 * output. */
static void s_pid_target_lib(struct e2e_ctx *c)
{
	cross_module(c, CROSS_PID_TARGET);
}

/* -t exe alone: every process running the executable (depth 0: the
 * default, 128, through libc to _start). */
static void target_exe(struct e2e_ctx *c, unsigned depth)
{
	char exe[4096];
	struct e2e_trace tr = { .script = HOT_SCRIPT, .depth = depth, .target = exe };
	static const bool shown[] = { true };
	struct e2e_traced t;

	snprintf(exe, sizeof(exe), "%s", e2e_fixture_path("backtrace_hot_program_O2"));
	if (e2e_trace_fixture(c, &t, "backtrace_hot_program_O2", &tr, "dummy_touch")) {
		size_t mine = 0;

		for (size_t e = 0; e < t.out.nevents; e++)
			mine += t.out.events[e].pid == t.f.pid;
		e2e_expect(c, mine > 0, "no event from the fixture's pid %d", (int)t.f.pid);
		check_each(c, &t, depth ? "backtrace: truncated, 5 frames (max 5)" : "[libc.so.6+",
			   hot_chain, 5, NULL);
		e2e_check_blocks(c, &t, depth, shown, 1);
	}
	e2e_traced_free(&t);
}

static void s_target_exe(struct e2e_ctx *c)
{
	target_exe(c, 5);
}

static void s_target_exe_depth128(struct e2e_ctx *c)
{
	target_exe(c, 0);
}

static void s_nopie(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = HOT_SCRIPT, .depth = 7 };
	static const bool shown[] = { true };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, "backtrace_hot_program_nopie", &tr, "dummy_touch")) {
		check_each(c, &t, "backtrace: truncated, 7 frames (max 7)", hot_chain, 5, NULL);
		check_each(c, &t, "[backtrace_hot_program_nopie+0x", hot_chain, 5, NULL);
		e2e_check_blocks(c, &t, 7, shown, 1);
	}
	e2e_traced_free(&t);
}

/* The library is dlopened after gstrace attached (the reference's dlopen, PID
 * mode): the first block already names the library (the symbolizer
 * refreshes the process's modules), and once one block unwinds through it
 * every later one does. Blocks before that may stop early (the BPF side
 * gets the library's rows after the fact) but must agree with gdb as far
 * as they go. */
static void s_dlopen(struct e2e_ctx *c)
{
	struct e2e_trace tr = {
		.script = "trace dlopen_main_callback { print \"DLOPEN_STACK\"; bt full; }",
		.depth = 6, .max_events = 150, .duration = 15,
	};
	static const bool shown[] = { true };
	struct e2e_traced t;
	size_t first_ordered = SIZE_MAX;
	int lock = -1;

	memset(&t, 0, sizeof(t));
	if (!e2e_fixture_start(&t.f, "backtrace_dlopen_program")) {
		e2e_expect(c, false, "fixture did not start");
		goto out;
	}
	tr.pid = t.f.pid;
	lock = e2e_lock(t.f.name, false);
	if (!e2e_trace_start(c, &tr, &t.r))
		goto out;
	e2e_expect(c, e2e_run_wait_for(&t.r, E2E_READY, false, 20000),
		   "gstrace printed no ready marker");
	kill(t.f.pid, SIGUSR2);
	e2e_expect(c, e2e_fixture_wait_line(&t.f, "loaded", 5000), "the fixture did not dlopen: %s",
		   e2e_buf_str(&t.f.out));
	e2e_trace_finish(c, &t.r, 20000, &t.out);
	e2e_unlock(lock);
	lock = -1;
	e2e_expect(c, e2e_run_exit_code(&t.r) == 0 && !t.r.killed,
		   "gstrace should stop by itself with exit 0: exit %d", e2e_run_exit_code(&t.r));
	e2e_expect(c, t.out.nblocks > 0, "no backtrace block");
	e2e_take_gdb(c, &t, "dlopen_main_callback");
	if (t.out.nblocks > 0) {
		const struct e2e_block *b0 = &t.out.blocks[0];

		e2e_expect(c, e2e_block_has(b0, "[libbacktrace_dlopen_target.so+") &&
			   e2e_block_has(b0, "dlopen_main_callback") &&
			   !e2e_block_has(b0, "<proc offsets unavailable>"),
			   "first block: no [libbacktrace_dlopen_target.so+ frame (or no callback, or "
			   "<proc offsets unavailable>)");
	}
	for (size_t i = 0; i < t.out.nblocks; i++) {
		const struct e2e_block *b = &t.out.blocks[i];
		bool ordered = e2e_block_ordered(b, dlopen_chain, 5) &&
			       !e2e_block_has(b, "no unwind rows for PC");

		if (first_ordered == SIZE_MAX && ordered)
			first_ordered = i;
		e2e_expect(c, first_ordered == SIZE_MAX || ordered,
			   "event %zu: not ordered %s .. main after event %zu was", b->event,
			   dlopen_chain[0], first_ordered);
	}
	e2e_expect(c, first_ordered != SIZE_MAX, "no block ordered %s .. main", dlopen_chain[0]);
	e2e_note(c, "%zu of %zu blocks came before the first complete one through the library\n",
		 first_ordered == SIZE_MAX ? t.out.nblocks : first_ordered, t.out.nblocks);
	t.settle = first_ordered == SIZE_MAX ? 0 : first_ordered;
	e2e_check_blocks(c, &t, 6, shown, 1);
out:
	e2e_traced_free(&t);
	e2e_unlock(lock);
}

const struct e2e_scenario e2e_bt_scenarios[] = {
	{ "depth1", s_depth1, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "depth4", s_depth4, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "depth5", s_depth5, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "depth7", s_depth7, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "depth128", s_depth128, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "depth5-O2", s_depth5_o2, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "depth128-O2", s_depth128_o2, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "bt-alias", s_bt_alias, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "raw", s_raw, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "full", s_full, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "inline-noinline", s_inline_noinline, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "two-bt", s_two_bt, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "if-branches", s_if_branches, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "cross-module", s_cross_module, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "dlopen", s_dlopen, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "nopie", s_nopie, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "perf-array", s_perf_array, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "perf-array-depth7-O2", s_perf_array_depth7, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "target-exe", s_target_exe, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "target-exe-depth128", s_target_exe_depth128, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "target-lib", s_target_lib, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "pid-target-lib", s_pid_target_lib, E2E_NEED_TRACING | E2E_NEED_GDB },
};
const size_t e2e_bt_nscenarios = BASE_ARRAY_SIZE(e2e_bt_scenarios);
