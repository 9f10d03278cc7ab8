/* Line tables (pylines.c) against the interpreter itself: every pyenv
 * python 3.8 to 3.13 and the system's python3.11 print, for functions
 * with loops, multi-line expressions, decorators, a lambda, nested code
 * and far-apart lines, each code object's line table, first line and the
 * line CPython gives each instruction offset; gs_py_addr2line must give
 * the same at every offset. Then the table's edges: hostile tables end
 * inside their bounds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/python.h>

#include "py_oracle.h"

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	unsigned b;

	while (s[0] && s[1] && n < cap && sscanf(s, "%2x", &b) == 1) {
		out[n++] = (uint8_t)b;
		s += 2;
	}
	return n;
}

/* One "C name first hex off:line,..." record: the mismatches, each named. */
static int check_record(unsigned minor, const char *python, char *rec, size_t *offsets)
{
	static uint8_t table[1 << 16];
	char *name, *first, *hex, *pairs, *pair;
	size_t n;
	int bad = 0;

	strsep(&rec, " ");
	name = strsep(&rec, " ");
	first = strsep(&rec, " ");
	hex = strsep(&rec, " ");
	pairs = strsep(&rec, "\n");
	assert_non_null(pairs);
	n = unhex(hex, table, sizeof(table));
	while ((pair = strsep(&pairs, ",")) && *pair) {
		unsigned off;
		int want, got = -2, rc;

		assert_int_equal(sscanf(pair, "%u:%d", &off, &want), 2);
		rc = gs_py_addr2line((uint8_t)minor, table, n, atoi(first), off, &got);
		if (rc != 0 || got != want) {
			print_error("%s (3.%u) %s offset %u: line %d, CPython says %d (rc %d)\n", python,
				    minor, name, off, got, want, rc);
			bad++;
		}
		(*offsets)++;
	}
	return bad;
}

static void test_every_offset_has_the_interpreters_line(void **state)
{
	const char *python;
	unsigned i, minor;
	int bad = 0;

	(void)state;
	for (i = 0; (python = py_interpreter(i, &minor)); i++) {
		FILE *p = py_run(python, "lines_dump.py", NULL);
		char *line = NULL;
		size_t cap = 0, records = 0, offsets = 0;

		assert_non_null(p);
		while (getline(&line, &cap, p) > 0)
			if (line[0] == 'C') {
				bad += check_record(minor, python, line, &offsets);
				records++;
			}
		free(line);
		assert_int_equal(pclose(p), 0);
		print_message("%s: %zu code objects, %zu offsets\n", python, records, offsets);
		assert_true(records >= 6 && offsets > 500); /* 3.12 inlines comprehensions */
	}
	if (i == 0) {
		print_message("skipped: no python 3.8 to 3.13 installed\n");
		skip();
	}
	assert_int_equal(bad, 0);
}

/* (table, offset) -> expected, per format. */
static void test_table_edges(void **state)
{
	static const struct {
		const char *what;
		uint8_t minor;
		uint8_t table[8];
		size_t n;
		uint32_t offset;
		int rc, line;
	} cases[] = {
		{ "3.8 empty table: the first line", 8, { 0 }, 0, 40, 0, 10 },
		{ "3.8 a line delta at offset 0", 8, { 0, 2, 6, 1 }, 4, 0, 0, 12 },
		{ "3.8 a negative delta", 8, { 0, 2, 6, 0xff }, 4, 6, 0, 11 },
		{ "3.8 an odd last byte is not an entry", 8, { 4, 1, 9 }, 3, 200, 0, 11 },
		{ "3.10 no line (-128)", 10, { 4, 0x80, 4, 2 }, 4, 2, 0, -1 },
		{ "3.10 the running line survives no-line", 10, { 4, 0x80, 4, 2 }, 4, 6, 0, 12 },
		{ "3.10 past the end", 10, { 4, 1 }, 2, 4, -ERANGE, 0 },
		{ "3.10 a cut pair", 10, { 4, 1, 4 }, 3, 5, -ERANGE, 0 },
		{ "3.11 no-location entry", 11, { 0xf8 }, 1, 0, 0, -1 },
		{ "3.11 one-line +2", 11, { 0xe1, 0, 0 }, 3, 2, 0, 12 },
		{ "3.11 no-columns -3", 11, { 0xe8, 0x07 }, 2, 0, 0, 7 },
		{ "3.11 a varint cut short", 11, { 0xe8, 0x47 }, 2, 0, -EINVAL, 0 },
		{ "3.11 a varint too long", 11, { 0xe8, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x01 }, 8, 0,
		  -EINVAL, 0 },
		{ "3.11 past the end", 11, { 0x80, 0 }, 2, 2, -ERANGE, 0 },
		{ "3.7: not a version", 7, { 0 }, 0, 0, -ENOTSUP, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int line = 0, rc = gs_py_addr2line(cases[i].minor, cases[i].table, cases[i].n, 10,
						   cases[i].offset, &line);

		if (rc != cases[i].rc || (rc == 0 && line != cases[i].line))
			fail_msg("%s: rc %d line %d, want rc %d line %d", cases[i].what, rc, line,
				 cases[i].rc, cases[i].line);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_offset_has_the_interpreters_line),
		cmocka_unit_test(test_table_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
