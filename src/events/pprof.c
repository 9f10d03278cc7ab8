/* The pprof profile (gs/pprof.h): its tables (strings, mappings,
 * functions, locations, samples, each interned once by content) and its
 * writing, as protobuf-c messages of our profile.proto packed and gzipped
 * through zlib. Which frames become locations is pprof_frames.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <gs/fold.h>
#include <gs/render.h>

#include "base.h"
#include "opts.h"
#include "pprof_int.h"
#include "profile.pb-c.h"

struct pp_mapping {
	uint64_t start, limit, file_offset;
	int64_t file, build_id;
	bool functions, lines, inlines; /* what some location of it has */
};

struct pp_function {
	int64_t name, system_name, file, start_line;
};

struct pp_line {
	uint64_t function;
	int64_t line;
};

struct pp_location {
	uint64_t mapping, address;
	size_t line0, nlines; /* in lines */
};

/* A sample's key: its labels, then its location ids. */
struct pp_sample_head {
	uint32_t pid, tid;
	uint64_t trace;
	uint64_t labels; /* a set of string labels (pprof_labels), 0: none */
};

/* A set of string labels: n (key, value) string pairs at `at` of pairs. */
struct pp_labelset {
	size_t at, n;
};

struct gs_pprof {
	struct gs_frames *frames, *own_frames;
	struct gs_pprof_opts o;
	int64_t sample_type, sample_unit, period_type, period_unit;
	int64_t label_pid, label_tid, label_trace;
	bool nomem; /* sticky: an intern failed */

	struct gs_counts *string_ids, *mapping_ids, *function_ids, *location_ids, *samples;
	char **strings;
	size_t nstrings, strings_cap;
	struct pp_mapping *mappings;
	size_t nmappings, mappings_cap;
	struct pp_function *functions;
	size_t nfunctions, functions_cap;
	struct pp_location *locations;
	size_t nlocations, locations_cap;
	struct pp_line *lines;
	size_t nlines, lines_cap;
	uint64_t *key; /* a sample's key being built */
	size_t key_cap;
	struct gs_counts *labelset_ids;
	struct pp_labelset *labelsets;
	size_t nlabelsets, labelsets_cap;
	int64_t *pairs;
	size_t npairs, pairs_cap;
};

/* Index of s in the string table (NULL and "" are 0); 0 after ENOMEM. */
static int64_t str(struct gs_pprof *p, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	bool is_new;
	long i;

	if (!len)
		return 0;
	i = gs_counts_add(p->string_ids, s, len, 0, &is_new);
	if (i >= 0 && is_new) {
		char *copy = strdup(s);

		if (!copy || base_grow((void **)&p->strings, &p->strings_cap, p->nstrings + 1,
				       sizeof(*p->strings))) {
			free(copy);
			p->nomem = true;
			return 0;
		}
		p->strings[p->nstrings++] = copy;
	}
	if (i < 0)
		p->nomem = true;
	return i < 0 ? 0 : i + 1; /* entry 0 of the table is "" */
}

/* Id (index + 1) of key in table, appending an element of elem bytes to
 * *v when new (*made tells); 0 after ENOMEM. */
static uint64_t intern(struct gs_pprof *p, struct gs_counts *table, const void *key, size_t len,
		       void **v, size_t *n, size_t *cap, size_t elem, bool *made)
{
	long i = gs_counts_add(table, key, len, 0, made);

	if (i >= 0 && *made) {
		if (base_grow(v, cap, *n + 1, elem)) {
			p->nomem = true;
			return 0;
		}
		memset((char *)*v + *n * elem, 0, elem);
		(*n)++;
	}
	if (i < 0)
		p->nomem = true;
	return i < 0 ? 0 : (uint64_t)i + 1;
}

static uint64_t mapping_id(struct gs_pprof *p, const struct pprof_map *m)
{
	int64_t key[5] = { str(p, m->file), str(p, m->build_id), (int64_t)m->start,
			   (int64_t)m->limit, (int64_t)m->file_offset };
	bool made;
	uint64_t id = intern(p, p->mapping_ids, key, sizeof(key), (void **)&p->mappings,
			     &p->nmappings, &p->mappings_cap, sizeof(*p->mappings), &made);

	if (id && made)
		p->mappings[id - 1] = (struct pp_mapping){ .file = key[0], .build_id = key[1],
							   .start = m->start, .limit = m->limit,
							   .file_offset = m->file_offset };
	return id;
}

static uint64_t function_id(struct gs_pprof *p, const struct pprof_line *l)
{
	struct pp_function key = { str(p, l->name), str(p, l->system_name), str(p, l->file),
				   l->start_line };
	bool made;
	uint64_t id = intern(p, p->function_ids, &key, sizeof(key), (void **)&p->functions,
			     &p->nfunctions, &p->functions_cap, sizeof(*p->functions), &made);

	if (id && made)
		p->functions[id - 1] = key;
	return id;
}

uint64_t pprof_location(struct gs_pprof *p, const struct pprof_map *map, uint64_t address,
			const struct pprof_line *lines, size_t n)
{
	uint64_t key[2] = { map ? mapping_id(p, map) : 0, address };
	struct pp_location *loc;
	struct pp_mapping *m;
	bool made;
	uint64_t id;

	if (map && !key[0])
		return 0;
	id = intern(p, p->location_ids, key, sizeof(key), (void **)&p->locations, &p->nlocations,
		    &p->locations_cap, sizeof(*p->locations), &made);
	if (!id || !made)
		return id;
	if (base_grow((void **)&p->lines, &p->lines_cap, p->nlines + n, sizeof(*p->lines))) {
		p->nomem = true;
		return 0;
	}
	loc = &p->locations[id - 1];
	*loc = (struct pp_location){ .mapping = key[0], .address = address, .line0 = p->nlines };
	m = key[0] ? &p->mappings[key[0] - 1] : NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t f = function_id(p, &lines[i]);

		if (!f)
			return 0;
		p->lines[p->nlines++] = (struct pp_line){ .function = f, .line = lines[i].line };
		loc->nlines++;
		if (m) {
			m->functions = true;
			m->lines |= lines[i].line > 0;
		}
	}
	if (m)
		m->inlines |= n > 1;
	return id;
}

/* A label's text as the profile keeps it: escaped (pprof's strings are
 * UTF-8; these come from targets) and bounded. */
#define LABEL_TEXT_MAX 1024

uint64_t pprof_labels(struct gs_pprof *p, const struct gs_event *ev)
{
	struct gs_pprof_label in[GS_PPROF_LABELS_MAX];
	int64_t key[2 * GS_PPROF_LABELS_MAX];
	char text[LABEL_TEXT_MAX];
	size_t n, k = 0;
	uint64_t id;
	bool made;

	if (!p->o.labels)
		return 0;
	n = p->o.labels(p->o.labels_arg, ev, in, GS_PPROF_LABELS_MAX);
	for (size_t i = 0; i < n && i < GS_PPROF_LABELS_MAX; i++) {
		if (!in[i].key || !in[i].key[0] || !in[i].value || !in[i].value[0])
			continue;
		gs_render_escaped(in[i].key, strlen(in[i].key), 0, text, sizeof(text));
		key[k++] = str(p, text);
		gs_render_escaped(in[i].value, strlen(in[i].value), 0, text, sizeof(text));
		key[k++] = str(p, text);
	}
	if (!k || p->nomem)
		return 0;
	id = intern(p, p->labelset_ids, key, k * sizeof(*key), (void **)&p->labelsets,
		    &p->nlabelsets, &p->labelsets_cap, sizeof(*p->labelsets), &made);
	if (id && made) {
		if (base_grow((void **)&p->pairs, &p->pairs_cap, p->npairs + k, sizeof(*p->pairs))) {
			p->nomem = true;
			return 0;
		}
		memcpy(p->pairs + p->npairs, key, k * sizeof(*key));
		p->labelsets[id - 1] = (struct pp_labelset){ .at = p->npairs, .n = k / 2 };
		p->npairs += k;
	}
	return id;
}

int pprof_sample(struct gs_pprof *p, const uint64_t *locs, size_t nlocs, uint32_t pid,
		 uint32_t tid, uint64_t trace, uint64_t labels, uint64_t n)
{
	struct pp_sample_head head = { pid, tid, trace, labels };
	size_t words = sizeof(head) / sizeof(uint64_t) + nlocs;

	if (p->nomem || base_grow((void **)&p->key, &p->key_cap, words, sizeof(*p->key)))
		return -ENOMEM;
	memcpy(p->key, &head, sizeof(head));
	memcpy(p->key + sizeof(head) / sizeof(uint64_t), locs, nlocs * sizeof(*locs));
	return gs_counts_add(p->samples, p->key, words * sizeof(*p->key), n, NULL) < 0 ? -ENOMEM
										       : 0;
}

struct gs_frames *pprof_frames(struct gs_pprof *p)
{
	return p->frames;
}

int gs_pprof_new(const struct gs_pprof_opts *opts, struct gs_pprof **out, struct gs_error *err)
{
	struct gs_pprof *p;
	int rc;

	*out = NULL;
	if (!(p = calloc(1, sizeof(*p))))
		return gs_errorf(err, -ENOMEM, "out of memory for the pprof profile");
	rc = OPTS_COPY(&p->o, opts, gs_pprof_opts, err);
	if (rc) {
		free(p);
		return rc;
	}
	p->frames = p->o.frames;
	if (!p->frames) {
		struct gs_frames_opts fo = { .sz = sizeof(fo) };

		rc = gs_frames_new(&fo, &p->own_frames, err);
		if (rc) {
			free(p);
			return rc;
		}
		p->frames = p->own_frames;
	}
	p->string_ids = gs_counts_new();
	p->mapping_ids = gs_counts_new();
	p->function_ids = gs_counts_new();
	p->location_ids = gs_counts_new();
	p->samples = gs_counts_new();
	p->labelset_ids = gs_counts_new();
	if (p->string_ids) {
		p->sample_type = str(p, p->o.sample_type ? p->o.sample_type : "samples");
		p->sample_unit = str(p, p->o.sample_unit ? p->o.sample_unit : "count");
		p->period_type = str(p, p->o.period_type);
		p->period_unit = str(p, p->o.period_unit);
		p->label_pid = str(p, "pid");
		p->label_tid = str(p, "tid");
		p->label_trace = str(p, "trace");
	}
	if (!p->string_ids || !p->mapping_ids || !p->function_ids || !p->location_ids ||
	    !p->samples || !p->labelset_ids || p->nomem) {
		gs_pprof_free(p);
		return gs_errorf(err, -ENOMEM, "out of memory for the pprof profile");
	}
	/* the caller's strings are borrowed for the call only */
	p->o.sample_type = p->o.sample_unit = p->o.period_type = p->o.period_unit = NULL;
	p->o.frames = NULL;
	*out = p;
	return 0;
}

void gs_pprof_free(struct gs_pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	gs_counts_free(p->string_ids);
	gs_counts_free(p->mapping_ids);
	gs_counts_free(p->function_ids);
	gs_counts_free(p->location_ids);
	gs_counts_free(p->samples);
	free(p->mappings);
	free(p->functions);
	free(p->locations);
	free(p->lines);
	free(p->key);
	gs_counts_free(p->labelset_ids);
	free(p->labelsets);
	free(p->pairs);
	gs_frames_free(p->own_frames);
	free(p);
}

void gs_pprof_clear_samples(struct gs_pprof *p)
{
	struct gs_counts *fresh = gs_counts_new();

	if (!fresh) {
		p->nomem = true;
		return;
	}
	gs_counts_free(p->samples);
	p->samples = fresh;
}

void gs_pprof_set_duration(struct gs_pprof *p, uint64_t duration_ns)
{
	p->o.duration_ns = duration_ns;
}

size_t gs_pprof_samples(const struct gs_pprof *p)
{
	return gs_counts_size(p->samples);
}

uint64_t gs_pprof_total(const struct gs_pprof *p)
{
	return gs_counts_total(p->samples);
}

/* ---- writing -------------------------------------------------------------- */

/* The messages of one profile, pointing into the tables and into these
 * arrays; freed at once. */
struct pp_msgs {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType sample_type, period_type;
	Perftools__Profiles__ValueType *sample_type_v[1];
	Perftools__Profiles__Mapping *mappings, **mapping_v;
	Perftools__Profiles__Function *functions, **function_v;
	Perftools__Profiles__Location *locations, **location_v;
	Perftools__Profiles__Line *lines, **line_v;
	Perftools__Profiles__Sample *samples, **sample_v;
	Perftools__Profiles__Label *labels, **label_v;
	int64_t *values;
	char **strings;
	struct gs_count *counts;
};

static void msgs_free(struct pp_msgs *m)
{
	free(m->mappings);
	free(m->mapping_v);
	free(m->functions);
	free(m->function_v);
	free(m->locations);
	free(m->location_v);
	free(m->lines);
	free(m->line_v);
	free(m->samples);
	free(m->sample_v);
	free(m->labels);
	free(m->label_v);
	free(m->values);
	free(m->strings);
	free(m->counts);
}

#define ALLOC(v, n) ((v) = calloc((n) != 0 ? (n) : 1, sizeof(*(v))))

static bool msgs_tables(struct gs_pprof *p, struct pp_msgs *m)
{
	if (!ALLOC(m->mappings, p->nmappings) || !ALLOC(m->mapping_v, p->nmappings) ||
	    !ALLOC(m->functions, p->nfunctions) || !ALLOC(m->function_v, p->nfunctions) ||
	    !ALLOC(m->locations, p->nlocations) || !ALLOC(m->location_v, p->nlocations) ||
	    !ALLOC(m->lines, p->nlines) || !ALLOC(m->line_v, p->nlines) ||
	    !ALLOC(m->strings, p->nstrings + 1))
		return false;
	m->strings[0] = "";
	for (size_t i = 0; i < p->nstrings; i++)
		m->strings[i + 1] = p->strings[i];
	for (size_t i = 0; i < p->nmappings; i++) {
		const struct pp_mapping *s = &p->mappings[i];
		Perftools__Profiles__Mapping *d = &m->mappings[i];

		perftools__profiles__mapping__init(d);
		d->id = i + 1;
		d->memory_start = s->start;
		d->memory_limit = s->limit;
		d->file_offset = s->file_offset;
		d->filename = s->file;
		d->build_id = s->build_id;
		d->has_functions = s->functions;
		d->has_filenames = s->functions;
		d->has_line_numbers = s->lines;
		d->has_inline_frames = s->inlines;
		m->mapping_v[i] = d;
	}
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct pp_function *s = &p->functions[i];
		Perftools__Profiles__Function *d = &m->functions[i];

		perftools__profiles__function__init(d);
		d->id = i + 1;
		d->name = s->name;
		d->system_name = s->system_name;
		d->filename = s->file;
		d->start_line = s->start_line;
		m->function_v[i] = d;
	}
	for (size_t i = 0; i < p->nlines; i++) {
		perftools__profiles__line__init(&m->lines[i]);
		m->lines[i].function_id = p->lines[i].function;
		m->lines[i].line = p->lines[i].line;
		m->line_v[i] = &m->lines[i];
	}
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct pp_location *s = &p->locations[i];
		Perftools__Profiles__Location *d = &m->locations[i];

		perftools__profiles__location__init(d);
		d->id = i + 1;
		d->mapping_id = s->mapping;
		d->address = s->address;
		d->n_line = s->nlines;
		d->line = s->nlines ? &m->line_v[s->line0] : NULL;
		m->location_v[i] = d;
	}
	return true;
}

/* The string labels of a sample's key (none for 0). */
static const struct pp_labelset *labelset(const struct gs_pprof *p, uint64_t id)
{
	static const struct pp_labelset none;

	return id && id <= p->nlabelsets ? &p->labelsets[id - 1] : &none;
}

static bool msgs_samples(struct gs_pprof *p, struct pp_msgs *m)
{
	size_t n = gs_counts_size(p->samples), head = sizeof(struct pp_sample_head), nlabels = 0;
	size_t at = 0;

	m->counts = n ? gs_counts_sorted(p->samples) : NULL;
	if (n && !m->counts)
		return false;
	for (size_t i = 0; i < n; i++) {
		struct pp_sample_head h;

		memcpy(&h, m->counts[i].key, head);
		nlabels += 3 + labelset(p, h.labels)->n;
	}
	if (!ALLOC(m->samples, n) || !ALLOC(m->sample_v, n) || !ALLOC(m->values, n) ||
	    !ALLOC(m->labels, nlabels) || !ALLOC(m->label_v, nlabels))
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct gs_count *c = &m->counts[i];
		Perftools__Profiles__Sample *d = &m->samples[i];
		Perftools__Profiles__Label *l = &m->labels[at];
		const struct pp_labelset *set;
		struct pp_sample_head h;
		char trace[24];
		size_t nl = 0;

		memcpy(&h, c->key, head);
		set = labelset(p, h.labels);
		perftools__profiles__sample__init(d);
		d->n_location_id = (c->len - head) / sizeof(uint64_t);
		d->location_id = (uint64_t *)((char *)c->key + head); /* aligned: malloc'd key */
		m->values[i] = (int64_t)c->count;
		d->n_value = 1;
		d->value = &m->values[i];
		for (size_t k = 0; k < 3 + set->n; k++)
			perftools__profiles__label__init(&l[k]);
		if (h.pid) {
			l[nl].key = p->label_pid;
			l[nl++].num = h.pid;
		}
		if (h.tid) {
			l[nl].key = p->label_tid;
			l[nl++].num = h.tid;
		}
		/* a string: proto3 cannot tell a number 0 from no number */
		snprintf(trace, sizeof(trace), "%" PRIu64, h.trace);
		l[nl].key = p->label_trace;
		l[nl++].str = str(p, trace);
		for (size_t k = 0; k < set->n; k++) {
			l[nl].key = p->pairs[set->at + 2 * k];
			l[nl++].str = p->pairs[set->at + 2 * k + 1];
		}
		for (size_t k = 0; k < nl; k++)
			m->label_v[at + k] = &l[k];
		d->n_label = nl;
		d->label = &m->label_v[at];
		m->sample_v[i] = d;
		at += 3 + set->n;
	}
	return true;
}

static bool msgs_build(struct gs_pprof *p, struct pp_msgs *m)
{
	Perftools__Profiles__Profile *pr = &m->prof;

	/* samples first: their trace labels add strings */
	if (!msgs_samples(p, m) || p->nomem || !msgs_tables(p, m))
		return false;
	perftools__profiles__profile__init(pr);
	perftools__profiles__value_type__init(&m->sample_type);
	m->sample_type.type = p->sample_type;
	m->sample_type.unit = p->sample_unit;
	m->sample_type_v[0] = &m->sample_type;
	pr->n_sample_type = 1;
	pr->sample_type = m->sample_type_v;
	pr->n_sample = gs_counts_size(p->samples);
	pr->sample = m->sample_v;
	pr->n_mapping = p->nmappings;
	pr->mapping = m->mapping_v;
	pr->n_location = p->nlocations;
	pr->location = m->location_v;
	pr->n_function = p->nfunctions;
	pr->function = m->function_v;
	pr->n_string_table = p->nstrings + 1;
	pr->string_table = m->strings;
	pr->time_nanos = p->o.time_ns;
	pr->duration_nanos = (int64_t)p->o.duration_ns;
	if (p->period_type) {
		perftools__profiles__value_type__init(&m->period_type);
		m->period_type.type = p->period_type;
		m->period_type.unit = p->period_unit;
		pr->period_type = &m->period_type;
		pr->period = p->o.period;
	}
	return true;
}

/* bytes gzipped into f: 0, -ENOMEM, -EIO. */
static int gzip_to(const uint8_t *bytes, size_t len, FILE *f)
{
	unsigned char out[16384];
	z_stream z = { 0 };
	int zr, rc = 0;

	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)bytes;
	do {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;

		z.avail_in = (uInt)chunk;
		len -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			if (fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
			    sizeof(out) - z.avail_out)
				rc = -EIO;
		} while (rc == 0 && z.avail_out == 0);
	} while (rc == 0 && len);
	if (rc == 0 && zr != Z_STREAM_END)
		rc = -EIO;
	deflateEnd(&z);
	return rc;
}

int gs_pprof_write(struct gs_pprof *p, FILE *f, struct gs_error *err)
{
	struct pp_msgs m = { 0 };
	uint8_t *buf = NULL;
	size_t len;
	int rc;

	if (p->nomem || !msgs_build(p, &m)) {
		msgs_free(&m);
		return gs_errorf(err, -ENOMEM, "out of memory writing the pprof profile");
	}
	len = perftools__profiles__profile__get_packed_size(&m.prof);
	if (!(buf = malloc(len ? len : 1))) {
		msgs_free(&m);
		return gs_errorf(err, -ENOMEM, "out of memory writing the pprof profile");
	}
	perftools__profiles__profile__pack(&m.prof, buf);
	msgs_free(&m);
	rc = gzip_to(buf, len, f);
	free(buf);
	if (rc == 0 && fflush(f) != 0)
		rc = -EIO;
	if (rc == -ENOMEM)
		return gs_errorf(err, rc, "out of memory compressing the pprof profile");
	if (rc)
		return gs_errorf(err, rc, "could not write the pprof profile: %s", strerror(errno));
	return 0;
}
