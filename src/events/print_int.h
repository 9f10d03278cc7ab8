/* Shared by the output files: the renderer's state (its frame resolver,
 * gs_frames, symbolizes backtraces) for the text and JSON writers
 * (output.c, output_json.c). Not part of output.h. */
#ifndef CLI_OUTPUT_INT_H
#define CLI_OUTPUT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <gs/frames.h>

#include "output.h"

struct out_fast;

struct cli_out {
	struct cli_out_opts opts;
	FILE *f;
	struct gs_frames *frames;
	struct out_fast *fast; /* kept frame text (output_fast.c); NULL: none */
	/* local timestamps: the second last formatted, and its text */
	int64_t boot_realtime_ns;
	int64_t cached_sec;
	char cached_prefix[32];
};

/* Timestamp text per --script-timestamp into buf; false for `none`. */
bool out_timestamp(struct cli_out *o, uint64_t ktime_ns, char *buf, size_t size);

/* JSON writer (output_json.c). */
void out_json_event(struct cli_out *o, const struct gs_event *ev);

/* One frame's lines to o->f (output.c): `indent#i ...` per inline call and
 * for the function, or the raw, signal or unsymbolized form. */
void out_put_frame(struct cli_out *o, const char *indent, unsigned i, uint8_t flags,
		   const struct gs_backtrace_frame *fr, const struct gs_frame *r);

/* The frames of a backtrace (output_fast.c): a symbolized frame's text is
 * kept per symbol, module, pc and flags and copied; the others are written
 * by out_put_frame. Returns whether the last frame's module is known. */
int out_fast_new(struct out_fast **out);
void out_fast_free(struct out_fast *f);
bool out_fast_frames(struct cli_out *o, const struct gs_event *ev, const struct gs_inst *in,
		     const char *frame_indent);

#endif /* CLI_OUTPUT_INT_H */
