/* The lazy name index of a module: global variables and named types of
 * every CU, read CU by CU only as far as a name asks (a lookup that hits in
 * the first CUs never reads the rest), then .debug_types units for types.
 * Only top-level DIEs of a CU are visited. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwv_int.h"

#define NBUCKETS 16384
#define TYPES_SECTION_BIT (1ull << 63)

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h & (NBUCKETS - 1);
}

static int add(struct dwv_names *t, const char *name, Dwarf_Off off)
{
	uint32_t b = hash(name);

	if (!t->heads) {
		t->heads = malloc(NBUCKETS * sizeof(*t->heads));
		if (!t->heads)
			return -ENOMEM;
		memset(t->heads, 0xff, NBUCKETS * sizeof(*t->heads));
		t->nheads = NBUCKETS;
	}
	if (base_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return -ENOMEM;
	t->v[t->n] = (struct dwv_name){ name, off, t->heads[b] };
	t->heads[b] = (uint32_t)t->n++;
	return 0;
}

static bool lookup(struct gs_dwarf *d, const struct dwv_names *t, const char *name,
		   Dwarf_Die *out)
{
	if (!t->heads)
		return false;
	for (uint32_t i = t->heads[hash(name)]; i != UINT32_MAX; i = t->v[i].next) {
		if (strcmp(t->v[i].name, name) != 0)
			continue;
		if (t->v[i].die_off & TYPES_SECTION_BIT)
			return dwarf_offdie_types(d->dw, t->v[i].die_off & ~TYPES_SECTION_BIT, out);
		return dwarf_offdie(d->dw, t->v[i].die_off, out);
	}
	return false;
}

/* "struct x" for tagged types, the plain name for the others; NULL when
 * the DIE is no named type definition. */
static const char *type_key(struct gs_dwarf *d, Dwarf_Die *die, int tag)
{
	const char *name = dwarf_diename(die);
	const char *kw = tag == DW_TAG_structure_type ? "struct " :
			 tag == DW_TAG_union_type ? "union " :
			 tag == DW_TAG_enumeration_type ? "enum " : "";
	char buf[256];

	if (!name || dwarf_hasattr(die, DW_AT_declaration))
		return NULL;
	if (tag != DW_TAG_base_type && tag != DW_TAG_typedef && !*kw)
		return NULL;
	if (!*kw)
		return name;
	snprintf(buf, sizeof(buf), "%s%s", kw, name);
	return dwv_strdup(d, buf);
}

static void index_unit(struct gs_dwarf *d, Dwarf_Die *unit, bool types_section)
{
	Dwarf_Die c;

	if (dwarf_child(unit, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Off off = dwarf_dieoffset(&c) | (types_section ? TYPES_SECTION_BIT : 0);
		const char *name;

		if (tag == DW_TAG_variable) {
			name = dwarf_diename(&c);
			if (name && dwarf_hasattr_integrate(&c, DW_AT_external) &&
			    (dwarf_hasattr(&c, DW_AT_location) ||
			     dwarf_hasattr(&c, DW_AT_const_value)))
				add(&d->globals, name, off);
		} else if ((name = type_key(d, &c, tag))) {
			add(&d->type_names, name, off);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* Indexes one more unit; false when there is none left. */
static bool index_next(struct gs_dwarf *d)
{
	Dwarf_Off next;
	size_t hsize;
	uint64_t sig;
	Dwarf_Die unit;
	bool types = d->index_next & TYPES_SECTION_BIT;
	Dwarf_Off off = d->index_next & ~TYPES_SECTION_BIT;

	if (d->index_done)
		return false;
	if (!types && dwarf_next_unit(d->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
				      NULL) == 0) {
		if (dwarf_offdie(d->dw, off + hsize, &unit))
			index_unit(d, &unit, false);
		d->index_next = next;
		return true;
	}
	if (!types)
		off = 0;
	if (dwarf_next_unit(d->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, &sig, NULL) == 0) {
		if (dwarf_offdie_types(d->dw, off + hsize, &unit))
			index_unit(d, &unit, true);
		d->index_next = next | TYPES_SECTION_BIT;
		return true;
	}
	d->index_done = true;
	return false;
}

int dwv_index_find_global(struct gs_dwarf *d, const char *name, Dwarf_Die *out)
{
	do
		if (lookup(d, &d->globals, name, out))
			return 0;
	while (index_next(d));
	return -ENOENT;
}

int dwv_index_find_type(struct gs_dwarf *d, const char *name, Dwarf_Die *out)
{
	do
		if (lookup(d, &d->type_names, name, out))
			return 0;
	while (index_next(d));
	return -ENOENT;
}
