/* Target resolution on fixture binaries compiled at build time, checked
 * against binutils: nm for symbol values, addr2line for source lines,
 * objdump for the code bytes a file offset must point at. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/runtime.h>

#include "base.h"
#include "rt_fixture.h"

static int resolve(const char *input, const char *module, pid_t pid, struct gs_target *t,
		   struct gs_error *err)
{
	struct gs_resolve_opts o = { .sz = sizeof(o), .module = module, .pid = pid };

	return rt_resolve(input, &o, t, err);
}

/* The file offset must hold the code objdump shows at the address. */
static void check_file_offset(const char *file, const struct gs_location *l)
{
	uint8_t want[8], have[8];
	int fd = open(file, O_RDONLY);

	assert_true(fd >= 0);
	assert_true(rt_objdump_bytes(file, l->addr, want, sizeof(want)));
	assert_int_equal(pread(fd, have, sizeof(have), (off_t)l->file_offset), sizeof(have));
	close(fd);
	assert_memory_equal(want, have, sizeof(want));
}

static void expect_line(const char *file, uint64_t addr, int line)
{
	char got[256], want[64];

	assert_true(rt_addr2line(file, addr, got, sizeof(got)));
	snprintf(want, sizeof(want), "rt_loop.c:%d", line);
	assert_string_equal(got, want);
}

static void test_function_resolves_past_the_prologue(void **state)
{
	char path[PATH_MAX];
	struct gs_target t;
	struct gs_error err;
	uint64_t sym;

	(void)state;
	rt_path("rt_loop_O0", path, sizeof(path));
	assert_true(rt_nm(path, "rt_leaf", false, &sym));
	if (resolve("rt_leaf", path, 0, &t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.nlocs, 1);
	assert_string_equal(t.module, path);
	assert_string_equal(t.input, "rt_leaf");
	assert_true(t.locs[0].from_dwarf);
	assert_false(t.locs[0].inlined);
	assert_string_equal(t.locs[0].function, "rt_leaf");
	/* -O0: push %rbp; mov %rsp,%rbp; ... come before the first body line. */
	assert_true(t.locs[0].addr > sym && t.locs[0].addr < sym + 64);
	expect_line(path, t.locs[0].addr, rt_source_line("LEAF_BODY"));
	check_file_offset(path, &t.locs[0]);
	gs_target_free(&t);
}

static void test_non_pie_function_and_offset(void **state)
{
	char path[PATH_MAX];
	struct gs_target t;
	struct gs_error err;
	uint64_t sym;

	(void)state;
	rt_path("rt_loop_nopie", path, sizeof(path));
	assert_true(rt_nm(path, "rt_mid", false, &sym));
	if (resolve("rt_mid", path, 0, &t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.nlocs, 1);
	assert_true(t.locs[0].addr >= sym && t.locs[0].addr >= 0x400000);
	assert_true(t.locs[0].file_offset < t.locs[0].addr);
	check_file_offset(path, &t.locs[0]);
	gs_target_free(&t);
}

static void test_function_without_dwarf_is_the_symbol(void **state)
{
	char path[PATH_MAX];
	struct gs_target t;
	struct gs_error err;
	uint64_t sym;

	(void)state;
	rt_path("rt_loop_nodwarf", path, sizeof(path));
	assert_true(rt_nm(path, "rt_leaf", false, &sym));
	if (resolve("rt_leaf", path, 0, &t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.nlocs, 1);
	assert_false(t.locs[0].from_dwarf);
	assert_int_equal(t.locs[0].addr, sym);
	check_file_offset(path, &t.locs[0]);
	gs_target_free(&t);
}

static void test_stripped_library_uses_dynsym(void **state)
{
	char path[PATH_MAX];
	struct gs_target t;
	struct gs_error err;
	uint64_t sym;

	(void)state;
	rt_path("librt_lib_stripped.so", path, sizeof(path));
	assert_false(rt_nm(path, "rtlib_work", false, &sym)); /* no .symtab */
	assert_true(rt_nm(path, "rtlib_work", true, &sym));
	if (resolve("rtlib_work", path, 0, &t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.nlocs, 1);
	assert_false(t.locs[0].from_dwarf);
	assert_int_equal(t.locs[0].addr, sym);
	assert_string_equal(t.locs[0].function, "rtlib_work");
	check_file_offset(path, &t.locs[0]);
	gs_target_free(&t);
}

static void test_inline_function_gives_every_instance(void **state)
{
	char path[PATH_MAX];
	struct gs_target t;
	struct gs_error err;

	(void)state;
	rt_path("rt_loop", path, sizeof(path));
	if (resolve("rt_inl", path, 0, &t, &err))
		fail_msg("%s", err.msg);
	assert_true(t.nlocs >= 2); /* inlined into rt_mid and rt_call_lib */
	for (size_t i = 0; i < t.nlocs; i++) {
		print_message("rt_inl instance at 0x%llx in %s\n",
			      (unsigned long long)t.locs[i].addr, t.locs[i].function);
		assert_true(t.locs[i].inlined);
		assert_non_null(t.locs[i].function);
		assert_true(strcmp(t.locs[i].function, "rt_mid") == 0 ||
			    strcmp(t.locs[i].function, "rt_call_lib") == 0);
		check_file_offset(path, &t.locs[i]);
	}
	gs_target_free(&t);
}

static void test_address_targets(void **state)
{
	char path[PATH_MAX], input[PATH_MAX + 32];
	struct gs_target t;
	struct gs_error err;
	uint64_t sym;

	(void)state;
	rt_path("rt_loop", path, sizeof(path));
	assert_true(rt_nm(path, "rt_mid", false, &sym));
	snprintf(input, sizeof(input), "0x%llx", (unsigned long long)sym);
	if (resolve(input, path, 0, &t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.nlocs, 1);
	assert_int_equal(t.locs[0].addr, sym);
	assert_string_equal(t.locs[0].function, "rt_mid");
	check_file_offset(path, &t.locs[0]);
	gs_target_free(&t);

	/* module:0xADDR names its own module; no default needed. */
	rt_path("librt_lib.so", path, sizeof(path));
	assert_true(rt_nm(path, "rtlib_work", false, &sym));
	snprintf(input, sizeof(input), "%s:0x%llx", path, (unsigned long long)sym);
	if (resolve(input, NULL, 0, &t, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(t.module, path);
	assert_int_equal(t.locs[0].addr, sym);
	assert_string_equal(t.locs[0].function, "rtlib_work");
	check_file_offset(path, &t.locs[0]);
	gs_target_free(&t);
}

static void test_process_modules_are_searched(void **state)
{
	char path[PATH_MAX], lib[PATH_MAX], input[64], real[PATH_MAX];
	struct rt_child c;
	struct gs_target t;
	struct gs_error err;
	uint64_t sym;
	char *exe;

	(void)state;
	rt_path("rt_loop", path, sizeof(path));
	rt_path("librt_lib.so", lib, sizeof(lib));
	assert_true(rt_nm(lib, "rtlib_work", false, &sym));
	assert_true(rt_spawn(path, &c));

	assert_int_equal(gs_proc_exe(c.pid, &exe, &err), 0);
	assert_non_null(realpath(path, real));
	assert_string_equal(exe, real);
	free(exe);

	/* The executable is the default module of a pid. */
	if (resolve("rt_leaf", NULL, c.pid, &t, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(t.module, real);
	gs_target_free(&t);

	/* A function the executable lacks is found in a library it maps. */
	if (resolve("rtlib_work", NULL, c.pid, &t, &err))
		fail_msg("%s", err.msg);
	assert_non_null(strstr(t.module, "librt_lib.so"));
	assert_true(t.locs[0].addr >= sym && t.locs[0].addr < sym + 32);
	gs_target_free(&t);

	/* A library by the end of its path. */
	snprintf(input, sizeof(input), "librt_lib.so:0x%llx", (unsigned long long)sym);
	if (resolve(input, NULL, c.pid, &t, &err))
		fail_msg("%s", err.msg);
	assert_non_null(strstr(t.module, "librt_lib.so"));
	assert_int_equal(t.locs[0].addr, sym);
	gs_target_free(&t);

	assert_int_equal(resolve("libnothere.so:0x1000", NULL, c.pid, &t, &err), -ENOENT);
	print_message("%s\n", err.msg);
	assert_non_null(strstr(err.msg, "libnothere.so"));
	rt_stop(&c);
}

static void test_file_line_targets(void **state)
{
	char path[PATH_MAX], input[128];
	struct gs_target t;
	struct gs_error err;
	int line = rt_source_line("CALL_MID");
	const char *variants[] = { "rt_loop_O0", "rt_loop" };

	(void)state;
	assert_true(line > 0);
	for (size_t v = 0; v < 2; v++) {
		rt_path(variants[v], path, sizeof(path));
		snprintf(input, sizeof(input), "%srt_loop.c:%d", v ? "fixtures/" : "", line);
		if (resolve(input, path, 0, &t, &err))
			fail_msg("%s: %s", variants[v], err.msg);
		assert_true(t.nlocs >= 1);
		for (size_t i = 0; i < t.nlocs; i++) {
			assert_int_equal(t.locs[i].line, line);
			expect_line(path, t.locs[i].addr, line);
			check_file_offset(path, &t.locs[i]);
		}
		print_message("%s %s: %zu location(s), first 0x%llx in %s\n", variants[v], input,
			      t.nlocs, (unsigned long long)t.locs[0].addr, t.locs[0].function);
		gs_target_free(&t);
	}
}

static void test_line_without_code_moves_to_the_next(void **state)
{
	char path[PATH_MAX], input[64];
	struct gs_target t;
	struct gs_error err;
	int line = rt_source_line("NO_CODE");

	(void)state;
	rt_path("rt_loop_O0", path, sizeof(path));
	snprintf(input, sizeof(input), "rt_loop.c:%d", line);
	if (resolve(input, path, 0, &t, &err))
		fail_msg("%s", err.msg);
	assert_true(t.locs[0].line > line);
	/* the next line with code is rt_cb's signature, its entry: probed
	 * after the prologue, at the body's first line */
	assert_true(t.locs[0].entry != 0);
	assert_true(t.locs[0].body_line > t.locs[0].line);
	expect_line(path, t.locs[0].addr, t.locs[0].body_line);
	gs_target_free(&t);
}

/* gdb's break file:line on a function's entry line (its signature or
 * its `{`) stops where break FN does: the one prologue skipper's address,
 * at -O0 and -O2. A line of the body stays where it is. */
static void test_entry_line_probes_after_the_prologue(void **state)
{
	static const char *const builds[] = { "rt_loop_O0", "rt_loop" };
	char path[PATH_MAX], input[64];
	int line = rt_source_line("NO_CODE");

	(void)state;
	for (size_t b = 0; b < BASE_ARRAY_SIZE(builds); b++) {
		struct gs_target fn, at;
		struct gs_error err;

		rt_path(builds[b], path, sizeof(path));
		if (resolve("rt_cb", path, 0, &fn, &err))
			fail_msg("%s", err.msg);
		snprintf(input, sizeof(input), "rt_loop.c:%d", line + 1);
		if (resolve(input, path, 0, &at, &err))
			fail_msg("%s", err.msg);
		print_message("%s: rt_cb at 0x%llx, %s at 0x%llx (entry 0x%llx)\n", builds[b],
			      (unsigned long long)fn.locs[0].addr, input,
			      (unsigned long long)at.locs[0].addr,
			      (unsigned long long)at.locs[0].entry);
		assert_int_equal(at.nlocs, 1);
		assert_int_equal(at.locs[0].addr, fn.locs[0].addr);
		gs_target_free(&at);
		/* the body's first line: no move */
		snprintf(input, sizeof(input), "rt_loop.c:%d", line + 3);
		if (resolve(input, path, 0, &at, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(at.locs[0].entry, 0);
		gs_target_free(&at);
		gs_target_free(&fn);
	}
}

/* Each error names the input and gives a way forward. */
static void expect_error(const char *input, const char *module, int code, const char *needle,
			 const char *needle2)
{
	struct gs_target t;
	struct gs_error err;

	assert_int_equal(resolve(input, module, 0, &t, &err), code);
	print_message("%s -> %s\n", input, err.msg);
	assert_int_equal(err.code, code);
	assert_non_null(strstr(err.msg, needle));
	if (needle2)
		assert_non_null(strstr(err.msg, needle2));
	assert_null(t.locs);
	assert_null(t.module);
}

static void test_errors_name_the_input(void **state)
{
	char path[PATH_MAX], nodwarf[PATH_MAX];

	(void)state;
	rt_path("rt_loop", path, sizeof(path));
	rt_path("rt_loop_nodwarf", nodwarf, sizeof(nodwarf));
	expect_error("no_such_function", path, -ENOENT, "no_such_function", "unknown function");
	expect_error("rt_leaf", "/nonexistent/prog", -ENOENT, "`rt_leaf`: cannot open /nonexistent/prog",
		     "check the path");
	expect_error("0x7fff00001000", path, -ERANGE, "0x7fff00001000", "outside every loadable");
	expect_error("0x10", path, -EINVAL, "0x10", "not executable");
	expect_error("nosuch.c:10", path, -ENOENT, "nosuch.c", "no source file");
	expect_error("rt_loop.c:100000", path, -ENOENT, "rt_loop.c:100000", "no code at or after");
	expect_error("rt_loop.c:12", nodwarf, -ENOENT, "rt_loop.c:12", "no DWARF line table");
	expect_error("rt_loop.c:abc", path, -EINVAL, "rt_loop.c:abc", "line number");
	expect_error("rt_leaf", NULL, -EINVAL, "rt_leaf", "-p PID");
	expect_error("", path, -EINVAL, "empty", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function_resolves_past_the_prologue),
		cmocka_unit_test(test_non_pie_function_and_offset),
		cmocka_unit_test(test_function_without_dwarf_is_the_symbol),
		cmocka_unit_test(test_stripped_library_uses_dynsym),
		cmocka_unit_test(test_inline_function_gives_every_instance),
		cmocka_unit_test(test_address_targets),
		cmocka_unit_test(test_process_modules_are_searched),
		cmocka_unit_test(test_file_line_targets),
		cmocka_unit_test(test_line_without_code_moves_to_the_next),
		cmocka_unit_test(test_entry_line_probes_after_the_prologue),
		cmocka_unit_test(test_errors_name_the_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
