/* The cache directory of a run and its cap, chosen from the flags and the
 * environment and judged once: under `sudo -E`, $XDG_CACHE_HOME may name a
 * directory another user can write, who would then rewrite the rows and
 * debug files root reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/modfile.h>

#include "base.h"
#include "cachedir.h"
#include "say.h"

/* A variable's value, or NULL when unset or empty. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static void where_dir(const struct cli *c, struct cli_cache *out)
{
	static const char *const vars[] = { "GSTRACE_CACHE_DIR", "GSTRACE_CFI_CACHE" };
	const char *base;
	int n = -1;

	if (c->cache_dir) {
		out->dir = c->cache_dir;
		out->dir_from = "--cache-dir";
		return;
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(vars); i++) {
		const char *v = env(vars[i]);

		if (!v)
			continue;
		out->dir_from = vars[i];
		/* "off", or anything not absolute: no cache, as before */
		out->dir = v[0] == '/' ? v : NULL;
		out->off = !out->dir;
		return;
	}
	if ((base = env("XDG_CACHE_HOME")) && base[0] == '/') {
		n = snprintf(out->buf, sizeof(out->buf), "%s/gstrace/cfi", base);
		out->dir_from = "$XDG_CACHE_HOME/gstrace/cfi";
	} else if ((base = env("HOME")) && base[0] == '/') {
		n = snprintf(out->buf, sizeof(out->buf), "%s/.cache/gstrace/cfi", base);
		out->dir_from = "~/.cache/gstrace/cfi";
	}
	if (n > 0 && (size_t)n < sizeof(out->buf))
		out->dir = out->buf;
}

static void where_size(const struct cli *c, struct cli_cache *out)
{
	const char *v = env("GSTRACE_CACHE_SIZE");

	if (c->cache_off || c->cache_size) {
		out->off |= c->cache_off;
		out->max_bytes = c->cache_size;
		out->size_from = "--cache-size";
	} else if (v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)) {
		out->off = true;
		out->size_from = "GSTRACE_CACHE_SIZE";
	} else if (v && cli_parse_bytes(v, 1ull << 50, &out->max_bytes)) {
		out->size_from = "GSTRACE_CACHE_SIZE";
	} else if (v) {
		cli_say("gstrace: ", "notice: GSTRACE_CACHE_SIZE='%s' is not a size, the cache "
			"keeps its default cap; set it to bytes, with K, M or G (e.g. 512M), or "
			"to off", v);
	}
}

void cli_cache_where(const struct cli *c, struct cli_cache *out)
{
	memset(out, 0, sizeof(*out));
	where_dir(c, out);
	where_size(c, out);
}

const char *cli_cache_dir(const struct cli *c, struct cli_cache *out)
{
	struct gs_error err = { 0 };

	cli_cache_where(c, out);
	if (out->off || !out->dir || gs_cache_dir_check(out->dir, &err) == 0)
		return out->off ? NULL : out->dir;
	/* the library ignores it on its own, silently: say it here, once */
	cli_say("gstrace: ", "notice: running without the on-disk cache: %s, or give "
		"--cache-dir (GSTRACE_CACHE_DIR) a directory of your own, or --cache-size off",
		err.msg);
	out->dir = NULL;
	return NULL;
}
