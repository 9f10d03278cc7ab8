/* The sample programs of sample_progs.h. Each builder reads top to bottom
 * like the program it emits: a note per step, labels for every jump, stack
 * slots from the allocator, and maps declared in the order of its table row. */
#include <stddef.h>

#include <linux/bpf.h>

#include <gs/internal/asm.h>
#include "base.h"
#include "sample_progs.h"

/* The socket filter context field the programs read. */
#define SKB_LEN ((int16_t)offsetof(struct __sk_buff, len))

/* dst = r10 + off: the pointer to a stack slot that a helper takes. */
static void stack_ptr(struct gs_asm *a, uint8_t dst, int16_t off)
{
	gs_asm_emit(a, GS_MOV64_REG(dst, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, dst, off));
}

/* r0 = bpf_map_lookup_elem(&map, &(u32){0}), with the key in a stack slot. */
static void lookup_key0(struct gs_asm *a, uint32_t map)
{
	int16_t key = gs_asm_slot(a, "key", sizeof(uint32_t), sizeof(uint32_t));

	gs_asm_note(a, "key = 0");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key, 0));
	/* After a sticky error `map` may not index a->maps. */
	gs_asm_notef(a, "value = bpf_map_lookup_elem(&%s, &key)",
		     map < a->nmaps ? a->maps[map] : "?");
	gs_asm_ld_map(a, GS_R1, map);
	stack_ptr(a, GS_R2, key);
	gs_asm_call(a, BPF_FUNC_map_lookup_elem);
}

/* ALU64 without a jump: 6 * 9 walked down to 42 through every operator,
 * with a round trip through the stack. Returns 42. */
static void build_straight_line(struct gs_asm *a)
{
	int16_t spill = gs_asm_slot(a, "answer", sizeof(uint64_t), sizeof(uint64_t));

	gs_asm_note(a, "answer = 6 * 9 = 54");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 6));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R0, 9));
	gs_asm_note(a, "answer -= answer % 10: 50");
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MOD, GS_R1, 10));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R0, GS_R1));
	gs_asm_note(a, "answer = (answer << 2 >> 1) / 5: 20");
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R0, 2));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_DIV, GS_R0, 5));
	gs_asm_note(a, "answer = (answer | 0x30) & 0x3f ^ 0x1e: 42");
	gs_asm_emit(a, GS_ALU64_IMM(BPF_OR, GS_R0, 0x30));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R0, 0x3f));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_XOR, GS_R0, 0x1e));
	gs_asm_note(a, "spill answer and reload it");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, spill));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, spill));
	gs_asm_note(a, "r2 = -(-84 s>> 1) = 42");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, -84));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R2, 1));
	gs_asm_emit(a, GS_NEG64(GS_R2));
	gs_asm_note(a, "return (answer + r2) / 2 = 42");
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R0, GS_R2));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 1));
	gs_asm_emit(a, GS_EXIT());
}

/* A bounded loop with a backward jump: sum of 0..15. Returns 120. */
static void build_loop_sum(struct gs_asm *a)
{
	struct gs_label loop = gs_asm_label(a, "loop");

	gs_asm_note(a, "sum = 0, i = 0");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 0));
	gs_asm_bind(a, loop);
	gs_asm_note(a, "sum += i++");
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_note(a, "while i < 16");
	gs_asm_jmp_imm(a, BPF_JLT, GS_R1, 16, loop);
	gs_asm_note(a, "return sum");
	gs_asm_emit(a, GS_EXIT());
}

/* Looks up key 0 of `map`, returns ++*value, or 0 on a miss: the null
 * check the verifier demands, then a read-modify-write through the value
 * pointer. */
static void return_incremented_value(struct gs_asm *a, uint32_t map, const char *increment)
{
	struct gs_label miss = gs_asm_label(a, "lookup_miss");

	lookup_key0(a, map);
	gs_asm_note(a, "a miss returns NULL");
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, miss);
	gs_asm_note(a, increment);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, 0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R0, GS_R1, 0));
	gs_asm_emit(a, GS_MOV64_REG(GS_R0, GS_R1));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, miss);
	gs_asm_note(a, "miss: return 0");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

/* ARRAY lookup. Returns the new count (1). */
static void build_array_lookup(struct gs_asm *a)
{
	return_incremented_value(a, gs_asm_map(a, "counters"), "return ++*value");
}

/* A 16-byte event built on the stack and copied into a ring buffer.
 * Returns bpf_ringbuf_output()'s result: 0 when the record was written. */
static void build_ringbuf_output(struct gs_asm *a)
{
	uint32_t events = gs_asm_map(a, "events");
	int16_t ev = gs_asm_slot(a, "event", 16, sizeof(uint64_t));

	gs_asm_note(a, "event.magic = 0x6773");
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, ev, 0x6773));
	gs_asm_note(a, "event.len = skb->len");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R1, SKB_LEN));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, ev + 8));
	gs_asm_note(a, "bpf_ringbuf_output(&events, &event, 16, 0)");
	gs_asm_ld_map(a, GS_R1, events);
	stack_ptr(a, GS_R2, ev);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 16));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 0));
	gs_asm_call(a, BPF_FUNC_ringbuf_output);
	gs_asm_note(a, "return its result");
	gs_asm_emit(a, GS_EXIT());
}

/* A per-CPU counter (each CPU has its own copy, so no atomic is needed).
 * Returns the new count (1). */
static void build_percpu_counter(struct gs_asm *a)
{
	return_incremented_value(a, gs_asm_map(a, "hits"), "return ++(this CPU's count)");
}

/* A tail call through slot 0 of a PROG_ARRAY. The test puts a program
 * returning 0 there, so 0 means the call happened and 1 that it fell
 * through. */
static void build_tail_call(struct gs_asm *a)
{
	uint32_t jump_table = gs_asm_map(a, "jump_table");

	gs_asm_note(a, "bpf_tail_call(ctx, &jump_table, 0): ctx is still in r1");
	gs_asm_ld_map(a, GS_R2, jump_table);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 0));
	gs_asm_call(a, BPF_FUNC_tail_call);
	gs_asm_note(a, "slot 0 empty: return 1");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_emit(a, GS_EXIT());
}

/* A pointer into an array map's only value, straight from ld_imm64
 * (BPF_PSEUDO_MAP_VALUE): no lookup, no null check. The value is
 * { u64 seen; u64 limit; } and the pointer is to `limit`. Returns 5. */
static void build_map_value_direct(struct gs_asm *a)
{
	uint32_t config = gs_asm_map(a, "config");

	gs_asm_note(a, "r6 = &config[0].limit (offset 8)");
	gs_asm_ld_map_value(a, GS_R6, config, 8);
	gs_asm_note(a, "config.seen = 1, through the same pointer");
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_R6, -8, 1));
	gs_asm_note(a, "config.limit += 5");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_R6, 0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R0, 5));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R0, 0));
	gs_asm_note(a, "return config.limit");
	gs_asm_emit(a, GS_EXIT());
}

/* 32-bit ALU (wraps, zero-extends) checked with 32- and 64-bit jumps.
 * Returns 12 when every step behaved, 0 otherwise. */
static void build_alu32_jmp32(struct gs_asm *a)
{
	struct gs_label wrong = gs_asm_label(a, "alu32_wrong");

	gs_asm_note(a, "r2 = all ones; w2 += 1 wraps to 0 and clears the upper half");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, -1));
	gs_asm_emit(a, GS_ALU32_IMM(BPF_ADD, GS_R2, 1));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R2, 0, wrong);
	gs_asm_note(a, "w3 = -8 s>> 1 is -4 as a signed 32-bit value");
	gs_asm_emit(a, GS_MOV32_IMM(GS_R3, -8));
	gs_asm_emit(a, GS_ALU32_IMM(BPF_ARSH, GS_R3, 1));
	gs_asm_jmp32_imm(a, BPF_JSGT, GS_R3, -4, wrong);
	gs_asm_jmp32_imm(a, BPF_JSLT, GS_R3, -4, wrong);
	gs_asm_note(a, "w3 *= -3 is 12, upper half still clear");
	gs_asm_emit(a, GS_ALU32_IMM(BPF_MUL, GS_R3, -3));
	gs_asm_emit(a, GS_MOV32_IMM(GS_R4, 12));
	gs_asm_jmp32_reg(a, BPF_JNE, GS_R3, GS_R4, wrong);
	gs_asm_jmp_reg(a, BPF_JNE, GS_R3, GS_R4, wrong);
	gs_asm_note(a, "return w3");
	gs_asm_emit(a, GS_MOV32_REG(GS_R0, GS_R3));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, wrong);
	gs_asm_note(a, "a 32-bit step misbehaved: return 0");
	gs_asm_emit(a, GS_MOV32_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

/* cpu v4 (Linux 6.6+): sign-extending load and move, signed division and
 * modulo, and a 32-bit-offset gotol. Returns 2 * 10 - (-1) = 21. */
static void build_signed_ops(struct gs_asm *a)
{
	int16_t byte = gs_asm_slot(a, "byte", 1, 1);
	struct gs_label quotient_ok = gs_asm_label(a, "quotient_ok");
	struct gs_label out = gs_asm_label(a, "out");

	gs_asm_note(a, "byte = 0x80; r2 = *(s8 *)&byte is -128");
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, byte, 0x80));
	gs_asm_emit(a, GS_LDX_MEMSX(BPF_B, GS_R2, GS_FP, byte));
	gs_asm_note(a, "r2 s/= 4 is -32");
	gs_asm_emit(a, GS_SDIV64_IMM(GS_R2, 4));
	gs_asm_note(a, "r4 = (s16)0xfff0 is -16");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 0xfff0));
	gs_asm_emit(a, GS_MOVSX64_REG(GS_R4, GS_R4, 16));
	gs_asm_note(a, "r2 s/= r4 is 2");
	gs_asm_emit(a, GS_SDIV64_REG(GS_R2, GS_R4));
	gs_asm_note(a, "r5 = -7 s% 3 is -1 (sign of the dividend)");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R5, -7));
	gs_asm_emit(a, GS_SMOD64_IMM(GS_R5, 3));
	gs_asm_note(a, "quotient must be 2, else return 0 via gotol");
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 2, quotient_ok);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_gotol(a, out);
	gs_asm_bind(a, quotient_ok);
	gs_asm_note(a, "r0 = r2 * 10 - r5 = 21");
	gs_asm_emit(a, GS_MOV64_REG(GS_R0, GS_R2));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R0, 10));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R0, GS_R5));
	gs_asm_bind(a, out);
	gs_asm_note(a, "return r0");
	gs_asm_emit(a, GS_EXIT());
}

/* Atomics on a map value { u64 count; u64 last; u64 state; }: fetch_add,
 * xchg and cmpxchg (which compares with r0). Returns count + last + state
 * after one run: 1 + 42 + 7 = 50. */
static void build_atomics(struct gs_asm *a)
{
	uint32_t stats = gs_asm_map(a, "stats");
	struct gs_label miss = gs_asm_label(a, "lookup_miss");

	lookup_key0(a, stats);
	gs_asm_note(a, "a miss returns NULL");
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, miss);
	gs_asm_note(a, "r6 = value: cmpxchg needs r0");
	gs_asm_emit(a, GS_MOV64_REG(GS_R6, GS_R0));
	gs_asm_note(a, "r1 = atomic_fetch_add(&v->count, 1)");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 1));
	gs_asm_emit(a, GS_ATOMIC_FETCH_ADD(BPF_DW, GS_R6, GS_R1, 0));
	gs_asm_note(a, "r2 = xchg(&v->last, 42)");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 42));
	gs_asm_emit(a, GS_ATOMIC_XCHG(BPF_DW, GS_R6, GS_R2, 8));
	gs_asm_note(a, "r0 = cmpxchg(&v->state, 0, 7)");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 7));
	gs_asm_emit(a, GS_ATOMIC_CMPXCHG(BPF_DW, GS_R6, GS_R3, 16));
	gs_asm_note(a, "return count + last + state");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_R6, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, 8));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, 16));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, miss);
	gs_asm_note(a, "miss: return 0");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

/* Byte swaps: unconditional bswap64/bswap32 (cpu v4) and the host-relative
 * be16/le32, XORed together. On a little-endian host that is
 * 0x08070605 ^ 0x44332211 ^ 0x3412 ^ 0x55667788. */
static void build_byte_swap(struct gs_asm *a)
{
	gs_asm_note(a, "r6 = bswap64(0x0102030405060708) >> 32: 0x08070605");
	gs_asm_ld_imm64(a, GS_R6, 0x0102030405060708ull);
	gs_asm_emit(a, GS_BSWAP(GS_R6, 64));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R6, 32));
	gs_asm_note(a, "r7 = bswap32(0x11223344): 0x44332211");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R7, 0x11223344));
	gs_asm_emit(a, GS_BSWAP(GS_R7, 32));
	gs_asm_note(a, "r8 = be16(0x1234): 0x3412 on little endian");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R8, 0x1234));
	gs_asm_emit(a, GS_TO_BE(GS_R8, 16));
	gs_asm_note(a, "r9 = le32(0x1122334455667788): keeps the low word 0x55667788");
	gs_asm_ld_imm64(a, GS_R9, 0x1122334455667788ull);
	gs_asm_emit(a, GS_TO_LE(GS_R9, 32));
	gs_asm_note(a, "return r6 ^ r7 ^ r8 ^ r9");
	gs_asm_emit(a, GS_MOV64_REG(GS_R0, GS_R6));
	gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, GS_R0, GS_R7));
	gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, GS_R0, GS_R8));
	gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, GS_R0, GS_R9));
	gs_asm_emit(a, GS_EXIT());
}

/* A bpf-to-bpf call to a subprogram after the main program's exit.
 * Returns add_pair(20, 22) = 42. */
static void build_subprog_call(struct gs_asm *a)
{
	struct gs_label add_pair = gs_asm_label(a, "add_pair");

	gs_asm_note(a, "r0 = add_pair(20, 22)");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 20));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 22));
	gs_asm_call_label(a, add_pair);
	gs_asm_note(a, "return it");
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, add_pair);
	gs_asm_note(a, "add_pair(a, b): return a + b");
	gs_asm_emit(a, GS_MOV64_REG(GS_R0, GS_R1));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R0, GS_R2));
	gs_asm_emit(a, GS_EXIT());
}

/* A 64-bit constant in one ld_imm64. Returns its low word 0x9abcdef0 when
 * the high word arrived intact, else 0. */
static void build_ld_imm64_const(struct gs_asm *a)
{
	struct gs_label wrong = gs_asm_label(a, "high_word_wrong");

	gs_asm_note(a, "r0 = 0x123456789abcdef0");
	gs_asm_ld_imm64(a, GS_R0, 0x123456789abcdef0ull);
	gs_asm_note(a, "its high word must be 0x12345678");
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 32));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0x12345678, wrong);
	gs_asm_note(a, "return r0 (the caller sees the low word)");
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, wrong);
	gs_asm_note(a, "high word lost: return 0");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

/* A kprobe-type program (the type uprobes use too) sending
 * { pid_tgid, timestamp } through a perf event array on this CPU. */
static void build_perf_event_output(struct gs_asm *a)
{
	uint32_t perf_events = gs_asm_map(a, "perf_events");
	int16_t ev = gs_asm_slot(a, "event", 16, sizeof(uint64_t));

	gs_asm_note(a, "r6 = ctx (struct pt_regs *): helpers clobber r1");
	gs_asm_emit(a, GS_MOV64_REG(GS_R6, GS_R1));
	gs_asm_note(a, "event.pid_tgid = bpf_get_current_pid_tgid()");
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, ev));
	gs_asm_note(a, "event.ts = bpf_ktime_get_ns()");
	gs_asm_call(a, BPF_FUNC_ktime_get_ns);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, ev + 8));
	gs_asm_note(a, "bpf_perf_event_output(ctx, &perf_events, BPF_F_CURRENT_CPU, &event, 16)");
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R6));
	gs_asm_ld_map(a, GS_R2, perf_events);
	/* A 64-bit mov of -1 would sign-extend past the flag's 32 bits. */
	gs_asm_ld_imm64(a, GS_R3, BPF_F_CURRENT_CPU);
	stack_ptr(a, GS_R4, ev);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R5, 16));
	gs_asm_call(a, BPF_FUNC_perf_event_output);
	gs_asm_note(a, "return 0");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

/* Broken: returns r3, which nothing wrote (a register-allocation slip).
 * The kernel says "R3 !read_ok". */
static void build_broken_unset_reg(struct gs_asm *a)
{
	gs_asm_note(a, "r2 = skb->len");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R1, SKB_LEN));
	gs_asm_note(a, "return len, but from the wrong register");
	gs_asm_emit(a, GS_MOV64_REG(GS_R0, GS_R3));
	gs_asm_emit(a, GS_EXIT());
}

/* Broken: one branch forgets its exit and runs off the end of the
 * program. The kernel says "last insn is not an exit or jmp". */
static void build_broken_fall_off_end(struct gs_asm *a)
{
	struct gs_label runt = gs_asm_label(a, "runt");

	gs_asm_note(a, "r0 = skb->len");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R0, GS_R1, SKB_LEN));
	gs_asm_note(a, "shorter than an Ethernet header?");
	gs_asm_jmp_imm(a, BPF_JLT, GS_R0, 14, runt);
	gs_asm_note(a, "return len");
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, runt);
	gs_asm_note(a, "runt: r0 = 0, and no exit after it");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
}

#define SOCK BPF_PROG_TYPE_SOCKET_FILTER
#define KPROBE BPF_PROG_TYPE_KPROBE

const struct gs_test_prog gs_test_progs[] = {
	{ .name = "straight_line", .type = SOCK, .build = build_straight_line },
	{ .name = "loop_sum", .type = SOCK, .build = build_loop_sum },
	{ .name = "array_lookup", .type = SOCK, .build = build_array_lookup,
	  .maps = { { "counters", BPF_MAP_TYPE_ARRAY, 4, 8, 4 } }, .nmaps = 1 },
	{ .name = "ringbuf_output", .type = SOCK, .build = build_ringbuf_output,
	  /* Ring buffers have no key or value; the size is a power-of-2
	   * multiple of the page size. */
	  .maps = { { "events", BPF_MAP_TYPE_RINGBUF, 0, 0, 65536 } }, .nmaps = 1 },
	{ .name = "percpu_counter", .type = SOCK, .build = build_percpu_counter,
	  .maps = { { "hits", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1 } }, .nmaps = 1 },
	{ .name = "tail_call", .type = SOCK, .build = build_tail_call,
	  .maps = { { "jump_table", BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 1 } }, .nmaps = 1,
	  .needs_tail_target = true },
	{ .name = "map_value_direct", .type = SOCK, .build = build_map_value_direct,
	  /* Direct value access needs an array with exactly one entry. */
	  .maps = { { "config", BPF_MAP_TYPE_ARRAY, 4, 16, 1 } }, .nmaps = 1 },
	{ .name = "alu32_jmp32", .type = SOCK, .build = build_alu32_jmp32 },
	{ .name = "signed_ops", .type = SOCK, .build = build_signed_ops },
	{ .name = "atomics", .type = SOCK, .build = build_atomics,
	  .maps = { { "stats", BPF_MAP_TYPE_ARRAY, 4, 24, 1 } }, .nmaps = 1 },
	{ .name = "byte_swap", .type = SOCK, .build = build_byte_swap },
	{ .name = "subprog_call", .type = SOCK, .build = build_subprog_call },
	{ .name = "ld_imm64_const", .type = SOCK, .build = build_ld_imm64_const },
	{ .name = "perf_event_output", .type = KPROBE, .build = build_perf_event_output,
	  /* max_entries 0: one slot per possible CPU, filled in at load time. */
	  .maps = { { "perf_events", BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 0 } }, .nmaps = 1 },
	{ .name = "broken_unset_reg", .type = SOCK, .build = build_broken_unset_reg,
	  .broken = true, .check_error = "reads r3 before it is written" },
	{ .name = "broken_fall_off_end", .type = SOCK, .build = build_broken_fall_off_end,
	  .broken = true, .check_error = "falls off the end of the program" },
};

const size_t gs_test_nprogs = BASE_ARRAY_SIZE(gs_test_progs);

int gs_test_prog_build(const struct gs_test_prog *prog, struct gs_asm *a, struct gs_error *err)
{
	prog->build(a);
	return gs_asm_finish(a, err);
}
