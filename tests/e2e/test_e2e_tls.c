/* Thread-local variables on fixtures/tls built by gcc
 * -O0 / -O2 and clang -O2: the executable's static TLS (module 1), a
 * library's linked at start (static TLS, module > 1) and a dlopen'ed
 * module's (dynamic TLS, through the DTV), each set to its own values in
 * four threads. gstrace traces a function in each module and prints every
 * thread-local there; for each thread it prints gdb's `print` of the same
 * name in the same thread of the same process (the values do not change
 * once set: gdb attaches after the trace), and where the thread never
 * touched the dlopen'ed module's TLS, gdb's "not yet allocated" is our
 * <TLS not allocated in this thread>. --list-vars lists them as
 * thread-locals with each module's id and kind of TLS in the process
 * (tls-list-vars); a static executable's, which has no loader tables, as
 * <optimized out> with the reason, and prints so, with a notice at start
 * and in --dry-run (tls-static-exe). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"
#include "values_canon.h"

#define NTHREADS 4
#define UNALLOCATED "<TLS not allocated in this thread>"

/* What each trace prints, in the module it is in. */
static const char *const names[] = {
	"exe_tls", "exe_tls_big", "exe_tls_pair", "&exe_tls", "lib_tls", "lib_tls_zero",
	"dl_tls", "dl_tls_pair", "&dl_tls",
};
#define SCRIPT                                                                            \
	"trace tls_probe { print exe_tls; print exe_tls_big; print exe_tls_pair; "         \
	"print &exe_tls; print lib_tls; print lib_tls_zero; print dl_tls; "                \
	"print dl_tls_pair; print &dl_tls; }\n"                                            \
	"trace lib_tls_probe { print lib_tls; print lib_tls_zero; }\n"                     \
	"trace dl_tls_probe { print dl_tls; print dl_tls_pair; }\n"

struct thread_values {
	int lwp;
	char v[BASE_ARRAY_SIZE(names)][256]; /* gdb's value, "" on an error */
};

/* "tls-gcc-O2" -> "tls_gcc_O2". */
static void fixture_name(const struct e2e_ctx *c, char *out, size_t size)
{
	snprintf(out, size, "%s", c->scenario);
	for (char *s = out; *s; s++)
		*s = *s == '-' ? '_' : *s;
}

/* The index of the thread gdb lists as LWP tid, or -1. */
static int thread_of(const struct thread_values *t, int tid)
{
	for (int k = 0; k < NTHREADS; k++)
		if (t[k].lwp == tid)
			return k;
	return -1;
}

/* gdb in every thread: `thread N`, then each name printed; stdout holds
 * the LWP of each thread and "$k = value" (stderr the errors). */
static bool gdb_threads(struct e2e_ctx *c, pid_t pid, struct thread_values *t, struct e2e_buf *err)
{
	static char cmds[NTHREADS * (2 * BASE_ARRAY_SIZE(names) + 1)][64];
	char *argv[32 + NTHREADS * (2 + 4 * BASE_ARRAY_SIZE(names)) + 4], pidbuf[16];
	size_t n = e2e_gdb_print_argv(argv, pid, pidbuf, sizeof(pidbuf)), k = 0;
	struct e2e_run r;
	const char *out;

	for (int th = 1; th <= NTHREADS; th++) {
		snprintf(cmds[k], sizeof(cmds[k]), "thread %d", th);
		argv[n++] = "-ex";
		argv[n++] = cmds[k++];
		for (size_t i = 0; i < BASE_ARRAY_SIZE(names); i++) {
			snprintf(cmds[k], sizeof(cmds[k]), "echo @@V %d %zu\\n", th, i);
			argv[n++] = "-ex";
			argv[n++] = cmds[k++];
			snprintf(cmds[k], sizeof(cmds[k]), "print %s", names[i]);
			argv[n++] = "-ex";
			argv[n++] = cmds[k++];
		}
	}
	argv[n++] = "-ex";
	argv[n++] = "detach";
	argv[n] = NULL;
	if (e2e_run_start(&r, argv)) {
		e2e_expect(c, false, "cannot start gdb");
		return false;
	}
	e2e_run_finish(&r, 60000);
	out = e2e_buf_str(&r.out);
	e2e_note(c, "  --- gdb ---\n%s%s\n", out, e2e_buf_str(&r.err));
	e2e_buf_add(err, e2e_buf_str(&r.err), r.err.len);
	memset(t, 0, NTHREADS * sizeof(*t));
	for (int th = 1; th <= NTHREADS; th++) {
		char want[64];
		const char *p;

		snprintf(want, sizeof(want), "[Switching to thread %d ", th);
		p = strstr(out, want);
		p = p ? strstr(p, "(LWP ") : NULL;
		t[th - 1].lwp = p ? atoi(p + 5) : 0;
		for (size_t i = 0; i < BASE_ARRAY_SIZE(names); i++) {
			const char *v, *next;

			snprintf(want, sizeof(want), "@@V %d %zu\n", th, i);
			v = strstr(out, want);
			if (!v)
				continue;
			v += strlen(want);
			next = strstr(v, "@@V ");
			/* an error (stderr) leaves no "$k = " before the next marker */
			if (v[0] != '$' || !(v = strstr(v, " = ")) || (next && v > next))
				continue;
			v += 3;
			snprintf(t[th - 1].v[i], sizeof(t[0].v[0]), "%.*s", (int)strcspn(v, "\n"), v);
		}
	}
	e2e_run_free(&r);
	return true;
}

/* The value of `name` in an event's text ("  name = value"), or NULL. */
static const char *our_value(const char *text, const char *name, char *buf, size_t size)
{
	char item[96];
	const char *v;

	snprintf(item, sizeof(item), "\n  %s = ", name);
	v = strstr(text, item);
	if (!v)
		return NULL;
	v += strlen(item);
	snprintf(buf, size, "%.*s", (int)strcspn(v, "\n"), v);
	return buf;
}

/* gstrace's and gdb's value of one name in one thread agree. */
static void compare(struct e2e_ctx *c, const struct thread_values *t, size_t i, const char *ours,
		    bool *unallocated, size_t *compared)
{
	char a[512], b[512];

	++*compared;
	if (!t->v[i][0]) {
		/* gdb: "has not yet allocated storage for thread-local variables" */
		e2e_expect(c, ours && strcmp(ours, UNALLOCATED) == 0,
			   "LWP %d: %s: gdb has no value (an error), gstrace printed %s", t->lwp,
			   names[i], ours ? ours : "nothing");
		*unallocated = true;
		return;
	}
	vc_canon(t->v[i], true, a, sizeof(a));
	vc_canon(ours ? ours : "", false, b, sizeof(b));
	e2e_expect(c, ours && strcmp(a, b) == 0, "LWP %d: %s: gdb %s, gstrace %s", t->lwp, names[i],
		   t->v[i], ours ? ours : "nothing");
}

static void s_tls(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = SCRIPT, .max_events = 60, .duration = 20 };
	struct thread_values t[NTHREADS];
	bool seen[NTHREADS][3] = { { false } }, unallocated = false;
	size_t compared = 0;
	struct e2e_buf gdb_err = { 0 };
	struct e2e_fixture f;
	struct e2e_output out;
	struct e2e_run r;
	char fixture[64], buf[512];

	fixture_name(c, fixture, sizeof(fixture));
	if (!e2e_fixture_start_or_skip(c, &f, fixture))
		return;
	tr.pid = f.pid;
	e2e_trace_run(c, &tr, &r, &out);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "gstrace exited %d", e2e_run_exit_code(&r));
	if (gdb_threads(c, f.pid, t, &gdb_err)) {
		for (size_t e = 0; e < out.nevents; e++) {
			const struct e2e_event *ev = &out.events[e];
			const char *text = e2e_buf_str(&ev->text);
			int th = thread_of(t, ev->tid);

			e2e_expect(c, th >= 0, "event of TID %d: not a thread gdb lists", ev->tid);
			if (th < 0)
				continue;
			for (size_t i = 0; i < BASE_ARRAY_SIZE(names); i++) {
				const char *ours = our_value(text, names[i], buf, sizeof(buf));

				if (ours)
					compare(c, &t[th], i, ours, &unallocated, &compared);
			}
			seen[th][strstr(text, "exe_tls = ") ? 0 : strstr(text, "lib_tls = ") ? 1 : 2] = true;
		}
		for (int k = 0; k < NTHREADS; k++)
			e2e_expect(c, seen[k][0] && seen[k][1], "LWP %d: not traced in tls_probe and "
				   "lib_tls_probe", t[k].lwp);
		e2e_expect(c, compared >= NTHREADS * BASE_ARRAY_SIZE(names), "only %zu values compared "
			   "with gdb's", compared);
		e2e_note(c, "%zu values in %zu events equal gdb's\n", compared, out.nevents);
		e2e_expect(c, unallocated && strstr(e2e_buf_str(&gdb_err), "not yet allocated"),
			   "the thread that never touched the dlopen'ed module's TLS: no "
			   "unallocated value compared with gdb's error");
	}
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_buf_free(&gdb_err);
	e2e_fixture_stop(&f);
}

/* `gstrace -p PID --list-vars target`'s line for `name` holds `want`. */
static void expect_listed(struct e2e_ctx *c, pid_t pid, const char *target, const char *name,
			  const char *want)
{
	char pidbuf[16];
	char *argv[] = { (char *)e2e_gstrace_path(), "-p", pidbuf, "--list-vars", (char *)target,
			 NULL };
	struct e2e_run r;
	const char *line, *end;

	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
	if (e2e_run_start(&r, argv)) {
		e2e_expect(c, false, "cannot start gstrace");
		return;
	}
	e2e_run_finish(&r, 30000);
	e2e_note(c, "  --- --list-vars %s ---\n%s%s\n", target, e2e_buf_str(&r.out),
		 e2e_buf_str(&r.err));
	line = strstr(e2e_buf_str(&r.out), name);
	while (line && line[strlen(name)] != ' ')
		line = strstr(line + 1, name);
	end = line ? line + strcspn(line, "\n") : NULL;
	e2e_expect(c, e2e_run_exit_code(&r) == 0 && line && strstr(line, want) &&
		   strstr(line, want) < end, "--list-vars %s: %s's line does not say \"%s\"",
		   target, name, want);
	e2e_run_free(&r);
}

/* --list-vars at each probe lists the module's thread-locals as such,
 * with how the process's threads find each module's block. */
static void s_tls_list(struct e2e_ctx *c)
{
	static const struct { const char *target, *name, *want; } want[] = {
		{ "tls_probe", "exe_tls", "module id 1, static TLS at thread pointer - 0x" },
		{ "tls_probe", "exe_tls_pair", "thread-local +0x" },
		{ "lib_tls_probe", "lib_tls", ", static TLS at thread pointer - 0x" },
		{ "lib_tls_probe", "lib_tls_zero", "thread-local +0x8 " },
		{ "dl_tls_probe", "dl_tls", ", dynamic TLS (the thread's DTV, generation " },
		{ "dl_tls_probe", "dl_tls_pair", "thread-local +0x" },
	};
	struct e2e_fixture f;

	if (!e2e_fixture_start_or_skip(c, &f, "tls_gcc_O2"))
		return;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(want); i++)
		expect_listed(c, f.pid, want[i].target, want[i].name, want[i].want);
	e2e_fixture_stop(&f);
}

/* A static executable has no loader tables: its thread-local is listed
 * and printed <optimized out>, with the reason; the parameter beside it
 * still prints. */
#define NOTICE "gstrace: trace #0 (static_probe): 'static_tls' is a thread-local and the " \
	"process has no glibc dynamic linker to give its module id; it prints <optimized out>"

static void s_tls_static(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace static_probe { print static_tls; print id; }",
				.max_events = 2, .duration = 20 };
	struct e2e_fixture f;
	struct e2e_output out;
	struct e2e_run r;

	if (!e2e_fixture_start_or_skip(c, &f, "tls_static"))
		return;
	expect_listed(c, f.pid, "static_probe", "static_tls", "optimized out (thread-local: the "
		      "process has no glibc dynamic linker to give its module id)");
	tr.pid = f.pid;
	e2e_trace_run(c, &tr, &r, &out);
	e2e_expect(c, e2e_run_exit_code(&r) == 0 && out.nevents == 2 &&
		   strstr(e2e_buf_str(&r.out), "  static_tls = <optimized out>\n  id = 1\n"),
		   "static_probe: not 2 events with static_tls <optimized out> and id 1");
	e2e_expect(c, strstr(e2e_buf_str(&r.err), NOTICE) != NULL, "no notice at start: %s",
		   NOTICE);
	e2e_output_free(&out);
	e2e_run_free(&r);
	tr.extra[0] = "--dry-run";
	e2e_trace_run(c, &tr, &r, &out);
	e2e_expect(c, e2e_run_exit_code(&r) == 0 && strstr(e2e_buf_str(&r.err), NOTICE) != NULL,
		   "--dry-run: exit %d, no notice %s", e2e_run_exit_code(&r), NOTICE);
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
}

/* The module dlclosed and dlopened again while traced (SIGUSR2): threads
 * 0 and 1 set the new module's dl_tls, thread 3 leaves it untouched (it
 * had a block in the old one), thread 2 never had one. Each event
 * of tls_probe shows the thread's value before the reload (300 + id, none
 * for thread 2), gdb's after it (400 + id, not allocated for 2 and 3), or
 * <offsets unavailable> while the runtime has not read the new module's
 * entry yet; never another number, and each thread's last event is gdb's. */
static void s_tls_reload(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = "trace tls_probe { print dl_tls; }", .duration = 4 };
	struct thread_values t[NTHREADS];
	struct e2e_buf gdb_err = { 0 };
	const char *last[NTHREADS] = { NULL };
	char lastbuf[NTHREADS][64], buf[256];
	size_t transient = 0, before = 0, after = 0;
	struct e2e_fixture f;
	struct e2e_output out;
	struct e2e_run r;

	if (!e2e_fixture_start_or_skip(c, &f, "tls_gcc_O2"))
		return;
	tr.pid = f.pid;
	if (!e2e_trace_start(c, &tr, &r)) {
		e2e_fixture_stop(&f);
		return;
	}
	e2e_expect(c, e2e_run_wait_for(&r, E2E_READY, false, 20000), "no ready marker");
	usleep(300000);
	kill(f.pid, SIGUSR2);
	e2e_expect(c, e2e_fixture_wait_line(&f, "reloaded", 10000), "the fixture did not reload");
	e2e_trace_finish(c, &r, 30000, &out);
	if (gdb_threads(c, f.pid, t, &gdb_err)) {
		for (size_t e = 0; e < out.nevents; e++) {
			const struct e2e_event *ev = &out.events[e];
			const char *v = our_value(e2e_buf_str(&ev->text), "dl_tls", buf, sizeof(buf));
			char old[16], new[16];
			int th = thread_of(t, ev->tid);

			if (th < 0 || !v) {
				e2e_expect(c, false, "event of TID %d: no thread gdb lists, or no dl_tls",
					   ev->tid);
				continue;
			}
			snprintf(old, sizeof(old), "%d", 300 + th);
			snprintf(new, sizeof(new), "%d", 400 + th);
			if (strcmp(v, "<offsets unavailable>") == 0) {
				transient++;
			} else if (th != 2 && strcmp(v, old) == 0) {
				before++;
			} else if (t[th].v[6][0] ? strcmp(v, t[th].v[6]) == 0 && strcmp(v, new) == 0 :
				   strcmp(v, UNALLOCATED) == 0) {
				after++;
			} else {
				e2e_expect(c, false, "LWP %d: dl_tls = %s: neither %s before the "
					   "reload nor gdb's %s after it", ev->tid, v, old,
					   t[th].v[6][0] ? t[th].v[6] : "not allocated");
			}
			snprintf(lastbuf[th], sizeof(lastbuf[th]), "%s", v);
			last[th] = lastbuf[th];
		}
		for (int k = 0; k < NTHREADS; k++)
			e2e_expect(c, last[k] && (t[k].v[6][0] ? strcmp(last[k], t[k].v[6]) == 0 :
						   strcmp(last[k], UNALLOCATED) == 0),
				   "LWP %d: the last dl_tls is %s, gdb's %s", t[k].lwp,
				   last[k] ? last[k] : "none", t[k].v[6][0] ? t[k].v[6] :
				   "not allocated");
		e2e_expect(c, before && after, "%zu events before the reload, %zu after", before,
			   after);
		e2e_note(c, "%zu events before the reload, %zu after, %zu while the runtime "
			 "caught up\n", before, after, transient);
	}
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_buf_free(&gdb_err);
	e2e_fixture_stop(&f);
}

#define NEEDS (E2E_NEED_TRACING | E2E_NEED_GDB)

const struct e2e_scenario e2e_tls_scenarios[] = {
	{ "tls-gcc-O0", s_tls, NEEDS },
	{ "tls-gcc-O2", s_tls, NEEDS },
	{ "tls-clang-O2", s_tls, NEEDS },
	{ "tls-list-vars", s_tls_list, E2E_NEED_TRACING },
	{ "tls-static-exe", s_tls_static, E2E_NEED_TRACING },
	{ "tls-dlopen-again", s_tls_reload, NEEDS },
};
const size_t e2e_tls_nscenarios = BASE_ARRAY_SIZE(e2e_tls_scenarios);
