/* What the interactive mode tells its user besides the events: a one-off
 * notice on the status line, and answers in the command panel. The loop,
 * the keys, the commands and the traces all say things through these, so
 * they sit below every one of them. */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"

void tui_app_notice(struct tui_app *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->notice, sizeof(a->notice), fmt, ap);
	va_end(ap);
	a->dirty = true;
}

void tui_app_answer_text(struct tui_app *a, enum tui_line_kind kind, const char *text,
			 size_t len)
{
	if (tui_outbuf_add(a->answers, 0, kind, text, len))
		tui_app_notice(a, "out of memory showing an answer");
	tui_outbuf_follow(a->answers, true);
	a->dirty = true;
}

void tui_app_answer(struct tui_app *a, enum tui_line_kind kind, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	tui_app_answer_text(a, kind, s, (size_t)n);
	free(s);
}
