/* UTF-8 decoding, display widths and escaping for the panels' models (see
 * text.h). The models must not depend on the process locale (the view sets
 * it, tests do not), so decoding and widths are done here, with a compact
 * table of the wide ranges rather than wcwidth(). */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "text.h"

size_t tui_utf8_decode(const char *str, size_t len, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n;
	uint32_t c;

	if (!len)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past Unicode are not
	 * characters: a terminal may read them in ways we cannot predict. */
	if (c < min[n] || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

struct range {
	uint32_t lo, hi;
};

/* East Asian Wide and Fullwidth, and the emoji blocks terminals draw in
 * two columns; sorted. */
static const struct range wide[] = {
	{ 0x1100, 0x115f }, { 0x2e80, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
	{ 0xfe30, 0xfe4f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
	{ 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd },
};

/* Combining marks (drawn over the character before): the common blocks. */
static const struct range zero[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
	{ 0x064b, 0x065f }, { 0x200b, 0x200f }, { 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe2f },
};

static bool in_ranges(const struct range *r, size_t n, uint32_t cp)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp < r[mid].lo)
			hi = mid;
		else if (cp > r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

unsigned tui_char_width(uint32_t cp)
{
	if (cp < 0x300)
		return 1;
	if (in_ranges(zero, sizeof(zero) / sizeof(zero[0]), cp))
		return 0;
	return in_ranges(wide, sizeof(wide) / sizeof(wide[0]), cp) ? 2 : 1;
}

size_t tui_text_width(const char *s, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = tui_utf8_decode(s + i, len - i, &cp);

		w += n ? tui_char_width(cp) : 1;
		i += n ? n : 1;
	}
	return w;
}

size_t tui_utf8_prev(const char *s, size_t pos)
{
	size_t p = pos;

	if (!pos)
		return 0;
	/* At most three continuation bytes back; a stray one is a character
	 * of its own (the editors only hold valid text, but stay safe). */
	while (p > 0 && pos - p < 4 && ((unsigned char)s[p - 1] & 0xc0) == 0x80)
		p--;
	if (p > 0 && pos - p < 4) {
		uint32_t cp;

		if (tui_utf8_decode(s + p - 1, pos - p + 1, &cp) == pos - p + 1)
			return p - 1;
	}
	return pos - 1;
}

size_t tui_utf8_next(const char *s, size_t len, size_t pos)
{
	uint32_t cp;
	size_t n = tui_utf8_decode(s + pos, len - pos, &cp);

	return pos + (n ? n : 1);
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
}

/* Room for one more piece of at most 8 bytes, and the NUL. */
static int reserve(char **out, size_t *cap, size_t used)
{
	return base_grow((void **)out, cap, used + 9, 1);
}

char *tui_escape(const char *s, size_t len, bool tab8)
{
	static const char hex[] = "0123456789abcdef";
	char *out = NULL;
	size_t cap = 0, o = 0, col = 0;

	if (reserve(&out, &cap, 0))
		return NULL;
	for (size_t i = 0; i < len;) {
		uint32_t cp = 0;
		size_t n = tui_utf8_decode(s + i, len - i, &cp);

		if (reserve(&out, &cap, o)) {
			free(out);
			return NULL;
		}
		if (tab8 && n && cp == '\t') {
			do
				out[o++] = ' ';
			while (++col % 8);
			i++;
			continue;
		}
		if (n && !is_control(cp)) {
			memcpy(out + o, s + i, n);
			o += n;
			col += tui_char_width(cp);
			i += n;
			continue;
		}
		/* A control character, whole (a C1 is two bytes), or one
		 * invalid byte: visible hex each. */
		for (size_t k = 0; k < (n ? n : 1); k++) {
			unsigned char b = (unsigned char)s[i + k];

			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[b >> 4];
			out[o++] = hex[b & 15];
			col += 4;
		}
		i += n ? n : 1;
	}
	out[o] = '\0';
	return out;
}
