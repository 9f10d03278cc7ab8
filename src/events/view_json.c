/* Standard-library values (gs/view.h) in JSON, as a program reading the
 * JSON expects them, read through view_parts.h as the text renderer reads
 * them (docs/values.md, "C++ and Rust standard types"): strings as
 * strings, sequences, sets and tuples as arrays, maps as arrays of
 * [key, value], a longer one than was read as {"truncated": true,
 * "length": N, "value" or "elements": ...}; a std::optional as its value
 * or null, a variant as {"index", "value"}, a Rust enum as {"variant",
 * "fields"}, pointers' counts by name, a read that failed as {"error":
 * "Cannot access memory at address 0x..."}. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "json_int.h"
#include "view_parts.h"

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
	case EV_EXT_OPTIMIZED_OUT:
		fputs(JSON_OPTIMIZED_OUT, f);
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
	ev_json_strn(f, (const char *)x->p + 1, (size_t)s.shown);
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
		ev_json_typed(f, v->elem, el, v->elem->byte_size, depth + 1, ex);
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
	ev_json_typed(f, fl->type, data + fl->offset, len - fl->offset, depth + 1,
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
		ev_json_typed(f, v->fields[0].type, rc.value, rc.value_len, depth + 1, rc.value_ext);
	else
		fputs("null", f);
	fprintf(f, ",\"strong\":%" PRIu64 ",\"weak\":%" PRId64 "}", rc.strong, rc.weak);
}

/* Whether a Rust aggregate is a tuple (members __0, __1, ...). */
static bool rust_tuple(const struct gs_type *t)
{
	return t->nmembers && t->members[0].name && base_has_prefix(t->members[0].name, "__");
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
			ev_json_key(f, &first, m->name ? m->name : "");
		}
		ev_json_typed(f, m->type, data + m->offset, len - m->offset, depth + 1, x);
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
	ev_json_str(f, fl->name);
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
	case GS_VSTYLE_CPP_PAIR: {
		bool first = true;

		fputc('{', f);
		for (uint32_t i = 0; i < v->nfields; i++) {
			ev_json_key(f, &first, v->fields[i].name ? v->fields[i].name : "");
			json_view_field(f, v, i, data, len, depth, x);
		}
		fputc('}', f);
		return;
	}
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

/* vector<bool>: an array of booleans. */
static void json_view_bits(FILE *f, const struct gs_view *v, const uint8_t *data, size_t len,
			   const struct ev_ext *x)
{
	struct ev_bits b;
	struct ev_seq s;
	bool open;

	if (!ev_view_bits(v, data, len, x, &b)) {
		fputs("null", f);
		return;
	}
	if (b.n <= 0) {
		fputs("[]", f);
		return;
	}
	if (json_ext_problem(f, x, b.ptr))
		return;
	s = (struct ev_seq){ .n = b.n, .cap = (uint32_t)b.shown };
	open = json_truncated_open(f, &s, "elements");
	fputc('[', f);
	for (uint64_t i = 0; i < b.shown; i++)
		fputs(i ? (ev_bit(x, i) ? ",true" : ",false") : (ev_bit(x, i) ? "true" : "false"), f);
	fputc(']', f);
	json_truncated_close(f, open);
}

struct json_elems {
	FILE *f;
	unsigned depth;
};

/* An element of a walked view: a map's as [key, value], else its value. */
static void json_element(void *arg, const struct gs_view *v, const struct ev_elem *e,
			 uint64_t i)
{
	struct json_elems *je = arg;
	struct ev_shown key, val;
	int n = ev_elem_parts(v, e, &key, &val);

	if (i)
		fputc(',', je->f);
	if (n == 2)
		fputc('[', je->f);
	ev_json_typed(je->f, key.type, key.data, key.type->byte_size, je->depth + 1, key.ext);
	if (n == 2) {
		fputc(',', je->f);
		ev_json_typed(je->f, val.type, val.data, val.type->byte_size, je->depth + 1,
			      val.ext);
		fputc(']', je->f);
	}
}

/* Lists, sets, maps, hash tables, deques: arrays (of [key, value] for
 * maps), in the truncated form when more elements than were shown. */
static bool json_walked(FILE *f, const struct gs_view *v, const uint8_t *data, size_t len,
			unsigned depth, const struct ev_ext *x)
{
	struct json_elems je = { .f = f, .depth = depth };
	struct ev_walk head, w;
	char *buf = NULL;
	size_t size = 0;
	FILE *mem;

	if (!ev_walked(v))
		return false;
	if (!ev_walk(v, data, len, &(struct ev_ext){ .caps = x->caps }, &head, NULL, NULL)) {
		fputs("null", f);
		return true;
	}
	if (head.n <= 0) {
		fputs("[]", f);
		return true;
	}
	/* whether it is cut is known after the walk: the elements first,
	 * then the whole, in the truncated form when needed */
	if (!(mem = open_memstream(&buf, &size))) {
		fputs("null", f);
		return true;
	}
	je.f = mem;
	fputc('[', mem);
	ev_walk(v, data, len, x, &w, json_element, &je);
	fputc(']', mem);
	fclose(mem);
	if (w.state == EV_EXT_NO_ROOM)
		fputs("{\"error\":\"not read: the event has no room\"}", f);
	else if (w.state == EV_EXT_FAILED)
		json_error_at(f, w.addr);
	else if (w.state == EV_EXT_OPTIMIZED_OUT)
		fputs(JSON_OPTIMIZED_OUT, f);
	else if ((uint64_t)w.n > w.shown)
		fprintf(f, "{\"truncated\":true,\"length\":%" PRId64 ",\"elements\":%s}", w.n, buf);
	else
		fputs(buf ? buf : "[]", f);
	free(buf);
	return true;
}

/* A char *: {"address": "0x...", "string": "text"}, "truncated": true
 * past the cap; a NULL one's string null; a failed read's "error" instead
 * of the string; a string not read (deeper than the views read) none. */
static void json_view_cstring(FILE *f, const struct gs_type *t, const struct gs_view *v,
			      const uint8_t *data, size_t len, const struct ev_ext *x)
{
	static const struct gs_view_caps none;
	struct ev_ext unread = { .caps = &none };
	struct ev_cstring s;
	uint64_t fault = 0;

	if (!ev_view_cstring(v ? v : gs_type_view(t), data, len, v ? x : &unread, &s)) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"address\":\"0x%" PRIx64 "\"", s.ptr);
	if (!v) {
		fputc('}', f);
		return;
	}
	fputs(",", f);
	if (!s.ptr) {
		fputs("\"string\":null}", f);
		return;
	}
	switch (ev_ext_state(x, s.ptr, &fault)) {
	case EV_EXT_NO_ROOM:
		fputs("\"error\":\"not read: the event has no room\"}", f);
		return;
	case EV_EXT_FAILED:
		fprintf(f, "\"error\":\"Cannot access memory at address 0x%" PRIx64 "\"}", fault);
		return;
	default:
		break;
	}
	fputs("\"string\":", f);
	ev_json_strn(f, (const char *)s.text, s.n);
	if (s.cut)
		fputs(",\"truncated\":true", f);
	fputc('}', f);
}

/* A C++ reference inside a value: the referent's JSON; a failed read's
 * {"error": ...}; one not read, null. */
static void json_view_referent(FILE *f, const struct gs_view *v, const uint8_t *data,
			       size_t len, unsigned depth, const struct ev_ext *x)
{
	struct ev_referent r;

	if (!ev_view_referent(v, data, len, x, &r)) {
		fputs("null", f);
		return;
	}
	if (r.state == EV_EXT_OK)
		ev_json_typed(f, v->elem, r.value, v->elem->byte_size, depth + 1, r.ext);
	else if (r.state == EV_EXT_FAILED)
		json_error_at(f, r.fault);
	else if (r.state == EV_EXT_OPTIMIZED_OUT)
		fputs(JSON_OPTIMIZED_OUT, f);
	else
		fputs("null", f);
}

/* t's view as JSON; false when t's view is shown as the plain value. */
bool ev_json_view(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		      unsigned depth, const struct ev_ext *x)
{
	const struct gs_view *v = gs_view_at(x->caps, t, x->depth);

	if (gs_type_view(t)->kind == GS_VIEW_CSTRING) {
		json_view_cstring(f, t, v, data, len, x);
		return true;
	}
	if (!v) {
		fputs("null", f); /* deeper than the views read */
		return true;
	}
	if (gs_view_gap(t) == GS_VIEW_GAP_WHOLE) {
		fputs(JSON_OPTIMIZED_OUT, f);
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
		if (v->style == GS_VSTYLE_CPP_REFERENCE)
			json_view_referent(f, v, data, len, depth, x);
		else if (v->style == GS_VSTYLE_RUST_RC || v->style == GS_VSTYLE_RUST_ARC)
			json_view_rc(f, v, data, len, depth, x);
		else
			json_view_shared(f, v, data, len, depth, x);
		return true;
	case GS_VIEW_INLINE:
		json_view_inline(f, t, v, data, len, depth, x);
		return true;
	case GS_VIEW_BITS:
		json_view_bits(f, v, data, len, x);
		return true;
	default:
		return json_walked(f, v, data, len, depth, x);
	}
}

