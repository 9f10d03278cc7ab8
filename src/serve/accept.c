/* What a client says it accepts: `Accept` (does it want OpenMetrics rather
 * than the 0.0.4 text Prometheus reads by default?) and `Accept-Encoding`
 * (may the answer be gzipped?). Both are lists of `token;param=value`
 * elements weighed by `q` (RFC 9110, 12.4-12.5.3); they come from the
 * client and are read as hostile input (fuzz/fuzz_query.c feeds them too). */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "serve_int.h"

#define OWS(c) ((c) == ' ' || (c) == '\t')

/* One list element: its token (trimmed), and its q in thousandths (1000
 * when absent; 0 when malformed, so a bad element never selects). */
struct element {
	const char *tok;
	size_t toklen;
	unsigned q;
};

static size_t trim(const char **s, size_t len)
{
	while (len && OWS(**s)) {
		(*s)++;
		len--;
	}
	while (len && OWS((*s)[len - 1]))
		len--;
	return len;
}

/* A qvalue: "0", "0.5", "1", "1.000" (at most three decimals). */
static unsigned qvalue(const char *s, size_t len)
{
	unsigned v, scale = 100;

	if (len == 0 || (s[0] != '0' && s[0] != '1'))
		return 0;
	v = (unsigned)(s[0] - '0') * 1000;
	if (len == 1)
		return v;
	if (s[1] != '.' || len > 5)
		return 0;
	for (size_t i = 2; i < len; i++, scale /= 10) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v += (unsigned)(s[i] - '0') * scale;
	}
	return v > 1000 ? 0 : v;
}

static void element(const char *s, size_t len, struct element *e)
{
	const char *semi = memchr(s, ';', len);
	size_t rest;

	e->tok = s;
	e->toklen = trim(&e->tok, semi ? (size_t)(semi - s) : len);
	e->q = 1000;
	while (semi) {
		const char *p = semi + 1, *eq;
		size_t plen;

		rest = len - (size_t)(p - s);
		semi = memchr(p, ';', rest);
		plen = trim(&p, semi ? (size_t)(semi - p) : rest);
		eq = memchr(p, '=', plen);
		if (eq && trim(&p, (size_t)(eq - p)) == 1 && (*p == 'q' || *p == 'Q')) {
			const char *v = eq + 1;
			size_t vlen = plen - (size_t)(eq + 1 - p);

			vlen = trim(&v, vlen);
			e->q = qvalue(v, vlen);
		}
	}
}

static bool tok_is(const struct element *e, const char *name)
{
	return e->toklen == strlen(name) && strncasecmp(e->tok, name, e->toklen) == 0;
}

/* Calls each element of the list in turn; stops when fn returns true. */
static void each(const char *list, bool (*fn)(const struct element *e, void *arg), void *arg)
{
	size_t len = list ? strlen(list) : 0, pos = 0;

	while (pos < len) {
		const char *s = list + pos, *comma = memchr(s, ',', len - pos);
		size_t n = comma ? (size_t)(comma - s) : len - pos;
		struct element e;

		pos += n + 1;
		element(s, n, &e);
		if (e.toklen && fn(&e, arg))
			return;
	}
}

struct media {
	unsigned om, text;       /* best q of each, in thousandths */
	bool om_first;           /* at equal q, the one named first wins */
	bool seen_text;
};

static bool weigh_media(const struct element *e, void *arg)
{
	struct media *m = arg;

	if (tok_is(e, "application/openmetrics-text")) {
		if (e->q > m->om) {
			m->om = e->q;
			m->om_first = !(m->seen_text && m->text >= e->q);
		}
	} else if (tok_is(e, "text/plain")) {
		m->seen_text = true;
		if (e->q > m->text)
			m->text = e->q;
	}
	return false;
}

bool srv_accept_openmetrics(const char *accept)
{
	struct media m = { 0 };

	each(accept, weigh_media, &m);
	return m.om > 0 && (m.om > m.text || (m.om == m.text && m.om_first));
}

struct coding {
	int gzip, any;           /* q of gzip and of `*`; -1 when not named */
};

static bool weigh_coding(const struct element *e, void *arg)
{
	struct coding *c = arg;

	if (tok_is(e, "gzip") || tok_is(e, "x-gzip"))
		c->gzip = (int)e->q > c->gzip ? (int)e->q : c->gzip;
	else if (tok_is(e, "*"))
		c->any = (int)e->q;
	return false;
}

bool srv_accept_gzip(const char *accept_encoding)
{
	struct coding c = { -1, -1 };

	each(accept_encoding, weigh_coding, &c);
	return c.gzip > 0 || (c.gzip < 0 && c.any > 0);
}
