/* A location description split at DW_OP_piece / DW_OP_bit_piece, each
 * piece a register, constant bytes, nothing (gdb: <optimized out>), an
 * implicit pointer, or a location program compiled by locexpr.c: the
 * entry point (dwv_locexpr) for what location.c does not fold. */
#include <stdlib.h>
#include <string.h>

#include "locexpr.h"

#define MAX_PIECES 16

/* One piece's ops as a program: its value (stack_value) or address. */
static bool piece_program(struct lx *x, const Dwarf_Op *ops, size_t n, uint64_t end_off,
			  struct gs_loc_piece *p)
{
	bool value = n && ops[n - 1].atom == DW_OP_stack_value;
	struct gs_loc_prog *prog;
	struct gs_loc_op *copy;

	x->n = 0;
	x->depth = x->max_depth = 0;
	if (value)
		n--;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_stack_value ||
		    (ops[i].atom >= DW_OP_reg0 && ops[i].atom <= DW_OP_reg31) ||
		    ops[i].atom == DW_OP_regx || ops[i].atom == DW_OP_implicit_value)
			return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED); /* not last: malformed */
	if (!n || !lx_compile_range(x, ops, n, end_off))
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	if (x->depth < 1)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	prog = dwv_alloc(x->d, sizeof(*prog));
	copy = dwv_alloc(x->d, x->n * sizeof(*copy));
	if (!prog || !copy)
		return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
	memcpy(copy, x->ops, x->n * sizeof(*copy));
	*prog = (struct gs_loc_prog){ .ops = copy, .nops = x->n, .max_depth = x->max_depth };
	for (uint16_t i = 0; i < x->n; i++)
		prog->has_module |= copy[i].code == GS_LOP_MODULE;
	p->kind = value ? GS_LOC_VALUE : GS_LOC_MEMORY;
	p->base = GS_LOC_BASE_PROGRAM;
	p->prog = prog;
	return true;
}

/* One piece: a register, constant bytes, nothing, or a program. */
static bool piece(struct lx *x, const Dwarf_Op *ops, size_t n, uint64_t end_off,
		  struct gs_loc_piece *p)
{
	Dwarf_Block blk;

	if (n == 0) {
		p->kind = GS_LOC_UNAVAILABLE;
		return true;
	}
	if (n == 1 && ((ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) ||
		       ops[0].atom == DW_OP_regx)) {
		uint64_t reg = ops[0].atom == DW_OP_regx ? ops[0].number : (uint64_t)(ops[0].atom - DW_OP_reg0);

		p->kind = reg <= GS_DWARF_REG_MAX ? GS_LOC_REGISTER : GS_LOC_UNAVAILABLE;
		p->reg = (uint8_t)(reg <= GS_DWARF_REG_MAX ? reg : 0);
		return true;
	}
	if (n == 1 && (ops[0].atom == DW_OP_implicit_pointer ||
		       ops[0].atom == DW_OP_GNU_implicit_pointer)) {
		/* no address to show: gdb prints <synthetic pointer> (and the
		 * pointee by the DIE it names, which this does not follow) */
		static const uint8_t none[8];

		p->kind = GS_LOC_IMPLICIT;
		p->bytes = none;
		if (!p->size)
			p->size = 8;
		x->implicit_pointer = true;
		return true;
	}
	if (n == 1 && ops[0].atom == DW_OP_implicit_value) {
		if (!x->attr || dwarf_getlocation_implicit_value(x->attr, &ops[0], &blk) != 0 ||
		    blk.length > UINT32_MAX)
			return lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
		p->kind = p->size > blk.length ? GS_LOC_UNAVAILABLE : GS_LOC_IMPLICIT;
		p->bytes = blk.data;
		if (!p->size)
			p->size = (uint32_t)blk.length;
		return true;
	}
	return piece_program(x, ops, n, end_off, p);
}

void dwv_locexpr(struct gs_dwarf *d, Dwarf_Attribute *attr, Dwarf_Die *scope_fn, uint64_t pc,
		 const Dwarf_Op *ops, size_t n, struct gs_var_loc *out)
{
	struct lx *x = calloc(1, sizeof(*x));
	struct gs_loc_piece pieces[MAX_PIECES], *v;
	uint32_t np = 0;
	size_t lo = 0;
	bool any = false;

	if (!x)
		return;
	x->d = d;
	x->attr = attr;
	x->scope_fn = scope_fn;
	x->pc = pc;
	for (size_t i = 0; i <= n; i++) {
		bool split = i < n && (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece);
		struct gs_loc_piece p = { 0 };

		if (!split && (i < n || (lo == n && np)))
			continue;
		if (np == MAX_PIECES) {
			lx_refuse(x, GS_LOC_WHY_TOO_COMPLEX);
			break;
		}
		if (split && ops[i].atom == DW_OP_bit_piece) {
			/* whole bytes at bit 0 are a piece; other bit pieces are not
			 * addressable bytes */
			if (ops[i].number % 8 || ops[i].number2 || !ops[i].number) {
				lx_refuse(x, GS_LOC_WHY_UNSUPPORTED);
				break;
			}
			p.size = (uint32_t)(ops[i].number / 8);
		} else if (split) {
			p.size = ops[i].number > UINT32_MAX ? UINT32_MAX : (uint32_t)ops[i].number;
		}
		if (!piece(x, ops + lo, i - lo, i < n ? ops[i].offset : UINT64_MAX, &p))
			break;
		pieces[np++] = p;
		any |= p.kind != GS_LOC_UNAVAILABLE;
		lo = i + 1;
	}
	if (x->why || !any) {
		/* a more precise reason than "unsupported" replaces it */
		if (x->why && x->why != GS_LOC_WHY_UNSUPPORTED)
			out->why = x->why;
		free(x);
		return;
	}
	v = dwv_alloc(d, np * sizeof(*v));
	if (!v) {
		free(x);
		return;
	}
	memcpy(v, pieces, np * sizeof(*v));
	out->pieces = v;
	out->npieces = np;
	out->why = GS_LOC_WHY_NONE;
	out->entry_value = x->entry_value;
	out->implicit_pointer = x->implicit_pointer && np == 1;
	free(x);
}
