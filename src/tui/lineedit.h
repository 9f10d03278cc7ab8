/* The command panel's line editor: one line of UTF-8 text, a cursor,
 * the edit keys a shell has, a bounded history without consecutive
 * duplicates, and completion from a caller's candidates. No terminal. */
#ifndef TUI_LINEEDIT_H
#define TUI_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>

#define TUI_LINE_MAX 1024 /* bytes of one line, NUL excluded */

enum tui_edit_key {
	TUI_EDIT_LEFT, TUI_EDIT_RIGHT, TUI_EDIT_HOME, TUI_EDIT_END,
	TUI_EDIT_BACKSPACE, TUI_EDIT_DELETE,
	TUI_EDIT_KILL_WORD,   /* Ctrl-W: the word before the cursor */
	TUI_EDIT_KILL_LINE,   /* Ctrl-U: everything before the cursor */
	TUI_EDIT_KILL_END,    /* Ctrl-K: everything from the cursor */
	TUI_EDIT_HISTORY_PREV, TUI_EDIT_HISTORY_NEXT, /* Up, Down */
};

struct tui_lineedit {
	char buf[TUI_LINE_MAX + 1];
	size_t len, cursor;      /* bytes; the cursor is on a character boundary */
	char **history;          /* oldest first */
	size_t nhistory, history_max;
	size_t history_pos;      /* nhistory: the line being written */
	char saved[TUI_LINE_MAX + 1]; /* that line while browsing the history */
};

/* history_max 0: 500 lines. */
void tui_lineedit_init(struct tui_lineedit *e, size_t history_max);
void tui_lineedit_fini(struct tui_lineedit *e);
void tui_lineedit_set(struct tui_lineedit *e, const char *text); /* cursor at the end */
/* Inserts UTF-8 text at the cursor (control bytes are not inserted);
 * false when the line would be too long (nothing inserted). */
bool tui_lineedit_insert(struct tui_lineedit *e, const char *text, size_t len);
void tui_lineedit_key(struct tui_lineedit *e, enum tui_edit_key key);
/* The line is done: added to the history (not when empty or equal to
 * the newest entry), the line cleared. Returns a copy to free (NULL when
 * out of memory). */
char *tui_lineedit_accept(struct tui_lineedit *e);
/* Display columns of the text before the cursor (wide characters count 2). */
size_t tui_lineedit_cursor_col(const struct tui_lineedit *e);

/* Completion of the word before the cursor (from the last space):
 * cands holds the n candidates for that word (the caller picks them from
 * the words before it: commands, functions, files). The word becomes the
 * candidates' longest common prefix when it is longer, and with a single
 * candidate a space follows. Returns how many candidates start with the
 * word (the view lists them when more than one). */
size_t tui_lineedit_complete(struct tui_lineedit *e, const char *const *cands, size_t n);
/* The word being completed: its start in buf and its length. */
size_t tui_lineedit_word(const struct tui_lineedit *e, size_t *start);

#endif /* TUI_LINEEDIT_H */
