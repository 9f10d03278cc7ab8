/* typedef and cv-qualifier chains (typedef, const, volatile, restrict,
 * _Atomic): each link is a copy of the type it names, with its own
 * spelling. Chains are followed in a loop, not by recursion: gdb follows a
 * typedef chain of any length (one of 128 is legitimate C), so up to 1024
 * links are followed here, each costing a node and no stack; a longer one
 * is too deep, and one that comes back to itself (no compiler writes it;
 * hostile DWARF does) is cyclic. What a link names may still be under
 * construction (struct node { node_t *next; }): the copies are made again
 * once the outermost type is built. */
#include <stdlib.h>
#include <string.h>

#include "dwv_int.h"

#define MAX_ALIAS_CHAIN 1024
/* Fixup rounds: one, plus one per alias that names an alias of an
 * enclosing chain, at most one per level of type nesting (64). */
#define MAX_FIXUP_ROUNDS 66

struct link {
	Dwarf_Die die;
	int tag;
	struct gs_type *t;
};

bool dwv_is_alias(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
	       tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type ||
	       tag == DW_TAG_atomic_type;
}

static void fixup_add(struct gs_dwarf *d, struct gs_type *t, const struct gs_type *from)
{
	struct dwv_fixups *f = &d->fixups;

	if (base_grow((void **)&f->t, &f->t_cap, f->n + 1, sizeof(*f->t)) ||
	    base_grow((void **)&f->from, &f->from_cap, f->n + 1, sizeof(*f->from)))
		return; /* the copy made now stays (out of memory) */
	f->t[f->n] = t;
	f->from[f->n++] = from;
}

void dwv_run_fixups(struct gs_dwarf *d)
{
	for (int round = 0; round < MAX_FIXUP_ROUNDS; round++) {
		bool changed = false;

		for (size_t i = 0; i < d->fixups.n; i++) {
			struct gs_type *t = d->fixups.t[i];
			struct gs_type want = *d->fixups.from[i];

			want.name = t->name;
			if (memcmp(&want, t, sizeof(want)) != 0) {
				*t = want;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	d->fixups.n = 0;
}

/* t, the node of link l, made a copy of tt spelled anew. */
static void fill(struct gs_dwarf *d, const struct link *l, const struct gs_type *tt)
{
	static const char *const quals[] = {
		[0] = "", [1] = "const ", [2] = "volatile ", [3] = "restrict ", [4] = "_Atomic ",
	};
	static const char *const words[] = {
		[0] = "", [1] = "const", [2] = "volatile", [3] = "restrict", [4] = "_Atomic",
	};
	int q = l->tag == DW_TAG_const_type ? 1 : l->tag == DW_TAG_volatile_type ? 2 :
		l->tag == DW_TAG_restrict_type ? 3 : l->tag == DW_TAG_atomic_type ? 4 : 0;
	struct gs_type *t = l->t;
	const char *name = t->name; /* a typedef's, given when the link was made */

	*t = *tt;
	if (!q)
		t->name = name;
	else if (tt->kind == GS_TYPE_POINTER) /* "const char * const" */
		t->name = dwv_spell(d, "%s %s", tt->name, words[q]);
	else if (base_has_prefix(tt->name, quals[q]) || tt->kind == GS_TYPE_ARRAY)
		t->name = tt->name; /* "const char [12]": the elements carry it */
	else
		t->name = dwv_spell(d, "%s%s", quals[q], tt->name);
	if (!t->name)
		t->name = "?";
	fixup_add(d, t, tt);
}

/* The DIE's DW_AT_type, through a type unit's signature; false: void. */
static bool named(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
		return false;
	if (dwarf_attr(out, DW_AT_signature, &a)) {
		Dwarf_Die unit;

		if (dwarf_formref_die(&a, &unit))
			*out = unit;
	}
	return true;
}

static bool in_chain(const struct link *v, size_t n, const struct gs_type *t)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].t == t)
			return true;
	return false;
}

/* Walks the links from die until a type that is not an alias, one built
 * before, the limit or a cycle: each link gets its node (memoized at
 * once, so that coming back to it is seen). *tt is what the last link
 * names, or a marker for every link. */
static size_t walk(struct gs_dwarf *d, Dwarf_Die *die, bool by_value, struct link *v,
		   const struct gs_type **tt, const struct gs_type **mark)
{
	Dwarf_Die cur = *die, next;
	size_t n = 0;

	for (;;) {
		const struct gs_type *found;
		struct gs_type *t;
		const char *name;
		int tag = dwarf_tag(&cur), ntag;

		if (n == MAX_ALIAS_CHAIN) {
			*mark = dwv_too_deep_type();
			return n;
		}
		t = dwv_alloc(d, sizeof(*t));
		if (!t || dwv_map_put(&d->types, cur.addr, t)) {
			*tt = dwv_void_type();
			return n;
		}
		name = tag == DW_TAG_typedef ? dwv_die_name(&cur) : NULL;
		t->kind = GS_TYPE_UNKNOWN;
		t->name = name ? dwv_strdup(d, name) : "?";
		if (!t->name)
			t->name = "?";
		dwv_type_built(d, t, true);
		v[n++] = (struct link){ cur, tag, t };
		if (!named(&cur, &next)) {
			*tt = dwv_void_type();
			return n;
		}
		found = dwv_map_get(&d->types, next.addr);
		if (found) {
			/* back to a link of this chain, or (held by value) to a
			 * type being built around it: the type holds itself */
			if (in_chain(v, n, found) || (by_value && dwv_type_building(d, found)))
				*mark = dwv_cyclic_type();
			else
				*tt = found;
			return n;
		}
		ntag = dwarf_tag(&next);
		if (ntag < 0 || !dwv_is_alias(ntag)) {
			*tt = dwv_type_ref(d, &next, by_value);
			return n;
		}
		cur = next;
	}
}

const struct gs_type *dwv_alias_chain(struct gs_dwarf *d, Dwarf_Die *die, bool by_value)
{
	struct link *v = malloc(MAX_ALIAS_CHAIN * sizeof(*v));
	const struct gs_type *tt = NULL, *mark = NULL, *out;
	size_t n;

	if (!v)
		return dwv_void_type();
	n = walk(d, die, by_value, v, &tt, &mark);
	for (size_t i = n; i-- > 0;) {
		if (mark) {
			const char *name = v[i].t->name;

			*v[i].t = *mark;
			if (v[i].tag == DW_TAG_typedef)
				v[i].t->name = name;
		} else {
			fill(d, &v[i], i + 1 < n ? v[i + 1].t : tt);
		}
		dwv_type_built(d, v[i].t, false);
	}
	out = n ? v[0].t : tt ? tt : dwv_void_type();
	free(v);
	if (d->type_depth == 0 && d->fixups.n)
		dwv_run_fixups(d);
	return out;
}
