/* The command parser (command.h): a line split into words, its command
 * words resolved by gdb's abbreviation rule against the table of
 * command_table.c, and its arguments checked against what the command
 * takes, with a message giving the usage and an example when they are
 * wrong. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "command_int.h"

#define CMD_ID_MAX 4294967295UL

__attribute__((format(printf, 3, 4)))
static int fail(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (size) {
		va_start(ap, fmt);
		vsnprintf(msg, size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The command's words at the start of its usage: "info line" of
 * "info line FILE:LINE". */
static int name_len(const char *usage)
{
	size_t n = 0, word = 0;

	for (size_t i = 0;; i++) {
		char c = usage[i];

		if (c == ' ' || !c) {
			n = i;
			if (!c)
				break;
			word = i + 1;
			continue;
		}
		if ((c >= 'A' && c <= 'Z') || c == '[' || c == '|') {
			n = word ? word - 1 : 0;
			break;
		}
	}
	return (int)n;
}

static int usage(char *msg, size_t size, const struct cmd_def *d, const char *what)
{
	return fail(msg, size, "%.*s: %s; usage: %s (for example: %s)", name_len(d->usage),
		    d->usage, what, d->usage, d->example);
}

/* "'s' is ambiguous: save, source, srcpath", or unknown, naming the
 * choices (level: "" at the top, "info " under info). */
static int unresolved(char *msg, size_t size, const struct cmd_def *defs, size_t n,
		      const char *word, bool ambiguous, const char *level)
{
	char list[256] = "";
	size_t used = 0;

	for (size_t i = 0; i < n && used < sizeof(list); i++)
		if (!ambiguous || base_has_prefix(defs[i].word, word))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 used ? ", " : "", defs[i].word);
	if (ambiguous)
		return fail(msg, size, "'%s' is ambiguous: %s", word, list);
	if (!*level)
		return fail(msg, size, "unknown command '%s': type help for the list (%s)", word,
			    list);
	return fail(msg, size, "unknown command '%s%s': %.*s is followed by one of %s", level, word,
		    (int)strlen(level) - 1, level, list);
}

/* A trace number: 1..2^32-1, or "all" (0) when all_ok. */
static bool trace_id(const char *s, bool all_ok, uint32_t *id)
{
	unsigned long long v = 0;

	if (all_ok && !strcmp(s, "all")) {
		*id = 0;
		return true;
	}
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > CMD_ID_MAX)
			return false;
	}
	if (!v)
		return false;
	*id = (uint32_t)v;
	return true;
}

/* FILE:LINE with a file and a line from 1. */
static bool file_line(const char *s)
{
	const char *colon = strrchr(s, ':');
	uint32_t line;

	return colon && colon != s && trace_id(colon + 1, false, &line);
}

static int dup_arg(char **dst, const char *src)
{
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

/* help's words, each resolved, joined: "i l" is "info line". */
static int help_arg(char **words, size_t n, struct tui_cmd *out, char *msg, size_t size)
{
	const struct cmd_def *defs = tui_cmd_top, *d;
	size_t ndefs = tui_cmd_ntop;
	char full[64] = "", level[32] = "";
	bool amb;

	for (size_t i = 0; i < n; i++) {
		if (!defs)
			return fail(msg, size, "help %s: %s has no subcommands; try: help %s", full,
				    full, full);
		d = tui_cmd_lookup(defs, ndefs, words[i], &amb);
		if (!d)
			return unresolved(msg, size, defs, ndefs, words[i], amb, level);
		snprintf(level, sizeof(level), "%s ", d->word);
		snprintf(full + strlen(full), sizeof(full) - strlen(full), "%s%s", i ? " " : "",
			 d->word);
		defs = d->sub;
		ndefs = d->nsub;
	}
	return n ? dup_arg(&out->arg, full) : 0;
}

/* The arguments after the command words, as the command takes them. */
static int arguments(const struct cmd_def *d, char **a, size_t n, struct tui_cmd *out,
		     char *msg, size_t size)
{
	static const char *const count[] = { "nothing", "one argument", "two arguments" };
	size_t want = d->args == CMD_ARGS_NONE ? 0 : d->args == CMD_ARGS_TWO ? 2 : 1;

	if (d->args == CMD_ARGS_COMMAND)
		return help_arg(a, n, out, msg, size);
	if (d->args == CMD_ARGS_ID_OPT && n == 0)
		return 0;
	if (n < want)
		return usage(msg, size, d, n ? "missing an argument" : "missing its argument");
	if (n > want) {
		char what[160];

		snprintf(what, sizeof(what), "takes %s, not %zu (quote one with spaces: \"a b\")",
			 count[want], n);
		return usage(msg, size, d, what);
	}
	switch (d->args) {
	case CMD_ARGS_ID:
	case CMD_ARGS_ID_OPT:
	case CMD_ARGS_NUMBER:
		if (!trace_id(a[0], d->args != CMD_ARGS_NUMBER, &out->id)) {
			char what[160];

			snprintf(what, sizeof(what), "'%.40s' is not a trace number (1 to %lu%s)",
				 a[0], CMD_ID_MAX, d->args != CMD_ARGS_NUMBER ? ", or all" : "");
			return usage(msg, size, d, what);
		}
		return 0;
	case CMD_ARGS_FILELINE:
		if (!file_line(a[0]))
			return usage(msg, size, d, "the argument is not FILE:LINE");
		return dup_arg(&out->arg, a[0]);
	case CMD_ARGS_TWO:
		if (dup_arg(&out->arg2, a[1]))
			return -ENOMEM;
		/* fall through */
	case CMD_ARGS_ONE:
		if (!*a[0])
			return usage(msg, size, d, "the argument is empty");
		return dup_arg(&out->arg, a[0]);
	default:
		return 0;
	}
}

/* The command the first words name: *used words taken. */
static const struct cmd_def *command(char **w, size_t n, size_t *used, char *msg, size_t size,
				     int *rc)
{
	const struct cmd_def *d;
	bool amb;

	d = tui_cmd_lookup(tui_cmd_top, tui_cmd_ntop, w[0], &amb);
	*used = 1;
	if (!d) {
		*rc = unresolved(msg, size, tui_cmd_top, tui_cmd_ntop, w[0], amb, "");
		return NULL;
	}
	if (!d->sub)
		return d;
	if (n < 2) {
		if (d->bare)
			return d->bare;
		*rc = fail(msg, size, "%s needs a subcommand; usage: %s (for example: %s)", d->word,
			   d->usage, d->example);
		return NULL;
	}
	{
		const struct cmd_def *s = tui_cmd_lookup(d->sub, d->nsub, w[1], &amb);
		char level[32];

		*used = 2;
		if (s)
			return s;
		snprintf(level, sizeof(level), "%s ", d->word);
		*rc = unresolved(msg, size, d->sub, d->nsub, w[1], amb, level);
		return NULL;
	}
}

int tui_cmd_parse(const char *line, struct tui_cmd *out, char *msg, size_t size)
{
	struct cmd_words w;
	const struct cmd_def *d;
	size_t used;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (size)
		msg[0] = '\0';
	rc = tui_cmd_split(line, strlen(line), &w);
	if (rc)
		return fail(msg, size, "out of memory reading the command");
	if (w.open_quote)
		rc = fail(msg, size, "a quote is not closed: end the argument with \"");
	else if (w.n) {
		d = command(w.w, w.n, &used, msg, size, &rc);
		if (d) {
			out->kind = d->kind;
			rc = arguments(d, w.w + used, w.n - used, out, msg, size);
		}
	}
	tui_cmd_words_fini(&w);
	if (rc) {
		if (rc == -ENOMEM)
			fail(msg, size, "out of memory reading the command");
		tui_cmd_fini(out);
		out->kind = TUI_CMD_NONE;
	}
	return rc;
}

void tui_cmd_fini(struct tui_cmd *c)
{
	free(c->arg);
	free(c->arg2);
	c->arg = c->arg2 = NULL;
}
