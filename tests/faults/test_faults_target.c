/* Targets that do not sit still: the traced process exits, execs another
 * program, forks, is killed, dlopens and dlcloses the traced library in a
 * loop, or runs 16 threads flat out. Each run ends by itself with exit 0
 * and leaves nothing attached. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "faults.h"

#define TICK "trace fault_tick { print \"tick {}\", rdi; bt; }"

/* fault_target in `mode`, traced with -p and `script` until `act` ends it. */
struct lifecycle {
	struct e2e_run fx, r;
	struct faults_objects o;
	char pid[16];
	bool ok;
};

static bool begin(struct e2e_ctx *c, struct lifecycle *l, const char *const *fixture,
		  const char *const *args)
{
	const char *v[16];
	size_t n = 0;

	memset(l, 0, sizeof(*l));
	if (!faults_fixture_start(&l->fx, fixture)) {
		e2e_expect(c, false, "fixture did not start");
		return false;
	}
	snprintf(l->pid, sizeof(l->pid), "%d", (int)l->fx.pid);
	v[n++] = "-p";
	v[n++] = l->pid;
	for (size_t i = 0; args[i] && n < 15; i++)
		v[n++] = args[i];
	v[n] = NULL;
	l->ok = faults_gstrace_start(c, &l->r, v) && faults_wait_ready(c, &l->r, &l->o, 20000);
	if (l->ok)
		l->ok = e2e_run_wait_for(&l->r, "tick", true, 10000);
	e2e_expect(c, l->ok, "no event before the target was disturbed");
	return l->ok;
}

static void end(struct e2e_ctx *c, struct lifecycle *l, const char *const *needles)
{
	faults_finish(c, &l->r, 20000);
	faults_expect_exit(c, &l->r, 0, needles);
	faults_expect_released(c, &l->o);
	faults_objects_free(&l->o);
	e2e_run_free(&l->r);
	if (l->fx.pid > 0 && !l->fx.exited)
		kill(l->fx.pid, SIGKILL);
	e2e_run_finish(&l->fx, 2000);
	e2e_run_free(&l->fx);
}

static void s_target_exits(struct e2e_ctx *c)
{
	struct lifecycle l;

	if (begin(c, &l, (const char *const[]){ "fault_target", "loop", NULL },
		  (const char *const[]){ "-s", TICK, NULL }))
		kill(l.fx.pid, SIGUSR1);
	end(c, &l, NULL);
}

static void s_target_killed(struct e2e_ctx *c)
{
	struct lifecycle l;

	if (begin(c, &l, (const char *const[]){ "fault_target", "loop", NULL },
		  (const char *const[]){ "-s", TICK, NULL }))
		kill(l.fx.pid, SIGKILL);
	end(c, &l, NULL);
}

/* After an exec the traced code is gone: gstrace says so and ends. */
static void s_target_execs(struct e2e_ctx *c)
{
	static const char *const needles[] = { "replaced its program (exec)", NULL };
	struct lifecycle l;

	if (begin(c, &l, (const char *const[]){ "fault_target", "exec", "/bin/sleep", "30", NULL },
		  (const char *const[]){ "-s", TICK, NULL }))
		kill(l.fx.pid, SIGUSR2);
	end(c, &l, needles);
}

/* A child forked mid-trace is another process: its hits are not shown, and
 * the parent's exit ends the run while the child runs on. */
static void s_target_forks(struct e2e_ctx *c)
{
	struct lifecycle l;
	char want[48];
	int child = 0;

	if (begin(c, &l, (const char *const[]){ "fault_target", "fork", NULL },
		  (const char *const[]){ "-s", "trace fault_tick { print \"tick pid={}\", $pid; }",
					 NULL })) {
		kill(l.fx.pid, SIGUSR2);
		if (e2e_run_wait_for(&l.fx, "child ", true, 5000))
			child = atoi(strstr(e2e_buf_str(&l.fx.out), "child ") + 6);
		e2e_expect(c, child > 0, "the fixture did not fork");
		usleep(300000); /* both tick */
		kill(l.fx.pid, SIGUSR1);
	}
	end(c, &l, NULL);
	snprintf(want, sizeof(want), "tick pid=%d", child);
	e2e_expect(c, child <= 0 || !strstr(e2e_buf_str(&l.r.out), want),
		   "events of the forked child %d were shown", child);
	if (child > 0)
		kill(child, SIGKILL);
}

/* The traced library comes and goes a thousand times a second. */
static void s_dlopen_churn(struct e2e_ctx *c)
{
	struct lifecycle l;
	const char *lib = e2e_fixture_path("libfaults_churn.so");

	if (begin(c, &l, (const char *const[]){ "fault_target", "dlopen", lib, NULL },
		  (const char *const[]){ "-t", lib, "--duration", "2", "-s",
					 "trace churn_leaf { print \"tick {}\", rdi; bt; }", NULL }))
		e2e_expect(c, strstr(e2e_buf_str(&l.r.out), "libfaults_churn.so+0x") != NULL,
			   "no frame names the churned library");
	end(c, &l, NULL);
}

/* 16 threads flat out under launch mode: every JSON line parses, and each
 * call is either printed or counted as lost. */
static void s_threads_flat_out(struct e2e_ctx *c)
{
	enum { THREADS = 16, EACH = 20000 };
	struct e2e_run r;
	const char *out, *err, *total, *lost_at;
	size_t lines = 0, bad = 0;
	unsigned long calls = 0, lost = 0;
	char each[16], threads[16];

	snprintf(each, sizeof(each), "%d", EACH);
	snprintf(threads, sizeof(threads), "%d", THREADS);
	if (!faults_gstrace_start(c, &r, (const char *const[]){
		    "--script-output", "json", "-s",
		    "trace fault_tick { print \"tick {}\", rdi; }", "--",
		    e2e_fixture_path("fault_target"), "threads", threads, each, NULL }))
		return;
	faults_finish(c, &r, 120000);
	faults_expect_exit(c, &r, 0, NULL);
	out = e2e_buf_str(&r.out);
	for (const char *s = out; *s;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		if (n && strncmp(s, "ready ", 6) != 0) {
			lines++;
			if (!faults_json_valid(s, n) && bad++ == 0)
				e2e_note(c, "invalid JSON line: %.*s\n", (int)n, s);
		}
		s += n + (nl != NULL);
	}
	err = e2e_buf_str(&r.err);
	total = strstr(err, "calls ");
	if (total)
		calls = strtoul(total + 6, NULL, 10);
	/* the last "lost N events ... (total T)" says T */
	for (const char *s = err; (s = strstr(s, "(total ")); s++)
		lost_at = s, lost = strtoul(lost_at + 7, NULL, 10);
	e2e_note(c, "%lu calls: %zu events printed, %lu lost\n", calls, lines, lost);
	e2e_expect(c, bad == 0, "%zu of %zu JSON lines do not parse", bad, lines);
	e2e_expect(c, calls == (unsigned long)THREADS * EACH, "the fixture said %lu calls", calls);
	e2e_expect(c, lines + lost == calls, "%zu printed + %lu lost != %lu calls", lines, lost,
		   calls);
	faults_expect_no_events_of(c, r.pid);
	e2e_run_free(&r);
}

const struct e2e_scenario faults_target_scenarios[] = {
	{ "target-exits", s_target_exits, E2E_NEED_TRACING },
	{ "target-killed", s_target_killed, E2E_NEED_TRACING },
	{ "target-execs", s_target_execs, E2E_NEED_TRACING },
	{ "target-forks", s_target_forks, E2E_NEED_TRACING },
	{ "dlopen-churn", s_dlopen_churn, E2E_NEED_TRACING },
	{ "threads-flat-out", s_threads_flat_out, E2E_NEED_TRACING },
};
const size_t faults_target_nscenarios = BASE_ARRAY_SIZE(faults_target_scenarios);
