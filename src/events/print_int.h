/* Shared by the printers (print.c, print_json.c) and their timestamps
 * (print_time.c): the printer's state, its frame resolver, frame-text
 * cache and timestamp cache. Not part of the events API (gs/print.h). */
#ifndef GS_EVENTS_PRINT_INT_H
#define GS_EVENTS_PRINT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <gs/print.h>

#include "ev_int.h"

struct gs_printer {
	struct gs_printer_opts opts;
	struct gs_frames *frames, *own_frames;
	struct ev_frame_cache *cache; /* NULL: every frame rendered anew */
	struct ev_out text, item;     /* growing: the event's text, one item's */
	/* local timestamps: the second last formatted, and its text */
	int64_t cached_sec;
	char cached_prefix[32];
};

/* print_time.c: timestamp text per opts.timestamp into buf; false for
 * none. */
bool ev_print_timestamp(struct gs_printer *p, uint64_t ktime_ns, char *buf, size_t size);

/* print_json.c: one event as one JSON object and a newline. */
void ev_print_json(struct gs_printer *p, const struct gs_event *ev, FILE *f);

#endif /* GS_EVENTS_PRINT_INT_H */
