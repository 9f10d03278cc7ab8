/* JIT frames (docs/jit.md): a frame whose pc is in no module's file is
 * named from the process's perf map (/tmp/perf-PID.map, as the runtime
 * wrote the name: `JS:*leaf /srv/app/x.js:1`), else, when the pc lies in
 * anonymous executable memory ([anon:...] and memfd mappings included),
 * shown as `[anon:jit] 0x...`. The frame list (frames_stack.c) asks for
 * a frame the resolver found in no module; what is kept per process is
 * here. */
#include <stdlib.h>
#include <string.h>

#include <gs/internal/modfile.h>
#include <gs/modfile.h>

#include "base.h"
#include "ev_int.h"

/* A perf map that misses, or maps that do not hold a pc, are read again
 * at most this often (a runtime writes its map as it compiles). */
#define JIT_REFRESH_NS 100000000ll
#define JIT_MAX_PIDS 64

struct jit_pid {
	pid_t pid;
	struct gs_perfmap *map; /* NULL: none written (yet) */
	int64_t map_ns;         /* last open or refresh */
	struct gs_maps maps;
	int64_t maps_ns;        /* 0: never read */
};

struct frames_jit {
	struct jit_pid pids[JIT_MAX_PIDS];
	size_t npids, next; /* next: the slot reused when all are taken */
};

static void pid_clear(struct jit_pid *p)
{
	gs_perfmap_free(p->map);
	gs_maps_free(&p->maps);
	memset(p, 0, sizeof(*p));
}

static struct jit_pid *pid_get(struct frames_jit *j, pid_t pid)
{
	struct jit_pid *p;

	for (size_t i = 0; i < j->npids; i++)
		if (j->pids[i].pid == pid)
			return &j->pids[i];
	if (j->npids < JIT_MAX_PIDS) {
		p = &j->pids[j->npids++];
	} else {
		p = &j->pids[j->next];
		j->next = (j->next + 1) % JIT_MAX_PIDS;
		pid_clear(p);
	}
	p->pid = pid;
	return p;
}

/* The perf map's name for ip, opening or reading the map on again (rate
 * limited) when it has none. */
static const char *perfmap_name(struct jit_pid *p, uint64_t ip, uint64_t *off)
{
	const char *name = gs_perfmap_lookup(p->map, ip, off);
	int64_t now;

	if (name)
		return name;
	now = base_now_ns();
	if (p->map_ns && now - p->map_ns < JIT_REFRESH_NS)
		return NULL;
	p->map_ns = now;
	if (!p->map)
		p->map = gs_perfmap_open(p->pid);
	else if (gs_perfmap_refresh(p->map) <= 0)
		return NULL;
	return gs_perfmap_lookup(p->map, ip, off);
}

static const struct gs_map_entry *mapping_of(const struct gs_maps *m, uint64_t ip)
{
	for (size_t i = 0; i < m->n; i++)
		if (ip >= m->entries[i].start && ip < m->entries[i].end)
			return &m->entries[i];
	return NULL;
}

/* Memory a JIT writes code into: executable and not a file's (anonymous,
 * a named anonymous mapping, or a memfd, which is a file in name only). */
static bool jit_memory(struct jit_pid *p, uint64_t ip)
{
	const struct gs_map_entry *e = mapping_of(&p->maps, ip);
	int64_t now = base_now_ns();

	if (!e && (!p->maps_ns || now - p->maps_ns >= JIT_REFRESH_NS)) {
		struct gs_maps fresh;

		p->maps_ns = now;
		if (gs_maps_read(p->pid, &fresh, NULL) == 0) {
			gs_maps_free(&p->maps);
			p->maps = fresh;
		}
		e = mapping_of(&p->maps, ip);
	}
	if (!e || e->perms[2] != 'x')
		return false;
	return e->kind == GS_MAP_ANON || !e->path || base_has_prefix(e->path, "[anon:") ||
	       base_has_prefix(e->path, "/memfd:");
}

bool frames_jit_name(struct frames_jit **jp, pid_t pid, uint64_t ip, const char **name,
		     uint64_t *off)
{
	struct jit_pid *p;

	*name = NULL;
	*off = 0;
	if (pid <= 0)
		return false;
	if (!*jp && !(*jp = calloc(1, sizeof(**jp))))
		return false;
	p = pid_get(*jp, pid);
	*name = perfmap_name(p, ip, off);
	return *name || jit_memory(p, ip);
}

void frames_jit_free(struct frames_jit *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->npids; i++)
		pid_clear(&j->pids[i]);
	free(j);
}
