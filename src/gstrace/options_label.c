/* --serve-label NAME=VALUE: a label the agent puts on every series and
 * sample, so NAME follows Prometheus' rules for label names and VALUE is
 * text a scrape, a terminal and a log show as it is. */
#include <stdint.h>
#include <string.h>

#include <gs/internal/serve.h>
#include <gs/render.h>

#include "options.h"

/* --serve-label's NAME, as the agent takes it (srv_label_name_ok). */
static bool label_name_ok(const char *s, size_t n)
{
	char name[64];

	if (n >= sizeof(name))
		return false;
	memcpy(name, s, n);
	name[n] = '\0';
	return srv_label_name_ok(name);
}

/* --serve-label's VALUE: printable text, UTF-8, no control characters
 * (the exposition escapes \\, \" and newlines, but a terminal or a log
 * would show the rest). */
static bool label_value_ok(const char *s)
{
	size_t n = strlen(s), k;

	for (size_t i = 0; i < n; i += k) {
		k = gs_render_utf8_len((const uint8_t *)s + i, n - i);
		if (!k || (k == 1 && ((uint8_t)s[i] < 0x20 || s[i] == 0x7f)))
			return false;
	}
	return n > 0;
}

int cli_parse_serve_label(struct cli *c, const char *flag, const char *v, char *msg,
			  size_t size)
{
	const char *eq = strchr(v, '=');
	size_t n = eq ? (size_t)(eq - v) : 0;

	if (!eq || !label_name_ok(v, n))
		return cli_usage_error(msg, size, "%s '%s' is not NAME=VALUE with a label name "
				   "the agent can use; give a name of " SRV_LABEL_RULE " (at "
				   "most 63 characters), e.g. %s env=prod", flag, v, flag);
	if (!label_value_ok(eq + 1))
		return cli_usage_error(msg, size, "%s %.*s: the value is empty or holds control "
				   "characters or bytes that are not UTF-8; give printable text "
				   "(e.g. %s %.*s=prod)", flag, (int)n, v, flag, (int)n, v);
	/* a name given again takes the last value, as a flag given again
	 * does: the command line's over a config file's */
	for (size_t i = 0; i < c->nserve_labels; i++)
		if (strncmp(c->serve_labels[i], v, n + 1) == 0) {
			c->serve_labels[i] = v;
			return 0;
		}
	if (c->nserve_labels == SRV_MAX_LABELS)
		return cli_usage_error(msg, size, "more than %d %s flags; give at most %d",
				   SRV_MAX_LABELS, flag, SRV_MAX_LABELS);
	c->serve_labels[c->nserve_labels++] = v;
	return 0;
}
