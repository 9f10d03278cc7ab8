/* Completion of a partly typed command (command.h): the words of the
 * level being typed (commands, then subcommands), or the kind of
 * argument the command takes there, from the table of command_table.c. */
#include <string.h>

#include "base.h"
#include "command_int.h"

static enum tui_complete_kind words_of(const struct cmd_def *defs, size_t n, const char *partial,
				       const char **words, size_t max, size_t *nwords)
{
	for (size_t i = 0; i < n; i++)
		if (base_has_prefix(defs[i].word, partial) && *nwords < max)
			words[(*nwords)++] = defs[i].word;
	return TUI_COMPLETE_WORDS;
}

static size_t arg_count(const struct cmd_def *d)
{
	return d->args == CMD_ARGS_NONE ? 0 : d->args == CMD_ARGS_TWO ? 2 : 1;
}

/* What argument idx of d (its words w, done before the partial one) is. */
static enum tui_complete_kind argument(const struct cmd_def *d, char **w, size_t idx,
				       const char *partial, const char **words, size_t max,
				       size_t *nwords)
{
	const struct cmd_def *c;
	bool amb;

	if (d->args != CMD_ARGS_COMMAND)
		return idx < arg_count(d) ? d->complete : TUI_COMPLETE_NOTHING;
	/* help: the command words themselves. */
	if (idx == 0)
		return words_of(tui_cmd_top, tui_cmd_ntop, partial, words, max, nwords);
	c = tui_cmd_lookup(tui_cmd_top, tui_cmd_ntop, w[0], &amb);
	if (idx == 1 && c && c->sub)
		return words_of(c->sub, c->nsub, partial, words, max, nwords);
	return TUI_COMPLETE_NOTHING;
}

static enum tui_complete_kind complete(char **w, size_t done, const char *partial,
				       const char **words, size_t max, size_t *nwords)
{
	const struct cmd_def *d, *s;
	bool amb;

	if (done == 0)
		return words_of(tui_cmd_top, tui_cmd_ntop, partial, words, max, nwords);
	d = tui_cmd_lookup(tui_cmd_top, tui_cmd_ntop, w[0], &amb);
	if (!d)
		return TUI_COMPLETE_NOTHING;
	if (!d->sub)
		return argument(d, w + 1, done - 1, partial, words, max, nwords);
	if (done == 1)
		return words_of(d->sub, d->nsub, partial, words, max, nwords);
	s = tui_cmd_lookup(d->sub, d->nsub, w[1], &amb);
	return s ? argument(s, w + 2, done - 2, partial, words, max, nwords)
		 : TUI_COMPLETE_NOTHING;
}

enum tui_complete_kind tui_cmd_complete(const char *prefix, size_t len, const char **words,
					size_t max, size_t *nwords)
{
	struct cmd_words w;
	enum tui_complete_kind k;
	size_t done;

	*nwords = 0;
	if (!words)
		max = 0;
	if (tui_cmd_split(prefix, len, &w))
		return TUI_COMPLETE_NOTHING;
	done = w.ends_in_space || !w.n ? w.n : w.n - 1;
	k = complete(w.w, done, done < w.n ? w.w[done] : "", words, max, nwords);
	tui_cmd_words_fini(&w);
	return k;
}
