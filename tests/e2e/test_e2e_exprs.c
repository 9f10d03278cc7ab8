/* Expressions against gdb: exprgen.c's expressions over the
 * variables of values_exprs.c, each printed by gstrace at ex_probe and by
 * gdb's `print` at the same address of the same process, compared as
 * integers (gdb's `65 'A'`, `true`, enumerator names and `(int *) 0x..`
 * canonicalized as values_canon.c does for the values suite).
 *
 * An expression gstrace refuses is taken out and the rest retried, so each
 * refusal is counted alone. What differs or is refused must carry a tag
 * matched by a cause of tests/e2e/exprs_known.txt (a construct known wrong
 * today, with the reason); every cause listed must still explain
 * something, so the list shrinks as the code generator is fixed, and empty
 * it means: all equal. gdb must accept every expression and agree with the generator's
 * own model of C: anything else is a bug of this harness.
 *
 * GS_EXPRS_SEEDS ("1,2,3" or "1-200") and GS_EXPRS_N (per seed) override
 * the fixed set (scripts/values-diff); then known tags that show nothing
 * are only reported. */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "e2e.h"
#include "exprgen.h"
#include "values_canon.h"

/* Seeds whose expressions each cause of exprs_known.txt spoils alone
 * (picked from a run of seeds 1-40): choose again when the list changes. */
#define DEFAULT_SEEDS "1,2,4,13"
#define DEFAULT_N 60
#define PER_TRACE 40 /* prints per trace block: one BPF program each */
#define VALUE_MAX 512

enum verdict { V_EQUAL, V_DIFFER, V_REFUSED, V_GDB_ERROR, V_NO_EVENT };

struct item {
	struct exprgen_expr e;
	unsigned seed, index;
	char ours[VALUE_MAX], gdb[VALUE_MAX], refused[VALUE_MAX];
	bool have_ours, have_gdb, is_refused;
	enum verdict v;
	bool model_differs; /* gdb against the generator's C model */
};

struct known {
	char tag[64];      /* the cause's name */
	char globs[256];   /* the tags it explains: fnmatch patterns, comma-separated */
	char reason[256];
	unsigned hits;     /* items it explains, alone or with others */
	unsigned alone;    /* items no other cause explains: what keeps it listed */
	size_t example;    /* an item it explains, alone where one is */
};

struct xrun {
	struct e2e_ctx *c;
	char program[96];
	pid_t pid;
	uint64_t addr, runtime;
	struct item *it;
	size_t n;
	struct known k[64];
	size_t nk;
};

/* ---- the expressions ------------------------------------------------------------ */

static bool parse_seeds(const char *s, unsigned *seeds, size_t max, size_t *n)
{
	*n = 0;
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return false;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long x = a; x <= b && *n < max; x++)
			seeds[(*n)++] = (unsigned)x;
		s = end + (*end == ',');
	}
	return *n > 0;
}

static bool generate(struct xrun *r, bool *fixed)
{
	const char *env_seeds = getenv("GS_EXPRS_SEEDS"), *env_n = getenv("GS_EXPRS_N");
	static unsigned seeds[100000];
	size_t nseeds;
	unsigned per = env_n && *env_n ? (unsigned)strtoul(env_n, NULL, 10) : DEFAULT_N;

	*fixed = !(env_seeds && *env_seeds) && !(env_n && *env_n);
	if (!parse_seeds(env_seeds && *env_seeds ? env_seeds : DEFAULT_SEEDS, seeds,
			 BASE_ARRAY_SIZE(seeds), &nseeds) || !per) {
		e2e_expect(r->c, false, "bad GS_EXPRS_SEEDS / GS_EXPRS_N");
		return false;
	}
	r->n = nseeds * per;
	r->it = calloc(r->n, sizeof(*r->it));
	if (!r->it)
		return false;
	for (size_t s = 0; s < nseeds; s++) {
		struct exprgen g;

		exprgen_seed(&g, seeds[s]);
		for (unsigned i = 0; i < per; i++) {
			struct item *x = &r->it[s * per + i];

			exprgen_next(&g, &x->e);
			x->seed = seeds[s];
			x->index = i;
		}
	}
	return true;
}

/* ---- gstrace -------------------------------------------------------------------- */

/* The script of every item not refused yet; line_of[i]: item of line i+1. */
static void script_of(struct xrun *r, struct e2e_buf *b, size_t *line_of)
{
	size_t line = 0, in_block = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (r->it[i].is_refused)
			continue;
		if (in_block == 0) {
			e2e_buf_printf(b, "trace 0x%" PRIx64 " {\n", r->addr);
			line_of[line++] = SIZE_MAX;
		}
		e2e_buf_printf(b, "print \"E%zu={}\", %s;\n", i, r->it[i].e.script);
		line_of[line++] = i;
		if (++in_block == PER_TRACE || i + 1 == r->n) {
			e2e_buf_printf(b, "}\n");
			line_of[line++] = SIZE_MAX;
			in_block = 0;
		}
	}
	if (in_block) {
		e2e_buf_printf(b, "}\n");
		line_of[line++] = SIZE_MAX;
	}
}

/* gstrace --dry-run until it accepts the script: each refusal names its
 * line, whose expression is taken out with the message. */
static bool weed_refused(struct xrun *r)
{
	size_t *line_of = calloc(r->n * 2 + 8, sizeof(*line_of));
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)r->pid);
	for (size_t round = 0; round <= r->n; round++) {
		struct e2e_buf script = { 0 };
		struct e2e_run run;
		const char *err;
		unsigned long line;
		char *argv[] = { (char *)e2e_gstrace_path(), "--dry-run", "-p", pid, "-s", NULL,
				 NULL };

		script_of(r, &script, line_of);
		argv[5] = (char *)e2e_buf_str(&script);
		if (e2e_run_start(&run, argv)) {
			e2e_expect(r->c, false, "cannot run gstrace --dry-run");
			break;
		}
		e2e_run_finish(&run, 30000);
		err = e2e_buf_str(&run.err);
		if (e2e_run_exit_code(&run) == 0) {
			e2e_run_free(&run);
			e2e_buf_free(&script);
			free(line_of);
			return true;
		}
		if (strncmp(err, "script:", 7) != 0 || (line = strtoul(err + 7, NULL, 10)) == 0 ||
		    line_of[line - 1] == SIZE_MAX) {
			e2e_expect(r->c, false, "gstrace --dry-run refused the script not at an "
				   "expression (exit %d):\n%s", e2e_run_exit_code(&run), err);
			e2e_run_free(&run);
			e2e_buf_free(&script);
			break;
		}
		{
			struct item *x = &r->it[line_of[line - 1]];

			x->is_refused = true;
			snprintf(x->refused, sizeof(x->refused), "%.*s", (int)strcspn(err, "\n"), err);
		}
		e2e_run_free(&run);
		e2e_buf_free(&script);
	}
	free(line_of);
	return false;
}

static void gstrace_values(struct xrun *r)
{
	struct e2e_buf script = { 0 };
	size_t *line_of = calloc(r->n * 2 + 8, sizeof(*line_of));
	/* each trace block has its own buffer: a time, not a count of events */
	struct e2e_trace t = { .pid = r->pid, .duration = 1 };
	struct e2e_run run;
	struct e2e_output parsed;

	script_of(r, &script, line_of);
	t.script = e2e_buf_str(&script);
	e2e_trace_run(r->c, &t, &run, &parsed);
	e2e_expect(r->c, e2e_run_exit_code(&run) == 0, "gstrace exited %d",
		   e2e_run_exit_code(&run));
	for (const char *line = e2e_buf_str(&run.out); *line;) {
		size_t len = strcspn(line, "\n");
		char one[VALUE_MAX + 32];
		char *eq;
		size_t i;

		snprintf(one, sizeof(one), "%.*s", (int)len, line);
		line += len + (line[len] == '\n');
		if (strncmp(one, "  E", 3) != 0 || !(eq = strchr(one, '=')))
			continue;
		i = strtoul(one + 3, NULL, 10);
		if (i < r->n && !r->it[i].have_ours) {
			snprintf(r->it[i].ours, sizeof(r->it[i].ours), "%s", eq + 1);
			r->it[i].have_ours = true;
		}
	}
	e2e_output_free(&parsed);
	e2e_run_free(&run);
	e2e_buf_free(&script);
	free(line_of);
}

/* ---- gdb ------------------------------------------------------------------------ */

static void gdb_values(struct xrun *r)
{
	char **argv = calloc(r->n * 4 + 64, sizeof(*argv)), pid[16], brk[64];
	char (*strs)[EXPRGEN_TEXT + 16] = calloc(r->n * 2, sizeof(*strs));
	size_t n = e2e_gdb_print_argv(argv, r->pid, pid, sizeof(pid)), ns = 0;
	struct e2e_run run;
	long cur = -1;

	snprintf(brk, sizeof(brk), "break *0x%" PRIx64, r->runtime);
	argv[n++] = "-ex";
	argv[n++] = brk;
	argv[n++] = "-ex";
	argv[n++] = "continue";
	for (size_t i = 0; i < r->n; i++) {
		snprintf(strs[ns], sizeof(strs[0]), "echo @@E %zu\\n", i);
		argv[n++] = "-ex";
		argv[n++] = strs[ns++];
		snprintf(strs[ns], sizeof(strs[0]), "print %s", r->it[i].e.gdb);
		argv[n++] = "-ex";
		argv[n++] = strs[ns++];
	}
	if (!e2e_gdb_run_batch(r->c, argv, n, &run))
		goto out;
	e2e_expect(r->c, strstr(e2e_buf_str(&run.out), "@@END") != NULL &&
		   strstr(e2e_buf_str(&run.out), "Breakpoint 1, "),
		   "gdb did not stop at 0x%" PRIx64 " (exit %d):\n%.3000s\n%.3000s", r->runtime,
		   e2e_run_exit_code(&run), e2e_buf_str(&run.out), e2e_buf_str(&run.err));
	for (const char *line = e2e_buf_str(&run.out); *line;) {
		size_t len = strcspn(line, "\n");
		char one[VALUE_MAX + 32];
		const char *eq;

		snprintf(one, sizeof(one), "%.*s", (int)len, line);
		line += len + (line[len] == '\n');
		if (!strncmp(one, "@@E ", 4)) {
			cur = strtol(one + 4, NULL, 10);
		} else if (cur >= 0 && (size_t)cur < r->n && one[0] == '$' &&
			   (eq = strstr(one, " = "))) {
			snprintf(r->it[cur].gdb, sizeof(r->it[cur].gdb), "%s", eq + 3);
			r->it[cur].have_gdb = true;
			cur = -1;
		}
	}
	if (run.err.len)
		e2e_note(r->c, "  --- gdb's stderr ---\n%.3000s\n", e2e_buf_str(&run.err));
	e2e_run_free(&run);
out:
	free(argv);
	free(strs);
}

/* ---- the comparison ---------------------------------------------------------------- */

/* A value as one integer's text where it is one: vc_canon's tokens, then
 * true/false, enumerators and addresses as decimal numbers. */
static void canon(const char *text, bool from_gdb, char *out, size_t size)
{
	static char tok[16384];
	long ev;

	vc_canon(text, from_gdb, tok, sizeof(tok));
	if (!strcmp(tok, "true") || !strcmp(tok, "false"))
		snprintf(out, size, "%d", tok[0] == 't');
	else if (exprgen_enumerator(tok, &ev))
		snprintf(out, size, "%ld", ev);
	else if (!strncmp(tok, "0x", 2) && !strchr(tok, ' '))
		snprintf(out, size, "%llu", strtoull(tok, NULL, 16));
	else
		snprintf(out, size, "%.*s", (int)(size - 1), tok);
}

static void compare(struct xrun *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct item *x = &r->it[i];
		char a[VALUE_MAX], b[VALUE_MAX];

		if (!x->have_gdb) {
			x->v = V_GDB_ERROR;
			continue;
		}
		canon(x->gdb, true, a, sizeof(a));
		if (x->e.value[0] && strcmp(a, x->e.value) != 0)
			x->model_differs = true;
		if (x->is_refused) {
			x->v = V_REFUSED;
			continue;
		}
		if (!x->have_ours) {
			x->v = V_NO_EVENT;
			continue;
		}
		canon(x->ours, false, b, sizeof(b));
		x->v = strcmp(a, b) ? V_DIFFER : V_EQUAL;
	}
}

/* ---- the known list ---------------------------------------------------------------- */

static void load_known(struct xrun *r)
{
	const char *src = getenv("GS_SOURCE_DIR");
	char path[4096], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/e2e/exprs_known.txt", src ? src : ".");
	f = fopen(path, "r");
	e2e_expect(r->c, f != NULL, "cannot read %s", path);
	while (f && fgets(line, sizeof(line), f) && r->nk < BASE_ARRAY_SIZE(r->k)) {
		struct known *k = &r->k[r->nk];
		int off = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#' ||
		    sscanf(line, "%63s %255s %n", k->tag, k->globs, &off) != 2)
			continue;
		snprintf(k->reason, sizeof(k->reason), "%s", line + off);
		k->example = SIZE_MAX;
		/* NAME@gcc: a cause of gcc's builds only (its DWARF's type names) */
		if (strchr(k->tag, '@')) {
			char want[80];

			snprintf(want, sizeof(want), "_%s_", strchr(k->tag, '@') + 1);
			if (!strstr(r->program, want))
				continue;
		}
		r->nk++;
	}
	if (f)
		fclose(f);
}

/* One of e's tags matches one of the cause's patterns. */
static bool explains(const struct known *k, const struct exprgen_expr *e)
{
	char globs[256], *save = NULL;

	snprintf(globs, sizeof(globs), "%s", k->globs);
	for (char *g = strtok_r(globs, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		char tags[EXPRGEN_TAGS], *s2 = NULL;

		snprintf(tags, sizeof(tags), "%s", e->tags);
		for (char *t = strtok_r(tags, " ", &s2); t; t = strtok_r(NULL, " ", &s2))
			if (fnmatch(g, t, 0) == 0)
				return true;
	}
	return false;
}

static const char *verdict_name(enum verdict v)
{
	static const char *const names[] = { "equal", "DIFFERS", "REFUSED", "GDB-ERROR",
					     "NO-EVENT" };
	return names[v];
}

static void report(struct xrun *r, bool fixed)
{
	unsigned counts[5] = { 0 }, model = 0, unexplained = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct item *x = &r->it[i];
		bool explained = false;

		counts[x->v]++;
		if (x->model_differs) {
			model++;
			e2e_expect(r->c, false, "seed %u #%u: gdb says %s, the generator's C model %s: %s",
				   x->seed, x->index, x->gdb, x->e.value, x->e.gdb);
		}
		if (x->v == V_GDB_ERROR)
			e2e_expect(r->c, false, "seed %u #%u: gdb printed nothing for %s", x->seed,
				   x->index, x->e.gdb);
		if (x->v != V_DIFFER && x->v != V_REFUSED)
			continue;
		{
			size_t by = 0, which = 0;

			for (size_t k = 0; k < r->nk; k++)
				if (explains(&r->k[k], &x->e)) {
					by++;
					which = k;
					if (!r->k[k].hits++)
						r->k[k].example = i;
				}
			explained = by > 0;
			/* a cause stays listed for what only it explains: one that
			 * was fixed must not live on in expressions another cause
			 * spoils too */
			if (by == 1 && !r->k[which].alone++)
				r->k[which].example = i;
		}
		unexplained += !explained;
		e2e_expect(r->c, explained, "seed %u #%u %s, no known cause in exprs_known.txt: "
			   "%s\n    gdb: %s -> %s\n    gstrace: %s\n    tags: %s", x->seed, x->index,
			   verdict_name(x->v), x->e.script, x->e.gdb, x->gdb,
			   x->is_refused ? x->refused : x->ours, x->e.tags);
	}
	e2e_note(r->c, "\nEXPRS %s generated=%zu equal=%u differing=%u refused=%u gdb-errors=%u "
		 "no-event=%u model-disagrees=%u unexplained=%u\n", r->program, r->n,
		 counts[V_EQUAL], counts[V_DIFFER], counts[V_REFUSED], counts[V_GDB_ERROR],
		 counts[V_NO_EVENT], model, unexplained);
	e2e_note(r->c, "known causes (exprs_known.txt), with what they explain:\n");
	for (size_t k = 0; k < r->nk; k++) {
		const struct known *kn = &r->k[k];

		e2e_note(r->c, "  %-16s %4u alone, %4u with others: %s\n", kn->tag, kn->alone,
			 kn->hits - kn->alone, kn->reason);
		if (kn->example != SIZE_MAX) {
			const struct item *x = &r->it[kn->example];

			e2e_note(r->c, "      e.g. %s\n        gstrace: %s\n        gdb:     %s\n",
				 x->e.script, x->is_refused ? x->refused : x->ours, x->gdb);
		}
		if (fixed)
			e2e_expect(r->c, kn->alone > 0, "exprs_known.txt lists '%s' (%s) but no "
				   "expression differs or is refused for it alone now (%u with other "
				   "causes): fixed? remove the line", kn->tag, kn->reason, kn->hits);
	}
	e2e_note(r->c, "every expression that differs or is refused:\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct item *x = &r->it[i];

		if (x->v == V_EQUAL)
			continue;
		e2e_note(r->c, "  %-9s seed %u #%u: %s\n      gstrace: %s\n      gdb:     %s   "
			 "(%s)\n      tags: %s\n", verdict_name(x->v), x->seed, x->index, x->e.script,
			 x->is_refused ? x->refused : x->have_ours ? x->ours : "(nothing)",
			 x->have_gdb ? x->gdb : "(nothing)", x->e.gdb, x->e.tags);
	}
	printf("EXPRS %s generated=%zu equal=%u differing=%u refused=%u gdb-errors=%u "
	       "no-event=%u model-disagrees=%u unexplained=%u\n", r->program, r->n, counts[V_EQUAL],
	       counts[V_DIFFER], counts[V_REFUSED], counts[V_GDB_ERROR], counts[V_NO_EVENT], model,
	       unexplained);
}

/* ---- the scenario ------------------------------------------------------------------ */

/* "ex_probe at values_exprs_gcc_O0_dw5+0x1149 in values_exprs.c:" */
static bool probe_address(struct xrun *r)
{
	char pid[16];
	char *argv[] = { (char *)e2e_gstrace_path(), "--list-vars", "ex_probe", "-p", pid, NULL };
	struct e2e_run run;
	const char *plus;
	uint64_t bias;
	bool ok;

	snprintf(pid, sizeof(pid), "%d", (int)r->pid);
	if (e2e_run_start(&run, argv))
		return false;
	e2e_run_finish(&run, 30000);
	plus = strstr(e2e_buf_str(&run.out), "+0x");
	ok = e2e_run_exit_code(&run) == 0 && plus;
	e2e_expect(r->c, ok, "--list-vars ex_probe: exit %d:\n%s%s", e2e_run_exit_code(&run),
		   e2e_buf_str(&run.out), e2e_buf_str(&run.err));
	if (ok)
		r->addr = strtoull(plus + 1, NULL, 16);
	e2e_run_free(&run);
	if (!ok || !e2e_module_bias(r->pid, r->program, &bias)) {
		e2e_expect(r->c, false, "no mapping of %s in pid %d", r->program, (int)r->pid);
		return false;
	}
	r->runtime = r->addr + bias;
	return true;
}

static void s_exprs(struct e2e_ctx *c)
{
	/* "values-exprs-<compiler>-<opt>-<dwarf>" */
	struct xrun *r = calloc(1, sizeof(*r));
	struct e2e_fixture f;
	bool fixed;
	int lock;

	if (!r)
		return;
	r->c = c;
	snprintf(r->program, sizeof(r->program), "values_exprs_%s",
		 c->scenario + strlen("values-exprs-"));
	for (char *s = r->program; *s; s++)
		*s = *s == '-' ? '_' : *s;
	load_known(r);
	if (!generate(r, &fixed) || !e2e_fixture_start(&f, r->program)) {
		e2e_expect(c, false, "fixture %s did not start", r->program);
		free(r->it);
		free(r);
		return;
	}
	r->pid = f.pid;
	if (probe_address(r)) {
		lock = e2e_lock(r->program, false);
		if (weed_refused(r))
			gstrace_values(r);
		e2e_unlock(lock);
		lock = e2e_lock(r->program, true);
		gdb_values(r);
		e2e_unlock(lock);
		compare(r);
		report(r, fixed);
	}
	e2e_fixture_stop(&f);
	free(r->it);
	free(r);
}

#define X(variant) { "values-exprs-" variant, s_exprs, E2E_NEED_TRACING | E2E_NEED_GDB }

const struct e2e_scenario e2e_exprs_scenarios[] = {
	X("gcc-O0-dw5"), X("gcc-O2-dw5"), X("clang-O2-dw5"),
};
const size_t e2e_exprs_nscenarios = BASE_ARRAY_SIZE(e2e_exprs_scenarios);
