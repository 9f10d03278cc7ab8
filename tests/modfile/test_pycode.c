/* Naming code objects of a live interpreter (pycode.c, pynamer.c, with
 * pystr.c's strings): every pyenv python 3.8 to 3.13 and the system's
 * python3.11 run a script that prints, for nested functions, a method,
 * names of each string kind (größe: one byte a character, λ: two, an
 * emoji: four), a 3000-character name, each code object's address, name,
 * file, first line and the line at each offset; the namer, with the
 * layout gs_py_layout_get gives for that interpreter, must say the same.
 * Then the script frees a code object the namer has cached and makes
 * another at its address: the namer must name the new one. */
#include <errno.h>
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

#include "py_oracle.h"
#include "pyenv_builds.h"

/* The instruction as the wire would carry it for a byte offset. */
static uint64_t instr_of(const struct gs_py_layout *l, uint64_t code, unsigned offset)
{
	if (l->walk.style == GS_PY_STYLE_FRAME_OBJECT)
		return l->minor >= 10 ? offset / 2 : offset;
	return code + l->code_adaptive + offset;
}

static char *field(char **rec)
{
	char *f = strsep(rec, "\t\n");

	assert_non_null(f);
	return f;
}

/* The name gstrace shows for a name that long: its first 1024
 * characters and "...". */
static const char *shown(const char *name, char *buf, size_t size)
{
	if (strlen(name) <= 1024)
		return name;
	snprintf(buf, size, "%.1024s...", name);
	return buf;
}

static int check_frame(struct gs_py_namer *n, pid_t pid, const struct gs_py_layout *l, char *rec,
		       const char *python)
{
	char buf[2048], *pair;
	uint64_t code;
	const char *name, *file;
	int first, bad = 0;
	struct gs_py_name out;
	struct gs_error err = { 0 };

	field(&rec);
	code = strtoull(field(&rec), NULL, 10);
	name = field(&rec);
	file = field(&rec);
	first = atoi(field(&rec));
	while ((pair = strsep(&rec, ",\n")) && *pair) {
		unsigned off;
		int line;

		assert_int_equal(sscanf(pair, "%u:%d", &off, &line), 2);
		if (gs_py_name(n, pid, l, code, instr_of(l, code, off), &out, &err) != 0)
			fail_msg("%s: %s", python, err.msg);
		if (strcmp(out.function, shown(name, buf, sizeof(buf))) != 0 || strcmp(out.file, file) != 0 ||
		    out.firstlineno != first || out.line != line) {
			print_error("%s (3.%u) offset %u: %.60s %s:%d (first %d), want %.60s %s:%d (first %d)\n",
				    python, l->minor, off, out.function, out.file, out.line, out.firstlineno,
				    name, file, line, first);
			bad++;
		}
	}
	return bad;
}

/* V (cached), then R at the same address: the new object's name. */
static void check_reuse(struct gs_py_namer *n, struct py_child *c, const struct gs_py_layout *l,
			char *victim, const char *python)
{
	char *line = NULL, *rec;
	size_t cap = 0;
	uint64_t code;
	struct gs_py_name out;
	struct gs_error err = { 0 };

	rec = victim;
	field(&rec);
	code = strtoull(field(&rec), NULL, 10);
	assert_int_equal(gs_py_name(n, c->pid, l, code, 0, &out, &err), 0);
	assert_string_equal(out.function, "victim");
	while (getline(&line, &cap, c->out) > 0 && strcmp(line, "READY\n") != 0)
		;
	assert_int_equal(write(c->in, "go\n", 3), 3);
	assert_true(getline(&line, &cap, c->out) > 0);
	if (strncmp(line, "R\t", 2) != 0) {
		print_message("%s: no code object took the freed one's address (%s): reuse not checked\n",
			      python, line);
		free(line);
		return;
	}
	rec = line;
	field(&rec);
	assert_int_equal(strtoull(field(&rec), NULL, 10), code);
	assert_int_equal(gs_py_name(n, c->pid, l, code, 0, &out, &err), 0);
	assert_string_equal(out.function, field(&rec));
	assert_int_equal(out.firstlineno, atoi(field(&rec)));
	free(line);
}

/* The module file holding the interpreter of `python`, 3.minor. */
static const char *module_of(const char *python, unsigned minor)
{
	return strncmp(python, "/usr/bin/", 9) == 0 ? python : pyenv_lib(minor);
}

static void test_live_code_objects_are_named_as_python_names_them(void **state)
{
	const char *python;
	unsigned i, minor;
	int bad = 0;

	(void)state;
	for (i = 0; (python = py_interpreter(i, &minor)); i++) {
		struct gs_py_namer *n = gs_py_namer_new();
		struct gs_py_layout l;
		struct gs_error err = { 0 };
		struct py_child c;
		char *line = NULL;
		size_t cap = 0, frames = 0;

		assert_non_null(n);
		assert_int_equal(gs_py_layout_get(module_of(python, minor), (uint8_t)minor, &l, NULL, &err), 0);
		assert_int_equal(py_spawn(python, "code_names.py", &c), 0);
		while (getline(&line, &cap, c.out) > 0) {
			if (line[0] == 'F') {
				bad += check_frame(n, c.pid, &l, line, python);
				frames++;
			} else if (line[0] == 'V') {
				check_reuse(n, &c, &l, line, python);
				break;
			}
		}
		free(line);
		print_message("%s: %zu code objects named\n", python, frames);
		assert_int_equal(frames, 7);
		assert_int_equal(py_child_end(&c), 0);
		gs_py_namer_free(n);
	}
	if (i == 0) {
		print_message("skipped: no python 3.8 to 3.13 installed\n");
		skip();
	}
	assert_int_equal(bad, 0);
}

static void test_an_unreadable_code_object_is_an_error(void **state)
{
	struct gs_py_namer *n = gs_py_namer_new();
	const struct gs_py_layout *l = gs_py_layout_table(12);
	struct gs_py_name out;
	struct gs_error err = { 0 };

	(void)state;
	assert_int_equal(gs_py_name(n, getpid(), l, 0x10, 0, &out, &err), -EFAULT);
	assert_non_null(strstr(err.msg, "cannot read the code object at 0x10"));
	assert_int_equal(gs_py_name(n, getpid(), l, 0, 0, &out, &err), -EINVAL);
	gs_py_namer_free(n);
}

/* Memory that only looks like a code object (this process's own bytes):
 * names that are not strings come back as "<?>", never a crash. */
static void test_garbage_names_are_unknown(void **state)
{
	struct gs_py_namer *n = gs_py_namer_new();
	const struct gs_py_layout *l = gs_py_layout_table(13);
	static uint64_t fake[64];
	static uint8_t not_a_string[128];
	struct gs_py_name out;
	struct gs_error err = { 0 };

	(void)state;
	memset(not_a_string, 0xff, sizeof(not_a_string));
	fake[l->code_name / 8] = (uint64_t)(uintptr_t)not_a_string;
	fake[l->code_qualname / 8] = (uint64_t)(uintptr_t)not_a_string;
	fake[l->code_filename / 8] = 8; /* unreadable */
	assert_int_equal(gs_py_name(n, getpid(), l, (uint64_t)(uintptr_t)fake,
				    (uint64_t)(uintptr_t)fake + l->code_adaptive + 4, &out, &err), 0);
	assert_string_equal(out.function, "<?>");
	assert_string_equal(out.file, "<?>");
	assert_int_equal(out.line, -1);
	gs_py_namer_free(n);
}

static void test_offsets_as_each_version_counts_them(void **state)
{
	(void)state;
	assert_int_equal(gs_py_offset(gs_py_layout_table(9), 0x1000, 24), 24);
	assert_int_equal(gs_py_offset(gs_py_layout_table(10), 0x1000, 12), 24);
	assert_int_equal(gs_py_offset(gs_py_layout_table(10), 0x1000, 0xffffffff), -2);
	assert_int_equal(gs_py_offset(gs_py_layout_table(12), 0x1000, 0x1000 + 192 + 8), 8);
	assert_int_equal(gs_py_offset(gs_py_layout_table(11), 0x1000, (0x1000 + 184 - 2) | (1ull << 63)), -2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_code_objects_are_named_as_python_names_them),
		cmocka_unit_test(test_an_unreadable_code_object_is_an_error),
		cmocka_unit_test(test_garbage_names_are_unknown),
		cmocka_unit_test(test_offsets_as_each_version_counts_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
