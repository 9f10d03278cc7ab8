/* The VM's memory safety: each access the verifier would not allow at run
 * time stops the run with a message naming the instruction -- stack past
 * its 512 bytes or misaligned, ctx writes and overruns, map value overruns
 * (even into the next value), NULL and scalar dereferences, registers never
 * written, helper buffers too small -- and pointers survive stack spills. */
#include <string.h>

#include "base.h"
#include "vm_test.h"

/* r0 = bpf_map_lookup_elem(map, &(u32){0}). */
#define LOOKUP_KEY0(fd)                                                        \
	GS_ST_MEM(BPF_W, GS_FP, -4, 0),                                         \
	GS_LD_MAP_FD(GS_R1, fd),                                                \
	GS_MOV64_REG(GS_R2, GS_FP),                                             \
	GS_ALU64_IMM(BPF_ADD, GS_R2, -4),                                       \
	GS_CALL_HELPER(BPF_FUNC_map_lookup_elem)

static void test_stack_access_below_512_bytes_fails(void **state)
{
	vt_expect_error(*state, -EFAULT,
			"write of 8 bytes at fp-520 is outside the 512-byte stack frame", PROG(
		GS_MOV64_IMM(GS_R0, 0),
		GS_STX_MEM(BPF_DW, GS_FP, GS_R0, -520),
		GS_EXIT()));
}

static void test_stack_access_at_or_above_fp_fails(void **state)
{
	vt_expect_error(*state, -EFAULT, "read of 1 bytes at fp+0 is outside", PROG(
		GS_LDX_MEM(BPF_B, GS_R0, GS_FP, 0),
		GS_EXIT()));
}

static void test_misaligned_stack_access_fails(void **state)
{
	vt_expect_error(*state, -EFAULT, "misaligned", PROG(
		GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, -12),
		GS_EXIT()));
}

static void test_ctx_is_read_only(void **state)
{
	vt_expect_error(*state, -EFAULT, "at ctx+8: the ctx is read-only", PROG(
		GS_ST_MEM(BPF_DW, GS_R1, 8, 0),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
}

static void test_ctx_read_past_its_size_fails(void **state)
{
	struct vt *t = *state;

	/* The last field of pt_regs reads fine, the next one does not. */
	assert_int_equal(vt_eval(t, PROG(GS_LDX_MEM(BPF_DW, GS_R0, GS_R1, 160), GS_EXIT())),
			 0xa7a6a5a4a3a2a1a0ull);
	vt_expect_error(t, -EFAULT, "read of 8 bytes at ctx+168 is outside the 168-byte ctx", PROG(
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R1, 168),
		GS_EXIT()));
	vt_expect_error(t, -EFAULT, "at ctx-8 is outside", PROG(
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R1, -8),
		GS_EXIT()));
}

static void test_map_value_overrun_fails_even_into_the_next_value(void **state)
{
	struct vt *t = *state;
	int fd = gs_vm_map_fd(vt_map(t, BPF_MAP_TYPE_ARRAY, "pair", 4, 8, 2));

	/* value 0 is followed in memory by value 1, but only 8 bytes are its */
	vt_expect_error(t, -EFAULT, "read of 8 bytes at value+8 of map 'pair' is outside the "
			"8-byte value of map 'pair'", PROG(
		LOOKUP_KEY0(fd),
		GS_JMP_IMM(BPF_JEQ, GS_R0, 0, 1),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R0, 8),
		GS_EXIT()));
	vt_expect_error(t, -EFAULT, "write of 4 bytes at value+6", PROG(
		LOOKUP_KEY0(fd),
		GS_JMP_IMM(BPF_JEQ, GS_R0, 0, 1),
		GS_ST_MEM(BPF_W, GS_R0, 6, 0),
		GS_EXIT()));
}

static void test_null_dereference_fails(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_HASH, "empty", 4, 8, 4);

	vt_expect_error(t, -EFAULT, "read of 8 bytes through r0, which is NULL", PROG(
		LOOKUP_KEY0(gs_vm_map_fd(map)),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R0, 0),
		GS_EXIT()));
}

static void test_scalar_dereference_fails(void **state)
{
	vt_expect_error(*state, -EFAULT, "through r1, which holds the scalar 0x1000, not a pointer",
			PROG(GS_MOV64_IMM(GS_R1, 0x1000),
			     GS_LDX_MEM(BPF_W, GS_R0, GS_R1, 0),
			     GS_EXIT()));
}

static void test_reading_a_register_never_written_fails(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -EINVAL, "source r3 was never written", PROG(
		GS_MOV64_REG(GS_R0, GS_R3),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "destination r2 was never written", PROG(
		GS_ALU64_IMM(BPF_ADD, GS_R2, 1),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "compared r4 was never written", PROG(
		GS_MOV64_IMM(GS_R0, 0),
		GS_JMP_IMM(BPF_JEQ, GS_R4, 0, 0),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "stored r5 was never written", PROG(
		GS_STX_MEM(BPF_DW, GS_FP, GS_R5, -8),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "the address r6 was never written", PROG(
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R6, 0),
		GS_EXIT()));
}

static void test_writing_r10_fails(void **state)
{
	vt_expect_error(*state, -EINVAL, "writes r10", PROG(
		GS_ALU64_IMM(BPF_ADD, GS_FP, -8),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
}

static void test_forbidden_pointer_arithmetic_fails(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -EINVAL, "pointer arithmetic with *= on r1", PROG(
		GS_ALU64_IMM(BPF_MUL, GS_R1, 2),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "32-bit arithmetic on r1", PROG(
		GS_ALU32_IMM(BPF_ADD, GS_R1, 2),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "both operands are pointers", PROG(
		GS_ALU64_REG(BPF_ADD, GS_R1, GS_FP),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
}

static void test_pointer_moves_and_offsets_keep_their_region(void **state)
{
	struct vt *t = *state;

	/* r2 = ctx + 16 - 8 + 8; fp - r3 (a pointer difference) is a scalar */
	assert_int_equal(vt_eval(t, PROG(
		GS_MOV64_REG(GS_R2, GS_R1),
		GS_ALU64_IMM(BPF_ADD, GS_R2, 16),
		GS_MOV64_IMM(GS_R3, 8),
		GS_ALU64_REG(BPF_SUB, GS_R2, GS_R3),
		GS_ALU64_REG(BPF_ADD, GS_R3, GS_R2),
		GS_LDX_MEM(BPF_B, GS_R0, GS_R3, 0),
		GS_MOV64_REG(GS_R4, GS_FP),
		GS_ALU64_REG(BPF_SUB, GS_R4, GS_FP),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R4),
		GS_EXIT())), 16);
	/* a 32-bit copy of a pointer is a scalar */
	vt_expect_error(t, -EFAULT, "not a pointer", PROG(
		GS_MOV32_REG(GS_R2, GS_R1),
		GS_LDX_MEM(BPF_B, GS_R0, GS_R2, 0),
		GS_EXIT()));
}

static void test_spilled_pointer_reloads_whole_and_only_whole(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(
		GS_STX_MEM(BPF_DW, GS_FP, GS_R1, -16),
		GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, -16),
		GS_LDX_MEM(BPF_B, GS_R0, GS_R2, 5),
		GS_EXIT())), 5);
	vt_expect_error(t, -EINVAL, "reads 4 bytes of a pointer spilled to the stack", PROG(
		GS_STX_MEM(BPF_DW, GS_FP, GS_R1, -16),
		GS_LDX_MEM(BPF_W, GS_R0, GS_FP, -16),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "spills 4 bytes of the pointer in r1", PROG(
		GS_STX_MEM(BPF_W, GS_FP, GS_R1, -16),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
	/* overwriting part of the slot leaves a scalar there */
	vt_expect_error(t, -EFAULT, "not a pointer", PROG(
		GS_STX_MEM(BPF_DW, GS_FP, GS_R1, -16),
		GS_ST_MEM(BPF_B, GS_FP, -9, 0),
		GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, -16),
		GS_LDX_MEM(BPF_B, GS_R0, GS_R2, 0),
		GS_EXIT()));
}

static void test_subprogram_cannot_return_its_stack(void **state)
{
	vt_expect_error(*state, -EINVAL, "returns a pointer to its own stack frame", PROG(
		GS_CALL_BPF(1),
		GS_EXIT(),
		GS_MOV64_REG(GS_R0, GS_FP),
		GS_EXIT()));
}

static void test_helper_buffer_must_fit_its_region(void **state)
{
	vt_expect_error(*state, -EFAULT,
			"bpf_probe_read_user writes 16 bytes at fp-8 is outside the 512-byte "
			"stack frame", PROG(
		GS_MOV64_REG(GS_R1, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R1, -8),
		GS_MOV64_IMM(GS_R2, 16),
		GS_MOV64_IMM(GS_R3, 0x1000),
		GS_CALL_HELPER(BPF_FUNC_probe_read_user),
		GS_EXIT()));
}

static void test_runaway_loop_hits_the_budget(void **state)
{
	struct vt *t = *state;

	t->vm.insn_budget = 1000;
	vt_expect_error(t, -ELOOP, "budget of 1000 instructions", PROG(
		GS_MOV64_IMM(GS_R0, 0),
		GS_JA(-1)));
	assert_int_equal(t->vm.stats.insns, 1000);
}

static void test_control_leaving_the_program_fails(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -EINVAL, "runs past the end of the program", PROG(
		GS_MOV64_IMM(GS_R0, 0)));
	vt_expect_error(t, -EINVAL, "jumps to pc 5, outside the 2-instruction program", PROG(
		GS_JA(4),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "second slot of the ld_imm64 at pc 1", PROG(
		GS_JA(1),
		GS_LD_IMM64(GS_R0, 1),
		GS_EXIT()));
}

static void test_error_names_pc_instruction_and_note(void **state)
{
	static const struct bpf_insn prog[] = {
		GS_MOV64_IMM(GS_R0, 0),
		GS_STX_MEM(BPF_DW, GS_FP, GS_R0, -520),
		GS_EXIT(),
	};
	static const char *const notes[] = { "r0 = 0", "spill past the frame", NULL };
	struct vt *t = *state;
	int p = gs_vm_add_prog(&t->vm, prog, BASE_ARRAY_SIZE(prog), notes, NULL);

	assert_int_equal(vt_run_prog(t, p), -EFAULT);
	assert_string_equal(t->err.msg,
			    "prog 0 pc 1: (7b) *(u64 *)(r10 -520) = r0: write of 8 bytes at fp-520 "
			    "is outside the 512-byte stack frame [fp-512, fp) "
			    "(note: spill past the frame)");
}

int vt_run_mem_tests(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, vt_setup, vt_teardown)
		T(test_stack_access_below_512_bytes_fails),
		T(test_stack_access_at_or_above_fp_fails),
		T(test_misaligned_stack_access_fails),
		T(test_ctx_is_read_only),
		T(test_ctx_read_past_its_size_fails),
		T(test_map_value_overrun_fails_even_into_the_next_value),
		T(test_null_dereference_fails),
		T(test_scalar_dereference_fails),
		T(test_reading_a_register_never_written_fails),
		T(test_writing_r10_fails),
		T(test_forbidden_pointer_arithmetic_fails),
		T(test_pointer_moves_and_offsets_keep_their_region),
		T(test_spilled_pointer_reloads_whole_and_only_whole),
		T(test_subprogram_cannot_return_its_stack),
		T(test_helper_buffer_must_fit_its_region),
		T(test_runaway_loop_hits_the_budget),
		T(test_control_leaving_the_program_fails),
		T(test_error_names_pc_instruction_and_note),
#undef T
	};

	return cmocka_run_group_tests_name("vm-memory", tests, NULL, NULL);
}
