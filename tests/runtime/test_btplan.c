/* The backtrace plan: the probe module's cookie, the compile-time row of
 * the probe pc (usable, missing), and the rows planned for one module or
 * for every module of a live process. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <gs/internal/runtime.h>
#include <gs/runtime.h>

#include "rt_fixture.h"

static void resolve_one(const char *prog, const char *fn, struct gs_target *t)
{
	struct gs_resolve_opts o = { .sz = sizeof(o), .module = prog };
	struct gs_error err;

	if (rt_resolve(fn, &o, t, &err))
		fail_msg("%s", err.msg);
}

static void test_one_module_plan(void **state)
{
	char path[PATH_MAX];
	struct gs_target t;
	struct gs_bt_plan plan;
	struct gs_module_id id;
	struct gs_cfi_table table;
	struct gs_error err;

	(void)state;
	rt_path("rt_loop", path, sizeof(path));
	resolve_one(path, "rt_leaf", &t);
	if (gs_bt_plan_build(t.module, t.locs[0].addr, NULL, &plan, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(gs_module_identify(path, &id, NULL), 0);
	assert_int_equal(id.source, GS_COOKIE_BUILD_ID);
	assert_int_equal(plan.probe.cookie, id.cookie);
	assert_int_equal(plan.probe.pc, t.locs[0].addr);
	assert_int_equal(plan.probe.first_row_kind, GS_BT_ROW_USABLE);
	assert_true(plan.probe.first_row.pc_start <= t.locs[0].addr &&
		    t.locs[0].addr < plan.probe.first_row.pc_end);
	assert_false(plan.probe.module_ranges);
	assert_int_equal(gs_cfi_table_from_file(path, NULL, &table, NULL), 0);
	assert_int_equal(plan.probe.nrows, table.nrows);
	assert_int_equal(plan.rows.nrows, table.nrows);
	assert_memory_equal(plan.rows.rows, table.rows, table.nrows * sizeof(*table.rows));
	gs_cfi_table_free(&table);
	gs_bt_plan_fini(&plan);
	gs_target_free(&t);
}

static void test_missing_cfi_is_reported(void **state)
{
	char path[PATH_MAX];
	struct gs_target t;
	struct gs_bt_plan plan;
	struct gs_error err;

	(void)state;
	rt_path("rt_loop_nocfi", path, sizeof(path));
	resolve_one(path, "rt_leaf", &t);
	if (gs_bt_plan_build(t.module, t.locs[0].addr, NULL, &plan, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(plan.probe.first_row_kind, GS_BT_ROW_MISSING);
	gs_bt_plan_fini(&plan);
	gs_target_free(&t);
}

static void test_process_plan_has_every_module(void **state)
{
	char path[PATH_MAX], lib[PATH_MAX];
	struct gs_bt_plan_opts o = { .sz = sizeof(o) };
	struct gs_target t;
	struct gs_bt_plan plan;
	struct gs_module_id exe_id, lib_id;
	struct gs_proc_modules mods;
	struct gs_error err;
	struct rt_child c;
	size_t with_rows = 0;

	(void)state;
	rt_path("rt_loop", path, sizeof(path));
	rt_path("librt_lib.so", lib, sizeof(lib));
	assert_true(rt_spawn(path, &c));
	o.pid = c.pid;
	assert_int_equal(gs_modfiles_new(NULL, &o.files, NULL), 0);
	resolve_one(path, "rt_leaf", &t);
	if (gs_bt_plan_build(t.module, t.locs[0].addr, &o, &plan, &err))
		fail_msg("%s", err.msg);
	assert_true(plan.probe.module_ranges);
	assert_int_equal(plan.probe.nrows, plan.rows.nrows);
	assert_int_equal(gs_module_identify(path, &exe_id, NULL), 0);
	assert_int_equal(gs_module_identify(lib, &lib_id, NULL), 0);
	assert_non_null(gs_rowset_module(&plan.rows, exe_id.cookie));
	assert_non_null(gs_rowset_module(&plan.rows, lib_id.cookie));
	/* The probe pc's row is where the BPF side will search for it. */
	assert_non_null(gs_rowset_find(&plan.rows, exe_id.cookie, t.locs[0].addr));
	assert_int_equal(gs_proc_modules_load(c.pid, NULL, &mods, NULL), 0);
	for (size_t i = 0; i < mods.n; i++)
		if (gs_rowset_module(&plan.rows, mods.v[i].id.cookie))
			with_rows++;
	print_message("%zu modules mapped, %zu with rows, %zu rows in all\n", mods.n, with_rows,
		      plan.rows.nrows);
	assert_true(with_rows >= 3); /* executable, librt_lib.so, libc */
	assert_int_equal(with_rows, plan.rows.nmodules);
	gs_proc_modules_free(&mods);
	gs_bt_plan_fini(&plan);
	gs_target_free(&t);
	gs_modfiles_free(o.files);
	rt_stop(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_module_plan),
		cmocka_unit_test(test_missing_cfi_is_reported),
		cmocka_unit_test(test_process_plan_has_every_module),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
