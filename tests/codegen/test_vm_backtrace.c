/* Backtraces run on the test VM over synthetic stacks and hand-built row
 * tables: every status and error code (docs/protocol.md, "Backtraces"),
 * frames checked byte for byte, the tail-call path to depth 128, chained
 * statements, the step budget, module changes, and a plain C walker over the
 * same rows as the differential reference. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/program.h>
#include <gs/decode.h>

#include "cg_specs.h"
#include "cg_vm.h"

#define TGID 4242u
#define BIAS 0x555555554000ull    /* the probe module's load bias */
#define BIAS2 0x7f0000000000ull   /* a second module's */
#define COOKIE2 0xaabbccdd00112233ull
#define STACK 0x7ffd00000000ull   /* lowest address of the fake stack */
#define STACK_SIZE 0x4000
#define FN(i) (0x2000ull + 0x100ull * (i)) /* link address of caller function i */

struct bt_harness {
	struct gs_vm vm;
	struct gs_program *p;
	uint32_t map_ids[16];
	int prog, step;
	uint64_t regs[21];
	uint8_t stack[STACK_SIZE];
	struct gs_decoder *dec;
	const struct gs_trace_context *contexts[32];
	/* the Backtrace instructions of the one decoded event */
	struct gs_backtrace_data bt[2];
	struct gs_backtrace_frame frames[2][GS_BT_MAX_DEPTH];
	size_t nbt, nevents;
};

static const struct gs_cg_case *find_case(const char *name)
{
	for (size_t i = 0; i < gs_cg_ncases; i++)
		if (strcmp(gs_cg_cases[i].name, name) == 0)
			return &gs_cg_cases[i];
	fail_msg("no case %s", name);
	return NULL;
}

static void setup(struct bt_harness *h, const char *name)
{
	const struct gs_cg_case *c = find_case(name);
	struct gs_program_opts o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
	struct gs_error err;

	memset(h, 0, sizeof(*h));
	if (gs_program_build(c->spec, &o, &h->p, &err))
		fail_msg("%s: %s", name, err.msg);
	gs_vm_init(&h->vm);
	h->vm.tgid = TGID;
	h->vm.pid = TGID;
	h->prog = gs_cg_vm_load(&h->vm, h->p, h->map_ids, &h->step, &err);
	if (h->prog < 0)
		fail_msg("%s: %s", name, err.msg);
	h->contexts[h->p->trace_id] = &h->p->ctx;
	h->regs[128 / 8] = BIAS + GS_CG_PROBE_PC; /* ip */
	h->regs[152 / 8] = STACK;                 /* sp */
	h->regs[32 / 8] = 0x1234;                 /* bp */
}

static void teardown(struct bt_harness *h)
{
	gs_decoder_free(h->dec);
	gs_vm_fini(&h->vm);
	gs_program_free(h->p);
}

static uint32_t map_of(struct bt_harness *h, enum gs_map_slot kind)
{
	assert_true(h->p->map_index[kind] >= 0);
	return h->map_ids[h->p->map_index[kind]];
}

static void put(struct bt_harness *h, enum gs_map_slot kind, const void *key, const void *value)
{
	struct gs_error err;

	if (gs_vm_map_update(&h->vm, map_of(h, kind), key, value, &err))
		fail_msg("%s", err.msg);
}

/* proc_module_offsets[{TGID, cookie}] = bias (the module is known). */
static void put_offsets(struct bt_harness *h, uint64_t cookie, uint64_t bias)
{
	struct gs_proc_module_key key = { .pid = TGID, .cookie_lo = (uint32_t)cookie,
					  .cookie_hi = (uint32_t)(cookie >> 32) };
	struct gs_proc_module_offsets v = { bias, bias, bias, bias, bias, 0x100000 };

	put(h, GS_MAP_PROC_OFFSETS, &key, &v);
}

/* A caller row: CFA = rsp + 32, RA at CFA - 8, rbp unchanged. */
static struct gs_unwind_row rsp_row(uint64_t start, uint64_t end)
{
	return (struct gs_unwind_row){ .pc_start = start, .pc_end = end, .cfa_offset = 32,
				       .ra_offset = -8, .cfa_register = GS_DWARF_REG_RSP,
				       .ra_register = GS_DWARF_REG_RIP,
				       .rbp_register = GS_DWARF_REG_RBP,
				       .ra_kind = GS_RECOVERY_AT_CFA_OFFSET,
				       .rbp_kind = GS_RECOVERY_SAME_VALUE };
}

static void put_row(struct bt_harness *h, uint32_t index, const struct gs_unwind_row *row)
{
	put(h, GS_MAP_BT_ROWS, &index, row);
}

/* Rows 0..3: caller functions 0..3 with rsp-based frames. */
static void put_rsp_rows(struct bt_harness *h)
{
	for (uint32_t i = 0; i < GS_CG_BT_ROWS; i++) {
		struct gs_unwind_row r = rsp_row(FN(i), FN(i + 1));

		put_row(h, i, &r);
	}
}

static void stack_u64(struct bt_harness *h, uint64_t addr, uint64_t v)
{
	assert_true(addr >= STACK && addr + 8 <= STACK + STACK_SIZE);
	memcpy(h->stack + (addr - STACK), &v, 8);
}

/* A chain of rsp frames: frame 0's CFA is sp + 16; each return address
 * lands 0x10 into function fn[i]; 0 ends the chain. */
static void chain(struct bt_harness *h, const uint32_t *fn, size_t n, bool end_with_zero)
{
	uint64_t cfa = STACK + 16;

	for (size_t i = 0; i < n; i++) {
		stack_u64(h, cfa - 8, BIAS + FN(fn[i]) + 0x10);
		cfa += 32;
	}
	if (end_with_zero)
		stack_u64(h, cfa - 8, 0);
}

static int keep_event(void *arg, const struct gs_event *ev)
{
	struct bt_harness *h = arg;

	h->nevents++;
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type != GS_INST_BACKTRACE)
			continue;
		assert_true(h->nbt < 2);
		h->bt[h->nbt] = (struct gs_backtrace_data){
			.requested_depth = in->backtrace.requested_depth,
			.frame_count = in->backtrace.frame_count,
			.flags = in->backtrace.flags, .status = in->backtrace.status,
			.error_code = in->backtrace.error_code };
		memcpy(h->frames[h->nbt], in->backtrace.frames,
		       in->backtrace.frame_count * sizeof(struct gs_backtrace_frame));
		h->nbt++;
	}
	return 0;
}

static void run(struct bt_harness *h)
{
	GS_OPTS(gs_decoder_opts, dopts, .contexts = h->contexts, .ncontexts = 32);
	struct gs_error err;
	uint64_t r0;

	gs_vm_add_user_mem(&h->vm, STACK, h->stack, sizeof(h->stack), NULL);
	if (gs_vm_run(&h->vm, (uint32_t)h->prog, h->regs, sizeof(h->regs), &r0, &err))
		fail_msg("vm: %s", err.msg);
	if (gs_decoder_new(&dopts, &h->dec, &err))
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < h->vm.nrecords; i++)
		if (gs_decoder_feed(h->dec, h->vm.records[i].data, h->vm.records[i].size,
				    keep_event, h, &err) < 0)
			fail_msg("decode: %s", err.msg);
	assert_int_equal(h->nevents, 1);
}

static void assert_frame(const struct gs_backtrace_frame *f, uint64_t cookie, uint64_t bias,
			 uint64_t raw)
{
	assert_int_equal(f->module_cookie, cookie);
	assert_int_equal(f->raw_ip, raw);
	assert_int_equal(f->pc, raw - bias);
	assert_int_equal(f->flags, 0);
}

static void assert_bt(const struct bt_harness *h, size_t i, uint8_t frames, uint8_t status,
		      uint16_t code)
{
	assert_true(i < h->nbt);
	if (h->bt[i].frame_count != frames || h->bt[i].status != status ||
	    h->bt[i].error_code != code)
		fail_msg("backtrace %zu: %u frames, status %u, code %u; expected %u, %u, %u", i,
			 h->bt[i].frame_count, h->bt[i].status, h->bt[i].error_code, frames,
			 status, code);
}

static void test_rsp_frames_unwind_to_the_requested_depth(void **state)
{
	static const uint32_t fns[] = { 0, 1, 2, 3, 1, 2 };
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	chain(&h, fns, 6, true);
	run(&h);
	assert_int_equal(h.bt[0].requested_depth, 5);
	assert_int_equal(h.bt[0].flags, GS_BT_FLAG_FULL | GS_BT_FLAG_INLINE);
	assert_bt(&h, 0, 5, GS_BT_TRUNCATED, 0);
	assert_frame(&h.frames[0][0], GS_CG_PROBE_COOKIE, BIAS, BIAS + GS_CG_PROBE_PC);
	for (int i = 1; i < 5; i++)
		assert_frame(&h.frames[0][i], GS_CG_PROBE_COOKIE, BIAS, BIAS + FN(fns[i - 1]) + 0x10);
	teardown(&h);
}

static void test_zero_return_address_completes_the_walk(void **state)
{
	static const uint32_t fns[] = { 2, 3 };
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	chain(&h, fns, 2, true);
	run(&h);
	assert_bt(&h, 0, 3, GS_BT_COMPLETE, 0);
	teardown(&h);
}

static void test_rbp_frame_reads_saved_rbp_at_cfa_minus_16(void **state)
{
	static const uint32_t fns[] = { 1 };
	struct bt_harness h;
	/* function 1 keeps a classic frame: CFA = rbp + 16 */
	struct gs_unwind_row r = rsp_row(FN(1), FN(2));
	uint64_t rbp1 = STACK + 0x200;

	(void)state;
	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	r.cfa_register = GS_DWARF_REG_RBP;
	r.cfa_offset = 16;
	put_row(&h, 1, &r);
	chain(&h, fns, 1, false);
	h.regs[32 / 8] = rbp1;
	stack_u64(&h, rbp1 + 8, BIAS + FN(2) + 0x10); /* return address */
	stack_u64(&h, rbp1, STACK + 0x400);           /* caller's rbp */
	stack_u64(&h, rbp1 + 16 + 32 - 8, 0);         /* function 2 returns to 0 */
	run(&h);
	assert_bt(&h, 0, 3, GS_BT_COMPLETE, 0);
	assert_frame(&h.frames[0][2], GS_CG_PROBE_COOKIE, BIAS, BIAS + FN(2) + 0x10);
	teardown(&h);
}

static void test_faulting_return_address_read_is_code_1(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	h.regs[152 / 8] = 0x10000; /* frame 0's return address is unmapped */
	run(&h);
	assert_bt(&h, 0, 1, GS_BT_READ_ERROR, GS_BT_ERROR_RETURN_ADDRESS_READ);
	teardown(&h);
}

static void test_faulting_saved_rbp_read_is_code_2(void **state)
{
	static const uint32_t fns[] = { 1 };
	struct bt_harness h;
	struct gs_unwind_row r = rsp_row(FN(1), FN(2));

	(void)state;
	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	r.cfa_register = GS_DWARF_REG_RBP;
	r.cfa_offset = 16;
	put_row(&h, 1, &r);
	chain(&h, fns, 1, false);
	/* rbp + 8 (the return address) is readable, rbp itself is not */
	h.regs[32 / 8] = STACK - 8;
	stack_u64(&h, STACK, BIAS + FN(2) + 0x10);
	run(&h);
	assert_bt(&h, 0, 2, GS_BT_READ_ERROR, GS_BT_ERROR_FRAME_POINTER_READ);
	teardown(&h);
}

static void check_bad_return_address(uint64_t ra, uint16_t code)
{
	struct bt_harness h;

	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	stack_u64(&h, STACK + 8, ra);
	run(&h);
	assert_bt(&h, 0, 1, GS_BT_INVALID_FRAME, code);
	teardown(&h);
}

static void test_return_address_below_0x1000_is_code_3(void **state)
{
	(void)state;
	check_bad_return_address(0x800, GS_BT_ERROR_NEXT_IP_BELOW_USER);
}

static void test_kernel_like_return_address_is_code_4(void **state)
{
	(void)state;
	check_bad_return_address(0xffff800000401000ull, GS_BT_ERROR_NEXT_IP_KERNEL_LIKE);
}

static void test_cfa_zero_is_code_5(void **state)
{
	static const uint32_t fns[] = { 1 };
	struct bt_harness h;
	/* CFA = rbp + 0 with rbp 0; the return address is read at 0 + offset */
	struct gs_unwind_row r = rsp_row(FN(1), FN(2));

	(void)state;
	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	r.cfa_register = GS_DWARF_REG_RBP;
	r.cfa_offset = 0;
	r.ra_offset = (int64_t)(STACK + 0x800);
	put_row(&h, 1, &r);
	chain(&h, fns, 1, false);
	h.regs[32 / 8] = 0;
	stack_u64(&h, STACK + 0x800, BIAS + FN(2) + 0x10);
	run(&h);
	assert_bt(&h, 0, 2, GS_BT_INVALID_FRAME, GS_BT_ERROR_NEXT_CFA_ZERO);
	teardown(&h);
}

static void test_frame_that_does_not_advance_is_code_6(void **state)
{
	static const uint32_t fns[] = { 1 };
	struct bt_harness h;
	/* CFA = rsp + 0 and the return address is the frame's own ip */
	struct gs_unwind_row r = rsp_row(FN(1), FN(2));
	uint64_t cfa1 = STACK + 16;

	(void)state;
	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	r.cfa_offset = 0;
	r.ra_offset = 8;
	put_row(&h, 1, &r);
	chain(&h, fns, 1, false);
	stack_u64(&h, cfa1 + 8, BIAS + FN(1) + 0x10);
	run(&h);
	assert_bt(&h, 0, 2, GS_BT_INVALID_FRAME, GS_BT_ERROR_NEXT_CFA_NOT_ADVANCING);
	teardown(&h);
}

static void test_caller_pc_without_a_row_stops_the_walk(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth5");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	stack_u64(&h, STACK + 8, BIAS + 0x9000); /* no row covers 0x9000 */
	run(&h);
	assert_bt(&h, 0, 2, GS_BT_NO_UNWIND_ROWS_FOR_PC, 0);
	teardown(&h);
}

static void test_missing_probe_offsets_report_offsets_unavailable(void **state)
{
	static const uint32_t fns[] = { 0, 1, 2, 3 };
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth5");
	put_rsp_rows(&h);
	chain(&h, fns, 4, true);
	run(&h);
	assert_bt(&h, 0, 2, GS_BT_OFFSETS_UNAVAILABLE, 0);
	/* unknown bias: pc is the raw ip */
	assert_int_equal(h.frames[0][0].pc, BIAS + GS_CG_PROBE_PC);
	teardown(&h);
}

static void test_depth_one_and_two_stop_truncated(void **state)
{
	static const uint32_t fns[] = { 0, 1 };
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth1");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	run(&h);
	assert_bt(&h, 0, 1, GS_BT_TRUNCATED, 0);
	teardown(&h);
	setup(&h, "bt_depth2");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	chain(&h, fns, 2, true);
	run(&h);
	assert_bt(&h, 0, 2, GS_BT_TRUNCATED, 0);
	teardown(&h);
}

static void test_without_rows_or_dwarf_the_status_says_so(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_no_rows");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	run(&h);
	assert_bt(&h, 0, 1, GS_BT_NO_UNWIND_ROWS_FOR_PC, 0);
	teardown(&h);
	setup(&h, "bt_no_dwarf");
	run(&h);
	assert_bt(&h, 0, 0, GS_BT_DWARF_UNAVAILABLE, 0);
	teardown(&h);
}

/* A recursive chain through function 1, long enough for any depth. */
static void deep_chain(struct bt_harness *h, size_t n)
{
	uint32_t *fns = calloc(n, sizeof(*fns));

	for (size_t i = 0; i < n; i++)
		fns[i] = 1;
	chain(h, fns, n, true);
	free(fns);
}

static void test_depth_128_goes_through_tail_calls(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth128");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	deep_chain(&h, 300);
	run(&h);
	assert_bt(&h, 0, 128, GS_BT_TRUNCATED, 0);
	for (int i = 1; i < 128; i++)
		assert_frame(&h.frames[0][i], GS_CG_PROBE_COOKIE, BIAS, BIAS + FN(1) + 0x10);
	/* 5 frames inline, then 4 per step invocation: 31 tail calls */
	assert_int_equal(h.vm.stats.tail_calls, 31);
	teardown(&h);
}

static void test_depth_7_ends_complete_inside_the_step_program(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth7");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	deep_chain(&h, 5);
	run(&h);
	assert_bt(&h, 0, 6, GS_BT_COMPLETE, 0);
	teardown(&h);
	setup(&h, "bt_depth7");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	deep_chain(&h, 40);
	run(&h);
	assert_bt(&h, 0, 7, GS_BT_TRUNCATED, 0);
	teardown(&h);
}

/* Module ranges: the walk crosses from the probe module into a second one
 * with its own cookie, bias and rows. */
static void put_two_modules(struct bt_harness *h)
{
	struct gs_module_row_range r1 = { 0, GS_CG_BT_ROWS }, r2 = { GS_CG_BT_ROWS, GS_CG_BT_ROWS + 2 };
	uint64_t c1 = GS_CG_PROBE_COOKIE, c2 = COOKIE2;
	struct gs_proc_module_range_meta meta = { .active_slot = 1, .count = 2 };
	struct gs_proc_module_range ranges[2] = {
		{ BIAS, BIAS + 0x100000, BIAS, (uint32_t)c1, (uint32_t)(c1 >> 32) },
		{ BIAS2, BIAS2 + 0x100000, BIAS2, (uint32_t)c2, (uint32_t)(c2 >> 32) },
	};
	uint32_t pid = TGID;

	put_offsets(h, c1, BIAS);
	put_rsp_rows(h);
	for (uint32_t i = 0; i < 2; i++) {
		struct gs_unwind_row r = rsp_row(FN(10 + i), FN(11 + i));
		struct gs_proc_module_range_key key = { .pid = TGID, .slot = 1, .index = i };

		put_row(h, GS_CG_BT_ROWS + i, &r);
		put(h, GS_MAP_RANGES, &key, &ranges[i]);
	}
	put(h, GS_MAP_BT_ROW_RANGES, &c1, &r1);
	put(h, GS_MAP_BT_ROW_RANGES, &c2, &r2);
	put(h, GS_MAP_RANGE_META, &pid, &meta);
}

static void test_walk_crosses_into_another_module(void **state)
{
	struct bt_harness h;
	uint64_t cfa = STACK + 16;

	(void)state;
	setup(&h, "bt_modules_depth5");
	put_two_modules(&h);
	/* probe -> fn 0 (module 1) -> fn 10 (module 2) -> fn 11 (module 2) -> 0 */
	stack_u64(&h, cfa - 8, BIAS + FN(0) + 0x10);
	stack_u64(&h, cfa + 32 - 8, BIAS2 + FN(10) + 0x10);
	stack_u64(&h, cfa + 64 - 8, BIAS2 + FN(11) + 0x10);
	stack_u64(&h, cfa + 96 - 8, 0);
	run(&h);
	assert_bt(&h, 0, 4, GS_BT_COMPLETE, 0);
	assert_frame(&h.frames[0][1], GS_CG_PROBE_COOKIE, BIAS, BIAS + FN(0) + 0x10);
	assert_frame(&h.frames[0][2], COOKIE2, BIAS2, BIAS2 + FN(10) + 0x10);
	assert_frame(&h.frames[0][3], COOKIE2, BIAS2, BIAS2 + FN(11) + 0x10);
	teardown(&h);
}

static void test_ip_outside_every_module_keeps_raw_pc(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_modules_depth5");
	put_two_modules(&h);
	stack_u64(&h, STACK + 8, 0x600000001000ull); /* in no module */
	run(&h);
	/* the frame keeps the last module's cookie, its pc is the raw ip, and
	 * no rows are found for it */
	assert_bt(&h, 0, 2, GS_BT_OFFSETS_UNAVAILABLE, 0);
	assert_int_equal(h.frames[0][1].module_cookie, GS_CG_PROBE_COOKIE);
	assert_int_equal(h.frames[0][1].pc, 0x600000001000ull);
	teardown(&h);
}

static void test_two_chained_statements_share_the_tail_budget(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_two");
	put_two_modules(&h);
	deep_chain(&h, 300);
	run(&h);
	assert_int_equal(h.nbt, 2);
	assert_bt(&h, 0, 128, GS_BT_TRUNCATED, 0);
	/* the first walk used 31 of the 32 step calls; the second gets one */
	assert_bt(&h, 1, 9, GS_BT_TRUNCATED, 0);
	assert_int_equal(h.bt[1].flags, GS_BT_FLAG_RAW);
	teardown(&h);
}

static void test_failed_bt_state_lookup_is_internal_error(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_depth128");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	deep_chain(&h, 300);
	gs_vm_fail_lookups(&h.vm, map_of(&h, GS_MAP_BT_STATE), true);
	run(&h);
	assert_bt(&h, 0, 5, GS_BT_INTERNAL_ERROR, 0);
	assert_int_equal(h.vm.stats.tail_calls, 0);
	teardown(&h);
}

static void test_bt_in_both_branches_links_only_the_taken_one(void **state)
{
	struct bt_harness h;

	(void)state;
	setup(&h, "bt_if_else");
	put_offsets(&h, GS_CG_PROBE_COOKIE, BIAS);
	put_rsp_rows(&h);
	deep_chain(&h, 300);
	h.vm.pid = 7; /* odd tid: the else branch, slot 1 */
	run(&h);
	assert_int_equal(h.nbt, 1);
	assert_int_equal(h.bt[0].flags, GS_BT_FLAG_RAW);
	assert_bt(&h, 0, 128, GS_BT_TRUNCATED, 0);
	teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rsp_frames_unwind_to_the_requested_depth),
		cmocka_unit_test(test_zero_return_address_completes_the_walk),
		cmocka_unit_test(test_rbp_frame_reads_saved_rbp_at_cfa_minus_16),
		cmocka_unit_test(test_faulting_return_address_read_is_code_1),
		cmocka_unit_test(test_faulting_saved_rbp_read_is_code_2),
		cmocka_unit_test(test_return_address_below_0x1000_is_code_3),
		cmocka_unit_test(test_kernel_like_return_address_is_code_4),
		cmocka_unit_test(test_cfa_zero_is_code_5),
		cmocka_unit_test(test_frame_that_does_not_advance_is_code_6),
		cmocka_unit_test(test_caller_pc_without_a_row_stops_the_walk),
		cmocka_unit_test(test_missing_probe_offsets_report_offsets_unavailable),
		cmocka_unit_test(test_depth_one_and_two_stop_truncated),
		cmocka_unit_test(test_without_rows_or_dwarf_the_status_says_so),
		cmocka_unit_test(test_depth_128_goes_through_tail_calls),
		cmocka_unit_test(test_depth_7_ends_complete_inside_the_step_program),
		cmocka_unit_test(test_walk_crosses_into_another_module),
		cmocka_unit_test(test_ip_outside_every_module_keeps_raw_pc),
		cmocka_unit_test(test_two_chained_statements_share_the_tail_budget),
		cmocka_unit_test(test_failed_bt_state_lookup_is_internal_error),
		cmocka_unit_test(test_bt_in_both_branches_links_only_the_taken_one),
	};

	return cmocka_run_group_tests_name("vm-backtrace", tests, NULL, NULL);
}
