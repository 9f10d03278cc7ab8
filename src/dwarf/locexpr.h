/* The general DWARF expression compiler of the dwarf layer (locexpr.c) and
 * the entry-value recovery it calls (entry_value.c): a DWARF expression
 * becomes a location program (include/gs/value.h) whose stack depth before
 * every operation is known. Shared by the two files only. */
#ifndef GS_DWARF_LOCEXPR_H
#define GS_DWARF_LOCEXPR_H

#include "dwv_int.h"

/* The caller's frame, for a DW_AT_call_value evaluated at a call site: its
 * registers are the probe frame's as the callee's CFI row at the probe PC
 * says (same value, or saved at CFA + k), its stack pointer is the
 * callee's CFA. */
struct lx_caller {
	Dwarf_Frame *callee_row; /* the callee's CFI row at the probe PC */
	uint8_t cfa_reg;         /* the callee's CFA: cfa_reg + cfa_off */
	int64_t cfa_off;
	Dwarf_Die caller_fn;     /* the subprogram holding the call site */
	uint64_t return_pc;      /* link-time return address of the call */
};

struct lx {
	struct gs_dwarf *d;
	Dwarf_Attribute *attr;   /* the attribute the ops came from (operands
				  * in other sections: addrx, base types,
				  * entry-value blocks); NULL: none */
	Dwarf_Die *scope_fn;     /* the frame's subprogram (frame base) */
	uint64_t pc;             /* link-time probe PC */
	struct lx_caller *caller; /* NULL: the probe's frame */

	struct gs_loc_op ops[GS_LOC_PROG_MAX_OPS];
	uint16_t n;
	uint8_t depth, max_depth;
	uint8_t size[GS_LOC_PROG_MAX_DEPTH];  /* each entry's type: bytes (0: generic) */
	uint8_t sign[GS_LOC_PROG_MAX_DEPTH];
	bool dead;               /* after a skip: nothing falls through */
	uint8_t why;             /* set: the expression does not compile */
	bool entry_value;        /* an entry value was recovered */
	bool implicit_pointer;   /* the location is one DW_OP_implicit_pointer */
};

/* Emits one op at the current depth (`pops` entries consumed, `pushes`
 * produced); false (why set) past the limits. */
bool lx_emit(struct lx *x, struct gs_loc_op op, unsigned pops, unsigned pushes);
/* Pushes the value of DWARF register reg + addend in x's frame (the
 * probe's, or the caller's at a call site); _probe_reg: the probe's. */
bool lx_push_reg(struct lx *x, unsigned reg, int64_t addend);
bool lx_push_probe_reg(struct lx *x, unsigned reg, int64_t addend);
/* Pushes fn's DW_AT_frame_base at pc, in x's frame. */
bool lx_push_frame_base(struct lx *x, Dwarf_Die *fn, uint64_t pc);
/* Compiles ops[0..n) of one location piece onto x's stack (no pieces, no
 * register locations): the expression's value or address is on top. */
bool lx_compile(struct lx *x, const Dwarf_Op *ops, size_t n, Dwarf_Attribute *attr);
/* The same for the ops of one piece of a longer expression: a branch to
 * byte offset end_off (UINT64_MAX: past the last op) lands at the end. */
bool lx_compile_range(struct lx *x, const Dwarf_Op *ops, size_t n, uint64_t end_off);
/* Fails x: the expression does not compile, for `why`. */
bool lx_refuse(struct lx *x, uint8_t why);

/* What a call site says the value of: a register at the function's entry
 * (DW_OP_entry_value), or a parameter's DIE (DW_OP_GNU_parameter_ref). */
struct dwv_param {
	bool by_die;
	unsigned reg;
	Dwarf_Off die;
};

/* entry_value.c: pushes that value, from the call site at the run-time
 * return address (a FAIL op when none of the module's call sites of the
 * function matches). */
bool dwv_entry_value(struct lx *x, const struct dwv_param *key);
/* Pushes the caller's register reg + addend (x->caller set): where the
 * callee's CFI row at the probe PC says the callee left it. */
bool dwv_caller_reg(struct lx *x, unsigned reg, int64_t addend);

#endif /* GS_DWARF_LOCEXPR_H */
