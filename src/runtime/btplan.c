/* What `bt` knows at one probe before the program is built (reference 6.3,
 * 6.5): the probe module's cookie, the compile-time row of the probe pc, and
 * the rows the unwind maps will hold: every module of the process when a pid
 * is known (frames resolve their module at run time), else the probe
 * module's only. CFI tables are read once per module through a cache. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/runtime.h>

struct cache_entry {
	uint64_t cookie;
	struct gs_cfi_table table;
};

struct gs_cfi_cache {
	struct cache_entry **v; /* entries never move: tables are handed out */
	size_t n, cap;
};

struct gs_cfi_cache *gs_cfi_cache_new(void)
{
	return calloc(1, sizeof(struct gs_cfi_cache));
}

void gs_cfi_cache_free(struct gs_cfi_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		gs_cfi_table_free(&c->v[i]->table);
		free(c->v[i]);
	}
	free(c->v);
	free(c);
}

int gs_cfi_cache_get(struct gs_cfi_cache *c, const char *path, uint64_t cookie,
		     const struct gs_cfi_table **out, struct gs_error *err)
{
	struct gs_module_id id;
	struct cache_entry *e;
	int rc;

	if (!cookie) {
		rc = gs_module_identify(path, &id, err);
		if (rc)
			return rc;
		cookie = id.cookie;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i]->cookie == cookie) {
			*out = &c->v[i]->table;
			return 0;
		}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		struct cache_entry **nv = realloc(c->v, ncap * sizeof(*nv));

		if (!nv)
			return gs_errorf(err, -ENOMEM, "out of memory caching the CFI of %s", path);
		c->v = nv;
		c->cap = ncap;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return gs_errorf(err, -ENOMEM, "out of memory caching the CFI of %s", path);
	rc = gs_cfi_table_from_file(path, NULL, &e->table, err);
	if (rc) {
		free(e);
		return rc;
	}
	e->cookie = cookie;
	c->v[c->n++] = e;
	*out = &e->table;
	return 0;
}

/* Rows of every ELF module pid maps (a module that cannot be read is left
 * out: its frames end the walk with NoUnwindRowsForPc). */
static int add_process_modules(struct gs_bt_plan *p, pid_t pid, struct gs_cfi_cache *cache,
			       struct gs_error *err)
{
	struct gs_proc_modules mods;
	int rc = gs_proc_modules_load(pid, &mods, err);

	for (size_t i = 0; rc == 0 && i < mods.n; i++) {
		const struct gs_proc_module *m = &mods.v[i];
		const struct gs_cfi_table *t;
		struct gs_error ignored;

		if (gs_cfi_cache_get(cache, m->open_path, m->id.cookie, &t, &ignored) != 0)
			continue;
		rc = gs_rowset_add(&p->rows, m->id.cookie, t->rows, t->nrows, err);
	}
	gs_proc_modules_free(&mods);
	return rc;
}

int gs_bt_plan_build(const char *module, uint64_t pc, const struct gs_bt_plan_opts *opts,
		     struct gs_bt_plan *out, struct gs_error *err)
{
	struct gs_bt_plan_opts o = { 0 };
	struct gs_cfi_cache *own = NULL, *cache;
	const struct gs_cfi_table *t;
	struct gs_module_id id;
	enum gs_cfi_drop reason;
	int rc;

	memset(out, 0, sizeof(*out));
	gs_rowset_init(&out->rows);
	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	cache = o.cache;
	if (!cache && !(cache = own = gs_cfi_cache_new()))
		return gs_errorf(err, -ENOMEM, "out of memory planning the backtrace at %s", module);
	rc = gs_module_identify(module, &id, err);
	if (rc == 0)
		rc = gs_cfi_cache_get(cache, module, id.cookie, &t, err);
	if (rc)
		goto out;
	out->probe.cookie = id.cookie;
	out->probe.pc = pc;
	rc = gs_cfi_table_lookup(t, pc, &out->probe.first_row, &reason);
	out->probe.first_row_kind = rc == 0 ? GS_BT_ROW_USABLE :
				    rc == -EOPNOTSUPP ? GS_BT_ROW_UNSUPPORTED : GS_BT_ROW_MISSING;
	if (rc)
		memset(&out->probe.first_row, 0, sizeof(out->probe.first_row));
	rc = 0;
	if (o.pid > 0) {
		rc = add_process_modules(out, o.pid, cache, err);
		/* The probe module may not be mapped yet (a library loaded later). */
		if (rc == 0)
			rc = gs_rowset_add(&out->rows, id.cookie, t->rows, t->nrows, err);
		if (rc)
			goto out;
		out->probe.module_ranges = out->rows.nrows > 0;
	}
	if (out->rows.nrows == 0)
		rc = gs_rowset_add(&out->rows, id.cookie, t->rows, t->nrows, err);
	out->probe.nrows = (uint32_t)out->rows.nrows;
out:
	if (rc)
		gs_bt_plan_fini(out);
	gs_cfi_cache_free(own);
	return rc;
}

void gs_bt_plan_fini(struct gs_bt_plan *p)
{
	gs_rowset_fini(&p->rows);
	memset(&p->probe, 0, sizeof(p->probe));
}
