/* Many conditions in one trace: a script of 200 `if`s over
 * pointer dereferences of take_record's `r` in values_types.c (members,
 * members of members, array elements, a 2-D array, && and ||, a NULL
 * pointer followed, else branches) loads, and its one event holds exactly
 * the lines C says: gdb, stopped at take_record in the same process,
 * evaluates each condition; true prints "T<k> <r->next->id>", false prints
 * "F<k>" where the if has an else (nothing where it has not), and a
 * condition gdb cannot evaluate (it reads through NULL) prints
 * "ExprError: <condition> (...)" and runs neither branch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "e2e.h"

#define FIXTURE "values_types_gcc_O0_dw4"
#define NCOND 200
#define COND_MAX 96
#define LINE_MAX_ 160

enum truth { T_UNKNOWN, T_TRUE, T_FALSE, T_ERROR };

struct cond {
	char text[COND_MAX];
	bool has_else;
	enum truth gdb;
};

/* Condition k: seven shapes, constants moving with k so that each shape is
 * true for some k and false for others. r is &local (id 7, pos {1, -2},
 * values {10..40}); r->next is &base (the same values) whose next is NULL. */
static void condition(size_t k, struct cond *c)
{
	long K = (long)(k % 12);

	switch (k % 7) {
	case 0:
		snprintf(c->text, COND_MAX, "r->next->id == %ld", K);
		break;
	case 1:
		snprintf(c->text, COND_MAX, "r->next->values[%zu] != %ld", k % 4, K * 10);
		break;
	case 2:
		snprintf(c->text, COND_MAX, "r->next->pos.y < %ld && r->id > %ld", K - 3, K);
		break;
	case 3: /* reads through NULL on the left; || evaluates the right only if false */
		if (k % 2)
			snprintf(c->text, COND_MAX, "r->values[1] >= %ld || r->next->next->id == %ld",
				 K * 2, K);
		else
			snprintf(c->text, COND_MAX, "r->next->next->id == %ld || r->values[1] >= %ld",
				 K, K * 2);
		break;
	case 4:
		snprintf(c->text, COND_MAX, "r->pos.x == %ld", K - 1);
		break;
	case 5:
		snprintf(c->text, COND_MAX, "r->next->grid[1][%zu] > %ld", k % 3, K / 2);
		break;
	default:
		snprintf(c->text, COND_MAX, "r->next->in.s == %ld", K % 5);
		break;
	}
	c->has_else = k % 3 == 0;
}

static void script_of(const struct cond *v, struct e2e_buf *b)
{
	e2e_buf_printf(b, "trace take_record {\n");
	for (size_t k = 0; k < NCOND; k++) {
		e2e_buf_printf(b, "  if (%s) { print \"T%zu {}\", r->next->id; }", v[k].text, k);
		if (v[k].has_else)
			e2e_buf_printf(b, " else { print \"F%zu\"; }", k);
		e2e_buf_printf(b, "\n");
	}
	e2e_buf_printf(b, "}\n");
}

/* gdb stops where gstrace probed and prints the value the T lines show. */
static const char *const gdb_stop[] = {
	"break take_record", "continue", "echo @@C -1\\n", "print r->next->id",
};

/* One `-ex cmd` more on gdb's command line; the new count. */
static size_t add_ex(char **argv, size_t n, const char *cmd)
{
	argv[n++] = "-ex";
	argv[n++] = (char *)cmd;
	return n;
}

/* gdb at take_record: each condition's value (1, 0, or an error: no `$n =`
 * line between its markers), and r->next->id into id. */
static bool gdb_truths(struct e2e_ctx *c, pid_t pid, struct cond *v, char *id, size_t idsize)
{
	char **argv = calloc(NCOND * 4 + 64, sizeof(*argv)), pidbuf[16];
	char (*cmds)[COND_MAX + 32] = calloc(NCOND * 2, sizeof(*cmds));
	size_t n, nc = 0;
	long cur = -2; /* -1: r->next->id */
	struct e2e_run run;
	bool ok = false;

	if (!argv || !cmds)
		goto out;
	n = e2e_gdb_print_argv(argv, pid, pidbuf, sizeof(pidbuf));
	for (size_t i = 0; i < BASE_ARRAY_SIZE(gdb_stop); i++)
		n = add_ex(argv, n, gdb_stop[i]);
	for (size_t k = 0; k < NCOND; k++, nc += 2) {
		snprintf(cmds[nc], sizeof(cmds[0]), "echo @@C %zu\\n", k);
		snprintf(cmds[nc + 1], sizeof(cmds[0]), "print (%s)", v[k].text);
		n = add_ex(argv, n, cmds[nc]);
		n = add_ex(argv, n, cmds[nc + 1]);
	}
	n = add_ex(argv, n, "echo @@C 999999\\n");
	n = add_ex(argv, n, "detach");
	argv[n] = NULL;
	if (e2e_run_start(&run, argv)) {
		e2e_expect(c, false, "cannot start gdb");
		goto out;
	}
	e2e_run_finish(&run, 120000);
	for (const char *line = e2e_buf_str(&run.out); *line;) {
		size_t len = strcspn(line, "\n");
		const char *eq;

		if (!strncmp(line, "@@C ", 4)) {
			/* the previous condition printed no value: gdb's error */
			if (cur >= 0 && cur < NCOND && v[cur].gdb == T_UNKNOWN)
				v[cur].gdb = T_ERROR;
			cur = strtol(line + 4, NULL, 10);
		} else if (line[0] == '$' && (eq = strstr(line, " = ")) && eq < line + len) {
			if (cur == -1)
				snprintf(id, idsize, "%.*s", (int)(line + len - eq - 3), eq + 3);
			else if (cur >= 0 && cur < NCOND)
				v[cur].gdb = eq[3] == '0' ? T_FALSE : T_TRUE;
		}
		line += len + (line[len] == '\n');
	}
	ok = strstr(e2e_buf_str(&run.out), "Breakpoint 1, ") && cur == 999999 && id[0];
	e2e_expect(c, ok, "gdb did not stop at take_record and evaluate (exit %d):\n%.3000s\n%.3000s",
		   e2e_run_exit_code(&run), e2e_buf_str(&run.out), e2e_buf_str(&run.err));
	e2e_run_free(&run);
out:
	free(argv);
	free(cmds);
	return ok;
}

/* The lines C says the event holds, in order. */
static void expected_lines(const struct cond *v, const char *id, struct e2e_buf *b,
			   unsigned *counts)
{
	for (size_t k = 0; k < NCOND; k++) {
		counts[v[k].gdb]++;
		if (v[k].gdb == T_TRUE)
			e2e_buf_printf(b, "T%zu %s\n", k, id);
		else if (v[k].gdb == T_FALSE && v[k].has_else)
			e2e_buf_printf(b, "F%zu\n", k);
		else if (v[k].gdb == T_ERROR)
			e2e_buf_printf(b, "ExprError: %s (\n", v[k].text);
	}
}

/* The first event's lines without their indent; an ExprError line cut
 * after its " (" (the reason's wording is docs/cli.md's, not gdb's). */
static void event_lines(const struct e2e_output *o, struct e2e_buf *b)
{
	const char *t = o->nevents ? e2e_buf_str(&o->events[0].text) : "";

	for (const char *line = t; *line;) {
		size_t len = strcspn(line, "\n");
		const char *cut;

		if (!strncmp(line, "  ", 2)) {
			if (!strncmp(line + 2, "ExprError: ", 11) && (cut = strstr(line, " (")) &&
			    cut < line + len)
				len = (size_t)(cut + 2 - line);
			e2e_buf_printf(b, "%.*s\n", (int)len - 2, line + 2);
		}
		line += len;
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
}

static void s_conditions(struct e2e_ctx *c)
{
	struct cond *v = calloc(NCOND, sizeof(*v));
	struct e2e_buf script = { 0 }, want = { 0 }, got = { 0 };
	struct e2e_trace t = { .max_events = 1, .duration = 60 };
	struct e2e_fixture f;
	struct e2e_run run;
	struct e2e_output out = { 0 };
	char id[LINE_MAX_] = "";
	unsigned counts[4] = { 0 };
	int lock;

	if (!v)
		return;
	for (size_t k = 0; k < NCOND; k++)
		condition(k, &v[k]);
	script_of(v, &script);
	if (!e2e_fixture_start(&f, FIXTURE)) {
		e2e_expect(c, false, "fixture %s did not start", FIXTURE);
		goto out;
	}
	t.pid = f.pid;
	t.script = e2e_buf_str(&script);
	lock = e2e_lock(FIXTURE, false);
	e2e_trace_run(c, &t, &run, &out);
	e2e_unlock(lock);
	e2e_expect(c, e2e_run_exit_code(&run) == 0, "gstrace exited %d: %s",
		   e2e_run_exit_code(&run), e2e_buf_str(&run.err));
	e2e_run_free(&run);
	lock = e2e_lock(FIXTURE, true);
	if (gdb_truths(c, f.pid, v, id, sizeof(id))) {
		expected_lines(v, id, &want, counts);
		event_lines(&out, &got);
		e2e_note(c, "gdb: %u conditions true, %u false, %u errors\n", counts[T_TRUE],
			 counts[T_FALSE], counts[T_ERROR]);
		e2e_expect(c, counts[T_TRUE] && counts[T_FALSE] && counts[T_ERROR] &&
			   !counts[T_UNKNOWN], "the script does not cover true, false and errors");
		e2e_expect(c, strcmp(e2e_buf_str(&want), e2e_buf_str(&got)) == 0,
			   "the event is not what gdb's conditions say:\n--- expected ---\n%s"
			   "--- gstrace ---\n%s", e2e_buf_str(&want), e2e_buf_str(&got));
	}
	e2e_unlock(lock);
	e2e_fixture_stop(&f);
out:
	e2e_output_free(&out);
	e2e_buf_free(&script);
	e2e_buf_free(&want);
	e2e_buf_free(&got);
	free(v);
}

const struct e2e_scenario e2e_conditions_scenarios[] = {
	{ "conditions-200", s_conditions, E2E_NEED_TRACING | E2E_NEED_GDB },
};
const size_t e2e_conditions_nscenarios = BASE_ARRAY_SIZE(e2e_conditions_scenarios);
