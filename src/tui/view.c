/* The ncursesw view: lays the panels out for the terminal's size (stacked
 * or side by side, one zoomed), draws the models as they are, and the
 * overlays above them. It draws only: the models hold every state. Text
 * reaching the screen is checked once more here (a control character
 * shows as '?'), whatever the model did. */
#define _GNU_SOURCE /* asprintf */
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "app.h"

#define MIN_COLS 80
#define MIN_ROWS 24

enum pair {
	PAIR_TITLE = 1, PAIR_FOCUS, PAIR_HEADER, PAIR_ERROR, PAIR_MESSAGE, PAIR_MARK,
	PAIR_DISABLED, PAIR_NOCODE, PAIR_MATCH,
};

static bool colors;
static SCREEN *screen;

struct box {
	int y, x, h, w;
};

static attr_t pair_attr(enum pair p, attr_t fallback)
{
	return colors ? COLOR_PAIR(p) : fallback;
}

/* s (UTF-8) at (y, x), at most width columns, control characters as '?';
 * the columns written. */
static int put_clipped(int y, int x, const char *s, int width, attr_t attr)
{
	mbstate_t st;
	int used = 0;
	size_t len = strlen(s);

	memset(&st, 0, sizeof(st));
	move(y, x);
	attron(attr);
	while (len && used < width) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, len, &st);
		int w;

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof(st));
			wc = L'?';
			n = 1;
		}
		if (wc < 0x20 || (wc >= 0x7f && wc < 0xa0))
			wc = L'?';
		w = wcwidth(wc);
		if (w < 0)
			w = 1, wc = L'?';
		if (used + w > width)
			break;
		addnwstr(&wc, 1);
		used += w;
		s += n;
		len -= n;
	}
	attroff(attr);
	return used;
}

__attribute__((format(printf, 5, 6)))
static int put_fmt(int y, int x, int width, attr_t attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put_clipped(y, x, buf, width, attr);
}

static void fill_line(int y, int x, int width, attr_t attr)
{
	attron(attr);
	mvhline(y, x, ' ', width);
	attroff(attr);
}

/* ---- panels ------------------------------------------------------------ */

static void panel_title(struct tui_app *a, struct box b, enum tui_focus f, const char *text)
{
	attr_t attr = a->focus == f && a->overlay == TUI_OVERLAY_NONE ?
		      pair_attr(PAIR_FOCUS, A_REVERSE) | A_BOLD : A_REVERSE;

	fill_line(b.y, b.x, b.w, attr);
	put_clipped(b.y, b.x + 1, text, b.w - 2, attr);
}

static void draw_source(struct tui_app *a, struct box b)
{
	struct tui_srcview *v = &a->src;
	uint32_t first = 0, last = 0;
	const char *fn = NULL;
	char title[512];
	int numw = 5;

	if (a->src_file >= 0 && v->nlines)
		fn = gs_sources_function_at(a->sources, (size_t)a->src_file,
					    (uint32_t)v->cursor + 1, &first, &last);
	snprintf(title, sizeof(title), "Source: %s%s%s%s  [%zu/%zu]", v->path ? v->path :
		 "(none: o opens a file)", fn ? "  in " : "", fn ? fn : "", fn ? "()" : "",
		 v->nlines ? v->cursor + 1 : 0, v->nlines);
	panel_title(a, b, TUI_FOCUS_SOURCE, title);
	tui_srcview_set_height(v, (size_t)(b.h - 1));
	if (!v->nlines) {
		put_fmt(b.y + 2, b.x + 2, b.w - 4, pair_attr(PAIR_ERROR, A_BOLD), "%s",
			v->path ? "not found on this machine: `srcpath map FROM TO` or "
			"`srcpath add DIR` says where it is; `info source` shows where gstrace "
			"looked" : "no source file: press o to pick one");
		return;
	}
	for (int r = 0; r < b.h - 1; r++) {
		size_t i = v->top + (size_t)r;
		bool cur = i == v->cursor;
		attr_t attr = cur ? A_REVERSE : 0, num;
		const char *mark = " ";

		if (i >= v->nlines)
			break;
		if (v->marks[i] == TUI_MARK_ENABLED)
			mark = "●";
		else if (v->marks[i] == TUI_MARK_DISABLED)
			mark = "○";
		num = tui_srcview_has_code(v, i) ? A_BOLD : pair_attr(PAIR_NOCODE, A_DIM);
		if (cur)
			fill_line(b.y + 1 + r, b.x, b.w, attr);
		put_fmt(b.y + 1 + r, b.x, numw, num | attr, "%*zu", numw - 1, i + 1);
		put_clipped(b.y + 1 + r, b.x + numw, mark, 1,
			    (v->marks[i] == TUI_MARK_DISABLED ? pair_attr(PAIR_DISABLED, A_DIM) :
			     pair_attr(PAIR_MARK, A_BOLD)) | attr);
		put_clipped(b.y + 1 + r, b.x + numw + 2, v->lines[i], b.w - numw - 2, attr);
	}
}

static attr_t line_attr(const struct tui_line *l)
{
	switch (l->kind) {
	case TUI_LINE_HEADER: return pair_attr(PAIR_HEADER, A_BOLD);
	case TUI_LINE_ERROR: return pair_attr(PAIR_ERROR, A_BOLD);
	case TUI_LINE_MESSAGE: return pair_attr(PAIR_MESSAGE, 0);
	default: return 0;
	}
}

static void draw_lines(struct tui_outbuf *o, struct box b)
{
	const struct tui_line *lines[512];
	size_t h = b.h > 512 ? 512 : (size_t)b.h, n = tui_outbuf_window(o, h, lines);
	uint64_t match = tui_outbuf_match(o);

	for (size_t r = 0; r < n; r++)
		put_clipped(b.y + (int)r, b.x, lines[r]->text, b.w,
			    line_attr(lines[r]) | (lines[r]->seq == match ?
						   pair_attr(PAIR_MATCH, A_REVERSE) : 0));
}

static void draw_output(struct tui_app *a, struct box b)
{
	char title[256];
	uint32_t filter = tui_outbuf_filter(a->out);

	const char *state = tui_outbuf_paused(a->out) ? "[paused: p resumes]" :
			    tui_outbuf_following(a->out) ? "[following]" : "[scrolled: G follows]";

	if (filter)
		snprintf(title, sizeof(title), "Output (trace #%u only)  %s", filter, state);
	else
		snprintf(title, sizeof(title), "Output  %s", state);
	panel_title(a, b, TUI_FOCUS_OUTPUT, title);
	a->out_height = (size_t)(b.h - 1);
	draw_lines(a->out, (struct box){ b.y + 1, b.x, b.h - 1, b.w });
}

static void draw_command(struct tui_app *a, struct box b)
{
	const char *prompt = "(gstrace) ";
	int pw = (int)strlen(prompt), answers = b.h - 2;

	panel_title(a, b, TUI_FOCUS_COMMAND, "Command  (help: commands, F1: keys)");
	if (a->completions[0])
		answers--;
	draw_lines(a->answers, (struct box){ b.y + 1, b.x, answers, b.w });
	if (a->completions[0])
		put_clipped(b.y + 1 + answers, b.x, a->completions, b.w,
			    pair_attr(PAIR_MESSAGE, A_DIM));
	fill_line(b.y + b.h - 1, b.x, b.w, 0);
	put_clipped(b.y + b.h - 1, b.x, prompt, pw, A_BOLD);
	put_clipped(b.y + b.h - 1, b.x + pw, a->cmd.buf, b.w - pw - 1, 0);
}

/* ---- overlays ---------------------------------------------------------- */

static struct box centered(int h, int w)
{
	struct box b = { 0, 0, h, w };

	if (b.w > COLS - 2)
		b.w = COLS - 2;
	if (b.h > LINES - 2)
		b.h = LINES - 2;
	b.y = (LINES - b.h) / 2;
	b.x = (COLS - b.w) / 2;
	for (int r = 0; r < b.h; r++)
		fill_line(b.y + r, b.x, b.w, 0);
	attron(A_BOLD);
	mvhline(b.y, b.x, ACS_HLINE, b.w);
	mvhline(b.y + b.h - 1, b.x, ACS_HLINE, b.w);
	mvvline(b.y, b.x, ACS_VLINE, b.h);
	mvvline(b.y, b.x + b.w - 1, ACS_VLINE, b.h);
	mvaddch(b.y, b.x, ACS_ULCORNER);
	mvaddch(b.y, b.x + b.w - 1, ACS_URCORNER);
	mvaddch(b.y + b.h - 1, b.x, ACS_LLCORNER);
	mvaddch(b.y + b.h - 1, b.x + b.w - 1, ACS_LRCORNER);
	attroff(A_BOLD);
	return b;
}

/* The check's message as display rows: its first line (the sentence)
 * wrapped at spaces to width, the rest (the source line and its caret)
 * kept whole so the caret stays under its column. Up to max rows into
 * starts/lens; the number of rows. */
static size_t message_rows(const char *m, size_t width, const char **starts, size_t *lens,
			   size_t max)
{
	size_t n = 0;
	bool first = true;

	while (*m && n < max) {
		const char *nl = strchr(m, '\n');
		size_t len = nl ? (size_t)(nl - m) : strlen(m);

		while (first && len > width && n < max) {
			size_t cut = width, skip;

			while (cut > width / 2 && m[cut] != ' ')
				cut--;
			if (m[cut] != ' ')
				cut = width;
			skip = m[cut] == ' ';
			starts[n] = m;
			lens[n++] = cut;
			m += cut + skip;
			len -= cut + skip;
		}
		if (n < max) {
			starts[n] = m;
			lens[n++] = len;
		}
		first = false;
		m += len + (nl != NULL);
	}
	return n;
}

/* The editor: its lines, then the check's message (its own caret lines). */
static void draw_editor(struct tui_app *a, int *cy, int *cx)
{
	struct tui_editor *e = &a->editor;
	struct box b = centered(LINES * 2 / 3, COLS - 10);
	const char *starts[16];
	size_t line, col, n = tui_editor_lines(e), lens[16], msg_rows = 0;
	int text_rows, top;
	char title[128];

	if (e->message)
		msg_rows = message_rows(e->message, (size_t)b.w - 4, starts, lens,
					(size_t)b.h / 2 < 16 ? (size_t)b.h / 2 : 16);
	text_rows = b.h - 3 - (int)msg_rows;
	if (e->edit_id)
		snprintf(title, sizeof(title), " Edit trace #%u  Enter: apply  Ctrl-J: new line  "
			 "Esc: cancel ", e->edit_id);
	else
		snprintf(title, sizeof(title), " New trace  Enter: add  Ctrl-J: new line  "
			 "Esc: cancel ");
	put_clipped(b.y, b.x + 2, title, b.w - 4, A_BOLD);
	tui_editor_cursor(e, &line, &col);
	if (line < e->top)
		e->top = line;
	if (line >= e->top + (size_t)text_rows)
		e->top = line - (size_t)text_rows + 1;
	top = (int)e->top;
	for (int r = 0; r < text_rows && (size_t)(top + r) < n; r++) {
		size_t len;
		const char *s = tui_editor_line(e, (size_t)(top + r), &len);
		char buf[1024];

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < 1000 ? len : 1000), s);
		put_fmt(b.y + 1 + r, b.x + 1, 4, pair_attr(PAIR_NOCODE, A_DIM), "%3d",
			top + r + 1);
		put_clipped(b.y + 1 + r, b.x + 5, buf, b.w - 7, 0);
	}
	if (msg_rows) {
		int r0 = b.y + b.h - 1 - (int)msg_rows;

		mvhline(r0 - 1, b.x + 1, ACS_HLINE, b.w - 2);
		for (size_t k = 0; k < msg_rows; k++) {
			char buf[1024];

			snprintf(buf, sizeof(buf), "%.*s", (int)(lens[k] < 1000 ? lens[k] : 1000),
				 starts[k]);
			put_clipped(r0 + (int)k, b.x + 2, buf, b.w - 4, pair_attr(PAIR_ERROR, A_BOLD));
		}
	}
	*cy = b.y + 1 + (int)(line - e->top);
	*cx = b.x + 5 + (int)col;
}

static void draw_picker(struct tui_app *a, int *cy, int *cx)
{
	struct box b = centered(LINES - 6, COLS - 16);
	int rows = b.h - 4;
	size_t first = a->picker_sel >= (size_t)rows ? a->picker_sel - (size_t)rows + 1 : 0;

	put_fmt(b.y, b.x + 2, b.w - 4, A_BOLD, " Open a source file (%zu of %zu)  Enter: open  "
		"Esc: cancel ", a->npicker_hits, gs_sources_count(a->sources));
	put_clipped(b.y + 1, b.x + 2, "> ", 2, A_BOLD);
	put_clipped(b.y + 1, b.x + 4, a->prompt.buf, b.w - 6, 0);
	for (int r = 0; r < rows && first + (size_t)r < a->npicker_hits; r++) {
		size_t k = first + (size_t)r;
		attr_t attr = k == a->picker_sel ? A_REVERSE : 0;

		fill_line(b.y + 3 + r, b.x + 1, b.w - 2, attr);
		put_clipped(b.y + 3 + r, b.x + 2,
			    gs_sources_path(a->sources, a->picker_hits[k]), b.w - 4, attr);
	}
	*cy = b.y + 1;
	*cx = b.x + 4 + (int)tui_lineedit_cursor_col(&a->prompt);
}

/* ---- the frame ---------------------------------------------------------- */

static void draw_title(struct tui_app *a)
{
	const char *exe = a->opts->exe ? a->opts->exe : a->opts->module;

	fill_line(0, 0, COLS, pair_attr(PAIR_TITLE, A_REVERSE));
	if (a->opts->pid > 0)
		put_fmt(0, 1, COLS - 2, pair_attr(PAIR_TITLE, A_REVERSE) | A_BOLD,
			"gstrace --tui  pid %d  %s%s", (int)a->opts->pid, exe ? exe : "",
			a->target_ended ? "  (ended)" : "");
	else
		put_fmt(0, 1, COLS - 2, pair_attr(PAIR_TITLE, A_REVERSE) | A_BOLD,
			"gstrace --tui  every process running %s", exe ? exe : "?");
}

/* events, rate, losses, per-trace hits; a notice or a search prompt
 * instead when there is one. */
static void draw_status(struct tui_app *a, int *cy, int *cx)
{
	char buf[1024];
	int used;
	size_t n = gs_live_count(a->live);

	fill_line(LINES - 1, 0, COLS, A_REVERSE);
	if (a->overlay == TUI_OVERLAY_SEARCH) {
		used = put_clipped(LINES - 1, 0, "/", 1, A_REVERSE | A_BOLD);
		put_clipped(LINES - 1, used, a->prompt.buf, COLS - 2, A_REVERSE);
		*cy = LINES - 1;
		*cx = 1 + (int)tui_lineedit_cursor_col(&a->prompt);
		return;
	}
	used = snprintf(buf, sizeof(buf), "events %llu (%.0f/s)  lost %llu",
			(unsigned long long)a->events, a->rate, (unsigned long long)a->lost);
	if (a->unrendered)
		used += snprintf(buf + used, sizeof(buf) - (size_t)used, "  not shown %llu",
				 (unsigned long long)a->unrendered);
	for (size_t i = 0; i < n && used < (int)sizeof(buf) - 40; i++) {
		struct gs_live_trace_info ti;

		if (gs_live_trace_info(a->live, i, &ti) == 0)
			used += snprintf(buf + used, sizeof(buf) - (size_t)used, "  #%u%s %llu",
					 ti.id, ti.state == GS_LIVE_ENABLED ? ":" : "(off):",
					 (unsigned long long)ti.hits);
	}
	if (a->notice[0])
		snprintf(buf + used, sizeof(buf) - (size_t)used, "  | %s", a->notice);
	put_clipped(LINES - 1, 1, buf, COLS - 2, A_REVERSE);
}

static void layout(struct tui_app *a, struct box *src, struct box *out, struct box *cmd)
{
	int body = LINES - 2, cmd_h = LINES / 5 < 6 ? 6 : LINES / 5;
	int panes = body - cmd_h;
	struct box none = { 0, 0, 0, 0 };

	*cmd = (struct box){ 1 + panes, 0, cmd_h, COLS };
	if (a->layout == TUI_LAYOUT_SIDE) {
		*src = (struct box){ 1, 0, panes, COLS / 2 };
		*out = (struct box){ 1, COLS / 2 + 1, panes, COLS - COLS / 2 - 1 };
		if (!a->zoom)
			mvvline(1, COLS / 2, ACS_VLINE, panes);
	} else {
		*src = (struct box){ 1, 0, panes / 2, COLS };
		*out = (struct box){ 1 + panes / 2, 0, panes - panes / 2, COLS };
	}
	if (!a->zoom)
		return;
	*src = a->focus == TUI_FOCUS_SOURCE ? (struct box){ 1, 0, panes, COLS } : none;
	*out = a->focus == TUI_FOCUS_OUTPUT ? (struct box){ 1, 0, panes, COLS } : none;
	if (a->focus == TUI_FOCUS_COMMAND) {
		*cmd = (struct box){ 1, 0, body, COLS };
	}
}

void tui_view_draw(struct tui_app *a)
{
	struct box src, out, cmd;
	int cy = -1, cx = -1;

	erase();
	if (COLS < MIN_COLS || LINES < MIN_ROWS) {
		put_fmt(0, 0, COLS, A_BOLD, "gstrace --tui needs a terminal of at least %dx%d; "
			"this one is %dx%d: enlarge it (Ctrl-C twice quits)", MIN_COLS, MIN_ROWS,
			COLS, LINES);
		refresh();
		return;
	}
	layout(a, &src, &out, &cmd);
	draw_title(a);
	if (src.h > 1)
		draw_source(a, src);
	if (out.h > 1)
		draw_output(a, out);
	if (cmd.h > 1)
		draw_command(a, cmd);
	if (a->focus == TUI_FOCUS_COMMAND && cmd.h > 1) {
		cy = cmd.y + cmd.h - 1;
		cx = cmd.x + 10 + (int)tui_lineedit_cursor_col(&a->cmd);
	}
	draw_status(a, &cy, &cx);
	if (a->overlay == TUI_OVERLAY_EDITOR)
		draw_editor(a, &cy, &cx);
	else if (a->overlay == TUI_OVERLAY_PICKER)
		draw_picker(a, &cy, &cx);
	if (cy >= 0 && cx >= 0 && cx < COLS) {
		curs_set(1);
		move(cy, cx);
	} else {
		curs_set(0);
	}
	refresh();
}

/* ---- the terminal ------------------------------------------------------- */

static void restore_at_exit(void)
{
	if (screen && !isendwin())
		endwin();
}

static void init_colors(void)
{
	if (!has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_FOCUS, COLOR_BLACK, COLOR_YELLOW);
	init_pair(PAIR_HEADER, COLOR_CYAN, -1);
	init_pair(PAIR_ERROR, COLOR_RED, -1);
	init_pair(PAIR_MESSAGE, COLOR_YELLOW, -1);
	init_pair(PAIR_MARK, COLOR_RED, -1);
	init_pair(PAIR_DISABLED, COLOR_BLUE, -1);
	init_pair(PAIR_NOCODE, COLOR_BLUE, -1);
	init_pair(PAIR_MATCH, COLOR_BLACK, COLOR_GREEN);
	colors = true;
}

int tui_view_init(struct tui_app *a, char *msg, size_t size)
{
	const char *term = getenv("TERM");

	/* Wide characters need a UTF-8 locale: the user's, else C.UTF-8. */
	if (!setlocale(LC_CTYPE, "") || strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
		setlocale(LC_CTYPE, "C.UTF-8");
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		snprintf(msg, size, "--tui cannot drive this terminal (TERM=%s): set TERM to "
			 "one terminfo knows (e.g. xterm-256color)", term ? term : "");
		return -1;
	}
	set_term(screen);
	atexit(restore_at_exit);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	if (!a->no_color)
		init_colors();
	return 0;
}

void tui_view_fini(void)
{
	if (!screen)
		return;
	if (!isendwin())
		endwin();
	delscreen(screen);
	screen = NULL;
}
