/* DW_OP_entry_value recovered as gdb does: the value a register had when
 * the probe's function was entered is the DW_AT_call_value of the caller's
 * DW_TAG_call_site_parameter for that register, at the call site whose
 * return address is the frame's. The call sites of the module that call
 * the function are found here, once per module (DWARF 5 and the GNU forms
 * of DWARF 4); at run time the program reads the return address at the
 * probe's CFA, compares it with theirs and evaluates the matching one's
 * call_value in the caller's frame: its stack pointer is the callee's CFA,
 * its other registers are where the callee's CFI row at the probe PC says
 * (unchanged, or saved at CFA + k). No match: the value is unavailable
 * (gdb: <optimized out>). Sites of another module and tail calls are not
 * matched: gdb walks tail-call chains, this does not. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "locexpr.h"

#define MAX_SITES 32            /* matching call sites compiled into one program */
#define MAX_WALK_DEPTH 64       /* DIE nesting followed when collecting call sites */
#define GS_DWARF_REG_RA 16

struct dwv_callsite {
	uint64_t return_pc;
	uint64_t target_pc;  /* DW_AT_call_target as one DW_OP_addr, else 0 */
	Dwarf_Off die;       /* the DW_TAG_call_site */
	Dwarf_Off origin;    /* DW_AT_call_origin's DIE, else 0 */
	Dwarf_Off caller;    /* the subprogram holding it */
};

struct dwv_callsites {
	struct dwv_callsite *v;
	size_t n, cap;
};

static bool is_call_site(int tag)
{
	return tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site;
}

static void add_site(struct dwv_callsites *s, Dwarf_Die *die, Dwarf_Off caller)
{
	struct dwv_callsite c = { .die = dwarf_dieoffset(die), .caller = caller };
	Dwarf_Attribute a;
	Dwarf_Die o;
	Dwarf_Addr addr;
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_hasattr(die, DW_AT_call_tail_call) || dwarf_hasattr(die, DW_AT_GNU_tail_call))
		return;
	if (dwarf_attr(die, DW_AT_call_return_pc, &a) ? dwarf_formaddr(&a, &addr) != 0 :
	    dwarf_lowpc(die, &addr) != 0)
		return;
	c.return_pc = addr;
	if ((dwarf_attr(die, DW_AT_call_origin, &a) || dwarf_attr(die, DW_AT_abstract_origin, &a)) &&
	    dwarf_formref_die(&a, &o))
		c.origin = dwarf_dieoffset(&o);
	if ((dwarf_attr(die, DW_AT_call_target, &a) ||
	     dwarf_attr(die, DW_AT_GNU_call_site_target, &a)) &&
	    dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_addr)
		c.target_pc = ops[0].number;
	if (base_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return;
	s->v[s->n++] = c;
}

static void walk(struct dwv_callsites *s, Dwarf_Die *parent, Dwarf_Off caller, unsigned depth)
{
	Dwarf_Die ch;

	if (depth > MAX_WALK_DEPTH || dwarf_child(parent, &ch) != 0)
		return;
	do {
		int tag = dwarf_tag(&ch);

		if (is_call_site(tag))
			add_site(s, &ch, caller);
		else if (dwarf_haschildren(&ch) > 0)
			walk(s, &ch, tag == DW_TAG_subprogram ? dwarf_dieoffset(&ch) : caller,
			     depth + 1);
	} while (dwarf_siblingof(&ch, &ch) == 0);
}

/* Every call site of the module, collected once. */
static const struct dwv_callsites *callsites(struct gs_dwarf *d)
{
	struct dwv_callsites s = { 0 }, *out;
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (d->callsites)
		return d->callsites;
	while (dwarf_next_unit(d->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
			       NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(d->dw, off + hsize, &cu))
			walk(&s, &cu, 0, 0);
		off = next;
	}
	out = dwv_alloc(d, sizeof(*out));
	if (out && s.n) {
		out->v = dwv_alloc(d, s.n * sizeof(*s.v));
		if (out->v) {
			memcpy(out->v, s.v, s.n * sizeof(*s.v));
			out->n = s.n;
		}
	}
	free(s.v);
	d->callsites = out;
	return out;
}

#define MAX_SYMBOLS 8 /* names of the callee's entry kept */

/* What gdb compares a call site's target with: the callee's entry
 * address, and the names of the ELF symbols there (gdb finds a declared
 * callee through its minimal symbol; a clone such as foo.constprop.0 has
 * its own). */
struct callee {
	uint64_t entry;
	const char *names[MAX_SYMBOLS];
	unsigned nnames;
	bool have_symbols; /* false: no symbol table, the DIE's own name stands in */
};

static const char *link_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return s;
}

static int symbol_at(const GElf_Sym *sym, const char *name, void *arg)
{
	struct callee *c = arg;

	c->have_symbols = true;
	if (sym->st_value == c->entry && GELF_ST_TYPE(sym->st_info) == STT_FUNC && name && *name &&
	    c->nnames < MAX_SYMBOLS)
		c->names[c->nnames++] = name;
	return 0;
}

static void symbols_at(struct gs_dwarf *d, struct callee *c)
{
	dwv_each_symbol(dwarf_getelf(d->dw), symbol_at, c);
}

static void callee_of(struct gs_dwarf *d, Dwarf_Die *fn, struct callee *c)
{
	Dwarf_Addr pc;

	memset(c, 0, sizeof(*c));
	if (dwarf_entrypc(fn, &pc) == 0 || dwarf_lowpc(fn, &pc) == 0)
		c->entry = pc;
	if (c->entry)
		symbols_at(d, c);
	if (!c->have_symbols && !dwarf_hasattr(fn, DW_AT_abstract_origin) &&
	    (c->names[0] = link_name(fn)))
		c->nnames = 1;
}

/* gdb's reading of a call site's target: DW_AT_call_target's address; or
 * the origin DIE: a declaration by its name (an ELF symbol of that name at
 * the callee's entry), a definition by its low PC; an abstract instance
 * (DW_AT_inline, no PC) names no target, and gdb then says
 * "DW_AT_call_target is not specified": no match. */
static bool calls(struct gs_dwarf *d, const struct dwv_callsite *s, const struct callee *c)
{
	Dwarf_Die o;
	Dwarf_Addr pc;
	const char *name;

	if (s->target_pc)
		return c->entry && s->target_pc == c->entry;
	if (!s->origin || !dwarf_offdie(d->dw, s->origin, &o))
		return false;
	if (dwarf_hasattr_integrate(&o, DW_AT_declaration)) {
		name = link_name(&o);
		for (unsigned i = 0; name && i < c->nnames; i++)
			if (strcmp(name, c->names[i]) == 0)
				return true;
		return false;
	}
	return c->entry && dwarf_lowpc(&o, &pc) == 0 && pc == c->entry;
}

/* The call site's value for the parameter: DW_AT_call_value of the
 * call_site_parameter whose DW_AT_location is the register (entry
 * values) or whose DW_AT_abstract_origin is the parameter's DIE
 * (DW_OP_GNU_parameter_ref). */
static bool site_value(struct gs_dwarf *d, const struct dwv_callsite *s,
		       const struct dwv_param *key, Dwarf_Attribute *value)
{
	Dwarf_Die site, ch;

	if (!dwarf_offdie(d->dw, s->die, &site) || dwarf_child(&site, &ch) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t n;
		int tag = dwarf_tag(&ch);

		if (tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter)
			continue;
		if (key->by_die) {
			Dwarf_Die o;

			if (!(dwarf_attr(&ch, DW_AT_call_parameter, &a) ||
			      dwarf_attr(&ch, DW_AT_abstract_origin, &a)) || !dwarf_formref_die(&a, &o) ||
			    dwarf_dieoffset(&o) != key->die)
				continue;
		} else if (!dwarf_attr(&ch, DW_AT_location, &a) ||
			   dwarf_getlocation(&a, &ops, &n) != 0 || n != 1 ||
			   !((ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31 &&
			      (unsigned)(ops[0].atom - DW_OP_reg0) == key->reg) ||
			     (ops[0].atom == DW_OP_regx && ops[0].number == key->reg))) {
			continue;
		}
		return dwarf_attr(&ch, DW_AT_call_value, value) ||
		       dwarf_attr(&ch, DW_AT_GNU_call_site_value, value);
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return false;
}

/* Where a register rule puts the caller's register: *saved false: the
 * register itself (same value; unspecified is the same value too, as gdb
 * takes it on x86-64), true: at CFA + *k. */
static bool rule(Dwarf_Frame *row, unsigned reg, bool *saved, int64_t *k)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(row, (int)reg, mem, &ops, &n) != 0)
		return false;
	*saved = n > 0;
	*k = 0;
	if (!n)
		return true;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 1)
		return true;
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*k = (int64_t)ops[1].number;
		return true;
	}
	if (n == 3 && ops[1].atom == DW_OP_consts && ops[2].atom == DW_OP_plus) {
		*k = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

bool dwv_caller_reg(struct lx *x, unsigned reg, int64_t addend)
{
	const struct lx_caller *c = x->caller;
	bool saved;
	int64_t k;

	if (reg == GS_DWARF_REG_RSP) /* after the return: the callee's CFA */
		return lx_push_probe_reg(x, c->cfa_reg, c->cfa_off + addend);
	if (reg >= GS_DWARF_REG_RA || !rule(c->callee_row, reg, &saved, &k))
		return lx_refuse(x, GS_LOC_WHY_ENTRY_VALUE);
	if (!saved)
		return lx_push_probe_reg(x, reg, addend);
	if (!lx_push_probe_reg(x, c->cfa_reg, c->cfa_off + k) ||
	    !lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_DEREF, .size = 8 }, 1, 1))
		return false;
	x->size[x->depth - 1] = 0;
	x->sign[x->depth - 1] = true;
	if (!addend)
		return true;
	return lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_CONST, .arg = addend }, 0, 1) &&
	       lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_ADD }, 2, 1);
}

/* One matching call site's value in the caller's frame; false: this site
 * cannot say (x is left as before, without an error). */
static bool site(struct lx *x, struct lx_caller *caller, const struct dwv_callsite *s,
		 const struct dwv_param *key)
{
	struct lx_caller *outer = x->caller;
	Dwarf_Attribute value;
	Dwarf_Op *ops;
	size_t n;
	uint16_t mark = x->n;
	uint8_t depth = x->depth;
	bool ok;

	if (!site_value(x->d, s, key, &value) || dwarf_getlocation(&value, &ops, &n) != 0 ||
	    !dwarf_offdie(x->d->dw, s->caller, &caller->caller_fn))
		return false;
	caller->return_pc = s->return_pc;
	x->caller = caller;
	ok = lx_compile(x, ops, n, &value) && x->depth == depth + 1;
	x->caller = outer;
	if (!ok) {
		x->n = mark;
		x->depth = depth;
		x->why = 0;
	}
	return ok;
}

static Dwarf_Frame *row_at(struct gs_dwarf *d, uint64_t pc)
{
	Dwarf_CFI *cfis[2] = { d->cfi_eh, d->cfi_debug };

	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame = NULL;

		if (cfis[i] && (!d->cfi_allowed || d->cfi_allowed(d->cfi_allowed_arg, i == 1, pc)) &&
		    dwarf_cfi_addrframe(cfis[i], pc, &frame) == 0)
			return frame;
	}
	return NULL;
}

bool dwv_entry_value(struct lx *x, const struct dwv_param *key)
{
	const struct dwv_callsites *all;
	struct lx_caller caller = { 0 };
	struct callee callee;
	const struct dwv_callsite *match[MAX_SITES];
	uint16_t bra[MAX_SITES], skips[MAX_SITES];
	size_t nmatch = 0, nskips = 0, good = 0;
	uint8_t depth = x->depth;
	bool saved;
	int64_t ra;

	if (!x->scope_fn)
		return lx_refuse(x, GS_LOC_WHY_ENTRY_VALUE);
	all = callsites(x->d);
	callee_of(x->d, x->scope_fn, &callee);
	for (size_t i = 0; all && i < all->n; i++) {
		if (!calls(x->d, &all->v[i], &callee))
			continue;
		if (nmatch == MAX_SITES)
			return lx_refuse(x, GS_LOC_WHY_TOO_COMPLEX);
		match[nmatch++] = &all->v[i];
	}
	if (!nmatch)
		return lx_refuse(x, GS_LOC_WHY_NO_CALL_SITE);
	if (dwv_cfa_at(x->d, x->pc, &caller.cfa_reg, &caller.cfa_off))
		return lx_refuse(x, GS_LOC_WHY_NO_CFA);
	caller.callee_row = row_at(x->d, x->pc);
	if (!caller.callee_row || !rule(caller.callee_row, GS_DWARF_REG_RA, &saved, &ra) || !saved) {
		free(caller.callee_row);
		return lx_refuse(x, GS_LOC_WHY_NO_CFA);
	}
	/* the link-time return address: *(CFA + ra) - the module's bias */
	if (!lx_push_probe_reg(x, caller.cfa_reg, caller.cfa_off + ra) ||
	    !lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_DEREF, .size = 8 }, 1, 1) ||
	    !lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_MODULE }, 0, 1) ||
	    !lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_SUB }, 2, 1))
		goto out;
	for (size_t i = 0; i < nmatch; i++) {
		if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_PICK }, 0, 1) ||
		    !lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_CONST,
						    .arg = (int64_t)match[i]->return_pc }, 0, 1) ||
		    !lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_EQ }, 2, 1) ||
		    !lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_BRA }, 1, 0))
			goto out;
		bra[i] = (uint16_t)(x->n - 1);
	}
	if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_FAIL }, 0, 0))
		goto out;
	for (size_t i = 0; i < nmatch; i++) {
		/* reached from bra[i] with the return address on the stack */
		x->ops[bra[i]].arg = x->n;
		x->depth = (uint8_t)(depth + 1);
		if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_DROP }, 1, 0))
			goto out;
		if (!site(x, &caller, match[i], key)) {
			x->depth = (uint8_t)(depth + 1);
			x->n--; /* the drop: FAIL keeps the stack */
			if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_FAIL }, 0, 0))
				goto out;
			continue;
		}
		good++;
		if (i + 1 < nmatch) {
			if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_SKIP }, 0, 0))
				goto out;
			skips[nskips++] = (uint16_t)(x->n - 1);
		}
	}
	if (!good) {
		lx_refuse(x, GS_LOC_WHY_ENTRY_VALUE);
		goto out;
	}
	for (size_t i = 0; i < nskips; i++)
		x->ops[skips[i]].arg = x->n;
	x->depth = (uint8_t)(depth + 1);
	x->size[depth] = 0;
	x->sign[depth] = true;
	x->entry_value = true;
out:
	free(caller.callee_row);
	return !x->why;
}
