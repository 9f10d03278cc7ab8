/* What an agent reports about a running session (docs/agent.md): each
 * trace's losses and drops read from its maps, the kernel's run time and
 * run count of its programs, and the memory the kernel charges for the
 * session's maps. Reads only: nothing here changes what the programs do. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <gs/internal/program.h>
#include <gs/runtime.h>

#include "session_int.h"

/* The session's entries (s->v) of plan trace i: *first and *n, clamped
 * to the probes that started. */
static int trace_entries(const struct gs_session *s, size_t i, size_t *first, size_t *n)
{
	size_t at = 0, ntraces = s->plan ? gs_plan_trace_count(s->plan) : 0;

	if (i >= ntraces)
		return -ENOENT;
	for (size_t k = 0; k < i; k++)
		at += gs_plan_trace_at(s->plan, k)->nprobes;
	*first = at < s->n ? at : s->n;
	*n = gs_plan_trace_at(s->plan, i)->nprobes;
	if (*first + *n > s->n)
		*n = s->n - *first;
	return 0;
}

/* Adds a per-CPU counter map's total to *sum (no map: nothing). */
static int add_counter(const struct session_trace *e, enum gs_map_slot id, uint64_t *sum,
		       struct gs_error *err)
{
	int at = e->prog->map_index[id];
	uint64_t v;
	int rc;

	if (at < 0)
		return 0;
	rc = gs_loss_read(&e->maps.v[at], &v, err);
	if (rc == 0)
		*sum += v;
	return rc;
}

/* Adds the kernel's run statistics of program fd (absent: -1). */
static int add_run(int fd, struct gs_trace_stats *st, struct gs_error *err)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return gs_errorf(err, -errno, "cannot read the statistics of BPF program fd %d: %s",
				 fd, strerror(errno));
	st->programs++;
	st->run_time_ns += info.run_time_ns;
	st->run_cnt += info.run_cnt;
	return 0;
}

int gs_session_trace_stats(const struct gs_session *s, size_t i, struct gs_trace_stats *st,
			   struct gs_error *err)
{
	bool agg_read = false;
	size_t first, n;
	int rc = trace_entries(s, i, &first, &n);

	memset(st, 0, sizeof(*st));
	if (rc)
		return rc;
	st->trace_id = gs_plan_trace_id(gs_plan_trace_at(s->plan, i));
	for (size_t k = first; rc == 0 && k < first + n; k++) {
		const struct session_trace *e = &s->v[k];

		rc = add_counter(e, GS_MAP_LOSS, &st->lost, err);
		if (rc == 0)
			rc = add_counter(e, GS_MAP_STACK_DROPS, &st->stacks_dropped, err);
		/* One map for the session's aggregations: read once. */
		if (rc == 0 && !agg_read && e->prog->map_index[GS_MAP_AGG_DROPS] >= 0) {
			rc = add_counter(e, GS_MAP_AGG_DROPS, &st->agg_dropped, err);
			agg_read = true;
		}
		if (rc == 0)
			rc = add_run(e->loaded.main_fd, st, err);
		if (rc == 0)
			rc = add_run(e->loaded.step_fd, st, err);
		if (rc == 0)
			rc = add_run(e->loaded.entry_fd, st, err);
	}
	return rc;
}

/* ---- the maps' memory ---- */

/* The map behind fd: its id and the bytes the kernel charges for it (the
 * memlock line of /proc/self/fdinfo, else the sizes of bpf_map_info). */
static bool map_charge(int fd, uint32_t *id, uint64_t *bytes)
{
	char path[64], line[128];
	bool have_id = false, have_bytes = false;
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			have_id |= sscanf(line, "map_id: %" SCNu32, id) == 1;
			have_bytes |= sscanf(line, "memlock: %" SCNu64, bytes) == 1;
		}
		fclose(f);
	}
	if (have_id && have_bytes)
		return true;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	*id = info.id;
	*bytes = (uint64_t)(info.key_size + info.value_size) * info.max_entries;
	return true;
}

struct charge {
	uint32_t id;
	uint64_t bytes;
};

struct charges {
	struct charge *v;
	size_t n, cap;
	uint64_t unlisted; /* bytes of maps no room was left to list */
};

static void list_maps(const struct gs_bpf_maps *m, struct charges *c)
{
	for (size_t i = 0; i < m->n; i++) {
		struct charge ch;

		if (m->v[i].fd < 0 || !map_charge(m->v[i].fd, &ch.id, &ch.bytes))
			continue;
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 64;
			struct charge *v = realloc(c->v, cap * sizeof(*v));

			if (!v) {
				c->unlisted += ch.bytes; /* perhaps counted twice: not lost */
				continue;
			}
			c->v = v;
			c->cap = cap;
		}
		c->v[c->n++] = ch;
	}
}

static int by_id(const void *a, const void *b)
{
	const struct charge *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Every map of the pool and of each probe, each once: a shared map is a
 * dup of the pool's, with the same id. */
uint64_t gs_session_map_bytes(const struct gs_session *s)
{
	struct charges c = { 0 };
	uint64_t total;

	list_maps(&s->pool, &c);
	for (size_t i = 0; i < s->n; i++)
		list_maps(&s->v[i].maps, &c);
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), by_id);
	total = c.unlisted;
	for (size_t i = 0; i < c.n; i++)
		if (i == 0 || c.v[i].id != c.v[i - 1].id)
			total += c.v[i].bytes;
	free(c.v);
	return total;
}

int gs_bpf_run_stats_enable(struct gs_error *err)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0)
		return gs_errorf(err, -errno, "cannot turn on the kernel's BPF run-time statistics "
				 "(BPF_ENABLE_STATS, Linux 5.8+): %s%s", strerror(errno),
				 errno == EPERM ? " (run as root, or with CAP_SYS_ADMIN)" : "");
	return fd;
}
