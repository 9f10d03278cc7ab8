/* The text layouts of reference 11.4: pretty (event header, items indented
 * two spaces, frames four) and plain (items verbatim, frames two), with
 * backtraces symbolized through gs_frames; everything else is the runtime's
 * own item text (gs_render_inst). Also the renderer's life cycle and the
 * timestamp styles. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gs/render.h>

#include "output_int.h"

/* ---- life cycle ------------------------------------------------------------ */

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int cli_out_new(const struct cli_out_opts *opts, FILE *f, struct cli_out **out, struct gs_error *err)
{
	struct gs_frames_opts fo = { .sz = sizeof(fo) };
	struct cli_out *o = calloc(1, sizeof(*o));
	int rc;

	*out = NULL;
	if (!o)
		return gs_errorf(err, -ENOMEM, "out of memory creating the output");
	o->opts = *opts;
	o->f = f;
	o->cached_sec = -1;
	o->boot_realtime_ns = opts->boot_realtime_ns;
	if (!o->boot_realtime_ns)
		o->boot_realtime_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	fo.pid = opts->pid;
	fo.modules = opts->modules;
	fo.nmodules = opts->nmodules;
	fo.files = opts->files;
	fo.no_demangle = opts->no_demangle;
	rc = gs_frames_new(&fo, &o->frames, err);
	if (rc) {
		cli_out_free(o);
		return rc;
	}
	if (out_fast_new(&o->fast)) /* without it, every frame the normal way */
		o->fast = NULL;
	*out = o;
	return 0;
}

void cli_out_free(struct cli_out *o)
{
	if (!o)
		return;
	out_fast_free(o->fast);
	gs_frames_free(o->frames);
	free(o);
}

/* ---- timestamps -------------------------------------------------------------- */

bool out_timestamp(struct cli_out *o, uint64_t ktime_ns, char *buf, size_t size)
{
	int64_t wall, sec;
	struct tm tm;

	switch (o->opts.timestamp) {
	case CLI_TS_NONE:
		return false;
	case CLI_TS_BOOT:
		snprintf(buf, size, "boot+%" PRIu64 ".%03" PRIu64 "s", ktime_ns / 1000000000u,
			 ktime_ns / 1000000u % 1000u);
		return true;
	case CLI_TS_LOCAL:
		break;
	}
	wall = o->boot_realtime_ns + (int64_t)ktime_ns;
	sec = wall / 1000000000ll;
	if (sec != o->cached_sec) {
		time_t t = (time_t)sec;

		if (!localtime_r(&t, &tm) ||
		    !strftime(o->cached_prefix, sizeof(o->cached_prefix), "%Y-%m-%d %H:%M:%S", &tm))
			snprintf(o->cached_prefix, sizeof(o->cached_prefix), "%" PRId64, sec);
		o->cached_sec = sec;
	}
	snprintf(buf, size, "%s.%03d", o->cached_prefix, (int)(wall / 1000000 % 1000));
	return true;
}

/* ---- text items -------------------------------------------------------------- */

/* Writes text, its first line after `first`, later lines after `more`. */
static void put_lines(FILE *f, const char *first, const char *more, const char *text)
{
	const char *indent = first;

	for (;;) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		fputs(indent, f);
		fwrite(text, 1, n, f);
		fputc('\n', f);
		if (!nl)
			return;
		text = nl + 1;
		indent = more;
	}
}

/* An item in the runtime's wording (anything but a backtrace). */
static void put_item(FILE *f, const struct gs_inst *in, const char *first, const char *more)
{
	char small[1024], *text = small;
	size_t n = gs_render_inst(in, small, sizeof(small));

	if (n >= sizeof(small)) {
		text = malloc(n + 1);
		if (!text) {
			put_lines(f, first, more, small);
			return;
		}
		gs_render_inst(in, text, n + 1);
	}
	put_lines(f, first, more, text);
	if (text != small)
		free(text);
}

/* ---- backtraces ---------------------------------------------------------------- */

/* Names, files and modules come from the target: escaped (gs/render.h). */
static void put_name(FILE *f, const char *s)
{
	gs_render_fputs(f, s, 0);
}

static void put_location(FILE *f, const char *file, int line, int col)
{
	if (!file) {
		fputs("??", f);
		return;
	}
	put_name(f, file);
	fprintf(f, ":%d", line);
	if (col > 0)
		fprintf(f, ":%d", col);
}

/* ` [module+0xpc]`, or ` [0xpc]` when the module is unknown. */
static void put_module(FILE *f, const struct gs_backtrace_frame *fr, const struct gs_frame *r)
{
	fputs(" [", f);
	if (r->resolved) {
		put_name(f, r->module);
		fprintf(f, "+0x%" PRIx64 "]", r->pc);
	} else {
		fprintf(f, "0x%" PRIx64 "]", fr->pc);
	}
}

void out_put_frame(struct cli_out *o, const char *indent, unsigned i, uint8_t flags,
		   const struct gs_backtrace_frame *fr, const struct gs_frame *r)
{
	const struct gs_sym_info *s = r->sym;
	FILE *f = o->f;

	if (flags & GS_BT_FLAG_RAW) {
		fprintf(f, "%s#%u 0x%" PRIx64, indent, i, r->pc);
		put_module(f, fr, r);
		fprintf(f, " raw=0x%" PRIx64 " cookie=0x%016" PRIx64, fr->raw_ip, r->cookie);
		if (fr->flags)
			fprintf(f, " flags=0x%x", fr->flags);
		fputc('\n', f);
		return;
	}
	if (r->signal_frame) {
		fprintf(f, "%s#%u %s", indent, i, GS_FRAME_SIGNAL_NAME);
		put_module(f, fr, r);
		fputc('\n', f);
		return;
	}
	if (!s) {
		fprintf(f, "%s#%u 0x%" PRIx64, indent, i, r->pc);
		put_module(f, fr, r);
		fputc('\n', f);
		return;
	}
	for (size_t k = 0; s->from_dwarf && (flags & GS_BT_FLAG_INLINE) && k < s->ninlines; k++) {
		const struct gs_sym_inline *in = &s->inlines[k];

		if (!in->name)
			continue;
		fprintf(f, "%s#%u.inline ", indent, i);
		put_name(f, gs_frames_name(o->frames, in->name));
		fputs(" at ", f);
		put_location(f, in->call_file, in->call_line, in->call_col);
		put_module(f, fr, r);
		fputc('\n', f);
	}
	fprintf(f, "%s#%u ", indent, i);
	put_name(f, r->function ? r->function : "<unknown function>");
	if (s->from_dwarf && s->params && s->params[0]) {
		fputc('(', f);
		put_name(f, s->params);
		fputc(')', f);
	}
	fputs(" at ", f);
	put_location(f, s->file, s->line, s->col);
	put_module(f, fr, r);
	fputc('\n', f);
}

/* Header, frames and stopped line; `indent` before the header and the
 * stopped line, `frame_indent` before frames. */
static void put_backtrace(struct cli_out *o, const struct gs_event *ev, const struct gs_inst *in,
			  const char *indent, const char *frame_indent)
{
	uint8_t status = gs_frames_status(o->frames, ev, in);
	unsigned n = in->backtrace.frame_count;
	const char *code_label;
	bool last_known;

	fprintf(o->f, "%sbacktrace: %s, %u %s (max %u)\n", indent, gs_bt_status_label(status), n,
		n == 1 ? "frame" : "frames", in->backtrace.requested_depth);
	last_known = out_fast_frames(o, ev, in, frame_indent);
	if (status == GS_BT_COMPLETE)
		return;
	fprintf(o->f, "%sstopped: %s", indent, gs_bt_status_label(status));
	code_label = gs_bt_error_label(in->backtrace.error_code);
	if (code_label && strcmp(code_label, "unknown") == 0)
		fprintf(o->f, " (code=%u)", in->backtrace.error_code);
	else if (code_label)
		fprintf(o->f, " (%s, code=%u)", code_label, in->backtrace.error_code);
	/* Where the walk cannot go on by design, say why (issue 11: JIT code). */
	else if (n && status == GS_BT_NO_UNWIND_ROWS_FOR_PC)
		fprintf(o->f, " (#%u: code without unwind information, such as JIT-generated or "
			"hand-written code)", n - 1);
	else if (n && status == GS_BT_OFFSETS_UNAVAILABLE && !last_known)
		fprintf(o->f, " (#%u: code no file maps, such as JIT-generated code)", n - 1);
	fputc('\n', o->f);
}

/* ---- events ---------------------------------------------------------------------- */

static void put_text_event(struct cli_out *o, const struct gs_event *ev)
{
	bool pretty = o->opts.format == CLI_PRETTY;
	const char *indent = pretty ? "  " : "";
	const char *frame_indent = pretty ? "    " : "  ";
	size_t items = 0;

	for (size_t i = 0; i < ev->ninsts; i++)
		items += ev->insts[i].type != GS_INST_END;
	/* An event that printed nothing shows nothing (reference 11.4). */
	if (!items)
		return;
	if (pretty) {
		char ts[64], header[160];

		gs_render_header(ev, out_timestamp(o, ev->timestamp, ts, sizeof(ts)) ? ts : NULL,
				 header, sizeof(header));
		fprintf(o->f, "%s\n", header);
	}
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type == GS_INST_END)
			continue;
		if (in->type == GS_INST_BACKTRACE)
			put_backtrace(o, ev, in, indent, frame_indent);
		else
			put_item(o->f, in, indent, pretty ? "    " : "");
	}
}

int cli_out_event(struct cli_out *o, const struct gs_event *ev)
{
	if (o->opts.format == CLI_JSON)
		out_json_event(o, ev);
	else
		put_text_event(o, ev);
	return ferror(o->f) ? -EIO : 0;
}

void cli_out_preload(struct cli_out *o, pid_t pid)
{
	gs_frames_preload(o->frames, pid);
}
