/* Events at their edges: a value larger than what is left of the event is
 * captured to what fits and marked, never dropped in silence; `{:s}` is
 * C's string (a full char[16] shows 16 bytes, a string of exactly the cap
 * is whole, a longer one is cut at the cap and marked, in text and JSON);
 * folded stacks over two modules (the path where a freed module table was
 * read: CI runs this suite under ASan). */
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "faults.h"

static bool values_start(struct e2e_ctx *c, struct e2e_run *fx, char *pid, size_t size)
{
	static const char *const argv[] = { "values_target", NULL };

	if (!faults_fixture_start(fx, argv)) {
		e2e_expect(c, false, "values_target did not start");
		return false;
	}
	snprintf(pid, size, "%d", (int)fx->pid);
	return true;
}

/* gstrace -p pid ... -s script --max-events 1 to its end: exit 0. */
static void one_event(struct e2e_ctx *c, const char *pid, const char *script,
		      const char *const *extra, struct e2e_run *r)
{
	const char *args[16] = { "-p", pid, "--max-events", "1", "-s", script };
	size_t n = 6;
	struct faults_objects o = { 0 };

	for (size_t i = 0; extra && extra[i] && n < 15; i++)
		args[n++] = extra[i];
	args[n] = NULL;
	memset(r, 0, sizeof(*r));
	if (!faults_gstrace_start(c, r, args))
		return;
	faults_wait_ready(c, r, &o, 20000);
	faults_finish(c, r, 20000);
	/* No loss is asserted: events of 32 KiB at 1 kHz may fill the ring
	 * buffer after the one asked for (the VM suite counts losses). */
	faults_expect_exit(c, r, 0, NULL);
	faults_expect_released(c, &o);
	faults_objects_free(&o);
}

static void expect_out(struct e2e_ctx *c, const struct e2e_run *r, const char *what,
		       const char *needle)
{
	e2e_expect(c, strstr(e2e_buf_str(&r->out), needle) != NULL, "%s: no \"%s\" in:\n%.600s",
		   what, needle, e2e_buf_str(&r->out));
}

static void s_event_too_large(struct e2e_ctx *c)
{
	struct e2e_run fx, r;
	char pid[16];

	if (!values_start(c, &fx, pid, sizeof(pid)))
		return;
	/* After another print the 64 KiB struct no longer fits whole. */
	one_event(c, pid, "trace values_tick { print \"first {}\", 1; print g_giant; }", NULL, &r);
	expect_out(c, &r, "g_giant after a print", "first 1");
	expect_out(c, &r, "g_giant after a print", "g_giant = {b = \"ggg");
	expect_out(c, &r, "g_giant after a print", "<truncated>");
	e2e_run_free(&r);
	/* A dump of the whole event size after another print ends the run. */
	one_event(c, pid, "trace values_tick { print \"first {}\", 1; "
		  "print \"{:s.32768}\", g_bigbuf; }", NULL, &r);
	expect_out(c, &r, "{:s.32768} after a print", "BBBBBBBB");
	expect_out(c, &r, "{:s.32768} after a print", "<truncated>");
	e2e_run_free(&r);
	faults_fixture_stop(&fx);
}

static void s_string_exact(struct e2e_ctx *c)
{
	static const char *const plain[] = { "--max-string-len", "8", NULL };
	static const char *const json[] = { "--max-string-len", "8", "--script-output", "json",
					    NULL };
	struct e2e_run fx, r;
	char pid[16];

	if (!values_start(c, &fx, pid, sizeof(pid)))
		return;
	one_event(c, pid, "trace values_tick { print \"[{:s}]\", r->name; }", NULL, &r);
	expect_out(c, &r, "char[16] without a NUL", "[0123456789abcdef]");
	e2e_run_free(&r);
	one_event(c, pid, "trace values_tick { print \"[{:s}] [{:s}] [{:s}]\", g_long, "
		  "g_exact8, r->name; }", plain, &r);
	expect_out(c, &r, "strings capped at 8", "[abcdefgh <truncated>] [12345678] "
		   "[01234567 <truncated>]");
	e2e_run_free(&r);
	one_event(c, pid, "trace values_tick { print \"{:s} {:s}\", g_long, g_exact8; }", json, &r);
	expect_out(c, &r, "JSON, capped at 8", "\"name\":\"g_long\",\"type\":\"const char *\","
		   "\"status\":\"truncated\",\"value\":\"abcdefgh\"");
	expect_out(c, &r, "JSON, capped at 8", "\"name\":\"g_exact8\",\"type\":\"const char *\","
		   "\"status\":\"ok\",\"value\":\"12345678\"");
	e2e_run_free(&r);
	faults_fixture_stop(&fx);
}

static void s_folded_two_modules(struct e2e_ctx *c)
{
	static const char *const folded[] = { "--script-output", "folded", NULL };
	struct e2e_run fx, r;
	char pid[16];

	if (!values_start(c, &fx, pid, sizeof(pid)))
		return;
	one_event(c, pid, "trace values_tick { bt; }", folded, &r);
	expect_out(c, &r, "folded", "qsort");
	expect_out(c, &r, "folded", "by_value;values_tick 1");
	e2e_run_free(&r);
	faults_fixture_stop(&fx);
}

const struct e2e_scenario faults_events_scenarios[] = {
	{ "event-too-large", s_event_too_large, E2E_NEED_TRACING },
	{ "string-exact", s_string_exact, E2E_NEED_TRACING },
	{ "folded-two-modules", s_folded_two_modules, E2E_NEED_TRACING },
};
const size_t faults_events_nscenarios = BASE_ARRAY_SIZE(faults_events_scenarios);
