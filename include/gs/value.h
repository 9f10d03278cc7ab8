/* Source-level values as data: where a variable lives at one probe PC (its
 * "access plan", compiled from a DWARF location description by the dwarf
 * layer) and its type (a gs_type tree, include/gs/context.h). The code
 * generator reads values from these alone; it never calls libdw.
 *
 * Everything a plan holds is known at compile time except the run-time
 * registers (pt_regs), a module's load bias (proc_module_offsets) and the
 * hit thread's TLS block of a module
 * (proc_module_tls and the thread pointer). The probe PC's CFA is folded in at compile time: a
 * DW_OP_fbreg over DW_OP_call_frame_cfa becomes "rsp + k" or "rbp + k". */
#ifndef GS_VALUE_H
#define GS_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include <gs/context.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_loc_kind {
	GS_LOC_UNAVAILABLE = 0, /* this piece has no value at the PC */
	GS_LOC_MEMORY,          /* in user memory at address base + offset */
	GS_LOC_REGISTER,        /* in DWARF register `reg`, its low bytes */
	GS_LOC_VALUE,           /* the value is base + offset itself
				 * (DW_OP_stack_value) */
	GS_LOC_IMPLICIT,        /* these constant bytes (DW_OP_implicit_value,
				 * a constant DW_OP_stack_value) */
};

enum gs_loc_base {
	GS_LOC_BASE_NONE = 0, /* offset alone, an absolute number */
	GS_LOC_BASE_REG,      /* pt_regs register `reg` (DWARF 0..16) at the probe */
	GS_LOC_BASE_MODULE,   /* the load bias of gs_var_loc.cookie's module:
			       * offset is a link-time address (DW_OP_addr) */
	GS_LOC_BASE_TLS,      /* the hit thread's TLS block of gs_var_loc.cookie's
			       * module: offset is inside it (DW_OP_form_tls_address,
			       * DW_OP_GNU_push_tls_address); found at run time from
			       * the thread pointer (docs/tls.md) */
	GS_LOC_BASE_PROGRAM,  /* the result of gs_loc_piece.prog, run at the probe */
};

/* A location program: a DWARF expression that does not fold into
 * "base + offset" (registers combined, a deref inside, branches, typed
 * operations, an entry value from the caller's call site), lowered by the
 * dwarf layer to a small stack machine over 64-bit numbers. The dwarf
 * layer validates it: the stack depth before every operation is known and
 * at most GS_LOC_PROG_MAX_DEPTH, jumps go forward, registers are pt_regs
 * ones; the code generator refuses a program that breaks this. */
#define GS_LOC_PROG_MAX_OPS 256
#define GS_LOC_PROG_MAX_DEPTH 8

enum gs_lop {
	GS_LOP_NOP = 0,
	GS_LOP_CONST,   /* push arg */
	GS_LOP_REG,     /* push pt_regs register `reg` + arg */
	GS_LOP_MODULE,  /* push the module's load bias + arg (a link-time address) */
	GS_LOP_DEREF,   /* pop an address, push the `size` bytes there, extended */
	GS_LOP_ADD,     /* binary: pop b, pop a, push a OP b */
	GS_LOP_SUB,
	GS_LOP_MUL,
	GS_LOP_DIV,     /* b == 0: the value's error (gdb: division by zero) */
	GS_LOP_MOD,
	GS_LOP_AND,
	GS_LOP_OR,
	GS_LOP_XOR,
	GS_LOP_SHL,
	GS_LOP_SHR,
	GS_LOP_SHRA,
	GS_LOP_EQ,
	GS_LOP_NE,
	GS_LOP_LT,
	GS_LOP_LE,
	GS_LOP_GT,
	GS_LOP_GE,
	GS_LOP_NEG,     /* unary: the top */
	GS_LOP_NOT,
	GS_LOP_ABS,
	GS_LOP_CONVERT, /* the top to `size` bytes, extended */
	GS_LOP_PICK,    /* push a copy of the entry arg below the top (0: dup) */
	GS_LOP_DROP,
	GS_LOP_SWAP,
	GS_LOP_ROT,     /* a b c -> c a b (DW_OP_rot) */
	GS_LOP_BRA,     /* pop; non-zero: go to op arg */
	GS_LOP_SKIP,    /* go to op arg */
	GS_LOP_FAIL,    /* the value is unavailable here (no call site matched) */
};

#define GS_LOPF_SIGNED 0x1 /* extend by sign; DIV, MOD, SHR and comparisons signed */

struct gs_loc_op {
	uint8_t code;  /* enum gs_lop */
	uint8_t reg;   /* REG: DWARF register 0..GS_DWARF_REG_MAX */
	uint8_t size;  /* DEREF: bytes read (1..8); arithmetic, CONVERT: the
			* result's bytes (0 or 8: 64 bits, DWARF's generic type) */
	uint8_t flags; /* GS_LOPF_* */
	uint8_t depth; /* stack entries before this op */
	int64_t arg;
};

struct gs_loc_prog {
	const struct gs_loc_op *ops;
	uint16_t nops;
	uint8_t max_depth;  /* the deepest the stack gets */
	uint8_t has_module; /* a MODULE op: the module's bias is needed */
};

/* One piece of a value: the whole value when the location has one piece,
 * else `size` bytes of it, in order (DW_OP_piece). */
struct gs_loc_piece {
	uint8_t kind;   /* enum gs_loc_kind */
	uint8_t base;   /* enum gs_loc_base, for MEMORY and VALUE */
	uint8_t reg;    /* REGISTER: the register; base REG: the base register */
	uint32_t size;  /* bytes; 0 in a one-piece location: the type's size */
	int64_t offset;
	const uint8_t *bytes; /* IMPLICIT: size bytes (little-endian) */
	const struct gs_loc_prog *prog; /* base PROGRAM: computes the address
					 * (MEMORY) or the value (VALUE) */
};

/* Why a location has no value at the PC (gs_var_loc.npieces == 0). */
enum gs_loc_why {
	GS_LOC_WHY_NONE = 0,
	GS_LOC_WHY_NO_LOCATION,  /* no DW_AT_location (or DW_AT_const_value) */
	GS_LOC_WHY_NOT_AT_PC,    /* a location list with no entry covering the PC */
	GS_LOC_WHY_ENTRY_VALUE,  /* DW_OP_entry_value: the caller's value, unknown here */
	GS_LOC_WHY_UNSUPPORTED,  /* an operation this reader does not compile */
	GS_LOC_WHY_NO_CFA,       /* frame base is the CFA, and the PC's CFI row has no
				  * register + offset CFA */
	/* a thread-local (docs/tls.md), decided by the runtime: */
	GS_LOC_WHY_TLS_NO_THREAD_POINTER, /* the kernel's BTF does not say where the
					   * thread pointer is */
	GS_LOC_WHY_TLS_NO_LOADER,         /* the process has no glibc dynamic linker
					   * (static, or another libc): no module ids */
	GS_LOC_WHY_NO_CALL_SITE, /* DW_OP_entry_value, and no call site of the module
				  * calls this function with the parameter's value */
	GS_LOC_WHY_TOO_COMPLEX,  /* a DWARF expression past GS_LOC_PROG_MAX_OPS /
				  * MAX_DEPTH, or a backward branch */
};

struct gs_var_loc {
	const struct gs_loc_piece *pieces; /* npieces > 1: a composite */
	uint32_t npieces;                  /* 0: optimized out, see why */
	uint8_t why;                       /* enum gs_loc_why */
	uint8_t section;    /* BASE_MODULE: 0 text, 1 rodata, 2 data, 3 bss */
	bool cfa_relative;  /* an address from the frame base over the CFA (a stack slot) */
	bool from_list;     /* chosen from a location list at compile time */
	bool entry_value;   /* a program recovers a DW_OP_entry_value from the
			     * caller's call site at run time */
	bool implicit_pointer; /* DW_OP_implicit_pointer: a pointer with no
				* address, gdb's <synthetic pointer> */
	uint64_t cookie;    /* BASE_MODULE, BASE_TLS: the module's cookie */
};

enum gs_var_scope {
	GS_SCOPE_PARAM = 0,  /* formal parameter (of the function or an inlined call) */
	GS_SCOPE_LOCAL,      /* local of a block covering the PC */
	GS_SCOPE_STATIC,     /* file-static of the PC's compilation unit */
	GS_SCOPE_GLOBAL,     /* external variable (of this CU or another CU of the module) */
};

/* A variable visible at a PC. Owned by the dwarf layer (struct gs_dwarf);
 * valid until gs_dwarf_free(). */
struct gs_var {
	const char *name;
	const struct gs_type *type;
	struct gs_var_loc loc;
	uint8_t scope;         /* enum gs_var_scope */
	uint16_t depth;        /* 0: innermost scope; CU-level and module names
				* come after every block */
	const char *decl_file; /* NULL when DWARF does not say */
	uint32_t decl_line;
};

#ifdef __cplusplus
}
#endif

#endif /* GS_VALUE_H */
