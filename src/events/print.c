/* The printer of gs/print.h: events as gstrace prints them. The text
 * layouts of docs/cli.md ("Output"), pretty (event header, items indented two
 * spaces, frames four) and plain (items verbatim, frames two), with
 * backtraces symbolized by the one backtrace renderer (backtrace.c), each
 * frame from the frame-text cache (print_cache.c) or its writer
 * (print_frame.c), and everything else in the runtime's own item text
 * (gs_render_inst); JSON is print_json.c's, the timestamp styles
 * print_time.c's. Also the printer's life cycle. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opts.h"
#include "print_int.h"

/* ---- life cycle ------------------------------------------------------------ */

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int gs_printer_new(const struct gs_printer_opts *opts, struct gs_printer **out,
		   struct gs_error *err)
{
	struct gs_printer_opts po;
	struct gs_printer *p;
	int rc;

	*out = NULL;
	rc = OPTS_COPY(&po, opts, gs_printer_opts, err);
	if (rc)
		return rc;
	if ((unsigned)po.format > GS_PRINT_JSON || (unsigned)po.timestamp > GS_PRINT_TIME_NONE)
		return gs_errorf(err, -EINVAL, "gs_printer_opts: format %u or timestamp %u is not "
				 "one of enum gs_print_format / gs_print_time",
				 (unsigned)po.format, (unsigned)po.timestamp);
	p = calloc(1, sizeof(*p));
	if (!p)
		return gs_errorf(err, -ENOMEM, "out of memory creating the printer");
	p->opts = po;
	p->cached_sec = -1;
	p->text.grow = p->item.grow = true;
	if (!p->opts.boot_realtime_ns)
		p->opts.boot_realtime_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	p->frames = po.frames;
	if (!p->frames) {
		rc = gs_frames_new(NULL, &p->own_frames, err);
		if (rc) {
			gs_printer_free(p);
			return rc;
		}
		p->frames = p->own_frames;
	}
	if (ev_frame_cache_new(&p->cache)) /* without it, every frame the normal way */
		p->cache = NULL;
	*out = p;
	return 0;
}

void gs_printer_free(struct gs_printer *p)
{
	if (!p)
		return;
	ev_frame_cache_free(p->cache);
	gs_frames_free(p->own_frames);
	free(p->text.buf);
	free(p->item.buf);
	free(p);
}

struct gs_frames *gs_printer_frames(const struct gs_printer *p)
{
	return p->frames;
}

/* ---- text items -------------------------------------------------------------- */

/* An item in the runtime's wording (anything but a backtrace), its first
 * line after `first`, later lines after `more`, each ending in '\n'. */
static void put_item(struct gs_printer *p, const struct gs_inst *in, const char *first,
		     const char *more)
{
	const char *text, *indent = first;

	p->item.len = 0;
	ev_put_inst(&p->item, in, "");
	ev_done(&p->item);
	for (text = p->item.buf ? p->item.buf : "";;) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		ev_put_str(&p->text, indent);
		ev_put(&p->text, text, n);
		ev_put_char(&p->text, '\n');
		if (!nl)
			return;
		text = nl + 1;
		indent = more;
	}
}

/* ---- events ---------------------------------------------------------------------- */

/* Native frame i (resolved: r), shown as frame num: from the cache when it
 * can hold the frame's text (a symbolized, resolved frame that is not raw
 * or a signal frame), else rendered now (print_frame.c). Whether its
 * module is known. */
static bool put_native_frame(struct ev_out *o, const struct ev_bt_frames *sym,
			     const struct gs_inst *in, unsigned i, unsigned num,
			     const struct gs_frame *r, const char *indent)
{
	const struct gs_backtrace_frame *fr = &in->backtrace.frames[i];
	/* what a symbolized frame's text depends on */
	uint8_t flags = in->backtrace.flags & GS_BT_FLAG_INLINE;
	bool raw = in->backtrace.flags & GS_BT_FLAG_RAW;

	if (!(sym->cache && !raw && r->sym && r->resolved && !r->signal_frame &&
	      ev_frame_cache_put(o, sym->cache, sym->frames, indent, num, flags, fr, r)))
		ev_put_frame(o, sym->frames, indent, num, in->backtrace.flags, fr, r);
	return r->resolved;
}

/* Frame f of a shown stack, by its kind (print_frame.c). */
static bool put_symbolized_frame(struct ev_out *o, const struct ev_bt_frames *sym,
				 const struct gs_inst *in, unsigned num,
				 const struct gs_stack_frame *f, const char *indent)
{
	switch (f->kind) {
	case GS_FRAME_PYTHON:
		ev_put_python_frame(o, indent, num, f);
		return false;
	case GS_FRAME_JIT:
		ev_put_jit_frame(o, indent, num, f);
		return false;
	default:
		return put_native_frame(o, sym, in, f->index, num, &f->native, indent);
	}
}

/* A kernel frame's name, from the printer's resolver. */
static const char *kernel_name(void *frames, uint64_t addr, uint64_t *off)
{
	return gs_frames_kernel_symbol(frames, addr, off);
}

static void put_text_event(struct gs_printer *p, const struct gs_event *ev)
{
	bool pretty = p->opts.format == GS_PRINT_PRETTY;
	struct ev_bt_frames sym = {
		.frames = p->frames, .cache = p->cache,
		.status = gs_frames_status, .stack = gs_frames_stack, .put = put_symbolized_frame,
	};
	struct ev_bt_style st = {
		.indent = pretty ? "  " : "", .frame_indent = pretty ? "    " : "  ", .sym = &sym,
	};
	size_t items = 0;

	for (size_t i = 0; i < ev->ninsts; i++)
		items += ev->insts[i].type != GS_INST_END;
	/* An event that printed nothing shows nothing (docs/cli.md, "Output"). */
	if (!items)
		return;
	if (pretty) {
		char ts[64], header[160];

		gs_render_header(ev, ev_print_timestamp(p, ev->timestamp, ts, sizeof(ts)) ? ts : NULL,
				 header, sizeof(header));
		ev_put_str(&p->text, header);
		ev_put_char(&p->text, '\n');
	}
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type == GS_INST_END)
			continue;
		if (in->type == GS_INST_BACKTRACE) {
			ev_put_str(&p->text, st.indent);
			ev_put_backtrace(&p->text, &st, ev, in);
			ev_put_char(&p->text, '\n');
		} else if (in->type == GS_INST_PYTHON_STACK) {
			/* shown in place by its backtrace (gs_frames_stack) */
		} else if (in->type == GS_INST_KERNEL_STACK) {
			ev_put_str(&p->text, st.indent);
			ev_put_kernel_stack(&p->text, kernel_name, p->frames, in, st.indent);
			ev_put_char(&p->text, '\n');
		} else {
			put_item(p, in, st.indent, pretty ? "    " : "");
		}
	}
}

int gs_print_event(struct gs_printer *p, const struct gs_event *ev, FILE *f)
{
	if (p->opts.format == GS_PRINT_JSON) {
		ev_print_json(p, ev, f);
	} else {
		p->text.len = 0;
		put_text_event(p, ev);
		if (p->text.len)
			fwrite(p->text.buf, 1, p->text.len < p->text.size ? p->text.len :
			       p->text.size ? p->text.size - 1 : 0, f);
	}
	return ferror(f) ? -EIO : 0;
}
