/* The decoder test harness (harness.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/render.h>

#include "harness.h"

static int collect(void *arg, const struct gs_event *ev)
{
	struct harness *h = arg;
	GS_OPTS(gs_render_opts, opts, .style = GS_RENDER_PLAIN, .show_end = true);
	char *s;
	int n;

	if (h->n >= MAX_COLLECTED)
		return -1;
	s = h->summary[h->n++];
	n = snprintf(s, SUMMARY_MAX, "trace=%llu ts=%llu pid=%u tid=%u off=%llu size=%u insts=%zu\n",
		     (unsigned long long)ev->trace_id, (unsigned long long)ev->timestamp, ev->pid,
		     ev->tid, (unsigned long long)ev->stream_offset, ev->size, ev->ninsts);
	gs_render_event(ev, &opts, s + n, SUMMARY_MAX - (size_t)n);
	return 0;
}

void harness_init(struct harness *h, enum gs_decode_mode mode)
{
	GS_OPTS(gs_decoder_opts, opts, .mode = mode, .contexts = h->ctxs, .ncontexts = 2);

	memset(h, 0, sizeof(*h));
	for (int i = 0; i < 2; i++) {
		wire_test_context(&h->ctx[i]);
		h->ctxs[i] = &h->ctx[i];
	}
	if (gs_decoder_new(&opts, &h->dec, &h->err))
		abort();
}

void harness_fini(struct harness *h)
{
	gs_decoder_free(h->dec);
	for (int i = 0; i < 2; i++)
		gs_context_fini(&h->ctx[i]);
}

int harness_feed(struct harness *h, const void *data, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int r;

	if (!copy)
		abort();
	memcpy(copy, data, len);
	r = gs_decoder_feed(h->dec, copy, len, collect, h, &h->err);
	free(copy);
	return r;
}

int harness_feed_cuts(struct harness *h, const struct wire *w, const size_t *cuts, size_t ncuts)
{
	size_t from = 0;
	int r;

	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : w->len;

		r = harness_feed(h, w->buf + from, to - from);
		if (r < 0)
			return r;
		from = to;
	}
	return gs_decoder_finish(h->dec, &h->err);
}
