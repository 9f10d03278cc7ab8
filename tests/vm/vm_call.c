/* Calls in the test VM: bpf-to-bpf calls of static and global subprograms,
 * bpf_loop with its callback run one iteration per frame entry, and exit,
 * which returns to the caller or starts the next iteration. Each follows
 * what the verifier lets the callee assume: a global subprogram sees only
 * the parameters its BTF declares and returns a scalar; a callback gets
 * (index, ctx) in a fresh frame and returns 0 (go on) or 1 (stop). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "vm_priv.h"

#define MAX_LOOPS (1u << 23) /* BPF_MAX_LOOPS */

void vm_enter_frame(struct gs_vm_exec *x, uint32_t d)
{
	struct vm_frame *f = &x->frames[d];

	memset(f->stack, GS_VM_STACK_POISON, sizeof(f->stack));
	memset(f->slot_region, 0, sizeof(f->slot_region));
	x->depth = d;
	if (d + 1 > x->vm->stats.max_depth)
		x->vm->stats.max_depth = d + 1;
	x->r[GS_FP] = (struct vm_reg){
		.v = (uint64_t)(uintptr_t)(f->stack + GS_VM_STACK_SIZE),
		.region = VM_REGION_STACK0 + d, .init = true,
	};
}

const struct gs_vm_func *vm_func_at(const struct gs_vm_prog *p, size_t pc)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].insn == pc)
			return &p->funcs[i];
	return NULL;
}

/* The frame above the current one, set up to return to ret_pc; NULL with
 * the run failed past the kernel's call depth. */
static struct vm_frame *push_frame(struct gs_vm_exec *x, size_t ret_pc, uint8_t kind)
{
	struct vm_frame *f;

	if (x->depth + 1 >= GS_VM_MAX_FRAMES) {
		vm_fail(x, -E2BIG, "a call %u frames deep: the kernel allows %d", x->depth + 2,
			GS_VM_MAX_FRAMES);
		return NULL;
	}
	f = &x->frames[x->depth + 1];
	memcpy(f->saved, &x->r[GS_R6], sizeof(f->saved));
	f->ret_prog = x->prog;
	f->ret_pc = ret_pc;
	f->kind = kind;
	return f;
}

/* A global subprogram's arguments: scalars where its BTF says so, pointers
 * elsewhere; registers past its parameters are not passed. */
static bool global_args(struct gs_vm_exec *x, const struct gs_vm_func *fn)
{
	for (uint8_t i = 0; i < 5; i++) {
		struct vm_reg *r = &x->r[GS_R1 + i];
		bool ptr = fn->ptr_args >> i & 1;

		if (i >= fn->nargs) {
			r->init = false;
			continue;
		}
		if (!vm_reg_ok(x, GS_R1 + i, "global subprogram argument"))
			return false;
		if (ptr != (r->region != VM_SCALAR)) {
			vm_fail(x, -EINVAL, "argument r%d of the global subprogram at pc %" PRIu32
				" must be a %s", i + 1, fn->insn, ptr ? "pointer" : "scalar");
			return false;
		}
	}
	return true;
}

void vm_bpf_call(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	int64_t target = (int64_t)x->pc + 1 + in->imm;
	const struct gs_vm_func *fn;
	struct vm_frame *f;

	if (target < 0 || target >= (int64_t)x->p->n) {
		vm_fail(x, -EINVAL, "calls pc %" PRId64 ", outside the %zu-instruction program",
			target, x->p->n);
		return;
	}
	fn = vm_func_at(x->p, (size_t)target);
	if (x->p->funcs && !fn) {
		vm_fail(x, -EINVAL, "calls pc %" PRId64 ", where the BTF starts no subprogram",
			target);
		return;
	}
	if (fn && fn->global && !global_args(x, fn))
		return;
	f = push_frame(x, x->pc + 1, fn && fn->global ? VM_CALL_GLOBAL : VM_CALL_STATIC);
	if (!f)
		return;
	x->r[GS_R0].init = false;
	for (int i = GS_R6; i <= GS_R9; i++)
		x->r[i].init = false;
	vm_enter_frame(x, x->depth + 1);
	x->pc = (size_t)target;
}

/* Iteration f->loop_i of the callback in frame d: r1 = index, r2 = ctx,
 * nothing else readable, a fresh stack (the verifier assumes nothing about
 * the one before). */
static void loop_iteration(struct gs_vm_exec *x, struct vm_frame *f, uint32_t d)
{
	for (int i = 0; i < GS_NREGS; i++)
		x->r[i].init = false;
	x->r[GS_R1] = (struct vm_reg){ .v = f->loop_i, .init = true };
	x->r[GS_R2] = f->loop_ctx;
	vm_enter_frame(x, d);
	x->pc = f->loop_pc;
}

/* A helper's return without a frame: r0 = v, r1-r5 gone. */
static void loop_return_now(struct gs_vm_exec *x, int64_t v)
{
	x->r[GS_R0] = (struct vm_reg){ .v = (uint64_t)v, .init = true };
	for (int i = GS_R1; i <= GS_R5; i++)
		x->r[i].init = false;
	x->pc++;
}

void vm_loop_start(struct gs_vm_exec *x)
{
	const struct vm_reg *cb = &x->r[GS_R2], *ctx = &x->r[GS_R3];
	uint64_t pc;
	struct vm_frame *f;

	for (uint8_t reg = GS_R1; reg <= GS_R4; reg++)
		if (!vm_reg_ok(x, reg, "bpf_loop argument"))
			return;
	if (x->r[GS_R1].region != VM_SCALAR || x->r[GS_R4].region != VM_SCALAR) {
		vm_fail(x, -EINVAL, "bpf_loop: nr_loops (r1) and flags (r4) must be scalars");
		return;
	}
	if (cb->region != VM_REGION_FUNC) {
		vm_fail(x, -EINVAL, "bpf_loop: r2 must be a callback loaded by ld_imm64 (src=4)");
		return;
	}
	if (ctx->region == VM_SCALAR && ctx->v != 0) {
		vm_fail(x, -EINVAL, "bpf_loop: the callback ctx (r3) is the scalar 0x%" PRIx64
			", neither NULL nor a pointer", ctx->v);
		return;
	}
	x->vm->stats.helper_calls++;
	pc = cb->v - VM_FUNC_BASE;
	if (x->r[GS_R4].v) {
		loop_return_now(x, -EINVAL);
		return;
	}
	if ((uint32_t)x->r[GS_R1].v > MAX_LOOPS) {
		loop_return_now(x, -E2BIG);
		return;
	}
	if ((uint32_t)x->r[GS_R1].v == 0) {
		loop_return_now(x, 0);
		return;
	}
	f = push_frame(x, x->pc + 1, VM_CALL_LOOP);
	if (!f)
		return;
	f->loop_pc = (size_t)pc;
	f->loop_ctx = *ctx;
	f->loop_i = 0;
	f->loop_n = (uint32_t)x->r[GS_R1].v;
	loop_iteration(x, f, x->depth + 1);
}

/* The checks the verifier makes of r0 at a subprogram's exit. */
static bool return_ok(struct gs_vm_exec *x, const struct vm_frame *f)
{
	const struct vm_reg *r0 = &x->r[GS_R0];

	if (r0->region >= VM_REGION_STACK0 + x->depth && r0->region < VM_REGION_FUNC) {
		vm_fail(x, -EINVAL, "returns a pointer to its own stack frame");
		return false;
	}
	if (f->kind == VM_CALL_GLOBAL && r0->region != VM_SCALAR) {
		vm_fail(x, -EINVAL, "a global subprogram returns a pointer, not a scalar");
		return false;
	}
	if (f->kind == VM_CALL_LOOP && (r0->region != VM_SCALAR || r0->v > 1)) {
		vm_fail(x, -EINVAL, "a bpf_loop callback returns 0x%" PRIx64 ": it must return 0 "
			"(go on) or 1 (stop)", r0->v);
		return false;
	}
	return true;
}

bool vm_exit(struct gs_vm_exec *x)
{
	struct vm_frame *f = &x->frames[x->depth];

	if (!vm_reg_ok(x, GS_R0, "return value"))
		return false;
	if (x->depth == 0)
		return true;
	if (!return_ok(x, f))
		return false;
	if (f->kind == VM_CALL_LOOP) {
		f->loop_i++;
		if (x->r[GS_R0].v == 0 && f->loop_i < f->loop_n) {
			loop_iteration(x, f, x->depth);
			return false;
		}
		x->r[GS_R0] = (struct vm_reg){ .v = f->loop_i, .init = true };
	}
	memcpy(&x->r[GS_R6], f->saved, sizeof(f->saved));
	for (int i = GS_R1; i <= GS_R5; i++)
		x->r[i].init = false;
	x->depth--;
	x->r[GS_FP] = (struct vm_reg){
		.v = (uint64_t)(uintptr_t)(x->frames[x->depth].stack + GS_VM_STACK_SIZE),
		.region = VM_REGION_STACK0 + x->depth, .init = true,
	};
	x->prog = f->ret_prog;
	x->p = &x->vm->progs[x->prog];
	x->pc = f->ret_pc;
	return false;
}
