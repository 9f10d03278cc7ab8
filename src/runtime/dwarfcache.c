/* Modules with the dwarf layer over their DWARF, once per cache: the trace
 * plan resolves names through it and the listings (-l, --list-vars) read
 * it. Files come from the run's module-file cache (gs/modfile.h); the
 * dwarf layer turns a module file into a gs_dwarf (dwv_modfile_dwarf, with
 * its CFI checks), once per path here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/dwarf.h>
#include <gs/modfile.h>

#include <gs/internal/dwarf.h>
#include "base.h"
#include "rt_int.h"

struct rt_dwarf_cache {
	struct gs_modfiles *files, *own_files;
	struct rt_dwarf_module **v; /* never move: callers keep pointers */
	size_t n, cap;
};

struct rt_dwarf_cache *rt_dwarf_cache_new(struct gs_modfiles *files)
{
	struct rt_dwarf_cache *c = calloc(1, sizeof(*c));

	if (c && !files && gs_modfiles_new(NULL, &c->own_files, NULL)) {
		free(c);
		return NULL;
	}
	if (c)
		c->files = files ? files : c->own_files;
	return c;
}

static void module_close(struct rt_dwarf_module *m)
{
	gs_dwarf_free(m->d);
	free(m->path);
	free(m->why);
	free(m);
}

const char *rt_dwarf_module_why(const struct rt_dwarf_module *m)
{
	return m->why ? m->why : "its DWARF could not be read (out of memory keeping why)";
}

void rt_dwarf_cache_free(struct rt_dwarf_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		module_close(c->v[i]);
	free(c->v);
	gs_modfiles_free(c->own_files);
	free(c);
}

/* The module file, its DWARF (in it or in its debug file) and the dwarf
 * layer over them. A file that opens but has no DWARF is a module without
 * d (why says so). */
static int module_open(struct gs_modfiles *files, const char *path, uint64_t cookie,
		       struct rt_dwarf_module *m, struct gs_error *err)
{
	struct gs_error why = { 0 };
	int rc = gs_modfile_open(files, path, &m->file, err);

	if (rc)
		return rc;
	m->cookie = cookie ? cookie : gs_modfile_id(m->file)->cookie;
	rc = dwv_modfile_dwarf(m->file, m->cookie, path, &m->d, &why, err);
	if (rc == 0 && !m->d)
		m->why = strdup(why.msg);
	return rc;
}

int rt_dwarf_module(struct rt_dwarf_cache *c, const char *path, uint64_t cookie,
		    const struct rt_dwarf_module **out, struct gs_error *err)
{
	struct rt_dwarf_module *m = NULL;
	int rc;

	*out = NULL;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i]->path, path) == 0) {
			*out = c->v[i];
			return 0;
		}
	if (base_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)) ||
	    !(m = calloc(1, sizeof(*m))) || !(m->path = strdup(path))) {
		free(m);
		return gs_errorf(err, -ENOMEM, "out of memory opening %s", path);
	}
	rc = module_open(c->files, path, cookie, m, err);
	if (rc) {
		module_close(m);
		return rc;
	}
	c->v[c->n++] = m;
	*out = m;
	return 0;
}

struct gs_modfiles *rt_dwarf_cache_files(const struct rt_dwarf_cache *c)
{
	return c->files;
}
