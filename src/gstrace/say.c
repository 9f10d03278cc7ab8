/* Messages of the gstrace command on stderr, escaped like the output:
 * what the target named (paths, command names) never reaches the
 * terminal as a control sequence. */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <gs/render.h>

#include "say.h"

void cli_say(const char *prefix, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	fputs(prefix, stderr);
	gs_render_fputs(stderr, n >= 0 ? text : fmt, GS_RENDER_KEEP_NEWLINES);
	fputc('\n', stderr);
	if (n >= 0)
		free(text);
}
