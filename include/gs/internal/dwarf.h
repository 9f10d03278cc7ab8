/* The dwarf layer's resolution calls for the runtime: a trace target in a
 * module file -> link-time addresses (function names through DWARF and ELF
 * symbols, IFUNCs, file:line through the line table, prologues skipped),
 * the source line of an address, the functions matching a glob, and the
 * dwarf layer opened over a module file behind unwind-safe CFI checks. Each
 * call works on files alone, so tests run it without a kernel. Not
 * installed, not exported; uses only public types. The layer's own
 * internals are in dwv_int.h. */
#ifndef GS_INTERNAL_DWARF_H
#define GS_INTERNAL_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gs/dwarf.h>
#include <gs/error.h>
#include <gs/modfile.h>

/* ---- targets (target.c; funcs.c, srclines.c, modfile's ifunc.c and procexe.c) ---- */

/* The four target forms (gs_target_kind's; docs/cli.md, "Targets"). */
enum dwv_target_kind {
	DWV_TARGET_FUNCTION,
	DWV_TARGET_ADDRESS,
	DWV_TARGET_MODULE_ADDRESS,
	DWV_TARGET_FILE_LINE,
};

/* A parsed target and where to look for it (gs_target_pattern and
 * gs_resolve_opts, in the runtime's public types). */
struct dwv_target_req {
	enum dwv_target_kind kind;
	const char *input;   /* the pattern as written */
	const char *name;    /* function, module path or file; NULL for an address */
	uint64_t address;    /* (MODULE_)ADDRESS: module-relative vaddr */
	uint32_t line;       /* FILE_LINE */
	const char *module;  /* -t PATH, or NULL */
	pid_t pid;           /* a process, or 0 */
	bool entry;          /* functions at their entry: no prologue, no inline copies */
	struct gs_modfiles *files; /* where modules are opened (required) */
};

/* One address a target resolved to: the fields of gs_location. */
struct dwv_loc {
	uint64_t addr, file_offset;
	bool inlined, from_dwarf;
	char *function; /* malloc'd, or NULL */
	int line;
	uint64_t entry;
	int body_line;
};

struct dwv_target_res {
	char *module;        /* malloc'd */
	struct dwv_loc *locs; /* by address, at least one; malloc'd */
	size_t nlocs;
	char *note;          /* malloc'd, or NULL */
};

/* gs_target_resolve's work (its comment in gs/runtime.h says what each
 * form becomes): the default module opened (req->module, the module of
 * MODULE_ADDRESS, or the pid's executable), the target resolved in it,
 * and with a pid, a function or line it lacks looked for in the other
 * modules the process maps. 0 or -errno with err saying what to do. */
int dwv_target_resolve(const struct dwv_target_req *req, struct dwv_target_res *out,
		       struct gs_error *err);
void dwv_target_res_free(struct dwv_target_res *r);

/* The source file and line of a link-time address of file (the row of its
 * DWARF's line table holding it); false when no row does, or no DWARF. */
bool dwv_modfile_line_of(struct gs_modfile *file, uint64_t addr, const char **src, int *line);

/* ---- return values (retval.c) ---- */

/* $retval of a function returning t (fn: its name, for the message) as
 * the x86-64 ABI returns it: var's name, type and pieces (pc has room for
 * two; the caller sets var->loc.cookie). 0, or -EINVAL with why when the
 * value comes back in registers a uprobe does not see (SSE, x87). */
int dwv_retval_place(const struct gs_type *t, const char *fn, struct gs_var *var,
		     struct gs_loc_piece *pc, char *why, size_t why_size);

/* ---- listings (listing.c) ---- */

/* The functions of d (over module file `file`) matching glob: the DIEs its
 * function index has for the matching names (what `trace NAME` resolves),
 * then its symbols; gs_dwarf_list_functions's answer when there is no
 * index. */
int dwv_module_functions(struct gs_dwarf *d, struct gs_modfile *file, const char *glob,
			 struct gs_dwarf_function **v, size_t *n, struct gs_error *err);

/* ---- the dwarf layer over a module file (modfile_dwarf.c) ---- */

/* gs_dwarf_new over file's DWARF (in it or in its debug file) with the
 * module's cookie, its CFI read from the file, and libdw never given an
 * FDE the modfile layer's checks refuse. 0 with *out, or 0 with *out NULL
 * and why saying so (no DWARF; a debug file prelinked elsewhere; the
 * dwarf layer refused it), or -ENOMEM. */
int dwv_modfile_dwarf(struct gs_modfile *file, uint64_t cookie, const char *path,
		      struct gs_dwarf **out, struct gs_error *why, struct gs_error *err);

/* ---- return types (scope.c) ---------------------------------------------- */

/* The type the function holding pc (out of line: a return probe's entry)
 * returns: 0 and *out, NULL for void; *function (may be NULL) its name.
 * -ENOENT when no DWARF function covers pc. */
int gs_dwarf_return_type(struct gs_dwarf *d, uint64_t pc, const struct gs_type **out,
			 const char **function, struct gs_error *err);

#endif /* GS_INTERNAL_DWARF_H */
