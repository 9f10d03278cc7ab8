/* The live session's tick: a timer in the live descriptor's epoll set, so
 * that gs_live_fd is readable every few milliseconds while a trace runs.
 * The programs write events without waking their reader until a quarter
 * of a buffer waits (docs/protocol.md, "Delivery"), so a caller waiting on
 * the descriptor alone would sleep through a slow trace's events, and
 * through a fast one's until a quarter of its buffer had filled (a print
 * of one value: 3,600 events in its 1 MiB). */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "rt_int.h"

int rt_tick_open(struct rt_tick *t, int epfd, void *mark, struct gs_error *err)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = mark };

	t->period_ms = 0;
	t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->fd < 0)
		return gs_errorf(err, -errno, "cannot create the live session's timer: %s",
				 strerror(errno));
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, t->fd, &ev)) {
		int rc = -errno;

		rt_tick_close(t);
		return gs_errorf(err, rc, "cannot watch the live session's timer: %s",
				 strerror(-rc));
	}
	return 0;
}

/* A system call only when the period changes. */
void rt_tick_set(struct rt_tick *t, int period_ms)
{
	struct itimerspec its = { 0 };

	if (t->fd < 0 || period_ms == t->period_ms)
		return;
	its.it_interval.tv_nsec = (long)period_ms * 1000000;
	its.it_value = its.it_interval; /* zero: disarmed */
	if (timerfd_settime(t->fd, 0, &its, NULL) == 0)
		t->period_ms = period_ms;
}

/* The expirations read: the descriptor is quiet again until the next. */
void rt_tick_ack(struct rt_tick *t)
{
	uint64_t expirations;

	if (t->fd >= 0 && read(t->fd, &expirations, sizeof(expirations)) < 0) {
		/* EAGAIN: none yet */
	}
}

void rt_tick_close(struct rt_tick *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->period_ms = 0;
}
