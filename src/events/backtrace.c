/* The one text renderer of backtrace instructions, for every layout that
 * prints them: the header, each frame, and the line saying why the walk
 * stopped. Without symbolized frames it writes the protocol-default text
 * (gs_render_inst, gs/render.h: cookies and pcs as the wire has them);
 * with them, the symbolized text gstrace prints (gs_print_event,
 * docs/cli.md "Output"), each frame's lines from print_frame.c. The symbolized side comes in as
 * functions (struct ev_bt_frames), so a tool that only renders links no
 * frame resolver. */
#include <string.h>

#include "ev_int.h"

/* ---- frames ------------------------------------------------------------------------ */

/* `\n<indent>#<i>`: every line of a frame starts so. */
void ev_put_frame_line(struct ev_out *o, const char *indent, unsigned i)
{
	ev_put_char(o, '\n');
	ev_put_str(o, indent);
	ev_put_char(o, '#');
	ev_put_udec(o, i);
}

/* ` cookie=0x<016x> pc=0x<pc> raw=0x<ip>[ flags=0x<f>]`: the wire's frame. */
static void put_wire_frame(struct ev_out *o, const char *indent, unsigned i,
			   const struct gs_backtrace_frame *f)
{
	ev_put_frame_line(o, indent, i);
	ev_put_str(o, " cookie=0x");
	ev_put_hex(o, f->module_cookie, false, 16);
	ev_put_str(o, " pc=");
	ev_put_0x(o, f->pc);
	ev_put_str(o, " raw=");
	ev_put_0x(o, f->raw_ip);
	if (f->flags) {
		ev_put_str(o, " flags=");
		ev_put_0x(o, f->flags);
	}
}

/* ---- the backtrace ------------------------------------------------------------------ */

/* ` (<error>, code=<n>)`, ` (code=<n>)` for codes this library does not
 * know; with no error code, where the walk cannot go on by design the
 * symbolized text says why (JIT code). */
static void put_stop_reason(struct ev_out *o, const struct ev_bt_style *st,
			    const struct gs_inst *in, uint8_t status, unsigned n, bool last_known)
{
	uint16_t code = in->backtrace.error_code;
	const char *label = gs_bt_error_label(code);

	if (label) {
		ev_put(o, " (", 2);
		if (strcmp(label, "unknown") != 0) {
			ev_put_str(o, label);
			ev_put(o, ", ", 2);
		}
		ev_put_str(o, "code=");
		ev_put_udec(o, code);
		ev_put_char(o, ')');
		return;
	}
	if (!st->sym || !n)
		return;
	if (status == GS_BT_NO_UNWIND_ROWS_FOR_PC) {
		ev_put_str(o, " (#");
		ev_put_udec(o, n - 1);
		ev_put_str(o, ": code without unwind information, such as JIT-generated or "
			   "hand-written code)");
	} else if (status == GS_BT_OFFSETS_UNAVAILABLE && !last_known) {
		ev_put_str(o, " (#");
		ev_put_udec(o, n - 1);
		ev_put_str(o, ": code no file maps, such as JIT-generated code)");
	}
}

/* The frames of the stack bt shows, numbered from 0 as they are shown,
 * each through the printer. Whether the last frame is native with its
 * module known. */
static bool put_stack(struct ev_out *o, const struct ev_bt_style *st, const struct gs_inst *in,
		      const struct gs_stack *s)
{
	bool last_known = false;

	for (size_t k = s->kernel; k < s->count; k++) {
		const struct gs_stack_frame *f = &s->frames[k];
		unsigned num = (unsigned)(k - s->kernel);

		last_known = st->sym->put(o, st->sym, in, num, f, st->frame_indent);
	}
	return last_known;
}

/* After the frames: the Python walk's end when it did not reach the
 * thread's first frame. */
static void put_python_status(struct ev_out *o, const struct ev_bt_style *st,
			      const struct gs_stack *s)
{
	if (s->python_status != GS_PY_TRUNCATED && s->python_status != GS_PY_READ_ERROR)
		return;
	ev_put_char(o, '\n');
	ev_put_str(o, st->indent);
	ev_put_str(o, "python frames: ");
	ev_put_str(o, gs_py_status_label(s->python_status));
	ev_put_str(o, " after ");
	ev_put_udec(o, s->python_frames);
}

void ev_put_backtrace(struct ev_out *o, const struct ev_bt_style *st, const struct gs_event *ev,
		      const struct gs_inst *in)
{
	unsigned n = in->backtrace.frame_count;
	uint8_t status = st->sym ? st->sym->status(st->sym->frames, ev, in) : in->backtrace.status;
	bool last_known = false;
	struct gs_stack s = { 0 };

	if (st->sym) {
		st->sym->stack(st->sym->frames, ev, in, &s);
		n = (unsigned)(s.count - s.kernel);
		ev_put_str(o, "backtrace: ");
		ev_put_str(o, gs_bt_status_label(status));
		ev_put(o, ", ", 2);
		ev_put_udec(o, n);
		ev_put_str(o, n == 1 ? " frame (max " : " frames (max ");
		ev_put_udec(o, in->backtrace.requested_depth);
		ev_put_char(o, ')');
		last_known = put_stack(o, st, in, &s);
		put_python_status(o, st, &s);
	} else {
		ev_put_str(o, "backtrace(max_depth=");
		ev_put_udec(o, in->backtrace.requested_depth);
		ev_put_str(o, ", frames=");
		ev_put_udec(o, n);
		ev_put_str(o, ", status=");
		ev_put_str(o, gs_bt_status_label(status));
		ev_put_char(o, ')');
		for (unsigned i = 0; i < n; i++)
			put_wire_frame(o, st->frame_indent, i, &in->backtrace.frames[i]);
	}
	if (status == GS_BT_COMPLETE)
		return;
	ev_put_char(o, '\n');
	ev_put_str(o, st->indent);
	ev_put_str(o, "stopped: ");
	ev_put_str(o, gs_bt_status_label(status));
	put_stop_reason(o, st, in, status, n, last_known);
}
