/* CLI scenarios of the e2e suite: SIGINT tears everything down (no uprobe
 * breakpoint left in the target, none of the BPF programs and maps the run
 * held left loaded, no uprobe_events entry on the target), the
 * target exiting ends gstrace, and bad input gives one line and exit 2. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

#define MAX_IDS 4096

/* ---- what a tracer leaves behind -------------------------------------------- */

/* The ids of the BPF programs (key "prog_id:") or maps ("map_id:") that
 * pid holds, from /proc/PID/fdinfo: what this run created, whatever other
 * tracers on the machine do meanwhile. */
static size_t held_ids(pid_t pid, const char *key, uint32_t *ids, size_t max)
{
	char dir[64], path[384], line[128];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", (int)pid);
	d = opendir(dir);
	while (d && (de = readdir(d)) && n < max) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f) && n < max)
			if (strncmp(line, key, strlen(key)) == 0)
				ids[n++] = (uint32_t)strtoul(line + strlen(key), NULL, 10);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* How many of ids still name a loaded program (prog) or map. */
static size_t still_loaded(bool prog, const uint32_t *ids, size_t n)
{
	size_t alive = 0;

	for (size_t i = 0; i < n; i++) {
		union bpf_attr attr;
		int fd;

		memset(&attr, 0, sizeof(attr));
		if (prog)
			attr.prog_id = ids[i];
		else
			attr.map_id = ids[i];
		fd = (int)syscall(__NR_bpf, prog ? BPF_PROG_GET_FD_BY_ID : BPF_MAP_GET_FD_BY_ID, &attr,
				  sizeof(attr));
		if (fd >= 0) {
			alive++;
			close(fd);
		}
	}
	return alive;
}

/* Lines of `now` naming `path` that `before` does not have. */
static size_t new_lines_naming(const char *before, const char *now, const char *path)
{
	size_t n = 0;

	for (const char *l = now; *l;) {
		size_t len = strcspn(l, "\n");
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (strstr(line, path) && !strstr(before, line))
			n++;
		l += len + (l[len] == '\n');
	}
	return n;
}

/* Compares the executable mappings of `path` in pid with the file: a uprobe
 * left registered keeps its int3 there. Returns the number of differing
 * bytes (0: the text is the file's), -1 when it could not compare; the
 * first difference goes into why. */
static long text_differs(pid_t pid, const char *path, struct e2e_buf *why)
{
	char maps[64], memp[64], line[4096];
	long diff = 0;
	bool any = false;
	FILE *f;
	int mem, file;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	snprintf(memp, sizeof(memp), "/proc/%d/mem", (int)pid);
	f = fopen(maps, "r");
	mem = open(memp, O_RDONLY | O_CLOEXEC);
	file = open(path, O_RDONLY | O_CLOEXEC);
	while (f && mem >= 0 && file >= 0 && fgets(line, sizeof(line), f)) {
		uint64_t start, end, off;
		char perms[8], mpath[4096] = "";

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095s", &start,
			   &end, perms, &off, mpath) != 5 || perms[2] != 'x' ||
		    strcmp(mpath, path) != 0)
			continue;
		for (uint64_t a = start; a < end; a += 4096) {
			unsigned char m[4096], d[4096];
			ssize_t nm = pread(mem, m, sizeof(m), (off_t)a);
			ssize_t nd = pread(file, d, sizeof(d), (off_t)(off + (a - start)));

			if (nm <= 0)
				break;
			any = true;
			for (ssize_t i = 0; i < nm && i < nd; i++) {
				if (m[i] == d[i])
					continue;
				if (!diff)
					e2e_buf_printf(why, "at 0x%" PRIx64 " (file offset 0x%" PRIx64
						       "): process 0x%02x, file 0x%02x",
						       a + (uint64_t)i, off + (a - start) + (uint64_t)i,
						       m[i], d[i]);
				diff++;
			}
		}
	}
	if (f)
		fclose(f);
	if (mem >= 0)
		close(mem);
	if (file >= 0)
		close(file);
	return any ? diff : -1;
}

/* ---- SIGINT: nothing left behind ------------------------------------------------ */

static void s_sigint_cleanup(struct e2e_ctx *c)
{
	static uint32_t progs[MAX_IDS], maps[MAX_IDS];
	const char *exe = e2e_fixture_path("backtrace_hot_program");
	char exe_copy[4096];
	struct e2e_trace tr = { .script = "trace dummy_touch { print \"X\"; bt; }" };
	struct e2e_fixture f;
	struct e2e_run r;
	struct e2e_output out = { 0 };
	struct e2e_buf why = { 0 };
	char *events0 = e2e_uprobe_events(), *events1 = NULL;
	size_t np = 0, nm = 0, left_p = 0, left_m = 0;
	long diff;
	int code;
	int lock = e2e_lock("backtrace_hot_program", false);

	snprintf(exe_copy, sizeof(exe_copy), "%s", exe);
	memset(&r, 0, sizeof(r));
	if (!e2e_fixture_start(&f, "backtrace_hot_program")) {
		e2e_expect(c, false, "fixture did not start");
		goto out;
	}
	tr.pid = f.pid;
	if (!e2e_trace_start(c, &tr, &r))
		goto out;
	e2e_expect(c, e2e_run_wait_for(&r, E2E_READY, false, 20000), "no ready marker");
	e2e_expect(c, e2e_run_wait_for(&r, "backtrace: ", true, 10000), "no event before SIGINT");
	/* While attached the probe's int3 is in the text: the check below
	 * can see a uprobe left behind. */
	diff = text_differs(f.pid, exe_copy, &why);
	e2e_note(c, "while attached: %ld text bytes differ from the file %s\n", diff,
		 e2e_buf_str(&why));
	e2e_expect(c, diff > 0, "no uprobe breakpoint seen in the text while attached");
	np = held_ids(r.pid, "prog_id:", progs, MAX_IDS);
	nm = held_ids(r.pid, "map_id:", maps, MAX_IDS);
	e2e_note(c, "while attached gstrace holds %zu programs and %zu maps\n", np, nm);
	e2e_expect(c, np > 0 && nm > 0, "gstrace holds no BPF program or map while attached");
	kill(r.pid, SIGINT);
	e2e_expect(c, e2e_run_finish(&r, 5000), "gstrace did not exit within 5 s of SIGINT");
	e2e_trace_finish(c, &r, 1000, &out);
	code = e2e_run_exit_code(&r);
	e2e_expect(c, code == 0 || code == 130, "exit %d after SIGINT, want 0 (or 130)", code);
	e2e_note(c, "gstrace exited %d after SIGINT in %.2f s\n", code, r.secs);

	e2e_buf_free(&why);
	diff = text_differs(f.pid, exe_copy, &why);
	e2e_expect(c, diff == 0, "after exit the fixture's text differs from its file in %ld "
		   "bytes (uprobe left behind?) %s", diff, e2e_buf_str(&why));
	events1 = e2e_uprobe_events();
	e2e_expect(c, new_lines_naming(events0, events1, exe_copy) == 0,
		   "uprobe_events has new entries on %s:\nbefore:\n%s\nafter:\n%s", exe_copy,
		   events0, events1);
	/* Programs and maps go when their last fd does; the kernel frees them
	 * a little later (RCU), so look again for up to 2 s. */
	for (int i = 0; i < 40; i++) {
		left_p = still_loaded(true, progs, np);
		left_m = still_loaded(false, maps, nm);
		if (!left_p && !left_m)
			break;
		usleep(50000);
	}
	e2e_expect(c, left_p == 0, "%zu BPF programs gstrace held are still loaded", left_p);
	e2e_expect(c, left_m == 0, "%zu BPF maps gstrace held still exist", left_m);
	usleep(100000);
	e2e_expect(c, e2e_fixture_running(&f), "the fixture is no longer running");
	e2e_expect(c, e2e_fixture_quit(&f, 3000) == 0, "the fixture did not exit 0 on request");
out:
	free(events0);
	free(events1);
	e2e_buf_free(&why);
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
	e2e_unlock(lock);
}

/* ---- the target exits mid-trace ---------------------------------------------------- */

static void s_target_exits(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace dummy_touch { print \"X\"; bt; }" };
	struct e2e_fixture f;
	struct e2e_run r;
	struct e2e_output out = { 0 };
	int code;
	int lock = e2e_lock("backtrace_hot_program", false);

	memset(&r, 0, sizeof(r));
	if (!e2e_fixture_start(&f, "backtrace_hot_program")) {
		e2e_expect(c, false, "fixture did not start");
		goto out;
	}
	tr.pid = f.pid;
	if (!e2e_trace_start(c, &tr, &r))
		goto out;
	e2e_expect(c, e2e_run_wait_for(&r, "backtrace: ", true, 20000), "no event");
	e2e_expect(c, e2e_fixture_quit(&f, 3000) == 0, "the fixture did not exit 0");
	e2e_expect(c, e2e_run_finish(&r, 5000), "gstrace still runs 5 s after its target exited");
	e2e_trace_finish(c, &r, 1000, &out);
	code = e2e_run_exit_code(&r);
	e2e_expect(c, code == 0, "exit %d after the target exited, want 0", code);
	e2e_expect(c, out.nblocks > 0, "no backtrace block");
	e2e_note(c, "gstrace ended %.2f s after start\n", r.secs);
out:
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
	e2e_unlock(lock);
}

/* ---- --max-events and losses ------------------------------------------------------------ */

/* deep_program recurses 600 frames deep every 100 ms: 600 hits of
 * deep_recurse within a millisecond, a burst no reader keeps up with. */
#define BUSY_FIXTURE "deep_program"
#define LOSS_LINE "events in kernel before userspace delivery"

/* Runs tr on a fresh deep_program; false (and a failed expectation) when
 * the fixture did not start. */
static bool run_on_busy(struct e2e_ctx *c, struct e2e_trace *tr, struct e2e_run *r,
			struct e2e_output *out)
{
	struct e2e_fixture f;

	memset(r, 0, sizeof(*r));
	if (!e2e_fixture_start(&f, BUSY_FIXTURE)) {
		e2e_expect(c, false, "fixture %s did not start", BUSY_FIXTURE);
		return false;
	}
	tr->pid = f.pid;
	e2e_trace_run(c, tr, r, out);
	e2e_fixture_stop(&f);
	return true;
}

/* The events after --max-events' first N are discarded, not lost: no loss
 * line, no summary; --verbose says how many were discarded, and its
 * summary counts N delivered, 0 lost. */
static void s_max_events_discards(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace deep_recurse { bt; }", .max_events = 2 };
	struct e2e_run r;
	struct e2e_output out = { 0 };
	const char *err;
	int lock = e2e_lock(BUSY_FIXTURE, false);

	if (run_on_busy(c, &tr, &r, &out)) {
		err = e2e_buf_str(&r.err);
		e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
		e2e_expect(c, out.nblocks == 2, "%zu backtraces, want 2", out.nblocks);
		e2e_expect(c, !strstr(err, LOSS_LINE), "events after the limit reported lost:\n%s",
			   err);
		e2e_expect(c, !strstr(err, " delivered, "), "a summary without losses:\n%s", err);
		e2e_expect(c, !strstr(err, "discarded"), "the discarded events said without "
			   "--verbose:\n%s", err);
		e2e_output_free(&out);
		e2e_run_free(&r);
	}
	tr.extra[0] = "--verbose";
	if (run_on_busy(c, &tr, &r, &out)) {
		err = e2e_buf_str(&r.err);
		e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
		e2e_expect(c, !strstr(err, LOSS_LINE), "events after the limit reported lost:\n%s",
			   err);
		e2e_expect(c, strstr(err, "gstrace: 2 events delivered, 0 lost; per trace: #0 "
				     "(deep_recurse) 2\n") != NULL, "no summary of 2 delivered, "
			   "0 lost:\n%s", err);
		/* a backtrace at depth 128 wants more than the 4 MiB maximum */
		e2e_expect(c, strstr(err, "gstrace: output: a ring buffer of 4 MiB per probe "
				     "(1 probe, largest event ") != NULL, "no default ring buffer "
			   "sized by the largest event:\n%s", err);
		/* the rest of the burst, and of the next ones until gstrace stopped */
		e2e_expect(c, strstr(err, " events after the limit (--max-events) were "
				     "discarded\n") != NULL, "no line of discarded events:\n%s", err);
		e2e_note(c, "%s", err);
		e2e_output_free(&out);
		e2e_run_free(&r);
	}
	e2e_unlock(lock);
}

/* A 4 KiB ring buffer holds two of these backtraces: the bursts lose most
 * of theirs, said while reading and in the summary at the end. */
static void s_loss_summary(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace deep_recurse { bt; }\ntrace deep_leaf { bt; }",
				.duration = 1, .extra = { "--ringbuf-size", "4096" } };
	unsigned long long delivered = 0, lost = 0, recurse = 0, leaf = 0;
	struct e2e_run r;
	struct e2e_output out = { 0 };
	const char *err, *sum;
	int lock = e2e_lock(BUSY_FIXTURE, false);

	if (run_on_busy(c, &tr, &r, &out)) {
		err = e2e_buf_str(&r.err);
		sum = strstr(err, " events delivered, ");
		while (sum && sum > err && sum[-1] != '\n')
			sum--;
		e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
		e2e_expect(c, strstr(err, LOSS_LINE) != NULL, "no loss reported:\n%s", err);
		e2e_expect(c, sum && sscanf(sum, "gstrace: %llu events delivered, %llu lost; per "
					    "trace: #0 (deep_recurse) %llu, #1 (deep_leaf) %llu",
					    &delivered, &lost, &recurse, &leaf) == 4,
			   "no summary line:\n%s", err);
		e2e_expect(c, lost > 0 && delivered > 0 && recurse + leaf == delivered,
			   "summary: %llu delivered (%llu + %llu), %llu lost", delivered, recurse,
			   leaf, lost);
		e2e_expect(c, delivered == out.nblocks, "summary: %llu delivered, %zu printed",
			   delivered, out.nblocks);
		e2e_note(c, "%s", err);
		e2e_output_free(&out);
		e2e_run_free(&r);
	}
	e2e_unlock(lock);
}

/* ---- bad input: one line, exit 2 ------------------------------------------------------- */

/* Runs gstrace expecting exit 2, nothing attached, nothing on stdout, and
 * on stderr one line (or, for script errors, one line then the source
 * line and a caret) that contains each needle. */
static void expect_usage_error(struct e2e_ctx *c, const struct e2e_trace *tr,
			       const char *const *needles, bool one_line)
{
	struct e2e_run r;
	struct e2e_output out;
	const char *err;
	size_t lines = 0;

	memset(&r, 0, sizeof(r));
	e2e_trace_run(c, tr, &r, &out);
	err = e2e_buf_str(&r.err);
	for (const char *p = err; *p; p++)
		lines += *p == '\n';
	if (err[0] && err[strlen(err) - 1] != '\n')
		lines++;
	e2e_expect(c, e2e_run_exit_code(&r) == 2, "exit %d, want 2", e2e_run_exit_code(&r));
	e2e_expect(c, !r.killed, "gstrace had to be stopped");
	if (one_line)
		e2e_expect(c, lines == 1, "stderr has %zu lines, want one:\n%s", lines, err);
	else /* the message, then the source line and a caret under the column */
		e2e_expect(c, lines == 3 && strchr(strchr(err, '\n') + 1, '^'),
			   "stderr should be one message line, the source line and a caret:\n%s",
			   err);
	for (size_t i = 0; needles && needles[i]; i++)
		e2e_expect(c, strstr(err, needles[i]) != NULL, "the message does not mention '%s'",
			   needles[i]);
	e2e_expect(c, !strstr(err, E2E_READY), "gstrace said it attached");
	e2e_expect(c, r.out.len == 0, "output on stdout: %s", e2e_buf_str(&r.out));
	e2e_output_free(&out);
	e2e_run_free(&r);
}

static void s_err_unknown_function(struct e2e_ctx *c)
{
	static const char *const needles[] = { "no_such_function_e2e", NULL };
	struct e2e_trace tr = { .script = "trace no_such_function_e2e { print \"X\"; }" };
	struct e2e_fixture f;

	if (!e2e_fixture_start(&f, "backtrace_hot_program")) {
		e2e_expect(c, false, "fixture did not start");
		return;
	}
	tr.pid = f.pid;
	expect_usage_error(c, &tr, needles, false);
	e2e_expect(c, e2e_fixture_running(&f), "the fixture stopped running");
	e2e_fixture_stop(&f);
}

static void s_err_missing_binary(struct e2e_ctx *c)
{
	static const char *const needles[] = { "/nonexistent/e2e/missing_program", NULL };
	struct e2e_trace tr = {
		.script = "trace main { print \"X\"; }", .target = "/nonexistent/e2e/missing_program",
	};

	expect_usage_error(c, &tr, needles, true);
}

/* A function without an FDE in .eh_frame (nor .debug_frame) cannot be
 * unwound: gstrace refuses the `bt` before attaching. */
static void s_err_no_eh_frame(struct e2e_ctx *c)
{
	static const char *const needles[] = { "backtrace_nocfi_program", ".eh_frame", NULL };
	struct e2e_trace tr = { .script = "trace nocfi_probe { print \"X\"; bt; }" };
	struct e2e_fixture f;

	if (!e2e_fixture_start(&f, "backtrace_nocfi_program")) {
		e2e_expect(c, false, "fixture did not start");
		return;
	}
	tr.pid = f.pid;
	expect_usage_error(c, &tr, needles, false);
	e2e_expect(c, e2e_fixture_running(&f), "the fixture stopped running");
	e2e_fixture_stop(&f);
}

static void s_err_syntax(struct e2e_ctx *c)
{
	/* the missing ';' is noticed at the '}': line 1, column 30 */
	static const char *const needles[] = { "1:30: ", "';'", NULL };
	struct e2e_trace tr = { .script = "trace dummy_touch { print \"X\" }" };
	struct e2e_fixture f;

	if (!e2e_fixture_start(&f, "backtrace_hot_program")) {
		e2e_expect(c, false, "fixture did not start");
		return;
	}
	tr.pid = f.pid;
	expect_usage_error(c, &tr, needles, false);
	e2e_fixture_stop(&f);
}

const struct e2e_scenario e2e_cli_scenarios[] = {
	{ "sigint-cleanup", s_sigint_cleanup, E2E_NEED_TRACING },
	{ "target-exits", s_target_exits, E2E_NEED_TRACING },
	{ "max-events-discards", s_max_events_discards, E2E_NEED_TRACING },
	{ "loss-summary", s_loss_summary, E2E_NEED_TRACING },
	{ "err-unknown-function", s_err_unknown_function, 0 },
	{ "err-missing-binary", s_err_missing_binary, 0 },
	{ "err-no-eh-frame", s_err_no_eh_frame, 0 },
	{ "err-syntax", s_err_syntax, 0 },
};
const size_t e2e_cli_nscenarios = BASE_ARRAY_SIZE(e2e_cli_scenarios);
