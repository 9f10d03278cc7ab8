/* The one reader of print format strings (gs/format.h): the script parser,
 * the code generator and the renderer all walk a format with gs_fmt_next,
 * so what one accepts the others understand the same way. */
#include <string.h>

#include <gs/format.h>

#include "base.h"

static int digit(char c, unsigned base)
{
	int d = base_hex_digit(c);

	return d >= 0 && d < (int)base ? d : -1;
}

static bool ident_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/* The length after '.', s[0, n): .N, .*, .name$ */
static const char *parse_length(const char *fmt, size_t at, size_t n, struct gs_fmt_item *it)
{
	const char *s = fmt + at;
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (n == 1 && s[0] == '*') {
		it->len_kind = GS_FMT_LEN_ARG;
		return NULL;
	}
	if (n >= 2 && s[n - 1] == '$') {
		for (i = 0; i < n - 1; i++)
			if (!(i ? ident_char(s[i]) : ident_start(s[i])))
				return "the length .name$ takes the name of a let variable";
		it->len_kind = GS_FMT_LEN_VAR;
		it->name_off = at;
		it->name_len = n - 1;
		return NULL;
	}
	if (n > 2 && s[0] == '0' && strchr("xob", s[1])) {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		i = 2;
	}
	if (i == n)
		return "the length after '.' is a number (.16, .0x10), '*' or a let variable "
		       "(.len$)";
	for (; i < n; i++) {
		int d = digit(s[i], base);

		if (d < 0)
			return "the length after '.' is a number (.16, .0x10), '*' or a let "
			       "variable (.len$)";
		v = v * base + (unsigned)d;
		if (v > GS_FMT_LEN_MAX)
			break;
	}
	if (v == 0 || v > GS_FMT_LEN_MAX)
		return "the length after '.' must be 1..65535 bytes";
	it->len_kind = GS_FMT_LEN_CONST;
	it->length = (uint32_t)v;
	return NULL;
}

/* The spec between "{" and "}": s[0, n). */
static const char *parse_spec(const char *fmt, size_t at, size_t n, struct gs_fmt_item *it)
{
	const char *s = fmt + at;
	const char *dot;

	if (n == 0)
		return NULL;
	if (s[0] != ':' || n < 2 || !strchr("xXps", s[1]))
		return "a placeholder is {}, {:x}, {:X}, {:p} or {:s}, with a length .N, .* or "
		       ".name$ after x, X or s";
	it->conv = s[1];
	if (n == 2)
		return NULL;
	dot = s + 2;
	if (*dot != '.' || it->conv == 'p')
		return "a placeholder is {}, {:x}, {:X}, {:p} or {:s}, with a length .N, .* or "
		       ".name$ after x, X or s";
	return parse_length(fmt, at + 3, n - 3, it);
}

bool gs_fmt_next(const char *fmt, size_t *pos, struct gs_fmt_item *it)
{
	size_t i = *pos, close;
	const char *why;

	memset(it, 0, sizeof(*it));
	it->off = i;
	if (!fmt[i])
		return false;
	if ((fmt[i] == '{' || fmt[i] == '}') && fmt[i + 1] == fmt[i]) {
		it->kind = GS_FMT_TEXT;
		it->len = 1;
		*pos = i + 2;
		return true;
	}
	if (fmt[i] == '}') {
		it->kind = GS_FMT_BAD_CLOSE;
		it->len = 1;
		it->why = "unmatched '}' in the format string: write '}}' for a literal brace";
		*pos = i + 1;
		return true;
	}
	if (fmt[i] != '{') {
		it->kind = GS_FMT_TEXT;
		it->len = strcspn(fmt + i, "{}");
		*pos = i + it->len;
		return true;
	}
	close = i + 1 + strcspn(fmt + i + 1, "{}");
	if (fmt[close] != '}') {
		it->kind = GS_FMT_UNCLOSED;
		it->len = strlen(fmt + i);
		it->why = "unclosed '{' in the format string: write {} for a value or '{{' for a "
			  "literal brace";
		*pos = i + it->len;
		return true;
	}
	it->len = close + 1 - i;
	*pos = close + 1;
	why = parse_spec(fmt, i + 1, close - i - 1, it);
	it->kind = why ? GS_FMT_BAD_SPEC : GS_FMT_VALUE;
	it->why = why;
	return true;
}
