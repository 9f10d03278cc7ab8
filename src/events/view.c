/* Standard-library values as their debuggers show them (gs/view.h): C++
 * as gdb's libstdc++ printers do, Rust as rust-gdb does. A view reads its
 * own bytes (lengths, pointers, discriminants) and what the code
 * generator read for it into the value's extension: a status byte and the
 * bytes. A longer container shows the elements read and "..." after them,
 * its real length in its header; a read that failed says where, as gdb
 * does. */
#include <string.h>

#include "ev_int.h"

#define MAX_DEPTH 32

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* The u64 at off of the value, or false past what was captured. */
static bool field(const uint8_t *data, size_t len, uint32_t off, size_t n, uint64_t *out)
{
	if (off > len || n > len - off)
		return false;
	*out = le(data + off, n);
	return true;
}

static void put_name(struct ev_out *o, const char *s)
{
	if (s)
		ev_put_text(o, (const uint8_t *)s, strlen(s), 0, 0);
}

static void cannot_access(struct ev_out *o, uint64_t addr)
{
	ev_put_str(o, "<error: Cannot access memory at address ");
	ev_put_0x(o, addr);
	ev_put_char(o, '>');
}

/* The length a string or sequence view holds (signed: garbage in a
 * vector's pointers can make it negative, and gdb shows it so). */
static bool view_len(const struct gs_view *v, const uint8_t *data, size_t len, int64_t *out)
{
	uint64_t n, p;
	uint32_t size = v->elem && v->elem->byte_size ? v->elem->byte_size : 1;

	if (!field(data, len, v->len_off, 8, &n))
		return false;
	if (v->len_how == GS_VLEN_END) {
		if (!field(data, len, v->ptr_off, 8, &p))
			return false;
		*out = (int64_t)(n - p) / (int64_t)size;
		return true;
	}
	*out = (int64_t)n;
	return true;
}

/* Why the extension has nothing to show, written; or false when it has. */
static bool ext_problem(struct ev_out *o, const struct ev_ext *x, uint64_t addr)
{
	if (!x->p || !x->n) {
		ev_put_str(o, "<not read: the event has no room>");
		return true;
	}
	if (x->p[0] == GS_VAR_NULL_DEREF) {
		cannot_access(o, 0);
		return true;
	}
	if (x->p[0] != GS_VAR_OK) {
		cannot_access(o, addr);
		return true;
	}
	return false;
}

static void put_string(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		       const struct ev_ext *x)
{
	int64_t n;
	uint64_t ptr = 0;
	uint32_t cap = gs_view_cap(x->caps, v);

	if (!view_len(v, data, len, &n) || !field(data, len, v->ptr_off, 8, &ptr)) {
		ev_put_str(o, "...");
		return;
	}
	if (n > 0 && ext_problem(o, x, ptr))
		return;
	ev_put_char(o, '"');
	if (n > 0)
		ev_put_text(o, x->p + 1, (uint64_t)n < cap ? (size_t)n : cap, '"', 0);
	ev_put_char(o, '"');
	if (n > (int64_t)cap)
		ev_put_str(o, "...");
}

/* {e0, e1, ...} of a sequence read into x, n long (cap of them read). */
static void put_elements(struct ev_out *o, const struct gs_view *v, int64_t n, uint64_t ptr,
			 const struct ev_ext *x, unsigned depth, bool with_index)
{
	uint32_t cap = gs_view_cap(x->caps, v);
	uint32_t size = v->elem->byte_size;
	uint32_t inner = gs_view_ext_size(x->caps, v->elem, x->depth + 1);
	uint64_t shown = n > (int64_t)cap ? cap : (uint64_t)n;

	ev_put(o, " = {", 4);
	if (ext_problem(o, x, ptr)) {
		ev_put_char(o, '}');
		return;
	}
	for (uint64_t i = 0; i < shown; i++) {
		struct ev_ext ex = ev_ext_sub(x, 1 + (size_t)cap * size + (size_t)i * inner, v->elem,
					      true);

		if (i)
			ev_put(o, ", ", 2);
		if (with_index) {
			ev_put_char(o, '[');
			ev_put_udec(o, i);
			ev_put(o, "] = ", 4);
		}
		ev_put_typed(o, v->elem, x->p + 1 + i * size, size, depth + 1, ex);
	}
	if ((uint64_t)n > shown)
		ev_put(o, "...", 3);
	ev_put_char(o, '}');
}

static void put_seq(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		    unsigned depth, const struct ev_ext *x)
{
	int64_t n;
	uint64_t ptr = 0, cap = 0;

	if (!view_len(v, data, len, &n) || !field(data, len, v->ptr_off, 8, &ptr)) {
		ev_put_str(o, "...");
		return;
	}
	switch (v->style) {
	case GS_VSTYLE_CPP_VECTOR:
		if (!field(data, len, v->cap_off, 8, &cap))
			return;
		ev_put_str(o, "std::vector of length ");
		ev_put_sdec(o, n);
		ev_put_str(o, ", capacity ");
		ev_put_sdec(o, (int64_t)(cap - ptr) / (int64_t)v->elem->byte_size);
		break;
	case GS_VSTYLE_CPP_SPAN:
		ev_put_str(o, "std::span of length ");
		ev_put_sdec(o, n);
		break;
	case GS_VSTYLE_RUST_SLICE:
		put_name(o, v->name);
		/* fall through */
	default:
		if (v->style == GS_VSTYLE_RUST_VEC)
			ev_put_str(o, "Vec");
		ev_put_str(o, "(size=");
		ev_put_sdec(o, n);
		ev_put_char(o, ')');
		break;
	}
	if (n > 0)
		put_elements(o, v, n, ptr, x, depth, false);
}

/* The extension of field i of an inline view. */
static struct ev_ext field_ext(const struct gs_view *v, uint32_t i, const struct ev_ext *x)
{
	size_t off = 0;

	for (uint32_t j = 0; j < i; j++)
		off += gs_view_ext_size(x->caps, v->fields[j].type, x->depth + 1);
	return ev_ext_sub(x, off, v->fields[i].type, true);
}

/* Field i of an inline view, with its part of the extension. */
static void put_field(struct ev_out *o, const struct gs_view *v, uint32_t i, const uint8_t *data,
		      size_t len, unsigned depth, const struct ev_ext *x)
{
	const struct gs_view_field *f = &v->fields[i];

	if (f->offset > len) {
		ev_put(o, "...", 3);
		return;
	}
	ev_put_typed(o, f->type, data + f->offset, len - f->offset, depth + 1, field_ext(v, i, x));
}

static void put_count(struct ev_out *o, const char *label, int64_t v)
{
	ev_put_str(o, label);
	ev_put_sdec(o, v);
}

static void put_shared(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		       unsigned depth, const struct ev_ext *x)
{
	uint64_t pi = 0;

	put_name(o, v->name);
	if (!field(data, len, v->ptr_off, 8, &pi))
		return;
	if (!pi) {
		ev_put_str(o, " (empty)");
	} else if (!x->p || x->n < 17 || x->p[0] != GS_VAR_OK) {
		ev_put_str(o, " (");
		cannot_access(o, pi);
		ev_put_char(o, ')');
	} else {
		int64_t use = (int32_t)le(x->p + 1 + 8, 4), weak = (int32_t)le(x->p + 1 + 12, 4) - 1;

		if (use)
			put_count(o, " (use count ", use);
		else
			ev_put_str(o, " (expired");
		put_count(o, ", weak count ", weak);
		ev_put_char(o, ')');
	}
	ev_put_str(o, " = {get() = ");
	put_field(o, v, 0, data, len, depth, x);
	ev_put_char(o, '}');
}

/* Rc and Arc: strong and weak (less the one every live Rc holds). */
static void put_rc(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		   unsigned depth, const struct ev_ext *x)
{
	uint64_t ptr = 0, strong, weak;
	size_t size = v->elem->byte_size;
	const struct gs_view_field *f = &v->fields[0];

	ev_put_str(o, v->style == GS_VSTYLE_RUST_ARC ? "Arc" : "Rc");
	if (!field(data, len, v->ptr_off, 8, &ptr) || ext_problem(o, x, ptr) || x->n < 1 + size ||
	    !field(x->p + 1, size, v->fields[1].offset, 8, &strong) ||
	    !field(x->p + 1, size, v->fields[2].offset, 8, &weak))
		return;
	ev_put_str(o, "(strong=");
	ev_put_udec(o, strong);
	ev_put_str(o, ", weak=");
	ev_put_sdec(o, (int64_t)weak - 1);
	ev_put_str(o, ") = {value = ");
	/* the value inside the block, with the block's extension */
	if (f->offset <= size)
		ev_put_typed(o, f->type, x->p + 1 + f->offset, size - f->offset, depth + 1,
			     ev_ext_sub(x, 1 + size, v->elem, true));
	ev_put_str(o, ", strong = ");
	ev_put_udec(o, strong);
	ev_put_str(o, ", weak = ");
	ev_put_sdec(o, (int64_t)weak - 1);
	ev_put_char(o, '}');
}

static void put_rust_members(struct ev_out *o, const struct gs_type *t, const uint8_t *data,
			     size_t len, unsigned depth, struct ev_ext x, bool space);

/* Rust's enums: the variant the discriminant selects (or the default
 * one), as path::Variant, path::Variant(a, b) or path::Variant{x: 1}. */
static void put_enum(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		     unsigned depth, const struct ev_ext *x)
{
	uint64_t d = 0;
	uint32_t pick = v->nfields;
	const struct gs_view_field *f;

	if (v->discr_size && !field(data, len, v->discr_off, v->discr_size, &d)) {
		ev_put_str(o, "...");
		return;
	}
	for (uint32_t i = 0; i < v->nfields && pick == v->nfields; i++) {
		uint64_t want = (uint64_t)v->fields[i].discr;

		if (v->discr_size < 8)
			want &= (1ull << 8 * v->discr_size) - 1;
		if (!v->discr_size || (!v->fields[i].is_default && want == d))
			pick = i;
	}
	for (uint32_t i = 0; i < v->nfields && pick == v->nfields; i++)
		if (v->fields[i].is_default)
			pick = i;
	put_name(o, v->name);
	if (pick == v->nfields) {
		ev_put_str(o, "::<invalid discriminant ");
		ev_put_udec(o, d);
		ev_put_char(o, '>');
		return;
	}
	ev_put(o, "::", 2);
	put_name(o, v->fields[pick].name);
	f = &v->fields[pick];
	if (f->type && f->offset <= len)
		put_rust_members(o, f->type, data + f->offset, len - f->offset, depth,
				 field_ext(v, pick, x), false);
}

/* A Rust struct's members: {x: 1, y: 2}, or (1, 2) when they are __0,
 * __1, ... (tuple structs, tuples, enum variants). */
static void put_rust_members(struct ev_out *o, const struct gs_type *t, const uint8_t *data,
			     size_t len, unsigned depth, struct ev_ext x, bool space)
{
	bool tuple = t->nmembers && t->members[0].name && !strncmp(t->members[0].name, "__", 2);

	if (!t->nmembers)
		return;
	if (space)
		ev_put_char(o, ' ');
	ev_put_char(o, tuple ? '(' : '{');
	for (uint32_t i = 0; i < t->nmembers; i++) {
		const struct gs_type_member *m = &t->members[i];

		if (i)
			ev_put(o, ", ", 2);
		if (!tuple && m->name) {
			put_name(o, m->name);
			ev_put(o, ": ", 2);
		}
		if (m->offset > len || (m->type && m->type->byte_size > len - m->offset)) {
			ev_put(o, "...", 3);
			break;
		}
		ev_put_typed(o, m->type, data + m->offset, len - m->offset, depth + 1, x);
		ev_ext_skip(&x, m->type);
	}
	ev_put_char(o, tuple ? ')' : '}');
}

static void put_inline(struct ev_out *o, const struct gs_type *t, const struct gs_view *v,
		       const uint8_t *data, size_t len, unsigned depth, const struct ev_ext *x)
{
	uint64_t d = 0;

	switch (v->style) {
	case GS_VSTYLE_CPP_UNIQUE_PTR:
		put_name(o, v->name);
		ev_put_str(o, " = {get() = ");
		put_field(o, v, 0, data, len, depth, x);
		ev_put_char(o, '}');
		return;
	case GS_VSTYLE_CPP_OPTIONAL:
		put_name(o, v->name);
		if (!field(data, len, v->discr_off, 1, &d) || !d) {
			ev_put_str(o, " [no contained value]");
			return;
		}
		ev_put_str(o, " = {[contained value] = ");
		put_field(o, v, 0, data, len, depth, x);
		ev_put_char(o, '}');
		return;
	case GS_VSTYLE_CPP_VARIANT:
		put_name(o, v->name);
		if (!field(data, len, v->discr_off, v->discr_size, &d) || d >= v->nfields) {
			ev_put_str(o, " [no contained value]");
			return;
		}
		ev_put_str(o, " [index ");
		ev_put_udec(o, d);
		ev_put_str(o, "] = {");
		put_field(o, v, (uint32_t)d, data, len, depth, x);
		ev_put_char(o, '}');
		return;
	case GS_VSTYLE_CPP_TUPLE:
		ev_put_str(o, "std::tuple containing = {");
		for (uint32_t i = 0; i < v->nfields; i++) {
			ev_put_str(o, i ? ", [" : "[");
			ev_put_udec(o, i + 1);
			ev_put_str(o, "] = ");
			put_field(o, v, i, data, len, depth, x);
		}
		ev_put_char(o, '}');
		return;
	case GS_VSTYLE_RUST_CELL:
	case GS_VSTYLE_RUST_REFCELL:
		if (v->style == GS_VSTYLE_RUST_CELL) {
			ev_put_str(o, "Cell");
		} else {
			int64_t b = field(data, len, v->fields[1].offset, 8, &d) ? (int64_t)d : 0;

			ev_put_str(o, b < 0 ? "RefCell(borrow_mut=" : "RefCell(borrow=");
			ev_put_sdec(o, b < 0 ? -b : b);
			ev_put_char(o, ')');
		}
		ev_put_str(o, " = {value = ");
		put_field(o, v, 0, data, len, depth, x);
		if (v->style == GS_VSTYLE_RUST_REFCELL) {
			ev_put_str(o, ", borrow = ");
			put_field(o, v, 1, data, len, depth, x);
		}
		ev_put_char(o, '}');
		return;
	case GS_VSTYLE_RUST_NONZERO:
		put_field(o, v, 0, data, len, depth, x);
		return;
	case GS_VSTYLE_RUST_ENUM:
		put_enum(o, v, data, len, depth, x);
		return;
	case GS_VSTYLE_RUST_TUPLE:
		put_rust_members(o, t, data, len, depth, *x, false);
		return;
	default: /* GS_VSTYLE_RUST_STRUCT */
		put_name(o, v->name);
		put_rust_members(o, t, data, len, depth, *x, true);
		return;
	}
}

bool ev_put_view(struct ev_out *o, const struct gs_type *t, const uint8_t *data, size_t len,
		 unsigned depth, struct ev_ext x)
{
	const struct gs_view *v = gs_view_at(x.caps, t, x.depth);

	if (depth > MAX_DEPTH || !v) {
		ev_put(o, "{...}", 5);
		return true;
	}
	switch (v->kind) {
	case GS_VIEW_STRING:
		put_string(o, v, data, len, &x);
		return true;
	case GS_VIEW_SEQ:
		put_seq(o, v, data, len, depth, &x);
		return true;
	case GS_VIEW_BOX:
		if (v->style == GS_VSTYLE_RUST_RC || v->style == GS_VSTYLE_RUST_ARC)
			put_rc(o, v, data, len, depth, &x);
		else
			put_shared(o, v, data, len, depth, &x);
		return true;
	case GS_VIEW_INLINE:
		put_inline(o, t, v, data, len, depth, &x);
		return true;
	default:
		return ev_put_walked(o, v, data, len, depth, &x);
	}
}
