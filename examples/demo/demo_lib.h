/* The demo's shared library: a driver that hands each tick to a callback
 * in the executable, two frames deep, so a backtrace crosses modules twice. */
#ifndef DEMO_LIB_H
#define DEMO_LIB_H

typedef long (*demo_cb)(long value);

long demo_lib_drive(long tick, demo_cb cb);

#endif
