/* The vDSO as a module. Every process has one ([vdso] in its maps, no
 * file behind it), and a CPU sample lands in it whenever the process reads
 * a clock: its frames need its rows (.eh_frame) and symbols like any
 * module's. The kernel maps one image into every 64-bit process, so this
 * process's own copy (getauxval(AT_SYSINFO_EHDR)) is written once into a
 * memfd, opened through the module-file cache like a file (identified by
 * its build id), and placed at each process's [vdso] address. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "mf_int.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char image_path[64]; /* /proc/self/fd/N of the memfd, "" when there is none */

static void write_image(void)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	struct gs_maps maps;
	size_t size = 0;
	int fd;

	if (!base || gs_maps_read(getpid(), &maps, NULL))
		return;
	for (size_t i = 0; i < maps.n; i++)
		if (maps.entries[i].start == base && maps.entries[i].path &&
		    strcmp(maps.entries[i].path, "[vdso]") == 0)
			size = maps.entries[i].end - maps.entries[i].start;
	gs_maps_free(&maps);
	if (!size || (fd = memfd_create("gstrace-vdso", MFD_CLOEXEC)) < 0)
		return;
	if (write(fd, (const void *)base, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	/* kept open for the process's life: the cache and symbolizers read it */
	snprintf(image_path, sizeof(image_path), "/proc/self/fd/%d", fd);
}

int mf_vdso_module(const struct gs_maps *maps, struct gs_modfiles *files,
		   struct gs_proc_module *out)
{
	const struct gs_map_entry *e = NULL;
	struct gs_modfile_src src = { .sz = sizeof(src) };
	struct mf_map_candidate cand;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < maps->n && !e; i++)
		if (maps->entries[i].kind == GS_MAP_PSEUDO && maps->entries[i].path &&
		    strcmp(maps->entries[i].path, "[vdso]") == 0)
			e = &maps->entries[i];
	if (!e)
		return -ENOENT;
	pthread_once(&once, write_image);
	if (!image_path[0])
		return -ENOENT;
	src.path = image_path;
	out->path = strdup("[vdso]");
	out->open_path = strdup(image_path);
	if (!out->path || !out->open_path)
		return -ENOMEM;
	cand = (struct mf_map_candidate){ e->start, e->end, 0 };
	return mf_module_open_at(files, &src, &cand, 1, out);
}
