/* The kernel maps of a program: creation from the program's map specs (with
 * a pool for the maps every trace of a session shares), lookup by name, and
 * the gs_map_writer the unwind layer writes through, which turns runs of
 * array updates into one copy through a mapping of the map (ARRAY maps are
 * created mmapable), else bpf_map_update_batch calls. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <gs/internal/program.h>
#include <gs/runtime.h>

#include "base.h"
#include "rt_int.h"

#define BATCH_CHUNK 8192u   /* elements per bpf_map_update_batch call */
#define KERNEL_ENOTSUPP 524 /* the kernel-internal "not supported" */

/* Updates held back: values for keys first_key.. of maps->v[map]. */
struct gs_bpf_batch {
	size_t map;
	uint32_t first_key;
	size_t n;          /* elements held */
	size_t cap;        /* room in values, in bytes: the maps' value sizes differ */
	uint8_t *values;
	bool no_batch;     /* the kernel refused batch updates once */
	struct gs_error err;
	/* The writers' last map name (the callers pass the same constant
	 * string for a run of updates) and its index (a pool's v may move as
	 * it grows): one compare a row instead of a search of the maps. */
	const char *last_name;
	size_t last_idx;
};

/* Maps the reference pins per session (gs_map_defs says which): the same
 * contents serve every trace. The row maps hold one module's rows at 0..
 * in a one-module plan, so they are shared only with module ranges. */
static bool shareable(const struct gs_program *p, const struct gs_map_spec *spec)
{
	return spec->share == GS_MAP_PER_SESSION ||
	       (spec->share == GS_MAP_PER_SESSION_WITH_RANGES &&
		p->map_index[GS_MAP_BT_ROW_RANGES] >= 0);
}

int gs_bpf_permitted(struct gs_error *err)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "gs_probe", 4, 4, 1, NULL);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (fd == -EPERM)
		return gs_errorf(err, fd, "bpf() is not permitted (EPERM): run as root, or with "
				 "CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN on kernels before 5.8)");
	if (fd == -ENOSYS)
		return gs_errorf(err, fd, "this kernel has no bpf() system call: it was built "
				 "without CONFIG_BPF_SYSCALL");
	return gs_errorf(err, fd, "bpf(BPF_MAP_CREATE) of a 1-entry array failed: %s",
			 strerror(-fd));
}

const struct gs_bpf_map *gs_bpf_maps_find(const struct gs_bpf_maps *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i].name, name) == 0)
			return &m->v[i];
	return NULL;
}

static bool same_shape(const struct gs_bpf_map *a, const struct gs_bpf_map *b)
{
	return a->type == b->type && a->key_size == b->key_size &&
	       a->value_size == b->value_size && a->max_entries == b->max_entries;
}

static int add_to(struct gs_bpf_maps *m, const struct gs_bpf_map *map, struct gs_error *err)
{
	if (base_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)))
		return gs_errorf(err, -ENOMEM, "out of memory recording map %s", map->name);
	m->v[m->n++] = *map;
	return 0;
}

/* The fd for `want`: a dup of the pool's map of that name and shape, else a
 * new map (added to the pool when shareable). */
static int open_map(const struct gs_program *p, const struct gs_map_spec *spec,
		    struct gs_bpf_maps *pool, struct gs_bpf_map *want, struct gs_error *err)
{
	bool share = pool && shareable(p, spec);
	const struct gs_bpf_map *have = share ? gs_bpf_maps_find(pool, want->name) : NULL;
	struct gs_bpf_map pooled;
	int fd;

	if (have && same_shape(have, want)) {
		fd = fcntl(have->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return gs_errorf(err, -errno, "cannot duplicate the fd of shared map %s: %s",
					 want->name, strerror(errno));
		want->fd = fd;
		want->flags = have->flags;
		return 0;
	}
	fd = -EINVAL;
	/* Userspace fills ARRAY maps (rows, pages, modules) in bulk: through
	 * a mapping that is one copy, where the update syscalls cost ~0.3 us
	 * per element. Kernels before 5.5 refuse the flag. */
	if (want->type == BPF_MAP_TYPE_ARRAY) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_MMAPABLE);

		fd = bpf_map_create(want->type, want->name, want->key_size, want->value_size,
				    want->max_entries, &mo);
		want->flags = fd >= 0 ? BPF_F_MMAPABLE : 0;
	}
	/* $duration's entry times: an LRU list per CPU, not one behind a
	 * lock that every entry and return of every CPU takes. */
	if (want->type == BPF_MAP_TYPE_LRU_HASH) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_COMMON_LRU);

		fd = bpf_map_create(want->type, want->name, want->key_size, want->value_size,
				    want->max_entries, &mo);
	}
	if (fd == -EINVAL)
		fd = bpf_map_create(want->type, want->name, want->key_size, want->value_size,
				    want->max_entries, NULL);
	if (fd < 0)
		return gs_errorf(err, fd, "the kernel refused map %s of %s (type %u, key %u, value "
				 "%u, %u entries): %s%s", want->name, p->name, want->type,
				 want->key_size, want->value_size, want->max_entries, strerror(-fd),
				 fd == -ENOMEM || fd == -E2BIG ? "; lower the map sizes" :
				 fd == -EPERM ? "; run as root, or with CAP_BPF (CAP_SYS_ADMIN before "
				 "Linux 5.8)" : "");
	want->fd = fd;
	if (!have && share) {
		pooled = *want;
		pooled.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (pooled.fd < 0)
			return gs_errorf(err, -errno, "cannot duplicate the fd of map %s: %s",
					 want->name, strerror(errno));
		if (add_to(pool, &pooled, err)) {
			close(pooled.fd);
			return err ? err->code : -ENOMEM;
		}
	}
	return 0;
}

int gs_bpf_maps_create(const struct gs_program *p, struct gs_bpf_maps *pool,
		       struct gs_bpf_maps *out, struct gs_error *err)
{
	int ncpus, rc;

	memset(out, 0, sizeof(*out));
	out->v = calloc(p->nmaps ? p->nmaps : 1, sizeof(*out->v));
	if (!out->v)
		return gs_errorf(err, -ENOMEM, "out of memory for the %zu maps of %s", p->nmaps,
				 p->name);
	out->cap = p->nmaps ? p->nmaps : 1;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct gs_map_spec *s = &p->maps[i];
		struct gs_bpf_map *m = &out->v[i];

		snprintf(m->name, sizeof(m->name), "%s", s->name);
		m->type = s->type;
		m->key_size = s->key_size;
		m->value_size = s->value_size;
		m->max_entries = s->max_entries;
		m->fd = -1;
		out->n = i + 1;
		if (s->type == BPF_MAP_TYPE_PERF_EVENT_ARRAY && s->max_entries == 0) {
			ncpus = libbpf_num_possible_cpus();
			if (ncpus < 0) {
				rc = gs_errorf(err, ncpus, "map %s of %s: cannot count the possible "
					       "CPUs (/sys/devices/system/cpu/possible): %s",
					       s->name, p->name, strerror(-ncpus));
				goto fail;
			}
			m->max_entries = (uint32_t)ncpus;
		}
		rc = open_map(p, s, pool, m, err);
		if (rc)
			goto fail;
	}
	return 0;
fail:
	gs_bpf_maps_close(out);
	return rc;
}

/* ---- batched writes ------------------------------------------------------ */

static bool batch_unsupported(int rc)
{
	return rc == -EINVAL || rc == -EOPNOTSUPP || rc == -KERNEL_ENOTSUPP || rc == -ENOSYS;
}

/* An mmapable ARRAY map: values straight into the kernel's array (each
 * element padded to 8 bytes, as the kernel lays them out). 1 when the
 * mapping is not available (then the caller writes through bpf()). */
static int update_mapped(const struct gs_bpf_map *map, const uint8_t *keys, const uint8_t *values,
			 size_t n, struct gs_error *err)
{
	size_t stride = ((size_t)map->value_size + 7) & ~(size_t)7;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t start, len;
	uint32_t lo = UINT32_MAX, hi = 0;
	uint8_t *mem;

	if (!(map->flags & BPF_F_MMAPABLE) || map->type != BPF_MAP_TYPE_ARRAY ||
	    map->key_size != sizeof(uint32_t) || !map->max_entries)
		return 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t k;

		memcpy(&k, keys + i * sizeof(k), sizeof(k));
		if (k >= map->max_entries)
			return gs_errorf(err, -E2BIG, "update of %s element %u: past its %u entries",
					 map->name, k, map->max_entries);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	/* Only the pages the keys land in: mapping the whole array put every
	 * page a run touched into gstrace's resident memory at once. */
	start = (size_t)lo * stride & ~(page - 1);
	len = (((size_t)hi + 1) * stride - start + page - 1) & ~(page - 1);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, map->fd, (off_t)start);
	if (mem == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t k;

		memcpy(&k, keys + i * sizeof(k), sizeof(k));
		memcpy(mem + (size_t)k * stride - start, values + i * map->value_size,
		       map->value_size);
	}
	munmap(mem, len);
	return 0;
}

static int update_many(const struct gs_bpf_map *map, const uint8_t *keys, const uint8_t *values,
		       size_t n, bool *no_batch, struct gs_error *err)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	size_t done = 0;
	int rc = n ? update_mapped(map, keys, values, n, err) : 0;

	if (rc <= 0)
		return rc;
	while (done < n && !*no_batch) {
		uint32_t count = n - done < BATCH_CHUNK ? (uint32_t)(n - done) : BATCH_CHUNK;

		rc = bpf_map_update_batch(map->fd, keys + done * map->key_size,
					  values + done * map->value_size, &count, &opts);
		if (rc == 0) {
			done += count;
			continue;
		}
		if (!batch_unsupported(rc))
			return gs_errorf(err, rc, "batch update of %s (%zu elements from the %zu-th) "
					 "failed: %s", map->name, n - done, done, strerror(-rc));
		*no_batch = true; /* retried element by element: they say which one fails */
	}
	for (; done < n; done++) {
		rc = bpf_map_update_elem(map->fd, keys + done * map->key_size,
					 values + done * map->value_size, BPF_ANY);
		if (rc)
			return gs_errorf(err, rc, "update of %s element %zu failed: %s", map->name, done,
					 strerror(-rc));
	}
	return 0;
}

int rt_map_update_many(const struct gs_bpf_map *map, const void *keys, const void *values,
		       size_t n, struct gs_error *err)
{
	bool no_batch = false;

	return update_many(map, keys, values, n, &no_batch, err);
}

int gs_bpf_maps_flush(struct gs_bpf_maps *m, struct gs_error *err)
{
	struct gs_bpf_batch *b = m->batch;
	uint32_t *keys;
	int rc;

	if (!b || b->n == 0)
		return 0;
	keys = malloc(b->n * sizeof(*keys));
	if (!keys)
		return gs_errorf(err, -ENOMEM, "out of memory writing %zu elements of %s", b->n,
				 m->v[b->map].name);
	for (size_t i = 0; i < b->n; i++)
		keys[i] = b->first_key + (uint32_t)i;
	rc = update_many(&m->v[b->map], (const uint8_t *)keys, b->values, b->n, &b->no_batch, err);
	free(keys);
	b->n = 0;
	return rc;
}

/* Flushes before an operation that is not the next key of the held run;
 * a failure is kept in the batch's error for the caller to read. */
static int flush_for_writer(struct gs_bpf_maps *m)
{
	struct gs_bpf_batch *b = m->batch;

	return b ? gs_bpf_maps_flush(m, &b->err) : 0;
}

static struct gs_bpf_map *map_named(struct gs_bpf_maps *m, const char *name)
{
	return (struct gs_bpf_map *)gs_bpf_maps_find(m, name);
}

/* Holds an array update back when it extends the run; 1 when held, 0 when
 * the caller must write it now, -ENOMEM. */
static int hold(struct gs_bpf_maps *m, struct gs_bpf_map *map, const void *key, const void *value)
{
	struct gs_bpf_batch *b = m->batch;
	size_t idx = (size_t)(map - m->v);
	uint32_t k;

	if (map->type != BPF_MAP_TYPE_ARRAY || map->key_size != sizeof(k))
		return 0;
	memcpy(&k, key, sizeof(k));
	if (!b) {
		b = m->batch = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
	}
	/* A run is written out every BATCH_CHUNK elements: the buffer stays
	 * small whatever a module's rows are (libc's: 0.5 MB). */
	if (b->n && (b->map != idx || k != b->first_key + b->n || b->n >= BATCH_CHUNK))
		return 0;
	if (base_grow((void **)&b->values, &b->cap, (b->n + 1) * map->value_size, 1))
		return -ENOMEM;
	if (b->n == 0) {
		b->map = idx;
		b->first_key = k;
	}
	memcpy(b->values + b->n * map->value_size, value, map->value_size);
	b->n++;
	return 1;
}

static int writer_update(void *ctx, const char *name, const void *key, const void *value)
{
	struct gs_bpf_maps *m = ctx;
	struct gs_bpf_batch *b = m->batch;
	/* the last map, checked: a name built in a reused buffer moves on */
	struct gs_bpf_map *map = b && b->last_name == name && b->last_idx < m->n &&
				 strcmp(m->v[b->last_idx].name, name) == 0 ?
				 &m->v[b->last_idx] : map_named(m, name);
	int rc;

	if (!map)
		return -ENOENT;
	rc = hold(m, map, key, value);
	if (m->batch) {
		m->batch->last_name = name;
		m->batch->last_idx = (size_t)(map - m->v);
	}
	if (rc != 0)
		return rc < 0 ? rc : 0;
	rc = flush_for_writer(m);
	if (rc)
		return rc;
	if (hold(m, map, key, value) == 1)
		return 0;
	return bpf_map_update_elem(map->fd, key, value, BPF_ANY);
}

static int writer_remove(void *ctx, const char *name, const void *key)
{
	struct gs_bpf_maps *m = ctx;
	struct gs_bpf_map *map = map_named(m, name);
	int rc;

	if (!map)
		return -ENOENT;
	rc = flush_for_writer(m);
	return rc ? rc : bpf_map_delete_elem(map->fd, key);
}

static int writer_lookup(void *ctx, const char *name, const void *key, void *value)
{
	struct gs_bpf_maps *m = ctx;
	struct gs_bpf_map *map = map_named(m, name);
	int rc;

	if (!map)
		return -ENOENT;
	rc = flush_for_writer(m);
	return rc ? rc : bpf_map_lookup_elem(map->fd, key, value);
}

void gs_bpf_maps_writer(struct gs_bpf_maps *m, struct gs_map_writer *w)
{
	*w = (struct gs_map_writer){
		.ctx = m,
		.update = writer_update,
		.remove = writer_remove,
		.lookup = writer_lookup,
	};
}

void gs_bpf_maps_close(struct gs_bpf_maps *m)
{
	if (m->batch) {
		gs_bpf_maps_flush(m, NULL);
		free(m->batch->values);
		free(m->batch);
	}
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].fd >= 0)
			close(m->v[i].fd);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
