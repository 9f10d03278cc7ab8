/* Plain text of decoded events, no symbolization (docs/cli.md, "Output"):
 * format placeholders, instructions (the protocol-default backtrace text
 * through backtrace.c's renderer, the codes' words from labels.c), and the
 * pretty and plain layouts. Wording is documented in gs/render.h. */
#include <stdio.h>
#include <string.h>

#include <gs/format.h>
#include <gs/render.h>

#include "base.h"
#include "opts.h"
#include "ev_int.h"

/* ---- instructions ----------------------------------------------------------------- */

static void put_variable(struct ev_out *o, const struct gs_value *v)
{
	/* Names come from the target's DWARF, the access path from the wire. */
	if (v->name)
		ev_put_text(o, (const uint8_t *)v->name, strlen(v->name), 0, 0);
	else
		ev_put_str(o, "<unknown variable>");
	if (v->access_path_len) {
		ev_put_char(o, '.');
		ev_put_text(o, (const uint8_t *)v->access_path, v->access_path_len, 0, 0);
	}
	ev_put(o, " = ", 3);
	ev_put_value(o, v, 0);
}

/* The i64 a run-time length argument holds (0 when it failed: the dump
 * after it shows why). */
static uint64_t length_arg(const struct gs_value *v)
{
	int64_t n = 0;

	if (v->status != GS_VAR_OK || v->data_len < sizeof(n))
		return 0;
	memcpy(&n, v->data, sizeof(n));
	return n > 0 ? (uint64_t)n : 0;
}

bool ev_fmt_dump(const struct gs_fmt_item *it, const struct gs_value *args,
		 struct gs_value *out)
{
	const struct gs_value *v = &args[gs_fmt_args(it) - 1];
	uint64_t n;

	if (it->len_kind == GS_FMT_LEN_CONST)
		n = it->length;
	else if (gs_fmt_args(it) == 2 && args[0].status == GS_VAR_OK)
		n = length_arg(&args[0]);
	else
		return false;
	if (v->status != GS_VAR_OK && v->status != GS_VAR_TRUNCATED &&
	    v->status != GS_VAR_ZERO_LENGTH)
		return false;
	*out = *v;
	if (v->status == GS_VAR_ZERO_LENGTH)
		n = 0;
	if (n < out->data_len)
		out->data_len = (uint16_t)n;
	return true;
}

static void put_format(struct ev_out *o, const struct gs_inst *in, const char *indent)
{
	const char *fmt = in->format.format;
	const struct gs_value *args = in->format.args;
	unsigned argi = 0, nargs = in->format.arg_count;
	struct gs_fmt_item it;
	size_t pos = 0;

	(void)indent;
	while (gs_fmt_next(fmt, &pos, &it)) {
		const struct gs_value *v;
		struct gs_value dump;

		switch (it.kind) {
		case GS_FMT_TEXT:
		case GS_FMT_BAD_CLOSE:
			ev_put(o, fmt + it.off, it.len);
			continue;
		case GS_FMT_UNCLOSED:
			ev_put_str(o, "<malformed placeholder>");
			return;
		case GS_FMT_BAD_SPEC:
			if (argi >= nargs) {
				ev_put_str(o, "<missing arg>");
				continue;
			}
			ev_put_str(o, "<unsupported ");
			ev_put(o, fmt + it.off, it.len);
			ev_put_char(o, '>');
			argi++;
			continue;
		default:
			break;
		}
		if (argi + gs_fmt_args(&it) > nargs) {
			ev_put_str(o, "<missing arg>");
			argi = nargs;
			continue;
		}
		v = &args[argi];
		if (ev_fmt_dump(&it, v, &dump)) {
			/* a static or a run-time length alike, cut at the cap the
			 * same way */
			ev_put_dump(o, &dump, it.conv, dump.data_len);
			if (dump.status == GS_VAR_TRUNCATED)
				ev_put_str(o, " <truncated>");
		} else if (gs_fmt_args(&it) == 2) {
			/* the length, then the value: an error of either shows */
			ev_put_value(o, v->status != GS_VAR_OK ? v : &v[1], 0);
		} else {
			ev_put_value(o, v, it.conv);
		}
		argi += gs_fmt_args(&it);
	}
}

/* The protocol-default text (backtrace.c); frame and stopped lines two
 * spaces past `indent`. */
static void put_backtrace(struct ev_out *o, const struct gs_inst *in, const char *indent)
{
	char more[16];
	struct ev_bt_style st = { .indent = more, .frame_indent = more };

	snprintf(more, sizeof(more), "%s  ", indent);
	ev_put_backtrace(o, &st, NULL, in);
}

/* An ExprError's flags, bit by bit, as its text names them. */
static const char *const expr_flag_names[] = {
	"first-arg read-fail", "second-arg read-fail", "len-clamped", "len=0",
};

static void put_expr_error(struct ev_out *o, const struct gs_inst *in, const char *indent)
{
	uint8_t flags = in->expr_error.flags;
	const char *sep = ", flags: ";

	(void)indent;
	ev_put_str(o, "ExprError: ");
	ev_put_str(o, in->expr_error.expr);
	ev_put(o, " (", 2);
	ev_put_str(o, gs_var_status_label(in->expr_error.error_code));
	if (in->expr_error.error_code == GS_VAR_DIV_BY_ZERO) {
		/* no address to show */
	} else if (in->expr_error.failing_addr) {
		ev_put(o, " at 0x", 6);
		ev_put_hex(o, in->expr_error.failing_addr, false, 16);
	} else {
		ev_put(o, " at NULL", 8);
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(expr_flag_names); i++) {
		if (flags & 1u << i) {
			ev_put_str(o, sep);
			ev_put_str(o, expr_flag_names[i]);
			sep = ",";
		}
	}
	if (flags >> BASE_ARRAY_SIZE(expr_flag_names)) {
		ev_put_str(o, sep);
		ev_put_0x(o, flags & ~((1u << BASE_ARRAY_SIZE(expr_flag_names)) - 1));
	}
	ev_put_char(o, ')');
}

static void put_end(struct ev_out *o, const struct gs_inst *in)
{
	ev_put_str(o, "end(");
	ev_put_udec(o, in->end.total_instructions);
	ev_put_str(o, " instructions, ");
	ev_put_str(o, gs_exec_status_label(in->end.execution_status));
	ev_put_char(o, ')');
}

static void put_string_inst(struct ev_out *o, const struct gs_inst *in, const char *indent)
{
	(void)indent;
	ev_put_str(o, in->string.text);
}

static void put_variable_inst(struct ev_out *o, const struct gs_inst *in, const char *indent)
{
	(void)indent;
	put_variable(o, &in->variable);
}

static void put_kernel_stack(struct ev_out *o, const struct gs_inst *in, const char *indent)
{
	ev_put_kernel_stack(o, NULL, NULL, in, indent);
}

/* Normal rendering by instruction type; none for GS_INST_END. */
static void (*const put_by_type[256])(struct ev_out *o, const struct gs_inst *in,
				       const char *indent) = {
	[GS_INST_PRINT_STRING_INDEX] = put_string_inst,
	[GS_INST_PRINT_VARIABLE_INDEX] = put_variable_inst,
	[GS_INST_PRINT_COMPLEX_VARIABLE] = put_variable_inst,
	[GS_INST_PRINT_COMPLEX_FORMAT] = put_format,
	[GS_INST_BACKTRACE] = put_backtrace,
	[GS_INST_KERNEL_STACK] = put_kernel_stack,
	[GS_INST_PYTHON_STACK] = ev_put_python_stack,
	[GS_INST_EXPR_ERROR] = put_expr_error,
};

void ev_put_inst(struct ev_out *o, const struct gs_inst *in, const char *indent)
{
	if (put_by_type[in->type])
		put_by_type[in->type](o, in, indent);
}

static void put_header(struct ev_out *o, const struct gs_event *ev, const char *timestamp)
{
	if (timestamp) {
		ev_put_char(o, '[');
		ev_put_str(o, timestamp);
		ev_put(o, "] ", 2);
	}
	ev_put_str(o, "TraceID:");
	ev_put_udec(o, ev->trace_id);
	ev_put_str(o, " PID:");
	ev_put_udec(o, ev->pid);
	ev_put_str(o, " TID:");
	ev_put_udec(o, ev->tid);
}

/* ---- public ------------------------------------------------------------------------- */

size_t gs_render_event(const struct gs_event *ev, const struct gs_render_opts *opts, char *buf,
		       size_t size)
{
	struct ev_out o = { buf, size, 0 };
	struct gs_render_opts ro;
	const char *indent;

	if (OPTS_COPY(&ro, opts, gs_render_opts, NULL)) {
		if (size)
			buf[0] = '\0';
		errno = EINVAL;
		return 0;
	}
	indent = ro.style == GS_RENDER_PLAIN ? "" : "  ";
	if (ro.style != GS_RENDER_PLAIN) {
		put_header(&o, ev, ro.timestamp);
		ev_put_char(&o, '\n');
	}
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type == GS_INST_END && !ro.show_end)
			continue;
		ev_put_str(&o, indent);
		if (in->type == GS_INST_END)
			put_end(&o, in);
		else
			ev_put_inst(&o, in, indent);
		ev_put_char(&o, '\n');
	}
	return ev_done(&o);
}

size_t gs_render_header(const struct gs_event *ev, const char *timestamp, char *buf, size_t size)
{
	struct ev_out o = { buf, size, 0 };

	put_header(&o, ev, timestamp);
	return ev_done(&o);
}

size_t gs_render_inst(const struct gs_inst *in, char *buf, size_t size)
{
	struct ev_out o = { buf, size, 0 };

	ev_put_inst(&o, in, "");
	return ev_done(&o);
}

size_t gs_render_end(const struct gs_inst *in, char *buf, size_t size)
{
	struct ev_out o = { buf, size, 0 };

	put_end(&o, in);
	return ev_done(&o);
}

size_t gs_render_value(const struct gs_value *v, char conv, char *buf, size_t size)
{
	struct ev_out o = { buf, size, 0 };

	ev_put_value(&o, v, conv);
	return ev_done(&o);
}
