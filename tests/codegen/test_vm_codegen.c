/* Generated programs run on the test VM with synthetic pt_regs, user memory
 * and maps; the bytes they emit are decoded and checked field by field:
 * header, ids, values and their statuses, execution status, drops and
 * losses. Each test runs in ringbuf and in perf mode. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/program.h>
#include <gs/decode.h>
#include <gs/render.h>

#include "cg_specs.h"
#include "cg_vm.h"

#define HOST_TGID 4242u
#define HOST_TID 4243u
#define KTIME0 1000000ull
#define PT_REGS_WORDS 21 /* sizeof(struct pt_regs) / 8 */
#define REG_SI (104 / 8)
#define REG_DI (112 / 8)
#define REG_IP (128 / 8)
#define REG_SP (152 / 8)

struct harness {
	enum gs_output_kind output;
	bool fault_in; /* built with reads that fault pages in (ringbuf only) */
	struct gs_vm vm;
	struct gs_program *p;
	uint32_t map_ids[8];
	int prog;
	uint64_t regs[PT_REGS_WORDS];
	/* decoded events of the last run */
	struct gs_decoder *dec;
	const struct gs_trace_context *contexts[16];
	struct gs_event events[4];
	struct gs_inst insts[4][16];
	struct gs_value args[4][16][8];
	size_t nevents;
};

static void build(struct harness *h, const char *name)
{
	const struct gs_cg_case *c = NULL;
	struct gs_program_opts o;
	struct gs_error err;
	int step;

	for (size_t i = 0; i < gs_cg_ncases; i++)
		if (strcmp(gs_cg_cases[i].name, name) == 0)
			c = &gs_cg_cases[i];
	assert_non_null(c);
	o = gs_cg_case_opts(c, h->output);
	o.fault_in = h->fault_in;
	if (gs_program_build(c->spec, &o, &h->p, &err))
		fail_msg("%s: %s", name, err.msg);
	gs_vm_init(&h->vm);
	h->vm.tgid = HOST_TGID;
	h->vm.pid = HOST_TID;
	h->vm.ktime = KTIME0;
	h->prog = gs_cg_vm_load(&h->vm, h->p, h->map_ids, &step, &err);
	if (h->prog < 0)
		fail_msg("%s: %s", name, err.msg);
	h->regs[REG_IP] = 0x401136;
	h->regs[REG_SP] = 0x7ffd0000;
	h->contexts[h->p->trace_id] = &h->p->ctx;
}

/* Copies one decoded event so it outlives the decoder's next call. */
static int keep(void *arg, const struct gs_event *ev)
{
	struct harness *h = arg;
	size_t k = h->nevents++;

	assert_true(k < 4 && ev->ninsts <= 16);
	h->events[k] = *ev;
	for (size_t i = 0; i < ev->ninsts; i++) {
		h->insts[k][i] = ev->insts[i];
		if (ev->insts[i].type == GS_INST_PRINT_COMPLEX_FORMAT) {
			memcpy(h->args[k][i], ev->insts[i].format.args,
			       ev->insts[i].format.arg_count * sizeof(struct gs_value));
			h->insts[k][i].format.args = h->args[k][i];
		}
	}
	h->events[k].insts = h->insts[k];
	return 0;
}

/* Runs the program once and decodes everything it emitted. */
static void run(struct harness *h)
{
	GS_OPTS(gs_decoder_opts, dopts,
		.mode = h->output == GS_OUTPUT_PERF ? GS_DECODE_PERF : GS_DECODE_RINGBUF,
		.contexts = h->contexts, .ncontexts = 16);
	struct gs_error err;
	uint64_t r0 = 99;

	gs_vm_clear_records(&h->vm);
	h->nevents = 0;
	if (gs_vm_run(&h->vm, (uint32_t)h->prog, h->regs, sizeof(h->regs), &r0, &err))
		fail_msg("vm: %s", err.msg);
	assert_int_equal(r0, 0);
	gs_decoder_free(h->dec);
	if (gs_decoder_new(&dopts, &h->dec, &err))
		fail_msg("decoder: %s", err.msg);
	for (size_t i = 0; i < h->vm.nrecords; i++) {
		const struct gs_vm_record *r = &h->vm.records[i];

		assert_int_equal(r->map, h->map_ids[GS_MAP_OUTPUT]);
		if (h->output == GS_OUTPUT_PERF)
			assert_int_equal(r->flags, GS_BPF_F_CURRENT_CPU);
		if (gs_decoder_feed(h->dec, r->data, r->size, keep, h, &err) < 0)
			fail_msg("decode: %s", err.msg);
	}
}

static void teardown(struct harness *h)
{
	gs_decoder_free(h->dec);
	gs_vm_fini(&h->vm);
	gs_program_free(h->p);
}

static const struct gs_inst *inst(struct harness *h, size_t ev, size_t i)
{
	assert_true(ev < h->nevents);
	assert_true(i < h->events[ev].ninsts);
	return &h->events[ev].insts[i];
}

static int64_t value_i64(const struct gs_value *v)
{
	int64_t x = 0;
	/* a format argument's data_len is its reserved slot; the type says
	 * how much of it is the value */
	uint16_t len = v->type ? v->type->size : v->data_len;

	assert_int_equal(v->status, GS_VAR_OK);
	assert_true(len <= v->data_len);
	if (len == 8) {
		memcpy(&x, v->data, 8);
	} else if (len == 4) {
		int32_t w;

		memcpy(&w, v->data, 4);
		x = v->kind == GS_TYPE_I32 ? w : (int64_t)(uint32_t)w;
	} else if (len == 1) {
		x = v->data[0];
	} else {
		fail_msg("unexpected value size %u", len);
	}
	return x;
}

static void assert_end(struct harness *h, size_t ev, uint16_t total, uint8_t status)
{
	const struct gs_event *e = &h->events[ev];
	const struct gs_inst *end = &e->insts[e->ninsts - 1];

	assert_int_equal(end->type, GS_INST_END);
	assert_int_equal(end->end.total_instructions, total);
	assert_int_equal(end->end.execution_status, status);
}

/* Runs the block once per output kind, with `h` set up for it. */
#define EACH_OUTPUT(...)                                                        \
	for (int out_ = 0; out_ < 2; out_++) {                                  \
		struct harness h_ = { .output = out_ ? GS_OUTPUT_PERF : GS_OUTPUT_RINGBUF }; \
		struct harness *h = &h_;                                        \
		__VA_ARGS__                                                     \
		teardown(h);                                                    \
	}

static void test_empty_trace_emits_header_message_and_end(void **state)
{
	static const uint8_t prefix[] = { 0x53, 0x4c, 0x48, 0x43 };

	(void)state;
	EACH_OUTPUT({
		build(h, "empty");
		run(h);
		assert_int_equal(h->vm.nrecords, 1);
		assert_int_equal(h->vm.records[0].size, GS_MIN_EVENT_SIZE);
		assert_memory_equal(h->vm.records[0].data, prefix, sizeof(prefix));
		assert_int_equal(h->nevents, 1);
		assert_int_equal(h->events[0].trace_id, 0);
		assert_int_equal(h->events[0].timestamp, KTIME0);
		assert_int_equal(h->events[0].pid, HOST_TGID);
		assert_int_equal(h->events[0].tid, HOST_TID);
		assert_int_equal(h->events[0].ninsts, 1);
		assert_end(h, 0, 0, GS_EXEC_SUCCESS);
	})
}

static void test_literal_is_sent_as_a_string_index(void **state)
{
	(void)state;
	EACH_OUTPUT({
		build(h, "print_literal");
		run(h);
		assert_int_equal(h->nevents, 1);
		assert_int_equal(inst(h, 0, 0)->type, GS_INST_PRINT_STRING_INDEX);
		assert_string_equal(inst(h, 0, 0)->string.text, "hello from gstrace");
		assert_int_equal(h->vm.records[0].size, GS_MIN_EVENT_SIZE + 6);
		assert_end(h, 0, 1, GS_EXEC_SUCCESS);
	})
}

static void test_format_carries_pid_tid_timestamp_and_register(void **state)
{
	char text[256];

	(void)state;
	EACH_OUTPUT({
		const struct gs_inst *f;

		build(h, "print_format");
		h->regs[REG_DI] = 0xdeadbeef;
		run(h);
		assert_int_equal(h->nevents, 1);
		f = inst(h, 0, 0);
		assert_int_equal(f->type, GS_INST_PRINT_COMPLEX_FORMAT);
		assert_int_equal(f->format.arg_count, 4);
		assert_int_equal(value_i64(&f->format.args[0]), HOST_TGID);
		assert_int_equal(value_i64(&f->format.args[1]), HOST_TID);
		/* the message took the first ktime; $timestamp the second */
		assert_int_equal(value_i64(&f->format.args[2]), KTIME0 + h->vm.ktime_step);
		assert_int_equal(value_i64(&f->format.args[3]), 0xdeadbeef);
		gs_render_inst(f, text, sizeof(text));
		assert_string_equal(text, "pid=4242 tid=4243 ts=1001000 rdi=deadbeef");
		assert_end(h, 0, 1, GS_EXEC_SUCCESS);
	})
}

/* user_read over *word at rdi (absent: mapped, not resident) and *neg
 * at rsi + 8. */
static void build_user_read(struct harness *h, const uint64_t *word, const int32_t *neg,
			    bool absent)
{
	build(h, "user_read");
	if (absent)
		gs_vm_add_user_mem_absent(&h->vm, 0x7000, word, sizeof(*word), NULL);
	else
		gs_vm_add_user_mem(&h->vm, 0x7000, word, sizeof(*word), NULL);
	gs_vm_add_user_mem(&h->vm, 0x8008, neg, sizeof(*neg), NULL);
	h->regs[REG_DI] = 0x7000;
	h->regs[REG_SI] = 0x8000;
}

static void test_reads_report_values_and_null_deref(void **state)
{
	const uint64_t word = 0x1122334455667788ull;
	const int32_t neg = -5;

	(void)state;
	EACH_OUTPUT({
		const struct gs_inst *v, *f;

		build_user_read(h, &word, &neg, false);
		run(h);
		assert_int_equal(h->nevents, 1);
		v = inst(h, 0, 0);
		assert_int_equal(v->type, GS_INST_PRINT_COMPLEX_VARIABLE);
		assert_string_equal(v->variable.name, "*(u64 *)rdi");
		assert_int_equal((uint64_t)value_i64(&v->variable), word);
		f = inst(h, 0, 1);
		assert_int_equal(value_i64(&f->format.args[0]), -5);
		assert_int_equal(f->format.args[1].status, GS_VAR_NULL_DEREF);
		/* some reads failed, some succeeded */
		assert_end(h, 0, 2, GS_EXEC_PARTIAL_FAILURE);
	})
}

static void test_failed_reads_carry_errno_and_address(void **state)
{
	(void)state;
	EACH_OUTPUT({
		const struct gs_inst *v;
		struct gs_read_error_payload pl;

		build(h, "user_read");
		h->regs[REG_DI] = 0x9000; /* nothing mapped */
		h->regs[REG_SI] = 0xa000;
		run(h);
		assert_int_equal(h->nevents, 1);
		v = inst(h, 0, 0);
		assert_int_equal(v->variable.status, GS_VAR_READ_ERROR);
		assert_int_equal(v->variable.data_len, sizeof(pl));
		memcpy(&pl, v->variable.data, sizeof(pl));
		assert_int_equal(pl.errno_value, -EFAULT);
		assert_int_equal(pl.addr, 0x9000);
		assert_int_equal(inst(h, 0, 1)->format.args[0].status, GS_VAR_READ_ERROR);
		memcpy(&pl, inst(h, 0, 1)->format.args[0].data, sizeof(pl));
		assert_int_equal(pl.addr, 0xa008);
		assert_end(h, 0, 2, GS_EXEC_COMPLETE_FAILURE);
	})
}

/* A word on memory the process never touched: a read without faults fails
 * on it; a program with fault-in reads brings it in and reads it. */
static void test_fault_in_reads_memory_never_touched(void **state)
{
	const uint64_t word = 0x1122334455667788ull;
	const int32_t neg = -5;

	(void)state;
	for (int fault_in = 0; fault_in < 2; fault_in++) {
		struct harness hh = { .output = GS_OUTPUT_RINGBUF, .fault_in = fault_in };
		struct harness *h = &hh;
		const struct gs_inst *v;

		build_user_read(h, &word, &neg, true);
		assert_int_equal(h->p->sleepable, fault_in);
		run(h);
		assert_int_equal(h->nevents, 1);
		v = inst(h, 0, 0);
		if (fault_in)
			assert_int_equal((uint64_t)value_i64(&v->variable), word);
		else
			assert_int_equal(v->variable.status, GS_VAR_READ_ERROR);
		assert_int_equal(value_i64(&inst(h, 0, 1)->format.args[0]), -5);
		teardown(h);
	}
}

/* Another hit begins on the CPU while the program sleeps on a fault. */
static void another_hit(struct gs_vm *vm, void *arg)
{
	const struct harness *h = arg;
	uint32_t key = 0;
	uint64_t *gen = gs_vm_map_lookup(vm, h->map_ids[h->p->map_index[GS_MAP_READ_GEN]], &key,
					 vm->cpu);

	assert_non_null(gen);
	*gen += 1;
}

/* The per-CPU buffer may then hold the other hit's bytes: the event is
 * dropped and counted as lost; a fault with the CPU to itself is not. */
static void test_fault_in_drops_the_event_when_another_hit_ran_meanwhile(void **state)
{
	const uint64_t word = 42;
	struct harness hh = { .output = GS_OUTPUT_RINGBUF, .fault_in = true };
	struct harness *h = &hh;
	uint32_t key = 0;

	(void)state;
	build(h, "user_read");
	gs_vm_add_user_mem_absent(&h->vm, 0x7000, &word, sizeof(word), NULL);
	h->regs[REG_DI] = 0x7000;
	h->vm.on_fault = another_hit;
	h->vm.on_fault_arg = h;
	run(h);
	assert_int_equal(h->vm.nrecords, 0);
	assert_int_equal(gs_vm_map_sum_u64(&h->vm, h->map_ids[GS_MAP_LOSS], &key, 0), 1);
	/* resident now: no fault, no sleep, the event goes out */
	run(h);
	assert_int_equal(h->nevents, 1);
	assert_int_equal((uint64_t)value_i64(&inst(h, 0, 0)->variable), word);
	assert_int_equal(gs_vm_map_sum_u64(&h->vm, h->map_ids[GS_MAP_LOSS], &key, 0), 1);
	teardown(h);
}

static void test_if_else_chain_takes_one_branch(void **state)
{
	(void)state;
	EACH_OUTPUT({
		build(h, "if_else");
		run(h); /* tgid 4242: the first branch */
		assert_int_equal(h->events[0].ninsts, 2);
		assert_string_equal(inst(h, 0, 0)->string.text, "mine");
		assert_end(h, 0, 2, GS_EXEC_SUCCESS);

		h->vm.tgid = 77;
		h->vm.pid = 500;
		run(h); /* tid 500 > 100: the else-if branch */
		assert_int_equal(h->events[0].ninsts, 3);
		assert_string_equal(inst(h, 0, 0)->string.text, "big tid");
		assert_int_equal(value_i64(&inst(h, 0, 1)->variable), 500);

		h->vm.pid = 50;
		run(h); /* neither */
		assert_int_equal(h->events[0].ninsts, 2);
		assert_string_equal(inst(h, 0, 0)->string.text, "other");
	})
}

static void test_failed_condition_read_emits_expr_error_and_no_branch(void **state)
{
	const uint64_t seven = 7, eight = 8;

	(void)state;
	EACH_OUTPUT({
		const struct gs_inst *e;

		build(h, "read_condition");
		gs_vm_add_user_mem(&h->vm, 0x7000, &seven, 8, NULL);
		gs_vm_add_user_mem(&h->vm, 0x7008, &eight, 8, NULL);
		h->regs[REG_DI] = 0x7000;
		run(h);
		assert_string_equal(inst(h, 0, 0)->string.text, "seven");
		assert_end(h, 0, 1, GS_EXEC_SUCCESS);
		h->regs[REG_DI] = 0x7008;
		run(h);
		assert_string_equal(inst(h, 0, 0)->string.text, "not seven");

		h->regs[REG_DI] = 0xbad0;
		run(h);
		assert_int_equal(h->events[0].ninsts, 2);
		e = inst(h, 0, 0);
		assert_int_equal(e->type, GS_INST_EXPR_ERROR);
		assert_string_equal(e->expr_error.expr, "*(u64 *)rdi == 7");
		assert_int_equal(e->expr_error.error_code, GS_VAR_READ_ERROR);
		assert_int_equal(e->expr_error.failing_addr, 0xbad0);
		assert_end(h, 0, 1, GS_EXEC_COMPLETE_FAILURE);
	})
}

static void check_arith(struct harness *h, uint32_t tid, int64_t div, int64_t mod, int64_t sh,
			int64_t logic)
{
	const struct gs_inst *f;

	h->vm.pid = tid;
	run(h);
	f = inst(h, 0, 0);
	assert_int_equal(value_i64(&f->format.args[0]), div);
	assert_int_equal(value_i64(&f->format.args[1]), mod);
	assert_int_equal(value_i64(&f->format.args[2]), sh);
	assert_int_equal(value_i64(&f->format.args[3]), logic);
	assert_int_equal(f->format.args[3].data_len, 1); /* a bool */
}

static void test_arithmetic_follows_c_signed_semantics(void **state)
{
	(void)state;
	EACH_OUTPUT({
		build(h, "arith");
		/* x = tid * 3 - 7; x / -2, x % 5, (x << 2) >> 1, x > 0 && !(x == 5) || 0 */
		check_arith(h, 1, 2, -4, -8, 0);   /* x = -4 */
		check_arith(h, 4, -2, 0, 10, 0);   /* x = 5 */
		check_arith(h, 10, -11, 3, 46, 1); /* x = 23 */
	})
}

/* A zero divisor is an error of the expression, not BPF's 0 / dividend:
 * ExprError for a condition (no branch) and a let, the status in a print. */
static void test_division_by_zero_is_an_expression_error(void **state)
{
	(void)state;
	EACH_OUTPUT({
		const struct gs_inst *f, *e;

		build(h, "div_zero");
		h->regs[REG_DI] = 3;
		run(h);
		assert_string_equal(inst(h, 0, 0)->string.text, "positive");
		f = inst(h, 0, 1);
		assert_int_equal(value_i64(&f->format.args[0]), 2);
		assert_int_equal(value_i64(&f->format.args[1]), 1);
		assert_int_equal(inst(h, 0, 2)->variable.status, GS_VAR_DIV_BY_ZERO); /* 1 / 0 */

		h->regs[REG_DI] = 0;
		run(h);
		e = inst(h, 0, 0);
		assert_int_equal(e->type, GS_INST_EXPR_ERROR);
		assert_string_equal(e->expr_error.expr, "100 / rdi > 0");
		assert_int_equal(e->expr_error.error_code, GS_VAR_DIV_BY_ZERO);
		f = inst(h, 0, 1);
		assert_int_equal(f->format.args[0].status, GS_VAR_DIV_BY_ZERO);
		assert_int_equal(f->format.args[1].status, GS_VAR_DIV_BY_ZERO);
		e = inst(h, 0, 2);
		assert_int_equal(e->type, GS_INST_EXPR_ERROR);
		assert_string_equal(e->expr_error.expr, "9 / rdi");
		assert_int_equal(e->expr_error.error_code, GS_VAR_DIV_BY_ZERO);
		assert_int_equal(inst(h, 0, 3)->variable.status, GS_VAR_DIV_BY_ZERO);
	})
}

static void test_event_larger_than_the_buffer_is_dropped_whole_and_counted(void **state)
{
	(void)state;
	EACH_OUTPUT({
		uint32_t key = 0;

		build(h, "overflow");
		run(h);
		assert_int_equal(h->vm.nrecords, 0);
		assert_int_equal(gs_vm_map_sum_u64(&h->vm, h->map_ids[GS_MAP_LOSS], &key, 0), 1);
	})
}

static void test_failed_output_increments_the_loss_counter(void **state)
{
	(void)state;
	EACH_OUTPUT({
		uint32_t key = 0;

		build(h, "print_literal");
		h->vm.fail_outputs = 1;
		h->vm.fail_output_err = -ENOSPC;
		run(h);
		assert_int_equal(h->vm.nrecords, 0);
		assert_int_equal(gs_vm_map_sum_u64(&h->vm, h->map_ids[GS_MAP_LOSS], &key, 0), 1);
		run(h);
		assert_int_equal(h->vm.nrecords, 1);
		assert_int_equal(gs_vm_map_sum_u64(&h->vm, h->map_ids[GS_MAP_LOSS], &key, 0), 1);
	})
}

static void test_host_pid_filter_skips_other_processes(void **state)
{
	(void)state;
	EACH_OUTPUT({
		build(h, "pid_filter_host");
		run(h);
		assert_int_equal(h->nevents, 1);
		assert_int_equal(value_i64(&inst(h, 0, 0)->format.args[0]), HOST_TGID);
		h->vm.tgid = 7;
		run(h);
		assert_int_equal(h->vm.nrecords, 0);
	})
}

static void test_namespace_pid_filter_uses_the_namespace_tgid(void **state)
{
	(void)state;
	EACH_OUTPUT({
		build(h, "pid_filter_ns");
		h->vm.tgid = 90001; /* host view differs from the namespace view */
		h->vm.ns_dev = GS_CG_NS_DEV;
		h->vm.ns_ino = GS_CG_NS_INO;
		h->vm.ns_tgid = GS_CG_FILTER_PID;
		h->vm.ns_pid = GS_CG_FILTER_PID + 1;
		run(h);
		assert_int_equal(h->nevents, 1);
		assert_int_equal(h->events[0].pid, 90001);
		assert_int_equal(value_i64(&inst(h, 0, 0)->format.args[0]), GS_CG_FILTER_PID);
		h->vm.ns_ino = GS_CG_NS_INO + 1; /* another namespace: helper fails */
		run(h);
		assert_int_equal(h->vm.nrecords, 0);
	})
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_trace_emits_header_message_and_end),
		cmocka_unit_test(test_literal_is_sent_as_a_string_index),
		cmocka_unit_test(test_format_carries_pid_tid_timestamp_and_register),
		cmocka_unit_test(test_reads_report_values_and_null_deref),
		cmocka_unit_test(test_failed_reads_carry_errno_and_address),
		cmocka_unit_test(test_fault_in_reads_memory_never_touched),
		cmocka_unit_test(test_fault_in_drops_the_event_when_another_hit_ran_meanwhile),
		cmocka_unit_test(test_if_else_chain_takes_one_branch),
		cmocka_unit_test(test_failed_condition_read_emits_expr_error_and_no_branch),
		cmocka_unit_test(test_arithmetic_follows_c_signed_semantics),
		cmocka_unit_test(test_division_by_zero_is_an_expression_error),
		cmocka_unit_test(test_event_larger_than_the_buffer_is_dropped_whole_and_counted),
		cmocka_unit_test(test_failed_output_increments_the_loss_counter),
		cmocka_unit_test(test_host_pid_filter_skips_other_processes),
		cmocka_unit_test(test_namespace_pid_filter_uses_the_namespace_tgid),
	};

	return cmocka_run_group_tests_name("vm-codegen", tests, NULL, NULL);
}
