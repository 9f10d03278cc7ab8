/* The loop walker's conversion of one CFI row (docs/unwind.md, "The loop
 * walker's rows"): every rule the bpf_loop walker evaluates, read back from
 * libdw's location descriptions: CFA = reg + off or *(reg + off)
 * (DW_OP_breg<N> off [; DW_OP_deref]), register rules at/val CFA + off, in
 * another register, or the expressions DW_OP_breg<N> off (DW_CFA_expression)
 * and DW_OP_breg<N> off; DW_OP_stack_value (DW_CFA_val_expression), for the
 * return address, rbp, rbx and r12-r15, on the registers the walk tracks. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "unwind_int.h"

/* The registers the walk carries from frame to frame: rbx, rbp, rsp,
 * r12-r15 and rip (the others are only known in frame 0). */
static bool tracked(uint64_t reg)
{
	return reg == GS_DWARF_REG_RBX || reg == GS_DWARF_REG_RBP || reg == GS_DWARF_REG_RSP ||
	       (reg >= GS_DWARF_REG_R12 && reg <= GS_DWARF_REG_RIP);
}

static bool fits_i32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* DW_OP_breg<N> off or DW_OP_bregx N off: *reg and *off; false otherwise. */
static bool breg(const Dwarf_Op *op, uint64_t *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

/* The CFA rule; -1 when usable, else the drop reason. */
static int cfa_rule(Dwarf_Frame *frame, struct gs_bt_rule *out)
{
	Dwarf_Op *ops;
	size_t n;
	uint64_t reg;
	int64_t off;

	if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0 || n > 2 || !breg(&ops[0], &reg, &off))
		return GS_CFI_DROP_CFA_EXPRESSION;
	if (n == 2 && ops[1].atom != DW_OP_deref)
		return GS_CFI_DROP_CFA_EXPRESSION;
	if (!tracked(reg) || reg == GS_DWARF_REG_RIP)
		return GS_CFI_DROP_CFA_REGISTER;
	if (!fits_i32(off))
		return GS_CFI_DROP_CFA_EXPRESSION;
	*out = (struct gs_bt_rule){ .off = (int32_t)off, .reg = (uint8_t)reg,
		.kind = n == 2 ? GS_BT_CFA_REG_DEREF : GS_BT_CFA_REG_OFF };
	return -1;
}

/* A register's rule from libdw's description (dwarf_frame_register): no
 * ops is same value (ops NULL) or undefined; "call_frame_cfa [plus_uconst
 * n] [stack_value]" is at/val CFA + n; "regx r" another register; an
 * expression comes as "call_frame_cfa <ops> [stack_value]" (libdw pushes
 * the CFA first, as DWARF says). false when outside the forms above. */
static bool reg_rule(Dwarf_Frame *frame, int regno, struct gs_bt_rule *out)
{
	Dwarf_Op mem[3], *ops;
	size_t n, i = 0;
	bool value;
	uint64_t reg;
	int64_t off = 0;

	memset(out, 0, sizeof(*out));
	if (dwarf_frame_register(frame, regno, mem, &ops, &n) != 0)
		return false;
	if (n == 0) {
		out->kind = ops ? GS_RECOVERY_UNDEFINED : GS_RECOVERY_SAME_VALUE;
		return true;
	}
	if (n == 1 && ops[0].atom == DW_OP_regx) {
		out->kind = GS_RECOVERY_REGISTER;
		out->reg = (uint8_t)(ops[0].number <= 255 ? ops[0].number : 255);
		return tracked(ops[0].number);
	}
	value = ops[n - 1].atom == DW_OP_stack_value;
	if (value)
		n--;
	if (i < n && ops[i].atom == DW_OP_call_frame_cfa)
		i++;
	if (i == n || (i == 1 && ops[i].atom == DW_OP_plus_uconst)) { /* CFA [+ n] */
		if (i < n)
			off = (int64_t)ops[i++].number;
		if (i != n || !fits_i32(off))
			return false;
		out->kind = value ? GS_RECOVERY_VAL_CFA_OFFSET : GS_RECOVERY_AT_CFA_OFFSET;
		out->off = (int32_t)off;
		return true;
	}
	if (i + 1 != n || !breg(&ops[i], &reg, &off) || !tracked(reg) || !fits_i32(off))
		return false;
	out->kind = value ? GS_RECOVERY_VAL_EXPRESSION : GS_RECOVERY_EXPRESSION;
	out->reg = (uint8_t)reg;
	out->off = (int32_t)off;
	return true;
}

/* rsp's own rule must give the CFA, which the walk takes as the caller's
 * rsp: unspecified, CFA + 0 as a value, or (signal frames) the location
 * the CFA is read from. */
static bool sp_is_cfa(const struct gs_bt_rule *sp, const struct gs_bt_rule *cfa)
{
	switch (sp->kind) {
	case GS_RECOVERY_SAME_VALUE:
	case GS_RECOVERY_UNDEFINED:
		return true;
	case GS_RECOVERY_VAL_CFA_OFFSET:
		return sp->off == 0;
	case GS_RECOVERY_EXPRESSION:
		return cfa->kind == GS_BT_CFA_REG_DEREF && sp->reg == cfa->reg && sp->off == cfa->off;
	default:
		return false;
	}
}

int uw_convert_xrow(Dwarf_Frame *frame, int ra_reg, struct gs_cfi_row *row)
{
	int reason = cfa_rule(frame, &row->rules.cfa);

	return reason >= 0 ? reason : uw_convert_xrules(frame, ra_reg, row);
}

int uw_convert_xrules(Dwarf_Frame *frame, int ra_reg, struct gs_cfi_row *row)
{
	struct gs_bt_rules *r = &row->rules;
	struct gs_bt_rule sp;

	if (ra_reg < 0 || !reg_rule(frame, ra_reg, &r->ra))
		return ra_reg < 0 ? GS_CFI_DROP_LIBDW_ERROR : GS_CFI_DROP_RA_RULE;
	if (r->ra.kind == GS_RECOVERY_SAME_VALUE)
		return GS_CFI_DROP_RA_RULE;
	if (!reg_rule(frame, GS_DWARF_REG_RSP, &sp) || !sp_is_cfa(&sp, &r->cfa))
		return GS_CFI_DROP_SP_RULE;
	if (!reg_rule(frame, GS_DWARF_REG_RBP, &r->rbp))
		return GS_CFI_DROP_RBP_RULE;
	for (int i = 0; i < GS_BT_NSAVED; i++)
		if (!reg_rule(frame, gs_bt_saved_dwarf[i], &r->saved[i]))
			return GS_CFI_DROP_SAVED_RULE;
	return -1;
}

void gs_cfi_row_from_unwind_row(const struct gs_unwind_row *u, struct gs_cfi_row *out)
{
	memset(out, 0, sizeof(*out));
	out->pc_start = u->pc_start;
	out->pc_end = u->pc_end;
	out->rules.cfa = (struct gs_bt_rule){ .kind = GS_BT_CFA_REG_OFF,
		.reg = (uint8_t)(u->cfa_register < 255 ? u->cfa_register : 255),
		.off = (int32_t)u->cfa_offset };
	out->rules.ra = (struct gs_bt_rule){ .kind = u->ra_kind,
		.reg = (uint8_t)(u->ra_register < 255 ? u->ra_register : 255),
		.off = (int32_t)u->ra_offset };
	out->rules.rbp = (struct gs_bt_rule){ .kind = u->rbp_kind,
		.reg = (uint8_t)(u->rbp_register < 255 ? u->rbp_register : 255),
		.off = (int32_t)u->rbp_offset };
	for (int i = 0; i < GS_BT_NSAVED; i++)
		out->rules.saved[i].kind = GS_RECOVERY_SAME_VALUE;
}
