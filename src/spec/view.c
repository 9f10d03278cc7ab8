/* The extension layout of views (gs/view.h): how many bytes a value's
 * views read past its own, in the one order the code generator writes
 * them and the decoder reads them. */
#include <stdbool.h>

#include <gs/context.h>
#include <gs/view.h>
#include <gs/wire.h>

#define MAX_NEST 64 /* plain structs and arrays inside each other */

static uint32_t sat_add(uint32_t a, uint64_t b)
{
	uint64_t s = (uint64_t)a + b;

	return s > GS_VIEW_MAX_EXT ? GS_VIEW_MAX_EXT + 1 : (uint32_t)s;
}

static uint32_t caps_or(uint32_t v, uint32_t dflt)
{
	return v ? v : dflt;
}

const struct gs_view *gs_type_view(const struct gs_type *t)
{
	/* a char * is a string wherever it is: one view serves every one */
	static const struct gs_view cstring = { .kind = GS_VIEW_CSTRING,
						.style = GS_VSTYLE_C_STRING };
	const struct gs_type *to;

	if (!t)
		return NULL;
	/* a C++ reference inside a value: gdb prints what it refers to when a
	 * printer knows the type (a standard-library view), else `@0x...` */
	if (t->view && t->view->style == GS_VSTYLE_CPP_REFERENCE)
		return t->view->elem && t->view->elem->view ? t->view : NULL;
	if (t->view)
		return t->view;
	if (t->kind != GS_TYPE_POINTER || t->byte_size != 8 ||
	    (t->flags & (GS_TYPEF_REFERENCE | GS_TYPEF_FUNCTION)) || !(to = t->target))
		return NULL;
	return to->byte_size == 1 && (to->kind == GS_TYPE_CHAR || (to->flags & GS_TYPEF_CHAR)) ?
		&cstring : NULL;
}

/* Whether a member placeholder of a missing piece (not bytes past the
 * last piece: gdb reads those) overlaps [off, off + size) of t. */
static bool missing(const struct gs_type *t, uint64_t off, uint64_t size, unsigned nest)
{
	if (!t || !size || nest > MAX_NEST)
		return false;
	if (t->kind == GS_TYPE_OPTIMIZED_OUT)
		return !(t->flags & GS_TYPEF_SYNTHETIC);
	if (t->kind != GS_TYPE_STRUCT && t->kind != GS_TYPE_UNION)
		return false;
	for (uint32_t i = 0; i < t->nmembers; i++) {
		const struct gs_type_member *m = &t->members[i];
		uint64_t end = (uint64_t)m->offset + (m->type ? m->type->byte_size : 0);

		if (m->offset < off + size && end > off &&
		    missing(m->type, off > m->offset ? off - m->offset : 0,
			    off + size - (off > m->offset ? off : m->offset), nest + 1))
			return true;
	}
	return false;
}

enum gs_view_gap gs_view_gap(const struct gs_type *t)
{
	const struct gs_view *v = t ? t->view : NULL;
	bool header;

	if (!v || t->kind == GS_TYPE_OPTIMIZED_OUT)
		return GS_VIEW_GAP_NONE;
	switch (v->kind) {
	case GS_VIEW_INLINE:
		/* its fields are typed with their own placeholders */
		return v->discr_size && missing(t, v->discr_off, v->discr_size, 0) ?
			GS_VIEW_GAP_WHOLE : GS_VIEW_GAP_NONE;
	case GS_VIEW_BOX:
	case GS_VIEW_CSTRING:
		return missing(t, v->ptr_off, 8, 0) ? GS_VIEW_GAP_WHOLE : GS_VIEW_GAP_NONE;
	default:
		/* a sequence: its length (with the pointer, when the length is
		 * the pointers' difference) and the words its header shows */
		header = missing(t, v->len_off, 8, 0) ||
			 (v->len_how == GS_VLEN_END && missing(t, v->ptr_off, 8, 0)) ||
			 (v->len_how == GS_VLEN_MASKED && missing(t, v->head_off, 8, 0)) ||
			 (v->style == GS_VSTYLE_CPP_VECTOR && missing(t, v->cap_off, 8, 0)) ||
			 (v->kind == GS_VIEW_BITS && (missing(t, v->head_off, 4, 0) ||
						      missing(t, v->cap_off, 8, 0)));
		if (header)
			return GS_VIEW_GAP_WHOLE;
		return missing(t, v->ptr_off, 8, 0) ? GS_VIEW_GAP_ELEMENTS : GS_VIEW_GAP_NONE;
	}
}

const struct gs_view *gs_view_at(const struct gs_view_caps *caps, const struct gs_type *t,
				 unsigned depth)
{
	const struct gs_view *v = gs_type_view(t);

	if (!v)
		return NULL;
	/* a plain Rust struct's view reads nothing: any depth shows it */
	if (v->kind == GS_VIEW_INLINE && !v->nfields)
		return v;
	return depth < caps_or(caps->depth, GS_VIEW_DEFAULT_DEPTH) ? v : NULL;
}

static uint32_t ext(const struct gs_view_caps *caps, const struct gs_type *t, unsigned depth,
		    unsigned nest);

uint32_t gs_view_deque_nodes(const struct gs_view_caps *caps, const struct gs_view *v)
{
	uint32_t per = v->node_size ? v->node_size : 1;

	return gs_view_cap(caps, v) / per + 2;
}

uint32_t gs_view_btree_nodes(const struct gs_view_caps *caps, const struct gs_view *v)
{
	return gs_view_cap(caps, v) / 5 + 3;
}

uint32_t gs_view_bits_words(const struct gs_view_caps *caps)
{
	return (caps_or(caps->elements, GS_VIEW_DEFAULT_ELEMENTS) + 63) / 64;
}

uint32_t gs_view_tree_slots(uint32_t cap)
{
	uint32_t n = 1;

	while (n < cap + 2 && n < (1u << 30))
		n <<= 1;
	return n;
}

uint32_t gs_view_tree_nodes(const struct gs_view_caps *caps, const struct gs_view *v)
{
	uint32_t n = gs_view_cap(caps, v);

	/* the in-order first n need their ancestors read too: up to a red-black
	 * tree's height more, for elements that read nothing more */
	return v->elem && ext(caps, v->elem, 1, 0) ? n : n + 32;
}

uint32_t gs_view_cap(const struct gs_view_caps *caps, const struct gs_view *v)
{
	uint32_t n = caps_or(caps->elements, GS_VIEW_DEFAULT_ELEMENTS);
	uint32_t nested = caps_or(caps->nested, GS_VIEW_DEFAULT_NESTED);

	if (v->kind == GS_VIEW_STRING || v->kind == GS_VIEW_CSTRING)
		return caps_or(caps->string_bytes, 256);
	/* a map's key and value count as two elements, as for gdb's printers */
	if (v->pairs && n > 1)
		n /= 2;
	/* a sequence whose elements read more: fewer of them */
	if (((v->elem && ext(caps, v->elem, 1, 0)) ||
	     (v->kind == GS_VIEW_BTREE && v->nfields && ext(caps, v->fields[0].type, 1, 0))) &&
	    nested < n)
		n = nested;
	return n;
}

/* The extension of the view itself (its status, what it read, and the
 * extensions of that). */
static uint32_t view_ext(const struct gs_view_caps *caps, const struct gs_view *v, unsigned depth)
{
	uint32_t size = v->elem ? v->elem->byte_size : 0;
	uint32_t n, inner;

	switch (v->kind) {
	case GS_VIEW_STRING:
		return sat_add(1, gs_view_cap(caps, v));
	case GS_VIEW_CSTRING:
		return sat_add(1, GS_VIEW_CSTRING_READ(gs_view_cap(caps, v)));
	case GS_VIEW_SEQ:
		n = gs_view_cap(caps, v);
		inner = ext(caps, v->elem, depth + 1, 0);
		return sat_add(1, (uint64_t)n * size + (uint64_t)n * inner);
	case GS_VIEW_RING:
		/* twice the elements' room: the second part of the ring is read
		 * after the first at a run-time offset, and the verifier bounds
		 * the two apart */
		n = gs_view_cap(caps, v);
		inner = ext(caps, v->elem, depth + 1, 0);
		return sat_add(1, (uint64_t)n * 2 * size + (uint64_t)n * inner);
	case GS_VIEW_DEQUE:
		n = gs_view_cap(caps, v);
		inner = ext(caps, v->elem, depth + 1, 0);
		return sat_add(1, 8ull * gs_view_deque_nodes(caps, v) + (uint64_t)n * 2 * size +
			       (uint64_t)n * inner);
	case GS_VIEW_BTREE:
		n = gs_view_btree_nodes(caps, v);
		inner = ext(caps, v->elem, depth + 1, 0);
		if (v->nfields)
			inner += ext(caps, v->fields[0].type, depth + 1, 0);
		return sat_add(1 + 4, (uint64_t)n * (8 + v->node_size) +
			       8ull * GS_VIEW_BTREE_SLOTS +
			       (uint64_t)n * v->node_keys * inner);
	case GS_VIEW_BITS:
		return sat_add(1, gs_view_bits_words(caps) * 8ull);
	case GS_VIEW_LIST:
		n = gs_view_cap(caps, v);
		inner = ext(caps, v->elem, depth + 1, 0);
		return sat_add(1, (uint64_t)n * v->node_size + (uint64_t)n * inner);
	case GS_VIEW_HASH:
		n = gs_view_cap(caps, v);
		inner = ext(caps, v->elem, depth + 1, 0);
		/* the buckets are read to end at the last slot: twice the room,
		 * as for the ring */
		return sat_add(1, (uint64_t)n * (1 + 2 * size + inner));
	case GS_VIEW_TREE:
		n = gs_view_tree_nodes(caps, v);
		inner = ext(caps, v->elem, depth + 1, 0);
		return sat_add(1 + 4, (uint64_t)n * (8 + v->node_size + inner) +
			       8ull * gs_view_tree_slots(n));
	case GS_VIEW_BOX:
		return sat_add(1, (uint64_t)size + ext(caps, v->elem, depth + 1, 0));
	default:
		return 0;
	}
}

static uint32_t ext(const struct gs_view_caps *caps, const struct gs_type *t, unsigned depth,
		    unsigned nest)
{
	const struct gs_view *v;
	uint32_t total = 0;

	if (!t || nest > MAX_NEST)
		return 0;
	if ((v = gs_view_at(caps, t, depth)) && v->kind != GS_VIEW_INLINE)
		return view_ext(caps, v, depth);
	if (gs_type_view(t) && !v)
		return 0; /* too deep: shown as {...} (a char * as its address) */
	if (v && v->nfields) {
		/* an inline view's parts: every variant of an enum, in order */
		for (uint32_t i = 0; i < v->nfields; i++)
			total = sat_add(total, ext(caps, v->fields[i].type, depth + 1, nest + 1));
		return total;
	}
	switch (t->kind) {
	case GS_TYPE_UNION:
		/* a C union shows every member, views and all, as gdb does (a
		 * Rust enum's variants are its view's fields, above) */
		if (v)
			return 0;
		/* fall through */
	case GS_TYPE_STRUCT:
		for (uint32_t i = 0; i < t->nmembers; i++)
			total = sat_add(total, ext(caps, t->members[i].type, depth, nest + 1));
		return total;
	case GS_TYPE_ARRAY:
		if (!t->count)
			return 0;
		return sat_add(0, (uint64_t)t->count * ext(caps, t->target, depth, nest + 1));
	default:
		/* pointers and scalars read nothing more */
		return 0;
	}
}

uint32_t gs_view_ext_size(const struct gs_view_caps *caps, const struct gs_type *t,
			  unsigned depth)
{
	return ext(caps, t, depth, 0);
}
