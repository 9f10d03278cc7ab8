/* The JSON printer (gs/print.h, --script-output json): one object per
 * event per line. Literal strings are strings; values, formats, expression
 * errors and backtraces are objects with a "kind". A value is typed:
 * numbers, strings (char arrays, enums by name, pointers in hex), objects
 * for structs and unions, arrays, and {"status": ...} when there is none
 * (optimized out, read errors). Strings are escaped here (RFC 8259), and
 * bytes that are not UTF-8 become U+FFFD, so every line parses whatever the
 * target's memory held. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/render.h>

#include "print_int.h"
#include "view_parts.h"

static void json_strn(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		switch (c) {
		case '"': fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\b': fputs("\\b", f); i++; continue;
		case '\f': fputs("\\f", f); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		len = gs_render_utf8_len(s + i, n - i);
		if (!len) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) /* C1 controls, for terminals */
			fprintf(f, "\\u%04x", s[i + 1]);
		else
			fwrite(s + i, 1, len, f);
		i += len;
	}
	fputc('"', f);
}

/* A string, or null. */
static void json_str(FILE *f, const char *s)
{
	if (s)
		json_strn(f, s, strlen(s));
	else
		fputs("null", f);
}

static void json_key(FILE *f, bool *first, const char *key)
{
	if (!*first)
		fputc(',', f);
	*first = false;
	json_str(f, key);
	fputc(':', f);
}

/* The runtime's text of an item, as a JSON string. */
static void json_item_text(FILE *f, const struct gs_inst *in)
{
	char small[1024], *text = small;
	size_t n = gs_render_inst(in, small, sizeof(small));

	if (n >= sizeof(small) && (text = malloc(n + 1)) != NULL)
		gs_render_inst(in, text, n + 1);
	if (!text)
		text = small;
	json_str(f, text);
	if (text != small)
		free(text);
}

/* ---- typed values ---------------------------------------------------------- */

#define JSON_MAX_DEPTH 32

static const char *const status_keys[] = {
	"ok", "null_deref", "read_error", "access_error", "truncated", "offsets_unavailable",
	"zero_length", "division_by_zero", "tls_not_allocated", "optimized_out",
};

/* The value's bytes, no more than its type has (a slot may be longer). */
static void json_hex_bytes(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len)
{
	if (t->byte_size && t->byte_size < len)
		len = t->byte_size;
	fputc('"', f);
	for (size_t i = 0; i < len; i++)
		fprintf(f, i ? " %02x" : "%02x", data[i]);
	fputc('"', f);
}

/* A C string inside data[0, len): up to its NUL. */
static void json_chars(FILE *f, const uint8_t *data, size_t len)
{
	const uint8_t *nul = memchr(data, 0, len);

	json_strn(f, (const char *)data, nul ? (size_t)(nul - data) : len);
}

static void json_scalar(FILE *f, const struct gs_scalar *s)
{
	switch (s->kind) {
	case GS_TYPE_BOOL:
		if (s->bits <= 1) {
			fputs(s->bits ? "true" : "false", f);
			return;
		}
		break;
	case GS_TYPE_POINTER:
		fprintf(f, "\"0x%" PRIx64 "\"", s->bits);
		return;
	case GS_TYPE_NULL_POINTER:
		fputs("null", f);
		return;
	case GS_TYPE_ENUM:
		if (s->enumerator) {
			json_str(f, s->enumerator);
			return;
		}
		break;
	default:
		break;
	}
	if (s->is_signed)
		fprintf(f, "%" PRId64, (int64_t)s->bits);
	else
		fprintf(f, "%" PRIu64, s->bits);
}

/* A float as the text renderer writes it (the shortest that reads back the
 * same); nan and inf, which JSON lacks, as strings. */
static void json_float(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len)
{
	struct gs_value v = { .type = t, .kind = t->kind, .data = data,
			      .data_len = (uint16_t)(len < 8 ? len : 8) };
	char text[64];

	gs_render_value(&v, 0, text, sizeof(text));
	if (strchr(text, 'n'))
		json_str(f, text);
	else
		fputs(text, f);
}

static void json_typed(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		       unsigned depth, struct ev_ext x);

/* The members of an aggregate as keys of the object being written; an
 * anonymous struct or union lends its members to it, as in C. */
static void json_members(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
			 bool *first, unsigned depth, struct ev_ext *x)
{
	for (uint32_t i = 0; i < t->nmembers; i++) {
		const struct gs_type_member *m = &t->members[i];
		struct gs_scalar s;

		if (!m->type || m->offset >= len)
			return; /* past the captured bytes */
		/* Cut by a truncated capture: an aggregate keeps what was
		 * captured of it (the value's status says truncated). */
		if (!m->bit_size && m->type->byte_size > len - m->offset &&
		    m->type->kind != GS_TYPE_ARRAY && m->type->kind != GS_TYPE_STRUCT &&
		    m->type->kind != GS_TYPE_UNION)
			return;
		if (!m->name && (m->type->kind == GS_TYPE_STRUCT || m->type->kind == GS_TYPE_UNION)) {
			json_members(f, m->type, data + m->offset, len - m->offset, first, depth + 1,
				     x);
			continue;
		}
		json_key(f, first, m->name ? m->name : "");
		if (m->bit_size && gs_value_scalar(m->type, data + m->offset, len - m->offset,
						   m->bit_offset, m->bit_size, &s))
			json_scalar(f, &s);
		else
			json_typed(f, m->type, data + m->offset, len - m->offset, depth + 1, *x);
		ev_ext_skip(x, m->type);
	}
}

static void json_array(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		       unsigned depth, struct ev_ext x)
{
	const struct gs_type *el = t->target;
	size_t stride = el ? el->byte_size : 0;
	size_t count = t->count ? t->count : stride ? len / stride : 0;

	if (el && (el->kind == GS_TYPE_CHAR || (stride == 1 && (el->flags & GS_TYPEF_CHAR)))) {
		json_chars(f, data, count < len ? count : len);
		return;
	}
	if (!stride) {
		json_hex_bytes(f, t, data, len);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < count && stride <= len && i * stride <= len - stride; i++) {
		if (i)
			fputc(',', f);
		json_typed(f, el, data + i * stride, stride, depth + 1, x);
		ev_ext_skip(&x, el);
	}
	fputc(']', f);
}

/* ---- standard-library values (gs/view.h) ----------------------------------
 * As a program reading the JSON expects them, read through view_parts.h
 * as the text renderer reads them (docs/values.md, "C++ and Rust standard
 * types"): strings as strings, sequences and tuples as arrays, a longer
 * one than was read as {"truncated": true, "length": N, "value" or
 * "elements": ...}; a std::optional as its value or null, a variant as
 * {"index", "value"}, a Rust enum as {"variant", "fields"}, pointers'
 * counts by name, a read that failed as {"error": "Cannot access memory
 * at address 0x..."}. */

static void json_error_at(FILE *f, uint64_t addr)
{
	fprintf(f, "{\"error\":\"Cannot access memory at address 0x%" PRIx64 "\"}", addr);
}

/* Writes why the extension has nothing to show; false when it has. */
static bool json_ext_problem(FILE *f, const struct ev_ext *x, uint64_t addr)
{
	uint64_t fault = 0;

	switch (ev_ext_state(x, addr, &fault)) {
	case EV_EXT_NO_ROOM:
		fputs("{\"error\":\"not read: the event has no room\"}", f);
		return true;
	case EV_EXT_FAILED:
		json_error_at(f, fault);
		return true;
	default:
		return false;
	}
}

/* A value longer than what was read opens {"truncated": true, "length":
 * N, key: ...}; whether it did (json_truncated_close ends it). */
static bool json_truncated_open(FILE *f, const struct ev_seq *s, const char *key)
{
	if (s->n <= (int64_t)s->cap)
		return false;
	fprintf(f, "{\"truncated\":true,\"length\":%" PRId64 ",\"%s\":", s->n, key);
	return true;
}

static void json_truncated_close(FILE *f, bool open)
{
	if (open)
		fputc('}', f);
}

static void json_view_string(FILE *f, const struct gs_view *v, const uint8_t *data, size_t len,
			     const struct ev_ext *x)
{
	struct ev_seq s;
	bool open;

	if (!ev_view_seq(v, data, len, x, &s)) {
		fputs("null", f);
		return;
	}
	if (s.n <= 0) {
		fputs("\"\"", f);
		return;
	}
	if (json_ext_problem(f, x, s.ptr))
		return;
	open = json_truncated_open(f, &s, "value");
	json_strn(f, (const char *)x->p + 1, (size_t)s.shown);
	json_truncated_close(f, open);
}

static void json_view_seq(FILE *f, const struct gs_view *v, const uint8_t *data, size_t len,
			  unsigned depth, const struct ev_ext *x)
{
	struct ev_seq s;
	bool open;

	if (!ev_view_seq(v, data, len, x, &s)) {
		fputs("null", f);
		return;
	}
	if (s.n < 0) {
		fprintf(f, "{\"error\":\"invalid length %" PRId64 "\"}", s.n);
		return;
	}
	if (!s.n) {
		fputs("[]", f);
		return;
	}
	if (json_ext_problem(f, x, s.ptr))
		return;
	open = json_truncated_open(f, &s, "elements");
	fputc('[', f);
	for (uint64_t i = 0; i < s.shown; i++) {
		struct ev_ext ex;
		const uint8_t *el = ev_seq_elem(v, x, i, &ex);

		if (i)
			fputc(',', f);
		json_typed(f, v->elem, el, v->elem->byte_size, depth + 1, ex);
	}
	fputc(']', f);
	json_truncated_close(f, open);
}

/* Field i of an inline view, with its part of the extension. */
static void json_view_field(FILE *f, const struct gs_view *v, uint32_t i, const uint8_t *data,
			    size_t len, unsigned depth, const struct ev_ext *x)
{
	const struct gs_view_field *fl = &v->fields[i];

	if (i >= v->nfields || !fl->type || fl->offset > len) {
		fputs("null", f);
		return;
	}
	json_typed(f, fl->type, data + fl->offset, len - fl->offset, depth + 1,
		   ev_view_field_ext(v, i, x));
}

static void json_view_shared(FILE *f, const struct gs_view *v, const uint8_t *data, size_t len,
			     unsigned depth, const struct ev_ext *x)
{
	struct ev_counts c;
	enum ev_shared_state st = ev_view_shared(v, data, len, x, &c);

	if (st == EV_SHARED_UNCAPTURED) {
		fputs("null", f);
		return;
	}
	fputs("{\"get\":", f);
	json_view_field(f, v, 0, data, len, depth, x);
	if (st == EV_SHARED_UNREAD)
		fprintf(f, ",\"error\":\"Cannot access memory at address 0x%" PRIx64 "\"}", c.ptr);
	else
		fprintf(f, ",\"use_count\":%" PRId64 ",\"weak_count\":%" PRId64 "}", c.use, c.weak);
}

static void json_view_rc(FILE *f, const struct gs_view *v, const uint8_t *data, size_t len,
			 unsigned depth, const struct ev_ext *x)
{
	uint64_t ptr = 0;
	struct ev_rc rc;

	if (!ev_view_u(data, len, v->ptr_off, 8, &ptr)) {
		fputs("null", f);
		return;
	}
	if (json_ext_problem(f, x, ptr))
		return;
	if (!ev_view_rc(v, x, &rc)) {
		fputs("{\"error\":\"counts not read\"}", f);
		return;
	}
	fputs("{\"value\":", f);
	if (rc.value)
		json_typed(f, v->fields[0].type, rc.value, rc.value_len, depth + 1, rc.value_ext);
	else
		fputs("null", f);
	fprintf(f, ",\"strong\":%" PRIu64 ",\"weak\":%" PRId64 "}", rc.strong, rc.weak);
}

/* Whether a Rust aggregate is a tuple (members __0, __1, ...). */
static bool rust_tuple(const struct gs_type *t)
{
	return t->nmembers && t->members[0].name && !strncmp(t->members[0].name, "__", 2);
}

/* A Rust struct's members: an object, or an array for a tuple struct. */
static void json_rust_members(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
			      unsigned depth, struct ev_ext x)
{
	bool tuple = rust_tuple(t), first = true;

	fputc(tuple ? '[' : '{', f);
	for (uint32_t i = 0; i < t->nmembers; i++) {
		const struct gs_type_member *m = &t->members[i];

		if (!m->type || m->offset > len || m->type->byte_size > len - m->offset)
			break; /* past the captured bytes */
		if (tuple) {
			if (i)
				fputc(',', f);
		} else {
			json_key(f, &first, m->name ? m->name : "");
		}
		json_typed(f, m->type, data + m->offset, len - m->offset, depth + 1, x);
		ev_ext_skip(&x, m->type);
	}
	fputc(tuple ? ']' : '}', f);
}

static void json_view_enum(FILE *f, const struct gs_view *v, const uint8_t *data, size_t len,
			   unsigned depth, const struct ev_ext *x)
{
	uint64_t d;
	uint32_t pick;
	const struct gs_view_field *fl;

	if (!ev_view_enum_pick(v, data, len, &d, &pick)) {
		fputs("null", f);
		return;
	}
	if (pick == v->nfields) {
		fprintf(f, "{\"error\":\"invalid discriminant %" PRIu64 "\"}", d);
		return;
	}
	fl = &v->fields[pick];
	fputs("{\"variant\":", f);
	json_str(f, fl->name);
	if (fl->type && fl->type->nmembers && fl->offset <= len) {
		fputs(",\"fields\":", f);
		json_rust_members(f, fl->type, data + fl->offset, len - fl->offset, depth,
				  ev_view_field_ext(v, pick, x));
	}
	fputc('}', f);
}

static void json_view_inline(FILE *f, const struct gs_type *t, const struct gs_view *v,
			     const uint8_t *data, size_t len, unsigned depth, const struct ev_ext *x)
{
	uint64_t d = 0;

	switch (v->style) {
	case GS_VSTYLE_CPP_UNIQUE_PTR:
		fputs("{\"get\":", f);
		json_view_field(f, v, 0, data, len, depth, x);
		fputc('}', f);
		return;
	case GS_VSTYLE_CPP_OPTIONAL:
		if (ev_view_engaged(v, data, len))
			json_view_field(f, v, 0, data, len, depth, x);
		else
			fputs("null", f);
		return;
	case GS_VSTYLE_CPP_VARIANT:
		if (!ev_view_variant(v, data, len, &d)) {
			fputs("null", f);
			return;
		}
		fprintf(f, "{\"index\":%" PRIu64 ",\"value\":", d);
		json_view_field(f, v, (uint32_t)d, data, len, depth, x);
		fputc('}', f);
		return;
	case GS_VSTYLE_CPP_TUPLE:
		fputc('[', f);
		for (uint32_t i = 0; i < v->nfields; i++) {
			if (i)
				fputc(',', f);
			json_view_field(f, v, i, data, len, depth, x);
		}
		fputc(']', f);
		return;
	case GS_VSTYLE_RUST_REFCELL:
		fputs("{\"value\":", f);
		json_view_field(f, v, 0, data, len, depth, x);
		fprintf(f, ",\"borrow\":%" PRId64 "}", ev_view_borrow(v, data, len));
		return;
	case GS_VSTYLE_RUST_CELL:
	case GS_VSTYLE_RUST_NONZERO:
		json_view_field(f, v, 0, data, len, depth, x);
		return;
	case GS_VSTYLE_RUST_ENUM:
		json_view_enum(f, v, data, len, depth, x);
		return;
	default: /* GS_VSTYLE_RUST_TUPLE, GS_VSTYLE_RUST_STRUCT */
		json_rust_members(f, t, data, len, depth, *x);
		return;
	}
}

/* t's view as JSON; false when t's view is shown as the plain value. */
static bool json_view(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		      unsigned depth, const struct ev_ext *x)
{
	const struct gs_view *v = gs_view_at(x->caps, t, x->depth);

	if (!v) {
		fputs("null", f); /* deeper than the views read */
		return true;
	}
	switch (v->kind) {
	case GS_VIEW_STRING:
		json_view_string(f, v, data, len, x);
		return true;
	case GS_VIEW_SEQ:
		json_view_seq(f, v, data, len, depth, x);
		return true;
	case GS_VIEW_BOX:
		if (v->style == GS_VSTYLE_RUST_RC || v->style == GS_VSTYLE_RUST_ARC)
			json_view_rc(f, v, data, len, depth, x);
		else
			json_view_shared(f, v, data, len, depth, x);
		return true;
	case GS_VIEW_INLINE:
		json_view_inline(f, t, v, data, len, depth, x);
		return true;
	default:
		return false;
	}
}

static void json_typed(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		       unsigned depth, struct ev_ext x)
{
	struct gs_scalar s;
	bool first = true;

	if (depth > JSON_MAX_DEPTH) {
		fputs("null", f);
		return;
	}
	if (t->view && json_view(f, t, data, len, depth, &x))
		return;
	switch (t->kind) {
	case GS_TYPE_STRUCT:
	case GS_TYPE_UNION:
		if (!t->nmembers)
			break;
		fputc('{', f);
		json_members(f, t, data, len, &first, depth, &x);
		fputc('}', f);
		return;
	case GS_TYPE_ARRAY:
		json_array(f, t, data, len, depth, x);
		return;
	case GS_TYPE_CSTRING:
	case GS_TYPE_STRING:
		json_chars(f, data, len);
		return;
	case GS_TYPE_OPTIMIZED_OUT:
		fputs(t->flags & GS_TYPEF_SYNTHETIC ? "{\"status\":\"synthetic_pointer\"}" :
		      "{\"status\":\"optimized_out\"}", f);
		return;
	case GS_TYPE_UNKNOWN: /* a type the dwarf layer gave up on says why */
		if (t->flags & (GS_TYPEF_CYCLIC | GS_TYPEF_TOO_DEEP)) {
			fputs(t->flags & GS_TYPEF_CYCLIC ? "{\"status\":\"cyclic_type\"}" :
			      "{\"status\":\"type_too_deep\"}", f);
			return;
		}
		break;
	case GS_TYPE_F32:
	case GS_TYPE_F64:
		if (gs_value_scalar(t, data, len, 0, 0, &s)) {
			json_float(f, t, data, len);
			return;
		}
		break;
	default:
		if (gs_value_scalar(t, data, len, 0, 0, &s)) {
			json_scalar(f, &s);
			return;
		}
		break;
	}
	json_hex_bytes(f, t, data, len);
}

/* A value's typed JSON: its value, or {"status": ...} when it has none. */
static void json_value_of(FILE *f, const struct gs_value *v)
{
	struct gs_type flat = { .kind = v->kind, .name = "?" };
	const struct gs_type *t = v->type && v->type->kind == v->kind ? v->type : &flat;
	bool first = true;

	if (v->status == GS_VAR_OK || (v->status == GS_VAR_TRUNCATED && v->data_len)) {
		size_t len;
		struct ev_ext x = ev_value_ext(t, v, &len);

		json_typed(f, t, v->data, len, 0, x);
		return;
	}
	fputc('{', f);
	json_key(f, &first, "status");
	json_str(f, v->status < sizeof(status_keys) / sizeof(status_keys[0]) ?
		 status_keys[v->status] : "error");
	if (v->status == GS_VAR_READ_ERROR && v->data_len >= sizeof(struct gs_read_error_payload)) {
		const struct gs_read_error_payload *e = (const void *)v->data;

		json_key(f, &first, "errno");
		fprintf(f, "%d", e->errno_value);
		json_key(f, &first, "addr");
		fprintf(f, "\"0x%" PRIx64 "\"", e->addr);
	}
	fputc('}', f);
}

/* The fields every value item and format argument has. */
static void json_value_fields(FILE *f, bool *first, const struct gs_value *v)
{
	json_key(f, first, "name");
	json_str(f, v->name);
	if (v->access_path_len) {
		json_key(f, first, "path");
		json_strn(f, v->access_path, v->access_path_len);
	}
	json_key(f, first, "type");
	json_str(f, v->type ? v->type->name : NULL);
	json_key(f, first, "status");
	json_str(f, v->status < sizeof(status_keys) / sizeof(status_keys[0]) ?
		 status_keys[v->status] : "error");
	json_key(f, first, "value");
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
	json_key(f, &first, "kind");
	json_str(f, "value");
	json_value_fields(f, &first, v);
	json_key(f, &first, "text");
	json_str(f, text);
	fputc('}', f);
	if (text != small)
		free(text);
}

/* print "fmt", args: the rendered text, the format and each argument. */
static void json_format(FILE *f, const struct gs_inst *in)
{
	bool first = true;

	fputc('{', f);
	json_key(f, &first, "kind");
	json_str(f, "format");
	json_key(f, &first, "text");
	json_item_text(f, in);
	json_key(f, &first, "format");
	json_str(f, in->format.format);
	json_key(f, &first, "args");
	fputc('[', f);
	for (unsigned i = 0; i < in->format.arg_count; i++) {
		bool afirst = true;

		if (i)
			fputc(',', f);
		fputc('{', f);
		json_value_fields(f, &afirst, &in->format.args[i]);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void json_line(FILE *f, bool *first, const char *file, int line, int col)
{
	json_key(f, first, "file");
	json_str(f, file);
	json_key(f, first, "line");
	if (file && line > 0)
		fprintf(f, "%d", line);
	else
		fputs("null", f);
	json_key(f, first, "column");
	if (file && col > 0)
		fprintf(f, "%d", col);
	else
		fputs("null", f);
}

static void json_frame(struct gs_printer *o, FILE *f, unsigned i, uint8_t flags,
		       const struct gs_backtrace_frame *fr, const struct gs_frame *r)
{
	const struct gs_sym_info *s = r->sym;
	bool first = true;

	fputc('{', f);
	json_key(f, &first, "index");
	fprintf(f, "%u", i);
	json_key(f, &first, "function");
	if (r->signal_frame)
		json_str(f, GS_FRAME_SIGNAL_NAME);
	else
		json_str(f, s ? (r->function ? r->function : "<unknown function>") : NULL);
	json_key(f, &first, "params");
	json_str(f, s && s->from_dwarf ? s->params : NULL);
	json_line(f, &first, s ? s->file : NULL, s ? s->line : 0, s ? s->col : 0);
	json_key(f, &first, "module");
	json_str(f, r->resolved ? r->module : NULL);
	json_key(f, &first, "offset");
	if (r->resolved)
		fprintf(f, "%" PRIu64, r->pc);
	else
		fputs("null", f);
	json_key(f, &first, "pc");
	fprintf(f, "%" PRIu64, fr->pc);
	json_key(f, &first, "raw_ip");
	fprintf(f, "%" PRIu64, fr->raw_ip);
	json_key(f, &first, "cookie");
	fprintf(f, "\"0x%016" PRIx64 "\"", r->cookie);
	json_key(f, &first, "inline");
	fputc('[', f);
	for (size_t k = 0; s && s->from_dwarf && (flags & GS_BT_FLAG_INLINE) && k < s->ninlines;
	     k++) {
		const struct gs_sym_inline *in = &s->inlines[k];
		bool ifirst = true;

		if (k)
			fputc(',', f);
		fputc('{', f);
		json_key(f, &ifirst, "function");
		json_str(f, gs_frames_name(o->frames, in->name));
		json_line(f, &ifirst, in->call_file, in->call_line, in->call_col);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void json_backtrace(struct gs_printer *o, FILE *f, const struct gs_event *ev,
			   const struct gs_inst *in)
{
	uint8_t status = gs_frames_status(o->frames, ev, in);
	const char *code_label = gs_bt_error_label(in->backtrace.error_code);
	bool first = true;

	fputc('{', f);
	json_key(f, &first, "kind");
	json_str(f, "backtrace");
	json_key(f, &first, "status");
	json_str(f, gs_bt_status_label(status));
	json_key(f, &first, "error");
	json_str(f, code_label);
	json_key(f, &first, "error_code");
	fprintf(f, "%u", in->backtrace.error_code);
	json_key(f, &first, "max_depth");
	fprintf(f, "%u", in->backtrace.requested_depth);
	json_key(f, &first, "raw");
	fputs(in->backtrace.flags & GS_BT_FLAG_RAW ? "true" : "false", f);
	json_key(f, &first, "frames");
	fputc('[', f);
	for (unsigned i = 0; i < in->backtrace.frame_count; i++) {
		struct gs_frame r;

		gs_frames_resolve(o->frames, ev, in, i, &r);
		if (i)
			fputc(',', f);
		json_frame(o, f, i, in->backtrace.flags, &in->backtrace.frames[i], &r);
	}
	fputs("]}", f);
}

void ev_print_json(struct gs_printer *o, const struct gs_event *ev, FILE *f)
{
	bool first = true, first_item = true;
	char ts[64];

	fputc('{', f);
	json_key(f, &first, "trace_id");
	fprintf(f, "%" PRIu64, ev->trace_id);
	json_key(f, &first, "timestamp_ns");
	fprintf(f, "%" PRIu64, ev->timestamp);
	json_key(f, &first, "timestamp");
	json_str(f, ev_print_timestamp(o, ev->timestamp, ts, sizeof(ts)) ? ts : NULL);
	json_key(f, &first, "pid");
	fprintf(f, "%" PRIu32, ev->pid);
	json_key(f, &first, "tid");
	fprintf(f, "%" PRIu32, ev->tid);
	json_key(f, &first, "items");
	fputc('[', f);
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type == GS_INST_END)
			continue;
		if (!first_item)
			fputc(',', f);
		first_item = false;
		switch (in->type) {
		case GS_INST_BACKTRACE:
			json_backtrace(o, f, ev, in);
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
			json_key(f, &efirst, "kind");
			json_str(f, "expr_error");
			json_key(f, &efirst, "text");
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
