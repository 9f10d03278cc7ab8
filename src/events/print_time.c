/* The printers' timestamps (gs_printer_opts.timestamp): none, seconds
 * since boot, or local wall-clock time to the millisecond, whose date and
 * time of day are formatted once per second and kept (a burst of events
 * pays one localtime_r). Below both printers, text and JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "print_int.h"

bool ev_print_timestamp(struct gs_printer *p, uint64_t ktime_ns, char *buf, size_t size)
{
	int64_t wall, sec;
	struct tm tm;

	switch (p->opts.timestamp) {
	case GS_PRINT_TIME_NONE:
		return false;
	case GS_PRINT_TIME_BOOT:
		snprintf(buf, size, "boot+%" PRIu64 ".%03" PRIu64 "s", ktime_ns / 1000000000u,
			 ktime_ns / 1000000u % 1000u);
		return true;
	case GS_PRINT_TIME_LOCAL:
		break;
	}
	wall = p->opts.boot_realtime_ns + (int64_t)ktime_ns;
	sec = wall / 1000000000ll;
	if (sec != p->cached_sec) {
		time_t t = (time_t)sec;

		if (!localtime_r(&t, &tm) ||
		    !strftime(p->cached_prefix, sizeof(p->cached_prefix), "%Y-%m-%d %H:%M:%S", &tm))
			snprintf(p->cached_prefix, sizeof(p->cached_prefix), "%" PRId64, sec);
		p->cached_sec = sec;
	}
	snprintf(buf, size, "%s.%03d", p->cached_prefix, (int)(wall / 1000000 % 1000));
	return true;
}
