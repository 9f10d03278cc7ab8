/* Values rendered by their type trees, against hand-written text: structs
 * and unions whole and nested, arrays and char arrays, enums by name and by
 * number, bit fields, floats at their shortest, pointers, truncated
 * captures, bytes from the target escaped; and the format placeholders of
 * source-level values: {:s}, {:x.N}, {:s.N}, run-time lengths (.*) with
 * their statuses. Types are built here as the dwarf layer builds them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/print.h>
#include <gs/render.h>

#include "base.h"

static const struct gs_type t_int = { .kind = GS_TYPE_I32, .size = 4, .name = "int",
				      .flags = GS_TYPEF_SIGNED, .byte_size = 4 };
static const struct gs_type t_uint = { .kind = GS_TYPE_U32, .size = 4, .name = "unsigned int",
				       .byte_size = 4 };
static const struct gs_type t_ull = { .kind = GS_TYPE_U64, .size = 8,
				      .name = "long long unsigned int", .byte_size = 8 };
static const struct gs_type t_char = { .kind = GS_TYPE_CHAR, .size = 1, .name = "char",
				       .flags = GS_TYPEF_SIGNED | GS_TYPEF_CHAR, .byte_size = 1 };
static const struct gs_type t_uchar = { .kind = GS_TYPE_CHAR, .size = 1, .name = "uint8_t",
					.flags = GS_TYPEF_CHAR, .byte_size = 1 };
static const struct gs_type t_float = { .kind = GS_TYPE_F32, .size = 4, .name = "float",
					.byte_size = 4 };
static const struct gs_type t_double = { .kind = GS_TYPE_F64, .size = 8, .name = "double",
					 .byte_size = 8 };
static const struct gs_type t_bool = { .kind = GS_TYPE_BOOL, .size = 1, .name = "_Bool",
				       .byte_size = 1 };

static const struct gs_type_enumerator colors[] = { { "RED", 0 }, { "GREEN", 5 },
						    { "BLUE", -1 } };
static const struct gs_type t_color = { .kind = GS_TYPE_ENUM, .size = 4, .name = "enum color",
					.flags = GS_TYPEF_SIGNED, .byte_size = 4,
					.enumerators = colors, .nenumerators = 3 };

static const struct gs_type_member point_m[] = { { "x", &t_int, 0 }, { "y", &t_int, 4 } };
static const struct gs_type t_point = { .kind = GS_TYPE_STRUCT, .name = "struct point",
					.byte_size = 8, .members = point_m, .nmembers = 2 };

static const struct gs_type t_uchar4 = { .kind = GS_TYPE_ARRAY, .size = 4,
					 .name = "unsigned char[4]", .byte_size = 4,
					 .target = &t_uchar, .count = 4 };
static const struct gs_type_member number_m[] = {
	{ "i", &t_int, 0 }, { "f", &t_float, 0 }, { "bytes", &t_uchar4, 0 },
};
static const struct gs_type t_number = { .kind = GS_TYPE_UNION, .size = 4,
					 .name = "union number", .byte_size = 4,
					 .members = number_m, .nmembers = 3 };

/* struct flags { unsigned a : 3; unsigned b : 5; int c : 7; unsigned long long d : 40; } */
static const struct gs_type_member flags_m[] = {
	{ "a", &t_uint, 0, 3, 0 }, { "b", &t_uint, 0, 5, 3 }, { "c", &t_int, 1, 7, 0 },
	{ "d", &t_ull, 1, 40, 7 },
};
static const struct gs_type t_flags = { .kind = GS_TYPE_STRUCT, .size = 8,
					.name = "struct flags", .byte_size = 8,
					.members = flags_m, .nmembers = 4 };

static const struct gs_type t_int4 = { .kind = GS_TYPE_ARRAY, .name = "int[4]",
				       .byte_size = 16, .target = &t_int, .count = 4 };
static const struct gs_type t_int3 = { .kind = GS_TYPE_ARRAY, .name = "int[3]",
				       .byte_size = 12, .target = &t_int, .count = 3 };
static const struct gs_type t_int23 = { .kind = GS_TYPE_ARRAY, .name = "int[2][3]",
					.byte_size = 24, .target = &t_int3, .count = 2 };
static const struct gs_type t_char8 = { .kind = GS_TYPE_ARRAY, .size = 8, .name = "char[8]",
					.byte_size = 8, .target = &t_char, .count = 8 };
static const struct gs_type t_point_ptr = { .kind = GS_TYPE_POINTER, .size = 8,
					    .name = "struct point *", .byte_size = 8,
					    .target = &t_point };

/* An anonymous union inside a struct: its members show inside braces. */
static const struct gs_type_member anon_m[] = { { "lo", &t_int, 0 }, { "hi", &t_int, 0 } };
static const struct gs_type t_anon = { .kind = GS_TYPE_UNION, .size = 4, .name = "union",
				       .byte_size = 4, .members = anon_m, .nmembers = 2 };
static const struct gs_type_member outer_m[] = {
	{ "tag", &t_char8, 0 }, { NULL, &t_anon, 8 }, { "c", &t_color, 12 },
	{ "ok", &t_bool, 16 }, { "p", &t_point_ptr, 24 }, { "d", &t_double, 32 },
};
static const struct gs_type t_outer = { .kind = GS_TYPE_STRUCT, .name = "struct outer",
					.byte_size = 40, .members = outer_m, .nmembers = 6 };

struct tree_case {
	const struct gs_type *type;
	size_t len;
	const char *bytes;
	const char *text;
	uint8_t status;
};

#define T(type_, bytes_, text_) { &type_, sizeof(bytes_) - 1, bytes_, text_, GS_VAR_OK }

static void check_trees(const struct tree_case *cases, size_t n)
{
	size_t failures = 0;

	for (size_t i = 0; i < n; i++) {
		struct gs_value v = {
			.name = "v", .type = cases[i].type, .kind = cases[i].type->kind,
			.data = (const uint8_t *)cases[i].bytes, .data_len = (uint16_t)cases[i].len,
			.status = cases[i].status,
		};
		char buf[512];

		gs_render_value(&v, 0, buf, sizeof(buf));
		if (strcmp(buf, cases[i].text) != 0) {
			print_message("case %zu (%s): expected %s\n          got %s\n", i,
				      cases[i].type->name, cases[i].text, buf);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

static void test_aggregates_are_c_like_and_whole(void **state)
{
	static const struct tree_case cases[] = {
		T(t_point, "\x01\0\0\0\xfe\xff\xff\xff", "{x = 1, y = -2}"),
		T(t_number, "\x44\x43\x42\x41", "{i = 1094861636, f = 12.141422, bytes = \"DCBA\"}"),
		T(t_int4, "\x0a\0\0\0\x14\0\0\0\x1e\0\0\0\x28\0\0\0", "{10, 20, 30, 40}"),
		T(t_int23, "\x01\0\0\0\x02\0\0\0\x03\0\0\0\x04\0\0\0\x05\0\0\0\x06\0\0\0",
		  "{{1, 2, 3}, {4, 5, 6}}"),
		T(t_char8, "inner\0\0\0", "\"inner\""),
		T(t_char8, "12345678", "\"12345678\""),
		T(t_outer, "tag\0\0\0\0\0\x07\0\0\0\x05\0\0\0\x01\0\0\0\0\0\0\0"
			   "\x10\x32\x54\x76\x98\x7f\0\0\0\0\0\0\0\0\x04\x40",
		  "{tag = \"tag\", {lo = 7, hi = 7}, c = GREEN, ok = true, p = 0x7f9876543210, "
		  "d = 2.5}"),
	};

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
}

static void test_scalars_by_their_types(void **state)
{
	static const struct tree_case cases[] = {
		T(t_color, "\x05\0\0\0", "GREEN"),
		T(t_color, "\xff\xff\xff\xff", "BLUE"),
		T(t_color, "\x07\0\0\0", "7"),
		T(t_uchar, "\xc8", "200 '\\xc8'"),
		T(t_char, "\xc8", "-56 '\\xc8'"),
		T(t_char, "a", "97 'a'"),
		T(t_double, "\x9a\x99\x99\x99\x99\x99\xb9\x3f", "0.1"),
		T(t_double, "\0\0\0\0\0\0\xf0\x3f", "1"),
		T(t_float, "\xcd\xcc\xcc\x3d", "0.1"),
		T(t_double, "\0\0\0\0\0\0\xf8\x7f", "nan"),
		T(t_double, "\0\0\0\0\0\0\xf0\xff", "-inf"),
		T(t_bool, "\x01", "true"),
		T(t_bool, "\x35", "53"), /* neither 0 nor 1: the byte, as gdb shows it */
		T(t_point_ptr, "\0\0\0\0\0\0\0\0", "0x0"),
	};

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
}

/* a = 5, b = 17, c = -9, d = 0x123456789a: packed as the C compiler does
 * (see vals_types.h, whose layout the dwarf tests compare with gdb). */
static void test_bit_fields_read_their_bits(void **state)
{
	uint64_t w = 5 | 17u << 3 | (uint64_t)(-9 & 0x7f) << 8 | 0x123456789aull << 15;
	char bytes[8];
	struct tree_case c = { &t_flags, 8, bytes, "{a = 5, b = 17, c = -9, d = 78187493530}",
			       GS_VAR_OK };

	(void)state;
	memcpy(bytes, &w, 8);
	check_trees(&c, 1);
}

static void test_short_captures_end_in_dots(void **state)
{
	static const struct tree_case cases[] = {
		{ &t_point, 4, "\x01\0\0\0", "{x = 1, ...} <truncated>", GS_VAR_TRUNCATED },
		{ &t_int4, 9, "\x01\0\0\0\x02\0\0\0\x03", "{1, 2, ...} <truncated>",
		  GS_VAR_TRUNCATED },
		{ &t_point, 0, "", "<truncated>", GS_VAR_TRUNCATED },
	};

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
}

/* What a target's memory or DWARF holds never reaches a terminal raw. */
static void test_target_bytes_are_escaped(void **state)
{
	static const struct tree_case cases[] = {
		T(t_char8, "\x1b[2J\"\\\n\0", "\"\\x1b[2J\\\"\\\\\\n\""),
		T(t_char8, "\xc2\x9b" "31m\0\0\0", "\"\\xc2\\x9b31m\""),
		T(t_char8, "\xff\xfe\xc3\xa9\0\0\0\0", "\"\\xff\\xfe\xc3\xa9\""),
	};
	static const struct gs_type_enumerator evil[] = { { "E\x1b]0;x\x07", 1 } };
	static const struct gs_type t_evil = { .kind = GS_TYPE_ENUM, .size = 4, .name = "e",
					       .byte_size = 4, .enumerators = evil,
					       .nenumerators = 1 };
	static const struct tree_case named = T(t_evil, "\x01\0\0\0", "E\\x1b]0;x\\x07");
	char buf[64];

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
	check_trees(&named, 1);
	gs_render_escaped("a\x1b\n", 3, 0, buf, sizeof(buf));
	assert_string_equal(buf, "a\\x1b\\x0a");
	gs_render_escaped("a\x1b\n", 3, GS_RENDER_KEEP_NEWLINES, buf, sizeof(buf));
	assert_string_equal(buf, "a\\x1b\n");
}

/* ---- placeholders of source-level values ---------------------------------------- */

static const struct gs_type t_cstr = { .kind = GS_TYPE_CSTRING, .size = 0, .name = "char *",
				       .flags = GS_TYPEF_CHAR, .byte_size = 16 };
static const struct gs_type t_dump = { .kind = GS_TYPE_ARRAY, .name = "u8[]", .byte_size = 16 };
static const struct gs_type t_i64 = { .kind = GS_TYPE_I64, .size = 8, .name = "i64",
				      .flags = GS_TYPEF_SIGNED, .byte_size = 8 };

static void check_format(const char *fmt, const struct gs_value *args, uint8_t nargs,
			 const char *want)
{
	struct gs_inst in = { .type = GS_INST_PRINT_COMPLEX_FORMAT,
			      .format = { .format = fmt, .arg_count = nargs, .args = args } };
	char buf[512];

	gs_render_inst(&in, buf, sizeof(buf));
	if (strcmp(buf, want))
		fail_msg("format \"%s\": expected %s\n    got %s", fmt, want, buf);
}

/* For automatic arrays only: type_.kind is no constant expression (gcc
 * accepts it in a static initializer, clang does not). */
#define ARG(type_, bytes_, status_) { .type = &type_, .kind = type_.kind, \
	.data = (const uint8_t *)bytes_, .data_len = sizeof(bytes_) - 1, .status = status_ }

static void test_strings_and_dumps(void **state)
{
	const struct gs_value str[] = { ARG(t_cstr, "GET /\x1b[1m\0junkjunkjun", 0) };
	const struct gs_value dump[] = {
		ARG(t_dump, "\xde\xad\xbe\xef\x00\x41\x42\x43\0\0\0\0\0\0\0\0", 0),
	};
	const struct gs_value len_dump[] = {
		ARG(t_i64, "\x03\0\0\0\0\0\0\0", 0),
		ARG(t_dump, "\xde\xad\xbe\xef\x00\x41\x42\x43\0\0\0\0\0\0\0\0", 0),
	};
	const struct gs_value zero_len[] = {
		ARG(t_i64, "\xff\xff\xff\xff\xff\xff\xff\xff", 0),
		ARG(t_dump, "", GS_VAR_ZERO_LENGTH),
	};
	const struct gs_value bad_len[] = {
		ARG(t_i64, "", GS_VAR_NULL_DEREF),
		ARG(t_dump, "", GS_VAR_ZERO_LENGTH),
	};
	const struct gs_value bad_dump[] = {
		ARG(t_i64, "\x04\0\0\0\0\0\0\0", 0),
		ARG(t_dump, "\xf2\xff\xff\xff\x10\0\0\0\0\0\0\0", GS_VAR_READ_ERROR),
	};

	(void)state;
	check_format("[{:s}]", str, 1, "[GET /\\x1b[1m]");
	check_format("[{}]", str, 1, "[\"GET /\\x1b[1m\"]");
	check_format("{:x.4}|{:X.2}", (const struct gs_value[]){ dump[0], dump[0] }, 2,
		     "de ad be ef|DE AD");
	/* DE AD is valid UTF-8 (U+07AD): kept; BE EF is not */
	check_format("{:s.8}", dump, 1, "\xde\xad\\xbe\\xef");
	check_format("<{:x.*}> <{:s.*}>",
		     (const struct gs_value[]){ len_dump[0], len_dump[1], len_dump[0], len_dump[1] },
		     4, "<de ad be> <\xde\xad\\xbe>");
	check_format("<{:x.n$}>", len_dump, 2, "<de ad be>");
	check_format("<{:x.*}>", zero_len, 2, "<>");
	check_format("<{:x.*}>", bad_len, 2, "<<null pointer dereference>>");
	check_format("<{:x.*}>", bad_dump, 2, "<<read error: errno=-14 at 0x10>>");
	check_format("<{:x.*}>", len_dump, 1, "<<missing arg>>");
}

/* The JSON line of one format instruction, from "args" on. */
static char *json_args(const char *fmt, const struct gs_value *args, uint8_t nargs)
{
	GS_OPTS(gs_printer_opts, oo, .format = GS_PRINT_JSON, .timestamp = GS_PRINT_TIME_NONE);
	struct gs_inst in[2] = {
		{ .type = GS_INST_PRINT_COMPLEX_FORMAT,
		  .format = { .format = fmt, .arg_count = nargs, .args = args } },
		{ .type = GS_INST_END },
	};
	struct gs_event ev = { .insts = in, .ninsts = 2 };
	struct gs_printer *p;
	char *text = NULL, *a;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	assert_non_null(f);
	assert_int_equal(gs_printer_new(&oo, &p, NULL), 0);
	assert_int_equal(gs_print_event(p, &ev, f), 0);
	gs_printer_free(p);
	fclose(f);
	a = strstr(text, "\"args\":");
	assert_non_null(a);
	memmove(text, a, strlen(a) + 1);
	return text;
}

/* A run-time length renders as the same static length does, past the cap
 * (the capture truncated) and within it, in the text and in the JSON's
 * argument. */
static void test_runtime_lengths_render_as_static_ones(void **state)
{
	const struct gs_value cut[] = {
		ARG(t_i64, "\x2c\x01\0\0\0\0\0\0", 0), /* 300 */
		ARG(t_dump, "\xde\xad\xbe\xef\x00\x41\x42\x43\0\0\0\0\0\0\0\0", GS_VAR_TRUNCATED),
	};
	const struct gs_value len_dump[] = {
		ARG(t_i64, "\x03\0\0\0\0\0\0\0", 0),
		ARG(t_dump, "\xde\xad\xbe\xef\x00\x41\x42\x43\0\0\0\0\0\0\0\0", 0),
	};
	const char *whole = "de ad be ef 00 41 42 43 00 00 00 00 00 00 00 00 <truncated>";
	char want[128];
	char *json;

	(void)state;
	snprintf(want, sizeof(want), "XC=%s", whole);
	check_format("XC={:x.300}", &cut[1], 1, want);
	check_format("XC={:x.n$}", cut, 2, want);
	check_format("XC={:x.*}", cut, 2, want);
	json = json_args("XC={:x.n$} {:x.*}", (const struct gs_value[]){ len_dump[0], len_dump[1],
									 cut[0], cut[1] }, 4);
	if (!strstr(json, "{\"name\":null,\"type\":\"u8[]\",\"status\":\"ok\","
			  "\"value\":\"de ad be\"}") ||
	    !strstr(json, "\"status\":\"truncated\",\"value\":\"de ad be ef 00 41 42 43 00 00 00 "
			  "00 00 00 00 00\"}"))
		fail_msg("the dumps' JSON: %s", json);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregates_are_c_like_and_whole),
		cmocka_unit_test(test_scalars_by_their_types),
		cmocka_unit_test(test_bit_fields_read_their_bits),
		cmocka_unit_test(test_short_captures_end_in_dots),
		cmocka_unit_test(test_target_bytes_are_escaped),
		cmocka_unit_test(test_strings_and_dumps),
		cmocka_unit_test(test_runtime_lengths_render_as_static_ones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
