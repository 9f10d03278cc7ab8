/* The JSON printer (gs/print.h, --script-output json): one object per
 * event per line. Literal strings are strings; values, formats, expression
 * errors and backtraces are objects with a "kind". A value is typed
 * (value_json.c), or {"status": ...} when there is none (optimized out,
 * read errors). Strings are escaped by json.c (RFC 8259), and bytes that
 * are not UTF-8 become U+FFFD, so every line parses whatever the target's
 * memory held. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/format.h>
#include <gs/render.h>

#include "base.h"
#include "print_int.h"
#include "json_int.h"
#include "view_parts.h"

/* The runtime's text of an item, as a JSON string. */
static void json_item_text(FILE *f, const struct gs_inst *in)
{
	char small[1024], *text = small;
	size_t n = gs_render_inst(in, small, sizeof(small));

	if (n >= sizeof(small) && (text = malloc(n + 1)) != NULL)
		gs_render_inst(in, text, n + 1);
	if (!text)
		text = small;
	ev_json_str(f, text);
	if (text != small)
		free(text);
}

/* ---- values ---------------------------------------------------------------- */

static const char *const status_keys[] = {
	"ok", "null_deref", "read_error", "access_error", "truncated", "offsets_unavailable",
	"zero_length", "division_by_zero", "tls_not_allocated", "optimized_out",
};

/* A value's typed JSON: its value, or {"status": ...} when it has none. */
static void json_value_of(FILE *f, const struct gs_value *v)
{
	struct gs_type flat = { .kind = v->kind, .name = "?" };
	const struct gs_type *t = v->type && v->type->kind == v->kind ? v->type : &flat;
	bool first = true;

	if (v->status == GS_VAR_OK || (v->status == GS_VAR_TRUNCATED && v->data_len)) {
		size_t len;
		struct ev_ext x = ev_value_ext(t, v, &len);

		ev_json_typed(f, t, v->data, len, 0, x);
		return;
	}
	fputc('{', f);
	ev_json_key(f, &first, "status");
	ev_json_str(f, v->status < BASE_ARRAY_SIZE(status_keys) ?
		 status_keys[v->status] : "error");
	if (v->status == GS_VAR_READ_ERROR && v->data_len >= sizeof(struct gs_read_error_payload)) {
		const struct gs_read_error_payload *e = (const void *)v->data;

		ev_json_key(f, &first, "errno");
		fprintf(f, "%d", e->errno_value);
		ev_json_key(f, &first, "addr");
		fprintf(f, "\"0x%" PRIx64 "\"", e->addr);
	}
	fputc('}', f);
}

/* The fields every value item and format argument has. */
static void json_value_fields(FILE *f, bool *first, const struct gs_value *v)
{
	ev_json_key(f, first, "name");
	ev_json_str(f, v->name);
	if (v->access_path_len) {
		ev_json_key(f, first, "path");
		ev_json_strn(f, v->access_path, v->access_path_len);
	}
	ev_json_key(f, first, "type");
	ev_json_str(f, v->type ? v->type->name : NULL);
	ev_json_key(f, first, "status");
	ev_json_str(f, v->status < BASE_ARRAY_SIZE(status_keys) ?
		 status_keys[v->status] : "error");
	ev_json_key(f, first, "value");
	json_value_of(f, v);
}

static void json_value(FILE *f, const struct gs_value *v)
{
	char small[1024], *text = small;
	size_t n = gs_render_value(v, 0, small, sizeof(small));
	bool first = true;

	if (n >= sizeof(small) && (text = malloc(n + 1)) != NULL)
		gs_render_value(v, 0, text, n + 1);
	if (!text)
		text = small;
	fputc('{', f);
	ev_json_key(f, &first, "kind");
	ev_json_str(f, "value");
	json_value_fields(f, &first, v);
	ev_json_key(f, &first, "text");
	ev_json_str(f, text);
	fputc('}', f);
	if (text != small)
		free(text);
}

/* print "fmt", args: the rendered text, the format and each argument. */
static void json_format(FILE *f, const struct gs_inst *in)
{
	bool first = true;
	struct gs_fmt_item it = { .kind = GS_FMT_TEXT };
	size_t pos = 0;
	unsigned next = 0; /* the arguments the placeholders up to `it` take */

	fputc('{', f);
	ev_json_key(f, &first, "kind");
	ev_json_str(f, "format");
	ev_json_key(f, &first, "text");
	json_item_text(f, in);
	ev_json_key(f, &first, "format");
	ev_json_str(f, in->format.format);
	ev_json_key(f, &first, "args");
	fputc('[', f);
	for (unsigned i = 0; i < in->format.arg_count; i++) {
		const struct gs_value *v = &in->format.args[i];
		bool afirst = true;
		struct gs_value dump;

		/* a dump's argument: the bytes its length says, as the text */
		while (i >= next && gs_fmt_next(in->format.format, &pos, &it))
			if (it.kind == GS_FMT_VALUE || it.kind == GS_FMT_BAD_SPEC)
				next += it.kind == GS_FMT_VALUE ? gs_fmt_args(&it) : 1;
		if (i + 1 == next && it.kind == GS_FMT_VALUE && next <= in->format.arg_count &&
		    ev_fmt_dump(&it, &in->format.args[next - gs_fmt_args(&it)], &dump))
			v = &dump;
		if (i)
			fputc(',', f);
		fputc('{', f);
		json_value_fields(f, &afirst, v);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void json_line(FILE *f, bool *first, const char *file, int line, int col)
{
	ev_json_key(f, first, "file");
	ev_json_str(f, file);
	ev_json_key(f, first, "line");
	if (file && line > 0)
		fprintf(f, "%d", line);
	else
		fputs("null", f);
	ev_json_key(f, first, "column");
	if (file && col > 0)
		fprintf(f, "%d", col);
	else
		fputs("null", f);
}

static void json_frame(struct gs_printer *o, FILE *f, unsigned i, uint8_t flags,
		       const struct gs_backtrace_frame *fr, const struct gs_stack_frame *sf)
{
	const struct gs_frame *r = &sf->native;
	const struct gs_sym_info *s = r->sym;
	bool first = true;

	fputc('{', f);
	ev_json_key(f, &first, "index");
	fprintf(f, "%u", i);
	/* JIT code: the function is its perf map's name (docs/jit.md) */
	ev_json_key(f, &first, "kind");
	ev_json_str(f, sf->kind == GS_FRAME_JIT ? "jit" : "native");
	ev_json_key(f, &first, "function");
	if (r->signal_frame)
		ev_json_str(f, GS_FRAME_SIGNAL_NAME);
	else if (sf->kind == GS_FRAME_JIT)
		ev_json_str(f, sf->function ? sf->function : GS_FRAME_JIT_NAME);
	else
		ev_json_str(f, s ? (r->function ? r->function : "<unknown function>") : NULL);
	ev_json_key(f, &first, "params");
	ev_json_str(f, s && s->from_dwarf ? s->params : NULL);
	json_line(f, &first, s ? s->file : NULL, s ? s->line : 0, s ? s->col : 0);
	ev_json_key(f, &first, "module");
	ev_json_str(f, r->resolved ? r->module : NULL);
	ev_json_key(f, &first, "offset");
	if (r->resolved)
		fprintf(f, "%" PRIu64, r->pc);
	else
		fputs("null", f);
	ev_json_key(f, &first, "pc");
	fprintf(f, "%" PRIu64, fr->pc);
	ev_json_key(f, &first, "raw_ip");
	fprintf(f, "%" PRIu64, fr->raw_ip);
	ev_json_key(f, &first, "cookie");
	fprintf(f, "\"0x%016" PRIx64 "\"", r->cookie);
	ev_json_key(f, &first, "inline");
	fputc('[', f);
	for (size_t k = 0; s && s->from_dwarf && (flags & GS_BT_FLAG_INLINE) && k < s->ninlines;
	     k++) {
		const struct gs_sym_inline *in = &s->inlines[k];
		bool ifirst = true;

		if (k)
			fputc(',', f);
		fputc('{', f);
		ev_json_key(f, &ifirst, "function");
		ev_json_str(f, gs_frames_name(o->frames, in->name));
		json_line(f, &ifirst, in->call_file, in->call_line, in->call_col);
		fputc('}', f);
	}
	fputs("]}", f);
}

/* A Python frame: its function, file and line, the interpreter, and the
 * code object it ran (nulls where it could not be named). */
static void json_python_frame(FILE *f, unsigned i, const struct gs_stack_frame *fr)
{
	bool first = true;

	fputc('{', f);
	ev_json_key(f, &first, "index");
	fprintf(f, "%u", i);
	ev_json_key(f, &first, "kind");
	ev_json_str(f, "python");
	ev_json_key(f, &first, "function");
	ev_json_str(f, fr->function);
	json_line(f, &first, fr->file, fr->line, 0);
	ev_json_key(f, &first, "first_line");
	if (fr->first_line > 0)
		fprintf(f, "%d", fr->first_line);
	else
		fputs("null", f);
	ev_json_key(f, &first, "runtime");
	ev_json_str(f, fr->runtime);
	ev_json_key(f, &first, "code");
	fprintf(f, "\"0x%" PRIx64 "\"", fr->addr);
	fputc('}', f);
}

static void json_backtrace(struct gs_printer *o, FILE *f, const struct gs_event *ev,
			   const struct gs_inst *in)
{
	uint8_t status = gs_frames_status(o->frames, ev, in);
	const char *code_label = gs_bt_error_label(in->backtrace.error_code);
	bool first = true;
	struct gs_stack st;

	fputc('{', f);
	ev_json_key(f, &first, "kind");
	ev_json_str(f, "backtrace");
	ev_json_key(f, &first, "status");
	ev_json_str(f, gs_bt_status_label(status));
	ev_json_key(f, &first, "error");
	ev_json_str(f, code_label);
	ev_json_key(f, &first, "error_code");
	fprintf(f, "%u", in->backtrace.error_code);
	ev_json_key(f, &first, "max_depth");
	fprintf(f, "%u", in->backtrace.requested_depth);
	ev_json_key(f, &first, "raw");
	fputs(in->backtrace.flags & GS_BT_FLAG_RAW ? "true" : "false", f);
	gs_frames_stack(o->frames, ev, in, &st);
	ev_json_key(f, &first, "python_status");
	ev_json_str(f, st.python_status == GS_PY_NOT_PYTHON ? NULL
							    : gs_py_status_label(st.python_status));
	ev_json_key(f, &first, "frames");
	fputc('[', f);
	for (size_t k = st.kernel; k < st.count; k++) {
		const struct gs_stack_frame *fr = &st.frames[k];
		unsigned num = (unsigned)(k - st.kernel);

		if (k > st.kernel)
			fputc(',', f);
		if (fr->kind == GS_FRAME_PYTHON)
			json_python_frame(f, num, fr);
		else
			json_frame(o, f, num, in->backtrace.flags, &in->backtrace.frames[fr->index],
				   fr);
	}
	fputs("]}", f);
}

/* A CPU sample's kernel stack: each frame's address and kallsyms function. */
static void json_kernel_stack(FILE *out, struct gs_frames *f, const struct gs_inst *in)
{
	bool first = true;

	fputc('{', out);
	ev_json_key(out, &first, "kind");
	ev_json_str(out, "kernel_stack");
	ev_json_key(out, &first, "frames");
	fputc('[', out);
	for (unsigned i = 0; i < in->kernel_stack.frame_count; i++) {
		uint64_t addr = ev_kernel_frame(in, i), off = 0;
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

void ev_print_json(struct gs_printer *o, const struct gs_event *ev, FILE *f)
{
	bool first = true, first_item = true;
	char ts[64];

	fputc('{', f);
	ev_json_key(f, &first, "trace_id");
	fprintf(f, "%" PRIu64, ev->trace_id);
	ev_json_key(f, &first, "timestamp_ns");
	fprintf(f, "%" PRIu64, ev->timestamp);
	ev_json_key(f, &first, "timestamp");
	ev_json_str(f, ev_print_timestamp(o, ev->timestamp, ts, sizeof(ts)) ? ts : NULL);
	ev_json_key(f, &first, "pid");
	fprintf(f, "%" PRIu32, ev->pid);
	ev_json_key(f, &first, "tid");
	fprintf(f, "%" PRIu32, ev->tid);
	ev_json_key(f, &first, "items");
	fputc('[', f);
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		/* a PythonStack is shown in its backtrace's frames */
		if (in->type == GS_INST_END || in->type == GS_INST_PYTHON_STACK)
			continue;
		if (!first_item)
			fputc(',', f);
		first_item = false;
		switch (in->type) {
		case GS_INST_BACKTRACE:
			json_backtrace(o, f, ev, in);
			break;
		case GS_INST_KERNEL_STACK:
			json_kernel_stack(f, o->frames, in);
			break;
		case GS_INST_PRINT_COMPLEX_VARIABLE:
		case GS_INST_PRINT_VARIABLE_INDEX:
			json_value(f, &in->variable);
			break;
		case GS_INST_PRINT_COMPLEX_FORMAT:
			json_format(f, in);
			break;
		case GS_INST_EXPR_ERROR: {
			bool efirst = true;

			fputc('{', f);
			ev_json_key(f, &efirst, "kind");
			ev_json_str(f, "expr_error");
			ev_json_key(f, &efirst, "text");
			json_item_text(f, in);
			fputc('}', f);
			break;
		}
		default:
			json_item_text(f, in);
			break;
		}
	}
	fputs("]}\n", f);
}
