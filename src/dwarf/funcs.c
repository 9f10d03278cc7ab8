/* The DWARF definitions of a function name in a module: where gdb's
 * `break NAME` stops in each defining subprogram and each inline instance
 * (breakaddr.c), or each definition's entry for return probes, found
 * through the module's function index when it has one for this DWARF,
 * else by a walk of every unit (the same answer, in the same order). A
 * qualified C++ or Rust name finds the DIEs of its last part, then keeps
 * those qualified as it is. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwv_int.h"
#include "gdbview.h"
#include <gs/internal/dwarf.h>
#include <gs/internal/modfile.h>

struct func_search {
	const char *name;        /* the DW_AT_name searched */
	const struct dwv_qname *q; /* a qualified name: which of them, or NULL */
	size_t stem;             /* q: name's bytes before its '<' (or "::<") */
	struct gv_view *v;       /* the module's DWARF, as gdb reads it */
	Dwarf *dw;
	uint64_t bias; /* DWARF address + bias = the module's address */
	struct dwv_loc_list *out;
	int rc;
	bool declared; /* a DIE of that name exists, with or without code */
	bool entry;    /* the entry itself, no inline copies (return probes) */
};

/* name is s->name, or an instance of the template s->name names: gdb's
 * `break copy` stops in `copy<int const*, int*>` too. Qualified, with
 * other spellings of its arguments: DWARF writes `maxof<long int>` and
 * Rust `ident<u64>`, the demangler `maxof<long>` and `ident`; the
 * qualified match decides. */
static bool name_fits(const struct func_search *s, const char *name)
{
	return strcmp(name, s->name) == 0 ||
	       (s->stem && strncmp(name, s->name, s->stem) == 0 && name[s->stem] == '<');
}

/* gdb makes no location of a copy without a call site or code (gcc
 * leaves an empty one where the call folded away). */
static int inline_instance(Dwarf_Die *inst, void *arg)
{
	struct func_search *s = arg;
	uint64_t entry;

	if (gv_inline_entry(inst, &entry) &&
	    dwv_loc_add(s->out, gv_break_at(s->v, entry, NULL) + s->bias, true, true, 0))
		s->rc = -ENOMEM;
	return DWARF_CB_OK;
}

/* A DIE's entry pc (DW_AT_entry_pc, else its low pc) and the end of the
 * range holding it: where a return probe's call lands. */
static bool die_entry(Dwarf_Die *die, uint64_t *entry, uint64_t *end)
{
	Dwarf_Addr e, base, lo, hi;
	ptrdiff_t off = 0;

	if (dwarf_entrypc(die, &e) != 0)
		return false;
	*entry = e;
	*end = e + 1;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (lo <= e && e < hi) {
			*end = hi;
			break;
		}
	return true;
}

/* A definition: its entry for a return probe, else where `break` stops. */
static bool definition_at(struct func_search *s, Dwarf_Die *die, uint64_t *at)
{
	uint64_t entry, end;

	if (dwarf_hasattr(die, DW_AT_declaration))
		return false;
	if (s->entry)
		return die_entry(die, at, &end);
	if (!gv_func_entry(die, &entry, &end))
		return false;
	*at = gv_break_at(s->v, entry, NULL);
	return true;
}

static int visit_func(Dwarf_Die *die, void *arg)
{
	struct func_search *s = arg;
	const char *name = dwarf_diename(die);
	uint64_t at;

	if (!name || !name_fits(s, name) || (s->q && !dwv_qname_matches(die, s->q)) ||
	    (!s->q && !s->stem && strchr(s->name, '<') && !dwv_own_name_matches(die, s->name)))
		return DWARF_CB_OK;
	s->declared = true;
	/* An abstract instance, whatever its DW_AT_inline says: gcc writes
	 * DW_INL_not_inlined on destructors it inlined all the same, and gdb
	 * goes by the inlined_subroutine DIEs. */
	if (dwarf_hasattr(die, DW_AT_inline) && !s->entry)
		dwarf_func_inline_instances(die, inline_instance, s);
	if (definition_at(s, die, &at) && dwv_loc_add(s->out, at + s->bias, false, true, 0))
		s->rc = -ENOMEM;
	return DWARF_CB_OK;
}

static int loc_cmp(const void *a, const void *b)
{
	const struct dwv_loc *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The index's DIEs at offs (n), visited as the walk would visit them;
 * false (nothing visited) when one is not a definition s names: the index
 * is not of this DWARF, and the caller walks instead. */
static bool visit_offs(struct func_search *s, const uint64_t *offs, size_t n)
{
	Dwarf_Die die;
	const char *name;

	for (size_t i = 0; i < n; i++)
		if (!dwarf_offdie(s->dw, offs[i], &die) || dwarf_tag(&die) != DW_TAG_subprogram ||
		    dwarf_hasattr(&die, DW_AT_declaration) || !(name = dwarf_diename(&die)) ||
		    !name_fits(s, name))
			return false;
	for (size_t i = 0; i < n && s->rc == 0; i++)
		if (dwarf_offdie(s->dw, offs[i], &die))
			visit_func(&die, s);
	return true;
}

/* The index's DIEs of s->name (qualified: of every name it fits, in the
 * index's order of names). */
static bool visit_indexed(const struct mf_funcindex *x, struct func_search *s)
{
	const uint64_t *offs;
	size_t n;

	if (!s->q) {
		if ((n = mf_funcindex_find(x, s->name, &offs)) != 0 && !visit_offs(s, offs, n))
			return false;
		/* the template instances `name<...>`: one run of the sorted names */
		for (size_t i = mf_funcindex_lower(x, s->name); s->stem && i < mf_funcindex_count(x);
		     i++) {
			const char *at = mf_funcindex_at(x, i, &offs, &n);

			if (strncmp(at, s->name, s->stem) != 0)
				break;
			if (at[s->stem] == '<' && !visit_offs(s, offs, n))
				return false;
		}
		return true;
	}
	for (size_t i = 0; i < mf_funcindex_count(x); i++) {
		const char *name = mf_funcindex_at(x, i, &offs, &n);

		if (name_fits(s, name) && !visit_offs(s, offs, n))
			return false;
	}
	return true;
}

int dwv_function_locs(struct gv_view *v, const struct mf_funcindex *x, uint64_t bias,
		      const char *name, bool entry, struct dwv_loc **locs, size_t *n,
		      bool *declared)
{
	struct dwv_loc_list l = { 0 };
	struct func_search s = { .name = name, .v = v, .dw = v->dw, .bias = bias, .out = &l,
				 .entry = entry };
	struct dwv_qname q;

	if (dwv_qname_is_qualified(name)) {
		if (dwv_qname_parse(name, &q))
			return -ENOMEM;
		s.q = &q;
		s.name = q.base;
		s.stem = strcspn(q.base, "<:");
	} else if (!strchr(name, '<') || (base_has_prefix(name, "operator") &&
					  name[strlen(name) - 1] != '<')) {
		s.stem = strlen(name); /* any template instance of the name */
	}
	if (!x || !visit_indexed(x, &s))
		mf_funcindex_walk(v->dw, visit_func, &s);
	if (s.q)
		dwv_qname_free(&q);
	*declared = s.declared;
	if (s.rc) {
		free(l.v);
		return s.rc;
	}
	/* by address: the index and the walk meet a name's DIEs in other
	 * orders once template instances join in */
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), loc_cmp);
	*locs = l.v;
	*n = l.n;
	return 0;
}


/* ---- what a qualified name could have meant ---------------------------------- */

struct near_search {
	struct func_search fit;
	char *buf;
	size_t size, used;
	unsigned n;
	bool more; /* a name did not fit */
};

static int visit_near(Dwarf_Die *die, void *arg)
{
	struct near_search *s = arg;
	const char *name = dwarf_diename(die);
	char *q;

	if (!name || !name_fits(&s->fit, name) || s->n >= 4 || !(q = dwv_qname_of(die, true)))
		return DWARF_CB_OK;
	/* a name whole or not at all: the list ends with "and others" */
	if (!strstr(s->buf, q)) {
		size_t need = strlen(q) + (s->n ? 2 : 0);

		if (s->used + need + sizeof(", and others") <= s->size) {
			s->used += (size_t)snprintf(s->buf + s->used, s->size - s->used, "%s%s",
						    s->n++ ? ", " : "", q);
		} else if (!s->more && s->n) {
			s->used += (size_t)snprintf(s->buf + s->used, s->size - s->used,
						    ", and others");
			s->more = true;
		}
	}
	free(q);
	return DWARF_CB_OK;
}

void dwv_qname_near(Dwarf *dw, const struct mf_funcindex *x, const struct dwv_qname *q,
		    char *buf, size_t size)
{
	struct near_search s = { .fit = { .name = q->base, .q = q, .stem = strcspn(q->base, "<:") },
				 .buf = buf, .size = size };
	const uint64_t *offs;
	Dwarf_Die die;
	size_t n;

	buf[0] = '\0';
	for (size_t i = 0; x && i < mf_funcindex_count(x); i++)
		if (name_fits(&s.fit, mf_funcindex_at(x, i, &offs, &n)))
			for (size_t k = 0; k < n; k++)
				if (dwarf_offdie(dw, offs[k], &die))
					visit_near(&die, &s);
	if (!x)
		mf_funcindex_walk(dw, visit_near, &s);
}
