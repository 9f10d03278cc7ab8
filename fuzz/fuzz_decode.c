/* libFuzzer target for the decoder and renderer. The input is either used
 * raw or, by its first byte, turned into a stream of mostly well-formed
 * events (so deep payload checks are reached, not just the magic). The
 * stream is decoded in ring buffer mode whole, split at a data-derived
 * point, and in small chunks, which must agree up to the first error (same
 * events, same error offset); then as perf records. Every event is rendered
 * into a large and a data-sized buffer, and printed as JSON. The contexts
 * also hold standard-library types with views (tests/runtime/view_types.h),
 * one context with small caps, so values reach the views' renderers with
 * their extensions whole, cut or garbled. Nothing may crash, over-read or
 * leak. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gs/decode.h>
#include <gs/print.h>
#include <gs/render.h>

#include "base.h"
#include "smoke.h"
#include "view_types.h"

#define STREAM_MAX 65536
#define TEXT_MAX (1 << 18)
#define FLAT_TYPES 9 /* build_context's flat types; the view types follow */
#define TYPES (FLAT_TYPES + BASE_ARRAY_SIZE(vt_types))

/* ---- the shaped stream ------------------------------------------------- */

struct reader {
	const uint8_t *p;
	size_t n, i;
};

struct stream {
	uint8_t *p;
	size_t len;
};

static uint8_t rd8(struct reader *r)
{
	return r->i < r->n ? r->p[r->i++] : 0;
}

static void put(struct stream *s, const void *src, size_t n)
{
	if (s->len + n > STREAM_MAX)
		return;
	memcpy(s->p + s->len, src, n);
	s->len += n;
}

static void put_fill(struct stream *s, struct reader *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t b = rd8(r);

		put(s, &b, 1);
	}
}

/* A length as built, or once in a while off by a little. */
static uint16_t skew(struct reader *r, size_t len)
{
	uint8_t k = rd8(r);

	return (uint16_t)(k < 240 ? len : len + (k & 7) - 4);
}

static void put_inst(struct stream *s, uint8_t type, uint16_t len)
{
	struct gs_inst_header h = { .inst_type = type, .data_length = len };

	put(s, &h, sizeof(h));
}

/* The fixed fields of a variable or format arg, then path bytes. */
static void put_value(struct stream *s, struct reader *r, bool is_arg)
{
	uint8_t path = rd8(r) % 4, data = rd8(r) % 17;
	size_t status_at = SIZE_MAX;
	struct gs_print_complex_variable v = {
		.var_name_index = rd8(r) % 3, .type_index = rd8(r) % (TYPES + 1),
		.access_path_len = (uint8_t)skew(r, path), .status = rd8(r) % 8,
	};

	/* a view's value: its bytes and its extension (at the small caps),
	 * or fewer */
	if (v.type_index >= FLAT_TYPES && v.type_index < TYPES) {
		const struct gs_type *t = vt_types[v.type_index - FLAT_TYPES];
		uint32_t whole = t->byte_size + gs_view_ext_size(&vt_caps, t, 0);

		data = (uint8_t)(rd8(r) < 192 ? whole : rd8(r) % (whole + 1));
		status_at = t->byte_size;
	}
	v.data_len = skew(r, data);

	if (!is_arg) {
		put_inst(s, GS_INST_PRINT_COMPLEX_VARIABLE, skew(r, sizeof(v) + path + data));
		put(s, &v, sizeof(v));
		put_fill(s, r, path);
	} else {
		put(s, &v, sizeof(struct gs_format_arg));
		put_fill(s, r, path);
		put(s, &v.data_len, sizeof(v.data_len));
	}
	/* the extension's status mostly Ok, so the views show what they read */
	for (size_t i = 0; i < data; i++) {
		uint8_t b = rd8(r);

		if (i == status_at && b < 192)
			b = GS_VAR_OK;
		put(s, &b, 1);
	}
}

static void put_format(struct stream *s, struct reader *r)
{
	struct gs_print_complex_format f = { .format_string_index = rd8(r) % 7,
					     .arg_count = rd8(r) % 4 };
	size_t at = s->len;
	uint16_t len;

	put_inst(s, GS_INST_PRINT_COMPLEX_FORMAT, 0);
	put(s, &f, sizeof(f));
	for (unsigned i = 0; i < f.arg_count; i++)
		put_value(s, r, true);
	if (at + GS_INST_HEADER_SIZE <= s->len) {
		len = skew(r, s->len - at - GS_INST_HEADER_SIZE);
		memcpy(s->p + at + 1, &len, sizeof(len));
	}
}

static void put_backtrace(struct stream *s, struct reader *r)
{
	uint8_t depth = rd8(r) % 4 + 1;
	struct gs_backtrace_data b = {
		.requested_depth = depth, .frame_count = rd8(r) % (depth + 2), .flags = rd8(r),
		.status = rd8(r) % 10, .error_code = rd8(r) % 8,
	};

	put_inst(s, GS_INST_BACKTRACE, skew(r, sizeof(b) + 32u * depth));
	put(s, &b, sizeof(b));
	put_fill(s, r, 32u * depth);
}

static void put_event(struct stream *s, struct reader *r)
{
	struct gs_event_header h = { .magic = GS_MAGIC };
	struct gs_event_message m = { .trace_id = rd8(r) % 3, .timestamp = rd8(r), .pid = rd8(r),
				      .tid = rd8(r) };
	unsigned n = rd8(r) % 6;

	put(s, &h, sizeof(h));
	put(s, &m, sizeof(m));
	for (unsigned i = 0; i < n; i++) {
		switch (rd8(r) % 8) {
		case 0:
			put_inst(s, GS_INST_PRINT_STRING_INDEX, skew(r, 2));
			put_fill(s, r, 2);
			break;
		case 1:
			put_value(s, r, false);
			break;
		case 2:
			put_format(s, r);
			break;
		case 3:
			put_backtrace(s, r);
			break;
		case 4:
			put_inst(s, GS_INST_EXPR_ERROR, skew(r, 12));
			put_fill(s, r, 12);
			break;
		case 5:
			put_inst(s, GS_INST_PRINT_VARIABLE_INDEX, 8 + 4);
			put_fill(s, r, 8 + 4);
			break;
		case 6: {
			uint8_t type = rd8(r);

			put_inst(s, type, rd8(r));
			break;
		}
		default:
			put_fill(s, r, rd8(r) % 3);
			break;
		}
	}
	put_inst(s, GS_INST_END, skew(r, 4));
	put_fill(s, r, 4);
}

static void shape(struct stream *s, const uint8_t *data, size_t size)
{
	struct reader r = { data, size, 0 };

	while (r.i < r.n && s->len < STREAM_MAX / 2)
		put_event(s, &r);
}

/* ---- decoding -------------------------------------------------------------- */

/* What one decode of the stream produced, up to its first error. */
struct outcome {
	size_t events;
	uint64_t hash;
	int err;
	uint64_t err_off;
};

struct run {
	struct outcome out;
	char *text;
	size_t small; /* size of the truncated rendering */
};

/* The JSON printer on the same event, into nothing. */
static void print_json(const struct gs_event *ev)
{
	GS_OPTS(gs_printer_opts, po, .format = GS_PRINT_JSON, .timestamp = GS_PRINT_TIME_NONE);
	struct gs_printer *p;
	FILE *f = fopen("/dev/null", "w");

	if (!f)
		abort();
	if (gs_printer_new(&po, &p, NULL) == 0) {
		gs_print_event(p, ev, f);
		gs_printer_free(p);
	}
	fclose(f);
}

static int on_event(void *arg, const struct gs_event *ev)
{
	struct run *run = arg;
	GS_OPTS(gs_render_opts, opts, .timestamp = "ts", .show_end = true);
	size_t n;

	if (ev->ninsts == 0 || ev->insts[ev->ninsts - 1].type != GS_INST_END ||
	    ev->size < GS_MIN_EVENT_SIZE)
		abort();
	n = gs_render_event(ev, &opts, run->text, TEXT_MAX);
	if (n < TEXT_MAX && strlen(run->text) != n)
		abort();
	for (size_t i = 0; i < n && i < TEXT_MAX; i++)
		run->out.hash = (run->out.hash ^ (uint8_t)run->text[i]) * 0x100000001b3ULL;
	if (gs_render_event(ev, &opts, run->text, run->small) != n)
		abort();
	opts.style = GS_RENDER_PLAIN;
	gs_render_event(ev, &opts, run->text, TEXT_MAX);
	print_json(ev);
	run->out.events++;
	return 0;
}

/* Feeds the stream in chunks of `chunk` bytes (the first one `first`). */
static struct outcome decode(const struct gs_decoder_opts *opts, const uint8_t *p, size_t len,
			     size_t first, size_t chunk, char *text, size_t small)
{
	struct run run = { .out.hash = 0xcbf29ce484222325ULL, .text = text, .small = small };
	struct gs_decoder *d;
	struct gs_error err;
	size_t pos = 0, nchunks = 0;
	int r = 0;

	if (gs_decoder_new(opts, &d, &err))
		abort();
	while (pos < len && r >= 0) {
		size_t n = nchunks++ == 0 ? first : chunk;
		/* An exact-size copy, so an over-read is caught. */
		uint8_t *c;

		if (n > len - pos)
			n = len - pos;
		c = malloc(n ? n : 1);
		if (!c)
			abort();
		memcpy(c, p + pos, n);
		r = gs_decoder_feed(d, c, n, on_event, &run, &err);
		free(c);
		pos += n;
	}
	if (r >= 0 && opts->mode == GS_DECODE_RINGBUF)
		r = gs_decoder_finish(d, &err);
	run.out.err = r < 0 ? r : 0;
	run.out.err_off = r < 0 ? gs_decoder_error_offset(d) : 0;
	if (r < 0 && r != -EBADMSG)
		abort();
	gs_decoder_free(d);
	return run.out;
}

static bool same(const struct outcome *a, const struct outcome *b)
{
	return a->events == b->events && a->hash == b->hash && a->err == b->err &&
	       a->err_off == b->err_off;
}

static void build_context(struct gs_trace_context *c, bool small_caps)
{
	static const char *const strings[] = {
		"hello", "x={} hex={:x}", "{:p} {:X} {{}} }} {", "{:s} {} {:x} {:X}", "", "expr",
	};
	static const struct gs_type types[] = {
		{ GS_TYPE_I32, 4, "int" }, { GS_TYPE_U64, 8, "u64" }, { GS_TYPE_POINTER, 8, "p" },
		{ GS_TYPE_BOOL, 1, "b" }, { GS_TYPE_CSTRING, 16, "s" }, { GS_TYPE_F64, 8, "d" },
		{ GS_TYPE_STRUCT, 16, "st" }, { GS_TYPE_CHAR, 1, "c" }, { GS_TYPE_F32, 0, "f" },
	};

	_Static_assert(BASE_ARRAY_SIZE(types) == FLAT_TYPES, "FLAT_TYPES counts them");
	gs_context_init(c);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(strings); i++)
		gs_context_string(c, strings[i], NULL);
	gs_context_var_name(c, "a", NULL);
	gs_context_var_name(c, "b", NULL);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(types); i++)
		gs_context_type(c, types[i].kind, types[i].size, types[i].name, NULL);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(vt_types); i++)
		gs_context_add_type(c, vt_types[i], NULL);
	if (small_caps)
		c->view_caps = vt_caps;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_trace_context ctx[2];
	const struct gs_trace_context *ctxs[2] = { &ctx[0], &ctx[1] };
	GS_OPTS(gs_decoder_opts, opts, .contexts = ctxs, .ncontexts = 2);
	struct stream s = { malloc(STREAM_MAX), 0 };
	char *text = malloc(TEXT_MAX);
	struct outcome whole, split, small;
	uint8_t ctl = size ? data[0] : 0;
	size_t cut, chunk, tiny;

	if (!s.p || !text)
		abort();
	build_context(&ctx[0], false);
	build_context(&ctx[1], true);
	if (ctl & 1) {
		shape(&s, data + !!size, size - !!size);
	} else {
		s.len = size > STREAM_MAX ? STREAM_MAX : size;
		memcpy(s.p, data, s.len);
	}
	if (ctl & 2)
		opts.max_event_size = 36 + (size_t)ctl * 8;
	cut = s.len ? (size_t)(size > 1 ? data[1] : 0) * 257 % (s.len + 1) : 0;
	chunk = (size_t)(ctl >> 2) % 31 + 1;
	tiny = (size_t)(ctl >> 3) * 3;

	opts.mode = GS_DECODE_RINGBUF;
	whole = decode(&opts, s.p, s.len, s.len, s.len, text, tiny);
	split = decode(&opts, s.p, s.len, cut, s.len, text, tiny);
	small = decode(&opts, s.p, s.len, chunk, chunk, text, tiny);
	if (!same(&whole, &split) || !same(&whole, &small))
		abort();

	opts.mode = GS_DECODE_PERF;
	decode(&opts, s.p, s.len, s.len, s.len, text, tiny);
	decode(&opts, s.p, s.len, cut, s.len, text, tiny);

	gs_context_fini(&ctx[0]);
	gs_context_fini(&ctx[1]);
	free(s.p);
	free(text);
	return 0;
}
