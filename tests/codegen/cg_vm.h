/* Puts a built gs_program on the test VM: its maps, its main program and,
 * for a deep backtrace, its step program in bt_prog_array[0] -- what the
 * runtime does with the kernel, shared by the VM suites of the codegen. */
#ifndef GS_TEST_CG_VM_H
#define GS_TEST_CG_VM_H

#include <gs/program.h>
#include <gs/unwind.h>

#include "vm/vm.h"

/* map_ids receives the VM map id of each of p's maps (p->nmaps entries).
 * Returns the main program's index (and *step the step program's, or -1),
 * or -errno with err filled. */
int gs_cg_vm_load(struct gs_vm *vm, const struct gs_program *p, uint32_t *map_ids, int *step,
		  struct gs_error *err);

/* The VM maps of a loaded program, found by name: what the runtime's map
 * writers (rows, module snapshots) write through, here into the VM. */
struct gs_cg_vm_maps {
	struct gs_vm *vm;
	const struct gs_program *p;
	const uint32_t *map_ids; /* from gs_cg_vm_load() */
};

/* A writer over m (which must outlive it); lookups read CPU 0's copy. */
struct gs_map_writer gs_cg_vm_writer(struct gs_cg_vm_maps *m);

#endif /* GS_TEST_CG_VM_H */
