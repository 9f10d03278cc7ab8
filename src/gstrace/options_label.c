/* --serve-label NAME=VALUE: a label the agent puts on every series and
 * sample, so NAME follows Prometheus' rules for label names and VALUE is
 * text a scrape, a terminal and a log show as it is. */
#include <stdint.h>
#include <string.h>

#include <gs/internal/serve.h>
#include <gs/render.h>

#include "base.h"
#include "options.h"

/* --serve-label's NAME: a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)
 * that is not one Prometheus keeps for itself (`__` names), gives
 * histograms and summaries (le, quantile) or sets on a scrape (instance,
 * job). */
static bool label_name_ok(const char *s, size_t n)
{
	static const char *const reserved[] = { "le", "quantile", "instance", "job" };

	if (!n || (s[0] >= '0' && s[0] <= '9') || (n >= 2 && s[0] == '_' && s[1] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') && s[i] != '_' &&
		    !(s[i] >= '0' && s[i] <= '9'))
			return false;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(reserved); i++)
		if (strlen(reserved[i]) == n && memcmp(reserved[i], s, n) == 0)
			return false;
	return true;
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
				   "Prometheus takes; give a name of letters, digits and _ "
				   "(not starting with a digit or __, not le, quantile, instance "
				   "or job: Prometheus sets those), e.g. %s env=prod", flag, v,
				   flag);
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
