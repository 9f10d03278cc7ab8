/* Shared by the decoder tests: a decoder over the wire.h test context, and a
 * collector that keeps a text summary of each event (its fields and its
 * debugging rendering), so two decodes can be compared as strings. Every
 * chunk is fed from an exact-size heap copy, so ASan sees any over-read. */
#ifndef GS_TEST_HARNESS_H
#define GS_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include <gs/decode.h>

#include "wire.h"

#define MAX_COLLECTED 16
#define SUMMARY_MAX 4096

struct harness {
	struct gs_trace_context ctx[2]; /* trace ids 0 and 1 */
	const struct gs_trace_context *ctxs[2];
	struct gs_decoder *dec;
	struct gs_error err;
	size_t n;
	char summary[MAX_COLLECTED][SUMMARY_MAX];
};

void harness_init(struct harness *h, enum gs_decode_mode mode);
void harness_fini(struct harness *h);
/* Feeds a copy of `len` bytes; returns what gs_decoder_feed returns. */
int harness_feed(struct harness *h, const void *data, size_t len);
/* Feeds w's bytes split at each offset in cuts (ascending), then finishes;
 * returns the first error or 0. */
int harness_feed_cuts(struct harness *h, const struct wire *w, const size_t *cuts, size_t ncuts);

#endif /* GS_TEST_HARNESS_H */
