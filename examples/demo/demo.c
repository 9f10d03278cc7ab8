/* The demo target of scripts/demo: every 100 ms main calls into libdemo.so,
 * which calls back on_tick here, which calls demo_compute(value, req), the
 * function the demo traces (its parameters and a member of *req print by
 * name). Prints its pid, then runs until killed. */
#include <stdio.h>
#include <unistd.h>

#include "demo_lib.h"

static volatile long sink;

struct demo_request {
	long id;
	long scale;
};

__attribute__((noinline)) long demo_compute(long value, const struct demo_request *req)
{
	sink += value * req->scale;
	return sink;
}

__attribute__((noinline)) static long on_tick(long value)
{
	struct demo_request req = { .id = value / 2, .scale = 3 };
	long r = demo_compute(value + 1, &req);

	return r - 1; /* work after the call: no tail call */
}

int main(void)
{
	printf("demo: pid %d, calling demo_compute every 100 ms\n", (int)getpid());
	fflush(stdout);
	for (long tick = 0;; tick++) {
		sink ^= demo_lib_drive(tick, on_tick);
		usleep(100 * 1000);
	}
}
