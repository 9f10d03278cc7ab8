/* A function traced by name in several copies (its inline instances, or
 * same-named statics of several files) where some copies lack a name the
 * script reads: GhostScope traces what it can, and so do we. Those copies
 * read the name as an unavailable variable of the type another copy gives
 * it (it prints <optimized out>), and the trace carries one notice naming
 * them; only a name no copy has is an error. */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/dwarf.h>
#include <gs/modfile.h>
#include <gs/runtime.h>

#include <gs/internal/dwarf.h>
#include "base.h"
#include "rt_int.h"

int rt_copies_add(struct rt_copies *cs, size_t probe, struct gs_expr *node,
		  const struct gs_error *why)
{
	char *msg;

	if (base_grow((void **)&cs->v, &cs->cap, cs->n + 1, sizeof(*cs->v)) ||
	    !(msg = strdup(why->msg)))
		return -ENOMEM;
	cs->v[cs->n++] = (struct rt_missing){ .probe = probe, .node = node, .code = why->code,
					      .why = msg };
	return 0;
}

void rt_copies_free(struct rt_copies *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->v[i].why);
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

/* The variable another copy has under `name`, for its type. */
static const struct gs_var *known_elsewhere(struct gs_dwarf *d,
					    const struct gs_dwarf_scope *const *scopes,
					    size_t nprobes, const char *name)
{
	const struct gs_var *var;
	struct gs_error ignored;

	for (size_t i = 0; i < nprobes; i++)
		if (scopes[i] && gs_dwarf_lookup(d, scopes[i], name, &var, &ignored) == 0)
			return var;
	return NULL;
}

/* "inlined in main at prog.c:40, 0x1150" or "`f` at other.c:12, 0x1230". */
static void describe_copy(FILE *f, const struct gs_plan_trace *t, const struct gs_location *l,
			  struct gs_modfile *file)
{
	const char *src = NULL, *base;
	int line = 0;

	if (l->inlined)
		fprintf(f, "inlined in %s", l->function ? l->function : "its caller");
	else
		fprintf(f, "`%s`", l->function ? l->function : t->pattern.text);
	if (dwv_modfile_line_of(file, l->addr, &src, &line) && src) {
		base = strrchr(src, '/');
		fprintf(f, " at %s:%d", base ? base + 1 : src, line);
	}
	fprintf(f, ", 0x%" PRIx64, l->addr);
}

/* Whether copy `probe` lacks `name`. */
static bool lacks(const struct rt_copies *cs, size_t probe, const char *name)
{
	for (size_t k = 0; k < cs->n; k++)
		if (cs->v[k].probe == probe && strcmp(cs->v[k].node->name, name) == 0)
			return true;
	return false;
}

/* Two names lacking in the same copies share a clause. */
static bool same_copies(const struct rt_copies *cs, size_t nprobes, const char *x, const char *y)
{
	for (size_t p = 0; p < nprobes; p++)
		if (lacks(cs, p, x) != lacks(cs, p, y))
			return false;
	return true;
}

/* The first record of its name (each name once), and of its set of copies
 * (each set once). */
static bool first_of(const struct rt_copies *cs, size_t i, size_t nprobes, bool by_set)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(cs->v[k].node->name, cs->v[i].node->name) == 0 ||
		    (by_set && same_copies(cs, nprobes, cs->v[k].node->name, cs->v[i].node->name)))
			return false;
	return true;
}

/* One clause per set of copies: "'a' and 'b' are not visible in 1 of 3
 * copies (inlined in main at prog.c:40, 0x1150)". */
static int write_note(struct rt_copies *cs, const struct gs_plan_trace *t,
		      struct gs_modfile *file, char **out)
{
	char *text = NULL;
	size_t len = 0, n = t->nprobes;
	FILE *f = open_memstream(&text, &len);
	bool first_clause = true;

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < cs->n; i++) {
		const char *name = cs->v[i].node->name;
		size_t lacking = 0, names = 0, shown = 0;

		if (!first_of(cs, i, n, true))
			continue;
		for (size_t k = i; k < cs->n; k++)
			names += first_of(cs, k, n, false) &&
				 same_copies(cs, n, name, cs->v[k].node->name);
		fputs(first_clause ? "" : "; ", f);
		for (size_t k = i; k < cs->n; k++)
			if (first_of(cs, k, n, false) && same_copies(cs, n, name, cs->v[k].node->name))
				fprintf(f, "%s'%s'", shown++ == 0 ? "" : shown == names ? " and " : ", ",
					cs->v[k].node->name);
		for (size_t p = 0; p < n; p++)
			lacking += lacks(cs, p, name);
		fprintf(f, " %s not visible in %zu of %zu copies (", names > 1 ? "are" : "is",
			lacking, n);
		shown = 0;
		for (size_t p = 0; p < n; p++)
			if (lacks(cs, p, name)) {
				fputs(shown++ ? "; " : "", f);
				describe_copy(f, t, t->probes[p].loc, file);
			}
		fputc(')', f);
		first_clause = false;
	}
	fputs("; they print <optimized out>", f);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	*out = text;
	return 0;
}

int rt_copies_finish(struct rt_copies *cs, struct gs_plan_trace *t, struct gs_dwarf *d,
		     struct gs_modfile *file, const struct gs_dwarf_scope *const *scopes,
		     void *(*alloc)(void *arg, size_t n), void *arg, const struct gs_expr **at,
		     struct gs_error *err)
{
	int rc;

	if (!cs->n)
		return 0;
	for (size_t i = 0; i < cs->n; i++) {
		struct rt_missing *ms = &cs->v[i];
		const struct gs_var *known = known_elsewhere(d, scopes, t->nprobes, ms->node->name);
		struct gs_var *var;

		if (!known) {
			/* in no copy: the error today's single copy gives */
			*at = ms->node;
			return gs_errorf(err, ms->code ? ms->code : -ENOENT, "%s", ms->why);
		}
		var = alloc(arg, sizeof(*var));
		if (!var)
			return gs_errorf(err, -ENOMEM, "out of memory resolving the names of trace "
					 "`%s`", t->pattern.text);
		*var = (struct gs_var){ .name = known->name, .type = known->type,
					.scope = known->scope, .depth = known->depth,
					.decl_file = known->decl_file, .decl_line = known->decl_line };
		var->loc.why = GS_LOC_WHY_NO_LOCATION;
		var->loc.cookie = known->loc.cookie;
		ms->node->dvar = var;
	}
	free(t->names_note);
	t->names_note = NULL;
	rc = write_note(cs, t, file, &t->names_note);
	return rc ? gs_errorf(err, rc, "out of memory describing trace `%s`", t->pattern.text) : 0;
}
