/* Which CPython a module file holds (pyversion.c), against real builds:
 * each pyenv libpython 3.8 to 3.13 is its version with the addresses its
 * symbol table gives; the small pyenv python3.X that only links libpython
 * holds none; Debian's stripped python3.11 is 3.11 from Py_Version alone;
 * 3.6 and 3.7 are refused by name; a file whose name and _PyRuntime
 * disagree is refused, never read with a guessed layout. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/python.h>

#include "pyenv_builds.h"

/* What `nm -D` says of sym in path: its value and size; false when absent. */
static bool nm_symbol(const char *path, const char *sym, uint64_t *value, uint64_t *size)
{
	char cmd[8300], line[512];
	FILE *p;
	bool found = false;

	snprintf(cmd, sizeof(cmd), "nm -D -S --defined-only '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (!found && fgets(line, sizeof(line), p)) {
		unsigned long long v, s;
		char type, name[256];

		if (sscanf(line, "%llx %llx %c %255s", &v, &s, &type, name) == 4 && strcmp(name, sym) == 0) {
			*value = v;
			*size = s;
			found = true;
		}
	}
	pclose(p);
	return found;
}

static void test_each_pyenv_libpython_is_its_version(void **state)
{
	unsigned minor, seen = 0;

	(void)state;
	for (minor = GS_PY_MINOR_FIRST; minor <= GS_PY_MINOR_LAST; minor++) {
		const char *lib = pyenv_lib(minor);
		struct gs_py_module m;
		struct gs_error err = { 0 };
		uint64_t v, s;

		if (!lib) {
			print_message("skipped 3.%u: no pyenv build\n", minor);
			continue;
		}
		seen++;
		assert_int_equal(gs_py_identify(lib, &m, &err), 0);
		assert_int_equal(m.minor, minor);
		assert_true(m.has_dwarf);
		assert_true(nm_symbol(lib, "_PyRuntime", &v, &s));
		assert_int_equal(m.runtime, v);
		assert_int_equal(m.runtime_size, s);
		assert_int_equal(m.runtime_size, gs_py_layout_table((uint8_t)minor)->runtime_size);
		assert_true(nm_symbol(lib, "_PyEval_EvalFrameDefault", &v, &s));
		assert_int_equal(m.eval_lo, v);
		assert_int_equal(m.eval_hi, v + s);
		assert_true(nm_symbol(lib, "PyCode_Type", &v, &s));
		assert_int_equal(m.code_type, v);
		/* the thread's state in a TLS variable only from 3.12 */
		assert_int_equal(m.has_tss, minor >= 12);
		if (minor >= 12)
			assert_true(m.tss_tstate < 4096);
	}
	if (!seen)
		skip();
}

static void test_a_program_linking_libpython_holds_no_interpreter(void **state)
{
	unsigned minor, seen = 0;

	(void)state;
	for (minor = 6; minor <= GS_PY_MINOR_LAST; minor++) {
		const char *bin = pyenv_bin(minor);
		struct gs_py_module m;
		struct gs_error err = { 0 };

		if (!bin)
			continue;
		seen++;
		assert_int_equal(gs_py_identify(bin, &m, &err), -ENOENT);
		assert_non_null(strstr(err.msg, "no CPython interpreter"));
	}
	if (!seen)
		skip();
}

static void test_a_stripped_python_is_known_by_py_version(void **state)
{
	const char *py = system_python311();
	char dir[] = "/tmp/gs-pyversion-XXXXXX", link[64];
	struct gs_py_module m;
	struct gs_error err = { 0 };

	(void)state;
	if (!py) {
		print_message("skipped: no /usr/bin/python3.11\n");
		skip();
	}
	assert_int_equal(gs_py_identify(py, &m, &err), 0);
	assert_int_equal(m.minor, 11);
	assert_false(m.has_dwarf);
	assert_false(m.has_tss);
	assert_int_equal(m.runtime_size, gs_py_layout_table(11)->runtime_size);
	assert_true(m.eval_lo < m.eval_hi);
	/* under a name saying 3.9 it is still 3.11: Py_Version wins */
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/python3.9", dir);
	assert_int_equal(symlink(py, link), 0);
	assert_int_equal(gs_py_identify(link, &m, &err), 0);
	assert_int_equal(m.minor, 11);
	unlink(link);
	rmdir(dir);
}

static void test_python_36_and_37_are_unsupported(void **state)
{
	unsigned minor, seen = 0;

	(void)state;
	for (minor = 6; minor <= 7; minor++) {
		const char *lib = pyenv_lib(minor);
		struct gs_py_module m;
		struct gs_error err = { 0 };
		char want[32];

		if (!lib)
			continue;
		seen++;
		assert_int_equal(gs_py_identify(lib, &m, &err), -ENOTSUP);
		snprintf(want, sizeof(want), "python 3.%u: unsupported", minor);
		assert_non_null(strstr(err.msg, want));
	}
	if (!seen)
		skip();
}

/* 3.10's library under 3.9's name: the name is not believed when
 * _PyRuntime's size says otherwise. */
static void test_a_name_that_disagrees_with_the_runtime_size_is_refused(void **state)
{
	const char *lib = pyenv_lib(10);
	char dir[] = "/tmp/gs-pyversion-XXXXXX", link[64];
	struct gs_py_module m;
	struct gs_error err = { 0 };

	(void)state;
	if (!lib) {
		print_message("skipped: no pyenv 3.10\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/libpython3.9.so.1.0", dir);
	assert_int_equal(symlink(lib, link), 0);
	assert_int_equal(gs_py_identify(link, &m, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "_PyRuntime is 672 bytes, 3.9's is 656"));
	assert_int_equal(m.minor, 0);
	unlink(link);
	rmdir(dir);
}

/* A copy of the file at src whose _PyRuntime (.dynsym) says it is `size`
 * bytes: a build of the same version with another runtime layout. */
static void copy_with_runtime_size(const char *src, const char *dst, uint64_t size)
{
	char cmd[8300];
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;
	bool patched = false;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
	assert_int_equal(system(cmd), 0);
	elf_version(EV_CURRENT);
	fd = open(dst, O_RDWR);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_RDWR, NULL);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < d->d_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
			    strcmp(name, "_PyRuntime") != 0)
				continue;
			sym.st_size = size;
			assert_true(gelf_update_sym(d, (int)i, &sym));
			elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
			patched = true;
		}
	}
	assert_true(patched);
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	assert_true(elf_update(elf, ELF_C_WRITE) >= 0);
	elf_end(elf);
	close(fd);
}

/* Py_Version says 3.11, but with no DWARF the table's row would be used,
 * and _PyRuntime's size says this is not the build it describes (a
 * free-threaded or debug one): refused, not read with the wrong row. */
static void test_a_stripped_build_of_another_layout_is_refused(void **state)
{
	const char *py = system_python311();
	char dir[] = "/tmp/gs-pyversion-XXXXXX", copy[64];
	struct gs_py_module m;
	struct gs_error err = { 0 };

	(void)state;
	if (!py) {
		print_message("skipped: no /usr/bin/python3.11\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/python3.11", dir);
	copy_with_runtime_size(py, copy, gs_py_layout_table(11)->runtime_size + 64);
	assert_int_equal(gs_py_identify(copy, &m, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "python 3.11: unsupported build"));
	/* the same copy with the size of the row: known again */
	copy_with_runtime_size(py, copy, gs_py_layout_table(11)->runtime_size);
	assert_int_equal(gs_py_identify(copy, &m, &err), 0);
	assert_int_equal(m.minor, 11);
	unlink(copy);
	rmdir(dir);
}

static void test_other_files_are_not_python(void **state)
{
	struct gs_py_module m;
	struct gs_error err = { 0 };

	(void)state;
	assert_int_equal(gs_py_identify("/bin/ls", &m, &err), -ENOENT);
	assert_int_equal(gs_py_identify("/nonexistent/libpython3.11.so", &m, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "cannot open"));
	assert_int_equal(gs_py_identify("/proc/self/status", &m, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_pyenv_libpython_is_its_version),
		cmocka_unit_test(test_a_program_linking_libpython_holds_no_interpreter),
		cmocka_unit_test(test_a_stripped_python_is_known_by_py_version),
		cmocka_unit_test(test_python_36_and_37_are_unsupported),
		cmocka_unit_test(test_a_name_that_disagrees_with_the_runtime_size_is_refused),
		cmocka_unit_test(test_a_stripped_build_of_another_layout_is_refused),
		cmocka_unit_test(test_other_files_are_not_python),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
