/* Where the on-disk caches of a run live (CFI tables, function-name
 * indexes, inflated debug files), and whether they can be trusted there. */
#ifndef CLI_CACHEDIR_H
#define CLI_CACHEDIR_H

#include <stddef.h>

/* $GSTRACE_CFI_CACHE (an absolute directory, or "off"), else
 * $XDG_CACHE_HOME/gstrace/cfi, else ~/.cache/gstrace/cfi; NULL: none. A
 * directory that another user owns or can write (gs_cache_dir_check) is
 * not used: NULL, and a notice on stderr saying why and the fix. Called
 * once per run. */
const char *cli_cache_dir(char *buf, size_t size);

#endif /* CLI_CACHEDIR_H */
