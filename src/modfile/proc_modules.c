/* The ELF modules of a live process: /proc/PID/maps grouped per file, each
 * file opened through the module-file cache by the mapping's own link
 * (/proc/PID/map_files) where that is allowed, named where this process can
 * see it, then identified (cookie) and located (load bias, base, size). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "base.h"
#include "mf_int.h"

/* The file behind a mapping and the name to show it under. The mapping's
 * own link /proc/PID/map_files/START-END is that very file (root only), so
 * it is what gets opened and what gives the identity; the name is the
 * mapped path when it is that file here, else the path under the process's
 * root, else the link. Without map_files the name is also what is opened,
 * and only the inode of the mapping can be compared: overlayfs reports
 * another device in maps than stat does (the reference accepts that too). */
static bool locate(pid_t pid, const struct gs_maps *maps, const struct mf_maps_module *mod,
		   struct gs_modfile_src *src, char *mapfile, char *rooted, size_t size)
{
	const struct gs_map_entry *first = &maps->entries[mod->maps[0]];
	struct stat id, st;
	bool have_id;

	snprintf(mapfile, size, "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)first->start, (unsigned long long)first->end);
	snprintf(rooted, size, "/proc/%d/root%s", (int)pid, mod->path);
	have_id = stat(mapfile, &id) == 0 && S_ISREG(id.st_mode) && id.st_ino == mod->inode;
	*src = (struct gs_modfile_src){
		.sz = sizeof(*src),
		.open_path = have_id ? mapfile : NULL,
		.dev = have_id ? id.st_dev : 0,
		.ino = mod->inode,
	};
	if (stat(mod->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == mod->inode &&
	    (!have_id || st.st_dev == id.st_dev)) {
		src->path = mod->path;
	} else if (stat(rooted, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == mod->inode &&
		   (!have_id || st.st_dev == id.st_dev)) {
		src->path = rooted;
		src->no_follow = !have_id; /* maps paths have no links left */
	} else if (have_id) {
		src->path = mapfile; /* deleted, or unreachable from here */
	}
	return src->path != NULL;
}

/* Cookie, layout and offsets of one module; -errno when it is not a usable ELF. */
static int load_module(pid_t pid, const struct gs_maps *maps, const struct mf_maps_module *mod,
		       struct gs_modfiles *files, struct gs_proc_module *out)
{
	char mapfile[96], rooted[PATH_MAX + 64];
	struct mf_map_candidate cand[64];
	struct gs_modfile_src src;
	size_t ncand = 0;

	memset(out, 0, sizeof(*out));
	out->path = strdup(mod->path);
	if (!out->path)
		return -ENOMEM;
	if (!locate(pid, maps, mod, &src, mapfile, rooted, sizeof(rooted)))
		return -ENOENT;
	out->open_path = strdup(src.path);
	if (!out->open_path)
		return -ENOMEM;
	for (size_t i = 0; i < mod->nmaps && ncand < BASE_ARRAY_SIZE(cand); i++) {
		const struct gs_map_entry *e = &maps->entries[mod->maps[i]];

		cand[ncand++] = (struct mf_map_candidate){ e->start, e->end, e->offset };
	}
	return mf_module_open_at(files, &src, cand, ncand, out);
}

static void module_free(struct gs_proc_module *m)
{
	free(m->path);
	free(m->open_path);
}

/* The executable mappings of module m (group mod) that are not at its
 * bias, each a remap entry of out (out of memory: left out). */
static void add_remaps(const struct gs_maps *maps, const struct mf_maps_module *mod,
		       const struct gs_proc_module *m, struct gs_proc_modules *out, size_t *cap)
{
	const struct mf_elf_layout *layout;

	if (!m->file || mf_modfile_layout(m->file, &layout, NULL))
		return;
	for (size_t i = 0; i < mod->nmaps; i++) {
		const struct gs_map_entry *e = &maps->entries[mod->maps[i]];
		struct mf_map_candidate c = { e->start, e->end, e->offset };
		struct gs_proc_module *r;

		if (e->perms[2] != 'x' || !mf_mapping_remapped(layout, &c, m->offsets.text) ||
		    base_grow((void **)&out->remaps, cap, out->nremaps + 1, sizeof(*r)))
			continue;
		r = &out->remaps[out->nremaps];
		*r = *m;
		r->path = strdup(m->path);
		r->open_path = strdup(m->open_path);
		if (!r->path || !r->open_path || !mf_remap_offsets(layout, &c, &r->offsets)) {
			module_free(r);
			continue;
		}
		out->nremaps++;
	}
}

int gs_proc_modules_load(pid_t pid, struct gs_modfiles *files, struct gs_proc_modules *out,
			 struct gs_error *err)
{
	struct gs_modfiles *own = NULL;
	struct gs_maps maps;
	struct mf_maps_module *mods = NULL;
	size_t nmods = 0, remaps_cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!files && (rc = gs_modfiles_new(NULL, &own, err)) != 0)
		return rc;
	rc = gs_maps_read(pid, &maps, err);
	if (rc) {
		gs_modfiles_free(own);
		return rc;
	}
	rc = mf_maps_group(&maps, &mods, &nmods, err);
	if (rc)
		goto done;
	out->v = calloc(nmods + 1, sizeof(*out->v)); /* and the vDSO */
	if (!out->v) {
		rc = gs_errorf(err, -ENOMEM, "out of memory loading %zu modules of pid %d", nmods,
			       (int)pid);
		goto done;
	}
	for (size_t i = 0; i < nmods; i++) {
		struct gs_proc_module *m = &out->v[out->n];

		if (load_module(pid, &maps, &mods[i], files ? files : own, m) != 0) {
			module_free(m);
			out->skipped++;
			continue;
		}
		add_remaps(&maps, &mods[i], m, out, &remaps_cap);
		out->n++;
	}
	/* the vDSO: where a sample reading a clock is */
	if (mf_vdso_module(&maps, files ? files : own, &out->v[out->n]) == 0)
		out->n++;
	else
		module_free(&out->v[out->n]);
done:
	/* Files of a private cache end with it. */
	for (size_t i = 0; own && i < out->n; i++)
		out->v[i].file = NULL;
	for (size_t i = 0; own && i < out->nremaps; i++)
		out->remaps[i].file = NULL;
	gs_modfiles_free(own);
	mf_maps_modules_free(mods, nmods);
	gs_maps_free(&maps);
	return rc;
}

void gs_proc_modules_free(struct gs_proc_modules *m)
{
	for (size_t i = 0; i < m->n; i++)
		module_free(&m->v[i]);
	for (size_t i = 0; i < m->nremaps; i++)
		module_free(&m->remaps[i]);
	free(m->v);
	free(m->remaps);
	memset(m, 0, sizeof(*m));
}

const struct gs_proc_module *gs_proc_modules_find(const struct gs_proc_modules *m, uint64_t ip)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct gs_proc_module_offsets *o = &m->v[i].offsets;

		if (ip >= o->base && ip - o->base < o->size)
			return &m->v[i];
	}
	return NULL;
}
