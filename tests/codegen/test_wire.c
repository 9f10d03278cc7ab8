/* The store vocabulary of the emitters (src/codegen/wire.h): each store's
 * offset and width are those of the protocol struct's field, checked
 * against offsetof()/sizeof() and the ISA's size bits (RFC 9669: W 0x00,
 * H 0x08, B 0x10, DW 0x18), and a store of several fields puts each value
 * where the struct has it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/asm.h>

#include "base.h"
#include "wire.h"

#define ISA_SIZE_MASK 0x18
#define ISA_MODE_MEM 0x60

/* The ISA's size bits for a store of n bytes. */
static uint8_t isa_size(size_t n)
{
	switch (n) {
	case 1: return 0x10;
	case 2: return 0x08;
	case 4: return 0x00;
	default: return 0x18;
	}
}

struct field_case {
	const char *name;
	struct bpf_insn insn; /* what the vocabulary emitted */
	size_t off, size;     /* where the struct has the field */
};

static struct bpf_insn one(void (*emit)(struct gs_asm *))
{
	struct gs_asm a;
	struct bpf_insn in;

	gs_asm_init(&a);
	emit(&a);
	assert_int_equal(a.len, 1);
	in = a.insns[0];
	gs_asm_fini(&a);
	return in;
}

static void st_trace_id(struct gs_asm *a)
{
	CG_ST_FIELD(a, GS_R9, 4, struct gs_event_message, trace_id, 7);
}
static void stx_tid(struct gs_asm *a)
{
	CG_STX_FIELD(a, GS_R9, 4, struct gs_event_message, tid, GS_R8);
}
static void st_string_index(struct gs_asm *a)
{
	CG_ST_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_print_string_index, string_index, 3);
}
static void stx_error_code(struct gs_asm *a)
{
	CG_STX_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_expr_error, error_code, GS_R1);
}
static void stx_failing_addr(struct gs_asm *a)
{
	CG_STX_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_expr_error, failing_addr, GS_R1);
}
static void st_bt_error_code(struct gs_asm *a)
{
	CG_ST_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_backtrace_data, error_code, 0);
}
static void stx_compact_frame_count(struct gs_asm *a)
{
	CG_STX_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_backtrace_compact, frame_count, GS_R1);
}
static void st_frame_flags(struct gs_asm *a)
{
	CG_ST_FIELD(a, GS_R4, 0, struct gs_backtrace_frame, flags, 0);
}
static void stx_arg_data_len(struct gs_asm *a)
{
	CG_STX_FIELD(a, GS_R9, 100, struct gs_format_arg_fixed, data_len, GS_R2);
}

static void test_field_store_has_the_fields_offset_and_width(void **state)
{
	const struct field_case cases[] = {
		{ "message.trace_id", one(st_trace_id),
		  4 + offsetof(struct gs_event_message, trace_id),
		  sizeof(((struct gs_event_message *)0)->trace_id) },
		{ "message.tid", one(stx_tid), 4 + offsetof(struct gs_event_message, tid),
		  sizeof(((struct gs_event_message *)0)->tid) },
		{ "print_string_index.string_index", one(st_string_index),
		  sizeof(struct gs_inst_header) +
		  offsetof(struct gs_print_string_index, string_index),
		  sizeof(((struct gs_print_string_index *)0)->string_index) },
		{ "expr_error.error_code", one(stx_error_code),
		  sizeof(struct gs_inst_header) + offsetof(struct gs_expr_error, error_code),
		  sizeof(((struct gs_expr_error *)0)->error_code) },
		{ "expr_error.failing_addr", one(stx_failing_addr),
		  sizeof(struct gs_inst_header) + offsetof(struct gs_expr_error, failing_addr),
		  sizeof(((struct gs_expr_error *)0)->failing_addr) },
		{ "backtrace_data.error_code", one(st_bt_error_code),
		  sizeof(struct gs_inst_header) + offsetof(struct gs_backtrace_data, error_code),
		  sizeof(((struct gs_backtrace_data *)0)->error_code) },
		{ "backtrace_compact.frame_count", one(stx_compact_frame_count),
		  sizeof(struct gs_inst_header) +
		  offsetof(struct gs_backtrace_compact, frame_count),
		  sizeof(((struct gs_backtrace_compact *)0)->frame_count) },
		{ "backtrace_frame.flags", one(st_frame_flags),
		  offsetof(struct gs_backtrace_frame, flags),
		  sizeof(((struct gs_backtrace_frame *)0)->flags) },
		{ "format_arg_fixed.data_len", one(stx_arg_data_len),
		  100 + offsetof(struct gs_format_arg_fixed, data_len),
		  sizeof(((struct gs_format_arg_fixed *)0)->data_len) },
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		const struct field_case *c = &cases[i];

		if ((size_t)c->insn.off != c->off || (c->insn.code & ISA_SIZE_MASK) != isa_size(c->size) ||
		    (c->insn.code & 0xe0) != ISA_MODE_MEM)
			fail_msg("%s: store at +%d code 0x%02x; the field is %zu bytes at +%zu",
				 c->name, c->insn.off, c->insn.code, c->size, c->off);
	}
}

/* The bytes an ST_MEM writes: imm, sign-extended to the store's width. */
static void store_bytes(const struct bpf_insn *in, uint8_t *buf)
{
	int64_t v = in->imm;
	size_t n = isa_size(1) == (in->code & ISA_SIZE_MASK) ? 1 :
		   isa_size(2) == (in->code & ISA_SIZE_MASK) ? 2 :
		   isa_size(4) == (in->code & ISA_SIZE_MASK) ? 4 : 8;

	for (size_t i = 0; i < n; i++)
		buf[in->off + i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static void header(struct gs_asm *a)
{
	cg_inst_header(a, GS_INST_PRINT_COMPLEX_FORMAT, 0x1234);
}

static void test_instruction_header_puts_type_and_length_where_the_struct_has_them(void **state)
{
	struct bpf_insn in = one(header);
	uint8_t buf[8] = { 0xee, 0xee, 0xee, 0xee };
	struct gs_inst_header h;

	(void)state;
	store_bytes(&in, buf);
	memcpy(&h, buf, sizeof(h));
	assert_int_equal(in.off, 0);
	assert_int_equal(h.inst_type, GS_INST_PRINT_COMPLEX_FORMAT);
	assert_int_equal(h.data_length, 0x1234);
	assert_int_equal(h.reserved, 0);
}

static void variable_ids(struct gs_asm *a)
{
	CG_ST_FIELDS(a, GS_R9, CG_PAYLOAD, struct gs_print_complex_variable, var_name_index,
		     type_index,
		     CG_PACK(struct gs_print_complex_variable, var_name_index, var_name_index,
			     0x0102) |
		     CG_PACK(struct gs_print_complex_variable, var_name_index, type_index, 0x0304));
}

static void variable_len(struct gs_asm *a)
{
	CG_ST_FIELDS(a, GS_R9, CG_PAYLOAD, struct gs_print_complex_variable, access_path_len,
		     data_len,
		     CG_PACK(struct gs_print_complex_variable, access_path_len, data_len, 0x0506));
}

static void test_store_of_several_fields_places_each_value_in_its_field(void **state)
{
	uint8_t buf[16];
	struct gs_print_complex_variable v;
	struct bpf_insn ids = one(variable_ids), len = one(variable_len);

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	store_bytes(&ids, buf);
	store_bytes(&len, buf);
	memcpy(&v, buf + sizeof(struct gs_inst_header), sizeof(v));
	assert_int_equal(v.var_name_index, 0x0102);
	assert_int_equal(v.type_index, 0x0304);
	assert_int_equal(v.access_path_len, 0);
	assert_int_equal(v.status, GS_VAR_OK);
	assert_int_equal(v.data_len, 0x0506);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_store_has_the_fields_offset_and_width),
		cmocka_unit_test(test_instruction_header_puts_type_and_length_where_the_struct_has_them),
		cmocka_unit_test(test_store_of_several_fields_places_each_value_in_its_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
