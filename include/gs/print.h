/* Events printed exactly as the gstrace command prints them: the pretty
 * and plain text layouts with symbolized backtraces
 * (`#1 fn(params) at file:line:col [module+0xpc]`, inline calls, signal
 * frames, the reason a walk stopped) and one JSON object per event per
 * line. gs_render_* (render.h) are the snprintf-like pieces without
 * symbolization; a printer adds a frame resolver (frames.h), timestamps
 * and a cache of frame text, and writes to a FILE. No libbpf.
 *
 * Layouts:
 *   pretty  `[<time>] TraceID:<id> PID:<pid> TID:<tid>`, items indented two
 *           spaces (continuation lines four), backtrace frames four;
 *   plain   items as they are, frames two spaces;
 *   json    {"trace_id":..,"timestamp_ns":..,"timestamp":..,"pid":..,
 *           "tid":..,"items":[..]}: literal strings as strings; values,
 *           formats, expression errors and backtraces as objects with a
 *           "kind"; values typed; every string escaped (RFC 8259), bytes
 *           that are not UTF-8 as U+FFFD.
 * An event that printed nothing (only its EndInstruction) prints nothing in
 * the text layouts. */
#ifndef GS_PRINT_H
#define GS_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gs/api.h>
#include <gs/decode.h>
#include <gs/error.h>
#include <gs/frames.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_print_format {
	GS_PRINT_PRETTY = 0,
	GS_PRINT_PLAIN = 1,
	GS_PRINT_JSON = 2,
};

/* The timestamp of the pretty header and of JSON's "timestamp". */
enum gs_print_time {
	GS_PRINT_TIME_LOCAL = 0, /* 2026-04-06 10:00:00.123, the local wall clock */
	GS_PRINT_TIME_BOOT = 1,  /* boot+12.345s, since boot */
	GS_PRINT_TIME_NONE = 2,  /* none (JSON: null) */
};

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_printer_opts {
	size_t sz;
	enum gs_print_format format;
	enum gs_print_time timestamp;
	/* Wall-clock ns at boot (CLOCK_REALTIME - CLOCK_MONOTONIC) for local
	 * timestamps; 0: measured when the printer is made. Give two printers
	 * the same value and they show the same time for an event. */
	int64_t boot_realtime_ns;
	/* The resolver backtraces are symbolized with (borrowed: it outlives
	 * the printer; shared by several printers, they use it one at a time).
	 * NULL: the printer makes its own, with gs_frames_opts' defaults (each
	 * frame looked up in the event's process). */
	struct gs_frames *frames;
};

struct gs_printer;

/* A new printer in *out (opts may be NULL: pretty, local time, a resolver
 * of its own), freed with gs_printer_free() (NULL is fine) before the
 * resolver it borrows. 0, or -EINVAL (a format or timestamp out of its
 * enum, bad options) / -ENOMEM with err filled and *out NULL. */
GS_API int gs_printer_new(const struct gs_printer_opts *opts, struct gs_printer **out,
			  struct gs_error *err);
GS_API void gs_printer_free(struct gs_printer *p);
/* Writes ev to f in the printer's format (ev is read during the call
 * only). 0, or -EIO when f reports an error (ferror). */
GS_API int gs_print_event(struct gs_printer *p, const struct gs_event *ev, FILE *f);
/* The resolver the printer symbolizes with (its own, valid until
 * gs_printer_free, or the one given). */
GS_API struct gs_frames *gs_printer_frames(const struct gs_printer *p);

#ifdef __cplusplus
}
#endif

#endif /* GS_PRINT_H */
