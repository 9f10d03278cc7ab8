/* The output panel's model: bounded history, the window following or
 * anchored while lines arrive, pause, scrolling, search, filter, and the
 * escaping that keeps the traced program's bytes off the terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base.h"
#include "outbuf.h"

static void add(struct tui_outbuf *o, uint32_t trace, const char *text)
{
	assert_int_equal(tui_outbuf_add(o, trace, TUI_LINE_EVENT, text, strlen(text)), 0);
}

static void add_numbered(struct tui_outbuf *o, int from, int to)
{
	char buf[32];

	for (int i = from; i <= to; i++) {
		snprintf(buf, sizeof(buf), "line %d", i);
		add(o, 0, buf);
	}
}

/* The window's texts joined with '|'. */
static const char *window(struct tui_outbuf *o, size_t height)
{
	static char buf[1024];
	const struct tui_line *w[64];
	size_t n = tui_outbuf_window(o, height, w), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "|" : "",
					 w[i]->text);
	return buf;
}

static void test_history_drops_the_oldest_and_counts(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(3);

	(void)state;
	add_numbered(o, 1, 5);
	assert_int_equal(tui_outbuf_count(o), 3);
	assert_int_equal(tui_outbuf_dropped(o), 2);
	assert_string_equal(tui_outbuf_line(o, 0)->text, "line 3");
	assert_int_equal(tui_outbuf_line(o, 0)->seq, 3);
	assert_string_equal(tui_outbuf_line(o, 2)->text, "line 5");
	assert_null(tui_outbuf_line(o, 3));
	tui_outbuf_clear(o);
	assert_int_equal(tui_outbuf_count(o), 0);
	add(o, 0, "after");
	assert_int_equal(tui_outbuf_line(o, 0)->seq, 6); /* seqs are never reused */
	tui_outbuf_free(o);
}

static void test_add_splits_lines_and_kinds(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(0);
	const char *ev = "f(x=1)\n  a = 2\n  b = 3\n";

	(void)state;
	assert_int_equal(tui_outbuf_add(o, 7, TUI_LINE_HEADER, ev, strlen(ev)), 0);
	assert_int_equal(tui_outbuf_count(o), 3); /* the final newline adds none */
	assert_int_equal(tui_outbuf_line(o, 0)->kind, TUI_LINE_HEADER);
	assert_int_equal(tui_outbuf_line(o, 1)->kind, TUI_LINE_EVENT);
	assert_int_equal(tui_outbuf_line(o, 2)->trace_id, 7);
	assert_int_equal(tui_outbuf_add(o, 0, TUI_LINE_ERROR, "a\nb", 3), 0);
	assert_int_equal(tui_outbuf_line(o, 4)->kind, TUI_LINE_ERROR);
	assert_string_equal(tui_outbuf_line(o, 4)->text, "b");
	tui_outbuf_free(o);
}

static void test_following_window_ends_at_the_newest(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(100);

	(void)state;
	add_numbered(o, 1, 10);
	assert_true(tui_outbuf_following(o));
	assert_string_equal(window(o, 3), "line 8|line 9|line 10");
	add_numbered(o, 11, 11);
	assert_string_equal(window(o, 3), "line 9|line 10|line 11");
	{
		const struct tui_line *w[20];

		assert_int_equal(tui_outbuf_window(o, 20, w), 11); /* all of it, no more */
		assert_int_equal(w[0]->seq, 1);
	}
	tui_outbuf_free(o);
}

static void test_anchored_window_stays_while_lines_arrive(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(100);

	(void)state;
	add_numbered(o, 1, 10);
	tui_outbuf_scroll(o, -2, 3);
	assert_false(tui_outbuf_following(o));
	assert_string_equal(window(o, 3), "line 6|line 7|line 8");
	add_numbered(o, 11, 20);
	assert_string_equal(window(o, 3), "line 6|line 7|line 8");
	tui_outbuf_follow(o, true);
	assert_string_equal(window(o, 3), "line 18|line 19|line 20");
	tui_outbuf_free(o);
}

static void test_dropped_anchor_clamps_to_the_oldest(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(5);

	(void)state;
	add_numbered(o, 1, 5);
	tui_outbuf_scroll(o, -100, 2);
	assert_string_equal(window(o, 2), "line 1|line 2");
	add_numbered(o, 6, 8); /* lines 1-3 go */
	assert_string_equal(window(o, 2), "line 4|line 5");
	tui_outbuf_free(o);
}

static void test_pause_keeps_the_lines_shown(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(100);

	(void)state;
	add_numbered(o, 1, 4);
	assert_string_equal(window(o, 2), "line 3|line 4");
	tui_outbuf_pause(o, true);
	assert_true(tui_outbuf_paused(o));
	add_numbered(o, 5, 9);
	assert_string_equal(window(o, 2), "line 3|line 4");
	assert_int_equal(tui_outbuf_count(o), 9); /* kept meanwhile */
	tui_outbuf_pause(o, false);
	assert_string_equal(window(o, 2), "line 8|line 9");
	tui_outbuf_free(o);
}

static void test_scroll_clamps_at_both_ends(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(100);

	(void)state;
	add_numbered(o, 1, 10);
	tui_outbuf_scroll(o, -1000, 4);
	assert_string_equal(window(o, 4), "line 1|line 2|line 3|line 4");
	tui_outbuf_scroll(o, 1000, 4);
	assert_string_equal(window(o, 4), "line 7|line 8|line 9|line 10");
	assert_false(tui_outbuf_following(o));
	tui_outbuf_scroll(o, -3, 4);
	assert_string_equal(window(o, 4), "line 4|line 5|line 6|line 7");
	tui_outbuf_free(o);
}

static void test_search_forward_backward_and_repeat(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(100);

	(void)state;
	for (int i = 1; i <= 20; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), i % 5 ? "line %d" : "hit %d", i);
		add(o, 0, buf);
	}
	/* Following, the window is lines 18-20: back from there. */
	assert_true(tui_outbuf_search(o, "hit", true, 3));
	assert_string_equal(window(o, 3), "hit 15|line 16|line 17");
	assert_int_equal(tui_outbuf_match(o), 15);
	assert_true(tui_outbuf_search(o, "", true, 3));
	assert_int_equal(tui_outbuf_match(o), 10);
	assert_true(tui_outbuf_search(o, "", false, 3));
	assert_int_equal(tui_outbuf_match(o), 15);
	assert_true(tui_outbuf_search(o, "", false, 3));
	assert_int_equal(tui_outbuf_match(o), 20);
	assert_false(tui_outbuf_search(o, "", false, 3)); /* no wrap: stays */
	assert_int_equal(tui_outbuf_match(o), 20);
	assert_false(tui_outbuf_search(o, "absent", true, 3));
	assert_string_equal(window(o, 1), "hit 20");
	assert_false(tui_outbuf_following(o));
	tui_outbuf_free(o);
}

static void test_filter_shows_a_trace_and_messages(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(100);

	(void)state;
	add(o, 1, "one a");
	add(o, 2, "two a");
	assert_int_equal(tui_outbuf_add(o, 0, TUI_LINE_MESSAGE, "msg", 3), 0);
	add(o, 1, "one b");
	add(o, 2, "two b");
	tui_outbuf_set_filter(o, 2);
	assert_int_equal(tui_outbuf_filter(o), 2);
	assert_string_equal(window(o, 10), "two a|msg|two b");
	assert_string_equal(window(o, 2), "msg|two b");
	tui_outbuf_scroll(o, -1, 2);
	assert_string_equal(window(o, 2), "two a|msg");
	assert_false(tui_outbuf_search(o, "one", true, 2)); /* hidden lines are not found */
	tui_outbuf_set_filter(o, 0);
	assert_string_equal(window(o, 10), "two a|msg|one b|two b");
	tui_outbuf_free(o);
}

static void test_control_bytes_become_visible(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "\x1b[2Jclear", "\\x1b[2Jclear" },
		{ "tab\there", "tab\\x09here" },
		{ "bell\a del\x7f", "bell\\x07 del\\x7f" },
		{ "c1 \xc2\x9b" "31m", "c1 \\xc2\\x9b31m" },       /* CSI as U+009B */
		{ "bad \xff\xfe end", "bad \\xff\\xfe end" },
		{ "cut \xe2\x82", "cut \\xe2\\x82" },              /* a character cut short */
		{ "overlong \xc0\xaf", "overlong \\xc0\\xaf" },
		{ "surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80" },
		{ "fine: \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", "fine: \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80" },
		{ "cr\r", "cr\\x0d" },
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		struct tui_outbuf *o = tui_outbuf_new(4);

		add(o, 0, cases[i].in);
		assert_string_equal(tui_outbuf_line(o, 0)->text, cases[i].out);
		tui_outbuf_free(o);
	}
}

static void test_nul_bytes_are_escaped(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(4);

	(void)state;
	assert_int_equal(tui_outbuf_add(o, 0, TUI_LINE_EVENT, "a\0b", 3), 0);
	assert_string_equal(tui_outbuf_line(o, 0)->text, "a\\x00b");
	tui_outbuf_free(o);
}

static void test_many_lines_stay_bounded(void **state)
{
	struct tui_outbuf *o = tui_outbuf_new(0);
	const struct tui_line *w[40];

	(void)state;
	for (int i = 0; i < 30000; i++)
		add(o, (uint32_t)(i % 3 + 1), "event");
	assert_int_equal(tui_outbuf_count(o), 10000);
	assert_int_equal(tui_outbuf_dropped(o), 20000);
	assert_int_equal(tui_outbuf_window(o, 40, w), 40);
	assert_int_equal(w[39]->seq, 30000);
	tui_outbuf_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_drops_the_oldest_and_counts),
		cmocka_unit_test(test_add_splits_lines_and_kinds),
		cmocka_unit_test(test_following_window_ends_at_the_newest),
		cmocka_unit_test(test_anchored_window_stays_while_lines_arrive),
		cmocka_unit_test(test_dropped_anchor_clamps_to_the_oldest),
		cmocka_unit_test(test_pause_keeps_the_lines_shown),
		cmocka_unit_test(test_scroll_clamps_at_both_ends),
		cmocka_unit_test(test_search_forward_backward_and_repeat),
		cmocka_unit_test(test_filter_shows_a_trace_and_messages),
		cmocka_unit_test(test_control_bytes_become_visible),
		cmocka_unit_test(test_nul_bytes_are_escaped),
		cmocka_unit_test(test_many_lines_stay_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
