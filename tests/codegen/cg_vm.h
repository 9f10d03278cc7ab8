/* Puts a built gs_program on the test VM: its maps, its main program and,
 * for a deep backtrace, its step program in bt_prog_array[0] -- what the
 * runtime does with the kernel, shared by the VM suites of the codegen. */
#ifndef GS_TEST_CG_VM_H
#define GS_TEST_CG_VM_H

#include <gs/program.h>

#include "vm/vm.h"

/* map_ids receives the VM map id of each of p's maps (p->nmaps entries).
 * Returns the main program's index (and *step the step program's, or -1),
 * or -errno with err filled. */
int gs_cg_vm_load(struct gs_vm *vm, const struct gs_program *p, uint32_t *map_ids, int *step,
		  struct gs_error *err);

#endif /* GS_TEST_CG_VM_H */
