/* Where the x86-64 System V ABI returns a value of a function's return
 * type (psABI 3.2.3), as the variable a return probe's $retval reads: its
 * eightbytes classified INTEGER come back in rax (and rdx), a type over 16
 * bytes (MEMORY) in the caller's buffer whose address rax returns; SSE and
 * x87 classes come back in registers a uprobe's pt_regs does not hold. */
#include <errno.h>
#include <stdio.h>

#include <gs/internal/dwarf.h>

/* The SysV classes of the eightbytes of t at offset off: 1 INTEGER, 2 SSE
 * (xmm registers, which pt_regs lacks); false for long double and the like. */
static bool classify(const struct gs_type *t, uint32_t off, uint8_t cls[2], unsigned depth)
{
	if (!t || depth > 16)
		return false;
	switch (t->kind) {
	case GS_TYPE_STRUCT:
	case GS_TYPE_UNION:
		for (uint32_t i = 0; i < t->nmembers; i++)
			if (!classify(t->members[i].type, off + t->members[i].offset, cls, depth + 1))
				return false;
		return true;
	case GS_TYPE_ARRAY:
		for (uint32_t i = 0; t->target && i < t->count; i++)
			if (!classify(t->target, off + i * t->target->byte_size, cls, depth + 1))
				return false;
		return true;
	case GS_TYPE_F32:
	case GS_TYPE_F64:
		cls[off / 8 & 1] |= 2;
		return true;
	default:
		if (!t->byte_size || t->byte_size > 8)
			return false;
		cls[off / 8 & 1] |= 1;
		return true;
	}
}

int dwv_retval_place(const struct gs_type *t, const char *fn, struct gs_var *var,
		     struct gs_loc_piece *pc, char *why, size_t why_size)
{
	uint8_t cls[2] = { 0, 0 };

	var->name = "$retval";
	var->type = t;
	var->loc.pieces = pc;
	if (t->byte_size > 16) {
		/* MEMORY class: the caller's buffer, whose address rax returns */
		pc[0] = (struct gs_loc_piece){ .kind = GS_LOC_MEMORY, .base = GS_LOC_BASE_REG,
					       .reg = 0 };
		var->loc.npieces = 1;
		return 0;
	}
	if (!classify(t, 0, cls, 0) || (cls[0] & 2) || (cls[1] & 2)) {
		snprintf(why, why_size, "$retval of %s is a %s, returned in %s, which a "
			 "uprobe does not see (pt_regs has the integer registers only); print "
			 "what the caller does with it instead", fn,
			 t->name, t->kind == GS_TYPE_F32 || t->kind == GS_TYPE_F64 ? "xmm0" :
			 "x87 or SSE registers");
		return -EINVAL;
	}
	pc[0] = (struct gs_loc_piece){ .kind = GS_LOC_REGISTER, .reg = 0,
				       .size = t->byte_size > 8 ? 8 : 0 };
	var->loc.npieces = 1;
	if (t->byte_size > 8) {
		pc[1] = (struct gs_loc_piece){ .kind = GS_LOC_REGISTER, .reg = 1,
					       .size = t->byte_size - 8 };
		var->loc.npieces = 2;
	}
	return 0;
}
