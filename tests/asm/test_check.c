/* The static checker against small programs, written as a table in the style
 * of the kernel's verifier selftests: each row is a name, the instructions,
 * and either NULL (accepted) or the instruction index and reason the
 * checker must report. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/insn.h>

#include "base.h"

#define MAX_INSNS 16

struct check_case {
	const char *name;
	struct bpf_insn insns[MAX_INSNS];
	size_t n;
	int at;             /* index the message must name */
	const char *errstr; /* reason it must contain; NULL: accepted */
};

/* The instruction count of a row, after expansion (an ld_imm64 counts 2). */
#define NARGS(...) NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
	       N, ...) N
#define PROG(...) .insns = { __VA_ARGS__ }, .n = NARGS(__VA_ARGS__)

#define R0 GS_R0
#define R1 GS_R1
#define R2 GS_R2
#define R3 GS_R3
#define R4 GS_R4
#define R5 GS_R5
#define R6 GS_R6
#define R7 GS_R7
#define R9 GS_R9
#define R10 GS_R10

static const struct check_case cases[] = {
	/* Accepted programs. */
	{ "straight_line_program_is_accepted",
	  PROG(GS_MOV64_IMM(R0, 0), GS_ALU64_IMM(BPF_ADD, R0, 1), GS_EXIT()) },
	{ "bounded_backward_loop_is_accepted",
	  PROG(GS_MOV64_IMM(R0, 0),
	       GS_ALU64_IMM(BPF_ADD, R0, 1),
	       GS_JMP_IMM(BPF_JLT, R0, 10, -2),
	       GS_EXIT()) },
	{ "register_written_on_both_branches_is_defined_at_the_join",
	  PROG(GS_JMP_IMM(BPF_JEQ, R1, 0, 2),
	       GS_MOV64_IMM(R3, 1),
	       GS_JA(1),
	       GS_MOV64_IMM(R3, 2),
	       GS_MOV64_REG(R0, R3),
	       GS_EXIT()) },
	{ "ld_imm64_then_use_is_accepted",
	  PROG(GS_LD_IMM64(R2, 0x123456789ULL),
	       GS_MOV64_REG(R0, R2),
	       GS_EXIT()) },
	{ "jump_over_ld_imm64_is_accepted",
	  PROG(GS_MOV64_IMM(R0, 0),
	       GS_JMP_IMM(BPF_JEQ, R1, 0, 2),
	       GS_LD_MAP_FD(R2, 3),
	       GS_GOTOL(0),
	       GS_JMP32_REG(BPF_JNE, R0, R1, 0),
	       GS_EXIT()) },
	{ "pseudo_call_to_subprogram_is_accepted",
	  PROG(GS_MOV64_REG(R6, R1),
	       GS_MOV64_IMM(R5, 7),
	       GS_CALL_BPF(4),
	       GS_MOV64_REG(R1, R6), /* the first call clobbered r1..r5 */
	       GS_MOV64_IMM(R5, 8),
	       GS_CALL_BPF(1),
	       GS_EXIT(),
	       /* subprogram: its arguments are the r1..r5 every caller wrote */
	       GS_MOV64_REG(R2, R1),
	       GS_MOV64_REG(R0, R5),
	       GS_EXIT()) },
	/* (the kernel also wants BTF func_info for a callback; the checker
	 * only needs to know its body is reachable) */
	{ "callback_referenced_by_ld_imm64_is_reachable",
	  PROG(GS_LD_IMM64_RAW(R2, BPF_PSEUDO_FUNC, 6),
	       GS_MOV64_IMM(R1, 10),
	       GS_MOV64_IMM(R3, 0),
	       GS_MOV64_IMM(R4, 0),
	       GS_CALL_HELPER(181), /* bpf_loop */
	       GS_EXIT(),
	       GS_MOV64_IMM(R0, 0),
	       GS_EXIT()) },
	{ "atomics_on_the_stack_are_accepted",
	  PROG(GS_MOV64_IMM(R1, 1),
	       GS_STX_MEM(BPF_DW, R10, R1, -8),
	       GS_ATOMIC_ADD(BPF_DW, R10, R1, -8),
	       GS_ATOMIC_FETCH_OR(BPF_DW, R10, R1, -8),
	       GS_MOV64_IMM(R0, 0),
	       GS_ATOMIC_CMPXCHG(BPF_DW, R10, R1, -8),
	       GS_ATOMIC_XCHG(BPF_W, R10, R1, -4),
	       GS_ST_MEM(BPF_W, R10, -512, 0),
	       GS_EXIT()) },
	{ "helper_call_with_map_lookup_is_accepted",
	  PROG(GS_MOV64_REG(R6, R1),
	       GS_ST_MEM(BPF_DW, R10, -8, 0),
	       GS_LD_MAP_FD(R1, 3),
	       GS_MOV64_REG(R2, R10),
	       GS_ALU64_IMM(BPF_ADD, R2, -8),
	       GS_CALL_HELPER(1),
	       GS_JMP_IMM(BPF_JEQ, R0, 0, 1),
	       GS_LDX_MEM(BPF_DW, R0, R0, 0),
	       GS_LD_ABS(BPF_H, 12),
	       GS_EXIT()) },
	{ "every_alu_form_is_accepted",
	  PROG(GS_MOV64_IMM(R2, -5),
	       GS_MOVSX64_REG(R0, R2, 32),
	       GS_MOVSX32_REG(R0, R0, 16),
	       GS_BSWAP(R0, 64),
	       GS_TO_BE(R0, 16),
	       GS_SDIV64_IMM(R0, 3),
	       GS_SMOD32_REG(R0, R2),
	       GS_NEG64(R0),
	       GS_ALU32_IMM(BPF_LSH, R0, 31),
	       GS_ALU64_IMM(BPF_ARSH, R0, 63),
	       GS_ST_MEM(BPF_W, R10, -8, 7),
	       GS_LDX_MEMSX(BPF_W, R2, R10, -8),
	       GS_EXIT()) },

	/* a. malformed instructions */
	{ "unknown_alu_opcode_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_INSN(BPF_ALU64 | 0xe0 | BPF_K, R0, 0, 0, 0), GS_EXIT()),
	  .at = 1, .errstr = "unknown opcode 0xe7 in the alu64 class" },
	{ "src_reg_on_immediate_alu_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_INSN(BPF_ALU64 | BPF_ADD | BPF_K, R0, R1, 0, 1), GS_EXIT()),
	  .at = 1, .errstr = "reserved field src_reg is 1, must be 0" },
	{ "off_on_plain_alu_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_INSN(BPF_ALU64 | BPF_ADD | BPF_X, R0, R1, 4, 0), GS_EXIT()),
	  .at = 1, .errstr = "reserved field off is 4, must be 0" },
	{ "byte_swap_of_24_bits_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_TO_BE(R0, 24), GS_EXIT()),
	  .at = 1, .errstr = "byte swap width 24 is not 16, 32 or 64" },
	{ "sign_extending_load_of_a_double_word_is_rejected",
	  PROG(GS_LDX_MEMSX(BPF_DW, R0, R1, 0), GS_EXIT()),
	  .at = 0, .errstr = "unknown opcode 0x99 in the ldx class" },
	{ "atomic_subtract_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_ATOMIC(BPF_DW, BPF_SUB, R10, R0, -8), GS_EXIT()),
	  .at = 1, .errstr = "atomic operation imm=0x10 is not" },
	{ "atomic_on_a_byte_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_ATOMIC_ADD(BPF_B, R10, R0, -8), GS_EXIT()),
	  .at = 1, .errstr = "atomic operations take a word or double word, not 1 bytes" },
	{ "register_r11_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_MOV64_REG(11, R0), GS_EXIT()),
	  .at = 1, .errstr = "register r11 does not exist" },
	{ "ld_imm64_without_second_slot_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_EXIT(), GS_INSN(BPF_LD | BPF_DW | BPF_IMM, R1, 0, 0, 5)),
	  .at = 2, .errstr = "ld_imm64 has no second slot" },
	{ "ld_imm64_with_a_register_in_its_second_slot_is_rejected",
	  PROG(GS_INSN(BPF_LD | BPF_DW | BPF_IMM, R0, 0, 0, 5), GS_INSN(0, R1, 0, 0, 0), GS_EXIT()),
	  .at = 0, .errstr = "second slot of ld_imm64 must be zero but for imm" },
	{ "ld_imm64_of_unknown_kind_is_rejected",
	  PROG(GS_LD_IMM64_RAW(R0, 7, 1), GS_EXIT()),
	  .at = 0, .errstr = "ld_imm64 kind src_reg=7 is not one of 0..6" },
	{ "call_of_unknown_kind_is_rejected",
	  PROG(GS_INSN(BPF_JMP | BPF_CALL, 0, 3, 0, 1), GS_EXIT()),
	  .at = 0, .errstr = "call kind src_reg=3" },
	{ "exit_in_jmp32_class_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_INSN(BPF_JMP32 | BPF_EXIT, 0, 0, 0, 0)),
	  .at = 1, .errstr = "unknown opcode 0x96 in the jmp32 class" },

	/* b. r10 written */
	{ "move_into_r10_is_rejected",
	  PROG(GS_MOV64_IMM(R10, 0), GS_MOV64_IMM(R0, 0), GS_EXIT()),
	  .at = 0, .errstr = "writes r10, the read-only frame pointer" },
	{ "load_into_r10_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_LDX_MEM(BPF_DW, R10, R1, 0), GS_EXIT()),
	  .at = 1, .errstr = "writes r10" },
	{ "atomic_fetch_into_r10_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_ATOMIC_FETCH_ADD(BPF_DW, R1, R10, 0), GS_EXIT()),
	  .at = 1, .errstr = "writes r10" },

	/* c. jump and call targets */
	{ "jump_past_end_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_JMP_IMM(BPF_JEQ, R1, 0, 5), GS_EXIT()),
	  .at = 1, .errstr = "jump target 7 is outside the program (0..2)" },
	{ "jump_before_start_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_JA(-3), GS_EXIT()),
	  .at = 1, .errstr = "jump target -1 is outside the program (0..2)" },
	{ "gotol_past_end_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_GOTOL(100000), GS_EXIT()),
	  .at = 1, .errstr = "jump target 100002 is outside the program" },
	{ "call_past_end_is_rejected",
	  PROG(GS_CALL_BPF(10), GS_EXIT()),
	  .at = 0, .errstr = "call target 11 is outside the program (0..1)" },
	{ "jump_into_second_half_of_ld_imm64_is_rejected",
	  PROG(GS_JMP_IMM(BPF_JEQ, R1, 0, 1), GS_LD_IMM64(R0, 1), GS_EXIT()),
	  .at = 0, .errstr = "jump target 2 is the second half of the ld_imm64 at insn 1" },
	{ "jump_into_another_subprogram_is_rejected",
	  PROG(GS_CALL_BPF(2), GS_JA(1), GS_EXIT(),
	       GS_MOV64_IMM(R0, 0), GS_EXIT()),
	  .at = 1, .errstr = "jump target 3 is in the subprogram at insn 3, not in this one (at insn 0)" },

	/* d. division by zero and shift counts */
	{ "division_by_immediate_zero_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 1), GS_ALU64_IMM(BPF_DIV, R0, 0), GS_EXIT()),
	  .at = 1, .errstr = "division by immediate zero" },
	{ "signed_modulo_by_immediate_zero_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 1), GS_SMOD32_IMM(R0, 0), GS_EXIT()),
	  .at = 1, .errstr = "modulo by immediate zero" },
	{ "shift_of_64_bits_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 1), GS_ALU64_IMM(BPF_LSH, R0, 64), GS_EXIT()),
	  .at = 1, .errstr = "shift by 64 is out of range for a 64-bit shift (0..63)" },
	{ "shift_of_32_bits_in_alu32_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 1), GS_ALU32_IMM(BPF_RSH, R0, 32), GS_EXIT()),
	  .at = 1, .errstr = "shift by 32 is out of range for a 32-bit shift (0..31)" },
	{ "negative_shift_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 1), GS_ALU64_IMM(BPF_ARSH, R0, -1), GS_EXIT()),
	  .at = 1, .errstr = "shift by -1 is out of range" },

	/* e. stack accesses outside the frame */
	{ "store_straddling_r10_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_ST_MEM(BPF_DW, R10, -4, 0), GS_EXIT()),
	  .at = 1, .errstr = "stack access of 8 bytes at r10-4 is outside the frame (r10-512 to r10)" },
	{ "load_below_512_bytes_is_rejected",
	  PROG(GS_LDX_MEM(BPF_W, R0, R10, -516), GS_EXIT()),
	  .at = 0, .errstr = "stack access of 4 bytes at r10-516 is outside the frame" },
	{ "atomic_above_the_frame_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_ATOMIC_ADD(BPF_DW, R10, R0, 0), GS_EXIT()),
	  .at = 1, .errstr = "stack access of 8 bytes at r10+0 is outside the frame" },
	{ "misaligned_stack_store_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_STX_MEM(BPF_DW, R10, R0, -12), GS_EXIT()),
	  .at = 1, .errstr = "stack access of 8 bytes at r10-12 is not aligned to its size" },

	/* f. paths that do not end in exit */
	{ "falling_off_the_end_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0)),
	  .at = 0, .errstr = "falls off the end of the program: every path must end in exit" },
	{ "branch_that_falls_off_the_end_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_JMP_IMM(BPF_JEQ, R1, 0, 1), GS_EXIT(), GS_MOV64_IMM(R0, 1)),
	  .at = 3, .errstr = "falls off the end" },
	{ "ld_imm64_at_the_end_falls_off",
	  PROG(GS_MOV64_IMM(R0, 0), GS_LD_IMM64(R0, 1)),
	  .at = 1, .errstr = "falls off the end" },
	{ "main_program_running_into_a_subprogram_is_rejected",
	  PROG(GS_MOV64_IMM(R1, 0), GS_CALL_BPF(1), GS_MOV64_IMM(R0, 0),
	       GS_MOV64_IMM(R0, 1), GS_EXIT()),
	  .at = 2, .errstr = "falls through into the subprogram at insn 3" },

	/* g. unreachable instructions */
	{ "code_after_exit_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_EXIT(), GS_MOV64_IMM(R0, 1), GS_EXIT()),
	  .at = 2, .errstr = "unreachable" },
	{ "code_skipped_by_ja_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_JA(1), GS_MOV64_IMM(R0, 1), GS_EXIT()),
	  .at = 2, .errstr = "unreachable" },

	/* h. registers read before they are written */
	{ "read_of_never_written_register_is_rejected",
	  PROG(GS_MOV64_REG(R0, R2), GS_EXIT()),
	  .at = 0, .errstr = "reads r2 before it is written on every path" },
	{ "register_written_on_one_path_only_is_rejected",
	  PROG(GS_JMP_IMM(BPF_JEQ, R1, 0, 1),
	       GS_MOV64_IMM(R3, 1),
	       GS_MOV64_REG(R0, R3),
	       GS_EXIT()),
	  .at = 2, .errstr = "reads r3 before it is written on every path" },
	{ "register_written_only_inside_a_loop_is_rejected_after_it",
	  PROG(GS_LDX_MEM(BPF_W, R2, R1, 0), /* unknown start: the body may not run */
	       GS_JMP_IMM(BPF_JGE, R2, 10, 3),
	       GS_MOV64_IMM(R3, 1),
	       GS_ALU64_IMM(BPF_ADD, R2, 1),
	       GS_JA(-4),
	       GS_MOV64_REG(R0, R3),
	       GS_EXIT()),
	  .at = 5, .errstr = "reads r3 before it is written" },
	{ "helper_call_clobbers_r1",
	  PROG(GS_CALL_HELPER(5), GS_LDX_MEM(BPF_DW, R0, R1, 0), GS_EXIT()),
	  .at = 1, .errstr = "reads r1 before it is written" },
	{ "exit_with_r0_unset_is_rejected",
	  PROG(GS_MOV64_IMM(R1, 0), GS_EXIT()),
	  .at = 1, .errstr = "reads r0 before it is written on every path (exit returns r0)" },
	{ "subprogram_reading_callers_r6_is_rejected",
	  PROG(GS_MOV64_IMM(R6, 1), GS_CALL_BPF(1), GS_EXIT(),
	       GS_MOV64_REG(R0, R6), GS_EXIT()),
	  .at = 3, .errstr = "reads r6 before it is written" },
	{ "subprogram_argument_the_caller_did_not_write_is_rejected",
	  PROG(GS_MOV64_IMM(R2, 1),
	       GS_CALL_BPF(2),
	       GS_CALL_BPF(1), /* r2 clobbered by the first call */
	       GS_EXIT(),
	       GS_MOV64_REG(R0, R2),
	       GS_EXIT()),
	  .at = 4, .errstr = "reads r2 before it is written on every path" },
	{ "subprogram_returning_without_r0_is_rejected",
	  PROG(GS_CALL_BPF(1), GS_EXIT(), GS_MOV64_REG(R2, R1), GS_EXIT()),
	  .at = 3, .errstr = "reads r0 before it is written" },
	{ "ld_abs_without_context_in_r6_is_rejected",
	  PROG(GS_LD_ABS(BPF_W, 0), GS_EXIT()),
	  .at = 0, .errstr = "reads r6 before it is written" },
	{ "cmpxchg_with_r0_unset_is_rejected",
	  PROG(GS_MOV64_IMM(R1, 0),
	       GS_STX_MEM(BPF_DW, R10, R1, -8),
	       GS_ATOMIC_CMPXCHG(BPF_DW, R10, R1, -8),
	       GS_EXIT()),
	  .at = 2, .errstr = "reads r0 before it is written" },
	{ "store_of_unwritten_register_is_rejected",
	  PROG(GS_MOV64_IMM(R0, 0), GS_STX_MEM(BPF_DW, R10, R4, -8), GS_EXIT()),
	  .at = 1, .errstr = "reads r4 before it is written" },
};

static void run_case(void **state)
{
	const struct check_case *c = *state;
	struct gs_error err = { .code = 1, .msg = "stale" };
	char want[32];
	int ret = gs_check(c->insns, c->n, NULL, &err);

	assert_true(c->n <= MAX_INSNS);
	if (!c->errstr) {
		if (ret != 0)
			fail_msg("%s: expected acceptance, got: %s", c->name, err.msg);
		assert_int_equal(err.code, 0);
		assert_string_equal(err.msg, "");
		return;
	}
	if (ret == 0)
		fail_msg("%s: expected rejection with '%s', got acceptance", c->name, c->errstr);
	assert_int_equal(ret, -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	snprintf(want, sizeof(want), "insn %d (", c->at);
	if (!base_has_prefix(err.msg, want) || !strstr(err.msg, c->errstr))
		fail_msg("%s: expected '%s...%s', got: %s", c->name, want, c->errstr, err.msg);
}

static void test_empty_program_is_rejected(void **state)
{
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_check(NULL, 0, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "program is empty"));
}

static void test_program_over_the_kernel_limit_is_rejected(void **state)
{
	size_t n = GS_MAX_INSNS + 1;
	struct bpf_insn *insns = calloc(n, sizeof(*insns));
	struct gs_error err;

	(void)state;
	assert_non_null(insns);
	assert_int_equal(gs_check(insns, n, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "more than the kernel's limit of 1000000"));
	free(insns);
}

static void test_message_names_the_note(void **state)
{
	static const struct bpf_insn insns[] = {
		GS_MOV64_IMM(R0, 0),
		GS_JMP_IMM(BPF_JEQ, R1, 0, 40),
		GS_EXIT(),
	};
	static const char *const notes[] = { "prologue", "reserve check", NULL };
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_check(insns, 3, notes, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "insn 1 ("));
	assert_non_null(strstr(err.msg, "; note: reserve check): "
					"jump target 42 is outside the program (0..2)"));
}

static void test_null_error_is_allowed(void **state)
{
	static const struct bpf_insn bad[] = { GS_MOV64_REG(R0, R9), GS_EXIT() };
	static const struct bpf_insn good[] = { GS_MOV64_IMM(R0, 0), GS_EXIT() };

	(void)state;
	assert_int_equal(gs_check(bad, 2, NULL, NULL), -EINVAL);
	assert_int_equal(gs_check(good, 2, NULL, NULL), 0);
}

static void test_asm_check_reports_the_assemblers_note(void **state)
{
	struct gs_asm a;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	gs_asm_note(&a, "print arg0");
	gs_asm_emit(&a, GS_MOV64_REG(R0, R7));
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), 0);
	assert_int_equal(gs_asm_check(&a, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "insn 0 ("));
	assert_non_null(strstr(err.msg, "; note: print arg0): reads r7 before it is written"));
	gs_asm_fini(&a);
}

/* A long program of many small diamonds and loops, like generated code:
 * each block of 10 branches, writes r3 on both sides, loops r2 down, reads
 * r3 at the join and ends in a helper call that clobbers r1..r5. `broken`
 * drops one write of r3 in the last block. */
static struct bpf_insn *big_program(size_t blocks, bool broken, size_t *n)
{
	struct bpf_insn *p = calloc(blocks * 10 + 3, sizeof(*p));
	size_t i = 0, b;

	assert_non_null(p);
	p[i++] = GS_MOV64_REG(R6, R1);
	p[i++] = GS_MOV64_IMM(R0, 0);
	for (b = 0; b < blocks; b++) {
		p[i++] = GS_JMP_IMM(BPF_JEQ, R6, (int32_t)b, 2);
		p[i++] = GS_MOV64_IMM(R3, 1);
		p[i++] = GS_JA(1);
		p[i++] = (broken && b == blocks - 1) ? GS_MOV64_IMM(R4, 2) : GS_MOV64_IMM(R3, 2);
		p[i++] = GS_MOV64_IMM(R2, 4);
		p[i++] = GS_ALU64_IMM(BPF_SUB, R2, 1);
		p[i++] = GS_JMP_IMM(BPF_JNE, R2, 0, -2);
		p[i++] = GS_ALU64_REG(BPF_ADD, R0, R3);
		p[i++] = GS_STX_MEM(BPF_DW, R10, R0, -8);
		p[i++] = GS_CALL_HELPER(5);
	}
	p[i++] = GS_EXIT();
	*n = i;
	return p;
}

static void test_large_generated_program_is_accepted(void **state)
{
	size_t n;
	struct bpf_insn *p = big_program(10000, false, &n);
	struct gs_error err;

	(void)state;
	if (gs_check(p, n, NULL, &err))
		fail_msg("%s", err.msg);
	free(p);
}

static void test_large_generated_program_reports_its_last_block(void **state)
{
	size_t n;
	struct bpf_insn *p = big_program(10000, true, &n);
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_check(p, n, NULL, &err), -EINVAL);
	/* block 9999 starts at 2 + 99990; its join is 7 further on */
	assert_non_null(strstr(err.msg, "insn 99999 ("));
	assert_non_null(strstr(err.msg, "reads r3 before it is written"));
	free(p);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_empty_program_is_rejected),
		cmocka_unit_test(test_program_over_the_kernel_limit_is_rejected),
		cmocka_unit_test(test_message_names_the_note),
		cmocka_unit_test(test_null_error_is_allowed),
		cmocka_unit_test(test_asm_check_reports_the_assemblers_note),
		cmocka_unit_test(test_large_generated_program_is_accepted),
		cmocka_unit_test(test_large_generated_program_reports_its_last_block),
	};
	struct CMUnitTest table[BASE_ARRAY_SIZE(cases)];
	size_t i;
	int failed;

	for (i = 0; i < BASE_ARRAY_SIZE(cases); i++)
		table[i] = (struct CMUnitTest){ .name = cases[i].name, .test_func = run_case,
						.initial_state = (void *)&cases[i] };
	failed = cmocka_run_group_tests_name("check_table", table, NULL, NULL);
	failed += cmocka_run_group_tests_name("check", fixed, NULL, NULL);
	return failed != 0;
}
