/* What one entry of an aggregation table shows, in one place for every
 * renderer of the tables (aggs_print.c's text and JSON, prom_agg.c's
 * exposition): each key as text (a key comes from a target: anything
 * unprintable escaped), the value a table is sorted by, the order, and a
 * histogram's buckets: how many, and the values each holds. */
#include <stdlib.h>
#include <string.h>

#include <gs/aggs.h>
#include <gs/context.h>

#include "base.h"
#include "ev_int.h"

uint32_t gs_agg_nbuckets(const struct gs_agg_desc *d)
{
	if (d->fn == GS_AGG_HIST)
		return GS_AGG_HIST_BUCKETS;
	if (d->fn == GS_AGG_LHIST && d->lstep > 0 && d->lmax > d->lmin)
		return (uint32_t)((d->lmax - d->lmin) / d->lstep) + 2;
	return 0;
}

const char *gs_agg_fn_name(uint8_t fn)
{
	static const char *const names[] = {
		[GS_AGG_COUNT] = "count", [GS_AGG_SUM] = "sum", [GS_AGG_MIN] = "min",
		[GS_AGG_MAX] = "max", [GS_AGG_AVG] = "avg", [GS_AGG_STATS] = "stats",
		[GS_AGG_HIST] = "hist", [GS_AGG_LHIST] = "lhist",
	};

	return fn < BASE_ARRAY_SIZE(names) ? names[fn] : "?";
}

struct ev_agg_bucket ev_agg_bucket(const struct gs_agg_desc *d, uint32_t i, uint32_t nb)
{
	if (d->fn == GS_AGG_HIST) {
		/* negatives, 0, then [2^(i-2), 2^(i-1)): codegen's hist_bucket */
		if (i == 0)
			return (struct ev_agg_bucket){ .last = -1, .has_last = true };
		if (i == 1)
			return (struct ev_agg_bucket){ 0, 0, true, true };
		return (struct ev_agg_bucket){ (int64_t)((uint64_t)1 << (i - 2)),
					       (int64_t)(((uint64_t)1 << (i - 1)) - 1), true, true };
	}
	/* below min, then [min + (i-1) step, min + i step), then the rest:
	 * codegen's lhist_bucket puts there every value from min + n step on
	 * (n the buckets between), which is max when step divides max - min */
	if (i == 0)
		return (struct ev_agg_bucket){ .last = d->lmin - 1, .has_last = true };
	if (i + 1 >= nb)
		return (struct ev_agg_bucket){ .lo = d->lmin + (int64_t)(nb - 2) * d->lstep,
					       .has_lo = true };
	return (struct ev_agg_bucket){ d->lmin + (int64_t)(i - 1) * d->lstep,
				       d->lmin + (int64_t)i * d->lstep - 1, true, true };
}

int64_t ev_agg_average(const struct gs_agg_value *v)
{
	return v->count ? v->sum / v->count : 0;
}

int64_t ev_agg_scalar(const struct gs_agg_desc *d, const struct gs_agg_entry *e)
{
	switch (d->fn) {
	case GS_AGG_COUNT:
		return e->value.count;
	case GS_AGG_SUM:
		return e->value.sum;
	case GS_AGG_MIN:
		return e->value.min;
	case GS_AGG_MAX:
		return e->value.max;
	default: /* avg, stats */
		return ev_agg_average(&e->value);
	}
}

uint64_t ev_agg_total(const struct gs_agg_entry *e)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < e->nbuckets; i++)
		n += e->buckets[i];
	return n;
}

void ev_put_agg_string(struct ev_out *o, const uint8_t *s, bool json)
{
	for (size_t i = 0; i < GS_AGG_STRING_MAX && s[i]; i++) {
		if (json && (s[i] == '"' || s[i] == '\\')) {
			ev_put_char(o, '\\');
			ev_put_char(o, (char)s[i]);
		} else if (s[i] >= 0x20 && s[i] < 0x7f) {
			ev_put_char(o, (char)s[i]);
		} else {
			ev_put_str(o, json ? "\\u00" : "\\x");
			ev_put_hex(o, s[i], false, 2);
		}
	}
}

/* The name of enumerator v of key i's enum, or NULL (no enum, or no
 * enumerator has that value). */
static const char *enum_name(const struct gs_agg_desc *d, unsigned i, int64_t v)
{
	for (uint32_t e = 0; d->key_enum[i] && e < d->key_enum[i]->nenumerators; e++)
		if (d->key_enum[i]->enumerators[e].value == v)
			return d->key_enum[i]->enumerators[e].name;
	return NULL;
}

void ev_put_agg_key(struct ev_out *o, const struct gs_agg_desc *d, const uint8_t *keys,
		    unsigned i, bool json)
{
	const uint8_t *k = keys + d->key_off[i];
	const char *name;
	int64_t v;

	memcpy(&v, k, sizeof(v));
	name = enum_name(d, i, v);
	if (name || d->key_kind[i] == GS_AGG_KEY_STRING) {
		ev_put_str(o, json ? "\"" : "");
		ev_put_agg_string(o, name ? (const uint8_t *)name : k, json);
		ev_put_str(o, json ? "\"" : "");
		return;
	}
	switch (d->key_kind[i]) {
	case GS_AGG_KEY_UINT:
		ev_put_udec(o, (uint64_t)v);
		break;
	case GS_AGG_KEY_BOOL:
		ev_put_str(o, v ? "true" : "false");
		break;
	case GS_AGG_KEY_POINTER:
		ev_put_str(o, json ? "\"" : "");
		ev_put_0x(o, (uint64_t)v);
		ev_put_str(o, json ? "\"" : "");
		break;
	default:
		ev_put_sdec(o, v);
		break;
	}
}

/* An entry and the value it sorts by, computed once (a histogram's total
 * adds its buckets). */
struct sort_key {
	const struct gs_agg_entry *e;
	int64_t value;
	uint64_t total;
};

/* By value, then by key bytes, so equal values keep one order from a run
 * to the next. */
static int by_value(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return memcmp(x->e->keys, y->e->keys, sizeof(x->e->keys));
}

const struct gs_agg_entry **ev_agg_sorted(const struct gs_agg_table *t)
{
	const struct gs_agg_entry **v = calloc(t->n ? t->n : 1, sizeof(*v));
	struct sort_key *k = calloc(t->n ? t->n : 1, sizeof(*k));
	bool hist = gs_agg_nbuckets(t->desc) != 0;

	if (!v || !k) {
		free(v);
		free(k);
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++)
		k[i] = (struct sort_key){ &t->entries[i],
					  hist ? 0 : ev_agg_scalar(t->desc, &t->entries[i]),
					  hist ? ev_agg_total(&t->entries[i]) : 0 };
	qsort(k, t->n, sizeof(*k), by_value);
	for (size_t i = 0; i < t->n; i++)
		v[i] = k[i].e;
	free(k);
	return v;
}
