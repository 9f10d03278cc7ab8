/* Running gstrace and the fixtures of the faults suite on top of the e2e
 * harness's processes: a fixture with arguments waited for until ready,
 * gstrace with the ready marker, its kernel objects read once it is
 * attached, and the expectations every scenario shares. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults.h"

bool faults_fixture_start(struct e2e_run *r, const char *const *argv)
{
	const char *v[16];
	char want[32];
	size_t n = 0;

	v[n++] = strchr(argv[0], '/') ? argv[0] : e2e_fixture_path(argv[0]);
	for (size_t i = 1; argv[i] && n < 15; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	if (e2e_run_start(r, (char *const *)v))
		return false;
	snprintf(want, sizeof(want), "ready %d\n", (int)r->pid);
	if (e2e_run_wait_for(r, want, true, 5000))
		return true;
	fprintf(stderr, "fixture %s did not get ready: %s%s\n", v[0], e2e_buf_str(&r->out),
		e2e_buf_str(&r->err));
	kill(r->pid, SIGKILL);
	e2e_run_finish(r, 1000);
	return false;
}

bool faults_loop_start(struct e2e_ctx *c, struct e2e_run *fx, char *pid, size_t size)
{
	if (!faults_fixture_start(fx, (const char *const[]){ "fault_target", "loop", NULL })) {
		e2e_expect(c, false, "fixture did not start");
		return false;
	}
	snprintf(pid, size, "%d", (int)fx->pid);
	return true;
}

void faults_fixture_stop(struct e2e_run *fx)
{
	if (fx->pid > 0 && !fx->exited)
		kill(fx->pid, SIGKILL);
	e2e_run_finish(fx, 2000);
	e2e_run_free(fx);
}

bool faults_gstrace_start(struct e2e_ctx *c, struct e2e_run *r, const char *const *args)
{
	const char *v[64];
	size_t n = 0;

	v[n++] = e2e_gstrace_path();
	v[n++] = "--emit-ready-marker";
	v[n++] = E2E_READY;
	for (size_t i = 0; args[i] && n < 63; i++)
		v[n++] = args[i];
	v[n] = NULL;
	if (e2e_run_start(r, (char *const *)v)) {
		e2e_expect(c, false, "cannot start %s", v[0]);
		return false;
	}
	return true;
}

bool faults_wait_ready(struct e2e_ctx *c, struct e2e_run *r, struct faults_objects *o,
		       int timeout_ms)
{
	bool ready = e2e_run_wait_for(r, E2E_READY, false, timeout_ms);

	e2e_expect(c, ready, "no ready marker within %d ms", timeout_ms);
	if (ready && o)
		e2e_expect(c, faults_objects_read(r->pid, o), "cannot read /proc/%d/fdinfo",
			   (int)r->pid);
	return ready;
}

void faults_finish(struct e2e_ctx *c, struct e2e_run *r, int timeout_ms)
{
	struct e2e_output out;

	e2e_trace_finish(c, r, timeout_ms, &out);
	e2e_output_free(&out);
	e2e_expect(c, !r->killed, "gstrace did not end by itself within %d ms", timeout_ms);
}

void faults_expect_exit(struct e2e_ctx *c, const struct e2e_run *r, int code,
			const char *const *needles)
{
	const char *err = e2e_buf_str(&r->err);

	e2e_expect(c, e2e_run_exit_code(r) == code, "exit %d, want %d", e2e_run_exit_code(r),
		   code);
	/* a run that ends well says nothing went wrong */
	if (code == 0)
		e2e_expect(c, !strstr(err, "cannot") && !strstr(err, "failed") &&
			   !strstr(err, "error"), "an error on stderr of a run that exited 0");
	for (size_t i = 0; needles && needles[i]; i++)
		e2e_expect(c, strstr(err, needles[i]) != NULL, "stderr does not mention '%s'",
			   needles[i]);
}

void faults_run_refused(struct e2e_ctx *c, const char *const *args, int code,
			const char *const *needles)
{
	struct e2e_run r;

	if (!faults_gstrace_start(c, &r, args))
		return;
	faults_finish(c, &r, 30000);
	faults_expect_exit(c, &r, code, needles);
	e2e_expect(c, !strstr(e2e_buf_str(&r.err), E2E_READY), "gstrace attached anyway");
	faults_expect_no_events_of(c, r.pid);
	e2e_run_free(&r);
}
