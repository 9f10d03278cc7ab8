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

#include "base.h"

#define BAR_WIDTH 52

uint32_t gs_agg_nbuckets(const struct gs_agg_desc *d)
{
	if (d->fn == GS_AGG_HIST)
		return GS_AGG_HIST_BUCKETS;
	if (d->fn == GS_AGG_LHIST && d->lstep > 0 && d->lmax > d->lmin)
		return (uint32_t)((d->lmax - d->lmin) / d->lstep) + 2;
	return 0;
}

static const char *fn_name(uint8_t fn)
{
	static const char *const names[] = {
		[GS_AGG_COUNT] = "count", [GS_AGG_SUM] = "sum", [GS_AGG_MIN] = "min",
		[GS_AGG_MAX] = "max", [GS_AGG_AVG] = "avg", [GS_AGG_STATS] = "stats",
		[GS_AGG_HIST] = "hist", [GS_AGG_LHIST] = "lhist",
	};

	return fn < BASE_ARRAY_SIZE(names) ? names[fn] : "?";
}

static int64_t average(const struct gs_agg_value *v)
{
	return v->count ? v->sum / v->count : 0;
}

/* What a scalar aggregation shows, and sorts by. */
static int64_t scalar(const struct gs_agg_desc *d, const struct gs_agg_entry *e)
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
		return average(&e->value);
	}
}

static uint64_t total(const struct gs_agg_entry *e)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < e->nbuckets; i++)
		n += e->buckets[i];
	return n;
}

/* A string key: printable ASCII as it is, the rest escaped (\xNN; \" and
 * \\ in JSON). */
static void put_string(FILE *f, const uint8_t *s, bool json)
{
	for (size_t i = 0; i < GS_AGG_STRING_MAX && s[i]; i++) {
		if (json && (s[i] == '"' || s[i] == '\\'))
			fprintf(f, "\\%c", s[i]);
		else if (s[i] >= 0x20 && s[i] < 0x7f)
			fputc(s[i], f);
		else
			fprintf(f, json ? "\\u%04x" : "\\x%02x", s[i]);
	}
}

static void put_key(FILE *f, const struct gs_agg_desc *d, const uint8_t *keys, unsigned i,
		    bool json)
{
	const uint8_t *k = keys + d->key_off[i];
	int64_t v;

	memcpy(&v, k, sizeof(v));
	for (uint32_t e = 0; d->key_enum[i] && e < d->key_enum[i]->nenumerators; e++) {
		if (d->key_enum[i]->enumerators[e].value != v)
			continue;
		fputs(json ? "\"" : "", f);
		put_string(f, (const uint8_t *)d->key_enum[i]->enumerators[e].name, json);
		fputs(json ? "\"" : "", f);
		return;
	}
	switch (d->key_kind[i]) {
	case GS_AGG_KEY_STRING:
		fputs(json ? "\"" : "", f);
		put_string(f, k, json);
		fputs(json ? "\"" : "", f);
		break;
	case GS_AGG_KEY_UINT:
		fprintf(f, "%" PRIu64, (uint64_t)v);
		break;
	case GS_AGG_KEY_BOOL:
		fputs(v ? "true" : "false", f);
		break;
	case GS_AGG_KEY_POINTER:
		fprintf(f, json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, (uint64_t)v);
		break;
	default:
		fprintf(f, "%" PRId64, v);
		break;
	}
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
	char lo[32], hi[32];

	if (d->fn == GS_AGG_HIST) {
		if (i == 0) {
			snprintf(buf, size, "(..., 0)");
		} else if (i == 1) {
			snprintf(buf, size, "[0]");
		} else if (i == 2) {
			snprintf(buf, size, "[1]");
		} else {
			power_label(lo, sizeof(lo), (int)i - 2);
			power_label(hi, sizeof(hi), (int)i - 1);
			snprintf(buf, size, "[%s, %s)", lo, hi);
		}
		return;
	}
	if (i == 0) {
		linear_label(lo, sizeof(lo), d->lmin);
		snprintf(buf, size, "(..., %s)", lo);
	} else if (i == nb - 1) {
		linear_label(lo, sizeof(lo), d->lmax);
		snprintf(buf, size, "[%s, ...)", lo);
	} else {
		linear_label(lo, sizeof(lo), d->lmin + (int64_t)(i - 1) * d->lstep);
		linear_label(hi, sizeof(hi), d->lmin + (int64_t)i * d->lstep);
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

/* Sort keys for qsort: the table being sorted. */
struct sorted {
	const struct gs_agg_desc *d;
	const struct gs_agg_entry *e;
};

static int by_value(const void *a, const void *b)
{
	const struct sorted *x = a, *y = b;
	int64_t u, v;

	if (gs_agg_nbuckets(x->d)) {
		uint64_t s = total(x->e), t = total(y->e);

		return s < t ? -1 : s > t;
	}
	u = scalar(x->d, x->e);
	v = scalar(y->d, y->e);
	if (u != v)
		return u < v ? -1 : 1;
	return memcmp(x->e->keys, y->e->keys, sizeof(x->e->keys));
}

static struct sorted *sort_entries(const struct gs_agg_table *t)
{
	struct sorted *v = calloc(t->n ? t->n : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		v[i] = (struct sorted){ t->desc, &t->entries[i] };
	qsort(v, t->n, sizeof(*v), by_value);
	return v;
}

int gs_agg_print_text(FILE *f, const struct gs_agg_table *t)
{
	const struct gs_agg_desc *d = t->desc;
	struct sorted *v = sort_entries(t);

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct gs_agg_entry *e = v[i].e;

		put_name(f, d, e);
		if (gs_agg_nbuckets(d)) {
			fputs(": \n", f);
			put_histogram(f, d, e);
			fputc('\n', f);
		} else if (d->fn == GS_AGG_STATS) {
			fprintf(f, ": count %" PRId64 ", average %" PRId64 ", total %" PRId64 "\n",
				e->value.count, average(&e->value), e->value.sum);
		} else {
			fprintf(f, ": %" PRId64 "\n", scalar(d, e));
		}
	}
	if (!gs_agg_nbuckets(d) && t->n)
		fputc('\n', f);
	free(v);
	return ferror(f) ? -EIO : 0;
}

static void put_json_buckets(FILE *f, const struct gs_agg_desc *d, const struct gs_agg_entry *e)
{
	bool first = true;

	fputs(",\"buckets\":[", f);
	for (uint32_t i = 0; i < e->nbuckets; i++) {
		if (!e->buckets[i])
			continue;
		fputs(first ? "" : ",", f);
		first = false;
		if (d->fn == GS_AGG_HIST && i == 0)
			fputs("{\"low\":null,\"high\":0", f);
		else if (d->fn == GS_AGG_HIST)
			fprintf(f, "{\"low\":%" PRIu64 ",\"high\":%" PRIu64,
				i == 1 ? (uint64_t)0 : (uint64_t)1 << (i - 2),
				i == 1 ? (uint64_t)1 : (uint64_t)1 << (i - 1));
		else if (i == 0)
			fprintf(f, "{\"low\":null,\"high\":%" PRId64, d->lmin);
		else if (i == e->nbuckets - 1)
			fprintf(f, "{\"low\":%" PRId64 ",\"high\":null", d->lmax);
		else
			fprintf(f, "{\"low\":%" PRId64 ",\"high\":%" PRId64,
				d->lmin + (int64_t)(i - 1) * d->lstep, d->lmin + (int64_t)i * d->lstep);
		fprintf(f, ",\"count\":%" PRIu64 "}", e->buckets[i]);
	}
	fputc(']', f);
}

int gs_agg_print_json(FILE *f, const struct gs_agg_table *t)
{
	const struct gs_agg_desc *d = t->desc;
	struct sorted *v = sort_entries(t);

	if (!v)
		return -ENOMEM;
	fputs("{\"type\":\"aggregation\",\"name\":\"", f);
	put_string(f, (const uint8_t *)d->name, true);
	fprintf(f, "\",\"function\":\"%s\",\"entries\":[", fn_name(d->fn));
	for (size_t i = 0; i < t->n; i++) {
		const struct gs_agg_entry *e = v[i].e;

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
				e->value.count, average(&e->value), e->value.sum);
		else
			fprintf(f, ",\"value\":%" PRId64, scalar(d, e));
		fputc('}', f);
	}
	fputs("]}\n", f);
	free(v);
	return ferror(f) ? -EIO : 0;
}
