/* The deep-stack scenarios on deep_program: depth 512 on a 600-frame recursion
 * equals gdb's first 512 frames; one trace with 20 `bt` statements and a
 * script of 20 traces with `bt` load and unwind as gdb does; a quiet trace
 * (one event a second) delivers each event within 10 ms. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "e2e.h"

#define FIXTURE "deep_program"
#define NCHAIN 20

/* ---- depth 512 ------------------------------------------------------------- */

static void s_depth512(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace deep_leaf { bt; }", .depth = 512,
				.max_events = 2 };
	static const bool shown[] = { true };
	struct e2e_traced t;

	if (e2e_trace_fixture(c, &t, FIXTURE, &tr, "deep_leaf")) {
		t.recursion = true;
		for (size_t i = 0; i < t.out.nblocks; i++) {
			const struct e2e_block *b = &t.out.blocks[i];
			const struct e2e_frame *v[E2E_MAX_FRAMES];
			size_t n = e2e_block_physical(b, v, E2E_MAX_FRAMES), recursing = 0;

			e2e_expect(c, strcmp(b->status, "truncated") == 0 && n == 512,
				   "event %zu: %s with %zu frames, not truncated at 512", b->event,
				   b->status, n);
			for (size_t j = 1; j < n; j++)
				recursing += strcmp(v[j]->func, "deep_recurse") == 0;
			e2e_expect(c, n > 0 && strcmp(v[0]->func, "deep_leaf") == 0 &&
				   recursing == n - 1, "event %zu: not deep_leaf then %zu deep_recurse "
				   "(%zu are)", b->event, n ? n - 1 : 0, recursing);
		}
		e2e_expect(c, t.g.n > 512, "gdb has %zu frames, not the whole recursion", t.g.n);
		e2e_check_blocks(c, &t, 512, shown, 1);
	}
	e2e_traced_free(&t);
}

/* ---- 20 bt statements in one trace --------------------------------------------- */

static void s_bt20(struct e2e_ctx *c)
{
	static bool shown[NCHAIN];
	struct e2e_buf script = { 0 };
	struct e2e_trace tr = { .max_events = 2 };
	struct e2e_traced t;

	e2e_buf_printf(&script, "trace chain_20 {");
	for (int i = 0; i < NCHAIN; i++) {
		e2e_buf_printf(&script, " bt;");
		shown[i] = true;
	}
	e2e_buf_printf(&script, " }");
	tr.script = e2e_buf_str(&script);
	if (e2e_trace_fixture(c, &t, FIXTURE, &tr, "chain_20")) {
		e2e_expect(c, t.out.nevents == 2 && t.out.nblocks == 2 * NCHAIN,
			   "%zu events with %zu backtraces; expected 2 with %d each", t.out.nevents,
			   t.out.nblocks, NCHAIN);
		for (size_t i = 0; i < t.out.nblocks; i++)
			e2e_expect(c, strcmp(t.out.blocks[i].status, "complete") == 0,
				   "event %zu block %zu: %s", t.out.blocks[i].event, i,
				   t.out.blocks[i].status);
		e2e_check_blocks(c, &t, 0, shown, NCHAIN);
	}
	e2e_traced_free(&t);
	e2e_buf_free(&script);
}

/* ---- a script of 20 traces ---------------------------------------------------- */

/* chain_k's k, or 0. */
static int chain_index(const struct e2e_block *b)
{
	const struct e2e_frame *v[1];
	int k = 0;

	if (e2e_block_physical(b, v, 1) && sscanf(v[0]->func, "chain_%d", &k) == 1 &&
	    k >= 1 && k <= NCHAIN)
		return k;
	return 0;
}

/* gdb at the pc gstrace probed in chain_20: its frames are chain_20 ..
 * chain_01, main, and libc's. */
static bool gdb_at_chain_end(struct e2e_ctx *c, struct e2e_traced *t)
{
	struct e2e_buf why = { 0 };
	char at[64] = "chain_20";
	int lock;

	for (size_t i = 0; i < t->out.nblocks; i++) {
		const struct e2e_frame *v[1];
		uint64_t pc;

		if (chain_index(&t->out.blocks[i]) == NCHAIN &&
		    e2e_block_physical(&t->out.blocks[i], v, 1) &&
		    e2e_frame_runtime_pc(t->f.pid, v[0], &pc)) {
			snprintf(at, sizeof(at), "*0x%" PRIx64, pc);
			break;
		}
	}
	lock = e2e_lock(t->f.name, true);
	t->have_gdb = e2e_gdb_backtrace(t->f.pid, at, &t->g, &why);
	e2e_unlock(lock);
	e2e_expect(c, t->have_gdb, "no gdb reference at %s: %s", at, e2e_buf_str(&why));
	e2e_buf_free(&why);
	return t->have_gdb;
}

/* A block of trace chain_k against gdb's frames from chain_k down, frame
 * #0 at the pc the block itself reports (gdb stood at chain_20's). */
static void compare_shifted(struct e2e_ctx *c, const struct e2e_traced *t,
			    const struct e2e_block *b, int k)
{
	static struct e2e_gdb_bt g;
	size_t skip = NCHAIN - (size_t)k;
	const struct e2e_frame *v[1];
	uint64_t pc;

	memset(&g, 0, sizeof(g));
	if (t->g.n <= skip || !e2e_block_physical(b, v, 1) ||
	    !e2e_frame_runtime_pc(t->f.pid, v[0], &pc)) {
		e2e_expect(c, false, "event %zu: no gdb frames for chain_%02d", b->event, k);
		return;
	}
	g.n = t->g.n - skip;
	memcpy(g.f, t->g.f + skip, g.n * sizeof(g.f[0]));
	g.f[0].pc = pc;
	e2e_compare_gdb(c, b, &g, true, t->f.pid);
}

static void s_script20(struct e2e_ctx *c)
{
	struct e2e_buf script = { 0 };
	/* the traces attach one after another: run long enough for the last */
	struct e2e_trace tr = { .max_events = 100000, .duration = 2 };
	unsigned seen[NCHAIN + 1] = { 0 };
	struct e2e_traced t;

	for (int k = 1; k <= NCHAIN; k++)
		e2e_buf_printf(&script, "trace chain_%02d { bt; }\n", k);
	tr.script = e2e_buf_str(&script);
	if (e2e_trace_fixture(c, &t, FIXTURE, &tr, NULL) && gdb_at_chain_end(c, &t)) {
		for (size_t i = 0; i < t.out.nblocks; i++) {
			const struct e2e_block *b = &t.out.blocks[i];
			int k = chain_index(b);

			seen[k]++;
			e2e_expect(c, k > 0, "event %zu: frame #0 is no chain function", b->event);
			e2e_expect(c, strcmp(b->status, "complete") == 0, "event %zu: %s", b->event,
				   b->status);
			if (k > 0)
				compare_shifted(c, &t, b, k);
		}
		for (int k = 1; k <= NCHAIN; k++)
			e2e_expect(c, seen[k] > 0, "no event of trace chain_%02d", k);
	}
	e2e_traced_free(&t);
	e2e_buf_free(&script);
}

/* ---- delivery of a quiet trace ------------------------------------------------- */

#define TICKS 5
/* The reader looks every 5 ms, so an event normally shows within a few.
 * What this guards is delivery that waits: for the next event (1 s later),
 * for a page to fill or for the run to end, all of which take 1 s or more.
 * 100 ms separates that from a shared machine's scheduling delays (CI saw
 * 23 ms with every suite running). */
#define TICK_MAX_MS 100.0

/* One second apart, deep_tick(now) prints its own CLOCK_MONOTONIC time;
 * each line is stamped here (CLOCK_MONOTONIC too) as it arrives. The
 * event's own timestamp (boot = ktime at the probe) sits in between. */
static void s_quiet_delivery(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace deep_tick { print \"TICK {}\", rdi; }",
				.max_events = TICKS, .duration = 20,
				.extra = { "--script-timestamp", "boot" } };
	double delay_ms[TICKS], probe_ms[TICKS];
	size_t nticks = 0, scanned = 0, late = 0;
	struct e2e_traced t;
	int lock;

	memset(&t, 0, sizeof(t));
	if (!e2e_fixture_start(&t.f, FIXTURE)) {
		e2e_expect(c, false, "fixture %s did not start", FIXTURE);
		return;
	}
	tr.pid = t.f.pid;
	lock = e2e_lock(FIXTURE, false);
	if (!e2e_trace_start(c, &tr, &t.r))
		goto out;
	while (nticks < TICKS && !t.r.exited) {
		const char *s, *line;
		double now;

		/* pumps stdout for up to 20 ms; returns as soon as bytes arrive */
		e2e_run_wait_for(&t.r, "\001", true, 1);
		now = e2e_now();
		s = e2e_buf_str(&t.r.out);
		while (nticks < TICKS && (line = strstr(s + scanned, "TICK ")) &&
		       strchr(line, '\n')) {
			uint64_t sent = strtoull(line + 5, NULL, 10);
			const char *hdr = strstr(s + scanned, "[boot+");
			double probe = hdr && hdr < line ? strtod(hdr + 6, NULL) : 0;

			delay_ms[nticks] = now * 1e3 - (double)sent / 1e6;
			probe_ms[nticks] = probe * 1e3 - (double)sent / 1e6;
			nticks++;
			scanned = (size_t)(strchr(line, '\n') - s) + 1;
		}
	}
	e2e_trace_finish(c, &t.r, 20000, &t.out);
	e2e_expect(c, nticks == TICKS, "%zu of %d TICK lines arrived", nticks, TICKS);
	for (size_t i = 0; i < nticks; i++) {
		e2e_note(c, "tick %zu: the event's timestamp %+.3f ms, arrival %+.3f ms after "
			 "the call\n", i, probe_ms[i], delay_ms[i]);
		late += delay_ms[i] > TICK_MAX_MS;
		e2e_expect(c, probe_ms[i] > -2 && probe_ms[i] < 2, "tick %zu: the event's "
			   "timestamp is %.3f ms from the fixture's own (ms precision)", i,
			   probe_ms[i]);
	}
	/* one late arrival is allowed: the machine is shared */
	e2e_expect(c, late <= 1, "%zu of %zu events arrived more than %.0f ms after the call",
		   late, nticks, TICK_MAX_MS);
out:
	e2e_unlock(lock);
	e2e_traced_free(&t);
}

const struct e2e_scenario e2e_deep_scenarios[] = {
	{ "depth512", s_depth512, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "bt20", s_bt20, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "script20", s_script20, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "quiet-delivery", s_quiet_delivery, E2E_NEED_TRACING },
};
const size_t e2e_deep_nscenarios = BASE_ARRAY_SIZE(e2e_deep_scenarios);
