/* The script editor's model (editor.h): one UTF-8 buffer with newlines,
 * a byte cursor moved by whole characters and by lines at the same display
 * column, new lines that keep the indent of the line above, and the last
 * check's message with the line:col it names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "editor.h"
#include "srcview.h" /* the arrow keys' codes */
#include "text.h"

#define EDITOR_TAB 8

void tui_editor_init(struct tui_editor *e)
{
	memset(e, 0, sizeof(*e));
	/* An empty text without an allocation reads as "" (see text_of). */
}

void tui_editor_fini(struct tui_editor *e)
{
	free(e->text);
	free(e->message);
	memset(e, 0, sizeof(*e));
}

static const char *text_of(const struct tui_editor *e)
{
	return e->text ? e->text : "";
}

int tui_editor_set(struct tui_editor *e, const char *text, size_t cursor)
{
	size_t len = text ? strlen(text) : 0;

	if (len > TUI_EDITOR_MAX)
		return -EFBIG;
	if (base_grow((void **)&e->text, &e->cap, len + 1, 1))
		return -ENOMEM;
	memcpy(e->text, text ? text : "", len);
	e->text[len] = '\0';
	e->len = len;
	e->cursor = cursor > len ? len : cursor;
	/* Onto a character boundary: back over continuation bytes. */
	while (e->cursor > 0 && e->cursor < len && ((unsigned char)e->text[e->cursor] & 0xc0) == 0x80)
		e->cursor--;
	e->top = 0;
	return 0;
}

/* Puts s[0..n) (already clean) at the cursor. */
static bool put(struct tui_editor *e, const char *s, size_t n)
{
	if (e->len + n > TUI_EDITOR_MAX || base_grow((void **)&e->text, &e->cap, e->len + n + 1, 1))
		return false;
	if (!e->len)
		e->text[0] = '\0';
	memmove(e->text + e->cursor + n, e->text + e->cursor, e->len - e->cursor + 1);
	memcpy(e->text + e->cursor, s, n);
	e->len += n;
	e->cursor += n;
	return true;
}

bool tui_editor_insert(struct tui_editor *e, const char *text, size_t len)
{
	char *clean = malloc(len + 1);
	size_t n = 0;
	bool ok;

	if (!clean)
		return false;
	/* Tabs and newlines are the script's; other control bytes and
	 * invalid UTF-8 would corrupt what the panel draws. */
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = tui_utf8_decode(text + i, len - i, &cp);

		if (k && (cp == '\t' || cp == '\n' || (cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f)))) {
			memcpy(clean + n, text + i, k);
			n += k;
		}
		i += k ? k : 1;
	}
	ok = put(e, clean, n);
	free(clean);
	return ok;
}

static size_t line_start(const struct tui_editor *e, size_t pos)
{
	while (pos > 0 && e->text[pos - 1] != '\n')
		pos--;
	return pos;
}

static size_t line_end(const struct tui_editor *e, size_t pos)
{
	const char *nl = memchr(text_of(e) + pos, '\n', e->len - pos);

	return nl ? (size_t)(nl - e->text) : e->len;
}

/* Display columns of text[from..to), tabs to the next multiple of 8. */
static size_t columns(const struct tui_editor *e, size_t from, size_t to)
{
	size_t col = 0;

	for (size_t i = from; i < to; i = tui_utf8_next(e->text, to, i))
		col = e->text[i] == '\t' ? (col / EDITOR_TAB + 1) * EDITOR_TAB
					 : col + tui_text_width(e->text + i,
								tui_utf8_next(e->text, to, i) - i);
	return col;
}

/* The byte of the line starting at start nearest display column col
 * without passing it. */
static size_t at_column(const struct tui_editor *e, size_t start, size_t col)
{
	size_t end = line_end(e, start), i = start;

	while (i < end) {
		size_t next = tui_utf8_next(e->text, end, i);

		if (columns(e, start, next) > col)
			break;
		i = next;
	}
	return i;
}

/* Up (-1) or down (+1) a line, at the same display column when it has one. */
static void vertical(struct tui_editor *e, int dir)
{
	size_t start = line_start(e, e->cursor), col = columns(e, start, e->cursor);

	if (dir < 0 && start == 0)
		return;
	if (dir > 0 && line_end(e, e->cursor) == e->len)
		return;
	start = dir < 0 ? line_start(e, start - 1) : line_end(e, e->cursor) + 1;
	e->cursor = at_column(e, start, col);
}

static void erase(struct tui_editor *e, size_t from, size_t to)
{
	memmove(e->text + from, e->text + to, e->len - to + 1);
	e->len -= to - from;
	e->cursor = from;
}

/* A new line indented as the one the cursor is on. */
static void newline(struct tui_editor *e)
{
	size_t start = line_start(e, e->cursor), end = start;
	char *indent;

	while (end < e->cursor && (e->text[end] == ' ' || e->text[end] == '\t'))
		end++;
	indent = malloc(end - start + 2);
	if (!indent)
		return;
	indent[0] = '\n';
	memcpy(indent + 1, e->text + start, end - start);
	put(e, indent, end - start + 1);
	free(indent);
}

void tui_editor_key(struct tui_editor *e, unsigned key)
{
	char utf8[4];

	switch (key) {
	case TUI_KEY_LEFT:
		e->cursor = tui_utf8_prev(text_of(e), e->cursor);
		return;
	case TUI_KEY_RIGHT:
		if (e->cursor < e->len)
			e->cursor = tui_utf8_next(e->text, e->len, e->cursor);
		return;
	case TUI_KEY_UP: vertical(e, -1); return;
	case TUI_KEY_DOWN: vertical(e, +1); return;
	case TUI_KEY_HOME: e->cursor = e->len ? line_start(e, e->cursor) : 0; return;
	case TUI_KEY_END: e->cursor = line_end(e, e->cursor); return;
	case '\b':
		if (e->cursor)
			erase(e, tui_utf8_prev(e->text, e->cursor), e->cursor);
		return;
	case 0x7f:
		if (e->cursor < e->len)
			erase(e, e->cursor, tui_utf8_next(e->text, e->len, e->cursor));
		return;
	case '\n':
		newline(e);
		return;
	}
	/* A typed character (an addition to the keys of editor.h). */
	if (key == '\t' || (key >= 0x20 && key < 0x110000)) {
		size_t n = key < 0x80 ? 1 : key < 0x800 ? 2 : key < 0x10000 ? 3 : 4;

		utf8[0] = (char)(n == 1 ? key : n == 2 ? 0xc0 | key >> 6 :
				 n == 3 ? 0xe0 | key >> 12 : 0xf0 | key >> 18);
		for (size_t i = 1; i < n; i++)
			utf8[i] = (char)(0x80 | (key >> (6 * (n - 1 - i)) & 0x3f));
		tui_editor_insert(e, utf8, n);
	}
}

void tui_editor_scroll(struct tui_editor *e, size_t height)
{
	size_t line, col;

	tui_editor_cursor(e, &line, &col);
	if (line < e->top)
		e->top = line;
	else if (height && line >= e->top + height)
		e->top = line + 1 - height;
}

void tui_editor_cursor(const struct tui_editor *e, size_t *line, size_t *col)
{
	size_t l = 0;

	for (size_t i = 0; i < e->cursor; i++)
		l += e->text[i] == '\n';
	*line = l;
	*col = e->len ? columns(e, line_start(e, e->cursor), e->cursor) : 0;
}

size_t tui_editor_lines(const struct tui_editor *e)
{
	size_t n = 1;

	for (size_t i = 0; i < e->len; i++)
		n += e->text[i] == '\n';
	return n;
}

const char *tui_editor_line(const struct tui_editor *e, size_t i, size_t *len)
{
	size_t start = 0;

	for (; i > 0; i--) {
		const char *nl = memchr(text_of(e) + start, '\n', e->len - start);

		if (!nl) {
			*len = 0;
			return NULL;
		}
		start = (size_t)(nl - e->text) + 1;
	}
	*len = line_end(e, start) - start;
	return text_of(e) + start;
}

/* A decimal number at *s followed by ':', *s moved past the colon. */
static unsigned number_colon(const char **s)
{
	const char *p = *s;
	unsigned long n = 0;

	while (*p >= '0' && *p <= '9' && n < 100000000)
		n = n * 10 + (unsigned long)(*p++ - '0');
	if (p == *s || *p != ':')
		return 0;
	*s = p + 1;
	return (unsigned)n;
}

void tui_editor_set_message(struct tui_editor *e, const char *msg)
{
	const char *p;

	free(e->message);
	e->message = msg ? strdup(msg) : NULL;
	e->msg_line = e->msg_col = 0;
	if (!e->message)
		return;
	/* "NAME:LINE:COL: what", or "NAME:LINE: what". */
	p = strchr(msg, ':');
	if (!p || p == msg || memchr(msg, ' ', (size_t)(p - msg)))
		return;
	p++;
	e->msg_line = number_colon(&p);
	if (e->msg_line)
		e->msg_col = number_colon(&p);
}
