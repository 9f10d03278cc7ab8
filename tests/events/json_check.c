/* The strict JSON checker (json_check.h): a recursive descent over RFC
 * 8259's grammar. Written here rather than borrowed from the printer
 * (json.c) or from Python's json module, which accepts NaN and Infinity
 * and decodes bytes before it parses: a checker that shares the printer's
 * UTF-8 rule cannot catch a mistake in it. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "json_check.h"

/* Deeper than the printer ever nests (JSON_MAX_DEPTH, 32), shallow enough
 * for the checker's own stack. */
#define MAX_DEPTH 512

struct cursor {
	const unsigned char *p, *end, *start;
	const char *why;
	const unsigned char *at;
};

static bool fail(struct cursor *c, const char *why)
{
	if (!c->why) {
		c->why = why;
		c->at = c->p;
	}
	return false;
}

static bool more(const struct cursor *c)
{
	return c->p < c->end;
}

static bool peek(const struct cursor *c, unsigned char ch)
{
	return more(c) && *c->p == ch;
}

static void skip_space(struct cursor *c)
{
	while (more(c) && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static bool literal(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return fail(c, "not a JSON value");
	c->p += n;
	return true;
}

static bool is_digit(const struct cursor *c)
{
	return more(c) && *c->p >= '0' && *c->p <= '9';
}

static bool digits(struct cursor *c)
{
	if (!is_digit(c))
		return fail(c, "a digit expected");
	while (is_digit(c))
		c->p++;
	return true;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number(struct cursor *c)
{
	if (peek(c, '-'))
		c->p++;
	if (peek(c, '0')) {
		c->p++;
		if (is_digit(c))
			return fail(c, "a number with a leading zero");
	} else if (!digits(c)) {
		return false;
	}
	if (peek(c, '.')) {
		c->p++;
		if (!digits(c))
			return false;
	}
	if (peek(c, 'e') || peek(c, 'E')) {
		c->p++;
		if (peek(c, '+') || peek(c, '-'))
			c->p++;
		if (!digits(c))
			return false;
	}
	return true;
}

static int hex_digit(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* The four hex digits after "\u" into *unit. */
static bool hex4(struct cursor *c, unsigned *unit)
{
	*unit = 0;
	for (int i = 0; i < 4; i++) {
		int d = more(c) ? hex_digit(*c->p) : -1;

		if (d < 0)
			return fail(c, "\\u without four hex digits");
		*unit = *unit << 4 | (unsigned)d;
		c->p++;
	}
	return true;
}

/* After the backslash: one escape, a surrogate pair whole. */
static bool escape(struct cursor *c)
{
	unsigned unit, low;

	if (!more(c))
		return fail(c, "a string ends in a backslash");
	if (*c->p && strchr("\"\\/bfnrt", *c->p)) {
		c->p++;
		return true;
	}
	if (*c->p != 'u')
		return fail(c, "an unknown escape");
	c->p++;
	if (!hex4(c, &unit))
		return false;
	if (unit >= 0xdc00 && unit <= 0xdfff)
		return fail(c, "a lone low surrogate");
	if (unit < 0xd800 || unit > 0xdbff)
		return true;
	if ((size_t)(c->end - c->p) < 2 || c->p[0] != '\\' || c->p[1] != 'u')
		return fail(c, "a high surrogate without its low one");
	c->p += 2;
	if (!hex4(c, &low))
		return false;
	if (low < 0xdc00 || low > 0xdfff)
		return fail(c, "a high surrogate without its low one");
	return true;
}

/* One UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing
 * past U+10FFFF). */
static bool utf8(struct cursor *c)
{
	unsigned char b = *c->p;
	size_t n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 :
		   b >= 0xf0 && b <= 0xf4 ? 4 : 0;
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */

	if (!n || (size_t)(c->end - c->p) < n)
		return fail(c, "a byte that is not UTF-8");
	if (b == 0xe0)
		lo = 0xa0;
	else if (b == 0xed)
		hi = 0x9f;
	else if (b == 0xf0)
		lo = 0x90;
	else if (b == 0xf4)
		hi = 0x8f;
	for (size_t i = 1; i < n; i++) {
		unsigned char x = c->p[i];

		if (i == 1 ? x < lo || x > hi : x < 0x80 || x > 0xbf)
			return fail(c, "a byte that is not UTF-8");
	}
	c->p += n;
	return true;
}

static bool string(struct cursor *c)
{
	c->p++; /* the opening quote */
	while (more(c)) {
		if (*c->p == '"') {
			c->p++;
			return true;
		}
		if (*c->p < 0x20)
			return fail(c, "a control character in a string");
		if (*c->p == '\\') {
			c->p++;
			if (!escape(c))
				return false;
		} else if (!utf8(c)) {
			return false;
		}
	}
	return fail(c, "an unterminated string");
}

static bool value(struct cursor *c, unsigned depth);

/* [ v, v ] or { "k": v, "k": v } (c at the bracket). */
static bool container(struct cursor *c, unsigned depth, bool object)
{
	unsigned char close = object ? '}' : ']';

	if (depth >= MAX_DEPTH)
		return fail(c, "nested too deep");
	c->p++;
	skip_space(c);
	if (peek(c, close)) {
		c->p++;
		return true;
	}
	for (;;) {
		if (object) {
			skip_space(c);
			if (!peek(c, '"'))
				return fail(c, "a key expected");
			if (!string(c))
				return false;
			skip_space(c);
			if (!peek(c, ':'))
				return fail(c, "':' expected");
			c->p++;
		}
		if (!value(c, depth + 1))
			return false;
		if (peek(c, ',')) {
			c->p++;
			continue;
		}
		if (peek(c, close)) {
			c->p++;
			return true;
		}
		return fail(c, object ? "',' or '}' expected" : "',' or ']' expected");
	}
}

/* A value with the whitespace around it. */
static bool value(struct cursor *c, unsigned depth)
{
	bool ok;

	skip_space(c);
	if (!more(c))
		return fail(c, "a value expected");
	switch (*c->p) {
	case '{':
		ok = container(c, depth, true);
		break;
	case '[':
		ok = container(c, depth, false);
		break;
	case '"':
		ok = string(c);
		break;
	case 't':
		ok = literal(c, "true");
		break;
	case 'f':
		ok = literal(c, "false");
		break;
	case 'n':
		ok = literal(c, "null");
		break;
	default:
		ok = peek(c, '-') || is_digit(c) ? number(c) : fail(c, "not a JSON value");
		break;
	}
	skip_space(c);
	return ok;
}

const char *json_check(const char *s, size_t n, size_t *at)
{
	struct cursor c = { .p = (const unsigned char *)s, .end = (const unsigned char *)s + n,
			    .start = (const unsigned char *)s };

	if (value(&c, 0) && more(&c))
		fail(&c, "text after the value");
	if (c.why && at)
		*at = (size_t)(c.at - c.start);
	return c.why;
}
