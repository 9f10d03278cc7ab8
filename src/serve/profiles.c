/* The open profiles of /debug/pprof/profile and what a tick must do
 * about them, decided from the clock alone: drain each second while one
 * is open (and every few seconds under --profile, so the BPF map never
 * fills), answer those whose seconds are over, and stop the sampler's
 * clock when none is left and nothing else needs it. profile.c does it.
 * Kept by end time: the profiles due are always the first ones. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"

void srv_profiles_due(const struct srv_profiles *b, int64_t now_ns, struct srv_due *d)
{
	int64_t since = now_ns - b->last_drain_ns;

	d->expired = 0;
	while (d->expired < b->n && b->v[d->expired].end_ns <= now_ns)
		d->expired++;
	/* every profile due gets the counts up to its end */
	d->drain = d->expired > 0 || (b->n > 0 && since >= SRV_DRAIN_OPEN_NS) ||
		   (b->n == 0 && b->profiling && since >= SRV_DRAIN_IDLE_NS);
	d->clock_off = b->clock_on && !b->profiling && d->expired == b->n;
}

int64_t srv_profiles_next(const struct srv_profiles *b)
{
	if (b->n)
		return b->v[0].end_ns < b->last_drain_ns + SRV_DRAIN_OPEN_NS ?
		       b->v[0].end_ns : b->last_drain_ns + SRV_DRAIN_OPEN_NS;
	return b->profiling ? b->last_drain_ns + SRV_DRAIN_IDLE_NS : INT64_MAX;
}

int srv_profiles_open(struct srv_profiles *b, struct srv_request *r, struct gs_pprof *pprof,
		      int64_t now_ns, uint32_t seconds)
{
	int64_t end = now_ns + (int64_t)seconds * 1000000000ll;
	size_t at = b->n;

	if (b->n >= SRV_MAX_PROFILES)
		return -EBUSY;
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4;
		struct srv_profile *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	/* after those that end at the same time: answered in arrival order */
	while (at > 0 && b->v[at - 1].end_ns > end)
		at--;
	memmove(&b->v[at + 1], &b->v[at], (b->n - at) * sizeof(*b->v));
	b->v[at] = (struct srv_profile){ .req = r, .pprof = pprof, .start_ns = now_ns,
					 .end_ns = end };
	b->n++;
	return 0;
}

int srv_profiles_feed(struct srv_profiles *b, const struct gs_event *ev, uint64_t count)
{
	for (size_t i = 0; i < b->n; i++)
		if (gs_pprof_add(b->v[i].pprof, ev, count))
			return -ENOMEM;
	if (b->n)
		b->fed += count;
	return 0;
}

bool srv_profiles_take(struct srv_profiles *b, struct srv_profile *out)
{
	if (!b->n)
		return false;
	*out = b->v[0];
	memmove(&b->v[0], &b->v[1], --b->n * sizeof(*b->v));
	return true;
}

void srv_profiles_fini(struct srv_profiles *b)
{
	for (size_t i = 0; i < b->n; i++)
		gs_pprof_free(b->v[i].pprof);
	free(b->v);
	memset(b, 0, sizeof(*b));
}
