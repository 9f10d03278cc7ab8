/* libFuzzer target for the Prometheus exposition of aggregation tables
 * (gs_prom_agg): a table's keys and values come from the target (string
 * keys are its memory, counts and sums its values), so whatever bytes and
 * numbers they hold, in either format, the exposition must stay one a
 * scraper reads: valid UTF-8, and every line a metadata line or
 * `name{label="escaped",...} value`. The input: the function, the key
 * kinds, the lhist bounds, the cap, the format, then entries (key bytes,
 * count, sum, min, max, bucket hits). */
#include <stdlib.h>
#include <string.h>

#include <gs/prom.h>
#include <gs/render.h>

#include "smoke.h"

/* The input read as a stream of fields, zero past its end. */
struct input {
	const uint8_t *p;
	size_t n;
};

static void take(struct input *in, void *out, size_t size)
{
	size_t k = size < in->n ? size : in->n;

	memset(out, 0, size);
	memcpy(out, in->p, k);
	in->p += k;
	in->n -= k;
}

static uint8_t take8(struct input *in)
{
	uint8_t v;

	take(in, &v, 1);
	return v;
}

static int64_t take64(struct input *in)
{
	int64_t v;

	take(in, &v, sizeof(v));
	return v;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == ':';
}

/* One sample line (no newline): name, labels, a space, a value. */
static bool sample_ok(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && name_char(*p))
		p++;
	if (p == s)
		return false;
	if (p < end && *p == '{') {
		for (p++; p < end && *p != '}';) {
			const char *n = p;

			while (p < end && name_char(*p))
				p++;
			if (p == n || end - p < 2 || p[0] != '=' || p[1] != '"')
				return false;
			for (p += 2; p < end && *p != '"'; p++) {
				if (*p == '\\' && (p + 1 >= end || !strchr("n\"\\", p[1])))
					return false;
				p += *p == '\\';
			}
			if (p >= end)
				return false;
			p++;
			if (p < end && *p == ',')
				p++;
		}
		if (p >= end)
			return false;
		p++;
	}
	if (p >= end || *p != ' ' || p + 1 >= end)
		return false;
	for (p++; p < end; p++)
		if (*p == ' ' || *p == '"')
			return false;
	return true;
}

static void check(const char *text, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t u = gs_render_utf8_len((const uint8_t *)text + i, len - i);

		if (!u)
			abort();
		i += u;
	}
	for (const char *s = text; s < text + len;) {
		const char *end = memchr(s, '\n', (size_t)(text + len - s));

		if (!end)
			abort(); /* every line ends in a newline */
		if (strncmp(s, "# ", 2) != 0 && !sample_ok(s, end))
			abort();
		s = end + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct gs_agg_desc d = { .name = "@fuzz", .id = 1 };
	struct gs_agg_entry e[8];
	struct gs_agg_table t = { &d, e, 0 };
	uint16_t off = 0;
	char *text = NULL;
	size_t len = 0, n;
	FILE *f;
	struct gs_prom *w;
	uint8_t flags;

	memset(e, 0, sizeof(e));
	d.fn = take8(&in) % (GS_AGG_LHIST + 1);
	d.nkeys = take8(&in) % 4;
	for (unsigned k = 0; k < d.nkeys; k++) {
		d.key_kind[k] = take8(&in) % (GS_AGG_KEY_STRING + 1);
		d.key_off[k] = off;
		off += d.key_kind[k] == GS_AGG_KEY_STRING ? GS_AGG_STRING_MAX : 8;
	}
	d.lmin = (int8_t)take8(&in);
	d.lmax = d.lmin + 1 + take8(&in);
	d.lstep = 1 + take8(&in) % 16;
	flags = take8(&in);
	n = take8(&in) % 8;
	for (size_t i = 0; i < n; i++) {
		take(&in, e[i].keys, off);
		e[i].value = (struct gs_agg_value){ take64(&in), take64(&in), take64(&in),
						    take64(&in) };
		e[i].nbuckets = gs_agg_nbuckets(&d);
		e[i].buckets = e[i].nbuckets ? calloc(e[i].nbuckets, sizeof(uint64_t)) : NULL;
		for (uint32_t b = 0; e[i].buckets && b < e[i].nbuckets; b++)
			e[i].buckets[b] = take8(&in) < 128 ? 0 : take8(&in);
		t.n++;
	}
	f = open_memstream(&text, &len);
	if (f && gs_prom_new(f, flags & 1 ? GS_PROM_OPENMETRICS : GS_PROM_TEXT, &w, NULL) == 0) {
		GS_OPTS(gs_prom_agg_opts, o, .seconds = flags & 2, .max_series = flags >> 4);

		if (gs_prom_agg(w, &t, &o, NULL, NULL, NULL) != 0 || gs_prom_finish(w, NULL) != 0)
			abort(); /* any table is written */
		gs_prom_free(w);
		fclose(f);
		check(text, len);
	} else if (f) {
		fclose(f);
	}
	free(text);
	for (size_t i = 0; i < n; i++)
		free(e[i].buckets);
	return 0;
}
