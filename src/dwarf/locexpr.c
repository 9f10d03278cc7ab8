/* The general DWARF expression compiler: what location.c cannot fold into
 * "base + offset" (registers combined, a deref inside, bra/skip, typed
 * operations, entry values) becomes a location program (gs/value.h) that
 * the code generator runs at the probe, one per piece (locpiece.c). The
 * stack depth before every operation is fixed here: a branch must meet the
 * same depth and types wherever it lands, and only forward branches are
 * accepted, so the program always ends. Stack entries carry gdb's types: the generic
 * one (64 bits; signed for div and comparisons, unsigned for mod and shr)
 * or a base type of 1..8 bytes, to whose width results are cut. */
#include <string.h>

#include "locexpr.h"

bool lx_refuse(struct lx *x, uint8_t why)
{
	if (!x->why)
		x->why = why;
	return false;
}

bool lx_emit(struct lx *x, struct gs_loc_op op, unsigned pops, unsigned pushes)
{
	if (x->why)
		return false;
	if (x->depth < pops)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED); /* stack underflow */
	if (x->n == GS_LOC_PROG_MAX_OPS || x->depth - pops + pushes > GS_LOC_PROG_MAX_DEPTH)
		return lx_refuse(x, GS_LOC_WHY_TOO_COMPLEX);
	op.depth = x->depth;
	x->ops[x->n++] = op;
	x->depth = (uint8_t)(x->depth - pops + pushes);
	if (x->depth > x->max_depth)
		x->max_depth = x->depth;
	return true;
}

/* The type of a new top entry. */
static void set_type(struct lx *x, uint8_t size, bool sign)
{
	if (x->depth) {
		x->size[x->depth - 1] = size;
		x->sign[x->depth - 1] = sign;
	}
}

static bool push_const(struct lx *x, int64_t v)
{
	if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_CONST, .arg = v }, 0, 1))
		return false;
	set_type(x, 0, true);
	return true;
}

bool lx_push_probe_reg(struct lx *x, unsigned reg, int64_t addend)
{
	if (reg > GS_DWARF_REG_MAX) /* XMM and others: not in pt_regs */
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_REG, .reg = (uint8_t)reg,
					    .arg = addend }, 0, 1))
		return false;
	set_type(x, 0, true);
	return true;
}

bool lx_push_reg(struct lx *x, unsigned reg, int64_t addend)
{
	return x->caller ? dwv_caller_reg(x, reg, addend) : lx_push_probe_reg(x, reg, addend);
}

/* Pushes the CFA of x's frame. */
static bool push_cfa(struct lx *x)
{
	uint8_t reg;
	int64_t off;

	if (x->caller) /* the caller's CFA, in the caller's registers */
		return dwv_cfa_at(x->d, x->caller->return_pc - 1, &reg, &off) ?
		       lx_refuse(x, GS_LOC_WHY_NO_CFA) : dwv_caller_reg(x, reg, off);
	if (dwv_cfa_at(x->d, x->pc, &reg, &off))
		return lx_refuse(x, GS_LOC_WHY_NO_CFA);
	return lx_push_probe_reg(x, reg, off);
}

bool lx_push_frame_base(struct lx *x, Dwarf_Die *fn, uint64_t pc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!fn || !dwarf_attr_integrate(fn, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &n, 1) != 1 || n == 0 || n > 8)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return lx_push_reg(x, ops[0].atom - DW_OP_reg0, 0);
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa)
		return push_cfa(x);
	for (size_t i = 0; i < n; i++) /* the frame base's own fbreg would recurse */
		if (ops[i].atom == DW_OP_fbreg)
			return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	return lx_compile(x, ops, n, &a);
}

/* The base type of a typed operation: bytes and signedness. Floats and
 * types wider than 8 bytes are not numbers a BPF register holds. */
static bool base_type(struct lx *x, const Dwarf_Op *op, Dwarf_Word off, uint8_t *size,
		      bool *sign)
{
	Dwarf_Die die;
	Dwarf_Attribute a;
	Dwarf_Word bytes, enc;

	if (off == 0) { /* DW_OP_convert 0: the generic type */
		*size = 0;
		*sign = true;
		return true;
	}
	if (!x->attr || dwarf_getlocation_die(x->attr, op, &die) != 0 ||
	    dwarf_tag(&die) != DW_TAG_base_type ||
	    !dwarf_attr(&die, DW_AT_byte_size, &a) || dwarf_formudata(&a, &bytes) != 0 ||
	    !dwarf_attr(&die, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) != 0 ||
	    bytes == 0 || bytes > 8 || enc == DW_ATE_float || enc == DW_ATE_complex_float ||
	    enc == DW_ATE_decimal_float)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	*size = (uint8_t)(bytes == 8 ? 0 : bytes);
	*sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return true;
}

static bool convert(struct lx *x, uint8_t size, bool sign)
{
	if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_CONVERT, .size = size,
					    .flags = sign ? GS_LOPF_SIGNED : 0 }, 1, 1))
		return false;
	set_type(x, size, sign);
	return true;
}

static bool deref(struct lx *x, uint64_t size, uint8_t type_size, bool sign, bool typed)
{
	if (size == 0 || size > 8)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_DEREF, .size = (uint8_t)size,
					    .flags = sign ? GS_LOPF_SIGNED : 0 }, 1, 1))
		return false;
	/* DW_OP_deref(_size): zero-extended, of the generic type */
	set_type(x, type_size, typed ? sign : true);
	return size == 8 || type_size == size || type_size == 0 || convert(x, type_size, sign);
}

static const uint8_t binary_code[256] = {
	[DW_OP_plus] = GS_LOP_ADD, [DW_OP_minus] = GS_LOP_SUB, [DW_OP_mul] = GS_LOP_MUL,
	[DW_OP_div] = GS_LOP_DIV, [DW_OP_mod] = GS_LOP_MOD, [DW_OP_and] = GS_LOP_AND,
	[DW_OP_or] = GS_LOP_OR, [DW_OP_xor] = GS_LOP_XOR, [DW_OP_shl] = GS_LOP_SHL,
	[DW_OP_shr] = GS_LOP_SHR, [DW_OP_shra] = GS_LOP_SHRA, [DW_OP_eq] = GS_LOP_EQ,
	[DW_OP_ne] = GS_LOP_NE, [DW_OP_lt] = GS_LOP_LT, [DW_OP_le] = GS_LOP_LE,
	[DW_OP_gt] = GS_LOP_GT, [DW_OP_ge] = GS_LOP_GE,
};

/* a OP b with gdb's types: the result has a's type (b's when a is
 * generic); comparisons give a generic 0/1. */
static bool binary(struct lx *x, uint8_t code)
{
	uint8_t size;
	bool sign, generic, cmp = code >= GS_LOP_EQ && code <= GS_LOP_GE;

	if (x->depth < 2)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	size = x->size[x->depth - 2] ? x->size[x->depth - 2] : x->size[x->depth - 1];
	generic = !x->size[x->depth - 2] && !x->size[x->depth - 1] &&
		  x->sign[x->depth - 2] && x->sign[x->depth - 1];
	sign = x->size[x->depth - 2] || !x->size[x->depth - 1] ? x->sign[x->depth - 2] :
	       x->sign[x->depth - 1];
	if (code == GS_LOP_MOD && generic)
		sign = false; /* gdb: "old-style" untyped values take mod unsigned */
	if (!lx_emit(x, (struct gs_loc_op){ .code = code, .size = cmp ? 0 : size,
					    .flags = sign ? GS_LOPF_SIGNED : 0 }, 2, 1))
		return false;
	if (cmp)
		set_type(x, 0, true);
	else
		set_type(x, size, code == GS_LOP_MOD && generic ? true : sign);
	return true;
}

static bool unary(struct lx *x, uint8_t code)
{
	uint8_t size = x->depth ? x->size[x->depth - 1] : 0;
	bool sign = x->depth ? x->sign[x->depth - 1] : true;

	return lx_emit(x, (struct gs_loc_op){ .code = code, .size = size,
					      .flags = sign ? GS_LOPF_SIGNED : 0 }, 1, 1);
}

/* pick, swap, rot: the types move with the entries. */
static bool shuffle(struct lx *x, uint8_t code, uint64_t k)
{
	unsigned d = x->depth;
	uint8_t s[3], g[3];

	if (code == GS_LOP_PICK) {
		if (k >= d)
			return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
		s[0] = x->size[d - 1 - k];
		g[0] = x->sign[d - 1 - k];
		if (!lx_emit(x, (struct gs_loc_op){ .code = code, .arg = (int64_t)k }, 0, 1))
			return false;
		set_type(x, s[0], g[0]);
		return true;
	}
	if (d < (code == GS_LOP_ROT ? 3u : 2u))
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	if (!lx_emit(x, (struct gs_loc_op){ .code = code }, 0, 0))
		return false;
	if (code == GS_LOP_SWAP) {
		s[0] = x->size[d - 1], g[0] = x->sign[d - 1];
		x->size[d - 1] = x->size[d - 2], x->sign[d - 1] = x->sign[d - 2];
		x->size[d - 2] = s[0], x->sign[d - 2] = g[0];
	} else { /* a b c -> c a b */
		memcpy(s, &x->size[d - 3], 3);
		memcpy(g, &x->sign[d - 3], 3);
		x->size[d - 3] = s[2], x->size[d - 2] = s[0], x->size[d - 1] = s[1];
		x->sign[d - 3] = g[2], x->sign[d - 2] = g[0], x->sign[d - 1] = g[1];
	}
	return true;
}

static bool address_operand(struct lx *x, const Dwarf_Op *op, bool module)
{
	Dwarf_Attribute res;
	Dwarf_Addr addr;

	if (!x->attr || dwarf_getlocation_attr(x->attr, op, &res) != 0 ||
	    dwarf_formaddr(&res, &addr) != 0)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	if (!module)
		return push_const(x, (int64_t)addr);
	if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_MODULE, .arg = (int64_t)addr }, 0, 1))
		return false;
	set_type(x, 0, true);
	return true;
}

/* DW_OP_entry_value(DW_OP_regN): the register at the function's entry. */
static bool entry_value(struct lx *x, const Dwarf_Op *op)
{
	Dwarf_Attribute res;
	Dwarf_Op *sub;
	size_t n;
	unsigned reg;

	if (!x->attr || dwarf_getlocation_attr(x->attr, op, &res) != 0 ||
	    dwarf_getlocation(&res, &sub, &n) != 0 || n != 1)
		return lx_refuse(x, GS_LOC_WHY_ENTRY_VALUE);
	if (sub[0].atom >= DW_OP_reg0 && sub[0].atom <= DW_OP_reg31)
		reg = sub[0].atom - DW_OP_reg0;
	else if (sub[0].atom == DW_OP_regx && sub[0].number < 256)
		reg = (unsigned)sub[0].number;
	else
		return lx_refuse(x, GS_LOC_WHY_ENTRY_VALUE);
	if (x->caller) /* an entry value of the caller's caller */
		return lx_refuse(x, GS_LOC_WHY_ENTRY_VALUE);
	return dwv_entry_value(x, &(struct dwv_param){ .reg = reg });
}

/* DW_OP_GNU_parameter_ref: a parameter of a clone (foo.constprop.0) that
 * only the call sites know, by its DIE. */
static bool parameter_ref(struct lx *x, const Dwarf_Op *op)
{
	Dwarf_Die die;

	if (x->caller || !x->attr || dwarf_getlocation_die(x->attr, op, &die) != 0)
		return lx_refuse(x, GS_LOC_WHY_ENTRY_VALUE);
	return dwv_entry_value(x, &(struct dwv_param){ .by_die = true,
						       .die = dwarf_dieoffset(&die) });
}

static bool typed(struct lx *x, const Dwarf_Op *op)
{
	uint8_t size;
	bool sign;
	Dwarf_Block blk;
	uint64_t v = 0;

	switch (op->atom) {
	case DW_OP_regval_type:
	case DW_OP_GNU_regval_type:
		return base_type(x, op, op->number2, &size, &sign) &&
		       lx_push_reg(x, (unsigned)(op->number > 255 ? 255 : op->number), 0) &&
		       convert(x, size, sign);
	case DW_OP_deref_type:
	case DW_OP_GNU_deref_type:
		return base_type(x, op, op->number2, &size, &sign) &&
		       deref(x, op->number, size, sign, true);
	case DW_OP_convert:
	case DW_OP_GNU_convert:
	case DW_OP_reinterpret:
	case DW_OP_GNU_reinterpret:
		return base_type(x, op, op->number, &size, &sign) && convert(x, size, sign);
	default: /* DW_OP_const_type */
		if (!base_type(x, op, op->number, &size, &sign) ||
		    dwarf_getlocation_implicit_value(x->attr, op, &blk) != 0 || blk.length > 8)
			return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
		for (size_t i = 0; i < blk.length; i++)
			v |= (uint64_t)blk.data[i] << (8 * i);
		return push_const(x, (int64_t)v) && convert(x, size, sign);
	}
}

static bool step(struct lx *x, const Dwarf_Op *op)
{
	uint8_t a = op->atom;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return push_const(x, a - DW_OP_lit0);
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		return lx_push_reg(x, a - DW_OP_breg0, (int64_t)op->number);
	if (binary_code[a])
		return binary(x, binary_code[a]);
	switch (a) {
	case DW_OP_addr:
		if (!lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_MODULE,
						    .arg = (int64_t)op->number }, 0, 1))
			return false;
		set_type(x, 0, true);
		return true;
	case DW_OP_addrx: case DW_OP_GNU_addr_index:
		return address_operand(x, op, true);
	case DW_OP_constx: case DW_OP_GNU_const_index:
		return address_operand(x, op, false);
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_consts:
		return push_const(x, (int64_t)op->number);
	case DW_OP_bregx:
		return lx_push_reg(x, (unsigned)(op->number > 255 ? 255 : op->number),
				   (int64_t)op->number2);
	case DW_OP_fbreg:
		if (!(x->caller ? lx_push_frame_base(x, &x->caller->caller_fn,
						     x->caller->return_pc - 1) :
		      lx_push_frame_base(x, x->scope_fn, x->pc)))
			return false;
		return push_const(x, (int64_t)op->number) && binary(x, GS_LOP_ADD);
	case DW_OP_call_frame_cfa:
		return push_cfa(x);
	case DW_OP_plus_uconst:
		return push_const(x, (int64_t)op->number) && binary(x, GS_LOP_ADD);
	case DW_OP_neg:
		return unary(x, GS_LOP_NEG);
	case DW_OP_not:
		return unary(x, GS_LOP_NOT);
	case DW_OP_abs:
		return unary(x, GS_LOP_ABS);
	case DW_OP_deref:
		return deref(x, 8, 0, false, false);
	case DW_OP_deref_size:
		return deref(x, op->number, 0, false, false);
	case DW_OP_dup:
		return shuffle(x, GS_LOP_PICK, 0);
	case DW_OP_over:
		return shuffle(x, GS_LOP_PICK, 1);
	case DW_OP_pick:
		return shuffle(x, GS_LOP_PICK, op->number);
	case DW_OP_swap:
		return shuffle(x, GS_LOP_SWAP, 0);
	case DW_OP_rot:
		return shuffle(x, GS_LOP_ROT, 0);
	case DW_OP_drop:
		return lx_emit(x, (struct gs_loc_op){ .code = GS_LOP_DROP }, 1, 0);
	case DW_OP_nop:
	case DW_OP_GNU_uninit: /* gdb shows a possibly uninitialized value anyway */
		return true;
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		return entry_value(x, op);
	case DW_OP_GNU_parameter_ref:
		return parameter_ref(x, op);
	case DW_OP_regval_type: case DW_OP_GNU_regval_type:
	case DW_OP_deref_type: case DW_OP_GNU_deref_type:
	case DW_OP_convert: case DW_OP_GNU_convert:
	case DW_OP_reinterpret: case DW_OP_GNU_reinterpret:
	case DW_OP_const_type: case DW_OP_GNU_const_type:
		return typed(x, op);
	default: /* TLS, xderef, calls, object addresses, implicit pointers */
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	}
}

/* The op a branch at ops[i] lands on (n: the end), or -1. */
static long branch_target(const Dwarf_Op *ops, size_t n, size_t i, uint64_t end_off)
{
	uint64_t to = ops[i].offset + 3 + (uint64_t)(int64_t)(int16_t)(uint16_t)ops[i].number;

	for (size_t j = 0; j < n; j++)
		if (ops[j].offset == to)
			return (long)j;
	if (to == end_off || (end_off == UINT64_MAX && to > ops[n - 1].offset))
		return (long)n;
	return -1;
}

struct landing {
	int16_t depth; /* -1: no branch lands here */
	uint8_t size[GS_LOC_PROG_MAX_DEPTH], sign[GS_LOC_PROG_MAX_DEPTH];
};

/* A branch reaches op t with x's stack: the same depth and types as any
 * other way there. */
static bool land(struct lx *x, struct landing *l)
{
	if (l->depth < 0) {
		l->depth = x->depth;
		memcpy(l->size, x->size, sizeof(l->size));
		memcpy(l->sign, x->sign, sizeof(l->sign));
		return true;
	}
	if (l->depth != x->depth || memcmp(l->size, x->size, x->depth) ||
	    memcmp(l->sign, x->sign, x->depth))
		return lx_refuse(x, GS_LOC_WHY_TOO_COMPLEX);
	return true;
}

bool lx_compile_range(struct lx *x, const Dwarf_Op *ops, size_t n, uint64_t end_off)
{
	struct landing at[GS_LOC_PROG_MAX_OPS + 1];
	uint16_t first[GS_LOC_PROG_MAX_OPS + 1];
	uint16_t jumps[GS_LOC_PROG_MAX_OPS];
	size_t njumps = 0;

	if (n > GS_LOC_PROG_MAX_OPS)
		return lx_refuse(x, GS_LOC_WHY_TOO_COMPLEX);
	for (size_t i = 0; i <= n; i++)
		at[i].depth = -1;
	x->dead = false;
	for (size_t i = 0; i <= n; i++) {
		if (at[i].depth >= 0) {
			if (!x->dead && !land(x, &at[i]))
				return false;
			x->depth = (uint8_t)at[i].depth;
			memcpy(x->size, at[i].size, sizeof(x->size));
			memcpy(x->sign, at[i].sign, sizeof(x->sign));
			x->dead = false;
		}
		first[i] = x->n;
		if (i == n || x->dead)
			continue; /* unreachable: nothing emitted */
		if (ops[i].atom == DW_OP_bra || ops[i].atom == DW_OP_skip) {
			long t = branch_target(ops, n, i, end_off);
			bool bra = ops[i].atom == DW_OP_bra;

			if (t < 0)
				return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
			if (t <= (long)i) /* a loop: a BPF program must end */
				return lx_refuse(x, GS_LOC_WHY_TOO_COMPLEX);
			if (!lx_emit(x, (struct gs_loc_op){ .code = bra ? GS_LOP_BRA : GS_LOP_SKIP,
							    .arg = t }, bra, 0) ||
			    !land(x, &at[t]))
				return false;
			jumps[njumps++] = (uint16_t)(x->n - 1);
			x->dead = !bra;
			continue;
		}
		if (!step(x, &ops[i]))
			return false;
	}
	for (size_t j = 0; j < njumps; j++)
		x->ops[jumps[j]].arg = first[x->ops[jumps[j]].arg];
	return !x->why;
}

bool lx_compile(struct lx *x, const Dwarf_Op *ops, size_t n, Dwarf_Attribute *attr)
{
	Dwarf_Attribute *saved = x->attr;
	bool ok;

	if (!n)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	x->attr = attr;
	ok = lx_compile_range(x, ops, n, UINT64_MAX);
	x->attr = saved;
	return ok;
}
