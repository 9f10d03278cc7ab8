/* The processes whose modules a session's pooled maps hold: the traced
 * process, or in target mode every process mapping a traced module, or
 * for CPU samples of -t and --all every process of the scope, found by a
 * quick look at /proc ten times a second; their maps read again when they
 * change (a dlopen, an exec), and those that exit forgotten. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "base.h"
#include "session_int.h"

/* A write the maps refused for lack of room (hash map: E2BIG; rows,
 * module regions: ENOSPC). */
static bool maps_full(int rc)
{
	return rc == -E2BIG || rc == -ENOSPC;
}

static void drop_fill(struct gs_session *s, size_t i)
{
	gs_procfill_forget(&s->fills[i], &s->pool);
	gs_procfill_fini(&s->fills[i]);
	s->fills[i] = s->fills[--s->nfills];
	s->maps_full = false; /* room again */
}

int rt_session_refresh_fill(struct gs_session *s, size_t i, bool add_rows,
			    struct gs_error *err)
{
	int rc = gs_procfill_refresh(&s->fills[i], &s->pool, add_rows, err);
	bool gone = rc == -ENOENT || rc == -ESRCH;

	if (rc >= 0 || (s->pid > 0 && gone))
		return 0;
	if (s->pid > 0 || (!gone && !maps_full(rc)))
		return rc;
	drop_fill(s, i);
	if (!gone) {
		s->procs_skipped++;
		s->maps_full = true;
	}
	return 1;
}

/* Fills the pool with pid's modules, once per pid. A process the full
 * maps cannot hold is left out (none of it in the maps) and counted. */
int rt_session_fill_pid(struct gs_session *s, pid_t pid, struct gs_error *err)
{
	int rc;

	for (size_t i = 0; i < s->nfills; i++)
		if (s->fills[i].pid == pid)
			return 0;
	if (base_grow((void **)&s->fills, &s->fills_cap, s->nfills + 1, sizeof(*s->fills)))
		return gs_errorf(err, -ENOMEM, "out of memory filling the maps of pid %d", (int)pid);
	gs_procfill_init(&s->fills[s->nfills], pid, s->files);
	/* -p: rows of every module first, then where they are (target mode
	 * writes the plan's rows only). */
	s->fills[s->nfills].add_rows = s->pid > 0 || s->sample_scope;
	s->fills[s->nfills].skip_full = s->sample_scope != GS_SAMPLE_NONE;
	rc = gs_procfill_offsets(&s->fills[s->nfills], &s->pool, err);
	if (rc) {
		gs_procfill_fini(&s->fills[s->nfills]);
		if (maps_full(rc)) {
			s->procs_skipped++;
			s->maps_full = true;
		}
		return rc;
	}
	s->nfills++;
	return 0;
}

/* Target mode: every process now mapping one of the bt traces' modules.
 * One that exits meanwhile is skipped. */
int rt_session_fill_targets(struct gs_session *s, struct gs_error *err)
{
	for (size_t m = 0; m < s->nbt_modules; m++) {
		pid_t *pids;
		size_t n;
		int rc = gs_pids_mapping(s->bt_modules[m], &pids, &n, err);

		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++) {
			struct gs_error gone;

			rc = rt_session_fill_pid(s, pids[i], &gone);
			if (rc == -ENOMEM) {
				free(pids);
				return gs_errorf(err, rc, "%s", gone.msg);
			}
		}
		free(pids);
	}
	return 0;
}

/* ---- CPU samples of a module's or of every process ---- */

struct pid_key {
	const pid_t *v;
	pid_t pid;
};

static bool pid_below(const void *ctx, size_t i)
{
	const struct pid_key *k = ctx;

	return k->v[i] < k->pid;
}

/* Where pid is in the sorted s->seen, or where it would go. */
static size_t seen_at(const struct gs_session *s, pid_t pid)
{
	struct pid_key k = { s->seen, pid };

	return base_lower_bound(0, s->nseen, &k, pid_below);
}

static bool seen(const struct gs_session *s, pid_t pid)
{
	size_t at = seen_at(s, pid);

	return at < s->nseen && s->seen[at] == pid;
}

static int see(struct gs_session *s, pid_t pid)
{
	size_t at;

	if (base_grow((void **)&s->seen, &s->seen_cap, s->nseen + 1, sizeof(*s->seen)))
		return -ENOMEM;
	at = seen_at(s, pid);
	memmove(s->seen + at + 1, s->seen + at, (s->nseen - at) * sizeof(*s->seen));
	s->seen[at] = pid;
	s->nseen++;
	return 0;
}

static bool filled(const struct gs_session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nfills; i++)
		if (s->fills[i].pid == pid)
			return true;
	return false;
}

/* Whether pid has lived long enough for its dynamic linker to have mapped
 * its libraries (tens of milliseconds at most): one filled before would
 * have frames in them the snapshot lacks until its maps are read again. */
#define SETTLE_NS 50000000ll
static bool settled(pid_t pid)
{
	struct gs_proc_stat st;
	struct timespec now;
	long hz = sysconf(_SC_CLK_TCK);

	if (gs_proc_stat_read(pid, &st, NULL) != 0 || hz <= 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &now) != 0)
		return true;
	return (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec -
	       (int64_t)(st.start_time * (1000000000ull / (unsigned long long)hz)) >= SETTLE_NS;
}

/* A process of the sample scope: a user process (a kernel thread has no
 * executable), and for a module's samples one that maps it. */
static bool in_scope(const struct gs_session *s, pid_t pid)
{
	char path[64], exe[8];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (readlink(path, exe, sizeof(exe)) <= 0)
		return false;
	/* the sampler's module: the plan's first trace may be a script's, in
	 * a library */
	return s->sample_scope == GS_SAMPLE_ALL || rt_pid_maps_file(pid, s->sample_module);
}

/* Processes that started since the last look: each new pid of /proc once
 * (a pid looked at and left out is looked at again after the next full
 * refresh, which forgets them). One that exits meanwhile is skipped. A
 * process filled before that has exec'd since (a shell's child, filled
 * as the shell) is filled again now: its stacks are in the new program. */
int rt_session_scan(struct gs_session *s, struct gs_error *err)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int rc = 0;

	/* A process filled within the last second may still be mapping its
	 * libraries (the dynamic linker runs after the exec the scan saw):
	 * its maps are compared again at each scan until then. */
	for (size_t i = 0; proc && i < s->nfills && rc == 0;) {
		if (gs_procfill_execd(&s->fills[i]) ||
		    base_now_ns() - s->fills[i].first_fill_ns < REFRESH_INTERVAL_NS)
			rc = rt_session_refresh_fill(s, i, true, err);
		if (rc == 1)
			rc = 0; /* forgotten: fills[i] is another now */
		else if (rc == 0)
			i++;
	}

	if (!proc)
		return gs_errorf(err, -errno, "cannot list /proc: %s", strerror(errno));
	while (rc == 0 && (de = readdir(proc))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		struct gs_error gone;

		/* gstrace maps the module files it reads: never one of -t's */
		if (s->maps_full)
			break; /* no room: tried again once a process is forgotten */
		if (*end || pid <= 0 || seen(s, (pid_t)pid) || filled(s, (pid_t)pid) ||
		    (s->sample_scope == GS_SAMPLE_KNOWN && pid == getpid()) || !settled((pid_t)pid))
			continue;
		if (!in_scope(s, (pid_t)pid)) {
			rc = see(s, (pid_t)pid) ? gs_errorf(err, -ENOMEM, "out of memory") : 0;
			continue;
		}
		rc = rt_session_fill_pid(s, (pid_t)pid, &gone);
		if (rc == -ENOMEM)
			rc = gs_errorf(err, rc, "%s", gone.msg);
		else
			rc = 0;
	}
	closedir(proc);
	s->last_scan_ns = base_now_ns();
	return rc;
}

int rt_session_note_module(struct gs_session *s, const char *module, struct gs_error *err)
{
	for (size_t i = 0; i < s->nbt_modules; i++)
		if (strcmp(s->bt_modules[i], module) == 0)
			return 0;
	if (base_grow((void **)&s->bt_modules, &s->bt_modules_cap, s->nbt_modules + 1,
		      sizeof(*s->bt_modules)) ||
	    !(s->bt_modules[s->nbt_modules] = strdup(module)))
		return gs_errorf(err, -ENOMEM, "out of memory");
	s->nbt_modules++;
	return 0;
}

/* The processes' modules read again; a process the hook holds goes on. */
int rt_session_refresh(struct gs_session *s, int64_t now, struct gs_error *err)
{
	int rc = 0;

	s->last_refresh_ns = now;
	/* A process that is gone just stops producing events; in target
	 * and sample modes it is forgotten (its entries leave the maps), so
	 * a new one with its pid is filled. */
	for (size_t i = 0; i < s->nfills;) {
		rc = rt_session_refresh_fill(s, i, s->pid > 0 || s->sample_scope, err);
		if (rc < 0)
			break;
		i += rc == 0;
		rc = 0; /* gone: not an error, even as the last one */
	}
	rt_dlhook_release(s->dlhook);
	/* The quick scan looks at every process again (a pid reused). */
	s->nseen = 0;
	if (rc == 0 && s->pid <= 0 && s->sample_scope == GS_SAMPLE_ALL)
		rc = rt_session_scan(s, err);
	else if (rc == 0 && s->pid <= 0)
		rc = rt_session_fill_targets(s, err);
	return rc;
}

/* The keys of map (none when there is no map). */
static int count_entries(const struct gs_bpf_map *map, uint64_t *n, struct gs_error *err)
{
	struct gs_proc_module_key key, next;
	int rc;

	*n = 0;
	if (!map)
		return 0;
	while ((rc = bpf_map_get_next_key(map->fd, *n ? &key : NULL, &next)) == 0) {
		key = next;
		(*n)++;
	}
	return rc == -ENOENT ? 0 : gs_errorf(err, rc, "cannot list %s: %s", map->name,
					     strerror(-rc));
}

int gs_session_sample_stats(const struct gs_session *s, struct gs_sample_stats *st,
			    struct gs_error *err)
{
	const struct gs_bpf_map *mrows = gs_bpf_maps_find(&s->pool, GS_MAP_NAME_BT_MODULE_ROWS);
	uint64_t key, next;
	bool first = true;
	int rc;

	memset(st, 0, sizeof(*st));
	st->processes = s->nfills;
	st->processes_skipped = s->procs_skipped;
	rc = count_entries(gs_bpf_maps_find(&s->pool, GS_MAP_PROC_MODULE_OFFSETS),
			   &st->module_entries, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->nfills; i++)
		st->modules_without_rows += s->fills[i].rows_skipped;
	for (size_t m = 0; m < s->pool.n; m++) {
		const struct gs_bpf_map *map = &s->pool.v[m];

		st->map_bytes += (uint64_t)(map->key_size + map->value_size) * map->max_entries;
		if (strcmp(map->name, GS_MAP_NAME_BT_CROWS) == 0)
			st->rows_capacity = map->max_entries;
	}
	if (!mrows)
		return 0;
	while ((rc = bpf_map_get_next_key(mrows->fd, first ? NULL : &key, &next)) == 0) {
		struct gs_bt_module_rows r;

		first = false;
		key = next;
		if (bpf_map_lookup_elem(mrows->fd, &key, &r) != 0)
			continue;
		if (key == 0)
			st->rows = r.row_lo; /* the allocator's entry: rows in use */
		else
			st->modules++;
	}
	return rc == -ENOENT ? 0 : gs_errorf(err, rc, "cannot list %s: %s", mrows->name,
					     strerror(-rc));
}

