/* Text form of one BPF instruction, in the syntax of the kernel verifier log,
 * and of a raw program. Each encoding RFC 9669 defines gets its line; any
 * other (reserved opcode, register > r10, a stray bit in an unused field)
 * prints as its raw bytes, so the text never hides a field. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gs/disasm.h>

#include "insn_text.h"

/* Longest line of any instruction (about 60 characters), with room. */
#define DISASM_TEXT_SIZE 128

/* Operators of the ALU ops, indexed by BPF_OP >> 4; NULL where the op has its
 * own form (neg, end) or is reserved. Atomic add/or/and/xor print these too. */
static const char *const alu_ops[16] = {
	[BPF_ADD >> 4] = "+=",  [BPF_SUB >> 4] = "-=",  [BPF_MUL >> 4] = "*=",
	[BPF_DIV >> 4] = "/=",  [BPF_OR >> 4] = "|=",   [BPF_AND >> 4] = "&=",
	[BPF_LSH >> 4] = "<<=", [BPF_RSH >> 4] = ">>=", [BPF_MOD >> 4] = "%=",
	[BPF_XOR >> 4] = "^=",  [BPF_MOV >> 4] = "=",   [BPF_ARSH >> 4] = "s>>=",
};

/* Comparisons of the conditional jumps, indexed by BPF_OP >> 4. */
static const char *const jmp_ops[16] = {
	[BPF_JEQ >> 4] = "==",  [BPF_JGT >> 4] = ">",   [BPF_JGE >> 4] = ">=",
	[BPF_JSET >> 4] = "&",  [BPF_JNE >> 4] = "!=",  [BPF_JSGT >> 4] = "s>",
	[BPF_JSGE >> 4] = "s>=", [BPF_JLT >> 4] = "<",  [BPF_JLE >> 4] = "<=",
	[BPF_JSLT >> 4] = "s<", [BPF_JSLE >> 4] = "s<=",
};

/* Names of the atomic read-modify-write ops in `atomic_fetch_add(`. */
static const char *const atomic_ops[16] = {
	[BPF_ADD >> 4] = "add", [BPF_OR >> 4] = "or",
	[BPF_AND >> 4] = "and", [BPF_XOR >> 4] = "xor",
};

/* Access sizes, indexed by BPF_SIZE >> 3: zero-extending and sign-extending
 * (there is no sign-extending 64-bit load). */
static const char *const size_u[4] = {
	[BPF_W >> 3] = "u32", [BPF_H >> 3] = "u16", [BPF_B >> 3] = "u8", [BPF_DW >> 3] = "u64",
};
static const char *const size_s[4] = {
	[BPF_W >> 3] = "s32", [BPF_H >> 3] = "s16", [BPF_B >> 3] = "s8",
};

/* A bounded output: `len` counts every character asked for, so appending
 * past `size` truncates instead of overflowing, and size 0 writes nothing.
 * `jump` names a pc-relative target the caller's way (insn_text.h). */
struct text {
	char *buf;
	size_t size;
	size_t len;
	struct asm_jump *jump;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	size_t room = t->len < t->size ? t->size - t->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n;
}

/* A pc-relative target (`rel` from the next instruction): `pc+N`, or the
 * caller's `<name>` for it; either way the caller learns that the text
 * has one. */
static void put_target(struct text *t, int32_t rel)
{
	if (t->jump) {
		t->jump->has = true;
		t->jump->rel = rel;
	}
	if (t->jump && t->jump->name)
		put(t, "<%s>", t->jump->name);
	else
		put(t, "pc%+d", rel);
}

static bool reg_ok(uint8_t reg)
{
	return reg < GS_NREGS;
}

static const char *size_name(uint8_t code)
{
	return size_u[BPF_SIZE(code) >> 3];
}

/* Byte swaps. The kernel prints `r` for the 32-bit class too: the swap
 * always writes the whole register. ALU64 has only the unconditional swap. */
static size_t fmt_end(const struct bpf_insn *in, bool is64, struct text *t)
{
	bool to_be = BPF_SRC(in->code) == BPF_TO_BE;
	const char *name = is64 ? "bswap" : to_be ? "be" : "le";

	if ((is64 && to_be) || in->src_reg || in->off ||
	    (in->imm != 16 && in->imm != 32 && in->imm != 64))
		return 0;
	put(t, "r%d = %s%d r%d", in->dst_reg, name, in->imm, in->dst_reg);
	return 1;
}

static size_t fmt_alu(const struct bpf_insn *in, size_t avail, struct text *t)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	bool reg = BPF_SRC(in->code) == BPF_X;
	char w = is64 ? 'r' : 'w';
	uint8_t op = BPF_OP(in->code);
	const char *opstr = alu_ops[op >> 4];

	(void)avail;
	if (!reg_ok(in->dst_reg))
		return 0;
	if (op == BPF_END)
		return fmt_end(in, is64, t);
	if (op == BPF_NEG) {
		if (reg || in->src_reg || in->off || in->imm)
			return 0;
		put(t, "%c%d = -%c%d", w, in->dst_reg, w, in->dst_reg);
		return 1;
	}
	if (!opstr || (reg ? !reg_ok(in->src_reg) || in->imm : in->src_reg != 0))
		return 0;

	/* `off` selects the signed variant of div/mod and the width of movsx. */
	if (in->off == 1 && (op == BPF_DIV || op == BPF_MOD)) {
		opstr = op == BPF_DIV ? "s/=" : "s%=";
	} else if (in->off && op == BPF_MOV && reg &&
		   (in->off == 8 || in->off == 16 || (is64 && in->off == 32))) {
		put(t, "%c%d = (s%d)%c%d", w, in->dst_reg, in->off, w, in->src_reg);
		return 1;
	} else if (in->off) {
		return 0;
	}

	if (reg)
		put(t, "%c%d %s %c%d", w, in->dst_reg, opstr, w, in->src_reg);
	else
		put(t, "%c%d %s %d", w, in->dst_reg, opstr, in->imm);
	return 1;
}

static size_t fmt_ldx(const struct bpf_insn *in, size_t avail, struct text *t)
{
	uint8_t mode = BPF_MODE(in->code);
	const char *size = NULL;

	(void)avail;
	if (mode == BPF_MEM)
		size = size_u[BPF_SIZE(in->code) >> 3];
	else if (mode == BPF_MEMSX)
		size = size_s[BPF_SIZE(in->code) >> 3];
	if (!size || in->imm || !reg_ok(in->dst_reg) || !reg_ok(in->src_reg))
		return 0;
	put(t, "r%d = *(%s *)(r%d %+d)", in->dst_reg, size, in->src_reg, in->off);
	return 1;
}

static size_t fmt_st(const struct bpf_insn *in, size_t avail, struct text *t)
{
	(void)avail;
	if (BPF_MODE(in->code) != BPF_MEM || in->src_reg || !reg_ok(in->dst_reg))
		return 0;
	put(t, "*(%s *)(r%d %+d) = %d", size_name(in->code), in->dst_reg, in->off, in->imm);
	return 1;
}

/* The kernel names the operand `r` even for 32-bit atomics, and spells the
 * width only as the "64" of atomic64_*. */
static size_t fmt_atomic(const struct bpf_insn *in, struct text *t)
{
	uint8_t size = BPF_SIZE(in->code);
	const char *bits = size == BPF_DW ? "64" : "";
	const char *sz = size_name(in->code);
	uint32_t imm = (uint32_t)in->imm;
	const char *name = atomic_ops[(imm >> 4) & 0xf];

	if (size != BPF_W && size != BPF_DW)
		return 0;
	if (imm == BPF_XCHG) {
		put(t, "r%d = atomic%s_xchg((%s *)(r%d %+d), r%d)",
		    in->src_reg, bits, sz, in->dst_reg, in->off, in->src_reg);
	} else if (imm == BPF_CMPXCHG) {
		put(t, "r0 = atomic%s_cmpxchg((%s *)(r%d %+d), r0, r%d)",
		    bits, sz, in->dst_reg, in->off, in->src_reg);
	} else if ((imm & ~(0xf0u | BPF_FETCH)) || !name) {
		return 0;
	} else if (imm & BPF_FETCH) {
		put(t, "r%d = atomic%s_fetch_%s((%s *)(r%d %+d), r%d)",
		    in->src_reg, bits, name, sz, in->dst_reg, in->off, in->src_reg);
	} else {
		put(t, "lock *(%s *)(r%d %+d) %s r%d",
		    sz, in->dst_reg, in->off, alu_ops[imm >> 4], in->src_reg);
	}
	return 1;
}

static size_t fmt_stx(const struct bpf_insn *in, size_t avail, struct text *t)
{
	uint8_t mode = BPF_MODE(in->code);

	(void)avail;
	if (!reg_ok(in->dst_reg) || !reg_ok(in->src_reg))
		return 0;
	if (mode == BPF_ATOMIC)
		return fmt_atomic(in, t);
	if (mode != BPF_MEM || in->imm)
		return 0;
	put(t, "*(%s *)(r%d %+d) = r%d", size_name(in->code), in->dst_reg, in->off, in->src_reg);
	return 1;
}

/* Both slots of an ld_imm64; the second must be all zero but its imm. The
 * map forms print the fd, as the verifier log prints the map id. */
static size_t fmt_ld_imm64(const struct bpf_insn *in, size_t avail, struct text *t)
{
	const struct bpf_insn *hi = in + 1;
	unsigned long long v;

	if (avail < 2 || BPF_SIZE(in->code) != BPF_DW || !reg_ok(in->dst_reg) || in->off ||
	    hi->code || hi->dst_reg || hi->src_reg || hi->off)
		return 0;
	v = (unsigned long long)(uint32_t)hi->imm << 32 | (uint32_t)in->imm;
	if (in->src_reg == 0)
		put(t, "r%d = 0x%llx", in->dst_reg, v);
	else if (in->src_reg == BPF_PSEUDO_MAP_FD && hi->imm == 0)
		put(t, "r%d = map[fd:%d]", in->dst_reg, in->imm);
	else if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
		put(t, "r%d = map[fd:%d][0]+%u", in->dst_reg, in->imm, (uint32_t)hi->imm);
	else if (in->src_reg == BPF_PSEUDO_FUNC && hi->imm == 0) {
		put(t, "r%d = subprog ", in->dst_reg);
		put_target(t, in->imm);
	}
	else if (in->src_reg <= BPF_PSEUDO_MAP_IDX_VALUE)
		put(t, "r%d = pseudo(src=%d) 0x%llx", in->dst_reg, in->src_reg, v);
	else
		return 0;
	return 2;
}

/* ld_imm64 and the legacy packet loads, which always load into r0. */
static size_t fmt_ld(const struct bpf_insn *in, size_t avail, struct text *t)
{
	uint8_t mode = BPF_MODE(in->code);
	const char *size = size_name(in->code);

	if (mode == BPF_IMM)
		return fmt_ld_imm64(in, avail, t);
	if ((mode != BPF_ABS && mode != BPF_IND) || BPF_SIZE(in->code) == BPF_DW ||
	    in->dst_reg || in->off)
		return 0;
	if (mode == BPF_ABS && in->src_reg == 0)
		put(t, "r0 = *(%s *)skb[%d]", size, in->imm);
	else if (mode == BPF_IND && reg_ok(in->src_reg))
		put(t, "r0 = *(%s *)skb[r%d + %d]", size, in->src_reg, in->imm);
	else
		return 0;
	return 1;
}

/* Helper calls print the helper's name and id; a kfunc in a module BTF
 * carries the fd_array slot of that BTF in `off`. */
static size_t fmt_call(const struct bpf_insn *in, struct text *t)
{
	const char *name;

	if (in->dst_reg || (in->off && in->src_reg != BPF_PSEUDO_KFUNC_CALL))
		return 0;
	if (in->src_reg == 0) {
		name = gs_helper_name(in->imm);
		put(t, "call %s#%d", name ? name : "unknown", in->imm);
	} else if (in->src_reg == BPF_PSEUDO_CALL) {
		put(t, "call ");
		put_target(t, in->imm);
	} else if (in->src_reg == BPF_PSEUDO_KFUNC_CALL) {
		put(t, "call kfunc#%d", in->imm);
		if (in->off)
			put(t, " (fd_array[%d])", in->off);
	} else {
		return 0;
	}
	return 1;
}

static size_t fmt_jmp(const struct bpf_insn *in, size_t avail, struct text *t)
{
	bool is32 = BPF_CLASS(in->code) == BPF_JMP32;
	bool reg = BPF_SRC(in->code) == BPF_X;
	char w = is32 ? 'w' : 'r';
	uint8_t op = BPF_OP(in->code);
	const char *opstr = jmp_ops[op >> 4];

	(void)avail;
	if (op == BPF_JA) {
		if (reg || in->dst_reg || in->src_reg || (is32 ? in->off != 0 : in->imm != 0))
			return 0;
		put(t, is32 ? "gotol " : "goto ");
		put_target(t, is32 ? in->imm : in->off);
		return 1;
	}
	if (op == BPF_CALL)
		return is32 || reg ? 0 : fmt_call(in, t);
	if (op == BPF_EXIT) {
		if (is32 || reg || in->dst_reg || in->src_reg || in->off || in->imm)
			return 0;
		put(t, "exit");
		return 1;
	}
	if (!opstr || !reg_ok(in->dst_reg))
		return 0;
	if (reg) {
		if (!reg_ok(in->src_reg) || in->imm)
			return 0;
		put(t, "if %c%d %s %c%d goto ", w, in->dst_reg, opstr, w, in->src_reg);
	} else {
		if (in->src_reg)
			return 0;
		put(t, "if %c%d %s 0x%x goto ", w, in->dst_reg, opstr, (uint32_t)in->imm);
	}
	put_target(t, in->off);
	return 1;
}

/* Formatters by instruction class: each appends the text after the opcode
 * and returns the slots taken, or 0 for an encoding it does not define. */
static size_t (*const class_fmt[8])(const struct bpf_insn *in, size_t avail, struct text *t) = {
	[BPF_LD] = fmt_ld,       [BPF_LDX] = fmt_ldx, [BPF_ST] = fmt_st,
	[BPF_STX] = fmt_stx,     [BPF_ALU] = fmt_alu, [BPF_JMP] = fmt_jmp,
	[BPF_JMP32] = fmt_jmp,   [BPF_ALU64] = fmt_alu,
};

/* The instruction's 8 bytes as they sit in memory on a little-endian host:
 * code, dst in the low nibble and src in the high nibble, off, imm. */
static void put_raw(struct text *t, const struct bpf_insn *in)
{
	unsigned int off = (uint16_t)in->off;
	uint32_t imm = (uint32_t)in->imm;

	put(t, "(%02x) invalid: %02x %02x %02x %02x %02x %02x %02x %02x",
	    in->code, in->code, (unsigned int)(in->src_reg << 4 | in->dst_reg),
	    off & 0xff, off >> 8, imm & 0xff, (imm >> 8) & 0xff, (imm >> 16) & 0xff, imm >> 24);
}

size_t asm_disasm_insn(const struct bpf_insn *insns, size_t avail, struct asm_jump *jump,
		       char *buf, size_t size)
{
	struct text t = { .buf = buf, .size = size, .jump = jump };
	size_t slots = 0;

	if (size)
		buf[0] = '\0';
	if (jump)
		jump->has = false;
	if (!avail)
		return 0;
	put(&t, "(%02x) ", insns->code);
	slots = class_fmt[BPF_CLASS(insns->code)](insns, avail, &t);
	if (!slots) {
		/* A target half printed belongs to no instruction. */
		if (jump)
			jump->has = false;
		t.len = 0;
		put_raw(&t, insns);
		slots = 1;
	}
	return slots;
}

size_t gs_disasm_insn(const struct bpf_insn *insns, size_t avail, char *buf, size_t size)
{
	return asm_disasm_insn(insns, avail, NULL, buf, size);
}

void gs_disasm_prog(const struct bpf_insn *insns, size_t n, FILE *out)
{
	char text[DISASM_TEXT_SIZE];
	size_t i = 0;

	while (i < n) {
		size_t slots = gs_disasm_insn(insns + i, n - i, text, sizeof(text));

		fprintf(out, "%5zu: %s\n", i, text);
		i += slots;
	}
}
