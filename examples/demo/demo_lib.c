/* libdemo.so: demo_lib_drive -> demo_lib_dispatch -> the executable's
 * callback. Built -O2 -fomit-frame-pointer: no frame pointers to walk, only
 * the .eh_frame rows gstrace unwinds with. */
#include "demo_lib.h"

__attribute__((noinline)) static long demo_lib_dispatch(long value, demo_cb cb)
{
	long r = cb(value * 2);

	return r + 1; /* work after the call: no tail call, the frame stays */
}

__attribute__((noinline)) long demo_lib_drive(long tick, demo_cb cb)
{
	long r = demo_lib_dispatch(tick, cb);

	return r ^ tick;
}
