/* Source-level values run on the test VM: hand-built pt_regs, user memory
 * and proc_module_offsets, the programs of cg_value_specs.c, and the bytes
 * each value leaves in the event, decoded: every location kind, chains
 * through pointers, bit fields, strings and dumps, the statuses of NULL,
 * unreadable memory and missing offsets, and comparisons. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base.h"
#include "vm_values.h"

/* struct rec as cg_value_specs.c types it. */
static void put_rec(uint8_t *b, int32_t id, int32_t x, int32_t y, const char *name,
		    uint64_t next, const int32_t values[4], uint8_t bits0, uint8_t bits1)
{
	memset(b, 0, GS_CGV_REC_SIZE);
	memcpy(b + GS_CGV_REC_ID, &id, 4);
	memcpy(b + GS_CGV_REC_POS, &x, 4);
	memcpy(b + GS_CGV_REC_POS + 4, &y, 4);
	strncpy((char *)b + GS_CGV_REC_NAME, name, 16);
	memcpy(b + GS_CGV_REC_NEXT, &next, 8);
	memcpy(b + GS_CGV_REC_VALUES, values, 16);
	b[GS_CGV_REC_BITS] = bits0;
	b[GS_CGV_REC_BITS + 1] = bits1;
}

static void test_register_value_is_its_low_bytes(void **state)
{
	struct harness hh, *h = &hh;

	(void)state;
	vmv_build(h, "val_register");
	h->regs[REG(112)] = 0xffffffff00000000ull | (uint32_t)-12345; /* rdi */
	vmv_run(h);
	assert_int_equal(vmv_i32(vmv_var(h, 0)), -12345);
	assert_string_equal(vmv_var(h, 0)->name, "n");
	assert_string_equal(vmv_var(h, 0)->type->name, "int");
	assert_int_equal(vmv_end_status(h), GS_EXEC_SUCCESS);
	vmv_teardown(h);
}

static void test_stack_value_is_read_at_the_cfa_offset(void **state)
{
	struct harness hh, *h = &hh;
	int32_t pt[2] = { 11, -22 };

	(void)state;
	vmv_build(h, "val_stack_cfa");
	/* s lives at CFA - 24 = rsp + 16 - 24 */
	vmv_user_mem(h, STACK_SP - 8, pt, sizeof(pt));
	vmv_run(h);
	assert_int_equal(vmv_var(h, 0)->data_len, 8);
	assert_memory_equal(vmv_var(h, 0)->data, pt, 8);
	assert_string_equal(vmv_var(h, 0)->type->name, "struct point");
	assert_int_equal(vmv_var(h, 0)->type->nmembers, 2);
	assert_int_equal(vmv_i32(vmv_var(h, 1)), -22);
	vmv_teardown(h);
}

static void test_global_is_rebased_by_the_module_bias(void **state)
{
	struct harness hh, *h = &hh;
	int32_t g = 4242;

	(void)state;
	vmv_build(h, "val_global");
	vmv_module_offsets(h);
	vmv_user_mem(h, BIAS + GS_CGV_GLOBAL_ADDR, &g, 4);
	vmv_run(h);
	assert_int_equal(vmv_i32(vmv_var(h, 0)), 4242);
	vmv_teardown(h);
}

static void test_global_without_offsets_is_offsets_unavailable(void **state)
{
	struct harness hh, *h = &hh;

	(void)state;
	vmv_build(h, "val_global");
	vmv_run(h);
	assert_int_equal(vmv_var(h, 0)->status, GS_VAR_OFFSETS_UNAVAILABLE);
	assert_int_equal(vmv_var(h, 0)->data_len, 0);
	assert_int_equal(vmv_end_status(h), GS_EXEC_COMPLETE_FAILURE);
	vmv_teardown(h);
}

static void test_unreadable_global_is_a_read_error_with_its_address(void **state)
{
	struct harness hh, *h = &hh;
	struct gs_read_error_payload e;

	(void)state;
	vmv_build(h, "val_global");
	vmv_module_offsets(h);
	vmv_run(h);
	assert_int_equal(vmv_var(h, 0)->status, GS_VAR_READ_ERROR);
	assert_int_equal(vmv_var(h, 0)->data_len, sizeof(e));
	memcpy(&e, vmv_var(h, 0)->data, sizeof(e));
	assert_int_equal(e.errno_value, -EFAULT);
	assert_int_equal(e.addr, BIAS + GS_CGV_GLOBAL_ADDR);
	vmv_teardown(h);
}

static void test_composite_pieces_come_from_their_registers(void **state)
{
	struct harness hh, *h = &hh;
	int32_t want[2] = { 7, -8 };

	(void)state;
	vmv_build(h, "val_composite");
	h->regs[REG(80)] = 0xdead000000000007ull;             /* rax: x */
	h->regs[REG(96)] = 0xbeef000000000000ull | (uint32_t)-8; /* rdx: y */
	vmv_run(h);
	assert_memory_equal(vmv_var(h, 0)->data, want, 8);
	assert_int_equal(vmv_i32(vmv_var(h, 1)), -8);
	vmv_teardown(h);
}

static void test_list_entry_register_holds_the_pointer(void **state)
{
	struct harness hh, *h = &hh;
	uint64_t ptr;

	(void)state;
	vmv_build(h, "val_list_entry");
	h->regs[REG(104)] = REC_ADDR; /* rsi */
	vmv_run(h);
	memcpy(&ptr, vmv_var(h, 0)->data, 8);
	assert_int_equal(ptr, REC_ADDR);
	assert_string_equal(vmv_var(h, 0)->type->name, "struct rec *");
	assert_string_equal(vmv_var(h, 0)->type->target->name, "struct rec");
	vmv_teardown(h);
}

static void test_optimized_out_has_no_bytes_and_constants_print(void **state)
{
	struct harness hh, *h = &hh;

	(void)state;
	vmv_build(h, "val_optimized_out");
	vmv_run(h);
	assert_int_equal(vmv_var(h, 0)->kind, GS_TYPE_OPTIMIZED_OUT);
	assert_int_equal(vmv_var(h, 0)->data_len, 0);
	assert_string_equal(vmv_var(h, 0)->type->name, "int");
	assert_int_equal(vmv_arg(h, 1, 0)->kind, GS_TYPE_OPTIMIZED_OUT);
	assert_int_equal(vmv_i32(vmv_arg(h, 1, 1)), 7);
	vmv_teardown(h);
}

static void test_chains_follow_pointers_index_and_bit_fields(void **state)
{
	struct harness hh, *h = &hh;
	static const int32_t values[4] = { 100, 200, 300, 400 };
	uint8_t rec[GS_CGV_REC_SIZE], next[GS_CGV_REC_SIZE];
	/* a = 5, b = 19, c = -9 (7 bits) */
	uint8_t bits0 = 5 | 19 << 3, bits1 = (uint8_t)(-9 & 0x7f);

	(void)state;
	vmv_build(h, "val_chain");
	put_rec(rec, 7, 1, -2, "alpha", NEXT_ADDR, values, bits0, bits1);
	put_rec(next, 99, 0, 0, "beta", 0, values, 0, 0);
	vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
	vmv_user_mem(h, NEXT_ADDR, next, sizeof(next));
	h->regs[REG(104)] = REC_ADDR;
	h->vm.pid = 4243; /* $tid % 4 == 3 */
	vmv_run(h);
	assert_int_equal(vmv_i32(vmv_arg(h, 0, 0)), -2);
	assert_int_equal(vmv_i32(vmv_arg(h, 0, 1)), 300);
	assert_int_equal(vmv_i32(vmv_arg(h, 0, 2)), 400);
	assert_int_equal(vmv_i32(vmv_arg(h, 0, 3)), 99);
	assert_int_equal(vmv_i32(vmv_arg(h, 0, 4)), 19);
	assert_int_equal(vmv_i32(vmv_arg(h, 0, 5)), -9);
	assert_int_equal(vmv_var(h, 1)->data_len, GS_CGV_REC_SIZE);
	assert_memory_equal(vmv_var(h, 1)->data, next, GS_CGV_REC_SIZE);
	assert_int_equal(vmv_end_status(h), GS_EXEC_SUCCESS);
	vmv_teardown(h);
}

static void test_null_pointer_in_a_chain_is_null_deref(void **state)
{
	struct harness hh, *h = &hh;
	static const int32_t values[4] = { 1, 2, 3, 4 };
	uint8_t rec[GS_CGV_REC_SIZE];

	(void)state;
	vmv_build(h, "val_chain");
	put_rec(rec, 7, 1, -2, "alpha", 0, values, 0, 0);
	vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
	h->regs[REG(104)] = REC_ADDR;
	vmv_run(h);
	assert_int_equal(vmv_i32(vmv_arg(h, 0, 0)), -2);
	assert_int_equal(vmv_arg(h, 0, 3)->status, GS_VAR_NULL_DEREF);
	assert_int_equal(vmv_var(h, 1)->status, GS_VAR_NULL_DEREF);
	assert_int_equal(vmv_var(h, 1)->data_len, 0);
	assert_int_equal(vmv_end_status(h), GS_EXEC_PARTIAL_FAILURE);
	vmv_teardown(h);
}

static void test_strings_stop_at_nul_and_dumps_copy_bytes(void **state)
{
	struct harness hh, *h = &hh;
	static const int32_t values[4] = { 1, 2, 3, 4 };
	uint8_t rec[GS_CGV_REC_SIZE];
	uint64_t name_ptr = NAME_ADDR;
	static const char long_name[] = "fixture-name-longer-than-the-32-byte-cap";

	(void)state;
	vmv_build(h, "val_strings");
	put_rec(rec, 7, 1, -2, "alpha", 0, values, 0, 0);
	vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
	vmv_user_mem(h, BIAS + GS_CGV_NAME_PTR_ADDR, &name_ptr, 8);
	vmv_user_mem(h, NAME_ADDR, long_name, sizeof(long_name));
	vmv_module_offsets(h);
	h->regs[REG(104)] = REC_ADDR;
	vmv_run(h);
	assert_int_equal(vmv_arg(h, 0, 0)->kind, GS_TYPE_CSTRING);
	assert_int_equal(vmv_arg(h, 0, 0)->status, GS_VAR_OK);
	assert_string_equal((const char *)vmv_arg(h, 0, 0)->data, "alpha");
	/* capped at 32 characters, marked Truncated: the string goes on */
	assert_int_equal(vmv_arg(h, 0, 1)->status, GS_VAR_TRUNCATED);
	assert_int_equal(strlen((const char *)vmv_arg(h, 0, 1)->data), 32);
	assert_memory_equal(vmv_arg(h, 0, 1)->data, long_name, 32);
	assert_int_equal(vmv_arg(h, 0, 2)->type->byte_size, 8);
	assert_memory_equal(vmv_arg(h, 0, 2)->data, rec, 8);
	vmv_teardown(h);
}

/* {:s} is C's string: a char[16] holding 16 characters and no NUL shows
 * all 16; a string of exactly the cap is whole, not Truncated. */
static void test_strings_show_full_arrays_and_exactly_cap_bytes(void **state)
{
	struct harness hh, *h = &hh;
	static const int32_t values[4] = { 1, 2, 3, 4 };
	static const char exact[] = "0123456789abcdefghijklmnopqrstuv"; /* 32 */
	uint8_t rec[GS_CGV_REC_SIZE];
	uint64_t name_ptr = NAME_ADDR;

	(void)state;
	vmv_build(h, "val_strings");
	put_rec(rec, 7, 1, -2, "", 0, values, 0, 0);
	memcpy(rec + GS_CGV_REC_NAME, "sixteen-chars-xy", 16);
	rec[GS_CGV_REC_NAME + 16] = 'Z'; /* past the array: never shown */
	vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
	vmv_user_mem(h, BIAS + GS_CGV_NAME_PTR_ADDR, &name_ptr, 8);
	vmv_user_mem(h, NAME_ADDR, exact, sizeof(exact));
	vmv_module_offsets(h);
	h->regs[REG(104)] = REC_ADDR;
	vmv_run(h);
	assert_int_equal(vmv_arg(h, 0, 0)->status, GS_VAR_OK);
	assert_int_equal(vmv_arg(h, 0, 0)->data_len, 16);
	assert_memory_equal(vmv_arg(h, 0, 0)->data, "sixteen-chars-xy", 16);
	assert_int_equal(vmv_arg(h, 0, 1)->status, GS_VAR_OK);
	assert_string_equal((const char *)vmv_arg(h, 0, 1)->data, exact);
	assert_int_equal(vmv_end_status(h), GS_EXEC_SUCCESS);
	vmv_teardown(h);
}

/* An event that would outgrow max_trace_event_size captures the value to
 * what fits, Truncated, instead of vanishing. */
static void test_value_past_the_event_size_is_captured_to_what_fits(void **state)
{
	struct harness hh, *h = &hh;
	static const int32_t values[4] = { 1, 2, 3, 4 };
	uint8_t rec[GS_CGV_REC_SIZE];
	uint32_t key = 0;

	(void)state;
	vmv_build(h, "val_budget");
	put_rec(rec, 7, 1, -2, "alpha", 0, values, 0, 0);
	vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
	h->regs[REG(104)] = REC_ADDR;
	vmv_run(h);
	assert_int_equal(vmv_i32(vmv_arg(h, 0, 0)), -2);
	assert_int_equal(vmv_var(h, 1)->status, GS_VAR_TRUNCATED);
	assert_true(vmv_var(h, 1)->data_len >= 12 && vmv_var(h, 1)->data_len < GS_CGV_REC_SIZE);
	assert_memory_equal(vmv_var(h, 1)->data, rec, vmv_var(h, 1)->data_len);
	assert_int_equal(vmv_end_status(h), GS_EXEC_PARTIAL_FAILURE);
	assert_int_equal(gs_vm_map_sum_u64(&h->vm, h->map_ids[GS_MAP_LOSS], &key, 0), 0);
	vmv_teardown(h);
}

/* .* dumps as many bytes as the argument before says, capped at the
 * string cap (8 here: more is Truncated); 0 or less, or a length that
 * failed, is ZeroLength. */
static void test_runtime_lengths_read_what_the_length_says(void **state)
{
	static const int64_t lens[] = { 3, 100, -1 };
	static const int32_t values[4] = { 0x11111111, 0x22222222, 0x33333333, 0x44444444 };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct harness hh, *h = &hh;
		uint8_t rec[GS_CGV_REC_SIZE];
		uint64_t name_ptr = NAME_ADDR;
		int64_t len;
		size_t want = lens[i] < 0 ? 0 : lens[i] > 8 ? 8 : (size_t)lens[i];
		uint8_t status = !want ? GS_VAR_ZERO_LENGTH : lens[i] > 8 ? GS_VAR_TRUNCATED :
				 GS_VAR_OK;

		vmv_build(h, "val_runtime_len");
		put_rec(rec, 7, 1, -2, "alpha", 0, values, 0, 0);
		vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
		vmv_user_mem(h, BIAS + GS_CGV_NAME_PTR_ADDR, &name_ptr, 8);
		vmv_user_mem(h, NAME_ADDR, "0123456789", 11);
		vmv_module_offsets(h);
		h->regs[REG(104)] = REC_ADDR;
		h->regs[REG(112)] = (uint64_t)lens[i];
		vmv_run(h);
		assert_int_equal(h->insts[0].format.arg_count, 6);
		memcpy(&len, vmv_arg(h, 0, 0)->data, 8);
		assert_int_equal(len, lens[i]);
		assert_int_equal(vmv_arg(h, 0, 1)->data_len, 12); /* the cap, at least 12 */
		assert_int_equal(vmv_arg(h, 0, 1)->status, status);
		assert_memory_equal(vmv_arg(h, 0, 1)->data, rec + GS_CGV_REC_VALUES, want);
		assert_int_equal(vmv_arg(h, 0, 3)->status, status);
		assert_memory_equal(vmv_arg(h, 0, 3)->data, "0123456789", want);
		/* an optimized-out length: its status, and no dump */
		assert_int_equal(vmv_arg(h, 0, 4)->status, GS_VAR_ACCESS_ERROR);
		assert_int_equal(vmv_arg(h, 0, 5)->status, GS_VAR_ZERO_LENGTH);
		vmv_teardown(h);
	}
}

/* A pointer in two register halves is put together before it is followed. */
static void test_pointer_in_pieces_is_joined_before_use(void **state)
{
	struct harness hh, *h = &hh;
	static const int32_t values[4] = { 0 };
	uint8_t rec[GS_CGV_REC_SIZE];
	uint64_t v;

	(void)state;
	vmv_build(h, "val_pointer_pieces");
	put_rec(rec, 77, 0, 0, "x", 0x1122334455667788ull, values, 0, 0);
	vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
	h->regs[REG(80)] = 0xdead0000ull << 32 | (uint32_t)REC_ADDR;          /* rax: low half */
	h->regs[REG(96)] = 0xbeef0000ull << 32 | (uint32_t)((uint64_t)REC_ADDR >> 32); /* rdx */
	vmv_run(h);
	assert_int_equal(vmv_i32(vmv_var(h, 0)), 77);
	memcpy(&v, vmv_arg(h, 1, 0)->data, 8);
	assert_int_equal(v, 0x1122334455667788ull);
	vmv_teardown(h);
}

static void test_comparisons_read_once_and_compare_bytes(void **state)
{
	static const int32_t values[4] = { 1, 2, 3, 4 };
	static const char *const names[] = { "alpha", "alphabet", "fixture" };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct harness hh, *h = &hh;
		uint8_t rec[GS_CGV_REC_SIZE];
		uint64_t name_ptr = NAME_ADDR;
		size_t n = 0;

		vmv_build(h, "val_compare");
		put_rec(rec, 7, 1, -2, names[i], 0, values, 0, 0);
		vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
		vmv_user_mem(h, BIAS + GS_CGV_NAME_PTR_ADDR, &name_ptr, 8);
		vmv_user_mem(h, NAME_ADDR, names[i], strlen(names[i]) + 1);
		vmv_module_offsets(h);
		h->regs[REG(104)] = REC_ADDR;
		vmv_run(h);
		/* "fix" starts only "fixture"; strncmp(name, "alpha", 6) equals
		 * only "alpha" (the sixth byte is the NUL). */
		if (i == 2) {
			assert_int_equal(h->insts[n].type, GS_INST_PRINT_STRING_INDEX);
			assert_string_equal(h->insts[n++].string.text, "match");
		}
		if (i == 0) {
			assert_int_equal(h->insts[n].type, GS_INST_PRINT_STRING_INDEX);
			assert_string_equal(h->insts[n++].string.text, "alpha");
		}
		assert_int_equal(h->insts[n].type, GS_INST_END);
		vmv_teardown(h);
	}
}


/* Every operator as C computes it on the same values: the expected
 * numbers come from the compiler, not from the code generator. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wtype-limits"
static void test_arithmetic_follows_c_conversions(void **state)
{
	struct harness hh, *h = &hh;
	const uint64_t u64v = 18446744073709551610ull;
	const uint32_t u32v = 4000000000u;
	const int32_t i32v = -12345678;
	const int64_t want[] = {
		(int64_t)(u64v / 2), i32v > u32v, (int64_t)~(u32v ^ u32v), (int64_t)(u32v + u32v),
		i32v >> 4, (int64_t)(u64v >> 60), i32v / 7, (int64_t)(u32v % 7), (int64_t)-u32v,
		(int64_t)(i32v * 3 < u32v), u32v >= 0,
	};

	(void)state;
	vmv_build(h, "val_c_arith");
	h->regs[REG(112)] = u64v;                            /* rdi */
	h->regs[REG(104)] = 0xdead000000000000ull | u32v;    /* rsi: only its low 4 bytes */
	h->regs[REG(96)] = 0xbeef000000000000ull | (uint32_t)i32v; /* rdx */
	vmv_run(h);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(want); i++) {
		const struct gs_value *v = vmv_arg(h, i / 6, i % 6);

		if (vmv_i64(v) != want[i])
			fail_msg("argument %zu: %" PRId64 ", C says %" PRId64, i, vmv_i64(v), want[i]);
	}
	/* unsigned results show as unsigned numbers */
	assert_string_equal(vmv_arg(h, 0, 0)->type->name, "u64");
	assert_string_equal(vmv_arg(h, 1, 0)->type->name, "i64");
	vmv_teardown(h);
}

/* Location programs (cg_value_specs.c val_dwarf_expr): each value as its
 * DWARF expression computes it, worked out by hand. */
static void test_location_programs_compute_what_dwarf_says(void **state)
{
	struct harness hh, *h = &hh;
	const uint64_t rdi = (uint64_t)-4, rsi = REC_ADDR, rdx = 0x12348765, rbx = 0xaaaa00000000002aull;
	const uint64_t pointer = NEXT_ADDR, ra = BIAS + 0x1234;
	const int32_t at = 77;
	int16_t lo;

	(void)state;
	vmv_build(h, "val_dwarf_expr");
	vmv_module_offsets(h);
	h->regs[REG(112)] = rdi;
	h->regs[REG(104)] = rsi;
	h->regs[REG(96)] = rdx;
	h->regs[REG(40)] = rbx;
	vmv_user_mem(h, REC_ADDR, &pointer, 8);
	vmv_user_mem(h, NEXT_ADDR + 8, &at, 4);
	vmv_user_mem(h, STACK_SP, &ra, 8);
	vmv_run(h);
	assert_int_equal(vmv_i32(vmv_var(h, 0)), (int32_t)(uint32_t)(rdi * 3 + rsi)); /* mix */
	assert_int_equal(vmv_i32(vmv_var(h, 1)), 77);                                  /* at */
	assert_int_equal(vmv_i64(vmv_var(h, 2)), 4);                                   /* |rdi| */
	memcpy(&lo, vmv_var(h, 3)->data, 2);
	assert_int_equal(lo, (int16_t)0x8765 >> 1);         /* (short)rdx >> 1, arithmetic */
	assert_int_equal(vmv_i32(vmv_var(h, 4)), 0);             /* -4 / REC_ADDR, signed */
	assert_int_equal(vmv_i32(vmv_var(h, 5)), 42);            /* the caller's rbx */
	assert_int_equal(vmv_i32(vmv_arg(h, 6, 0)), (int32_t)(uint32_t)(rdi * 3 + rsi) + 3);
	assert_int_equal(vmv_i64(vmv_var(h, 7)), -4 / 3); /* signed: -1 */
	assert_int_equal(vmv_i64(vmv_var(h, 8)), -4 % 3); /* signed: -1 */
	vmv_teardown(h);
}

static void test_location_programs_fail_as_gdb_does(void **state)
{
	struct harness hh, *h = &hh;
	const uint64_t other_ra = BIAS + 0x9999;
	struct gs_read_error_payload e;

	(void)state;
	vmv_build(h, "val_dwarf_expr");
	vmv_module_offsets(h);
	h->regs[REG(112)] = 5;
	h->regs[REG(104)] = 0; /* at's pointer is NULL, dz divides by zero */
	vmv_user_mem(h, STACK_SP, &other_ra, 8);
	vmv_run(h);
	assert_int_equal(vmv_i32(vmv_var(h, 0)), 15);
	assert_int_equal(vmv_var(h, 1)->status, GS_VAR_READ_ERROR);
	memcpy(&e, vmv_var(h, 1)->data, sizeof(e));
	assert_int_equal(e.addr, 0);
	assert_int_equal(vmv_var(h, 4)->status, GS_VAR_DIV_BY_ZERO); /* division by zero */
	assert_int_equal(vmv_var(h, 5)->status, GS_VAR_OPTIMIZED_OUT); /* no call site matched */
	vmv_teardown(h);
}
#pragma GCC diagnostic pop

/* Pointer arithmetic, C string equality (array and pointer), a string
 * let, memcmp with a run-time length and a cast to _Bool, against C's own
 * answers on the same bytes. */
static void test_pointers_and_strings_as_c(void **state)
{
	static const int32_t values[4] = { 1, 2, 3, 4 };
	static const char *const names[] = { "alpha", "alphabet", "fixture" };
	static const int32_t lens[] = { 3, 0, -5 };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct harness hh, *h = &hh;
		uint8_t rec[GS_CGV_REC_SIZE];
		uint64_t name_ptr = NAME_ADDR;
		const char *other = names[(i + 1) % 3];
		int32_t n = lens[i];

		vmv_build(h, "val_ptr_strings");
		put_rec(rec, 7, 1, -2, names[i], 0, values, 0, 0);
		vmv_user_mem(h, REC_ADDR, rec, sizeof(rec));
		vmv_user_mem(h, BIAS + GS_CGV_NAME_PTR_ADDR, &name_ptr, 8);
		vmv_user_mem(h, NAME_ADDR, other, strlen(other) + 1);
		vmv_module_offsets(h);
		h->regs[REG(104)] = REC_ADDR;                  /* rsi: r */
		h->regs[REG(112)] = 0xffffffff00000000ull | (uint32_t)n; /* rdi: n */
		vmv_run(h);
		assert_int_equal(vmv_i64(vmv_arg(h, 0, 0)), strcmp(names[i], "alpha") == 0);
		assert_int_equal(vmv_i64(vmv_arg(h, 0, 1)), strcmp(other, "alpha") == 0);
		assert_int_equal(vmv_i64(vmv_arg(h, 0, 2)), strcmp(names[i], "alphabet") != 0);
		assert_int_equal(vmv_i64(vmv_arg(h, 0, 3)), values[2]);
		assert_int_equal(vmv_i64(vmv_arg(h, 0, 4)), REC_ADDR + GS_CGV_REC_SIZE);
		assert_int_equal(vmv_i64(vmv_arg(h, 0, 5)),
				 n <= 0 || memcmp(names[i], other, (size_t)n) == 0);
		assert_int_equal(vmv_i64(vmv_arg(h, 0, 6)), n != 0);
		assert_int_equal(vmv_var(h, 1)->status, GS_VAR_OK);
		assert_string_equal((const char *)vmv_var(h, 1)->data, "alpha");
		vmv_teardown(h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_value_is_its_low_bytes),
		cmocka_unit_test(test_pointers_and_strings_as_c),
		cmocka_unit_test(test_stack_value_is_read_at_the_cfa_offset),
		cmocka_unit_test(test_global_is_rebased_by_the_module_bias),
		cmocka_unit_test(test_global_without_offsets_is_offsets_unavailable),
		cmocka_unit_test(test_unreadable_global_is_a_read_error_with_its_address),
		cmocka_unit_test(test_composite_pieces_come_from_their_registers),
		cmocka_unit_test(test_list_entry_register_holds_the_pointer),
		cmocka_unit_test(test_optimized_out_has_no_bytes_and_constants_print),
		cmocka_unit_test(test_chains_follow_pointers_index_and_bit_fields),
		cmocka_unit_test(test_null_pointer_in_a_chain_is_null_deref),
		cmocka_unit_test(test_strings_stop_at_nul_and_dumps_copy_bytes),
		cmocka_unit_test(test_strings_show_full_arrays_and_exactly_cap_bytes),
		cmocka_unit_test(test_value_past_the_event_size_is_captured_to_what_fits),
		cmocka_unit_test(test_runtime_lengths_read_what_the_length_says),
		cmocka_unit_test(test_pointer_in_pieces_is_joined_before_use),
		cmocka_unit_test(test_comparisons_read_once_and_compare_bytes),
		cmocka_unit_test(test_arithmetic_follows_c_conversions),
		cmocka_unit_test(test_location_programs_compute_what_dwarf_says),
		cmocka_unit_test(test_location_programs_fail_as_gdb_does),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
