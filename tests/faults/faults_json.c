/* A strict checker of one JSON text (RFC 8259): the faults suite asks it
 * of every line gstrace writes with --script-output json. */
#include <string.h>

#include "faults.h"

struct jp {
	const char *s, *end;
	int depth;
};

static void ws(struct jp *p)
{
	while (p->s < p->end && strchr(" \t\r\n", *p->s))
		p->s++;
}

static bool value(struct jp *p);

static bool lit(struct jp *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0)
		return false;
	p->s += n;
	return true;
}

static bool string(struct jp *p)
{
	if (p->s >= p->end || *p->s != '"')
		return false;
	for (p->s++; p->s < p->end; p->s++) {
		unsigned char c = (unsigned char)*p->s;

		if (c == '"') {
			p->s++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c != '\\')
			continue;
		if (++p->s >= p->end)
			return false;
		if (*p->s == 'u') {
			for (int i = 0; i < 4; i++)
				if (++p->s >= p->end || !strchr("0123456789abcdefABCDEF", *p->s))
					return false;
		} else if (!strchr("\"\\/bfnrt", *p->s)) {
			return false;
		}
	}
	return false;
}

static bool digits(struct jp *p)
{
	const char *start = p->s;

	while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
		p->s++;
	return p->s > start;
}

static bool number(struct jp *p)
{
	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s < p->end && *p->s == '0')
		p->s++;
	else if (!digits(p))
		return false;
	if (p->s < p->end && *p->s == '.' && (p->s++, !digits(p)))
		return false;
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (!digits(p))
			return false;
	}
	return true;
}

/* `[...]` or `{...}`: members are "key": value when obj. */
static bool composite(struct jp *p, bool obj)
{
	char close = obj ? '}' : ']';

	if (++p->depth > 64)
		return false;
	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		p->depth--;
		return true;
	}
	for (;;) {
		ws(p);
		if (obj) {
			if (!string(p))
				return false;
			ws(p);
			if (p->s >= p->end || *p->s++ != ':')
				return false;
		}
		if (!value(p))
			return false;
		ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			p->depth--;
			return true;
		}
		return false;
	}
}

static bool value(struct jp *p)
{
	ws(p);
	if (p->s >= p->end)
		return false;
	switch (*p->s) {
	case '{':
		return composite(p, true);
	case '[':
		return composite(p, false);
	case '"':
		return string(p);
	case 't':
		return lit(p, "true");
	case 'f':
		return lit(p, "false");
	case 'n':
		return lit(p, "null");
	default:
		return number(p);
	}
}

bool faults_json_valid(const char *s, size_t n)
{
	struct jp p = { s, s + n, 0 };

	if (!value(&p))
		return false;
	ws(&p);
	return p.s == p.end;
}
