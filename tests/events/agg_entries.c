/* Aggregation entries made as BPF makes them (agg_entries.h). */
#include <stdlib.h>
#include <string.h>

#include "agg_entries.h"

void agg_put_int(struct gs_agg_entry *e, const struct gs_agg_desc *d, unsigned k, int64_t v)
{
	memcpy(e->keys + d->key_off[k], &v, sizeof(v));
}

void agg_put_string(struct gs_agg_entry *e, const struct gs_agg_desc *d, unsigned k,
		    const char *s)
{
	size_t n = strlen(s);

	n = n < GS_AGG_STRING_MAX ? n : GS_AGG_STRING_MAX;
	memset(e->keys + d->key_off[k], 0, GS_AGG_STRING_MAX);
	memcpy(e->keys + d->key_off[k], s, n);
}

/* The bucket of v: codegen's hist_bucket (negatives, 0, then the power of
 * two at or below v) and lhist_bucket (below min, each step, max and
 * above). */
static uint32_t bucket(const struct gs_agg_desc *d, uint32_t nb, int64_t v)
{
	if (d->fn == GS_AGG_HIST)
		return v < 0 ? 0 : v == 0 ? 1 : 2 + (63 - (uint32_t)__builtin_clzll((uint64_t)v));
	if (d->fn == GS_AGG_LHIST)
		return v < d->lmin ? 0 : v >= d->lmax ? nb - 1 :
		       (uint32_t)((v - d->lmin) / d->lstep) + 1;
	return 0;
}

void agg_sample(struct gs_agg_entry *e, const struct gs_agg_desc *d, const int64_t *v, size_t n)
{
	if (!e->buckets && gs_agg_nbuckets(d)) {
		e->nbuckets = gs_agg_nbuckets(d);
		e->buckets = calloc(e->nbuckets, sizeof(*e->buckets));
	}
	for (size_t i = 0; i < n; i++) {
		if (e->buckets)
			e->buckets[bucket(d, e->nbuckets, v[i])]++;
		if (!e->value.count || v[i] < e->value.min)
			e->value.min = v[i];
		if (!e->value.count || v[i] > e->value.max)
			e->value.max = v[i];
		e->value.count++;
		e->value.sum += v[i];
	}
}

void agg_entries_free(struct gs_agg_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].buckets);
		e[i] = (struct gs_agg_entry){ 0 };
	}
}
