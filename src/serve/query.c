/* The query string of a request, as its raw bytes (MHD's URI log callback
 * hands them over before any unescaping): `&`-separated `key=value` pairs,
 * percent-encoded, `+` for a space. Only `seconds` and `debug` mean
 * anything here; pprof clients send keys of their own, which are ignored.
 * A known key given twice is refused rather than resolved (first or last
 * wins), so that no proxy in front can read one and the agent the other.
 * Messages go back to the client: they name the key and the rule, never
 * the bytes that were sent. Fuzzed (fuzz/fuzz_query.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "serve_int.h"

/* A key or value longer than this is no key we know nor a number we take:
 * decoding stops there (the URL is bounded anyway, see http.c). */
#define QUERY_ITEM_MAX 64

/* Decodes src[0..len) into dst (room QUERY_ITEM_MAX, *dlen set; bytes past
 * the room are checked but dropped, *dlen saying how many there were). -1
 * on a `%` not followed by two hex digits. */
static int decode(const char *src, size_t len, char *dst, size_t *dlen)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c == '%') {
			int hi, lo;

			if (len - i < 3)
				return -1;
			hi = base_hex_digit((unsigned char)src[i + 1]);
			lo = base_hex_digit((unsigned char)src[i + 2]);
			if (hi < 0 || lo < 0)
				return -1;
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		} else if (c == '+') {
			c = ' ';
		}
		if (n < QUERY_ITEM_MAX)
			dst[n] = (char)c;
		n++;
	}
	*dlen = n;
	return 0;
}

/* A whole decimal number, digits only (no sign, space or exponent), at
 * most max. -1 otherwise. */
static int64_t decimal(const char *s, size_t len, uint32_t max)
{
	uint64_t v = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max)
			return -1;
	}
	return (int64_t)v;
}

static bool key_is(const char *key, size_t klen, const char *name)
{
	return klen == strlen(name) && memcmp(key, name, klen) == 0;
}

__attribute__((format(printf, 3, 4)))
static int refuse(char *msg, size_t size, const char *fmt, ...)
{
	if (msg && size) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int srv_query_parse(const char *query, size_t len, uint32_t max_seconds, struct srv_query *out,
		    char *msg, size_t size)
{
	bool seen_debug = false;
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	if (msg && size)
		msg[0] = '\0';
	if (!query)
		len = 0;
	while (pos < len) {
		const char *item = query + pos, *amp = memchr(item, '&', len - pos);
		size_t ilen = amp ? (size_t)(amp - item) : len - pos;
		const char *eq = memchr(item, '=', ilen);
		size_t rawk = eq ? (size_t)(eq - item) : ilen;
		char key[QUERY_ITEM_MAX], val[QUERY_ITEM_MAX];
		size_t klen, vlen = 0;

		pos += ilen + 1;
		if (ilen == 0)
			continue; /* `a&&b`, a trailing `&` */
		if (decode(item, rawk, key, &klen) < 0 ||
		    (eq && decode(eq + 1, ilen - rawk - 1, val, &vlen) < 0))
			return refuse(msg, size, "the query string is malformed: a %% must be "
				      "followed by two hex digits");
		if (klen > QUERY_ITEM_MAX)
			continue; /* no key of ours is that long */
		if (key_is(key, klen, "seconds")) {
			int64_t v = vlen <= QUERY_ITEM_MAX ? decimal(val, vlen, max_seconds) : -1;

			if (out->has_seconds)
				return refuse(msg, size, "?seconds= is given twice: give it once");
			if (v < 1)
				return refuse(msg, size, "?seconds= takes a whole number of seconds "
					      "from 1 to %u", max_seconds);
			out->has_seconds = true;
			out->seconds = (uint32_t)v;
		} else if (key_is(key, klen, "debug")) {
			int64_t v = vlen <= QUERY_ITEM_MAX ? decimal(val, vlen, 999999999) : -1;

			if (seen_debug)
				return refuse(msg, size, "?debug= is given twice: give it once");
			if (v < 0)
				return refuse(msg, size, "?debug= takes a whole number (0: off)");
			seen_debug = true;
			out->debug = v != 0;
		}
	}
	return 0;
}
