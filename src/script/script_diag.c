/* The script's error messages: position (line:column, columns counting
 * characters), the source line and a caret under the column, for the
 * parser (sp_err, sp_nomem) and for the layers that find an error in a
 * parsed trace later (gs_script_trace_errorf, gs_script_expr_errorf).
 * Every file of the parser reports through here, the lexer and the target
 * grammar included; it needs nothing of them, so they need nothing of the
 * parser's top level that calls them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "script_int.h"

/* Columns count characters: UTF-8 continuation bytes take none. */
static bool is_continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

void sp_locate_from(const char *src, size_t len, size_t off, size_t start, unsigned line,
		    unsigned *line_out, unsigned *col, size_t *line_start)
{
	unsigned c = 1;

	if (off > len)
		off = len;
	for (size_t i = start; i < off; i++) {
		if (src[i] == '\n') {
			line++;
			start = i + 1;
		}
	}
	for (size_t i = start; i < off; i++)
		c += !is_continuation((unsigned char)src[i]);
	*line_out = line;
	*col = c;
	*line_start = start;
}

static void locate(const char *src, size_t len, size_t off, unsigned *line, unsigned *col,
		   size_t *line_start)
{
	sp_locate_from(src, len, off, 0, 1, line, col, line_start);
}

/* The source line shown under a message is cut to this many bytes around
 * the column, so the message fits in a gs_error. */
#define SHOWN_LINE_MAX 100

static void format_diag(const char *name, const char *src, size_t len, size_t off,
			const char *what, struct gs_error *err, int code)
{
	char shown[SHOWN_LINE_MAX + 1], caret[SHOWN_LINE_MAX + 2], gutter[16];
	size_t start, end, from, n = 0, k = 0;
	unsigned line, col;

	if (off > len)
		off = len;
	locate(src, len, off, &line, &col, &start);
	end = start;
	while (end < len && src[end] != '\n')
		end++;
	if (end > start && src[end - 1] == '\r')
		end--;
	from = start;
	if (off - start > SHOWN_LINE_MAX - 20)
		from = off - (SHOWN_LINE_MAX - 20);
	while (from < off && is_continuation((unsigned char)src[from]))
		from++;
	for (size_t i = from; i < end && n < SHOWN_LINE_MAX; i++) {
		unsigned char c = (unsigned char)src[i];

		shown[n++] = c == '\t' || c >= 0x20 ? (char)c : '?';
		if (i < off && !is_continuation(c))
			caret[k++] = c == '\t' ? '\t' : ' ';
	}
	shown[n] = '\0';
	caret[k++] = '^';
	caret[k] = '\0';
	snprintf(gutter, sizeof(gutter), "%u", line);
	gs_errorf(err, code, "%s:%u:%u: %s\n %s | %s\n %*s | %s", name, line, col, what,
		  gutter, shown, (int)strlen(gutter), "", caret);
}

void sp_err(struct parser *p, size_t off, const char *fmt, ...)
{
	char what[GS_ERROR_MSG_MAX];
	va_list ap;

	if (p->code)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->code = -EINVAL;
	format_diag(p->name, p->src, p->len, off, what, p->err, p->code);
}

void sp_nomem(struct parser *p)
{
	if (p->code)
		return;
	p->code = -ENOMEM;
	gs_errorf(p->err, -ENOMEM, "%s: out of memory parsing the script", p->name);
}

void sp_pos_string(const struct parser *p, size_t off, char *buf, size_t size)
{
	unsigned line, col;
	size_t start;

	locate(p->src, p->len, off, &line, &col, &start);
	snprintf(buf, size, "%u:%u", line, col);
}

static int diag_at(const struct gs_script *s, size_t off, struct gs_error *err, int code,
		   const char *fmt, va_list ap)
{
	char what[GS_ERROR_MSG_MAX];

	vsnprintf(what, sizeof(what), fmt, ap);
	format_diag(s->name, s->source, s->source_len, off, what, err, code);
	return code;
}

int gs_script_trace_errorf(const struct gs_script *s, const struct gs_script_trace *t,
			   struct gs_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = diag_at(s, t->offset, err, code, fmt, ap);
	va_end(ap);
	return code;
}

int gs_script_expr_errorf(const struct gs_script *s, const struct gs_expr *e,
			  struct gs_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = diag_at(s, e ? e->pos : 0, err, code, fmt, ap);
	va_end(ap);
	return code;
}
