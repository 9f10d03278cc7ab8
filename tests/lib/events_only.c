/* A tool that only decodes and renders events: linked with the events
 * layer (or libgs.a) and no libbpf. It decodes one hand-made event, prints
 * its plain rendering, and fails if a libbpf is mapped into the process:
 * decoding must not drag the loader in (src/events/meson.build). */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>

#include <gs/context.h>
#include <gs/decode.h>
#include <gs/render.h>

static int find_libbpf(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (strstr(info->dlpi_name, "libbpf")) {
		*(const char **)arg = info->dlpi_name;
		return 1;
	}
	return 0;
}

static size_t put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return n;
}

int main(void)
{
	struct gs_event_header h = { GS_MAGIC };
	struct gs_event_message m = { .trace_id = 0, .timestamp = 1, .pid = 7, .tid = 8 };
	struct gs_inst_header print = { GS_INST_PRINT_STRING_INDEX, 2, 0 }, end = { GS_INST_END, 4, 0 };
	struct gs_print_string_index idx = { 0 };
	struct gs_end_instruction e = { .total_instructions = 1 };
	unsigned char bytes[64];
	size_t n = 0;
	struct gs_trace_context ctx;
	const struct gs_trace_context *ctxs[1] = { &ctx };
	const struct gs_event *ev;
	struct gs_decoder *d;
	struct gs_error err;
	const char *bpf = NULL;
	char text[128];

	n += put(bytes + n, &h, sizeof(h));
	n += put(bytes + n, &m, sizeof(m));
	n += put(bytes + n, &print, sizeof(print));
	n += put(bytes + n, &idx, sizeof(idx));
	n += put(bytes + n, &end, sizeof(end));
	n += put(bytes + n, &e, sizeof(e));
	gs_context_init(&ctx);
	GS_OPTS(gs_decoder_opts, dopts, .mode = GS_DECODE_PERF, .contexts = ctxs, .ncontexts = 1);
	GS_OPTS(gs_render_opts, ropts, .style = GS_RENDER_PLAIN);
	if (gs_context_string(&ctx, "decoded without libbpf", &err) != 0 ||
	    gs_decoder_new(&dopts, &d, &err) || gs_decoder_push(d, bytes, n, &err) ||
	    gs_decoder_next(d, &ev, &err) != 1) {
		fprintf(stderr, "events_only: %s\n", err.msg);
		return 1;
	}
	gs_render_event(ev, &ropts, text, sizeof(text));
	fputs(text, stdout);
	gs_decoder_free(d);
	gs_context_fini(&ctx);
	dl_iterate_phdr(find_libbpf, &bpf);
	if (bpf) {
		fprintf(stderr, "events_only: %s is loaded: the decoder must not need libbpf\n", bpf);
		return 1;
	}
	return strcmp(text, "decoded without libbpf\n") != 0;
}
