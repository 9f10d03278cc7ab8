/* PLT stubs (docs/unwind.md, "PLT stubs"): the linker gives its whole .plt
 * one CFA expression for every 16-byte entry,
 *   DW_OP_breg7 (rsp) 8; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and;
 *   DW_OP_lit<K>; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * that is rsp + 8, plus 8 once the entry has pushed its relocation index
 * (pc & 15 >= K). Neither walker evaluates expressions, so that one is
 * recognised here and its range cut into plain rsp + 8 / rsp + 16 pieces. */
#include <dwarf.h>
#include <elfutils/libdw.h>

#include <gs/internal/unwind.h>

#include "unwind_int.h"

#define PLT_ENTRY 16u

/* The expression, operand for operand, with the literal K left open
 * (binutils writes lit11 for the lazy .plt, lit10 for the IBT one): libdw
 * has decoded the bytes into these ops, each with its operands. */
static const struct {
	uint8_t atom;
	uint64_t number;
} plt_ops[] = {
	{ DW_OP_breg7, 8 }, { DW_OP_breg16, 0 }, { DW_OP_lit15, 0 }, { DW_OP_and, 0 },
	{ 0 /* DW_OP_lit<K> */, 0 }, { DW_OP_ge, 0 }, { DW_OP_lit3, 0 }, { DW_OP_shl, 0 },
	{ DW_OP_plus, 0 },
};
enum { PLT_K_OP = 4, PLT_NOPS = sizeof(plt_ops) / sizeof(plt_ops[0]) };

/* K of ops[0..n) when they are the PLT expression; -1 otherwise. K of 0
 * or 16 and up would mean a single CFA for the whole entry: not the
 * linker's, so not taken. */
static int plt_threshold(const Dwarf_Op *ops, size_t n)
{
	if (n != PLT_NOPS)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (i == PLT_K_OP)
			continue;
		if (ops[i].atom != plt_ops[i].atom || ops[i].number != plt_ops[i].number)
			return -1;
	}
	if (ops[PLT_K_OP].atom <= DW_OP_lit0 || ops[PLT_K_OP].atom > DW_OP_lit15)
		return -1;
	return ops[PLT_K_OP].atom - DW_OP_lit0;
}

int uw_plt_threshold(Dwarf_Frame *frame, uint64_t lo, uint64_t hi)
{
	Dwarf_Op *ops;
	size_t n;

	if (hi <= lo || (hi - lo) / PLT_ENTRY > UW_PLT_MAX_ENTRIES)
		return -1;
	if (dwarf_frame_cfa(frame, &ops, &n) != 0)
		return -1;
	return plt_threshold(ops, n);
}

/* The module is mapped page-aligned, so pc & 15 at run time is the
 * link-time address's: the pieces can be cut here once. */
uint64_t uw_plt_piece(uint64_t addr, uint64_t hi, int k, int32_t *cfa_off)
{
	uint64_t entry = addr & ~(uint64_t)(PLT_ENTRY - 1), end;

	if ((addr & (PLT_ENTRY - 1)) < (uint64_t)k) {
		*cfa_off = 8;
		end = entry + (uint64_t)k;
	} else {
		*cfa_off = 16;
		end = entry + PLT_ENTRY;
	}
	return end < hi && end > addr ? end : hi;
}
