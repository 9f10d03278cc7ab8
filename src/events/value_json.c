/* Typed values in JSON (print_json.c's "value"): numbers, strings (char
 * arrays, enums by name, pointers in hex), objects for structs and unions,
 * arrays, and {"status": ...} for a part that has no value. A type with a
 * view is view_json.c's, whose elements come back here: the two recurse as
 * a value's parts do. */
#include <inttypes.h>
#include <string.h>

#include <gs/render.h>

#include "json_int.h"

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

	ev_json_strn(f, (const char *)data, nul ? (size_t)(nul - data) : len);
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
			ev_json_str(f, s->enumerator);
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
		ev_json_str(f, text);
	else
		fputs(text, f);
}

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
		ev_json_key(f, first, m->name ? m->name : "");
		if (m->bit_size && gs_value_scalar(m->type, data + m->offset, len - m->offset,
						   m->bit_offset, m->bit_size, &s))
			json_scalar(f, &s);
		else
			ev_json_typed(f, m->type, data + m->offset, len - m->offset, depth + 1, *x);
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
		ev_json_typed(f, el, data + i * stride, stride, depth + 1, x);
		ev_ext_skip(&x, el);
	}
	fputc(']', f);
}

void ev_json_typed(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		       unsigned depth, struct ev_ext x)
{
	struct gs_scalar s;
	bool first = true;

	if (depth > JSON_MAX_DEPTH) {
		fputs("null", f);
		return;
	}
	if (gs_type_view(t) && ev_json_view(f, t, data, len, depth, &x))
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
		      JSON_OPTIMIZED_OUT, f);
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
