/* Aggregation tables as text, the way bpftrace prints its maps (value
 * lines sorted by value; histograms as bucket lines with 52-column bars,
 * power-of-two labels with K/M/G/T suffixes, linear labels with K/M when
 * exact, from the first to the last non-empty bucket), and as JSON. Keys
 * come from a target and are shown with anything unprintable escaped. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/aggs.h>
#include <gs/context.h>

#include "ev_int.h"

#define BAR_WIDTH 52

/* Key i of an entry, as ev_put_agg_key writes it. */
static void put_key(FILE *f, const struct gs_agg_desc *d, const uint8_t *keys, unsigned i,
		    bool json)
{
	char buf[EV_AGG_KEY_TEXT_MAX];
	struct ev_out o = { buf, sizeof(buf), 0, false };

	ev_put_agg_key(&o, d, keys, i, json);
	fwrite(buf, 1, ev_done(&o), f);
}

/* `@name` or `@name[k1, k2]` */
static void put_name(FILE *f, const struct gs_agg_desc *d, const struct gs_agg_entry *e)
{
	fputs(d->name, f);
	if (!d->nkeys)
		return;
	fputc('[', f);
	for (unsigned i = 0; i < d->nkeys; i++) {
		if (i)
			fputs(", ", f);
		put_key(f, d, e->keys, i, false);
	}
	fputc(']', f);
}

/* 2^power with bpftrace's suffixes: 512, 1K, 2M ... */
static void power_label(char *buf, size_t size, int power)
{
	static const char suffix[] = { 0, 'K', 'M', 'G', 'T', 'P', 'E' };
	int s = power / 10;

	snprintf(buf, size, "%llu", 1ull << (power - 10 * s));
	if (s)
		snprintf(buf + strlen(buf), size - strlen(buf), "%c", suffix[s]);
}

/* n with K or M when a multiple of 1024 or 1048576, as lhist labels. */
static void linear_label(char *buf, size_t size, int64_t n)
{
	if (n != 0 && n % 1048576 == 0)
		snprintf(buf, size, "%" PRId64 "M", n / 1048576);
	else if (n != 0 && n % 1024 == 0)
		snprintf(buf, size, "%" PRId64 "K", n / 1024);
	else
		snprintf(buf, size, "%" PRId64, n);
}

/* The label of bucket i: hist: (..., 0) [0] [1] [2, 4) ...; lhist:
 * (..., min) [min, min+step) ... [max, ...). */
static void bucket_label(const struct gs_agg_desc *d, uint32_t i, uint32_t nb, char *buf,
			 size_t size)
{
	struct ev_agg_bucket b = ev_agg_bucket(d, i, nb);
	char lo[32], hi[32];

	if (d->fn == GS_AGG_HIST && !b.has_lo) {
		snprintf(buf, size, "(..., 0)");
	} else if (d->fn == GS_AGG_HIST && b.lo == b.last) {
		snprintf(buf, size, "[%" PRId64 "]", b.lo);
	} else if (d->fn == GS_AGG_HIST) {
		power_label(lo, sizeof(lo), __builtin_ctzll((uint64_t)b.lo));
		power_label(hi, sizeof(hi), __builtin_ctzll((uint64_t)b.lo) + 1);
		snprintf(buf, size, "[%s, %s)", lo, hi);
	} else if (!b.has_lo) {
		linear_label(hi, sizeof(hi), b.last + 1);
		snprintf(buf, size, "(..., %s)", hi);
	} else if (!b.has_last) {
		linear_label(lo, sizeof(lo), b.lo);
		snprintf(buf, size, "[%s, ...)", lo);
	} else {
		linear_label(lo, sizeof(lo), b.lo);
		linear_label(hi, sizeof(hi), b.last + 1);
		snprintf(buf, size, "[%s, %s)", lo, hi);
	}
}

static void put_histogram(FILE *f, const struct gs_agg_desc *d, const struct gs_agg_entry *e)
{
	uint32_t first = UINT32_MAX, last = 0;
	uint64_t most = 0;
	char label[80], bar[BAR_WIDTH + 1];

	for (uint32_t i = 0; i < e->nbuckets; i++) {
		if (!e->buckets[i])
			continue;
		first = first == UINT32_MAX ? i : first;
		last = i;
		most = e->buckets[i] > most ? e->buckets[i] : most;
	}
	for (uint32_t i = first; first != UINT32_MAX && i <= last; i++) {
		int width = (int)((double)e->buckets[i] / (double)most * BAR_WIDTH);

		bucket_label(d, i, e->nbuckets, label, sizeof(label));
		memset(bar, '@', (size_t)width);
		bar[width] = '\0';
		fprintf(f, "%-16s%8" PRIu64 " |%-*s|\n", label, e->buckets[i], BAR_WIDTH, bar);
	}
}

int gs_agg_print_text(FILE *f, const struct gs_agg_table *t)
{
	const struct gs_agg_desc *d = t->desc;
	const struct gs_agg_entry **v = ev_agg_sorted(t);

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct gs_agg_entry *e = v[i];

		put_name(f, d, e);
		if (gs_agg_nbuckets(d)) {
			fputs(": \n", f);
			put_histogram(f, d, e);
			fputc('\n', f);
		} else if (d->fn == GS_AGG_STATS) {
			fprintf(f, ": count %" PRId64 ", average %" PRId64 ", total %" PRId64 "\n",
				e->value.count, ev_agg_average(&e->value), e->value.sum);
		} else {
			fprintf(f, ": %" PRId64 "\n", ev_agg_scalar(d, e));
		}
	}
	if (!gs_agg_nbuckets(d) && t->n)
		fputc('\n', f);
	free((void *)v);
	return ferror(f) ? -EIO : 0;
}

static void put_json_buckets(FILE *f, const struct gs_agg_desc *d, const struct gs_agg_entry *e)
{
	bool first = true;

	fputs(",\"buckets\":[", f);
	for (uint32_t i = 0; i < e->nbuckets; i++) {
		struct ev_agg_bucket b = ev_agg_bucket(d, i, e->nbuckets);

		if (!e->buckets[i])
			continue;
		fputs(first ? "{\"low\":" : ",{\"low\":", f);
		first = false;
		if (b.has_lo)
			fprintf(f, "%" PRId64, b.lo);
		else
			fputs("null", f);
		fputs(",\"high\":", f);
		if (!b.has_last)
			fputs("null", f);
		else if (b.last == INT64_MAX) /* hist's last bucket ends at 2^63 */
			fprintf(f, "%" PRIu64, (uint64_t)b.last + 1);
		else
			fprintf(f, "%" PRId64, b.last + 1);
		fprintf(f, ",\"count\":%" PRIu64 "}", e->buckets[i]);
	}
	fputc(']', f);
}

int gs_agg_print_json(FILE *f, const struct gs_agg_table *t)
{
	const struct gs_agg_desc *d = t->desc;
	const struct gs_agg_entry **v = ev_agg_sorted(t);
	char name[EV_AGG_KEY_TEXT_MAX];
	struct ev_out o = { name, sizeof(name), 0, false };

	if (!v)
		return -ENOMEM;
	ev_put_agg_string(&o, (const uint8_t *)d->name, true);
	ev_done(&o);
	fputs("{\"type\":\"aggregation\",\"name\":\"", f);
	fputs(name, f);
	fprintf(f, "\",\"function\":\"%s\",\"entries\":[", gs_agg_fn_name(d->fn));
	for (size_t i = 0; i < t->n; i++) {
		const struct gs_agg_entry *e = v[i];

		fputs(i ? ",{\"keys\":[" : "{\"keys\":[", f);
		for (unsigned k = 0; k < d->nkeys; k++) {
			fputs(k ? "," : "", f);
			put_key(f, d, e->keys, k, true);
		}
		fputc(']', f);
		if (gs_agg_nbuckets(d))
			put_json_buckets(f, d, e);
		else if (d->fn == GS_AGG_STATS)
			fprintf(f, ",\"count\":%" PRId64 ",\"average\":%" PRId64 ",\"total\":%" PRId64,
				e->value.count, ev_agg_average(&e->value), e->value.sum);
		else
			fprintf(f, ",\"value\":%" PRId64, ev_agg_scalar(d, e));
		fputc('}', f);
	}
	fputs("]}\n", f);
	free((void *)v);
	return ferror(f) ? -EIO : 0;
}
