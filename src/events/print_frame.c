/* The lines of one symbolized backtrace frame as gstrace prints them
 * (docs/cli.md, "Output"): `#1 fn(params) at file:line:col [module+0xpc]`, an
 * `.inline` line per inline call, signal frames, raw frames with their
 * cookie, `NAME [jit 0xip]` for JIT code (its perf map's name, else
 * `[anon:jit]`), `[0xpc]` when the module is unknown. The frame-text cache
 * (print_cache.c) keeps what this writes; the printer (print.c) asks the
 * cache first and this file for what the cache cannot hold. */
#include <string.h>

#include "ev_int.h"

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

void ev_put_python_frame(struct ev_out *o, const char *indent, unsigned num,
			 const struct gs_stack_frame *f)
{
	ev_put_frame_line(o, indent, num);
	ev_put_char(o, ' ');
	if (f->function) {
		put_name(o, f->function);
		ev_put_str(o, " at ");
		put_location(o, f->file, f->line, 0);
	} else {
		ev_put_str(o, "<python code ");
		ev_put_0x(o, f->addr);
		ev_put_char(o, '>');
	}
	ev_put(o, " [", 2);
	put_name(o, f->runtime ? f->runtime : "python");
	ev_put_char(o, ']');
}

void ev_put_jit_frame(struct ev_out *o, const char *indent, unsigned num,
		      const struct gs_stack_frame *f)
{
	/* the runtime's name as it wrote it (docs/jit.md) */
	ev_put_frame_line(o, indent, num);
	ev_put_char(o, ' ');
	put_name(o, f->function ? f->function : GS_FRAME_JIT_NAME);
	ev_put(o, " [jit ", 6);
	ev_put_0x(o, f->addr);
	ev_put_char(o, ']');
}

void ev_put_frame(struct ev_out *o, struct gs_frames *frames, const char *indent, unsigned i,
		  uint8_t flags, const struct gs_backtrace_frame *fr, const struct gs_frame *r)
{
	const struct gs_sym_info *s = r->sym;

	ev_put_frame_line(o, indent, i);
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
		ev_put_frame_line(o, indent, i);
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
