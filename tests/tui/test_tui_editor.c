/* The script editor's model: typing with indent, backspace and delete
 * across lines, the arrows at the same display column, lines, and the
 * check's message parsed for line:col. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base.h"
#include "editor.h"
#include "srcview.h"

static void type(struct tui_editor *e, const char *s)
{
	assert_true(tui_editor_insert(e, s, strlen(s)));
}

static void at(const struct tui_editor *e, size_t line, size_t col)
{
	size_t l, c;

	tui_editor_cursor(e, &l, &c);
	assert_int_equal(l, line);
	assert_int_equal(c, col);
}

static void test_newline_keeps_the_indent(void **state)
{
	struct tui_editor e;

	(void)state;
	tui_editor_init(&e);
	at(&e, 0, 0);
	assert_int_equal(tui_editor_lines(&e), 1);
	type(&e, "trace main {");
	tui_editor_key(&e, '\n');
	type(&e, "\tif x {");
	tui_editor_key(&e, '\n');
	assert_string_equal(e.text, "trace main {\n\tif x {\n\t");
	at(&e, 2, 8); /* a tab is 8 columns */
	type(&e, "  print x;");
	tui_editor_key(&e, '\n');
	assert_string_equal(e.text + strlen(e.text) - 4, "\n\t  ");
	assert_int_equal(tui_editor_lines(&e), 4);
	tui_editor_fini(&e);
}

static void test_backspace_and_delete_across_lines(void **state)
{
	struct tui_editor e;
	size_t len;
	const char *l;

	(void)state;
	tui_editor_init(&e);
	assert_int_equal(tui_editor_set(&e, "ab\n\xe4\xb8\xad" "d", 3), 0);
	tui_editor_key(&e, '\b'); /* joins the lines */
	assert_string_equal(e.text, "ab\xe4\xb8\xad" "d");
	at(&e, 0, 2);
	tui_editor_key(&e, 0x7f); /* the whole wide character */
	assert_string_equal(e.text, "abd");
	tui_editor_key(&e, TUI_KEY_HOME);
	tui_editor_key(&e, '\b'); /* at the start: nothing */
	assert_string_equal(e.text, "abd");
	tui_editor_key(&e, TUI_KEY_END);
	tui_editor_key(&e, 0x7f); /* at the end: nothing */
	assert_string_equal(e.text, "abd");
	l = tui_editor_line(&e, 0, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(l, "abd", 3);
	assert_null(tui_editor_line(&e, 1, &len));
	tui_editor_fini(&e);
}

static void test_arrows_keep_the_display_column(void **state)
{
	struct tui_editor e;

	(void)state;
	tui_editor_init(&e);
	assert_int_equal(tui_editor_set(&e, "abcdef\n\xe4\xb8\xad\xe6\x96\x87xy\nab", 4), 0);
	at(&e, 0, 4);
	tui_editor_key(&e, TUI_KEY_DOWN); /* 中文xy: column 4 is x */
	at(&e, 1, 4);
	assert_int_equal(e.cursor, 7 + 6);
	tui_editor_key(&e, TUI_KEY_LEFT);
	at(&e, 1, 2);
	tui_editor_key(&e, TUI_KEY_UP);
	at(&e, 0, 2);
	tui_editor_key(&e, TUI_KEY_DOWN);
	tui_editor_key(&e, TUI_KEY_DOWN); /* a short line: its end */
	at(&e, 2, 2);
	tui_editor_key(&e, TUI_KEY_DOWN); /* the last line: stays */
	at(&e, 2, 2);
	tui_editor_key(&e, TUI_KEY_HOME);
	tui_editor_key(&e, TUI_KEY_LEFT); /* to the end of the line above */
	at(&e, 1, 6);
	tui_editor_key(&e, TUI_KEY_RIGHT);
	at(&e, 2, 0);
	tui_editor_key(&e, TUI_KEY_UP);
	tui_editor_key(&e, TUI_KEY_UP);
	tui_editor_key(&e, TUI_KEY_UP); /* the first line: stays */
	at(&e, 0, 0);
	tui_editor_fini(&e);
}

static void test_insert_filters_and_is_bounded(void **state)
{
	static char big[TUI_EDITOR_MAX + 1];
	struct tui_editor e;

	(void)state;
	tui_editor_init(&e);
	type(&e, "a\x1b[2J\r\tb\n\xff\xc2\x85");
	assert_string_equal(e.text, "a[2J\tb\n");
	memset(big, 'x', sizeof(big));
	assert_false(tui_editor_insert(&e, big, TUI_EDITOR_MAX));
	assert_true(tui_editor_insert(&e, big, TUI_EDITOR_MAX - e.len));
	assert_int_equal(e.len, TUI_EDITOR_MAX);
	tui_editor_key(&e, 'y'); /* typed: refused too */
	assert_int_equal(e.len, TUI_EDITOR_MAX);
	tui_editor_fini(&e);
}

static void test_set_clamps_the_cursor(void **state)
{
	struct tui_editor e;

	(void)state;
	tui_editor_init(&e);
	assert_int_equal(tui_editor_set(&e, "x\xc3\xa9", 2), 0); /* inside é */
	assert_int_equal(e.cursor, 1);
	assert_int_equal(tui_editor_set(&e, "abc", 99), 0);
	assert_int_equal(e.cursor, 3);
	tui_editor_key(&e, 0xe9); /* é typed as a code point */
	assert_string_equal(e.text, "abc\xc3\xa9");
	tui_editor_fini(&e);
}

static void test_scroll_keeps_the_cursor_line_shown(void **state)
{
	struct tui_editor e;

	(void)state;
	tui_editor_init(&e);
	assert_int_equal(tui_editor_set(&e, "0\n1\n2\n3\n4\n5\n6", 12), 0);
	tui_editor_scroll(&e, 3);
	assert_int_equal(e.top, 4); /* line 6 at the bottom */
	tui_editor_key(&e, TUI_KEY_UP);
	tui_editor_scroll(&e, 3);
	assert_int_equal(e.top, 4);
	for (int i = 0; i < 5; i++)
		tui_editor_key(&e, TUI_KEY_UP);
	tui_editor_scroll(&e, 3);
	assert_int_equal(e.top, 0);
	tui_editor_fini(&e);
}

static void test_message_points_at_line_and_column(void **state)
{
	static const struct {
		const char *msg;
		unsigned line, col;
	} cases[] = {
		{ "script:2:5: unknown name 'x'", 2, 5 },
		{ "script:3: expected ';'", 3, 0 },
		{ "trace main: no such function", 0, 0 },
		{ "no position here", 0, 0 },
		{ ":2:5: no name", 0, 0 },
		{ "script:x:5: odd", 0, 0 },
	};
	struct tui_editor e;

	(void)state;
	tui_editor_init(&e);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		tui_editor_set_message(&e, cases[i].msg);
		assert_string_equal(e.message, cases[i].msg);
		assert_int_equal(e.msg_line, cases[i].line);
		assert_int_equal(e.msg_col, cases[i].col);
	}
	tui_editor_set_message(&e, NULL);
	assert_null(e.message);
	assert_int_equal(e.msg_line, 0);
	tui_editor_fini(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newline_keeps_the_indent),
		cmocka_unit_test(test_backspace_and_delete_across_lines),
		cmocka_unit_test(test_arrows_keep_the_display_column),
		cmocka_unit_test(test_insert_filters_and_is_bounded),
		cmocka_unit_test(test_set_clamps_the_cursor),
		cmocka_unit_test(test_scroll_keeps_the_cursor_line_shown),
		cmocka_unit_test(test_message_points_at_line_and_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
