/* Standard-library values as their debuggers show them (gs/view.h): C++
 * as gdb's libstdc++ printers do, Rust as rust-gdb does. A view reads its
 * own bytes (lengths, pointers, discriminants) and what the code
 * generator read for it into the value's extension: a status byte and the
 * bytes. A longer container shows the elements read and "..." after them,
 * its real length in its header; a read that failed says where, as gdb
 * does. */
#include <string.h>

#include "base.h"
#include "view_parts.h"

#define MAX_DEPTH 32

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

/* Why the extension has nothing to show, written; or false when it has. */
static bool ext_problem(struct ev_out *o, const struct ev_ext *x, uint64_t addr)
{
	uint64_t fault = 0;

	switch (ev_ext_state(x, addr, &fault)) {
	case EV_EXT_NO_ROOM:
		ev_put_str(o, "<not read: the event has no room>");
		return true;
	case EV_EXT_FAILED:
		cannot_access(o, fault);
		return true;
	case EV_EXT_OPTIMIZED_OUT:
		ev_put_str(o, "<optimized out>");
		return true;
	default:
		return false;
	}
}

static void put_string(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		       const struct ev_ext *x)
{
	struct ev_seq s;

	if (!ev_view_seq(v, data, len, x, &s)) {
		ev_put_str(o, "...");
		return;
	}
	if (s.n > 0 && ext_problem(o, x, s.ptr))
		return;
	ev_put_char(o, '"');
	if (s.n > 0)
		ev_put_text(o, x->p + 1, (size_t)s.shown, '"', 0);
	ev_put_char(o, '"');
	if (s.n > (int64_t)s.cap)
		ev_put_str(o, "...");
}

/* A char *: its address, then the text as gdb shows it, `0x... "text"`
 * (`"..."...` past the cap); NULL alone as 0x0; a read that failed with
 * gdb's words. */
static void put_cstring(struct ev_out *o, const struct gs_view *v, const uint8_t *data,
			size_t len, const struct ev_ext *x)
{
	struct ev_cstring s;

	if (!ev_view_cstring(v, data, len, x, &s)) {
		ev_put_str(o, "...");
		return;
	}
	ev_put_0x(o, s.ptr);
	if (!s.ptr)
		return;
	ev_put_char(o, ' ');
	if (ext_problem(o, x, s.ptr))
		return;
	ev_put_char(o, '"');
	ev_put_text(o, s.text, s.n, '"', 0);
	ev_put_char(o, '"');
	if (s.cut)
		ev_put_str(o, "...");
}

/* A C++ reference inside a value: the object it refers to, as gdb shows
 * it without its `@0x...: ` prefix; not read (no room), gdb's prefix
 * alone. */
static void put_referent(struct ev_out *o, const struct gs_view *v, const uint8_t *data,
			 size_t len, unsigned depth, const struct ev_ext *x)
{
	struct ev_referent r;

	if (!ev_view_referent(v, data, len, x, &r)) {
		ev_put_str(o, "...");
		return;
	}
	switch (r.state) {
	case EV_EXT_OK:
		ev_put_typed(o, v->elem, r.value, v->elem->byte_size, depth + 1, r.ext);
		return;
	case EV_EXT_FAILED:
		cannot_access(o, r.fault);
		return;
	case EV_EXT_OPTIMIZED_OUT:
		ev_put_str(o, "<optimized out>");
		return;
	default:
		ev_put_char(o, '@');
		ev_put_0x(o, r.ptr);
		return;
	}
}

/* {e0, e1, ...} of a sequence read into x (s->shown of them read). */
static void put_elements(struct ev_out *o, const struct gs_view *v, const struct ev_seq *s,
			 const struct ev_ext *x, unsigned depth)
{
	ev_put(o, " = {", 4);
	if (ext_problem(o, x, s->ptr)) {
		ev_put_char(o, '}');
		return;
	}
	for (uint64_t i = 0; i < s->shown; i++) {
		struct ev_ext ex;
		const uint8_t *el = ev_seq_elem(v, x, i, &ex);

		if (i)
			ev_put(o, ", ", 2);
		ev_put_typed(o, v->elem, el, v->elem->byte_size, depth + 1, ex);
	}
	if ((uint64_t)s->n > s->shown)
		ev_put(o, "...", 3);
	ev_put_char(o, '}');
}

static void put_seq(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		    unsigned depth, const struct ev_ext *x)
{
	struct ev_seq s;
	uint64_t cap = 0;

	if (!ev_view_seq(v, data, len, x, &s)) {
		ev_put_str(o, "...");
		return;
	}
	switch (v->style) {
	case GS_VSTYLE_CPP_VECTOR:
		if (!ev_view_u(data, len, v->cap_off, 8, &cap))
			return;
		ev_put_str(o, "std::vector of length ");
		ev_put_sdec(o, s.n);
		ev_put_str(o, ", capacity ");
		ev_put_sdec(o, (int64_t)(cap - s.ptr) / (int64_t)v->elem->byte_size);
		break;
	case GS_VSTYLE_CPP_SPAN:
		ev_put_str(o, "std::span of length ");
		ev_put_sdec(o, s.n);
		break;
	case GS_VSTYLE_RUST_SLICE:
		put_name(o, v->name);
		/* fall through */
	default:
		if (v->style == GS_VSTYLE_RUST_VEC)
			ev_put_str(o, "Vec");
		ev_put_str(o, "(size=");
		ev_put_sdec(o, s.n);
		ev_put_char(o, ')');
		break;
	}
	if (s.n > 0)
		put_elements(o, v, &s, x, depth);
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
	ev_put_typed(o, f->type, data + f->offset, len - f->offset, depth + 1, ev_view_field_ext(v, i, x));
}

static void put_count(struct ev_out *o, const char *label, int64_t v)
{
	ev_put_str(o, label);
	ev_put_sdec(o, v);
}

static void put_shared(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		       unsigned depth, const struct ev_ext *x)
{
	struct ev_counts c;

	put_name(o, v->name);
	switch (ev_view_shared(v, data, len, x, &c)) {
	case EV_SHARED_UNCAPTURED:
		return;
	case EV_SHARED_EMPTY:
		ev_put_str(o, " (empty)");
		break;
	case EV_SHARED_UNREAD:
		ev_put_str(o, " (");
		cannot_access(o, c.ptr);
		ev_put_char(o, ')');
		break;
	case EV_SHARED_COUNTS:
		if (c.use)
			put_count(o, " (use count ", c.use);
		else
			ev_put_str(o, " (expired");
		put_count(o, ", weak count ", c.weak);
		ev_put_char(o, ')');
		break;
	}
	ev_put_str(o, " = {get() = ");
	put_field(o, v, 0, data, len, depth, x);
	ev_put_char(o, '}');
}

/* Rc and Arc: strong and weak (less the one every live Rc holds). */
static void put_rc(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		   unsigned depth, const struct ev_ext *x)
{
	uint64_t ptr = 0;
	struct ev_rc rc;

	ev_put_str(o, v->style == GS_VSTYLE_RUST_ARC ? "Arc" : "Rc");
	if (!ev_view_u(data, len, v->ptr_off, 8, &ptr) || ext_problem(o, x, ptr) ||
	    !ev_view_rc(v, x, &rc))
		return;
	ev_put_str(o, "(strong=");
	ev_put_udec(o, rc.strong);
	ev_put_str(o, ", weak=");
	ev_put_sdec(o, rc.weak);
	ev_put_str(o, ") = {value = ");
	/* the value inside the block, with the block's extension */
	if (rc.value)
		ev_put_typed(o, v->fields[0].type, rc.value, rc.value_len, depth + 1, rc.value_ext);
	ev_put_str(o, ", strong = ");
	ev_put_udec(o, rc.strong);
	ev_put_str(o, ", weak = ");
	ev_put_sdec(o, rc.weak);
	ev_put_char(o, '}');
}

static void put_rust_members(struct ev_out *o, const struct gs_type *t, const uint8_t *data,
			     size_t len, unsigned depth, struct ev_ext x, bool space);

/* Rust's enums: the variant the discriminant selects (or the default
 * one), as path::Variant, path::Variant(a, b) or path::Variant{x: 1}. */
static void put_enum(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		     unsigned depth, const struct ev_ext *x)
{
	uint64_t d;
	uint32_t pick;
	const struct gs_view_field *f;

	if (!ev_view_enum_pick(v, data, len, &d, &pick)) {
		ev_put_str(o, "...");
		return;
	}
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
				 ev_view_field_ext(v, pick, x), false);
}

/* A Rust struct's members: {x: 1, y: 2}, or (1, 2) when they are __0,
 * __1, ... (tuple structs, tuples, enum variants). */
static void put_rust_members(struct ev_out *o, const struct gs_type *t, const uint8_t *data,
			     size_t len, unsigned depth, struct ev_ext x, bool space)
{
	bool tuple = t->nmembers && t->members[0].name && base_has_prefix(t->members[0].name, "__");

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
		if (!ev_view_engaged(v, data, len)) {
			ev_put_str(o, " [no contained value]");
			return;
		}
		ev_put_str(o, " = {[contained value] = ");
		put_field(o, v, 0, data, len, depth, x);
		ev_put_char(o, '}');
		return;
	case GS_VSTYLE_CPP_VARIANT:
		put_name(o, v->name);
		if (!ev_view_variant(v, data, len, &d)) {
			ev_put_str(o, " [no contained value]");
			return;
		}
		ev_put_str(o, " [index ");
		ev_put_udec(o, d);
		ev_put_str(o, "] = {");
		put_field(o, v, (uint32_t)d, data, len, depth, x);
		ev_put_char(o, '}');
		return;
	case GS_VSTYLE_CPP_PAIR:
		for (uint32_t i = 0; i < v->nfields; i++) {
			ev_put_str(o, i ? ", " : "{");
			put_name(o, v->fields[i].name);
			ev_put(o, " = ", 3);
			put_field(o, v, i, data, len, depth, x);
		}
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
			int64_t b = ev_view_borrow(v, data, len);

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

static void put_bits(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		     const struct ev_ext *x)
{
	struct ev_bits b;

	if (!ev_view_bits(v, data, len, x, &b)) {
		ev_put_str(o, "...");
		return;
	}
	ev_put_str(o, "std::vector<bool> of length ");
	ev_put_sdec(o, b.n);
	ev_put_str(o, ", capacity ");
	ev_put_sdec(o, b.cap);
	if (b.n <= 0)
		return;
	ev_put(o, " = {", 4);
	if (!ext_problem(o, x, b.ptr)) {
		for (uint64_t i = 0; i < b.shown; i++) {
			if (i)
				ev_put(o, ", ", 2);
			ev_put_str(o, ev_bit(x, i) ? "true" : "false");
		}
		if ((uint64_t)b.n > b.shown)
			ev_put(o, "...", 3);
	}
	ev_put_char(o, '}');
}

bool ev_put_view(struct ev_out *o, const struct gs_type *t, const uint8_t *data, size_t len,
		 unsigned depth, struct ev_ext x)
{
	const struct gs_view *v = gs_view_at(x.caps, t, x.depth);

	if (!v && !t->view)
		return false; /* a char * too deep for its string: its address */
	if (depth > MAX_DEPTH || !v) {
		ev_put(o, "{...}", 5);
		return true;
	}
	if (gs_view_gap(t) == GS_VIEW_GAP_WHOLE) {
		ev_put_str(o, "<optimized out>"); /* not read as if it were 0 */
		return true;
	}
	switch (v->kind) {
	case GS_VIEW_CSTRING:
		put_cstring(o, v, data, len, &x);
		return true;
	case GS_VIEW_STRING:
		put_string(o, v, data, len, &x);
		return true;
	case GS_VIEW_SEQ:
		put_seq(o, v, data, len, depth, &x);
		return true;
	case GS_VIEW_BOX:
		if (v->style == GS_VSTYLE_CPP_REFERENCE)
			put_referent(o, v, data, len, depth, &x);
		else if (v->style == GS_VSTYLE_RUST_RC || v->style == GS_VSTYLE_RUST_ARC)
			put_rc(o, v, data, len, depth, &x);
		else
			put_shared(o, v, data, len, depth, &x);
		return true;
	case GS_VIEW_INLINE:
		put_inline(o, t, v, data, len, depth, &x);
		return true;
	case GS_VIEW_BITS:
		put_bits(o, v, data, len, &x);
		return true;
	default:
		return ev_put_walked(o, v, data, len, depth, &x);
	}
}
