/* Arithmetic and comparisons of the test VM: ALU and ALU64 with the kernel's
 * run-time semantics (x / 0 = 0, x % 0 = x, 32-bit results zero-extended,
 * register shift counts masked), byte swaps, and the conditions of JMP and
 * JMP32. Pointers keep their region through + and - of a scalar; anything
 * else the verifier forbids on a pointer stops the run. */
#include <errno.h>
#include <inttypes.h>

#include "vm_priv.h"

static const char *const op_names[16] = {
	[BPF_ADD >> 4] = "+=",  [BPF_SUB >> 4] = "-=",  [BPF_MUL >> 4] = "*=",
	[BPF_DIV >> 4] = "/=",  [BPF_OR >> 4] = "|=",   [BPF_AND >> 4] = "&=",
	[BPF_LSH >> 4] = "<<=", [BPF_RSH >> 4] = ">>=", [BPF_NEG >> 4] = "neg",
	[BPF_MOD >> 4] = "%=",  [BPF_XOR >> 4] = "^=",  [BPF_MOV >> 4] = "=",
	[BPF_ARSH >> 4] = "s>>=", [BPF_END >> 4] = "byte swap",
};

static uint64_t sign_extend(uint64_t v, unsigned bits)
{
	switch (bits) {
	case 8:
		return (uint64_t)(int64_t)(int8_t)v;
	case 16:
		return (uint64_t)(int64_t)(int16_t)v;
	default:
		return (uint64_t)(int64_t)(int32_t)v;
	}
}

static uint64_t swap_bytes(uint64_t v, int32_t bits)
{
	switch (bits) {
	case 16:
		return __builtin_bswap16((uint16_t)v);
	case 32:
		return __builtin_bswap32((uint32_t)v);
	default:
		return __builtin_bswap64(v);
	}
}

static uint64_t truncate_bits(uint64_t v, int32_t bits)
{
	return bits == 64 ? v : v & ((1ull << bits) - 1);
}

/* be16/be32/be64, le16/le32/le64 (ALU class) and bswap (ALU64 class). */
static void byte_swap(struct gs_vm_exec *x, const struct bpf_insn *in, bool is64)
{
	struct vm_reg *d = &x->r[in->dst_reg];
	bool to_be = BPF_SRC(in->code) == BPF_TO_BE;
	bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	if ((is64 && to_be) || in->src_reg || in->off ||
	    (in->imm != 16 && in->imm != 32 && in->imm != 64)) {
		vm_fail(x, -EINVAL, "invalid byte swap encoding");
		return;
	}
	if (!vm_reg_ok(x, in->dst_reg, "operand"))
		return;
	if (d->region != VM_SCALAR) {
		vm_fail(x, -EINVAL, "byte swap of r%d, which holds a pointer", in->dst_reg);
		return;
	}
	if (is64 || to_be != host_be)
		d->v = swap_bytes(d->v, in->imm);
	else
		d->v = truncate_bits(d->v, in->imm);
}

/* Encodings the verifier accepts: `off` selects sdiv/smod (1) and movsx
 * (8, 16, 32 for ALU64); a register source leaves imm 0, an immediate one
 * leaves src_reg 0. */
static bool alu_fields_ok(const struct bpf_insn *in, bool is64, bool reg, uint8_t op)
{
	if (reg ? in->imm != 0 : in->src_reg != 0)
		return false;
	if (op == BPF_NEG)
		return !reg && in->imm == 0 && in->off == 0;
	if (op == BPF_DIV || op == BPF_MOD)
		return in->off == 0 || in->off == 1;
	if (op == BPF_MOV && reg)
		return in->off == 0 || in->off == 8 || in->off == 16 || (is64 && in->off == 32);
	return in->off == 0 && op_names[op >> 4] != NULL;
}

/* Immediates the verifier rejects: a constant divisor of 0, a constant
 * shift of the register width or more. */
static bool imm_ok(struct gs_vm_exec *x, const struct bpf_insn *in, bool is64, uint8_t op)
{
	int32_t width = is64 ? 64 : 32;

	if ((op == BPF_DIV || op == BPF_MOD) && in->imm == 0) {
		vm_fail(x, -EINVAL, "division by the constant 0");
		return false;
	}
	if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) &&
	    (in->imm < 0 || in->imm >= width)) {
		vm_fail(x, -EINVAL, "constant shift by %d outside 0..%d", in->imm, width - 1);
		return false;
	}
	return true;
}

/* The region of the result of dst op= src, where either may be a pointer;
 * false with the run failed where the verifier would refuse. */
static bool pointer_result(struct gs_vm_exec *x, const struct bpf_insn *in, bool is64, uint8_t op,
			   uint32_t dp, uint32_t sp, uint32_t *region)
{
	uint8_t ptr_reg = dp ? in->dst_reg : in->src_reg;
	uint32_t ptr = dp ? dp : sp;

	*region = VM_SCALAR;
	if (!is64) {
		vm_fail(x, -EINVAL, "32-bit arithmetic on r%d, which holds a pointer", ptr_reg);
		return false;
	}
	if (x->regions[ptr].kind == VM_MAP_HANDLE || x->regions[ptr].kind == VM_FUNC) {
		vm_fail(x, -EINVAL, "arithmetic on r%d, which holds a %s", ptr_reg,
			x->regions[ptr].kind == VM_FUNC ? "callback" : "map handle");
		return false;
	}
	if (op == BPF_ADD && !(dp && sp)) {
		*region = ptr;
		return true;
	}
	if (op == BPF_SUB && dp && !sp) {
		*region = dp;
		return true;
	}
	if (op == BPF_SUB && dp == sp)
		return true; /* the distance between two pointers is a scalar */
	vm_fail(x, -EINVAL, "pointer arithmetic with %s on r%d is forbidden (%s)",
		op_names[op >> 4], ptr_reg,
		dp && sp ? "both operands are pointers"
		: dp ? "only + and - of a scalar keep a pointer" : "a scalar minus a pointer");
	return false;
}

static uint64_t alu64(uint8_t op, bool sign, uint64_t a, uint64_t b, int16_t off)
{
	switch (op) {
	case BPF_ADD: return a + b;
	case BPF_SUB: return a - b;
	case BPF_MUL: return a * b;
	case BPF_OR: return a | b;
	case BPF_AND: return a & b;
	case BPF_XOR: return a ^ b;
	case BPF_LSH: return a << (b & 63);
	case BPF_RSH: return a >> (b & 63);
	case BPF_ARSH: return (uint64_t)((int64_t)a >> (b & 63));
	case BPF_NEG: return 0 - a;
	case BPF_MOV: return off ? sign_extend(b, (unsigned)off) : b;
	case BPF_DIV:
		if (b == 0)
			return 0;
		if (!sign)
			return a / b;
		if ((int64_t)b == -1) /* INT64_MIN / -1 wraps, like the kernel's neg */
			return 0 - a;
		return (uint64_t)((int64_t)a / (int64_t)b);
	default: /* BPF_MOD */
		if (b == 0)
			return a;
		if (!sign)
			return a % b;
		if ((int64_t)b == -1)
			return 0;
		return (uint64_t)((int64_t)a % (int64_t)b);
	}
}

static uint32_t alu32(uint8_t op, bool sign, uint32_t a, uint32_t b, int16_t off)
{
	switch (op) {
	case BPF_ADD: return a + b;
	case BPF_SUB: return a - b;
	case BPF_MUL: return a * b;
	case BPF_OR: return a | b;
	case BPF_AND: return a & b;
	case BPF_XOR: return a ^ b;
	case BPF_LSH: return a << (b & 31);
	case BPF_RSH: return a >> (b & 31);
	case BPF_ARSH: return (uint32_t)((int32_t)a >> (b & 31));
	case BPF_NEG: return 0 - a;
	case BPF_MOV: return off ? (uint32_t)sign_extend(b, (unsigned)off) : b;
	case BPF_DIV:
		if (b == 0)
			return 0;
		if (!sign)
			return a / b;
		if ((int32_t)b == -1)
			return 0 - a;
		return (uint32_t)((int32_t)a / (int32_t)b);
	default: /* BPF_MOD */
		if (b == 0)
			return a;
		if (!sign)
			return a % b;
		if ((int32_t)b == -1)
			return 0;
		return (uint32_t)((int32_t)a % (int32_t)b);
	}
}

void vm_alu(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	bool reg = BPF_SRC(in->code) == BPF_X;
	uint8_t op = BPF_OP(in->code);
	struct vm_reg *d = &x->r[in->dst_reg];
	uint64_t b = (uint64_t)(int64_t)in->imm; /* ALU64 sign-extends imm */
	uint32_t sp = VM_SCALAR, region;

	if (in->dst_reg >= GS_NREGS || in->src_reg >= GS_NREGS) {
		vm_fail(x, -EINVAL, "register number out of range");
		return;
	}
	if (in->dst_reg == GS_FP) {
		vm_fail(x, -EINVAL, "writes r10, the read-only frame pointer");
		return;
	}
	if (op == BPF_END) {
		byte_swap(x, in, is64);
		return;
	}
	if (!alu_fields_ok(in, is64, reg, op)) {
		vm_fail(x, -EINVAL, "invalid ALU encoding");
		return;
	}
	if (reg) {
		if (!vm_reg_ok(x, in->src_reg, "source"))
			return;
		b = x->r[in->src_reg].v;
		sp = x->r[in->src_reg].region;
	} else if (!imm_ok(x, in, is64, op)) {
		return;
	}
	if (op != BPF_MOV && !vm_reg_ok(x, in->dst_reg, "destination"))
		return;
	if (op == BPF_MOV) /* a plain 64-bit copy keeps a pointer; a narrowing or
			    * sign-extending one leaves a scalar, as root may */
		region = is64 && in->off == 0 ? sp : VM_SCALAR;
	else if (!(d->region || sp))
		region = VM_SCALAR;
	else if (!pointer_result(x, in, is64, op, d->region, sp, &region))
		return;

	if (is64)
		d->v = alu64(op, in->off == 1, d->v, b, in->off);
	else
		d->v = alu32(op, in->off == 1, (uint32_t)d->v, (uint32_t)b, in->off);
	d->region = region;
	d->init = true;
}

static bool is_signed_jmp(uint8_t op)
{
	return op == BPF_JSGT || op == BPF_JSGE || op == BPF_JSLT || op == BPF_JSLE;
}

int vm_jmp_cond(struct gs_vm_exec *x, const struct bpf_insn *in)
{
	bool is64 = BPF_CLASS(in->code) == BPF_JMP;
	bool reg = BPF_SRC(in->code) == BPF_X;
	uint64_t a, b;
	bool taken;

	if (in->dst_reg >= GS_NREGS || in->src_reg >= GS_NREGS ||
	    (reg ? in->imm != 0 : in->src_reg != 0)) {
		vm_fail(x, -EINVAL, "invalid jump encoding");
		return -1;
	}
	if (!vm_reg_ok(x, in->dst_reg, "compared"))
		return -1;
	if (reg && !vm_reg_ok(x, in->src_reg, "compared"))
		return -1;
	a = x->r[in->dst_reg].v;
	b = reg ? x->r[in->src_reg].v : (uint64_t)(int64_t)in->imm;
	if (!is64) {
		/* JMP32 compares the low words, as s32 for the signed ops. */
		a = is_signed_jmp(BPF_OP(in->code)) ? sign_extend(a, 32) : (uint32_t)a;
		b = is_signed_jmp(BPF_OP(in->code)) ? sign_extend(b, 32) : (uint32_t)b;
	}

	switch (BPF_OP(in->code)) {
	case BPF_JEQ: taken = a == b; break;
	case BPF_JNE: taken = a != b; break;
	case BPF_JSET: taken = (a & b) != 0; break;
	case BPF_JGT: taken = a > b; break;
	case BPF_JGE: taken = a >= b; break;
	case BPF_JLT: taken = a < b; break;
	case BPF_JLE: taken = a <= b; break;
	case BPF_JSGT: taken = (int64_t)a > (int64_t)b; break;
	case BPF_JSGE: taken = (int64_t)a >= (int64_t)b; break;
	case BPF_JSLT: taken = (int64_t)a < (int64_t)b; break;
	case BPF_JSLE: taken = (int64_t)a <= (int64_t)b; break;
	default:
		vm_fail(x, -EINVAL, "unknown jump operation 0x%02x", BPF_OP(in->code));
		return -1;
	}
	return taken;
}
