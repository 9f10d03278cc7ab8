/* The test VM's interpreter: the run loop with its instruction budget,
 * loads, stores and atomics through checked memory, ld_imm64 of constants,
 * map handles, map values and callbacks, jumps, helper calls, and the error
 * message naming the instruction. ALU is in vm_alu.c, memory checks in
 * vm_mem.c, helpers in vm_helpers.c, bpf-to-bpf calls, bpf_loop and exit in
 * vm_call.c, loading in vm_load.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/disasm.h>

#include "vm_priv.h"

/* A map handle's value: only its region matters, but keep it recognisable. */
#define MAP_HANDLE_BASE 0xffff888800000000ull
#define REGIONS_INITIAL 64

int vm_fail(struct gs_vm_exec *x, int code, const char *fmt, ...)
{
	const char *note = NULL;
	char text[128] = "(past the end of the program)";
	char msg[GS_ERROR_MSG_MAX];
	va_list ap;

	if (x->code)
		return x->code;
	x->code = code;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->p && x->pc < x->p->n) {
		gs_disasm_insn(&x->p->insns[x->pc], x->p->n - x->pc, text, sizeof(text));
		note = x->p->notes ? x->p->notes[x->pc] : NULL;
	}
	gs_errorf(x->err, code, "prog %" PRIu32 " pc %zu: %s: %s%s%s%s", x->prog, x->pc, text, msg,
		  note ? " (note: " : "", note ? note : "", note ? ")" : "");
	return code;
}

bool vm_reg_ok(struct gs_vm_exec *x, uint8_t reg, const char *why)
{
	if (reg < GS_NREGS && x->r[reg].init)
		return true;
	if (reg >= GS_NREGS)
		vm_fail(x, -EINVAL, "register r%d does not exist", reg);
	else
		vm_fail(x, -EINVAL, "%s r%d was never written", why, reg);
	return false;
}

static const uint8_t access_bytes[4] = {
	[BPF_W >> 3] = 4, [BPF_H >> 3] = 2, [BPF_B >> 3] = 1, [BPF_DW >> 3] = 8,
};

static uint64_t load_le(const uint8_t *p, size_t size)
{
	uint8_t b8;
	uint16_t b16;
	uint32_t b32;
	uint64_t b64;

	switch (size) {
	case 1: memcpy(&b8, p, 1); return b8;
	case 2: memcpy(&b16, p, 2); return b16;
	case 4: memcpy(&b32, p, 4); return b32;
	default: memcpy(&b64, p, 8); return b64;
	}
}

static void store(uint8_t *p, size_t size, uint64_t v)
{
	uint8_t b8 = (uint8_t)v;
	uint16_t b16 = (uint16_t)v;
	uint32_t b32 = (uint32_t)v;

	switch (size) {
	case 1: memcpy(p, &b8, 1); break;
	case 2: memcpy(p, &b16, 2); break;
	case 4: memcpy(p, &b32, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t sign_extend(uint64_t v, size_t size)
{
	switch (size) {
	case 1: return (uint64_t)(int64_t)(int8_t)v;
	case 2: return (uint64_t)(int64_t)(int16_t)v;
	default: return (uint64_t)(int64_t)(int32_t)v;
	}
}

static bool regs_in_range(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	if (in->dst_reg < GS_NREGS && in->src_reg < GS_NREGS)
		return true;
	vm_fail(x, -EINVAL, "register number out of range");
	return false;
}

static bool dst_writable(struct gs_vm_exec *x, uint8_t reg)
{
	if (reg != GS_FP)
		return true;
	vm_fail(x, -EINVAL, "writes r10, the read-only frame pointer");
	return false;
}

/* dst = *(size *)(src + off), zero- or sign-extended; a spilled pointer
 * comes back whole. */
static void exec_ldx(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	size_t size = access_bytes[BPF_SIZE(in->code) >> 3];
	bool sx = BPF_MODE(in->code) == BPF_MEMSX;
	uint32_t spilled;
	const uint8_t *p;
	uint64_t v;

	if ((!sx && BPF_MODE(in->code) != BPF_MEM) || (sx && size == 8) || in->imm) {
		vm_fail(x, -EINVAL, "invalid load encoding");
		return;
	}
	if (!regs_in_range(x, in) || !dst_writable(x, in->dst_reg))
		return;
	p = vm_insn_mem(x, in->src_reg, in->off, size, VM_READ);
	if (!p)
		return;
	v = load_le(p, size);
	spilled = vm_stack_spill(x, x->r[in->src_reg].region, p);
	if (spilled && size != 8) {
		vm_fail(x, -EINVAL, "reads %zu bytes of a pointer spilled to the stack", size);
		return;
	}
	x->r[in->dst_reg] = (struct vm_reg){ .v = sx ? sign_extend(v, size) : v,
					     .region = spilled, .init = true };
	x->pc++;
}

/* *(size *)(dst + off) = src or imm; a pointer may only be spilled whole. */
static void exec_store(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	bool reg = BPF_CLASS(in->code) == BPF_STX;
	size_t size = access_bytes[BPF_SIZE(in->code) >> 3];
	uint32_t ptr = VM_SCALAR;
	uint64_t v = (uint64_t)(int64_t)in->imm;
	uint8_t *p;

	if (reg ? in->imm != 0 : in->src_reg != 0) {
		vm_fail(x, -EINVAL, "invalid store encoding");
		return;
	}
	if (!regs_in_range(x, in))
		return;
	if (reg) {
		if (!vm_reg_ok(x, in->src_reg, "stored"))
			return;
		v = x->r[in->src_reg].v;
		ptr = x->r[in->src_reg].region;
	}
	p = vm_insn_mem(x, in->dst_reg, in->off, size, VM_WRITE);
	if (!p)
		return;
	if (ptr && x->regions[x->r[in->dst_reg].region].kind == VM_STACK) {
		if (size != 8) {
			vm_fail(x, -EINVAL, "spills %zu bytes of the pointer in r%d "
				"(only 8 may be)", size, in->src_reg);
			return;
		}
		vm_stack_set_spill(x, x->r[in->dst_reg].region, p, ptr);
	}
	store(p, size, v);
	x->pc++;
}

static uint64_t atomic_apply(uint8_t op, uint64_t old, uint64_t v)
{
	switch (op) {
	case BPF_ADD: return old + v;
	case BPF_OR: return old | v;
	case BPF_AND: return old & v;
	default: return old ^ v; /* BPF_XOR */
	}
}

/* Atomic add/or/and/xor (optionally fetching the old value into src),
 * xchg and cmpxchg (which compares with r0 and loads the old value into
 * r0), on 4 or 8 bytes; 32-bit results are zero-extended. */
static void exec_atomic(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	size_t size = access_bytes[BPF_SIZE(in->code) >> 3];
	uint8_t op = (uint8_t)(in->imm & ~BPF_FETCH);
	bool fetch = in->imm & BPF_FETCH;
	uint64_t mask = size == 8 ? UINT64_MAX : UINT32_MAX, old, v;
	uint8_t *p;

	if ((size != 4 && size != 8) || (in->imm & ~0xff) ||
	    !(op == BPF_ADD || op == BPF_OR || op == BPF_AND || op == BPF_XOR ||
	      in->imm == BPF_XCHG || in->imm == BPF_CMPXCHG)) {
		vm_fail(x, -EINVAL, "invalid atomic encoding");
		return;
	}
	if (!regs_in_range(x, in) || !vm_reg_ok(x, in->src_reg, "atomic operand"))
		return;
	if (in->imm == BPF_CMPXCHG && !vm_reg_ok(x, GS_R0, "cmpxchg comparand"))
		return;
	if (fetch && in->imm != BPF_CMPXCHG && !dst_writable(x, in->src_reg))
		return;
	p = vm_insn_mem(x, in->dst_reg, in->off, size, VM_ATOMIC);
	if (!p)
		return;
	old = load_le(p, size);
	v = x->r[in->src_reg].v & mask;
	if (in->imm == BPF_CMPXCHG) {
		if (old == (x->r[GS_R0].v & mask))
			store(p, size, v);
		x->r[GS_R0] = (struct vm_reg){ .v = old, .init = true };
	} else {
		store(p, size, in->imm == BPF_XCHG ? v : atomic_apply(op, old, v));
		if (fetch)
			x->r[in->src_reg] = (struct vm_reg){ .v = old, .init = true };
	}
	x->pc++;
}

/* ld_imm64: a constant (src 0), a map handle (src 1), a pointer into the
 * only value of a one-entry ARRAY (src 2, offset in the second imm) or a
 * subprogram to pass as a callback (src 4, imm relative like a call's). */
static void exec_ld_imm64(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	const struct bpf_insn *hi = in + 1;
	struct gs_vm_map *m = NULL;
	uint32_t id = 0, off;
	int64_t target;

	if (x->pc + 1 >= x->p->n || hi->code || hi->dst_reg || hi->src_reg || hi->off ||
	    in->off || in->dst_reg >= GS_NREGS) {
		vm_fail(x, -EINVAL, "invalid ld_imm64 encoding");
		return;
	}
	if (!dst_writable(x, in->dst_reg))
		return;
	off = (uint32_t)hi->imm;
	if (in->src_reg == BPF_PSEUDO_MAP_FD || in->src_reg == BPF_PSEUDO_MAP_VALUE) {
		m = vm_map_by_fd(x->vm, in->imm, &id);
		if (!m) {
			vm_fail(x, -EINVAL, "fd %d is no VM map (fds start at %d: patch them with "
				"gs_vm_load_asm() or gs_vm_map_fd())", in->imm, GS_VM_FD_BASE);
			return;
		}
	}
	switch (in->src_reg) {
	case 0:
		x->r[in->dst_reg] = (struct vm_reg){
			.v = (uint32_t)in->imm | (uint64_t)(uint32_t)hi->imm << 32, .init = true,
		};
		break;
	case BPF_PSEUDO_MAP_FD:
		if (hi->imm) {
			vm_fail(x, -EINVAL, "a map fd load carries a second imm of %d", hi->imm);
			return;
		}
		x->r[in->dst_reg] = (struct vm_reg){
			.v = MAP_HANDLE_BASE + ((uint64_t)id << 12),
			.region = vm_region_map_handle(x, id), .init = true,
		};
		break;
	case BPF_PSEUDO_MAP_VALUE:
		if (m->type != BPF_MAP_TYPE_ARRAY || m->max_entries != 1 || off >= m->value_size) {
			vm_fail(x, -EINVAL, "direct value access needs a one-entry ARRAY and an "
				"offset inside its value: map '%s', offset %u", m->name, off);
			return;
		}
		x->r[in->dst_reg] = (struct vm_reg){
			.v = (uint64_t)(uintptr_t)(m->values + off),
			.region = vm_region_map_value(x, id, m->values), .init = true,
		};
		break;
	case BPF_PSEUDO_FUNC:
		target = (int64_t)x->pc + 1 + in->imm;
		if (hi->imm || target < 0 || target >= (int64_t)x->p->n ||
		    (x->p->funcs && !vm_func_at(x->p, (size_t)target))) {
			vm_fail(x, -EINVAL, "a callback load names pc %" PRId64 ", which starts no "
				"subprogram of this program", target);
			return;
		}
		x->r[in->dst_reg] = (struct vm_reg){ .v = VM_FUNC_BASE + (uint64_t)target,
						     .region = VM_REGION_FUNC, .init = true };
		break;
	default:
		vm_fail(x, -ENOSYS, "ld_imm64 with src %d is not supported by the test VM",
			in->src_reg);
		return;
	}
	x->pc += 2;
}

/* Starts program x->prog at pc 0 in the current frame with r1 = ctx and
 * nothing else readable: a run's start and a tail call. */
static void start_prog(struct gs_vm_exec *x)
{
	const struct vm_region *ctx = &x->regions[VM_REGION_CTX];

	for (int i = 0; i < GS_NREGS; i++)
		x->r[i].init = false;
	x->r[GS_R1] = (struct vm_reg){ .v = (uint64_t)(uintptr_t)ctx->base,
				       .region = VM_REGION_CTX, .init = true };
	vm_enter_frame(x, x->depth);
	x->p = &x->vm->progs[x->prog];
	x->pc = 0;
}

static bool jump_to(struct gs_vm_exec *x, int64_t delta)
{
	int64_t target = (int64_t)x->pc + 1 + delta;

	if (target < 0 || target >= (int64_t)x->p->n) {
		vm_fail(x, -EINVAL, "jumps to pc %" PRId64 ", outside the %zu-instruction program",
			target, x->p->n);
		return false;
	}
	x->pc = (size_t)target;
	return true;
}

/* JMP and JMP32: ja, gotol, conditions, calls, exit. True when the run
 * has finished. */
static bool exec_jmp(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	bool is64 = BPF_CLASS(in->code) == BPF_JMP;
	uint8_t op = BPF_OP(in->code);
	int taken;

	switch (op) {
	case BPF_JA:
		if (BPF_SRC(in->code) || in->dst_reg || in->src_reg || (is64 ? in->imm : in->off))
			vm_fail(x, -EINVAL, "invalid ja encoding");
		else
			jump_to(x, is64 ? in->off : in->imm);
		return false;
	case BPF_CALL:
	case BPF_EXIT:
		if (!is64 || BPF_SRC(in->code) || in->dst_reg || in->off ||
		    (op == BPF_EXIT && (in->src_reg || in->imm))) {
			vm_fail(x, -EINVAL, "invalid %s encoding",
				op == BPF_CALL ? "call" : "exit");
			return false;
		}
		if (op == BPF_EXIT)
			return vm_exit(x);
		if (in->src_reg == BPF_PSEUDO_CALL) {
			vm_bpf_call(x, in);
		} else if (in->src_reg != 0) {
			vm_fail(x, -ENOSYS, "kfunc calls are not supported by the test VM");
		} else if (in->imm == BPF_FUNC_loop) {
			vm_loop_start(x);
		} else if (vm_call_helper(x, in->imm) == 0) {
			if (x->tail_called) {
				x->tail_called = false;
				start_prog(x);
			} else {
				x->pc++;
			}
		}
		return false;
	default:
		taken = vm_jmp_cond(x, in);
		if (taken >= 0)
			jump_to(x, taken ? in->off : 0);
		return false;
	}
}

/* Executes the instruction at x->pc; true when the run has finished. */
static bool step(struct gs_vm_exec *x)
{
	const struct bpf_insn *in = &x->p->insns[x->pc];

	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		vm_alu(x, in);
		if (!x->code)
			x->pc++;
		return false;
	case BPF_JMP:
	case BPF_JMP32:
		return exec_jmp(x, in);
	case BPF_LDX:
		exec_ldx(x, in);
		return false;
	case BPF_ST:
		if (BPF_MODE(in->code) != BPF_MEM)
			vm_fail(x, -EINVAL, "invalid store encoding");
		else
			exec_store(x, in);
		return false;
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_ATOMIC)
			exec_atomic(x, in);
		else if (BPF_MODE(in->code) == BPF_MEM)
			exec_store(x, in);
		else
			vm_fail(x, -EINVAL, "invalid store encoding");
		return false;
	default: /* BPF_LD */
		if (gs_insn_is_ld_imm64(in))
			exec_ld_imm64(x, in);
		else if (BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND)
			vm_fail(x, -ENOSYS, "legacy packet loads are not supported by the test VM");
		else
			vm_fail(x, -EINVAL, "invalid load encoding");
		return false;
	}
}

static struct gs_vm_exec *exec_get(struct gs_vm *vm)
{
	struct gs_vm_exec *x = vm->exec;

	if (x)
		return x;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->regions = calloc(REGIONS_INITIAL, sizeof(*x->regions));
	if (!x->regions) {
		free(x);
		return NULL;
	}
	x->regions_cap = REGIONS_INITIAL;
	vm->exec = x;
	return x;
}

int gs_vm_read_stack(const struct gs_vm *vm, int16_t off, void *buf, size_t size)
{
	if (!vm->exec || off >= 0 || off < -GS_VM_STACK_SIZE || size > (size_t)-off)
		return -EINVAL;
	memcpy(buf, vm->exec->frames[0].stack + GS_VM_STACK_SIZE + off, size);
	return 0;
}

int gs_vm_run(struct gs_vm *vm, uint32_t prog, const void *ctx, size_t ctx_size,
	      uint64_t *r0, struct gs_error *err)
{
	struct gs_vm_exec *x;
	bool done = false;

	gs_error_clear(err);
	memset(&vm->stats, 0, sizeof(vm->stats));
	if (prog >= vm->nprogs)
		return gs_errorf(err, -EINVAL, "no program %u (%zu loaded)", prog, vm->nprogs);
	if (vm->cpu >= vm->ncpus)
		return gs_errorf(err, -EINVAL, "vm->cpu is %u but the VM has %u CPUs", vm->cpu,
				 vm->ncpus);
	if (!ctx && ctx_size)
		return gs_errorf(err, -EINVAL, "a NULL ctx of %zu bytes", ctx_size);
	x = exec_get(vm);
	if (!x)
		return gs_errorf(err, -ENOMEM, "out of memory for the run state");
	x->vm = vm;
	x->err = err;
	x->code = 0;
	x->prog = prog;
	x->depth = 0;
	x->tail_call_cnt = 0;
	x->tail_called = false;
	vm_regions_reset(x, ctx, ctx_size);
	start_prog(x);

	while (!done && !x->code) {
		if (x->pc >= x->p->n) {
			vm_fail(x, -EINVAL, "runs past the end of the program without an exit");
			break;
		}
		if (x->p->imm64_tail[x->pc]) {
			vm_fail(x, -EINVAL, "jumps into the second slot of the ld_imm64 at pc %zu",
				x->pc - 1);
			break;
		}
		if (vm->stats.insns >= vm->insn_budget) {
			vm_fail(x, -ELOOP, "the run exceeds its budget of %" PRIu64
				" instructions (a runaway loop?)", vm->insn_budget);
			break;
		}
		vm->stats.insns++;
		done = step(x);
	}
	if (x->code)
		return x->code;
	if (r0)
		*r0 = x->r[GS_R0].v;
	return 0;
}
