/* A compilation unit as gdb 13 sees it when it places a breakpoint: which
 * DIEs it makes function and inline blocks of (dwarf2/read.c's
 * read_func_scope: a name and code), whether its locations are valid at
 * a function's entry (gcc >= 4.5 and a variable located by a location
 * list: process_full_comp_unit), who produced it, and its line tables
 * (gdbline.c). Built once per unit and resolution. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "base.h"
#include "dwv_int.h"
#include "gdbview.h"

void gv_view_init(struct gv_view *v, Dwarf *dw, struct Elf *code, uint64_t bias)
{
	*v = (struct gv_view){ .dw = dw, .code = code, .bias = bias };
}

void gv_view_free(struct gv_view *v)
{
	for (size_t i = 0; i < v->n; i++) {
		gv_lines_free(v->units[i]);
		free(v->units[i]->fns);
		free(v->units[i]);
	}
	free(v->units);
	v->units = NULL;
	v->n = v->cap = 0;
}

/* ---- which DIEs gdb makes blocks of ---------------------------------------- */

/* dwarf2_name or its linkage name, through abstract origins. */
static bool has_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_diename(die) || dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	       dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a);
}

/* The code ranges gdb reads of die, in the order listed: empty ranges and
 * ranges at 0 (the linker dropped the code) do not count. *n: how many
 * (up to max); first: the first; lo/hi: the extent. false: none. */
struct extent {
	uint64_t first, lo, hi;
	size_t n;
};

static bool die_extent(Dwarf_Die *die, struct extent *e)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	*e = (struct extent){ .lo = UINT64_MAX };
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo || lo == 0)
			continue;
		if (e->n++ == 0)
			e->first = lo;
		if (lo < e->lo)
			e->lo = lo;
		if (hi > e->hi)
			e->hi = hi;
	}
	return e->n > 0;
}

/* block::entry_pc in gdb 13: the start of a contiguous block, else of its
 * first range as listed (DW_AT_entry_pc is not read). */
static uint64_t extent_entry(const struct extent *e)
{
	return e->n == 1 ? e->lo : e->first;
}

bool gv_inline_entry(Dwarf_Die *inst, uint64_t *entry)
{
	struct extent e;

	/* Without its call site gdb reads an inline instance as a lexical
	 * block: no function, no breakpoint location. */
	if (!dwarf_hasattr(inst, DW_AT_call_file) || !dwarf_hasattr(inst, DW_AT_call_line) ||
	    !has_name(inst) || !die_extent(inst, &e))
		return false;
	*entry = extent_entry(&e);
	return true;
}

bool gv_func_entry(Dwarf_Die *fn, uint64_t *entry, uint64_t *end)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct extent e;

	if (!has_name(fn) || !die_extent(fn, &e))
		return false;
	*entry = extent_entry(&e);
	*end = *entry + 1;
	while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0)
		if (lo <= *entry && *entry < hi) {
			*end = hi;
			break;
		}
	return true;
}

/* ---- the unit's functions and whether its locations are valid -------------- */

static int add_fn(struct gv_unit *u, Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct extent e;

	if (!has_name(die) || !die_extent(die, &e))
		return 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo || lo == 0)
			continue;
		if (base_grow((void **)&u->fns, &u->fncap, u->nfns + 1, sizeof(*u->fns)))
			return -ENOMEM;
		u->fns[u->nfns++] = (struct gv_fn){ .lo = lo, .hi = hi, .entry = extent_entry(&e),
						    .end = e.hi, .die = dwarf_dieoffset(die) };
	}
	return 0;
}

/* A location list (DWARF 4's section offset, DWARF 5's loclistx), which
 * gdb's dwarf2_symbol_mark_computed takes as one. */
static bool located_by_list(Dwarf_Die *die, unsigned version)
{
	Dwarf_Attribute a;

	if (!dwarf_attr(die, DW_AT_location, &a))
		return false;
	switch (dwarf_whatform(&a)) {
	case DW_FORM_sec_offset:
	case DW_FORM_loclistx:
		return true;
	case DW_FORM_data4:
	case DW_FORM_data8:
		return version < 4;
	default:
		return false;
	}
}

/* Walks what gdb reads of a scope: functions with a name and code (their
 * bodies too), the blocks in them, the variables it decodes the location
 * of. A function, block or inline instance without code is skipped whole,
 * as read_func_scope and read_lexical_block_scope return before its
 * children. With fns false it only looks for a location list and stops at
 * the first. */
struct walker {
	struct gv_unit *u;
	bool fns;
};

static int walk(struct walker *w, Dwarf_Die *scope, unsigned depth)
{
	Dwarf_Die c;
	int rc = 0;

	if (depth > 64 || dwarf_child(scope, &c) != 0)
		return 0;
	do {
		struct extent e;
		int tag = dwarf_tag(&c);

		switch (tag) {
		case DW_TAG_subprogram:
			if (!has_name(&c) || !die_extent(&c, &e))
				break;
			if (w->fns)
				rc = add_fn(w->u, &c);
			if (rc == 0)
				rc = walk(w, &c, depth + 1);
			break;
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
			/* A lexical block without addresses holds its children as
			 * if it were not there (read_lexical_block_scope). */
			if (die_extent(&c, &e) ||
			    (tag == DW_TAG_lexical_block && !dwarf_hasattr(&c, DW_AT_low_pc) &&
			     !dwarf_hasattr(&c, DW_AT_ranges)))
				rc = walk(w, &c, depth + 1);
			break;
		case DW_TAG_variable:
		case DW_TAG_formal_parameter:
			if (located_by_list(&c, w->u->version))
				w->u->has_loclist = true;
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			rc = walk(w, &c, depth + 1);
			break;
		default:
			break;
		}
	} while (rc == 0 && (w->fns || !w->u->has_loclist) && dwarf_siblingof(&c, &c) == 0);
	return rc;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct gv_fn *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* producer_is_gcc: "GNU <word> <major>.<minor>" (GNU AS counts, as 2.x). */
static void read_producer(struct gv_unit *u, Dwarf_Die *cudie)
{
	Dwarf_Attribute a;
	const char *p = dwarf_attr(cudie, DW_AT_producer, &a) ? dwarf_formstring(&a) : NULL;

	u->producer = GV_OTHER;
	if (!p)
		return;
	if (base_has_prefix(p, "clang ") || base_has_prefix(p, " F90 Flang ")) {
		u->producer = GV_LLVM;
		return;
	}
	p = base_after_prefix(p, "GNU ");
	if (!p)
		return;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (*p)
		p++;
	if (sscanf(p, "%d.%d", &u->gcc_major, &u->gcc_minor) == 2)
		u->producer = GV_GCC;
}

static int unit_build(struct gv_unit *u, Dwarf_Die *cudie)
{
	Dwarf_Half version = 0;
	struct extent e;

	u->off = dwarf_dieoffset(cudie);
	dwarf_cu_info(cudie->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL);
	u->version = version;
	if (die_extent(cudie, &e)) {
		u->low = e.lo;
		u->high = e.hi;
	}
	read_producer(u, cudie);
	u->asm_lang = dwarf_srclang(cudie) == DW_LANG_Mips_Assembler;
	return gv_lines_build(u, cudie);
}

/* gcc 4.5 fixed its prologues' location lists; before, or without any
 * list (-O0), gdb skips the prologue (process_full_comp_unit). */
static bool gcc_trusted(const struct gv_unit *u)
{
	return u->producer == GV_GCC && (u->gcc_major > 4 || (u->gcc_major == 4 &&
							      u->gcc_minor >= 5));
}

int gv_unit_walk(struct gv_view *v, struct gv_unit *u)
{
	struct walker w = { .u = u, .fns = true };
	Dwarf_Die cudie;
	int rc;

	if (u->walked)
		return 0;
	if (!dwarf_offdie(v->dw, u->off, &cudie))
		return 0;
	rc = walk(&w, &cudie, 0);
	if (rc)
		return rc;
	if (u->nfns)
		qsort(u->fns, u->nfns, sizeof(*u->fns), fn_cmp);
	u->locations_valid = u->has_loclist && gcc_trusted(u);
	u->walked = u->valid_known = true;
	return 0;
}

/* Whether the unit's locations are valid, walking only as far as its
 * first location list (the whole walk waits until a prologue is skipped). */
static void unit_valid(struct gv_view *v, struct gv_unit *u)
{
	struct walker w = { .u = u };
	Dwarf_Die cudie;

	if (u->valid_known)
		return;
	if (gcc_trusted(u) && dwarf_offdie(v->dw, u->off, &cudie))
		walk(&w, &cudie, 0);
	u->locations_valid = u->has_loclist && gcc_trusted(u);
	u->valid_known = true;
}

struct gv_unit *gv_unit_of(struct gv_view *v, Dwarf_Die *cudie, int *rc)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct gv_unit *u;

	*rc = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->units[i]->off == off)
			return v->units[i];
	if (base_grow((void **)&v->units, &v->cap, v->n + 1, sizeof(*v->units)) ||
	    !(u = calloc(1, sizeof(*u)))) {
		*rc = -ENOMEM;
		return NULL;
	}
	*rc = unit_build(u, cudie);
	if (*rc) {
		gv_lines_free(u);
		free(u->fns);
		free(u);
		return NULL;
	}
	v->units[v->n++] = u;
	return u;
}

struct gv_unit *gv_unit_at(struct gv_view *v, uint64_t pc, int *rc)
{
	struct gv_unit *u;
	Dwarf_Die cudie;

	*rc = 0;
	if (!v->dw || !dwv_unit_at(v->dw, pc, &cudie) || !(u = gv_unit_of(v, &cudie, rc)))
		return NULL;
	unit_valid(v, u);
	return u;
}

const struct gv_fn *gv_fn_at(const struct gv_unit *u, uint64_t pc)
{
	const struct gv_fn *best = NULL;

	/* Few functions a unit; a nested function's range is inside its
	 * parent's, and gdb takes the innermost block. */
	for (size_t i = 0; i < u->nfns && u->fns[i].lo <= pc; i++)
		if (pc < u->fns[i].hi && (!best || u->fns[i].lo >= best->lo))
			best = &u->fns[i];
	return best;
}

/* read_lexical_block_scope makes a block only of a scope with symbols. */
static bool has_symbols(Dwarf_Die *scope)
{
	Dwarf_Die c;
	uint64_t entry;

	if (dwarf_child(scope, &c) != 0)
		return false;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_variable:
		case DW_TAG_formal_parameter:
		case DW_TAG_typedef:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
		case DW_TAG_label:
		case DW_TAG_subprogram:
		case DW_TAG_imported_module:
		case DW_TAG_imported_declaration:
			return true;
		case DW_TAG_inlined_subroutine:
			if (gv_inline_entry(&c, &entry))
				return true;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The innermost block under scope holding pc (or scope's own offset);
 * *inlined: the way there enters an inline instance. */
static Dwarf_Off block_in(Dwarf_Die *scope, uint64_t pc, Dwarf_Off here, bool *inlined,
			  unsigned depth)
{
	Dwarf_Off inner;
	Dwarf_Die c;
	uint64_t entry;

	if (depth > 64 || dwarf_child(scope, &c) != 0)
		return here;
	do {
		int tag = dwarf_tag(&c);
		bool placed = dwarf_hasattr(&c, DW_AT_low_pc) || dwarf_hasattr(&c, DW_AT_ranges);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
			continue;
		if (placed && dwarf_haspc(&c, pc) <= 0)
			continue;
		if (tag == DW_TAG_inlined_subroutine && gv_inline_entry(&c, &entry)) {
			*inlined = true;
			return block_in(&c, pc, dwarf_dieoffset(&c), inlined, depth + 1);
		}
		if (placed && has_symbols(&c))
			return block_in(&c, pc, dwarf_dieoffset(&c), inlined, depth + 1);
		if (placed)
			return block_in(&c, pc, here, inlined, depth + 1);
		/* a block without addresses: its children are its parent's */
		inner = block_in(&c, pc, here, inlined, depth + 1);
		if (inner != here)
			return inner;
	} while (dwarf_siblingof(&c, &c) == 0);
	return here;
}

Dwarf_Off gv_block_at(struct gv_view *v, const struct gv_unit *u, uint64_t pc)
{
	const struct gv_fn *fn = gv_fn_at(u, pc);
	bool inlined = false;
	Dwarf_Die die;

	if (!fn || !dwarf_offdie(v->dw, fn->die, &die))
		return u->off; /* the unit's static block */
	return block_in(&die, pc, fn->die, &inlined, 0);
}

bool gv_in_inlined(struct gv_view *v, const struct gv_fn *fn, uint64_t pc)
{
	bool inlined = false;
	Dwarf_Die die;

	if (fn->die && dwarf_offdie(v->dw, fn->die, &die))
		block_in(&die, pc, fn->die, &inlined, 0);
	return inlined;
}
