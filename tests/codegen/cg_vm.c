/* Loading a gs_program onto the test VM (see cg_vm.h). */
#include "cg_vm.h"

int gs_cg_vm_load(struct gs_vm *vm, const struct gs_program *p, uint32_t *map_ids, int *step,
		  struct gs_error *err)
{
	int prog;

	for (size_t i = 0; i < p->nmaps; i++) {
		const struct gs_map_spec *m = &p->maps[i];
		int id = gs_vm_add_map(vm, m->type, m->name, m->key_size, m->value_size,
				       m->max_entries, err);

		if (id < 0)
			return id;
		map_ids[i] = (uint32_t)id;
	}
	prog = gs_vm_load_asm(vm, &p->main, map_ids, err);
	*step = -1;
	if (prog < 0 || !p->has_step)
		return prog;
	*step = gs_vm_load_asm(vm, &p->step, map_ids, err);
	if (*step < 0)
		return *step;
	return gs_vm_map_update(vm, map_ids[p->map_index[GS_MAP_BT_PROGS]], &(uint32_t){ 0 },
				&(uint32_t){ (uint32_t)*step }, err) ?: prog;
}
