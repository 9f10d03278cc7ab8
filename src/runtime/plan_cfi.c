/* Why bt cannot unwind from a probe address, said when the trace is
 * planned: a .eh_frame that is there but cannot be read, or whose FDE for
 * the function failed the checks made before libdw reads CFI (a damaged
 * or hostile file: rebuilding the same way would not help), or one
 * without an FDE for the function (built without unwind tables). */
#include <errno.h>
#include <inttypes.h>

#include <gs/modfile.h>
#include <gs/unwind.h>

#include "rt_int.h"

int rt_plan_cfi_problem(struct gs_modfiles *files, const char *module, uint64_t addr,
			bool missing, struct gs_error *err)
{
	const struct gs_cfi_table *tab = NULL;
	struct gs_modfile *file;
	enum gs_cfi_drop reason = GS_CFI_DROP_NREASONS;

	if (gs_modfile_open(files, module, &file, NULL) != 0 ||
	    gs_modfile_cfi(file, &tab, NULL) != 0)
		tab = NULL;
	if (tab && tab->stats.eh_frame_refused && !(missing && tab->stats.eh_frame_broken))
		return gs_errorf(err, -ENOENT, "the .eh_frame of %s is corrupt: its entries failed "
				 "the checks made before libdw reads CFI (docs/unwind.md), so none "
				 "of it was read and bt cannot unwind from 0x%" PRIx64 "; the file "
				 "is damaged or hostile: reinstall or rebuild it, or drop the bt",
				 module, addr);
	if (!missing) {
		if (!tab || gs_cfi_table_lookup(tab, addr, NULL, &reason) != -EOPNOTSUPP ||
		    reason != GS_CFI_DROP_CORRUPT)
			return 0;
		return gs_errorf(err, -ENOENT, "the CFI of 0x%" PRIx64 " in %s is corrupt: its "
				 "FDE names a register x86-64 does not have, an unknown instruction "
				 "or more work than any compiler's (docs/unwind.md), so it was not "
				 "read and bt cannot unwind from there; the file is damaged or "
				 "hostile: rebuild it, or drop the bt", addr, module);
	}
	if (tab && tab->stats.eh_frame_broken)
		return gs_errorf(err, -ENOENT, "the .eh_frame of %s is corrupt: reading it stopped "
				 "at a malformed entry at byte %zu of %zu, before any FDE covers "
				 "0x%" PRIx64 ", so bt cannot unwind from there; the file is "
				 "damaged (reinstall or rebuild it) or drop the bt", module,
				 tab->stats.eh_frame_broken_at, tab->stats.eh_frame_bytes, addr);
	if (tab && tab->stats.bad_fdes)
		return gs_errorf(err, -ENOENT, "no readable CFI covers 0x%" PRIx64 " in %s: %zu "
				 "of its FDEs could not be decoded, so the .eh_frame is damaged; "
				 "reinstall or rebuild the file, or drop the bt", addr, module,
				 tab->stats.bad_fdes);
	return gs_errorf(err, -ENOENT, "no CFI (.eh_frame or .debug_frame) covers 0x%" PRIx64
			 " in %s, so bt cannot unwind from there; rebuild it with "
			 "-fasynchronous-unwind-tables or drop the bt", addr, module);
}
