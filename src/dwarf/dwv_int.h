/* Internals of the dwarf layer: the module handle (struct gs_dwarf), its
 * arena, the type cache keyed by DIE, the lazy global index, and the
 * entry points the files of src/dwarf share. */
#ifndef GS_DWARF_DWV_INT_H
#define GS_DWARF_DWV_INT_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <gs/dwarf.h>
#include <gs/protocol.h>

#include "base.h"

/* Bump allocator: everything a gs_dwarf hands out lives until it is freed. */
struct dwv_callsites;

/* Pointer-keyed open hash (DIE address -> value). */
struct dwv_map {
	const void **keys;
	void **values;
	size_t cap, n;
};

/* Section of a module address for DW_OP_addr: the slot of
 * proc_module_offsets whose bias it takes (docs/unwind.md, "Map layouts"). */
struct dwv_section {
	uint64_t lo, hi;
	uint8_t code; /* 0 text, 1 rodata, 2 data, 3 bss */
};

/* name -> DIE of a global variable (or a type), by string hash. */
struct dwv_name {
	const char *name;
	Dwarf_Off die_off;   /* global DIE offset in .debug_info */
	uint32_t next;       /* chain, UINT32_MAX ends */
};

struct dwv_names {
	struct dwv_name *v;
	size_t n, cap;
	uint32_t *heads;
	size_t nheads;
};

/* Alias nodes (typedef, cv) and the node each copies, in the order they
 * were made: copied again once the outermost type is built. */
struct dwv_fixups {
	struct gs_type **t;
	const struct gs_type **from;
	size_t n, t_cap, from_cap; /* t and from grow apart: either may fail */
};

struct gs_dwarf {
	Dwarf *dw;
	Dwarf_CFI *cfi_eh;    /* from cfi_elf's .eh_frame (owned: dwarf_cfi_end) */
	Dwarf_CFI *cfi_debug; /* .debug_frame of dw (owned by dw) */
	bool (*cfi_allowed)(void *arg, bool debug_frame, uint64_t pc); /* NULL: allowed */
	void *cfi_allowed_arg;
	struct dwv_cfi_guard *guard; /* owned (dwv_modfile_dwarf), or NULL */
	uint64_t cookie;
	struct gs_arena *arena;
	struct dwv_section *sections;
	size_t nsections;

	struct dwv_map types;   /* Dwarf_Die.addr -> struct gs_type * */
	struct dwv_map building; /* struct gs_type * -> non-NULL while it is built */
	struct dwv_fixups fixups; /* typedef / cv nodes to copy again, in order */
	unsigned type_depth;

	struct dwv_map scopes;  /* pc (as a pointer-sized key) -> scope */
	struct dwv_map global_vars; /* DIE address -> gs_var of a module global */

	/* Globals and named types of CUs indexed so far (lazy, CU by CU). */
	struct dwv_names globals, type_names;
	Dwarf_Off index_next;   /* next CU offset to index */
	bool index_done;

	struct dwv_callsites *callsites; /* every call site, once an entry value asks */
};

/* The handle's arena (base.h): every node, name and spelling of a handle. */
static inline void *dwv_alloc(struct gs_dwarf *d, size_t n)
{
	return base_arena_alloc(&d->arena, n);
}

static inline const char *dwv_strdup(struct gs_dwarf *d, const char *s)
{
	return base_arena_strdup(&d->arena, s);
}

/* target_locs.c: resolved locations, distinct by address, for the target
 * resolver (target.c), the function search (funcs.c) and the line tables
 * (srclines.c). */
struct dwv_loc_list {
	struct dwv_loc *v;
	size_t n, cap;
};

/* Adds addr unless the list holds it already; 0 or -ENOMEM. */
int dwv_loc_add(struct dwv_loc_list *l, uint64_t addr, bool inlined, bool from_dwarf, int line);
/* The location at addr (in l) probes after the prologue of the function
 * entered at entry: a file:line on its `{` or signature line, moved to
 * body_line as gdb moves it. */
void dwv_loc_moved(struct dwv_loc_list *l, uint64_t addr, uint64_t entry, int body_line);

/* module.c */
void *dwv_map_get(const struct dwv_map *m, const void *key);
int dwv_map_put(struct dwv_map *m, const void *key, void *value);
void dwv_map_free(struct dwv_map *m);
uint8_t dwv_section_of(const struct gs_dwarf *d, uint64_t addr);
/* The CU whose ranges hold pc (aranges first, then each CU's ranges). */
bool dwv_cu_at(struct gs_dwarf *d, uint64_t pc, Dwarf_Die *out);
bool dwv_unit_at(Dwarf *dw, uint64_t pc, Dwarf_Die *out);
/* The CFA at pc as reg + off: 0, or -ENOENT (no row), -EOPNOTSUPP. */
int dwv_cfa_at(struct gs_dwarf *d, uint64_t pc, uint8_t *reg, int64_t *off);

/* types.c: the gs_type of a type DIE (NULL DIE: void). Never NULL: an
 * unreadable type becomes GS_TYPE_UNKNOWN named "?"; one that holds itself
 * by value (a typedef cycle, an array of itself) is GS_TYPE_UNKNOWN with
 * GS_TYPEF_CYCLIC, one nested past the limits GS_TYPEF_TOO_DEEP. */
const struct gs_type *dwv_type(struct gs_dwarf *d, Dwarf_Die *die);
/* The same, for a type held by value (by_value: a variable's, a member's,
 * an element's, what a typedef names), where meeting a type still being
 * built is a cycle, or through a pointer, where it is not. */
const struct gs_type *dwv_type_ref(struct gs_dwarf *d, Dwarf_Die *die, bool by_value);
/* The type under construction (t non-NULL while built). */
bool dwv_type_building(const struct gs_dwarf *d, const struct gs_type *t);
void dwv_type_built(struct gs_dwarf *d, const struct gs_type *t, bool building);
/* The markers dwv_type returns for what it cannot build. */
const struct gs_type *dwv_void_type(void);
const struct gs_type *dwv_cyclic_type(void);
const struct gs_type *dwv_too_deep_type(void);
/* snprintf(fmt, a, b) into the arena (NULL arguments as ""). */
const char *dwv_spell(struct gs_dwarf *d, const char *fmt, const char *a, const char *b);

/* diename.c: a DIE's name, NULL when it has none or an empty one (no C
 * type is spelled ""; code that ends a spelling looks at its last
 * character). */
const char *dwv_die_name(Dwarf_Die *die);
/* diename.c: "ns::Type<...>": the namespaces and types around die, and its
 * name (a C++ base class's, a Rust type's path). */
const char *dwv_qualified_name(struct gs_dwarf *d, Dwarf_Die *die);
/* views_attach.c: the view (gs/view.h) of a C++ or Rust standard-library
 * type, attached to t when its members validate the layout. */
void dwv_view_attach(struct gs_dwarf *d, Dwarf_Die *die, struct gs_type *t);

/* types_alias.c: a chain of typedef and cv-qualifier DIEs from die, each
 * a copy of the type it names with its own spelling, followed in a loop
 * up to 1024 links (then GS_TYPEF_TOO_DEEP); a chain that comes back to
 * itself is GS_TYPEF_CYCLIC. */
const struct gs_type *dwv_alias_chain(struct gs_dwarf *d, Dwarf_Die *die, bool by_value);
bool dwv_is_alias(int tag);
/* Copies every alias node again from the node it names, once the
 * outermost type is built (what it names may have been incomplete). */
void dwv_run_fixups(struct gs_dwarf *d);
/* The type of a variable DIE (its DW_AT_type, through abstract origins). */
const struct gs_type *dwv_var_type(struct gs_dwarf *d, Dwarf_Die *var);
/* A pointer type to t (the script's `&x`, cast to "T *"). */
const struct gs_type *dwv_pointer_to(struct gs_dwarf *d, const struct gs_type *t);
/* An array of count elems named `name` (the cast "uint32_t[4]"). */
const struct gs_type *dwv_array_of(struct gs_dwarf *d, const struct gs_type *elem, uint32_t count,
				   const char *name);

/* typename.c: gs_dwarf_find_type, C type names in cast(). */

/* symbols.c: fn(sym, name, arg) for each defined symbol of elf's .symtab
 * and .dynsym (name may be NULL or ""); a non-zero return stops the walk
 * and is returned. */
int dwv_each_symbol(Elf *elf, int (*fn)(const GElf_Sym *sym, const char *name, void *arg),
		    void *arg);

/* location.c: the access plan of a variable DIE at pc; scope_fn is the
 * out-of-line subprogram whose DW_AT_frame_base applies (NULL at CU level). */
void dwv_location(struct gs_dwarf *d, Dwarf_Die *var, Dwarf_Die *scope_fn, uint64_t pc,
		  struct gs_var_loc *out);

/* locexpr.c: the general compiler, for what dwv_location cannot fold:
 * each piece of ops[0..n) becomes a location program (gs/value.h); out is
 * left as it is when the expression does not compile, but for a more
 * precise reason in out->why. */
void dwv_locexpr(struct gs_dwarf *d, Dwarf_Attribute *attr, Dwarf_Die *scope_fn, uint64_t pc,
		 const Dwarf_Op *ops, size_t n, struct gs_var_loc *out);

/* partial.c: the type a variable shows with its location: t itself, or a
 * copy whose members in bytes no piece holds are GS_TYPE_OPTIMIZED_OUT
 * placeholders (a scalar missing a byte: loc becomes optimized out). */
const struct gs_type *dwv_partial_type(struct gs_dwarf *d, const struct gs_type *t,
				       struct gs_var_loc *loc);

/* index.c: the lazy index over every CU's top-level DIEs. */
int dwv_index_find_global(struct gs_dwarf *d, const char *name, Dwarf_Die *out);
int dwv_index_find_type(struct gs_dwarf *d, const char *name, Dwarf_Die *out);

/* ---- target resolution: function names (funcs.c) ---- */

struct gv_view;

/* Every location the DWARF of a module gives function `name`: where
 * gdb's `break name` stops in each definition and each inline instance
 * (breakaddr.c; with entry, each definition's entry and no inline
 * copies), + bias, in the order of a walk of every unit;
 * *declared: a DIE of that name exists, code or not. The DIEs come from
 * the module's function index x, or (x NULL, or x not of this DWARF) from
 * that walk itself: both give the same answer, which tests check. A
 * qualified C++ or Rust name (dwv_qname_is_qualified) gives every function
 * it names (qualified.c). 0 or -ENOMEM; free *locs (no location has a
 * function name yet). */
struct mf_funcindex;
struct dwv_loc;
int dwv_function_locs(struct gv_view *v, const struct mf_funcindex *x, uint64_t bias,
		      const char *name, bool entry, struct dwv_loc **locs, size_t *n,
		      bool *declared);

struct dwv_qname;
/* Up to a buffer of the qualified names (with parameters) of the
 * functions whose last part is q->base: what a trace could have meant. */
void dwv_qname_near(Dwarf *dw, const struct mf_funcindex *x, const struct dwv_qname *q,
		    char *buf, size_t size);

/* ---- target resolution: the line tables (srclines.c) ---- */

/* `file:line` (the file matched by path suffix) into out (+ bias): the
 * addresses gdb's `break file:line` stops at, of `line` or, when it has
 * no code, of the next line with code (each loc's line says which). 0,
 * or -ENOENT with a message naming `input` and the module when the file
 * or the line is not there. */
int dwv_line_locs(struct gv_view *v, uint64_t bias, const char *module, const char *input,
		  const char *file, int line, struct dwv_loc_list *out, struct gs_error *err);

/* The source file and line of a DWARF address (the line-table row
 * holding it); false when no row does. */
bool dwv_line_of(Dwarf *dw, uint64_t addr, const char **file, int *line);

/* ---- source paths (srcpath.c) and the source-file index (sources.c) ---- */

/* `file` names `want`: equal, or ends with "/" want. */
bool dwv_path_names(const char *file, const char *want);
/* name joined with comp_dir (when name is relative and comp_dir not NULL)
 * and normalized ("." and empty components dropped, ".." applied, kept
 * only where a relative path starts above its directory) into out: its
 * length, or -ENAMETOOLONG when out (size bytes) is too small. */
int dwv_src_path(const char *comp_dir, const char *name, char *out, size_t size);

/* gs_sources_add_module on a Dwarf handle (NULL: no DWARF) read for the
 * module `path`: what the fuzz target calls on an image in memory. dw
 * outlives s. */
struct gs_sources;
int dwv_sources_add_dwarf(struct gs_sources *s, Dwarf *dw, const char *path,
			  struct gs_error *err);

/* ---- target resolution: qualified names (qualified.c) ---- */

/* A C++ or Rust qualified name as a trace names it (qualified.c): path
 * is the name without its parameter list, base its last part (what
 * DW_AT_name holds, the function index's key), full the whole text when
 * it has a parameter list; all in canonical spelling (dwv_name_canon). */
struct dwv_qname {
	char *path;
	const char *base;
	char *full;
};
/* Whether a function name is qualified ("::" or a parameter list). */
bool dwv_qname_is_qualified(const char *name);
int dwv_qname_parse(const char *input, struct dwv_qname *q);
void dwv_qname_free(struct dwv_qname *q);
/* Whether the function die is named q: its linkage name demangled, or its
 * namespaces and classes, is q->path, and its demangled signature q->full. */
bool dwv_qname_matches(Dwarf_Die *die, const struct dwv_qname *q);
/* An unqualified name written with template arguments (`maxof<int>`) is
 * the die's own name as gdb reads it: the last part of its demangled
 * linkage name (a constructor template's `optional<int, true>` is not
 * `optional<int>`). True without a linkage name. */
bool dwv_own_name_matches(Dwarf_Die *die, const char *want);
/* die's qualified name (params: with its parameter list), malloc'd. */
char *dwv_qname_of(Dwarf_Die *die, bool params);
/* s (n bytes) with spaces only before a word after a word, ) > * or &,
 * as the demangler and DWARF spell C++ names; malloc'd. */
char *dwv_name_canon(const char *s, size_t n);

/* ---- the CFI guard (cfi_guard.c) ---- */

/* The CFI checks a gs_dwarf opened over a module file owns (made by
 * dwv_modfile_dwarf, freed with the gs_dwarf): over the .eh_frame of
 * eh_elf and the .debug_frame of debug_elf (NULL: that section refused).
 * NULL without memory. */
struct dwv_cfi_guard;
struct dwv_cfi_guard *dwv_cfi_guard_new(struct Elf *eh_elf, struct Elf *debug_elf);
/* gs_dwarf_opts.cfi_allowed with the guard as its arg: whether libdw may
 * read the CFI of that section at pc, the section checked on first ask. */
bool dwv_cfi_guard_allows(void *guard, bool debug_frame, uint64_t pc);
void dwv_cfi_guard_free(struct dwv_cfi_guard *g);

#endif /* GS_DWARF_DWV_INT_H */
