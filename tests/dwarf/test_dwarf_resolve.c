/* Target resolution in the dwarf layer, on a fixture ELF file alone: no
 * process, no kernel, no runtime linked. A function name gives its body
 * past the prologue (its entry for return probes), a static inline function
 * its inline instances, file:line the statements of that line, an IFUNC
 * its resolver with a note saying so, and an unknown name -ENOENT with a
 * message that says what to do; a C++ qualified name every function it
 * names (overloads, template instances), one by its signature, and an
 * unknown one the functions of its last part. Return values are placed by the x86-64
 * ABI: rax and rdx, the memory rax points to, or refused (SSE). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/modfile.h>

#include <gs/internal/dwarf.h>

static char fixture[4096], names_fixture[4096];

static int setup(void **state)
{
	const char *dir = getenv("GS_DWARF_FIXTURES");

	(void)state;
	snprintf(fixture, sizeof(fixture), "%s/resolve_fix", dir ? dir : ".");
	snprintf(names_fixture, sizeof(names_fixture), "%s/names_cxx_fix", dir ? dir : ".");
	return 0;
}

static int resolve(enum dwv_target_kind kind, const char *input, const char *name, uint32_t line,
		   bool entry, struct dwv_target_res *res, struct gs_error *err)
{
	struct dwv_target_req req = { .kind = kind, .input = input, .name = name, .line = line,
				      .module = fixture, .entry = entry };

	return dwv_target_resolve(&req, res, err);
}

/* The address nm gives a symbol of a fixture, through the module file. */
static uint64_t symbol_in(const char *path, const char *name, uint64_t *size)
{
	struct gs_modfiles *files;
	struct gs_modfile *m;
	uint64_t addr = 0;

	assert_int_equal(gs_modfiles_new(NULL, &files, NULL), 0);
	assert_int_equal(gs_modfile_open(files, path, &m, NULL), 0);
	assert_int_equal(gs_modfile_symbols_named(m, name, &addr, size, 1), 1);
	gs_modfiles_free(files);
	return addr;
}

static uint64_t symbol(const char *name, uint64_t *size)
{
	return symbol_in(fixture, name, size);
}

static void test_function_resolves_past_its_prologue_or_at_its_entry(void **state)
{
	struct dwv_target_res body, at_entry;
	struct gs_error err;
	uint64_t size, addr = symbol("rf_add", &size);

	(void)state;
	assert_int_equal(resolve(DWV_TARGET_FUNCTION, "rf_add", "rf_add", 0, false, &body, &err), 0);
	assert_int_equal(body.nlocs, 1);
	assert_true(body.locs[0].from_dwarf);
	assert_false(body.locs[0].inlined);
	assert_true(body.locs[0].addr >= addr && body.locs[0].addr < addr + size);
	assert_string_equal(body.locs[0].function, "rf_add");
	assert_string_equal(body.module, fixture);
	assert_null(body.note);

	assert_int_equal(resolve(DWV_TARGET_FUNCTION, "rf_add", "rf_add", 0, true, &at_entry, &err),
			 0);
	assert_int_equal(at_entry.nlocs, 1);
	assert_int_equal(at_entry.locs[0].addr, addr);
	/* a PIE's text: file offset p_offset + (addr - p_vaddr), here the address */
	assert_true(at_entry.locs[0].file_offset != 0);
	dwv_target_res_free(&body);
	dwv_target_res_free(&at_entry);
}

static void test_inlined_function_resolves_to_its_inline_instances(void **state)
{
	struct dwv_target_res res;
	struct gs_error err;

	(void)state;
	assert_int_equal(resolve(DWV_TARGET_FUNCTION, "rf_twice", "rf_twice", 0, false, &res, &err),
			 0);
	assert_true(res.nlocs >= 1);
	for (size_t i = 0; i < res.nlocs; i++) {
		assert_true(res.locs[i].inlined);
		assert_true(res.locs[i].from_dwarf);
	}
	dwv_target_res_free(&res);
}

static void test_file_line_resolves_to_the_statements_of_that_line(void **state)
{
	struct dwv_target_res res;
	struct gs_error err;
	struct gs_modfiles *files;
	struct gs_modfile *m;

	(void)state;
	assert_int_equal(resolve(DWV_TARGET_FILE_LINE, "resolve_fix.c:11", "resolve_fix.c", 11,
				 false, &res, &err), 0);
	assert_true(res.nlocs >= 1);
	assert_int_equal(gs_modfiles_new(NULL, &files, NULL), 0);
	assert_int_equal(gs_modfile_open(files, fixture, &m, NULL), 0);
	for (size_t i = 0; i < res.nlocs; i++) {
		const char *src = NULL;
		int line = 0;

		assert_int_equal(res.locs[i].line, 11);
		/* in rf_add (at -O2 line 11's address may be its entry's row too) */
		assert_true(dwv_modfile_line_of(m, res.locs[i].addr, &src, &line));
		assert_in_range(line, 9, 14);
		assert_non_null(strstr(src, "resolve_fix.c"));
	}
	gs_modfiles_free(files);
	dwv_target_res_free(&res);
}

static void test_ifunc_without_a_process_resolves_to_its_resolver_with_a_note(void **state)
{
	struct dwv_target_res res;
	struct gs_error err;
	uint64_t size, resolver = symbol("rf_ifunc", &size);

	(void)state;
	assert_int_equal(resolve(DWV_TARGET_FUNCTION, "rf_ifunc", "rf_ifunc", 0, false, &res, &err),
			 0);
	assert_int_equal(res.nlocs, 1);
	assert_int_equal(res.locs[0].addr, resolver);
	assert_false(res.locs[0].from_dwarf);
	assert_non_null(res.note);
	assert_non_null(strstr(res.note, "`rf_ifunc` is an IFUNC of resolve_fix"));
	assert_non_null(strstr(res.note, "give -p PID"));
	dwv_target_res_free(&res);
}

static void test_unknown_function_is_enoent_with_the_fix(void **state)
{
	struct dwv_target_res res;
	struct gs_error err;

	(void)state;
	assert_int_equal(resolve(DWV_TARGET_FUNCTION, "rf_nope", "rf_nope", 0, false, &res, &err),
			 -ENOENT);
	assert_int_equal(res.nlocs, 0);
	assert_non_null(strstr(err.msg, "unknown function `rf_nope`"));
	assert_non_null(strstr(err.msg, "nm -D"));
}

/* ---- C++ qualified names ------------------------------------------------------ */

/* The entries a qualified name resolves to in names_cxx_fix, as the
 * mangled symbols of the functions it should name. */
static void expect_entries(const char *name, const char *const *mangled, size_t n)
{
	struct dwv_target_req req = { .kind = DWV_TARGET_FUNCTION, .input = name, .name = name,
				      .module = names_fixture, .entry = true };
	struct dwv_target_res res;
	struct gs_error err;
	uint64_t size;

	if (access(names_fixture, R_OK) != 0)
		skip(); /* built only with g++ */
	assert_int_equal(dwv_target_resolve(&req, &res, &err), 0);
	assert_int_equal(res.nlocs, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = symbol_in(names_fixture, mangled[i], &size);
		bool found = false;

		for (size_t k = 0; k < res.nlocs; k++)
			found |= res.locs[k].addr == addr;
		assert_true(found);
	}
	dwv_target_res_free(&res);
}

static void test_qualified_name_traces_every_overload_and_instance(void **state)
{
	(void)state;
	expect_entries("geo::Point::scale", (const char *const[]){ "_ZN3geo5Point5scaleEi",
								   "_ZN3geo5Point5scaleEd" }, 2);
	expect_entries("geo::Point::sum", (const char *const[]){ "_ZNK3geo5Point3sumEi" }, 1);
	/* a template without arguments: every instance */
	expect_entries("geo::maxof", (const char *const[]){ "_ZN3geo5maxofIiEET_S1_S1_",
							    "_ZN3geo5maxofIlEET_S1_S1_" }, 2);
	/* DWARF spells it maxof<long int>, the demangler maxof<long> */
	expect_entries("geo::maxof<long>", (const char *const[]){ "_ZN3geo5maxofIlEET_S1_S1_" },
		       1);
}

static void test_signature_picks_one_overload(void **state)
{
	(void)state;
	expect_entries("geo::Point::scale(double)",
		       (const char *const[]){ "_ZN3geo5Point5scaleEd" }, 1);
	expect_entries("geo::Point::scale( int )", (const char *const[]){ "_ZN3geo5Point5scaleEi" },
		       1);
	/* a const member function: " const" may be left out */
	expect_entries("geo::Point::sum(int)", (const char *const[]){ "_ZNK3geo5Point3sumEi" }, 1);
	/* a template's return type comes first in the demangled signature */
	expect_entries("geo::maxof<int>(int,int)",
		       (const char *const[]){ "_ZN3geo5maxofIiEET_S1_S1_" }, 1);
}

static void test_unknown_qualified_name_lists_the_functions_of_its_last_part(void **state)
{
	struct dwv_target_req req = { .kind = DWV_TARGET_FUNCTION, .module = names_fixture };
	struct dwv_target_res res;
	struct gs_error err;

	(void)state;
	if (access(names_fixture, R_OK) != 0)
		skip();
	req.input = req.name = "geo::Point::scale(char)";
	assert_int_equal(dwv_target_resolve(&req, &res, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "unknown function `geo::Point::scale(char)`"));
	assert_non_null(strstr(err.msg, "geo::Point::scale(int)"));
	assert_non_null(strstr(err.msg, "geo::Point::scale(double)"));
	req.input = req.name = "geo::nope";
	assert_int_equal(dwv_target_resolve(&req, &res, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no function of"));
	assert_non_null(strstr(err.msg, "nm -C"));
}

static const struct gs_type t_long = { .kind = GS_TYPE_I64, .size = 8, .name = "long",
				       .byte_size = 8 };
static const struct gs_type t_double = { .kind = GS_TYPE_F64, .size = 8, .name = "double",
					 .byte_size = 8 };

static void test_retval_of_two_longs_is_rax_then_rdx(void **state)
{
	const struct gs_type_member m[2] = { { .name = "a", .type = &t_long, .offset = 0 },
					     { .name = "b", .type = &t_long, .offset = 8 } };
	const struct gs_type pair = { .kind = GS_TYPE_STRUCT, .name = "struct pair",
				      .byte_size = 16, .members = m, .nmembers = 2 };
	struct gs_var var = { 0 };
	struct gs_loc_piece pc[2];
	char why[256];

	(void)state;
	assert_int_equal(dwv_retval_place(&pair, "f", &var, pc, why, sizeof(why)), 0);
	assert_string_equal(var.name, "$retval");
	assert_int_equal(var.loc.npieces, 2);
	assert_int_equal(pc[0].kind, GS_LOC_REGISTER);
	assert_int_equal(pc[0].reg, 0);
	assert_int_equal(pc[0].size, 8);
	assert_int_equal(pc[1].reg, 1);
	assert_int_equal(pc[1].size, 8);
}

static void test_retval_over_16_bytes_is_the_memory_rax_points_to(void **state)
{
	const struct gs_type big = { .kind = GS_TYPE_ARRAY, .name = "long[3]", .byte_size = 24,
				     .target = &t_long, .count = 3 };
	struct gs_var var = { 0 };
	struct gs_loc_piece pc[2];
	char why[256];

	(void)state;
	assert_int_equal(dwv_retval_place(&big, "f", &var, pc, why, sizeof(why)), 0);
	assert_int_equal(var.loc.npieces, 1);
	assert_int_equal(pc[0].kind, GS_LOC_MEMORY);
	assert_int_equal(pc[0].reg, 0);
}

static void test_retval_in_xmm0_is_refused_with_the_register(void **state)
{
	struct gs_var var = { 0 };
	struct gs_loc_piece pc[2];
	char why[256];

	(void)state;
	assert_int_equal(dwv_retval_place(&t_double, "area", &var, pc, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "$retval of area is a double, returned in xmm0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function_resolves_past_its_prologue_or_at_its_entry),
		cmocka_unit_test(test_inlined_function_resolves_to_its_inline_instances),
		cmocka_unit_test(test_file_line_resolves_to_the_statements_of_that_line),
		cmocka_unit_test(test_ifunc_without_a_process_resolves_to_its_resolver_with_a_note),
		cmocka_unit_test(test_unknown_function_is_enoent_with_the_fix),
		cmocka_unit_test(test_qualified_name_traces_every_overload_and_instance),
		cmocka_unit_test(test_signature_picks_one_overload),
		cmocka_unit_test(test_unknown_qualified_name_lists_the_functions_of_its_last_part),
		cmocka_unit_test(test_retval_of_two_longs_is_rax_then_rdx),
		cmocka_unit_test(test_retval_over_16_bytes_is_the_memory_rax_points_to),
		cmocka_unit_test(test_retval_in_xmm0_is_refused_with_the_register),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
