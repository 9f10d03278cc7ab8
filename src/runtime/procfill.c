/* Fills the unwind maps for one process (docs/unwind.md, "Map layouts"): the
 * load bias of every module it maps (proc_module_offsets), the sorted range
 * snapshot frames resolve their module with, and the CFI rows; then keeps
 * them current when the process maps or unmaps files (dlopen). The logic is
 * the unwind layer's writers; this file feeds them /proc and the kernel. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <gs/runtime.h>

#include "base.h"
#include "rt_int.h"

#define SIG_FIELDS 4 /* start, end, offset, inode per file mapping */

void gs_procfill_init(struct gs_procfill *f, pid_t pid, struct gs_modfiles *files)
{
	memset(f, 0, sizeof(*f));
	f->pid = pid;
	f->files = files;
}

void gs_procfill_fini(struct gs_procfill *f)
{
	gs_proc_modules_free(&f->mods);
	free(f->sig);
	memset(f, 0, sizeof(*f));
}

/* The file mappings of pid, as the numbers that change when a file is
 * mapped or unmapped (heap growth and anonymous maps do not count). */
static int read_signature(pid_t pid, uint64_t **sig, size_t *n, struct gs_error *err)
{
	struct gs_maps maps;
	uint64_t *v;
	size_t k = 0;
	int rc = gs_maps_read(pid, &maps, err);

	*sig = NULL;
	*n = 0;
	if (rc)
		return rc;
	v = calloc(maps.n ? maps.n * SIG_FIELDS : 1, sizeof(*v));
	if (!v) {
		gs_maps_free(&maps);
		return gs_errorf(err, -ENOMEM, "out of memory reading the maps of pid %d", (int)pid);
	}
	for (size_t i = 0; i < maps.n; i++) {
		const struct gs_map_entry *e = &maps.entries[i];

		if (e->kind != GS_MAP_FILE)
			continue;
		v[k++] = e->start;
		v[k++] = e->end;
		v[k++] = e->offset;
		v[k++] = e->inode;
	}
	gs_maps_free(&maps);
	*sig = v;
	*n = k;
	return 0;
}

/* The identity of pid's executable now; false when it has none (gone). */
static bool exe_identity(pid_t pid, uint64_t *dev, uint64_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) != 0)
		return false;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return true;
}

bool gs_procfill_execd(const struct gs_procfill *f)
{
	uint64_t dev, ino;

	return exe_identity(f->pid, &dev, &ino) && (dev != f->exe_dev || ino != f->exe_ino);
}

static bool has_cookie(const struct gs_proc_modules *mods, uint64_t cookie)
{
	for (size_t i = 0; i < mods->n; i++)
		if (mods->v[i].id.cookie == cookie)
			return true;
	return false;
}

/* The bpf_loop walker's sorted module snapshot of the process, each entry
 * with the rows bt_module_rows has for it now (nothing without its maps). */
/* The modules as range items (base, size, bias, cookie), for the
 * snapshot and the range table alike; NULL with a message when out of
 * memory. */
static struct gs_range_item *range_items(const struct gs_procfill *f,
					 const struct gs_proc_modules *mods, struct gs_error *err)
{
	struct gs_range_item *items = calloc(mods->n + mods->nremaps + 1, sizeof(*items));

	if (!items) {
		gs_errorf(err, -ENOMEM, "out of memory listing the modules of pid %d", (int)f->pid);
		return NULL;
	}
	for (size_t i = 0; i < mods->n; i++)
		items[i] = (struct gs_range_item){
			.base = mods->v[i].offsets.base,
			.size = mods->v[i].offsets.size,
			.bias = mods->v[i].offsets.text,
			.cookie = mods->v[i].id.cookie,
		};
	/* A module's text mapped again elsewhere: unwound with its rows. */
	for (size_t i = 0; i < mods->nremaps; i++)
		items[mods->n + i] = (struct gs_range_item){
			.base = mods->remaps[i].offsets.base,
			.size = mods->remaps[i].offsets.size,
			.bias = mods->remaps[i].offsets.text,
			.cookie = mods->remaps[i].id.cookie,
		};
	return items;
}

static int write_snapshot(struct gs_procfill *f, struct gs_bpf_maps *maps,
			  const struct gs_proc_modules *mods, struct gs_error *err)
{
	const struct gs_bpf_map *table = gs_bpf_maps_find(maps, GS_MAP_NAME_BT_MODULES);
	struct gs_range_item *items;
	struct gs_map_writer w;
	int rc;

	if (!table || !gs_bpf_maps_find(maps, GS_MAP_NAME_BT_PROC_MODULES))
		return 0;
	items = range_items(f, mods, err);
	if (!items)
		return -ENOMEM;
	gs_bpf_maps_writer(maps, &w);
	rc = gs_bt_modules_replace(&w, (uint32_t)f->pid, items, mods->n + mods->nremaps,
				   table->max_entries, err);
	free(items);
	return rc;
}

/* The offsets and TLS entries of every module of mods (a remap shares
 * its module's key). */
static void remove_modules(const struct gs_map_writer *w, uint32_t pid,
			   const struct gs_proc_modules *mods)
{
	for (size_t i = 0; i < mods->n; i++) {
		uint64_t c = mods->v[i].id.cookie;
		struct gs_proc_module_key key = { pid, 0, (uint32_t)c, (uint32_t)(c >> 32) };

		w->remove(w->ctx, GS_MAP_PROC_MODULE_OFFSETS, &key);
		w->remove(w->ctx, GS_MAP_PROC_MODULE_TLS, &key);
	}
}

void gs_procfill_forget(struct gs_procfill *f, struct gs_bpf_maps *maps)
{
	uint32_t pid = (uint32_t)f->pid;
	struct gs_map_writer w;

	gs_bpf_maps_writer(maps, &w);
	remove_modules(&w, pid, &f->mods);
	gs_ranges_remove(&w, pid);
	w.remove(w.ctx, GS_MAP_NAME_PY_PROCS, &pid);
	gs_bt_modules_remove(&w, pid, NULL);
	gs_bpf_maps_flush(maps, NULL);
	/* nothing of it in the maps: a refresh fills it anew */
	gs_proc_modules_free(&f->mods);
	free(f->sig);
	f->sig = NULL;
	f->nsig = 0;
}

int gs_procfill_snapshot(struct gs_procfill *f, struct gs_bpf_maps *maps, struct gs_error *err)
{
	int rc = write_snapshot(f, maps, &f->mods, err);

	return rc ? rc : gs_bpf_maps_flush(maps, err);
}

static struct gs_bt_table_caps table_caps(const struct gs_bpf_maps *maps)
{
	const struct gs_bpf_map *rows = gs_bpf_maps_find(maps, GS_MAP_NAME_BT_CROWS);
	const struct gs_bpf_map *pages = gs_bpf_maps_find(maps, GS_MAP_NAME_BT_PAGES);
	const struct gs_bpf_map *ovf = gs_bpf_maps_find(maps, GS_MAP_NAME_BT_OVERFLOW);

	return (struct gs_bt_table_caps){ rows ? rows->max_entries : 0,
					  pages ? pages->max_entries : 0,
					  ovf ? ovf->max_entries : 0 };
}

/* Offsets of every module, stale entries of unmapped modules removed, and
 * the range snapshot when the maps have range slots. */
static int write_modules(struct gs_procfill *f, struct gs_bpf_maps *maps,
			 const struct gs_proc_modules *mods, struct gs_error *err)
{
	struct gs_map_writer w;
	struct gs_range_item *items;
	uint32_t pid = (uint32_t)f->pid;
	int rc = 0;

	gs_bpf_maps_writer(maps, &w);
	for (size_t i = 0; i < mods->n && rc == 0; i++)
		rc = gs_offsets_write(&w, pid, mods->v[i].id.cookie, &mods->v[i].offsets, err);
	if (rc == 0)
		rc = write_snapshot(f, maps, mods, err);
	for (size_t i = 0; i < f->mods.n && rc == 0; i++) {
		uint64_t cookie = f->mods.v[i].id.cookie;
		struct gs_proc_module_key key = { pid, 0, (uint32_t)cookie, (uint32_t)(cookie >> 32) };

		if (!has_cookie(mods, cookie))
			w.remove(w.ctx, GS_MAP_PROC_MODULE_OFFSETS, &key);
	}
	if (rc || !gs_bpf_maps_find(maps, GS_MAP_PROC_MODULE_RANGES) ||
	    !gs_bpf_maps_find(maps, GS_MAP_PROC_MODULE_RANGE_META))
		return rc;
	items = range_items(f, mods, err);
	if (!items)
		return -ENOMEM;
	rc = gs_ranges_replace(&w, pid, items, mods->n + mods->nremaps, err);
	free(items);
	return rc;
}

/* Where each module's TLS block is (proctls.c), for programs reading
 * thread-locals; entries of modules gone are removed. A module with TLS
 * that the loader has not registered yet (a dlopen between mapping and
 * relocation) leaves the fill pending: each refresh reads again. */
static int write_tls(struct gs_procfill *f, struct gs_bpf_maps *maps,
		     const struct gs_proc_modules *mods, struct gs_error *err)
{
	struct gs_map_writer w;
	struct rt_tls_table t;
	uint32_t pid = (uint32_t)f->pid;
	int rc = 0;

	f->tls_pending = false;
	if (!gs_bpf_maps_find(maps, GS_MAP_PROC_MODULE_TLS))
		return 0;
	/* a module never registered (not glibc's, mapped by hand): not for ever */
	if (f->tls_tries++ >= RT_TLS_MAX_TRIES)
		return 0;
	if (rt_tls_read(f->pid, mods, &t) != 0) {
		/* no loader tables yet: a launched command before ld.so ran */
		f->tls_pending = rt_tls_missing(mods, &t);
		rt_tls_table_free(&t);
		return 0;
	}
	gs_bpf_maps_writer(maps, &w);
	for (size_t i = 0; i < t.n && rc == 0; i++) {
		uint64_t c = t.v[i].cookie;
		struct gs_proc_module_key key = { pid, 0, (uint32_t)c, (uint32_t)(c >> 32) };

		rc = w.update(w.ctx, GS_MAP_PROC_MODULE_TLS, &key, &t.v[i].tls);
		if (rc)
			rc = gs_errorf(err, rc, "cannot write %s[pid %u, module 0x%016llx]: %s",
				       GS_MAP_PROC_MODULE_TLS, pid, (unsigned long long)c,
				       strerror(-rc));
	}
	for (size_t i = 0; i < f->mods.n && rc == 0; i++) {
		uint64_t c = f->mods.v[i].id.cookie;
		struct gs_proc_module_key key = { pid, 0, (uint32_t)c, (uint32_t)(c >> 32) };

		if (!has_cookie(mods, c))
			w.remove(w.ctx, GS_MAP_PROC_MODULE_TLS, &key);
	}
	f->tls_pending = rt_tls_missing(mods, &t);
	if (!f->tls_pending)
		f->tls_tries = 0;
	rt_tls_table_free(&t);
	return rc;
}

/* Rows already in bt_unwind_rows: the largest row_end of the modules there. */
static int rows_in_use(const struct gs_bpf_map *ranges, uint32_t *count, struct gs_error *err)
{
	uint64_t key, next;
	struct gs_module_row_range r;
	bool first = true;
	int rc;

	*count = 0;
	while ((rc = bpf_map_get_next_key(ranges->fd, first ? NULL : &key, &next)) == 0) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(ranges->fd, &key, &r) == 0 && r.row_end > *count)
			*count = r.row_end;
	}
	if (rc != -ENOENT)
		return gs_errorf(err, rc, "cannot list %s: %s", ranges->name, strerror(-rc));
	return 0;
}

static int write_rowset(struct gs_bpf_maps *maps, const struct gs_rowset *rows,
			struct gs_error *err)
{
	const struct gs_bpf_map *rmap = gs_bpf_maps_find(maps, GS_MAP_BT_UNWIND_ROWS);
	const struct gs_bpf_map *ranges = gs_bpf_maps_find(maps, GS_MAP_BT_MODULE_ROW_RANGES);
	struct gs_map_writer w;
	uint32_t used;
	int rc;

	if (!rmap || !ranges)
		return gs_errorf(err, -ENOENT, "the program has no %s and %s maps to hold the rows "
				 "of several modules", GS_MAP_BT_UNWIND_ROWS,
				 GS_MAP_BT_MODULE_ROW_RANGES);
	rc = rows_in_use(ranges, &used, err);
	if (rc)
		return rc;
	gs_bpf_maps_writer(maps, &w);
	rc = gs_rowset_write(rows, &w, &used, rmap->max_entries, err);
	return rc ? rc : gs_bpf_maps_flush(maps, err);
}

int gs_procfill_rows(struct gs_bpf_maps *maps, const struct gs_bt_plan *plan,
		     struct gs_error *err)
{
	const struct gs_bpf_map *rmap = gs_bpf_maps_find(maps, GS_MAP_BT_UNWIND_ROWS);
	size_t n = plan->rows.nrows;
	uint32_t *keys;
	int rc;

	if (n && gs_bpf_maps_find(maps, GS_MAP_NAME_BT_CROWS)) {
		struct gs_bt_table_caps caps = table_caps(maps);
		struct gs_map_writer w;

		gs_bpf_maps_writer(maps, &w);
		rc = gs_bt_rowset_write(&plan->rows, &w, &caps, err);
		return rc ? rc : gs_bpf_maps_flush(maps, err);
	}
	if (!rmap || n == 0)
		return 0;
	if (plan->probe.module_ranges)
		return write_rowset(maps, &plan->rows, err);
	if (n > rmap->max_entries)
		return gs_errorf(err, -ENOSPC, "%s holds %u rows but the probe module has %zu; "
				 "raise the unwind row limit", rmap->name, rmap->max_entries, n);
	keys = malloc(n * sizeof(*keys));
	if (!keys)
		return gs_errorf(err, -ENOMEM, "out of memory writing %zu unwind rows", n);
	for (size_t i = 0; i < n; i++)
		keys[i] = (uint32_t)i;
	rc = rt_map_update_many(rmap, keys, plan->rows.rows, n, err);
	free(keys);
	return rc;
}

/* The loop walker's: rows of the modules of mods that bt_module_rows
 * lacks. */
static int add_new_compact_rows(struct gs_procfill *f, const struct gs_proc_modules *mods,
				struct gs_bpf_maps *maps, struct gs_error *err)
{
	const struct gs_bpf_map *mrows = gs_bpf_maps_find(maps, GS_MAP_NAME_BT_MODULE_ROWS);
	struct gs_bt_table_caps caps = table_caps(maps);
	struct gs_map_writer w;
	int rc = 0;

	gs_bpf_maps_writer(maps, &w);
	for (size_t i = 0; i < mods->n && rc == 0; i++) {
		const struct gs_proc_module *m = &mods->v[i];
		struct gs_bt_module_rows present;
		const struct gs_cfi_table *t;
		struct gs_bt_rowtab tab;
		struct gs_error ignored;

		if (bpf_map_lookup_elem(mrows->fd, &m->id.cookie, &present) == 0)
			continue;
		if (!m->file || gs_modfile_cfi(m->file, &t, &ignored) != 0)
			continue; /* unreadable CFI: its frames stop with NoUnwindRowsForPc */
		rc = gs_bt_rowtab_build(t->xrows, t->nxrows, &tab, err);
		if (rc == 0)
			rc = gs_bt_rowtab_write(&w, m->id.cookie, &tab, &caps, err);
		gs_bt_rowtab_free(&tab);
		if (rc == 0)
			gs_modfile_cfi_drop(m->file); /* in the maps now */
		if (rc == -ENOSPC && f->skip_full) {
			f->rows_skipped++;
			rc = 0;
		}
	}
	return rc ? rc : gs_bpf_maps_flush(maps, err);
}

/* Rows of the modules of mods that the row maps lack, written before any
 * map says where those modules are: BPF never finds a module without its
 * rows. */
static int add_new_rows(struct gs_procfill *f, const struct gs_proc_modules *mods,
			struct gs_bpf_maps *maps, struct gs_error *err)
{
	if (gs_bpf_maps_find(maps, GS_MAP_NAME_BT_MODULE_ROWS))
		return add_new_compact_rows(f, mods, maps, err);
	{
	const struct gs_bpf_map *ranges = gs_bpf_maps_find(maps, GS_MAP_BT_MODULE_ROW_RANGES);
	struct gs_rowset rows;
	int rc = 0;

	if (!ranges || !gs_bpf_maps_find(maps, GS_MAP_BT_UNWIND_ROWS))
		return 0;
	gs_rowset_init(&rows);
	for (size_t i = 0; i < mods->n && rc == 0; i++) {
		const struct gs_proc_module *m = &mods->v[i];
		struct gs_module_row_range present;
		const struct gs_cfi_table *t;
		struct gs_error ignored;

		if (bpf_map_lookup_elem(ranges->fd, &m->id.cookie, &present) == 0)
			continue;
		if (!m->file || gs_modfile_cfi(m->file, &t, &ignored) != 0)
			continue; /* unreadable CFI: its frames stop with NoUnwindRowsForPc */
		rc = gs_rowset_add(&rows, m->id.cookie, t->rows, t->nrows, err);
	}
	if (rc == 0 && rows.nrows)
		rc = write_rowset(maps, &rows, err);
	gs_rowset_fini(&rows);
	return rc;
	}
}

int gs_procfill_offsets(struct gs_procfill *f, struct gs_bpf_maps *maps, struct gs_error *err)
{
	struct gs_proc_modules mods;
	uint64_t *sig;
	size_t nsig;
	int rc;

	if (!gs_bpf_maps_find(maps, GS_MAP_PROC_MODULE_OFFSETS))
		return 0; /* a program without `bt` reads no module maps */
	/* Signature first: a change racing with the read shows at the next refresh. */
	exe_identity(f->pid, &f->exe_dev, &f->exe_ino);
	if (!f->first_fill_ns)
		f->first_fill_ns = base_now_ns();
	rc = read_signature(f->pid, &sig, &nsig, err);
	if (rc)
		return rc;
	rc = gs_proc_modules_load(f->pid, f->files, &mods, err);
	if (rc) {
		free(sig);
		return rc;
	}
	if (f->add_rows)
		rc = add_new_rows(f, &mods, maps, err);
	if (rc == 0)
		rc = write_modules(f, maps, &mods, err);
	if (rc == 0)
		rc = write_tls(f, maps, &mods, err);
	if (rc == 0)
		rc = rt_py_write(f->pid, maps, &mods, f->py_note, sizeof(f->py_note), err);
	if (rc == 0)
		rc = gs_bpf_maps_flush(maps, err);
	if (rc) {
		/* A fill half written (a full map): none of the process stays,
		 * neither what this fill wrote nor what the last one did. */
		struct gs_map_writer w;

		gs_bpf_maps_writer(maps, &w);
		remove_modules(&w, (uint32_t)f->pid, &mods);
		gs_procfill_forget(f, maps);
		free(sig);
		gs_proc_modules_free(&mods);
		return rc;
	}
	gs_proc_modules_free(&f->mods);
	free(f->sig);
	f->mods = mods;
	f->sig = sig;
	f->nsig = nsig;
	return 0;
}

int gs_procfill_refresh(struct gs_procfill *f, struct gs_bpf_maps *maps, bool add_rows,
			struct gs_error *err)
{
	uint64_t *sig;
	size_t nsig;
	bool same;
	int rc;

	if (!gs_bpf_maps_find(maps, GS_MAP_PROC_MODULE_OFFSETS))
		return 0;
	rc = read_signature(f->pid, &sig, &nsig, err);
	if (rc)
		return rc;
	same = f->sig && nsig == f->nsig && memcmp(sig, f->sig, nsig * sizeof(*sig)) == 0;
	free(sig);
	if (same && f->tls_pending) {
		rc = write_tls(f, maps, &f->mods, err);
		return rc ? rc : gs_bpf_maps_flush(maps, err);
	}
	if (same)
		return 0;
	if (add_rows)
		f->add_rows = true;
	rc = gs_procfill_offsets(f, maps, err);
	return rc ? rc : 1;
}

static bool maps_inode(pid_t pid, uint64_t ino)
{
	struct gs_maps maps;
	bool found = false;

	if (gs_maps_read(pid, &maps, NULL) != 0)
		return false;
	for (size_t i = 0; i < maps.n && !found; i++)
		found = maps.entries[i].kind == GS_MAP_FILE && maps.entries[i].inode == ino;
	gs_maps_free(&maps);
	return found;
}

bool rt_pid_maps_file(pid_t pid, const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && maps_inode(pid, (uint64_t)st.st_ino);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

int gs_pids_mapping(const char *path, pid_t **pids, size_t *n, struct gs_error *err)
{
	struct stat st;
	struct dirent *de;
	size_t cap = 0;
	pid_t self = getpid();
	DIR *proc;

	*pids = NULL;
	*n = 0;
	if (stat(path, &st) != 0)
		return gs_errorf(err, -errno, "cannot stat %s: %s", path, strerror(errno));
	proc = opendir("/proc");
	if (!proc)
		return gs_errorf(err, -errno, "cannot list /proc: %s", strerror(errno));
	/* The inode alone: overlayfs shows another device in maps than stat. */
	while ((de = readdir(proc))) {
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atol(de->d_name);
		/* We map the modules we read (the module-file cache): not a target. */
		if (pid == self || !maps_inode(pid, st.st_ino))
			continue;
		if (base_grow((void **)pids, &cap, *n + 1, sizeof(**pids))) {
			closedir(proc);
			free(*pids);
			*pids = NULL;
			*n = 0;
			return gs_errorf(err, -ENOMEM, "out of memory listing processes");
		}
		(*pids)[(*n)++] = pid;
	}
	closedir(proc);
	if (*n > 1)
		qsort(*pids, *n, sizeof(**pids), cmp_pid);
	return 0;
}
