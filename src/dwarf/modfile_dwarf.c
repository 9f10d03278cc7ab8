/* The dwarf layer over a module file: its DWARF found where gdb would (the
 * module-file cache: in the file or its debug file), its cookie, its CFI
 * read from the file itself, and a guard between libdw's CFI interpreter
 * and the CFI sections: each section is checked once, when first asked
 * (the modfile layer's fence: FDEs that fail its checks are never given to
 * libdw, a refused section never). */
#include <errno.h>
#include <stdlib.h>

#include <elfutils/libdw.h>

#include <gs/dwarf.h>
#include <gs/modfile.h>

#include "dwv_int.h"
#include <gs/internal/modfile.h>
#include <gs/internal/dwarf.h>

/* The checks of a module's two CFI sections: .eh_frame of the module
 * file, .debug_frame of its DWARF's file (its debug file, maybe). */
struct dwv_cfi_guard {
	struct Elf *elf[2];
	struct mf_cfi_fence fence[2];
	bool read[2];
};

static bool cfi_allowed(void *arg, bool debug_frame, uint64_t pc)
{
	struct dwv_cfi_guard *g = arg;
	int i = debug_frame;

	if (!g->read[i]) {
		/* unreadable (out of memory): refused, as nothing was checked */
		if (!g->elf[i] || mf_cfi_fence_read(g->elf[i], !debug_frame, &g->fence[i], NULL))
			g->fence[i].refused = true;
		g->read[i] = true;
	}
	return mf_cfi_fence_allows(&g->fence[i], pc);
}

void dwv_cfi_guard_free(struct dwv_cfi_guard *g)
{
	if (!g)
		return;
	mf_cfi_fence_free(&g->fence[0]);
	mf_cfi_fence_free(&g->fence[1]);
	free(g);
}

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
	guard = calloc(1, sizeof(*guard));
	if (!guard)
		return gs_errorf(err, -ENOMEM, "out of memory opening %s", path);
	o.cookie = cookie;
	o.cfi_elf = gs_modfile_elf(file);
	guard->elf[0] = o.cfi_elf ? o.cfi_elf : dwarf_getelf(dw);
	guard->elf[1] = dwarf_getelf(dw);
	o.cfi_allowed = cfi_allowed;
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
