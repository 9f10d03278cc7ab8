/* The ELF modules of a live process: /proc/PID/maps grouped per file, each
 * file opened where this process can see it (the mapped path when its
 * device and inode agree, else through /proc/PID/root or map_files), then
 * identified (cookie) and located (load bias, base, size). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/unwind.h>

#include "unwind_int.h"

/* Same file as the mapping: a regular file with the mapping's inode. The
 * device is not compared: overlayfs reports another one in maps than stat
 * does, and the reference accepts that case too. */
static bool same_file(const char *path, const struct gs_maps_module *mod)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == mod->inode;
}

static char *accessible_path(pid_t pid, const struct gs_maps *maps,
			     const struct gs_maps_module *mod)
{
	char buf[PATH_MAX + 64];
	const struct gs_map_entry *first = &maps->entries[mod->maps[0]];

	if (same_file(mod->path, mod))
		return strdup(mod->path);
	snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)pid, mod->path);
	if (same_file(buf, mod))
		return strdup(buf);
	/* A deleted or unreachable file is still readable through its mapping. */
	snprintf(buf, sizeof(buf), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)first->start, (unsigned long long)first->end);
	if (same_file(buf, mod))
		return strdup(buf);
	return NULL;
}

/* Cookie, layout and offsets of one module; -errno when it is not a usable ELF. */
static int load_module(pid_t pid, const struct gs_maps *maps, const struct gs_maps_module *mod,
		       struct gs_proc_module *out)
{
	struct gs_map_candidate cand[64];
	struct gs_elf_layout layout;
	size_t ncand = 0;
	Elf *elf;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	out->path = strdup(mod->path);
	out->open_path = accessible_path(pid, maps, mod);
	if (!out->path)
		return -ENOMEM;
	if (!out->open_path)
		return -ENOENT;
	rc = gs_module_identify(out->open_path, &out->id, NULL);
	if (rc)
		return rc;
	if (out->id.source == GS_COOKIE_PATH_HASH)
		out->id.cookie = gs_cookie_from_path(mod->path);
	rc = gs_elf_open(out->open_path, &fd, &elf, NULL);
	if (rc)
		return rc;
	rc = gs_elf_layout_read(elf, &layout, NULL);
	gs_elf_close(fd, elf);
	if (rc)
		return rc;
	for (size_t i = 0; i < mod->nmaps && ncand < sizeof(cand) / sizeof(cand[0]); i++) {
		const struct gs_map_entry *e = &maps->entries[mod->maps[i]];

		cand[ncand++] = (struct gs_map_candidate){ e->start, e->end, e->offset };
	}
	return gs_module_offsets_compute(&layout, cand, ncand, &out->offsets, NULL);
}

static void module_free(struct gs_proc_module *m)
{
	free(m->path);
	free(m->open_path);
}

int gs_proc_modules_load(pid_t pid, struct gs_proc_modules *out, struct gs_error *err)
{
	struct gs_maps maps;
	struct gs_maps_module *mods = NULL;
	size_t nmods = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = gs_maps_read(pid, &maps, err);
	if (rc)
		return rc;
	rc = gs_maps_group(&maps, &mods, &nmods, err);
	if (rc)
		goto done;
	out->v = calloc(nmods ? nmods : 1, sizeof(*out->v));
	if (!out->v) {
		rc = gs_errorf(err, -ENOMEM, "out of memory loading %zu modules of pid %d", nmods,
			       (int)pid);
		goto done;
	}
	for (size_t i = 0; i < nmods; i++) {
		struct gs_proc_module *m = &out->v[out->n];

		if (load_module(pid, &maps, &mods[i], m) != 0) {
			module_free(m);
			out->skipped++;
			continue;
		}
		out->n++;
	}
done:
	gs_maps_modules_free(mods, nmods);
	gs_maps_free(&maps);
	return rc;
}

void gs_proc_modules_free(struct gs_proc_modules *m)
{
	for (size_t i = 0; i < m->n; i++)
		module_free(&m->v[i]);
	free(m->v);
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
