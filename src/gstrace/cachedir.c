/* The cache directory of a run, chosen from the environment and judged
 * once: under `sudo -E`, $XDG_CACHE_HOME may name a directory another user
 * can write, who would then rewrite the rows and debug files root reads. */
#include <stdio.h>
#include <stdlib.h>

#include <gs/modfile.h>

#include "cachedir.h"
#include "say.h"

const char *cli_cache_dir(char *buf, size_t size)
{
	const char *env = getenv("GSTRACE_CFI_CACHE"), *base = getenv("XDG_CACHE_HOME");
	const char *dir = NULL;
	struct gs_error err = { 0 };
	int n = -1;

	if (env && *env)
		dir = env[0] == '/' ? env : NULL;
	else if (base && base[0] == '/')
		n = snprintf(buf, size, "%s/gstrace/cfi", base);
	else if ((base = getenv("HOME")) && base[0] == '/')
		n = snprintf(buf, size, "%s/.cache/gstrace/cfi", base);
	if (n > 0 && (size_t)n < size)
		dir = buf;
	if (!dir || gs_cache_dir_check(dir, &err) == 0)
		return dir;
	/* the library ignores it on its own, silently: say it here, once */
	cli_say("gstrace: ", "notice: running without the on-disk cache: %s, or set "
		"GSTRACE_CFI_CACHE to a directory of your own (or to off)", err.msg);
	return NULL;
}
