/* The traces of the interactive mode: the script editor's text added or
 * applied to the live session (its message shown in the editor when it
 * does not load), a script file's traces added, and the time from Enter to
 * each new trace's first event. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/live.h>
#include <gs/modfile.h>
#include <gs/runtime.h>
#include <gs/script.h>
#include <gs/sources.h>

#include "base.h"
#include "app.h"

/* The first event of a trace just added or edited: its time from Enter. */
void tui_app_note_event(struct tui_app *a, uint32_t id, int64_t now)
{
	for (size_t i = 0; i < a->nadds && i < TUI_ADDS_MAX; i++) {
		struct tui_add *d = &a->adds[i];

		if (d->id == id && d->first_ms < 0) {
			d->first_ms = (double)(now - d->enter_ns) / 1e6;
			a->adds_pending--;
		}
	}
}

static void note_add(struct tui_app *a, uint32_t id, int64_t enter_ns)
{
	struct tui_add *d = &a->adds[a->nadds++ % TUI_ADDS_MAX];

	if (a->nadds > TUI_ADDS_MAX && d->first_ms < 0)
		a->adds_pending--;
	*d = (struct tui_add){ id, enter_ns, -1 };
	a->adds_pending++;
}

double tui_app_first_event_ms(const struct tui_app *a, uint32_t id)
{
	double ms = -1;

	for (size_t i = 0; i < a->nadds && i < TUI_ADDS_MAX; i++)
		if (a->adds[i].id == id)
			ms = a->adds[i].first_ms;
	return ms;
}

void tui_app_edit(struct tui_app *a, const char *text, size_t cursor, uint32_t edit_id)
{
	tui_editor_set(&a->editor, text, cursor);
	tui_editor_set_message(&a->editor, NULL);
	a->editor.edit_id = edit_id;
	a->overlay = TUI_OVERLAY_EDITOR;
	a->dirty = true;
}

static void show_report(struct tui_app *a)
{
	const char *report = gs_live_report(a->live);

	if (report && report[0])
		tui_app_answer_text(a, TUI_LINE_ERROR, report, strlen(report));
}

void tui_app_submit(struct tui_app *a)
{
	struct gs_error err = { 0 };
	uint32_t id = a->editor.edit_id;
	int64_t enter = base_now_ns();
	size_t n = 0;
	int rc;

	if (id)
		rc = gs_live_edit(a->live, id, a->editor.text, a->editor.len, &err);
	else
		rc = gs_live_add(a->live, a->editor.text, a->editor.len, "trace", false, &id, 1,
				 &n, &err);
	if (rc) {
		tui_editor_set_message(&a->editor, err.msg);
		show_report(a);
		a->dirty = true;
		return;
	}
	a->overlay = TUI_OVERLAY_NONE;
	note_add(a, id, enter);
	if (a->editor.edit_id)
		tui_app_notice(a, "trace #%u changed", id);
	else
		tui_app_notice(a, "trace #%u attached%s", id, n > 1 ? " (and the others)" : "");
	tui_app_mark_traces(a);
}

int tui_app_source_file(struct tui_app *a, const char *path)
{
	struct gs_error err = { 0 };
	char *text = NULL;
	size_t len = 0, n = 0;
	int rc = tui_read_file(path, &text, &len);

	if (rc) {
		tui_app_answer(a, TUI_LINE_ERROR, "source %s: %s", path, strerror(-rc));
		return rc;
	}
	rc = gs_live_add(a->live, text, len, path, false, NULL, 0, &n, &err);
	free(text);
	if (rc) {
		tui_app_answer(a, TUI_LINE_ERROR, "%s", err.msg);
		show_report(a);
		return rc;
	}
	tui_app_answer(a, TUI_LINE_MESSAGE, "%zu trace%s added from %s", n, n == 1 ? "" : "s",
		       path);
	tui_app_mark_traces(a);
	return 0;
}

