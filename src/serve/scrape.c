/* One scrape's families of the script's aggregations: the --serve-label
 * labels every series carries, what the script says about each @map
 * (its keys' label names, whether it holds nanoseconds, which traces
 * write it: read once from the script's statements with the spec layer's
 * visitor), and each table written through the events layer's
 * gs_prom_agg within the scrape's budget of series. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/spec.h>

#include "serve_int.h"

/* Traces a HELP text names before "and N more". */
#define HELP_TRACES 8

bool srv_label_name_ok(const char *name)
{
	/* a histogram's, a summary's, the health metrics', a scrape's */
	static const char *const own[] = { "le", "quantile", "trace", "target", "version",
					   "instance", "job" };

	if (!gs_prom_label_name_ok(name))
		return false;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i]))
			return false;
	return true;
}

int srv_labels_parse(const char *const *text, size_t n, struct srv_labels *out,
		     struct gs_error *err)
{
	memset(out, 0, sizeof(*out));
	if (n > SRV_MAX_LABELS)
		return gs_errorf(err, -EINVAL, "--serve-label is given %zu times: at most %d "
				 "labels", n, SRV_MAX_LABELS);
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(text[i], '=');
		char *name = out->names[i];
		size_t len = eq ? (size_t)(eq - text[i]) : 0;

		if (!eq || len >= sizeof(out->names[i]))
			return gs_errorf(err, -EINVAL, "--serve-label %s: write NAME=VALUE, the "
					 "name shorter than %zu characters", text[i],
					 sizeof(out->names[i]));
		memcpy(name, text[i], len);
		name[len] = '\0';
		if (!srv_label_name_ok(name))
			return gs_errorf(err, -EINVAL, "--serve-label %s: '%s' cannot name a label: "
					 "give " SRV_LABEL_RULE, text[i], name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(out->names[j], name))
				return gs_errorf(err, -EINVAL, "--serve-label %s: label '%s' is "
						 "given twice: give each name once", text[i], name);
		out->v[i] = (struct gs_prom_label){ name, eq + 1 };
	}
	out->n = n;
	return 0;
}

/* ---- what the script says about its maps ---------------------------------- */

/* One @map as the walk finds it. */
struct map_walk {
	struct srv_map m;
	const struct gs_stmt *first;  /* the first statement that writes it */
	const struct gs_script_trace *first_trace;
	bool keys_differ[GS_AGG_MAX_KEYS];
	size_t *traces;               /* indices into the script's traces */
	size_t ntraces;
};

struct walk {
	struct gs_visitor v;
	const struct gs_script *s;
	size_t trace;                 /* the trace being walked */
	struct map_walk *maps;
	size_t n, cap;
	int rc;
};

/* The label name a key expression gives: a special's name without its
 * `$`, a DWARF variable's, a let's; NULL for anything else. */
static const char *key_name(const struct gs_script_trace *t, const struct gs_expr *e)
{
	switch (e->kind) {
	case GS_EXPR_SPECIAL:
		return e->text && e->text[0] == '$' ? e->text + 1 : NULL;
	case GS_EXPR_NAME:
		return e->name;
	case GS_EXPR_VAR:
		return t->var_names && e->var < t->nvars ? t->var_names[e->var] : NULL;
	default:
		return NULL;
	}
}

static bool is_duration(const struct gs_expr *e)
{
	return e && e->kind == GS_EXPR_SPECIAL && e->special == GS_SPECIAL_DURATION;
}

static struct map_walk *find_or_add(struct walk *w, const struct gs_stmt *st)
{
	struct map_walk *m;

	for (size_t i = 0; i < w->n; i++)
		if (w->maps[i].m.id == st->agg->id)
			return &w->maps[i];
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct map_walk *v = realloc(w->maps, cap * sizeof(*v));

		if (!v)
			return NULL;
		w->maps = v;
		w->cap = cap;
	}
	m = &w->maps[w->n++];
	memset(m, 0, sizeof(*m));
	m->m.id = st->agg->id;
	m->m.seconds = true;
	m->first = st;
	m->first_trace = &w->s->traces[w->trace];
	return m;
}

/* A statement writing a map: its keys' names (kept where every statement
 * agrees), whether its value is $duration, and its trace. */
static enum gs_visit on_stmt(struct gs_visitor *v, const struct gs_stmt *st)
{
	struct walk *w = (struct walk *)v;
	const struct gs_script_trace *t = &w->s->traces[w->trace];
	struct map_walk *m;
	size_t *traces;

	if (st->kind != GS_STMT_AGGREGATE || !st->agg)
		return GS_VISIT_CONTINUE;
	m = find_or_add(w, st);
	if (!m) {
		w->rc = -ENOMEM;
		return GS_VISIT_STOP;
	}
	for (size_t k = 0; k < st->nargs && k < GS_AGG_MAX_KEYS; k++) {
		const char *name = key_name(t, st->args[k]);

		if (m->first == st)
			m->m.keys[k] = name;
		else if (!name || !m->m.keys[k] || strcmp(name, m->m.keys[k]))
			m->keys_differ[k] = true;
	}
	m->m.seconds &= is_duration(st->expr);
	if (m->ntraces && m->traces[m->ntraces - 1] == w->trace)
		return GS_VISIT_CONTINUE;
	traces = realloc(m->traces, (m->ntraces + 1) * sizeof(*traces));
	if (!traces) {
		w->rc = -ENOMEM;
		return GS_VISIT_STOP;
	}
	m->traces = traces;
	m->traces[m->ntraces++] = w->trace;
	return GS_VISIT_CONTINUE;
}

static void put_trace(FILE *f, const struct gs_script_trace *t)
{
	fputs(t->target.text ? t->target.text : "?", f);
	if (t->retprobe)
		fputs(" return", f);
}

/* `@lat[$pid, comm] = hist($duration), in seconds; written by trace main
 * return` (by traces a, b: merged in BPF when several). */
static char *help_text(const struct gs_script *s, const struct map_walk *m)
{
	const struct gs_stmt *st = m->first;
	const struct gs_agg_stmt *a = st->agg;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fputs(a->name ? a->name : "@?", f);
	for (size_t k = 0; k < st->nargs; k++)
		fprintf(f, "%s%s", k ? ", " : "[", st->args[k]->text ? st->args[k]->text : "?");
	fprintf(f, "%s = %s(%s", st->nargs ? "]" : "", gs_agg_fn_name(a->fn),
		st->expr && st->expr->text ? st->expr->text : "");
	if (a->fn == GS_AGG_LHIST)
		fprintf(f, ", %" PRId64 ", %" PRId64 ", %" PRId64, a->lmin, a->lmax, a->lstep);
	fputs(m->m.seconds && a->fn != GS_AGG_COUNT ? "), in seconds; " : "); ", f);
	fprintf(f, "written by trace%s ", m->ntraces > 1 ? "s" : "");
	for (size_t i = 0; i < m->ntraces && i < HELP_TRACES; i++) {
		fputs(i ? ", " : "", f);
		put_trace(f, &s->traces[m->traces[i]]);
	}
	if (m->ntraces > HELP_TRACES)
		fprintf(f, " and %zu more", m->ntraces - HELP_TRACES);
	if (m->ntraces > 1)
		fputs(" (one map: their values merged)", f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int srv_maps_from_script(const struct gs_script *s, struct srv_maps *out, struct gs_error *err)
{
	struct walk w = { .v = { .stmt = on_stmt }, .s = s };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; s && i < s->ntraces && !w.rc; i++) {
		w.trace = i;
		gs_visit_stmts(&w.v, s->traces[i].body, s->traces[i].nbody);
	}
	rc = w.rc;
	out->v = w.n ? calloc(w.n, sizeof(*out->v)) : NULL;
	if (w.n && !out->v)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < w.n; i++) {
		out->v[i] = w.maps[i].m;
		for (size_t k = 0; k < GS_AGG_MAX_KEYS; k++)
			if (w.maps[i].keys_differ[k])
				out->v[i].keys[k] = NULL;
		out->v[i].help = help_text(s, &w.maps[i]);
		out->n = i + 1;
		if (!out->v[i].help)
			rc = -ENOMEM;
	}
	for (size_t i = 0; i < w.n; i++)
		free(w.maps[i].traces);
	free(w.maps);
	if (rc) {
		srv_maps_free(out);
		return gs_errorf(err, rc, "out of memory for the metrics of the script's maps");
	}
	return 0;
}

void srv_maps_free(struct srv_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].help);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

const struct srv_map *srv_maps_find(const struct srv_maps *m, uint32_t id)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].id == id)
			return &m->v[i];
	return NULL;
}

/* ---- a scrape's tables ----------------------------------------------------- */

int srv_scrape_table(void *arg, const struct gs_agg_table *t)
{
	struct srv_scrape *sc = arg;
	const struct srv_map *m = srv_maps_find(sc->maps, t->desc->id);
	GS_OPTS(gs_prom_agg_opts, o, .key_labels = m ? m->keys : NULL,
		.seconds = m && m->seconds, .labels = sc->labels->v, .nlabels = sc->labels->n,
		.help = m ? m->help : NULL, .max_series = sc->budget);
	size_t written = 0, left_out = 0;
	int rc;

	if (!sc->budget) { /* 0 would be no cap: the budget is spent */
		sc->left_out += t->n;
		return 0;
	}
	rc = gs_prom_agg(sc->w, t, &o, &written, &left_out, sc->err);
	if (rc == -EEXIST) { /* a name taken even with the map's id: left out */
		sc->left_out += t->n;
		return 0;
	}
	sc->budget -= written;
	sc->left_out += left_out;
	return rc;
}
