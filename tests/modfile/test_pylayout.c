/* The layout table (pylayout.c) equals the DWARF (pylayout_dwarf.c) of
 * each pyenv build, field by field: the test that keeps the table, which
 * serves interpreters without DWARF, from drifting. A missing pyenv
 * version is skipped with a message; all missing skips the test. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <gs/python.h>

#include "pyenv_builds.h"

#define W(f) { "walk." #f, offsetof(struct gs_py_layout, walk) + offsetof(struct gs_py_proc, f), \
	       sizeof(((struct gs_py_proc *)0)->f) }
#define L(f) { #f, offsetof(struct gs_py_layout, f), sizeof(((struct gs_py_layout *)0)->f) }

/* Every field of struct gs_py_layout but the walk's per-process ones
 * (runtime, tstate_tls: 0 in a layout) and padding. */
static const struct { const char *name; size_t off, size; } fields[] = {
	L(major), L(minor),
	W(runtime), W(tstate_tls), W(runtime_interp_head), W(interp_next), W(interp_tstate_head),
	W(tstate_next), W(tstate_thread_id), W(tstate_frame), W(cframe_current), W(frame_back),
	W(frame_code), W(frame_instr), W(frame_entry), W(instr_size), W(style), W(owned_by_cstack),
	W(minor),
	L(code_name), L(code_qualname), L(code_filename), L(code_firstlineno), L(code_linetable),
	L(code_adaptive), L(code_firsttraceable), L(object_type), L(var_size), L(bytes_data),
	L(unicode_length), L(unicode_state), L(unicode_ascii_data), L(unicode_compact_data),
	L(runtime_size),
};

static uint64_t field_value(const struct gs_py_layout *l, size_t off, size_t size)
{
	uint64_t v = 0;

	memcpy(&v, (const uint8_t *)l + off, size); /* little-endian host */
	return v;
}

static int mismatches(unsigned minor, const struct gs_py_layout *table, const struct gs_py_layout *dw)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint64_t t = field_value(table, fields[i].off, fields[i].size);
		uint64_t d = field_value(dw, fields[i].off, fields[i].size);

		if (t != d) {
			print_error("python 3.%u: %s is %llu in the table, %llu in the DWARF\n", minor,
				    fields[i].name, (unsigned long long)t, (unsigned long long)d);
			bad++;
		}
	}
	return bad;
}

static void test_the_table_equals_each_builds_dwarf(void **state)
{
	unsigned minor, seen = 0;
	int bad = 0;

	(void)state;
	for (minor = GS_PY_MINOR_FIRST; minor <= GS_PY_MINOR_LAST; minor++) {
		const char *lib = pyenv_lib(minor);
		struct gs_py_layout dw;
		struct gs_error err = { 0 };
		bool from_dwarf = false;

		if (!lib) {
			print_message("skipped 3.%u: no pyenv build to compare its table row with\n", minor);
			continue;
		}
		seen++;
		if (gs_py_layout_dwarf(lib, (uint8_t)minor, &dw, &err) != 0)
			fail_msg("python 3.%u: %s", minor, err.msg);
		bad += mismatches(minor, gs_py_layout_table((uint8_t)minor), &dw);
		/* what a caller gets: the DWARF's */
		assert_int_equal(gs_py_layout_get(lib, (uint8_t)minor, &dw, &from_dwarf, &err), 0);
		assert_true(from_dwarf);
	}
	if (!seen)
		skip();
	assert_int_equal(bad, 0);
}

static void test_a_file_without_dwarf_gets_the_table(void **state)
{
	const char *py = system_python311();
	struct gs_py_layout l;
	struct gs_error err = { 0 };
	bool from_dwarf = true;

	(void)state;
	if (!py) {
		print_message("skipped: no /usr/bin/python3.11\n");
		skip();
	}
	assert_int_equal(gs_py_layout_dwarf(py, 11, &l, &err), -ENOENT);
	assert_int_equal(gs_py_layout_get(py, 11, &l, &from_dwarf, &err), 0);
	assert_false(from_dwarf);
	assert_memory_equal(&l, gs_py_layout_table(11), sizeof(l));
}

static void test_versions_outside_38_to_313_have_no_layout(void **state)
{
	struct gs_py_layout l;
	struct gs_error err = { 0 };

	(void)state;
	assert_null(gs_py_layout_table(7));
	assert_null(gs_py_layout_table(14));
	assert_non_null(gs_py_layout_table(8));
	assert_int_equal(gs_py_layout_get("/bin/ls", 7, &l, NULL, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "python 3.7: unsupported"));
	assert_int_equal(gs_py_layout_dwarf("/bin/ls", 14, &l, &err), -ENOTSUP);
}

/* Each row says the version it is for: a row in the wrong place would
 * give 3.12's offsets to a 3.11 process. */
static void test_each_row_is_its_version(void **state)
{
	unsigned minor;

	(void)state;
	for (minor = GS_PY_MINOR_FIRST; minor <= GS_PY_MINOR_LAST; minor++) {
		const struct gs_py_layout *l = gs_py_layout_table((uint8_t)minor);

		assert_int_equal(l->major, 3);
		assert_int_equal(l->minor, minor);
		assert_int_equal(l->walk.minor, minor);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_table_equals_each_builds_dwarf),
		cmocka_unit_test(test_a_file_without_dwarf_gets_the_table),
		cmocka_unit_test(test_versions_outside_38_to_313_have_no_layout),
		cmocka_unit_test(test_each_row_is_its_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
