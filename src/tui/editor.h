/* The script editor's model: a few lines of UTF-8 text (a trace's
 * script), a cursor, and the message the last check gave with where it
 * points (line, column), shown inline with a caret. No terminal. */
#ifndef TUI_EDITOR_H
#define TUI_EDITOR_H

#include <stdbool.h>
#include <stddef.h>

#define TUI_EDITOR_MAX (64 * 1024) /* bytes of a script */

struct tui_editor {
	char *text;          /* NUL-terminated */
	size_t len, cap;
	size_t cursor;       /* byte offset, on a character boundary */
	size_t top;          /* first line shown */
	char *message;       /* the last check's message, or NULL */
	unsigned msg_line, msg_col; /* where it points (1-based; 0: nowhere) */
	unsigned edit_id;    /* the trace being edited (0: a new one) */
};

void tui_editor_init(struct tui_editor *e);
void tui_editor_fini(struct tui_editor *e);
/* Replaces the text; the cursor goes to cursor (clamped). 0 or -ENOMEM. */
int tui_editor_set(struct tui_editor *e, const char *text, size_t cursor);
/* Inserts UTF-8 (tabs and newlines kept, other control bytes dropped).
 * false when the script would pass TUI_EDITOR_MAX. */
bool tui_editor_insert(struct tui_editor *e, const char *text, size_t len);
/* Keys: TUI_KEY_UP/DOWN/LEFT/RIGHT/HOME/END of srcview.h, '\b' (backspace),
 * 0x7f (delete), '\n' (a new line, indented as the one above); any other
 * key from ' ' (or '\t') to U+10FFFF is a character typed, inserted. */
void tui_editor_key(struct tui_editor *e, unsigned key);
/* Moves top so the cursor's line is in a window of height lines. */
void tui_editor_scroll(struct tui_editor *e, size_t height);
/* The cursor's line and display column, 0-based. */
void tui_editor_cursor(const struct tui_editor *e, size_t *line, size_t *col);
size_t tui_editor_lines(const struct tui_editor *e);
/* Line i (0-based) without its newline: a pointer into text and a length. */
const char *tui_editor_line(const struct tui_editor *e, size_t i, size_t *len);
/* Sets (or with NULL clears) the message; line:col is parsed from its
 * beginning ("NAME:LINE:COL: ...") when present. */
void tui_editor_set_message(struct tui_editor *e, const char *msg);

#endif /* TUI_EDITOR_H */
