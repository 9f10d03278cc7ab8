/* The output panel's model: a bounded history of lines (events as the
 * pretty printer renders them, and messages), each tagged with its trace,
 * and the view over it: follow the newest, scroll back, pause, search, a
 * filter by trace. No terminal: the view draws what tui_outbuf_window()
 * gives. */
#ifndef TUI_OUTBUF_H
#define TUI_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a line is, for its colour. */
enum tui_line_kind {
	TUI_LINE_EVENT = 0,   /* a line of an event */
	TUI_LINE_HEADER = 1,  /* the first line of an event */
	TUI_LINE_MESSAGE = 2, /* a command's answer */
	TUI_LINE_ERROR = 3,   /* an error message */
};

struct tui_line {
	uint64_t seq;      /* 1, 2, ... in arrival order, never reused */
	uint32_t trace_id; /* 0: not an event's */
	enum tui_line_kind kind;
	char *text;        /* UTF-8 with every control byte escaped, no newline */
};

struct tui_outbuf;

/* max_lines: the history kept (the oldest line goes when one more comes);
 * 0: a default of 10,000. NULL when out of memory. */
struct tui_outbuf *tui_outbuf_new(size_t max_lines);
void tui_outbuf_free(struct tui_outbuf *o);
/* Adds text as one line per '\n'-separated piece (a final '\n' ends the
 * last one, it adds none). The first piece gets kind, the rest
 * TUI_LINE_EVENT when kind is TUI_LINE_HEADER, else kind. Bytes below 0x20
 * other than '\n' and 0x7f become "\xNN"; invalid UTF-8 bytes too. 0 or
 * -ENOMEM. */
int tui_outbuf_add(struct tui_outbuf *o, uint32_t trace_id, enum tui_line_kind kind,
		   const char *text, size_t len);
/* Lines dropped from the history so far (its bound). */
uint64_t tui_outbuf_dropped(const struct tui_outbuf *o);
/* Every line held, in order (not filtered): for `save output`. */
size_t tui_outbuf_count(const struct tui_outbuf *o);
const struct tui_line *tui_outbuf_line(const struct tui_outbuf *o, size_t i);
void tui_outbuf_clear(struct tui_outbuf *o);

/* Only the lines of trace_id (and messages) from now on; 0: every line.
 * The filter applies to the lines held too (they stay, hidden). With a
 * filter a draw may walk the history past hidden lines: O(history) at
 * worst; without one it costs O(height). */
void tui_outbuf_set_filter(struct tui_outbuf *o, uint32_t trace_id);
uint32_t tui_outbuf_filter(const struct tui_outbuf *o);

/* Following: the window ends at the newest line. Scrolling and search
 * stop following; tui_outbuf_follow(o, true) (End, G) starts again, and
 * ends a pause. */
void tui_outbuf_follow(struct tui_outbuf *o, bool follow);
bool tui_outbuf_following(const struct tui_outbuf *o);
/* Paused: the window stays on the lines it shows while new ones arrive
 * (they are kept, as far as the history holds them). */
void tui_outbuf_pause(struct tui_outbuf *o, bool pause);
bool tui_outbuf_paused(const struct tui_outbuf *o);
/* Moves the window by delta lines (negative: back) for a window of
 * height lines. */
void tui_outbuf_scroll(struct tui_outbuf *o, long delta, size_t height);
/* The lines a window of height lines shows now (filtered): up to height
 * pointers into out, the number written. They stay valid until the next
 * add, clear or free. */
size_t tui_outbuf_window(struct tui_outbuf *o, size_t height, const struct tui_line **out);
/* Searches for needle (plain text, case-sensitive) from the window's
 * current position, backwards (older) when backward, and moves the window
 * so the match is its top line... true when found (following stops),
 * false and the window unchanged when not. An empty needle repeats the
 * last search. */
bool tui_outbuf_search(struct tui_outbuf *o, const char *needle, bool backward, size_t height);
/* The seq of the line the last search found (0: none), for highlighting. */
uint64_t tui_outbuf_match(const struct tui_outbuf *o);

#endif /* TUI_OUTBUF_H */
