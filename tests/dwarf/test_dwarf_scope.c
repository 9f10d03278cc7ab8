/* The names visible at a probe PC in every fixture variant (gcc -O0/-O2/-O3,
 * clang -O2, DWARF 4 and 5, .debug_types): parameters first, inner scopes
 * shadowing outer ones, the CU's statics and globals after the locals,
 * module globals through the lazy index, where each lives (globals at their
 * ELF symbol's address), and what cannot be located is optimized out. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/protocol.h>

#include "base.h"
#include "dwarf_fixture.h"

static size_t index_of(const struct gs_dwarf_scope *s, const char *name)
{
	for (size_t i = 0; i < s->nvars; i++)
		if (strcmp(s->vars[i].name, name) == 0)
			return i;
	return SIZE_MAX;
}

#define EACH_VARIANT(...)                                                      \
	for (const char *const *v_ = dfx_variants(); *v_; v_++) {              \
		struct dfx f_, *f = &f_;                                       \
		const char *variant = *v_;                                     \
		if (!dfx_open(f, variant))                                     \
			fail_msg("cannot open fixture %s", variant);           \
		do { __VA_ARGS__ } while (0); /* continue: next variant */     \
		dfx_close(f);                                                  \
	}

static void test_parameters_come_first_then_locals_then_file_scope(void **state)
{
	(void)state;
	EACH_VARIANT({
		uint64_t pc = dfx_breakpoint(f, "use_record");
		const struct gs_dwarf_scope *s;
		struct gs_error err;

		assert_true(pc != 0);
		if (gs_dwarf_scope_at(f->d, pc, &s, &err))
			fail_msg("%s: %s", variant, err.msg);
		assert_string_equal(s->function, "use_record");
		assert_true(s->nlocals >= 2);
		assert_string_equal(s->vars[0].name, "r");
		assert_int_equal(s->vars[0].scope, GS_SCOPE_PARAM);
		assert_string_equal(s->vars[1].name, "scale");
		assert_true(index_of(s, "g_counter") >= s->nlocals);
		assert_true(index_of(s, "g_counter") < s->nvars);
		assert_int_equal(s->vars[index_of(s, "g_counter")].scope, GS_SCOPE_GLOBAL);
		assert_int_equal(s->vars[index_of(s, "s_total")].scope, GS_SCOPE_STATIC);
		assert_int_equal(s->vars[index_of(s, "s_points")].scope, GS_SCOPE_STATIC);
	})
}

static void test_globals_are_module_addresses_of_their_symbols(void **state)
{
	static const char *const globals[] = { "g_counter", "s_total", "g_message", "g_record",
					       "s_points", "g_color", "g_name" };

	(void)state;
	EACH_VARIANT({
		uint64_t pc = dfx_breakpoint(f, "caller");

		for (size_t i = 0; i < BASE_ARRAY_SIZE(globals); i++) {
			const struct gs_var *v = dfx_var(f, pc, globals[i]);

			assert_non_null(v);
			/* a static the optimizer folded away has no symbol: no value */
			if (!dfx_symbol(f, globals[i])) {
				assert_int_equal(v->loc.npieces, 0);
				continue;
			}
			assert_int_equal(v->loc.npieces, 1);
			assert_int_equal(v->loc.pieces[0].kind, GS_LOC_MEMORY);
			assert_int_equal(v->loc.pieces[0].base, GS_LOC_BASE_MODULE);
			assert_int_equal(v->loc.cookie, 0x1234);
			if ((uint64_t)v->loc.pieces[0].offset != dfx_symbol(f, globals[i]))
				fail_msg("%s: %s at 0x%llx, its symbol at 0x%llx", variant,
					 globals[i], (long long)v->loc.pieces[0].offset,
					 (long long)dfx_symbol(f, globals[i]));
		}
	})
}

static void test_unoptimized_parameters_live_in_the_frame(void **state)
{
	(void)state;
	EACH_VARIANT({
		const struct gs_var *r;

		if (!strstr(variant, "_O0_"))
			continue;
		r = dfx_var(f, dfx_breakpoint(f, "use_record"), "r");
		assert_non_null(r);
		assert_int_equal(r->loc.npieces, 1);
		assert_int_equal(r->loc.pieces[0].kind, GS_LOC_MEMORY);
		assert_int_equal(r->loc.pieces[0].base, GS_LOC_BASE_REG);
		assert_true(r->loc.cfa_relative);
		assert_true(r->loc.pieces[0].reg == GS_DWARF_REG_RBP ||
			    r->loc.pieces[0].reg == GS_DWARF_REG_RSP);
	})
}

static void test_optimized_parameters_at_entry_are_in_abi_registers(void **state)
{
	(void)state;
	EACH_VARIANT({
		uint64_t pc = dfx_breakpoint(f, "use_record");
		const struct gs_var *r, *scale;

		if (strstr(variant, "_O0_"))
			continue;
		r = dfx_var(f, pc, "r");
		scale = dfx_var(f, pc, "scale");
		assert_non_null(r);
		assert_non_null(scale);
		/* SysV: the first two integer arguments in rdi and rsi */
		assert_int_equal(r->loc.npieces, 1);
		assert_int_equal(r->loc.pieces[0].kind, GS_LOC_REGISTER);
		assert_int_equal(r->loc.pieces[0].reg, 5);
		assert_int_equal(scale->loc.pieces[0].kind, GS_LOC_REGISTER);
		assert_int_equal(scale->loc.pieces[0].reg, 4);
	})
}

static void test_inner_block_shadows_the_outer_name(void **state)
{
	(void)state;
	EACH_VARIANT({
		/* The inlined inline_add sits inside the block that redeclares
		 * shadow; at its first instruction `a` and `b` are visible and
		 * no outer variable of caller is. */
		uint64_t pc = dfx_inline_pc(f, "inline_add");
		const struct gs_dwarf_scope *s;
		struct gs_error err;

		if (!pc)
			continue; /* -O0 does not inline */
		if (gs_dwarf_scope_at(f->d, pc, &s, &err))
			fail_msg("%s: %s", variant, err.msg);
		assert_string_equal(s->function, "inline_add");
		assert_true(index_of(s, "a") < s->nlocals);
		assert_true(index_of(s, "b") < s->nlocals);
		assert_true(index_of(s, "local") == SIZE_MAX);
		assert_int_equal(s->vars[index_of(s, "a")].scope, GS_SCOPE_PARAM);
	})
}

/* gdb's frame at `break caller` when the pc starts the inlined inline_add:
 * caller's parameter and the locals of its blocks holding the pc come
 * first (the inner block's `shadow` over the outer one), the callee's
 * names after; asked for the callee itself, the plain scope. */
static void test_frame_scope_keeps_the_functions_names_in_an_inlined_call(void **state)
{
	(void)state;
	EACH_VARIANT({
		uint64_t pc = dfx_inline_pc(f, "inline_add");
		const struct gs_dwarf_scope *s, *plain;
		struct gs_error err;
		size_t n, local, shadow, a;

		if (!pc)
			continue; /* -O0 does not inline */
		/* apart: with ||, clang sees plain unset when the first fails */
		if (gs_dwarf_frame_scope_at(f->d, pc, "caller", &s, &err))
			fail_msg("%s: %s", variant, err.msg);
		if (gs_dwarf_scope_at(f->d, pc, &plain, &err))
			fail_msg("%s: %s", variant, err.msg);
		assert_string_equal(s->function, "caller");
		n = index_of(s, "n");
		local = index_of(s, "local");
		shadow = index_of(s, "shadow");
		a = index_of(s, "a");
		assert_true(n < s->nlocals && local < s->nlocals && shadow < s->nlocals);
		assert_int_equal(s->vars[n].scope, GS_SCOPE_PARAM);
		/* the inner block's shadow: declared after the outer one */
		assert_true(s->vars[shadow].decl_line > s->vars[local].decl_line + 1);
		/* the callee's names too, after the frame's */
		assert_true(a < s->nlocals && a > n && a > shadow);
		if (gs_dwarf_frame_scope_at(f->d, pc, "inline_add", &s, &err))
			fail_msg("%s: %s", variant, err.msg);
		assert_ptr_equal(s, plain);
	})
}

static void test_other_modules_globals_are_not_this_modules(void **state)
{
	(void)state;
	EACH_VARIANT({
		const struct gs_var *v;
		struct gs_error err;

		/* declared extern here, defined in libvals.so */
		assert_int_equal(gs_dwarf_lookup(f->d, NULL, "lib_counter", &v, &err), -ENOENT);
		assert_non_null(strstr(err.msg, "lib_counter"));
	})
}

static void test_library_globals_are_found_through_the_index(void **state)
{
	struct dfx f;
	const struct gs_var *v;
	struct gs_error err;

	(void)state;
	assert_true(dfx_open(&f, "libvals.so"));
	if (gs_dwarf_lookup(f.d, NULL, "lib_origin", &v, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(v->type->name, "struct point");
	assert_int_equal(v->loc.pieces[0].base, GS_LOC_BASE_MODULE);
	assert_int_equal((uint64_t)v->loc.pieces[0].offset, dfx_symbol(&f, "lib_origin"));
	assert_int_equal(gs_dwarf_lookup(f.d, NULL, "lib_hidden", &v, &err), -ENOENT);
	dfx_close(&f);
}

static void test_no_dwarf_at_an_address_is_an_error(void **state)
{
	struct dfx f;
	const struct gs_dwarf_scope *s;
	struct gs_error err;

	(void)state;
	assert_true(dfx_open(&f, dfx_variants()[0]));
	assert_int_equal(gs_dwarf_scope_at(f.d, 0x10, &s, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "0x10"));
	dfx_close(&f);
}

static void test_locations_are_described_for_people(void **state)
{
	static const struct gs_loc_piece reg = { .kind = GS_LOC_REGISTER, .reg = 5 };
	static const struct gs_loc_piece stack = { .kind = GS_LOC_MEMORY,
						   .base = GS_LOC_BASE_REG, .reg = 7, .offset = -12 };
	struct gs_var_loc l = { .pieces = &reg, .npieces = 1 };
	char buf[128];

	(void)state;
	gs_dwarf_describe_location(&l, buf, sizeof(buf));
	assert_string_equal(buf, "register rdi");
	l.pieces = &stack;
	l.cfa_relative = true;
	gs_dwarf_describe_location(&l, buf, sizeof(buf));
	assert_string_equal(buf, "stack rsp-12");
	l.npieces = 0;
	l.why = GS_LOC_WHY_ENTRY_VALUE;
	gs_dwarf_describe_location(&l, buf, sizeof(buf));
	assert_string_equal(buf, "optimized out (entry value)");
}

static void test_functions_are_listed_by_glob(void **state)
{
	(void)state;
	EACH_VARIANT({
		struct gs_dwarf_function *fns;
		size_t n;
		struct gs_error err;

		if (gs_dwarf_list_functions(f->d, f->elf, "*_record", &fns, &n, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(n, 1);
		assert_string_equal(fns[0].name, "use_record");
		if (!fns[0].file)
			fail_msg("%s: use_record has no file", variant);
		assert_non_null(strstr(fns[0].file, "vals.c"));
		assert_true(fns[0].line > 0);
		assert_int_equal(fns[0].addr, dfx_symbol(f, "use_record"));
		free(fns);
	})
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parameters_come_first_then_locals_then_file_scope),
		cmocka_unit_test(test_frame_scope_keeps_the_functions_names_in_an_inlined_call),
		cmocka_unit_test(test_globals_are_module_addresses_of_their_symbols),
		cmocka_unit_test(test_unoptimized_parameters_live_in_the_frame),
		cmocka_unit_test(test_optimized_parameters_at_entry_are_in_abi_registers),
		cmocka_unit_test(test_inner_block_shadows_the_outer_name),
		cmocka_unit_test(test_other_modules_globals_are_not_this_modules),
		cmocka_unit_test(test_library_globals_are_found_through_the_index),
		cmocka_unit_test(test_no_dwarf_at_an_address_is_an_error),
		cmocka_unit_test(test_locations_are_described_for_people),
		cmocka_unit_test(test_functions_are_listed_by_glob),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
