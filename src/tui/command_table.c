/* The commands of the command panel, as one table: each command's words,
 * what follows them, how its arguments complete, and its usage, example
 * and help, so the parser's messages, completion and `help` agree. Also
 * gdb's rule for abbreviations, and the splitting of a line into words. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "command_int.h"

#define CMD(w, al, k, a, c, use, ex, sum)                                               \
	{ .word = w, .alias = al, .kind = k, .args = a, .complete = c, .usage = use,       \
	  .example = ex, .summary = sum,                                                     \
	  .help = "usage: " use "\n" sum "\nfor example: " ex "\n" }

static const struct cmd_def info_sub[] = {
	CMD("trace", NULL, TUI_CMD_INFO_TRACE, CMD_ARGS_ID_OPT, TUI_COMPLETE_NOTHING,
	    "info trace [N]", "info trace 2", "List the traces, or trace N with its script."),
	CMD("function", NULL, TUI_CMD_INFO_FUNCTION, CMD_ARGS_ONE, TUI_COMPLETE_FUNCTION,
	    "info function PATTERN", "info function ^parse_",
	    "List the functions whose names match PATTERN."),
	CMD("line", NULL, TUI_CMD_INFO_LINE, CMD_ARGS_FILELINE, TUI_COMPLETE_SOURCE,
	    "info line FILE:LINE", "info line main.c:42",
	    "Show the addresses of a source line, and whether it can be traced."),
	CMD("address", NULL, TUI_CMD_INFO_ADDRESS, CMD_ARGS_ONE, TUI_COMPLETE_FUNCTION,
	    "info address FUNCTION", "info address main", "Show where a function is."),
	CMD("scope", NULL, TUI_CMD_INFO_SCOPE, CMD_ARGS_ONE, TUI_COMPLETE_LOCATION,
	    "info scope LOCATION", "info scope main.c:42",
	    "List the variables a script can read at LOCATION."),
	CMD("source", NULL, TUI_CMD_INFO_SOURCE, CMD_ARGS_NONE, TUI_COMPLETE_NOTHING,
	    "info source", "info source", "Show the file in the source panel and where it was read."),
	CMD("share", NULL, TUI_CMD_INFO_SHARE, CMD_ARGS_NONE, TUI_COMPLETE_NOTHING,
	    "info share", "info share", "List the shared libraries the target has loaded."),
	CMD("stats", NULL, TUI_CMD_INFO_STATS, CMD_ARGS_NONE, TUI_COMPLETE_NOTHING,
	    "info stats", "info stats",
	    "Show events delivered, lost and not shown, events and redraws a second, the history."),
};

static const struct cmd_def save_sub[] = {
	CMD("traces", NULL, TUI_CMD_SAVE_TRACES, CMD_ARGS_ONE, TUI_COMPLETE_FILE,
	    "save traces FILE", "save traces session.gs",
	    "Write every trace as a script that `source` or gstrace --script-file reads back."),
	CMD("output", NULL, TUI_CMD_SAVE_OUTPUT, CMD_ARGS_ONE, TUI_COMPLETE_FILE,
	    "save output FILE", "save output run.log", "Write the output panel's history."),
};

static const struct cmd_def srcpath_show =
	CMD("srcpath", NULL, TUI_CMD_SRCPATH_SHOW, CMD_ARGS_NONE, TUI_COMPLETE_NOTHING,
	    "srcpath", "srcpath", "Show where source files are looked for.");

static const struct cmd_def srcpath_sub[] = {
	CMD("map", NULL, TUI_CMD_SRCPATH_MAP, CMD_ARGS_TWO, TUI_COMPLETE_FILE,
	    "srcpath map FROM TO", "srcpath map /build/src /home/me/src",
	    "Read files whose DWARF path starts with FROM under TO instead."),
	CMD("add", NULL, TUI_CMD_SRCPATH_ADD, CMD_ARGS_ONE, TUI_COMPLETE_FILE,
	    "srcpath add DIR", "srcpath add ../src", "Look for source files under DIR too."),
};

const struct cmd_def tui_cmd_top[] = {
	CMD("trace", NULL, TUI_CMD_TRACE, CMD_ARGS_ONE, TUI_COMPLETE_LOCATION,
	    "trace LOCATION", "trace main.c:42",
	    "Trace a function, a FILE:LINE or an address; the script editor opens."),
	{ .word = "info", .kind = TUI_CMD_NONE, .usage = "info trace|function|line|address|scope|source|share|stats",
	  .example = "info function main", .summary = "Show what the target and the traces hold.",
	  .help = "usage: info trace|function|line|address|scope|source|share|stats\n"
		  "Show what the target and the traces hold; help info SUBCOMMAND for each.\n"
		  "for example: info function main\n",
	  .sub = info_sub, .nsub = BASE_ARRAY_SIZE(info_sub) },
	CMD("enable", NULL, TUI_CMD_ENABLE, CMD_ARGS_ID, TUI_COMPLETE_NOTHING,
	    "enable N|all", "enable 2", "Start trace N (or every trace) again."),
	CMD("disable", NULL, TUI_CMD_DISABLE, CMD_ARGS_ID, TUI_COMPLETE_NOTHING,
	    "disable N|all", "disable 2", "Stop trace N (or every trace) without deleting it."),
	CMD("delete", "d", TUI_CMD_DELETE, CMD_ARGS_ID, TUI_COMPLETE_NOTHING,
	    "delete N|all", "delete 2", "Delete trace N (or every trace)."),
	CMD("edit", NULL, TUI_CMD_EDIT, CMD_ARGS_NUMBER, TUI_COMPLETE_NOTHING,
	    "edit N", "edit 2", "Edit the script of trace N."),
	{ .word = "save", .kind = TUI_CMD_NONE, .usage = "save traces|output FILE",
	  .example = "save traces session.gs", .summary = "Write the traces or the output to a file.",
	  .help = "usage: save traces|output FILE\n"
		  "Write the traces (as a script) or the output panel's history to FILE.\n"
		  "for example: save traces session.gs\n",
	  .sub = save_sub, .nsub = BASE_ARRAY_SIZE(save_sub) },
	CMD("source", NULL, TUI_CMD_SOURCE, CMD_ARGS_ONE, TUI_COMPLETE_FILE,
	    "source FILE", "source session.gs", "Add the traces of a script file."),
	{ .word = "srcpath", .kind = TUI_CMD_NONE, .usage = "srcpath [map FROM TO | add DIR]",
	  .example = "srcpath map /build/src /home/me/src",
	  .summary = "Show or change where source files are looked for.",
	  .help = "usage: srcpath [map FROM TO | add DIR]\n"
		  "Show where source files are looked for, or add a mapping or a directory.\n"
		  "for example: srcpath map /build/src /home/me/src\n",
	  .sub = srcpath_sub, .nsub = BASE_ARRAY_SIZE(srcpath_sub), .bare = &srcpath_show },
	CMD("filter", NULL, TUI_CMD_FILTER, CMD_ARGS_ID, TUI_COMPLETE_NOTHING,
	    "filter N|all", "filter 2", "Show only trace N's output (all: every trace's)."),
	CMD("clear", NULL, TUI_CMD_CLEAR, CMD_ARGS_NONE, TUI_COMPLETE_NOTHING,
	    "clear", "clear", "Empty the output panel."),
	CMD("help", NULL, TUI_CMD_HELP, CMD_ARGS_COMMAND, TUI_COMPLETE_WORDS,
	    "help [COMMAND]", "help info line", "List the commands, or tell what one does."),
	CMD("quit", "q", TUI_CMD_QUIT, CMD_ARGS_NONE, TUI_COMPLETE_NOTHING,
	    "quit", "quit", "Stop tracing and leave (the target goes on running)."),
};
const size_t tui_cmd_ntop = BASE_ARRAY_SIZE(tui_cmd_top);

const struct cmd_def *tui_cmd_lookup(const struct cmd_def *defs, size_t n, const char *word,
				     bool *ambiguous)
{
	const struct cmd_def *found = NULL;
	size_t hits = 0;

	*ambiguous = false;
	if (!*word)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(defs[i].word, word) || (defs[i].alias && !strcmp(defs[i].alias, word)))
			return &defs[i];
		if (base_has_prefix(defs[i].word, word)) {
			found = &defs[i];
			hits++;
		}
	}
	*ambiguous = hits > 1;
	return hits == 1 ? found : NULL;
}

/* ---- words ------------------------------------------------------------------ */

static int push_word(struct cmd_words *out, const char *s, size_t n)
{
	char *w = strndup(s, n);

	if (!w || base_grow((void **)&out->w, &out->cap, out->n + 1, sizeof(*out->w))) {
		free(w);
		return -ENOMEM;
	}
	out->w[out->n++] = w;
	return 0;
}

/* One word from line[*i], its quotes undone, into buf (room: len). */
static size_t one_word(const char *line, size_t len, size_t *i, char *buf, bool *open)
{
	size_t n = 0;
	bool quoted = false;

	for (; *i < len && (quoted || (line[*i] != ' ' && line[*i] != '\t')); (*i)++) {
		char c = line[*i];

		if (c == '"') {
			quoted = !quoted;
		} else if (quoted && c == '\\' && *i + 1 < len &&
			   (line[*i + 1] == '"' || line[*i + 1] == '\\')) {
			buf[n++] = line[++*i];
		} else {
			buf[n++] = c;
		}
	}
	*open = quoted;
	return n;
}

int tui_cmd_split(const char *line, size_t len, struct cmd_words *out)
{
	char *buf = malloc(len + 1);
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return -ENOMEM;
	for (;;) {
		size_t n;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= len)
			break;
		n = one_word(line, len, &i, buf, &out->open_quote);
		if (push_word(out, buf, n)) {
			free(buf);
			tui_cmd_words_fini(out);
			return -ENOMEM;
		}
	}
	free(buf);
	out->ends_in_space = len && (line[len - 1] == ' ' || line[len - 1] == '\t') &&
			     !out->open_quote;
	return 0;
}

void tui_cmd_words_fini(struct cmd_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->w[i]);
	free(w->w);
	memset(w, 0, sizeof(*w));
}
