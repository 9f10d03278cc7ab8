/* The command panel's language: a line parsed into a command and its
 * arguments, with a message naming the fix when it is wrong, and the
 * words a partly typed line completes with. The commands run elsewhere
 * (app.c). No terminal. */
#ifndef TUI_COMMAND_H
#define TUI_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tui_cmd_kind {
	TUI_CMD_NONE = 0,      /* an empty line */
	TUI_CMD_TRACE,         /* trace LOCATION: arg */
	TUI_CMD_INFO_TRACE,    /* info trace [N]: id (0: all) */
	TUI_CMD_INFO_FUNCTION, /* info function PATTERN: arg */
	TUI_CMD_INFO_LINE,     /* info line FILE:LINE: arg */
	TUI_CMD_INFO_ADDRESS,  /* info address FN: arg */
	TUI_CMD_INFO_SCOPE,    /* info scope LOCATION: arg */
	TUI_CMD_INFO_SOURCE,   /* info source */
	TUI_CMD_INFO_SHARE,    /* info share */
	TUI_CMD_INFO_STATS,    /* info stats */
	TUI_CMD_ENABLE,        /* enable N|all: id (0: all) */
	TUI_CMD_DISABLE,
	TUI_CMD_DELETE,
	TUI_CMD_EDIT,          /* edit N: id */
	TUI_CMD_SAVE_TRACES,   /* save traces FILE: arg */
	TUI_CMD_SAVE_OUTPUT,   /* save output FILE: arg */
	TUI_CMD_SOURCE,        /* source FILE: arg */
	TUI_CMD_SRCPATH_MAP,   /* srcpath map FROM TO: arg, arg2 */
	TUI_CMD_SRCPATH_ADD,   /* srcpath add DIR: arg */
	TUI_CMD_SRCPATH_SHOW,  /* srcpath */
	TUI_CMD_FILTER,        /* filter N|all: id (0: all) */
	TUI_CMD_CLEAR,         /* clear: the output panel */
	TUI_CMD_HELP,          /* help [COMMAND]: arg or NULL */
	TUI_CMD_QUIT,          /* quit, q */
};

struct tui_cmd {
	enum tui_cmd_kind kind;
	uint32_t id;
	char *arg, *arg2; /* malloc'd, or NULL */
};

/* Parses line: 0 and *out (free with tui_cmd_fini), or -EINVAL with a
 * message in msg naming the command and its usage. Commands may be
 * abbreviated to any unambiguous prefix (gdb's rule: "i f main" is
 * "info function main"; "q" is quit). An argument may be quoted with
 * "..." (\" and \\ inside) to hold spaces. */
int tui_cmd_parse(const char *line, struct tui_cmd *out, char *msg, size_t size);
void tui_cmd_fini(struct tui_cmd *c);

/* What the word being typed may become: the command words when it is the
 * first or second word of a command, else what kind of argument it is. */
enum tui_complete_kind {
	TUI_COMPLETE_WORDS = 0, /* *words (static strings) */
	TUI_COMPLETE_FUNCTION,  /* a function name */
	TUI_COMPLETE_LOCATION,  /* a function name or FILE:LINE */
	TUI_COMPLETE_FILE,      /* a path of this machine */
	TUI_COMPLETE_SOURCE,    /* a source file of the target */
	TUI_COMPLETE_NOTHING,
};
/* For the text before the cursor, prefix (its first len bytes). With
 * TUI_COMPLETE_WORDS, up to max words of this level starting with the
 * word typed go into words and *nwords. */
enum tui_complete_kind tui_cmd_complete(const char *prefix, size_t len, const char **words,
					size_t max, size_t *nwords);
/* The help text: every command with a line each, or one command's usage
 * and what it does (NULL when unknown). Static strings. */
const char *tui_cmd_help(const char *command);

#endif /* TUI_COMMAND_H */
