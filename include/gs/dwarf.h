/* Source-level names of one module at a probe PC, from its DWARF (libdw):
 * the variables visible there with their types and access plans
 * (include/gs/value.h), types by name for cast(), and the listings the CLI
 * shows (`-l`, `--list-vars`). Never emits instructions and opens no file:
 * the caller opens the module and its separate debug file and hands over
 * the Dwarf handle (and the ELF holding .eh_frame, for the CFA).
 *
 * Reads DWARF 2-5: .debug_loc and .debug_loclists, .debug_addr,
 * .debug_ranges and .debug_rnglists, .debug_types type units. Only the CU
 * covering a PC is read when a scope is asked for; module globals of other
 * CUs are indexed lazily, CU by CU, until a name is found. */
#ifndef GS_DWARF_H
#define GS_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/error.h>
#include <gs/value.h>

#ifdef __cplusplus
extern "C" {
#endif

struct Dwarf; /* libdw's handle (typedef struct Dwarf Dwarf) */
struct Elf;   /* libelf's handle */

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_dwarf_opts {
	size_t sz;        /* sizeof(struct gs_dwarf_opts) */
	uint64_t cookie;  /* the module's cookie, put in DW_OP_addr plans */
	/* The ELF whose .eh_frame gives the CFA at a PC (the module itself
	 * when its DWARF is in a separate file). NULL: the Dwarf's own ELF,
	 * then its .debug_frame. */
	struct Elf *cfi_elf;
	/* Asked before libdw's CFI interpreter runs at a PC (the CFA a frame
	 * base names), for the .eh_frame of cfi_elf (debug_frame false) or
	 * the Dwarf's .debug_frame: false keeps libdw away from CFI that
	 * failed its checks (a hostile file can make it allocate gigabytes:
	 * docs/unwind.md), and that CFI is then not read for the PC. gstrace
	 * answers from each section's checks; NULL: always run. */
	bool (*cfi_allowed)(void *arg, bool debug_frame, uint64_t pc);
	void *cfi_allowed_arg;
};

struct gs_dwarf;

/* A reader of dw in *out (dw and opts->cfi_elf borrowed: the caller ends
 * them after gs_dwarf_free(), which accepts NULL). opts may be NULL. 0, or
 * -EINVAL (dw NULL, bad options) / -ENOMEM with err filled. One thread at
 * a time: lookups fill caches. */
GS_API int gs_dwarf_new(struct Dwarf *dw, const struct gs_dwarf_opts *opts, struct gs_dwarf **out,
			struct gs_error *err);
GS_API void gs_dwarf_free(struct gs_dwarf *d);

/* The names visible at a PC (link-time address), innermost first:
 * parameters and locals of the blocks and inlined calls covering the PC,
 * up to the innermost function (inlined or not), then the variables of
 * the PC's CU (statics and globals it defines or declares). A name is
 * listed once: an inner one shadows outer ones, as in C. */
struct gs_dwarf_scope {
	uint64_t pc;
	const char *function;  /* innermost function (inlined or not), or NULL */
	const char *cu_name;   /* the CU's DW_AT_name */
	const struct gs_var *vars;
	size_t nvars;
	size_t nlocals;        /* vars[0 .. nlocals) are parameters and locals */
};

/* 0 and *out (owned by d, valid until gs_dwarf_free); -ENOENT when no CU
 * covers pc, -ENOMEM, with err filled. The same pc twice gives the same
 * scope. */
GS_API int gs_dwarf_scope_at(struct gs_dwarf *d, uint64_t pc, const struct gs_dwarf_scope **out,
			     struct gs_error *err);

/* The names of `function`'s frame at pc, as gdb shows them stopped at
 * `break function`: where pc is the first instruction of a call inlined
 * into `function` (a C++ method's first statement calling size()), the
 * parameters of `function` and the locals of its blocks holding pc come
 * first, then the inlined callee's own names, then the CU's. Where pc is
 * not inside such a call, gs_dwarf_scope_at()'s scope. `function` as a
 * trace names it (a C++ name may be qualified). Owned by d. */
GS_API int gs_dwarf_frame_scope_at(struct gs_dwarf *d, uint64_t pc, const char *function,
				   const struct gs_dwarf_scope **out, struct gs_error *err);

/* `name` as seen from scope s: s's own names, then the module's globals
 * (by the lazy index). 0 and *out (owned by d); -ENOENT with a message
 * naming the function when nothing of that name is visible. s may be NULL
 * (globals). */
GS_API int gs_dwarf_lookup(struct gs_dwarf *d, const struct gs_dwarf_scope *s, const char *name,
			   const struct gs_var **out, struct gs_error *err);

/* A type by its C spelling, for cast(): "int", "unsigned long",
 * "struct point", "union u", "enum color", a typedef name, any of these
 * followed by '*'s, and the script's u8..u64 / i8..i64. Searched in s's CU
 * (s may be NULL) first, then the module. 0 and *out (owned by d, valid
 * until gs_dwarf_free); -ENOENT with a message when unknown, -EINVAL for
 * a spelling too long or a type without a value (void, an array of
 * unknown size). */
GS_API int gs_dwarf_find_type(struct gs_dwarf *d, const struct gs_dwarf_scope *s,
			      const char *spelling, const struct gs_type **out,
			      struct gs_error *err);

/* ---- listings -------------------------------------------------------------- */

struct gs_dwarf_function {
	const char *name;
	uint64_t addr;        /* entry (low_pc / DW_AT_entry_pc, or the symbol) */
	const char *file;     /* NULL when only a symbol names it */
	uint32_t line;
	bool from_symbol;     /* an ELF symbol without DWARF */
	bool inlined_only;    /* DWARF knows it only as inlined copies */
};

/* Functions whose name matches a glob (fnmatch), DWARF subprograms first
 * then ELF symbols of `symtab_elf` (may be NULL) DWARF does not name; by
 * name. Walks the whole DWARF: for the CLI's listing, not the hot path.
 * d may be NULL (a module without DWARF: its symbols only). 0 with *out
 * and *n (none matching: NULL and 0), or -ENOMEM. Free *out with free();
 * the strings belong to d (to symtab_elf when d is NULL). */
GS_API int gs_dwarf_list_functions(struct gs_dwarf *d, struct Elf *symtab_elf, const char *glob,
				   struct gs_dwarf_function **out, size_t *n, struct gs_error *err);
/* The same listing with the DWARF functions taken from the subprogram DIEs
 * at offs (noffs of them, offsets in d's .debug_info, e.g. those a
 * function-name index gives for the names matching glob) instead of a walk
 * of every unit; a DIE that is no function matching glob is skipped. */
GS_API int gs_dwarf_list_functions_at(struct gs_dwarf *d, struct Elf *symtab_elf,
				      const char *glob, const uint64_t *offs, size_t noffs,
				      struct gs_dwarf_function **out, size_t *n,
				      struct gs_error *err);

/* Where a value lives, for people: "register rdi", "stack rsp-12" (the
 * CFA folded in), "global 0x4010 (.data)", "composite: [0..4) register
 * rax [4..8) register rdx", "constant", "optimized out (entry value)",
 * with " (location list)" when a list entry was chosen. Returns the length
 * it wanted (snprintf-like). */
GS_API size_t gs_dwarf_describe_location(const struct gs_var_loc *loc, char *buf, size_t size);

/* Name of a DWARF register 0..16 ("rdi"); "r?" otherwise. A constant
 * string. */
GS_API const char *gs_dwarf_reg_name(unsigned reg);

#ifdef __cplusplus
}
#endif

#endif /* GS_DWARF_H */
