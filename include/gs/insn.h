/* One-line constructors for every eBPF instruction of RFC 9669.
 *
 * Each macro yields one `struct bpf_insn` (ld_imm64 yields the two halves,
 * comma-separated, for use in array initializers) and is named after the
 * line the kernel verifier log prints for it, so a table of constructors
 * reads like the program it builds. Nothing here allocates or checks: the
 * assembler (asm.h) and the static checker do that. */
#ifndef GS_INSN_H
#define GS_INSN_H

#include <linux/bpf.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opcode parts newer than some distributions' uapi headers (RFC 9669). */
#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80 /* sign-extending load mode */
#endif
#ifndef BPF_PSEUDO_KFUNC_CALL
#define BPF_PSEUDO_KFUNC_CALL 2
#endif

enum gs_reg {
	GS_R0 = 0, GS_R1, GS_R2, GS_R3, GS_R4, GS_R5,
	GS_R6, GS_R7, GS_R8, GS_R9, GS_R10,
	GS_FP = GS_R10, /* read-only frame pointer */
	GS_NREGS = 11,
};

#define GS_INSN(c, d, s, o, i)                                                  \
	((struct bpf_insn){ .code = (uint8_t)(c), .dst_reg = (uint8_t)(d) & 0xf,  \
			    .src_reg = (uint8_t)(s) & 0xf, .off = (int16_t)(o),    \
			    .imm = (int32_t)(i) })

/* ALU (32-bit, writes wN and zero-extends) and ALU64. `op` is BPF_ADD,
 * BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD, BPF_OR, BPF_AND, BPF_XOR, BPF_LSH,
 * BPF_RSH, BPF_ARSH or BPF_MOV. */
#define GS_ALU64_REG(op, d, s)   GS_INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define GS_ALU64_IMM(op, d, imm) GS_INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, imm)
#define GS_ALU32_REG(op, d, s)   GS_INSN(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define GS_ALU32_IMM(op, d, imm) GS_INSN(BPF_ALU | (op) | BPF_K, d, 0, 0, imm)

/* Signed division and modulo: the DIV/MOD opcodes with off = 1. */
#define GS_SDIV64_REG(d, s)   GS_INSN(BPF_ALU64 | BPF_DIV | BPF_X, d, s, 1, 0)
#define GS_SDIV64_IMM(d, imm) GS_INSN(BPF_ALU64 | BPF_DIV | BPF_K, d, 0, 1, imm)
#define GS_SMOD64_REG(d, s)   GS_INSN(BPF_ALU64 | BPF_MOD | BPF_X, d, s, 1, 0)
#define GS_SMOD64_IMM(d, imm) GS_INSN(BPF_ALU64 | BPF_MOD | BPF_K, d, 0, 1, imm)
#define GS_SDIV32_REG(d, s)   GS_INSN(BPF_ALU | BPF_DIV | BPF_X, d, s, 1, 0)
#define GS_SDIV32_IMM(d, imm) GS_INSN(BPF_ALU | BPF_DIV | BPF_K, d, 0, 1, imm)
#define GS_SMOD32_REG(d, s)   GS_INSN(BPF_ALU | BPF_MOD | BPF_X, d, s, 1, 0)
#define GS_SMOD32_IMM(d, imm) GS_INSN(BPF_ALU | BPF_MOD | BPF_K, d, 0, 1, imm)

#define GS_NEG64(d) GS_INSN(BPF_ALU64 | BPF_NEG | BPF_K, d, 0, 0, 0)
#define GS_NEG32(d) GS_INSN(BPF_ALU | BPF_NEG | BPF_K, d, 0, 0, 0)

#define GS_MOV64_REG(d, s)   GS_ALU64_REG(BPF_MOV, d, s)
#define GS_MOV64_IMM(d, imm) GS_ALU64_IMM(BPF_MOV, d, imm)
#define GS_MOV32_REG(d, s)   GS_ALU32_REG(BPF_MOV, d, s)
#define GS_MOV32_IMM(d, imm) GS_ALU32_IMM(BPF_MOV, d, imm)

/* Sign-extending moves: `bits` is 8, 16 or 32 (8 or 16 for the 32-bit form). */
#define GS_MOVSX64_REG(d, s, bits) GS_INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, bits, 0)
#define GS_MOVSX32_REG(d, s, bits) GS_INSN(BPF_ALU | BPF_MOV | BPF_X, d, s, bits, 0)

/* Byte swaps: to/from little or big endian (ALU class), and the
 * unconditional swap (ALU64 class). `bits` is 16, 32 or 64. */
#define GS_TO_LE(d, bits) GS_INSN(BPF_ALU | BPF_END | BPF_TO_LE, d, 0, 0, bits)
#define GS_TO_BE(d, bits) GS_INSN(BPF_ALU | BPF_END | BPF_TO_BE, d, 0, 0, bits)
#define GS_BSWAP(d, bits) GS_INSN(BPF_ALU64 | BPF_END | BPF_TO_LE, d, 0, 0, bits)

/* Jumps. `op` is BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT,
 * BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT or BPF_JSLE; `off` counts
 * instructions from the next one. Code generators jump to labels instead
 * (gs_asm_jmp_*), which fill `off` when the program is finished. */
#define GS_JMP_REG(op, d, s, off)   GS_INSN(BPF_JMP | (op) | BPF_X, d, s, off, 0)
#define GS_JMP_IMM(op, d, imm, off) GS_INSN(BPF_JMP | (op) | BPF_K, d, 0, off, imm)
#define GS_JMP32_REG(op, d, s, off)   GS_INSN(BPF_JMP32 | (op) | BPF_X, d, s, off, 0)
#define GS_JMP32_IMM(op, d, imm, off) GS_INSN(BPF_JMP32 | (op) | BPF_K, d, 0, off, imm)
#define GS_JA(off)    GS_INSN(BPF_JMP | BPF_JA, 0, 0, off, 0)
#define GS_GOTOL(imm) GS_INSN(BPF_JMP32 | BPF_JA, 0, 0, 0, imm) /* 32-bit offset */

#define GS_CALL_HELPER(id)   GS_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define GS_CALL_BPF(imm)     GS_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, imm)
#define GS_CALL_KFUNC(btfid) GS_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, btfid)
#define GS_EXIT()            GS_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* Memory. `size` is BPF_B, BPF_H, BPF_W or BPF_DW. */
#define GS_LDX_MEM(size, d, s, off)    GS_INSN(BPF_LDX | BPF_MEM | (size), d, s, off, 0)
#define GS_LDX_MEMSX(size, d, s, off)  GS_INSN(BPF_LDX | BPF_MEMSX | (size), d, s, off, 0)
#define GS_STX_MEM(size, d, s, off)    GS_INSN(BPF_STX | BPF_MEM | (size), d, s, off, 0)
#define GS_ST_MEM(size, d, off, imm)   GS_INSN(BPF_ST | BPF_MEM | (size), d, 0, off, imm)

/* Atomics on *(size *)(d + off) with operand s; `size` is BPF_W or BPF_DW.
 * `op` is BPF_ADD, BPF_OR, BPF_AND or BPF_XOR, optionally | BPF_FETCH (the
 * old value lands in s), or BPF_XCHG, or BPF_CMPXCHG (compares with r0,
 * old value in r0). */
#define GS_ATOMIC(size, op, d, s, off) GS_INSN(BPF_STX | BPF_ATOMIC | (size), d, s, off, op)
#define GS_ATOMIC_ADD(size, d, s, off)       GS_ATOMIC(size, BPF_ADD, d, s, off)
#define GS_ATOMIC_OR(size, d, s, off)        GS_ATOMIC(size, BPF_OR, d, s, off)
#define GS_ATOMIC_AND(size, d, s, off)       GS_ATOMIC(size, BPF_AND, d, s, off)
#define GS_ATOMIC_XOR(size, d, s, off)       GS_ATOMIC(size, BPF_XOR, d, s, off)
#define GS_ATOMIC_FETCH_ADD(size, d, s, off) GS_ATOMIC(size, BPF_ADD | BPF_FETCH, d, s, off)
#define GS_ATOMIC_FETCH_OR(size, d, s, off)  GS_ATOMIC(size, BPF_OR | BPF_FETCH, d, s, off)
#define GS_ATOMIC_FETCH_AND(size, d, s, off) GS_ATOMIC(size, BPF_AND | BPF_FETCH, d, s, off)
#define GS_ATOMIC_FETCH_XOR(size, d, s, off) GS_ATOMIC(size, BPF_XOR | BPF_FETCH, d, s, off)
#define GS_ATOMIC_XCHG(size, d, s, off)      GS_ATOMIC(size, BPF_XCHG, d, s, off)
#define GS_ATOMIC_CMPXCHG(size, d, s, off)   GS_ATOMIC(size, BPF_CMPXCHG, d, s, off)

/* Legacy packet access (RFC 9669 "packet" group): r0 = skb[imm], skb[s+imm]. */
#define GS_LD_ABS(size, imm)    GS_INSN(BPF_LD | BPF_ABS | (size), 0, 0, 0, imm)
#define GS_LD_IND(size, s, imm) GS_INSN(BPF_LD | BPF_IND | (size), 0, s, 0, imm)

/* 64-bit immediate loads: two slots. `src` is 0 (plain value),
 * BPF_PSEUDO_MAP_FD (imm = map fd) or BPF_PSEUDO_MAP_VALUE (imm = map fd,
 * second imm = offset into the value). */
#define GS_LD_IMM64_RAW(d, src, imm64)                                          \
	GS_INSN(BPF_LD | BPF_DW | BPF_IMM, d, src, 0, (uint32_t)(uint64_t)(imm64)), \
	GS_INSN(0, 0, 0, 0, (uint32_t)((uint64_t)(imm64) >> 32))
#define GS_LD_IMM64(d, imm64)        GS_LD_IMM64_RAW(d, 0, imm64)
#define GS_LD_MAP_FD(d, fd)          GS_LD_IMM64_RAW(d, BPF_PSEUDO_MAP_FD, (uint32_t)(fd))
#define GS_LD_MAP_VALUE(d, fd, off)                                             \
	GS_LD_IMM64_RAW(d, BPF_PSEUDO_MAP_VALUE,                                \
			(uint32_t)(fd) | ((uint64_t)(uint32_t)(off) << 32))

/* True for the first slot of an ld_imm64 pair. */
static inline int gs_insn_is_ld_imm64(const struct bpf_insn *insn)
{
	return insn->code == (BPF_LD | BPF_DW | BPF_IMM);
}

#ifdef __cplusplus
}
#endif

#endif /* GS_INSN_H */
