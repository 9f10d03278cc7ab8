/* The source panel's model: the text of one file as lines, which of them
 * have code and which carry a trace, a cursor and the window over it, the
 * movement keys (arrows, vim keys, pages, gg, G, NG) and search in the
 * file. No terminal. */
#ifndef TUI_SRCVIEW_H
#define TUI_SRCVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A trace's mark on a line. */
enum tui_mark {
	TUI_MARK_NONE = 0,
	TUI_MARK_ENABLED = 1,
	TUI_MARK_DISABLED = 2,
};

struct tui_srcview {
	char *path;          /* the file as DWARF names it */
	char *shown_path;    /* the file read (after srcpath), or NULL: not read */
	char *text;          /* its bytes, NUL-terminated (each line's end a NUL) */
	char **lines;        /* nlines pointers into text; control bytes escaped */
	size_t nlines;
	const uint32_t *code; /* lines with code, sorted (borrowed) */
	size_t ncode;
	uint8_t *marks;      /* nlines enum tui_mark */
	size_t cursor;       /* 0-based line */
	size_t top;          /* first line in the window */
	size_t height;       /* lines in the window (set by the view) */
	unsigned count;      /* a number typed before G, j, k (0: none) */
	bool pending_g;      /* 'g' typed, waiting for the second */
	char *last_search;
};

void tui_srcview_init(struct tui_srcview *v);
void tui_srcview_fini(struct tui_srcview *v);
/* Shows the file whose DWARF path is path, read from shown_path (len
 * bytes of text; a file larger than 64 MiB is refused with -EFBIG; NUL
 * bytes and control bytes other than tab are shown escaped). The cursor
 * goes to line 1. 0 or -errno. */
int tui_srcview_load(struct tui_srcview *v, const char *path, const char *shown_path,
		     const char *text, size_t len);
/* Shows path as absent (no text: the view says where it looked). */
void tui_srcview_absent(struct tui_srcview *v, const char *path);
void tui_srcview_set_code(struct tui_srcview *v, const uint32_t *lines, size_t n);
bool tui_srcview_has_code(const struct tui_srcview *v, size_t line0);
/* Marks: every line cleared, then set one by one (1-based lines; out of
 * range ignored). */
void tui_srcview_clear_marks(struct tui_srcview *v);
void tui_srcview_mark(struct tui_srcview *v, uint32_t line, enum tui_mark m);
void tui_srcview_set_height(struct tui_srcview *v, size_t height);

/* A key of the panel: 'j' 'k' 'h'... as the characters, and these for the
 * others. Digits build a count; "gg", "G", "NG" go to the first, last, N-th
 * line; 'n'/'N' repeat the last search forward/backward. true when the key
 * was the panel's (the view redraws), false when not (then a pending count
 * or 'g' is forgotten). The panel's: j k Down Up (N lines), Ctrl-D Ctrl-U
 * (half a page), Ctrl-F Ctrl-B PgDn PgUp (N pages), gg Home, G End, NG,
 * Ngg, H M L, n N, digits; not h l Left Right (no column to move). The
 * window keeps 3 lines between the cursor and its edges where the file
 * allows; a jump out of the window centres its target. */
enum {
	TUI_KEY_UP = 0x110000, TUI_KEY_DOWN, TUI_KEY_PGUP, TUI_KEY_PGDN,
	TUI_KEY_HOME, TUI_KEY_END, TUI_KEY_LEFT, TUI_KEY_RIGHT,
};
bool tui_srcview_key(struct tui_srcview *v, uint32_t key);
void tui_srcview_goto(struct tui_srcview *v, size_t line1); /* 1-based, clamped */
/* Searches needle (plain text) from the line after the cursor (before it
 * when backward), wrapping around; true and the cursor there when found.
 * An empty needle repeats the last search. */
bool tui_srcview_search(struct tui_srcview *v, const char *needle, bool backward);
/* The identifier (C/C++/Rust: letters, digits, '_', "::") under the cursor
 * at byte column col of the cursor line, or at the line's first identifier
 * followed by '(' when col is past the end: malloc'd, or NULL. col counts
 * bytes of lines[cursor] as shown (tabs expanded, escapes in). */
char *tui_srcview_word_at(const struct tui_srcview *v, size_t col);

#endif /* TUI_SRCVIEW_H */
