/* A module file reported to a Dwfl of its own, at bias 0: the cache opens
 * each file so (modfile.c), and the read-ahead opens it again so on its
 * worker (modfile_prefetch.c), since libdwfl handles are not shared
 * between threads. The module's userdata is the file, where the
 * debug-file search (modfile_debug.c) finds its identity and the cache's
 * directories. */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "mf_int.h"

int mf_modfile_dwfl_open(struct gs_modfile *m, int fd, Dwfl **dwfl, Dwfl_Module **mod)
{
	const char *base = strrchr(m->path, '/');
	void **userdata;

	*mod = NULL;
	*dwfl = dwfl_begin(&m->owner->cb);
	if (!*dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(*dwfl);
	*mod = dwfl_report_elf(*dwfl, base ? base + 1 : m->path, m->path, fd, 0, true);
	dwfl_report_end(*dwfl, NULL, NULL);
	if (!*mod) {
		close(fd);
		return -EINVAL;
	}
	dwfl_module_info(*mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = m; /* for the debug-file search */
	return 0;
}
