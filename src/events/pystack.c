/* A PythonStack instruction (gs/wire.h "Python stack") as the wire has it:
 * each frame's code object and instruction word, for the plain renderer
 * (render.c) and for what cannot be named. The printer shows these frames
 * named and in place among the native ones instead (frames_stack.c). */
#include <string.h>

#include "ev_int.h"

void ev_python_frame(const struct gs_inst *in, unsigned i, struct gs_python_frame *out)
{
	memcpy(out, in->python_stack.frames + sizeof(*out) * i, sizeof(*out));
}

void ev_put_python_stack(struct ev_out *o, const struct gs_inst *in, const char *indent)
{
	unsigned n = in->python_stack.frame_count;

	ev_put_str(o, "python stack: ");
	ev_put_str(o, gs_py_status_label(in->python_stack.status));
	ev_put(o, ", ", 2);
	ev_put_udec(o, n);
	ev_put_str(o, n == 1 ? " frame" : " frames");
	if (in->python_stack.minor) {
		ev_put_str(o, " (python3.");
		ev_put_udec(o, in->python_stack.minor);
		ev_put_char(o, ')');
	}
	for (unsigned i = 0; i < n; i++) {
		struct gs_python_frame f;

		ev_python_frame(in, i, &f);
		ev_put_char(o, '\n');
		ev_put_str(o, indent);
		ev_put_str(o, "  #");
		ev_put_udec(o, i);
		ev_put_str(o, " code=");
		ev_put_0x(o, f.code);
		ev_put_str(o, " instr=");
		ev_put_0x(o, f.instr & ~GS_PY_FRAME_CALL_END);
		if (f.instr & GS_PY_FRAME_CALL_END)
			ev_put_str(o, " call-end");
	}
}
