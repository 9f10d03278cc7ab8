/* Rendering against hand-written expected text: each value kind and status,
 * format placeholders, the protocol-default backtrace with every status and
 * error label, ExprError, End, the event header, the pretty and plain
 * layouts, and snprintf-style truncation. Inputs are built directly as
 * decoded structs, so these tests do not depend on the decoder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/render.h>

#include "base.h"

struct value_case {
	uint8_t kind, size; /* size 0: no type in the table */
	uint8_t status;
	char conv;
	uint16_t len;
	const char *bytes;
	const char *text;
};

#define V(kind_, size_, conv_, bytes_, text_) \
	{ .kind = kind_, .size = size_, .conv = conv_, .len = sizeof(bytes_) - 1, \
	  .bytes = bytes_, .text = text_ }
#define S(status_, bytes_, text_) \
	{ .kind = GS_TYPE_I32, .size = 4, .status = status_, .len = sizeof(bytes_) - 1, \
	  .bytes = bytes_, .text = text_ }

static struct gs_value make_value(const struct value_case *c, struct gs_type *type)
{
	*type = (struct gs_type){ .kind = c->kind, .size = c->size, .name = "t" };
	return (struct gs_value){
		.name = "v", .type = c->size ? type : NULL, .access_path = "",
		.data = (const uint8_t *)c->bytes, .data_len = c->len, .status = c->status,
		.kind = c->kind,
	};
}

static void check_values(const struct value_case *cases, size_t n)
{
	size_t failures = 0;

	for (size_t i = 0; i < n; i++) {
		struct gs_type type;
		struct gs_value v = make_value(&cases[i], &type);
		char buf[256];

		gs_render_value(&v, cases[i].conv, buf, sizeof(buf));
		if (strcmp(buf, cases[i].text) != 0) {
			print_message("value case %zu: expected %s\n                got %s\n", i,
				      cases[i].text, buf);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

static void test_values_render_by_type_kind(void **state)
{
	static const struct value_case cases[] = {
		V(GS_TYPE_I8, 1, 0, "\xff", "-1"),
		V(GS_TYPE_I16, 2, 0, "\x00\x80", "-32768"),
		V(GS_TYPE_I32, 4, 0, "\xd6\xff\xff\xff", "-42"),
		V(GS_TYPE_I64, 8, 0, "\0\0\0\0\0\0\0\x80", "-9223372036854775808"),
		V(GS_TYPE_U8, 1, 0, "\xc8", "200"),
		V(GS_TYPE_U16, 2, 0, "\xff\xff", "65535"),
		V(GS_TYPE_U64, 8, 0, "\xff\xff\xff\xff\xff\xff\xff\xff", "18446744073709551615"),
		/* a u32 runtime read in its 12-byte slot: the type's size wins */
		V(GS_TYPE_U32, 4, 0, "\x07\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff", "7"),
		/* no type in the table: the kind's natural size */
		V(GS_TYPE_I16, 0, 0, "\xfe\xff\x01\x02", "-2"),
		V(GS_TYPE_ENUM, 4, 0, "\xff\xff\xff\xff", "-1"),
		V(GS_TYPE_BOOL, 1, 0, "\x01", "true"),
		V(GS_TYPE_BOOL, 1, 0, "\x00", "false"),
		V(GS_TYPE_CHAR, 1, 0, "A", "65 'A'"),
		V(GS_TYPE_CHAR, 1, 0, "\n", "10 '\\n'"),
		V(GS_TYPE_CHAR, 1, 0, "\x01", "1 '\\x01'"),
		V(GS_TYPE_CHAR, 1, 0, "'", "39 '\\''"),
		V(GS_TYPE_CHAR, 1, 0, "\x1b", "27 '\\x1b'"),
		V(GS_TYPE_POINTER, 8, 0, "\x34\x12\xfd\x7f\0\0\0\0", "0x7ffd1234"),
		V(GS_TYPE_POINTER, 8, 0, "\0\0\0\0\0\0\0\0", "0x0"),
		V(GS_TYPE_NULL_POINTER, 8, 0, "\0\0\0\0\0\0\0\0", "NULL"),
		V(GS_TYPE_F64, 8, 0, "\0\0\0\0\0\0\xf8\x3f", "1.5"),
		V(GS_TYPE_F32, 4, 0, "\0\0\x80\x3e", "0.25"),
		V(GS_TYPE_F32, 4, 0, "\0\0", "{00 00}"),
		V(GS_TYPE_CSTRING, 8, 0, "hi\"\\\n\0junk", "\"hi\\\"\\\\\\n\""),
		V(GS_TYPE_STRING, 4, 0, "\x7f\xc3\xa9", "\"\\x7f\xc3\xa9\""),
		V(GS_TYPE_CSTRING, 0, 0, "", "\"\""),
		V(GS_TYPE_STRUCT, 3, 0, "\x01\x02\xff", "{01 02 ff}"),
		V(GS_TYPE_UNKNOWN, 0, 0, "\xab", "{ab}"),
		V(0x99, 0, 0, "\xab\xcd", "{ab cd}"),
		V(GS_TYPE_OPTIMIZED_OUT, 0, 0, "", "<optimized out>"),
		V(GS_TYPE_I32, 4, 0, "", "<no data>"),
		V(GS_TYPE_I32, 4, 0, "\x05\0", "5"), /* short data: what there is */
	};

	(void)state;
	check_values(cases, BASE_ARRAY_SIZE(cases));
}

/* Types the dwarf layer gave up on say why instead of <no data>, as the
 * value and as a member. */
static void test_types_given_up_on_say_why(void **state)
{
	static const struct gs_type cyclic = { .kind = GS_TYPE_UNKNOWN, .name = "loop_a",
					       .flags = GS_TYPEF_CYCLIC };
	static const struct gs_type deep = { .kind = GS_TYPE_UNKNOWN, .name = "t1025",
					     .flags = GS_TYPEF_TOO_DEEP };
	static const struct gs_type i32 = { .kind = GS_TYPE_I32, .size = 4, .byte_size = 4,
					    .name = "int", .flags = GS_TYPEF_SIGNED };
	static const struct gs_type_member members[] = {
		{ .name = "n", .type = &i32, .offset = 0 },
		{ .name = "self", .type = &cyclic, .offset = 4 },
	};
	static const struct gs_type holder = { .kind = GS_TYPE_STRUCT, .byte_size = 8,
					       .name = "struct holder", .members = members,
					       .nmembers = 2 };
	struct gs_value v = { .name = "v", .type = &cyclic, .access_path = "",
			      .kind = GS_TYPE_UNKNOWN };
	char buf[128];

	(void)state;
	gs_render_value(&v, 0, buf, sizeof(buf));
	assert_string_equal(buf, "<cyclic type>");
	v.type = &deep;
	gs_render_value(&v, 0, buf, sizeof(buf));
	assert_string_equal(buf, "<type too deep>");
	v = (struct gs_value){ .name = "h", .type = &holder, .access_path = "",
			       .kind = GS_TYPE_STRUCT, .data = (const uint8_t *)"\x07\0\0\0\0\0\0\0",
			       .data_len = 8 };
	gs_render_value(&v, 0, buf, sizeof(buf));
	assert_string_equal(buf, "{n = 7, self = <cyclic type>}");
}

static void test_hex_and_pointer_conversions(void **state)
{
	static const struct value_case cases[] = {
		V(GS_TYPE_I32, 4, 'x', "\xff\xff\xff\xff", "ffffffff"),
		V(GS_TYPE_I8, 1, 'x', "\xff", "ff"),
		V(GS_TYPE_U64, 8, 'X', "\xef\xcd\xab\0\0\0\0\0", "ABCDEF"),
		V(GS_TYPE_U64, 8, 'x', "\0\0\0\0\0\0\0\0", "0"),
		V(GS_TYPE_STRUCT, 3, 'x', "\x01\x02\xff", "01 02 ff"),
		V(GS_TYPE_STRUCT, 3, 'X', "\x01\x02\xff", "01 02 FF"),
		V(GS_TYPE_U64, 8, 'p', "\0\x10\0\0\0\0\0\0", "0x1000"),
		V(GS_TYPE_I32, 4, 'p', "\xff\xff\xff\xff", "0xffffffff"),
		V(GS_TYPE_POINTER, 8, 'p', "\x78\x56\x34\x12\xff\x7f\0\0", "0x7fff12345678"),
	};

	(void)state;
	check_values(cases, BASE_ARRAY_SIZE(cases));
}

static void test_statuses_replace_the_value(void **state)
{
	static const struct value_case cases[] = {
		S(GS_VAR_NULL_DEREF, "", "<null pointer dereference>"),
		S(GS_VAR_READ_ERROR, "\xf2\xff\xff\xff\xef\xbe\xad\xde\0\0\0\0",
		  "<read error: errno=-14 at 0xdeadbeef>"),
		S(GS_VAR_READ_ERROR, "\xf2\xff", "<read error>"),
		S(GS_VAR_ACCESS_ERROR, "", "<address computation failed>"),
		S(GS_VAR_TRUNCATED, "\x01\x02", "513 <truncated>"),
		S(GS_VAR_TRUNCATED, "", "<truncated>"),
		S(GS_VAR_OFFSETS_UNAVAILABLE, "", "<offsets unavailable>"),
		S(GS_VAR_ZERO_LENGTH, "", "<zero length>"),
		S(GS_VAR_DIV_BY_ZERO, "", "<division by zero>"),
		S(GS_VAR_TLS_UNALLOCATED, "", "<TLS not allocated in this thread>"),
		S(GS_VAR_OPTIMIZED_OUT, "", "<optimized out>"),
		S(10, "", "<bad status 10>"),
	};
	static const struct value_case hex_of_error = {
		.kind = GS_TYPE_U64, .size = 8, .status = GS_VAR_NULL_DEREF, .conv = 'x',
		.bytes = "", .text = "<null pointer dereference>",
	};

	(void)state;
	check_values(cases, BASE_ARRAY_SIZE(cases));
	check_values(&hex_of_error, 1);
}

static void expect_inst(const struct gs_inst *in, const char *text)
{
	char buf[1024];

	assert_int_equal(gs_render_inst(in, buf, sizeof(buf)), strlen(text));
	assert_string_equal(buf, text);
}

static void test_print_string_is_the_text(void **state)
{
	struct gs_inst in = { .type = GS_INST_PRINT_STRING_INDEX,
			      .string = { .index = 0, .text = "HOT_STACK {}" } };

	(void)state;
	expect_inst(&in, "HOT_STACK {}");
}

static void test_variable_is_name_equals_value(void **state)
{
	static const struct gs_type i32 = { GS_TYPE_I32, 4, "int" };
	struct gs_inst in = {
		.type = GS_INST_PRINT_COMPLEX_VARIABLE,
		.variable = { .name = "ptr", .type = &i32, .kind = GS_TYPE_I32,
			      .access_path = "len", .access_path_len = 3,
			      .data = (const uint8_t *)"\x05\0\0\0", .data_len = 4 },
	};

	(void)state;
	expect_inst(&in, "ptr.len = 5");
	in.variable.access_path_len = 0;
	expect_inst(&in, "ptr = 5");
	in.variable.status = GS_VAR_NULL_DEREF;
	expect_inst(&in, "ptr = <null pointer dereference>");
	in.type = GS_INST_PRINT_VARIABLE_INDEX;
	in.variable.status = GS_VAR_OK;
	in.variable.name = NULL;
	expect_inst(&in, "<unknown variable> = 5");
}

struct format_case {
	const char *format;
	const char *text;
};

static void test_format_placeholders(void **state)
{
	static const struct gs_type i32 = { GS_TYPE_I32, 4, "int" }, u64 = { GS_TYPE_U64, 8, "u64" };
	static const struct gs_value args[] = {
		{ .type = &i32, .kind = GS_TYPE_I32, .data = (const uint8_t *)"\xff\xff\xff\xff",
		  .data_len = 4 },
		{ .type = &u64, .kind = GS_TYPE_U64, .data = (const uint8_t *)"\xef\xbe\0\0\0\0\0\0",
		  .data_len = 8 },
		{ .type = &u64, .kind = GS_TYPE_U64, .status = GS_VAR_READ_ERROR,
		  .data = (const uint8_t *)"\xf2\xff\xff\xff\xad\xde\0\0\0\0\0\0", .data_len = 12 },
	};
	static const struct format_case cases[] = {
		{ "x={} hex={:x}", "x=-1 hex=beef" },
		{ "{{}} {:X} {:p}", "{} FFFFFFFF 0xbeef" },
		{ "a {} b {} c {} d {}", "a -1 b 48879 c <read error: errno=-14 at 0xdead> d <missing arg>" },
		{ "{:x.4} {}", "ff ff ff ff 48879" },
		{ "{:X.2} {:p}", "FF FF 0xbeef" },
		{ "{:x.64} {}", "ff ff ff ff 48879" },
		{ "{:q} {}", "<unsupported {:q}> 48879" },
		{ "oops {", "oops <malformed placeholder>" },
		{ "lone } brace }}", "lone } brace }" },
		{ "100%d %s {}", "100%d %s -1" },
		{ "", "" },
		{ "no placeholders", "no placeholders" },
	};
	size_t failures = 0;

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		struct gs_inst in = {
			.type = GS_INST_PRINT_COMPLEX_FORMAT,
			.format = { .format = cases[i].format, .arg_count = BASE_ARRAY_SIZE(args),
				    .args = args },
		};
		char buf[256];

		gs_render_inst(&in, buf, sizeof(buf));
		if (strcmp(buf, cases[i].text) != 0) {
			print_message("format \"%s\": expected %s\n    got %s\n", cases[i].format,
				      cases[i].text, buf);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

static const struct gs_backtrace_frame frames[2] = {
	{ .module_cookie = 0x0123456789abcdefULL, .pc = 0x1189, .raw_ip = 0x555555555189ULL },
	{ .module_cookie = 0x42, .pc = 0x2a1ca, .raw_ip = 0x7ffff7c2a1caULL, .flags = 3 },
};

static struct gs_inst backtrace(uint8_t status, uint16_t code, uint8_t count)
{
	return (struct gs_inst){
		.type = GS_INST_BACKTRACE,
		.backtrace = { .requested_depth = 5, .frame_count = count, .status = status,
			       .error_code = code, .frames = frames },
	};
}

static void test_backtrace_protocol_text(void **state)
{
	struct gs_inst complete = backtrace(GS_BT_COMPLETE, 0, 2),
		       coded = backtrace(GS_BT_READ_ERROR, GS_BT_ERROR_RETURN_ADDRESS_READ, 1),
		       plain = backtrace(GS_BT_TRUNCATED, 0, 0),
		       unknown = backtrace(200, 9, 0);

	(void)state;
	expect_inst(&complete,
		    "backtrace(max_depth=5, frames=2, status=complete)\n"
		    "  #0 cookie=0x0123456789abcdef pc=0x1189 raw=0x555555555189\n"
		    "  #1 cookie=0x0000000000000042 pc=0x2a1ca raw=0x7ffff7c2a1ca flags=0x3");
	expect_inst(&coded,
		    "backtrace(max_depth=5, frames=1, status=read error)\n"
		    "  #0 cookie=0x0123456789abcdef pc=0x1189 raw=0x555555555189\n"
		    "  stopped: read error (return-address-read-failed, code=1)");
	expect_inst(&plain,
		    "backtrace(max_depth=5, frames=0, status=truncated)\n"
		    "  stopped: truncated");
	expect_inst(&unknown,
		    "backtrace(max_depth=5, frames=0, status=internal error)\n"
		    "  stopped: internal error (code=9)");
}

static void test_status_and_error_labels_are_spec_1_8(void **state)
{
	static const char *const statuses[] = {
		"complete", "truncated", "dwarf unavailable", "unsupported CFI",
		"offsets unavailable", "read error", "internal error", "invalid frame",
		"no unwind rows for PC", "internal error",
	};
	static const char *const errors[] = {
		NULL, "return-address-read-failed", "frame-pointer-read-failed",
		"next-ip-below-user-range", "next-ip-kernel-like", "next-cfa-zero",
		"next-cfa-not-advancing", "cfa-read-failed" /* the loop walker's */,
		"frame-pointer-chain-invalid" /* the loop walker's */, "unknown",
	};
	static const char *const exec[] = {
		"success", "partial_failure", "complete_failure", "unknown",
	};

	(void)state;
	for (unsigned i = 0; i < BASE_ARRAY_SIZE(statuses); i++)
		assert_string_equal(gs_bt_status_label((uint8_t)i), statuses[i]);
	assert_string_equal(gs_bt_status_label(255), "internal error");
	assert_null(gs_bt_error_label(0));
	for (unsigned i = 1; i < BASE_ARRAY_SIZE(errors); i++)
		assert_string_equal(gs_bt_error_label((uint16_t)i), errors[i]);
	assert_string_equal(gs_bt_error_label(65535), "unknown");
	for (unsigned i = 0; i < BASE_ARRAY_SIZE(exec); i++)
		assert_string_equal(gs_exec_status_label((uint8_t)i), exec[i]);
	assert_string_equal(gs_var_status_label(GS_VAR_OFFSETS_UNAVAILABLE), "offsets unavailable");
	assert_string_equal(gs_var_status_label(77), "error");
}

static void test_every_status_gets_a_stopped_line_with_its_error(void **state)
{
	static const char *const stopped[] = {
		NULL,
		"  stopped: truncated (next-cfa-zero, code=5)",
		"  stopped: dwarf unavailable (next-cfa-zero, code=5)",
		"  stopped: unsupported CFI (next-cfa-zero, code=5)",
		"  stopped: offsets unavailable (next-cfa-zero, code=5)",
		"  stopped: read error (next-cfa-zero, code=5)",
		"  stopped: internal error (next-cfa-zero, code=5)",
		"  stopped: invalid frame (next-cfa-zero, code=5)",
		"  stopped: no unwind rows for PC (next-cfa-zero, code=5)",
	};

	(void)state;
	for (uint8_t s = 0; s < BASE_ARRAY_SIZE(stopped); s++) {
		struct gs_inst in = backtrace(s, GS_BT_ERROR_NEXT_CFA_ZERO, 0);
		char buf[256];
		const char *nl;

		gs_render_inst(&in, buf, sizeof(buf));
		nl = strchr(buf, '\n');
		if (!stopped[s])
			assert_null(nl);
		else
			assert_string_equal(nl + 1, stopped[s]);
	}
}

static void test_expr_error_line(void **state)
{
	struct gs_inst in = {
		.type = GS_INST_EXPR_ERROR,
		.expr_error = { .expr = "ptr->len > 0", .error_code = GS_VAR_READ_ERROR,
				.flags = GS_EXPR_ERR_LEN_CLAMPED, .failing_addr = 0xdeadbeef },
	};

	(void)state;
	expect_inst(&in, "ExprError: ptr->len > 0 (read error at 0x00000000deadbeef, "
			 "flags: len-clamped)");
	in.expr_error = (typeof(in.expr_error)){ .expr = "<INVALID_EXPR_INDEX_7>",
						 .error_code = GS_VAR_NULL_DEREF };
	expect_inst(&in, "ExprError: <INVALID_EXPR_INDEX_7> (null deref at NULL)");
	in.expr_error.flags = 0x33;
	in.expr_error.error_code = 42;
	expect_inst(&in, "ExprError: <INVALID_EXPR_INDEX_7> (error at NULL, flags: "
			 "first-arg read-fail,second-arg read-fail,0x30)");
}

static void test_end_renders_nothing_but_has_a_debug_form(void **state)
{
	struct gs_inst in = { .type = GS_INST_END,
			      .end = { .total_instructions = 3, .execution_status = 1 } };
	char buf[64];

	(void)state;
	expect_inst(&in, "");
	gs_render_end(&in, buf, sizeof(buf));
	assert_string_equal(buf, "end(3 instructions, partial_failure)");
	in.end.execution_status = 7;
	gs_render_end(&in, buf, sizeof(buf));
	assert_string_equal(buf, "end(3 instructions, unknown)");
}

static const struct gs_inst event_insts[] = {
	{ .type = GS_INST_PRINT_STRING_INDEX, .string = { .text = "HOT_STACK" } },
	{ .type = GS_INST_BACKTRACE,
	  .backtrace = { .requested_depth = 5, .frame_count = 1, .status = GS_BT_TRUNCATED,
			 .frames = frames } },
	{ .type = GS_INST_PRINT_STRING_INDEX, .string = { .text = "" } },
	{ .type = GS_INST_END, .end = { .total_instructions = 3 } },
};

static const struct gs_event event = {
	.trace_id = 0, .pid = 4242, .tid = 4243, .insts = event_insts,
	.ninsts = BASE_ARRAY_SIZE(event_insts),
};

static void test_header_line(void **state)
{
	char buf[128];

	(void)state;
	gs_render_header(&event, "2026-04-06 10:00:00.123", buf, sizeof(buf));
	assert_string_equal(buf, "[2026-04-06 10:00:00.123] TraceID:0 PID:4242 TID:4243");
	gs_render_header(&event, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "TraceID:0 PID:4242 TID:4243");
}

static void test_pretty_event_indents_items_and_frames(void **state)
{
	GS_OPTS(gs_render_opts, opts, .timestamp = "boot+12.345s");
	char buf[1024];

	(void)state;
	gs_render_event(&event, &opts, buf, sizeof(buf));
	assert_string_equal(buf,
			    "[boot+12.345s] TraceID:0 PID:4242 TID:4243\n"
			    "  HOT_STACK\n"
			    "  backtrace(max_depth=5, frames=1, status=truncated)\n"
			    "    #0 cookie=0x0123456789abcdef pc=0x1189 raw=0x555555555189\n"
			    "    stopped: truncated\n"
			    "  \n");
	/* Default options: pretty, no timestamp; the length without a buffer. */
	assert_int_equal(gs_render_event(&event, NULL, NULL, 0),
			 strlen(buf) - strlen("[boot+12.345s] "));
	opts.show_end = true;
	opts.timestamp = NULL;
	gs_render_event(&event, &opts, buf, sizeof(buf));
	assert_non_null(strstr(buf, "TraceID:0 PID:4242 TID:4243\n  HOT_STACK\n"));
	assert_non_null(strstr(buf, "\n  end(3 instructions, success)\n"));
}

static void test_plain_event_has_no_header(void **state)
{
	GS_OPTS(gs_render_opts, opts, .style = GS_RENDER_PLAIN);
	char buf[1024];

	(void)state;
	gs_render_event(&event, &opts, buf, sizeof(buf));
	assert_string_equal(buf,
			    "HOT_STACK\n"
			    "backtrace(max_depth=5, frames=1, status=truncated)\n"
			    "  #0 cookie=0x0123456789abcdef pc=0x1189 raw=0x555555555189\n"
			    "  stopped: truncated\n"
			    "\n");
}

static void test_small_buffers_truncate_like_snprintf(void **state)
{
	struct gs_inst in = { .type = GS_INST_PRINT_STRING_INDEX, .string = { .text = "hello world" } };
	char buf[8];

	(void)state;
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(gs_render_inst(&in, buf, 5), 11);
	assert_string_equal(buf, "hell");
	assert_int_equal(buf[5], 'z');
	assert_int_equal(gs_render_inst(&in, buf, 1), 11);
	assert_string_equal(buf, "");
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(gs_render_inst(&in, buf, 0), 11);
	assert_int_equal(buf[0], 'z');
	for (size_t size = 0; size < 200; size++) {
		char big[200];
		size_t want = gs_render_event(&event, NULL, NULL, 0);

		assert_int_equal(gs_render_event(&event, NULL, big, size), want);
		if (size)
			assert_int_equal(strlen(big), size - 1 < want ? size - 1 : want);
	}
}

/* Text from the target never reaches a terminal as a control sequence:
 * C0, DEL, C1 (raw or as UTF-8) and invalid UTF-8 become \xNN. */
static void test_target_text_escapes_c0_c1_and_del(void **state)
{
	static const struct {
		const char *in, *out;
		unsigned flags;
	} cases[] = {
		{ "plain name_1", "plain name_1", 0 },
		{ "\033]0;PWNED\007\033[2J", "\\x1b]0;PWNED\\x07\\x1b[2J", 0 },
		{ "a\x7f" "b", "a\\x7fb", 0 },
		{ "csi\x9b" "31m", "csi\\x9b31m", 0 },            /* raw C1: not UTF-8 */
		{ "u\xc2\x9b" "31m", "u\\xc2\\x9b31m", 0 },     /* C1 as UTF-8 */
		{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac", 0 }, /* UTF-8 stays */
		{ "nbsp\xc2\xa0", "nbsp\xc2\xa0", 0 },             /* U+00A0 is printable */
		{ "cut\xe2\x82", "cut\\xe2\\x82", 0 },             /* truncated sequence */
		{ "two\nlines\t", "two\\x0alines\\x09", 0 },
		{ "two\nlines", "two\nlines", GS_RENDER_KEEP_NEWLINES },
		{ "back\\slash", "back\\slash", 0 },
	};
	char buf[128], long_in[701];
	FILE *f;
	char *mem = NULL;
	size_t memlen = 0;

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		size_t n = gs_render_escaped(cases[i].in, strlen(cases[i].in), cases[i].flags, buf,
					     sizeof(buf));

		assert_string_equal(buf, cases[i].out);
		assert_int_equal(n, strlen(cases[i].out));
	}
	/* The FILE form agrees, across its internal chunks too. */
	for (int i = 0; i < 100; i++)
		memcpy(long_in + 7 * i, "\033[2J\xe2\x82\xac", 7);
	long_in[700] = '\0';
	f = open_memstream(&mem, &memlen);
	assert_non_null(f);
	gs_render_fputs(f, long_in, 0);
	fclose(f);
	assert_int_equal(memlen, 1000);
	for (int i = 0; i < 100; i++)
		assert_memory_equal(mem + (size_t)i * 10, "\\x1b[2J\xe2\x82\xac", 10);
	free(mem);
}

/* String and char values from target memory get the same treatment. */
static void test_string_values_escape_terminal_controls(void **state)
{
	static const struct value_case cases[] = {
		V(GS_TYPE_CSTRING, 0, 0, "\033[31mred\xc2\x9b", "\"\\x1b[31mred\\xc2\\x9b\""),
		V(GS_TYPE_CSTRING, 0, 0, "\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\""),
		V(GS_TYPE_CHAR, 1, 0, "\x9b", "155 '\\x9b'"),
		V(GS_TYPE_CHAR, 1, 0, "\x7f", "127 '\\x7f'"),
	};

	(void)state;
	check_values(cases, BASE_ARRAY_SIZE(cases));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_render_by_type_kind),
		cmocka_unit_test(test_types_given_up_on_say_why),
		cmocka_unit_test(test_hex_and_pointer_conversions),
		cmocka_unit_test(test_statuses_replace_the_value),
		cmocka_unit_test(test_print_string_is_the_text),
		cmocka_unit_test(test_variable_is_name_equals_value),
		cmocka_unit_test(test_format_placeholders),
		cmocka_unit_test(test_backtrace_protocol_text),
		cmocka_unit_test(test_status_and_error_labels_are_spec_1_8),
		cmocka_unit_test(test_every_status_gets_a_stopped_line_with_its_error),
		cmocka_unit_test(test_expr_error_line),
		cmocka_unit_test(test_end_renders_nothing_but_has_a_debug_form),
		cmocka_unit_test(test_header_line),
		cmocka_unit_test(test_pretty_event_indents_items_and_frames),
		cmocka_unit_test(test_plain_event_has_no_header),
		cmocka_unit_test(test_small_buffers_truncate_like_snprintf),
		cmocka_unit_test(test_target_text_escapes_c0_c1_and_del),
		cmocka_unit_test(test_string_values_escape_terminal_controls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
