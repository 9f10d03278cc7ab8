/* Lifetime of the test VM and loading of programs: copies of the
 * instructions and notes, ld_imm64 second slots marked, relocations of a
 * finished assembler patched with the fake fds of VM maps, and its
 * subprograms' linkage and parameters read from the program's BTF. */
#include <errno.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/asm.h>
#include <gs/btf.h>

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
	free(p->funcs);
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

	if (!a->finished || gs_asm_failed(a))
		return gs_errorf(err, -EINVAL, "the assembler is not finished without error: %s",
				 a->error ? a->error->msg : "call gs_asm_finish() first");
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

/* ---- subprograms from BTF ---------------------------------------------------- */

/* Bytes of the record a btf_type of this kind and vlen has after it. */
static size_t btf_tail(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG: return 4;
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC: return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64: return vlen * 12;
	default: return 0; /* PTR, FWD, TYPEDEF, modifiers, FUNC, FLOAT, TYPE_TAG */
	}
}

/* The record of type `id` (>= 1) in b's type section, or NULL. */
static const struct btf_type *btf_type_at(const struct gs_btf *b, uint32_t id)
{
	size_t off = 0;

	for (uint32_t t = 1; off + sizeof(struct btf_type) <= b->len; t++) {
		const struct btf_type *bt = (const struct btf_type *)(b->types + off);

		if (t == id)
			return bt;
		off += sizeof(*bt) + btf_tail(BTF_INFO_KIND(bt->info), BTF_INFO_VLEN(bt->info));
	}
	return NULL;
}

/* One subprogram record: FUNC type -> linkage, FUNC_PROTO -> parameters. */
static int func_from_btf(const struct gs_btf *b, const struct gs_asm_func *af,
			 struct gs_vm_func *out, struct gs_error *err)
{
	const struct btf_type *fn = btf_type_at(b, af->type_id), *proto;
	const struct btf_param *params;

	if (!fn || BTF_INFO_KIND(fn->info) != BTF_KIND_FUNC ||
	    !(proto = btf_type_at(b, fn->type)) || BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO)
		return gs_errorf(err, -EINVAL, "the subprogram at pc %u names BTF type %u, which is "
				 "no FUNC with a FUNC_PROTO", af->insn, af->type_id);
	if (BTF_INFO_VLEN(proto->info) > 5)
		return gs_errorf(err, -EINVAL, "the subprogram at pc %u has %u parameters (at most "
				 "5)", af->insn, BTF_INFO_VLEN(proto->info));
	*out = (struct gs_vm_func){ .insn = af->insn,
		.global = BTF_INFO_VLEN(fn->info) == BTF_FUNC_GLOBAL,
		.nargs = (uint8_t)BTF_INFO_VLEN(proto->info) };
	params = (const struct btf_param *)(proto + 1);
	for (uint8_t i = 0; i < out->nargs; i++) {
		const struct btf_type *t = btf_type_at(b, params[i].type);

		if (t && BTF_INFO_KIND(t->info) == BTF_KIND_PTR)
			out->ptr_args |= (uint8_t)(1u << i);
	}
	return 0;
}

int gs_vm_load_asm_btf(struct gs_vm *vm, const struct gs_asm *a, const struct gs_btf *btf,
		       const uint32_t *map_ids, struct gs_error *err)
{
	struct gs_vm_func *funcs;
	int prog;

	if (!btf || a->nfuncs == 0)
		return gs_vm_load_asm(vm, a, map_ids, err);
	funcs = calloc(a->nfuncs, sizeof(*funcs));
	if (!funcs)
		return gs_errorf(err, -ENOMEM, "out of memory for %zu subprograms", a->nfuncs);
	for (size_t i = 0; i < a->nfuncs; i++) {
		int rc = func_from_btf(btf, &a->funcs[i], &funcs[i], err);

		if (rc) {
			free(funcs);
			return rc;
		}
	}
	prog = gs_vm_load_asm(vm, a, map_ids, err);
	if (prog < 0) {
		free(funcs);
		return prog;
	}
	vm->progs[prog].funcs = funcs;
	vm->progs[prog].nfuncs = a->nfuncs;
	return prog;
}
