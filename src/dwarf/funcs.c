/* The DWARF definitions of a function name in a module: each defining
 * subprogram's body past its prologue (or its entry, for return probes)
 * and each inline instance's entry, found through the module's function
 * index when it has one for this DWARF, else by a walk of every unit (the
 * same answer, in the same order). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwv_int.h"
#include <gs/internal/dwarf.h>
#include <gs/internal/modfile.h>

int dwv_loc_add(struct dwv_loc_list *l, uint64_t addr, bool inlined, bool from_dwarf, int line)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].addr == addr)
			return 0;
	if (base_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = (struct dwv_loc){ .addr = addr, .inlined = inlined,
					     .from_dwarf = from_dwarf, .line = line };
	return 0;
}

struct func_search {
	const char *name;
	Dwarf *dw;
	uint64_t bias; /* DWARF address + bias = the module's address */
	struct dwv_loc_list *out;
	int rc;
	bool declared; /* a DIE of that name exists, with or without code */
	bool entry;    /* the entry itself, no inline copies (return probes) */
};

static int inline_instance(Dwarf_Die *inst, void *arg)
{
	struct func_search *s = arg;
	uint64_t entry, end;

	if (dwv_die_entry(inst, &entry, &end) && dwv_loc_add(s->out, entry + s->bias, true, true, 0))
		s->rc = -ENOMEM;
	return DWARF_CB_OK;
}

static int visit_func(Dwarf_Die *die, void *arg)
{
	struct func_search *s = arg;
	const char *name = dwarf_diename(die);
	uint64_t entry, end;

	if (!name || strcmp(name, s->name) != 0)
		return DWARF_CB_OK;
	s->declared = true;
	if (dwarf_func_inline(die) && !s->entry)
		dwarf_func_inline_instances(die, inline_instance, s);
	if (!dwarf_hasattr(die, DW_AT_declaration) && dwv_die_entry(die, &entry, &end) &&
	    dwv_loc_add(s->out, (s->entry ? entry : dwv_skip_prologue(s->dw, entry, end)) + s->bias,
			false, true, 0))
		s->rc = -ENOMEM;
	return DWARF_CB_OK;
}

/* The index's DIEs of s->name, visited as the walk would visit them; false
 * (nothing visited) when one is not a definition of that name: the index
 * is not of this DWARF, and the caller walks instead. */
static bool visit_indexed(const struct mf_funcindex *x, struct func_search *s)
{
	const uint64_t *offs;
	size_t n = mf_funcindex_find(x, s->name, &offs);
	Dwarf_Die die;
	const char *name;

	for (size_t i = 0; i < n; i++)
		if (!dwarf_offdie(s->dw, offs[i], &die) || dwarf_tag(&die) != DW_TAG_subprogram ||
		    dwarf_hasattr(&die, DW_AT_declaration) || !(name = dwarf_diename(&die)) ||
		    strcmp(name, s->name) != 0)
			return false;
	for (size_t i = 0; i < n && s->rc == 0; i++)
		if (dwarf_offdie(s->dw, offs[i], &die))
			visit_func(&die, s);
	return true;
}

int dwv_function_locs(Dwarf *dw, const struct mf_funcindex *x, uint64_t bias,
		      const char *name, bool entry, struct dwv_loc **locs, size_t *n,
		      bool *declared)
{
	struct dwv_loc_list l = { 0 };
	struct func_search s = { .name = name, .dw = dw, .bias = bias, .out = &l,
				 .entry = entry };

	if (!x || !visit_indexed(x, &s))
		mf_funcindex_walk(dw, visit_func, &s);
	*declared = s.declared;
	if (s.rc) {
		free(l.v);
		return s.rc;
	}
	*locs = l.v;
	*n = l.n;
	return 0;
}

