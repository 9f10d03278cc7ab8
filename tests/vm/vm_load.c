/* Lifetime of the test VM and loading of programs: copies of the
 * instructions and notes, ld_imm64 second slots marked, and relocations of
 * a finished assembler patched with the fake fds of VM maps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vm_priv.h"

void gs_vm_init(struct gs_vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	vm->ncpus = GS_VM_DEFAULT_NCPUS;
	vm->ktime_step = 1000;
	vm->insn_budget = GS_VM_DEFAULT_BUDGET;
	vm->fail_output_err = -ENOSPC;
}

static void prog_free(struct gs_vm_prog *p)
{
	if (p->notes)
		for (size_t i = 0; i < p->n; i++)
			free(p->notes[i]);
	free(p->notes);
	free(p->insns);
	free(p->imm64_tail);
}

void gs_vm_fini(struct gs_vm *vm)
{
	gs_vm_clear_records(vm);
	free(vm->records);
	vm_maps_free(vm);
	for (size_t i = 0; i < vm->nprogs; i++)
		prog_free(&vm->progs[i]);
	free(vm->progs);
	for (size_t i = 0; i < vm->nuser_mem; i++)
		free(vm->user_mem[i].bytes);
	for (size_t i = 0; i < vm->nkernel_mem; i++)
		free(vm->kernel_mem[i].bytes);
	free(vm->user_mem);
	free(vm->kernel_mem);
	if (vm->exec)
		free(vm->exec->regions);
	free(vm->exec);
	memset(vm, 0, sizeof(*vm));
}

static int copy_notes(struct gs_vm_prog *p, const char *const *notes)
{
	p->notes = calloc(p->n, sizeof(*p->notes));
	if (!p->notes)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		if (notes[i] && !(p->notes[i] = strdup(notes[i])))
			return -ENOMEM;
	return 0;
}

int gs_vm_add_prog(struct gs_vm *vm, const struct bpf_insn *insns, size_t n,
		   const char *const *notes, struct gs_error *err)
{
	struct gs_vm_prog p = { .n = n };

	if (n == 0)
		return gs_errorf(err, -EINVAL, "an empty program cannot run");
	if (vm->nprogs == vm->progs_cap) {
		size_t cap = vm->progs_cap ? vm->progs_cap * 2 : 8;
		struct gs_vm_prog *grown = realloc(vm->progs, cap * sizeof(*grown));

		if (!grown)
			return gs_errorf(err, -ENOMEM, "out of memory adding a program");
		vm->progs = grown;
		vm->progs_cap = cap;
	}
	p.insns = malloc(n * sizeof(*p.insns));
	p.imm64_tail = calloc(n, sizeof(*p.imm64_tail));
	if (!p.insns || !p.imm64_tail || (notes && copy_notes(&p, notes))) {
		prog_free(&p);
		return gs_errorf(err, -ENOMEM, "out of memory copying a %zu-instruction program",
				 n);
	}
	memcpy(p.insns, insns, n * sizeof(*p.insns));
	for (size_t i = 0; i + 1 < n; i++)
		if (gs_insn_is_ld_imm64(&p.insns[i]))
			p.imm64_tail[++i] = true;
	vm->progs[vm->nprogs] = p;
	return (int)vm->nprogs++;
}

int gs_vm_load_asm(struct gs_vm *vm, const struct gs_asm *a, const uint32_t *map_ids,
		   struct gs_error *err)
{
	struct bpf_insn *insns = NULL;
	int *fds = NULL;
	int ret;

	if (!a->finished || a->error.code)
		return gs_errorf(err, -EINVAL, "the assembler is not finished without error: %s",
				 a->error.code ? a->error.msg : "call gs_asm_finish() first");
	if (a->nmaps && !map_ids)
		return gs_errorf(err, -EINVAL, "the program declares %zu maps but no VM map ids "
				 "were given", a->nmaps);
	insns = malloc((a->len ? a->len : 1) * sizeof(*insns));
	fds = malloc((a->nmaps ? a->nmaps : 1) * sizeof(*fds));
	if (!insns || !fds) {
		ret = gs_errorf(err, -ENOMEM, "out of memory loading a program");
		goto out;
	}
	for (size_t i = 0; i < a->nmaps; i++) {
		if (map_ids[i] >= vm->nmaps) {
			ret = gs_errorf(err, -EINVAL, "assembler map %zu ('%s') is given VM "
					"map %u, but the VM has %zu maps", i, a->maps[i],
					map_ids[i], vm->nmaps);
			goto out;
		}
		fds[i] = gs_vm_map_fd(map_ids[i]);
	}
	memcpy(insns, a->insns, a->len * sizeof(*insns));
	ret = gs_reloc_apply(insns, a->len, a->relocs, a->nrelocs, fds, a->nmaps, err);
	if (ret == 0)
		ret = gs_vm_add_prog(vm, insns, a->len, a->notes, err);
out:
	free(insns);
	free(fds);
	return ret;
}
