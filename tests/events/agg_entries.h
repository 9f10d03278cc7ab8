/* Aggregation entries made as BPF makes them (gs_aggs: a key's parts at
 * the desc's offsets, every value counted into count, sum, min, max and
 * its histogram bucket as codegen's hist_bucket and lhist_bucket choose
 * it), for the tests of the table renderers: the printers
 * (tests/events/test_aggs_print.c), the Prometheus exposition
 * (test_prom.c) and the agent's /metrics (tests/serve). */
#ifndef GS_TESTS_AGG_ENTRIES_H
#define GS_TESTS_AGG_ENTRIES_H

#include <stddef.h>
#include <stdint.h>

#include <gs/aggs.h>

/* Key part k of e: an integer (8 bytes) or a string (cut to fit). */
void agg_put_int(struct gs_agg_entry *e, const struct gs_agg_desc *d, unsigned k, int64_t v);
void agg_put_string(struct gs_agg_entry *e, const struct gs_agg_desc *d, unsigned k,
		    const char *s);
/* Counts the n values v into e (its buckets allocated at the first call). */
void agg_sample(struct gs_agg_entry *e, const struct gs_agg_desc *d, const int64_t *v, size_t n);
/* Frees the buckets of e[0..n) and empties the entries. */
void agg_entries_free(struct gs_agg_entry *e, size_t n);

#endif
