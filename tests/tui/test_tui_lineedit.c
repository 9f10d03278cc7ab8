/* The command line editor: multibyte characters edited whole, the kill
 * keys, history browsing that keeps the line being written, completion,
 * and display columns of wide characters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lineedit.h"

static void type(struct tui_lineedit *e, const char *s)
{
	assert_true(tui_lineedit_insert(e, s, strlen(s)));
}

static void accept(struct tui_lineedit *e, const char *s)
{
	tui_lineedit_set(e, s);
	free(tui_lineedit_accept(e));
}

static void test_multibyte_characters_move_and_delete_whole(void **state)
{
	struct tui_lineedit e;

	(void)state;
	tui_lineedit_init(&e, 0);
	type(&e, "a\xc3\xa9\xe4\xb8\xad" "b"); /* a é 中 b */
	tui_lineedit_key(&e, TUI_EDIT_LEFT);
	tui_lineedit_key(&e, TUI_EDIT_LEFT);
	assert_int_equal(e.cursor, 3); /* before 中 */
	tui_lineedit_key(&e, TUI_EDIT_BACKSPACE);
	assert_string_equal(e.buf, "a\xe4\xb8\xad" "b");
	tui_lineedit_key(&e, TUI_EDIT_DELETE);
	assert_string_equal(e.buf, "ab");
	assert_int_equal(e.cursor, 1);
	type(&e, "\xf0\x9f\x98\x80");
	assert_string_equal(e.buf, "a\xf0\x9f\x98\x80" "b");
	tui_lineedit_key(&e, TUI_EDIT_RIGHT);
	tui_lineedit_key(&e, TUI_EDIT_RIGHT); /* at the end: stays */
	assert_int_equal(e.cursor, e.len);
	tui_lineedit_key(&e, TUI_EDIT_HOME);
	tui_lineedit_key(&e, TUI_EDIT_LEFT);
	assert_int_equal(e.cursor, 0);
	tui_lineedit_fini(&e);
}

static void test_control_bytes_and_long_lines_are_refused(void **state)
{
	struct tui_lineedit e;
	char big[TUI_LINE_MAX + 2];

	(void)state;
	tui_lineedit_init(&e, 0);
	type(&e, "a\x1b[2J\tb\n\xff");
	assert_string_equal(e.buf, "a[2Jb");
	memset(big, 'x', TUI_LINE_MAX + 1);
	big[TUI_LINE_MAX + 1] = '\0';
	assert_false(tui_lineedit_insert(&e, big, TUI_LINE_MAX));
	assert_string_equal(e.buf, "a[2Jb");
	assert_true(tui_lineedit_insert(&e, big, TUI_LINE_MAX - 5));
	assert_int_equal(e.len, TUI_LINE_MAX);
	tui_lineedit_set(&e, big); /* one byte too long: cut */
	assert_int_equal(e.len, TUI_LINE_MAX);
	tui_lineedit_fini(&e);
}

static void test_kill_keys(void **state)
{
	struct tui_lineedit e;

	(void)state;
	tui_lineedit_init(&e, 0);
	type(&e, "info function  main");
	tui_lineedit_key(&e, TUI_EDIT_KILL_WORD);
	assert_string_equal(e.buf, "info function  ");
	tui_lineedit_key(&e, TUI_EDIT_KILL_WORD); /* the spaces go with the word */
	assert_string_equal(e.buf, "info ");
	type(&e, "line x");
	tui_lineedit_key(&e, TUI_EDIT_LEFT);
	tui_lineedit_key(&e, TUI_EDIT_LEFT);
	tui_lineedit_key(&e, TUI_EDIT_KILL_END);
	assert_string_equal(e.buf, "info line");
	tui_lineedit_key(&e, TUI_EDIT_LEFT);
	tui_lineedit_key(&e, TUI_EDIT_KILL_LINE);
	assert_string_equal(e.buf, "e");
	assert_int_equal(e.cursor, 0);
	tui_lineedit_fini(&e);
}

static void test_history_browse_keeps_the_line_being_written(void **state)
{
	struct tui_lineedit e;

	(void)state;
	tui_lineedit_init(&e, 0);
	accept(&e, "one");
	accept(&e, "two");
	type(&e, "draft");
	tui_lineedit_key(&e, TUI_EDIT_HISTORY_PREV);
	assert_string_equal(e.buf, "two");
	tui_lineedit_key(&e, TUI_EDIT_HISTORY_PREV);
	assert_string_equal(e.buf, "one");
	tui_lineedit_key(&e, TUI_EDIT_HISTORY_PREV); /* the oldest: stays */
	assert_string_equal(e.buf, "one");
	tui_lineedit_key(&e, TUI_EDIT_HISTORY_NEXT);
	tui_lineedit_key(&e, TUI_EDIT_HISTORY_NEXT);
	assert_string_equal(e.buf, "draft");
	assert_int_equal(e.cursor, 5);
	tui_lineedit_fini(&e);
}

static void test_history_skips_duplicates_and_empties_and_is_bounded(void **state)
{
	struct tui_lineedit e;

	(void)state;
	tui_lineedit_init(&e, 3);
	accept(&e, "a");
	accept(&e, "a");
	accept(&e, "");
	assert_int_equal(e.nhistory, 1);
	accept(&e, "b");
	accept(&e, "a"); /* not consecutive: kept */
	accept(&e, "c");
	assert_int_equal(e.nhistory, 3);
	assert_string_equal(e.history[0], "b");
	assert_string_equal(e.history[2], "c");
	tui_lineedit_fini(&e);
}

static void test_accept_returns_and_clears(void **state)
{
	struct tui_lineedit e;
	char *line;

	(void)state;
	tui_lineedit_init(&e, 0);
	type(&e, "quit");
	line = tui_lineedit_accept(&e);
	assert_string_equal(line, "quit");
	assert_int_equal(e.len, 0);
	assert_string_equal(e.buf, "");
	free(line);
	tui_lineedit_fini(&e);
}

static void test_completion_to_the_common_prefix(void **state)
{
	static const char *const cands[] = { "disable", "delete", "info" };
	static const char *const funcs[] = { "parse_expr", "parse_stmt", "print" };
	struct tui_lineedit e;
	size_t start;

	(void)state;
	tui_lineedit_init(&e, 0);
	type(&e, "d");
	assert_int_equal(tui_lineedit_complete(&e, cands, 3), 2);
	assert_string_equal(e.buf, "d"); /* di/de: no longer prefix */
	type(&e, "e");
	assert_int_equal(tui_lineedit_complete(&e, cands, 3), 1);
	assert_string_equal(e.buf, "delete ");
	tui_lineedit_set(&e, "info function pa");
	assert_int_equal(tui_lineedit_word(&e, &start), 2);
	assert_int_equal(start, 14);
	assert_int_equal(tui_lineedit_complete(&e, funcs, 3), 2);
	assert_string_equal(e.buf, "info function parse_");
	assert_int_equal(tui_lineedit_complete(&e, funcs, 3), 2);
	assert_string_equal(e.buf, "info function parse_");
	tui_lineedit_set(&e, "x");
	assert_int_equal(tui_lineedit_complete(&e, funcs, 3), 0);
	assert_string_equal(e.buf, "x");
	tui_lineedit_fini(&e);
}

static void test_completion_in_the_middle_of_a_line(void **state)
{
	static const char *const cands[] = { "info" };
	struct tui_lineedit e;

	(void)state;
	tui_lineedit_init(&e, 0);
	type(&e, "i main");
	for (int i = 0; i < 5; i++)
		tui_lineedit_key(&e, TUI_EDIT_LEFT);
	assert_int_equal(tui_lineedit_complete(&e, cands, 1), 1);
	assert_string_equal(e.buf, "info main"); /* the space there serves */
	assert_int_equal(e.cursor, 4);
	tui_lineedit_fini(&e);
}

static void test_cursor_col_counts_wide_characters_twice(void **state)
{
	struct tui_lineedit e;

	(void)state;
	tui_lineedit_init(&e, 0);
	type(&e, "a\xe4\xb8\xad\xc3\xa9\xf0\x9f\x98\x80"); /* a 中 é 😀 */
	assert_int_equal(tui_lineedit_cursor_col(&e), 1 + 2 + 1 + 2);
	tui_lineedit_key(&e, TUI_EDIT_LEFT);
	assert_int_equal(tui_lineedit_cursor_col(&e), 4);
	type(&e, "e\xcc\x81"); /* e and a combining acute: one column */
	assert_int_equal(tui_lineedit_cursor_col(&e), 5);
	tui_lineedit_fini(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multibyte_characters_move_and_delete_whole),
		cmocka_unit_test(test_control_bytes_and_long_lines_are_refused),
		cmocka_unit_test(test_kill_keys),
		cmocka_unit_test(test_history_browse_keeps_the_line_being_written),
		cmocka_unit_test(test_history_skips_duplicates_and_empties_and_is_bounded),
		cmocka_unit_test(test_accept_returns_and_clears),
		cmocka_unit_test(test_completion_to_the_common_prefix),
		cmocka_unit_test(test_completion_in_the_middle_of_a_line),
		cmocka_unit_test(test_cursor_col_counts_wide_characters_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
