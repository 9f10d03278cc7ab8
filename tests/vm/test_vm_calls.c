/* The VM's calls: bpf_loop with a callback loaded by ld_imm64 src=4 (the
 * kernel's return values, early stop, the ctx argument, what a callback
 * may return and read) and global subprograms described by BTF (only their
 * parameters passed, a scalar returned), as the bpf_loop walker uses them. */
#include <string.h>

#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/btf.h>

#include "vm_test.h"

#define CALLBACK(imm) GS_LD_IMM64_RAW(GS_R2, BPF_PSEUDO_FUNC, (uint32_t)(imm))

/* r0 = bpf_loop(7, callback, NULL, 0); the callback returns 0 each time. */
static void test_bpf_loop_runs_the_callback_n_times_and_returns_n(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(
		GS_MOV64_IMM(GS_R1, 7),
		CALLBACK(6),                 /* pc 1-2: the callback at pc 8 */
		GS_MOV64_IMM(GS_R3, 0),
		GS_MOV64_IMM(GS_R4, 0),
		GS_CALL_HELPER(BPF_FUNC_loop),
		GS_EXIT(),
		GS_EXIT(),                   /* pc 7: never reached */
		GS_MOV64_IMM(GS_R0, 0),      /* pc 8 */
		GS_EXIT())), 7);
	assert_int_equal(t->vm.stats.max_depth, 2);
	assert_int_equal(t->vm.stats.helper_calls, 1);
}

/* The callback sums its indices into the caller's fp-8 through ctx and
 * stops (returns 1) at index 4: bpf_loop returns 5 iterations. */
static void test_bpf_loop_passes_index_and_ctx_and_stops_on_1(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(
		GS_ST_MEM(BPF_DW, GS_FP, -8, 0),
		GS_MOV64_IMM(GS_R1, 100),
		CALLBACK(9),                 /* pc 2-3: the callback at pc 12 */
		GS_MOV64_REG(GS_R3, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R3, -8),
		GS_MOV64_IMM(GS_R4, 0),
		GS_CALL_HELPER(BPF_FUNC_loop),
		GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, -8),
		GS_ALU64_IMM(BPF_MUL, GS_R0, 1000),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1),
		GS_EXIT(),
		/* pc 12: *ctx += index; return index == 4 */
		GS_LDX_MEM(BPF_DW, GS_R3, GS_R2, 0),
		GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1),
		GS_STX_MEM(BPF_DW, GS_R2, GS_R3, 0),
		GS_MOV64_IMM(GS_R0, 0),
		GS_JMP_IMM(BPF_JNE, GS_R1, 4, 1),
		GS_MOV64_IMM(GS_R0, 1),
		GS_EXIT())), 5 * 1000 + (0 + 1 + 2 + 3 + 4));
}

static void test_bpf_loop_returns_the_kernels_errors_without_calling(void **state)
{
	struct vt *t = *state;
#define LOOP_OF(n, flags) PROG(                                                 \
		GS_MOV64_IMM(GS_R1, n), CALLBACK(6), GS_MOV64_IMM(GS_R3, 0),      \
		GS_MOV64_IMM(GS_R4, flags), GS_CALL_HELPER(BPF_FUNC_loop), GS_EXIT(), \
		GS_EXIT(), GS_MOV64_IMM(GS_R0, 2), GS_EXIT())

	/* the callback returns 2, which would stop the run if it were called */
	assert_int_equal(vt_eval(t, LOOP_OF(0, 0)), 0);
	assert_int_equal((int64_t)vt_eval(t, LOOP_OF(1, 1)), -EINVAL);
	assert_int_equal((int64_t)vt_eval(t, LOOP_OF((1 << 23) + 1, 0)), -E2BIG);
	assert_int_equal(t->vm.stats.max_depth, 1);
#undef LOOP_OF
}

static void test_bpf_loop_callback_must_return_0_or_1(void **state)
{
	vt_expect_error(*state, -EINVAL, "must return 0 (go on) or 1 (stop)", PROG(
		GS_MOV64_IMM(GS_R1, 3), CALLBACK(6), GS_MOV64_IMM(GS_R3, 0),
		GS_MOV64_IMM(GS_R4, 0), GS_CALL_HELPER(BPF_FUNC_loop), GS_EXIT(),
		GS_EXIT(), GS_MOV64_IMM(GS_R0, 2), GS_EXIT()));
}

/* A callback starts with r1, r2 and r10 only: not the caller's r6, not
 * its own r6 from the iteration before. */
static void test_bpf_loop_callback_sees_only_index_and_ctx(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -EINVAL, "source r6 was never written", PROG(
		GS_MOV64_IMM(GS_R6, 6), GS_MOV64_IMM(GS_R1, 2), CALLBACK(5),
		GS_MOV64_IMM(GS_R3, 0), GS_MOV64_IMM(GS_R4, 0), GS_CALL_HELPER(BPF_FUNC_loop),
		GS_EXIT(),
		GS_MOV64_REG(GS_R0, GS_R6), GS_EXIT()));
	vt_expect_error(t, -EINVAL, "source r6 was never written", PROG(
		GS_MOV64_IMM(GS_R1, 2), CALLBACK(5),
		GS_MOV64_IMM(GS_R3, 0), GS_MOV64_IMM(GS_R4, 0), GS_CALL_HELPER(BPF_FUNC_loop),
		GS_EXIT(),
		/* pc 7: index 0 sets r6; index 1 reads it */
		GS_JMP_IMM(BPF_JEQ, GS_R1, 0, 2),
		GS_MOV64_REG(GS_R0, GS_R6),
		GS_EXIT(),
		GS_MOV64_IMM(GS_R6, 0),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
}

/* The caller keeps its r6-r9 across bpf_loop; r1-r5 are gone after it. */
static void test_bpf_loop_preserves_r6_to_r9_and_clobbers_r1_to_r5(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(
		GS_MOV64_IMM(GS_R6, 6), GS_MOV64_IMM(GS_R9, 9), GS_MOV64_IMM(GS_R1, 3),
		CALLBACK(7), GS_MOV64_IMM(GS_R3, 0), GS_MOV64_IMM(GS_R4, 0),
		GS_CALL_HELPER(BPF_FUNC_loop),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R6), GS_ALU64_REG(BPF_ADD, GS_R0, GS_R9), GS_EXIT(),
		/* pc 11 */
		GS_MOV64_IMM(GS_R6, 100), GS_MOV64_IMM(GS_R9, 100), GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT())), 3 + 6 + 9);
	vt_expect_error(t, -EINVAL, "source r3 was never written", PROG(
		GS_MOV64_IMM(GS_R1, 1), CALLBACK(6), GS_MOV64_IMM(GS_R3, 0),
		GS_MOV64_IMM(GS_R4, 0), GS_CALL_HELPER(BPF_FUNC_loop),
		GS_MOV64_REG(GS_R0, GS_R3), GS_EXIT(), GS_MOV64_IMM(GS_R0, 0), GS_EXIT()));
}

static void test_bpf_loop_wants_a_callback_and_a_pointer_or_null_ctx(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -EINVAL, "r2 must be a callback", PROG(
		GS_MOV64_IMM(GS_R1, 1), GS_MOV64_IMM(GS_R2, 8), GS_MOV64_IMM(GS_R3, 0),
		GS_MOV64_IMM(GS_R4, 0), GS_CALL_HELPER(BPF_FUNC_loop), GS_EXIT()));
	vt_expect_error(t, -EINVAL, "neither NULL nor a pointer", PROG(
		GS_MOV64_IMM(GS_R1, 1), CALLBACK(5), GS_MOV64_IMM(GS_R3, 8),
		GS_MOV64_IMM(GS_R4, 0), GS_CALL_HELPER(BPF_FUNC_loop), GS_EXIT(),
		GS_EXIT(), GS_MOV64_IMM(GS_R0, 0), GS_EXIT()));
	vt_expect_error(t, -EINVAL, "starts no subprogram", PROG(
		CALLBACK(100), GS_MOV64_IMM(GS_R0, 0), GS_EXIT()));
	vt_expect_error(t, -EFAULT, "a callback is not memory", PROG(
		CALLBACK(2), GS_LDX_MEM(BPF_DW, GS_R0, GS_R2, 0), GS_EXIT(),
		GS_MOV64_IMM(GS_R0, 0), GS_EXIT()));
}

/* bpf_loop inside a subprogram inside bpf_loop: each takes a frame. */
static void test_bpf_loop_callbacks_count_as_call_frames(void **state)
{
	struct vt *t = *state;

	assert_int_equal(vt_eval(t, PROG(
		GS_MOV64_IMM(GS_R1, 2), CALLBACK(6), GS_MOV64_IMM(GS_R3, 0),
		GS_MOV64_IMM(GS_R4, 0), GS_CALL_HELPER(BPF_FUNC_loop), GS_EXIT(),
		GS_EXIT(),
		/* pc 8: the outer callback runs an inner loop of 3 */
		GS_MOV64_IMM(GS_R1, 3), CALLBACK(6), GS_MOV64_IMM(GS_R3, 0),
		GS_MOV64_IMM(GS_R4, 0), GS_CALL_HELPER(BPF_FUNC_loop),
		GS_MOV64_IMM(GS_R0, 0), GS_EXIT(),
		/* pc 16 */
		GS_MOV64_IMM(GS_R0, 0), GS_EXIT())), 2);
	assert_int_equal(t->vm.stats.max_depth, 3);
}

/* ---- global subprograms (BTF) --------------------------------------------- */

/* A program: main(ctx) calls global sub(a, p) with r1 = 5 and r2 = fp-8
 * (sub declares `int sub(int a, void *p)`), then `body` in sub. */
struct two_funcs {
	struct gs_asm a;
	struct gs_btf b;
	struct gs_label sub;
	uint32_t t_int, t_ptr;
};

static void two_funcs_begin(struct two_funcs *f, enum gs_btf_linkage linkage)
{
	uint32_t params[2];

	gs_asm_init(&f->a);
	gs_btf_init(&f->b);
	f->t_int = gs_btf_int(&f->b, "int", 4, true);
	f->t_ptr = gs_btf_ptr(&f->b, 0);
	params[0] = f->t_int;
	params[1] = f->t_ptr;
	f->sub = gs_asm_label(&f->a, "sub");
	gs_asm_func_begin(&f->a, gs_btf_func(&f->b, "main", gs_btf_func_proto(&f->b, f->t_int,
				&f->t_ptr, NULL, 1), GS_BTF_GLOBAL));
	gs_asm_emit(&f->a, GS_ST_MEM(BPF_DW, GS_FP, -8, 40));
	gs_asm_emit(&f->a, GS_MOV64_IMM(GS_R6, 1000));
	gs_asm_emit(&f->a, GS_MOV64_IMM(GS_R1, 5));
	gs_asm_emit(&f->a, GS_MOV64_REG(GS_R2, GS_FP));
	gs_asm_emit(&f->a, GS_ALU64_IMM(BPF_ADD, GS_R2, -8));
	gs_asm_emit(&f->a, GS_MOV64_IMM(GS_R3, 3));
	gs_asm_call_label(&f->a, f->sub);
	gs_asm_emit(&f->a, GS_ALU64_REG(BPF_ADD, GS_R0, GS_R6));
	gs_asm_emit(&f->a, GS_EXIT());
	gs_asm_func_begin(&f->a, gs_btf_func(&f->b, "sub", gs_btf_func_proto(&f->b, f->t_int,
				params, NULL, 2), linkage));
	gs_asm_bind(&f->a, f->sub);
}

/* Runs the program; gs_vm_run()'s result. */
static int two_funcs_run(struct vt *t, struct two_funcs *f)
{
	int prog;

	if (gs_asm_finish(&f->a, &t->err))
		fail_msg("gs_asm_finish: %s", t->err.msg);
	prog = gs_vm_load_asm_btf(&t->vm, &f->a, &f->b, NULL, &t->err);
	if (prog < 0)
		fail_msg("gs_vm_load_asm_btf: %s", t->err.msg);
	gs_asm_fini(&f->a);
	gs_btf_fini(&f->b);
	return vt_run_prog(t, prog);
}

static void test_global_subprogram_gets_its_parameters_and_keeps_r6(void **state)
{
	struct vt *t = *state;
	struct two_funcs f;

	two_funcs_begin(&f, GS_BTF_GLOBAL);
	gs_asm_emit(&f.a, GS_LDX_MEM(BPF_DW, GS_R0, GS_R2, 0));
	gs_asm_emit(&f.a, GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1));
	gs_asm_emit(&f.a, GS_MOV64_IMM(GS_R6, 0));
	gs_asm_emit(&f.a, GS_EXIT());
	assert_int_equal(two_funcs_run(t, &f), 0);
	assert_int_equal(t->r0, 1000 + 40 + 5);
}

/* r3 is not a parameter of sub: the verifier checks sub without it. */
static void test_global_subprogram_cannot_read_past_its_parameters(void **state)
{
	struct vt *t = *state;
	struct two_funcs f;

	two_funcs_begin(&f, GS_BTF_GLOBAL);
	gs_asm_emit(&f.a, GS_MOV64_REG(GS_R0, GS_R3));
	gs_asm_emit(&f.a, GS_EXIT());
	assert_int_equal(two_funcs_run(t, &f), -EINVAL);
	assert_non_null(strstr(t->err.msg, "source r3 was never written"));
	/* the same body in a static subprogram is verified with its caller */
	two_funcs_begin(&f, GS_BTF_STATIC);
	gs_asm_emit(&f.a, GS_MOV64_REG(GS_R0, GS_R3));
	gs_asm_emit(&f.a, GS_EXIT());
	assert_int_equal(two_funcs_run(t, &f), 0);
	assert_int_equal(t->r0, 1000 + 3);
}

static void test_global_subprogram_returns_a_scalar(void **state)
{
	struct vt *t = *state;
	struct two_funcs f;

	two_funcs_begin(&f, GS_BTF_GLOBAL);
	gs_asm_emit(&f.a, GS_MOV64_REG(GS_R0, GS_R2));
	gs_asm_emit(&f.a, GS_EXIT());
	assert_int_equal(two_funcs_run(t, &f), -EINVAL);
	assert_non_null(strstr(t->err.msg, "returns a pointer, not a scalar"));
}

/* sub's second parameter is a pointer: a scalar there is refused. */
static void test_global_subprogram_arguments_match_their_btf_types(void **state)
{
	struct vt *t = *state;
	struct two_funcs f;
	uint32_t params[2];

	gs_asm_init(&f.a);
	gs_btf_init(&f.b);
	f.t_int = gs_btf_int(&f.b, "int", 4, true);
	f.t_ptr = gs_btf_ptr(&f.b, 0);
	params[0] = f.t_int;
	params[1] = f.t_ptr;
	f.sub = gs_asm_label(&f.a, "sub");
	gs_asm_func_begin(&f.a, gs_btf_func(&f.b, "main", gs_btf_func_proto(&f.b, f.t_int,
				&f.t_ptr, NULL, 1), GS_BTF_GLOBAL));
	gs_asm_emit(&f.a, GS_MOV64_IMM(GS_R1, 5));
	gs_asm_emit(&f.a, GS_MOV64_IMM(GS_R2, 0x1000));
	gs_asm_call_label(&f.a, f.sub);
	gs_asm_emit(&f.a, GS_EXIT());
	gs_asm_func_begin(&f.a, gs_btf_func(&f.b, "sub", gs_btf_func_proto(&f.b, f.t_int,
				params, NULL, 2), GS_BTF_GLOBAL));
	gs_asm_bind(&f.a, f.sub);
	gs_asm_emit(&f.a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(&f.a, GS_EXIT());
	assert_int_equal(two_funcs_run(t, &f), -EINVAL);
	assert_non_null(strstr(t->err.msg, "argument r2 of the global subprogram at pc 4 must be "
				       "a pointer"));
}

/* With BTF, a call must land on a recorded subprogram. */
static void test_calls_land_on_btf_subprograms_only(void **state)
{
	struct vt *t = *state;
	struct two_funcs f;

	two_funcs_begin(&f, GS_BTF_GLOBAL);
	gs_asm_emit(&f.a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(&f.a, GS_CALL_BPF(0)); /* to the next instruction: no subprogram */
	gs_asm_emit(&f.a, GS_EXIT());
	assert_int_equal(two_funcs_run(t, &f), -EINVAL);
	assert_non_null(strstr(t->err.msg, "where the BTF starts no subprogram"));
}

int vt_run_call_tests(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, vt_setup, vt_teardown)
		T(test_bpf_loop_runs_the_callback_n_times_and_returns_n),
		T(test_bpf_loop_passes_index_and_ctx_and_stops_on_1),
		T(test_bpf_loop_returns_the_kernels_errors_without_calling),
		T(test_bpf_loop_callback_must_return_0_or_1),
		T(test_bpf_loop_callback_sees_only_index_and_ctx),
		T(test_bpf_loop_preserves_r6_to_r9_and_clobbers_r1_to_r5),
		T(test_bpf_loop_wants_a_callback_and_a_pointer_or_null_ctx),
		T(test_bpf_loop_callbacks_count_as_call_frames),
		T(test_global_subprogram_gets_its_parameters_and_keeps_r6),
		T(test_global_subprogram_cannot_read_past_its_parameters),
		T(test_global_subprogram_returns_a_scalar),
		T(test_global_subprogram_arguments_match_their_btf_types),
		T(test_calls_land_on_btf_subprograms_only),
#undef T
	};

	return cmocka_run_group_tests_name("vm-calls", tests, NULL, NULL);
}
