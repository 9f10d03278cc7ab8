/* Shared by the backtrace scenarios (test_e2e_bt.c, test_e2e_deep.c) and
 * kept in e2e_traced.c: a fixture traced by gstrace, then gdb's reference. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* The block comes from the fixture process: its event header says so, or
 * there is no header (plain output: only pid mode uses it). */
bool e2e_from_fixture(const struct e2e_traced *t, const struct e2e_block *b)
{
	int pid = t->out.events[b->event].pid;

	return pid == t->f.pid || pid == 0;
}

void e2e_traced_free(struct e2e_traced *t)
{
	e2e_fixture_stop(&t->f);
	e2e_run_free(&t->r);
	e2e_output_free(&t->out);
	e2e_gdb_free(&t->g);
}

/* gdb stops in the fixture at the very instruction gstrace probed (frame
 * #0 of its first block from this process), so both unwind from the same
 * pc; `where` (the function or file:line traced) when there is none. It
 * runs after gstrace is gone, so no uprobe and breakpoint share an
 * address. gdb's own choice for `break where` may differ from gstrace's
 * prologue skipping (gdb does not skip frameless GCC prologues on x86-64):
 * that is not what is compared. */
void e2e_take_gdb(struct e2e_ctx *c, struct e2e_traced *t, const char *where)
{
	struct e2e_buf why = { 0 };
	char at[64];
	int lock;

	for (size_t i = 0; i < t->out.nblocks; i++) {
		const struct e2e_block *b = &t->out.blocks[i];
		const struct e2e_frame *v[1];
		uint64_t pc;

		if (!e2e_from_fixture(t, b) || !e2e_block_physical(b, v, 1) ||
		    !e2e_frame_runtime_pc(t->f.pid, v[0], &pc))
			continue;
		snprintf(at, sizeof(at), "*0x%llx", (unsigned long long)pc);
		e2e_note(c, "gdb stops at %s, gstrace's frame #0 (%s)\n", at, v[0]->func);
		where = at;
		break;
	}
	lock = e2e_lock(t->f.name, true);
	t->have_gdb = e2e_gdb_backtrace(t->f.pid, where, &t->g, &why);
	e2e_unlock(lock);
	e2e_expect(c, t->have_gdb, "no gdb reference: %s", e2e_buf_str(&why));
	e2e_note(c, "gdb at %s:\n", where);
	for (size_t i = 0; i < t->g.n; i++)
		e2e_note(c, "  #%zu %s%s 0x%llx%s%s\n", i, t->g.f[i].func,
			 t->g.f[i].inline_frame ? " (inline)" : "",
			 (unsigned long long)t->g.f[i].pc, t->g.f[i].from[0] ? " from " : "",
			 t->g.f[i].from);
	e2e_buf_free(&why);
}

/* Starts `fixture`, traces it (pid mode unless tr->target is set and
 * tr->pid is not -1) until
 * max_events (default 3), then takes gdb's reference at `where`. */
bool e2e_trace_fixture(struct e2e_ctx *c, struct e2e_traced *t, const char *fixture,
			  struct e2e_trace *tr, const char *where)
{
	int lock;

	memset(t, 0, sizeof(*t));
	if (!e2e_fixture_start(&t->f, fixture)) {
		e2e_expect(c, false, "fixture %s did not start", fixture);
		return false;
	}
	if (!tr->target || tr->pid < 0)
		tr->pid = t->f.pid;
	if (!tr->max_events)
		tr->max_events = 3;
	if (!tr->duration)
		tr->duration = 10;
	lock = e2e_lock(fixture, false);
	e2e_trace_run(c, tr, &t->r, &t->out);
	e2e_unlock(lock);
	e2e_expect(c, e2e_run_exit_code(&t->r) == 0 && !t->r.killed,
		   "gstrace should stop by itself with exit 0 after --max-events %u: exit %d%s",
		   tr->max_events, e2e_run_exit_code(&t->r), t->r.killed ? " (had to be stopped)" : "");
	e2e_expect(c, t->out.nblocks > 0, "no backtrace block in gstrace's output");
	if (where)
		e2e_take_gdb(c, t, where);
	return t->out.nblocks > 0;
}

/* What every block must satisfy, whatever the scenario: the header's
 * depth and count, no error stop, no repeated frame, gdb's frames.
 * inline_shown[k]: the k-th `bt` of the trace shows inline frames. */
void e2e_check_blocks(struct e2e_ctx *c, struct e2e_traced *t, unsigned depth,
			 const bool *inline_shown, size_t nshown)
{
	for (size_t i = 0; i < t->out.nblocks; i++) {
		const struct e2e_block *b = &t->out.blocks[i];
		const struct e2e_event *ev = &t->out.events[b->event];
		const struct e2e_frame *v[E2E_MAX_FRAMES];
		size_t np = e2e_block_physical(b, v, E2E_MAX_FRAMES), k = i - ev->first_block;

		e2e_expect(c, b->max == (depth ? depth : 128), "event %zu: (max %u), asked %u",
			   b->event, b->max, depth ? depth : 128);
		e2e_expect(c, b->nframes == np, "event %zu: header says %u frames, %zu listed",
			   b->event, b->nframes, np);
		e2e_expect(c, i < t->settle || !e2e_block_error_stop(b), "event %zu: stopped: %s",
			   b->event, b->stopped);
		e2e_expect(c, t->recursion || !e2e_block_adjacent_dup(b), "event %zu: two adjacent "
			   "frames at the same [module+off]", b->event);
		for (size_t j = 0; j < np; j++)
			e2e_expect(c, v[j]->index == j, "event %zu: physical frame %zu numbered #%u",
				   b->event, j, v[j]->index);
		if (t->have_gdb && e2e_from_fixture(t, b))
			e2e_compare_gdb(c, b, &t->g, k < nshown ? inline_shown[k] : true, t->f.pid);
	}
}

