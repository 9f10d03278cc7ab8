/* Aggregations as userspace sees them (docs/cli.md, "Aggregations"): one
 * table per @name, each entry a key with its value merged over the CPUs
 * (and a histogram's buckets), and their text and JSON forms, the text
 * the way bpftrace prints its maps. The runtime reads the tables
 * (gs_session_aggregations); anything may render them. */
#ifndef GS_AGGS_H
#define GS_AGGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gs/api.h>
#include <gs/protocol.h>
#include <gs/spec.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_agg_entry {
	uint8_t keys[GS_AGG_KEY_MAX];  /* the key parts, as the desc lays them out */
	struct gs_agg_value value;     /* every CPU's, and every bucket's, merged */
	uint64_t *buckets;             /* hist, lhist: hits per bucket, else NULL */
	uint32_t nbuckets;
};

struct gs_agg_table {
	const struct gs_agg_desc *desc;
	struct gs_agg_entry *entries;
	size_t n;
};

/* The name scripts call aggregation function fn by (enum gs_agg_fn):
 * "count", "hist", ...; "?" for a number that names none. */
GS_API const char *gs_agg_fn_name(uint8_t fn);
/* The number of buckets of desc's histogram (0 when it is not one). */
GS_API uint32_t gs_agg_nbuckets(const struct gs_agg_desc *desc);

/* t as bpftrace prints a map: `@name[k1, k2]: value` lines sorted by
 * value (count, sum, min, max, avg), `@name[k]: count N, average A, total
 * T` (stats), or `@name[k]:` and its histogram (hist, lhist: the entries
 * sorted by their total); then an empty line. 0, -ENOMEM, or -EIO when f
 * reports an error. */
GS_API int gs_agg_print_text(FILE *f, const struct gs_agg_table *t);
/* t as one JSON object on one line (docs/cli.md gives the shape). 0,
 * -ENOMEM, or -EIO when f reports an error. */
GS_API int gs_agg_print_json(FILE *f, const struct gs_agg_table *t);

#ifdef __cplusplus
}
#endif

#endif /* GS_AGGS_H */
