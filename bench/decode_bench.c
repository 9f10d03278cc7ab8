/* Decoder and renderer throughput: 1,000,000 synthetic 64-byte events (a
 * PrintComplexFormat with one 12-byte read slot, or a PrintString and a
 * PrintComplexVariable, then EndInstruction) in one contiguous buffer, fed in
 * ring buffer mode in chunks of mixed sizes (page-sized reads, single
 * records, odd sizes that split events), then one record per chunk as a
 * ring buffer callback would. Rendering is timed on 4096 decoded events kept
 * aside, rendered round-robin 1,000,000 times in the pretty layout. Best of
 * three runs. Prints BENCH lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gs/decode.h>
#include <gs/render.h>

#include "base.h"

#define NEVENTS 1000000
#define EVENT_SIZE 64
#define RUNS 3
#define NKEPT 4096
#define KEPT_INSTS 4

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t put(uint8_t *p, size_t at, const void *src, size_t n)
{
	memcpy(p + at, src, n);
	return at + n;
}

static size_t put_inst(uint8_t *p, size_t at, uint8_t type, uint16_t len)
{
	struct gs_inst_header h = { .inst_type = type, .data_length = len };

	return put(p, at, &h, sizeof(h));
}

/* Event i at p: 64 bytes exactly. */
static void build_event(uint8_t *p, uint32_t i)
{
	struct gs_event_header h = { .magic = GS_MAGIC };
	struct gs_event_message m = { .trace_id = i % 2, .timestamp = 1000000000ULL + i * 997ULL,
				      .pid = 4242, .tid = 4242 + i % 8 };
	struct gs_end_instruction end = { .total_instructions = 2 };
	size_t at = 0;

	at = put(p, at, &h, sizeof(h));
	at = put(p, at, &m, sizeof(m));
	if (i % 2 == 0) {
		struct gs_print_complex_format f = { .format_string_index = 1, .arg_count = 1 };
		struct gs_format_arg a = { .var_name_index = 0, .type_index = 0 };
		uint16_t slot = 12;
		uint8_t data[12] = { 0 };

		memcpy(data, &i, sizeof(i));
		at = put_inst(p, at, GS_INST_PRINT_COMPLEX_FORMAT, 4 + 8 + 12);
		at = put(p, at, &f, sizeof(f));
		at = put(p, at, &a, sizeof(a));
		at = put(p, at, &slot, sizeof(slot));
		at = put(p, at, data, sizeof(data));
	} else {
		struct gs_print_string_index s = { .string_index = 0 };
		struct gs_print_complex_variable v = { .var_name_index = 1, .type_index = 1,
						       .access_path_len = 2, .data_len = 8 };
		uint64_t value = (uint64_t)i << 20;

		at = put_inst(p, at, GS_INST_PRINT_STRING_INDEX, sizeof(s));
		at = put(p, at, &s, sizeof(s));
		at = put_inst(p, at, GS_INST_PRINT_COMPLEX_VARIABLE, 8 + 2 + 8);
		at = put(p, at, &v, sizeof(v));
		at = put(p, at, "->", 2);
		at = put(p, at, &value, sizeof(value));
	}
	at = put_inst(p, at, GS_INST_END, sizeof(end));
	at = put(p, at, &end, sizeof(end));
	if (at != EVENT_SIZE)
		abort();
}

/* A decoded event copied out of the decoder's reused storage. */
struct kept {
	struct gs_event ev;
	struct gs_inst insts[KEPT_INSTS];
	struct gs_value args[KEPT_INSTS];
};

struct sink {
	size_t events;
	uint64_t sum;
	struct kept *kept; /* when set: keep the first NKEPT events */
	size_t nkept;
};

static void keep(struct kept *k, const struct gs_event *ev)
{
	size_t nargs = 0;

	if (ev->ninsts > KEPT_INSTS)
		abort();
	k->ev = *ev;
	memcpy(k->insts, ev->insts, ev->ninsts * sizeof(*ev->insts));
	k->ev.insts = k->insts;
	for (size_t i = 0; i < ev->ninsts; i++) {
		struct gs_inst *in = &k->insts[i];

		if (in->type != GS_INST_PRINT_COMPLEX_FORMAT)
			continue;
		if (nargs + in->format.arg_count > KEPT_INSTS)
			abort();
		memcpy(k->args + nargs, in->format.args, in->format.arg_count * sizeof(*k->args));
		in->format.args = k->args + nargs;
		nargs += in->format.arg_count;
	}
}

static int on_event(void *arg, const struct gs_event *ev)
{
	struct sink *s = arg;

	s->events++;
	s->sum += ev->tid + ev->insts[0].type;
	if (s->kept && s->nkept < NKEPT)
		keep(&s->kept[s->nkept++], ev);
	return 0;
}

/* Seconds to render NEVENTS kept events; *bytes gets the text length. */
static double render(const struct kept *kept, size_t *bytes)
{
	static const struct gs_render_opts opts = { .sz = sizeof(opts),
						    .timestamp = "2026-04-06 10:00:00.123" };
	char text[512];
	double t0 = now_s();

	*bytes = 0;
	for (size_t i = 0; i < NEVENTS; i++)
		*bytes += gs_render_event(&kept[i % NKEPT].ev, &opts, text, sizeof(text));
	return now_s() - t0;
}

/* Seconds to decode the buffer once, fed in chunks cycling through sizes. */
static double run(struct gs_decoder *d, const uint8_t *buf, size_t len, const size_t *sizes,
		  size_t nsizes, struct sink *sink)
{
	struct gs_error err;
	double t0 = now_s();
	size_t pos = 0, k = 0;

	gs_decoder_reset(d);
	sink->events = 0;
	while (pos < len) {
		size_t n = sizes[k++ % nsizes];

		if (n > len - pos)
			n = len - pos;
		if (gs_decoder_feed(d, buf + pos, n, on_event, sink, &err) < 0) {
			fprintf(stderr, "decode_bench: %s\n", err.msg);
			exit(1);
		}
		pos += n;
	}
	if (sink->events != NEVENTS || gs_decoder_finish(d, &err)) {
		fprintf(stderr, "decode_bench: decoded %zu of %d events\n", sink->events, NEVENTS);
		exit(1);
	}
	return now_s() - t0;
}

static double best(struct gs_decoder *d, const uint8_t *buf, size_t len, const size_t *sizes,
		   size_t nsizes, struct sink *sink)
{
	double b = 1e9;

	for (int i = 0; i < RUNS; i++) {
		double t = run(d, buf, len, sizes, nsizes, sink);

		b = t < b ? t : b;
	}
	return b;
}

int main(void)
{
	static const size_t mixed[] = { 4096, 64, 1500, 16384, 333, 4096, 8192, 100 };
	static const size_t record[] = { EVENT_SIZE };
	size_t len = (size_t)NEVENTS * EVENT_SIZE;
	uint8_t *buf = malloc(len);
	struct gs_trace_context ctx;
	const struct gs_trace_context *ctxs[2] = { &ctx, &ctx };
	GS_OPTS(gs_decoder_opts, opts, .mode = GS_DECODE_RINGBUF, .contexts = ctxs, .ncontexts = 2);
	struct gs_decoder *d;
	struct gs_error err;
	struct sink *sink = calloc(1, sizeof(*sink));
	double t_mixed, t_record, t_render;
	size_t text_bytes;

	if (!buf || !sink)
		return 1;
	gs_context_init(&ctx);
	gs_context_string(&ctx, "request done", NULL);
	gs_context_string(&ctx, "fd={} status=ok", NULL);
	gs_context_var_name(&ctx, "fd", NULL);
	gs_context_var_name(&ctx, "req", NULL);
	gs_context_type(&ctx, GS_TYPE_I32, 4, "int", NULL);
	gs_context_type(&ctx, GS_TYPE_U64, 8, "unsigned long", NULL);
	for (uint32_t i = 0; i < NEVENTS; i++)
		build_event(buf + (size_t)i * EVENT_SIZE, i);
	if (gs_decoder_new(&opts, &d, &err)) {
		fprintf(stderr, "decode_bench: %s\n", err.msg);
		return 1;
	}

	t_mixed = best(d, buf, len, mixed, BASE_ARRAY_SIZE(mixed), sink);
	/* One record per chunk: every event points into buf, so it can be kept. */
	sink->kept = calloc(NKEPT, sizeof(*sink->kept));
	if (!sink->kept)
		return 1;
	t_record = best(d, buf, len, record, 1, sink);
	t_render = 1e9;
	for (int i = 0; i < RUNS; i++) {
		double t = render(sink->kept, &text_bytes);

		t_render = t < t_render ? t : t_render;
	}

	printf("BENCH decode.events_per_s %.0f events/s\n", NEVENTS / t_mixed);
	printf("BENCH decode.mb_per_s %.1f MB/s\n", (double)len / t_mixed / 1e6);
	printf("BENCH decode.per_record.events_per_s %.0f events/s\n", NEVENTS / t_record);
	printf("BENCH render.events_per_s %.0f events/s\n", NEVENTS / t_render);
	printf("BENCH render.mb_per_s %.1f MB/s\n", (double)text_bytes / t_render / 1e6);
	fprintf(stderr, "decode_bench: %d events of %d bytes, checksum %llu\n", NEVENTS,
		EVENT_SIZE, (unsigned long long)sink->sum);

	gs_decoder_free(d);
	gs_context_fini(&ctx);
	free(sink->kept);
	free(sink);
	free(buf);
	return 0;
}
