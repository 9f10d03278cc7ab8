/* The trace specs of the codegen suites, written the way the script parser
 * will produce them: expression trees and statement arrays. Each comment
 * gives the script the spec stands for. */
#include "base.h"
#include "cg_specs.h"

#define INT(v) { .kind = GS_EXPR_INT, .value = (v), .text = #v }
#define SPECIAL(s, t) { .kind = GS_EXPR_SPECIAL, .special = (s), .text = (t) }
#define REG(r, t) { .kind = GS_EXPR_REG, .reg = (r), .text = (t) }
#define BIN(o, l, r, t) { .kind = GS_EXPR_BINARY, .op = (o), .lhs = (l), .rhs = (r), .text = (t) }
#define DEREF(sz, sgn, l, t) { .kind = GS_EXPR_DEREF, .size = (sz), .is_signed = (sgn), \
			       .lhs = (l), .text = (t) }

static const struct gs_expr pid = SPECIAL(GS_SPECIAL_PID, "$pid");
static const struct gs_expr tid = SPECIAL(GS_SPECIAL_TID, "$tid");
static const struct gs_expr timestamp = SPECIAL(GS_SPECIAL_TIMESTAMP, "$timestamp");
static const struct gs_expr rdi = REG(5, "rdi");
static const struct gs_expr rsi = REG(4, "rsi");

/* trace empty { } */
static const struct gs_trace_spec empty = { .trace_id = 0, .target = "empty" };

/* trace f { print "hello from gstrace"; } */
static const struct gs_stmt literal_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "hello from gstrace" },
};
static const struct gs_trace_spec literal = {
	.trace_id = 1, .target = "literal", .body = literal_body, .nbody = BASE_ARRAY_SIZE(literal_body),
};

/* trace f { print "pid={} tid={} ts={} rdi={:x}", $pid, $tid, $timestamp, rdi; } */
static const struct gs_expr *const format_args[] = { &pid, &tid, &timestamp, &rdi };
static const struct gs_stmt format_body[] = {
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "pid={} tid={} ts={} rdi={:x}",
	  .args = format_args, .nargs = BASE_ARRAY_SIZE(format_args) },
};
static const struct gs_trace_spec format = {
	.trace_id = 2, .target = "format", .body = format_body, .nbody = BASE_ARRAY_SIZE(format_body),
};

/* trace f { print *(u64 *)rdi; print "v={} n={}", *(u32 *)(rsi + 8), *(u8 *)0; } */
static const struct gs_expr eight = INT(8);
static const struct gs_expr zero = INT(0);
static const struct gs_expr rsi_plus_8 = BIN(GS_OP_ADD, &rsi, &eight, "rsi + 8");
static const struct gs_expr read_rdi = DEREF(8, false, &rdi, "*(u64 *)rdi");
static const struct gs_expr read_rsi8 = DEREF(4, true, &rsi_plus_8, "*(i32 *)(rsi + 8)");
static const struct gs_expr read_null = DEREF(1, false, &zero, "*(u8 *)0");
static const struct gs_expr *const read_args[] = { &read_rsi8, &read_null };
static const struct gs_stmt read_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &read_rdi },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "v={} n={}", .args = read_args,
	  .nargs = BASE_ARRAY_SIZE(read_args) },
};
static const struct gs_trace_spec user_read = {
	.trace_id = 3, .target = "user_read", .body = read_body, .nbody = BASE_ARRAY_SIZE(read_body),
};

/* trace f {
 *   if $pid == 4242 { print "mine"; }
 *   else if $tid > 100 { print "big tid"; print $tid; }
 *   else { print "other"; }
 * } */
static const struct gs_expr filter_pid = INT(4242);
static const struct gs_expr hundred = INT(100);
static const struct gs_expr pid_is_ours = BIN(GS_OP_EQ, &pid, &filter_pid, "$pid == 4242");
static const struct gs_expr tid_big = BIN(GS_OP_GT, &tid, &hundred, "$tid > 100");
static const struct gs_stmt mine[] = { { .kind = GS_STMT_PRINT_STRING, .text = "mine" } };
static const struct gs_stmt big[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "big tid" },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &tid },
};
static const struct gs_stmt other[] = { { .kind = GS_STMT_PRINT_STRING, .text = "other" } };
static const struct gs_stmt else_if[] = {
	{ .kind = GS_STMT_IF, .expr = &tid_big, .then_body = big, .nthen = BASE_ARRAY_SIZE(big),
	  .else_body = other, .nelse = BASE_ARRAY_SIZE(other) },
};
static const struct gs_stmt if_body[] = {
	{ .kind = GS_STMT_IF, .expr = &pid_is_ours, .then_body = mine, .nthen = BASE_ARRAY_SIZE(mine),
	  .else_body = else_if, .nelse = BASE_ARRAY_SIZE(else_if) },
};
static const struct gs_trace_spec if_else = {
	.trace_id = 4, .target = "if_else", .body = if_body, .nbody = BASE_ARRAY_SIZE(if_body),
};

/* trace f { if *(u64 *)rdi == 7 { print "seven"; } else { print "not seven"; } } */
static const struct gs_expr seven = INT(7);
static const struct gs_expr rdi_is_7 = BIN(GS_OP_EQ, &read_rdi, &seven, "*(u64 *)rdi == 7");
static const struct gs_stmt seven_body[] = { { .kind = GS_STMT_PRINT_STRING, .text = "seven" } };
static const struct gs_stmt not_seven[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "not seven" },
};
static const struct gs_stmt read_cond_body[] = {
	{ .kind = GS_STMT_IF, .expr = &rdi_is_7, .then_body = seven_body,
	  .nthen = BASE_ARRAY_SIZE(seven_body), .else_body = not_seven, .nelse = BASE_ARRAY_SIZE(not_seven) },
};
static const struct gs_trace_spec read_condition = {
	.trace_id = 5, .target = "read_condition", .body = read_cond_body,
	.nbody = BASE_ARRAY_SIZE(read_cond_body),
};

/* trace f {
 *   let x = $tid * 3 - 7;
 *   print "{} {} {} {}", x / -2, x % 5, (x << 2) >> 1, x > 0 && !(x == 5) || 0;
 * } */
static const struct gs_expr three = INT(3);
static const struct gs_expr minus_two = INT(-2);
static const struct gs_expr five = INT(5);
static const struct gs_expr two = INT(2);
static const struct gs_expr one = INT(1);
static const struct gs_expr tid_x3 = BIN(GS_OP_MUL, &tid, &three, "$tid * 3");
static const struct gs_expr x_value = BIN(GS_OP_SUB, &tid_x3, &seven, "$tid * 3 - 7");
static const struct gs_expr x = { .kind = GS_EXPR_VAR, .var = 0, .text = "x" };
static const struct gs_expr x_div = BIN(GS_OP_DIV, &x, &minus_two, "x / -2");
static const struct gs_expr x_mod = BIN(GS_OP_MOD, &x, &five, "x % 5");
static const struct gs_expr x_shl = BIN(GS_OP_SHL, &x, &two, "x << 2");
static const struct gs_expr x_shr = BIN(GS_OP_SHR, &x_shl, &one, "(x << 2) >> 1");
static const struct gs_expr x_pos = BIN(GS_OP_GT, &x, &zero, "x > 0");
static const struct gs_expr x_is5 = BIN(GS_OP_EQ, &x, &five, "x == 5");
static const struct gs_expr not_x5 = { .kind = GS_EXPR_UNARY, .op = '!', .lhs = &x_is5,
				       .text = "!(x == 5)" };
static const struct gs_expr both = BIN(GS_OP_LAND, &x_pos, &not_x5, "x > 0 && !(x == 5)");
static const struct gs_expr either = BIN(GS_OP_LOR, &both, &zero, "x > 0 && !(x == 5) || 0");
static const struct gs_expr *const arith_args[] = { &x_div, &x_mod, &x_shr, &either };
static const struct gs_stmt arith_body[] = {
	{ .kind = GS_STMT_LET, .var = 0, .text = "x", .expr = &x_value },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {} {} {}", .args = arith_args,
	  .nargs = BASE_ARRAY_SIZE(arith_args) },
};
static const struct gs_trace_spec arith = {
	.trace_id = 6, .target = "arith", .body = arith_body, .nbody = BASE_ARRAY_SIZE(arith_body), .nvars = 1,
};

/* trace f {
 *   if 100 / rdi > 0 { print "positive"; }
 *   print "{} {}", 7 / rdi, 7 % rdi;
 *   let q = 9 / rdi;
 *   print 1 / 0;
 * } */
static const struct gs_expr one_hundred = INT(100);
static const struct gs_expr div_rdi = BIN(GS_OP_DIV, &one_hundred, &rdi, "100 / rdi");
static const struct gs_expr div_positive = BIN(GS_OP_GT, &div_rdi, &zero, "100 / rdi > 0");
static const struct gs_expr seven_div = BIN(GS_OP_DIV, &seven, &rdi, "7 / rdi");
static const struct gs_expr seven_mod = BIN(GS_OP_MOD, &seven, &rdi, "7 % rdi");
static const struct gs_expr nine = INT(9);
static const struct gs_expr nine_div = BIN(GS_OP_DIV, &nine, &rdi, "9 / rdi");
static const struct gs_expr one_const = INT(1);
static const struct gs_expr one_div_zero = BIN(GS_OP_DIV, &one_const, &zero, "1 / 0");
static const struct gs_stmt div_positive_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "positive" },
};
static const struct gs_expr *const div_args[] = { &seven_div, &seven_mod };
static const struct gs_stmt div_body[] = {
	{ .kind = GS_STMT_IF, .expr = &div_positive, .then_body = div_positive_body,
	  .nthen = BASE_ARRAY_SIZE(div_positive_body) },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {}", .args = div_args, .nargs = BASE_ARRAY_SIZE(div_args) },
	{ .kind = GS_STMT_LET, .var = 0, .text = "q", .expr = &nine_div },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &one_div_zero },
};
static const struct gs_trace_spec div_zero = {
	.trace_id = 12, .target = "div_zero", .body = div_body, .nbody = BASE_ARRAY_SIZE(div_body), .nvars = 1,
};

/* trace f { print "first"; ... print "sixth"; } with max_trace_event_size 64:
 * 28 + 6 * 6 + 8 = 72 bytes cannot fit, so every event is dropped. */
static const struct gs_stmt overflow_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "first" },
	{ .kind = GS_STMT_PRINT_STRING, .text = "second" },
	{ .kind = GS_STMT_PRINT_STRING, .text = "third" },
	{ .kind = GS_STMT_PRINT_STRING, .text = "fourth" },
	{ .kind = GS_STMT_PRINT_STRING, .text = "fifth" },
	{ .kind = GS_STMT_PRINT_STRING, .text = "sixth" },
};
static const struct gs_trace_spec overflow = {
	.trace_id = 7, .target = "overflow", .body = overflow_body, .nbody = BASE_ARRAY_SIZE(overflow_body),
};

/* gstrace -p 4242 -s 'trace f { print "pid {}", $pid; }' (host pid filter) and
 * the same with the target in its own PID namespace. */
static const struct gs_expr *const pid_args[] = { &pid };
static const struct gs_stmt pid_body[] = {
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "pid {}", .args = pid_args, .nargs = BASE_ARRAY_SIZE(pid_args) },
};
static const struct gs_trace_spec pid_filtered = {
	.trace_id = 8, .target = "pid_filter", .body = pid_body, .nbody = BASE_ARRAY_SIZE(pid_body),
};

/* Backtraces. The probe's compile-time row: CFA = rsp + 16, return
 * address at CFA - 8, rbp unchanged (a leaf after `push`). */
static const struct gs_bt_probe bt_one_module = {
	.cookie = GS_CG_PROBE_COOKIE, .pc = GS_CG_PROBE_PC,
	.first_row_kind = GS_BT_ROW_USABLE,
	.first_row = { .pc_start = GS_CG_PROBE_PC - 4, .pc_end = GS_CG_PROBE_PC + 0x20,
		       .cfa_offset = 16, .ra_offset = -8, .cfa_register = GS_DWARF_REG_RSP,
		       .ra_register = GS_DWARF_REG_RIP, .rbp_register = GS_DWARF_REG_RBP,
		       .ra_kind = GS_RECOVERY_AT_CFA_OFFSET, .rbp_kind = GS_RECOVERY_SAME_VALUE },
	.nrows = GS_CG_BT_ROWS,
};
static const struct gs_bt_probe bt_modules = {
	.cookie = GS_CG_PROBE_COOKIE, .pc = GS_CG_PROBE_PC,
	.first_row_kind = GS_BT_ROW_USABLE, .first_row = {
		.pc_start = GS_CG_PROBE_PC - 4, .pc_end = GS_CG_PROBE_PC + 0x20,
		.cfa_offset = 16, .ra_offset = -8, .cfa_register = GS_DWARF_REG_RSP,
		.ra_register = GS_DWARF_REG_RIP, .rbp_register = GS_DWARF_REG_RBP,
		.ra_kind = GS_RECOVERY_AT_CFA_OFFSET, .rbp_kind = GS_RECOVERY_SAME_VALUE },
	.nrows = GS_CG_BT_ROWS, .module_ranges = true,
};
static const struct gs_bt_probe bt_no_rows = {
	.cookie = GS_CG_PROBE_COOKIE, .pc = GS_CG_PROBE_PC,
	.first_row_kind = GS_BT_ROW_MISSING,
};

/* trace f { print "HOT_STACK"; bt full; } */
static const struct gs_stmt bt_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "HOT_STACK" },
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_FULL | GS_BT_FLAG_INLINE },
};
static const struct gs_trace_spec bt_rows = {
	.trace_id = 10, .target = "bt", .body = bt_body, .nbody = BASE_ARRAY_SIZE(bt_body), .bt = &bt_one_module,
};
static const struct gs_trace_spec bt_ranges = {
	.trace_id = 11, .target = "bt", .body = bt_body, .nbody = BASE_ARRAY_SIZE(bt_body), .bt = &bt_modules,
};
/* CPU samples (gstrace --profile): one `bt`, every frame's module found
 * at run time; a process's (the pid filter), the known processes' counted
 * with their kernel stacks, and every process's counted. */
static const struct gs_bt_probe bt_sample = {
	.first_row_kind = GS_BT_ROW_USABLE, .nrows = GS_CG_BT_ROWS, .module_ranges = true,
};
static const struct gs_stmt sample_body[] = { { .kind = GS_STMT_BACKTRACE } };
static const struct gs_stmt sample_kernel_body[] = {
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_KERNEL },
};
static const struct gs_trace_spec sample_pid = {
	.trace_id = 40, .target = "profile", .body = sample_body, .nbody = 1, .bt = &bt_sample,
	.sample = GS_SAMPLE_PID,
};
static const struct gs_trace_spec sample_known_kernel = {
	.trace_id = 41, .target = "profile", .body = sample_kernel_body, .nbody = 1,
	.bt = &bt_sample, .sample = GS_SAMPLE_KNOWN,
};
static const struct gs_trace_spec sample_all = {
	.trace_id = 42, .target = "profile", .body = sample_body, .nbody = 1, .bt = &bt_sample,
	.sample = GS_SAMPLE_ALL,
};
/* Python frames after the native ones: trace f { print "HOT_STACK"; bt
 * python; } at a uprobe, and CPU samples of a process, and of the known
 * processes counted with their kernel stacks. */
static const struct gs_stmt py_bt_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "HOT_STACK" },
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_PYTHON },
};
static const struct gs_trace_spec py_bt = {
	.trace_id = 50, .target = "bt", .body = py_bt_body, .nbody = BASE_ARRAY_SIZE(py_bt_body),
	.bt = &bt_modules,
};
static const struct gs_stmt py_sample_body[] = {
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_PYTHON },
};
static const struct gs_stmt py_sample_kernel_body[] = {
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_KERNEL | GS_BT_FLAG_PYTHON },
};
static const struct gs_trace_spec py_sample_pid = {
	.trace_id = 51, .target = "profile", .body = py_sample_body, .nbody = 1, .bt = &bt_sample,
	.sample = GS_SAMPLE_PID,
};
static const struct gs_trace_spec py_sample_known_kernel = {
	.trace_id = 52, .target = "profile", .body = py_sample_kernel_body, .nbody = 1,
	.bt = &bt_sample, .sample = GS_SAMPLE_KNOWN,
};
static const struct gs_trace_spec bt_missing_rows = {
	.trace_id = 12, .target = "bt", .body = bt_body, .nbody = BASE_ARRAY_SIZE(bt_body), .bt = &bt_no_rows,
};
static const struct gs_trace_spec bt_no_dwarf = {
	.trace_id = 13, .target = "bt", .body = bt_body, .nbody = BASE_ARRAY_SIZE(bt_body),
};

/* trace f { bt full; bt raw noinline; } */
static const struct gs_stmt bt_two_body[] = {
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_FULL | GS_BT_FLAG_INLINE },
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_RAW },
};
static const struct gs_trace_spec bt_two = {
	.trace_id = 14, .target = "bt", .body = bt_two_body, .nbody = BASE_ARRAY_SIZE(bt_two_body),
	.bt = &bt_modules,
};

/* trace f { if $tid % 2 == 0 { print "EVEN"; bt; } else { print "ODD"; bt raw noinline; } } */
static const struct gs_expr tid_mod2 = BIN(GS_OP_MOD, &tid, &two, "$tid % 2");
static const struct gs_expr tid_even = BIN(GS_OP_EQ, &tid_mod2, &zero, "$tid % 2 == 0");
static const struct gs_stmt even_bt[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "EVEN" },
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_INLINE },
};
static const struct gs_stmt odd_bt[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "ODD" },
	{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_RAW },
};
static const struct gs_stmt bt_if_body[] = {
	{ .kind = GS_STMT_IF, .expr = &tid_even, .then_body = even_bt, .nthen = BASE_ARRAY_SIZE(even_bt),
	  .else_body = odd_bt, .nelse = BASE_ARRAY_SIZE(odd_bt) },
};
static const struct gs_trace_spec bt_if = {
	.trace_id = 15, .target = "bt", .body = bt_if_body, .nbody = BASE_ARRAY_SIZE(bt_if_body),
	.bt = &bt_one_module,
};

const struct gs_cg_case gs_cg_cases[] = {
	{ "empty", &empty, { 0 } },
	{ "print_literal", &literal, { 0 } },
	{ "print_format", &format, { 0 } },
	{ "user_read", &user_read, { 0 } },
	{ "if_else", &if_else, { 0 } },
	{ "read_condition", &read_condition, { 0 } },
	{ "arith", &arith, { 0 } },
	{ "div_zero", &div_zero, { 0 } },
	{ "overflow", &overflow, { .max_trace_event_size = 64 } },
	{ "pid_filter_host", &pid_filtered, { .filter_pid = GS_CG_FILTER_PID } },
	{ "pid_filter_ns", &pid_filtered, { .filter_pid = GS_CG_FILTER_PID,
					    .pid_ns_dev = GS_CG_NS_DEV,
					    .pid_ns_ino = GS_CG_NS_INO } },
	{ "bt_depth1", &bt_rows, { .backtrace_depth = 1 } },
	{ "bt_depth2", &bt_rows, { .backtrace_depth = 2 } },
	{ "bt_depth5", &bt_rows, { .backtrace_depth = 5 } },
	{ "bt_depth7", &bt_rows, { .backtrace_depth = 7 } },
	{ "bt_depth128", &bt_rows, { 0 } },
	{ "bt_modules_depth5", &bt_ranges, { .backtrace_depth = 5 } },
	{ "bt_modules_depth128", &bt_ranges, { 0 } },
	{ "bt_no_rows", &bt_missing_rows, { .backtrace_depth = 5 } },
	{ "bt_no_dwarf", &bt_no_dwarf, { .backtrace_depth = 5 } },
	{ "bt_two", &bt_two, { 0 } },
	{ "bt_if_else", &bt_if, { 0 } },
	/* the bpf_loop walker: one subprogram shared by every bt */
	{ "bt_loop_depth128", &bt_ranges, { .unwinder = GS_UNWINDER_LOOP } },
	{ "bt_loop_depth512", &bt_ranges, { .unwinder = GS_UNWINDER_LOOP,
					    .backtrace_depth = 512 } },
	{ "bt_loop_depth1", &bt_ranges, { .unwinder = GS_UNWINDER_LOOP, .backtrace_depth = 1 } },
	{ "bt_loop_two", &bt_two, { .unwinder = GS_UNWINDER_LOOP } },
	{ "bt_loop_no_dwarf", &bt_no_dwarf, { .unwinder = GS_UNWINDER_LOOP,
					      .backtrace_depth = 5 } },
	{ "bt_loop_if_else", &bt_if, { .unwinder = GS_UNWINDER_LOOP } },
	/* CPU samples: perf_event programs */
	{ "sample_pid", &sample_pid, { .unwinder = GS_UNWINDER_LOOP,
				       .filter_pid = GS_CG_FILTER_PID } },
	{ "sample_known_kernel_count", &sample_known_kernel, { .unwinder = GS_UNWINDER_LOOP,
							       .count_stacks = true,
							       .backtrace_depth = 32 } },
	{ "sample_all_count", &sample_all, { .unwinder = GS_UNWINDER_LOOP, .count_stacks = true,
					     .backtrace_depth = 32 } },
	/* the agent's profiles label samples by thread: the tid stays in the key */
	{ "sample_all_count_per_thread", &sample_all, { .unwinder = GS_UNWINDER_LOOP,
							.count_stacks = true,
							.count_per_thread = true,
							.backtrace_depth = 32 } },
	/* Python frames (GS_BT_FLAG_PYTHON): the gs_py_walk subprogram */
	{ "py_bt_depth32", &py_bt, { .unwinder = GS_UNWINDER_LOOP, .backtrace_depth = 32,
				     .task_fsbase_offset = GS_CG_TASK_FSBASE } },
	{ "py_sample_pid", &py_sample_pid, { .unwinder = GS_UNWINDER_LOOP,
					     .filter_pid = GS_CG_FILTER_PID, .backtrace_depth = 32,
					     .task_fsbase_offset = GS_CG_TASK_FSBASE } },
	{ "py_sample_known_kernel_count", &py_sample_known_kernel, {
		.unwinder = GS_UNWINDER_LOOP, .count_stacks = true,
		.task_fsbase_offset = GS_CG_TASK_FSBASE } },
};
const size_t gs_cg_ncases = BASE_ARRAY_SIZE(gs_cg_cases);

struct gs_program_opts gs_cg_case_opts(const struct gs_cg_case *c, enum gs_output_kind output)
{
	struct gs_program_opts o = c->opts;

	o.sz = sizeof(o);
	o.output = output;
	return o;
}
