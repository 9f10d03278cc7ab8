/* A value some of whose pieces have no location, or a pointer that is a
 * DW_OP_implicit_pointer (gdb: <synthetic pointer>), shown as gdb shows it:
 * a composite location with an empty DW_OP_piece, or pieces that end
 * before the type does. gdb prints the members those bytes hold as
 * <optimized out> (an empty piece) or <synthetic pointer> (bytes no piece
 * covers: gdb's check for implicit pointers holds vacuously there), and a
 * scalar with any byte missing as <optimized out>. The variable gets a
 * copy of its type in which those members are placeholders
 * (GS_TYPE_OPTIMIZED_OUT), so nothing prints the bytes no piece wrote,
 * and no view follows them (a Rust Vec whose pointer has no piece is not
 * a read of address 0: gs_view_gap). */
#include <string.h>

#include "dwv_int.h"

#define MAX_MISSING 16
#define MAX_DEPTH 8

struct missing {
	uint64_t lo, hi;
	bool uncovered; /* past the last piece: <synthetic pointer> */
};

struct gaps {
	struct missing v[MAX_MISSING];
	unsigned n;
};

/* 0: [lo, hi) has every byte; 1: some missing; 2: all in uncovered bytes. */
static int overlap(const struct gaps *g, uint64_t lo, uint64_t hi)
{
	bool any = false, all_uncovered = true;

	for (unsigned i = 0; i < g->n; i++) {
		if (g->v[i].hi <= lo || g->v[i].lo >= hi)
			continue;
		any = true;
		if (!g->v[i].uncovered || g->v[i].lo > lo || g->v[i].hi < hi)
			all_uncovered = false;
	}
	return !any ? 0 : all_uncovered ? 2 : 1;
}

/* Whether an empty piece (not bytes past the last piece) overlaps [lo, hi).
 * A scalar that a piece covers in part and no empty piece touches is a
 * value for gdb, the bytes past the last piece read as zeros (the code
 * generator writes them so): a u64 of which DW_OP_piece 4 gives the low
 * half. */
static bool in_empty_piece(const struct gaps *g, uint64_t lo, uint64_t hi)
{
	for (unsigned i = 0; i < g->n; i++)
		if (!g->v[i].uncovered && g->v[i].hi > lo && g->v[i].lo < hi)
			return true;
	return false;
}

static const struct gs_type *placeholder(struct gs_dwarf *d, const struct gs_type *t,
					 bool uncovered)
{
	struct gs_type *p = dwv_alloc(d, sizeof(*p));

	if (!p)
		return t;
	*p = (struct gs_type){ .kind = GS_TYPE_OPTIMIZED_OUT, .name = t->name,
			       .byte_size = t->byte_size,
			       .flags = uncovered ? GS_TYPEF_SYNTHETIC : 0 };
	return p;
}

static const struct gs_type *mark(struct gs_dwarf *d, const struct gs_type *t, uint64_t base,
				  const struct gaps *g, unsigned depth);

/* A view whose parts (an enum's variants, an optional's payload, a
 * smart pointer's pointer) are typed apart from the members: the same
 * placeholders in them, so that a view never reads what no piece wrote
 * (gs_view_gap says what the view itself lacks). */
static const struct gs_view *mark_fields(struct gs_dwarf *d, const struct gs_view *v,
					 uint64_t base, const struct gaps *g, unsigned depth)
{
	struct gs_view *copy = dwv_alloc(d, sizeof(*copy));
	struct gs_view_field *f = dwv_alloc(d, v->nfields * sizeof(*f));

	if (!copy || !f)
		return v;
	*copy = *v;
	memcpy(f, v->fields, v->nfields * sizeof(*f));
	for (uint32_t i = 0; i < v->nfields; i++)
		if (f[i].type)
			f[i].type = mark(d, f[i].type, base + f[i].offset, g, depth + 1);
	copy->fields = f;
	return copy;
}

static const struct gs_type *mark(struct gs_dwarf *d, const struct gs_type *t, uint64_t base,
				  const struct gaps *g, unsigned depth)
{
	int o = overlap(g, base, base + (t->byte_size ? t->byte_size : 1));
	struct gs_type_member *m;
	struct gs_type *copy;

	if (!o)
		return t;
	if ((t->kind != GS_TYPE_STRUCT && t->kind != GS_TYPE_UNION) || !t->nmembers ||
	    depth == MAX_DEPTH) {
		if (o == 1 && !in_empty_piece(g, base, base + (t->byte_size ? t->byte_size : 1)))
			return t;
		return placeholder(d, t, o == 2);
	}
	copy = dwv_alloc(d, sizeof(*copy));
	m = dwv_alloc(d, t->nmembers * sizeof(*m));
	if (!copy || !m)
		return t;
	*copy = *t;
	memcpy(m, t->members, t->nmembers * sizeof(*m));
	for (uint32_t i = 0; i < t->nmembers; i++) {
		uint64_t at = base + m[i].offset;

		if (m[i].bit_size) {
			uint64_t end = at + (m[i].bit_offset + m[i].bit_size + 7u) / 8;
			int bo = overlap(g, at, end);

			if (bo == 2 || (bo == 1 && in_empty_piece(g, at, end)))
				m[i].type = placeholder(d, m[i].type, bo == 2);
			continue;
		}
		m[i].type = mark(d, m[i].type, at, g, depth + 1);
	}
	copy->members = m;
	if (t->view && t->view->nfields)
		copy->view = mark_fields(d, t->view, base, g, depth);
	return copy;
}

const struct gs_type *dwv_partial_type(struct gs_dwarf *d, const struct gs_type *t,
				       struct gs_var_loc *loc)
{
	struct gaps g = { .n = 0 };
	uint64_t at = 0;

	if (t && loc->implicit_pointer)
		return placeholder(d, t, true);
	if (!t || loc->npieces < 1 || (loc->npieces == 1 && !loc->pieces[0].size))
		return t;
	for (uint32_t i = 0; i < loc->npieces; i++) {
		const struct gs_loc_piece *p = &loc->pieces[i];

		if (p->kind == GS_LOC_UNAVAILABLE && g.n < MAX_MISSING)
			g.v[g.n++] = (struct missing){ at, at + p->size, false };
		at += p->size;
	}
	if (at < t->byte_size && g.n < MAX_MISSING)
		g.v[g.n++] = (struct missing){ at, t->byte_size, true };
	if (!g.n)
		return t;
	if (t->kind != GS_TYPE_STRUCT && t->kind != GS_TYPE_UNION) {
		/* a scalar or an array with a byte in an empty piece: the whole
		 * is missing (past the last piece: zeros, as gdb reads them) */
		if (!in_empty_piece(&g, 0, t->byte_size ? t->byte_size : 1))
			return t;
		loc->npieces = 0;
		loc->pieces = NULL;
		loc->why = GS_LOC_WHY_NONE;
		return t;
	}
	return mark(d, t, 0, &g, 0);
}
