/* Backtraces that end where gdb's end: through signal frames
 * (SIGUSR1 and SIGALRM, with and without SA_ONSTACK), a gcc DRAP frame,
 * the dynamic linker's lazy binding, pthread workers, a library probed
 * right after dlopen returns, dlopen/dlclose churn, a launched command's
 * first dlopen, and C++ names. Every
 * block is complete and equals gdb's `bt` at the same pc of the same
 * process (gdb's synthesized inline frames aside: the harness groups them). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "e2e.h"

static const bool shown[] = { true };

/* Every block complete, its first frames `chain` in order. */
static void expect_complete(struct e2e_ctx *c, const struct e2e_traced *t, const char *const *chain,
			    size_t n)
{
	for (size_t i = 0; i < t->out.nblocks; i++) {
		const struct e2e_block *b = &t->out.blocks[i];

		e2e_expect(c, strcmp(b->status, "complete") == 0, "event %zu: status %s, not complete",
			   b->event, b->status);
		e2e_expect(c, e2e_block_ordered(b, chain, n), "event %zu: frames #0..#%zu are not "
			   "%s .. %s in order", b->event, n - 1, chain[0], chain[n - 1]);
	}
}

/* Each block against gdb's stop: names, count and status always; the
 * addresses too unless `vary` (the interrupted pc of a signal, the call
 * site of a lazy binding: each event has its own, gdb stops at a later one). */
static void like_gdb(struct e2e_ctx *c, struct e2e_traced *t, bool vary)
{
	if (!vary) {
		e2e_check_blocks(c, t, 0, shown, 1);
		return;
	}
	for (size_t i = 0; i < t->out.nblocks; i++) {
		const struct e2e_block *b = &t->out.blocks[i];

		e2e_expect(c, !e2e_block_error_stop(b), "event %zu: stopped: %s", b->event,
			   b->stopped);
		e2e_expect(c, !e2e_block_adjacent_dup(b), "event %zu: two adjacent frames at the "
			   "same [module+off]", b->event);
		if (t->have_gdb && e2e_from_fixture(t, b))
			e2e_compare_gdb(c, b, &t->g, true, 0);
	}
}

/* A fixture traced at `fn`, its blocks complete, starting with chain, and
 * equal to gdb's. */
static void traced_like_gdb(struct e2e_ctx *c, const char *fixture, const char *script,
			    const char *const *chain, size_t n, bool vary)
{
	struct e2e_trace tr = { .script = script };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, fixture, &tr, chain[0])) {
		expect_complete(c, &t, chain, n);
		like_gdb(c, &t, vary);
	}
	e2e_traced_free(&t);
}

/* ---- signal frames ---------------------------------------------------------- */

static const char *const signal_chain[] = {
	"signal_probe", "signal_handler", "<signal handler called>", "signal_spin", "main",
};

#define SIGNAL_SCRIPT "trace signal_probe { bt; }"

static void s_signal_usr1(struct e2e_ctx *c)
{
	traced_like_gdb(c, "backtrace_signal_usr1", SIGNAL_SCRIPT, signal_chain, 5, true);
}

static void s_signal_usr1_onstack(struct e2e_ctx *c)
{
	traced_like_gdb(c, "backtrace_signal_usr1_onstack", SIGNAL_SCRIPT, signal_chain, 5, true);
}

static void s_signal_alrm(struct e2e_ctx *c)
{
	traced_like_gdb(c, "backtrace_signal_alrm", SIGNAL_SCRIPT, signal_chain, 5, true);
}

static void s_signal_alrm_onstack(struct e2e_ctx *c)
{
	traced_like_gdb(c, "backtrace_signal_alrm_onstack", SIGNAL_SCRIPT, signal_chain, 5, true);
}

/* ---- DRAP, threads, C++ ------------------------------------------------------ */

static void s_drap(struct e2e_ctx *c)
{
	static const char *const chain[] = { "drap_probe", "drap_outer", "main" };

	traced_like_gdb(c, "backtrace_drap_program", "trace drap_probe { bt; }", chain, 3, false);
}

/* A worker's stack ends in clone3, whose CFI leaves the return address
 * undefined: complete there, as gdb ends there. */
static void s_threads(struct e2e_ctx *c)
{
	static const char *const chain[] = { "thread_probe", "thread_worker", "start_thread" };

	traced_like_gdb(c, "backtrace_thread_program", "trace thread_probe { bt; }", chain, 3,
			false);
}

/* Names as gdb shows them: namespaces and template arguments. The script
 * names the function by its linkage name (the script has no C++ syntax). */
static void s_cxx(struct e2e_ctx *c)
{
	static const char *const chain[] = { "ns::cxx_probe", "ns::Box<int>::get",
					     "ns::twice<int>", "main" };

	traced_like_gdb(c, "backtrace_cxx_program", "trace _ZN2ns9cxx_probeEi { bt; }", chain, 4,
			false);
}

/* --no-demangle keeps the linkage names. */
static void s_cxx_no_demangle(struct e2e_ctx *c)
{
	static const char *const chain[] = { "_ZN2ns9cxx_probeEi", "_ZNK2ns3BoxIiE3getEv" };
	struct e2e_trace tr = { .script = "trace _ZN2ns9cxx_probeEi { bt; }",
				.extra = { "--no-demangle" } };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, "backtrace_cxx_program", &tr, NULL))
		expect_complete(c, &t, chain, 2);
	e2e_traced_free(&t);
}

/* ---- the dynamic linker ------------------------------------------------------ */

/* Traces a fixture that starts its work on SIGUSR2 (after gstrace is
 * ready), until max_events or its `done` line. */
static bool trace_after_go(struct e2e_ctx *c, struct e2e_traced *t, const char *fixture,
			   struct e2e_trace *tr, const char *wait_line, int wait_ms)
{
	int lock;

	memset(t, 0, sizeof(*t));
	if (!e2e_fixture_start(&t->f, fixture)) {
		e2e_expect(c, false, "fixture %s did not start", fixture);
		return false;
	}
	tr->pid = t->f.pid;
	lock = e2e_lock(fixture, false);
	if (!e2e_trace_start(c, tr, &t->r)) {
		e2e_unlock(lock);
		return false;
	}
	e2e_expect(c, e2e_run_wait_for(&t->r, E2E_READY, false, 20000),
		   "gstrace printed no ready marker");
	kill(t->f.pid, SIGUSR2);
	if (wait_line)
		e2e_expect(c, e2e_fixture_wait_line(&t->f, wait_line, wait_ms),
			   "the fixture did not say %s: %s", wait_line, e2e_buf_str(&t->f.out));
	e2e_trace_finish(c, &t->r, 30000, &t->out);
	e2e_unlock(lock);
	e2e_expect(c, e2e_run_exit_code(&t->r) == 0 && !t->r.killed,
		   "gstrace should stop by itself with exit 0: exit %d", e2e_run_exit_code(&t->r));
	e2e_expect(c, t->out.nblocks > 0, "no backtrace block");
	return t->out.nblocks > 0;
}

/* A PLT entry bound on first use: the resolver runs under
 * _dl_runtime_resolve_xsavec, whose CFA is rbx-based. */
static void s_lazy_plt(struct e2e_ctx *c)
{
	static const char *const chain[] = { "lazy_fn_resolver", "_dl_fixup",
					     "_dl_runtime_resolve_xsavec", "lazy_call", "main" };
	struct e2e_trace tr = { .script = "trace lazy_fn_resolver { bt; }", .max_events = 3,
				.duration = 15 };
	char lib[4096];
	struct e2e_traced t;

	snprintf(lib, sizeof(lib), "%s", e2e_fixture_path("liblazy_ifunc.so"));
	tr.target = lib;
	if (trace_after_go(c, &t, "backtrace_lazy_program", &tr, NULL, 0)) {
		e2e_take_gdb(c, &t, "lazy_fn_resolver");
		expect_complete(c, &t, chain, 5);
		like_gdb(c, &t, true);
	}
	e2e_traced_free(&t);
}

static const char *const dlopen_lib_chain[] = {
	"dlopen_lib_leaf", "dlopen_lib_middle", "dlopen_lib_driver", "main",
};

/* A probe in a library the process dlopens after gstrace attached: the
 * very first block, right after dlopen returned, is complete. */
static void s_dlopen_probe(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace dlopen_lib_leaf { bt; }", .max_events = 3,
				.duration = 15 };
	char lib[4096];
	struct e2e_traced t;

	snprintf(lib, sizeof(lib), "%s", e2e_fixture_path("libbacktrace_dlopen_target.so"));
	tr.target = lib;
	if (trace_after_go(c, &t, "backtrace_dlopen_program", &tr, "loaded", 5000)) {
		e2e_take_gdb(c, &t, "dlopen_lib_leaf");
		expect_complete(c, &t, dlopen_lib_chain, 4);
		e2e_check_blocks(c, &t, 0, shown, 1);
	}
	e2e_traced_free(&t);
}

/* 1000 rounds of dlopen, a call into the library, dlclose: every one of
 * the 1000 backtraces from inside the library is complete. (gdb's
 * reference for these frames is s_dlopen_probe's.) */
static void s_dlopen_churn(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace dlopen_lib_leaf { bt; }", .max_events = 1000,
				.duration = 60 };
	char lib[4096];
	struct e2e_traced t;
	size_t complete = 0;

	snprintf(lib, sizeof(lib), "%s", e2e_fixture_path("libbacktrace_dlopen_target.so"));
	tr.target = lib;
	/* gstrace's output is read while the fixture runs: no wait for "done" */
	if (trace_after_go(c, &t, "backtrace_churn_program", &tr, NULL, 0)) {
		expect_complete(c, &t, dlopen_lib_chain, 4);
		for (size_t i = 0; i < t.out.nblocks; i++)
			complete += strcmp(t.out.blocks[i].status, "complete") == 0;
		e2e_expect(c, t.out.nblocks == 1000, "%zu blocks, 1000 expected", t.out.nblocks);
		e2e_note(c, "%zu of %zu blocks complete under 1000 dlopen/dlclose cycles\n", complete,
			 t.out.nblocks);
	}
	e2e_traced_free(&t);
}

/* Launch mode (`gstrace -t libpython... -- python3 script.py`):
 * the command dlopens a library first thing and the library calls the
 * traced function right after. The process stops at the dlopen until its
 * maps know the library, so every block is complete, the first one too,
 * and equals gdb's on a second run of the same program. */
static void s_launch_dlopen_early(struct e2e_ctx *c)
{
	static const char *const chain[] = {
		"dlopen_main_callback", "dlopen_lib_leaf", "dlopen_lib_middle", "dlopen_lib_driver",
		"main",
	};
	const char *fixture = "backtrace_dlopen_early_program";
	struct e2e_trace tr = { .script = "trace dlopen_main_callback { bt; }", .max_events = 5,
				.duration = 15, .command = e2e_fixture_path(fixture) };
	struct e2e_traced t;
	int lock = e2e_lock(fixture, false);

	memset(&t, 0, sizeof(t));
	e2e_trace_run(c, &tr, &t.r, &t.out);
	e2e_unlock(lock);
	e2e_expect(c, e2e_run_exit_code(&t.r) == 0 && !t.r.killed,
		   "gstrace should stop by itself with exit 0 after --max-events 5: exit %d",
		   e2e_run_exit_code(&t.r));
	e2e_expect(c, t.out.nblocks == 5, "%zu blocks, 5 expected", t.out.nblocks);
	expect_complete(c, &t, chain, 5);
	/* gdb on a process of its own: the launched one is gone */
	if (t.out.nblocks && e2e_fixture_start(&t.f, fixture)) {
		e2e_take_gdb(c, &t, "dlopen_main_callback");
		for (size_t i = 0; t.have_gdb && i < t.out.nblocks; i++)
			e2e_compare_gdb(c, &t.out.blocks[i], &t.g, true, 0);
	}
	e2e_traced_free(&t);
}

/* `trace memcmp` with -p: the implementation the process selected is
 * probed (said on stderr), not the IFUNC's resolver. */
static void s_ifunc(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace memcmp { bt; }" };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, "backtrace_ifunc_program", &tr, NULL)) {
		const struct e2e_block *b = &t.out.blocks[0];

		e2e_expect(c, strstr(e2e_buf_str(&t.r.err), "is an IFUNC of libc.so.6: pid ") &&
			   strstr(e2e_buf_str(&t.r.err), "which is traced"),
			   "no note naming the selected implementation on stderr");
		e2e_expect(c, b->nf > 1 && strncmp(b->frames[0].func, "__memcmp", 8) == 0 &&
			   strcmp(b->frames[1].func, "ifunc_caller") == 0,
			   "frames #0, #1 are not __memcmp_*, ifunc_caller");
		e2e_take_gdb(c, &t, "memcmp");
		like_gdb(c, &t, false);
	}
	e2e_traced_free(&t);
}

const struct e2e_scenario e2e_unwind_scenarios[] = {
	{ "signal-usr1", s_signal_usr1, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "signal-usr1-onstack", s_signal_usr1_onstack, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "signal-alrm", s_signal_alrm, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "signal-alrm-onstack", s_signal_alrm_onstack, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "drap", s_drap, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "threads", s_threads, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "cxx", s_cxx, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "cxx-no-demangle", s_cxx_no_demangle, E2E_NEED_TRACING },
	{ "lazy-plt", s_lazy_plt, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "dlopen-probe", s_dlopen_probe, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "dlopen-churn", s_dlopen_churn, E2E_NEED_TRACING },
	{ "ifunc", s_ifunc, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "launch-dlopen-early", s_launch_dlopen_early, E2E_NEED_TRACING | E2E_NEED_GDB },
};
const size_t e2e_unwind_nscenarios = BASE_ARRAY_SIZE(e2e_unwind_scenarios);
