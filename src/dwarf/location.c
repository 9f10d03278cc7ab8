/* DWARF location descriptions -> access plans (include/gs/value.h) at one
 * probe PC. What folds is folded at compile time: a location list gives the
 * entry covering the PC, the frame base over DW_OP_call_frame_cfa becomes
 * the CFI row's "rsp/rbp + k", constant arithmetic is done here. What does
 * not fold (registers combined, a deref in the middle of an expression,
 * entry values) goes to the general compiler (locexpr.c); what neither
 * can plan without a wrong number (TLS, XMM registers) is "unavailable"
 * with a reason, never a guess. */
#include <errno.h>
#include <string.h>

#include "dwv_int.h"

#define MAX_STACK 16
#define MAX_PIECES 16

struct item {
	uint8_t base; /* enum gs_loc_base */
	uint8_t reg;
	int64_t off;
};

struct eval {
	struct gs_dwarf *d;
	Dwarf_Attribute *attr;
	Dwarf_Die *scope_fn;
	uint64_t pc;
	uint32_t type_size;
	struct gs_var_loc *out;

	struct item stack[MAX_STACK];
	int sp;
	int reg;            /* DW_OP_reg*: the register, else -1 */
	bool stack_value;
	const uint8_t *implicit;
	uint32_t implicit_len;

	struct gs_loc_piece pieces[MAX_PIECES];
	uint32_t npieces;
	uint8_t why;        /* set: the whole location fails */
};

static bool push(struct eval *e, struct item it)
{
	if (e->sp == MAX_STACK) {
		e->why = GS_LOC_WHY_UNSUPPORTED;
		return false;
	}
	e->stack[e->sp++] = it;
	return true;
}

static bool pop(struct eval *e, struct item *it)
{
	if (!e->sp) {
		e->why = GS_LOC_WHY_UNSUPPORTED;
		return false;
	}
	*it = e->stack[--e->sp];
	return true;
}

static struct item constant(int64_t v)
{
	return (struct item){ .base = GS_LOC_BASE_NONE, .off = v };
}

/* The frame base of scope_fn at pc as register + offset. */
static bool frame_base(struct eval *e, struct item *fb)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!e->scope_fn || !dwarf_attr_integrate(e->scope_fn, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, e->pc, &ops, &n, 1) != 1 || n != 1) {
		e->why = GS_LOC_WHY_UNSUPPORTED;
		return false;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		int rc = dwv_cfa_at(e->d, e->pc, &fb->reg, &fb->off);

		if (rc) {
			e->why = GS_LOC_WHY_NO_CFA;
			return false;
		}
		fb->base = GS_LOC_BASE_REG;
		e->out->cfa_relative = true;
		return true;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*fb = (struct item){ GS_LOC_BASE_REG, (uint8_t)(ops[0].atom - DW_OP_breg0),
				     (int64_t)ops[0].number };
		return true;
	}
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		*fb = (struct item){ GS_LOC_BASE_REG, (uint8_t)(ops[0].atom - DW_OP_reg0), 0 };
		return true;
	}
	e->why = GS_LOC_WHY_UNSUPPORTED;
	return false;
}

static bool cfa(struct eval *e)
{
	struct item it = { .base = GS_LOC_BASE_REG };

	if (dwv_cfa_at(e->d, e->pc, &it.reg, &it.off)) {
		e->why = GS_LOC_WHY_NO_CFA;
		return false;
	}
	e->out->cfa_relative = true;
	return push(e, it);
}

static bool binary(struct eval *e, uint8_t atom)
{
	struct item b, a;

	if (!pop(e, &b) || !pop(e, &a))
		return false;
	if (atom == DW_OP_plus && a.base == GS_LOC_BASE_NONE && b.base != GS_LOC_BASE_NONE) {
		struct item t = a;

		a = b;
		b = t;
	}
	if (b.base != GS_LOC_BASE_NONE ||
	    (a.base != GS_LOC_BASE_NONE && atom != DW_OP_plus && atom != DW_OP_minus)) {
		e->why = GS_LOC_WHY_UNSUPPORTED;
		return false;
	}
	switch (atom) {
	case DW_OP_plus: a.off += b.off; break;
	case DW_OP_minus: a.off -= b.off; break;
	case DW_OP_mul: a.off *= b.off; break;
	case DW_OP_and: a.off &= b.off; break;
	case DW_OP_or: a.off |= b.off; break;
	case DW_OP_xor: a.off ^= b.off; break;
	case DW_OP_shl: a.off = b.off >= 64 ? 0 : (int64_t)((uint64_t)a.off << b.off); break;
	case DW_OP_shr: a.off = b.off >= 64 ? 0 : (int64_t)((uint64_t)a.off >> b.off); break;
	case DW_OP_shra: a.off = b.off >= 64 ? (a.off < 0 ? -1 : 0) : a.off >> b.off; break;
	case DW_OP_div:
		if (!b.off || (a.off == INT64_MIN && b.off == -1)) {
			e->why = GS_LOC_WHY_UNSUPPORTED;
			return false;
		}
		a.off /= b.off;
		break;
	case DW_OP_mod:
		if (!b.off) {
			e->why = GS_LOC_WHY_UNSUPPORTED;
			return false;
		}
		a.off = (int64_t)((uint64_t)a.off % (uint64_t)b.off);
		break;
	default: /* comparisons: a constant 0/1 */
		a.off = atom == DW_OP_eq ? a.off == b.off : atom == DW_OP_ne ? a.off != b.off :
			atom == DW_OP_lt ? a.off < b.off : atom == DW_OP_le ? a.off <= b.off :
			atom == DW_OP_gt ? a.off > b.off : a.off >= b.off;
		break;
	}
	return push(e, a);
}

static const uint8_t *const_bytes(struct gs_dwarf *d, uint64_t v, uint32_t size)
{
	uint8_t *b = dwv_alloc(d, size ? size : 1);

	for (uint32_t i = 0; b && i < size; i++)
		b[i] = i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
	return b;
}

/* Ends the piece being built (DW_OP_piece size, or the end: size 0). */
static bool close_piece(struct eval *e, uint32_t size)
{
	struct gs_loc_piece p = { .size = size };
	struct item top;

	if (e->npieces == MAX_PIECES) {
		e->why = GS_LOC_WHY_UNSUPPORTED;
		return false;
	}
	if (e->implicit) {
		p.kind = GS_LOC_IMPLICIT;
		p.bytes = e->implicit;
		if (!p.size)
			p.size = e->implicit_len;
		else if (p.size > e->implicit_len)
			p.kind = GS_LOC_UNAVAILABLE;
	} else if (e->reg >= 0) {
		p.kind = e->reg <= GS_DWARF_REG_MAX ? GS_LOC_REGISTER : GS_LOC_UNAVAILABLE;
		p.reg = (uint8_t)e->reg;
		if (e->reg > GS_DWARF_REG_MAX && !e->npieces)
			e->out->why = GS_LOC_WHY_UNSUPPORTED; /* XMM: not in pt_regs */
	} else if (!e->sp) {
		p.kind = GS_LOC_UNAVAILABLE;
	} else {
		top = e->stack[e->sp - 1];
		if (top.base == GS_LOC_BASE_REG && top.reg > GS_DWARF_REG_MAX) {
			p.kind = GS_LOC_UNAVAILABLE;
		} else if (e->stack_value && top.base == GS_LOC_BASE_NONE) {
			uint32_t n = size ? size : e->type_size ? e->type_size : 8;

			p.kind = GS_LOC_IMPLICIT;
			p.size = n > 8 ? 8 : n;
			p.bytes = const_bytes(e->d, (uint64_t)top.off, p.size);
		} else {
			p.kind = e->stack_value ? GS_LOC_VALUE : GS_LOC_MEMORY;
			p.base = top.base;
			p.reg = top.reg;
			p.offset = top.off;
			if (top.base == GS_LOC_BASE_MODULE)
				e->out->section = dwv_section_of(e->d, (uint64_t)top.off);
		}
	}
	e->pieces[e->npieces++] = p;
	e->sp = 0;
	e->reg = -1;
	e->stack_value = false;
	e->implicit = NULL;
	return true;
}

static bool op_address(struct eval *e, const Dwarf_Op *op, bool module)
{
	Dwarf_Attribute res;
	Dwarf_Addr addr;

	if (dwarf_getlocation_attr(e->attr, op, &res) != 0 || dwarf_formaddr(&res, &addr) != 0) {
		e->why = GS_LOC_WHY_UNSUPPORTED;
		return false;
	}
	return push(e, module ? (struct item){ GS_LOC_BASE_MODULE, 0, (int64_t)addr } :
				constant((int64_t)addr));
}

static bool step(struct eval *e, const Dwarf_Op *op)
{
	uint8_t a = op->atom;
	struct item it, it2;
	Dwarf_Block blk;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return push(e, constant(a - DW_OP_lit0));
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
		e->reg = a - DW_OP_reg0;
		return true;
	}
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		return push(e, (struct item){ GS_LOC_BASE_REG, (uint8_t)(a - DW_OP_breg0),
					      (int64_t)op->number });
	switch (a) {
	case DW_OP_addr:
		return push(e, (struct item){ GS_LOC_BASE_MODULE, 0, (int64_t)op->number });
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
		return op_address(e, op, true);
	case DW_OP_constx:
	case DW_OP_GNU_const_index:
		return op_address(e, op, false);
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_consts:
		return push(e, constant((int64_t)op->number));
	case DW_OP_regx:
		e->reg = op->number > 255 ? 255 : (int)op->number;
		return true;
	case DW_OP_bregx:
		if (op->number > 255)
			break;
		return push(e, (struct item){ GS_LOC_BASE_REG, (uint8_t)op->number,
					      (int64_t)op->number2 });
	case DW_OP_fbreg:
		if (!frame_base(e, &it))
			return false;
		it.off += (int64_t)op->number;
		return push(e, it);
	case DW_OP_call_frame_cfa:
		return cfa(e);
	case DW_OP_plus_uconst:
		if (!pop(e, &it))
			return false;
		it.off += (int64_t)op->number;
		return push(e, it);
	case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_div: case DW_OP_mod:
	case DW_OP_and: case DW_OP_or: case DW_OP_xor: case DW_OP_shl: case DW_OP_shr:
	case DW_OP_shra: case DW_OP_eq: case DW_OP_ne: case DW_OP_lt: case DW_OP_le:
	case DW_OP_gt: case DW_OP_ge:
		return binary(e, a);
	case DW_OP_neg: case DW_OP_not: case DW_OP_abs:
		if (!pop(e, &it))
			return false;
		if (it.base != GS_LOC_BASE_NONE)
			break;
		it.off = a == DW_OP_neg ? -it.off : a == DW_OP_not ? ~it.off :
			 it.off < 0 ? -it.off : it.off;
		return push(e, it);
	case DW_OP_dup:
		return e->sp ? push(e, e->stack[e->sp - 1]) : pop(e, &it);
	case DW_OP_drop:
		return pop(e, &it);
	case DW_OP_over:
		return e->sp >= 2 ? push(e, e->stack[e->sp - 2]) : pop(e, &it);
	case DW_OP_swap:
		if (!pop(e, &it) || !pop(e, &it2))
			return false;
		return push(e, it) && push(e, it2);
	case DW_OP_nop:
	case DW_OP_GNU_uninit: /* the value may be uninitialized: gdb shows it anyway */
		return true;
	case DW_OP_stack_value:
		e->stack_value = true;
		return true;
	case DW_OP_implicit_value:
		if (dwarf_getlocation_implicit_value(e->attr, op, &blk) != 0)
			break;
		e->implicit = blk.data;
		e->implicit_len = blk.length > UINT32_MAX ? UINT32_MAX : (uint32_t)blk.length;
		return true;
	case DW_OP_piece:
		return close_piece(e, op->number > UINT32_MAX ? UINT32_MAX : (uint32_t)op->number);
	case DW_OP_form_tls_address:
	case DW_OP_GNU_push_tls_address:
		/* the offset in the module's TLS block: the block is per thread */
		if (!pop(e, &it) || it.base != GS_LOC_BASE_NONE)
			break;
		it.base = GS_LOC_BASE_TLS;
		return push(e, it);
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		e->why = GS_LOC_WHY_ENTRY_VALUE;
		return false;
	default:
		break;
	}
	e->why = GS_LOC_WHY_UNSUPPORTED;
	return false;
}

static void finish(struct eval *e)
{
	struct gs_var_loc *out = e->out;
	struct gs_loc_piece *v;
	bool any = false;

	for (uint32_t i = 0; i < e->npieces; i++)
		any |= e->pieces[i].kind != GS_LOC_UNAVAILABLE;
	if (!any) {
		if (!out->why)
			out->why = GS_LOC_WHY_UNSUPPORTED;
		return;
	}
	v = dwv_alloc(e->d, e->npieces * sizeof(*v));
	if (!v) {
		out->why = GS_LOC_WHY_UNSUPPORTED;
		return;
	}
	memcpy(v, e->pieces, e->npieces * sizeof(*v));
	out->pieces = v;
	out->npieces = e->npieces;
	out->why = GS_LOC_WHY_NONE;
}

static void expression(struct eval *e, const Dwarf_Op *ops, size_t n)
{
	bool last_piece = false;

	for (size_t i = 0; i < n; i++) {
		if (!step(e, &ops[i])) {
			e->out->why = e->why ? e->why : GS_LOC_WHY_UNSUPPORTED;
			e->out->cfa_relative = false;
			return;
		}
		last_piece = ops[i].atom == DW_OP_piece;
	}
	if (!last_piece && !close_piece(e, 0)) {
		e->out->why = GS_LOC_WHY_UNSUPPORTED;
		return;
	}
	finish(e);
}

/* DW_AT_const_value: the value's bytes. */
static void const_value(struct gs_dwarf *d, Dwarf_Attribute *a, uint32_t type_size,
			struct gs_var_loc *out)
{
	struct gs_loc_piece *p = dwv_alloc(d, sizeof(*p));
	Dwarf_Block blk;
	Dwarf_Word u;
	Dwarf_Sword s;
	const char *str;

	if (!p)
		return;
	p->kind = GS_LOC_IMPLICIT;
	if (dwarf_formblock(a, &blk) == 0) {
		p->bytes = blk.data;
		p->size = (uint32_t)blk.length;
	} else if ((str = dwarf_formstring(a))) {
		p->bytes = (const uint8_t *)str;
		p->size = (uint32_t)strlen(str) + 1;
	} else {
		uint32_t n = type_size && type_size <= 8 ? type_size : 8;

		if (a->form == DW_FORM_sdata || a->form == DW_FORM_implicit_const) {
			if (dwarf_formsdata(a, &s) != 0)
				return;
			u = (Dwarf_Word)s;
		} else if (dwarf_formudata(a, &u) != 0) {
			return;
		}
		p->bytes = const_bytes(d, u, n);
		p->size = n;
	}
	if (!p->bytes)
		return;
	out->pieces = p;
	out->npieces = 1;
	out->why = GS_LOC_WHY_NONE;
}

void dwv_location(struct gs_dwarf *d, Dwarf_Die *var, Dwarf_Die *scope_fn, uint64_t pc,
		  struct gs_var_loc *out)
{
	struct eval e = { .d = d, .scope_fn = scope_fn, .pc = pc, .out = out, .reg = -1 };
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	out->cookie = d->cookie;
	e.type_size = dwv_var_type(d, var)->byte_size;
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		out->why = GS_LOC_WHY_UNSUPPORTED;
		const_value(d, &a, e.type_size, out);
		return;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &a)) {
		out->why = GS_LOC_WHY_NO_LOCATION;
		return;
	}
	e.attr = &a;
	out->from_list = a.form == DW_FORM_sec_offset || a.form == DW_FORM_loclistx ||
			 a.form == DW_FORM_data4 || a.form == DW_FORM_data8;
	rc = dwarf_getlocation_addr(&a, pc, &ops, &n, 1);
	if (rc < 0) {
		out->why = GS_LOC_WHY_UNSUPPORTED;
		return;
	}
	if (rc == 0 || n == 0) {
		out->why = out->from_list ? GS_LOC_WHY_NOT_AT_PC : GS_LOC_WHY_NO_LOCATION;
		return;
	}
	expression(&e, ops, n);
	if (!out->npieces && (out->why == GS_LOC_WHY_UNSUPPORTED || out->why == GS_LOC_WHY_ENTRY_VALUE))
		dwv_locexpr(d, &a, scope_fn, pc, ops, n, out);
}
