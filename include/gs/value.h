/* Source-level values as data: where a variable lives at one probe PC (its
 * "access plan", compiled from a DWARF location description by the dwarf
 * layer) and its type (a gs_type tree, include/gs/context.h). The code
 * generator reads values from these alone; it never calls libdw.
 *
 * Everything a plan holds is known at compile time except the run-time
 * registers (pt_regs), a module's load bias (proc_module_offsets,
 * reference 5.11) and the hit thread's TLS block of a module
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
};

struct gs_var_loc {
	const struct gs_loc_piece *pieces; /* npieces > 1: a composite */
	uint32_t npieces;                  /* 0: optimized out, see why */
	uint8_t why;                       /* enum gs_loc_why */
	uint8_t section;    /* BASE_MODULE: 0 text, 1 rodata, 2 data, 3 bss */
	bool cfa_relative;  /* an address from the frame base over the CFA (a stack slot) */
	bool from_list;     /* chosen from a location list at compile time */
	uint64_t cookie;    /* BASE_MODULE, BASE_TLS: the module's cookie (reference 8.1) */
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
