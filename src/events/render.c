/* Plain text of decoded events, no symbolization (spec 10, 11.4): values by
 * type kind, format placeholders, the protocol-default backtrace text, and
 * the pretty and plain layouts. Wording is documented in gs/render.h. */
#include <stdio.h>
#include <string.h>

#include <gs/render.h>

#include "../opts_int.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* snprintf-style output: counts everything, stores what fits. */
struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len + 1 < o->size) {
		size_t room = o->size - 1 - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_char(struct out *o, char c)
{
	put(o, &c, 1);
}

static size_t done(struct out *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len;
}

static void put_udec(struct out *o, uint64_t v)
{
	char t[20];
	size_t i = sizeof(t);

	do
		t[--i] = (char)('0' + v % 10);
	while (v /= 10);
	put(o, t + i, sizeof(t) - i);
}

static void put_sdec(struct out *o, int64_t v)
{
	if (v < 0) {
		put_char(o, '-');
		put_udec(o, -(uint64_t)v);
	} else {
		put_udec(o, (uint64_t)v);
	}
}

/* Hex digits of v, at least `digits` of them. */
static void put_hex(struct out *o, uint64_t v, int upper, size_t digits)
{
	const char *xd = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char t[16];
	size_t i = sizeof(t);

	do
		t[--i] = xd[v & 15];
	while ((v >>= 4) || sizeof(t) - i < digits);
	put(o, t + i, sizeof(t) - i);
}

static void put_0x(struct out *o, uint64_t v)
{
	put(o, "0x", 2);
	put_hex(o, v, 0, 1);
}

/* ---- labels -------------------------------------------------------------- */

static const char *const var_status_labels[] = {
	"ok", "null deref", "read error", "access error", "truncated", "offsets unavailable",
	"zero length", "division by zero",
};

static const char *const bt_status_labels[] = {
	"complete", "truncated", "dwarf unavailable", "unsupported CFI", "offsets unavailable",
	"read error", "internal error", "invalid frame", "no unwind rows for PC",
};

static const char *const bt_error_labels[] = {
	NULL, "return-address-read-failed", "frame-pointer-read-failed",
	"next-ip-below-user-range", "next-ip-kernel-like", "next-cfa-zero",
	"next-cfa-not-advancing",
};

static const char *const exec_status_labels[] = {
	"success", "partial_failure", "complete_failure",
};

/* Replacement text of a value whose status is not Ok (ReadError has its own). */
static const char *const var_status_texts[] = {
	NULL, "<null pointer dereference>", "<read error>", "<address computation failed>",
	"<truncated>", "<offsets unavailable>", "<zero length>", "<division by zero>",
};

static const char *const expr_flag_names[] = {
	"first-arg read-fail", "second-arg read-fail", "len-clamped", "len=0",
};

const char *gs_var_status_label(uint8_t status)
{
	return status < ARRAY_SIZE(var_status_labels) ? var_status_labels[status] : "error";
}

const char *gs_bt_status_label(uint8_t status)
{
	if (status >= ARRAY_SIZE(bt_status_labels))
		status = GS_BT_INTERNAL_ERROR;
	return bt_status_labels[status];
}

const char *gs_bt_error_label(uint16_t code)
{
	return code < ARRAY_SIZE(bt_error_labels) ? bt_error_labels[code] : "unknown";
}

const char *gs_exec_status_label(uint8_t status)
{
	return status < ARRAY_SIZE(exec_status_labels) ? exec_status_labels[status] : "unknown";
}

/* ---- values ------------------------------------------------------------------ */

/* Natural size of the scalar kinds; 0 for the others. */
static const uint8_t kind_size[256] = {
	[GS_TYPE_U8] = 1, [GS_TYPE_U16] = 2, [GS_TYPE_U32] = 4, [GS_TYPE_U64] = 8,
	[GS_TYPE_I8] = 1, [GS_TYPE_I16] = 2, [GS_TYPE_I32] = 4, [GS_TYPE_I64] = 8,
	[GS_TYPE_F32] = 4, [GS_TYPE_F64] = 8, [GS_TYPE_BOOL] = 1, [GS_TYPE_CHAR] = 1,
	[GS_TYPE_POINTER] = 8, [GS_TYPE_NULL_POINTER] = 8, [GS_TYPE_ENUM] = 4,
};

/* Bytes of a scalar value: the type's size, else the kind's, at most 8 and
 * at most data_len. */
static size_t scalar_width(const struct gs_value *v)
{
	size_t n = v->type && v->type->size ? v->type->size : kind_size[v->kind];

	if (!n || n > 8)
		n = 8;
	return n < v->data_len ? n : v->data_len;
}

static uint64_t load_u(const struct gs_value *v, size_t n)
{
	uint64_t x = 0;

	for (size_t i = n; i-- > 0;)
		x = x << 8 | v->data[i];
	return x;
}

static int64_t load_s(const struct gs_value *v, size_t n)
{
	uint64_t x = load_u(v, n);

	if (n && n < 8 && (x >> (8 * n - 1)) & 1)
		x |= ~0ULL << (8 * n);
	return (int64_t)x;
}

static void put_bytes(struct out *o, const struct gs_value *v, const char *open, int upper,
		      const char *close)
{
	put_str(o, open);
	for (size_t i = 0; i < v->data_len; i++) {
		if (i)
			put_char(o, ' ');
		put_hex(o, v->data[i], upper, 2);
	}
	put_str(o, close);
}

size_t gs_render_utf8_len(const uint8_t *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void put_x(struct out *o, uint8_t c)
{
	put(o, "\\x", 2);
	put_hex(o, c, 0, 2);
}

/* Bytes that come from the target, safe for a terminal: C0 controls, DEL,
 * the C1 controls (U+0080..U+009F) and bytes that are not UTF-8 become
 * \xNN; printable ASCII and valid UTF-8 stay. Inside a quoted string or
 * char (quote != 0) the quote, the backslash, \n, \t and \r get C escapes;
 * GS_RENDER_KEEP_NEWLINES keeps '\n' as it is. */
static void put_text(struct out *o, const uint8_t *s, size_t n, char quote, unsigned flags)
{
	static const char esc[256] = { ['\n'] = 'n', ['\t'] = 't', ['\r'] = 'r', ['\\'] = '\\' };

	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		size_t len;

		if (c == '\n' && (flags & GS_RENDER_KEEP_NEWLINES)) {
			put_char(o, '\n');
			i++;
		} else if (quote && (c == (uint8_t)quote || esc[c])) {
			put_char(o, '\\');
			put_char(o, esc[c] ? esc[c] : quote);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			put_x(o, c);
			i++;
		} else if ((len = gs_render_utf8_len(s + i, n - i)) == 0) {
			put_x(o, c);
			i++;
		} else if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) { /* C1 */
			put_x(o, c);
			put_x(o, s[i + 1]);
			i += 2;
		} else {
			put(o, (const char *)s + i, len);
			i += len;
		}
	}
}

/* Target text (a name, a path) without quotes. */
static void put_name(struct out *o, const char *s)
{
	put_text(o, (const uint8_t *)s, strlen(s), 0, 0);
}

static void put_unsigned(struct out *o, const struct gs_value *v)
{
	put_udec(o, load_u(v, scalar_width(v)));
}

static void put_signed(struct out *o, const struct gs_value *v)
{
	put_sdec(o, load_s(v, scalar_width(v)));
}

static void put_bool(struct out *o, const struct gs_value *v)
{
	put_str(o, load_u(v, scalar_width(v)) ? "true" : "false");
}

static void put_pointer(struct out *o, const struct gs_value *v)
{
	put_0x(o, load_u(v, scalar_width(v)));
}

static void put_null_pointer(struct out *o, const struct gs_value *v)
{
	(void)v;
	put_str(o, "NULL");
}

static void put_char_value(struct out *o, const struct gs_value *v)
{
	put_char(o, '\'');
	put_text(o, v->data, 1, '\'', 0);
	put_char(o, '\'');
}

static void put_float(struct out *o, const struct gs_value *v)
{
	char t[40];
	size_t n = scalar_width(v);
	int len;

	if (n == sizeof(float)) {
		float f;

		memcpy(&f, v->data, sizeof(f));
		len = snprintf(t, sizeof(t), "%g", (double)f);
	} else if (n == sizeof(double)) {
		double f;

		memcpy(&f, v->data, sizeof(f));
		len = snprintf(t, sizeof(t), "%g", f);
	} else {
		put_bytes(o, v, "{", 0, "}");
		return;
	}
	put(o, t, (size_t)len);
}

static void put_string(struct out *o, const struct gs_value *v)
{
	size_t n = 0;

	while (n < v->data_len && v->data[n])
		n++;
	put_char(o, '"');
	put_text(o, v->data, n, '"', 0);
	put_char(o, '"');
}

static void put_optimized_out(struct out *o, const struct gs_value *v)
{
	(void)v;
	put_str(o, "<optimized out>");
}

static void put_raw(struct out *o, const struct gs_value *v)
{
	put_bytes(o, v, "{", 0, "}");
}

typedef void (*put_value_fn)(struct out *o, const struct gs_value *v);

static const put_value_fn by_kind[256] = {
	[GS_TYPE_U8 ... GS_TYPE_U64] = put_unsigned,
	[GS_TYPE_I8 ... GS_TYPE_I64] = put_signed,
	[GS_TYPE_ENUM] = put_signed,
	[GS_TYPE_F32 ... GS_TYPE_F64] = put_float,
	[GS_TYPE_BOOL] = put_bool,
	[GS_TYPE_CHAR] = put_char_value,
	[GS_TYPE_POINTER] = put_pointer,
	[GS_TYPE_NULL_POINTER] = put_null_pointer,
	[GS_TYPE_CSTRING ... GS_TYPE_STRING] = put_string,
	[GS_TYPE_OPTIMIZED_OUT] = put_optimized_out,
};

static void put_status(struct out *o, const struct gs_value *v)
{
	if (v->status == GS_VAR_READ_ERROR && v->data_len >= sizeof(struct gs_read_error_payload)) {
		const struct gs_read_error_payload *e = (const void *)v->data;

		put(o, "<read error: errno=", 19);
		put_sdec(o, e->errno_value);
		put(o, " at ", 4);
		put_0x(o, e->addr);
		put_char(o, '>');
	} else if (v->status < ARRAY_SIZE(var_status_texts)) {
		put_str(o, var_status_texts[v->status]);
	} else {
		put_str(o, "<bad status ");
		put_udec(o, v->status);
		put_char(o, '>');
	}
}

static void put_value(struct out *o, const struct gs_value *v, char conv)
{
	if (v->status != GS_VAR_OK) {
		put_status(o, v);
	} else if (v->data_len == 0 && v->kind != GS_TYPE_OPTIMIZED_OUT &&
		   v->kind != GS_TYPE_NULL_POINTER && v->kind != GS_TYPE_CSTRING &&
		   v->kind != GS_TYPE_STRING) {
		put_str(o, "<no data>");
	} else if (conv == 'p') {
		put_0x(o, load_u(v, v->data_len < 8 ? v->data_len : 8));
	} else if (conv == 'x' || conv == 'X') {
		if (kind_size[v->kind])
			put_hex(o, load_u(v, scalar_width(v)), conv == 'X', 1);
		else
			put_bytes(o, v, "", conv == 'X', "");
	} else {
		(by_kind[v->kind] ? by_kind[v->kind] : put_raw)(o, v);
	}
}

static void put_variable(struct out *o, const struct gs_value *v)
{
	/* Names come from the target's DWARF, the access path from the wire. */
	put_name(o, v->name ? v->name : "<unknown variable>");
	if (v->access_path_len) {
		put_char(o, '.');
		put_text(o, (const uint8_t *)v->access_path, v->access_path_len, 0, 0);
	}
	put(o, " = ", 3);
	put_value(o, v, 0);
}

/* ---- instructions ----------------------------------------------------------------- */

static void put_format(struct out *o, const struct gs_inst *in, const char *indent)
{
	const char *s = in->format.format;
	unsigned argi = 0;

	(void)indent;
	while (*s) {
		size_t run = strcspn(s, "{}");
		const char *close;
		size_t speclen;
		char conv;

		put(o, s, run);
		s += run;
		if (!*s)
			break;
		if (s[0] == s[1] || s[0] == '}') { /* "{{", "}}", or a lone '}' */
			put_char(o, s[0]);
			s += s[0] == s[1] ? 2 : 1;
			continue;
		}
		close = strchr(s, '}');
		if (!close) {
			put_str(o, "<malformed placeholder>");
			break;
		}
		speclen = (size_t)(close - s - 1);
		conv = speclen == 0 ? 0 : '?';
		if (speclen == 2 && s[1] == ':' && strchr("xXp", s[2]))
			conv = s[2];
		if (argi >= in->format.arg_count) {
			put_str(o, "<missing arg>");
		} else if (conv == '?') {
			put_str(o, "<unsupported ");
			put(o, s, speclen + 2);
			put_char(o, '>');
			argi++;
		} else {
			put_value(o, &in->format.args[argi++], conv);
		}
		s = close + 1;
	}
}

/* Continuation lines start with `indent`. */
static void put_backtrace(struct out *o, const struct gs_inst *in, const char *indent)
{
	uint8_t status = in->backtrace.status;
	uint16_t code = in->backtrace.error_code;

	put_str(o, "backtrace(max_depth=");
	put_udec(o, in->backtrace.requested_depth);
	put_str(o, ", frames=");
	put_udec(o, in->backtrace.frame_count);
	put_str(o, ", status=");
	put_str(o, gs_bt_status_label(status));
	put_char(o, ')');
	for (unsigned i = 0; i < in->backtrace.frame_count; i++) {
		const struct gs_backtrace_frame *f = &in->backtrace.frames[i];

		put_char(o, '\n');
		put_str(o, indent);
		put(o, "  #", 3);
		put_udec(o, i);
		put_str(o, " cookie=0x");
		put_hex(o, f->module_cookie, 0, 16);
		put_str(o, " pc=");
		put_0x(o, f->pc);
		put_str(o, " raw=");
		put_0x(o, f->raw_ip);
		if (f->flags) {
			put_str(o, " flags=");
			put_0x(o, f->flags);
		}
	}
	if (status == GS_BT_COMPLETE)
		return;
	put_char(o, '\n');
	put_str(o, indent);
	put_str(o, "  stopped: ");
	put_str(o, gs_bt_status_label(status));
	if (code == GS_BT_ERROR_NONE)
		return;
	put(o, " (", 2);
	if (code < ARRAY_SIZE(bt_error_labels)) {
		put_str(o, bt_error_labels[code]);
		put(o, ", ", 2);
	}
	put_str(o, "code=");
	put_udec(o, code);
	put_char(o, ')');
}

static void put_expr_error(struct out *o, const struct gs_inst *in, const char *indent)
{
	uint8_t flags = in->expr_error.flags;
	const char *sep = ", flags: ";

	(void)indent;
	put_str(o, "ExprError: ");
	put_str(o, in->expr_error.expr);
	put(o, " (", 2);
	put_str(o, gs_var_status_label(in->expr_error.error_code));
	if (in->expr_error.error_code == GS_VAR_DIV_BY_ZERO) {
		/* no address to show */
	} else if (in->expr_error.failing_addr) {
		put(o, " at 0x", 6);
		put_hex(o, in->expr_error.failing_addr, 0, 16);
	} else {
		put(o, " at NULL", 8);
	}
	for (size_t i = 0; i < ARRAY_SIZE(expr_flag_names); i++) {
		if (flags & 1u << i) {
			put_str(o, sep);
			put_str(o, expr_flag_names[i]);
			sep = ",";
		}
	}
	if (flags >> ARRAY_SIZE(expr_flag_names)) {
		put_str(o, sep);
		put_0x(o, flags & ~((1u << ARRAY_SIZE(expr_flag_names)) - 1));
	}
	put_char(o, ')');
}

static void put_end(struct out *o, const struct gs_inst *in)
{
	put_str(o, "end(");
	put_udec(o, in->end.total_instructions);
	put_str(o, " instructions, ");
	put_str(o, gs_exec_status_label(in->end.execution_status));
	put_char(o, ')');
}

static void put_string_inst(struct out *o, const struct gs_inst *in, const char *indent)
{
	(void)indent;
	put_str(o, in->string.text);
}

static void put_variable_inst(struct out *o, const struct gs_inst *in, const char *indent)
{
	(void)indent;
	put_variable(o, &in->variable);
}

/* Normal rendering by instruction type; none for GS_INST_END. */
static void (*const put_by_type[256])(struct out *o, const struct gs_inst *in,
				       const char *indent) = {
	[GS_INST_PRINT_STRING_INDEX] = put_string_inst,
	[GS_INST_PRINT_VARIABLE_INDEX] = put_variable_inst,
	[GS_INST_PRINT_COMPLEX_VARIABLE] = put_variable_inst,
	[GS_INST_PRINT_COMPLEX_FORMAT] = put_format,
	[GS_INST_BACKTRACE] = put_backtrace,
	[GS_INST_EXPR_ERROR] = put_expr_error,
};

static void put_inst(struct out *o, const struct gs_inst *in, const char *indent)
{
	if (put_by_type[in->type])
		put_by_type[in->type](o, in, indent);
}

static void put_header(struct out *o, const struct gs_event *ev, const char *timestamp)
{
	if (timestamp) {
		put_char(o, '[');
		put_str(o, timestamp);
		put(o, "] ", 2);
	}
	put_str(o, "TraceID:");
	put_udec(o, ev->trace_id);
	put_str(o, " PID:");
	put_udec(o, ev->pid);
	put_str(o, " TID:");
	put_udec(o, ev->tid);
}

/* ---- public ------------------------------------------------------------------------- */

size_t gs_render_event(const struct gs_event *ev, const struct gs_render_opts *opts, char *buf,
		       size_t size)
{
	struct out o = { buf, size, 0 };
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
		put_char(&o, '\n');
	}
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type == GS_INST_END && !ro.show_end)
			continue;
		put_str(&o, indent);
		if (in->type == GS_INST_END)
			put_end(&o, in);
		else
			put_inst(&o, in, indent);
		put_char(&o, '\n');
	}
	return done(&o);
}

size_t gs_render_header(const struct gs_event *ev, const char *timestamp, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	put_header(&o, ev, timestamp);
	return done(&o);
}

size_t gs_render_inst(const struct gs_inst *in, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	put_inst(&o, in, "");
	return done(&o);
}

size_t gs_render_end(const struct gs_inst *in, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	put_end(&o, in);
	return done(&o);
}

size_t gs_render_value(const struct gs_value *v, char conv, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	put_value(&o, v, conv);
	return done(&o);
}

size_t gs_render_escaped(const char *s, size_t len, unsigned flags, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	put_text(&o, (const uint8_t *)s, len, 0, flags);
	return done(&o);
}

void gs_render_fputs(FILE *f, const char *s, unsigned flags)
{
	enum { CHUNK = 128 };
	char small[4 * CHUNK + 1]; /* each byte escapes to at most 4 */
	size_t len = strlen(s);

	while (len) {
		size_t chunk = len < CHUNK ? len : CHUNK, n;

		/* A UTF-8 sequence is not cut between two chunks. */
		for (int back = 0; back < 3 && chunk < len && ((uint8_t)s[chunk] & 0xc0) == 0x80;
		     back++)
			chunk--;
		n = gs_render_escaped(s, chunk, flags, small, sizeof(small));
		fwrite(small, 1, n, f);
		s += chunk;
		len -= chunk;
	}
}
