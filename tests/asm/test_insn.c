/* Encodings of the instruction constructors, checked against bytes worked
 * out by hand from the ISA's bit layout (RFC 9669 §3-5): opcode = class |
 * op/size | source or mode, then dst in the low nibble and src in the high
 * nibble of byte 1, then `off` and `imm` little-endian. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <gs/insn.h>

#include "base.h"

struct enc_case {
	const char *name;
	struct bpf_insn insn[2];
	const char *bytes; /* 8 or 16 hex bytes separated by spaces */
};

#define ONE(i, b)  { #i, { i }, b }
#define PAIR(i, b) { #i, { i }, b }

/* dst r1 and src r2 give the register byte 0x21 unless a case says so. */
static const struct enc_case cases[] = {
	/* ALU64, immediate source: class 0x07 | op */
	ONE(GS_ALU64_IMM(BPF_ADD, GS_R1, 0x12345678), "07 01 00 00 78 56 34 12"),
	ONE(GS_ALU64_IMM(BPF_SUB, GS_R1, 0x12345678), "17 01 00 00 78 56 34 12"),
	ONE(GS_ALU64_IMM(BPF_MUL, GS_R1, 0x12345678), "27 01 00 00 78 56 34 12"),
	ONE(GS_ALU64_IMM(BPF_DIV, GS_R1, 0x12345678), "37 01 00 00 78 56 34 12"),
	ONE(GS_ALU64_IMM(BPF_OR, GS_R1, 0x12345678), "47 01 00 00 78 56 34 12"),
	ONE(GS_ALU64_IMM(BPF_AND, GS_R1, 0x12345678), "57 01 00 00 78 56 34 12"),
	ONE(GS_ALU64_IMM(BPF_LSH, GS_R1, 3), "67 01 00 00 03 00 00 00"),
	ONE(GS_ALU64_IMM(BPF_RSH, GS_R1, 3), "77 01 00 00 03 00 00 00"),
	ONE(GS_ALU64_IMM(BPF_MOD, GS_R1, 0x12345678), "97 01 00 00 78 56 34 12"),
	ONE(GS_ALU64_IMM(BPF_XOR, GS_R1, 0x12345678), "a7 01 00 00 78 56 34 12"),
	ONE(GS_MOV64_IMM(GS_R1, -1), "b7 01 00 00 ff ff ff ff"),
	ONE(GS_ALU64_IMM(BPF_ARSH, GS_R1, 3), "c7 01 00 00 03 00 00 00"),
	/* ALU64, register source: class 0x07 | op | 0x08 */
	ONE(GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2), "0f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2), "1f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_MUL, GS_R1, GS_R2), "2f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_DIV, GS_R1, GS_R2), "3f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_OR, GS_R1, GS_R2), "4f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_AND, GS_R1, GS_R2), "5f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_LSH, GS_R1, GS_R2), "6f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_RSH, GS_R1, GS_R2), "7f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_MOD, GS_R1, GS_R2), "9f 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_XOR, GS_R1, GS_R2), "af 21 00 00 00 00 00 00"),
	ONE(GS_MOV64_REG(GS_R1, GS_R2), "bf 21 00 00 00 00 00 00"),
	ONE(GS_ALU64_REG(BPF_ARSH, GS_R1, GS_R2), "cf 21 00 00 00 00 00 00"),
	/* ALU (32-bit): class 0x04 */
	ONE(GS_ALU32_IMM(BPF_ADD, GS_R1, 0x12345678), "04 01 00 00 78 56 34 12"),
	ONE(GS_ALU32_IMM(BPF_SUB, GS_R1, 0x12345678), "14 01 00 00 78 56 34 12"),
	ONE(GS_ALU32_IMM(BPF_MUL, GS_R1, 0x12345678), "24 01 00 00 78 56 34 12"),
	ONE(GS_ALU32_IMM(BPF_DIV, GS_R1, 0x12345678), "34 01 00 00 78 56 34 12"),
	ONE(GS_ALU32_IMM(BPF_OR, GS_R1, 0x12345678), "44 01 00 00 78 56 34 12"),
	ONE(GS_ALU32_IMM(BPF_AND, GS_R1, 0x12345678), "54 01 00 00 78 56 34 12"),
	ONE(GS_ALU32_IMM(BPF_LSH, GS_R1, 3), "64 01 00 00 03 00 00 00"),
	ONE(GS_ALU32_IMM(BPF_RSH, GS_R1, 3), "74 01 00 00 03 00 00 00"),
	ONE(GS_ALU32_IMM(BPF_MOD, GS_R1, 0x12345678), "94 01 00 00 78 56 34 12"),
	ONE(GS_ALU32_IMM(BPF_XOR, GS_R1, 0x12345678), "a4 01 00 00 78 56 34 12"),
	ONE(GS_MOV32_IMM(GS_R1, 0x12345678), "b4 01 00 00 78 56 34 12"),
	ONE(GS_ALU32_IMM(BPF_ARSH, GS_R1, 3), "c4 01 00 00 03 00 00 00"),
	ONE(GS_ALU32_REG(BPF_ADD, GS_R1, GS_R2), "0c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_SUB, GS_R1, GS_R2), "1c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_MUL, GS_R1, GS_R2), "2c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_DIV, GS_R1, GS_R2), "3c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_OR, GS_R1, GS_R2), "4c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_AND, GS_R1, GS_R2), "5c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_LSH, GS_R1, GS_R2), "6c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_RSH, GS_R1, GS_R2), "7c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_MOD, GS_R1, GS_R2), "9c 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_XOR, GS_R1, GS_R2), "ac 21 00 00 00 00 00 00"),
	ONE(GS_MOV32_REG(GS_R1, GS_R2), "bc 21 00 00 00 00 00 00"),
	ONE(GS_ALU32_REG(BPF_ARSH, GS_R1, GS_R2), "cc 21 00 00 00 00 00 00"),
	/* signed division and modulo: off = 1 */
	ONE(GS_SDIV64_REG(GS_R1, GS_R2), "3f 21 01 00 00 00 00 00"),
	ONE(GS_SDIV64_IMM(GS_R1, 7), "37 01 01 00 07 00 00 00"),
	ONE(GS_SMOD64_REG(GS_R1, GS_R2), "9f 21 01 00 00 00 00 00"),
	ONE(GS_SMOD64_IMM(GS_R1, 7), "97 01 01 00 07 00 00 00"),
	ONE(GS_SDIV32_REG(GS_R1, GS_R2), "3c 21 01 00 00 00 00 00"),
	ONE(GS_SDIV32_IMM(GS_R1, 7), "34 01 01 00 07 00 00 00"),
	ONE(GS_SMOD32_REG(GS_R1, GS_R2), "9c 21 01 00 00 00 00 00"),
	ONE(GS_SMOD32_IMM(GS_R1, 7), "94 01 01 00 07 00 00 00"),
	/* negation: op 0x80 */
	ONE(GS_NEG64(GS_R1), "87 01 00 00 00 00 00 00"),
	ONE(GS_NEG32(GS_R1), "84 01 00 00 00 00 00 00"),
	/* sign-extending moves: MOV | X with off = 8, 16, 32 */
	ONE(GS_MOVSX64_REG(GS_R1, GS_R2, 8), "bf 21 08 00 00 00 00 00"),
	ONE(GS_MOVSX64_REG(GS_R1, GS_R2, 16), "bf 21 10 00 00 00 00 00"),
	ONE(GS_MOVSX64_REG(GS_R1, GS_R2, 32), "bf 21 20 00 00 00 00 00"),
	ONE(GS_MOVSX32_REG(GS_R1, GS_R2, 8), "bc 21 08 00 00 00 00 00"),
	ONE(GS_MOVSX32_REG(GS_R1, GS_R2, 16), "bc 21 10 00 00 00 00 00"),
	/* byte swaps: op 0xd0; ALU class with source bit = to-le/to-be, ALU64 = bswap */
	ONE(GS_TO_LE(GS_R1, 16), "d4 01 00 00 10 00 00 00"),
	ONE(GS_TO_LE(GS_R1, 32), "d4 01 00 00 20 00 00 00"),
	ONE(GS_TO_LE(GS_R1, 64), "d4 01 00 00 40 00 00 00"),
	ONE(GS_TO_BE(GS_R1, 16), "dc 01 00 00 10 00 00 00"),
	ONE(GS_TO_BE(GS_R1, 32), "dc 01 00 00 20 00 00 00"),
	ONE(GS_TO_BE(GS_R1, 64), "dc 01 00 00 40 00 00 00"),
	ONE(GS_BSWAP(GS_R1, 16), "d7 01 00 00 10 00 00 00"),
	ONE(GS_BSWAP(GS_R1, 32), "d7 01 00 00 20 00 00 00"),
	ONE(GS_BSWAP(GS_R1, 64), "d7 01 00 00 40 00 00 00"),
	/* JMP, register source (off +3): class 0x05 | op | 0x08 */
	ONE(GS_JMP_REG(BPF_JEQ, GS_R1, GS_R2, 3), "1d 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JGT, GS_R1, GS_R2, 3), "2d 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JGE, GS_R1, GS_R2, 3), "3d 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JSET, GS_R1, GS_R2, 3), "4d 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JNE, GS_R1, GS_R2, 3), "5d 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JSGT, GS_R1, GS_R2, 3), "6d 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JSGE, GS_R1, GS_R2, 3), "7d 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JLT, GS_R1, GS_R2, 3), "ad 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JLE, GS_R1, GS_R2, 3), "bd 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JSLT, GS_R1, GS_R2, 3), "cd 21 03 00 00 00 00 00"),
	ONE(GS_JMP_REG(BPF_JSLE, GS_R1, GS_R2, 3), "dd 21 03 00 00 00 00 00"),
	/* JMP, immediate source (off -2) */
	ONE(GS_JMP_IMM(BPF_JEQ, GS_R1, 0x12345678, -2), "15 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JGT, GS_R1, 0x12345678, -2), "25 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JGE, GS_R1, 0x12345678, -2), "35 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JSET, GS_R1, 0x12345678, -2), "45 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JNE, GS_R1, 0x12345678, -2), "55 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JSGT, GS_R1, 0x12345678, -2), "65 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JSGE, GS_R1, 0x12345678, -2), "75 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JLT, GS_R1, 0x12345678, -2), "a5 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JLE, GS_R1, 0x12345678, -2), "b5 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JSLT, GS_R1, 0x12345678, -2), "c5 01 fe ff 78 56 34 12"),
	ONE(GS_JMP_IMM(BPF_JSLE, GS_R1, 0x12345678, -2), "d5 01 fe ff 78 56 34 12"),
	/* JMP32: class 0x06 */
	ONE(GS_JMP32_REG(BPF_JEQ, GS_R1, GS_R2, 3), "1e 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JGT, GS_R1, GS_R2, 3), "2e 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JGE, GS_R1, GS_R2, 3), "3e 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JSET, GS_R1, GS_R2, 3), "4e 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JNE, GS_R1, GS_R2, 3), "5e 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JSGT, GS_R1, GS_R2, 3), "6e 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JSGE, GS_R1, GS_R2, 3), "7e 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JLT, GS_R1, GS_R2, 3), "ae 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JLE, GS_R1, GS_R2, 3), "be 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JSLT, GS_R1, GS_R2, 3), "ce 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_REG(BPF_JSLE, GS_R1, GS_R2, 3), "de 21 03 00 00 00 00 00"),
	ONE(GS_JMP32_IMM(BPF_JEQ, GS_R1, 0x12345678, -2), "16 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JGT, GS_R1, 0x12345678, -2), "26 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JGE, GS_R1, 0x12345678, -2), "36 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JSET, GS_R1, 0x12345678, -2), "46 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JNE, GS_R1, 0x12345678, -2), "56 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JSGT, GS_R1, 0x12345678, -2), "66 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JSGE, GS_R1, 0x12345678, -2), "76 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JLT, GS_R1, 0x12345678, -2), "a6 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JLE, GS_R1, 0x12345678, -2), "b6 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JSLT, GS_R1, 0x12345678, -2), "c6 01 fe ff 78 56 34 12"),
	ONE(GS_JMP32_IMM(BPF_JSLE, GS_R1, 0x12345678, -2), "d6 01 fe ff 78 56 34 12"),
	/* unconditional jumps, calls, exit */
	ONE(GS_JA(5), "05 00 05 00 00 00 00 00"),
	ONE(GS_JA(-1), "05 00 ff ff 00 00 00 00"),
	ONE(GS_GOTOL(70000), "06 00 00 00 70 11 01 00"),
	ONE(GS_CALL_HELPER(1), "85 00 00 00 01 00 00 00"),
	ONE(GS_CALL_BPF(5), "85 10 00 00 05 00 00 00"),
	ONE(GS_CALL_KFUNC(1234), "85 20 00 00 d2 04 00 00"),
	ONE(GS_EXIT(), "95 00 00 00 00 00 00 00"),
	/* loads: class 0x01 | mode MEM 0x60 or MEMSX 0x80 | size W 0 H 8 B 0x10 DW 0x18 */
	ONE(GS_LDX_MEM(BPF_W, GS_R1, GS_R2, -8), "61 21 f8 ff 00 00 00 00"),
	ONE(GS_LDX_MEM(BPF_H, GS_R1, GS_R2, -8), "69 21 f8 ff 00 00 00 00"),
	ONE(GS_LDX_MEM(BPF_B, GS_R1, GS_R2, -8), "71 21 f8 ff 00 00 00 00"),
	ONE(GS_LDX_MEM(BPF_DW, GS_R1, GS_R2, -8), "79 21 f8 ff 00 00 00 00"),
	ONE(GS_LDX_MEMSX(BPF_W, GS_R1, GS_R2, 128), "81 21 80 00 00 00 00 00"),
	ONE(GS_LDX_MEMSX(BPF_H, GS_R1, GS_R2, 128), "89 21 80 00 00 00 00 00"),
	ONE(GS_LDX_MEMSX(BPF_B, GS_R1, GS_R2, 128), "91 21 80 00 00 00 00 00"),
	/* stores: STX class 0x03, ST class 0x02; dst r10 src r1 -> 0x1a */
	ONE(GS_STX_MEM(BPF_W, GS_R10, GS_R1, -8), "63 1a f8 ff 00 00 00 00"),
	ONE(GS_STX_MEM(BPF_H, GS_R10, GS_R1, -8), "6b 1a f8 ff 00 00 00 00"),
	ONE(GS_STX_MEM(BPF_B, GS_R10, GS_R1, -8), "73 1a f8 ff 00 00 00 00"),
	ONE(GS_STX_MEM(BPF_DW, GS_R10, GS_R1, -8), "7b 1a f8 ff 00 00 00 00"),
	ONE(GS_ST_MEM(BPF_W, GS_R10, -4, 0x12345678), "62 0a fc ff 78 56 34 12"),
	ONE(GS_ST_MEM(BPF_H, GS_R10, -4, 0x12345678), "6a 0a fc ff 78 56 34 12"),
	ONE(GS_ST_MEM(BPF_B, GS_R10, -4, 0x12345678), "72 0a fc ff 78 56 34 12"),
	ONE(GS_ST_MEM(BPF_DW, GS_R10, -4, 0x12345678), "7a 0a fc ff 78 56 34 12"),
	/* atomics: STX | ATOMIC 0xc0 | size; imm selects the operation */
	ONE(GS_ATOMIC_ADD(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 00 00 00 00"),
	ONE(GS_ATOMIC_OR(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 40 00 00 00"),
	ONE(GS_ATOMIC_AND(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 50 00 00 00"),
	ONE(GS_ATOMIC_XOR(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 a0 00 00 00"),
	ONE(GS_ATOMIC_FETCH_ADD(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 01 00 00 00"),
	ONE(GS_ATOMIC_FETCH_OR(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 41 00 00 00"),
	ONE(GS_ATOMIC_FETCH_AND(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 51 00 00 00"),
	ONE(GS_ATOMIC_FETCH_XOR(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 a1 00 00 00"),
	ONE(GS_ATOMIC_XCHG(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 e1 00 00 00"),
	ONE(GS_ATOMIC_CMPXCHG(BPF_W, GS_R1, GS_R2, 16), "c3 21 10 00 f1 00 00 00"),
	ONE(GS_ATOMIC_ADD(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 00 00 00 00"),
	ONE(GS_ATOMIC_OR(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 40 00 00 00"),
	ONE(GS_ATOMIC_AND(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 50 00 00 00"),
	ONE(GS_ATOMIC_XOR(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 a0 00 00 00"),
	ONE(GS_ATOMIC_FETCH_ADD(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 01 00 00 00"),
	ONE(GS_ATOMIC_FETCH_OR(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 41 00 00 00"),
	ONE(GS_ATOMIC_FETCH_AND(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 51 00 00 00"),
	ONE(GS_ATOMIC_FETCH_XOR(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 a1 00 00 00"),
	ONE(GS_ATOMIC_XCHG(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 e1 00 00 00"),
	ONE(GS_ATOMIC_CMPXCHG(BPF_DW, GS_R1, GS_R2, 16), "db 21 10 00 f1 00 00 00"),
	/* legacy packet access: LD class 0x00 | ABS 0x20 / IND 0x40 | size */
	ONE(GS_LD_ABS(BPF_W, 12), "20 00 00 00 0c 00 00 00"),
	ONE(GS_LD_ABS(BPF_H, 12), "28 00 00 00 0c 00 00 00"),
	ONE(GS_LD_ABS(BPF_B, 12), "30 00 00 00 0c 00 00 00"),
	ONE(GS_LD_IND(BPF_H, GS_R2, 2), "48 20 00 00 02 00 00 00"),
	/* 64-bit immediates: LD | IMM | DW = 0x18, low word first */
	PAIR(GS_LD_IMM64(GS_R1, 0x1122334455667788ULL),
	     "18 01 00 00 88 77 66 55 00 00 00 00 44 33 22 11"),
	PAIR(GS_LD_MAP_FD(GS_R1, 3), "18 11 00 00 03 00 00 00 00 00 00 00 00 00 00 00"),
	PAIR(GS_LD_MAP_VALUE(GS_R1, 3, 16), "18 21 00 00 03 00 00 00 00 00 00 00 10 00 00 00"),
};

static size_t parse_hex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned v;
	int used;

	while (n < max && sscanf(s, " %2x%n", &v, &used) == 1) {
		out[n++] = (uint8_t)v;
		s += used;
	}
	return n;
}

static void test_every_constructor_matches_hand_encoded_bytes(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct bpf_insn), 8);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		uint8_t want[16];
		size_t n = parse_hex(cases[i].bytes, want, sizeof(want));

		assert_true(n == 8 || n == 16);
		if (memcmp(cases[i].insn, want, n) != 0) {
			const uint8_t *got = (const uint8_t *)cases[i].insn;

			fprintf(stderr, "%s\n  want %s\n  got ", cases[i].name, cases[i].bytes);
			for (size_t b = 0; b < n; b++)
				fprintf(stderr, " %02x", got[b]);
			fprintf(stderr, "\n");
			fail();
		}
	}
}

static void test_register_fields_are_nibbles_and_masked(void **state)
{
	struct bpf_insn insn = GS_MOV64_REG(GS_R10, GS_R9);
	const uint8_t *b = (const uint8_t *)&insn;

	(void)state;
	assert_int_equal(b[1], 0x9a); /* src in the high nibble, dst in the low */
	insn = GS_MOV64_REG(0x1f, 0x13); /* out-of-range numbers never spill */
	assert_int_equal(b[1], 0x3f);
	assert_int_equal(b[0], 0xbf);
}

static void test_ld_imm64_first_slot_is_recognised(void **state)
{
	struct bpf_insn pair[] = { GS_LD_IMM64(GS_R0, 1) };

	(void)state;
	assert_true(gs_insn_is_ld_imm64(&pair[0]));
	assert_false(gs_insn_is_ld_imm64(&pair[1]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_constructor_matches_hand_encoded_bytes),
		cmocka_unit_test(test_register_fields_are_nibbles_and_masked),
		cmocka_unit_test(test_ld_imm64_first_slot_is_recognised),
	};

	return cmocka_run_group_tests_name("insn", tests, NULL, NULL);
}
