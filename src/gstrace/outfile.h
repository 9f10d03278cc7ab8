/* The one way the gstrace command opens a file for writing (-o,
 * --flamegraph, anything it writes later): never through a symbolic link,
 * never into another user's file planted in a sticky directory, never
 * truncated before those checks pass, and never inherited by a command
 * gstrace launches. */
#ifndef CLI_OUTFILE_H
#define CLI_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* Opens path for writing into *out (close-on-exec), creating it when
 * absent. Refused, with msg saying "FLAG PATH: why; what to do": a
 * symbolic link as its last component; in a sticky directory that group or
 * others can write (/tmp), an existing file or FIFO that is not the
 * effective user's, or a file with more than one hard link (the kernel's
 * protected_regular rule, whatever its setting here); a file of /proc or
 * /sys, which takes the open but not what is written. A regular file is
 * truncated only once it passed. A FIFO is checked before its open waits
 * for a reader. 0, or -errno (the caller exits 2). */
int cli_open_write(const char *flag, const char *path, FILE **out, char *msg, size_t size);

/* cli_open_write for a binary file (--pprof): a terminal is refused too. */
int cli_open_binary(const char *flag, const char *path, FILE **out, char *msg, size_t size);

#endif /* CLI_OUTFILE_H */
