/* The identifier under the source cursor (srcview.h): C, C++ and Rust
 * names with "::" paths, or, when the cursor is past the line's end, the
 * line's first name called there (the function a line defines or calls),
 * keywords that take parentheses excepted. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "srcview.h"

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* s[i] is part of a name: an identifier character or a colon of "::". */
static bool name_part(const char *s, size_t len, size_t i)
{
	if (ident_char(s[i]))
		return true;
	return s[i] == ':' && ((i + 1 < len && s[i + 1] == ':') || (i > 0 && s[i - 1] == ':'));
}

/* The name around s[at], its colons at either end trimmed: malloc'd, or
 * NULL when there is none (or it is a number). */
static char *name_around(const char *s, size_t len, size_t at)
{
	size_t b = at, e = at;

	if (at >= len || !name_part(s, len, at))
		return NULL;
	while (b > 0 && name_part(s, len, b - 1))
		b--;
	while (e < len && name_part(s, len, e))
		e++;
	while (b < e && s[b] == ':')
		b++;
	while (e > b && s[e - 1] == ':')
		e--;
	if (b == e || (s[b] >= '0' && s[b] <= '9'))
		return NULL;
	return strndup(s + b, e - b);
}

static bool keyword(const char *name)
{
	static const char *const kw[] = { "if", "while", "for", "switch", "return", "sizeof",
					  "match", "catch", "defined", "alignof", "typeof" };

	for (size_t i = 0; i < BASE_ARRAY_SIZE(kw); i++)
		if (!strcmp(name, kw[i]))
			return true;
	return false;
}

/* The first name of s followed by '(' (spaces between allowed). */
static char *first_call(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t e = i, k;
		char *name;

		if (!name_part(s, len, i)) {
			i++;
			continue;
		}
		while (e < len && name_part(s, len, e))
			e++;
		for (k = e; k < len && s[k] == ' '; k++)
			;
		if (k < len && s[k] == '(') {
			name = name_around(s, len, i);
			if (!name || !keyword(name))
				return name;
			free(name);
		}
		i = e;
	}
	return NULL;
}

char *tui_srcview_word_at(const struct tui_srcview *v, size_t col)
{
	const char *s;
	size_t len;

	if (v->cursor >= v->nlines)
		return NULL;
	s = v->lines[v->cursor];
	len = strlen(s);
	return col >= len ? first_call(s, len) : name_around(s, len, col);
}
