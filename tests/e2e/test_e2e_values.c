/* Values against gdb: for every probe point of four fixtures
 * (types, globals, a shared library, inlined calls), built by gcc -O0 / -O2
 * / -O3 and clang -O2 with DWARF 4 and 5, every parameter, local and global
 * visible at each address the probe resolves to is printed by gstrace and
 * by gdb's `print` at the same address of the same process; the two must
 * be equal, or both say optimized out. The names come from gstrace
 * --list-vars (checked against gdb's `info args` / `info locals`), the
 * addresses too. gstrace traces first (it tells which addresses the
 * fixture runs), then gdb stops at those (holding the fixture's lock: a
 * uprobe and a breakpoint at one address interfere): every round of the
 * fixture calls each probe with the same arguments, so any hit shows the
 * values any other hit does. Where a fixture names return functions,
 * `$retval` of `trace FN return` is compared with gdb's `finish` the same
 * way.
 *
 * Where gdb prints a value, gstrace must print the same one: a value gdb
 * has and gstrace shows as <optimized out> fails, except the few listed
 * below with their DWARF expression and reason (printed when met, counted
 * apart, never as a match). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "e2e.h"
#include "values_canon.h"

#define MAX_NAMES 48
#define VALUE_MAX 4096
#define LINE_MAX_ 8192

struct vprobe {
	const char *target;  /* a function, or file:MARKER for a line */
	const char *extra[4]; /* globals of other modules, read by name too */
};

struct vfixture {
	const char *name;    /* "types": values_types_<variant> */
	const char *source;  /* for line markers, under tests/e2e/fixtures */
	const char *lib;     /* "libvalues": lib<...>_<variant>.so, or NULL */
	struct vprobe probes[12];
	const char *returns[8]; /* functions whose $retval is compared */
};

static const struct vfixture fixtures[] = {
	{ "types", "values/values_types.c", NULL, {
		{ "take_record" }, { "values_types.c:VT-LOOP-LINE" }, { "by_value" },
		{ "strings" }, { "floats" }, { "arrays" }, { "nested" }, { "enums" },
		{ "pointers" }, { "values_types.c:VT-STRINGS-LINE" }, { "deep_typedefs" },
	}, { "ret_point", "ret_pair", "ret_record", "ret_label", "ret_char", "ret_color",
	     "ret_short", "take_record" } },
	{ "globals", "values/values_globals.c", NULL, {
		{ "read_globals" }, { "values_globals.c:VG-SUM-LINE" }, { "statics" },
		{ "weights" }, { "values_globals.c:VG-WEIGHT-LINE" },
	} },
	{ "lib", "values/values_lib.c", "libvalues", {
		{ "lib_compute" }, { "values_lib.c:VL-SCALED-LINE" }, { "lib_record" },
		{ "values_lib.c:VL-RECORD-LINE" },
		{ "main_probe", { "lib_counter", "lib_origin", "lib_name" } },
	} },
	{ "inline", "values/values_inline.c", NULL, {
		{ "values_inline.c:VI-ADD-LINE" }, { "values_inline.c:VI-SCALE-LINE" },
		{ "values_inline.c:VI-OUTER-LINE" }, { "inl_add" }, { "outer_one" },
		{ "outer_two" },
	} },
	{ "dwexpr", "values/values_dwexpr.c", NULL, {
		{ "mixer" }, { "values_dwexpr.c:VD-MIX-LINE" }, { "weigh" },
		{ "values_dwexpr.c:VD-WEIGH-LINE" }, { "values_dwexpr.c:VD-EV-LINE" },
		{ "values_dwexpr.c:VD-HALVES-LINE" }, { "ev_callee" }, { "halves" },
		{ "values_dwexpr.c:VD-TRIO-LINE" },
	} },
};

/* What gdb prints and gstrace cannot, with the DWARF location and why:
 * nothing else may be missing. Matched by fixture, probe and name in every
 * build where it occurs. */
static const struct vexception {
	const char *fixture, *probe, *name;
	const char *expression, *reason;
} exceptions[] = {
	{ "types", "floats", "d", "DW_OP_reg17 (xmm0)",
	  "a double in an XMM register: pt_regs has no vector registers and no helper of "
	  "a uprobe program reads them (floats: refused with this reason)" },
	{ "types", "floats", "f", "DW_OP_reg18 (xmm1)",
	  "a float in an XMM register (as d)" },
	{ "globals", "values_globals.c:VG-WEIGHT-LINE", "w", "DW_OP_reg17 (xmm0)",
	  "a double in an XMM register (as types/floats d)" },
};

static const struct vexception *exception_for(const struct vfixture *fx, const char *probe,
					      const char *name)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(exceptions); i++)
		if (!strcmp(exceptions[i].fixture, fx->name) && !strcmp(exceptions[i].probe, probe) &&
		    !strcmp(exceptions[i].name, name))
			return &exceptions[i];
	return NULL;
}

/* One address to compare at, with the names visible there. */
struct vaddr {
	const struct vprobe *probe;
	char module[160];       /* base name of the module */
	uint64_t addr;          /* link-time */
	uint64_t runtime;
	char names[MAX_NAMES][64];
	char where[MAX_NAMES][96]; /* --list-vars' location text */
	size_t nnames;
	char gdb[MAX_NAMES][VALUE_MAX], ours[MAX_NAMES][VALUE_MAX];
	bool have_gdb[MAX_NAMES], have_ours[MAX_NAMES];
	bool hit;               /* gstrace saw it: the fixture runs this code */
};

struct vrun {
	struct e2e_ctx *c;
	const struct vfixture *fx;
	char program[96];
	pid_t pid;
	struct vaddr a[48];
	size_t na;
	unsigned counts[VC_KINDS];
	unsigned compared, unrun; /* addresses */
	unsigned ret_counts[VC_KINDS];
	char *out; /* gstrace's output: every event of every trace */
};

/* ---- names and addresses: gstrace --list-vars -------------------------------- */

static void target_text(const struct vfixture *fx, const struct vprobe *p, char *out, size_t size)
{
	const char *colon = strchr(p->target, ':');

	if (!colon) {
		snprintf(out, size, "%s", p->target);
		return;
	}
	snprintf(out, size, "%.*s:%d", (int)(colon - p->target), p->target,
		 e2e_source_line(fx->source, colon + 1));
}

/* The next line of *p into one (cut to its size, without the newline),
 * *p moved past it; false at the end. */
static bool next_line(const char **p, char *one, size_t size)
{
	size_t len = strcspn(*p, "\n");

	if (!**p)
		return false;
	snprintf(one, size, "%.*s", (int)len, *p);
	*p += len + ((*p)[len] == '\n');
	return true;
}

/* "take_record at values_types_gcc_O2_dw5+0x1490 (inlined) in values_types.c:" and
 * then "  param   r   record_t *   register rdi (location list)" lines. */
static void parse_list(struct vrun *r, const struct vprobe *p, const char *text)
{
	struct vaddr *cur = NULL;
	char one[1024];

	for (const char *line = text; next_line(&line, one, sizeof(one));) {
		char scope[16], name[64];
		const char *at;
		int off = 0;

		at = strstr(one, " at ");
		if (one[0] != ' ' && at && r->na < BASE_ARRAY_SIZE(r->a)) {
			const char *plus = strstr(at, "+0x");

			cur = &r->a[r->na++];
			memset(cur, 0, sizeof(*cur));
			cur->probe = p;
			if (plus) {
				snprintf(cur->module, sizeof(cur->module), "%.*s",
					 (int)(plus - at - 4), at + 4);
				cur->addr = strtoull(plus + 1, NULL, 16);
			}
			continue;
		}
		if (!cur || sscanf(one, " %15s %63s %n", scope, name, &off) != 2 ||
		    cur->nnames >= MAX_NAMES)
			continue;
		/* fixture_ready's signal flags are not the program's values */
		if (!strncmp(name, "fixture_", 8))
			continue;
		snprintf(cur->names[cur->nnames], sizeof(cur->names[0]), "%s", name);
		/* the location is the last column: after two or more spaces */
		{
			const char *loc = strrchr(one, ' ');
			const char *gap = one + off;

			for (const char *s = gap; (s = strstr(s, "  ")); s++)
				loc = s;
			snprintf(cur->where[cur->nnames], sizeof(cur->where[0]), "%s",
				 loc + strspn(loc, " "));
		}
		cur->nnames++;
	}
}

static bool list_vars(struct vrun *r)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(r->fx->probes); i++) {
		const struct vprobe *p = &r->fx->probes[i];
		char target[128], pid[16];
		size_t first = r->na;
		struct e2e_run run;
		char *argv[] = { (char *)e2e_gstrace_path(), "--list-vars", target, "-p", pid,
				 NULL };

		if (!p->target)
			break;
		target_text(r->fx, p, target, sizeof(target));
		snprintf(pid, sizeof(pid), "%d", (int)r->pid);
		if (e2e_run_start(&run, argv)) {
			e2e_expect(r->c, false, "cannot run gstrace --list-vars");
			return false;
		}
		e2e_run_finish(&run, 30000);
		e2e_expect(r->c, e2e_run_exit_code(&run) == 0, "--list-vars %s: exit %d: %s", target,
			   e2e_run_exit_code(&run), e2e_buf_str(&run.err));
		parse_list(r, p, e2e_buf_str(&run.out));
		e2e_expect(r->c, r->na > first, "--list-vars %s listed no address:\n%s", target,
			   e2e_buf_str(&run.out));
		for (size_t k = first; k < r->na; k++)
			for (size_t x = 0; x < 4 && p->extra[x] && r->a[k].nnames < MAX_NAMES; x++) {
				snprintf(r->a[k].names[r->a[k].nnames], sizeof(r->a[k].names[0]), "%s",
					 p->extra[x]);
				snprintf(r->a[k].where[r->a[k].nnames++], sizeof(r->a[k].where[0]),
					 "another module's global");
			}
		e2e_run_free(&run);
	}
	return r->na > 0;
}

/* ---- gdb ------------------------------------------------------------------------ */

static bool has_name(const struct vaddr *a, const char *name)
{
	for (size_t i = 0; i < a->nnames; i++)
		if (!strcmp(a->names[i], name))
			return true;
	return false;
}

/* Everything gdb prints at each address, in one attach: stop at the
 * address, print each name, on to the next. */
static void gdb_values(struct vrun *r)
{
	char **argv = calloc(4096, sizeof(*argv)), pid[16];
	size_t n = e2e_gdb_print_argv(argv, r->pid, pid, sizeof(pid)), nstr = 0;
	char (*strs)[160] = calloc(4096, sizeof(*strs));
	struct e2e_run run;
	const char *out;

	for (size_t k = 0; k < r->na && n < 4000; k++) {
		struct vaddr *a = &r->a[k];

		if (!a->hit)
			continue;
		argv[n++] = "-ex";
		snprintf(strs[nstr], sizeof(strs[0]), "tbreak *0x%" PRIx64, a->runtime);
		argv[n++] = strs[nstr++];
		argv[n++] = "-ex";
		argv[n++] = "continue";
		argv[n++] = "-ex";
		snprintf(strs[nstr], sizeof(strs[0]), "echo @@ADDR %zu\\n", k);
		argv[n++] = strs[nstr++];
		argv[n++] = "-ex";
		argv[n++] = "info args";
		argv[n++] = "-ex";
		argv[n++] = "info locals";
		for (size_t i = 0; i < a->nnames && n < 4000; i++) {
			argv[n++] = "-ex";
			snprintf(strs[nstr], sizeof(strs[0]), "echo @@V %zu\\n", i);
			argv[n++] = strs[nstr++];
			argv[n++] = "-ex";
			snprintf(strs[nstr], sizeof(strs[0]), "print %s", a->names[i]);
			argv[n++] = strs[nstr++];
		}
	}
	if (!e2e_gdb_run_batch(r->c, argv, n, &run))
		goto out;
	out = e2e_buf_str(&run.out);
	e2e_expect(r->c, strstr(out, "@@END") != NULL, "gdb did not stop at every address (exit "
		   "%d):\n%s\n%s", e2e_run_exit_code(&run), out, e2e_buf_str(&run.err));
	{
		struct vaddr *a = NULL;
		bool in_info = false;
		long v = -1;
		char one[LINE_MAX_];

		for (const char *line = out; next_line(&line, one, sizeof(one));) {
			if (!strncmp(one, "@@ADDR ", 7)) {
				size_t k = strtoul(one + 7, NULL, 10);

				a = k < r->na ? &r->a[k] : NULL;
				v = -1;
				in_info = true;
			} else if (!strncmp(one, "@@V ", 4)) {
				v = strtol(one + 4, NULL, 10);
				in_info = false;
			} else if (a && in_info && strstr(one, " = ") && one[0] != '$') {
				/* info args / info locals: gdb's names here must be ours */
				char name[64];

				/* one gdb keeps from a block this instance dropped has no
				 * value: it may be left out */
				snprintf(name, sizeof(name), "%.*s", (int)strcspn(one, " "), one);
				e2e_expect(r->c, has_name(a, name) || strstr(one, "= <optimized out>"),
					   "%s at %s+0x%" PRIx64 ": gdb sees '%s', --list-vars does not",
					   a->probe->target, a->module, a->addr, name);
			} else if (a && v >= 0 && one[0] == '$' && strstr(one, " = ")) {
				snprintf(a->gdb[v], sizeof(a->gdb[0]), "%s", strstr(one, " = ") + 3);
				a->have_gdb[v] = true;
				v = -1;
			}
		}
	}
	e2e_note(r->c, "  --- gdb (%zu bytes of stdout) ---\n%.4000s%s\n", run.out.len, out,
		 run.out.len > 4000 ? "\n  [...]" : "");
	e2e_run_free(&run);
out:
	free(argv);
	free(strs);
}

/* ---- gstrace ------------------------------------------------------------------------- */

static void gstrace_values(struct vrun *r)
{
	struct e2e_buf script = { 0 };
	/* Each trace has its own buffer, read one after the other: a count of
	 * events could be met by one trace's alone, a time is not. */
	struct e2e_trace t = { .pid = r->pid, .duration = 1 };
	struct e2e_run run;
	struct e2e_output parsed;
	bool *seen = calloc(r->na, sizeof(*seen));
	char one[LINE_MAX_];

	for (size_t k = 0; k < r->na; k++) {
		struct vaddr *a = &r->a[k];

		if (strcmp(a->module, r->program) == 0)
			e2e_buf_printf(&script, "trace 0x%" PRIx64 " {", a->addr);
		else
			e2e_buf_printf(&script, "trace %s:0x%" PRIx64 " {", a->module, a->addr);
		for (size_t i = 0; i < a->nnames; i++)
			e2e_buf_printf(&script, " print %s;", a->names[i]);
		e2e_buf_printf(&script, " }\n");
	}
	t.script = e2e_buf_str(&script);
	e2e_trace_run(r->c, &t, &run, &parsed);
	e2e_expect(r->c, e2e_run_exit_code(&run) == 0, "gstrace exited %d",
		   e2e_run_exit_code(&run));
	/* Which traces sent events (`TraceID:k` headers); their values are
	 * read at the comparison (event_values), from the output kept. */
	for (const char *line = e2e_buf_str(&run.out); next_line(&line, one, sizeof(one));) {
		const char *id;

		if (one[0] != ' ' && (id = strstr(one, "TraceID:"))) {
			long k = strtol(id + 8, NULL, 10);

			if (k >= 0 && (size_t)k < r->na)
				seen[k] = true;
		}
	}
	free(r->out);
	r->out = strdup(e2e_buf_str(&run.out));
	/* An address no event came from is code the fixture does not run
	 * (an out-of-line copy of a function inlined everywhere): compared
	 * nowhere, but at least one address of each probe must be. */
	for (size_t k = 0; k < r->na; k++)
		r->a[k].hit = seen[k];
	for (size_t k = 0; k < r->na; k++) {
		bool any = false;

		for (size_t j = 0; j < r->na; j++)
			any |= r->a[j].probe == r->a[k].probe && r->a[j].hit;
		e2e_expect(r->c, any, "no event of any address of %s", r->a[k].probe->target);
	}
	free(seen);
	e2e_output_free(&parsed);
	e2e_run_free(&run);
	e2e_buf_free(&script);
}

/* ---- the comparison ------------------------------------------------------------------ */

/* The values of trace k's nth event in out (`TraceID:k` header, then
 * `  name = value` items) into a->ours; false when there is no such event. */
static bool event_values(const char *out, size_t k, size_t nth, struct vaddr *a)
{
	bool in = false, found = false;
	size_t seen = 0;
	char one[LINE_MAX_];

	memset(a->have_ours, 0, sizeof(a->have_ours));
	for (const char *line = out ? out : ""; next_line(&line, one, sizeof(one));) {
		const char *id;

		if (one[0] != ' ' && (id = strstr(one, "TraceID:"))) {
			if (in)
				break; /* the nth event is read */
			in = strtol(id + 8, NULL, 10) == (long)k && seen++ == nth;
			found |= in;
			continue;
		}
		if (!in || one[0] != ' ')
			continue;
		for (size_t i = 0; i < a->nnames; i++) {
			char prefix[80];

			snprintf(prefix, sizeof(prefix), "  %s = ", a->names[i]);
			if (!a->have_ours[i] && !strncmp(one, prefix, strlen(prefix))) {
				snprintf(a->ours[i], sizeof(a->ours[0]), "%s", one + strlen(prefix));
				a->have_ours[i] = true;
				break;
			}
		}
	}
	return found;
}

/* Of the first EVENTS_TRIED events at a, the one whose values gdb's agree
 * with most. Every round of a fixture calls a probe with the same
 * arguments, except where it calls a function twice (values_dwexpr's
 * ev_callee(kept, 5) and ev_callee(seed + 10, kept)): gdb's stop and
 * gstrace's first event may then be the two calls, each right. A value no
 * call had still mismatches. */
#define EVENTS_TRIED 8

static void pick_event(const struct vrun *r, size_t k, struct vaddr *a)
{
	size_t best = 0;
	int best_score = -1;

	for (size_t nth = 0; nth < EVENTS_TRIED && event_values(r->out, k, nth, a); nth++) {
		int score = 0;

		for (size_t i = 0; i < a->nnames; i++)
			score += a->have_gdb[i] && a->have_ours[i] &&
				 vc_classify(a->gdb[i], a->ours[i], a->where[i]) == VC_MATCH;
		if (score > best_score) {
			best_score = score;
			best = nth;
		}
	}
	event_values(r->out, k, best, a);
}

static void compare(struct vrun *r)
{
	for (size_t k = 0; k < r->na; k++) {
		struct vaddr *a = &r->a[k];

		e2e_note(r->c, "%s at %s+0x%" PRIx64 "%s\n", a->probe->target, a->module, a->addr,
			 a->hit ? ":" : ": not run by the fixture");
		if (!a->hit) {
			r->unrun++;
			continue;
		}
		r->compared++;
		pick_event(r, k, a);
		for (size_t i = 0; i < a->nnames; i++) {
			enum vc_kind kind = vc_classify(a->have_gdb[i] ? a->gdb[i] : NULL,
							a->have_ours[i] ? a->ours[i] : NULL,
							a->where[i]);

			if (kind == VC_PARTIAL || kind == VC_ENTRY_VALUE || kind == VC_UNSUPPORTED ||
			    (kind == VC_GDB_ONLY && a->have_ours[i])) {
				const struct vexception *x = exception_for(r->fx, a->probe->target,
									   a->names[i]);

				if (x) {
					kind = VC_KNOWN;
					printf("KNOWN %s at %s+0x%" PRIx64 ": %s: %s: %s\n",
					       a->probe->target, a->module, a->addr, a->names[i],
					       x->expression, x->reason);
				}
			}
			r->counts[kind]++;
			e2e_note(r->c, "  %-9s %-14s gdb: %.200s\n  %-9s %-14s ours: %.200s\n",
				 vc_label(kind), a->names[i], a->have_gdb[i] ? a->gdb[i] : "(none)",
				 "", "", a->have_ours[i] ? a->ours[i] : "(none)");
			if (kind == VC_MISMATCH) {
				static char ca[16384], cb[16384];

				vc_canon(a->gdb[i], true, ca, sizeof(ca));
				vc_canon(a->ours[i], false, cb, sizeof(cb));
				e2e_note(r->c, "  gdb, canonical:  %s\n  ours, canonical: %s\n", ca, cb);
			}
			e2e_expect(r->c, !vc_failure(kind), "%s at %s+0x%" PRIx64 ": %s: gdb says "
				   "'%.300s', gstrace '%.300s' (%s; located: %s)", a->probe->target,
				   a->module, a->addr, a->names[i],
				   a->have_gdb[i] ? a->gdb[i] : "(nothing)",
				   a->have_ours[i] ? a->ours[i] : "(nothing)", vc_label(kind),
				   a->where[i]);
		}
	}
}

/* ---- return values: $retval against gdb's finish ------------------------------------ */

struct vret {
	char gdb[VALUE_MAX], ours[VALUE_MAX];
	bool have_gdb, have_ours;
};

static size_t nreturns(const struct vfixture *fx)
{
	size_t n = 0;

	while (n < BASE_ARRAY_SIZE(fx->returns) && fx->returns[n])
		n++;
	return n;
}

/* `trace FN return { print $retval; }` for each: the first event of each. */
static void gstrace_returns(struct vrun *r, struct vret *v, size_t n)
{
	struct e2e_buf script = { 0 };
	struct e2e_trace t = { .pid = r->pid, .duration = 1 };
	struct e2e_run run;
	struct e2e_output parsed;
	long cur = -1;
	char one[LINE_MAX_];

	for (size_t i = 0; i < n; i++)
		e2e_buf_printf(&script, "trace %s return { print $retval; }\n", r->fx->returns[i]);
	t.script = e2e_buf_str(&script);
	e2e_trace_run(r->c, &t, &run, &parsed);
	e2e_expect(r->c, e2e_run_exit_code(&run) == 0, "gstrace (return probes) exited %d",
		   e2e_run_exit_code(&run));
	for (const char *line = e2e_buf_str(&run.out); next_line(&line, one, sizeof(one));) {
		const char *id;

		if (one[0] != ' ' && (id = strstr(one, "TraceID:"))) {
			long k = strtol(id + 8, NULL, 10);

			cur = k >= 0 && (size_t)k < n && !v[k].have_ours ? k : -1;
		} else if (cur >= 0 && !strncmp(one, "  $retval = ", 12)) {
			snprintf(v[cur].ours, sizeof(v[cur].ours), "%.*s", VALUE_MAX - 1, one + 12);
			v[cur].have_ours = true;
			cur = -1;
		}
	}
	e2e_output_free(&parsed);
	e2e_run_free(&run);
	e2e_buf_free(&script);
}

/* gdb: stop in each function, `finish`, read "Value returned is $N = ...". */
static void gdb_returns(struct vrun *r, struct vret *v, size_t n)
{
	char *argv[128], pid[16], strs[16][96];
	size_t a = e2e_gdb_print_argv(argv, r->pid, pid, sizeof(pid));
	struct e2e_run run;
	long cur = -1;
	char one[LINE_MAX_];

	for (size_t i = 0; i < n && i < 16; i++) {
		snprintf(strs[i], sizeof(strs[i]), "tbreak %s", r->fx->returns[i]);
		argv[a++] = "-ex";
		argv[a++] = strs[i];
		argv[a++] = "-ex";
		argv[a++] = "continue";
		argv[a++] = "-ex";
		argv[a++] = "echo @@R\n";
		argv[a++] = "-ex";
		argv[a++] = "finish";
	}
	argv[a++] = "-ex";
	argv[a++] = "detach";
	argv[a] = NULL;
	if (e2e_run_start(&run, argv)) {
		e2e_expect(r->c, false, "cannot start gdb");
		return;
	}
	e2e_run_finish(&run, 120000);
	for (const char *line = e2e_buf_str(&run.out); next_line(&line, one, sizeof(one));) {
		const char *eq;

		if (!strcmp(one, "@@R")) {
			cur++;
		} else if (cur >= 0 && (size_t)cur < n && !strncmp(one, "Value returned is $", 19) &&
			   (eq = strstr(one, " = "))) {
			snprintf(v[cur].gdb, sizeof(v[cur].gdb), "%.*s", VALUE_MAX - 1, eq + 3);
			v[cur].have_gdb = true;
		}
	}
	e2e_note(r->c, "  --- gdb's finish ---\n%.3000s\n", e2e_buf_str(&run.out));
	e2e_run_free(&run);
}

static void compare_returns(struct vrun *r)
{
	size_t n = nreturns(r->fx);
	struct vret *v = calloc(n ? n : 1, sizeof(*v));
	int lock;

	if (!n || !v) {
		free(v);
		return;
	}
	lock = e2e_lock(r->program, false);
	gstrace_returns(r, v, n);
	e2e_unlock(lock);
	lock = e2e_lock(r->program, true);
	gdb_returns(r, v, n);
	e2e_unlock(lock);
	for (size_t i = 0; i < n; i++) {
		enum vc_kind kind = vc_classify(v[i].have_gdb ? v[i].gdb : NULL,
						v[i].have_ours ? v[i].ours : NULL, "return value");

		r->ret_counts[kind]++;
		e2e_note(r->c, "  %-9s %s return  gdb: %.200s\n  %-9s %*s ours: %.200s\n",
			 vc_label(kind), r->fx->returns[i], v[i].have_gdb ? v[i].gdb : "(none)", "",
			 (int)strlen(r->fx->returns[i]) + 7, "", v[i].have_ours ? v[i].ours : "(none)");
		e2e_expect(r->c, kind == VC_MATCH, "$retval of %s: gdb's finish says '%.300s', "
			   "gstrace '%.300s' (%s)", r->fx->returns[i],
			   v[i].have_gdb ? v[i].gdb : "(nothing)",
			   v[i].have_ours ? v[i].ours : "(nothing)", vc_label(kind));
	}
	free(v);
}

static size_t nprobes(const struct vfixture *fx)
{
	size_t n = 0;

	while (n < BASE_ARRAY_SIZE(fx->probes) && fx->probes[n].target)
		n++;
	return n;
}

static void s_values(struct e2e_ctx *c)
{
	/* "values-<fixture>-<compiler>-<opt>-<dwarf>" */
	const char *rest = c->scenario + strlen("values-");
	struct vrun *r = calloc(1, sizeof(*r));
	const struct vfixture *fx = NULL;
	char variant[48];
	struct e2e_fixture f;
	int lock;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(fixtures); i++)
		if (!strncmp(rest, fixtures[i].name, strlen(fixtures[i].name)) &&
		    rest[strlen(fixtures[i].name)] == '-')
			fx = &fixtures[i];
	if (!fx || !r) {
		e2e_expect(c, false, "unknown values scenario %s", c->scenario);
		free(r->out);
		free(r);
		return;
	}
	snprintf(variant, sizeof(variant), "%s", rest + strlen(fx->name) + 1);
	for (char *s = variant; *s; s++)
		*s = *s == '-' ? '_' : *s;
	r->c = c;
	r->fx = fx;
	snprintf(r->program, sizeof(r->program), "values_%s_%s", fx->name, variant);
	if (!e2e_fixture_start(&f, r->program)) {
		e2e_expect(c, false, "fixture %s did not start", r->program);
		free(r->out);
		free(r);
		return;
	}
	r->pid = f.pid;
	if (list_vars(r)) {
		for (size_t k = 0; k < r->na; k++) {
			uint64_t bias;

			e2e_expect(c, e2e_module_bias(r->pid, r->a[k].module, &bias),
				   "no mapping of %s in pid %d", r->a[k].module, (int)r->pid);
			r->a[k].runtime = r->a[k].addr + bias;
		}
		/* gstrace first: it tells which addresses the fixture runs, where
		 * gdb's breakpoints will be hit. */
		lock = e2e_lock(r->program, false);
		gstrace_values(r);
		e2e_unlock(lock);
		lock = e2e_lock(r->program, true);
		gdb_values(r);
		e2e_unlock(lock);
		compare(r);
		compare_returns(r);
	}
	e2e_note(c, "%s: %u addresses compared (%u not run) of %zu probe points;", r->program,
		 r->compared, r->unrun, nprobes(fx));
	for (int k = 0; k < VC_KINDS; k++)
		e2e_note(c, " %s %u", vc_label((enum vc_kind)k), r->counts[k]);
	e2e_note(c, "\n");
	printf("VALUES %s probes=%zu addresses=%u", r->program, nprobes(fx), r->compared);
	for (int k = 0; k < VC_KINDS; k++)
		printf(" %s=%u", vc_label((enum vc_kind)k), r->counts[k]);
	printf(" returns=%zu returns-match=%u\n", nreturns(fx), r->ret_counts[VC_MATCH]);
	e2e_fixture_stop(&f);
	free(r->out);
	free(r);
}

#define V(fx, variant) { "values-" fx "-" variant, s_values, E2E_NEED_TRACING | E2E_NEED_GDB }
#define VARIANTS(fx) V(fx, "gcc-O0-dw4"), V(fx, "gcc-O0-dw5"), V(fx, "gcc-O2-dw4"), \
	V(fx, "gcc-O2-dw5"), V(fx, "gcc-O3-dw4"), V(fx, "gcc-O3-dw5"), V(fx, "clang-O2-dw4"), \
	V(fx, "clang-O2-dw5")

const struct e2e_scenario e2e_values_scenarios[] = {
	VARIANTS("types"), VARIANTS("globals"), VARIANTS("lib"), VARIANTS("inline"),
	VARIANTS("dwexpr"),
};
const size_t e2e_values_nscenarios = BASE_ARRAY_SIZE(e2e_values_scenarios);
