/* Keys to actions: the overlay that has the keys (editor, file picker,
 * search prompt) first, else the focused panel, else the keys every panel
 * shares (Tab, ':', F1, layout and zoom). docs/tui.md is the reference. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <gs/script.h>

#include "base.h"
#include "app.h"
#include "fuzzy.h"

#define CTRL(c) ((c) & 0x1f)
#define ESC 27

/* A curses key as the models name it (0: none of theirs). */
static uint32_t model_key(int key, bool is_wchar)
{
	if (is_wchar)
		return (uint32_t)key;
	switch (key) {
	case KEY_UP: return TUI_KEY_UP;
	case KEY_DOWN: return TUI_KEY_DOWN;
	case KEY_PPAGE: return TUI_KEY_PGUP;
	case KEY_NPAGE: return TUI_KEY_PGDN;
	case KEY_HOME: return TUI_KEY_HOME;
	case KEY_END: return TUI_KEY_END;
	case KEY_LEFT: return TUI_KEY_LEFT;
	case KEY_RIGHT: return TUI_KEY_RIGHT;
	default: return 0;
	}
}

static bool is_backspace(int key, bool is_wchar)
{
	return (!is_wchar && key == KEY_BACKSPACE) || (is_wchar && (key == 127 || key == 8));
}

static size_t utf8_put(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* A printable character typed into a line editor: true when it was one. */
static bool line_insert(struct tui_lineedit *e, int key, bool is_wchar)
{
	char buf[4];

	if (!is_wchar || key < 0x20 || key == 0x7f || key > 0x10ffff)
		return false;
	tui_lineedit_insert(e, buf, utf8_put((uint32_t)key, buf));
	return true;
}

/* The edit keys of a one-line editor. true when the key was one. */
static bool line_edit(struct tui_lineedit *e, int key, bool is_wchar)
{
	static const struct { int key; bool wch; enum tui_edit_key k; } map[] = {
		{ KEY_LEFT, false, TUI_EDIT_LEFT }, { KEY_RIGHT, false, TUI_EDIT_RIGHT },
		{ KEY_HOME, false, TUI_EDIT_HOME }, { KEY_END, false, TUI_EDIT_END },
		{ KEY_DC, false, TUI_EDIT_DELETE }, { KEY_UP, false, TUI_EDIT_HISTORY_PREV },
		{ KEY_DOWN, false, TUI_EDIT_HISTORY_NEXT }, { CTRL('a'), true, TUI_EDIT_HOME },
		{ CTRL('e'), true, TUI_EDIT_END }, { CTRL('w'), true, TUI_EDIT_KILL_WORD },
		{ CTRL('u'), true, TUI_EDIT_KILL_LINE }, { CTRL('k'), true, TUI_EDIT_KILL_END },
		{ CTRL('b'), true, TUI_EDIT_LEFT }, { CTRL('f'), true, TUI_EDIT_RIGHT },
		{ CTRL('p'), true, TUI_EDIT_HISTORY_PREV }, { CTRL('n'), true, TUI_EDIT_HISTORY_NEXT },
	};

	if (is_backspace(key, is_wchar)) {
		tui_lineedit_key(e, TUI_EDIT_BACKSPACE);
		return true;
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(map); i++) {
		if (map[i].key == key && map[i].wch == is_wchar) {
			tui_lineedit_key(e, map[i].k);
			return true;
		}
	}
	return line_insert(e, key, is_wchar);
}

/* ---- the script editor ------------------------------------------------- */

/* The parser's message as the script is typed: nothing is resolved or
 * loaded until Enter. */
static void editor_check(struct tui_app *a)
{
	struct gs_script_opts so = { .sz = sizeof(so), .name = "trace" };
	struct gs_script *s = NULL;
	struct gs_error err = { 0 };

	if (gs_script_parse(a->editor.text, a->editor.len, &so, &s, &err)) {
		tui_editor_set_message(&a->editor, err.msg);
	} else {
		bool aggregates = false;

		for (size_t i = 0; i < s->ntraces; i++)
			aggregates |= gs_stmts_aggregate(s->traces[i].body, s->traces[i].nbody);
		/* they run, but this mode has no table to show them in yet */
		tui_editor_set_message(&a->editor, aggregates ? "note: @aggregations are counted "
				       "but not shown here; run the script with gstrace -s to "
				       "print their tables" : NULL);
	}
	gs_script_free(s);
}

static void editor_key(struct tui_app *a, int key, bool is_wchar)
{
	uint32_t mk = model_key(key, is_wchar);
	char buf[4];

	if (is_wchar && key == ESC) {
		a->overlay = TUI_OVERLAY_NONE;
		tui_app_notice(a, "script editor closed; nothing changed");
		return;
	}
	if ((is_wchar && (key == '\r' || key == CTRL('s'))) || (!is_wchar && key == KEY_ENTER)) {
		tui_app_submit(a);
		return;
	}
	if (is_wchar && key == '\n')
		tui_editor_key(&a->editor, '\n');
	else if (is_wchar && key == '\t')
		tui_editor_insert(&a->editor, "    ", 4);
	else if (is_backspace(key, is_wchar))
		tui_editor_key(&a->editor, '\b');
	else if (!is_wchar && key == KEY_DC)
		tui_editor_key(&a->editor, 0x7f);
	else if (!is_wchar && mk)
		tui_editor_key(&a->editor, mk);
	else if (is_wchar && key >= 0x20 && key != 0x7f && key <= 0x10ffff)
		tui_editor_insert(&a->editor, buf, utf8_put((uint32_t)key, buf));
	else
		return;
	editor_check(a);
}

/* ---- the file picker and the search prompt ----------------------------- */

static void picker_rank(struct tui_app *a)
{
	size_t n = gs_sources_count(a->sources);
	const char **paths = malloc((n ? n : 1) * sizeof(*paths));

	a->npicker_hits = 0;
	a->picker_sel = 0;
	if (!paths)
		return;
	for (size_t i = 0; i < n; i++)
		paths[i] = gs_sources_path(a->sources, i);
	a->npicker_hits = tui_fuzzy_rank(a->prompt.buf, paths, n, a->picker_hits,
					 TUI_PICKER_MAX);
	free(paths);
}

static void open_picker(struct tui_app *a)
{
	if (!gs_sources_count(a->sources)) {
		tui_app_notice(a, "no source files: the target's modules have no DWARF line "
			       "tables (build with -g, or install their debug files)");
		return;
	}
	tui_lineedit_set(&a->prompt, "");
	a->overlay = TUI_OVERLAY_PICKER;
	picker_rank(a);
}

static void picker_key(struct tui_app *a, int key, bool is_wchar)
{
	if (is_wchar && key == ESC) {
		a->overlay = TUI_OVERLAY_NONE;
	} else if ((is_wchar && (key == '\r' || key == '\n')) || (!is_wchar && key == KEY_ENTER)) {
		a->overlay = TUI_OVERLAY_NONE;
		if (a->npicker_hits) {
			tui_app_open_file(a, (long)a->picker_hits[a->picker_sel]);
			a->focus = TUI_FOCUS_SOURCE;
		}
	} else if ((!is_wchar && key == KEY_UP) || (is_wchar && key == CTRL('p'))) {
		a->picker_sel -= a->picker_sel > 0;
	} else if ((!is_wchar && key == KEY_DOWN) || (is_wchar && key == CTRL('n'))) {
		a->picker_sel += a->picker_sel + 1 < a->npicker_hits;
	} else if (line_edit(&a->prompt, key, is_wchar)) {
		picker_rank(a);
	}
}

static void open_search(struct tui_app *a, enum tui_focus in)
{
	tui_lineedit_set(&a->prompt, "");
	a->search_in = in;
	a->overlay = TUI_OVERLAY_SEARCH;
}

/* The output panel's height as last drawn (the scroll and search step). */
static size_t output_height(const struct tui_app *a)
{
	return a->out_height ? a->out_height : 10;
}

static void search_key(struct tui_app *a, int key, bool is_wchar)
{
	bool found;

	if (is_wchar && key == ESC) {
		a->overlay = TUI_OVERLAY_NONE;
		return;
	}
	if (!((is_wchar && (key == '\r' || key == '\n')) || (!is_wchar && key == KEY_ENTER))) {
		line_edit(&a->prompt, key, is_wchar);
		return;
	}
	a->overlay = TUI_OVERLAY_NONE;
	if (a->search_in == TUI_FOCUS_SOURCE)
		found = tui_srcview_search(&a->src, a->prompt.buf, false);
	else
		found = tui_outbuf_search(a->out, a->prompt.buf, true, output_height(a));
	if (!found)
		tui_app_notice(a, "not found: %s", a->prompt.buf);
}

/* ---- panels ------------------------------------------------------------ */

/* The target a source line is traced with: FILE:LINE by the shortest name
 * that finds the file again. */
static void trace_line(struct tui_app *a)
{
	const char *path = a->src.path, *base;
	char *text;
	int n;

	if (a->src_file < 0 || !path) {
		tui_app_notice(a, "no source file shown: press o to pick one");
		return;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (gs_sources_find(a->sources, base) != a->src_file)
		base = path;
	if (!tui_srcview_has_code(&a->src, a->src.cursor))
		tui_app_notice(a, "line %zu has no code: the trace goes on the next line that "
			       "has", a->src.cursor + 1);
	n = asprintf(&text, "trace %s:%zu {\n    \n}", base, a->src.cursor + 1);
	if (n < 0)
		return;
	tui_app_edit(a, text, (size_t)n - 2, 0);
	free(text);
}

/* `t` on a line: its function (a call under the cursor, else the function
 * the line is in) at its entry. */
static void trace_function(struct tui_app *a)
{
	char *word = tui_srcview_word_at(&a->src, SIZE_MAX), *text;
	const char *fn = word;
	uint32_t first, last;
	int n;

	if (!fn && a->src_file >= 0)
		fn = gs_sources_function_at(a->sources, (size_t)a->src_file,
					    (uint32_t)a->src.cursor + 1, &first, &last);
	if (!fn) {
		tui_app_notice(a, "no function on this line");
		free(word);
		return;
	}
	n = asprintf(&text, "trace %s {\n    \n}", fn);
	free(word);
	if (n < 0)
		return;
	tui_app_edit(a, text, (size_t)n - 2, 0);
	free(text);
}

static void source_key(struct tui_app *a, int key, bool is_wchar)
{
	uint32_t mk = model_key(key, is_wchar);

	if (mk && tui_srcview_key(&a->src, mk))
		return;
	if (!is_wchar)
		return;
	switch (key) {
	case ' ':
		trace_line(a);
		break;
	case 't':
		trace_function(a);
		break;
	case 'o':
		open_picker(a);
		break;
	case '/':
		open_search(a, TUI_FOCUS_SOURCE);
		break;
	}
}

/* `t` in the output: the filter goes to the next trace (then all). */
static void next_filter(struct tui_app *a)
{
	uint32_t cur = tui_outbuf_filter(a->out), next = 0;
	size_t n = gs_live_count(a->live);

	for (size_t i = 0; i < n && !next; i++) {
		struct gs_live_trace_info ti;

		if (gs_live_trace_info(a->live, i, &ti) == 0 && ti.id > cur)
			next = ti.id;
	}
	tui_outbuf_set_filter(a->out, next);
	if (next)
		tui_app_notice(a, "output: trace #%u only (t: next, `filter all`: every trace)",
			       next);
	else
		tui_app_notice(a, "output: every trace");
}

static void output_key(struct tui_app *a, int key, bool is_wchar)
{
	size_t h = output_height(a);

	if ((!is_wchar && key == KEY_UP) || (is_wchar && key == 'k'))
		tui_outbuf_scroll(a->out, -1, h);
	else if ((!is_wchar && key == KEY_DOWN) || (is_wchar && key == 'j'))
		tui_outbuf_scroll(a->out, 1, h);
	else if ((!is_wchar && key == KEY_PPAGE) || (is_wchar && key == CTRL('b')))
		tui_outbuf_scroll(a->out, -(long)h, h);
	else if ((!is_wchar && key == KEY_NPAGE) || (is_wchar && key == CTRL('f')))
		tui_outbuf_scroll(a->out, (long)h, h);
	else if ((!is_wchar && key == KEY_HOME) || (is_wchar && key == 'g'))
		tui_outbuf_scroll(a->out, -(long)tui_outbuf_count(a->out), h);
	else if ((!is_wchar && key == KEY_END) || (is_wchar && (key == 'G' || key == 'f')))
		tui_outbuf_follow(a->out, true);
	else if (is_wchar && key == 'p')
		tui_outbuf_pause(a->out, !tui_outbuf_paused(a->out));
	else if (is_wchar && key == '/')
		open_search(a, TUI_FOCUS_OUTPUT);
	else if (is_wchar && (key == 'n' || key == 'N'))
		tui_outbuf_search(a->out, "", key == 'n', h);
	else if (is_wchar && key == 't')
		next_filter(a);
	else if (is_wchar && key == 'c')
		tui_outbuf_clear(a->out);
}

static void command_key(struct tui_app *a, int key, bool is_wchar)
{
	char *line;

	if (is_wchar && key == ESC) {
		a->focus = TUI_FOCUS_SOURCE;
	} else if ((is_wchar && (key == '\r' || key == '\n')) || (!is_wchar && key == KEY_ENTER)) {
		a->completions[0] = '\0';
		line = tui_lineedit_accept(&a->cmd);
		if (line) {
			if (line[0])
				tui_app_answer(a, TUI_LINE_HEADER, "(gstrace) %s", line);
			tui_cmdrun(a, line);
		}
		free(line);
	} else if (is_wchar && key == ':' && a->cmd.len == 0) {
		/* `:` opens the command line from any panel: typed again on an
		 * empty one, it is that habit, not text */
	} else if (is_wchar && key == '\t') {
		tui_cmd_completion(a);
	} else if (!is_wchar && key == KEY_PPAGE) {
		tui_outbuf_scroll(a->answers, -4, 4);
	} else if (!is_wchar && key == KEY_NPAGE) {
		tui_outbuf_scroll(a->answers, 4, 4);
	} else {
		line_edit(&a->cmd, key, is_wchar);
	}
}

static void help_keys(struct tui_app *a)
{
	tui_app_answer(a, TUI_LINE_MESSAGE,
		       "keys: Tab/Shift-Tab next/previous panel, : command line, v layout, z "
		       "zoom the panel, F1 this help, Ctrl-C twice quit\n"
		       "source: j/k arrows, Ctrl-D/Ctrl-U half page, PgUp/PgDn, gg G 42G, / "
		       "search, n/N again, o open a file, Space trace this line, t trace the "
		       "function\n"
		       "output: j/k arrows, PgUp/PgDn, g top, G/End follow, p pause, / search, "
		       "n/N again, t filter by trace, c clear\n"
		       "editor: Enter (or Ctrl-S) add the trace, Ctrl-J new line, Esc cancel\n"
		       "see docs/tui.md; `help` lists the commands");
}

void tui_keys_handle(struct tui_app *a, int key, bool is_wchar)
{
	if (!is_wchar && key == KEY_RESIZE)
		return; /* the next draw lays out again */
	if (a->overlay == TUI_OVERLAY_EDITOR)
		return editor_key(a, key, is_wchar);
	if (a->overlay == TUI_OVERLAY_PICKER)
		return picker_key(a, key, is_wchar);
	if (a->overlay == TUI_OVERLAY_SEARCH)
		return search_key(a, key, is_wchar);
	if ((is_wchar && key == '\t') && a->focus != TUI_FOCUS_COMMAND) {
		a->focus = (enum tui_focus)((a->focus + 1) % TUI_FOCUS_COUNT);
		return;
	}
	if (!is_wchar && key == KEY_BTAB) {
		a->focus = (enum tui_focus)((a->focus + TUI_FOCUS_COUNT - 1) % TUI_FOCUS_COUNT);
		return;
	}
	if (!is_wchar && key == KEY_F(1))
		return help_keys(a);
	if (a->focus == TUI_FOCUS_COMMAND)
		return command_key(a, key, is_wchar);
	if (is_wchar && key == ':') {
		a->focus = TUI_FOCUS_COMMAND;
	} else if (is_wchar && key == 'v') {
		a->layout = (enum tui_layout)((a->layout + 1) % TUI_LAYOUT_COUNT);
	} else if (is_wchar && key == 'z') {
		a->zoom = !a->zoom;
	} else if (is_wchar && key == ESC) {
		a->zoom = false;
	} else if (a->focus == TUI_FOCUS_SOURCE) {
		source_key(a, key, is_wchar);
	} else {
		output_key(a, key, is_wchar);
	}
}
