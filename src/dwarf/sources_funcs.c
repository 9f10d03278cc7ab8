/* The functions of a source file (gs_sources_function_at): the
 * subprograms with code in the units that name the file, each spanning
 * the lines of its rows there, named as C++ and Rust qualify them. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sources_int.h"

/* The functions of one unit with code, and the qualified names of the
 * declarations inside namespaces and classes their definitions point to
 * (DW_AT_specification, DW_AT_abstract_origin). */
struct decl {
	Dwarf_Off off;
	const char *qualified;
};

struct def {
	Dwarf_Die die; /* of the unit's Dwarf or its split unit's */
	const char *qualified; /* from its own scopes, or NULL */
};

struct unit_funcs {
	struct gs_arena **arena;
	struct decl *decls;
	size_t ndecls, decls_cap;
	struct def *defs;
	size_t ndefs, defs_cap;
	size_t dies;
};

static bool is_scope(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

static bool has_code(Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;

	return !dwarf_hasattr(die, DW_AT_declaration) && dwarf_ranges(die, 0, &base, &lo, &hi) > 0;
}

/* prefix + name ("ns::Class::" + "method"); NULL when either is missing. */
static const char *qualify(struct gs_arena **a, const char *prefix, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);

	if (!prefix || !name)
		return NULL;
	return base_arena_format(a, "%s%s", prefix, name);
}

static int walk(struct unit_funcs *w, Dwarf_Die *parent, const char *prefix, unsigned depth)
{
	Dwarf_Die c;
	int rc = 0;

	if (depth > MAX_DEPTH || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (++w->dies > MAX_DIES)
			return 0;
		if (is_scope(tag)) {
			const char *name = dwarf_diename(&c);
			const char *inner = base_arena_format(w->arena, "%s%s::", prefix ? prefix : "",
							      name ? name : "(anonymous namespace)");

			if (!inner)
				return -ENOMEM;
			rc = walk(w, &c, inner, depth + 1);
		} else if (tag == DW_TAG_subprogram && has_code(&c)) {
			if (base_grow((void **)&w->defs, &w->defs_cap, w->ndefs + 1, sizeof(*w->defs)))
				return -ENOMEM;
			w->defs[w->ndefs++] = (struct def){ c,
							    qualify(w->arena, prefix, &c) };
			rc = walk(w, &c, prefix, depth + 1); /* nested functions */
		} else if (tag == DW_TAG_subprogram && prefix) {
			const char *q = qualify(w->arena, prefix, &c);

			if (q && base_grow((void **)&w->decls, &w->decls_cap, w->ndecls + 1,
					   sizeof(*w->decls)))
				return -ENOMEM;
			if (q)
				w->decls[w->ndecls++] = (struct decl){ dwarf_dieoffset(&c), q };
		}
	} while (!rc && dwarf_siblingof(&c, &c) == 0);
	return rc;
}

static int cmp_decl(const void *a, const void *b)
{
	Dwarf_Off x = ((const struct decl *)a)->off, y = ((const struct decl *)b)->off;

	return x < y ? -1 : x > y;
}

static const char *decl_name(const struct unit_funcs *w, Dwarf_Off off)
{
	struct decl key = { .off = off };
	const struct decl *d = w->ndecls ? bsearch(&key, w->decls, w->ndecls, sizeof(key), cmp_decl)
					 : NULL;

	return d ? d->qualified : NULL;
}

/* A C++ or Rust linkage name demangled (without its parameters, as frames
 * show functions), else as it is; NULL when there is none. */
static const char *linkage_name(struct gs_arena **a, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	char *d;
	const char *out;

	if (!raw)
		raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	if (!raw || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return raw;
	if (!(d = cplus_demangle(raw, DMGL_AUTO | DMGL_ANSI)))
		return raw;
	out = base_arena_strdup(a, d);
	free(d);
	return out;
}

/* A definition's name: qualified by its own scopes or those of the
 * declaration it completes, else its DWARF name, else its linkage name
 * demangled. */
static const char *def_name(const struct unit_funcs *w, const struct def *d)
{
	Dwarf_Die die = d->die, next = die;
	const char *name;

	if (d->qualified)
		return d->qualified;
	for (unsigned k = 0; k < MAX_LINKS; k++) {
		Dwarf_Attribute at;

		if (!dwarf_attr(&next, DW_AT_specification, &at) &&
		    !dwarf_attr(&next, DW_AT_abstract_origin, &at))
			break;
		if (!dwarf_formref_die(&at, &next))
			break;
		if ((name = decl_name(w, dwarf_dieoffset(&next))))
			return name;
	}
	if ((name = dwarf_diename(&die)))
		return name;
	return linkage_name(w->arena, &die);
}

struct row_key {
	const struct file_rows *rows;
	uint64_t addr;
};

static bool row_before(const void *ctx, size_t i)
{
	const struct row_key *k = ctx;

	return k->rows->v[i].addr < k->addr;
}

/* The first row at or after addr (the rows are in address order). */
static size_t first_row_at(const struct file_rows *rows, uint64_t addr)
{
	struct row_key k = { rows, addr };

	return base_lower_bound(0, rows->n, &k, row_before);
}

/* The lines of the rows in die's ranges: false when there are none. */
static bool def_span(Dwarf_Die *die, const struct file_rows *rows, uint32_t *first, uint32_t *last)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	unsigned nranges = 0;

	*first = UINT32_MAX;
	*last = 0;
	while (nranges++ < 4096 && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		for (size_t i = first_row_at(rows, lo); i < rows->n && rows->v[i].addr < hi; i++) {
			if (rows->v[i].line < *first)
				*first = rows->v[i].line;
			if (rows->v[i].line > *last)
				*last = rows->v[i].line;
		}
	return *last != 0;
}

static int add_func(struct src_file *f, size_t *cap, const char *name, uint32_t first,
		    uint32_t last)
{
	if (base_grow((void **)&f->funcs, cap, f->nfuncs + 1, sizeof(*f->funcs)))
		return -ENOMEM;
	f->funcs[f->nfuncs++] = (struct src_func){ name, first, last };
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct src_func *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One function in two units (a header's inline one) is listed once. */
static void funcs_unique(struct src_file *f)
{
	size_t k = 0;

	if (!f->nfuncs)
		return;
	qsort(f->funcs, f->nfuncs, sizeof(*f->funcs), cmp_func);
	for (size_t i = 0; i < f->nfuncs; i++)
		if (k == 0 || cmp_func(&f->funcs[k - 1], &f->funcs[i]) != 0)
			f->funcs[k++] = f->funcs[i];
	f->nfuncs = k;
}

/* The DIE whose children are the unit's functions: a skeleton unit's
 * split unit (its .dwo), else the unit's own. */
static Dwarf_Die unit_root(const struct unit *u)
{
	Dwarf_Die sub = { 0 };
	uint8_t type;

	if (dwarf_cu_info(u->die.cu, NULL, &type, NULL, &sub, NULL, NULL, NULL) == 0 &&
	    type == DW_UT_skeleton && sub.addr)
		return sub;
	return u->die;
}

static int unit_funcs(struct gs_sources *s, struct src_file *f, size_t *cap,
		      const struct unit *u, const struct file_rows *rows)
{
	struct unit_funcs w = { .arena = &s->arena };
	Dwarf_Die root = unit_root(u);
	int rc = walk(&w, &root, NULL, 0);

	if (w.ndecls)
		qsort(w.decls, w.ndecls, sizeof(*w.decls), cmp_decl);
	for (size_t i = 0; i < w.ndefs && !rc; i++) {
		uint32_t first, last;
		const char *name;

		if (!def_span(&w.defs[i].die, rows, &first, &last) ||
		    !(name = def_name(&w, &w.defs[i])))
			continue;
		rc = add_func(f, cap, name, first, last);
	}
	free(w.decls);
	free(w.defs);
	return rc;
}

int src_read_funcs(struct gs_sources *s, struct src_file *f)
{
	struct file_rows rows = { 0 };
	size_t cap = 0;
	int rc = 0;

	for (size_t r = 0; r < f->nrefs && !rc; r++) {
		const struct src_module *m = &s->mods[f->refs[r].module];
		struct unit u;

		if (!src_unit_open(m->dw, f->refs[r].cu, &u) || (rc = src_rows_of(&u, f->path, &rows)) ||
		    !rows.n)
			continue;
		rc = unit_funcs(s, f, &cap, &u, &rows);
	}
	free(rows.v);
	funcs_unique(f);
	f->funcs_read = true; /* on ENOMEM, with the functions read so far */
	return rc;
}

const char *gs_sources_function_at(struct gs_sources *s, size_t i, uint32_t line,
				   uint32_t *first, uint32_t *last)
{
	const struct src_func *best = NULL;
	struct src_file *f;

	if (i >= s->nfiles)
		return NULL;
	f = s->files[i];
	if (!f->funcs_read && src_read_funcs(s, f))
		return NULL;
	for (size_t k = 0; k < f->nfuncs; k++) {
		const struct src_func *fn = &f->funcs[k];

		if (fn->first <= line && line <= fn->last &&
		    (!best || fn->last - fn->first < best->last - best->first))
			best = fn;
	}
	if (!best)
		return NULL;
	if (first)
		*first = best->first;
	if (last)
		*last = best->last;
	return best->name;
}
