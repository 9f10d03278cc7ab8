/* Streaming decoder of trace events (the wire format of docs/protocol.md,
 * include/gs/wire.h). Two passes per event: framing walks the instruction
 * headers to find where the event ends (resumable, so a ring buffer event
 * may arrive in pieces), then decoding checks every payload against its
 * data_length and the context (decode_inst.c). This file: framing, the
 * per-event storage and the stream of chunks. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gs/decode.h>

#include "base.h"
#include "decode_int.h"
#include "opts.h"

/* ---- framing -------------------------------------------------------------- */

/* Frames the event at p[0..avail): 1 when it is complete (d->fr.scan is its
 * size), 0 when it needs d->fr.need bytes, or -EBADMSG. */
static int frame(struct gs_decoder *d, const uint8_t *p, size_t avail, uint64_t base,
		 struct gs_error *err)
{
	struct framing *fr = &d->fr;

	if (fr->scan == 0) {
		uint32_t magic;

		if (avail < sizeof(struct gs_event_header)) {
			fr->need = sizeof(struct gs_event_header);
			return 0;
		}
		memcpy(&magic, p, sizeof(magic));
		if (magic != GS_MAGIC)
			return ev_decode_bad(d, err, base, base,
					     "bad magic 0x%08x (expected 0x%08x)", magic, GS_MAGIC);
		fr->scan = sizeof(struct gs_event_header);
	}
	if (fr->scan < GS_EVENT_PREFIX_SIZE) {
		if (avail < GS_EVENT_PREFIX_SIZE) {
			fr->need = GS_EVENT_PREFIX_SIZE;
			return 0;
		}
		fr->scan = GS_EVENT_PREFIX_SIZE;
	}
	for (;;) {
		size_t at = fr->scan, len_at = base + at + DATA_LENGTH_AT;
		const struct gs_inst_header *ih = (const void *)(p + at);
		const struct inst_kind *k;
		uint16_t len;

		if (avail < at + GS_INST_HEADER_SIZE) {
			fr->need = at + GS_INST_HEADER_SIZE;
			return 0;
		}
		k = &ev_inst_kinds[ih->inst_type];
		len = ih->data_length;
		if (!k->decode)
			return ev_decode_bad(d, err, base + at, base,
					     "unknown instruction type 0x%02x", ih->inst_type);
		if (len < k->min_len || (k->exact && len != k->min_len))
			return ev_decode_bad(d, err, len_at, base, "%s data_length %u, expected %s%u",
					     k->name, len, k->exact ? "" : "at least ", k->min_len);
		if (at + GS_INST_HEADER_SIZE + len > d->opts.max_event_size)
			return ev_decode_bad(d, err, len_at, base, "%s data_length %u takes the "
					     "event past %zu bytes (max_event_size) without an "
					     "EndInstruction", k->name, len, d->opts.max_event_size);
		if (avail < at + GS_INST_HEADER_SIZE + len) {
			fr->need = at + GS_INST_HEADER_SIZE + len;
			return 0;
		}
		fr->scan = at + GS_INST_HEADER_SIZE + len;
		fr->ninsts++;
		fr->nexprs += ih->inst_type == GS_INST_EXPR_ERROR;
		if (ih->inst_type == GS_INST_END)
			return 1;
	}
}

/* The error for an event whose bytes end at p + avail before framing
 * completed; `what` is "record" or "stream". */
static int truncated(struct gs_decoder *d, const uint8_t *p, size_t avail, uint64_t base,
		     const char *what, struct gs_error *err)
{
	const struct framing *fr = &d->fr;
	const char *piece = "an instruction header";
	uint64_t at = base + fr->scan;

	if (fr->need <= sizeof(struct gs_event_header)) {
		piece = "the event header";
		at = base;
	} else if (fr->need <= GS_EVENT_PREFIX_SIZE) {
		piece = "the event message";
		at = base + sizeof(struct gs_event_header);
	} else if (fr->need > fr->scan + GS_INST_HEADER_SIZE) {
		const struct gs_inst_header *ih = (const void *)(p + fr->scan);

		return ev_decode_bad(d, err, at + DATA_LENGTH_AT, base, "%s data_length %u runs "
				     "past the end of the %s (%zu bytes of the event, %zu needed)",
				     ev_inst_kinds[ih->inst_type].name, ih->data_length, what, avail,
				     fr->need);
	}
	return ev_decode_bad(d, err, at, base,
			     "the %s ends inside %s (%zu bytes of the event, %zu needed)", what,
			     piece, avail, fr->need);
}

/* ---- decoding --------------------------------------------------------------- */

static const struct gs_trace_context *context_of(const struct gs_decoder *d, uint64_t id)
{
	if (d->opts.lookup)
		return d->opts.lookup(d->opts.lookup_arg, id);
	return id < d->opts.ncontexts ? d->opts.contexts[id] : NULL;
}

/* Decodes the framed event p[0..size) into d->event. */
static int decode_event(struct gs_decoder *d, const uint8_t *p, size_t size, uint64_t base,
			struct gs_error *err)
{
	const struct gs_event_message *m =
		(const struct gs_event_message *)(p + sizeof(struct gs_event_header));
	struct walk w = { .d = d, .p = p, .base = base, .trace_id = m->trace_id, .err = err };
	size_t off = GS_EVENT_PREFIX_SIZE;

	w.ctx = context_of(d, w.trace_id);
	if (!w.ctx)
		return ev_decode_bad(d, err, base + sizeof(struct gs_event_header), base,
				     "no trace context for trace id %llu",
				     (unsigned long long)w.trace_id);
	if (base_grow((void **)&d->insts, &d->insts_cap, d->fr.ninsts, sizeof(*d->insts)) ||
	    base_grow((void **)&d->values, &d->values_cap, size / GS_FORMAT_ARG_FIXED_HEADER_LEN,
		      sizeof(*d->values)) ||
	    base_grow((void **)&d->text, &d->text_cap, d->fr.nexprs * INVALID_EXPR_TEXT_MAX, 1) ||
	    base_grow((void **)&d->frames, &d->frames_cap, size / 8, sizeof(*d->frames)))
		return gs_errorf(err, -ENOMEM, "out of memory decoding a %zu-byte event", size);

	for (size_t i = 0; i < d->fr.ninsts; i++) {
		const struct gs_inst_header *ih = (const void *)(p + off);
		struct gs_inst *in = &d->insts[i];
		int r;

		in->type = ih->inst_type;
		in->offset = (uint32_t)off;
		r = ev_inst_kinds[in->type].decode(&w, off + GS_INST_HEADER_SIZE, ih->data_length, in);
		if (r < 0)
			return r;
		off += GS_INST_HEADER_SIZE + ih->data_length;
	}
	d->event = (struct gs_event){
		.trace_id = w.trace_id,
		.timestamp = m->timestamp,
		.pid = m->pid,
		.tid = m->tid,
		.stream_offset = base,
		.size = (uint32_t)size,
		.bytes = p,
		.ctx = w.ctx,
		.insts = d->insts,
		.ninsts = d->fr.ninsts,
	};
	return 0;
}

/* ---- the stream --------------------------------------------------------------- */

static void drop_pending(struct gs_decoder *d)
{
	d->partial_len = 0;
	d->delivered = false;
	memset(&d->fr, 0, sizeof(d->fr));
}

/* After an error: drop the event and the rest of the chunk. */
static int fail(struct gs_decoder *d, int r)
{
	drop_pending(d);
	d->chunk_pos = d->chunk_len;
	return r;
}

int gs_decoder_new(const struct gs_decoder_opts *opts, struct gs_decoder **out,
		   struct gs_error *err)
{
	struct gs_decoder_opts o;
	struct gs_decoder *d;
	int rc;

	*out = NULL;
	rc = OPTS_COPY(&o, opts, gs_decoder_opts, err);
	if (rc)
		return rc;
	if (o.mode != GS_DECODE_RINGBUF && o.mode != GS_DECODE_PERF)
		return gs_errorf(err, -EINVAL, "decoder mode %d is neither ring buffer nor perf",
				 (int)o.mode);
	if (o.max_event_size && o.max_event_size < GS_MIN_EVENT_SIZE)
		return gs_errorf(err, -EINVAL, "max_event_size %zu is below the %d bytes of the "
				 "smallest event", o.max_event_size, GS_MIN_EVENT_SIZE);
	if (o.ncontexts && !o.contexts && !o.lookup)
		return gs_errorf(err, -EINVAL, "ncontexts is %zu but contexts is NULL",
				 o.ncontexts);
	d = calloc(1, sizeof(*d));
	if (!d)
		return gs_errorf(err, -ENOMEM, "out of memory creating a decoder");
	d->opts = o;
	if (!d->opts.max_event_size)
		d->opts.max_event_size = GS_DEFAULT_MAX_TRACE_EVENT_SIZE;
	*out = d;
	return 0;
}

void gs_decoder_free(struct gs_decoder *d)
{
	if (!d)
		return;
	free(d->partial);
	free(d->insts);
	free(d->values);
	free(d->text);
	free(d->frames);
	free(d);
}

int gs_decoder_push(struct gs_decoder *d, const void *data, size_t len, struct gs_error *err)
{
	if (d->chunk_pos < d->chunk_len)
		return gs_errorf(err, -EBUSY, "decoder still holds %zu bytes of the previous "
				 "chunk: call gs_decoder_next() until it returns 0 before pushing more",
				 d->chunk_len - d->chunk_pos);
	d->chunk_off += d->chunk_len;
	d->chunk = data;
	d->chunk_len = len;
	d->chunk_pos = 0;
	return 0;
}

/* Next event starting in the chunk, decoded in place when it is whole. */
static int next_in_chunk(struct gs_decoder *d, const struct gs_event **ev, struct gs_error *err)
{
	size_t avail = d->chunk_len - d->chunk_pos;
	uint64_t base = d->chunk_off + d->chunk_pos;
	const uint8_t *p;
	int r;

	if (!avail)
		return 0;
	p = d->chunk + d->chunk_pos;
	memset(&d->fr, 0, sizeof(d->fr));
	r = frame(d, p, avail, base, err);
	if (r < 0)
		return fail(d, r);
	if (r == 0) {
		if (d->opts.mode == GS_DECODE_PERF)
			return fail(d, truncated(d, p, avail, base, "record", err));
		if (base_grow((void **)&d->partial, &d->partial_cap, d->fr.need, 1))
			return fail(d, gs_errorf(err, -ENOMEM, "out of memory keeping a %zu-byte "
						 "partial event", d->fr.need));
		memcpy(d->partial, p, avail);
		d->partial_len = avail;
		d->partial_off = base;
		d->chunk_pos = d->chunk_len;
		return 0;
	}
	r = decode_event(d, p, d->fr.scan, base, err);
	if (r < 0)
		return fail(d, r);
	d->chunk_pos = d->opts.mode == GS_DECODE_PERF ? d->chunk_len : d->chunk_pos + d->fr.scan;
	*ev = &d->event;
	return 1;
}

/* Completes the event held in d->partial from the chunk, copying only the
 * bytes framing asks for. */
static int next_partial(struct gs_decoder *d, const struct gs_event **ev, struct gs_error *err)
{
	for (;;) {
		size_t want = d->fr.need - d->partial_len, take;
		int r;

		take = want < d->chunk_len - d->chunk_pos ? want : d->chunk_len - d->chunk_pos;
		if (base_grow((void **)&d->partial, &d->partial_cap, d->fr.need, 1))
			return fail(d, gs_errorf(err, -ENOMEM, "out of memory keeping a %zu-byte "
						 "partial event", d->fr.need));
		if (!take)
			return 0;
		memcpy(d->partial + d->partial_len, d->chunk + d->chunk_pos, take);
		d->partial_len += take;
		d->chunk_pos += take;
		if (d->partial_len < d->fr.need)
			return 0;
		r = frame(d, d->partial, d->partial_len, d->partial_off, err);
		if (r < 0)
			return fail(d, r);
		if (r == 0)
			continue;
		r = decode_event(d, d->partial, d->fr.scan, d->partial_off, err);
		if (r < 0)
			return fail(d, r);
		d->delivered = true;
		*ev = &d->event;
		return 1;
	}
}

int gs_decoder_next(struct gs_decoder *d, const struct gs_event **ev, struct gs_error *err)
{
	if (d->delivered)
		drop_pending(d);
	if (d->partial_len)
		return next_partial(d, ev, err);
	return next_in_chunk(d, ev, err);
}

int gs_decoder_feed(struct gs_decoder *d, const void *data, size_t len, gs_event_fn on_event,
		    void *arg, struct gs_error *err)
{
	const struct gs_event *ev;
	int r, n = 0;

	r = gs_decoder_push(d, data, len, err);
	if (r < 0)
		return r;
	while ((r = gs_decoder_next(d, &ev, err)) > 0) {
		int stop = on_event(arg, ev);

		if (stop) {
			d->chunk_pos = d->chunk_len;
			return stop;
		}
		n++;
	}
	return r < 0 ? r : n;
}

int gs_decoder_finish(struct gs_decoder *d, struct gs_error *err)
{
	int r = 0;

	if (d->chunk_pos < d->chunk_len)
		return gs_errorf(err, -EBUSY, "decoder still holds %zu bytes of the last chunk: "
				 "call gs_decoder_next() until it returns 0 before finishing",
				 d->chunk_len - d->chunk_pos);
	if (d->partial_len && !d->delivered)
		r = truncated(d, d->partial, d->partial_len, d->partial_off, "stream", err);
	drop_pending(d);
	return r;
}

void gs_decoder_reset(struct gs_decoder *d)
{
	drop_pending(d);
	d->chunk = NULL;
	d->chunk_len = d->chunk_pos = 0;
	d->chunk_off = 0;
	d->error_offset = 0;
}

uint64_t gs_decoder_error_offset(const struct gs_decoder *d)
{
	return d->error_offset;
}
