/* The command language's table and words, shared by the parser
 * (command.c), completion (command_complete.c) and help (command_help.c).
 * Private to the tui layer. */
#ifndef TUI_COMMAND_INT_H
#define TUI_COMMAND_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "command.h"

/* What follows a command's words. */
enum cmd_args {
	CMD_ARGS_NONE,     /* nothing */
	CMD_ARGS_ONE,      /* one argument: arg */
	CMD_ARGS_TWO,      /* two: arg, arg2 */
	CMD_ARGS_ID,       /* N or all: id */
	CMD_ARGS_ID_OPT,   /* [N|all]: id, 0 when absent */
	CMD_ARGS_NUMBER,   /* N (no "all"): id */
	CMD_ARGS_FILELINE, /* FILE:LINE: arg */
	CMD_ARGS_COMMAND,  /* [COMMAND...]: arg, the command words in full */
};

struct cmd_def {
	const char *word;
	const char *alias;    /* a prefix that picks it though ambiguous ("d") */
	enum tui_cmd_kind kind;
	enum cmd_args args;
	enum tui_complete_kind complete; /* its arguments */
	const char *usage;    /* "info line FILE:LINE" */
	const char *example;  /* "info line main.c:42" */
	const char *summary;  /* one line: what it does */
	const char *help;     /* usage, summary and example in one text */
	const struct cmd_def *sub; /* its subcommands (NULL: none) */
	size_t nsub;
	const struct cmd_def *bare; /* the command without a subcommand, or NULL */
};

extern const struct cmd_def tui_cmd_top[];
extern const size_t tui_cmd_ntop;

/* The definition word names among defs[0..n): exact, the alias, or a
 * prefix of exactly one word. NULL when none; *ambiguous set when more
 * than one word starts with it. */
const struct cmd_def *tui_cmd_lookup(const struct cmd_def *defs, size_t n, const char *word,
				     bool *ambiguous);

/* A line split into words, "..." quotes (with \" and \\) undone. */
struct cmd_words {
	char **w;
	size_t n, cap;
	bool open_quote;   /* the line ends inside a quote */
	bool ends_in_space; /* a new word starts after the last one */
};
/* 0, or -ENOMEM. */
int tui_cmd_split(const char *line, size_t len, struct cmd_words *out);
void tui_cmd_words_fini(struct cmd_words *w);

#endif /* TUI_COMMAND_INT_H */
