/* Shared by the output files: the renderer's state (its frame resolver,
 * gs_frames, symbolizes backtraces) for the text and JSON writers
 * (output.c, output_json.c). Not part of output.h. */
#ifndef CLI_OUTPUT_INT_H
#define CLI_OUTPUT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <gs/frames.h>

#include "output.h"

struct cli_out {
	struct cli_out_opts opts;
	FILE *f;
	struct gs_frames *frames;
	/* local timestamps: the second last formatted, and its text */
	int64_t boot_realtime_ns;
	int64_t cached_sec;
	char cached_prefix[32];
};

/* Timestamp text per --script-timestamp into buf; false for `none`. */
bool out_timestamp(struct cli_out *o, uint64_t ktime_ns, char *buf, size_t size);

/* JSON writer (output_json.c). */
void out_json_event(struct cli_out *o, const struct gs_event *ev);

#endif /* CLI_OUTPUT_INT_H */
