/* Reading the aggregations (gs_aggs, one map for every @name of a
 * session): each entry's per-CPU values merged (counts and sums added,
 * the least min and greatest max of the CPUs that saw the key), a
 * histogram's bucket entries gathered under their key, one table per
 * @name handed to the caller. BPF only adds entries: a key that
 * disappears between the walk and the lookup is skipped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <gs/internal/program.h>
#include <gs/runtime.h>

#include "rt_int.h"

struct record {
	struct gs_agg_key key;
	struct gs_agg_value value;
};

static int by_key(const void *a, const void *b)
{
	const struct record *x = a, *y = b;

	if (x->key.id != y->key.id)
		return x->key.id < y->key.id ? -1 : 1;
	return memcmp(x->key.keys, y->key.keys, sizeof(x->key.keys));
}

static void merge(struct gs_agg_value *into, const struct gs_agg_value *v)
{
	if (!v->count)
		return;
	if (!into->count || v->min < into->min)
		into->min = v->min;
	if (!into->count || v->max > into->max)
		into->max = v->max;
	into->count += v->count;
	into->sum += v->sum;
}

/* Room for one more record: 0 or -ENOMEM. */
static int grow(struct record **v, size_t n, size_t *cap)
{
	size_t ncap = *cap ? 2 * *cap : 64;
	struct record *nv;

	if (n < *cap)
		return 0;
	if (!(nv = realloc(*v, ncap * sizeof(*nv))))
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* Keys per batched read: a 10k-key scrape in three calls instead of 20k. */
#define BATCH 4096

/* Every entry read in batches (BPF_MAP_LOOKUP_BATCH, Linux 5.6+): 0,
 * -ENOMEM, or -EOPNOTSUPP / -EINVAL where the kernel has no batches for
 * the map (the caller walks it key by key then, from the start). */
static int read_batched(const struct gs_bpf_map *m, int ncpus, struct record **v, size_t *n,
			size_t *cap)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	size_t vsize = (size_t)ncpus * sizeof(struct gs_agg_value);
	uint8_t *keys = malloc((size_t)BATCH * m->key_size);
	struct gs_agg_value *vals = malloc(BATCH * vsize);
	uint8_t token[sizeof(struct gs_agg_key)];
	bool first = true, done = false;
	int rc = 0;

	if (!keys || !vals || m->key_size > sizeof(struct gs_agg_key)) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	while (!done && rc == 0) {
		uint32_t count = BATCH;

		if (bpf_map_lookup_batch(m->fd, first ? NULL : token, token, keys, vals, &count,
					 &opts)) {
			rc = -errno;
			if (rc != -ENOENT)
				break;
			done = true; /* the last batch, count entries in it */
			rc = 0;
		}
		first = false;
		for (uint32_t i = 0; i < count && rc == 0; i++) {
			struct record r = { 0 };

			memcpy(&r.key, keys + (size_t)i * m->key_size, m->key_size);
			for (int c = 0; c < ncpus; c++)
				merge(&r.value, &vals[(size_t)i * ncpus + c]);
			if ((rc = grow(v, *n, cap)) == 0)
				(*v)[(*n)++] = r;
		}
	}
	free(keys);
	free(vals);
	return rc;
}

/* Every entry of the map, CPUs merged, sorted by (id, keys). */
static int read_records(const struct gs_bpf_map *m, struct record **out, size_t *n,
			struct gs_error *err)
{
	int ncpus = libbpf_num_possible_cpus();
	struct gs_agg_value *percpu;
	struct record *v = NULL;
	size_t cap = 0;
	/* a map's key may be shorter than the struct (agg_key_bytes): the
	 * rest stays 0 */
	struct gs_agg_key key = { 0 }, next = { 0 };
	bool first = true;
	int rc;

	*n = 0;
	if (ncpus <= 0)
		return gs_errorf(err, ncpus ? ncpus : -EINVAL, "cannot count the possible CPUs");
	rc = read_batched(m, ncpus, &v, n, &cap);
	if (rc == -ENOMEM) {
		free(v);
		return gs_errorf(err, -ENOMEM, "out of memory reading %s", GS_MAP_NAME_AGGS);
	}
	if (rc == 0)
		goto sort;
	*n = 0; /* no batches here: key by key */
	if (!(percpu = calloc((size_t)ncpus, sizeof(*percpu)))) {
		free(v);
		return gs_errorf(err, -ENOMEM, "out of memory reading %s", GS_MAP_NAME_AGGS);
	}
	while (bpf_map_get_next_key(m->fd, first ? NULL : &key, &next) == 0) {
		struct record r = { .key = next };

		first = false;
		key = next;
		if (bpf_map_lookup_elem(m->fd, &next, percpu) != 0)
			continue;
		for (int c = 0; c < ncpus; c++)
			merge(&r.value, &percpu[c]);
		if (grow(&v, *n, &cap)) {
			free(v);
			free(percpu);
			return gs_errorf(err, -ENOMEM, "out of memory reading %s", GS_MAP_NAME_AGGS);
		}
		v[(*n)++] = r;
	}
	free(percpu);
sort:
	if (*n)
		qsort(v, *n, sizeof(*v), by_key);
	*out = v;
	return 0;
}

/* The records of one @name (r[0..n), same id) into t's entries. */
static int table_of(const struct gs_agg_desc *d, const struct record *r, size_t n,
		    struct gs_agg_table *t)
{
	uint32_t nb = gs_agg_nbuckets(d);

	t->desc = d;
	t->n = 0;
	if (!(t->entries = calloc(n ? n : 1, sizeof(*t->entries))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct gs_agg_entry *e = t->n ? &t->entries[t->n - 1] : NULL;

		if (!e || memcmp(e->keys, r[i].key.keys, sizeof(e->keys))) {
			e = &t->entries[t->n++];
			memcpy(e->keys, r[i].key.keys, sizeof(e->keys));
			if (nb && !(e->buckets = calloc(nb, sizeof(*e->buckets))))
				return -ENOMEM;
			e->nbuckets = nb;
		}
		merge(&e->value, &r[i].value);
		if (nb && r[i].key.bucket < nb)
			e->buckets[r[i].key.bucket] += (uint64_t)r[i].value.count;
	}
	return 0;
}

static void table_free(struct gs_agg_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->entries[i].buckets);
	free(t->entries);
}

/* The session's aggregations in script order (by id), each @name once,
 * into a malloc'd array. */
static size_t descs_of(const struct gs_session *s, const struct gs_agg_desc ***out,
		       const struct gs_bpf_map **aggs, int *drops_fd)
{
	const struct gs_agg_desc **v = NULL;
	const struct gs_bpf_maps *maps;
	const struct gs_program *p;
	size_t n = 0;

	*aggs = NULL;
	*drops_fd = -1;
	for (size_t i = 0; (p = rt_session_trace(s, i, &maps)); i++) {
		if (p->map_index[GS_MAP_AGGS] < 0)
			continue;
		*aggs = &maps->v[p->map_index[GS_MAP_AGGS]];
		*drops_fd = maps->v[p->map_index[GS_MAP_AGG_DROPS]].fd;
		for (size_t k = 0; k < p->naggs; k++) {
			size_t j = 0;
			const struct gs_agg_desc **nv;

			while (j < n && v[j]->id != p->aggs[k].id)
				j++;
			if (j < n)
				continue;
			if (!(nv = realloc(v, (n + 1) * sizeof(*v))))
				break;
			v = nv;
			for (j = n++; j > 0 && v[j - 1]->id > p->aggs[k].id; j--)
				v[j] = v[j - 1];
			v[j] = &p->aggs[k];
		}
	}
	*out = v;
	return n;
}

int gs_session_aggregations(const struct gs_session *s, gs_agg_table_fn fn, void *arg,
			    uint64_t *dropped, struct gs_error *err)
{
	const struct gs_agg_desc **descs;
	struct record *r = NULL;
	size_t nd, nr = 0, at = 0;
	const struct gs_bpf_map *aggs;
	int drops_fd, rc;

	if (dropped)
		*dropped = 0;
	nd = descs_of(s, &descs, &aggs, &drops_fd);
	if (!aggs) {
		free(descs);
		return 0;
	}
	rc = read_records(aggs, &r, &nr, err);
	for (size_t i = 0; rc == 0 && i < nd; i++) {
		struct gs_agg_table t = { 0 };
		size_t end;

		while (at < nr && r[at].key.id < descs[i]->id)
			at++;
		for (end = at; end < nr && r[end].key.id == descs[i]->id; end++)
			;
		if (table_of(descs[i], r + at, end - at, &t) == 0)
			rc = fn(arg, &t);
		else
			rc = gs_errorf(err, -ENOMEM, "out of memory reading %s", descs[i]->name);
		table_free(&t);
		at = end;
	}
	if (rc == 0 && dropped && drops_fd >= 0) {
		int ncpus = libbpf_num_possible_cpus();
		uint64_t *v = ncpus > 0 ? calloc((size_t)ncpus, sizeof(*v)) : NULL;
		uint32_t zero = 0;

		if (v && bpf_map_lookup_elem(drops_fd, &zero, v) == 0)
			for (int c = 0; c < ncpus; c++)
				*dropped += v[c];
		free(v);
	}
	free(r);
	free(descs);
	return rc;
}
