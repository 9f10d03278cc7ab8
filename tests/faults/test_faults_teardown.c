/* Teardown at any scale and after any end: a gstrace SIGKILLed in tracefs
 * mode leaves its uprobe_events entry, and the next run removes it; many
 * traces share one address in tracefs mode; a thousand probes detach and
 * leave nothing; perf-event teardown that takes a while says so. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "faults.h"

/* `n` copies of `trace` in one script (malloc'd). */
static char *repeat(const char *trace, size_t n)
{
	size_t len = strlen(trace);
	char *s = malloc(n * (len + 1) + 1), *p = s;

	if (!s)
		abort();
	for (size_t i = 0; i < n; i++, p += len + 1) {
		memcpy(p, trace, len);
		p[len] = '\n';
	}
	*p = '\0';
	return s;
}

/* The tracefs entries of gstrace pid `gpid` (a count). */
static size_t entries_of(pid_t gpid)
{
	char needle[32], *events = e2e_uprobe_events();
	size_t n = 0;

	snprintf(needle, sizeof(needle), "gstrace/gs_p%d_", (int)gpid);
	for (const char *s = events; (s = strstr(s, needle)); s++)
		n++;
	free(events);
	return n;
}

static void s_tracefs_sigkill_reaped(struct e2e_ctx *c)
{
	char pid[16];
	struct e2e_run fx, killed, next;
	struct faults_objects o = { 0 }, o2 = { 0 };
	const char *script = "trace fault_tick { print \"tick\"; }";

	if (!faults_loop_start(c, &fx, pid, sizeof(pid)))
		return;
	setenv("GSTRACE_FORCE_TRACEFS", "1", 1);
	if (faults_gstrace_start(c, &killed, (const char *const[]){ "-p", pid, "-s", script,
								     NULL })) {
		faults_wait_ready(c, &killed, &o, 20000);
		e2e_expect(c, entries_of(killed.pid) == 1, "%zu tracefs entries of the first "
			   "gstrace while it runs, want 1", entries_of(killed.pid));
		kill(killed.pid, SIGKILL);
		faults_finish(c, &killed, 5000);
		e2e_expect(c, e2e_run_exit_code(&killed) == 128 + SIGKILL, "not killed");
		e2e_expect(c, entries_of(killed.pid) == 1, "the SIGKILLed gstrace's entry is "
			   "gone before any other run (it cannot remove it itself)");
	}
	unsetenv("GSTRACE_FORCE_TRACEFS");
	/* Any later run, in any attach mode, reaps it at its start. */
	if (faults_gstrace_start(c, &next, (const char *const[]){ "-p", pid, "--duration", "0.3",
								   "-s", script, NULL })) {
		faults_wait_ready(c, &next, &o2, 20000);
		e2e_expect(c, entries_of(killed.pid) == 0, "the next run did not reap the entry "
			   "of the killed gstrace (pid %d)", (int)killed.pid);
		faults_finish(c, &next, 20000);
		faults_expect_exit(c, &next, 0, NULL);
		faults_expect_released(c, &o2);
	}
	faults_expect_released(c, &o);
	faults_objects_free(&o);
	faults_objects_free(&o2);
	e2e_run_free(&killed);
	e2e_run_free(&next);
	faults_fixture_stop(&fx);
}

/* More than 17 traces on one address used to fail with "File exists". */
static void s_tracefs_shared_address(struct e2e_ctx *c)
{
	enum { TRACES = 40 };
	char pid[16], *script = repeat("trace fault_tick { print \"t\"; }", TRACES);
	struct e2e_run fx, r;
	struct faults_objects o = { 0 };

	if (!faults_loop_start(c, &fx, pid, sizeof(pid))) {
		free(script);
		return;
	}
	setenv("GSTRACE_FORCE_TRACEFS", "1", 1);
	if (faults_gstrace_start(c, &r, (const char *const[]){ "-p", pid, "--duration", "0.5",
								"-s", script, NULL })) {
		if (faults_wait_ready(c, &r, &o, 30000))
			e2e_expect(c, entries_of(r.pid) == TRACES, "%zu tracefs entries, want %d",
				   entries_of(r.pid), TRACES);
		faults_finish(c, &r, 60000);
		faults_expect_exit(c, &r, 0, NULL);
		faults_expect_released(c, &o);
		faults_objects_free(&o);
		e2e_run_free(&r);
	}
	unsetenv("GSTRACE_FORCE_TRACEFS");
	free(script);
	faults_fixture_stop(&fx);
}

/* A thousand probes detach (a uprobe_multi link each here), nothing stays.
 * The time is logged; bench/ holds the bound (teardown.ms.probes1000). */
static void s_teardown_1000_probes(struct e2e_ctx *c)
{
	char pid[16], *script = repeat("trace fault_tick { print \"t\"; }", 1000);
	struct e2e_run fx, r;
	struct faults_objects o = { 0 };
	double ready_at = 0;

	if (!faults_loop_start(c, &fx, pid, sizeof(pid))) {
		free(script);
		return;
	}
	if (faults_gstrace_start(c, &r, (const char *const[]){ "-p", pid, "--duration", "1",
								"-o", "/dev/null", "-s", script,
								NULL })) {
		if (faults_wait_ready(c, &r, &o, 120000))
			ready_at = e2e_now() - r.start;
		e2e_expect(c, o.nprogs >= 1000, "%zu programs loaded, want 1000", o.nprogs);
		faults_finish(c, &r, 120000);
		faults_expect_exit(c, &r, 0, NULL);
		e2e_note(c, "attached in %.2f s, traced 1 s, detached in %.2f s\n", ready_at,
			 r.secs - ready_at - 1.0);
		faults_expect_released(c, &o);
		faults_objects_free(&o);
		e2e_run_free(&r);
	}
	free(script);
	faults_fixture_stop(&fx);
}

/* Perf events release one by one in the kernel (~0.1 s each): with 20 of
 * them gstrace says what it is doing rather than hang silently. */
static void s_teardown_notice(struct e2e_ctx *c)
{
	static const char *const needles[] = { "detaching 20 probes", NULL };
	char pid[16], *script = repeat("trace fault_tick { print \"t\"; }", 20);
	struct e2e_run fx, r;
	struct faults_objects o = { 0 };

	if (!faults_loop_start(c, &fx, pid, sizeof(pid))) {
		free(script);
		return;
	}
	setenv("GSTRACE_NO_UPROBE_MULTI", "1", 1);
	if (faults_gstrace_start(c, &r, (const char *const[]){ "-p", pid, "--duration", "0.2",
								"-o", "/dev/null", "-s", script,
								NULL })) {
		faults_wait_ready(c, &r, &o, 60000);
		faults_finish(c, &r, 60000);
		faults_expect_exit(c, &r, 0, needles);
		faults_expect_released(c, &o);
		faults_objects_free(&o);
		e2e_run_free(&r);
	}
	unsetenv("GSTRACE_NO_UPROBE_MULTI");
	free(script);
	faults_fixture_stop(&fx);
}

const struct e2e_scenario faults_teardown_scenarios[] = {
	{ "tracefs-sigkill-reaped", s_tracefs_sigkill_reaped, E2E_NEED_TRACING },
	{ "tracefs-shared-address", s_tracefs_shared_address, E2E_NEED_TRACING },
	{ "teardown-1000-probes", s_teardown_1000_probes, E2E_NEED_TRACING },
	{ "teardown-notice", s_teardown_notice, E2E_NEED_TRACING },
};
const size_t faults_teardown_nscenarios = BASE_ARRAY_SIZE(faults_teardown_scenarios);
