/* Values as text, by their type (docs/cli.md, "Values"): C-like and
 * whole, the way a C debugger shows them: structs and unions as
 * {x = 1, y = -2}, members in order and nested; arrays as {1, 2, 3}, char
 * arrays as "strings"; enums by enumerator (the number when none matches);
 * bool, chars as 97 'a', floats as the shortest decimal that reads back
 * the same, pointers in hex, bit fields by their bits, <optimized out>.
 * Statuses replace the value; text from the target is escaped. A type the
 * dwarf layer gave up on says why: <cyclic type>, <type too deep>. */
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "ev_int.h"
#include "view_parts.h"

#define MAX_DEPTH 32

/* Natural size of the scalar kinds; 0 for the others. */
static const uint8_t kind_size[256] = {
	[GS_TYPE_U8] = 1, [GS_TYPE_U16] = 2, [GS_TYPE_U32] = 4, [GS_TYPE_U64] = 8,
	[GS_TYPE_I8] = 1, [GS_TYPE_I16] = 2, [GS_TYPE_I32] = 4, [GS_TYPE_I64] = 8,
	[GS_TYPE_F32] = 4, [GS_TYPE_F64] = 8, [GS_TYPE_BOOL] = 1, [GS_TYPE_CHAR] = 1,
	[GS_TYPE_POINTER] = 8, [GS_TYPE_NULL_POINTER] = 8, [GS_TYPE_ENUM] = 4,
};

static const bool kind_signed[256] = {
	[GS_TYPE_I8] = true, [GS_TYPE_I16] = true, [GS_TYPE_I32] = true, [GS_TYPE_I64] = true,
};

/* Replacement text of a value whose status is not Ok (ReadError has its own). */
static const char *const status_texts[] = {
	NULL, "<null pointer dereference>", "<read error>", "<address computation failed>",
	"<truncated>", "<offsets unavailable>", "<zero length>", "<division by zero>",
	"<TLS not allocated in this thread>",
	"<optimized out>",
};

/* Bytes of t's scalar: its byte size, else its flat size, else its kind's. */
static size_t width_of(const struct gs_type *t)
{
	if (t->byte_size >= 1 && t->byte_size <= 8)
		return t->byte_size;
	return t->size ? t->size : kind_size[t->kind];
}

static bool is_signed(const struct gs_type *t)
{
	/* An enum without enumerators is the reference's I32. */
	if (t->kind == GS_TYPE_ENUM && !t->nenumerators)
		return true;
	return kind_signed[t->kind] || (t->flags & GS_TYPEF_SIGNED);
}

bool gs_value_scalar(const struct gs_type *t, const uint8_t *data, size_t len,
		     unsigned bit_offset, unsigned bit_size, struct gs_scalar *out)
{
	size_t n = width_of(t);
	uint64_t x = 0;

	memset(out, 0, sizeof(*out));
	if (!kind_size[t->kind] || !n || n > 8)
		return false;
	if (bit_size) {
		n = (bit_offset + bit_size + 7) / 8;
		if (bit_size > 64 || n > 8)
			return false;
	}
	/* Fewer bytes than an integer's (a short capture): the low ones there
	 * are; a float needs them all. */
	if (len < n && (!len || bit_size || t->kind == GS_TYPE_F32 || t->kind == GS_TYPE_F64))
		return false;
	if (len < n)
		n = len;
	for (size_t i = n; i-- > 0;)
		x = x << 8 | data[i];
	out->kind = t->kind;
	out->is_signed = is_signed(t);
	if (t->kind == GS_TYPE_F32 && !bit_size) {
		float f;

		memcpy(&f, data, sizeof(f));
		out->f = f;
	} else if (t->kind == GS_TYPE_F64 && !bit_size) {
		memcpy(&out->f, data, sizeof(out->f));
	}
	if (bit_size) {
		x >>= bit_offset;
		n = 0;
	} else {
		bit_size = (unsigned)(8 * n);
	}
	if (bit_size < 64) {
		x &= (1ull << bit_size) - 1;
		if (out->is_signed && (x >> (bit_size - 1)) & 1)
			x |= ~0ull << bit_size;
	}
	out->bits = x;
	for (uint32_t i = 0; t->kind == GS_TYPE_ENUM && i < t->nenumerators; i++)
		if ((uint64_t)t->enumerators[i].value == x) {
			out->enumerator = t->enumerators[i].name;
			break;
		}
	return true;
}

/* The value's bytes, no more than its type has (a slot may be longer). */
static void put_raw(struct ev_out *o, const struct gs_type *t, const uint8_t *data, size_t len)
{
	if (t->byte_size && t->byte_size < len)
		len = t->byte_size;
	ev_put_char(o, '{');
	for (size_t i = 0; i < len; i++) {
		if (i)
			ev_put_char(o, ' ');
		ev_put_hex(o, data[i], false, 2);
	}
	ev_put_char(o, '}');
}

static void put_scalar(struct ev_out *o, const struct gs_scalar *s)
{
	uint8_t c = (uint8_t)s->bits;

	switch (s->kind) {
	case GS_TYPE_F32:
	case GS_TYPE_F64:
		ev_put_float(o, s->f, s->kind == GS_TYPE_F32);
		break;
	case GS_TYPE_BOOL:
		/* A byte that is neither 0 nor 1 is shown as it is, as gdb does. */
		if (s->bits > 1)
			ev_put_udec(o, s->bits);
		else
			ev_put_str(o, s->bits ? "true" : "false");
		break;
	case GS_TYPE_POINTER:
		ev_put_0x(o, s->bits);
		break;
	case GS_TYPE_NULL_POINTER:
		ev_put_str(o, "NULL");
		break;
	case GS_TYPE_CHAR:
		if (s->is_signed)
			ev_put_sdec(o, (int64_t)s->bits);
		else
			ev_put_udec(o, s->bits);
		ev_put(o, " '", 2);
		ev_put_text(o, &c, 1, '\'', 0);
		ev_put_char(o, '\'');
		break;
	case GS_TYPE_ENUM:
		if (s->enumerator) {
			/* Enumerator names come from the target's DWARF. */
			ev_put_text(o, (const uint8_t *)s->enumerator, strlen(s->enumerator), 0, 0);
			break;
		}
		/* fall through */ /* the number */
	default:
		if (s->is_signed)
			ev_put_sdec(o, (int64_t)s->bits);
		else
			ev_put_udec(o, s->bits);
		break;
	}
}

/* A char element: `char buf[16]` prints as a string. */
static bool is_char(const struct gs_type *t)
{
	return t && (t->kind == GS_TYPE_CHAR || (t->byte_size == 1 && (t->flags & GS_TYPEF_CHAR)));
}

/* Up to the first NUL of data[0, n), escaped (quoted when quote). */
static void put_chars(struct ev_out *o, const uint8_t *data, size_t n, bool quote)
{
	const uint8_t *nul = memchr(data, 0, n);

	if (quote)
		ev_put_char(o, '"');
	ev_put_text(o, data, nul ? (size_t)(nul - data) : n, quote ? '"' : 0, 0);
	if (quote)
		ev_put_char(o, '"');
}


/* Why a type has no value to show, or NULL. */
static const char *type_problem(const struct gs_type *t)
{
	if (!t || t->kind != GS_TYPE_UNKNOWN)
		return NULL;
	if (t->flags & GS_TYPEF_CYCLIC)
		return "<cyclic type>";
	if (t->flags & GS_TYPEF_TOO_DEEP)
		return "<type too deep>";
	return NULL;
}

static void put_members(struct ev_out *o, const struct gs_type *t, const uint8_t *data,
			size_t len, unsigned depth, struct ev_ext x)
{
	struct ev_ext mx = x;

	ev_put_char(o, '{');
	for (uint32_t i = 0; i < t->nmembers; i++) {
		const struct gs_type_member *m = &t->members[i];
		struct gs_scalar s;
		bool partial;

		if (i)
			ev_put(o, ", ", 2);
		if (m->offset >= len) {
			ev_put(o, "...", 3); /* past what was captured */
			break;
		}
		/* A member cut by a truncated capture: an array or a struct
		 * shows what was captured of it, a scalar nothing. */
		partial = !m->bit_size && m->type && m->type->byte_size > len - m->offset;
		if (partial && m->type->kind != GS_TYPE_ARRAY && m->type->kind != GS_TYPE_STRUCT &&
		    m->type->kind != GS_TYPE_UNION) {
			ev_put(o, "...", 3);
			break;
		}
		if (m->name) {
			ev_put_text(o, (const uint8_t *)m->name, strlen(m->name), 0, 0);
			ev_put(o, " = ", 3);
		}
		if (!m->type)
			ev_put_char(o, '?');
		else if (m->bit_size && gs_value_scalar(m->type, data + m->offset, len - m->offset,
							 m->bit_offset, m->bit_size, &s))
			put_scalar(o, &s);
		else
			ev_put_typed(o, m->type, data + m->offset, len - m->offset, depth + 1, mx);
		ev_ext_skip(&mx, m->type);
	}
	/* a C++ class of base classes alone: gdb says so after them */
	if (t->nmembers && t->members[t->nmembers - 1].name &&
	    t->members[t->nmembers - 1].name[0] == '<')
		ev_put_str(o, ", <No data fields>");
	ev_put_char(o, '}');
}

static void put_array(struct ev_out *o, const struct gs_type *t, const uint8_t *data, size_t len,
		      unsigned depth, struct ev_ext x)
{
	const struct gs_type *el = t->target;
	size_t stride = el ? el->byte_size : 0;
	size_t count = t->count ? t->count : stride ? len / stride : 0;

	if (is_char(el)) {
		put_chars(o, data, count < len ? count : len, true);
		return;
	}
	if (!stride) {
		put_raw(o, t, data, len);
		return;
	}
	ev_put_char(o, '{');
	for (size_t i = 0; i < count; i++) {
		if (i)
			ev_put(o, ", ", 2);
		if (stride > len || i * stride > len - stride) {
			ev_put(o, "...", 3);
			break;
		}
		ev_put_typed(o, el, data + i * stride, stride, depth + 1, x);
		ev_ext_skip(&x, el);
	}
	ev_put_char(o, '}');
}

void ev_put_typed(struct ev_out *o, const struct gs_type *t, const uint8_t *data, size_t len,
		  unsigned depth, struct ev_ext x)
{
	struct gs_scalar s;

	if (depth > MAX_DEPTH) {
		ev_put(o, "{...}", 5);
		return;
	}
	if (type_problem(t)) {
		ev_put_str(o, type_problem(t));
		return;
	}
	if (gs_type_view(t) && ev_put_view(o, t, data, len, depth, x))
		return;
	switch (t->kind) {
	case GS_TYPE_STRUCT:
	case GS_TYPE_UNION:
		if (t->nmembers)
			put_members(o, t, data, len, depth, x);
		else if (t->byte_size == 1 && t->kind == GS_TYPE_STRUCT)
			ev_put_str(o, "{<No data fields>}"); /* an empty C++ class, as gdb */
		else
			put_raw(o, t, data, len);
		return;
	case GS_TYPE_ARRAY:
		put_array(o, t, data, len, depth, x);
		return;
	case GS_TYPE_CSTRING:
	case GS_TYPE_STRING:
		put_chars(o, data, len, true);
		return;
	case GS_TYPE_OPTIMIZED_OUT:
		ev_put_str(o, t->flags & GS_TYPEF_SYNTHETIC ? "<synthetic pointer>" :
			   "<optimized out>");
		return;
	default:
		/* Not a scalar, or fewer bytes than its type: the bytes there are. */
		if (gs_value_scalar(t, data, len, 0, 0, &s)) {
			if (t->flags & GS_TYPEF_REFERENCE)
				ev_put_char(o, '@'); /* a reference member, as gdb */
			put_scalar(o, &s);
		} else {
			put_raw(o, t, data, len);
		}
		return;
	}
}

/* A value with the extension its views read after its bytes. */
static void put_typed_value(struct ev_out *o, const struct gs_type *t, const struct gs_value *v)
{
	size_t len;
	struct ev_ext x = ev_value_ext(t, v, &len);

	ev_put_typed(o, t, v->data, len, 0, x);
}

static void put_status(struct ev_out *o, const struct gs_value *v)
{
	if (v->status == GS_VAR_READ_ERROR && v->data_len >= sizeof(struct gs_read_error_payload)) {
		const struct gs_read_error_payload *e = (const void *)v->data;

		ev_put_str(o, "<read error: errno=");
		ev_put_sdec(o, e->errno_value);
		ev_put(o, " at ", 4);
		ev_put_0x(o, e->addr);
		ev_put_char(o, '>');
	} else if (v->status < BASE_ARRAY_SIZE(status_texts)) {
		ev_put_str(o, status_texts[v->status]);
	} else {
		ev_put_str(o, "<bad status ");
		ev_put_udec(o, v->status);
		ev_put_char(o, '>');
	}
}

void ev_put_dump(struct ev_out *o, const struct gs_value *v, char conv, uint64_t n)
{
	size_t take = v->status == GS_VAR_ZERO_LENGTH ? 0 : n < v->data_len ? (size_t)n : v->data_len;

	if (conv == 's') {
		put_chars(o, v->data, take, false);
		return;
	}
	for (size_t i = 0; i < take; i++) {
		if (i)
			ev_put_char(o, ' ');
		ev_put_hex(o, v->data[i], conv == 'X', 2);
	}
}

void ev_put_value(struct ev_out *o, const struct gs_value *v, char conv)
{
	struct gs_type flat = { .kind = v->kind, .name = "?" };
	const struct gs_type *t = v->type ? v->type : &flat;
	bool truncated = v->status == GS_VAR_TRUNCATED && v->data_len;
	struct gs_scalar s;

	if (v->status != GS_VAR_OK && !truncated) {
		put_status(o, v);
		return;
	}
	if (type_problem(v->type)) {
		ev_put_str(o, type_problem(v->type));
		return;
	}
	if (v->data_len == 0 && v->kind != GS_TYPE_OPTIMIZED_OUT &&
	    v->kind != GS_TYPE_NULL_POINTER && v->kind != GS_TYPE_CSTRING &&
	    v->kind != GS_TYPE_STRING) {
		ev_put_str(o, "<no data>");
		return;
	}
	if (v->kind != t->kind)
		t = &flat;
	if (conv == 'p') {
		uint64_t x = 0;

		for (size_t i = v->data_len < 8 ? v->data_len : 8; i-- > 0;)
			x = x << 8 | v->data[i];
		ev_put_0x(o, x);
	} else if (conv == 's') {
		put_chars(o, v->data, v->data_len, false);
	} else if ((conv == 'x' || conv == 'X') && gs_value_scalar(t, v->data, v->data_len, 0, 0,
								   &s)) {
		ev_put_hex(o, t->kind == GS_TYPE_F32 || t->kind == GS_TYPE_F64 || width_of(t) == 8 ?
			   s.bits : s.bits & ((1ull << 8 * width_of(t)) - 1), conv == 'X', 1);
	} else if (conv == 'x' || conv == 'X') {
		ev_put_dump(o, v, conv, v->data_len);
	} else {
		put_typed_value(o, t, v);
	}
	if (truncated)
		ev_put_str(o, " <truncated>");
}
