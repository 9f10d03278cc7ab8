/* The one text renderer of backtrace instructions, for every layout that
 * prints them: the header, each frame, and the line saying why the walk
 * stopped. Without a frame resolver it writes the protocol-default text of
 * spec 10 (gs_render_inst: cookies and pcs as the wire has them); with one,
 * the symbolized text of spec 11 that gstrace prints (gs_print_event:
 * `#1 fn(params) at file:line:col [module+0xpc]`, inline calls, signal
 * frames), each frame's text from the frame-text cache when it holds it. */
#include <string.h>

#include <gs/frames.h>

#include "ev_int.h"

/* ---- symbolized frames ------------------------------------------------------- */

/* Names, files and modules come from the target: escaped (gs/render.h). */
static void put_name(struct ev_out *o, const char *s)
{
	ev_put_text(o, (const uint8_t *)s, strlen(s), 0, 0);
}

static void put_location(struct ev_out *o, const char *file, int line, int col)
{
	if (!file) {
		ev_put(o, "??", 2);
		return;
	}
	put_name(o, file);
	ev_put_char(o, ':');
	ev_put_sdec(o, line);
	if (col > 0) {
		ev_put_char(o, ':');
		ev_put_sdec(o, col);
	}
}

/* ` [module+0xpc]`, or ` [0xpc]` when the module is unknown. */
static void put_module(struct ev_out *o, const struct gs_backtrace_frame *fr,
		       const struct gs_frame *r)
{
	ev_put(o, " [", 2);
	if (r->resolved) {
		put_name(o, r->module);
		ev_put(o, "+", 1);
		ev_put_0x(o, r->pc);
	} else {
		ev_put_0x(o, fr->pc);
	}
	ev_put_char(o, ']');
}

/* `\n<indent>#<i>`: every line of a frame starts so. */
static void put_frame_line(struct ev_out *o, const char *indent, unsigned i)
{
	ev_put_char(o, '\n');
	ev_put_str(o, indent);
	ev_put_char(o, '#');
	ev_put_udec(o, i);
}

void ev_put_frame(struct ev_out *o, struct gs_frames *frames, const char *indent, unsigned i,
		  uint8_t flags, const struct gs_backtrace_frame *fr, const struct gs_frame *r)
{
	const struct gs_sym_info *s = r->sym;

	put_frame_line(o, indent, i);
	if (flags & GS_BT_FLAG_RAW) {
		ev_put_char(o, ' ');
		ev_put_0x(o, r->pc);
		put_module(o, fr, r);
		ev_put_str(o, " raw=");
		ev_put_0x(o, fr->raw_ip);
		ev_put_str(o, " cookie=0x");
		ev_put_hex(o, r->cookie, false, 16);
		if (fr->flags) {
			ev_put_str(o, " flags=");
			ev_put_0x(o, fr->flags);
		}
		return;
	}
	if (r->signal_frame) {
		ev_put_char(o, ' ');
		ev_put_str(o, GS_FRAME_SIGNAL_NAME);
		put_module(o, fr, r);
		return;
	}
	if (!s) {
		ev_put_char(o, ' ');
		ev_put_0x(o, r->pc);
		put_module(o, fr, r);
		return;
	}
	for (size_t k = 0; s->from_dwarf && (flags & GS_BT_FLAG_INLINE) && k < s->ninlines; k++) {
		const struct gs_sym_inline *in = &s->inlines[k];

		if (!in->name)
			continue;
		ev_put_str(o, ".inline ");
		put_name(o, gs_frames_name(frames, in->name));
		ev_put_str(o, " at ");
		put_location(o, in->call_file, in->call_line, in->call_col);
		put_module(o, fr, r);
		put_frame_line(o, indent, i);
	}
	ev_put_char(o, ' ');
	put_name(o, r->function ? r->function : "<unknown function>");
	if (s->from_dwarf && s->params && s->params[0]) {
		ev_put_char(o, '(');
		put_name(o, s->params);
		ev_put_char(o, ')');
	}
	ev_put_str(o, " at ");
	put_location(o, s->file, s->line, s->col);
	put_module(o, fr, r);
}

/* ---- the protocol-default frame ------------------------------------------------- */

static void put_wire_frame(struct ev_out *o, const char *indent, unsigned i,
			   const struct gs_backtrace_frame *f)
{
	put_frame_line(o, indent, i);
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

/* Frame i, resolved: from the cache when it can hold the frame's text (a
 * symbolized, resolved frame that is not raw or a signal frame), else
 * rendered now. Whether its module is known. */
static bool put_symbolized_frame(struct ev_out *o, const struct ev_bt_style *st,
				 const struct gs_event *ev, const struct gs_inst *in, unsigned i)
{
	const struct gs_backtrace_frame *fr = &in->backtrace.frames[i];
	/* what a symbolized frame's text depends on */
	uint8_t flags = in->backtrace.flags & GS_BT_FLAG_INLINE;
	bool raw = in->backtrace.flags & GS_BT_FLAG_RAW;
	struct gs_frame r;

	gs_frames_resolve(st->frames, ev, in, i, &r);
	if (!(st->cache && !raw && r.sym && r.resolved && !r.signal_frame &&
	      ev_frame_cache_put(o, st->cache, st->frames, st->frame_indent, i, flags, fr, &r)))
		ev_put_frame(o, st->frames, st->frame_indent, i, in->backtrace.flags, fr, &r);
	return r.resolved;
}

/* ` (<error>, code=<n>)`, ` (code=<n>)` for codes this library does not
 * know; with no error code, where the walk cannot go on by design the
 * symbolized text says why (issue 11: JIT code). */
static void put_stop_reason(struct ev_out *o, const struct ev_bt_style *st,
			    const struct gs_inst *in, uint8_t status, bool last_known)
{
	uint16_t code = in->backtrace.error_code;
	const char *label = gs_bt_error_label(code);
	unsigned n = in->backtrace.frame_count;

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
	if (!st->frames || !n)
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

void ev_put_backtrace(struct ev_out *o, const struct ev_bt_style *st, const struct gs_event *ev,
		      const struct gs_inst *in)
{
	unsigned n = in->backtrace.frame_count;
	uint8_t status = st->frames ? gs_frames_status(st->frames, ev, in) : in->backtrace.status;
	bool last_known = false;

	if (st->frames) {
		ev_put_str(o, "backtrace: ");
		ev_put_str(o, gs_bt_status_label(status));
		ev_put(o, ", ", 2);
		ev_put_udec(o, n);
		ev_put_str(o, n == 1 ? " frame (max " : " frames (max ");
		ev_put_udec(o, in->backtrace.requested_depth);
		ev_put_char(o, ')');
	} else {
		ev_put_str(o, "backtrace(max_depth=");
		ev_put_udec(o, in->backtrace.requested_depth);
		ev_put_str(o, ", frames=");
		ev_put_udec(o, n);
		ev_put_str(o, ", status=");
		ev_put_str(o, gs_bt_status_label(status));
		ev_put_char(o, ')');
	}
	for (unsigned i = 0; i < n; i++) {
		if (st->frames)
			last_known = put_symbolized_frame(o, st, ev, in, i);
		else
			put_wire_frame(o, st->frame_indent, i, &in->backtrace.frames[i]);
	}
	if (status == GS_BT_COMPLETE)
		return;
	ev_put_char(o, '\n');
	ev_put_str(o, st->indent);
	ev_put_str(o, "stopped: ");
	ev_put_str(o, gs_bt_status_label(status));
	put_stop_reason(o, st, in, status, last_known);
}
