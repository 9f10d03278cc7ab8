/* The command language: every command parsed, gdb's abbreviations and
 * their ambiguities, quoting, numbers, the messages of wrong lines,
 * completion kinds and help. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base.h"
#include "command.h"

struct good {
	const char *line;
	enum tui_cmd_kind kind;
	uint32_t id;
	const char *arg, *arg2;
};

static const struct good good[] = {
	{ "", TUI_CMD_NONE },
	{ "   ", TUI_CMD_NONE },
	{ "trace main", TUI_CMD_TRACE, 0, "main" },
	{ "trace main.c:42", TUI_CMD_TRACE, 0, "main.c:42" },
	{ "t 0x401136", TUI_CMD_TRACE, 0, "0x401136" },
	{ "info trace", TUI_CMD_INFO_TRACE, 0 },
	{ "info trace 3", TUI_CMD_INFO_TRACE, 3 },
	{ "i t all", TUI_CMD_INFO_TRACE, 0 },
	{ "info function ^parse_", TUI_CMD_INFO_FUNCTION, 0, "^parse_" },
	{ "i f main", TUI_CMD_INFO_FUNCTION, 0, "main" },
	{ "info line main.c:42", TUI_CMD_INFO_LINE, 0, "main.c:42" },
	{ "i l ns::a.cc:7", TUI_CMD_INFO_LINE, 0, "ns::a.cc:7" },
	{ "info address main", TUI_CMD_INFO_ADDRESS, 0, "main" },
	{ "info scope main.c:42", TUI_CMD_INFO_SCOPE, 0, "main.c:42" },
	{ "info sc f", TUI_CMD_INFO_SCOPE, 0, "f" },
	{ "info source", TUI_CMD_INFO_SOURCE },
	{ "info so", TUI_CMD_INFO_SOURCE },
	{ "info sh", TUI_CMD_INFO_SHARE },
	{ "enable 2", TUI_CMD_ENABLE, 2 },
	{ "enable all", TUI_CMD_ENABLE, 0 },
	{ "en 4294967295", TUI_CMD_ENABLE, 4294967295u },
	{ "disable 7", TUI_CMD_DISABLE, 7 },
	{ "dis all", TUI_CMD_DISABLE, 0 },
	{ "delete 1", TUI_CMD_DELETE, 1 },
	{ "d 1", TUI_CMD_DELETE, 1 },            /* gdb's alias */
	{ "del all", TUI_CMD_DELETE, 0 },
	{ "edit 5", TUI_CMD_EDIT, 5 },
	{ "ed 5", TUI_CMD_EDIT, 5 },
	{ "save traces s.gs", TUI_CMD_SAVE_TRACES, 0, "s.gs" },
	{ "sa o run.log", TUI_CMD_SAVE_OUTPUT, 0, "run.log" },
	{ "source s.gs", TUI_CMD_SOURCE, 0, "s.gs" },
	{ "so s.gs", TUI_CMD_SOURCE, 0, "s.gs" },
	{ "srcpath", TUI_CMD_SRCPATH_SHOW },
	{ "sr", TUI_CMD_SRCPATH_SHOW },
	{ "srcpath map /build /home/me/src", TUI_CMD_SRCPATH_MAP, 0, "/build", "/home/me/src" },
	{ "srcpath add ../src", TUI_CMD_SRCPATH_ADD, 0, "../src" },
	{ "filter 3", TUI_CMD_FILTER, 3 },
	{ "f all", TUI_CMD_FILTER, 0 },
	{ "clear", TUI_CMD_CLEAR },
	{ "c", TUI_CMD_CLEAR },
	{ "help", TUI_CMD_HELP },
	{ "help i l", TUI_CMD_HELP, 0, "info line" },
	{ "h d", TUI_CMD_HELP, 0, "delete" },
	{ "quit", TUI_CMD_QUIT },
	{ "q", TUI_CMD_QUIT },
	{ "  trace\t  main  ", TUI_CMD_TRACE, 0, "main" },
	/* quotes */
	{ "save output \"my run.log\"", TUI_CMD_SAVE_OUTPUT, 0, "my run.log" },
	{ "source \"a \\\"q\\\" \\\\ b\"", TUI_CMD_SOURCE, 0, "a \"q\" \\ b" },
	{ "srcpath map \"/a b\" x\"y z\"", TUI_CMD_SRCPATH_MAP, 0, "/a b", "xy z" },
	{ "info function \"\\d\"", TUI_CMD_INFO_FUNCTION, 0, "\\d" }, /* other escapes stay */
};

static void test_every_command_parses(void **state)
{
	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(good); i++) {
		struct tui_cmd c;
		char msg[256];
		int rc = tui_cmd_parse(good[i].line, &c, msg, sizeof(msg));

		if (rc)
			fail_msg("'%s': %s", good[i].line, msg);
		if (c.kind != good[i].kind || c.id != good[i].id)
			fail_msg("'%s': kind %d id %u", good[i].line, c.kind, c.id);
		if (good[i].arg)
			assert_string_equal(c.arg, good[i].arg);
		else
			assert_null(c.arg);
		if (good[i].arg2)
			assert_string_equal(c.arg2, good[i].arg2);
		else
			assert_null(c.arg2);
		tui_cmd_fini(&c);
	}
}

struct bad {
	const char *line, *msg;
};

static const struct bad bad[] = {
	{ "s x", "'s' is ambiguous: save, source, srcpath" },
	{ "e 1", "'e' is ambiguous: enable, edit" },
	{ "info s", "'s' is ambiguous: scope, source, share" },
	{ "frobnicate", "unknown command 'frobnicate': type help for the list" },
	{ "info bogus", "unknown command 'info bogus': info is followed by one of trace, "
			"function, line, address, scope, source, share" },
	{ "info", "info needs a subcommand; usage: info trace|function|line|address|scope|"
		  "source|share|stats (for example: info function main)" },
	{ "save", "save needs a subcommand" },
	{ "info line main.c", "info line: the argument is not FILE:LINE; usage: info line "
			      "FILE:LINE (for example: info line main.c:42)" },
	{ "info line :42", "not FILE:LINE" },
	{ "info line main.c:0", "not FILE:LINE" },
	{ "info line", "info line: missing its argument; usage: info line FILE:LINE" },
	{ "trace", "trace: missing its argument; usage: trace LOCATION (for example: "
		   "trace main.c:42)" },
	{ "trace a b", "trace: takes one argument, not 2 (quote one with spaces: \"a b\")" },
	{ "trace \"\"", "trace: the argument is empty" },
	{ "enable", "enable: missing its argument; usage: enable N|all" },
	{ "enable 0", "enable: '0' is not a trace number (1 to 4294967295, or all)" },
	{ "enable 4294967296", "'4294967296' is not a trace number" },
	{ "disable -1", "'-1' is not a trace number" },
	{ "delete 1x", "'1x' is not a trace number" },
	{ "edit all", "edit: 'all' is not a trace number (1 to 4294967295); usage: edit N" },
	{ "filter 99999999999999999999", "is not a trace number" },
	{ "info trace x", "info trace: 'x' is not a trace number" },
	{ "srcpath map a", "srcpath map: missing an argument; usage: srcpath map FROM TO" },
	{ "srcpath x", "unknown command 'srcpath x'" },
	{ "clear now", "clear: takes nothing, not 1" },
	{ "quit 1", "quit: takes nothing" },
	{ "trace \"main", "a quote is not closed: end the argument with \"" },
	{ "help frob", "unknown command 'frob'" },
	{ "help clear x", "help clear: clear has no subcommands" },
	{ "help s", "'s' is ambiguous" },
};

static void test_wrong_lines_say_why_and_how(void **state)
{
	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad); i++) {
		struct tui_cmd c;
		char msg[256];
		int rc = tui_cmd_parse(bad[i].line, &c, msg, sizeof(msg));

		if (rc != -EINVAL)
			fail_msg("'%s' parses (kind %d)", bad[i].line, c.kind);
		if (!strstr(msg, bad[i].msg))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].line, msg, bad[i].msg);
		assert_null(c.arg);
		assert_null(c.arg2);
		assert_int_equal(c.kind, TUI_CMD_NONE);
	}
}

static void test_a_short_message_buffer_is_cut(void **state)
{
	struct tui_cmd c;
	char msg[8];

	(void)state;
	assert_int_equal(tui_cmd_parse("frobnicate", &c, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(strlen(msg), 7);
	assert_int_equal(tui_cmd_parse("frobnicate", &c, NULL, 0), -EINVAL);
}

struct completion {
	const char *prefix;
	enum tui_complete_kind kind;
	const char *words; /* joined with ' ' */
};

static const struct completion completions[] = {
	{ "", TUI_COMPLETE_WORDS, "trace info enable disable delete edit save source srcpath "
				  "filter clear help quit" },
	{ "s", TUI_COMPLETE_WORDS, "save source srcpath" },
	{ "d", TUI_COMPLETE_WORDS, "disable delete" },
	{ "in", TUI_COMPLETE_WORDS, "info" },
	{ "x", TUI_COMPLETE_WORDS, "" },
	{ "info ", TUI_COMPLETE_WORDS, "trace function line address scope source share stats" },
	{ "i s", TUI_COMPLETE_WORDS, "scope source share stats" },
	{ "save ", TUI_COMPLETE_WORDS, "traces output" },
	{ "srcpath ", TUI_COMPLETE_WORDS, "map add" },
	{ "help ", TUI_COMPLETE_WORDS, "trace info enable disable delete edit save source "
				       "srcpath filter clear help quit" },
	{ "help info l", TUI_COMPLETE_WORDS, "line" },
	{ "trace ", TUI_COMPLETE_LOCATION },
	{ "trace ma", TUI_COMPLETE_LOCATION },
	{ "info scope m", TUI_COMPLETE_LOCATION },
	{ "info function ", TUI_COMPLETE_FUNCTION },
	{ "i a ma", TUI_COMPLETE_FUNCTION },
	{ "info line ", TUI_COMPLETE_SOURCE },
	{ "save traces ", TUI_COMPLETE_FILE },
	{ "sa o ~/", TUI_COMPLETE_FILE },
	{ "source \"my fi", TUI_COMPLETE_FILE },
	{ "srcpath map /a ", TUI_COMPLETE_FILE },
	{ "srcpath add ", TUI_COMPLETE_FILE },
	{ "trace main ", TUI_COMPLETE_NOTHING },
	{ "enable ", TUI_COMPLETE_NOTHING },
	{ "quit ", TUI_COMPLETE_NOTHING },
	{ "frob ", TUI_COMPLETE_NOTHING },
	{ "info bogus ", TUI_COMPLETE_NOTHING },
};

static void test_completion_kinds_and_words(void **state)
{
	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(completions); i++) {
		const struct completion *t = &completions[i];
		const char *words[32];
		char joined[512] = "";
		size_t n = 99;
		enum tui_complete_kind k = tui_cmd_complete(t->prefix, strlen(t->prefix), words, 32,
							    &n);

		if (k != t->kind)
			fail_msg("'%s': kind %d, not %d", t->prefix, k, t->kind);
		for (size_t j = 0; j < n; j++)
			strcat(strcat(joined, j ? " " : ""), words[j]);
		assert_string_equal(joined, t->words ? t->words : "");
	}
}

static void test_completion_takes_only_the_prefix_and_max(void **state)
{
	const char *words[2];
	size_t n;

	(void)state;
	/* Only the first 5 bytes are typed ("info "): the rest is not. */
	assert_int_equal(tui_cmd_complete("info line x", 5, words, 2, &n), TUI_COMPLETE_WORDS);
	assert_int_equal(n, 2);
	assert_string_equal(words[0], "trace");
	assert_int_equal(tui_cmd_complete("", 0, NULL, 0, &n), TUI_COMPLETE_WORDS);
	assert_int_equal(n, 0);
}

static void test_help_lists_every_command_and_explains_each(void **state)
{
	static const char *const commands[] = {
		"trace", "info", "enable", "disable", "delete", "edit", "save", "source",
		"srcpath", "filter", "clear", "help", "quit",
	};
	const char *all = tui_cmd_help(NULL);

	(void)state;
	assert_ptr_equal(all, tui_cmd_help(""));
	for (size_t i = 0; i < BASE_ARRAY_SIZE(commands); i++) {
		const char *h = tui_cmd_help(commands[i]);

		assert_non_null(strstr(all, commands[i]));
		assert_non_null(h);
		assert_memory_equal(h, "usage: ", 7);
		assert_non_null(strstr(h, commands[i]));
	}
	assert_non_null(strstr(tui_cmd_help("info line"), "usage: info line FILE:LINE"));
	assert_non_null(strstr(tui_cmd_help("srcpath map"), "FROM TO"));
	assert_ptr_equal(tui_cmd_help("d"), tui_cmd_help("delete"));
	assert_null(tui_cmd_help("frob"));
	assert_null(tui_cmd_help("info frob"));
	assert_null(tui_cmd_help("clear x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_parses),
		cmocka_unit_test(test_wrong_lines_say_why_and_how),
		cmocka_unit_test(test_a_short_message_buffer_is_cut),
		cmocka_unit_test(test_completion_kinds_and_words),
		cmocka_unit_test(test_completion_takes_only_the_prefix_and_max),
		cmocka_unit_test(test_help_lists_every_command_and_explains_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
