/* The VM's instruction set against values worked out by hand from the ISA
 * (RFC 9669) and the kernel's run-time semantics: every ALU op in 64 and 32
 * bits with its edge cases, every jump signed and unsigned, load and store
 * sizes with sign extension, atomics, ld_imm64, and bpf-to-bpf calls. */
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "vm_test.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the expected bytes below are those of a little-endian host");

#define I64(v) ((uint64_t)(int64_t)(v))
#define MIN64 (1ull << 63)

/* r0 = a, r1 = b, then `op` on r0 (with r1 or an immediate): r0 is want. */
struct alu_case {
	const char *name;
	uint64_t a, b;
	struct bpf_insn op;
	uint64_t want;
};

static const struct alu_case alu_cases[] = {
	/* ALU64 */
	{ "add64 wraps past 2^64", ~0ull, 2, GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1), 1 },
	{ "sub64 borrows to all ones", 1, 2, GS_ALU64_REG(BPF_SUB, GS_R0, GS_R1), ~0ull },
	{ "mul64 keeps the low 64 bits", 1ull << 32, (1ull << 32) + 3,
	  GS_ALU64_REG(BPF_MUL, GS_R0, GS_R1), 3ull << 32 },
	{ "div64 is unsigned", ~0ull, 2, GS_ALU64_REG(BPF_DIV, GS_R0, GS_R1), ~0ull >> 1 },
	{ "div64 imm is sign-extended, then unsigned", ~0ull, 0,
	  GS_ALU64_IMM(BPF_DIV, GS_R0, -1), 1 },
	{ "div64 by a zero register gives 0", 7, 0, GS_ALU64_REG(BPF_DIV, GS_R0, GS_R1), 0 },
	{ "mod64 is unsigned", ~0ull, 10, GS_ALU64_REG(BPF_MOD, GS_R0, GS_R1), 5 },
	{ "mod64 by a zero register leaves dst", 7, 0, GS_ALU64_REG(BPF_MOD, GS_R0, GS_R1), 7 },
	{ "or64", 0xf0, 0x0f, GS_ALU64_REG(BPF_OR, GS_R0, GS_R1), 0xff },
	{ "and64 imm is sign-extended", ~0ull, 0, GS_ALU64_IMM(BPF_AND, GS_R0, -16), I64(-16) },
	{ "and64 imm", 0xff00ff, 0, GS_ALU64_IMM(BPF_AND, GS_R0, 0xf0f0), 0xf0 },
	{ "xor64", 0xff, 0x0f, GS_ALU64_REG(BPF_XOR, GS_R0, GS_R1), 0xf0 },
	{ "lsh64 register count is masked to 6 bits", 1, 65,
	  GS_ALU64_REG(BPF_LSH, GS_R0, GS_R1), 2 },
	{ "lsh64 imm 63", 1, 0, GS_ALU64_IMM(BPF_LSH, GS_R0, 63), MIN64 },
	{ "rsh64 is logical and masked", MIN64, 127, GS_ALU64_REG(BPF_RSH, GS_R0, GS_R1), 1 },
	{ "arsh64 copies the sign bit", MIN64, 0, GS_ALU64_IMM(BPF_ARSH, GS_R0, 63), ~0ull },
	{ "neg64", 5, 0, GS_NEG64(GS_R0), I64(-5) },
	{ "mov64 imm is sign-extended", 0, 0, GS_MOV64_IMM(GS_R0, -1), ~0ull },
	{ "mov64 register copies 64 bits", 0, 0x123456789abcdef0ull, GS_MOV64_REG(GS_R0, GS_R1),
	  0x123456789abcdef0ull },
	{ "sdiv64 truncates toward zero", I64(-7), 2, GS_SDIV64_REG(GS_R0, GS_R1), I64(-3) },
	{ "sdiv64 by a negative divisor", 7, I64(-2), GS_SDIV64_REG(GS_R0, GS_R1), I64(-3) },
	{ "sdiv64 of two negatives is positive", I64(-7), I64(-2), GS_SDIV64_REG(GS_R0, GS_R1), 3 },
	{ "sdiv64 INT64_MIN by -1 wraps to INT64_MIN", MIN64, ~0ull,
	  GS_SDIV64_REG(GS_R0, GS_R1), MIN64 },
	{ "sdiv64 by zero gives 0", I64(-7), 0, GS_SDIV64_REG(GS_R0, GS_R1), 0 },
	{ "sdiv64 imm", 9, 0, GS_SDIV64_IMM(GS_R0, -2), I64(-4) },
	{ "smod64 takes the dividend's sign", I64(-7), 2, GS_SMOD64_REG(GS_R0, GS_R1), I64(-1) },
	{ "smod64 ignores the divisor's sign", 7, I64(-2), GS_SMOD64_REG(GS_R0, GS_R1), 1 },
	{ "smod64 INT64_MIN by -1 is 0", MIN64, ~0ull, GS_SMOD64_REG(GS_R0, GS_R1), 0 },
	{ "smod64 by zero leaves dst", I64(-7), 0, GS_SMOD64_REG(GS_R0, GS_R1), I64(-7) },
	{ "smod64 imm", I64(-7), 0, GS_SMOD64_IMM(GS_R0, 3), I64(-1) },
	{ "movsx64 from s8", 0, 0x180, GS_MOVSX64_REG(GS_R0, GS_R1, 8), I64(-128) },
	{ "movsx64 from a positive s8", 0, 0x7f, GS_MOVSX64_REG(GS_R0, GS_R1, 8), 0x7f },
	{ "movsx64 from s16", 0, 0x8000, GS_MOVSX64_REG(GS_R0, GS_R1, 16), I64(-32768) },
	{ "movsx64 from s32", 0, 0x80000000, GS_MOVSX64_REG(GS_R0, GS_R1, 32),
	  0xffffffff80000000ull },
	/* ALU (32-bit): operands are the low words, results zero-extend */
	{ "add32 wraps and clears the upper half", ~0ull, 0, GS_ALU32_IMM(BPF_ADD, GS_R0, 1), 0 },
	{ "mov32 register zero-extends", ~0ull, 0xdeadbeef12345678ull,
	  GS_MOV32_REG(GS_R0, GS_R1), 0x12345678 },
	{ "mov32 imm -1 is 0xffffffff", 0, 0, GS_MOV32_IMM(GS_R0, -1), 0xffffffff },
	{ "sub32 borrows within 32 bits", 1ull << 32, 1, GS_ALU32_REG(BPF_SUB, GS_R0, GS_R1),
	  0xffffffff },
	{ "mul32 keeps the low 32 bits", 0x10000, 0x10000, GS_ALU32_REG(BPF_MUL, GS_R0, GS_R1), 0 },
	{ "div32 ignores the upper halves", 0x700000010ull, 0x900000004ull,
	  GS_ALU32_REG(BPF_DIV, GS_R0, GS_R1), 4 },
	{ "div32 by a zero low word gives 0", 0xffffffff00000007ull, 1ull << 32,
	  GS_ALU32_REG(BPF_DIV, GS_R0, GS_R1), 0 },
	{ "mod32 by a zero low word keeps dst's low word", 0xffffffff00000007ull, 1ull << 32,
	  GS_ALU32_REG(BPF_MOD, GS_R0, GS_R1), 7 },
	{ "mod32 imm", 17, 0, GS_ALU32_IMM(BPF_MOD, GS_R0, 5), 2 },
	{ "sdiv32 reads the low word as s32", 0xabcdef00fffffff9ull, 2,
	  GS_SDIV32_REG(GS_R0, GS_R1), 0xfffffffd },
	{ "sdiv32 INT32_MIN by -1 wraps", 0x80000000, 0xffffffff, GS_SDIV32_REG(GS_R0, GS_R1),
	  0x80000000 },
	{ "sdiv32 imm", 9, 0, GS_SDIV32_IMM(GS_R0, -2), 0xfffffffc },
	{ "smod32 takes the dividend's sign", 0xfffffff9, 2, GS_SMOD32_REG(GS_R0, GS_R1),
	  0xffffffff },
	{ "smod32 by zero zero-extends dst", 0xabcdef00fffffff9ull, 0,
	  GS_SMOD32_REG(GS_R0, GS_R1), 0xfffffff9 },
	{ "smod32 imm", 0xfffffff9, 0, GS_SMOD32_IMM(GS_R0, 3), 0xffffffff },
	{ "lsh32 register count is masked to 5 bits", 1, 33, GS_ALU32_REG(BPF_LSH, GS_R0, GS_R1),
	  2 },
	{ "rsh32 shifts the low word only", 0xffffffff80000000ull, 0,
	  GS_ALU32_IMM(BPF_RSH, GS_R0, 31), 1 },
	{ "arsh32 copies bit 31, then zero-extends", 0x80000000, 0,
	  GS_ALU32_IMM(BPF_ARSH, GS_R0, 4), 0xf8000000 },
	{ "neg32", 1, 0, GS_NEG32(GS_R0), 0xffffffff },
	{ "movsx32 from s8", ~0ull, 0x80, GS_MOVSX32_REG(GS_R0, GS_R1, 8), 0xffffff80 },
	{ "movsx32 from s16", ~0ull, 0x8000, GS_MOVSX32_REG(GS_R0, GS_R1, 16), 0xffff8000 },
	{ "or32 drops dst's upper half", 0xffffffff0000ffffull, 0,
	  GS_ALU32_IMM(BPF_OR, GS_R0, 0xff00), 0xffff },
	{ "and32 imm -16", ~0ull, 0, GS_ALU32_IMM(BPF_AND, GS_R0, -16), 0xfffffff0 },
	{ "xor32", 0xffffffff000000ffull, 0x1000000f0ull, GS_ALU32_REG(BPF_XOR, GS_R0, GS_R1),
	  0x0f },
	/* byte order */
	{ "le16 truncates", 0x1122334455667788ull, 0, GS_TO_LE(GS_R0, 16), 0x7788 },
	{ "le32 truncates", 0x1122334455667788ull, 0, GS_TO_LE(GS_R0, 32), 0x55667788 },
	{ "le64 keeps all", 0x1122334455667788ull, 0, GS_TO_LE(GS_R0, 64), 0x1122334455667788ull },
	{ "be16 swaps the low 2 bytes", 0x1122334455667788ull, 0, GS_TO_BE(GS_R0, 16), 0x8877 },
	{ "be32 swaps the low 4 bytes", 0x1122334455667788ull, 0, GS_TO_BE(GS_R0, 32), 0x88776655 },
	{ "be64 swaps 8 bytes", 0x1122334455667788ull, 0, GS_TO_BE(GS_R0, 64),
	  0x8877665544332211ull },
	{ "bswap16", 0x1122334455667788ull, 0, GS_BSWAP(GS_R0, 16), 0x8877 },
	{ "bswap32", 0x1122334455667788ull, 0, GS_BSWAP(GS_R0, 32), 0x88776655 },
	{ "bswap64", 0x1122334455667788ull, 0, GS_BSWAP(GS_R0, 64), 0x8877665544332211ull },
};

static void test_alu_ops_follow_kernel_semantics(void **state)
{
	struct vt *t = *state;
	int wrong = 0;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(alu_cases); i++) {
		const struct alu_case *c = &alu_cases[i];
		struct bpf_insn prog[] = {
			GS_LD_IMM64(GS_R0, c->a), GS_LD_IMM64(GS_R1, c->b), c->op, GS_EXIT(),
		};
		uint64_t got = vt_eval(t, prog, BASE_ARRAY_SIZE(prog));

		if (got != c->want) {
			fprintf(stderr, "%s: a %#llx b %#llx: want %#llx, got %#llx\n", c->name,
				(unsigned long long)c->a, (unsigned long long)c->b,
				(unsigned long long)c->want, (unsigned long long)got);
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
}

/* r1 = a, r2 = b, then `jmp` (off +1): taken or not. */
struct jmp_case {
	const char *name;
	uint64_t a, b;
	struct bpf_insn jmp;
	bool taken;
};

#define J64(op, t) GS_JMP_REG(op, GS_R1, GS_R2, 1), t
#define J64I(op, imm, t) GS_JMP_IMM(op, GS_R1, imm, 1), t
#define J32(op, t) GS_JMP32_REG(op, GS_R1, GS_R2, 1), t
#define J32I(op, imm, t) GS_JMP32_IMM(op, GS_R1, imm, 1), t

static const struct jmp_case jmp_cases[] = {
	{ "jeq equal", 5, 5, J64(BPF_JEQ, true) },
	{ "jeq compares all 64 bits", 1, 1 | 1ull << 32, J64(BPF_JEQ, false) },
	{ "jne", 1, 2, J64(BPF_JNE, true) },
	{ "jne equal", 2, 2, J64(BPF_JNE, false) },
	{ "jgt is unsigned", ~0ull, 1, J64(BPF_JGT, true) },
	{ "jsgt is signed", ~0ull, 1, J64(BPF_JSGT, false) },
	{ "jge equal", 3, 3, J64(BPF_JGE, true) },
	{ "jge smaller", 2, 3, J64(BPF_JGE, false) },
	{ "jlt is unsigned", 1, ~0ull, J64(BPF_JLT, true) },
	{ "jslt is signed", 1, ~0ull, J64(BPF_JSLT, false) },
	{ "jle equal", 4, 4, J64(BPF_JLE, true) },
	{ "jle larger", 5, 4, J64(BPF_JLE, false) },
	{ "jsge equal negatives", I64(-1), I64(-1), J64(BPF_JSGE, true) },
	{ "jsge smaller negative", I64(-2), I64(-1), J64(BPF_JSGE, false) },
	{ "jsle", I64(-2), I64(-1), J64(BPF_JSLE, true) },
	{ "jsle larger", 0, I64(-1), J64(BPF_JSLE, false) },
	{ "jslt negative below positive", I64(-1), 1, J64(BPF_JSLT, true) },
	{ "jset with a common bit", 0xa, 0x2, J64(BPF_JSET, true) },
	{ "jset without a common bit", 0xa, 0x4, J64(BPF_JSET, false) },
	{ "jset sees the upper half", 1ull << 40, 1ull << 40, J64(BPF_JSET, true) },
	{ "jgt imm -1 is 2^64 - 1", 5, 0, J64I(BPF_JGT, -1, false) },
	{ "jsgt imm -1 is -1", 5, 0, J64I(BPF_JSGT, -1, true) },
	{ "jeq imm against 64 bits", 1ull << 32, 0, J64I(BPF_JEQ, 0, false) },
	{ "jeq32 imm against the low word", 1ull << 32, 0, J32I(BPF_JEQ, 0, true) },
	{ "jslt32 sees bit 31 as the sign", 0x80000000, 0, J32I(BPF_JSLT, 0, true) },
	{ "jslt64 sees bit 31 as a magnitude", 0x80000000, 0, J64I(BPF_JSLT, 0, false) },
	{ "jgt32 imm -1 is 0xffffffff", 0xffffffff, 0, J32I(BPF_JGT, -1, false) },
	{ "jge32 imm -1 is 0xffffffff", 0xffffffff, 0, J32I(BPF_JGE, -1, true) },
	{ "jgt32 ignores the upper halves", 1ull << 32, 0xffffffff, J32(BPF_JGT, false) },
	{ "jgt64 sees the upper halves", 1ull << 32, 0xffffffff, J64(BPF_JGT, true) },
	{ "jsgt32 INT32_MIN below 1", 0x80000000, 1, J32(BPF_JSGT, false) },
	{ "jsgt64 2^31 above 1", 0x80000000, 1, J64(BPF_JSGT, true) },
	{ "jset32 ignores the upper halves", 1ull << 32, 1ull << 32, J32(BPF_JSET, false) },
	{ "jne32", 0x100000001ull, 1, J32(BPF_JNE, false) },
	{ "jlt32", 0xffffffff00000001ull, 2, J32(BPF_JLT, true) },
	{ "jle32", 2, 2, J32(BPF_JLE, true) },
	{ "jge32", 1, 2, J32(BPF_JGE, false) },
	{ "jsge32", 0xfffffffe, 0xffffffff, J32(BPF_JSGE, false) },
	{ "jsle32", 0xfffffffe, 0xffffffff, J32(BPF_JSLE, true) },
	{ "jslt32 imm", 0x1fffffffe, 0, J32I(BPF_JSLT, -1, true) },
};

static void test_jumps_compare_signed_and_unsigned_in_both_widths(void **state)
{
	struct vt *t = *state;
	int wrong = 0;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(jmp_cases); i++) {
		const struct jmp_case *c = &jmp_cases[i];
		struct bpf_insn prog[] = {
			GS_LD_IMM64(GS_R1, c->a), GS_LD_IMM64(GS_R2, c->b),
			GS_MOV64_IMM(GS_R0, 1), c->jmp, GS_MOV64_IMM(GS_R0, 0), GS_EXIT(),
		};
		bool taken = vt_eval(t, prog, BASE_ARRAY_SIZE(prog)) == 1;

		if (taken != c->taken) {
			fprintf(stderr, "%s: a %#llx b %#llx: want %s\n", c->name,
				(unsigned long long)c->a, (unsigned long long)c->b,
				c->taken ? "taken" : "not taken");
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
}

static void test_ja_loops_back_and_gotol_jumps_forward(void **state)
{
	struct vt *t = *state;

	/* sum = 5 + 4 + 3 + 2 + 1 through a backward ja, then a gotol over a
	 * clobber. */
	assert_int_equal(vt_eval(t, PROG(
		GS_MOV64_IMM(GS_R0, 0),
		GS_MOV64_IMM(GS_R1, 5),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1),     /* 2: loop */
		GS_ALU64_IMM(BPF_SUB, GS_R1, 1),
		GS_JMP_IMM(BPF_JEQ, GS_R1, 0, 1),
		GS_JA(-4),
		GS_GOTOL(1),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT())), 15);
	assert_int_equal(t->vm.stats.insns, 2 + 5 * 4 - 1 + 2);
}

/* 0x8877665544332211 at fp-8, then one load: the bytes a little-endian
 * machine sees, zero- or sign-extended. */
struct load_case {
	struct bpf_insn load;
	uint64_t want;
};

static const struct load_case load_cases[] = {
	{ GS_LDX_MEM(BPF_B, GS_R0, GS_FP, -8), 0x11 },
	{ GS_LDX_MEM(BPF_B, GS_R0, GS_FP, -1), 0x88 },
	{ GS_LDX_MEM(BPF_H, GS_R0, GS_FP, -8), 0x2211 },
	{ GS_LDX_MEM(BPF_H, GS_R0, GS_FP, -2), 0x8877 },
	{ GS_LDX_MEM(BPF_W, GS_R0, GS_FP, -8), 0x44332211 },
	{ GS_LDX_MEM(BPF_W, GS_R0, GS_FP, -4), 0x88776655 },
	{ GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -8), 0x8877665544332211ull },
	{ GS_LDX_MEMSX(BPF_B, GS_R0, GS_FP, -8), 0x11 },
	{ GS_LDX_MEMSX(BPF_B, GS_R0, GS_FP, -1), I64(-0x78) },
	{ GS_LDX_MEMSX(BPF_H, GS_R0, GS_FP, -2), 0xffffffffffff8877ull },
	{ GS_LDX_MEMSX(BPF_W, GS_R0, GS_FP, -4), 0xffffffff88776655ull },
	{ GS_LDX_MEMSX(BPF_W, GS_R0, GS_FP, -8), 0x44332211 },
};

static void test_loads_zero_or_sign_extend_every_size(void **state)
{
	struct vt *t = *state;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(load_cases); i++) {
		struct bpf_insn prog[] = {
			GS_LD_IMM64(GS_R1, 0x8877665544332211ull),
			GS_STX_MEM(BPF_DW, GS_FP, GS_R1, -8),
			load_cases[i].load,
			GS_EXIT(),
		};

		assert_int_equal(vt_eval(t, prog, BASE_ARRAY_SIZE(prog)), load_cases[i].want);
	}
}

static void test_stores_write_only_their_size(void **state)
{
	struct vt *t = *state;

	/* st: the imm is sign-extended to the store's size */
	assert_int_equal(vt_eval(t, PROG(
		GS_ST_MEM(BPF_DW, GS_FP, -8, -1),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -8),
		GS_EXIT())), ~0ull);
	assert_int_equal(vt_eval(t, PROG(
		GS_ST_MEM(BPF_DW, GS_FP, -8, 0),
		GS_ST_MEM(BPF_W, GS_FP, -8, -1),
		GS_ST_MEM(BPF_H, GS_FP, -2, 0x1234),
		GS_ST_MEM(BPF_B, GS_FP, -3, 0x56),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -8),
		GS_EXIT())), 0x12345600ffffffffull);
	/* stx: the low bytes of the register */
	assert_int_equal(vt_eval(t, PROG(
		GS_ST_MEM(BPF_DW, GS_FP, -8, 0),
		GS_LD_IMM64(GS_R1, 0x11223344556677ffull),
		GS_STX_MEM(BPF_B, GS_FP, GS_R1, -8),
		GS_STX_MEM(BPF_H, GS_FP, GS_R1, -6),
		GS_STX_MEM(BPF_W, GS_FP, GS_R1, -4),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -8),
		GS_EXIT())), 0x556677ff77ff00ffull);
}

static void test_stack_starts_poisoned(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(
		GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -512),
		GS_EXIT())), 0xa5a5a5a5a5a5a5a5ull);
}

static void test_stack_stays_readable_after_the_run(void **state)
{
	struct vt *t = *state;
	uint32_t cursor = 0;
	uint8_t untouched;

	assert_int_equal(gs_vm_read_stack(&t->vm, -4, &cursor, 4), -EINVAL); /* no run yet */
	vt_eval(t, PROG(
		GS_ST_MEM(BPF_W, GS_FP, -4, 42),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
	assert_int_equal(gs_vm_read_stack(&t->vm, -4, &cursor, 4), 0);
	assert_int_equal(cursor, 42);
	assert_int_equal(gs_vm_read_stack(&t->vm, -512, &untouched, 1), 0);
	assert_int_equal(untouched, GS_VM_STACK_POISON);
	assert_int_equal(gs_vm_read_stack(&t->vm, -4, &cursor, 8), -EINVAL);
	assert_int_equal(gs_vm_read_stack(&t->vm, -513, &cursor, 1), -EINVAL);
}

/* *(fp-8) = init, r2 = operand, r0 = r0_in, the atomic on fp-8; then the
 * memory, r2 and r0. */
struct atomic_case {
	const char *name;
	struct bpf_insn op;
	uint64_t init, operand, r0_in;
	uint64_t mem, r2, r0;
};

#define A(size, imm) GS_ATOMIC(size, imm, GS_FP, GS_R2, -8)

static const struct atomic_case atomic_cases[] = {
	{ "add", A(BPF_DW, BPF_ADD), 40, 2, 0x77, 42, 2, 0x77 },
	{ "fetch_add", A(BPF_DW, BPF_ADD | BPF_FETCH), 40, 2, 0x77, 42, 40, 0x77 },
	{ "or", A(BPF_DW, BPF_OR), 0xf0, 0x0f, 0, 0xff, 0x0f, 0 },
	{ "fetch_or", A(BPF_DW, BPF_OR | BPF_FETCH), 0xf0, 0x0f, 0, 0xff, 0xf0, 0 },
	{ "and", A(BPF_DW, BPF_AND), 0xff, 0x0f, 0, 0x0f, 0x0f, 0 },
	{ "fetch_and", A(BPF_DW, BPF_AND | BPF_FETCH), 0xff, 0x0f, 0, 0x0f, 0xff, 0 },
	{ "xor", A(BPF_DW, BPF_XOR), 0xff, 0x0f, 0, 0xf0, 0x0f, 0 },
	{ "fetch_xor", A(BPF_DW, BPF_XOR | BPF_FETCH), 0xff, 0x0f, 0, 0xf0, 0xff, 0 },
	{ "add32 leaves the upper word", A(BPF_W, BPF_ADD), ~0ull, 1, 0,
	  0xffffffff00000000ull, 1, 0 },
	{ "fetch_add32 zero-extends the old word", A(BPF_W, BPF_ADD | BPF_FETCH), ~0ull, 1, 0,
	  0xffffffff00000000ull, 0xffffffff, 0 },
	{ "fetch_or32", A(BPF_W, BPF_OR | BPF_FETCH), 0x1100000001ull, 6, 0,
	  0x1100000007ull, 1, 0 },
	{ "xchg", A(BPF_DW, BPF_XCHG), 5, 9, 0, 9, 5, 0 },
	{ "xchg32", A(BPF_W, BPF_XCHG), 0x1111111122222222ull, 0xaaaaaaaa33333333ull, 0,
	  0x1111111133333333ull, 0x22222222, 0 },
	{ "cmpxchg that matches", A(BPF_DW, BPF_CMPXCHG), 5, 9, 5, 9, 9, 5 },
	{ "cmpxchg that differs", A(BPF_DW, BPF_CMPXCHG), 5, 9, 6, 5, 9, 5 },
	{ "cmpxchg32 compares low words", A(BPF_W, BPF_CMPXCHG), 0x1111111100000005ull, 9,
	  0xffffffff00000005ull, 0x1111111100000009ull, 9, 5 },
};

static void test_atomics_update_memory_and_fetch_old_values(void **state)
{
	static const struct bpf_insn results[] = {
		GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -8), GS_MOV64_REG(GS_R0, GS_R2),
		GS_MOV64_REG(GS_R0, GS_R0),
	};
	struct vt *t = *state;
	int wrong = 0;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(atomic_cases); i++) {
		const struct atomic_case *c = &atomic_cases[i];
		const uint64_t want[] = { c->mem, c->r2, c->r0 };

		for (size_t k = 0; k < BASE_ARRAY_SIZE(results); k++) {
			struct bpf_insn prog[] = {
				GS_LD_IMM64(GS_R1, c->init), GS_STX_MEM(BPF_DW, GS_FP, GS_R1, -8),
				GS_LD_IMM64(GS_R2, c->operand), GS_LD_IMM64(GS_R0, c->r0_in),
				c->op, results[k], GS_EXIT(),
			};
			uint64_t got = vt_eval(t, prog, BASE_ARRAY_SIZE(prog));

			if (got != want[k]) {
				fprintf(stderr, "%s: %s is %#llx, want %#llx\n", c->name,
					(const char *[]){ "memory", "r2", "r0" }[k],
					(unsigned long long)got, (unsigned long long)want[k]);
				wrong++;
			}
		}
	}
	assert_int_equal(wrong, 0);
}

static void test_ld_imm64_loads_all_64_bits(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(GS_LD_IMM64(GS_R0, 0x8000000000000001ull), GS_EXIT())),
			 0x8000000000000001ull);
	assert_int_equal(t->vm.stats.insns, 2); /* ld_imm64 counts once */
}

static void test_ld_imm64_map_value_points_at_offset_in_the_value(void **state)
{
	struct vt *t = *state;
	uint32_t config = vt_map(t, BPF_MAP_TYPE_ARRAY, "config", 4, 16, 1);
	const uint64_t value[2] = { 11, 22 };
	int fd = gs_vm_map_fd(config);
	const uint64_t *value_now;

	assert_int_equal(gs_vm_map_update(&t->vm, config, &(uint32_t){ 0 }, value, NULL), 0);
	assert_int_equal(vt_eval(t, PROG(
		GS_LD_MAP_VALUE(GS_R1, fd, 8),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R1, 0),
		GS_LDX_MEM(BPF_DW, GS_R2, GS_R1, -8),
		GS_ALU64_IMM(BPF_MUL, GS_R0, 100),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R2),
		GS_ST_MEM(BPF_DW, GS_R1, 0, 33),
		GS_EXIT())), 2211);
	value_now = gs_vm_map_lookup(&t->vm, config, &(uint32_t){ 0 }, 0);
	assert_int_equal(value_now[1], 33);
}

static void test_ld_imm64_map_value_needs_a_one_entry_array(void **state)
{
	struct vt *t = *state;
	uint32_t many = vt_map(t, BPF_MAP_TYPE_ARRAY, "many", 4, 16, 2);
	uint32_t one = vt_map(t, BPF_MAP_TYPE_ARRAY, "one", 4, 16, 1);

	vt_expect_error(t, -EINVAL, "one-entry ARRAY", PROG(
		GS_LD_MAP_VALUE(GS_R1, gs_vm_map_fd(many), 0), GS_MOV64_IMM(GS_R0, 0), GS_EXIT()));
	vt_expect_error(t, -EINVAL, "offset 16", PROG(
		GS_LD_MAP_VALUE(GS_R1, gs_vm_map_fd(one), 16), GS_MOV64_IMM(GS_R0, 0), GS_EXIT()));
	vt_expect_error(t, -EINVAL, "fd 3 is no VM map", PROG(
		GS_LD_MAP_FD(GS_R1, 3), GS_MOV64_IMM(GS_R0, 0), GS_EXIT()));
}

static void test_bpf_call_passes_r1_to_r5_and_preserves_r6_to_r9(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(
		GS_MOV64_IMM(GS_R6, 6),
		GS_MOV64_IMM(GS_R7, 7),
		GS_MOV64_IMM(GS_R8, 8),
		GS_MOV64_IMM(GS_R9, 9),
		GS_MOV64_IMM(GS_R1, 10),
		GS_MOV64_IMM(GS_R5, 20),
		GS_CALL_BPF(5),                      /* to pc 12 */
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R6),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R7),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R8),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R9),
		GS_EXIT(),
		/* 12: sub(a, ..., e): clobbers r6-r9, returns a + e */
		GS_MOV64_IMM(GS_R6, 0),
		GS_MOV64_IMM(GS_R7, 0),
		GS_MOV64_IMM(GS_R8, 0),
		GS_MOV64_IMM(GS_R9, 0),
		GS_MOV64_REG(GS_R0, GS_R1),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R5),
		GS_EXIT())), 30 + 6 + 7 + 8 + 9);
	assert_int_equal(t->vm.stats.max_depth, 2);
}

static void test_callee_cannot_read_callers_r6(void **state)
{
	vt_expect_error(*state, -EINVAL, "source r6 was never written", PROG(
		GS_MOV64_IMM(GS_R6, 6),
		GS_CALL_BPF(1),
		GS_EXIT(),
		GS_MOV64_REG(GS_R0, GS_R6),
		GS_EXIT()));
}

static void test_caller_cannot_read_r1_after_a_call(void **state)
{
	vt_expect_error(*state, -EINVAL, "source r1 was never written", PROG(
		GS_MOV64_IMM(GS_R1, 1),
		GS_CALL_BPF(2),
		GS_MOV64_REG(GS_R0, GS_R1),
		GS_EXIT(),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
}

static void test_each_call_frame_has_its_own_stack(void **state)
{
	struct vt *t = *state;

	/* caller fp-8 = 1; callee fp-8 = 2 and returns it; 2 * 10 + 1 */
	assert_int_equal(vt_eval(t, PROG(
		GS_ST_MEM(BPF_DW, GS_FP, -8, 1),
		GS_CALL_BPF(4),
		GS_ALU64_IMM(BPF_MUL, GS_R0, 10),
		GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, -8),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1),
		GS_EXIT(),
		GS_ST_MEM(BPF_DW, GS_FP, -8, 2),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -8),
		GS_EXIT())), 21);
}

static void test_callee_writes_through_a_pointer_to_the_callers_stack(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(
		GS_MOV64_REG(GS_R1, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R1, -8),
		GS_CALL_BPF(2),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -8),
		GS_EXIT(),
		GS_ST_MEM(BPF_DW, GS_R1, 0, 42),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT())), 42);
}

static void test_calls_nest_at_most_8_frames(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -E2BIG, "9 frames deep", PROG(GS_CALL_BPF(-1), GS_EXIT()));
	assert_int_equal(t->vm.stats.max_depth, GS_VM_MAX_FRAMES);
}

static void test_exit_needs_r0(void **state)
{
	vt_expect_error(*state, -EINVAL, "return value r0 was never written", PROG(GS_EXIT()));
}

static void test_invalid_encodings_stop_the_run(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -EINVAL, "division by the constant 0", PROG(
		GS_MOV64_IMM(GS_R0, 1), GS_ALU64_IMM(BPF_DIV, GS_R0, 0), GS_EXIT()));
	vt_expect_error(t, -EINVAL, "constant shift by 32", PROG(
		GS_MOV64_IMM(GS_R0, 1), GS_ALU32_IMM(BPF_LSH, GS_R0, 32), GS_EXIT()));
	vt_expect_error(t, -EINVAL, "invalid ALU encoding", PROG(
		GS_MOV64_IMM(GS_R0, 1), GS_INSN(BPF_ALU64 | BPF_ADD | BPF_K, GS_R0, 0, 1, 1),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "invalid atomic encoding", PROG(
		GS_MOV64_IMM(GS_R1, 1), GS_ATOMIC(BPF_B, BPF_ADD, GS_FP, GS_R1, -8),
		GS_MOV64_IMM(GS_R0, 0), GS_EXIT()));
	vt_expect_error(t, -ENOSYS, "kfunc", PROG(GS_CALL_KFUNC(1), GS_EXIT()));
	vt_expect_error(t, -ENOSYS, "legacy packet loads", PROG(GS_LD_ABS(BPF_W, 0), GS_EXIT()));
	vt_expect_error(t, -EINVAL, "invalid ld_imm64 encoding", PROG(
		GS_INSN(BPF_LD | BPF_DW | BPF_IMM, GS_R0, 0, 0, 1)));
}

int vt_run_isa_tests(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, vt_setup, vt_teardown)
		T(test_alu_ops_follow_kernel_semantics),
		T(test_jumps_compare_signed_and_unsigned_in_both_widths),
		T(test_ja_loops_back_and_gotol_jumps_forward),
		T(test_loads_zero_or_sign_extend_every_size),
		T(test_stores_write_only_their_size),
		T(test_stack_starts_poisoned),
		T(test_stack_stays_readable_after_the_run),
		T(test_atomics_update_memory_and_fetch_old_values),
		T(test_ld_imm64_loads_all_64_bits),
		T(test_ld_imm64_map_value_points_at_offset_in_the_value),
		T(test_ld_imm64_map_value_needs_a_one_entry_array),
		T(test_bpf_call_passes_r1_to_r5_and_preserves_r6_to_r9),
		T(test_callee_cannot_read_callers_r6),
		T(test_caller_cannot_read_r1_after_a_call),
		T(test_each_call_frame_has_its_own_stack),
		T(test_callee_writes_through_a_pointer_to_the_callers_stack),
		T(test_calls_nest_at_most_8_frames),
		T(test_exit_needs_r0),
		T(test_invalid_encodings_stop_the_run),
#undef T
	};

	return cmocka_run_group_tests_name("vm-isa", tests, NULL, NULL);
}
