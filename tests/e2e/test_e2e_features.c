/* Features with the real gstrace: return values against gdb's
 * `finish`, a stack profile of a known call mix (folded counts, the flame
 * graph, --aggregate), launch through a shell and a pyenv shim, $pid in a
 * PID namespace of its own, the notice for a line without code, and the
 * ring buffer size reaching the map. Fixture: features_program. */
#define _GNU_SOURCE /* memrchr */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

#define FIXTURE "features_program"

/* The fixture's ret_square(v) returns v * v - 7. */
static int64_t ret_square(int64_t v)
{
	return v * v - 7;
}

/* Runs argv (gstrace or gdb) to its end and logs it. */
static void run_argv(struct e2e_ctx *c, char *const *argv, int timeout_ms, struct e2e_run *r)
{
	memset(r, 0, sizeof(*r));
	if (e2e_run_start(r, argv)) {
		e2e_expect(c, false, "cannot start %s", argv[0]);
		return;
	}
	e2e_run_finish(r, timeout_ms);
	e2e_note(c, "$ %s\nexit %d\n--- stdout\n%.4000s\n--- stderr\n%.2000s\n",
		 e2e_buf_str(&r->cmdline), e2e_run_exit_code(r), e2e_buf_str(&r->out),
		 e2e_buf_str(&r->err));
}

/* gdb stops at ret_square, prints v, runs `finish`: (v, returned). */
static bool gdb_finish(struct e2e_ctx *c, pid_t pid, int64_t *v, int64_t *ret)
{
	char pidstr[16];
	char *argv[] = {
		"/usr/bin/env", "gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off",
		"-iex", "set pagination off", "-iex", "set confirm off", "-p", pidstr,
		"-ex", "break ret_square", "-ex", "continue", "-ex", "printf \"E2E-ARG %ld\\n\", v",
		"-ex", "finish", "-ex", "delete", "-ex", "detach", NULL,
	};
	struct e2e_run r;
	const char *arg, *val;
	bool ok;

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	run_argv(c, argv, 30000, &r);
	arg = strstr(e2e_buf_str(&r.out), "E2E-ARG ");
	val = strstr(e2e_buf_str(&r.out), "Value returned is $");
	ok = arg && val && (val = strstr(val, " = "));
	if (ok) {
		*v = strtoll(arg + 8, NULL, 10);
		*ret = strtoll(val + 3, NULL, 10);
	}
	e2e_run_free(&r);
	return ok;
}

static void s_retval_gdb(struct e2e_ctx *c)
{
	struct e2e_trace tr = {
		.script = "trace ret_square { print \"arg={}\", rdi; }\n"
			  "trace ret_square return { print \"ret={}\", $retval; }",
		.output = "plain", .max_events = 40,
	};
	struct e2e_fixture f;
	struct e2e_run r;
	struct e2e_output out = { 0 };
	int64_t gv = 0, gret = 0;
	size_t pairs = 0;
	int lock;

	if (!e2e_fixture_start(&f, FIXTURE)) {
		e2e_expect(c, false, "fixture did not start");
		return;
	}
	lock = e2e_lock(FIXTURE, true);
	e2e_expect(c, gdb_finish(c, f.pid, &gv, &gret), "gdb did not finish ret_square");
	e2e_note(c, "gdb: ret_square(%" PRId64 ") returned %" PRId64 "\n", gv, gret);
	e2e_expect(c, gret == ret_square(gv), "gdb's finish gave %" PRId64 " for %" PRId64
		   ", the fixture computes %" PRId64, gret, gv, ret_square(gv));
	e2e_unlock(lock);
	lock = e2e_lock(FIXTURE, false);
	tr.pid = f.pid;
	e2e_trace_run(c, &tr, &r, &out);
	/* Each trace has its own buffer, so an entry and its return need not
	 * be adjacent in the output: every $retval must be v * v - 7 for an
	 * argument v of the fixture's range (-500..499), as gdb's finish is. */
	for (const char *p = strstr(e2e_buf_str(&r.out), "ret="); p; p = strstr(p + 1, "ret=")) {
		int64_t ret = strtoll(p + 4, NULL, 10), v = 0;

		while (v <= 500 && ret_square(v) < ret)
			v++;
		pairs++;
		e2e_expect(c, v <= 500 && ret_square(v) == ret,
			   "$retval %" PRId64 " is not ret_square() of any argument", ret);
		if (v == gv || -v == gv)
			e2e_expect(c, ret == gret, "$retval differs from gdb's finish");
	}
	e2e_expect(c, strstr(e2e_buf_str(&r.out), "arg=") != NULL, "no entry event");
	e2e_expect(c, pairs >= 10, "%zu return values, want at least 10", pairs);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
	e2e_unlock(lock);
}

/* The count of folded stacks ending in `tail` ("prof_a;prof_leaf"). */
static uint64_t folded_count(const char *text, const char *tail, bool *root_first)
{
	uint64_t n = 0;

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		const char *sp = memrchr(line, ' ', len);

		if (sp && (size_t)(sp - line) >= strlen(tail) &&
		    strncmp(sp - strlen(tail), tail, strlen(tail)) == 0) {
			n += strtoull(sp + 1, NULL, 10);
			*root_first = *root_first && strncmp(line, "_start;", 7) == 0 &&
				      strstr(line, ";main;") != NULL;
		}
		line += len + (line[len] == '\n');
	}
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folded stacks of text without their counts, sorted, one a line:
 * what two runs of one call mix must agree on. */
static char *folded_stacks(const char *text)
{
	char *copy = strdup(text), *lines[64], *out;
	size_t n = 0, len = 0;

	for (char *line = strtok(copy, "\n"); line && n < 64; line = strtok(NULL, "\n")) {
		char *sp = strrchr(line, ' ');

		if (sp)
			*sp = '\0';
		lines[n++] = line;
		len += strlen(line) + 1;
	}
	qsort(lines, n, sizeof(lines[0]), cmp_str);
	out = calloc(1, len + 1);
	for (size_t i = 0; i < n; i++)
		strcat(strcat(out, lines[i]), "\n");
	free(copy);
	return out;
}

/* Each round calls prof_a -> prof_leaf three times, prof_b -> prof_leaf
 * once: the folded counts are 75 % / 25 % (within 2 points), counted in
 * userspace or in BPF (count_in), and the stacks are those userspace
 * counting gives (*stacks: the first run's, compared by the second). */
static void folded_mix(struct e2e_ctx *c, const char *count_in, char **stacks)
{
	char svg[] = "/tmp/gs_e2e_flame_XXXXXX.svg";
	struct e2e_trace tr = {
		.script = "trace prof_leaf { bt; }", .output = "folded", .duration = 2,
		.extra = { "--flamegraph", svg, "--ringbuf-size", "16M", "--count-in", count_in },
	};
	char *seen;
	struct e2e_fixture f;
	struct e2e_run r;
	struct e2e_output out = { 0 };
	bool root_first = true;
	uint64_t a, b;
	char cmd[512];
	FILE *fp;
	char *text = NULL;
	size_t len = 0;
	int fd = mkstemps(svg, 4), lock = e2e_lock(FIXTURE, false);

	if (fd >= 0)
		close(fd);
	if (!e2e_fixture_start(&f, FIXTURE)) {
		e2e_expect(c, false, "fixture did not start");
		goto out;
	}
	tr.pid = f.pid;
	e2e_trace_run(c, &tr, &r, &out);
	a = folded_count(e2e_buf_str(&r.out), ";prof_a;prof_leaf", &root_first);
	b = folded_count(e2e_buf_str(&r.out), ";prof_b;prof_leaf", &root_first);
	e2e_note(c, "prof_a;prof_leaf %" PRIu64 ", prof_b;prof_leaf %" PRIu64 "\n", a, b);
	e2e_expect(c, a + b >= 400, "only %" PRIu64 " stacks in 2 s", a + b);
	e2e_expect(c, a + b > 0 && (double)a / (double)(a + b) > 0.73 &&
		   (double)a / (double)(a + b) < 0.77, "prof_a share %.3f, want 0.75 +- 0.02",
		   a + b ? (double)a / (double)(a + b) : 0.0);
	e2e_expect(c, root_first, "folded stacks do not start at _start;...;main;");
	e2e_expect(c, !strstr(e2e_buf_str(&r.out), "("), "parameters in folded frames");
	seen = folded_stacks(e2e_buf_str(&r.out));
	if (!*stacks)
		*stacks = seen;
	else if (seen)
		e2e_expect(c, strcmp(*stacks, seen) == 0, "--count-in %s folds other stacks:\n%s"
			   "than userspace counting:\n%s", count_in, seen, *stacks);
	if (seen != *stacks)
		free(seen);
	e2e_expect(c, strstr(e2e_buf_str(&r.err), "flame graph of") != NULL,
		   "no flame graph message");
	/* the SVG: a frame per function, parsed as XML where python3 is */
	fp = fopen(svg, "r");
	e2e_expect(c, fp && getdelim(&text, &len, '\0', fp) > 0, "no SVG written");
	if (fp)
		fclose(fp);
	e2e_expect(c, text && strstr(text, "<title>prof_a (") && strstr(text, "<title>prof_b (") &&
		   strstr(text, "<title>all ("), "the SVG lacks the frames all, prof_a, prof_b");
	if (access("/usr/bin/python3", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c 'import sys, xml.etree.ElementTree "
			 "as E; E.parse(sys.argv[1])' %s", svg);
		e2e_expect(c, system(cmd) == 0, "the SVG does not parse as XML");
	}
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
out:
	free(text);
	unlink(svg);
	e2e_unlock(lock);
}

static void s_folded_mix(struct e2e_ctx *c)
{
	char *stacks = NULL;

	folded_mix(c, "user", &stacks);
	folded_mix(c, "bpf", &stacks);
	free(stacks);
}

/* --aggregate: one entry per distinct event, highest count first. */
static void s_aggregate(struct e2e_ctx *c)
{
	struct e2e_trace tr = {
		.script = "trace prof_leaf { print \"odd={}\", rdi % 2; }", .duration = 1,
		.extra = { "--aggregate" },
	};
	struct e2e_fixture f;
	struct e2e_run r;
	struct e2e_output out = { 0 };
	const char *s, *first, *second;
	int lock = e2e_lock(FIXTURE, false);

	if (!e2e_fixture_start(&f, FIXTURE)) {
		e2e_expect(c, false, "fixture did not start");
		e2e_unlock(lock);
		return;
	}
	tr.pid = f.pid;
	e2e_trace_run(c, &tr, &r, &out);
	s = e2e_buf_str(&r.out);
	e2e_expect(c, strncmp(s, "@ ", 2) == 0 && strstr(s, " distinct, in "),
		   "no table header");
	/* odd=0 and odd=1: two distinct events, each with its count */
	first = strstr(s, "TraceID:0\n");
	second = first ? strstr(first + 1, "TraceID:0\n") : NULL;
	e2e_expect(c, first && second && !strstr(second + 1, "TraceID:0\n"),
		   "want exactly two distinct events");
	e2e_expect(c, strstr(s, "  odd=0\n") && strstr(s, "  odd=1\n"), "items missing");
	e2e_expect(c, !strstr(s, "PID:"), "per-event headers in the table");
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
	e2e_unlock(lock);
}

/* `-- sh -c 'exec FIXTURE'` (exec) and `-- sh -c 'FIXTURE; true'` (fork):
 * the fixture is traced, not the shell, and a message says so. */
static void s_launch_wrapper_sh(struct e2e_ctx *c)
{
	const char *fixture = e2e_fixture_path(FIXTURE);
	const char *forms[] = { "exec %s", "%s; true" };

	for (size_t i = 0; i < BASE_ARRAY_SIZE(forms); i++) {
		char shcmd[1024];
		char *argv[] = {
			(char *)e2e_gstrace_path(), "--script-output", "plain", "--max-events", "4",
			"-s", "trace ret_square return { print \"ret={}\", $retval; }", "--",
			"/bin/sh", "-c", shcmd, NULL,
		};
		struct e2e_run r;

		snprintf(shcmd, sizeof(shcmd), forms[i], fixture);
		run_argv(c, argv, 30000, &r);
		e2e_expect(c, e2e_run_exit_code(&r) == 0, "`sh -c '%s'`: exit %d", shcmd,
			   e2e_run_exit_code(&r));
		e2e_expect(c, strstr(e2e_buf_str(&r.out), "ret=") != NULL,
			   "`sh -c '%s'`: no return value traced", shcmd);
		e2e_expect(c, strstr(e2e_buf_str(&r.err), "gstrace: tracing pid ") &&
			   strstr(e2e_buf_str(&r.err), FIXTURE),
			   "`sh -c '%s'`: no message naming the traced process", shcmd);
		e2e_run_free(&r);
	}
}

/* A program that is no wrapper and lacks the target: exit 2 at once with
 * the resolve error, not followed, not left running. */
static void s_launch_not_a_wrapper(struct e2e_ctx *c)
{
	char *argv[] = {
		(char *)e2e_gstrace_path(), "-s", "trace no_such_fn_e2e { print \"x\"; }", "--",
		(char *)e2e_fixture_path(FIXTURE), NULL,
	};
	struct e2e_run r;

	run_argv(c, argv, 10000, &r);
	e2e_expect(c, e2e_run_exit_code(&r) == 2 && !r.killed, "exit %d, want 2 at once",
		   e2e_run_exit_code(&r));
	e2e_expect(c, strstr(e2e_buf_str(&r.err), "no_such_fn_e2e") != NULL,
		   "the message does not name the function");
	e2e_expect(c, !strstr(e2e_buf_str(&r.err), "following"), "a non-wrapper was followed");
	e2e_expect(c, !strstr(e2e_buf_str(&r.out), "ready"), "the program ran: %s",
		   e2e_buf_str(&r.out));
	e2e_run_free(&r);
}

/* `-- python3 -c ...` where python3 is a pyenv shim (a bash script run by
 * env, running pyenv, running the interpreter). */
static void s_launch_wrapper_pyenv(struct e2e_ctx *c)
{
	const char *home = getenv("PYENV_ROOT") ? getenv("PYENV_ROOT") : "/root/.pyenv";
	char shim[512];
	char *argv[] = {
		(char *)e2e_gstrace_path(), "--script-output", "plain", "-s",
		"trace Py_BytesMain { print \"py_main pid={}\", $pid; }", "--", shim, "-c",
		"print('E2E-PY-' + 'DONE')", NULL,
	};
	struct e2e_run r;

	snprintf(shim, sizeof(shim), "%s/shims/python3", home);
	if (access(shim, X_OK) != 0) {
		c->skip = "no pyenv python3 shim here (PYENV_ROOT or /root/.pyenv)";
		return;
	}
	run_argv(c, argv, 60000, &r);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
	e2e_expect(c, strstr(e2e_buf_str(&r.out), "py_main pid=") != NULL,
		   "Py_BytesMain was not traced");
	e2e_expect(c, strstr(e2e_buf_str(&r.out), "E2E-PY-DONE") != NULL,
		   "python did not run to its end");
	e2e_expect(c, strstr(e2e_buf_str(&r.err), "gstrace: tracing pid ") != NULL,
		   "no message naming the traced process");
	e2e_run_free(&r);
}

/* The child of unshare, by its children file. */
static pid_t only_child(pid_t pid)
{
	char path[96];
	long child = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	for (int i = 0; i < 100 && child <= 0; i++) {
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%ld", &child) != 1)
				child = 0;
			fclose(f);
		}
		if (child <= 0)
			usleep(20000);
	}
	return (pid_t)child;
}

/* A target in a PID namespace of its own: $pid and $tid are 1 there,
 * $host_pid is the host's, and the backtrace still unwinds. */
static void s_pid_namespace(struct e2e_ctx *c)
{
	char *argv[] = { "/usr/bin/unshare", "--pid", "--fork", (char *)e2e_fixture_path(FIXTURE),
			 NULL };
	char want[64];
	struct e2e_trace tr = {
		.script = "trace ret_square { print \"ns_pid={} ns_tid={} host={}\", $pid, $tid, "
			  "$host_pid; bt; }",
		.max_events = 3,
	};
	struct e2e_run u, r;
	struct e2e_output out = { 0 };
	pid_t host;
	int lock;

	if (access(argv[0], X_OK) != 0) {
		c->skip = "no /usr/bin/unshare here";
		return;
	}
	lock = e2e_lock(FIXTURE, false);
	memset(&u, 0, sizeof(u));
	if (e2e_run_start(&u, argv) || !e2e_run_wait_for(&u, "ready 1", true, 10000)) {
		e2e_expect(c, false, "unshare --pid --fork did not start the fixture as pid 1: %s",
			   e2e_buf_str(&u.err));
		goto out;
	}
	host = only_child(u.pid);
	e2e_expect(c, host > 0, "no child of unshare");
	tr.pid = host;
	e2e_trace_run(c, &tr, &r, &out);
	snprintf(want, sizeof(want), "ns_pid=1 ns_tid=1 host=%d", (int)host);
	e2e_expect(c, strstr(e2e_buf_str(&r.out), want) != NULL, "no '%s'", want);
	e2e_expect(c, out.nblocks > 0 && strcmp(out.blocks[0].status, "complete") == 0,
		   "the backtrace in the namespace did not complete");
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
	e2e_output_free(&out);
	e2e_run_free(&r);
	if (host > 0)
		kill(host, SIGKILL);
out:
	kill(u.pid, SIGKILL);
	e2e_run_finish(&u, 3000);
	e2e_run_free(&u);
	e2e_unlock(lock);
}

/* file:line on a comment line: stderr names the line used, and so does
 * --dry-run; --ringbuf-size reaches the map. */
static void s_notice_no_code_line(struct e2e_ctx *c)
{
	int asked = e2e_source_line("features_program.c", "E2E-NO-CODE-LINE");
	int used = e2e_source_line("features_program.c", "E2E-CODE-LINE");
	char script[128], notice[160], summary[160];
	struct e2e_trace tr = { .target = e2e_fixture_path(FIXTURE), .script = script,
				.extra = { "--dry-run", "--ringbuf-size", "4M" } };
	struct e2e_run r;
	struct e2e_output out = { 0 };

	snprintf(script, sizeof(script), "trace features_program.c:%d { print \"x\"; }", asked);
	e2e_trace_run(c, &tr, &r, &out);
	snprintf(notice, sizeof(notice), "line %d has no code; probing line %d", asked, used);
	snprintf(summary, sizeof(summary), "line %d: line %d has no code", used, asked);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
	e2e_expect(c, strstr(e2e_buf_str(&r.err), notice) != NULL, "no notice '%s'", notice);
	e2e_expect(c, strstr(e2e_buf_str(&r.out), summary) != NULL, "dry run lacks '%s'", summary);
	e2e_expect(c, strstr(e2e_buf_str(&r.out), "ringbuf[4194304]") != NULL,
		   "--ringbuf-size 4M did not size the ring buffer");
	e2e_output_free(&out);
	e2e_run_free(&r);
}

const struct e2e_scenario e2e_features_scenarios[] = {
	{ "retval-gdb", s_retval_gdb, E2E_NEED_TRACING | E2E_NEED_GDB },
	{ "folded-mix", s_folded_mix, E2E_NEED_TRACING },
	{ "aggregate", s_aggregate, E2E_NEED_TRACING },
	{ "launch-wrapper-sh", s_launch_wrapper_sh, E2E_NEED_TRACING },
	{ "launch-wrapper-pyenv", s_launch_wrapper_pyenv, E2E_NEED_TRACING },
	{ "launch-not-a-wrapper", s_launch_not_a_wrapper, 0 },
	{ "pid-namespace", s_pid_namespace, E2E_NEED_TRACING },
	{ "notice-no-code-line", s_notice_no_code_line, 0 },
};
const size_t e2e_features_nscenarios = BASE_ARRAY_SIZE(e2e_features_scenarios);
