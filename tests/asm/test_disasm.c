/* The disassembler against the kernel verifier log's syntax: each case pairs
 * an instruction built with insn.h and the line the kernel would print for
 * it, written by hand. Then the raw-bytes form of undefined encodings, buffer
 * truncation, helper names, and the dump of an assembler in its two forms:
 * by label (the golden files) and indexed (--dump-insns). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/disasm.h>
#include <gs/insn.h>

#include "base.h"

struct disasm_case {
	const char *text;
	struct bpf_insn insns[2];
	size_t avail; /* slots from insns[0]; 0 means 2 */
	size_t slots; /* slots taken; 0 means 2 for ld_imm64, else 1 */
};

#define CASE(text_, ...) { .text = text_, .insns = { __VA_ARGS__ } }
/* An undefined encoding: raw bytes, one slot. */
#define INVALID(text_, ...) { .text = text_, .insns = { __VA_ARGS__ }, .slots = 1 }

static void check_cases(const struct disasm_case *cases, size_t n)
{
	size_t failures = 0;

	for (size_t i = 0; i < n; i++) {
		const struct disasm_case *c = &cases[i];
		size_t avail = c->avail ? c->avail : 2;
		size_t want = c->slots ? c->slots : gs_insn_is_ld_imm64(c->insns) ? 2 : 1;
		char buf[128];
		size_t got = gs_disasm_insn(c->insns, avail, buf, sizeof(buf));

		if (strcmp(buf, c->text) != 0 || got != want) {
			print_message("case %zu: expected \"%s\" (%zu slots)\n"
				      "              got \"%s\" (%zu slots)\n",
				      i, c->text, want, buf, got);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

#define CHECK_CASES(cases) check_cases(cases, BASE_ARRAY_SIZE(cases))

static void test_alu64_ops_print_r_registers(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(0f) r1 += r2", GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2)),
		CASE("(1f) r1 -= r2", GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2)),
		CASE("(2f) r1 *= r2", GS_ALU64_REG(BPF_MUL, GS_R1, GS_R2)),
		CASE("(3f) r1 /= r2", GS_ALU64_REG(BPF_DIV, GS_R1, GS_R2)),
		CASE("(4f) r1 |= r2", GS_ALU64_REG(BPF_OR, GS_R1, GS_R2)),
		CASE("(5f) r1 &= r2", GS_ALU64_REG(BPF_AND, GS_R1, GS_R2)),
		CASE("(6f) r1 <<= r2", GS_ALU64_REG(BPF_LSH, GS_R1, GS_R2)),
		CASE("(7f) r1 >>= r2", GS_ALU64_REG(BPF_RSH, GS_R1, GS_R2)),
		CASE("(9f) r1 %= r2", GS_ALU64_REG(BPF_MOD, GS_R1, GS_R2)),
		CASE("(af) r1 ^= r2", GS_ALU64_REG(BPF_XOR, GS_R1, GS_R2)),
		CASE("(bf) r1 = r2", GS_MOV64_REG(GS_R1, GS_R2)),
		CASE("(cf) r1 s>>= r2", GS_ALU64_REG(BPF_ARSH, GS_R1, GS_R2)),
		CASE("(bf) r6 = r10", GS_MOV64_REG(GS_R6, GS_FP)),
		CASE("(07) r1 += -8", GS_ALU64_IMM(BPF_ADD, GS_R1, -8)),
		CASE("(17) r1 -= 7", GS_ALU64_IMM(BPF_SUB, GS_R1, 7)),
		CASE("(27) r1 *= 7", GS_ALU64_IMM(BPF_MUL, GS_R1, 7)),
		CASE("(37) r1 /= 7", GS_ALU64_IMM(BPF_DIV, GS_R1, 7)),
		CASE("(47) r1 |= 7", GS_ALU64_IMM(BPF_OR, GS_R1, 7)),
		CASE("(57) r1 &= -1", GS_ALU64_IMM(BPF_AND, GS_R1, -1)),
		CASE("(67) r1 <<= 32", GS_ALU64_IMM(BPF_LSH, GS_R1, 32)),
		CASE("(77) r1 >>= 32", GS_ALU64_IMM(BPF_RSH, GS_R1, 32)),
		CASE("(97) r1 %= 7", GS_ALU64_IMM(BPF_MOD, GS_R1, 7)),
		CASE("(a7) r1 ^= 7", GS_ALU64_IMM(BPF_XOR, GS_R1, 7)),
		CASE("(b7) r1 = 2147483647", GS_MOV64_IMM(GS_R1, 2147483647)),
		CASE("(b7) r0 = -2147483648", GS_MOV64_IMM(GS_R0, INT32_MIN)),
		CASE("(c7) r1 s>>= 7", GS_ALU64_IMM(BPF_ARSH, GS_R1, 7)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_alu32_ops_print_w_registers(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(0c) w1 += w2", GS_ALU32_REG(BPF_ADD, GS_R1, GS_R2)),
		CASE("(1c) w1 -= w2", GS_ALU32_REG(BPF_SUB, GS_R1, GS_R2)),
		CASE("(2c) w1 *= w2", GS_ALU32_REG(BPF_MUL, GS_R1, GS_R2)),
		CASE("(3c) w1 /= w2", GS_ALU32_REG(BPF_DIV, GS_R1, GS_R2)),
		CASE("(4c) w1 |= w2", GS_ALU32_REG(BPF_OR, GS_R1, GS_R2)),
		CASE("(5c) w1 &= w2", GS_ALU32_REG(BPF_AND, GS_R1, GS_R2)),
		CASE("(6c) w1 <<= w2", GS_ALU32_REG(BPF_LSH, GS_R1, GS_R2)),
		CASE("(7c) w1 >>= w2", GS_ALU32_REG(BPF_RSH, GS_R1, GS_R2)),
		CASE("(9c) w1 %= w2", GS_ALU32_REG(BPF_MOD, GS_R1, GS_R2)),
		CASE("(ac) w1 ^= w2", GS_ALU32_REG(BPF_XOR, GS_R1, GS_R2)),
		CASE("(bc) w1 = w2", GS_MOV32_REG(GS_R1, GS_R2)),
		CASE("(cc) w1 s>>= w2", GS_ALU32_REG(BPF_ARSH, GS_R1, GS_R2)),
		CASE("(04) w1 += -8", GS_ALU32_IMM(BPF_ADD, GS_R1, -8)),
		CASE("(14) w1 -= 7", GS_ALU32_IMM(BPF_SUB, GS_R1, 7)),
		CASE("(24) w1 *= 7", GS_ALU32_IMM(BPF_MUL, GS_R1, 7)),
		CASE("(34) w1 /= 7", GS_ALU32_IMM(BPF_DIV, GS_R1, 7)),
		CASE("(44) w1 |= 7", GS_ALU32_IMM(BPF_OR, GS_R1, 7)),
		CASE("(54) w1 &= 7", GS_ALU32_IMM(BPF_AND, GS_R1, 7)),
		CASE("(64) w1 <<= 7", GS_ALU32_IMM(BPF_LSH, GS_R1, 7)),
		CASE("(74) w1 >>= 7", GS_ALU32_IMM(BPF_RSH, GS_R1, 7)),
		CASE("(94) w1 %= 7", GS_ALU32_IMM(BPF_MOD, GS_R1, 7)),
		CASE("(a4) w1 ^= 7", GS_ALU32_IMM(BPF_XOR, GS_R1, 7)),
		CASE("(b4) w1 = 7", GS_MOV32_IMM(GS_R1, 7)),
		CASE("(c4) w1 s>>= 7", GS_ALU32_IMM(BPF_ARSH, GS_R1, 7)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_off_selects_sdiv_smod_and_movsx(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(3f) r1 s/= r2", GS_SDIV64_REG(GS_R1, GS_R2)),
		CASE("(37) r1 s/= -3", GS_SDIV64_IMM(GS_R1, -3)),
		CASE("(9f) r1 s%= r2", GS_SMOD64_REG(GS_R1, GS_R2)),
		CASE("(97) r1 s%= -3", GS_SMOD64_IMM(GS_R1, -3)),
		CASE("(3c) w1 s/= w2", GS_SDIV32_REG(GS_R1, GS_R2)),
		CASE("(34) w1 s/= -3", GS_SDIV32_IMM(GS_R1, -3)),
		CASE("(9c) w1 s%= w2", GS_SMOD32_REG(GS_R1, GS_R2)),
		CASE("(94) w1 s%= -3", GS_SMOD32_IMM(GS_R1, -3)),
		CASE("(bf) r1 = (s8)r2", GS_MOVSX64_REG(GS_R1, GS_R2, 8)),
		CASE("(bf) r1 = (s16)r2", GS_MOVSX64_REG(GS_R1, GS_R2, 16)),
		CASE("(bf) r1 = (s32)r2", GS_MOVSX64_REG(GS_R1, GS_R2, 32)),
		CASE("(bc) w1 = (s8)w2", GS_MOVSX32_REG(GS_R1, GS_R2, 8)),
		CASE("(bc) w1 = (s16)w2", GS_MOVSX32_REG(GS_R1, GS_R2, 16)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_neg_and_byte_swaps(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(87) r3 = -r3", GS_NEG64(GS_R3)),
		CASE("(84) w3 = -w3", GS_NEG32(GS_R3)),
		CASE("(d4) r1 = le16 r1", GS_TO_LE(GS_R1, 16)),
		CASE("(d4) r1 = le32 r1", GS_TO_LE(GS_R1, 32)),
		CASE("(d4) r1 = le64 r1", GS_TO_LE(GS_R1, 64)),
		CASE("(dc) r1 = be16 r1", GS_TO_BE(GS_R1, 16)),
		CASE("(dc) r1 = be32 r1", GS_TO_BE(GS_R1, 32)),
		CASE("(dc) r1 = be64 r1", GS_TO_BE(GS_R1, 64)),
		CASE("(d7) r1 = bswap16 r1", GS_BSWAP(GS_R1, 16)),
		CASE("(d7) r1 = bswap32 r1", GS_BSWAP(GS_R1, 32)),
		CASE("(d7) r1 = bswap64 r1", GS_BSWAP(GS_R1, 64)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_loads_and_stores_print_size_and_signed_offset(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(71) r0 = *(u8 *)(r1 +4)", GS_LDX_MEM(BPF_B, GS_R0, GS_R1, 4)),
		CASE("(69) r0 = *(u16 *)(r1 +4)", GS_LDX_MEM(BPF_H, GS_R0, GS_R1, 4)),
		CASE("(61) r0 = *(u32 *)(r1 +4)", GS_LDX_MEM(BPF_W, GS_R0, GS_R1, 4)),
		CASE("(79) r0 = *(u64 *)(r10 -8)", GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -8)),
		CASE("(79) r1 = *(u64 *)(r6 +128)", GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, 128)),
		CASE("(79) r1 = *(u64 *)(r6 +0)", GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, 0)),
		CASE("(91) r0 = *(s8 *)(r1 +4)", GS_LDX_MEMSX(BPF_B, GS_R0, GS_R1, 4)),
		CASE("(89) r0 = *(s16 *)(r1 -2)", GS_LDX_MEMSX(BPF_H, GS_R0, GS_R1, -2)),
		CASE("(81) r0 = *(s32 *)(r1 +4)", GS_LDX_MEMSX(BPF_W, GS_R0, GS_R1, 4)),
		CASE("(73) *(u8 *)(r10 -1) = r1", GS_STX_MEM(BPF_B, GS_FP, GS_R1, -1)),
		CASE("(6b) *(u16 *)(r10 -2) = r1", GS_STX_MEM(BPF_H, GS_FP, GS_R1, -2)),
		CASE("(63) *(u32 *)(r10 -4) = r1", GS_STX_MEM(BPF_W, GS_FP, GS_R1, -4)),
		CASE("(7b) *(u64 *)(r10 -8) = r1", GS_STX_MEM(BPF_DW, GS_FP, GS_R1, -8)),
		CASE("(72) *(u8 *)(r10 -1) = 255", GS_ST_MEM(BPF_B, GS_FP, -1, 255)),
		CASE("(6a) *(u16 *)(r10 -2) = -1", GS_ST_MEM(BPF_H, GS_FP, -2, -1)),
		CASE("(62) *(u32 *)(r10 -4) = 0", GS_ST_MEM(BPF_W, GS_FP, -4, 0)),
		CASE("(7a) *(u64 *)(r10 -32768) = 42", GS_ST_MEM(BPF_DW, GS_FP, -32768, 42)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_atomics_print_lock_and_fetch_forms(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(db) lock *(u64 *)(r1 +0) += r2", GS_ATOMIC_ADD(BPF_DW, GS_R1, GS_R2, 0)),
		CASE("(db) lock *(u64 *)(r1 +0) |= r2", GS_ATOMIC_OR(BPF_DW, GS_R1, GS_R2, 0)),
		CASE("(db) lock *(u64 *)(r1 +0) &= r2", GS_ATOMIC_AND(BPF_DW, GS_R1, GS_R2, 0)),
		CASE("(db) lock *(u64 *)(r10 -8) ^= r2", GS_ATOMIC_XOR(BPF_DW, GS_FP, GS_R2, -8)),
		CASE("(c3) lock *(u32 *)(r1 +0) += r2", GS_ATOMIC_ADD(BPF_W, GS_R1, GS_R2, 0)),
		CASE("(c3) lock *(u32 *)(r1 +0) |= r2", GS_ATOMIC_OR(BPF_W, GS_R1, GS_R2, 0)),
		CASE("(c3) lock *(u32 *)(r1 +0) &= r2", GS_ATOMIC_AND(BPF_W, GS_R1, GS_R2, 0)),
		CASE("(c3) lock *(u32 *)(r1 +4) ^= r2", GS_ATOMIC_XOR(BPF_W, GS_R1, GS_R2, 4)),
		CASE("(db) r2 = atomic64_fetch_add((u64 *)(r1 +0), r2)",
		     GS_ATOMIC_FETCH_ADD(BPF_DW, GS_R1, GS_R2, 0)),
		CASE("(db) r2 = atomic64_fetch_or((u64 *)(r1 +0), r2)",
		     GS_ATOMIC_FETCH_OR(BPF_DW, GS_R1, GS_R2, 0)),
		CASE("(db) r2 = atomic64_fetch_and((u64 *)(r1 +0), r2)",
		     GS_ATOMIC_FETCH_AND(BPF_DW, GS_R1, GS_R2, 0)),
		CASE("(db) r2 = atomic64_fetch_xor((u64 *)(r1 -16), r2)",
		     GS_ATOMIC_FETCH_XOR(BPF_DW, GS_R1, GS_R2, -16)),
		CASE("(c3) r2 = atomic_fetch_add((u32 *)(r1 +0), r2)",
		     GS_ATOMIC_FETCH_ADD(BPF_W, GS_R1, GS_R2, 0)),
		CASE("(c3) r2 = atomic_fetch_or((u32 *)(r1 +0), r2)",
		     GS_ATOMIC_FETCH_OR(BPF_W, GS_R1, GS_R2, 0)),
		CASE("(c3) r2 = atomic_fetch_and((u32 *)(r1 +0), r2)",
		     GS_ATOMIC_FETCH_AND(BPF_W, GS_R1, GS_R2, 0)),
		CASE("(c3) r2 = atomic_fetch_xor((u32 *)(r1 +0), r2)",
		     GS_ATOMIC_FETCH_XOR(BPF_W, GS_R1, GS_R2, 0)),
		CASE("(db) r2 = atomic64_xchg((u64 *)(r1 +0), r2)",
		     GS_ATOMIC_XCHG(BPF_DW, GS_R1, GS_R2, 0)),
		CASE("(c3) r2 = atomic_xchg((u32 *)(r1 +0), r2)",
		     GS_ATOMIC_XCHG(BPF_W, GS_R1, GS_R2, 0)),
		CASE("(db) r0 = atomic64_cmpxchg((u64 *)(r1 +0), r0, r2)",
		     GS_ATOMIC_CMPXCHG(BPF_DW, GS_R1, GS_R2, 0)),
		CASE("(c3) r0 = atomic_cmpxchg((u32 *)(r1 +8), r0, r2)",
		     GS_ATOMIC_CMPXCHG(BPF_W, GS_R1, GS_R2, 8)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_ld_imm64_prints_full_value_and_maps(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(18) r1 = 0x1234", GS_LD_IMM64(GS_R1, 0x1234)),
		CASE("(18) r2 = 0xdeadbeefcafe0001", GS_LD_IMM64(GS_R2, 0xdeadbeefcafe0001ULL)),
		CASE("(18) r3 = 0xffffffffffffffff", GS_LD_IMM64(GS_R3, -1)),
		CASE("(18) r0 = 0x0", GS_LD_IMM64(GS_R0, 0)),
		CASE("(18) r1 = map[fd:3]", GS_LD_MAP_FD(GS_R1, 3)),
		CASE("(18) r1 = map[fd:3][0]+16", GS_LD_MAP_VALUE(GS_R1, 3, 16)),
		CASE("(18) r1 = pseudo(src=3) 0x500000077",
		     GS_LD_IMM64_RAW(GS_R1, BPF_PSEUDO_BTF_ID, 0x500000077ULL)),
		CASE("(18) r4 = pseudo(src=6) 0x2", GS_LD_IMM64_RAW(GS_R4, 6, 2)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_legacy_packet_loads_print_skb(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(30) r0 = *(u8 *)skb[12]", GS_LD_ABS(BPF_B, 12)),
		CASE("(28) r0 = *(u16 *)skb[12]", GS_LD_ABS(BPF_H, 12)),
		CASE("(20) r0 = *(u32 *)skb[12]", GS_LD_ABS(BPF_W, 12)),
		CASE("(50) r0 = *(u8 *)skb[r1 + 2]", GS_LD_IND(BPF_B, GS_R1, 2)),
		CASE("(48) r0 = *(u16 *)skb[r1 + 2]", GS_LD_IND(BPF_H, GS_R1, 2)),
		CASE("(40) r0 = *(u32 *)skb[r1 + 2]", GS_LD_IND(BPF_W, GS_R1, 2)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_conditional_jumps_print_hex_imm_and_signed_pc(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(15) if r1 == 0x0 goto pc+3", GS_JMP_IMM(BPF_JEQ, GS_R1, 0, 3)),
		CASE("(25) if r1 > 0xa goto pc+3", GS_JMP_IMM(BPF_JGT, GS_R1, 10, 3)),
		CASE("(35) if r1 >= 0xa goto pc+3", GS_JMP_IMM(BPF_JGE, GS_R1, 10, 3)),
		CASE("(45) if r1 & 0x80 goto pc+3", GS_JMP_IMM(BPF_JSET, GS_R1, 0x80, 3)),
		CASE("(55) if r1 != 0x0 goto pc+0", GS_JMP_IMM(BPF_JNE, GS_R1, 0, 0)),
		CASE("(65) if r1 s> 0xffffffff goto pc+3", GS_JMP_IMM(BPF_JSGT, GS_R1, -1, 3)),
		CASE("(75) if r1 s>= 0x0 goto pc+3", GS_JMP_IMM(BPF_JSGE, GS_R1, 0, 3)),
		CASE("(a5) if r1 < 0x10 goto pc+3", GS_JMP_IMM(BPF_JLT, GS_R1, 16, 3)),
		CASE("(b5) if r1 <= 0x10 goto pc+3", GS_JMP_IMM(BPF_JLE, GS_R1, 16, 3)),
		CASE("(c5) if r1 s< 0x0 goto pc+3", GS_JMP_IMM(BPF_JSLT, GS_R1, 0, 3)),
		CASE("(d5) if r1 s<= 0x0 goto pc-32768", GS_JMP_IMM(BPF_JSLE, GS_R1, 0, -32768)),
		CASE("(1d) if r1 == r2 goto pc-4", GS_JMP_REG(BPF_JEQ, GS_R1, GS_R2, -4)),
		CASE("(2d) if r2 > r3 goto pc+5", GS_JMP_REG(BPF_JGT, GS_R2, GS_R3, 5)),
		CASE("(3d) if r1 >= r2 goto pc-4", GS_JMP_REG(BPF_JGE, GS_R1, GS_R2, -4)),
		CASE("(4d) if r1 & r2 goto pc-4", GS_JMP_REG(BPF_JSET, GS_R1, GS_R2, -4)),
		CASE("(5d) if r1 != r2 goto pc-4", GS_JMP_REG(BPF_JNE, GS_R1, GS_R2, -4)),
		CASE("(6d) if r1 s> r2 goto pc-4", GS_JMP_REG(BPF_JSGT, GS_R1, GS_R2, -4)),
		CASE("(7d) if r1 s>= r2 goto pc-4", GS_JMP_REG(BPF_JSGE, GS_R1, GS_R2, -4)),
		CASE("(ad) if r1 < r2 goto pc-4", GS_JMP_REG(BPF_JLT, GS_R1, GS_R2, -4)),
		CASE("(bd) if r1 <= r2 goto pc-4", GS_JMP_REG(BPF_JLE, GS_R1, GS_R2, -4)),
		CASE("(cd) if r1 s< r2 goto pc-4", GS_JMP_REG(BPF_JSLT, GS_R1, GS_R2, -4)),
		CASE("(dd) if r1 s<= r10 goto pc+32767", GS_JMP_REG(BPF_JSLE, GS_R1, GS_FP, 32767)),
		CASE("(16) if w1 == 0x0 goto pc+3", GS_JMP32_IMM(BPF_JEQ, GS_R1, 0, 3)),
		CASE("(26) if w1 > 0xa goto pc+3", GS_JMP32_IMM(BPF_JGT, GS_R1, 10, 3)),
		CASE("(36) if w1 >= 0xa goto pc+3", GS_JMP32_IMM(BPF_JGE, GS_R1, 10, 3)),
		CASE("(46) if w1 & 0x1 goto pc+3", GS_JMP32_IMM(BPF_JSET, GS_R1, 1, 3)),
		CASE("(56) if w1 != 0x0 goto pc+3", GS_JMP32_IMM(BPF_JNE, GS_R1, 0, 3)),
		CASE("(66) if w1 s> 0xfffffffe goto pc+3", GS_JMP32_IMM(BPF_JSGT, GS_R1, -2, 3)),
		CASE("(76) if w1 s>= 0x0 goto pc+3", GS_JMP32_IMM(BPF_JSGE, GS_R1, 0, 3)),
		CASE("(a6) if w1 < 0x10 goto pc+3", GS_JMP32_IMM(BPF_JLT, GS_R1, 16, 3)),
		CASE("(b6) if w1 <= 0x10 goto pc+3", GS_JMP32_IMM(BPF_JLE, GS_R1, 16, 3)),
		CASE("(c6) if w1 s< 0x0 goto pc+3", GS_JMP32_IMM(BPF_JSLT, GS_R1, 0, 3)),
		CASE("(d6) if w1 s<= 0x0 goto pc+3", GS_JMP32_IMM(BPF_JSLE, GS_R1, 0, 3)),
		CASE("(1e) if w1 == w2 goto pc-4", GS_JMP32_REG(BPF_JEQ, GS_R1, GS_R2, -4)),
		CASE("(2e) if w1 > w2 goto pc-4", GS_JMP32_REG(BPF_JGT, GS_R1, GS_R2, -4)),
		CASE("(3e) if w1 >= w2 goto pc-4", GS_JMP32_REG(BPF_JGE, GS_R1, GS_R2, -4)),
		CASE("(4e) if w1 & w2 goto pc-4", GS_JMP32_REG(BPF_JSET, GS_R1, GS_R2, -4)),
		CASE("(5e) if w1 != w2 goto pc-4", GS_JMP32_REG(BPF_JNE, GS_R1, GS_R2, -4)),
		CASE("(6e) if w1 s> w2 goto pc-4", GS_JMP32_REG(BPF_JSGT, GS_R1, GS_R2, -4)),
		CASE("(7e) if w1 s>= w2 goto pc-4", GS_JMP32_REG(BPF_JSGE, GS_R1, GS_R2, -4)),
		CASE("(ae) if w1 < w2 goto pc-4", GS_JMP32_REG(BPF_JLT, GS_R1, GS_R2, -4)),
		CASE("(be) if w1 <= w2 goto pc-4", GS_JMP32_REG(BPF_JLE, GS_R1, GS_R2, -4)),
		CASE("(ce) if w1 s< w2 goto pc-4", GS_JMP32_REG(BPF_JSLT, GS_R1, GS_R2, -4)),
		CASE("(de) if w1 s<= w2 goto pc-4", GS_JMP32_REG(BPF_JSLE, GS_R1, GS_R2, -4)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_unconditional_jumps_calls_and_exit(void **state)
{
	static const struct disasm_case cases[] = {
		CASE("(05) goto pc+5", GS_JA(5)),
		CASE("(05) goto pc-1", GS_JA(-1)),
		CASE("(06) gotol pc+70000", GS_GOTOL(70000)),
		CASE("(06) gotol pc-70000", GS_GOTOL(-70000)),
		CASE("(85) call bpf_map_lookup_elem#1", GS_CALL_HELPER(BPF_FUNC_map_lookup_elem)),
		CASE("(85) call bpf_ringbuf_output#130", GS_CALL_HELPER(130)),
		CASE("(85) call bpf_probe_read_user#112", GS_CALL_HELPER(112)),
		CASE("(85) call unknown#999", GS_CALL_HELPER(999)),
		CASE("(85) call unknown#0", GS_CALL_HELPER(0)),
		CASE("(85) call unknown#-1", GS_CALL_HELPER(-1)),
		CASE("(85) call pc+5", GS_CALL_BPF(5)),
		CASE("(85) call pc-20", GS_CALL_BPF(-20)),
		CASE("(85) call kfunc#1234", GS_CALL_KFUNC(1234)),
		CASE("(85) call kfunc#1234 (fd_array[2])",
		     GS_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 2, 1234)),
		CASE("(95) exit", GS_EXIT()),
	};

	(void)state;
	CHECK_CASES(cases);
}

/* Bytes: code, src << 4 | dst, off little-endian, imm little-endian. */
static void test_undefined_encodings_print_raw_bytes(void **state)
{
	static const struct disasm_case cases[] = {
		/* neg has no register-source form */
		INVALID("(8f) invalid: 8f 21 04 00 78 56 34 12", GS_INSN(0x8f, 1, 2, 4, 0x12345678)),
		/* ALU and JMP ops 0xe0 and 0xf0 are reserved */
		INVALID("(e7) invalid: e7 01 00 00 01 00 00 00", GS_INSN(0xe7, 1, 0, 0, 1)),
		INVALID("(fc) invalid: fc 21 00 00 00 00 00 00", GS_INSN(0xfc, 1, 2, 0, 0)),
		INVALID("(e5) invalid: e5 01 01 00 00 00 00 00", GS_INSN(0xe5, 1, 0, 1, 0)),
		INVALID("(fe) invalid: fe 21 ff ff 00 00 00 00", GS_INSN(0xfe, 1, 2, -1, 0)),
		/* class LD takes only the imm64, abs and ind modes */
		INVALID("(60) invalid: 60 21 00 00 00 00 00 00", GS_INSN(0x60, 1, 2, 0, 0)),
		INVALID("(10) invalid: 10 01 00 00 05 00 00 00", GS_INSN(0x10, 1, 0, 0, 5)),
		INVALID("(38) invalid: 38 00 00 00 04 00 00 00", GS_LD_ABS(BPF_DW, 4)),
		INVALID("(20) invalid: 20 01 00 00 0c 00 00 00", GS_INSN(0x20, 1, 0, 0, 12)),
		/* no sign-extending 64-bit load; stores have no sx mode */
		INVALID("(99) invalid: 99 10 04 00 00 00 00 00", GS_LDX_MEMSX(BPF_DW, GS_R0, GS_R1, 4)),
		INVALID("(93) invalid: 93 21 00 00 00 00 00 00", GS_INSN(0x93, 1, 2, 0, 0)),
		INVALID("(62) invalid: 62 2a fc ff 00 00 00 00", GS_INSN(0x62, 10, 2, -4, 0)),
		/* atomics: unknown op, byte size */
		INVALID("(db) invalid: db 21 00 00 10 00 00 00",
			GS_ATOMIC(BPF_DW, BPF_SUB, GS_R1, GS_R2, 0)),
		INVALID("(db) invalid: db 21 00 00 00 01 00 00",
			GS_ATOMIC(BPF_DW, 0x100, GS_R1, GS_R2, 0)),
		INVALID("(d3) invalid: d3 21 00 00 00 00 00 00",
			GS_ATOMIC(BPF_B, BPF_ADD, GS_R1, GS_R2, 0)),
		/* off is 1 only for sdiv/smod, 8/16/32 only for movsx */
		INVALID("(bc) invalid: bc 21 20 00 00 00 00 00", GS_MOVSX32_REG(GS_R1, GS_R2, 32)),
		INVALID("(b7) invalid: b7 01 08 00 01 00 00 00", GS_INSN(0xb7, 1, 0, 8, 1)),
		INVALID("(0f) invalid: 0f 21 01 00 00 00 00 00", GS_INSN(0x0f, 1, 2, 1, 0)),
		/* byte swaps: no width 8, no big-endian form in ALU64 */
		INVALID("(d7) invalid: d7 01 00 00 08 00 00 00", GS_BSWAP(GS_R1, 8)),
		INVALID("(df) invalid: df 01 00 00 10 00 00 00", GS_INSN(0xdf, 1, 0, 0, 16)),
		/* fields the form does not use must be zero */
		INVALID("(95) invalid: 95 01 00 00 00 00 00 00", GS_INSN(0x95, 1, 0, 0, 0)),
		INVALID("(07) invalid: 07 31 00 00 01 00 00 00", GS_INSN(0x07, 1, 3, 0, 1)),
		INVALID("(05) invalid: 05 00 01 00 01 00 00 00", GS_INSN(0x05, 0, 0, 1, 1)),
		INVALID("(06) invalid: 06 00 01 00 01 00 00 00", GS_INSN(0x06, 0, 0, 1, 1)),
		/* call: only helper, bpf-to-bpf and kfunc; no call or exit in JMP32 */
		INVALID("(85) invalid: 85 30 00 00 01 00 00 00", GS_INSN(0x85, 0, 3, 0, 1)),
		INVALID("(86) invalid: 86 00 00 00 01 00 00 00", GS_INSN(0x86, 0, 0, 0, 1)),
		INVALID("(96) invalid: 96 00 00 00 00 00 00 00", GS_INSN(0x96, 0, 0, 0, 0)),
		INVALID("(00) invalid: 00 00 00 00 00 00 00 00", GS_INSN(0, 0, 0, 0, 0)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_ld_imm64_without_valid_second_slot_takes_one_slot(void **state)
{
	static const struct disasm_case cases[] = {
		{ .text = "(18) invalid: 18 01 00 00 34 12 00 00",
		  .insns = { GS_LD_IMM64(GS_R1, 0x1234) }, .avail = 1, .slots = 1 },
		INVALID("(18) invalid: 18 01 00 00 34 12 00 00",
			GS_INSN(0x18, 1, 0, 0, 0x1234), GS_EXIT()),
		INVALID("(18) invalid: 18 01 00 00 34 12 00 00",
			GS_INSN(0x18, 1, 0, 0, 0x1234), GS_INSN(0, 2, 0, 0, 0)),
		INVALID("(18) invalid: 18 01 00 00 34 12 00 00",
			GS_INSN(0x18, 1, 0, 0, 0x1234), GS_INSN(0, 0, 0, 1, 0)),
		/* reserved fields of the first slot, and pseudo sources above 6 */
		INVALID("(18) invalid: 18 01 01 00 34 12 00 00",
			GS_INSN(0x18, 1, 0, 1, 0x1234), GS_INSN(0, 0, 0, 0, 0)),
		INVALID("(18) invalid: 18 71 00 00 34 12 00 00", GS_LD_IMM64_RAW(GS_R1, 7, 0x1234)),
		/* a map fd load has no second imm; it prints as the raw pseudo form */
		CASE("(18) r1 = pseudo(src=1) 0x100000003", GS_LD_IMM64_RAW(GS_R1, 1, 0x100000003ULL)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_registers_above_r10_are_invalid(void **state)
{
	static const struct disasm_case cases[] = {
		INVALID("(bf) invalid: bf 1b 00 00 00 00 00 00", GS_MOV64_REG(11, GS_R1)),
		INVALID("(bf) invalid: bf c1 00 00 00 00 00 00", GS_MOV64_REG(GS_R1, 12)),
		INVALID("(b4) invalid: b4 0d 00 00 01 00 00 00", GS_MOV32_IMM(13, 1)),
		INVALID("(79) invalid: 79 f0 00 00 00 00 00 00", GS_LDX_MEM(BPF_DW, GS_R0, 15, 0)),
		INVALID("(7b) invalid: 7b 1e f8 ff 00 00 00 00", GS_STX_MEM(BPF_DW, 14, GS_R1, -8)),
		INVALID("(7a) invalid: 7a 0b f8 ff 00 00 00 00", GS_ST_MEM(BPF_DW, 11, -8, 0)),
		INVALID("(db) invalid: db b1 00 00 00 00 00 00", GS_ATOMIC_ADD(BPF_DW, GS_R1, 11, 0)),
		INVALID("(15) invalid: 15 0c 01 00 00 00 00 00", GS_JMP_IMM(BPF_JEQ, 12, 0, 1)),
		INVALID("(1e) invalid: 1e f1 01 00 00 00 00 00", GS_JMP32_REG(BPF_JEQ, GS_R1, 15, 1)),
		INVALID("(87) invalid: 87 0b 00 00 00 00 00 00", GS_NEG64(11)),
		INVALID("(dc) invalid: dc 0b 00 00 10 00 00 00", GS_TO_BE(11, 16)),
		INVALID("(50) invalid: 50 b0 00 00 02 00 00 00", GS_LD_IND(BPF_B, 11, 2)),
		INVALID("(18) invalid: 18 0d 00 00 01 00 00 00", GS_LD_IMM64(13, 1)),
	};

	(void)state;
	CHECK_CASES(cases);
}

static void test_zero_size_buffer_is_untouched(void **state)
{
	struct bpf_insn insns[] = { GS_LD_IMM64(GS_R1, 0x1234), GS_INSN(0x8f, 1, 2, 0, 0) };
	char buf[1] = { 'X' };

	(void)state;
	assert_int_equal(gs_disasm_insn(insns, 2, buf, 0), 2);
	assert_int_equal(gs_disasm_insn(&insns[2], 1, buf, 0), 1);
	assert_int_equal(buf[0], 'X');
	assert_int_equal(gs_disasm_insn(insns, 2, NULL, 0), 2);
}

static void test_small_buffer_truncates_with_nul(void **state)
{
	struct bpf_insn insns[] = { GS_LD_IMM64(GS_R1, 0x1234), GS_INSN(0x8f, 1, 2, 0, 0) };
	struct bpf_insn add = GS_ALU64_IMM(BPF_ADD, GS_R1, 8);
	char buf[16];

	(void)state;
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(gs_disasm_insn(&add, 1, buf, 5), 1);
	assert_string_equal(buf, "(07)");
	assert_int_equal(buf[5], 'X');

	memset(buf, 'X', sizeof(buf));
	assert_int_equal(gs_disasm_insn(insns, 2, buf, 5), 2);
	assert_string_equal(buf, "(18)");

	memset(buf, 'X', sizeof(buf));
	assert_int_equal(gs_disasm_insn(&insns[2], 1, buf, 5), 1);
	assert_string_equal(buf, "(8f)");

	assert_int_equal(gs_disasm_insn(&add, 1, buf, 1), 1);
	assert_string_equal(buf, "");

	/* exactly the text and its NUL */
	assert_int_equal(gs_disasm_insn(&add, 1, buf, sizeof("(07) r1 += 8")), 1);
	assert_string_equal(buf, "(07) r1 += 8");
}

/* gs_disasm_prog() output as a string. */
static char *capture_prog(const struct bpf_insn *insns, size_t n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	gs_disasm_prog(insns, n, f);
	assert_int_equal(fclose(f), 0);
	return s;
}

static void test_prog_numbers_ld_imm64_as_two_slots(void **state)
{
	const struct bpf_insn insns[] = {
		GS_LD_IMM64(GS_R1, 1),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT(),
		GS_LD_IMM64(GS_R2, 2), /* the second slot is cut off below */
	};
	char *s = capture_prog(insns, 5);

	(void)state;
	assert_string_equal(s,
		"    0: (18) r1 = 0x1\n"
		"    2: (b7) r0 = 0\n"
		"    3: (95) exit\n"
		"    4: (18) invalid: 18 02 00 00 02 00 00 00\n");
	free(s);

	s = capture_prog(insns, 0);
	assert_string_equal(s, "");
	free(s);
}

static void test_helper_names_by_id(void **state)
{
	(void)state;
	assert_string_equal(gs_helper_name(1), "bpf_map_lookup_elem");
	assert_string_equal(gs_helper_name(BPF_FUNC_get_current_pid_tgid),
			    "bpf_get_current_pid_tgid");
	assert_string_equal(gs_helper_name(130), "bpf_ringbuf_output");
	assert_string_equal(gs_helper_name(209), "bpf_user_ringbuf_drain");
	assert_string_equal(gs_helper_name(211), "bpf_cgrp_storage_delete");
	assert_null(gs_helper_name(0));
	assert_null(gs_helper_name(-1));
	assert_null(gs_helper_name(212));
	assert_null(gs_helper_name(100000));
	assert_null(gs_helper_name(INT32_MIN));
}

/* A loop over a map load, built with the assembler: label lines, named jump
 * targets (backward and forward), maps by name, notes only where they
 * change, and again after a label. */
static void build_loop(struct gs_asm *a)
{
	struct gs_error err;
	struct gs_label loop, done;
	uint32_t map;

	gs_asm_init(a);
	map = gs_asm_map(a, "event_accum_buffer");
	loop = gs_asm_label(a, "loop");
	done = gs_asm_label(a, "done");
	gs_asm_note(a, "setup");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_ld_map(a, GS_R1, map);
	gs_asm_notef(a, "%s", "setup"); /* an equal string: not repeated */
	gs_asm_ld_map_value(a, GS_R2, map, 16);
	gs_asm_bind(a, loop);
	gs_asm_note(a, "count to ten");
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R0, 1));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R0, 10, done);
	gs_asm_ja(a, loop);
	gs_asm_bind(a, done);
	gs_asm_emit(a, GS_EXIT());
	assert_int_equal(gs_asm_finish(a, &err), 0);
}

/* gs_asm_dump_flags() output as a string. */
static char *capture_dump(const struct gs_asm *a, unsigned int flags)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	assert_int_equal(gs_asm_dump_flags(a, flags, f), 0);
	assert_int_equal(fclose(f), 0);
	return s;
}

static void test_dump_names_labels_maps_and_notes(void **state)
{
	struct gs_asm a;
	char *s, *flags0;

	(void)state;
	build_loop(&a);
	s = gs_asm_dump_str(&a);
	assert_non_null(s);
	assert_string_equal(s,
		"    (b7) r0 = 0                                         ; setup\n"
		"    (18) r1 = map[event_accum_buffer]\n"
		"    (18) r2 = map[event_accum_buffer][0]+16\n"
		"loop:\n"
		"    (07) r0 += 1                                        ; count to ten\n"
		"    (25) if r0 > 0xa goto <done>\n"
		"    (05) goto <loop>\n"
		"done:\n"
		"    (95) exit                                           ; count to ten\n");
	flags0 = capture_dump(&a, 0); /* the label form is flags 0 */
	assert_string_equal(flags0, s);
	free(flags0);
	free(s);
	gs_asm_fini(&a);
}

/* The indexed form: the verifier log's instruction numbers and `pc+N`,
 * the label after it. */
static void test_dump_indexed_numbers_lines_and_keeps_offsets(void **state)
{
	struct gs_asm a;
	char *s;

	(void)state;
	build_loop(&a);
	s = capture_dump(&a, GS_DUMP_INDEXED);
	assert_string_equal(s,
		"    0: (b7) r0 = 0                                      ; setup\n"
		"    1: (18) r1 = map[event_accum_buffer]\n"
		"    3: (18) r2 = map[event_accum_buffer][0]+16\n"
		"loop:\n"
		"    5: (07) r0 += 1                                     ; count to ten\n"
		"    6: (25) if r0 > 0xa goto pc+1 <done>\n"
		"    7: (05) goto pc-3 <loop>\n"
		"done:\n"
		"    8: (95) exit                                        ; count to ten\n");
	free(s);
	gs_asm_fini(&a);
}

static void test_dump_flag_it_does_not_know_is_refused(void **state)
{
	struct gs_asm a;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	(void)state;
	build_loop(&a);
	assert_non_null(f);
	assert_int_equal(gs_asm_dump_flags(&a, 1u << 7, f), -EINVAL);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(s, "");
	free(s);
	gs_asm_fini(&a);
}

/* Jumps written with raw offsets (no fixup) name a local label at their
 * target, counted from the nearest label before it; a target no line
 * starts at (inside an ld_imm64, outside the program) keeps pc+N. The
 * notes are those of the indexed form: a local label does not repeat one. */
static void build_raw_jumps(struct gs_asm *a, bool extra)
{
	struct gs_error err;
	struct gs_label loop;

	gs_asm_init(a);
	loop = gs_asm_label(a, "loop");
	gs_asm_note(a, "start");
	if (extra) /* an instruction inserted before the others */
		gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 0));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_JA(0));                             /* to the next: "~1" */
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_bind(a, loop);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R0, 1));
	gs_asm_emit(a, GS_JMP_IMM(BPF_JLT, GS_R0, 10, -2));   /* to "loop" */
	gs_asm_emit(a, GS_JMP_IMM(BPF_JEQ, GS_R0, 5, 1));     /* to "loop~1" */
	gs_asm_emit(a, GS_JMP_IMM(BPF_JEQ, GS_R0, 6, 1));     /* into the ld_imm64 */
	gs_asm_ld_imm64(a, GS_R2, 7);
	gs_asm_emit(a, GS_JMP_IMM(BPF_JEQ, GS_R0, 7, 100));   /* outside */
	gs_asm_emit(a, GS_EXIT());
	assert_int_equal(gs_asm_finish(a, &err), 0);
}

static void test_dump_raw_jump_targets_get_local_labels(void **state)
{
	struct gs_asm a;
	char *s;

	(void)state;
	build_raw_jumps(&a, false);
	s = gs_asm_dump_str(&a);
	assert_non_null(s);
	assert_string_equal(s,
		"    (b7) r0 = 0                                         ; start\n"
		"    (05) goto <~1>\n"
		"~1:\n"
		"    (b7) r0 = 1\n"
		"loop:\n"
		"    (07) r0 += 1                                        ; start\n"
		"    (a5) if r0 < 0xa goto <loop>\n"
		"    (15) if r0 == 0x5 goto <loop~1>\n"
		"    (15) if r0 == 0x6 goto pc+1\n"
		"loop~1:\n"
		"    (18) r2 = 0x7\n"
		"    (15) if r0 == 0x7 goto pc+100\n"
		"    (95) exit\n");
	free(s);
	s = capture_dump(&a, GS_DUMP_INDEXED);
	assert_string_equal(s,
		"    0: (b7) r0 = 0                                      ; start\n"
		"    1: (05) goto pc+0\n"
		"    2: (b7) r0 = 1\n"
		"loop:\n"
		"    3: (07) r0 += 1                                     ; start\n"
		"    4: (a5) if r0 < 0xa goto pc-2\n"
		"    5: (15) if r0 == 0x5 goto pc+1\n"
		"    6: (15) if r0 == 0x6 goto pc+1\n"
		"    7: (18) r2 = 0x7\n"
		"    9: (15) if r0 == 0x7 goto pc+100\n"
		"   10: (95) exit\n");
	free(s);
	gs_asm_fini(&a);
}

/* An instruction inserted before them renames no local label and changes
 * no line but its own: what the label form is for. */
static void test_dump_insertion_changes_only_its_own_line(void **state)
{
	struct gs_asm a, b;
	char *sa, *sb;
	const char *rest;

	(void)state;
	build_raw_jumps(&a, false);
	build_raw_jumps(&b, true);
	sa = gs_asm_dump_str(&a);
	sb = gs_asm_dump_str(&b);
	assert_non_null(sa);
	assert_non_null(sb);
	assert_true(base_has_prefix(sb, "    (b7) r1 = 0                                         ; start\n"
					"    (b7) r0 = 0\n"));
	rest = strchr(strchr(sb, '\n') + 1, '\n') + 1;
	assert_string_equal(rest, strchr(sa, '\n') + 1);
	free(sa);
	free(sb);
	gs_asm_fini(&a);
	gs_asm_fini(&b);
}

/* The tests below fill the assembler's readable fields by hand, to pin
 * layouts the assembler's checks would not let through. */
static void test_dump_prints_labels_in_creation_order_and_at_end(void **state)
{
	struct bpf_insn insns[] = { GS_MOV64_IMM(GS_R0, 0), GS_CALL_BPF(0), GS_EXIT() };
	const char *notes[] = { "a", NULL, "a" };
	struct gs_label_info labels[] = {
		{ .name = "entry", .pos = 0 },
		{ .name = "unbound", .pos = -1 },
		{ .name = "also_entry", .pos = 0 },
		{ .name = "end", .pos = 3 },
		{ .name = "subprog", .pos = 2 },
	};
	struct gs_fixup fixups[] = { { .insn = 1, .label = 4, .kind = GS_FIXUP_IMM32 } };
	struct gs_asm a = {
		.insns = insns, .notes = notes, .len = 3,
		.labels = labels, .nlabels = 5, .fixups = fixups, .nfixups = 1,
	};
	char *s = gs_asm_dump_str(&a);

	(void)state;
	assert_non_null(s);
	assert_string_equal(s,
		"entry:\n"
		"also_entry:\n"
		"    (b7) r0 = 0                                         ; a\n"
		"    (85) call <subprog>\n"
		"subprog:\n"
		"    (95) exit                                           ; a\n"
		"end:\n");
	free(s);
	s = capture_dump(&a, GS_DUMP_INDEXED);
	assert_string_equal(s,
		"entry:\n"
		"also_entry:\n"
		"    0: (b7) r0 = 0                                      ; a\n"
		"    1: (85) call pc+0 <subprog>\n"
		"subprog:\n"
		"    2: (95) exit                                        ; a\n"
		"end:\n");
	free(s);
}

static void test_dump_label_inside_ld_imm64_splits_the_pair(void **state)
{
	struct bpf_insn insns[] = { GS_LD_IMM64(GS_R1, 5), GS_EXIT() };
	struct gs_label_info labels[] = { { .name = "mid", .pos = 1 } };
	struct gs_asm a = { .insns = insns, .len = 3, .labels = labels, .nlabels = 1 };
	char *s = gs_asm_dump_str(&a);

	(void)state;
	assert_non_null(s);
	assert_string_equal(s,
		"    (18) invalid: 18 01 00 00 05 00 00 00\n"
		"mid:\n"
		"    (00) invalid: 00 00 00 00 00 00 00 00\n"
		"    (95) exit\n");
	free(s);
	s = capture_dump(&a, GS_DUMP_INDEXED);
	assert_string_equal(s,
		"    0: (18) invalid: 18 01 00 00 05 00 00 00\n"
		"mid:\n"
		"    1: (00) invalid: 00 00 00 00 00 00 00 00\n"
		"    2: (95) exit\n");
	free(s);
}

/* A fixup on an instruction that names no target (an invalid encoding)
 * still shows its label, after the raw bytes. */
static void test_dump_fixup_on_invalid_jump_shows_label_after(void **state)
{
	struct bpf_insn insns[] = { { .code = BPF_JMP | BPF_JA, .src_reg = 1 }, GS_EXIT() };
	struct gs_label_info labels[] = { { .name = "out", .pos = 1 } };
	struct gs_fixup fixups[] = { { .insn = 0, .label = 0, .kind = GS_FIXUP_OFF16 } };
	struct gs_asm a = { .insns = insns, .len = 2, .labels = labels, .nlabels = 1,
			    .fixups = fixups, .nfixups = 1 };
	char *s = gs_asm_dump_str(&a);

	(void)state;
	assert_non_null(s);
	assert_string_equal(s,
		"    (05) invalid: 05 10 00 00 00 00 00 00 <out>\n"
		"out:\n"
		"    (95) exit\n");
	free(s);
}

static void test_dump_long_line_keeps_one_space_before_note(void **state)
{
	struct bpf_insn insns[] = { GS_LD_MAP_VALUE(GS_R2, 0, 4096) };
	const char *notes[] = { "value", "value" };
	const char *maps[] = { "a_map_with_a_rather_long_name_indeed" };
	struct gs_reloc relocs[] = { { .insn = 0, .map = 0, .kind = GS_RELOC_MAP_VALUE } };
	struct gs_asm a = {
		.insns = insns, .notes = notes, .len = 2,
		.relocs = relocs, .nrelocs = 1, .maps = maps, .nmaps = 1,
	};
	char *s = gs_asm_dump_str(&a);

	(void)state;
	assert_non_null(s);
	assert_string_equal(s,
		"    (18) r2 = map[a_map_with_a_rather_long_name_indeed][0]+4096 ; value\n");
	free(s);
	s = capture_dump(&a, GS_DUMP_INDEXED);
	assert_string_equal(s,
		"    0: (18) r2 = map[a_map_with_a_rather_long_name_indeed][0]+4096 ; value\n");
	free(s);
}

static void test_dump_of_empty_program_is_empty(void **state)
{
	struct gs_asm a = { 0 };
	char *s = gs_asm_dump_str(&a);

	(void)state;
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	s = capture_dump(&a, GS_DUMP_INDEXED);
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alu64_ops_print_r_registers),
		cmocka_unit_test(test_alu32_ops_print_w_registers),
		cmocka_unit_test(test_off_selects_sdiv_smod_and_movsx),
		cmocka_unit_test(test_neg_and_byte_swaps),
		cmocka_unit_test(test_loads_and_stores_print_size_and_signed_offset),
		cmocka_unit_test(test_atomics_print_lock_and_fetch_forms),
		cmocka_unit_test(test_ld_imm64_prints_full_value_and_maps),
		cmocka_unit_test(test_legacy_packet_loads_print_skb),
		cmocka_unit_test(test_conditional_jumps_print_hex_imm_and_signed_pc),
		cmocka_unit_test(test_unconditional_jumps_calls_and_exit),
		cmocka_unit_test(test_undefined_encodings_print_raw_bytes),
		cmocka_unit_test(test_ld_imm64_without_valid_second_slot_takes_one_slot),
		cmocka_unit_test(test_registers_above_r10_are_invalid),
		cmocka_unit_test(test_zero_size_buffer_is_untouched),
		cmocka_unit_test(test_small_buffer_truncates_with_nul),
		cmocka_unit_test(test_prog_numbers_ld_imm64_as_two_slots),
		cmocka_unit_test(test_helper_names_by_id),
		cmocka_unit_test(test_dump_names_labels_maps_and_notes),
		cmocka_unit_test(test_dump_indexed_numbers_lines_and_keeps_offsets),
		cmocka_unit_test(test_dump_flag_it_does_not_know_is_refused),
		cmocka_unit_test(test_dump_raw_jump_targets_get_local_labels),
		cmocka_unit_test(test_dump_insertion_changes_only_its_own_line),
		cmocka_unit_test(test_dump_prints_labels_in_creation_order_and_at_end),
		cmocka_unit_test(test_dump_label_inside_ld_imm64_splits_the_pair),
		cmocka_unit_test(test_dump_fixup_on_invalid_jump_shows_label_after),
		cmocka_unit_test(test_dump_long_line_keeps_one_space_before_note),
		cmocka_unit_test(test_dump_of_empty_program_is_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
