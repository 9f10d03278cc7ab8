/* The source panel's model (srcview.h): a file split into escaped lines,
 * its code and trace marks, and a cursor moved by vim's keys with a count,
 * the window following it with a margin. The identifier under the cursor
 * (for `info`/`trace` on it) is in srcview_word.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "srcview.h"
#include "text.h"

#define SRCVIEW_MAX_BYTES ((size_t)64 << 20)
#define SRCVIEW_MARGIN 3       /* lines kept between the cursor and an edge */
#define SRCVIEW_MAX_COUNT 9999999u

void tui_srcview_init(struct tui_srcview *v)
{
	memset(v, 0, sizeof(*v));
}

static void drop_text(struct tui_srcview *v)
{
	free(v->path);
	free(v->shown_path);
	free(v->text);
	free(v->lines);
	free(v->marks);
	v->path = v->shown_path = v->text = NULL;
	v->lines = NULL;
	v->marks = NULL;
	v->nlines = v->cursor = v->top = 0;
	v->count = 0;
	v->pending_g = false;
}

void tui_srcview_fini(struct tui_srcview *v)
{
	drop_text(v);
	free(v->last_search);
	v->last_search = NULL;
}

/* Appends one escaped line and its NUL to text; its offset to offs. */
static int add_line(char **text, size_t *cap, size_t *used, size_t **offs, size_t *ocap,
		    size_t n, const char *s, size_t len)
{
	char *esc;
	size_t elen;

	if (len && s[len - 1] == '\r') /* a CRLF file reads as its lines */
		len--;
	esc = tui_escape(s, len, true);
	if (!esc)
		return -ENOMEM;
	elen = strlen(esc);
	if (base_grow((void **)text, cap, *used + elen + 1, 1) ||
	    base_grow((void **)offs, ocap, n + 1, sizeof(**offs))) {
		free(esc);
		return -ENOMEM;
	}
	memcpy(*text + *used, esc, elen + 1);
	(*offs)[n] = *used;
	*used += elen + 1;
	free(esc);
	return 0;
}

/* Splits text into escaped lines (a final newline ends the last line). */
static int split(struct tui_srcview *v, const char *text, size_t len)
{
	char *buf = NULL;
	size_t cap = 0, used = 0, *offs = NULL, ocap = 0, n = 0;

	for (size_t start = 0; start < len;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (add_line(&buf, &cap, &used, &offs, &ocap, n++, text + start, end - start))
			goto fail;
		start = end + 1;
	}
	v->lines = calloc(n ? n : 1, sizeof(*v->lines));
	v->marks = calloc(n ? n : 1, 1);
	if (!v->lines || !v->marks)
		goto fail;
	for (size_t i = 0; i < n; i++)
		v->lines[i] = buf + offs[i];
	v->text = buf ? buf : strdup("");
	v->nlines = n;
	free(offs);
	return v->text ? 0 : -ENOMEM;
fail:
	free(buf);
	free(offs);
	return -ENOMEM;
}

int tui_srcview_load(struct tui_srcview *v, const char *path, const char *shown_path,
		     const char *text, size_t len)
{
	int rc;

	if (len > SRCVIEW_MAX_BYTES)
		return -EFBIG;
	drop_text(v);
	v->path = strdup(path ? path : "");
	v->shown_path = strdup(shown_path ? shown_path : v->path ? v->path : "");
	if (!v->path || !v->shown_path)
		return -ENOMEM;
	rc = split(v, text, len);
	if (rc)
		drop_text(v);
	return rc;
}

void tui_srcview_absent(struct tui_srcview *v, const char *path)
{
	drop_text(v);
	v->path = strdup(path ? path : "");
}

void tui_srcview_set_code(struct tui_srcview *v, const uint32_t *lines, size_t n)
{
	v->code = lines;
	v->ncode = n;
}

struct line_key {
	const uint32_t *code;
	size_t line; /* 1-based, as the code lines are */
};

static bool line_below(const void *ctx, size_t i)
{
	const struct line_key *k = ctx;

	return k->code[i] < k->line;
}

bool tui_srcview_has_code(const struct tui_srcview *v, size_t line0)
{
	struct line_key k = { v->code, line0 + 1 };
	size_t at = base_lower_bound(0, v->ncode, &k, line_below);

	return at < v->ncode && v->code[at] == line0 + 1;
}

void tui_srcview_clear_marks(struct tui_srcview *v)
{
	if (v->marks)
		memset(v->marks, TUI_MARK_NONE, v->nlines);
}

void tui_srcview_mark(struct tui_srcview *v, uint32_t line, enum tui_mark m)
{
	if (line >= 1 && line <= v->nlines)
		v->marks[line - 1] = (uint8_t)m;
}

/* ---- the cursor and the window ---------------------------------------------- */

static size_t margin(const struct tui_srcview *v)
{
	size_t m = v->height ? (v->height - 1) / 2 : 0;

	return m < SRCVIEW_MARGIN ? m : SRCVIEW_MARGIN;
}

static size_t max_top(const struct tui_srcview *v)
{
	return v->nlines > v->height ? v->nlines - v->height : 0;
}

/* Scrolls the window so the cursor is in it, margin lines from its edges
 * when the file allows. */
static void keep_visible(struct tui_srcview *v)
{
	size_t m = margin(v), h = v->height ? v->height : 1;

	if (v->cursor < v->top + m)
		v->top = v->cursor > m ? v->cursor - m : 0;
	else if (v->cursor + m >= v->top + h)
		v->top = v->cursor + m + 1 - h;
	if (v->top > max_top(v))
		v->top = max_top(v);
}

static void set_cursor(struct tui_srcview *v, size_t line0)
{
	v->cursor = !v->nlines ? 0 : line0 >= v->nlines ? v->nlines - 1 : line0;
	keep_visible(v);
}

void tui_srcview_set_height(struct tui_srcview *v, size_t height)
{
	v->height = height;
	keep_visible(v);
}

void tui_srcview_goto(struct tui_srcview *v, size_t line1)
{
	size_t c = line1 ? line1 - 1 : 0, h = v->height ? v->height : 1;

	/* A jump out of the window centres its target, as vim does. */
	if (c < v->top || c >= v->top + h)
		v->top = c > h / 2 ? c - h / 2 : 0;
	set_cursor(v, c);
}

/* Moves the cursor by delta lines, and the window with it (pages). */
static void move(struct tui_srcview *v, long delta, bool window_too)
{
	size_t d = (size_t)(delta < 0 ? -delta : delta);

	size_t c = delta < 0 ? (v->cursor > d ? v->cursor - d : 0) : v->cursor + d;

	if (window_too) {
		/* The window moves, and the margin moves the cursor (as vim's
		 * scrolloff does), not the window back. */
		size_t m = margin(v), h = v->height ? v->height : 1;

		v->top = delta < 0 ? (v->top > d ? v->top - d : 0)
				   : (v->top + d > max_top(v) ? max_top(v) : v->top + d);
		if (v->top > 0 && c < v->top + m)
			c = v->top + m;
		if (v->top < max_top(v) && c + m >= v->top + h)
			c = v->top + h - 1 - m;
	}
	set_cursor(v, c);
}

/* H, M, L: a line of the window, margin lines in from an edge unless the
 * edge is the file's. */
static void window_line(struct tui_srcview *v, char which)
{
	size_t h = v->height ? v->height : 1, m = margin(v), last;

	last = v->top + h - 1 < v->nlines ? v->top + h - 1 : (v->nlines ? v->nlines - 1 : 0);
	if (which == 'H')
		v->cursor = v->top == 0 ? 0 : v->top + m;
	else if (which == 'L')
		v->cursor = last + 1 >= v->nlines ? last : last - m;
	else
		v->cursor = v->top + (last - v->top) / 2;
	set_cursor(v, v->cursor);
}

/* The key after 'g': "gg" (or "Ngg") to the first (N-th) line. */
static bool after_g(struct tui_srcview *v, uint32_t key, unsigned count)
{
	v->pending_g = false;
	if (key != 'g')
		return false;
	tui_srcview_goto(v, count ? count : 1);
	return true;
}

static bool movement(struct tui_srcview *v, uint32_t key, unsigned count)
{
	long n = count ? (long)count : 1, h = v->height ? (long)v->height : 1;

	switch (key) {
	case 'j': case TUI_KEY_DOWN: move(v, n, false); return true;
	case 'k': case TUI_KEY_UP: move(v, -n, false); return true;
	case 0x04: move(v, h / 2 ? h / 2 : 1, true); return true;   /* Ctrl-D */
	case 0x15: move(v, -(h / 2 ? h / 2 : 1), true); return true; /* Ctrl-U */
	case 0x06: case TUI_KEY_PGDN: move(v, n * h, true); return true; /* Ctrl-F */
	case 0x02: case TUI_KEY_PGUP: move(v, -n * h, true); return true; /* Ctrl-B */
	case TUI_KEY_HOME: tui_srcview_goto(v, 1); return true;
	case TUI_KEY_END: tui_srcview_goto(v, v->nlines); return true;
	case 'G': tui_srcview_goto(v, count ? count : v->nlines); return true;
	case 'H': case 'M': case 'L': window_line(v, (char)key); return true;
	case 'n': tui_srcview_search(v, "", false); return true;
	case 'N': tui_srcview_search(v, "", true); return true;
	}
	return false;
}

bool tui_srcview_key(struct tui_srcview *v, uint32_t key)
{
	unsigned count = v->count;

	if (key >= '0' && key <= '9' && (key != '0' || count) && !v->pending_g) {
		v->count = count * 10 + (key - '0');
		if (v->count > SRCVIEW_MAX_COUNT)
			v->count = SRCVIEW_MAX_COUNT;
		return true;
	}
	v->count = 0;
	if (v->pending_g)
		return after_g(v, key, count);
	if (key == 'g') {
		v->pending_g = true;
		v->count = count; /* "42gg" */
		return true;
	}
	return movement(v, key, count);
}

/* ---- search ---------------------------------------------------------------- */

static const char *remember(struct tui_srcview *v, const char *needle)
{
	char *copy;

	if (!needle || !*needle)
		return v->last_search;
	copy = strdup(needle);
	if (!copy)
		return NULL;
	free(v->last_search);
	v->last_search = copy;
	return copy;
}

bool tui_srcview_search(struct tui_srcview *v, const char *needle, bool backward)
{
	needle = remember(v, needle);
	if (!needle || !v->nlines)
		return false;
	for (size_t k = 1; k <= v->nlines; k++) {
		size_t i = backward ? (v->cursor + v->nlines - k % v->nlines) % v->nlines
				    : (v->cursor + k) % v->nlines;

		if (strstr(v->lines[i], needle)) {
			tui_srcview_goto(v, i + 1);
			return true;
		}
	}
	return false;
}
