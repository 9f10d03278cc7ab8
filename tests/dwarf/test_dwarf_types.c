/* Types the dwarf layer builds, against the C compiler's own layout of the
 * same declarations (vals_types.h): sizes, member order and offsets, bit
 * fields read back from real values, enumerators, array strides, the
 * spelled names of typedefs and qualifiers, types by name for cast(),
 * whole trees copied into a trace context, cycles included, and types no
 * compiler writes (fixtures/crafted_types.S): an empty typedef name, types
 * holding themselves, typedef chains of 128, 1024 and 1025 links. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/context.h>
#include <gs/protocol.h>

#include "base.h"
#include "dwarf_fixture.h"
#include "vals_types.h"

static const struct gs_type *g_record_type(struct dfx *f)
{
	const struct gs_var *v = dfx_var(f, dfx_breakpoint(f, "main"), "g_record");

	assert_non_null(v);
	return v->type;
}

static const struct gs_type_member *member(const struct gs_type *t, const char *name)
{
	for (uint32_t i = 0; i < t->nmembers; i++)
		if (t->members[i].name && strcmp(t->members[i].name, name) == 0)
			return &t->members[i];
	fail_msg("%s has no member %s", t->name, name);
	return NULL;
}

/* What a BPF read of the bit field gives: the bytes from its offset,
 * shifted and sign- or zero-extended as codegen does. */
static int64_t read_bits(const void *base, const struct gs_type_member *m)
{
	uint64_t v = 0;
	unsigned n = (m->bit_offset + m->bit_size + 7) / 8;

	memcpy(&v, (const uint8_t *)base + m->offset, n);
	v >>= m->bit_offset;
	v <<= 64 - m->bit_size;
	return m->type->flags & GS_TYPEF_SIGNED ? (int64_t)v >> (64 - m->bit_size) :
						  (int64_t)(v >> (64 - m->bit_size));
}

static void test_struct_layout_matches_the_compiler(void **state)
{
	(void)state;
	for (const char *const *v = dfx_variants(); *v; v++) {
		struct dfx f;
		const struct gs_type *t;

		assert_true(dfx_open(&f, *v));
		t = g_record_type(&f);
		assert_string_equal(t->name, "record_t");
		assert_int_equal(t->kind, GS_TYPE_STRUCT);
		assert_int_equal(t->byte_size, sizeof(struct record));
		assert_int_equal(member(t, "id")->offset, offsetof(struct record, id));
		assert_int_equal(member(t, "in")->offset, offsetof(struct record, in));
		assert_int_equal(member(member(t, "in")->type, "tag")->offset,
				 offsetof(struct inner, tag));
		assert_int_equal(member(t, "num")->offset, offsetof(struct record, num));
		assert_int_equal(member(t, "ratio")->offset, offsetof(struct record, ratio));
		assert_int_equal(member(t, "values")->offset, offsetof(struct record, values));
		assert_int_equal(member(t, "grid")->offset, offsetof(struct record, grid));
		assert_int_equal(member(t, "next")->offset, offsetof(struct record, next));
		assert_int_equal(member(t, "big")->offset, offsetof(struct record, big));
		assert_string_equal(t->members[0].name, "id");
		assert_string_equal(t->members[t->nmembers - 1].name, "big");
		dfx_close(&f);
	}
}

static void test_bit_fields_read_back_what_c_stored(void **state)
{
	struct flags fl = { .a = 5, .b = 17, .c = -9, .d = 0x123456789aull };

	(void)state;
	for (const char *const *v = dfx_variants(); *v; v++) {
		struct dfx f;
		const struct gs_type *t;

		assert_true(dfx_open(&f, *v));
		t = member(g_record_type(&f), "fl")->type;
		assert_int_equal(read_bits(&fl, member(t, "a")), 5);
		assert_int_equal(read_bits(&fl, member(t, "b")), 17);
		assert_int_equal(read_bits(&fl, member(t, "c")), -9);
		assert_int_equal(read_bits(&fl, member(t, "d")), 0x123456789aull);
		dfx_close(&f);
	}
}

static void test_scalars_enums_arrays_and_pointers_are_typed(void **state)
{
	(void)state;
	for (const char *const *v = dfx_variants(); *v; v++) {
		struct dfx f;
		const struct gs_type *t, *c, *grid, *vals, *next, *num;

		assert_true(dfx_open(&f, *v));
		t = g_record_type(&f);
		c = member(t, "color")->type;
		assert_int_equal(c->kind, GS_TYPE_ENUM);
		assert_string_equal(c->name, "enum color");
		assert_int_equal(c->nenumerators, 3);
		assert_string_equal(c->enumerators[2].name, "BLUE");
		assert_int_equal(c->enumerators[2].value, BLUE);
		assert_int_equal(c->enumerators[1].value, GREEN);
		vals = member(t, "values")->type;
		assert_int_equal(vals->kind, GS_TYPE_ARRAY);
		assert_int_equal(vals->count, 4);
		assert_int_equal(vals->target->kind, GS_TYPE_I32);
		grid = member(t, "grid")->type;
		assert_int_equal(grid->count, 2);
		assert_int_equal(grid->target->kind, GS_TYPE_ARRAY);
		assert_int_equal(grid->target->count, 3);
		assert_int_equal(grid->target->byte_size, 3 * sizeof(int));
		assert_string_equal(grid->name, "int [2][3]");
		next = member(t, "next")->type;
		assert_int_equal(next->kind, GS_TYPE_POINTER);
		assert_ptr_equal(next->target->members, t->members); /* the cycle closes */
		num = member(t, "num")->type;
		assert_int_equal(num->kind, GS_TYPE_UNION);
		assert_int_equal(member(num, "f")->type->kind, GS_TYPE_F32);
		assert_int_equal(member(t, "ratio")->type->kind, GS_TYPE_F64);
		assert_int_equal(member(t, "ok")->type->kind, GS_TYPE_BOOL);
		assert_string_equal(member(t, "small")->type->name, "uint8_t");
		assert_int_equal(member(t, "big")->type->kind, GS_TYPE_I64);
		assert_string_equal(member(t, "label")->type->name, "const char *");
		assert_true(member(member(t, "in")->type, "tag")->type->flags & GS_TYPEF_CHAR);
		dfx_close(&f);
	}
}

static void test_types_are_found_by_their_c_spelling(void **state)
{
	static const char *const names[] = { "struct record", "record_t", "int", "enum color",
					     "union number", "struct point *", "u32", "void *" };

	(void)state;
	for (const char *const *v = dfx_variants(); *v; v++) {
		struct dfx f;
		const struct gs_dwarf_scope *s;
		const struct gs_type *t;
		struct gs_error err;

		assert_true(dfx_open(&f, *v));
		assert_int_equal(gs_dwarf_scope_at(f.d, dfx_breakpoint(&f, "main"), &s, &err), 0);
		for (size_t i = 0; i < BASE_ARRAY_SIZE(names); i++)
			if (gs_dwarf_find_type(f.d, s, names[i], &t, &err))
				fail_msg("%s: %s", *v, err.msg);
		assert_int_equal(gs_dwarf_find_type(f.d, s, "struct point *", &t, &err), 0);
		assert_int_equal(t->kind, GS_TYPE_POINTER);
		assert_int_equal(t->target->byte_size, sizeof(struct point));
		assert_int_equal(gs_dwarf_find_type(f.d, s, "struct nosuch", &t, &err), -ENOENT);
		assert_non_null(strstr(err.msg, "struct nosuch"));
		dfx_close(&f);
	}
}

static void test_context_copies_whole_trees_with_cycles(void **state)
{
	struct dfx f;
	struct gs_trace_context c;
	const struct gs_type *t, *copy;
	int idx;

	(void)state;
	assert_true(dfx_open(&f, dfx_variants()[0]));
	t = g_record_type(&f);
	gs_context_init(&c);
	idx = gs_context_add_type(&c, t, NULL);
	assert_true(idx >= 0);
	dfx_close(&f); /* the context owns its copy */
	copy = gs_context_get_type(&c, (uint32_t)idx);
	assert_string_equal(copy->name, "record_t");
	assert_int_equal(copy->byte_size, sizeof(struct record));
	/* struct record reaches itself through next: one node in the copy */
	t = member(copy, "next")->type->target;
	assert_string_equal(t->name, "struct record");
	assert_ptr_equal(member(t, "next")->type->target, t);
	assert_string_equal(member(member(copy, "pos")->type, "y")->name, "y");
	gs_context_fini(&c);
}

/* A global of the hand-written DWARF, with its type copied into a trace
 * context as the code generator does (cycles must copy too). */
static const struct gs_type *crafted(struct dfx *f, const char *name)
{
	struct gs_trace_context c;
	const struct gs_var *v;
	struct gs_error err;

	if (gs_dwarf_lookup(f->d, NULL, name, &v, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	gs_context_init(&c);
	assert_true(gs_context_add_type(&c, v->type, NULL) >= 0);
	gs_context_fini(&c);
	return v->type;
}

static void assert_marked(const struct gs_type *t, uint8_t flag, const char *name)
{
	assert_int_equal(t->kind, GS_TYPE_UNKNOWN);
	assert_true(t->flags & flag);
	assert_int_equal(t->byte_size, 0);
	assert_string_equal(t->name, name);
}

/* Hostile DWARF (hardening items 8 and 9): what cannot be typed says why
 * (the renderer prints <cyclic type>, <type too deep>), an empty name is
 * spelled "?", and a typedef chain of 1024 links is followed like gdb's. */
static void test_crafted_types_say_why(void **state)
{
	struct dfx f;
	const struct gs_type *t;

	(void)state;
	assert_true(dfx_open(&f, "libcrafted_types.so"));
	t = crafted(&f, "g_plain");
	assert_int_equal(t->kind, GS_TYPE_I32);
	/* typedef int "": a name spelling code must not read before */
	t = crafted(&f, "g_unnamed");
	assert_int_equal(t->kind, GS_TYPE_I32);
	assert_string_equal(t->name, "?");
	t = crafted(&f, "g_unnamed_ptr");
	assert_int_equal(t->kind, GS_TYPE_POINTER);
	assert_string_equal(t->name, "? *");
	assert_marked(crafted(&f, "g_cyclic"), GS_TYPEF_CYCLIC, "cyc_a");
	t = crafted(&f, "g_cyclic_ptr");
	assert_int_equal(t->kind, GS_TYPE_POINTER);
	assert_string_equal(t->name, "cyc_a *");
	assert_marked(t->target, GS_TYPEF_CYCLIC, "cyc_a");
	assert_marked(crafted(&f, "g_cv_cycle"), GS_TYPEF_CYCLIC, "<cyclic type>");
	assert_marked(crafted(&f, "g_self_array"), GS_TYPEF_CYCLIC, "<cyclic type>");
	t = crafted(&f, "g_self_struct");
	assert_int_equal(t->kind, GS_TYPE_STRUCT);
	assert_int_equal(t->byte_size, 8);
	assert_int_equal(member(t, "n")->type->kind, GS_TYPE_I32);
	assert_marked(member(t, "self")->type, GS_TYPEF_CYCLIC, "<cyclic type>");
	for (int i = 0; i < 2; i++) {
		t = crafted(&f, i ? "g_chain1024" : "g_chain128");
		assert_int_equal(t->kind, GS_TYPE_I32);
		assert_int_equal(t->byte_size, 4);
		assert_string_equal(t->name, "t");
	}
	assert_marked(crafted(&f, "g_chain1025"), GS_TYPEF_TOO_DEEP, "t");
	dfx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_struct_layout_matches_the_compiler),
		cmocka_unit_test(test_bit_fields_read_back_what_c_stored),
		cmocka_unit_test(test_scalars_enums_arrays_and_pointers_are_typed),
		cmocka_unit_test(test_types_are_found_by_their_c_spelling),
		cmocka_unit_test(test_context_copies_whole_trees_with_cycles),
		cmocka_unit_test(test_crafted_types_say_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
