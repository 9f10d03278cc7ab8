/* The command line editor (lineedit.h): edits on whole UTF-8 characters,
 * shell kill keys, a bounded history browsed with the line being written
 * kept aside, and completion to the candidates' longest common prefix. */
#include <stdlib.h>
#include <string.h>

#include "lineedit.h"
#include "text.h"

#define LINEEDIT_DEFAULT_HISTORY 500

void tui_lineedit_init(struct tui_lineedit *e, size_t history_max)
{
	memset(e, 0, sizeof(*e));
	e->history_max = history_max ? history_max : LINEEDIT_DEFAULT_HISTORY;
}

void tui_lineedit_fini(struct tui_lineedit *e)
{
	for (size_t i = 0; i < e->nhistory; i++)
		free(e->history[i]);
	free(e->history);
	e->history = NULL;
	e->nhistory = e->history_pos = 0;
}

/* The text, cut at TUI_LINE_MAX on a character boundary. */
static void replace(struct tui_lineedit *e, const char *text)
{
	size_t len = strlen(text);

	while (len > TUI_LINE_MAX)
		len = tui_utf8_prev(text, len);
	memmove(e->buf, text, len);
	e->buf[len] = '\0';
	e->len = e->cursor = len;
}

void tui_lineedit_set(struct tui_lineedit *e, const char *text)
{
	replace(e, text ? text : "");
	e->history_pos = e->nhistory;
}

/* Removes buf[from..to). */
static void cut(struct tui_lineedit *e, size_t from, size_t to)
{
	memmove(e->buf + from, e->buf + to, e->len - to + 1);
	e->len -= to - from;
	e->cursor = from;
}

bool tui_lineedit_insert(struct tui_lineedit *e, const char *text, size_t len)
{
	char clean[TUI_LINE_MAX];
	size_t n = 0;

	/* Control bytes (a pasted newline, an escape) would end or corrupt
	 * the line: dropped. Invalid UTF-8 is dropped too, so the cursor
	 * always sits between whole characters. */
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = tui_utf8_decode(text + i, len - i, &cp);

		if (!k) {
			i++;
			continue;
		}
		if (cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f)) {
			if (n + k > TUI_LINE_MAX - e->len)
				return false;
			memcpy(clean + n, text + i, k);
			n += k;
		}
		i += k;
	}
	memmove(e->buf + e->cursor + n, e->buf + e->cursor, e->len - e->cursor + 1);
	memcpy(e->buf + e->cursor, clean, n);
	e->len += n;
	e->cursor += n;
	return true;
}

static size_t word_back(const struct tui_lineedit *e)
{
	size_t p = e->cursor;

	while (p > 0 && e->buf[p - 1] == ' ')
		p--;
	while (p > 0 && e->buf[p - 1] != ' ')
		p--;
	return p;
}

/* Moves through the history by dir (-1 older, +1 newer), the line being
 * written saved when leaving it and given back when coming back. */
static void browse(struct tui_lineedit *e, int dir)
{
	if (dir < 0 && e->history_pos == 0)
		return;
	if (dir > 0 && e->history_pos >= e->nhistory)
		return;
	if (e->history_pos == e->nhistory)
		memcpy(e->saved, e->buf, e->len + 1);
	e->history_pos = dir < 0 ? e->history_pos - 1 : e->history_pos + 1;
	replace(e, e->history_pos == e->nhistory ? e->saved : e->history[e->history_pos]);
}

void tui_lineedit_key(struct tui_lineedit *e, enum tui_edit_key key)
{
	switch (key) {
	case TUI_EDIT_LEFT:
		e->cursor = tui_utf8_prev(e->buf, e->cursor);
		break;
	case TUI_EDIT_RIGHT:
		if (e->cursor < e->len)
			e->cursor = tui_utf8_next(e->buf, e->len, e->cursor);
		break;
	case TUI_EDIT_HOME:
		e->cursor = 0;
		break;
	case TUI_EDIT_END:
		e->cursor = e->len;
		break;
	case TUI_EDIT_BACKSPACE:
		cut(e, tui_utf8_prev(e->buf, e->cursor), e->cursor);
		break;
	case TUI_EDIT_DELETE:
		if (e->cursor < e->len)
			cut(e, e->cursor, tui_utf8_next(e->buf, e->len, e->cursor));
		break;
	case TUI_EDIT_KILL_WORD:
		cut(e, word_back(e), e->cursor);
		break;
	case TUI_EDIT_KILL_LINE:
		cut(e, 0, e->cursor);
		break;
	case TUI_EDIT_KILL_END:
		e->buf[e->cursor] = '\0';
		e->len = e->cursor;
		break;
	case TUI_EDIT_HISTORY_PREV:
		browse(e, -1);
		break;
	case TUI_EDIT_HISTORY_NEXT:
		browse(e, +1);
		break;
	}
}

/* Adds line as the newest entry, the oldest going past the bound. */
static void remember(struct tui_lineedit *e, const char *line)
{
	char *copy;

	if (!*line || (e->nhistory && !strcmp(e->history[e->nhistory - 1], line)))
		return;
	copy = strdup(line);
	if (!copy)
		return;
	if (!e->history) {
		e->history = calloc(e->history_max, sizeof(*e->history));
		if (!e->history) {
			free(copy);
			return;
		}
	}
	if (e->nhistory == e->history_max) {
		free(e->history[0]);
		memmove(e->history, e->history + 1, (e->nhistory - 1) * sizeof(*e->history));
		e->nhistory--;
	}
	e->history[e->nhistory++] = copy;
}

char *tui_lineedit_accept(struct tui_lineedit *e)
{
	char *line = strdup(e->buf);

	remember(e, e->buf);
	e->buf[0] = '\0';
	e->len = e->cursor = 0;
	e->history_pos = e->nhistory;
	return line;
}

size_t tui_lineedit_cursor_col(const struct tui_lineedit *e)
{
	return tui_text_width(e->buf, e->cursor);
}

size_t tui_lineedit_word(const struct tui_lineedit *e, size_t *start)
{
	size_t s = e->cursor;

	while (s > 0 && e->buf[s - 1] != ' ')
		s--;
	*start = s;
	return e->cursor - s;
}

/* The bytes a and b share at their start, cut to a character boundary. */
static size_t common(const char *a, const char *b, size_t max)
{
	size_t n = 0;

	while (n < max && a[n] && a[n] == b[n])
		n++;
	while (n > 0 && ((unsigned char)a[n] & 0xc0) == 0x80)
		n--;
	return n;
}

size_t tui_lineedit_complete(struct tui_lineedit *e, const char *const *cands, size_t n)
{
	size_t start, wlen = tui_lineedit_word(e, &start), matches = 0, lcp = 0;
	const char *first = NULL;

	for (size_t i = 0; i < n; i++) {
		if (strncmp(cands[i], e->buf + start, wlen))
			continue;
		if (!first)
			lcp = strlen(first = cands[i]);
		else
			lcp = common(first, cands[i], lcp);
		matches++;
	}
	if (!matches)
		return 0;
	if (lcp > wlen)
		tui_lineedit_insert(e, first + wlen, lcp - wlen);
	if (matches == 1 && (e->cursor == e->len || e->buf[e->cursor] != ' '))
		tui_lineedit_insert(e, " ", 1);
	return matches;
}
