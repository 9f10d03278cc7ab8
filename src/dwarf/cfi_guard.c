/* The guard between libdw's CFI interpreter and a module's CFI sections:
 * each section is checked once, when first asked (the modfile layer's
 * fence: FDEs that fail its checks are never given to libdw, a refused
 * section never). The module-file opener (modfile_dwarf.c) makes one for
 * the gs_dwarf it opens, which owns it: gs_dwarf_free (module.c) frees it
 * here, without reaching up into the opener. */
#include <stdlib.h>

#include "dwv_int.h"
#include <gs/internal/modfile.h>

/* The checks of a module's two CFI sections: .eh_frame of the module
 * file, .debug_frame of its DWARF's file (its debug file, maybe). */
struct dwv_cfi_guard {
	struct Elf *elf[2];
	struct mf_cfi_fence fence[2];
	bool read[2];
};

struct dwv_cfi_guard *dwv_cfi_guard_new(struct Elf *eh_elf, struct Elf *debug_elf)
{
	struct dwv_cfi_guard *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->elf[0] = eh_elf;
	g->elf[1] = debug_elf;
	return g;
}

bool dwv_cfi_guard_allows(void *arg, bool debug_frame, uint64_t pc)
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
