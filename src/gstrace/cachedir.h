/* Where the on-disk caches of a run live (CFI tables, function-name
 * indexes, inflated debug files), what they may take, and whether they
 * can be trusted there. */
#ifndef CLI_CACHEDIR_H
#define CLI_CACHEDIR_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"

struct cli_cache {
	const char *dir;       /* NULL: no on-disk cache (off, or no home) */
	const char *dir_from;  /* what chose it: a flag, a variable, a default */
	uint64_t max_bytes;    /* the cap; 0: the library's default */
	const char *size_from; /* what set the cap (NULL: the default) */
	bool off;              /* turned off (--cache-size off, GSTRACE_CACHE_SIZE=off,
				* GSTRACE_CACHE_DIR=off or GSTRACE_CFI_CACHE=off) */
	char buf[4096];
};

/* The cache as the flags, then the environment say: the directory from
 * --cache-dir, $GSTRACE_CACHE_DIR, $GSTRACE_CFI_CACHE (its older name), an
 * absolute directory or "off"; else $XDG_CACHE_HOME/gstrace/cfi, else
 * ~/.cache/gstrace/cfi. The cap from --cache-size, $GSTRACE_CACHE_SIZE
 * (bytes, K, M, G, or off / 0); a bad value of the variable is said on
 * stderr and the default used. Nothing is judged yet. */
void cli_cache_where(const struct cli *c, struct cli_cache *out);

/* cli_cache_where for a run: NULL when off, or when the directory is one
 * another user owns or can write (gs_cache_dir_check), then with a notice
 * on stderr saying why and the fix. Called once per run. */
const char *cli_cache_dir(const struct cli *c, struct cli_cache *out);

/* --cache-info and --cache-clear: the report on stdout; the exit status. */
int cli_cache_cmd(const struct cli *c);

#endif /* CLI_CACHEDIR_H */
