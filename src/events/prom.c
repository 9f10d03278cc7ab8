/* The Prometheus exposition writer (gs/prom.h): families and their
 * samples in the text format 0.0.4 or OpenMetrics 1.0.0, checked as they
 * are written, so that whatever a caller (or a target's data behind it)
 * asks for, the exposition a scraper reads stays valid: names and label
 * names checked, label values escaped, one family per name, no sample
 * name two families could share. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/prom.h>
#include <gs/render.h>

#include "base.h"
#include "ev_int.h"

/* A family written or reserved: its name and type own the sample names
 * name + each of its type's suffixes. */
struct prom_family {
	char *name;
	uint8_t type;     /* enum gs_prom_type */
	bool reserved;    /* by gs_prom_reserve, not written yet */
};

/* A bound's text as written last: every series of a histogram writes the
 * same bounds, and a float's shortest form costs a few libc calls. */
struct prom_bound {
	struct gs_prom_num le;
	bool used;
	char text[EV_PROM_NUM_MAX];
};
#define BOUNDS 128 /* direct-mapped: a lhist has up to 1000 buckets, most no more than 65 */

struct gs_prom {
	FILE *f;
	uint8_t format;   /* enum gs_prom_format */
	struct prom_bound bounds[BOUNDS];
	struct prom_family *v;
	size_t n, cap;
	size_t open;      /* the family samples go to: v[open - 1]; 0: none */
};

/* Every sample name a family of each type can have, as OpenMetrics lists
 * them (its text format adds the suffixes; 0.0.4 uses fewer: clashes of
 * either are clashes of these). */
static const char *const suffixes[][5] = {
	[GS_PROM_COUNTER] = { "", "_total", "_created" },
	[GS_PROM_GAUGE] = { "" },
	[GS_PROM_HISTOGRAM] = { "", "_bucket", "_sum", "_count", "_created" },
	[GS_PROM_SUMMARY] = { "", "_sum", "_count", "_created" },
	[GS_PROM_INFO] = { "", "_info" },
};

static const char *const type_names[] = {
	[GS_PROM_COUNTER] = "counter", [GS_PROM_GAUGE] = "gauge",
	[GS_PROM_HISTOGRAM] = "histogram", [GS_PROM_SUMMARY] = "summary",
	[GS_PROM_INFO] = "info",
};

int gs_prom_new(FILE *f, enum gs_prom_format format, struct gs_prom **out, struct gs_error *err)
{
	struct gs_prom *w;

	*out = NULL;
	if (format != GS_PROM_TEXT && format != GS_PROM_OPENMETRICS)
		return gs_errorf(err, -EINVAL, "unknown Prometheus exposition format %d: use "
				 "GS_PROM_TEXT or GS_PROM_OPENMETRICS", (int)format);
	w = calloc(1, sizeof(*w));
	if (!w)
		return gs_errorf(err, -ENOMEM, "out of memory for a Prometheus exposition");
	w->f = f;
	w->format = (uint8_t)format;
	*out = w;
	return 0;
}

bool ev_prom_openmetrics(const struct gs_prom *w)
{
	return w->format == GS_PROM_OPENMETRICS;
}

void gs_prom_free(struct gs_prom *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].name);
	free(w->v);
	free(w);
}

static bool name_char(char c, bool first, bool colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

/* [a-zA-Z_(:)][a-zA-Z0-9_(:)]*, not starting "__". */
static bool name_ok(const char *s, bool colon)
{
	if (!s || !*s || (s[0] == '_' && s[1] == '_'))
		return false;
	for (size_t i = 0; s[i]; i++)
		if (!name_char(s[i], i == 0, colon))
			return false;
	return true;
}

bool gs_prom_label_name_ok(const char *name)
{
	return name_ok(name, false);
}

/* Whether a + sa and b + sb are one string. */
static bool same_joined(const char *a, size_t la, const char *sa, const char *b, size_t lb,
			const char *sb)
{
	size_t n = la + strlen(sa);

	if (n != lb + strlen(sb))
		return false;
	for (size_t k = 0; k < n; k++)
		if ((k < la ? a[k] : sa[k - la]) != (k < lb ? b[k] : sb[k - lb]))
			return false;
	return true;
}

/* Whether a sample name of family (a, ta) could be one of (b, tb). */
static bool clash(const char *a, uint8_t ta, const char *b, uint8_t tb)
{
	size_t la = strlen(a), lb = strlen(b);

	for (size_t i = 0; i < BASE_ARRAY_SIZE(suffixes[0]) && suffixes[ta][i]; i++)
		for (size_t j = 0; j < BASE_ARRAY_SIZE(suffixes[0]) && suffixes[tb][j]; j++)
			if (same_joined(a, la, suffixes[ta][i], b, lb, suffixes[tb][j]))
				return true;
	return false;
}

static int check_family(const char *name, enum gs_prom_type type, const char *unit,
			struct gs_error *err)
{
	size_t n, u;

	if ((unsigned)type >= BASE_ARRAY_SIZE(type_names))
		return gs_errorf(err, -EINVAL, "unknown Prometheus metric type %d for %s",
				 (int)type, name ? name : "(null)");
	if (!name_ok(name, true))
		return gs_errorf(err, -EINVAL, "'%s' is no Prometheus metric name: it must match "
				 "[a-zA-Z_:][a-zA-Z0-9_:]* and not start with \"__\"",
				 name ? name : "(null)");
	if (!unit)
		return 0;
	if (type == GS_PROM_INFO)
		return gs_errorf(err, -EINVAL, "info %s has unit '%s': an info has none", name,
				 unit);
	n = strlen(name);
	u = strlen(unit);
	for (size_t i = 0; i < u; i++)
		if (unit[i] < 'a' || unit[i] > 'z')
			return gs_errorf(err, -EINVAL, "unit '%s' of %s is not a base unit in "
					 "lower case letters (seconds, bytes)", unit, name);
	if (!u || n < u + 1 || name[n - u - 1] != '_' || strcmp(name + n - u, unit) != 0)
		return gs_errorf(err, -EINVAL, "metric %s has unit '%s' but does not end in "
				 "_%s: a unit is the name's suffix", name, unit, unit);
	return 0;
}

/* The family (name, type) written or reserved, or NULL; *clashing the
 * first other one whose sample names could be its own. */
static struct prom_family *find(struct gs_prom *w, const char *name, uint8_t type,
				const struct prom_family **clashing)
{
	*clashing = NULL;
	for (size_t i = 0; i < w->n; i++) {
		if (w->v[i].type == type && strcmp(w->v[i].name, name) == 0)
			return &w->v[i];
		if (!*clashing && clash(name, type, w->v[i].name, w->v[i].type))
			*clashing = &w->v[i];
	}
	return NULL;
}

bool ev_prom_name_free(struct gs_prom *w, const char *name, enum gs_prom_type type)
{
	const struct prom_family *other;

	return !find(w, name, (uint8_t)type, &other) && !other;
}

static struct prom_family *add(struct gs_prom *w, const char *name, uint8_t type, bool reserved,
			       struct gs_error *err)
{
	struct prom_family *fam;
	char *copy = strdup(name);

	if (!copy || base_grow((void **)&w->v, &w->cap, w->n + 1, sizeof(*w->v))) {
		free(copy);
		gs_errorf(err, -ENOMEM, "out of memory for Prometheus family %s", name);
		return NULL;
	}
	fam = &w->v[w->n++];
	*fam = (struct prom_family){ copy, type, reserved };
	return fam;
}

/* The family (name, type) is new and clashes with none. */
static int claim(struct gs_prom *w, const char *name, enum gs_prom_type type, bool reserve,
		 struct prom_family **out, struct gs_error *err)
{
	const struct prom_family *other;
	struct prom_family *fam = find(w, name, (uint8_t)type, &other);

	if (fam && fam->reserved && !reserve) {
		fam->reserved = false;
		*out = fam;
		return 0;
	}
	if (fam)
		return gs_errorf(err, -EEXIST, "Prometheus family %s (%s) is %s already", name,
				 type_names[type], fam->reserved ? "reserved" : "written");
	if (other)
		return gs_errorf(err, -EEXIST, "Prometheus family %s (%s) could write the sample "
				 "names of family %s (%s), %s before it: name one of them "
				 "otherwise", name, type_names[type], other->name,
				 type_names[other->type], other->reserved ? "reserved" : "written");
	*out = add(w, name, (uint8_t)type, reserve, err);
	return *out ? 0 : -ENOMEM;
}

int gs_prom_reserve(struct gs_prom *w, const char *name, enum gs_prom_type type,
		    struct gs_error *err)
{
	struct prom_family *fam;
	int rc = check_family(name, type, NULL, err);

	return rc ? rc : claim(w, name, type, true, &fam, err);
}

static int io_error(struct gs_prom *w, struct gs_error *err)
{
	if (!ferror(w->f))
		return 0;
	return gs_errorf(err, -EIO, "writing the Prometheus exposition failed (out of memory "
			 "or a full file)");
}

/* s with '\\', '\n' (and '"' when quote) escaped, and any byte that is not
 * UTF-8 as U+FFFD. */
static void put_escaped(FILE *f, const char *s, bool quote)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t run = i, len;

		while (run < n && p[run] >= 0x20 && p[run] < 0x7f && p[run] != '\\' &&
		       p[run] != '"')
			run++;
		fwrite(p + i, 1, run - i, f);
		if (run == n)
			break;
		i = run;
		if (p[i] == '\\' || p[i] == '\n' || (quote && p[i] == '"')) {
			fputs(p[i] == '\\' ? "\\\\" : p[i] == '\n' ? "\\n" : "\\\"", f);
			i++;
		} else if (p[i] < 0x80) {
			fputc(p[i], f);
			i++;
		} else if ((len = gs_render_utf8_len(p + i, n - i)) != 0) {
			fwrite(p + i, 1, len, f);
			i += len;
		} else {
			fputs("\xef\xbf\xbd", f);
			i++;
		}
	}
}

int gs_prom_family(struct gs_prom *w, const char *name, enum gs_prom_type type, const char *unit,
		   const char *help, struct gs_error *err)
{
	bool om = w->format == GS_PROM_OPENMETRICS;
	/* 0.0.4 names a counter by its samples, and has no info */
	const char *shown = !om && type == GS_PROM_COUNTER ? "_total" :
			    !om && type == GS_PROM_INFO ? "_info" : "";
	const char *tname = !om && type == GS_PROM_INFO ? "gauge" : NULL;
	struct prom_family *fam;
	int rc;

	w->open = 0;
	rc = check_family(name, type, unit, err);
	if (!rc)
		rc = claim(w, name, type, false, &fam, err);
	if (rc)
		return rc;
	fprintf(w->f, "# TYPE %s%s %s\n", name, shown, tname ? tname : type_names[type]);
	if (om && unit)
		fprintf(w->f, "# UNIT %s %s\n", name, unit);
	if (help && *help) {
		fprintf(w->f, "# HELP %s%s ", name, shown);
		put_escaped(w->f, help, om); /* 0.0.4 knows no \" in HELP */
		fputc('\n', w->f);
	}
	w->open = (size_t)(fam - w->v) + 1;
	return io_error(w, err);
}

/* v in decimal, without printf's parsing of a format per number. */
static void put_u64(FILE *f, uint64_t v)
{
	char t[20];
	size_t i = sizeof(t);

	do
		t[--i] = (char)('0' + v % 10);
	while (v /= 10);
	fwrite(t + i, 1, sizeof(t) - i, f);
}

static void put_num(struct gs_prom *w, struct gs_prom_num v)
{
	char buf[EV_PROM_NUM_MAX];

	if (!v.is_float && !v.exp10) { /* an integer, exactly */
		if (v.i < 0)
			fputc('-', w->f);
		put_u64(w->f, v.i < 0 ? -(uint64_t)v.i : (uint64_t)v.i);
		return;
	}
	ev_prom_num_text(buf, v, w->format == GS_PROM_OPENMETRICS);
	fputs(buf, w->f);
}

/* The family samples go to, or NULL. */
static const struct prom_family *open_family(const struct gs_prom *w)
{
	return w->open ? &w->v[w->open - 1] : NULL;
}

static int check_labels(const struct prom_family *fam, const struct gs_prom_label *labels,
			size_t n, struct gs_error *err)
{
	const char *own = fam->type == GS_PROM_HISTOGRAM ? "le" :
			  fam->type == GS_PROM_SUMMARY ? "quantile" : NULL;

	for (size_t i = 0; i < n; i++) {
		if (!gs_prom_label_name_ok(labels[i].name))
			return gs_errorf(err, -EINVAL, "'%s' is no Prometheus label name (family "
					 "%s): it must match [a-zA-Z_][a-zA-Z0-9_]* and not "
					 "start with \"__\"", labels[i].name ? labels[i].name : "(null)",
					 fam->name);
		if (own && strcmp(labels[i].name, own) == 0)
			return gs_errorf(err, -EINVAL, "label '%s' of family %s is its %s's own: "
					 "name the label otherwise", own, fam->name,
					 type_names[fam->type]);
		if (!labels[i].value)
			return gs_errorf(err, -EINVAL, "label '%s' of family %s has no value",
					 labels[i].name, fam->name);
		for (size_t j = 0; j < i; j++)
			if (strcmp(labels[i].name, labels[j].name) == 0)
				return gs_errorf(err, -EINVAL, "label '%s' is given twice to a "
						 "series of family %s", labels[i].name,
						 fam->name);
	}
	return 0;
}

/* name{labels,le="..."} */
static void put_series(struct gs_prom *w, const struct prom_family *fam, const char *suffix,
		       const struct gs_prom_label *labels, size_t n, const char *le)
{
	fputs(fam->name, w->f);
	fputs(suffix, w->f);
	if (!n && !le)
		return;
	fputc('{', w->f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", w->f);
		fputs(labels[i].name, w->f);
		fputs("=\"", w->f);
		put_escaped(w->f, labels[i].value, true);
		fputc('"', w->f);
	}
	if (le) {
		fputs(n ? ",le=\"" : "le=\"", w->f);
		fputs(le, w->f);
		fputc('"', w->f);
	}
	fputc('}', w->f);
}

int gs_prom_sample(struct gs_prom *w, enum gs_prom_part part, const struct gs_prom_label *labels,
		   size_t n, struct gs_prom_num v, struct gs_error *err)
{
	static const char *const value_suffix[] = {
		[GS_PROM_COUNTER] = "_total", [GS_PROM_GAUGE] = "", [GS_PROM_INFO] = "_info",
	};
	const struct prom_family *fam = open_family(w);
	const char *suffix = NULL;
	uint8_t type;
	int rc;

	if (!fam)
		return gs_errorf(err, -EINVAL, "a Prometheus sample before its family: call "
				 "gs_prom_family first");
	type = fam->type;
	if (part == GS_PROM_VALUE && type != GS_PROM_HISTOGRAM && type != GS_PROM_SUMMARY)
		suffix = value_suffix[type];
	else if ((part == GS_PROM_SUM || part == GS_PROM_COUNT) &&
		 (type == GS_PROM_HISTOGRAM || type == GS_PROM_SUMMARY))
		suffix = part == GS_PROM_SUM ? "_sum" : "_count";
	if (!suffix)
		return gs_errorf(err, -EINVAL, "a %s (family %s) has no sample part %d",
				 type_names[type], fam->name, (int)part);
	rc = check_labels(fam, labels, n, err);
	if (rc)
		return rc;
	put_series(w, fam, suffix, labels, n, NULL);
	fputc(' ', w->f);
	put_num(w, v);
	fputc('\n', w->f);
	return io_error(w, err);
}

/* le as a label value: an integer exactly in 0.0.4, OpenMetrics' canonical
 * float there (1.0, not 1: Go's form with ".0"). */
static const char *bound_text(struct gs_prom *w, struct gs_prom_num le)
{
	bool om = w->format == GS_PROM_OPENMETRICS;
	uint64_t bits;
	struct prom_bound *b;

	memcpy(&bits, le.is_float ? (const void *)&le.f : (const void *)&le.i, sizeof(bits));
	bits ^= (uint64_t)(uint8_t)le.exp10 << 56 ^ le.is_float;
	b = &w->bounds[(bits ^ bits >> 29 ^ bits >> 47) % BOUNDS];
	if (b->used && b->le.is_float == le.is_float &&
	    (le.is_float ? memcmp(&b->le.f, &le.f, sizeof(le.f)) == 0 :
			   b->le.i == le.i && b->le.exp10 == le.exp10))
		return b->text;
	if (le.is_float || le.exp10 || om)
		ev_prom_num_text(b->text, le, om);
	else
		snprintf(b->text, sizeof(b->text), "%" PRId64, le.i);
	b->le = le;
	b->used = true;
	return b->text;
}

int gs_prom_bucket(struct gs_prom *w, const struct gs_prom_label *labels, size_t n,
		   struct gs_prom_num le, uint64_t count, struct gs_error *err)
{
	const struct prom_family *fam = open_family(w);
	int rc;

	if (!fam || fam->type != GS_PROM_HISTOGRAM)
		return gs_errorf(err, -EINVAL, "a Prometheus bucket outside a histogram: begin "
				 "one with gs_prom_family(..., GS_PROM_HISTOGRAM, ...)");
	rc = check_labels(fam, labels, n, err);
	if (rc)
		return rc;
	put_series(w, fam, "_bucket", labels, n, bound_text(w, le));
	fputc(' ', w->f);
	put_u64(w->f, count);
	fputc('\n', w->f);
	return io_error(w, err);
}

int gs_prom_finish(struct gs_prom *w, struct gs_error *err)
{
	w->open = 0;
	if (w->format == GS_PROM_OPENMETRICS)
		fputs("# EOF\n", w->f);
	if (fflush(w->f) != 0 && !ferror(w->f))
		return gs_errorf(err, -EIO, "writing the Prometheus exposition failed");
	return io_error(w, err);
}
