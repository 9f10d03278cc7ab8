/* The Prometheus exposition (docs/agent.md): the text format 0.0.4 and
 * OpenMetrics 1.0.0, written into a FILE* (an open_memstream for an HTTP
 * answer). The writer keeps the rules a scraper holds an exposition to:
 * each family's metadata once and its samples together, metric and label
 * names valid, label values escaped and valid UTF-8, integers exact and
 * floats in the shortest form that Go's strconv reads back as the same
 * double, and no two families whose sample names could be the same.
 * gs_prom_agg writes one aggregation table (gs/aggs.h) as one family. */
#ifndef GS_PROM_H
#define GS_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gs/aggs.h>
#include <gs/api.h>
#include <gs/error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_prom_format {
	GS_PROM_TEXT,        /* text/plain; version=0.0.4 */
	GS_PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/* A family's type, and the samples of each of its series. */
enum gs_prom_type {
	GS_PROM_COUNTER,   /* <name>_total */
	GS_PROM_GAUGE,     /* <name> */
	GS_PROM_HISTOGRAM, /* <name>_bucket{le="..."} cumulative, <name>_sum, <name>_count */
	GS_PROM_SUMMARY,   /* <name>_sum, <name>_count (no quantiles) */
	GS_PROM_INFO,      /* <name>_info 1 (the text format has it as a gauge) */
};

/* Which sample of a series gs_prom_sample writes. */
enum gs_prom_part {
	GS_PROM_VALUE, /* a counter's _total, a gauge's value, an info's _info */
	GS_PROM_SUM,   /* a histogram's or a summary's _sum */
	GS_PROM_COUNT, /* a histogram's or a summary's _count */
};

struct gs_prom_label {
	const char *name;  /* [a-zA-Z_][a-zA-Z0-9_]*, not starting "__" */
	const char *value; /* any text: escaped as the format says; bytes that
			    * are not UTF-8 are written as U+FFFD */
};

/* A sample's value: an integer i x 10^exp10, written exactly (i itself
 * when exp10 is 0; GS_PROM_SCALED(ns, -9) is nanoseconds in seconds), or
 * a double, in the shortest form that reads back as it. */
struct gs_prom_num {
	int64_t i;
	double f;
	bool is_float;
	int8_t exp10;
};
#define GS_PROM_INT(v) ((struct gs_prom_num){ .i = (int64_t)(v) })
#define GS_PROM_SCALED(v, e) ((struct gs_prom_num){ .i = (int64_t)(v), .exp10 = (int8_t)(e) })
#define GS_PROM_FLOAT(v) ((struct gs_prom_num){ .f = (double)(v), .is_float = true })

struct gs_prom;

/* A writer of one exposition in format into f, which it borrows (f must
 * outlive it; the caller closes it). 0 and *out, or -ENOMEM or -EINVAL (an
 * unknown format) with err filled. */
GS_API int gs_prom_new(FILE *f, enum gs_prom_format format, struct gs_prom **out,
		       struct gs_error *err);
/* Frees w (NULL is fine); f stays open. */
GS_API void gs_prom_free(struct gs_prom *w);

/* Whether name may name a label of a series: [a-zA-Z_][a-zA-Z0-9_]*, not
 * starting "__" (reserved). `le` and `quantile` pass: a histogram's and a
 * summary's samples refuse them. */
GS_API bool gs_prom_label_name_ok(const char *name);

/* Keeps the sample names of family (name, type) for a gs_prom_family of
 * the same name and type later on: a family of another name whose sample
 * names could be these is refused before it (a writer that must write
 * its own families after those of the user reserves them first). 0,
 * -EINVAL (a bad name, as gs_prom_family), -EEXIST (taken already), or
 * -ENOMEM, with err filled. */
GS_API int gs_prom_reserve(struct gs_prom *w, const char *name, enum gs_prom_type type,
			   struct gs_error *err);

/* Ends the family before (if any) and starts family name: its TYPE, UNIT
 * (OpenMetrics only, when unit is not NULL) and HELP lines (none when help
 * is NULL or empty). name is the family's, without its type's suffix (a
 * counter's without _total); with a unit, it ends in `_<unit>`
 * (`..._seconds` for "seconds"). 0; -EINVAL when name is not
 * [a-zA-Z_:][a-zA-Z0-9_:]* or starts "__", or unit is not [a-z]+ or not
 * name's suffix; -EEXIST when a sample name of this family could be one of
 * a family written (or reserved) before it; -EIO when f failed; err says
 * which name and why. */
GS_API int gs_prom_family(struct gs_prom *w, const char *name, enum gs_prom_type type,
			  const char *unit, const char *help, struct gs_error *err);

/* One sample of the family begun last: part (what the family's type has),
 * the n labels of its series (n may be 0 and labels NULL) and the value.
 * 0; -EINVAL (no family begun, a part its type does not have, a bad or
 * repeated label name, `le` in a histogram's or `quantile` in a summary's
 * series); -EIO when f failed. */
GS_API int gs_prom_sample(struct gs_prom *w, enum gs_prom_part part,
			  const struct gs_prom_label *labels, size_t n, struct gs_prom_num v,
			  struct gs_error *err);
/* One bucket of a histogram's series: its labels, the bucket's bound le
 * (GS_PROM_FLOAT(INFINITY): the +Inf bucket every series ends with), and
 * the observations up to le, the buckets below included (cumulative).
 * The caller writes a series' buckets in increasing le, then its _sum and
 * _count. Errors as gs_prom_sample. */
GS_API int gs_prom_bucket(struct gs_prom *w, const struct gs_prom_label *labels, size_t n,
			  struct gs_prom_num le, uint64_t count, struct gs_error *err);
/* Ends the exposition (OpenMetrics: `# EOF`). 0, or -EIO when f failed at
 * this call or any before, with err filled. */
GS_API int gs_prom_finish(struct gs_prom *w, struct gs_error *err);

/* Options (GS_OPTS) of gs_prom_agg; zero (or NULL options) gives the
 * defaults. */
struct gs_prom_agg_opts {
	size_t sz;
	/* Before the table's name: [a-zA-Z][a-zA-Z0-9_]*. NULL: "gstrace_". */
	const char *prefix;
	/* Key i's label name is key_labels[i] (i < desc->nkeys). Where it is
	 * NULL, not a valid label name (gs_prom_label_name_ok), `le`,
	 * `quantile`, or one taken already (by an earlier key or labels),
	 * the label is k<i>. NULL: k0, k1, ... */
	const char *const *key_labels;
	/* The values are nanoseconds: they (and a histogram's bounds) are
	 * written in seconds, the family's name ends in _seconds and its unit
	 * is seconds. count() ignores it. */
	bool seconds;
	/* Labels every series gets, before its keys' (valid names: else
	 * -EINVAL). */
	const struct gs_prom_label *labels;
	size_t nlabels;
	/* The HELP text. NULL: `@name: fn()`. */
	const char *help;
	/* At most this many series are written (each sample line is one: a
	 * histogram's key is a series per bound, +Inf, _sum and _count),
	 * keys whole, those of the greatest values first (a histogram's: its
	 * count); 0: all. */
	size_t max_series;
};

/* Writes table t into w as one family named prefix + the table's name
 * (`@` dropped, characters a name cannot hold made `_`; suffixed with
 * the table's id, `_<id>`, when that name is taken by a family written
 * or reserved before, or could write one of its sample names): count() and sum() a counter (`_total`); min(), max() and
 * avg() a gauge; hist() and lhist() a histogram whose buckets are the
 * table's own, each bucket [lo, hi) of integers written as le="hi-1"
 * (from the bucket below the lowest one hit to the highest one hit, the
 * same for every series of the family); stats() a summary (_sum,
 * _count). A key's label value is its text as gs_agg_print_text writes
 * it. What the format cannot hold is left out: a counter below zero (a
 * sum() of negative values), and in OpenMetrics a histogram's _sum and
 * _count when a bound or the sum is negative, a summary's _sum when
 * negative. *written and *left_out (each may be NULL): the series
 * written, and those left out (past max_series, or a counter below
 * zero), counted as max_series counts them. 0, or -EINVAL (bad options), -EEXIST (a clash even with the id),
 * -ENOMEM, -EIO, with err filled. */
GS_API int gs_prom_agg(struct gs_prom *w, const struct gs_agg_table *t,
		       const struct gs_prom_agg_opts *opts, size_t *written, size_t *left_out,
		       struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_PROM_H */
