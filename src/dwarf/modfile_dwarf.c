/* The dwarf layer over a module file: its DWARF found where gdb would (the
 * module-file cache: in the file or its debug file), its cookie, its CFI
 * read from the file itself, and libdw's CFI interpreter behind the guard
 * of cfi_guard.c, which the gs_dwarf then owns. */
#include <errno.h>

#include <elfutils/libdw.h>

#include <gs/dwarf.h>
#include <gs/modfile.h>

#include "dwv_int.h"
#include <gs/internal/modfile.h>
#include <gs/internal/dwarf.h>

int dwv_modfile_dwarf(struct gs_modfile *file, uint64_t cookie, const char *path,
		      struct gs_dwarf **out, struct gs_error *why, struct gs_error *err)
{
	struct gs_dwarf_opts o = { .sz = sizeof(o) };
	struct dwv_cfi_guard *guard;
	struct Dwarf *dw;
	uint64_t bias = 0;
	int rc;

	*out = NULL;
	dw = gs_modfile_dwarf(file, &bias);
	if (!dw) {
		gs_errorf(why, -ENOENT, "%s has no DWARF (nor a debug file where gdb would "
			  "look): build it with -g or install its debug package", path);
		return 0;
	}
	if (bias) {
		gs_errorf(why, -ENOTSUP, "the debug file of %s was prelinked at another "
			  "address; variables need one that matches the file", path);
		return 0;
	}
	o.cookie = cookie;
	o.cfi_elf = gs_modfile_elf(file);
	guard = dwv_cfi_guard_new(o.cfi_elf ? o.cfi_elf : dwarf_getelf(dw), dwarf_getelf(dw));
	if (!guard)
		return gs_errorf(err, -ENOMEM, "out of memory opening %s", path);
	o.cfi_allowed = dwv_cfi_guard_allows;
	o.cfi_allowed_arg = guard;
	rc = gs_dwarf_new(dw, &o, out, why);
	if (rc) {
		dwv_cfi_guard_free(guard);
		*out = NULL;
		return rc == -ENOMEM ? gs_errorf(err, rc, "%s", why->msg) : 0;
	}
	(*out)->guard = guard;
	return 0;
}
