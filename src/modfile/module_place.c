/* One module of a process, placed: its file opened through the
 * module-file cache, identified (cookie) and located at its mappings (load
 * bias, base, size). Every module of /proc/PID/maps comes this way
 * (proc_modules.c), and so does the vDSO, an image with no file of its own
 * (vdso.c). */
#include <gs/modfile.h>

#include "mf_int.h"

int mf_module_open_at(struct gs_modfiles *files, const struct gs_modfile_src *src,
		      const struct mf_map_candidate *cand, size_t ncand, struct gs_proc_module *out)
{
	const struct mf_elf_layout *layout;
	int rc = gs_modfile_open_src(files, src, &out->file, NULL);

	if (rc == 0)
		rc = mf_modfile_layout(out->file, &layout, NULL);
	if (rc)
		return rc;
	out->id = *gs_modfile_id(out->file);
	return mf_module_offsets_compute(layout, cand, ncand, &out->offsets, NULL);
}
