/* gstrace's command line, its one form of refusal: the line that names the
 * flag or value and the fix, and -EINVAL (exit 2). Both the parser
 * (options.c) and the rules (options_rules.c) refuse so; it sits below
 * both, so the rules need nothing of the parser that calls them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "options.h"

int cli_usage_error(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (size) {
		va_start(ap, fmt);
		vsnprintf(msg, size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}
