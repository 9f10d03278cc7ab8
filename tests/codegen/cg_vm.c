/* Loading a gs_program onto the test VM (see cg_vm.h); the BTF tells the
 * VM which subprograms (the bpf_loop walker's) are global. */
#include <errno.h>
#include <string.h>

#include <gs/internal/unwind.h>
#include <gs/internal/program.h>
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
	prog = gs_vm_load_asm_btf(vm, &p->main, p->btf, map_ids, err);
	*step = -1;
	if (prog < 0 || !p->has_step)
		return prog;
	*step = gs_vm_load_asm(vm, p->step, map_ids, err);
	if (*step < 0)
		return *step;
	return gs_vm_map_update(vm, map_ids[p->map_index[GS_MAP_BT_PROGS]], &(uint32_t){ 0 },
				&(uint32_t){ (uint32_t)*step }, err) ?: prog;
}

/* ---- a gs_map_writer over the VM's maps ----------------------------------- */

static int writer_map(const struct gs_cg_vm_maps *m, const char *name, uint32_t *id)
{
	for (size_t i = 0; i < m->p->nmaps; i++)
		if (strcmp(m->p->maps[i].name, name) == 0) {
			*id = m->map_ids[i];
			return 0;
		}
	return -ENOENT;
}

static int writer_update(void *ctx, const char *map, const void *key, const void *value)
{
	struct gs_cg_vm_maps *m = ctx;
	uint32_t id;

	return writer_map(m, map, &id) ?: gs_vm_map_update(m->vm, id, key, value, NULL);
}

static int writer_remove(void *ctx, const char *map, const void *key)
{
	struct gs_cg_vm_maps *m = ctx;
	uint32_t id;

	return writer_map(m, map, &id) ?: gs_vm_map_delete(m->vm, id, key, NULL);
}

static int writer_lookup(void *ctx, const char *map, const void *key, void *value)
{
	struct gs_cg_vm_maps *m = ctx;
	struct gs_vm_map *vm_map;
	const void *v;
	uint32_t id;

	if (writer_map(m, map, &id))
		return -ENOENT;
	vm_map = gs_vm_get_map(m->vm, id);
	v = gs_vm_map_lookup(m->vm, id, key, 0);
	if (!v)
		return -ENOENT;
	memcpy(value, v, vm_map->value_size);
	return 0;
}

struct gs_map_writer gs_cg_vm_writer(struct gs_cg_vm_maps *m)
{
	return (struct gs_map_writer){ .ctx = m, .update = writer_update,
				       .remove = writer_remove, .lookup = writer_lookup };
}
