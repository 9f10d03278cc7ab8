/* The source panel's model: loading (tabs, NUL and control bytes, CRLF,
 * the size limit), marks and code lines, vim movement with counts and the
 * window's margin, search with wrap, and the identifier under the cursor. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base.h"
#include "srcview.h"

/* A file of n lines "line 1" .. "line n", shown in a window of height. */
static void numbered(struct tui_srcview *v, size_t n, size_t height)
{
	char *text = malloc(n * 16 + 1);
	size_t used = 0;

	assert_non_null(text);
	for (size_t i = 1; i <= n; i++)
		used += (size_t)sprintf(text + used, "line %zu\n", i);
	tui_srcview_init(v);
	assert_int_equal(tui_srcview_load(v, "/build/m.c", "/src/m.c", text, used), 0);
	free(text);
	tui_srcview_set_height(v, height);
}

static void keys(struct tui_srcview *v, const char *k)
{
	for (; *k; k++)
		assert_true(tui_srcview_key(v, (unsigned char)*k));
}

static void load_text(struct tui_srcview *v, const char *text, size_t len)
{
	tui_srcview_init(v);
	assert_int_equal(tui_srcview_load(v, "f.c", "f.c", text, len), 0);
}

static void test_load_splits_and_escapes(void **state)
{
	struct tui_srcview v;
	static const char text[] = "int\tx;\r\n\tif (a)\x1b[2J\n\0nul\nlast";

	(void)state;
	load_text(&v, text, sizeof(text) - 1);
	assert_int_equal(v.nlines, 4);
	assert_string_equal(v.lines[0], "int     x;"); /* tab to column 8, CR dropped */
	assert_string_equal(v.lines[1], "        if (a)\\x1b[2J");
	assert_string_equal(v.lines[2], "\\x00nul");
	assert_string_equal(v.lines[3], "last");
	assert_string_equal(v.path, "f.c");
	assert_string_equal(v.shown_path, "f.c");
	assert_int_equal(v.cursor, 0);
	tui_srcview_fini(&v);
}

static void test_empty_and_absent_files(void **state)
{
	struct tui_srcview v;

	(void)state;
	load_text(&v, "", 0);
	assert_int_equal(v.nlines, 0);
	assert_true(tui_srcview_key(&v, 'j'));
	assert_true(tui_srcview_key(&v, 'G'));
	assert_int_equal(v.cursor, 0);
	assert_null(tui_srcview_word_at(&v, 0));
	tui_srcview_absent(&v, "/build/gone.c");
	assert_string_equal(v.path, "/build/gone.c");
	assert_null(v.shown_path);
	assert_int_equal(v.nlines, 0);
	tui_srcview_fini(&v);
}

static void test_files_past_64_mib_are_refused(void **state)
{
	struct tui_srcview v;

	(void)state;
	tui_srcview_init(&v);
	/* The size is checked before a byte is read. */
	assert_int_equal(tui_srcview_load(&v, "big.c", "big.c", "", ((size_t)64 << 20) + 1),
			 -EFBIG);
	tui_srcview_fini(&v);
}

static void test_marks_and_code_lines(void **state)
{
	static const uint32_t code[] = { 2, 5, 9 };
	struct tui_srcview v;

	(void)state;
	numbered(&v, 10, 5);
	tui_srcview_set_code(&v, code, 3);
	assert_true(tui_srcview_has_code(&v, 1));
	assert_false(tui_srcview_has_code(&v, 2));
	assert_true(tui_srcview_has_code(&v, 8));
	tui_srcview_mark(&v, 2, TUI_MARK_ENABLED);
	tui_srcview_mark(&v, 10, TUI_MARK_DISABLED);
	tui_srcview_mark(&v, 0, TUI_MARK_ENABLED);  /* out of range: ignored */
	tui_srcview_mark(&v, 11, TUI_MARK_ENABLED);
	assert_int_equal(v.marks[1], TUI_MARK_ENABLED);
	assert_int_equal(v.marks[9], TUI_MARK_DISABLED);
	tui_srcview_clear_marks(&v);
	assert_int_equal(v.marks[1], TUI_MARK_NONE);
	tui_srcview_fini(&v);
}

static void test_line_keys_with_counts(void **state)
{
	struct tui_srcview v;

	(void)state;
	numbered(&v, 100, 20);
	keys(&v, "j");
	assert_int_equal(v.cursor, 1);
	keys(&v, "5j");
	assert_int_equal(v.cursor, 6);
	keys(&v, "k");
	assert_int_equal(v.cursor, 5);
	assert_true(tui_srcview_key(&v, TUI_KEY_DOWN));
	assert_true(tui_srcview_key(&v, TUI_KEY_UP));
	keys(&v, "10k");
	assert_int_equal(v.cursor, 0);
	keys(&v, "G");
	assert_int_equal(v.cursor, 99);
	keys(&v, "gg");
	assert_int_equal(v.cursor, 0);
	keys(&v, "42G");
	assert_int_equal(v.cursor, 41);
	keys(&v, "500G"); /* clamped */
	assert_int_equal(v.cursor, 99);
	keys(&v, "7gg");
	assert_int_equal(v.cursor, 6);
	assert_true(tui_srcview_key(&v, TUI_KEY_END));
	assert_int_equal(v.cursor, 99);
	assert_true(tui_srcview_key(&v, TUI_KEY_HOME));
	assert_int_equal(v.cursor, 0);
	tui_srcview_fini(&v);
}

static void test_page_keys(void **state)
{
	struct tui_srcview v;

	(void)state;
	numbered(&v, 100, 20);
	/* The window moves by the page; the cursor with it, kept off the
	 * window's edges by the margin (vim's scrolloff). */
	assert_true(tui_srcview_key(&v, 0x04)); /* Ctrl-D: half a page */
	assert_int_equal(v.top, 10);
	assert_int_equal(v.cursor, 13);
	assert_true(tui_srcview_key(&v, 0x15)); /* Ctrl-U */
	assert_int_equal(v.top, 0);
	assert_int_equal(v.cursor, 3);
	assert_true(tui_srcview_key(&v, TUI_KEY_PGDN));
	assert_int_equal(v.top, 20);
	assert_int_equal(v.cursor, 23);
	assert_true(tui_srcview_key(&v, 0x06)); /* Ctrl-F */
	assert_int_equal(v.top, 40);
	assert_true(tui_srcview_key(&v, 0x02)); /* Ctrl-B */
	assert_true(tui_srcview_key(&v, TUI_KEY_PGUP));
	assert_int_equal(v.top, 0);
	assert_int_equal(v.cursor, 3);
	for (int i = 0; i < 10; i++)
		assert_true(tui_srcview_key(&v, TUI_KEY_PGDN));
	assert_int_equal(v.cursor, 99);
	assert_int_equal(v.top, 80); /* the last page is full */
	tui_srcview_fini(&v);
}

static void test_window_keeps_a_margin_of_three(void **state)
{
	struct tui_srcview v;

	(void)state;
	numbered(&v, 100, 10);
	keys(&v, "6j");
	assert_int_equal(v.top, 0);
	keys(&v, "j"); /* line 7 of 0..9 would leave two below: scroll */
	assert_int_equal(v.cursor, 7);
	assert_int_equal(v.top, 1);
	keys(&v, "G");
	assert_int_equal(v.top, 90); /* at the end the margin gives way */
	keys(&v, "k");
	assert_int_equal(v.top, 90);
	keys(&v, "50G"); /* a jump out of the window centres */
	assert_int_equal(v.cursor, 49);
	assert_int_equal(v.top, 44);
	keys(&v, "H");
	assert_int_equal(v.cursor, 47);
	keys(&v, "L");
	assert_int_equal(v.cursor, 50);
	keys(&v, "M");
	assert_int_equal(v.cursor, 48);
	assert_int_equal(v.top, 44);
	tui_srcview_fini(&v);
}

static void test_keys_not_the_panels_clear_the_count(void **state)
{
	struct tui_srcview v;

	(void)state;
	numbered(&v, 100, 10);
	keys(&v, "4");
	assert_false(tui_srcview_key(&v, ' '));
	assert_int_equal(v.count, 0);
	keys(&v, "j");
	assert_int_equal(v.cursor, 1);
	assert_false(tui_srcview_key(&v, 'o'));
	assert_false(tui_srcview_key(&v, '/'));
	assert_false(tui_srcview_key(&v, ':'));
	assert_false(tui_srcview_key(&v, '0')); /* no count to extend */
	keys(&v, "g");
	assert_false(tui_srcview_key(&v, 'x')); /* "gx": not ours, g forgotten */
	assert_false(v.pending_g);
	keys(&v, "10j");
	assert_int_equal(v.cursor, 11);
	tui_srcview_fini(&v);
}

static void test_search_wraps_and_repeats(void **state)
{
	struct tui_srcview v;
	static const char text[] = "alpha\nbeta\nalpha two\ngamma\n";

	(void)state;
	load_text(&v, text, sizeof(text) - 1);
	tui_srcview_set_height(&v, 10);
	assert_true(tui_srcview_search(&v, "alpha", false));
	assert_int_equal(v.cursor, 2);
	assert_true(tui_srcview_key(&v, 'n')); /* wraps to the first line */
	assert_int_equal(v.cursor, 0);
	assert_true(tui_srcview_key(&v, 'N')); /* backward, wrapping */
	assert_int_equal(v.cursor, 2);
	assert_true(tui_srcview_search(&v, "", true));
	assert_int_equal(v.cursor, 0);
	assert_false(tui_srcview_search(&v, "delta", false));
	assert_int_equal(v.cursor, 0);
	assert_true(tui_srcview_search(&v, "gamma", true));
	assert_int_equal(v.cursor, 3);
	tui_srcview_fini(&v);
}

static void test_word_at_the_cursor(void **state)
{
	static const struct {
		const char *line;
		size_t col;
		const char *word; /* NULL: none */
	} cases[] = {
		{ "\tfoo_bar(x);", 10, "foo_bar" },         /* tab expanded: col in the shown line */
		{ "foo_bar(", 100, "foo_bar" },             /* past the end: the call */
		{ "ns::f(1);", 4, "ns::f" },
		{ "ns::f(1);", 0, "ns::f" },
		{ "ns::f(1);", 2, "ns::f" },                /* on the colons */
		{ "ns::f(1);", 50, "ns::f" },
		{ "  if (x) run(y);", 40, "run" },          /* keywords are no calls */
		{ "x = 42;", 4, NULL },                     /* a number */
		{ "a + b", 2, NULL },
		{ "int main(void)", 1, "int" },
		{ "static int count;", 99, NULL },          /* no call on the line */
		{ "::std::vector<int>::push_back(v)", 22, "push_back" },
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		struct tui_srcview v;
		char *w;

		load_text(&v, cases[i].line, strlen(cases[i].line));
		w = tui_srcview_word_at(&v, cases[i].col);
		if (cases[i].word)
			assert_string_equal(w, cases[i].word);
		else
			assert_null(w);
		free(w);
		tui_srcview_fini(&v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_splits_and_escapes),
		cmocka_unit_test(test_empty_and_absent_files),
		cmocka_unit_test(test_files_past_64_mib_are_refused),
		cmocka_unit_test(test_marks_and_code_lines),
		cmocka_unit_test(test_line_keys_with_counts),
		cmocka_unit_test(test_page_keys),
		cmocka_unit_test(test_window_keeps_a_margin_of_three),
		cmocka_unit_test(test_keys_not_the_panels_clear_the_count),
		cmocka_unit_test(test_search_wraps_and_repeats),
		cmocka_unit_test(test_word_at_the_cursor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
