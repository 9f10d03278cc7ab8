/* Probe addresses and names as gdb chooses them,
 * on copies_program.c built by gcc -O0 / -O2 and clang -O2:
 *
 * - prologue-line-*: `trace copies_program.c:N` on cp_greet's signature
 *   line and on its `{` line probes where gdb's `break copies_program.c:N`
 *   stops (the address --dry-run lists against gdb's breakpoint), and a
 *   parameter printed there equals gdb's `print` at that stop.
 * - copies-*: calculate_something, inlined into main and also called out
 *   of line, is traced in both copies; the inlined one lacks `a` and `b`
 *   (one notice names it, it prints <optimized out>), the out-of-line one
 *   prints what gdb prints there; a name no copy has is still an error.
 * - frame-scope-*: cp_measure's first statement is an inlined call; at
 *   `trace cp_measure` its parameters are visible, as in gdb's frame at
 *   `break cp_measure`, with gdb's values. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

#define SOURCE "copies_program.c"

/* "prologue-line-gcc-O2" -> "copies_gcc_O2" (the part after `prefix`). */
static void fixture_name(const struct e2e_ctx *c, const char *prefix, char *out, size_t size)
{
	snprintf(out, size, "copies_%s", c->scenario + strlen(prefix));
	for (char *s = out; *s; s++)
		*s = *s == '-' ? '_' : *s;
}

static bool start(struct e2e_ctx *c, const char *prefix, char *name, size_t size,
		  struct e2e_fixture *f)
{
	fixture_name(c, prefix, name, size);
	return e2e_fixture_start_or_skip(c, f, name);
}

/* gdb attached to pid running `cmds` (one -ex each); its stdout into out. */
static bool gdb_run(struct e2e_ctx *c, pid_t pid, const char *const *cmds, size_t n,
		    struct e2e_buf *out)
{
	static const char *const settings[] = {
		"set debuginfod enabled off", "set pagination off", "set width 0",
		"set confirm off", "set print pretty off", "set print frame-arguments none",
	};
	char *argv[64], pidstr[16];
	size_t a = 0;
	struct e2e_run r;

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	argv[a++] = "/usr/bin/env";
	argv[a++] = "gdb";
	argv[a++] = "-nx";
	argv[a++] = "-batch";
	for (size_t i = 0; i < BASE_ARRAY_SIZE(settings); i++) {
		argv[a++] = "-iex";
		argv[a++] = (char *)settings[i];
	}
	argv[a++] = "-p";
	argv[a++] = pidstr;
	for (size_t i = 0; i < n && a < BASE_ARRAY_SIZE(argv) - 4; i++) {
		argv[a++] = "-ex";
		argv[a++] = (char *)cmds[i];
	}
	argv[a++] = "-ex";
	argv[a++] = "detach";
	argv[a] = NULL;
	if (e2e_run_start(&r, argv)) {
		e2e_expect(c, false, "cannot start gdb");
		return false;
	}
	e2e_run_finish(&r, 60000);
	e2e_buf_add(out, e2e_buf_str(&r.out), r.out.len);
	e2e_note(c, "  --- gdb ---\n%s%s\n", e2e_buf_str(&r.out), e2e_buf_str(&r.err));
	e2e_run_free(&r);
	return true;
}

/* The value of gdb's n-th `print` ($n = ...), or NULL. */
static const char *gdb_value(const char *out, int n, char *buf, size_t size)
{
	char want[16];
	const char *p;

	snprintf(want, sizeof(want), "$%d = ", n);
	p = strstr(out, want);
	if (!p)
		return NULL;
	p += strlen(want);
	snprintf(buf, size, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

/* The value gstrace printed for `name` in the first event whose $pc line
 * (printed first, in hex) is pc; NULL when none. */
static const char *our_value(const char *out, uint64_t pc, const char *name, char *buf,
			     size_t size)
{
	char pcline[32], item[96];
	const char *ev = out;

	snprintf(pcline, sizeof(pcline), "\n  %" PRIx64 "\n", pc);
	snprintf(item, sizeof(item), "\n  %s = ", name);
	while ((ev = strstr(ev, pcline))) {
		const char *next = strstr(ev + 1, "TraceID:");
		const char *v = strstr(ev, item);

		if (v && (!next || v < next)) {
			v += strlen(item);
			snprintf(buf, size, "%.*s", (int)strcspn(v, "\n"), v);
			return buf;
		}
		ev++;
	}
	return NULL;
}

/* The link-time address of each "trace #" line of a --dry-run. */
static size_t dry_run_addrs(const char *text, uint64_t *v, bool *inlined, size_t max)
{
	size_t n = 0;

	for (const char *l = text; l && *l && n < max; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *x;

		if (strncmp(l, "trace #", 7) != 0 || !(x = strstr(l, " 0x")))
			continue;
		inlined[n] = strstr(l, ", inlined") && strstr(l, ", inlined") < strchr(l, '\n');
		v[n++] = strtoull(x + 1, NULL, 16);
	}
	return n;
}

static bool dry_run(struct e2e_ctx *c, pid_t pid, const char *script, struct e2e_buf *out,
		    struct e2e_buf *err)
{
	struct e2e_trace t = { .pid = pid, .script = script, .extra = { "--dry-run" } };
	struct e2e_output parsed;
	struct e2e_run r;
	int code;

	e2e_trace_run(c, &t, &r, &parsed);
	code = e2e_run_exit_code(&r);
	e2e_buf_add(out, e2e_buf_str(&r.out), r.out.len);
	if (err)
		e2e_buf_add(err, e2e_buf_str(&r.err), r.err.len);
	e2e_output_free(&parsed);
	e2e_run_free(&r);
	e2e_expect(c, code == 0, "--dry-run of `%s` exited %d", script, code);
	return code == 0;
}

/* gstrace live until max events: stdout into out (stderr into err). */
static void live(struct e2e_ctx *c, const char *fixture, pid_t pid, const char *script,
		 unsigned max, struct e2e_buf *out, struct e2e_buf *err)
{
	struct e2e_trace t = { .pid = pid, .script = script, .max_events = max };
	struct e2e_output parsed;
	struct e2e_run r;
	int lock = e2e_lock(fixture, false);

	e2e_trace_run(c, &t, &r, &parsed);
	e2e_unlock(lock);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "`%s` exited %d", script, e2e_run_exit_code(&r));
	e2e_buf_add(out, e2e_buf_str(&r.out), r.out.len);
	if (err)
		e2e_buf_add(err, e2e_buf_str(&r.err), r.err.len);
	e2e_output_free(&parsed);
	e2e_run_free(&r);
}

/* gdb's integer and ours agree; a pointer: the same address (gdb adds the
 * string it points to). */
static void expect_same(struct e2e_ctx *c, const char *what, const char *gdb, const char *ours)
{
	size_t n = ours ? strcspn(ours, " ") : 0;

	e2e_expect(c, gdb && ours && strncmp(gdb, ours, n) == 0 &&
		   (gdb[n] == '\0' || gdb[n] == ' '), "%s: gdb says '%s', gstrace '%s'", what,
		   gdb ? gdb : "(nothing)", ours ? ours : "(nothing)");
}

/* ---- item 7: a function's entry line -------------------------------------- */

static void s_prologue_line(struct e2e_ctx *c)
{
	static const char *const markers[] = { "CP-GREET-SIG", "CP-GREET-BRACE" };
	char fixture[64];
	struct e2e_fixture f;
	uint64_t bias = 0;

	if (!start(c, "prologue-line-", fixture, sizeof(fixture), &f))
		return;
	e2e_expect(c, e2e_module_bias(f.pid, fixture, &bias), "no mapping of %s", fixture);
	for (size_t m = 0; m < BASE_ARRAY_SIZE(markers); m++) {
		int line = e2e_source_line(SOURCE, markers[m]);
		char script[256], brk[96], vbuf[256], obuf[256];
		struct e2e_buf dry = { 0 }, ev = { 0 }, g = { 0 };
		uint64_t addr[4], gdb_addr = 0;
		bool inl[4];
		size_t n;
		const char *at;
		int lock;

		snprintf(script, sizeof(script), "trace %s:%d { print \"{:x}\", $pc; print times; "
			 "print c.level; print c.name; }", SOURCE, line);
		if (!dry_run(c, f.pid, script, &dry, NULL))
			continue;
		n = dry_run_addrs(e2e_buf_str(&dry), addr, inl, BASE_ARRAY_SIZE(addr));
		e2e_expect(c, n == 1, "%s:%d (%s): %zu probe addresses, gdb has one", SOURCE, line,
			   markers[m], n);
		live(c, fixture, f.pid, script, 1, &ev, NULL);
		snprintf(brk, sizeof(brk), "break %s:%d", SOURCE, line);
		{
			const char *cmds[] = { brk, "continue", "print times", "print c.level",
					       "print c.name", "delete" };

			lock = e2e_lock(fixture, true);
			gdb_run(c, f.pid, cmds, BASE_ARRAY_SIZE(cmds), &g);
			e2e_unlock(lock);
		}
		at = strstr(e2e_buf_str(&g), "Breakpoint 1 at 0x");
		if (at)
			gdb_addr = strtoull(at + strlen("Breakpoint 1 at "), NULL, 16);
		e2e_expect(c, n >= 1 && gdb_addr && addr[0] + bias == gdb_addr,
			   "%s:%d (%s): gstrace probes 0x%" PRIx64 " (runtime 0x%" PRIx64 "), gdb's "
			   "break stops at 0x%" PRIx64, SOURCE, line, markers[m], n ? addr[0] : 0,
			   n ? addr[0] + bias : 0, gdb_addr);
		if (n >= 1) {
			static const char *const names[] = { "times", "c.level", "c.name" };

			for (int k = 0; k < 3; k++)
				expect_same(c, names[k], gdb_value(e2e_buf_str(&g), k + 1, vbuf,
								   sizeof(vbuf)),
					    our_value(e2e_buf_str(&ev), addr[0] + bias, names[k], obuf,
						      sizeof(obuf)));
		}
		e2e_buf_free(&dry);
		e2e_buf_free(&ev);
		e2e_buf_free(&g);
	}
	e2e_fixture_stop(&f);
}

/* ---- item 8: several copies --------------------------------------------- */

static void s_copies(struct e2e_ctx *c)
{
	static const char script[] = "trace calculate_something { print \"{:x}\", $pc; print a; "
				     "print b; }";
	char fixture[64], brk[64], vbuf[256], obuf[256];
	struct e2e_buf dry = { 0 }, err = { 0 }, ev = { 0 }, g = { 0 }, bad = { 0 };
	struct e2e_fixture f;
	uint64_t addr[8], bias = 0, outline = 0, inlined = 0;
	bool inl[8];
	size_t n;
	int lock;

	if (!start(c, "copies-", fixture, sizeof(fixture), &f))
		return;
	e2e_expect(c, e2e_module_bias(f.pid, fixture, &bias), "no mapping of %s", fixture);
	if (!dry_run(c, f.pid, script, &dry, &err))
		goto out;
	n = dry_run_addrs(e2e_buf_str(&dry), addr, inl, BASE_ARRAY_SIZE(addr));
	for (size_t i = 0; i < n; i++) {
		if (inl[i] && !inlined)
			inlined = addr[i];
		if (!inl[i])
			outline = addr[i];
	}
	e2e_expect(c, n >= 2 && inlined && outline, "calculate_something: %zu copies, want an "
		   "inlined one and the out-of-line one", n);
	live(c, fixture, f.pid, script, 8, &ev, NULL);
	/* Each copy prints what gdb prints where its `break` stops in it; a
	 * copy where gdb has a and b optimized out is named in a notice. */
	for (int copy = 0; copy < 2; copy++) {
		uint64_t at = (copy ? inlined : outline) + bias;
		const char *which = copy ? "inlined" : "out of line";
		char what[64];

		snprintf(brk, sizeof(brk), "break *0x%" PRIx64, at);
		{
			const char *cmds[] = { brk, "continue", "print a", "print b", "delete" };

			lock = e2e_lock(fixture, true);
			gdb_run(c, f.pid, cmds, BASE_ARRAY_SIZE(cmds), &g);
			e2e_unlock(lock);
		}
		snprintf(what, sizeof(what), "a (%s)", which);
		vbuf[0] = obuf[0] = '\0';
		gdb_value(e2e_buf_str(&g), 1, vbuf, sizeof(vbuf));
		our_value(e2e_buf_str(&ev), at, "a", obuf, sizeof(obuf));
		/* inlined, a is `round & 7`: gdb's hit is a later round */
		if (copy && strcmp(vbuf, "<optimized out>") != 0)
			e2e_expect(c, strlen(obuf) == 1 && obuf[0] >= '0' && obuf[0] <= '7',
				   "a (inlined): gdb says '%s', gstrace '%s', not round & 7", vbuf,
				   obuf);
		else
			expect_same(c, what, vbuf, obuf);
		if (copy && strcmp(vbuf, "<optimized out>") == 0)
			e2e_expect(c, strstr(e2e_buf_str(&err), "'a' and 'b' are not visible in 1 "
					     "of ") &&
				   strstr(e2e_buf_str(&err), "(inlined in main at " SOURCE ":") &&
				   strstr(e2e_buf_str(&err), "they print <optimized out>"),
				   "no notice naming the inlined copy that lacks a and b");
		snprintf(what, sizeof(what), "b (%s)", which);
		expect_same(c, what, gdb_value(e2e_buf_str(&g), 2, vbuf, sizeof(vbuf)),
			    our_value(e2e_buf_str(&ev), at, "b", obuf, sizeof(obuf)));
		e2e_buf_free(&g);
	}
	/* a name no copy has: refused, as with one copy */
	{
		struct e2e_trace t = { .pid = f.pid, .script = "trace calculate_something { "
				       "print no_such_name; }", .extra = { "--dry-run" } };
		struct e2e_output parsed;
		struct e2e_run r;

		e2e_trace_run(c, &t, &r, &parsed);
		e2e_buf_add(&bad, e2e_buf_str(&r.err), r.err.len);
		e2e_expect(c, e2e_run_exit_code(&r) == 2 &&
			   strstr(e2e_buf_str(&bad), "in no copy of calculate_something: no variable "
				  "named 'no_such_name'"),
			   "a name in no copy: exit %d, %s", e2e_run_exit_code(&r),
			   e2e_buf_str(&bad));
		e2e_output_free(&parsed);
		e2e_run_free(&r);
	}
out:
	e2e_buf_free(&dry);
	e2e_buf_free(&err);
	e2e_buf_free(&ev);
	e2e_buf_free(&g);
	e2e_buf_free(&bad);
	e2e_fixture_stop(&f);
}

/* ---- item 8: the function's own frame ------------------------------------ */

static void s_frame_scope(struct e2e_ctx *c)
{
	static const char script[] = "trace cp_measure { print \"{:x}\", $pc; print times; "
				     "print label; }";
	char fixture[64], vbuf[256], obuf[256];
	struct e2e_buf dry = { 0 }, ev = { 0 }, g = { 0 };
	struct e2e_fixture f;
	uint64_t addr[4], bias = 0;
	bool inl[4];
	int lock;

	if (!start(c, "frame-scope-", fixture, sizeof(fixture), &f))
		return;
	e2e_expect(c, e2e_module_bias(f.pid, fixture, &bias), "no mapping of %s", fixture);
	if (dry_run(c, f.pid, script, &dry, NULL) &&
	    dry_run_addrs(e2e_buf_str(&dry), addr, inl, BASE_ARRAY_SIZE(addr)) == 1) {
		const char *cmds[] = { "break cp_measure", "continue", "print times", "print label",
				       "delete" };

		live(c, fixture, f.pid, script, 1, &ev, NULL);
		lock = e2e_lock(fixture, true);
		gdb_run(c, f.pid, cmds, BASE_ARRAY_SIZE(cmds), &g);
		e2e_unlock(lock);
		expect_same(c, "times", gdb_value(e2e_buf_str(&g), 1, vbuf, sizeof(vbuf)),
			    our_value(e2e_buf_str(&ev), addr[0] + bias, "times", obuf,
				      sizeof(obuf)));
		expect_same(c, "label", gdb_value(e2e_buf_str(&g), 2, vbuf, sizeof(vbuf)),
			    our_value(e2e_buf_str(&ev), addr[0] + bias, "label", obuf,
				      sizeof(obuf)));
	} else {
		e2e_expect(c, false, "cp_measure: not one probe address");
	}
	e2e_buf_free(&dry);
	e2e_buf_free(&ev);
	e2e_buf_free(&g);
	e2e_fixture_stop(&f);
}

#define NEEDS (E2E_NEED_TRACING | E2E_NEED_GDB)

const struct e2e_scenario e2e_copies_scenarios[] = {
	{ "prologue-line-gcc-O0", s_prologue_line, NEEDS },
	{ "prologue-line-gcc-O2", s_prologue_line, NEEDS },
	{ "prologue-line-clang-O2", s_prologue_line, NEEDS },
	{ "copies-gcc-O2", s_copies, NEEDS },
	{ "frame-scope-clang-O2", s_frame_scope, NEEDS },
};
const size_t e2e_copies_nscenarios = BASE_ARRAY_SIZE(e2e_copies_scenarios);
