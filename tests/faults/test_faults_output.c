/* Output under attack or failing: names from the target's DWARF and file
 * names carrying terminal escape sequences, DWARF types that hold
 * themselves or nest past the limit, output to /dev/full, to a pipe
 * whose reader went away, to a file of /proc, and --max-events counting
 * only events that printed something. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "faults.h"

/* A terminal control in gstrace's output: ESC, a raw C1 CSI, or C1 CSI in
 * UTF-8. Other controls than \n and \t never appear either. */
static long first_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c == 0x9b ||
		    (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] < 0xa0 &&
		     (unsigned char)s[i + 1] >= 0x80))
			return (long)i;
	}
	return -1;
}

static void expect_no_controls(struct e2e_ctx *c, const char *what, const struct e2e_buf *b)
{
	long at = first_control(e2e_buf_str(b), b->len);

	e2e_expect(c, at < 0, "%s has a terminal control byte 0x%02x at %ld", what,
		   at < 0 ? 0 : (unsigned char)b->s[at], at);
}

/* esc_program copied to a file whose name carries escapes too, so the
 * module name in frames and in the dry run is hostile as well. */
static bool hostile_copy(char *path, size_t size)
{
	char dir[] = "/tmp/gs-faults-XXXXXX", cmd[PATH_MAX * 2 + 16];

	if (!mkdtemp(dir))
		return false;
	snprintf(path, size, "%s/esc\033]0;OWNED\007prog", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", e2e_fixture_path("esc_program"), path);
	return system(cmd) == 0;
}

static void remove_copy(const char *path)
{
	char dir[PATH_MAX];

	unlink(path);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

static void s_escape_output(struct e2e_ctx *c)
{
	static const char *const formats[] = { "pretty", "plain", "json" };
	char path[PATH_MAX], pid[16];
	struct e2e_run fx;

	if (!hostile_copy(path, sizeof(path))) {
		e2e_expect(c, false, "cannot copy esc_program");
		return;
	}
	if (!faults_fixture_start(&fx, (const char *const[]){ path, NULL })) {
		e2e_expect(c, false, "fixture did not start");
		remove_copy(path);
		return;
	}
	snprintf(pid, sizeof(pid), "%d", (int)fx.pid);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(formats); i++) {
		const char *args[] = { "-p", pid, "--script-output", formats[i], "--max-events",
				       "2", "-s", "trace esc_probe { print \"hit {}\", rdi; bt; }",
				       NULL };
		struct faults_objects o;
		struct e2e_run r;

		if (!faults_gstrace_start(c, &r, args))
			break;
		faults_wait_ready(c, &r, &o, 20000);
		faults_finish(c, &r, 20000);
		faults_expect_exit(c, &r, 0, NULL);
		e2e_expect(c, strstr(e2e_buf_str(&r.out), "hit ") != NULL, "%s: no event",
			   formats[i]);
		if (i < 2) /* the text forms show the escapes; JSON its own \u001b */
			e2e_expect(c, strstr(e2e_buf_str(&r.out), "\\x1b]0;PWNED\\x07\\x1b[2J"
						       "\\x9b31m/evil.c") != NULL,
				   "%s: the file name is not shown escaped", formats[i]);
		expect_no_controls(c, formats[i], &r.out);
		expect_no_controls(c, "stderr", &r.err);
		faults_expect_released(c, &o);
		faults_objects_free(&o);
		e2e_run_free(&r);
	}
	{
		/* the dry run names the module by its (hostile) path */
		const char *args[] = { "-t", path, "--dry-run", "-s",
				       "trace esc_probe { print \"x\"; bt; }", NULL };
		struct e2e_run r;

		if (faults_gstrace_start(c, &r, args)) {
			faults_finish(c, &r, 20000);
			faults_expect_exit(c, &r, 0, NULL);
			e2e_expect(c, strstr(e2e_buf_str(&r.out), "esc\\x1b]0;OWNED\\x07prog") != NULL,
				   "dry run: the module path is not shown escaped");
			expect_no_controls(c, "dry-run output", &r.out);
			e2e_run_free(&r);
		}
	}
	faults_fixture_stop(&fx);
	remove_copy(path);
}

/* Hand-written DWARF no compiler writes: each value says what it is, and
 * a typedef chain of 1024 links (gdb's have no small limit) still prints. */
static void s_hostile_dwarf_types(struct e2e_ctx *c)
{
	static const char *const want[] = {
		"g_plain = 42", "g_unnamed = 7", "g_cyclic = <cyclic type>",
		"g_cv_cycle = <cyclic type>", "g_self_array = <cyclic type>",
		"g_self_struct = {n = 4, self = <cyclic type>}", "g_chain128 = 128",
		"g_chain1024 = 1024", "g_chain1025 = <type too deep>",
	};
	char pid[16];
	struct e2e_run fx, r;

	if (!faults_fixture_start(&fx, (const char *const[]){ "crafted_caller", NULL })) {
		e2e_expect(c, false, "fixture did not start");
		return;
	}
	snprintf(pid, sizeof(pid), "%d", (int)fx.pid);
	if (faults_gstrace_start(c, &r, (const char *const[]){
		    "-p", pid, "-t", e2e_fixture_path("libfaults_crafted.so"), "--max-events", "1",
		    "-s", "trace crafted_fn { print g_plain; print g_unnamed; print g_cyclic; "
		    "print g_cv_cycle; print g_self_array; print g_self_struct; print g_chain128; "
		    "print g_chain1024; print g_chain1025; }", NULL })) {
		faults_wait_ready(c, &r, NULL, 20000);
		faults_finish(c, &r, 20000);
		faults_expect_exit(c, &r, 0, NULL);
		for (size_t i = 0; i < BASE_ARRAY_SIZE(want); i++)
			e2e_expect(c, strstr(e2e_buf_str(&r.out), want[i]) != NULL, "no '%s' in: %s",
				   want[i], e2e_buf_str(&r.out));
		e2e_expect(c, !strstr(e2e_buf_str(&r.out), "<no data>"), "a type says <no data>");
		e2e_run_free(&r);
	}
	/* in JSON, a status where the value would be */
	if (faults_gstrace_start(c, &r, (const char *const[]){
		    "-p", pid, "-t", e2e_fixture_path("libfaults_crafted.so"), "--max-events", "1",
		    "--script-output", "json", "-s",
		    "trace crafted_fn { print g_cyclic; print g_chain1025; }", NULL })) {
		const char *out;

		faults_wait_ready(c, &r, NULL, 20000);
		faults_finish(c, &r, 20000);
		faults_expect_exit(c, &r, 0, NULL);
		out = e2e_buf_str(&r.out);
		e2e_expect(c, faults_json_valid(out, strcspn(out, "\n")), "not one JSON value: %s",
			   out);
		e2e_expect(c, strstr(out, "\"value\":{\"status\":\"cyclic_type\"}") &&
			   strstr(out, "\"value\":{\"status\":\"type_too_deep\"}"),
			   "JSON does not say why: %s", out);
		e2e_run_free(&r);
	}
	faults_fixture_stop(&fx);
}

/* A lifecycle on fault_target: ready, `during` while it traces, finish. */
static void traced_run(struct e2e_ctx *c, const char *const *args, struct e2e_run *r,
		       struct faults_objects *o)
{
	if (!faults_gstrace_start(c, r, args))
		return;
	faults_wait_ready(c, r, o, 20000);
}

static void s_output_dev_full(struct e2e_ctx *c)
{
	static const char *const needles[] = { "cannot write the events",
					       "No space left on device", NULL };
	char pid[16];
	struct e2e_run fx, r;
	struct faults_objects o = { 0 };

	if (!faults_loop_start(c, &fx, pid, sizeof(pid)))
		return;
	traced_run(c, (const char *const[]){ "-p", pid, "-o", "/dev/full", "-s",
					     "trace fault_tick { print \"tick {}\", rdi; }", NULL },
		   &r, &o);
	faults_finish(c, &r, 20000);
	faults_expect_exit(c, &r, 1, needles);
	faults_expect_released(c, &o);
	faults_objects_free(&o);
	e2e_run_free(&r);
	faults_fixture_stop(&fx);
}

/* The reader of gstrace's stdout goes away: gstrace ends quietly (exit 0,
 * no write error), as `gstrace ... | head` wants. */
static void s_output_closed_pipe(struct e2e_ctx *c)
{
	char pid[16];
	struct e2e_run fx, r;
	struct faults_objects o = { 0 };

	if (!faults_loop_start(c, &fx, pid, sizeof(pid)))
		return;
	traced_run(c, (const char *const[]){ "-p", pid, "-s",
					     "trace fault_tick { print \"tick {}\", rdi; }", NULL },
		   &r, &o);
	e2e_run_wait_for(&r, "tick", true, 5000);
	close(r.out_fd);
	r.out_fd = -1;
	faults_finish(c, &r, 20000);
	faults_expect_exit(c, &r, 0, NULL);
	e2e_expect(c, !strstr(e2e_buf_str(&r.err), "cannot write"),
		   "a closed pipe was reported as an error");
	faults_expect_released(c, &o);
	faults_objects_free(&o);
	e2e_run_free(&r);
	faults_fixture_stop(&fx);
}

static void s_output_proc_file(struct e2e_ctx *c)
{
	static const char *const needles[] = { "-o /proc/version", "regular file", NULL };
	char pid[16];
	struct e2e_run fx;

	if (!faults_loop_start(c, &fx, pid, sizeof(pid)))
		return;
	faults_run_refused(c, (const char *const[]){ "-p", pid, "-o", "/proc/version", "-s",
						     "trace fault_tick { print \"x\"; }", NULL },
			   2, needles);
	faults_fixture_stop(&fx);
}

/* Events whose `if` printed nothing do not count towards --max-events:
 * exactly N printed events, not fewer; and no "lost" line for what the
 * probes dropped after reading stopped. */
static void s_max_events_counts_printed(struct e2e_ctx *c)
{
	char pid[16];
	struct e2e_run fx;

	if (!faults_loop_start(c, &fx, pid, sizeof(pid)))
		return;
	for (int perf = 0; perf < 2; perf++) {
		const char *args[] = {
			"-p", pid, "--script-output", "plain", "--max-events", "3", "-s",
			"trace fault_tick { if rdi % 4 == 0 { print \"quarter {}\", rdi; } }",
			perf ? "--force-perf-event-array" : NULL, NULL,
		};
		struct faults_objects o = { 0 };
		struct e2e_run r;
		size_t lines = 0;

		traced_run(c, args, &r, &o);
		faults_finish(c, &r, 20000);
		faults_expect_exit(c, &r, 0, NULL);
		for (const char *s = e2e_buf_str(&r.out); (s = strstr(s, "quarter ")); s++)
			lines++;
		e2e_expect(c, lines == 3, "%s: %zu printed events, want exactly 3",
			   perf ? "perf" : "ringbuf", lines);
		e2e_expect(c, !strstr(e2e_buf_str(&r.err), "lost"), "%s: a loss was reported",
			   perf ? "perf" : "ringbuf");
		faults_expect_released(c, &o);
		faults_objects_free(&o);
		e2e_run_free(&r);
	}
	faults_fixture_stop(&fx);
}

const struct e2e_scenario faults_output_scenarios[] = {
	{ "escape-output", s_escape_output, E2E_NEED_TRACING },
	{ "hostile-dwarf-types", s_hostile_dwarf_types, E2E_NEED_TRACING },
	{ "output-dev-full", s_output_dev_full, E2E_NEED_TRACING },
	{ "output-closed-pipe", s_output_closed_pipe, E2E_NEED_TRACING },
	{ "output-proc-file", s_output_proc_file, 0 },
	{ "max-events-counts-printed", s_max_events_counts_printed, E2E_NEED_TRACING },
};
const size_t faults_output_nscenarios = BASE_ARRAY_SIZE(faults_output_scenarios);
