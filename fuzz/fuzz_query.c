/* libFuzzer target for what an HTTP client sends the agent and the agent
 * parses itself: the query string (srv_query_parse) and the Accept and
 * Accept-Encoding values (srv_accept_*). The input is the query, then,
 * after a NUL, the header value. A query either parses within its bounds
 * or is refused with one printable line fit to send back. An input that
 * starts with 0xff is spelled from query-shaped pieces instead, so the
 * smoke run's random bytes still reach the keys and the percent escapes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"
#include "smoke.h"

static const char *const pieces[] = {
	"seconds", "debug", "=", "&", "%", "+", "0", "1", "9", "30", "300", "301", "%32",
	"%zz", "%0", "%00", "%73", "-", ".", ";", "gc", "application/openmetrics-text",
	"text/plain", "gzip", ",", ";q=", "0.5", "*/*", " ", "version=1.0.0", "x-gzip", "*",
};

/* The shaped input, in buf (room size), NUL-terminated; its length. */
static size_t spell(const uint8_t *data, size_t n, char *buf, size_t size)
{
	size_t len = 0;

	for (size_t i = 1; i < n; i++) {
		/* a zero byte stays one: it parts the query from the header */
		const char *p = data[i] ? pieces[data[i] % (sizeof(pieces) / sizeof(pieces[0]))] : "";
		size_t plen = data[i] ? strlen(p) : 1;

		if (len + plen >= size)
			break;
		memcpy(buf + len, p, plen);
		len += plen;
	}
	buf[len] = '\0';
	return len;
}

static void check_query(const char *q, size_t len, uint32_t max)
{
	struct srv_query out;
	char msg[160];
	int rc = srv_query_parse(q, len, max, &out, msg, sizeof(msg));

	if (rc == 0) {
		if (out.has_seconds && (out.seconds < 1 || out.seconds > max))
			abort();
		if (!out.has_seconds && out.seconds)
			abort();
		return;
	}
	if (rc != -EINVAL || !msg[0])
		abort();
	/* one printable line of ours: nothing of the input in it */
	for (const char *m = msg; *m; m++)
		if (*m < 0x20 || *m > 0x7e || *m == '<' || *m == '>')
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char shaped[8192];
	const char *in = (const char *)data;
	const char *nul;
	size_t qlen;
	char *header;

	if (size && data[0] == 0xff) {
		size = spell(data, size, shaped, sizeof(shaped));
		in = shaped;
	}
	nul = memchr(in, '\0', size);
	qlen = nul ? (size_t)(nul - in) : size;
	{
		/* exactly qlen bytes: the parser must not read past them */
		char *q = malloc(qlen ? qlen : 1);

		if (!q)
			return 0;
		memcpy(q, in, qlen);
		check_query(q, qlen, 300);
		check_query(q, qlen, 1);
		check_query(q, qlen, UINT32_MAX);
		free(q);
	}
	header = strndup(nul ? nul + 1 : in, nul ? size - qlen - 1 : size);
	if (!header)
		return 0;
	(void)srv_accept_openmetrics(header);
	(void)srv_accept_gzip(header);
	free(header);
	return 0;
}
