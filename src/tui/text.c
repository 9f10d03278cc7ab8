/* UTF-8 decoding, display widths and escaping for the panels' models (see
 * text.h). The models must not depend on the process locale (the view sets
 * it, tests do not), so decoding and widths are done here, with a compact
 * table of the wide ranges rather than wcwidth(). */
#include <stdlib.h>
#include <string.h>

#include <gs/render.h>

#include "base.h"
#include "text.h"

/* Validity is the renderers' rule (gs_render_utf8_len), so the panels
 * and the printed events agree on what a character is. */
size_t tui_utf8_decode(const char *str, size_t len, uint32_t *cp)
{
	static const uint8_t lead_bits[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	const uint8_t *s = (const uint8_t *)str;
	size_t n = len ? gs_render_utf8_len(s, len) : 0;
	uint32_t c;

	if (!n)
		return 0;
	c = s[0] & lead_bits[n];
	for (size_t i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3f);
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

struct cp_key {
	const struct range *r;
	uint32_t cp;
};

static bool range_below(const void *ctx, size_t i)
{
	const struct cp_key *k = ctx;

	return k->r[i].hi < k->cp;
}

/* The ranges are sorted and apart: the first ending at or after cp is the
 * only one that may hold it. */
static bool in_ranges(const struct range *r, size_t n, uint32_t cp)
{
	struct cp_key k = { r, cp };
	size_t at = base_lower_bound(0, n, &k, range_below);

	return at < n && r[at].lo <= cp;
}

unsigned tui_char_width(uint32_t cp)
{
	if (cp < 0x300)
		return 1;
	if (in_ranges(zero, BASE_ARRAY_SIZE(zero), cp))
		return 0;
	return in_ranges(wide, BASE_ARRAY_SIZE(wide), cp) ? 2 : 1;
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

/* The renderers' escaping (gs_render_escaped: the one place that decides
 * what of the target's text reaches a terminal), tab by tab. */
char *tui_escape(const char *s, size_t len, bool tab8)
{
	char *out = NULL;
	size_t cap = 0, o = 0, col = 0;

	for (;;) {
		const char *tab = tab8 ? memchr(s, '\t', len) : NULL;
		size_t piece = tab ? (size_t)(tab - s) : len;
		size_t need = gs_render_escaped(s, piece, 0, NULL, 0);

		/* the piece, a tab's 8 spaces at most, the NUL */
		if (base_grow((void **)&out, &cap, o + need + 9, 1)) {
			free(out);
			return NULL;
		}
		gs_render_escaped(s, piece, 0, out + o, need + 1);
		col += tui_text_width(out + o, need);
		o += need;
		if (!tab)
			break;
		do
			out[o++] = ' ';
		while (++col % 8);
		s += piece + 1;
		len -= piece + 1;
	}
	out[o] = '\0';
	return out;
}
