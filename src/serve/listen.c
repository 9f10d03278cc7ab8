/* The address --serve listens on: numbers only (no name is resolved, so
 * what is bound is what was written), `localhost` as 127.0.0.1, and an
 * empty host as loopback: an agent is reachable from elsewhere only when
 * the user wrote such an address. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <gs/internal/serve.h>

static int refuse(char *msg, size_t size, const char *text, const char *why)
{
	snprintf(msg, size, "--serve %.80s: %s", text, why);
	return -EINVAL;
}

int srv_listen_parse(const char *text, struct srv_listen *out, char *msg, size_t size)
{
	const char *colon, *host = text;
	char hostbuf[64];
	size_t hostlen;
	char *end;
	unsigned long port;

	memset(out, 0, sizeof(*out));
	if (!text || !*text)
		return refuse(msg, size, "\"\"", "give ADDR:PORT, e.g. 127.0.0.1:9464");
	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (!close || close[1] != ':')
			return refuse(msg, size, text, "an IPv6 address is written [ADDR]:PORT, "
				      "e.g. [::1]:9464");
		host = text + 1;
		hostlen = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = strrchr(text, ':');
		if (!colon)
			return refuse(msg, size, text, "no port: give ADDR:PORT, e.g. "
				      "127.0.0.1:9464");
		if (memchr(text, ':', (size_t)(colon - text)))
			return refuse(msg, size, text, "an IPv6 address is written [ADDR]:PORT, "
				      "e.g. [::1]:9464");
		hostlen = (size_t)(colon - text);
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port == 0 || port > 65535 || colon[1] == '+' ||
	    colon[1] == '-' || colon[1] == ' ')
		return refuse(msg, size, text, "the port is a number from 1 to 65535");
	if (hostlen >= sizeof(hostbuf))
		return refuse(msg, size, text, "the address is not a number: write it as "
			      "digits (127.0.0.1, [::1]); names are not resolved");
	memcpy(hostbuf, host, hostlen);
	hostbuf[hostlen] = '\0';
	out->port = (uint16_t)port;
	if (!hostlen || strcmp(hostbuf, "localhost") == 0) {
		out->family = AF_INET;
		out->addr[0] = 127;
		out->addr[3] = 1;
	} else if (text[0] == '[') {
		out->family = AF_INET6;
		if (inet_pton(AF_INET6, hostbuf, out->addr) != 1)
			return refuse(msg, size, text, "not an IPv6 address");
	} else {
		out->family = AF_INET;
		if (inet_pton(AF_INET, hostbuf, out->addr) != 1)
			return refuse(msg, size, text, "the address is not a number: write it "
				      "as digits (127.0.0.1, [::1]); names are not resolved");
	}
	if (out->family == AF_INET) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, out->addr, a, sizeof(a));
		snprintf(out->text, sizeof(out->text), "%s:%u", a, (unsigned)out->port);
	} else {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, out->addr, a, sizeof(a));
		snprintf(out->text, sizeof(out->text), "[%s]:%u", a, (unsigned)out->port);
	}
	return 0;
}

bool srv_listen_loopback(const struct srv_listen *l)
{
	static const uint8_t v6_loopback[16] = { [15] = 1 };

	if (l->family == AF_INET)
		return l->addr[0] == 127;
	return memcmp(l->addr, v6_loopback, sizeof(v6_loopback)) == 0;
}
