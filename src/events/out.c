/* The text sink every renderer of src/events writes through (snprintf-like:
 * it counts all, stores what fits), numbers in decimal, hex and shortest
 * round-trip floats, and the one escaper of text that comes from the
 * target, so no byte of a target's memory or DWARF reaches a terminal raw. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "ev_int.h"

/* Room for need bytes and a NUL in a growing sink (256 bytes at first,
 * then doubling); false without memory. */
static bool grow(struct ev_out *o, size_t need)
{
	size_t want = !o->size && need + 1 < 256 ? 256 : need + 1;

	return base_grow((void **)&o->buf, &o->size, want, 1) == 0;
}

void ev_put(struct ev_out *o, const char *s, size_t n)
{
	if (o->grow && o->len + n + 1 > o->size)
		grow(o, o->len + n);
	if (o->len + 1 < o->size) {
		size_t room = o->size - 1 - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

void ev_put_str(struct ev_out *o, const char *s)
{
	ev_put(o, s, strlen(s));
}

void ev_put_char(struct ev_out *o, char c)
{
	ev_put(o, &c, 1);
}

size_t ev_done(struct ev_out *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len;
}

void ev_put_udec(struct ev_out *o, uint64_t v)
{
	char t[20];
	size_t i = sizeof(t);

	do
		t[--i] = (char)('0' + v % 10);
	while (v /= 10);
	ev_put(o, t + i, sizeof(t) - i);
}

void ev_put_sdec(struct ev_out *o, int64_t v)
{
	if (v < 0) {
		ev_put_char(o, '-');
		ev_put_udec(o, -(uint64_t)v);
	} else {
		ev_put_udec(o, (uint64_t)v);
	}
}

void ev_put_hex(struct ev_out *o, uint64_t v, bool upper, size_t digits)
{
	const char *xd = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char t[16];
	size_t i = sizeof(t);

	do
		t[--i] = xd[v & 15];
	while ((v >>= 4) || sizeof(t) - i < digits);
	ev_put(o, t + i, sizeof(t) - i);
}

void ev_put_0x(struct ev_out *o, uint64_t v)
{
	ev_put(o, "0x", 2);
	ev_put_hex(o, v, false, 1);
}

void ev_put_float(struct ev_out *o, double v, bool is_float)
{
	char t[40];
	int len = 0;

	if (isnan(v)) {
		ev_put_str(o, signbit(v) ? "-nan" : "nan");
		return;
	}
	/* The fewest digits that read back as the same value: 0.1, not
	 * 0.10000000000000001 (the reader can always get the exact value). */
	for (int prec = 1; prec <= 17; prec++) {
		len = snprintf(t, sizeof(t), "%.*g", prec, v);
		if (is_float ? (float)strtod(t, NULL) == (float)v : strtod(t, NULL) == v)
			break;
	}
	ev_put(o, t, (size_t)len);
}

/* ---- text from the target ------------------------------------------------------ */

size_t gs_render_utf8_len(const uint8_t *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void put_x(struct ev_out *o, uint8_t c)
{
	ev_put(o, "\\x", 2);
	ev_put_hex(o, c, false, 2);
}

void ev_put_text(struct ev_out *o, const uint8_t *s, size_t n, char quote, unsigned flags)
{
	static const char esc[256] = { ['\n'] = 'n', ['\t'] = 't', ['\r'] = 'r', ['\\'] = '\\' };

	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		size_t len;

		if (c == '\n' && (flags & GS_RENDER_KEEP_NEWLINES)) {
			ev_put_char(o, '\n');
			i++;
		} else if (quote && (c == (uint8_t)quote || esc[c])) {
			ev_put_char(o, '\\');
			ev_put_char(o, esc[c] ? esc[c] : quote);
			i++;
		} else if (c < 0x20 || c == 0x7f || (len = gs_render_utf8_len(s + i, n - i)) == 0) {
			put_x(o, c);
			i++;
		} else if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) { /* C1 */
			put_x(o, c);
			put_x(o, s[i + 1]);
			i += 2;
		} else {
			ev_put(o, (const char *)s + i, len);
			i += len;
		}
	}
}

size_t gs_render_escaped(const char *s, size_t len, unsigned flags, char *buf, size_t size)
{
	struct ev_out o = { buf, size, 0 };

	ev_put_text(&o, (const uint8_t *)s, len, 0, flags);
	return ev_done(&o);
}

void gs_render_fputs(FILE *f, const char *s, unsigned flags)
{
	enum { CHUNK = 128 };
	char small[4 * CHUNK + 1]; /* each byte escapes to at most 4 */
	size_t len = strlen(s);

	while (len) {
		size_t chunk = len < CHUNK ? len : CHUNK, n;

		/* A UTF-8 sequence is not cut between two chunks. */
		for (int back = 0; back < 3 && chunk < len && ((uint8_t)s[chunk] & 0xc0) == 0x80;
		     back++)
			chunk--;
		n = gs_render_escaped(s, chunk, flags, small, sizeof(small));
		fwrite(small, 1, n, f);
		s += chunk;
		len -= chunk;
	}
}
