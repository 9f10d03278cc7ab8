/* The interactive mode's state, shared by its files: the live session, the
 * panels' models, what is on screen and what the loop measures. app.c runs
 * the loop, keys.c routes keys, cmdrun.c runs commands, appsrc.c and
 * apptrace.c hold the sources and the traces, appmsg.c tells the user,
 * view.c draws. */
#ifndef TUI_APP_H
#define TUI_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <gs/internal/tui.h>
#include <gs/live.h>
#include <gs/print.h>
#include <gs/sources.h>

#include "editor.h"
#include "lineedit.h"
#include "outbuf.h"
#include "srcpath.h"
#include "srcview.h"

enum tui_focus {
	TUI_FOCUS_SOURCE,
	TUI_FOCUS_OUTPUT,
	TUI_FOCUS_COMMAND,
	TUI_FOCUS_COUNT,
};

/* What takes the keys above the panels, when anything does. */
enum tui_overlay {
	TUI_OVERLAY_NONE,
	TUI_OVERLAY_EDITOR, /* the script editor */
	TUI_OVERLAY_PICKER, /* `o`: the fuzzy file picker */
	TUI_OVERLAY_SEARCH, /* `/` in the source or output panel */
};

enum tui_layout {
	TUI_LAYOUT_STACKED, /* source above output */
	TUI_LAYOUT_SIDE,    /* source beside output */
	TUI_LAYOUT_COUNT,
};

#define TUI_PICKER_MAX 200
#define TUI_ADDS_MAX 32

/* A trace added or edited from the editor: Enter to its first event. */
struct tui_add {
	uint32_t id;
	int64_t enter_ns;
	double first_ms;   /* < 0: no event yet */
};

struct tui_app {
	const struct gs_tui_opts *opts;
	struct gs_live *live;
	struct gs_frames *frames;
	struct gs_printer *printer;
	FILE *render;          /* an event's text, rendered once */
	char *render_buf;
	size_t render_size;
	struct gs_sources *sources;
	struct tui_srcpath srcpath;

	struct tui_outbuf *out;      /* events */
	struct tui_outbuf *answers;  /* the command panel's answers */
	struct tui_srcview src;
	long src_file;               /* index in sources, or -1 */
	struct tui_lineedit cmd;
	struct tui_lineedit prompt;  /* the picker's and the searches' line */
	struct tui_editor editor;
	char completions[256];       /* the last completion's candidates, shown */

	enum tui_focus focus;
	enum tui_overlay overlay;
	enum tui_focus search_in;    /* the panel a search is for */
	enum tui_layout layout;
	bool zoom;                   /* the focused panel alone on screen */
	size_t out_height;           /* the output panel's lines, as last drawn */
	size_t picker_hits[TUI_PICKER_MAX];
	size_t npicker_hits, picker_sel;

	/* The loop's measures. */
	uint64_t events;             /* delivered */
	uint64_t unrendered;         /* delivered, counted, not rendered (load) */
	uint64_t lost;
	double rate;                 /* events/s over the last second */
	uint64_t rate_events;
	int64_t rate_since_ns;
	int64_t render_window_ns;    /* the 100 ms window rendering time counts in */
	int64_t render_spent_ns;
	uint64_t redraws;
	double redraw_rate;          /* redraws/s over the last second */
	uint64_t rate_redraws;
	struct tui_add adds[TUI_ADDS_MAX]; /* the newest, round robin */
	size_t nadds, adds_pending;
	int64_t last_int_ns;         /* the first Ctrl-C of two */
	bool target_ended;
	bool quit;
	bool dirty;                  /* something to draw */
	bool no_color;
	int status;                  /* the exit status */
	char notice[256];            /* the status line's one-off message */
	char fatal[GS_ERROR_MSG_MAX + 64]; /* what ended the mode, said after the screen
					     * closes: a gs_error's message and a prefix */
};

/* appmsg.c: a notice on the status line (it replaces the last one), an
 * answer in the command panel (formatted, or len bytes of text). */
void tui_app_notice(struct tui_app *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tui_app_answer(struct tui_app *a, enum tui_line_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tui_app_answer_text(struct tui_app *a, enum tui_line_kind kind, const char *text,
			 size_t len);
/* appsrc.c: reads a file whole (at most 64 MiB): 0, or -errno. */
int tui_read_file(const char *path, char **text, size_t *len);
/* The source files of every module of the process (or -t's module). */
void tui_app_load_sources(struct tui_app *a);
/* The file shown first: the executable's, one named main.* or with "main"
 * in its name if there is one; -1 when there are none. */
long tui_app_first_file(struct tui_app *a);
/* Opens file i of the sources in the source panel (its text through
 * srcpath), and marks its lines. */
void tui_app_open_file(struct tui_app *a, long i);
/* The trace marks of the shown file again (after any trace change). */
void tui_app_mark_traces(struct tui_app *a);
/* apptrace.c: an event of trace id came at now (the first after an add
 * or an edit is timed). */
void tui_app_note_event(struct tui_app *a, uint32_t id, int64_t now);
/* Opens the editor on text (a new trace when edit_id is 0), cursor at
 * cursor. */
void tui_app_edit(struct tui_app *a, const char *text, size_t cursor, uint32_t edit_id);
/* Adds or edits from the editor's text; closes it when that worked. */
void tui_app_submit(struct tui_app *a);
/* Adds the traces of a script file (`source FILE`). */
int tui_app_source_file(struct tui_app *a, const char *path);

/* Enter to first event of trace id's latest add or edit, in ms (< 0: no
 * event yet, or not added from the editor). */
double tui_app_first_event_ms(const struct tui_app *a, uint32_t id);

/* keys.c: one key (a wide character or a KEY_* code). */
void tui_keys_handle(struct tui_app *a, int key, bool is_wchar);

/* cmdrun.c: one command line. */
void tui_cmdrun(struct tui_app *a, const char *line);
/* The completion candidates for the command line (static or held by a). */
void tui_cmd_completion(struct tui_app *a);

/* view.c */
int tui_view_init(struct tui_app *a, char *msg, size_t size);
void tui_view_fini(void);
void tui_view_draw(struct tui_app *a);

#endif /* TUI_APP_H */
