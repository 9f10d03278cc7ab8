/* gs_program_build() as a library user meets it: options and their
 * defaults, the maps it declares, the side tables, instruction counts, and
 * clear errors for specs it cannot build. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/program.h>
#include "cg_specs.h"

static const struct gs_cg_case *find(const char *name)
{
	for (size_t i = 0; i < gs_cg_ncases; i++)
		if (strcmp(gs_cg_cases[i].name, name) == 0)
			return &gs_cg_cases[i];
	fail_msg("no case %s", name);
	return NULL;
}

static struct gs_program *build_ok(const char *name, enum gs_output_kind out)
{
	const struct gs_cg_case *c = find(name);
	struct gs_program_opts o = gs_cg_case_opts(c, out);
	struct gs_program *p = NULL;
	struct gs_error err;

	if (gs_program_build(c->spec, &o, &p, &err))
		fail_msg("%s: %s", name, err.msg);
	return p;
}

static void test_zero_options_give_the_reference_defaults(void **state)
{
	const struct gs_cg_case *c = find("print_literal");
	struct gs_program *p;

	(void)state;
	assert_int_equal(gs_program_build(c->spec, NULL, &p, NULL), 0);
	assert_int_equal(p->max_trace_event_size, 32768);
	assert_int_equal(p->nmaps, 3);
	assert_string_equal(p->maps[GS_MAP_OUTPUT].name, "ringbuf");
	assert_int_equal(p->maps[GS_MAP_OUTPUT].type, BPF_MAP_TYPE_RINGBUF);
	assert_int_equal(p->maps[GS_MAP_OUTPUT].max_entries, 262144);
	assert_string_equal(p->maps[GS_MAP_LOSS].name, "event_loss_counters");
	assert_int_equal(p->maps[GS_MAP_LOSS].type, BPF_MAP_TYPE_PERCPU_ARRAY);
	assert_int_equal(p->maps[GS_MAP_LOSS].value_size, 8);
	assert_string_equal(p->maps[GS_MAP_ACCUM].name, "event_accum_buffer");
	assert_int_equal(p->maps[GS_MAP_ACCUM].value_size, 32768);
	gs_program_free(p);
}

static void test_perf_mode_declares_the_events_array(void **state)
{
	struct gs_program *p = build_ok("print_literal", GS_OUTPUT_PERF);

	(void)state;
	assert_string_equal(p->maps[GS_MAP_OUTPUT].name, "events");
	assert_int_equal(p->maps[GS_MAP_OUTPUT].type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	assert_int_equal(p->maps[GS_MAP_OUTPUT].max_entries, 0);
	gs_program_free(p);
}

static void test_event_size_is_clamped_to_the_output_buffer(void **state)
{
	const struct gs_cg_case *c = find("print_literal");
	struct gs_program_opts o = { .sz = sizeof(o), .output = GS_OUTPUT_PERF,
				     .perf_page_count = 2 };
	struct gs_program *p;

	(void)state;
	assert_int_equal(gs_program_build(c->spec, &o, &p, NULL), 0);
	assert_int_equal(p->max_trace_event_size, 8192);
	assert_int_equal(p->maps[GS_MAP_ACCUM].value_size, 8192);
	gs_program_free(p);
}

static void test_event_size_past_the_per_cpu_limit_is_refused(void **state)
{
	const struct gs_cg_case *c = find("print_literal");
	struct gs_program_opts o = { .sz = sizeof(o), .max_trace_event_size = 65536 };
	struct gs_program *p;
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_program_build(c->spec, &o, &p, &err), -EINVAL);
	assert_null(p);
	assert_non_null(strstr(err.msg, "max_trace_event_size 65536"));
}

static void test_strings_and_names_land_in_the_context(void **state)
{
	struct gs_program *p = build_ok("print_format", GS_OUTPUT_RINGBUF);

	(void)state;
	assert_string_equal(gs_context_get_string(&p->ctx, 0), "pid={} tid={} ts={} rdi={:x}");
	assert_string_equal(gs_context_get_var_name(&p->ctx, 0), "$pid");
	assert_string_equal(gs_context_get_var_name(&p->ctx, 3), "rdi");
	assert_null(gs_context_get_var_name(&p->ctx, 4));
	gs_program_free(p);
}

static void test_if_counts_its_larger_branch_and_let_counts_nothing(void **state)
{
	struct gs_program *p = build_ok("if_else", GS_OUTPUT_RINGBUF);
	struct gs_program *q = build_ok("arith", GS_OUTPUT_RINGBUF);

	(void)state;
	assert_int_equal(p->total_instructions, 2); /* else-if branch prints twice */
	assert_int_equal(q->total_instructions, 1);
	gs_program_free(p);
	gs_program_free(q);
}

static void test_every_case_passes_the_static_checker(void **state)
{
	(void)state;
	for (size_t i = 0; i < gs_cg_ncases; i++) {
		struct gs_program *p = build_ok(gs_cg_cases[i].name, GS_OUTPUT_RINGBUF);
		struct gs_error err;

		if (gs_asm_check(&p->main, &err))
			fail_msg("%s: %s", gs_cg_cases[i].name, err.msg);
		gs_program_free(p);
	}
}

static int build_one(const struct gs_stmt *body, size_t n, struct gs_error *err)
{
	struct gs_trace_spec spec = { .trace_id = 9, .target = "t", .body = body, .nbody = n };
	struct gs_program *p = NULL;
	int rc = gs_program_build(&spec, NULL, &p, err);

	gs_program_free(p);
	return rc;
}

static void test_placeholder_count_must_match_arguments(void **state)
{
	static const struct gs_expr pid = { .kind = GS_EXPR_SPECIAL, .special = GS_SPECIAL_PID,
					    .text = "$pid" };
	static const struct gs_expr *const args[] = { &pid };
	struct gs_stmt s = { .kind = GS_STMT_PRINT_FORMAT, .text = "a={} b={} {{literal}}",
			     .args = args, .nargs = 1 };
	struct gs_error err;

	(void)state;
	assert_int_equal(build_one(&s, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "2 placeholders but 1 argument"));
}

static void test_xmm_and_unknown_registers_are_refused(void **state)
{
	static const struct gs_expr xmm = { .kind = GS_EXPR_REG, .reg = 17, .text = "xmm0" };
	static const struct gs_expr bad = { .kind = GS_EXPR_REG, .reg = 40, .text = "reg40" };
	struct gs_stmt s = { .kind = GS_STMT_PRINT_EXPR, .expr = &xmm };
	struct gs_error err;

	(void)state;
	assert_int_equal(build_one(&s, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "does not expose XMM"));
	s.expr = &bad;
	assert_int_equal(build_one(&s, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unsupported DWARF register 40"));
}

static void test_instruction_larger_than_the_event_is_refused(void **state)
{
	static const struct gs_expr v = { .kind = GS_EXPR_INT, .value = 1, .text = "1" };
	static const struct gs_expr *args[40];
	struct gs_stmt s = { .kind = GS_STMT_PRINT_FORMAT, .args = args, .nargs = 40 };
	struct gs_trace_spec spec = { .body = &s, .nbody = 1 };
	struct gs_program_opts o = { .sz = sizeof(o), .max_trace_event_size = 256 };
	char fmt[200] = "";
	struct gs_program *p;
	struct gs_error err;

	(void)state;
	for (int i = 0; i < 40; i++) {
		args[i] = &v;
		strcat(fmt, "{}");
	}
	s.text = fmt;
	assert_int_equal(gs_program_build(&spec, &o, &p, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "max_trace_event_size"));
}

/* Every reservation is constant: the largest event is the header, each
 * instruction on the longest path (a backtrace at its full depth) and
 * EndInstruction; a trace that only aggregates sends none. */
static void test_event_size_is_the_longest_path_with_bt_at_full_depth(void **state)
{
	struct gs_stmt s = { .kind = GS_STMT_BACKTRACE };
	struct gs_trace_spec spec = { .trace_id = 1, .target = "t", .body = &s, .nbody = 1 };
	struct gs_program_opts o = { .sz = sizeof(o), .unwinder = GS_UNWINDER_TAILCALL };
	uint32_t frame = (uint32_t)sizeof(struct gs_backtrace_frame);
	struct gs_program *p16, *p32, *agg;

	(void)state;
	o.backtrace_depth = 16;
	assert_int_equal(gs_program_build(&spec, &o, &p16, NULL), 0);
	o.backtrace_depth = 32;
	assert_int_equal(gs_program_build(&spec, &o, &p32, NULL), 0);
	assert_int_equal(gs_program_event_size(p16),
			 GS_EVENT_PREFIX_SIZE + GS_INST_HEADER_SIZE +
			 sizeof(struct gs_backtrace_data) + 16 * frame + GS_END_INSTRUCTION_SIZE);
	assert_int_equal(gs_program_event_size(p32) - gs_program_event_size(p16), 16 * frame);
	assert_int_equal(gs_program_build(&gs_cga_count, NULL, &agg, NULL), 0);
	assert_int_equal(gs_program_event_size(agg), 0);
	gs_program_free(p16);
	gs_program_free(p32);
	gs_program_free(agg);
}

static void test_if_else_event_size_counts_the_larger_branch(void **state)
{
	struct gs_program *p = build_ok("if_else", GS_OUTPUT_RINGBUF);
	struct gs_program *lit = build_ok("print_literal", GS_OUTPUT_RINGBUF);

	(void)state;
	/* the else-if branch prints twice: more than one print, less than the sum */
	assert_true(gs_program_event_size(p) > gs_program_event_size(lit));
	assert_true(gs_program_event_size(p) <= p->max_trace_event_size);
	gs_program_free(p);
	gs_program_free(lit);
}

static void test_backtrace_without_dwarf_needs_no_unwind_maps(void **state)
{
	struct gs_stmt s = { .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_INLINE };
	struct gs_trace_spec spec = { .trace_id = 9, .target = "t", .body = &s, .nbody = 1 };
	struct gs_program *p;

	(void)state;
	assert_int_equal(gs_program_build(&spec, NULL, &p, NULL), 0);
	assert_int_equal(p->nmaps, GS_MAP_NUM_BASE);
	assert_int_equal(p->map_index[GS_MAP_BT_ROWS], -1);
	assert_false(p->has_step);
	assert_int_equal(p->backtrace_depth, 128);
	gs_program_free(p);
}

static void test_constant_shift_counts_are_masked_like_register_ones(void **state)
{
	static const struct gs_expr x = { .kind = GS_EXPR_SPECIAL, .special = GS_SPECIAL_TID,
					  .text = "$tid" };
	static const struct gs_expr big = { .kind = GS_EXPR_INT, .value = 65, .text = "65" };
	static const struct gs_expr neg = { .kind = GS_EXPR_INT, .value = -1, .text = "-1" };
	static const struct gs_expr shl = { .kind = GS_EXPR_BINARY, .op = GS_OP_SHL, .lhs = &x,
					    .rhs = &big, .text = "$tid << 65" };
	static const struct gs_expr shr = { .kind = GS_EXPR_BINARY, .op = GS_OP_SHR, .lhs = &x,
					    .rhs = &neg, .text = "$tid >> -1" };
	struct gs_stmt s[] = { { .kind = GS_STMT_PRINT_EXPR, .expr = &shl },
			       { .kind = GS_STMT_PRINT_EXPR, .expr = &shr } };
	struct gs_error err;

	(void)state;
	if (build_one(s, 2, &err))
		fail_msg("%s", err.msg);
}

static void test_undefined_variable_is_refused(void **state)
{
	static const struct gs_expr y = { .kind = GS_EXPR_VAR, .var = 3, .text = "y" };
	struct gs_stmt s = { .kind = GS_STMT_PRINT_EXPR, .expr = &y };
	struct gs_error err;

	(void)state;
	assert_int_equal(build_one(&s, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "variable y"));
}

/* An int and a plain struct for the test below. */
static const struct gs_type t_int = { .kind = GS_TYPE_I32, .size = 4, .name = "int",
				      .flags = GS_TYPEF_SIGNED, .byte_size = 4 };
static const struct gs_type t_s = { .kind = GS_TYPE_STRUCT, .name = "struct s",
				    .byte_size = 24 };
static const struct gs_var v_n = {
	.name = "n", .type = &t_int, .scope = GS_SCOPE_PARAM,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_REGISTER,
		 .reg = 5 } }, .npieces = 1 } };
static const struct gs_var v_s = {
	.name = "s", .type = &t_s, .scope = GS_SCOPE_LOCAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_MEMORY,
		 .base = GS_LOC_BASE_REG, .reg = GS_DWARF_REG_RSP, .offset = 8 } },
		 .npieces = 1 } };
static const struct gs_expr n = { .kind = GS_EXPR_NAME, .name = "n", .dvar = &v_n,
				  .text = "n" };
static const struct gs_expr sv = { .kind = GS_EXPR_NAME, .name = "s", .dvar = &v_s,
				   .text = "s" };
static const struct gs_expr one = { .kind = GS_EXPR_INT, .value = 1, .text = "1" };
static const struct gs_expr len_n = { .kind = GS_EXPR_BUILTIN, .builtin = GS_BUILTIN_LEN,
				      .lhs = &n, .text = "len(n)" };
static const struct gs_expr s1 = { .kind = GS_EXPR_INDEX, .lhs = &sv, .rhs = &one,
				   .text = "s[1]" };
/* len() takes a standard-library sequence or string (or a C array of
 * known bound), and a plain struct is not indexed as one: both fail the
 * build naming what the value is. */
static void test_len_and_index_of_non_containers_are_refused(void **state)
{
	struct gs_stmt st = { .kind = GS_STMT_PRINT_EXPR, .expr = &len_n };
	struct gs_error err;

	(void)state;
	assert_int_equal(build_one(&st, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "len(n): len() measures a std::vector"));
	assert_non_null(strstr(err.msg, "n is a int"));
	st.expr = &s1;
	assert_int_equal(build_one(&st, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "s[1]: s is a struct s: only arrays and (non-void) "
			       "pointers can be indexed (and standard-library sequences"));
}

/* Counting in BPF is exact only for a body of one `bt` on the loop
 * walker: anything else fails the build, naming why; a qualifying trace
 * has the two counting maps and no EndInstruction store. */
static void test_count_stacks_takes_one_bt_on_the_loop_walker(void **state)
{
	static const struct gs_bt_probe probe = {
		.cookie = GS_CG_PROBE_COOKIE, .pc = GS_CG_PROBE_PC,
		.first_row_kind = GS_BT_ROW_MISSING, .nrows = 4, .module_ranges = true,
	};
	static const struct gs_stmt bt = { .kind = GS_STMT_BACKTRACE };
	static const struct gs_stmt two[] = { { .kind = GS_STMT_PRINT_STRING, .text = "x" },
					      { .kind = GS_STMT_BACKTRACE } };
	struct gs_trace_spec spec = { .trace_id = 3, .target = "f", .body = &bt, .nbody = 1,
				      .bt = &probe };
	struct gs_program_opts o = { .sz = sizeof(o), .unwinder = GS_UNWINDER_LOOP,
				     .count_stacks = true, .stack_counts_max = 99 };
	struct gs_program *p;
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_program_build(&spec, &o, &p, &err), 0);
	assert_true(p->map_index[GS_MAP_STACK_COUNTS] >= 0);
	assert_true(p->map_index[GS_MAP_STACK_DROPS] >= 0);
	assert_int_equal(p->maps[p->map_index[GS_MAP_STACK_COUNTS]].max_entries, 99);
	for (size_t i = 0; i < p->main.len; i++)
		assert_false(p->main.insns[i].code == (BPF_ST | BPF_MEM | BPF_W) &&
			     p->main.insns[i].imm == (GS_INST_END | 4 << 8));
	gs_program_free(p);
	spec.body = two;
	spec.nbody = 2;
	assert_int_equal(gs_program_build(&spec, &o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not exactly one `bt`"));
	spec.body = &bt;
	spec.nbody = 1;
	o.unwinder = GS_UNWINDER_TAILCALL;
	assert_int_equal(gs_program_build(&spec, &o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "tail-call unwinder"));
}

/* A Python stack: its instruction after the backtrace (two instructions
 * and a PythonStack's bytes in the event), py_procs declared, the counting
 * key grown by it; refused, naming why, on the tail-call unwinder and
 * without the thread pointer's offset. */
static void test_python_stack_follows_the_backtrace(void **state)
{
	const struct gs_cg_case *c = find("py_bt_depth32");
	struct gs_program *p = build_ok("py_bt_depth32", GS_OUTPUT_RINGBUF);
	struct gs_program *bare = build_ok("bt_loop_depth128", GS_OUTPUT_RINGBUF);
	struct gs_program *counted = build_ok("py_sample_known_kernel_count", GS_OUTPUT_RINGBUF);
	struct gs_program_opts o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
	struct gs_error err;
	int py;

	(void)state;
	/* the print, the backtrace and the PythonStack */
	assert_int_equal(p->total_instructions, 3);
	py = p->map_index[GS_MAP_PY_PROCS];
	assert_true(py >= 0);
	assert_string_equal(p->maps[py].name, GS_MAP_NAME_PY_PROCS);
	assert_int_equal(p->maps[py].value_size, sizeof(struct gs_py_proc));
	assert_int_equal(bare->map_index[GS_MAP_PY_PROCS], -1);
	assert_int_equal(counted->maps[counted->map_index[GS_MAP_STACK_COUNTS]].key_size,
			 GS_STACK_COUNT_KEY_SIZE(128, 32) + GS_STACK_COUNT_KSTACK_SIZE +
			 GS_STACK_COUNT_PYSTACK_SIZE(128));
	gs_program_free(p);
	gs_program_free(bare);
	gs_program_free(counted);

	o.unwinder = GS_UNWINDER_TAILCALL;
	assert_int_equal(gs_program_build(c->spec, &o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "cannot walk Python frames: the Python walk runs "
				   "beside the loop unwinder only"));
	o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
	o.task_fsbase_offset = 0;
	assert_int_equal(gs_program_build(c->spec, &o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "gs_program_opts.task_fsbase_offset"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_options_give_the_reference_defaults),
		cmocka_unit_test(test_perf_mode_declares_the_events_array),
		cmocka_unit_test(test_event_size_is_clamped_to_the_output_buffer),
		cmocka_unit_test(test_event_size_past_the_per_cpu_limit_is_refused),
		cmocka_unit_test(test_event_size_is_the_longest_path_with_bt_at_full_depth),
		cmocka_unit_test(test_if_else_event_size_counts_the_larger_branch),
		cmocka_unit_test(test_strings_and_names_land_in_the_context),
		cmocka_unit_test(test_if_counts_its_larger_branch_and_let_counts_nothing),
		cmocka_unit_test(test_every_case_passes_the_static_checker),
		cmocka_unit_test(test_placeholder_count_must_match_arguments),
		cmocka_unit_test(test_xmm_and_unknown_registers_are_refused),
		cmocka_unit_test(test_instruction_larger_than_the_event_is_refused),
		cmocka_unit_test(test_backtrace_without_dwarf_needs_no_unwind_maps),
		cmocka_unit_test(test_constant_shift_counts_are_masked_like_register_ones),
		cmocka_unit_test(test_undefined_variable_is_refused),
		cmocka_unit_test(test_len_and_index_of_non_containers_are_refused),
		cmocka_unit_test(test_count_stacks_takes_one_bt_on_the_loop_walker),
		cmocka_unit_test(test_python_stack_follows_the_backtrace),
	};

	return cmocka_run_group_tests_name("codegen", tests, NULL, NULL);
}
