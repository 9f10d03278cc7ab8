/* A live fixture process: its /proc/PID/maps is read and grouped, each ELF
 * module's bias computed, and the bias turns the runtime address of main
 * (PIE and non-PIE) and of a dlopen'ed library's lib_entry back into their
 * ELF symbol values. Cookies agree with gs_module_identify on the file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gs/unwind.h>

#include "fixtures.h"

struct child {
	pid_t pid;
	int to_child;
	uint64_t main_addr, lib_entry;
};

static void spawn(const char *prog, const char *lib, struct child *c)
{
	int in[2], out[2];
	char line[256] = "";
	FILE *f;
	void *m = NULL, *l = NULL;

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(prog, prog, "wait", lib, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to_child = in[1];
	f = fdopen(out[0], "r");
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_int_equal(sscanf(line, "main=%p lib_entry=%p", &m, &l), 2);
	c->main_addr = (uint64_t)(uintptr_t)m;
	c->lib_entry = (uint64_t)(uintptr_t)l;
}

static void finish(struct child *c)
{
	int status;

	close(c->to_child); /* the child reads EOF and exits */
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	assert_true(WIFEXITED(status));
}

/* The module holding addr must be `file`, and addr - bias its symbol value. */
static void check_symbol(const struct gs_proc_modules *mods, uint64_t addr, const char *file,
			 const char *symbol, bool expect_zero_bias)
{
	const struct gs_proc_module *m = gs_proc_modules_find(mods, addr);
	struct gs_module_id id;
	uint64_t value, size;

	assert_non_null(m);
	assert_string_equal(m->path, file);
	assert_true(fx_symbol(file, symbol, &value, &size));
	print_message("%s: runtime 0x%" PRIx64 ", bias 0x%" PRIx64 ", ELF value 0x%" PRIx64 "\n",
		      symbol, addr, m->offsets.text, value);
	assert_int_equal(addr - m->offsets.text, value);
	if (expect_zero_bias)
		assert_int_equal(m->offsets.text, 0);
	assert_true(m->offsets.base <= addr && addr < m->offsets.base + m->offsets.size);
	assert_int_equal(gs_module_identify(file, &id, NULL), 0);
	assert_int_equal(m->id.cookie, id.cookie);
	assert_int_equal(m->id.source, GS_COOKIE_BUILD_ID);
}

static void check_process(const char *prog_name, bool non_pie)
{
	char prog[4096], lib[4096], real_prog[4096], real_lib[4096];
	struct gs_proc_modules mods;
	struct gs_error err = { 0 };
	struct child c;

	fx_path(prog_name, prog, sizeof(prog));
	fx_path("libbt_fixture.so", lib, sizeof(lib));
	assert_non_null(realpath(prog, real_prog));
	assert_non_null(realpath(lib, real_lib));
	spawn(real_prog, real_lib, &c);
	assert_true(c.lib_entry != 0);
	if (gs_proc_modules_load(c.pid, NULL, &mods, &err))
		fail_msg("%s", err.msg);
	print_message("pid %d: %zu modules, %zu skipped\n", (int)c.pid, mods.n, mods.skipped);
	check_symbol(&mods, c.main_addr, real_prog, "main", non_pie);
	check_symbol(&mods, c.lib_entry, real_lib, "lib_entry", false);
	/* libc is there too, relocated. */
	for (size_t i = 0; i < mods.n; i++)
		if (strstr(mods.v[i].path, "libc.so"))
			assert_true(mods.v[i].offsets.text != 0);
	gs_proc_modules_free(&mods);
	finish(&c);
}

static void test_live_pie_bias_maps_main_to_its_symbol(void **state)
{
	(void)state;
	check_process("bt_O2_nofp", false);
}

static void test_live_non_pie_bias_is_zero_for_main(void **state)
{
	(void)state;
	check_process("bt_nopie", true);
}

static void test_live_load_of_missing_pid_names_it(void **state)
{
	struct gs_proc_modules mods;
	struct gs_error err = { 0 };

	(void)state;
	assert_int_equal(gs_proc_modules_load(0x7ffffff0, NULL, &mods, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/proc/2147483632/maps"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_pie_bias_maps_main_to_its_symbol),
		cmocka_unit_test(test_live_non_pie_bias_is_zero_for_main),
		cmocka_unit_test(test_live_load_of_missing_pid_names_it),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
