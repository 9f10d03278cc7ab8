/* Modules with the dwarf layer over their DWARF, once per cache: the trace
 * plan resolves names through it and the listings (-l, --list-vars) read
 * it. Files come from the run's module-file cache (gs/modfile.h), which
 * finds each module's DWARF where gdb would; one function, module_open,
 * turns a module file into a gs_dwarf. The dwarf layer asks before libdw
 * runs CFI for a CFA: each CFI section is checked once, when first asked
 * (unwind's fence: corrupt FDEs are never given to libdw). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include <gs/dwarf.h>
#include <gs/modfile.h>

#include "rt_int.h"
#include "unwind_int.h"

/* The checks of a module's two CFI sections: .eh_frame of the module
 * file, .debug_frame of its DWARF's file (its debug file, maybe). */
struct rt_cfi_guard {
	struct Elf *elf[2];
	struct mf_cfi_fence fence[2];
	bool read[2];
};

static bool cfi_allowed(void *arg, bool debug_frame, uint64_t pc)
{
	struct rt_cfi_guard *g = arg;
	int i = debug_frame;

	if (!g->read[i]) {
		/* unreadable (out of memory): refused, as nothing was checked */
		if (!g->elf[i] || mf_cfi_fence_read(g->elf[i], !debug_frame, &g->fence[i], NULL))
			g->fence[i].refused = true;
		g->read[i] = true;
	}
	return mf_cfi_fence_allows(&g->fence[i], pc);
}

struct rt_dwarf_cache {
	struct gs_modfiles *files, *own_files;
	struct rt_dwarf_module **v; /* never move: callers keep pointers */
	size_t n;
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
	if (m->guard) {
		mf_cfi_fence_free(&m->guard->fence[0]);
		mf_cfi_fence_free(&m->guard->fence[1]);
		free(m->guard);
	}
	free(m->path);
	free(m);
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
	struct gs_dwarf_opts o = { .sz = sizeof(o) };
	struct Dwarf *dw;
	uint64_t bias = 0;
	int rc = gs_modfile_open(files, path, &m->file, err);

	if (rc)
		return rc;
	m->cookie = cookie ? cookie : gs_modfile_id(m->file)->cookie;
	dw = gs_modfile_dwarf(m->file, &bias);
	if (!dw) {
		gs_errorf(&m->why, -ENOENT, "%s has no DWARF (nor a debug file where gdb would "
			  "look): build it with -g or install its debug package", path);
		return 0;
	}
	if (bias) {
		gs_errorf(&m->why, -ENOTSUP, "the debug file of %s was prelinked at another "
			  "address; variables need one that matches the file", path);
		return 0;
	}
	m->guard = calloc(1, sizeof(*m->guard));
	if (!m->guard)
		return gs_errorf(err, -ENOMEM, "out of memory opening %s", path);
	o.cookie = m->cookie;
	o.cfi_elf = gs_modfile_elf(m->file);
	m->guard->elf[0] = o.cfi_elf ? o.cfi_elf : dwarf_getelf(dw);
	m->guard->elf[1] = dwarf_getelf(dw);
	o.cfi_allowed = cfi_allowed;
	o.cfi_allowed_arg = m->guard;
	rc = gs_dwarf_new(dw, &o, &m->d, &m->why);
	if (rc == -ENOMEM)
		return gs_errorf(err, rc, "%s", m->why.msg);
	return 0;
}

int rt_dwarf_module(struct rt_dwarf_cache *c, const char *path, uint64_t cookie,
		    const struct rt_dwarf_module **out, struct gs_error *err)
{
	struct rt_dwarf_module *m, **nv;
	int rc;

	*out = NULL;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i]->path, path) == 0) {
			*out = c->v[i];
			return 0;
		}
	m = calloc(1, sizeof(*m));
	nv = realloc(c->v, (c->n + 1) * sizeof(*nv));
	if (nv)
		c->v = nv;
	if (!m || !nv || !(m->path = strdup(path))) {
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
