/* Symbolized output of decoded events (reference spec 11): the pretty and
 * plain text layouts, with backtrace frames turned into `fn(params) at
 * file:line:col [module+0xpc]`, and one JSON object per event per line. */
#ifndef CLI_OUTPUT_H
#define CLI_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <gs/decode.h>
#include <gs/error.h>

#include "options.h"

/* Zero is the default of every field but the file. */
struct cli_out_opts {
	enum cli_format format;
	enum cli_timestamp timestamp;
	/* The traced process (-p or a launched command): frames are looked up
	 * in its modules first, then in the event's process. 0: none. */
	pid_t pid;
	/* Binaries known before any event (-t PATH, the launched command):
	 * the last resort for a frame whose process is gone, by cookie. */
	const char *const *modules;
	size_t nmodules;
	/* The plan's module files: frames are read from the files and debug
	 * files targets were resolved with. NULL: the output's own. */
	struct gs_modfiles *files;
	/* Wall-clock ns at boot (CLOCK_REALTIME - CLOCK_MONOTONIC) for local
	 * timestamps; 0: measured when the output is created. */
	int64_t boot_realtime_ns;
	bool no_demangle; /* show C++ and Rust names mangled */
};

struct cli_out;

int cli_out_new(const struct cli_out_opts *opts, FILE *f, struct cli_out **out, struct gs_error *err);
void cli_out_free(struct cli_out *o);
/* Reads pid's module list now, so frames still resolve after it exits. */
void cli_out_preload(struct cli_out *o, pid_t pid);
/* Writes one event. 0, or -errno when the file cannot be written. */
int cli_out_event(struct cli_out *o, const struct gs_event *ev);

#endif /* CLI_OUTPUT_H */
