/* An aggregation table as one Prometheus family (gs_prom_agg): its type by
 * the aggregation's function, a series per key (labels named by the
 * caller, valued with the text the table printer shows), a histogram's
 * buckets with the table's own bounds, and nanoseconds written as
 * seconds. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gs/prom.h>

#include "base.h"
#include "ev_int.h"
#include "opts.h"

#define DEFAULT_PREFIX "gstrace_"

/* The family type of each aggregation function. */
static const uint8_t family_type[] = {
	[GS_AGG_COUNT] = GS_PROM_COUNTER, [GS_AGG_SUM] = GS_PROM_COUNTER,
	[GS_AGG_MIN] = GS_PROM_GAUGE,     [GS_AGG_MAX] = GS_PROM_GAUGE,
	[GS_AGG_AVG] = GS_PROM_GAUGE,     [GS_AGG_STATS] = GS_PROM_SUMMARY,
	[GS_AGG_HIST] = GS_PROM_HISTOGRAM, [GS_AGG_LHIST] = GS_PROM_HISTOGRAM,
};

/* One table's family as it is being written. */
struct agg_family {
	struct gs_prom *w;
	bool om;                      /* OpenMetrics: what it cannot hold is left out */
	const struct gs_prom_agg_opts *o;
	const struct gs_agg_desc *d;
	enum gs_prom_type type;
	bool seconds;
	/* the labels of a series: the caller's, then the keys' */
	struct gs_prom_label *labels;
	char key_names[GS_AGG_MAX_KEYS][32];
	char key_text[GS_AGG_MAX_KEYS][EV_AGG_KEY_TEXT_MAX];
	/* a histogram's buckets written: [first, last], none when first > last */
	uint32_t first, last;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* prefix + the table's name (without `@`, anything but [a-zA-Z0-9_] made
 * `_`) + `_<id>` when with_id; a counter's without a final _total (its
 * samples add one), then _seconds when in seconds. malloc'd, or NULL. */
static char *family_name(const struct agg_family *a, const char *prefix, bool with_id)
{
	const char *map = a->d->name ? a->d->name : "";
	size_t n = strlen(prefix) + strlen(map) + 32;
	char *s = malloc(n), *p;

	if (!s)
		return NULL;
	map += *map == '@';
	p = s + snprintf(s, n, "%s", prefix);
	for (; *map; map++)
		*p++ = (*map >= 'a' && *map <= 'z') || (*map >= 'A' && *map <= 'Z') ||
		       (*map >= '0' && *map <= '9') ? *map : '_';
	*p = '\0';
	if (with_id)
		snprintf(p, n - (size_t)(p - s), "_%" PRIu32, a->d->id);
	if (a->type == GS_PROM_COUNTER && ends_with(s, "_total") && strlen(s) > strlen(prefix) + 6)
		s[strlen(s) - 6] = '\0';
	if (a->seconds && !ends_with(s, "_seconds"))
		snprintf(s + strlen(s), n - strlen(s), "_seconds");
	return s;
}

static bool label_taken(const struct agg_family *a, size_t nlabels, const char *name)
{
	for (size_t i = 0; i < nlabels; i++)
		if (strcmp(a->labels[i].name, name) == 0)
			return true;
	return false;
}

/* The caller's labels, checked, then each key's name: the caller's where
 * it may be one, else k<i> (k<i>_ ... when that is taken). */
static int name_labels(struct agg_family *a, struct gs_error *err)
{
	const struct gs_prom_agg_opts *o = a->o;
	size_t n = o->nlabels;

	for (size_t i = 0; i < n; i++) {
		const char *name = o->labels[i].name;

		if (!gs_prom_label_name_ok(name) || !strcmp(name, "le") ||
		    !strcmp(name, "quantile") || label_taken(a, i, name) || !o->labels[i].value)
			return gs_errorf(err, -EINVAL, "label %zu ('%s') of the series of %s is no "
					 "label name a series can have (it must match "
					 "[a-zA-Z_][a-zA-Z0-9_]*, not start with \"__\", not be le "
					 "or quantile, appear once, and have a value)", i,
					 name ? name : "(null)", a->d->name);
		a->labels[i] = o->labels[i];
	}
	for (unsigned k = 0; k < a->d->nkeys; k++) {
		const char *want = o->key_labels ? o->key_labels[k] : NULL;
		char *name = a->key_names[k];

		if (want && strlen(want) < sizeof(a->key_names[k]) && gs_prom_label_name_ok(want) &&
		    strcmp(want, "le") && strcmp(want, "quantile") && !label_taken(a, n + k, want)) {
			strcpy(name, want);
		} else {
			snprintf(name, sizeof(a->key_names[k]), "k%u", k);
			while (label_taken(a, n + k, name) && strlen(name) + 1 < sizeof(a->key_names[k]))
				strcat(name, "_");
		}
		a->labels[n + k] = (struct gs_prom_label){ name, a->key_text[k] };
	}
	return 0;
}

/* A value of the table: nanoseconds as seconds, exactly, when the family
 * is in seconds. */
static struct gs_prom_num value(const struct agg_family *a, int64_t v)
{
	return a->seconds ? GS_PROM_SCALED(v, -9) : GS_PROM_INT(v);
}

/* The buckets every series of a histogram family writes (one set, so
 * that `sum by (le)` adds alike, whichever series a cap leaves out): from
 * the bucket below the lowest one any entry hit (an empty one: where the
 * first hit bucket starts), up to the highest one hit that has a bound
 * (lhist's last has none: +Inf holds it). A bound below zero only where a
 * value was: OpenMetrics has no _sum with one. */
static void bucket_range(struct agg_family *a, const struct gs_agg_table *t)
{
	uint32_t nb = gs_agg_nbuckets(a->d), lo = UINT32_MAX, hi = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct gs_agg_entry *e = &t->entries[i];

		for (uint32_t b = 0; b < e->nbuckets && b < nb; b++) {
			if (!e->buckets[b])
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	}
	a->first = 1;
	a->last = 0;
	if (lo == UINT32_MAX)
		return;
	if (lo > 0 && ev_agg_bucket(a->d, lo - 1, nb).last >= 0)
		lo--;
	if (!ev_agg_bucket(a->d, hi, nb).has_last)
		hi--;
	a->first = lo;
	a->last = hi;
}

/* Whether e's _sum (and a histogram's _count) is written: OpenMetrics
 * has a sum as a counter, never below zero nor beside a bound below zero,
 * and its parsers want a histogram's _count and _sum both or neither. */
static bool has_sum(const struct agg_family *a, const struct gs_agg_entry *e)
{
	uint32_t nb = gs_agg_nbuckets(a->d);

	if (!a->om)
		return true;
	if (e->value.sum < 0)
		return false;
	return a->type != GS_PROM_HISTOGRAM || a->first > a->last ||
	       ev_agg_bucket(a->d, a->first, nb).last >= 0;
}

/* The series (samples) e writes: a bound, +Inf, _sum and _count for a
 * histogram; _sum and _count for a summary; one value else. */
static size_t series_of(const struct agg_family *a, const struct gs_agg_entry *e)
{
	size_t bounds = a->first <= a->last ? a->last - a->first + 1 : 0;

	switch (a->type) {
	case GS_PROM_HISTOGRAM:
		return bounds + 1 + (has_sum(a, e) ? 2 : 0);
	case GS_PROM_SUMMARY:
		return 1 + has_sum(a, e);
	default:
		return 1;
	}
}

static int put_histogram(struct agg_family *a, const struct gs_agg_entry *e, size_t nlabels,
			 struct gs_error *err)
{
	uint32_t nb = gs_agg_nbuckets(a->d);
	uint64_t below = 0, total = ev_agg_total(e);
	int rc = 0;

	for (uint32_t b = 0; b < a->first && b < e->nbuckets; b++)
		below += e->buckets[b];
	for (uint32_t b = a->first; !rc && b <= a->last && a->first <= a->last; b++) {
		below += b < e->nbuckets ? e->buckets[b] : 0;
		rc = gs_prom_bucket(a->w, a->labels, nlabels,
				    value(a, ev_agg_bucket(a->d, b, nb).last), below, err);
	}
	if (!rc)
		rc = gs_prom_bucket(a->w, a->labels, nlabels, GS_PROM_FLOAT(INFINITY), total, err);
	if (!rc && has_sum(a, e))
		rc = gs_prom_sample(a->w, GS_PROM_SUM, a->labels, nlabels, value(a, e->value.sum),
				    err);
	if (!rc && has_sum(a, e))
		rc = gs_prom_sample(a->w, GS_PROM_COUNT, a->labels, nlabels, GS_PROM_INT(total),
				    err);
	return rc;
}

static int put_series(struct agg_family *a, const struct gs_agg_entry *e, struct gs_error *err)
{
	size_t nlabels = a->o->nlabels + a->d->nkeys;
	int rc = 0;

	for (unsigned k = 0; k < a->d->nkeys; k++) {
		struct ev_out o = { a->key_text[k], sizeof(a->key_text[k]), 0, false };

		ev_put_agg_key(&o, a->d, e->keys, k, false);
		ev_done(&o);
	}
	switch (a->type) {
	case GS_PROM_HISTOGRAM:
		return put_histogram(a, e, nlabels, err);
	case GS_PROM_SUMMARY:
		if (has_sum(a, e))
			rc = gs_prom_sample(a->w, GS_PROM_SUM, a->labels, nlabels,
					    value(a, e->value.sum), err);
		return rc ? rc : gs_prom_sample(a->w, GS_PROM_COUNT, a->labels, nlabels,
						GS_PROM_INT(e->value.count), err);
	default:
		return gs_prom_sample(a->w, GS_PROM_VALUE, a->labels, nlabels,
				      value(a, ev_agg_scalar(a->d, e)), err);
	}
}

/* Begins the family: its name, or with the table's id when that name is
 * taken (written, reserved, or clashing with one that is). */
static int begin(struct agg_family *a, struct gs_error *err)
{
	const struct gs_prom_agg_opts *o = a->o;
	const char *prefix = o->prefix ? o->prefix : DEFAULT_PREFIX;
	char help[160];
	int rc = -EEXIST;

	if (!o->help)
		snprintf(help, sizeof(help), "%s: %s()%s", a->d->name ? a->d->name : "",
			 gs_agg_fn_name(a->d->fn), a->seconds ? ", in seconds" : "");
	for (int with_id = 0; rc == -EEXIST && with_id < 2; with_id++) {
		char *name = family_name(a, prefix, with_id);

		if (!name)
			return gs_errorf(err, -ENOMEM, "out of memory for the family of %s",
					 a->d->name);
		if (!with_id && !ev_prom_name_free(a->w, name, a->type)) {
			free(name);
			continue;
		}
		rc = gs_prom_family(a->w, name, a->type, a->seconds ? "seconds" : NULL,
				    o->help ? o->help : help, err);
		free(name);
	}
	return rc;
}

static int check_prefix(const char *prefix, struct gs_error *err)
{
	bool ok = prefix && ((prefix[0] >= 'a' && prefix[0] <= 'z') ||
			     (prefix[0] >= 'A' && prefix[0] <= 'Z'));

	for (size_t i = 1; ok && prefix[i]; i++)
		ok = (prefix[i] >= 'a' && prefix[i] <= 'z') || (prefix[i] >= 'A' && prefix[i] <= 'Z') ||
		     (prefix[i] >= '0' && prefix[i] <= '9') || prefix[i] == '_';
	if (ok)
		return 0;
	return gs_errorf(err, -EINVAL, "Prometheus name prefix '%s' must match "
			 "[a-zA-Z][a-zA-Z0-9_]*", prefix ? prefix : "(null)");
}

int gs_prom_agg(struct gs_prom *w, const struct gs_agg_table *t,
		const struct gs_prom_agg_opts *opts, size_t *written, size_t *left_out,
		struct gs_error *err)
{
	struct gs_prom_agg_opts o;
	struct agg_family a = { .w = w, .om = ev_prom_openmetrics(w), .o = &o, .d = t->desc };
	const struct gs_agg_entry **v = NULL, **chosen = NULL;
	size_t n = 0, used = 0, out = 0;
	int rc = OPTS_COPY(&o, opts, gs_prom_agg_opts, err);

	if (!rc && o.prefix)
		rc = check_prefix(o.prefix, err);
	if (!rc && (t->desc->fn >= BASE_ARRAY_SIZE(family_type) || t->desc->nkeys > GS_AGG_MAX_KEYS))
		rc = gs_errorf(err, -EINVAL, "aggregation %s has function %u and %u keys: not one "
			       "gstrace writes", t->desc->name, t->desc->fn, t->desc->nkeys);
	if (rc)
		return rc;
	a.type = family_type[t->desc->fn];
	a.seconds = o.seconds && t->desc->fn != GS_AGG_COUNT;
	a.labels = calloc(o.nlabels + t->desc->nkeys + 1, sizeof(*a.labels));
	v = ev_agg_sorted(t);
	chosen = calloc(t->n + 1, sizeof(*chosen));
	if (!a.labels || !v || !chosen)
		rc = gs_errorf(err, -ENOMEM, "out of memory for the series of %s", t->desc->name);
	if (!rc)
		rc = name_labels(&a, err);
	if (!rc && a.type == GS_PROM_HISTOGRAM)
		bucket_range(&a, t);
	/* the greatest values first: those a cap keeps, each key whole */
	for (size_t i = t->n; !rc && i-- > 0;) {
		size_t cost = series_of(&a, v[i]);

		if (a.type == GS_PROM_COUNTER && ev_agg_scalar(t->desc, v[i]) < 0) {
			out += cost; /* no counter goes below zero */
		} else if (o.max_series && used + cost > o.max_series) {
			out += cost;
		} else {
			chosen[n++] = v[i];
			used += cost;
		}
	}
	if (!rc)
		rc = begin(&a, err);
	for (size_t i = 0; !rc && i < n; i++)
		rc = put_series(&a, chosen[i], err);
	if (written)
		*written = rc ? 0 : used;
	if (left_out)
		*left_out = rc ? used + out : out;
	free(chosen);
	free((void *)v);
	free(a.labels);
	return rc;
}
