/* A CPU sample's kernel stack (KernelStack, gs/wire.h 1.8c) as text and
 * JSON: each frame's address and, with a resolver, its kernel function
 * from kallsyms (gs_frames_kernel_symbol). The plain renderer (render.c)
 * has no resolver and shows addresses; the printer (print.c) names them. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ev_int.h"
#include "json_int.h"

static uint64_t frame_addr(const struct gs_inst *in, unsigned i)
{
	uint64_t addr;

	memcpy(&addr, in->kernel_stack.addrs + 8u * i, 8);
	return addr;
}

void ev_put_kernel_stack(struct ev_out *o, struct gs_frames *f, const struct gs_inst *in,
			 const char *indent)
{
	unsigned n = in->kernel_stack.frame_count;

	ev_put_str(o, "kernel stack: ");
	ev_put_udec(o, n);
	ev_put_str(o, n == 1 ? " frame" : " frames");
	for (unsigned i = 0; i < n; i++) {
		uint64_t addr = frame_addr(in, i), off = 0;
		const char *fn = f ? gs_frames_kernel_symbol(f, addr, &off) : NULL;

		ev_put_char(o, '\n');
		ev_put_str(o, indent);
		ev_put_str(o, "  #");
		ev_put_udec(o, i);
		ev_put_char(o, ' ');
		ev_put_0x(o, addr);
		if (fn) {
			ev_put_char(o, ' ');
			ev_put_str(o, fn);
			ev_put_str(o, "+");
			ev_put_0x(o, off);
		}
		ev_put_str(o, " [kernel]");
	}
}

void ev_json_kernel_stack(FILE *out, struct gs_frames *f, const struct gs_inst *in)
{
	bool first = true;

	fputc('{', out);
	ev_json_key(out, &first, "kind");
	ev_json_str(out, "kernel_stack");
	ev_json_key(out, &first, "frames");
	fputc('[', out);
	for (unsigned i = 0; i < in->kernel_stack.frame_count; i++) {
		uint64_t addr = frame_addr(in, i), off = 0;
		const char *fn = f ? gs_frames_kernel_symbol(f, addr, &off) : NULL;
		bool ffirst = true;

		fputs(i ? ",{" : "{", out);
		ev_json_key(out, &ffirst, "index");
		fprintf(out, "%u", i);
		ev_json_key(out, &ffirst, "addr");
		fprintf(out, "\"0x%" PRIx64 "\"", addr);
		ev_json_key(out, &ffirst, "function");
		ev_json_str(out, fn);
		ev_json_key(out, &ffirst, "offset");
		if (fn)
			fprintf(out, "%" PRIu64, off);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("]}", out);
}
