/* The clock phases are timed with and process refreshes are paced by:
 * CLOCK_MONOTONIC, which no change of the wall clock moves. Its own file,
 * below the plan, the session and the per-process fills that all read it,
 * so none of them reaches into another for the time. */
#include <time.h>

#include "rt_int.h"

uint64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
