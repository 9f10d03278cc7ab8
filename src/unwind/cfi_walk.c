/* The rows of FDE ranges walked through libdw, into a CFI table being
 * built (struct uw_cfi_builder): each dwarf_cfi_addrframe() call gives the
 * row holding an address, its CFA / RA / rsp / rbp rules are converted to
 * the 56-byte wire row or dropped with a reason, and (cfi_xrow.c) to the
 * loop walker's full row; the linker's PLT expression row is cut into
 * plain rows, two per entry (cfi_plt.c). The build (cfi.c) walks .eh_frame's ranges and
 * then .debug_frame's here, and so does each half of a split walk
 * (cfi_split.c). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "unwind_int.h"
#include "base.h"

enum rule_kind { RULE_UNDEFINED, RULE_SAME, RULE_AT_CFA, RULE_VAL_CFA, RULE_REGISTER, RULE_EXPR };

struct rule {
	enum rule_kind kind;
	int64_t value; /* offset, or register number */
};

/* Reads libdw's location description for a register back into a rule:
 * libdw spells "at CFA + n" as call_frame_cfa, plus_uconst n, and adds
 * stack_value for "value CFA + n". */
static int register_rule(Dwarf_Frame *frame, int regno, struct rule *out)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0)
		return -1;
	out->value = 0;
	if (nops == 0) {
		out->kind = ops ? RULE_UNDEFINED : RULE_SAME;
		return 0;
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx) {
		out->kind = RULE_REGISTER;
		out->value = (int64_t)ops[0].number;
		return 0;
	}
	out->kind = RULE_EXPR;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return 0;
	size_t i = 1;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		out->value = (int64_t)ops[i++].number;
	if (i == nops)
		out->kind = RULE_AT_CFA;
	else if (i + 1 == nops && ops[i].atom == DW_OP_stack_value)
		out->kind = RULE_VAL_CFA;
	return 0;
}

/* Fills row's CFA from the frame's; -1 when it is rsp or rbp + off, else
 * the reason. */
static int convert_cfa(Dwarf_Frame *frame, struct gs_unwind_row *row)
{
	Dwarf_Op *cfa;
	size_t ncfa;

	if (dwarf_frame_cfa(frame, &cfa, &ncfa) != 0)
		return GS_CFI_DROP_CFA_EXPRESSION;
	if (ncfa != 1 || cfa[0].atom != DW_OP_bregx)
		return GS_CFI_DROP_CFA_EXPRESSION;
	if (cfa[0].number != GS_DWARF_REG_RBP && cfa[0].number != GS_DWARF_REG_RSP)
		return GS_CFI_DROP_CFA_REGISTER;
	row->cfa_register = (uint16_t)cfa[0].number;
	row->cfa_offset = (int64_t)cfa[0].number2;
	return -1;
}

/* Fills row's return address and rbp rules from the frame's; -1 when
 * exportable, else the reason. */
static int convert_rules(Dwarf_Frame *frame, int ra_reg, struct gs_unwind_row *row)
{
	struct rule ra, sp, bp;

	if (ra_reg < 0 || register_rule(frame, ra_reg, &ra) != 0 ||
	    register_rule(frame, GS_DWARF_REG_RSP, &sp) != 0 ||
	    register_rule(frame, GS_DWARF_REG_RBP, &bp) != 0)
		return GS_CFI_DROP_LIBDW_ERROR;
	if (ra.kind == RULE_UNDEFINED)
		return GS_CFI_DROP_RA_UNDEFINED;
	if (ra.kind != RULE_AT_CFA)
		return GS_CFI_DROP_RA_RULE;
	if (sp.kind == RULE_EXPR)
		return GS_CFI_DROP_SP_RULE;

	row->ra_kind = GS_RECOVERY_AT_CFA_OFFSET;
	row->ra_offset = ra.value;
	row->ra_register = (uint16_t)ra_reg;
	switch (bp.kind) {
	case RULE_AT_CFA:
	case RULE_VAL_CFA:
		row->rbp_kind = bp.kind == RULE_AT_CFA ? GS_RECOVERY_AT_CFA_OFFSET
						       : GS_RECOVERY_VAL_CFA_OFFSET;
		row->rbp_offset = bp.value;
		row->rbp_register = GS_DWARF_REG_RBP;
		return -1;
	case RULE_REGISTER:
		if (bp.value != GS_DWARF_REG_RBP && bp.value != GS_DWARF_REG_RSP &&
		    bp.value != GS_DWARF_REG_RIP)
			return GS_CFI_DROP_RBP_RULE;
		row->rbp_kind = GS_RECOVERY_REGISTER;
		row->rbp_register = (uint16_t)bp.value;
		return -1;
	case RULE_SAME:
	case RULE_UNDEFINED:
		row->rbp_kind = GS_RECOVERY_SAME_VALUE;
		row->rbp_register = GS_DWARF_REG_RBP;
		return -1;
	default:
		return GS_CFI_DROP_RBP_RULE;
	}
}

/* Fills row from the frame's rules; -1 when exportable, else the reason. */
static int convert_row(Dwarf_Frame *frame, int ra_reg, struct gs_unwind_row *row)
{
	int reason = convert_cfa(frame, row);

	return reason >= 0 ? reason : convert_rules(frame, ra_reg, row);
}

static void add_row(struct uw_cfi_builder *b, const struct gs_unwind_row *row)
{
	struct gs_cfi_table *t = b->t;

	if (base_grow((void **)&t->rows, &b->rows_cap, t->nrows + 1, sizeof(*t->rows))) {
		b->oom = true;
		return;
	}
	t->rows[t->nrows++] = *row;
	t->stats.exported++;
}

static void add_xrow(struct uw_cfi_builder *b, const struct gs_cfi_row *row)
{
	struct gs_cfi_table *t = b->t;

	if (base_grow((void **)&t->xrows, &b->xrows_cap, t->nxrows + 1, sizeof(*t->xrows))) {
		b->oom = true;
		return;
	}
	t->xrows[t->nxrows++] = *row;
	t->stats.xexported++;
	t->stats.signal_rows += (row->flags & GS_CFI_ROW_SIGNAL) != 0;
}

void uw_cfi_add_dropped(struct uw_cfi_builder *b, uint64_t lo, uint64_t hi, int reason)
{
	struct gs_cfi_table *t = b->t;

	if (lo >= hi)
		return;
	if (t->ndropped && t->dropped[t->ndropped - 1].pc_end == lo &&
	    t->dropped[t->ndropped - 1].reason == reason) {
		t->dropped[t->ndropped - 1].pc_end = hi;
		return;
	}
	if (base_grow((void **)&t->dropped, &b->dropped_cap, t->ndropped + 1, sizeof(*t->dropped))) {
		b->oom = true;
		return;
	}
	/* zeroed whole: the padding goes into the cache file as it is */
	memset(&t->dropped[t->ndropped], 0, sizeof(*t->dropped));
	t->dropped[t->ndropped].pc_start = lo;
	t->dropped[t->ndropped].pc_end = hi;
	t->dropped[t->ndropped++].reason = (uint8_t)reason;
}

void uw_cfi_drop(struct uw_cfi_builder *b, uint64_t lo, uint64_t hi, int reason)
{
	b->t->stats.dropped[reason]++;
	uw_cfi_add_dropped(b, lo, hi, reason);
}

/* The row [lo, hi) of frame, converted twice: the reference's row and the
 * loop walker's, each added or dropped with its reason. */
static void add_frame_row(struct uw_cfi_builder *b, Dwarf_Frame *frame, int ra_reg, uint64_t lo,
			  uint64_t hi, bool signal)
{
	struct gs_unwind_row row = { 0 };
	struct gs_cfi_row xrow = { 0 };
	int reason = convert_row(frame, ra_reg, &row);
	int xreason = uw_convert_xrow(frame, ra_reg, &xrow);

	if (xreason >= 0) {
		b->t->stats.xdropped[xreason]++;
	} else {
		xrow.pc_start = lo;
		xrow.pc_end = hi;
		xrow.flags = signal ? GS_CFI_ROW_SIGNAL : 0;
		add_xrow(b, &xrow);
	}
	if (reason >= 0) {
		uw_cfi_drop(b, lo, hi, reason);
	} else {
		row.pc_start = lo;
		row.pc_end = hi;
		add_row(b, &row);
	}
}

/* A PLT row (cfi_plt.c) [lo, hi) as plain rows, two per 16-byte entry:
 * every rule but the CFA is the row's, converted once; each piece has its
 * own CFA, rsp + 8 or rsp + 16. Each piece after the first counts as one
 * more row read. false, adding nothing, when another rule cannot be
 * exported by either walker: the row is then dropped as it stands. */
static bool add_plt_rows(struct uw_cfi_builder *b, Dwarf_Frame *frame, int ra_reg, uint64_t lo,
			 uint64_t hi, int k, bool signal)
{
	struct gs_unwind_row row;
	struct gs_cfi_row xrow;
	uint64_t end;

	/* zeroed whole: the padding goes into the cache file as it is */
	memset(&row, 0, sizeof(row));
	memset(&xrow, 0, sizeof(xrow));
	row.cfa_register = GS_DWARF_REG_RSP;
	xrow.rules.cfa.kind = GS_BT_CFA_REG_OFF;
	xrow.rules.cfa.reg = GS_DWARF_REG_RSP;
	if (convert_rules(frame, ra_reg, &row) >= 0 || uw_convert_xrules(frame, ra_reg, &xrow) >= 0)
		return false;
	xrow.flags = signal ? GS_CFI_ROW_SIGNAL : 0;
	for (uint64_t addr = lo; addr < hi && !b->oom; addr = end) {
		int32_t off;

		end = uw_plt_piece(addr, hi, k, &off);
		b->t->stats.rows += addr != lo;
		row.pc_start = xrow.pc_start = addr;
		row.pc_end = xrow.pc_end = end;
		row.cfa_offset = off;
		xrow.rules.cfa.off = off;
		add_row(b, &row);
		add_xrow(b, &xrow);
	}
	return true;
}

/* Walks the rows of one FDE range: each dwarf_cfi_addrframe() call gives
 * the row holding addr and, through dwarf_frame_info(), where it ends.
 * libdw answers for an address with any FDE covering it, so addresses a
 * corrupt FDE covers are never asked about: dropped as corrupt. */
static void walk_range(struct uw_cfi_builder *b, Dwarf_CFI *cfi, struct mf_fde_range range)
{
	uint64_t addr = range.lo;

	if (range.lo >= range.hi) {
		b->t->stats.rows++;
		uw_cfi_drop(b, range.lo, range.hi, GS_CFI_DROP_EMPTY_RANGE);
		return;
	}
	while (addr < range.hi && !b->oom) {
		const struct mf_fde_range *zone = mf_zone_after(b->zones, b->nzones, addr);
		Dwarf_Frame *frame = NULL;
		Dwarf_Addr start, end;
		bool signal = false;
		int ra_reg, plt_k;

		b->t->stats.rows++;
		if (zone && zone->lo <= addr) { /* the zone's own dropped range covers it */
			b->t->stats.dropped[GS_CFI_DROP_CORRUPT]++;
			addr = zone->hi < range.hi ? zone->hi : range.hi;
			continue;
		}
		b->t->stats.steps += range.ops;
		if (dwarf_cfi_addrframe(cfi, addr, &frame) != 0) {
			uw_cfi_drop(b, addr, range.hi, GS_CFI_DROP_LIBDW_ERROR);
			return;
		}
		ra_reg = dwarf_frame_info(frame, &start, &end, &signal);
		if (ra_reg < 0 || end <= addr) {
			free(frame);
			uw_cfi_drop(b, addr, range.hi, GS_CFI_DROP_LIBDW_ERROR);
			return;
		}
		if (end > range.hi)
			end = range.hi;
		if (zone && end > zone->lo)
			end = zone->lo;
		plt_k = uw_plt_threshold(frame, addr, end);
		if (plt_k < 0 || !add_plt_rows(b, frame, ra_reg, addr, end, plt_k, signal))
			add_frame_row(b, frame, ra_reg, addr, end, signal);
		free(frame);
		addr = end;
	}
}

void uw_cfi_walk(struct uw_cfi_builder *b, Dwarf_CFI *cfi, const struct mf_fde_range *v, size_t n)
{
	for (size_t i = 0; i < n && !b->oom; i++)
		walk_range(b, cfi, v[i]);
}
