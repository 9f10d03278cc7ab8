/* The CFA instructions of a CIE or an FDE checked byte by byte before
 * libdw's interpreter runs them: libdw sizes its register array by the
 * largest register number it meets (one 7-byte FDE naming register
 * 0x07ffffff cost 7 s and 1 GB) and re-runs an FDE from its start for
 * every row, so the operands and the amount of work are bounded here. */
#include <dwarf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mf_int.h"

static const char *const scan_names[MF_CFA_NREASONS] = {
	[MF_CFA_OK] = "ok",
	[MF_CFA_BAD_OPCODE] = "an opcode outside DWARF 5 and the GNU x86-64 ones",
	[MF_CFA_TRUNCATED] = "an operand cut short by the end of the entry",
	[MF_CFA_BAD_REGISTER] = "a register number outside x86-64's DWARF registers",
	[MF_CFA_ROW_IN_CIE] = "a row-moving instruction in a CIE",
	[MF_CFA_STATE_DEPTH] = "remember_state nested too deep, or restore_state without one",
	[MF_CFA_LONG_EXPRESSION] = "a DWARF expression longer than any compiler writes",
	[MF_CFA_TOO_LONG] = "more instructions than the per-FDE budget",
	[MF_CFA_TOO_MUCH_WORK] = "more rows times instructions than the per-FDE budget",
};

const char *mf_cfa_scan_name(int reason)
{
	return reason >= 0 && reason < MF_CFA_NREASONS ? scan_names[reason] : "unknown";
}

static bool skip(const uint8_t **p, const uint8_t *end, uint64_t n)
{
	if ((uint64_t)(end - *p) < n)
		return false;
	*p += n;
	return true;
}

/* Bytes of a DW_EH_PE_* value of fixed size; 0 for LEB128, -1 unknown. */
static int encoded_size(int encoding, unsigned addr_size)
{
	switch (encoding & 0x0f) {
	case DW_EH_PE_absptr:
		return (int)addr_size;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		return 0;
	default:
		return -1;
	}
}

/* Reads a register operand: OK, or cut short, or not an x86-64 register. */
static int reg(const uint8_t **p, const uint8_t *end)
{
	uint64_t r;

	if (!mf_read_uleb(p, end, &r))
		return MF_CFA_TRUNCATED;
	return r <= MF_CFA_MAX_REGISTER ? MF_CFA_OK : MF_CFA_BAD_REGISTER;
}

/* The operands after an opcode (low six bits cleared for the primary
 * ones); rc is OK or a reason. */
static int operands(uint8_t op, const uint8_t **p, const uint8_t *end,
		    const struct mf_cfa_scan_in *in, struct mf_cfa_scan_out *out, unsigned *depth)
{
	uint64_t v;
	int rc, size;

	switch (op) {
	case DW_CFA_advance_loc:
	case DW_CFA_advance_loc1:
	case DW_CFA_advance_loc2:
	case DW_CFA_advance_loc4:
	case DW_CFA_set_loc:
		if (in->cie)
			return MF_CFA_ROW_IN_CIE; /* libdw refuses it there too */
		out->rows++;
		if (op == DW_CFA_advance_loc)
			return MF_CFA_OK;
		size = op == DW_CFA_advance_loc1 ? 1 : op == DW_CFA_advance_loc2 ? 2 :
		       op == DW_CFA_advance_loc4 ? 4 : encoded_size(in->fde_encoding, in->addr_size);
		if (size < 0)
			return MF_CFA_BAD_OPCODE;
		if (size == 0)
			return mf_read_uleb(p, end, &v) ? MF_CFA_OK : MF_CFA_TRUNCATED;
		return skip(p, end, (uint64_t)size) ? MF_CFA_OK : MF_CFA_TRUNCATED;
	case DW_CFA_offset: /* register in the opcode: below 64 */
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf: /* an SLEB128 reads as a ULEB128's bytes */
	case DW_CFA_GNU_args_size:
		return mf_read_uleb(p, end, &v) ? MF_CFA_OK : MF_CFA_TRUNCATED;
	case DW_CFA_restore:
	case DW_CFA_nop:
		return MF_CFA_OK;
	case DW_CFA_restore_extended:
	case DW_CFA_undefined:
	case DW_CFA_same_value:
	case DW_CFA_def_cfa_register:
		return reg(p, end);
	case DW_CFA_offset_extended:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_GNU_negative_offset_extended:
		rc = reg(p, end);
		if (rc == MF_CFA_OK && !mf_read_uleb(p, end, &v))
			rc = MF_CFA_TRUNCATED;
		return rc;
	case DW_CFA_register:
		rc = reg(p, end);
		return rc == MF_CFA_OK ? reg(p, end) : rc;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
	case DW_CFA_def_cfa_expression:
		if (op != DW_CFA_def_cfa_expression && (rc = reg(p, end)) != MF_CFA_OK)
			return rc;
		if (!mf_read_uleb(p, end, &v))
			return MF_CFA_TRUNCATED;
		if (v > MF_CFA_MAX_EXPRESSION)
			return (uint64_t)(end - *p) < v ? MF_CFA_TRUNCATED : MF_CFA_LONG_EXPRESSION;
		return skip(p, end, v) ? MF_CFA_OK : MF_CFA_TRUNCATED;
	case DW_CFA_remember_state:
		if (++*depth > MF_CFA_MAX_STATE_DEPTH)
			return MF_CFA_STATE_DEPTH;
		if (*depth > out->max_depth)
			out->max_depth = *depth;
		return MF_CFA_OK;
	case DW_CFA_restore_state:
		if (*depth == 0)
			return MF_CFA_STATE_DEPTH; /* libdw: invalid CFI */
		--*depth;
		return MF_CFA_OK;
	default:
		/* DW_CFA_MIPS_advance_loc8, DW_CFA_GNU_window_save (SPARC),
		 * vendor and unassigned opcodes: no x86-64 compiler emits them. */
		return MF_CFA_BAD_OPCODE;
	}
}

int mf_cfa_scan(const uint8_t *p, const uint8_t *end, const struct mf_cfa_scan_in *in,
		struct mf_cfa_scan_out *out)
{
	unsigned depth = 0;

	*out = (struct mf_cfa_scan_out){ 0 };
	while (p < end) {
		uint8_t op = *p++;
		int rc;

		if (++out->ops > MF_CFA_MAX_OPS)
			return MF_CFA_TOO_LONG;
		/* advance_loc, offset, restore: the operand (a register below
		 * 64, or a delta) is in the low six bits */
		if (op & 0xc0)
			op &= 0xc0;
		rc = operands(op, &p, end, in, out, &depth);
		if (rc != MF_CFA_OK)
			return rc;
	}
	return MF_CFA_OK;
}

int mf_cfa_scan_pair(const struct mf_cfa_scan_out *cie, const struct mf_cfa_scan_out *fde)
{
	uint64_t ops = (uint64_t)cie->ops + fde->ops;

	if (ops > MF_CFA_MAX_OPS)
		return MF_CFA_TOO_LONG;
	/* libdw runs the FDE's instructions from the start for each of its
	 * rows (the CIE's once: its state is cached). */
	if ((uint64_t)(fde->rows + 1) * fde->ops > MF_CFA_MAX_WORK)
		return MF_CFA_TOO_MUCH_WORK;
	return MF_CFA_OK;
}
