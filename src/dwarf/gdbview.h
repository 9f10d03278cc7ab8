/* gdb's view of a compilation unit, for probe addresses that equal gdb's
 * `break` locations: the line tables as gdb 13 builds them from the line
 * program (gdbline.c), the unit's functions and the facts that decide
 * whether gdb skips a prologue (gdbunit.c), and the rules themselves
 * (breakaddr.c). Private to the dwarf layer. */
#ifndef GS_DWARF_GDBVIEW_H
#define GS_DWARF_GDBVIEW_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>

struct Elf;

/* One row gdb keeps (a `linetable_entry`): line 0 ends a run. */
struct gv_row {
	uint64_t pc;
	int line;
	bool stmt, prologue_end;
	uint32_t order; /* position when recorded: the sort is stable */
};

/* A source file's table (gdb's subfile, then symtab), sorted by pc with a
 * line-0 row first among rows at one pc. */
struct gv_file {
	const char *name; /* dwarf_linesrc's path: the file's identity */
	struct gv_row *v;
	size_t n, cap;
};

/* One range of a function gdb makes a block of (a named subprogram with
 * code): entry is the block's entry pc (its low_pc, or the start of its
 * first listed range), end the end of its last byte over every range. */
struct gv_fn {
	uint64_t lo, hi;
	uint64_t entry, end;
	Dwarf_Off die;
};

enum gv_producer { GV_OTHER, GV_GCC, GV_LLVM };

struct gv_unit {
	Dwarf_Off off;   /* of the unit's DIE */
	uint64_t low, high; /* the unit's lowest and past-highest address */
	struct gv_file *files;
	size_t nfiles, fcap;
	struct gv_fn *fns; /* by lo */
	size_t nfns, fncap;
	unsigned version;    /* of the unit's DWARF */
	enum gv_producer producer;
	int gcc_major, gcc_minor;
	bool has_loclist;    /* a variable or parameter located by a list */
	bool locations_valid; /* gcc >= 4.5 and has_loclist: gdb does not skip prologues */
	bool asm_lang;       /* DW_LANG_Mips_Assembler: gdb stops at the entry */
	bool valid_known;    /* locations_valid is known */
	bool walked;         /* fns and has_loclist are known */
};

/* The units one resolution looked at, built once each, and the code
 * bytes the prologue analyzer reads (the module's ELF: DWARF address +
 * bias is its address). */
struct gv_view {
	Dwarf *dw;
	struct Elf *code;
	uint64_t bias;
	struct gv_unit **units;
	size_t n, cap;
};

/* What gdb's find_pc_line answers: the row holding pc (line 0: none),
 * where it starts and where the next row starts, and its file. */
struct gv_sal {
	uint64_t pc, end;
	int line;
	int file; /* index into the unit's files, -1: none */
};

void gv_view_init(struct gv_view *v, Dwarf *dw, struct Elf *code, uint64_t bias);
void gv_view_free(struct gv_view *v);

/* gdbunit.c: the unit holding DWARF address pc, its line tables and
 * whether its locations are valid known (NULL: no unit has pc, or out of
 * memory with *rc = -ENOMEM). Its functions wait for gv_unit_walk. */
struct gv_unit *gv_unit_at(struct gv_view *v, uint64_t pc, int *rc);
/* The unit of cudie with its line tables only (not walked yet). */
struct gv_unit *gv_unit_of(struct gv_view *v, Dwarf_Die *cudie, int *rc);
/* Reads the unit's functions (a walk of its DIEs, once): before gv_fn_at,
 * gv_in_inlined, gv_block_at. 0 or -ENOMEM. */
int gv_unit_walk(struct gv_view *v, struct gv_unit *u);
/* The function block (of u) whose range holds pc, or NULL. */
const struct gv_fn *gv_fn_at(const struct gv_unit *u, uint64_t pc);
/* Whether pc is in an inlined call (an inlined_subroutine gdb makes a
 * block of) inside the function fn. */
bool gv_in_inlined(struct gv_view *v, const struct gv_fn *fn, uint64_t pc);
/* block_for_pc: the innermost block of u holding pc (a function, an
 * inline instance, a lexical block with symbols) as its DIE's offset;
 * the unit's own offset outside every function. */
Dwarf_Off gv_block_at(struct gv_view *v, const struct gv_unit *u, uint64_t pc);
/* gdb's block of an inline instance: false when gdb makes none (no call
 * site, no name, no code); else its entry pc. */
bool gv_inline_entry(Dwarf_Die *inst, uint64_t *entry);
/* The same for a subprogram: entry and the end of its range holding it. */
bool gv_func_entry(Dwarf_Die *fn, uint64_t *entry, uint64_t *end);

/* gdbline.c: the tables of u from the unit's line program (0 or -ENOMEM;
 * a unit without one has no files). */
int gv_lines_build(struct gv_unit *u, Dwarf_Die *cudie);
void gv_lines_free(struct gv_unit *u);
/* find_pc_sect_line (not "notcurrent"). */
struct gv_sal gv_find_line(const struct gv_unit *u, uint64_t pc);

/* breakaddr.c: where gdb's `break` stops (DWARF addresses, ELF address
 * - bias). gv_break_at: for a function, an inline copy or a symbol
 * entered at entry (gv_func_entry, gv_inline_entry, or the symbol's
 * address with its range in symbol: what decides when no DWARF function
 * holds entry). gv_break_line: for a `break FILE:LINE` row at addr,
 * moved past its function's prologue when it lies in it (*moved, and
 * *entry the function's entry). */
uint64_t gv_break_at(struct gv_view *v, uint64_t entry, const struct gv_fn *symbol);
uint64_t gv_break_line(struct gv_view *v, uint64_t addr, bool *moved, uint64_t *entry);

#endif /* GS_DWARF_GDBVIEW_H */
