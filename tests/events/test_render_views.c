/* Standard-library values (gs/view.h) rendered from hand-built type trees
 * with views, bytes laid out as gs_view_ext_size says: the text as gdb's
 * libstdc++ printers and rust-gdb print it, and the JSON the printer
 * writes (docs/values.md, "C++ and Rust standard types"). Then every
 * length of random bytes for each of these types, which must render
 * without a fault (the CI's ASan build checks the reads), as text bounded
 * by its buffer and NUL-terminated, and as JSON that a strict checker
 * (json_check.h) reads. */
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
#include <gs/view.h>

#include "base.h"
#include "json_check.h"
#include "view_types.h"

/* What the text buffers hold past the size a renderer is given. */
#define GUARD ((char)0xa5)

/* ---- bytes --------------------------------------------------------------- */

struct buf {
	uint8_t b[512];
	size_t n;
};

static void put_le(struct buf *b, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b->b[b->n++] = (uint8_t)(v >> 8 * i);
}

static void put_bytes(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put_zeros(struct buf *b, size_t n)
{
	memset(b->b + b->n, 0, n);
	b->n += n;
}

/* A string's bytes (ptr, len at len_off, room to size), for layouts. */
static void cpp_string(struct buf *b, uint64_t ptr, uint64_t len)
{
	put_le(b, ptr, 8);
	put_le(b, len, 8);
	put_zeros(b, 16);
}

/* A string view's extension: status and cap (8) bytes of text. */
static void string_ext(struct buf *b, uint8_t status, const char *text)
{
	char room[8] = { 0 };

	memcpy(room, text, strnlen(text, sizeof(room)));
	put_le(b, status, 1);
	put_bytes(b, room, sizeof(room));
}

static void vector(struct buf *b, uint64_t start, uint64_t n, uint64_t cap)
{
	put_le(b, start, 8);
	put_le(b, start + 4 * n, 8);
	put_le(b, start + 4 * cap, 8);
}

/* A vector<int>'s extension: status and 4 ints. */
static void ints_ext(struct buf *b, uint8_t status, int a, int b2, int c, int d)
{
	put_le(b, status, 1);
	put_le(b, (uint32_t)a, 4);
	put_le(b, (uint32_t)b2, 4);
	put_le(b, (uint32_t)c, 4);
	put_le(b, (uint32_t)d, 4);
}

/* ---- rendering ----------------------------------------------------------- */

static struct gs_value value_of(const struct gs_type *t, const uint8_t *data, size_t len)
{
	return (struct gs_value){ .name = "v", .type = t, .kind = t->kind, .data = data,
				  .data_len = (uint16_t)len, .view_caps = &vt_caps };
}

static void text_of(const struct gs_type *t, const struct buf *b, char *out, size_t size)
{
	struct gs_value v = value_of(t, b->b, b->n);

	gs_render_value(&v, 0, out, size);
}

/* The JSON line the printer writes for an event holding the value
 * (malloc'd; its length in *len). */
static char *event_json(const struct gs_type *t, const uint8_t *data, size_t len, size_t *n)
{
	GS_OPTS(gs_printer_opts, oo, .format = GS_PRINT_JSON, .timestamp = GS_PRINT_TIME_NONE);
	struct gs_inst in[2];
	struct gs_event ev;
	struct gs_printer *p;
	char *text = NULL;
	FILE *f = open_memstream(&text, n);

	assert_non_null(f);
	memset(in, 0, sizeof(in));
	memset(&ev, 0, sizeof(ev));
	in[0].type = GS_INST_PRINT_COMPLEX_VARIABLE;
	in[0].variable = value_of(t, data, len);
	in[1].type = GS_INST_END;
	ev.insts = in;
	ev.ninsts = 2;
	assert_int_equal(gs_printer_new(&oo, &p, NULL), 0);
	assert_int_equal(gs_print_event(p, &ev, f), 0);
	gs_printer_free(p);
	fclose(f);
	return text;
}

/* The "value" of the JSON line the printer writes for the value. */
static char *json_of(const struct gs_type *t, const uint8_t *data, size_t len)
{
	size_t n;
	char *text = event_json(t, data, len, &n), *v, *end;

	v = strstr(text, ",\"value\":");
	end = v ? strstr(v, ",\"text\":") : NULL;
	assert_non_null(end);
	memmove(text, v + 9, (size_t)(end - v - 9));
	text[end - v - 9] = '\0';
	return text;
}

struct view_case {
	const char *what;
	const struct gs_type *type;
	struct buf bytes;
	const char *text, *json;
};

static size_t check(const struct view_case *c)
{
	char text[1024], *json;
	size_t failures = 0;

	text_of(c->type, &c->bytes, text, sizeof(text));
	if (strcmp(text, c->text)) {
		print_message("%s: text\n  expected %s\n  got      %s\n", c->what, c->text, text);
		failures++;
	}
	json = json_of(c->type, c->bytes.b, c->bytes.n);
	if (strcmp(json, c->json)) {
		print_message("%s: json\n  expected %s\n  got      %s\n", c->what, c->json, json);
		failures++;
	}
	free(json);
	return failures;
}

/* ---- the cases ------------------------------------------------------------- */

static void test_ext_size_is_what_the_bytes_need(void **state)
{
	(void)state;
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_string, 0), 1 + 8);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_vector, 0), 1 + 4 * 4);
	/* nested: 2 strings, then each one's status and 8 bytes */
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_rvec, 0), 1 + 2 * 24 + 2 * (1 + 8));
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_option, 0), 0);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_option_ref, 0), 0);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_rc, 0), 1 + 24);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_shared, 0), 1 + 16);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_optional, 0), 0);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_person, 0), (1 + 8) + (1 + 16));
}

static void test_cpp_strings_and_vectors_as_gdb_prints_them(void **state)
{
	struct view_case c[6] = {
		{ "string", &t_string, .text = "\"alice\"", .json = "\"alice\"" },
		{ "string longer than read", &t_string, .text = "\"abcdefgh\"...",
		  .json = "{\"truncated\":true,\"length\":12,\"value\":\"abcdefgh\"}" },
		{ "string not readable", &t_string,
		  .text = "<error: Cannot access memory at address 0x5000>",
		  .json = "{\"error\":\"Cannot access memory at address 0x5000\"}" },
		{ "vector", &t_vector, .text = "std::vector of length 3, capacity 4 = {1, 2, 3}",
		  .json = "[1,2,3]" },
		{ "vector longer than read", &t_vector,
		  .text = "std::vector of length 6, capacity 8 = {1, 2, 3, 4...}",
		  .json = "{\"truncated\":true,\"length\":6,\"elements\":[1,2,3,4]}" },
		{ "vector at NULL", &t_vector,
		  .text = "std::vector of length 3, capacity 3 = "
			  "{<error: Cannot access memory at address 0x0>}",
		  .json = "{\"error\":\"Cannot access memory at address 0x0\"}" },
	};
	size_t failures = 0;

	(void)state;
	cpp_string(&c[0].bytes, 0x5000, 5);
	string_ext(&c[0].bytes, GS_VAR_OK, "alice");
	cpp_string(&c[1].bytes, 0x5000, 12);
	string_ext(&c[1].bytes, GS_VAR_OK, "abcdefgh");
	cpp_string(&c[2].bytes, 0x5000, 3);
	string_ext(&c[2].bytes, GS_VAR_READ_ERROR, "");
	vector(&c[3].bytes, 0x1000, 3, 4);
	ints_ext(&c[3].bytes, GS_VAR_OK, 1, 2, 3, 0);
	vector(&c[4].bytes, 0x1000, 6, 8);
	ints_ext(&c[4].bytes, GS_VAR_OK, 1, 2, 3, 4);
	vector(&c[5].bytes, 0, 3, 3);
	ints_ext(&c[5].bytes, GS_VAR_NULL_DEREF, 0, 0, 0, 0);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		failures += check(&c[i]);
	assert_int_equal(failures, 0);
}

/* A value captured without its extension (data_len is its bytes alone). */
static void test_views_without_extension_say_so(void **state)
{
	struct view_case c[2] = {
		{ "string", &t_string, .text = "<not read: the event has no room>",
		  .json = "{\"error\":\"not read: the event has no room\"}" },
		{ "vector", &t_vector,
		  .text = "std::vector of length 2, capacity 2 = {<not read: the event has no room>}",
		  .json = "{\"error\":\"not read: the event has no room\"}" },
	};
	size_t failures = 0;

	(void)state;
	cpp_string(&c[0].bytes, 0x5000, 5);
	vector(&c[1].bytes, 0x1000, 2, 2);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		failures += check(&c[i]);
	assert_int_equal(failures, 0);
}

/* A char *'s extension: status and cap + 2 (10) bytes of text. */
static void cstring_ext(struct buf *b, uint8_t status, const char *text)
{
	char room[10] = { 0 };

	memcpy(room, text, strnlen(text, sizeof(room)));
	put_le(b, status, 1);
	put_bytes(b, room, sizeof(room));
}

/* A char * with its string as gdb prints it (at the cap of 8:
 * exactly 8 whole, 9 cut and marked as gdb marks it), NULL, unreadable,
 * not read; references inside a struct. */
static void test_c_strings_and_references_as_gdb_prints_them(void **state)
{
	struct view_case c[8] = {
		{ "char *", &t_char_ptr, .text = "0x5000 \"alice\"",
		  .json = "{\"address\":\"0x5000\",\"string\":\"alice\"}" },
		{ "char * of the cap", &t_char_ptr, .text = "0x5000 \"abcdefgh\"",
		  .json = "{\"address\":\"0x5000\",\"string\":\"abcdefgh\"}" },
		{ "char * past the cap", &t_char_ptr, .text = "0x5000 \"abcdefgh\"...",
		  .json = "{\"address\":\"0x5000\",\"string\":\"abcdefgh\",\"truncated\":true}" },
		{ "NULL char *", &t_char_ptr, .text = "0x0",
		  .json = "{\"address\":\"0x0\",\"string\":null}" },
		{ "char * not readable", &t_char_ptr,
		  .text = "0x10 <error: Cannot access memory at address 0x10>",
		  .json = "{\"address\":\"0x10\",\"error\":\"Cannot access memory at address 0x10\"}" },
		{ "char * not read", &t_char_ptr,
		  .text = "0x5000 <not read: the event has no room>",
		  .json = "{\"address\":\"0x5000\",\"error\":\"not read: the event has no room\"}" },
		{ "references", &t_holder,
		  .text = "{count = @0x7000, name = \"alice\", tag = 0x0}",
		  .json = "{\"count\":\"0x7000\",\"name\":\"alice\",\"tag\":{\"address\":\"0x0\","
			  "\"string\":null}}" },
		{ "reference not readable", &t_holder,
		  .text = "{count = @0x7000, name = <error: Cannot access memory at address 0x6000>, "
			  "tag = 0x5000 \"t\"}",
		  .json = "{\"count\":\"0x7000\",\"name\":{\"error\":\"Cannot access memory at "
			  "address 0x6000\"},\"tag\":{\"address\":\"0x5000\",\"string\":\"t\"}}" },
	};
	size_t failures = 0;

	(void)state;
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_char_ptr, 0), 1 + 10);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_int_ref, 0), 0);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_holder, 0), (1 + 32 + 1 + 8) + (1 + 10));
	put_le(&c[0].bytes, 0x5000, 8);
	cstring_ext(&c[0].bytes, GS_VAR_OK, "alice");
	put_le(&c[1].bytes, 0x5000, 8);
	cstring_ext(&c[1].bytes, GS_VAR_OK, "abcdefgh");
	put_le(&c[2].bytes, 0x5000, 8);
	cstring_ext(&c[2].bytes, GS_VAR_OK, "abcdefghi");
	put_le(&c[3].bytes, 0, 8);
	cstring_ext(&c[3].bytes, GS_VAR_NULL_DEREF, "");
	put_le(&c[4].bytes, 0x10, 8);
	cstring_ext(&c[4].bytes, GS_VAR_READ_ERROR, "");
	put_le(&c[5].bytes, 0x5000, 8);
	for (int k = 6; k < 8; k++) {
		put_le(&c[k].bytes, 0x7000, 8);
		put_le(&c[k].bytes, 0x6000, 8);
		put_le(&c[k].bytes, k == 6 ? 0 : 0x5000, 8);
		/* name's referent, a std::string, and its text; then tag's */
		put_le(&c[k].bytes, k == 6 ? GS_VAR_OK : GS_VAR_READ_ERROR, 1);
		cpp_string(&c[k].bytes, k == 6 ? 0x4000 : 0, k == 6 ? 5 : 0);
		string_ext(&c[k].bytes, GS_VAR_OK, k == 6 ? "alice" : "");
		cstring_ext(&c[k].bytes, k == 6 ? GS_VAR_NULL_DEREF : GS_VAR_OK, k == 6 ? "" : "t");
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		failures += check(&c[i]);
	assert_int_equal(failures, 0);
}

/* The copies of Vec<String> and Option<i32> the dwarf layer makes for a
 * variable some of whose DWARF pieces are empty (the members there
 * placeholders): a missing data pointer is not a read of address 0, a
 * missing length or discriminant not a 0. */
static const struct gs_type t_gone_ptr = { .kind = GS_TYPE_OPTIMIZED_OUT, .name = "*const u8",
					   .byte_size = 8 };
static const struct gs_type t_gone_u64 = { .kind = GS_TYPE_OPTIMIZED_OUT, .name = "usize",
					   .byte_size = 8 };
static const struct gs_type_member rvec_no_ptr_m[] = { { "ptr", &t_gone_ptr, 0 },
							{ "cap", &t_u64, 8 },
							{ "len", &t_u64, 16 } };
static const struct gs_type_member rvec_no_len_m[] = { { "ptr", &t_char_ptr, 0 },
							{ "cap", &t_u64, 8 },
							{ "len", &t_gone_u64, 16 } };
static const struct gs_type t_rvec_no_ptr = { .kind = GS_TYPE_STRUCT,
					      .name = "alloc::vec::Vec<alloc::string::String>",
					      .byte_size = 24, .members = rvec_no_ptr_m, .nmembers = 3,
					      .view = &v_rvec };
static const struct gs_type t_rvec_no_len = { .kind = GS_TYPE_STRUCT,
					      .name = "alloc::vec::Vec<alloc::string::String>",
					      .byte_size = 24, .members = rvec_no_len_m, .nmembers = 3,
					      .view = &v_rvec };
static const struct gs_type t_synthetic_ptr = { .kind = GS_TYPE_OPTIMIZED_OUT,
						.name = "*const u8", .byte_size = 8,
						.flags = GS_TYPEF_SYNTHETIC };
static const struct gs_type_member rvec_past_m[] = { { "ptr", &t_char_ptr, 0 },
						      { "cap", &t_u64, 8 },
						      { "len", &t_synthetic_ptr, 16 } };
static const struct gs_type t_rvec_past = { .kind = GS_TYPE_STRUCT, .name = "Vec", .byte_size = 24,
					    .members = rvec_past_m, .nmembers = 3, .view = &v_rvec };

static void test_views_over_missing_pieces_are_optimized_out(void **state)
{
	struct view_case c[2] = {
		{ "Vec without its pointer", &t_rvec_no_ptr, .text = "Vec(size=2) = {<optimized out>}",
		  .json = "{\"status\":\"optimized_out\"}" },
		{ "Vec without its length", &t_rvec_no_len, .text = "<optimized out>",
		  .json = "{\"status\":\"optimized_out\"}" },
	};
	size_t failures = 0;

	(void)state;
	assert_int_equal(gs_view_gap(&t_rvec), GS_VIEW_GAP_NONE);
	assert_int_equal(gs_view_gap(&t_rvec_no_ptr), GS_VIEW_GAP_ELEMENTS);
	assert_int_equal(gs_view_gap(&t_rvec_no_len), GS_VIEW_GAP_WHOLE);
	/* bytes past the last piece are there for gdb (zeros): not a gap */
	assert_int_equal(gs_view_gap(&t_rvec_past), GS_VIEW_GAP_NONE);
	/* the extension is laid out as ever; the code generator writes the
	 * status optimized out in it and reads nothing */
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_rvec_no_ptr, 0),
			 gs_view_ext_size(&vt_caps, &t_rvec, 0));
	for (int k = 0; k < 2; k++) {
		put_le(&c[k].bytes, 0, 8);
		put_le(&c[k].bytes, 2, 8);
		put_le(&c[k].bytes, k ? 0 : 2, 8);
		put_le(&c[k].bytes, GS_VAR_OPTIMIZED_OUT, 1);
		put_zeros(&c[k].bytes, gs_view_ext_size(&vt_caps, &t_rvec, 0) - 1);
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		failures += check(&c[i]);
	assert_int_equal(failures, 0);
}

static void rust_string(struct buf *b, uint64_t ptr, uint64_t len)
{
	put_le(b, ptr, 8);
	put_le(b, len, 8);
	put_le(b, len, 8);
}

/* A Vec<String>'s extension: status, 2 Strings, then each String's own. */
static void test_nested_extensions_in_element_order(void **state)
{
	struct view_case c[2] = {
		{ "Vec<String>", &t_rvec, .text = "Vec(size=2) = {\"ab\", \"xyz\"}",
		  .json = "[\"ab\",\"xyz\"]" },
		{ "struct person", &t_person,
		  .text = "{name = \"bob\", ids = std::vector of length 2, capacity 2 = {7, 8}}",
		  .json = "{\"name\":\"bob\",\"ids\":[7,8]}" },
	};
	size_t failures = 0;

	(void)state;
	put_le(&c[0].bytes, 0x2000, 8); /* ptr */
	put_le(&c[0].bytes, 2, 8);      /* cap */
	put_le(&c[0].bytes, 2, 8);      /* len */
	put_le(&c[0].bytes, GS_VAR_OK, 1);
	rust_string(&c[0].bytes, 0x3000, 2);
	rust_string(&c[0].bytes, 0x3100, 3);
	string_ext(&c[0].bytes, GS_VAR_OK, "ab");
	string_ext(&c[0].bytes, GS_VAR_OK, "xyz");
	cpp_string(&c[1].bytes, 0x5000, 3);
	vector(&c[1].bytes, 0x1000, 2, 2);
	string_ext(&c[1].bytes, GS_VAR_OK, "bob");
	ints_ext(&c[1].bytes, GS_VAR_OK, 7, 8, 0, 0);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		failures += check(&c[i]);
	assert_int_equal(failures, 0);
}

static void test_rust_enums_pick_their_variant(void **state)
{
	struct view_case c[5] = {
		{ "Some", &t_option, .text = "core::option::Option<i32>::Some(7)",
		  .json = "{\"variant\":\"Some\",\"fields\":[7]}" },
		{ "None", &t_option, .text = "core::option::Option<i32>::None",
		  .json = "{\"variant\":\"None\"}" },
		{ "bad discriminant", &t_option,
		  .text = "core::option::Option<i32>::<invalid discriminant 5>",
		  .json = "{\"error\":\"invalid discriminant 5\"}" },
		{ "niche Some", &t_option_ref, .text = "core::option::Option<&i32>::Some(0x1234)",
		  .json = "{\"variant\":\"Some\",\"fields\":[\"0x1234\"]}" },
		{ "niche None", &t_option_ref, .text = "core::option::Option<&i32>::None",
		  .json = "{\"variant\":\"None\"}" },
	};
	size_t failures = 0;

	(void)state;
	put_le(&c[0].bytes, 1, 4);
	put_le(&c[0].bytes, 7, 4);
	put_le(&c[1].bytes, 0, 4);
	put_le(&c[1].bytes, 99, 4);
	put_le(&c[2].bytes, 5, 4);
	put_le(&c[2].bytes, 0, 4);
	put_le(&c[3].bytes, 0x1234, 8);
	put_le(&c[4].bytes, 0, 8);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		failures += check(&c[i]);
	assert_int_equal(failures, 0);
}

static void test_counted_pointers_show_their_counts(void **state)
{
	struct view_case c[5] = {
		{ "Rc", &t_rc, .text = "Rc(strong=2, weak=0) = {value = 5, strong = 2, weak = 0}",
		  .json = "{\"value\":5,\"strong\":2,\"weak\":0}" },
		{ "shared_ptr", &t_shared,
		  .text = "std::shared_ptr<int> (use count 1, weak count 0) = {get() = 0x1000}",
		  .json = "{\"get\":\"0x1000\",\"use_count\":1,\"weak_count\":0}" },
		{ "empty shared_ptr", &t_shared,
		  .text = "std::shared_ptr<int> (empty) = {get() = 0x0}",
		  .json = "{\"get\":\"0x0\",\"use_count\":0,\"weak_count\":0}" },
		{ "shared_ptr block not read", &t_shared,
		  .text = "std::shared_ptr<int> (<error: Cannot access memory at address 0x7000>) = "
			  "{get() = 0x1000}",
		  .json = "{\"get\":\"0x1000\",\"error\":\"Cannot access memory at address "
			  "0x7000\"}" },
		{ "optional", &t_optional, .text = "std::optional<int> = {[contained value] = 7}",
		  .json = "7" },
	};
	size_t failures = 0;

	(void)state;
	put_le(&c[0].bytes, 0x4000, 8);
	put_le(&c[0].bytes, GS_VAR_OK, 1);
	put_le(&c[0].bytes, 2, 8);
	put_le(&c[0].bytes, 1, 8);
	put_le(&c[0].bytes, 5, 4);
	put_zeros(&c[0].bytes, 4);
	put_le(&c[1].bytes, 0x1000, 8);
	put_le(&c[1].bytes, 0x7000, 8);
	put_le(&c[1].bytes, GS_VAR_OK, 1);
	put_le(&c[1].bytes, 0xdead, 8);
	put_le(&c[1].bytes, 1, 4);
	put_le(&c[1].bytes, 1, 4);
	put_zeros(&c[2].bytes, 16 + 17);
	put_le(&c[3].bytes, 0x1000, 8);
	put_le(&c[3].bytes, 0x7000, 8);
	put_le(&c[3].bytes, GS_VAR_READ_ERROR, 1);
	put_zeros(&c[3].bytes, 16);
	put_le(&c[4].bytes, 7, 4);
	put_le(&c[4].bytes, 1, 1);
	put_zeros(&c[4].bytes, 3);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		failures += check(&c[i]);
	assert_int_equal(failures, 0);
	c[4].bytes.b[4] = 0;
	c[4].text = "std::optional<int> [no contained value]";
	c[4].json = "null";
	assert_int_equal(check(&c[4]), 0);
}

/* Values shown from their own bytes (and their fields' extensions). */
static void test_inline_views_show_their_fields(void **state)
{
	struct view_case c[7] = {
		{ "variant", &t_variant, .text = "std::variant<int, double> [index 1] = {2.5}",
		  .json = "{\"index\":1,\"value\":2.5}" },
		{ "tuple", &t_tuple, .text = "std::tuple containing = {[1] = 1, [2] = \"hi\"}",
		  .json = "[1,\"hi\"]" },
		{ "unique_ptr", &t_unique, .text = "std::unique_ptr<int> = {get() = 0x1000}",
		  .json = "{\"get\":\"0x1000\"}" },
		{ "RefCell borrowed mutably", &t_refcell,
		  .text = "RefCell(borrow_mut=1) = {value = 6, borrow = -1}",
		  .json = "{\"value\":6,\"borrow\":-1}" },
		{ "struct", &t_rstruct_s, .text = "path::S {x: 1, y: 2}",
		  .json = "{\"x\":1,\"y\":2}" },
		{ "tuple struct", &t_rstruct_p, .text = "path::P (1, 2)", .json = "[1,2]" },
		{ "tuple", &t_rtuple, .text = "(3, \"x\")", .json = "[3,\"x\"]" },
	};
	size_t failures = 0;

	(void)state;
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_tuple, 0), 1 + 8);
	assert_int_equal(gs_view_ext_size(&vt_caps, &t_rtuple, 0), 1 + 8);
	put_le(&c[0].bytes, 0x4004000000000000ull, 8); /* 2.5 */
	put_le(&c[0].bytes, 1, 8);
	cpp_string(&c[1].bytes, 0x5000, 2);
	put_le(&c[1].bytes, 1, 8);
	string_ext(&c[1].bytes, GS_VAR_OK, "hi");
	put_le(&c[2].bytes, 0x1000, 8);
	put_le(&c[3].bytes, (uint64_t)-1, 8);
	put_le(&c[3].bytes, 6, 8);
	put_le(&c[4].bytes, 1, 4);
	put_le(&c[4].bytes, 2, 4);
	put_le(&c[5].bytes, 1, 4);
	put_le(&c[5].bytes, 2, 4);
	rust_string(&c[6].bytes, 0x3000, 1);
	put_le(&c[6].bytes, 3, 8);
	string_ext(&c[6].bytes, GS_VAR_OK, "x");
	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		failures += check(&c[i]);
	assert_int_equal(failures, 0);
}

/* v's text into buffers of several sizes, each inside a larger one
 * filled with a guard byte, as render.h promises (snprintf's contract):
 * nothing written at or past `size`, a NUL at min(length, size - 1), the
 * text cut short a prefix of the whole, the same length returned each
 * time. */
static void check_text_bounded(const struct gs_value *v)
{
	static const size_t sizes[] = { 0, 1, 2, 8, 64, 255 };
	char room[256 + 16], *whole;
	size_t len = gs_render_value(v, 0, room, 0);

	whole = malloc(len + 1);
	assert_non_null(whole);
	assert_int_equal(gs_render_value(v, 0, whole, len + 1), len);
	assert_int_equal(strlen(whole), len);
	for (size_t k = 0; k < BASE_ARRAY_SIZE(sizes); k++) {
		size_t size = sizes[k], cut = len < size ? len : size - 1;

		memset(room, GUARD, sizeof(room));
		assert_int_equal(gs_render_value(v, 0, room, size), len);
		for (size_t i = size; i < sizeof(room); i++)
			if (room[i] != GUARD)
				fail_msg("%s: byte %zu of a %zu-byte buffer written",
					 v->type->name, i, size);
		if (!size)
			continue;
		assert_int_equal(room[cut], '\0');
		assert_memory_equal(room, whole, cut);
	}
	free(whole);
}

/* The printer's JSON line for v: one line (its only newline the last
 * byte) that a strict checker reads as one JSON value. */
static void check_json_valid(const struct gs_type *t, const uint8_t *data, size_t len)
{
	size_t n, at = 0;
	char *line = event_json(t, data, len, &n);
	const char *why;

	assert_true(n > 0 && line[n - 1] == '\n');
	assert_null(memchr(line, '\n', n - 1));
	why = json_check(line, n, &at);
	if (why)
		fail_msg("%s: not JSON at byte %zu (%s): %s", t->name, at, why, line);
	free(line);
}

/* Every length of random bytes (and of all-zero, all-one bytes) renders,
 * as text and as JSON, without reading past them: the text bounded by its
 * buffer and NUL-terminated, the JSON valid whatever the bytes held. */
static void test_random_bytes_of_every_length_render(void **state)
{
	uint32_t seed = 0x9e3779b9;

	(void)state;
	for (size_t k = 0; k < BASE_ARRAY_SIZE(vt_types); k++) {
		size_t whole = vt_types[k]->byte_size + gs_view_ext_size(&vt_caps, vt_types[k], 0);

		for (size_t len = 0; len <= whole + 8; len++) {
			/* only the whole length carries the views' extension
			 * (ev_value_ext): more rounds there */
			int rounds = len == whole ? 64 : 8;

			for (int round = 0; round < rounds; round++) {
				uint8_t *data = malloc(len ? len : 1);
				struct gs_value v = value_of(vt_types[k], data, len);

				for (size_t i = 0; i < len; i++) {
					seed = seed * 1664525u + 1013904223u;
					data[i] = round == 0 ? 0 : round == 1 ? 0xff :
						  (uint8_t)(seed >> 24);
					/* small lengths and OK statuses now and then, so
					 * elements are reached; in the last rounds with
					 * a quarter of the large bytes left, so the text
					 * reached holds bytes that are not ASCII */
					if (round >= 4 && data[i] > 8 &&
					    (round < 6 || (seed >> 8) % 4 != 0))
						data[i] &= 3;
				}
				check_text_bounded(&v);
				check_json_valid(vt_types[k], data, len);
				free(data);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext_size_is_what_the_bytes_need),
		cmocka_unit_test(test_cpp_strings_and_vectors_as_gdb_prints_them),
		cmocka_unit_test(test_views_without_extension_say_so),
		cmocka_unit_test(test_c_strings_and_references_as_gdb_prints_them),
		cmocka_unit_test(test_views_over_missing_pieces_are_optimized_out),
		cmocka_unit_test(test_nested_extensions_in_element_order),
		cmocka_unit_test(test_rust_enums_pick_their_variant),
		cmocka_unit_test(test_counted_pointers_show_their_counts),
		cmocka_unit_test(test_inline_views_show_their_fields),
		cmocka_unit_test(test_random_bytes_of_every_length_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
