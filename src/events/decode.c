/* Streaming decoder of trace events (reference spec section 10). Two passes
 * per event: framing walks the instruction headers to find where the event
 * ends (resumable, so a ring buffer event may arrive in pieces), then
 * decoding checks every payload against its data_length and the context. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/decode.h>

#include "opts.h"

#define INVALID_EXPR_TEXT_MAX sizeof("<INVALID_EXPR_INDEX_65535>")

/* A variable's fixed fields start like a format argument's, so one function
 * reads both. Payloads are read through the packed structs of protocol.h. */
_Static_assert(offsetof(struct gs_print_complex_variable, status) ==
	       offsetof(struct gs_format_arg, status), "variable and arg layouts differ");

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

/* Records a malformed-stream error about the byte at stream offset `at` of
 * the event starting at `event_at`; returns -EBADMSG. */
__attribute__((format(printf, 5, 6)))
static int bad(struct gs_decoder *d, struct gs_error *err, uint64_t at, uint64_t event_at,
	       const char *fmt, ...)
{
	char reason[GS_ERROR_MSG_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	d->error_offset = at;
	return gs_errorf(err, -EBADMSG,
			 "malformed trace stream at offset %llu: %s; the event at offset %llu "
			 "is dropped", (unsigned long long)at, reason,
			 (unsigned long long)event_at);
}

#define WBAD(w, off, ...) bad((w)->d, (w)->err, (w)->base + (off), (w)->base, __VA_ARGS__)

/* Makes room for `need` elements; 0 or -ENOMEM. */
static int reserve(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*v, ncap * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

/* ---- payload decoders: `off` is the payload's offset in the event ------- */

static void set_value(struct walk *w, struct gs_value *v, const struct gs_format_arg *fixed,
		      const uint8_t *path, const uint8_t *data, uint16_t data_len)
{
	v->var_name_index = fixed->var_name_index;
	v->type_index = fixed->type_index;
	v->access_path_len = fixed->access_path_len;
	v->status = fixed->status;
	v->name = gs_context_get_var_name(w->ctx, v->var_name_index);
	v->type = gs_context_get_type(w->ctx, v->type_index);
	v->kind = v->type ? v->type->kind : GS_TYPE_UNKNOWN;
	v->access_path = (const char *)path;
	v->data = data;
	v->data_len = data_len;
}

static int missing_name(struct walk *w, size_t off, const char *inst, uint16_t index)
{
	return WBAD(w, off, "%s: variable name index %u is not in trace %llu's table "
		    "(%zu names)", inst, index, (unsigned long long)w->trace_id,
		    w->ctx->nvar_names);
}

static int missing_string(struct walk *w, size_t off, const char *inst, uint16_t index)
{
	return WBAD(w, off, "%s: string index %u is not in trace %llu's table (%zu strings)",
		    inst, index, (unsigned long long)w->trace_id, w->ctx->nstrings);
}

static int decode_string(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_print_string_index *h = (const void *)(w->p + off);

	(void)len;
	in->string.index = h->string_index;
	in->string.text = gs_context_get_string(w->ctx, h->string_index);
	if (!in->string.text)
		return missing_string(w, off, "PrintStringIndex", h->string_index);
	return 0;
}

static int decode_variable_index(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_print_variable_index *h = (const void *)(w->p + off);
	struct gs_value *v = &in->variable;

	if (sizeof(*h) + h->data_len > len)
		return WBAD(w, off + offsetof(struct gs_print_variable_index, data_len),
			    "PrintVariableIndex: data_len %u runs past data_length %u",
			    h->data_len, len);
	*v = (struct gs_value){
		.var_name_index = h->var_name_index,
		.type_index = h->type_index,
		.status = h->status,
		.kind = h->type_encoding,
		.name = gs_context_get_var_name(w->ctx, h->var_name_index),
		.type = gs_context_get_type(w->ctx, h->type_index),
		.access_path = "",
		.data = w->p + off + sizeof(*h),
		.data_len = h->data_len,
	};
	if (!v->name)
		return missing_name(w, off, "PrintVariableIndex", v->var_name_index);
	return 0;
}

static int decode_complex_variable(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_print_complex_variable *h = (const void *)(w->p + off);
	const uint8_t *path = w->p + off + sizeof(*h);

	if (sizeof(*h) + h->access_path_len > len)
		return WBAD(w, off + offsetof(struct gs_print_complex_variable, access_path_len),
			    "PrintComplexVariable: access_path_len %u runs past data_length %u",
			    h->access_path_len, len);
	if (sizeof(*h) + h->access_path_len + h->data_len > len)
		return WBAD(w, off + offsetof(struct gs_print_complex_variable, data_len),
			    "PrintComplexVariable: data_len %u after a %u-byte access path runs "
			    "past data_length %u", h->data_len, h->access_path_len, len);
	set_value(w, &in->variable, (const struct gs_format_arg *)h, path,
		  path + h->access_path_len, h->data_len);
	if (!in->variable.name)
		return missing_name(w, off, "PrintComplexVariable", h->var_name_index);
	return 0;
}

/* Arguments: a gs_format_arg, access_path_len path bytes, a u16 data_len,
 * then data_len bytes, each checked against the instruction's end. */
static int decode_format(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_print_complex_format *h = (const void *)(w->p + off);
	struct gs_decoder *d = w->d;
	size_t pos = off + sizeof(*h), end = off + len;
	unsigned argc = h->arg_count;

	in->format.format_index = h->format_string_index;
	in->format.arg_count = h->arg_count;
	in->format.format = gs_context_get_string(w->ctx, h->format_string_index);
	in->format.args = d->values + w->nvalues;
	if (!in->format.format)
		return missing_string(w, off, "PrintComplexFormat", h->format_string_index);
	for (unsigned i = 0; i < argc; i++) {
		const struct gs_format_arg *a = (const void *)(w->p + pos);
		const uint8_t *path = w->p + pos + sizeof(*a);
		size_t room = end - pos;
		uint16_t data_len;

		if (room < sizeof(*a))
			return WBAD(w, pos, "PrintComplexFormat: argument %u of %u starts past "
				    "data_length %u", i + 1, argc, len);
		room -= sizeof(*a);
		if (room < (size_t)a->access_path_len + GS_FORMAT_ARG_DATA_LEN_SIZE)
			return WBAD(w, pos + offsetof(struct gs_format_arg, access_path_len),
				    "PrintComplexFormat: argument %u of %u: access_path_len %u runs "
				    "past data_length %u", i + 1, argc, a->access_path_len, len);
		room -= a->access_path_len + GS_FORMAT_ARG_DATA_LEN_SIZE;
		data_len = le16(path + a->access_path_len);
		if (room < data_len)
			return WBAD(w, pos + sizeof(*a) + a->access_path_len, "PrintComplexFormat: "
				    "argument %u of %u: data_len %u runs past data_length %u",
				    i + 1, argc, data_len, len);
		/* Each argument takes at least 8 bytes, and values_cap was sized
		 * for one per 8 bytes of the event; this cannot fire. */
		if (w->nvalues >= d->values_cap)
			return WBAD(w, pos, "PrintComplexFormat: too many arguments");
		set_value(w, &d->values[w->nvalues++], a, path,
			  path + a->access_path_len + GS_FORMAT_ARG_DATA_LEN_SIZE, data_len);
		pos += GS_FORMAT_ARG_FIXED_HEADER_LEN + a->access_path_len + data_len;
	}
	return 0;
}

static int decode_backtrace(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_backtrace_data *h = (const void *)(w->p + off);
	size_t room = (len - sizeof(*h)) / sizeof(struct gs_backtrace_frame);
	size_t at = off + offsetof(struct gs_backtrace_data, frame_count);

	in->backtrace.requested_depth = h->requested_depth;
	in->backtrace.frame_count = h->frame_count;
	in->backtrace.flags = h->flags;
	in->backtrace.status = h->status;
	in->backtrace.error_code = h->error_code;
	in->backtrace.frames = (const struct gs_backtrace_frame *)(w->p + off + sizeof(*h));
	if (h->frame_count > h->requested_depth)
		return WBAD(w, at, "Backtrace: frame_count %u exceeds requested_depth %u",
			    h->frame_count, h->requested_depth);
	if (h->frame_count > room)
		return WBAD(w, at, "Backtrace: frame_count %u exceeds the %zu frames data_length "
			    "%u holds", h->frame_count, room, len);
	return 0;
}

/* The bpf_loop walker's form (protocol.h 1.8b): frame words expanded into
 * gs_backtrace_frames in the decoder's storage; reported as a Backtrace. */
static int decode_backtrace_compact(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_backtrace_compact *h = (const void *)(w->p + off);
	const uint8_t *table = w->p + off + sizeof(*h);
	size_t at = off + offsetof(struct gs_backtrace_compact, frame_count);
	size_t room = len - sizeof(*h);
	struct gs_backtrace_frame *out = w->d->frames + w->nframes;

	in->type = GS_INST_BACKTRACE;
	in->backtrace.requested_depth = h->requested_depth;
	in->backtrace.frame_count = h->frame_count;
	in->backtrace.flags = h->flags;
	in->backtrace.status = h->status;
	in->backtrace.error_code = h->error_code;
	in->backtrace.frames = out;
	if (h->module_count > h->module_slots)
		return WBAD(w, off + offsetof(struct gs_backtrace_compact, module_count),
			    "Backtrace: module_count %u exceeds module_slots %u", h->module_count,
			    h->module_slots);
	if ((size_t)h->module_slots * sizeof(struct gs_bt_wire_module) > room)
		return WBAD(w, off + offsetof(struct gs_backtrace_compact, module_slots),
			    "Backtrace: %u module slots run past data_length %u",
			    h->module_slots, len);
	room -= (size_t)h->module_slots * sizeof(struct gs_bt_wire_module);
	if (h->frame_count > h->requested_depth)
		return WBAD(w, at, "Backtrace: frame_count %u exceeds requested_depth %u",
			    h->frame_count, h->requested_depth);
	if (h->frame_count > room / 8)
		return WBAD(w, at, "Backtrace: frame_count %u exceeds the %zu frames data_length "
			    "%u holds", h->frame_count, room / 8, len);
	/* frames_cap has one slot per 8 bytes of the event: this always fits. */
	for (unsigned i = 0; i < h->frame_count; i++) {
		uint64_t word = le64(table + 16u * h->module_slots + 8u * i);
		uint64_t ip = word & ((1ull << GS_BT_WIRE_IP_BITS) - 1);
		unsigned m = (unsigned)(word >> GS_BT_WIRE_IP_BITS);

		out[i] = (struct gs_backtrace_frame){ .pc = ip, .raw_ip = ip };
		if (m < h->module_count) {
			out[i].module_cookie = le64(table + 16u * m);
			out[i].pc = ip - le64(table + 16u * m + 8);
		}
	}
	w->nframes += h->frame_count;
	return 0;
}

static int decode_expr_error(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_expr_error *h = (const void *)(w->p + off);
	char *text;

	(void)len;
	in->expr_error.string_index = h->string_index;
	in->expr_error.error_code = h->error_code;
	in->expr_error.flags = h->flags;
	in->expr_error.failing_addr = h->failing_addr;
	in->expr_error.expr = gs_context_get_string(w->ctx, h->string_index);
	if (in->expr_error.expr)
		return 0;
	/* text_cap holds one slot per ExprError framed. */
	text = w->d->text + w->ntext;
	w->ntext += INVALID_EXPR_TEXT_MAX;
	snprintf(text, INVALID_EXPR_TEXT_MAX, "<INVALID_EXPR_INDEX_%u>", h->string_index);
	in->expr_error.expr = text;
	return 0;
}

static int decode_end(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_end_instruction *h = (const void *)(w->p + off);

	(void)len;
	in->end.total_instructions = h->total_instructions;
	in->end.execution_status = h->execution_status;
	return 0;
}

/* What framing knows of each instruction type; no decoder = unknown type. */
struct inst_kind {
	const char *name;
	uint16_t min_len; /* payload bytes at least */
	bool exact;       /* ... and at most */
	int (*decode)(struct walk *w, size_t off, uint16_t len, struct gs_inst *in);
};

static const struct inst_kind inst_kinds[256] = {
	[GS_INST_PRINT_STRING_INDEX] = { "PrintStringIndex",
		sizeof(struct gs_print_string_index), false, decode_string },
	[GS_INST_PRINT_VARIABLE_INDEX] = { "PrintVariableIndex",
		sizeof(struct gs_print_variable_index), false, decode_variable_index },
	[GS_INST_PRINT_COMPLEX_VARIABLE] = { "PrintComplexVariable",
		sizeof(struct gs_print_complex_variable), false, decode_complex_variable },
	[GS_INST_PRINT_COMPLEX_FORMAT] = { "PrintComplexFormat",
		sizeof(struct gs_print_complex_format), false, decode_format },
	[GS_INST_BACKTRACE] = { "Backtrace",
		sizeof(struct gs_backtrace_data), false, decode_backtrace },
	[GS_INST_BACKTRACE_COMPACT] = { "Backtrace",
		sizeof(struct gs_backtrace_compact), false, decode_backtrace_compact },
	[GS_INST_EXPR_ERROR] = { "ExprError",
		sizeof(struct gs_expr_error), false, decode_expr_error },
	[GS_INST_END] = { "EndInstruction",
		sizeof(struct gs_end_instruction), true, decode_end },
};

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
			return bad(d, err, base, base, "bad magic 0x%08x (expected 0x%08x)", magic,
				   GS_MAGIC);
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
		k = &inst_kinds[ih->inst_type];
		len = ih->data_length;
		if (!k->decode)
			return bad(d, err, base + at, base, "unknown instruction type 0x%02x",
				   ih->inst_type);
		if (len < k->min_len || (k->exact && len != k->min_len))
			return bad(d, err, len_at, base, "%s data_length %u, expected %s%u",
				   k->name, len, k->exact ? "" : "at least ", k->min_len);
		if (at + GS_INST_HEADER_SIZE + len > d->opts.max_event_size)
			return bad(d, err, len_at, base, "%s data_length %u takes the event past "
				   "%zu bytes (max_event_size) without an EndInstruction",
				   k->name, len, d->opts.max_event_size);
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

		return bad(d, err, at + DATA_LENGTH_AT, base, "%s data_length %u runs past the end "
			   "of the %s (%zu bytes of the event, %zu needed)",
			   inst_kinds[ih->inst_type].name, ih->data_length, what, avail, fr->need);
	}
	return bad(d, err, at, base, "the %s ends inside %s (%zu bytes of the event, %zu needed)",
		   what, piece, avail, fr->need);
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
		return bad(d, err, base + sizeof(struct gs_event_header), base,
			   "no trace context for trace id %llu", (unsigned long long)w.trace_id);
	if (reserve((void **)&d->insts, &d->insts_cap, d->fr.ninsts, sizeof(*d->insts)) ||
	    reserve((void **)&d->values, &d->values_cap, size / GS_FORMAT_ARG_FIXED_HEADER_LEN,
		    sizeof(*d->values)) ||
	    reserve((void **)&d->text, &d->text_cap, d->fr.nexprs * INVALID_EXPR_TEXT_MAX, 1) ||
	    reserve((void **)&d->frames, &d->frames_cap, size / 8, sizeof(*d->frames)))
		return gs_errorf(err, -ENOMEM, "out of memory decoding a %zu-byte event", size);

	for (size_t i = 0; i < d->fr.ninsts; i++) {
		const struct gs_inst_header *ih = (const void *)(p + off);
		struct gs_inst *in = &d->insts[i];
		int r;

		in->type = ih->inst_type;
		in->offset = (uint32_t)off;
		r = inst_kinds[in->type].decode(&w, off + GS_INST_HEADER_SIZE, ih->data_length, in);
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
		if (reserve((void **)&d->partial, &d->partial_cap, d->fr.need, 1))
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
		if (reserve((void **)&d->partial, &d->partial_cap, d->fr.need, 1))
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
