/* Views on standard-library types (gs/view.h): what the recognizers of
 * views_cpp.c and views_rust.c share, read off the type's DIE: members by
 * name and path (through C++ base classes), its template parameters. A
 * recognizer checks every member it relies on (its name, offset and size);
 * when one is missing or differs, the type keeps its plain DWARF
 * rendering. Nothing here builds a type or calls a recognizer. */
#include <string.h>

#include "dwv_int.h"
#include "views_int.h"

#define MAX_SEARCH_DEPTH 12

/* Through typedefs and cv qualifiers to the type itself. */
bool vw_strip(Dwarf_Die *t)
{
	for (int i = 0; i < 64; i++) {
		Dwarf_Attribute a;
		int tag = dwarf_tag(t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			return tag >= 0;
		if (!dwarf_attr_integrate(t, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
			return false;
	}
	return false;
}

bool vw_type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out) &&
	       vw_strip(out);
}

uint64_t vw_size(Dwarf_Die *t)
{
	Dwarf_Word v;
	Dwarf_Attribute a;

	if (dwarf_attr_integrate(t, DW_AT_byte_size, &a) && dwarf_formudata(&a, &v) == 0)
		return v;
	if (dwarf_tag(t) == DW_TAG_pointer_type || dwarf_tag(t) == DW_TAG_reference_type)
		return 8;
	return 0;
}

static bool member_offset(Dwarf_Die *m, uint32_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;

	if (dwarf_attr(m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &v) != 0)
		return false;
	if (dwarf_hasattr(m, DW_AT_bit_size) || v > UINT32_MAX)
		return false;
	*off = (uint32_t)v;
	return true;
}

/* Member `name` of struct s, or of one of its base classes (each base
 * searched at its offset); adds its offset to *off. */
static bool member_in(Dwarf_Die *s, const char *name, size_t n, uint32_t *off, Dwarf_Die *out,
		      int depth)
{
	Dwarf_Die c;

	if (depth > MAX_SEARCH_DEPTH || dwarf_child(s, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *cn = dwv_die_name(&c);
		uint32_t o = 0;
		Dwarf_Die bt;

		if (tag == DW_TAG_member && cn && strlen(cn) == n && !memcmp(cn, name, n) &&
		    !dwarf_hasattr(&c, DW_AT_external) && !dwarf_hasattr(&c, DW_AT_declaration)) {
			if (!member_offset(&c, &o) || !vw_type_of(&c, out))
				return false;
			*off += o;
			return true;
		}
		if (tag == DW_TAG_inheritance && member_offset(&c, &o) && vw_type_of(&c, &bt)) {
			uint32_t inner = *off + o;

			if (member_in(&bt, name, n, &inner, out, depth + 1)) {
				*off = inner;
				return true;
			}
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

bool vw_path(Dwarf_Die *s, const char *path, uint32_t *off, Dwarf_Die *out)
{
	Dwarf_Die cur = *s;
	uint32_t at = 0;

	while (*path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (!member_in(&cur, path, n, &at, out, 0))
			return false;
		cur = *out;
		path += n + (dot ? 1 : 0);
	}
	*off = at;
	return true;
}

/* Depth first through members and bases: the first member named name
 * (a pointer when `pointer`). */
static bool find_in(Dwarf_Die *s, const char *name, uint32_t base, uint32_t *off,
		    Dwarf_Die *out, int depth, bool pointer)
{
	Dwarf_Die c;

	if (depth > MAX_SEARCH_DEPTH || dwarf_child(s, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *cn = dwv_die_name(&c);
		uint32_t o = 0;
		Dwarf_Die t;

		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    dwarf_hasattr(&c, DW_AT_external) || dwarf_hasattr(&c, DW_AT_declaration) ||
		    !member_offset(&c, &o) || !vw_type_of(&c, &t))
			continue;
		if (tag == DW_TAG_member && cn && !strcmp(cn, name) && (!pointer || vw_is_pointer(&t))) {
			*off = base + o;
			*out = t;
			return true;
		}
		if ((dwarf_tag(&t) == DW_TAG_structure_type || dwarf_tag(&t) == DW_TAG_class_type ||
		     dwarf_tag(&t) == DW_TAG_union_type) &&
		    find_in(&t, name, base + o, off, out, depth + 1, pointer))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

bool vw_find(Dwarf_Die *s, const char *name, uint32_t *off, Dwarf_Die *out)
{
	return find_in(s, name, 0, off, out, 0, false);
}

bool vw_find_pointer(Dwarf_Die *s, const char *name, uint32_t *off, Dwarf_Die *out)
{
	return find_in(s, name, 0, off, out, 0, true);
}

bool vw_is_pointer(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
		tag == DW_TAG_rvalue_reference_type) && vw_size(t) == 8;
}

bool vw_pointee(Dwarf_Die *p, Dwarf_Die *out)
{
	return vw_is_pointer(p) && vw_type_of(p, out);
}

bool vw_is_uint(Dwarf_Die *t, uint64_t size)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;

	return dwarf_tag(t) == DW_TAG_base_type && vw_size(t) == size &&
	       dwarf_attr(t, DW_AT_encoding, &a) && dwarf_formudata(&a, &enc) == 0 &&
	       (enc == DW_ATE_unsigned || enc == DW_ATE_signed || enc == DW_ATE_boolean ||
		enc == DW_ATE_unsigned_char || enc == DW_ATE_signed_char || enc == DW_ATE_UTF);
}

bool vw_template_arg(Dwarf_Die *s, unsigned index, Dwarf_Die *out)
{
	Dwarf_Die c;
	unsigned i = 0;

	if (dwarf_child(s, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_template_type_parameter && i++ == index)
			return vw_type_of(&c, out);
		if (tag == DW_TAG_GNU_template_parameter_pack) {
			Dwarf_Die p;

			if (dwarf_child(&c, &p) != 0)
				continue;
			do
				if (dwarf_tag(&p) == DW_TAG_template_type_parameter && i++ == index)
					return vw_type_of(&p, out);
			while (dwarf_siblingof(&p, &p) == 0);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

const char *vw_strndup(struct gs_dwarf *d, const char *s, size_t n)
{
	char buf[512];

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return dwv_strdup(d, buf);
}

bool vw_name_starts(Dwarf_Die *die, const char *prefix)
{
	const char *n = dwv_die_name(die);

	return n && base_has_prefix(n, prefix);
}

struct gs_view *vw_new(struct gs_dwarf *d, uint8_t kind, uint8_t style)
{
	struct gs_view *v = dwv_alloc(d, sizeof(*v));

	if (v) {
		memset(v, 0, sizeof(*v));
		v->kind = kind;
		v->style = style;
	}
	return v;
}
