/* The demo target of scripts/demo: every 100 ms main calls into libdemo.so,
 * which calls back on_tick here, which calls demo_compute(value), the
 * function the demo traces. Prints its pid, then runs until killed. */
#include <stdio.h>
#include <unistd.h>

#include "demo_lib.h"

static volatile long sink;

__attribute__((noinline)) long demo_compute(long value)
{
	sink += value * value;
	return sink;
}

__attribute__((noinline)) static long on_tick(long value)
{
	long r = demo_compute(value + 1);

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
