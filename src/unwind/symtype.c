/* C spelling of a DWARF type for the symbolizer's parameter lists
 * ("long unsigned int", "const char *", "void (*)(int)"), and of one
 * formal parameter ("const char *name"). Pointers bind to the name the way
 * gdb prints them. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <string.h>

#include "symbolize_int.h"

#define GS_TYPE_DEPTH_MAX 16

struct sbuf {
	char *p;
	size_t size, len;
};

static void put(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + 1 >= b->size)
		return;
	if (n > b->size - b->len - 1)
		n = b->size - b->len - 1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static bool ends_with_star(const struct sbuf *b)
{
	return b->len && b->p[b->len - 1] == '*';
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

/* The DIE's DW_AT_type, or false (void). */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), out) != NULL;
}

static void render(Dwarf_Die *type, struct sbuf *b, int depth);

static void render_target(Dwarf_Die *die, struct sbuf *b, int depth)
{
	Dwarf_Die t;

	if (type_of(die, &t))
		render(&t, b, depth + 1);
	else
		put(b, "void");
}

static void render_params(Dwarf_Die *fn, struct sbuf *b, int depth)
{
	Dwarf_Die child;
	bool first = true;

	put(b, "(");
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);

			if (tag != DW_TAG_formal_parameter && tag != DW_TAG_unspecified_parameters)
				continue;
			if (!first)
				put(b, ", ");
			first = false;
			if (tag == DW_TAG_unspecified_parameters)
				put(b, "...");
			else
				render_target(&child, b, depth);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	put(b, ")");
}

static void render(Dwarf_Die *type, struct sbuf *b, int depth)
{
	const char *name = die_name(type);
	Dwarf_Die t;

	if (depth > GS_TYPE_DEPTH_MAX) {
		put(b, "...");
		return;
	}
	switch (dwarf_tag(type)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		put(b, name ? name : "?");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type: {
		int tag = dwarf_tag(type);

		put(b, tag == DW_TAG_union_type ? "union " :
		       tag == DW_TAG_enumeration_type ? "enum " :
		       tag == DW_TAG_class_type ? "class " : "struct ");
		put(b, name ? name : "{...}");
		return;
	}
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *sigil = dwarf_tag(type) == DW_TAG_pointer_type ? "*" :
				    dwarf_tag(type) == DW_TAG_reference_type ? "&" : "&&";

		if (type_of(type, &t) && dwarf_tag(&t) == DW_TAG_subroutine_type) {
			render_target(&t, b, depth);
			put(b, " (");
			put(b, sigil);
			put(b, ")");
			render_params(&t, b, depth);
			return;
		}
		render_target(type, b, depth);
		put(b, ends_with_star(b) ? "" : " ");
		put(b, sigil);
		return;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: {
		const char *q = dwarf_tag(type) == DW_TAG_const_type ? "const" :
				dwarf_tag(type) == DW_TAG_volatile_type ? "volatile" : "restrict";

		/* `const char`, but `char * const`: qualifiers of a pointer follow it. */
		if (type_of(type, &t) && dwarf_tag(&t) == DW_TAG_pointer_type) {
			render(&t, b, depth + 1);
			put(b, " ");
			put(b, q);
		} else {
			put(b, q);
			put(b, " ");
			render_target(type, b, depth);
		}
		return;
	}
	case DW_TAG_array_type:
		render_target(type, b, depth);
		put(b, " []");
		return;
	case DW_TAG_subroutine_type:
		render_target(type, b, depth);
		put(b, " ");
		render_params(type, b, depth);
		return;
	default:
		put(b, name ? name : "?");
		return;
	}
}

size_t uw_sym_type_name(Dwarf_Die *type, char *out, size_t size)
{
	struct sbuf b = { out, size, 0 };

	if (size)
		out[0] = '\0';
	if (type)
		render(type, &b, 0);
	else
		put(&b, "void");
	return b.len;
}

size_t uw_sym_param(Dwarf_Die *param, char *out, size_t size)
{
	struct sbuf b = { out, size, 0 };
	const char *name = die_name(param);
	Dwarf_Die t;

	if (size)
		out[0] = '\0';
	if (type_of(param, &t))
		render(&t, &b, 0);
	else
		put(&b, "void");
	if (name) {
		if (!ends_with_star(&b))
			put(&b, " ");
		put(&b, name);
	}
	return b.len;
}
