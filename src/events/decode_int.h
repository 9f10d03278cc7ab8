/* Shared by the two halves of the streaming decoder (decode.c: framing
 * and the stream; decode_inst.c: the payload of each instruction type)
 * and the error both report (decode_error.c): the decoder's state, one
 * event being decoded, the malformed-stream error and the table of
 * instruction types. Not part of gs/decode.h. */
#ifndef GS_EVENTS_DECODE_INT_H
#define GS_EVENTS_DECODE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/decode.h>

#define INVALID_EXPR_TEXT_MAX sizeof("<INVALID_EXPR_INDEX_65535>")

/* How far framing of the current event got, in offsets from its start. */
struct framing {
	size_t scan;   /* first byte not yet framed: 0, 4, 28, then instructions */
	size_t need;   /* bytes the event must have before framing can go on */
	size_t ninsts; /* complete instructions framed */
	size_t nexprs; /* of which ExprError */
};

struct gs_decoder {
	struct gs_decoder_opts opts;

	/* The chunk being decoded (not owned). */
	const uint8_t *chunk;
	size_t chunk_len, chunk_pos;
	uint64_t chunk_off; /* stream offset of chunk[0] */

	/* The start of an event the previous chunks cut off, copied as it
	 * arrives; `delivered` once the event built from it was handed out. */
	uint8_t *partial;
	size_t partial_len, partial_cap;
	uint64_t partial_off;
	bool delivered;
	struct framing fr;

	/* Per-event storage, sized before decoding, reused across events. */
	struct gs_inst *insts;
	size_t insts_cap;
	struct gs_value *values;
	size_t values_cap;
	char *text;
	size_t text_cap;
	struct gs_backtrace_frame *frames; /* compact backtraces' frames, expanded */
	size_t frames_cap;
	struct gs_event event;

	uint64_t error_offset;
};

/* One event being decoded. */
struct walk {
	struct gs_decoder *d;
	const uint8_t *p;
	uint64_t base; /* stream offset of p[0] */
	uint64_t trace_id;
	const struct gs_trace_context *ctx;
	size_t nvalues, ntext, nframes;
	struct gs_error *err;
};

#define DATA_LENGTH_AT offsetof(struct gs_inst_header, data_length)

/* A format argument's data_len, which no struct covers. */
static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* decode_error.c: records a malformed-stream error about the byte at
 * stream offset `at` of the event starting at `event_at`; returns
 * -EBADMSG. */
__attribute__((format(printf, 5, 6)))
int ev_decode_bad(struct gs_decoder *d, struct gs_error *err, uint64_t at, uint64_t event_at,
		  const char *fmt, ...);

/* The same about the byte at `off` of the event a walk decodes. */
#define WBAD(w, off, ...) \
	ev_decode_bad((w)->d, (w)->err, (w)->base + (off), (w)->base, __VA_ARGS__)

/* What framing knows of each instruction type; no decoder = unknown type. */
struct inst_kind {
	const char *name;
	uint16_t min_len; /* payload bytes at least */
	bool exact;       /* ... and at most */
	int (*decode)(struct walk *w, size_t off, uint16_t len, struct gs_inst *in);
};

/* decode_inst.c: by instruction type; no decoder = unknown type. */
extern const struct inst_kind ev_inst_kinds[256];

#endif /* GS_EVENTS_DECODE_INT_H */
