/* A CPU sample's kernel stack (KernelStack, gs/wire.h 1.8c) as text: each
 * frame's address and, given a namer, its kernel function. The plain
 * renderer (render.c) has none and shows addresses; the printer (print.c)
 * names them from kallsyms (gs_frames_kernel_symbol). No resolver here:
 * a decode-only program links this without the module files. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ev_int.h"

uint64_t ev_kernel_frame(const struct gs_inst *in, unsigned i)
{
	uint64_t addr;

	memcpy(&addr, in->kernel_stack.addrs + 8u * i, 8);
	return addr;
}

void ev_put_kernel_stack(struct ev_out *o, ev_kernel_namer name, void *arg,
			 const struct gs_inst *in, const char *indent)
{
	unsigned n = in->kernel_stack.frame_count;

	ev_put_str(o, "kernel stack: ");
	ev_put_udec(o, n);
	ev_put_str(o, n == 1 ? " frame" : " frames");
	for (unsigned i = 0; i < n; i++) {
		uint64_t addr = ev_kernel_frame(in, i), off = 0;
		const char *fn = name ? name(arg, addr, &off) : NULL;

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
