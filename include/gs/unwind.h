/* The userspace half of the backtrace: unwind rows from a module's CFI, the
 * module cookie, /proc/PID/maps and load biases, the double-buffered range
 * maps, the row tables of many modules, and the symbolizer that turns raw
 * frames back into `fn(params) at file:line:col`. Never emits instructions;
 * the only syscalls are file reads (maps writes go through gs_map_writer). */
#ifndef GS_UNWIND_H
#define GS_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gs/api.h>
#include <gs/error.h>
#include <gs/modfile.h>
#include <gs/protocol.h>

#ifdef __cplusplus
extern "C" {
#endif

struct Elf; /* libelf's handle (typedef struct Elf Elf) */

/* ---- rows from CFI (cfi.c, cfi_fde.c, cfi_table.c) ------------------------------- */

/* Why a CFI row was left out of the BPF table (docs/unwind.md). */
enum gs_cfi_drop {
	GS_CFI_DROP_EMPTY_RANGE,    /* pc_start >= pc_end */
	GS_CFI_DROP_CFA_EXPRESSION, /* CFA undefined or a DWARF expression */
	GS_CFI_DROP_CFA_REGISTER,   /* CFA = reg + off with reg not rsp/rbp */
	GS_CFI_DROP_RA_UNDEFINED,   /* no return address (e.g. _start) */
	GS_CFI_DROP_RA_RULE,        /* RA not "saved at CFA + off" */
	GS_CFI_DROP_SP_RULE,        /* rsp rule is an expression */
	GS_CFI_DROP_RBP_RULE,       /* rbp rule outside the exportable set */
	GS_CFI_DROP_LIBDW_ERROR,    /* libdw could not compute the row */
	GS_CFI_DROP_SAVED_RULE,     /* (loop walker rows) an rbx/r12-r15 rule outside the set */
	GS_CFI_DROP_CORRUPT,        /* the FDE's instructions (or its CIE's) were refused
				     * unread: a register x86-64 does not have, an unknown
				     * opcode, more work than the per-FDE budget */
	GS_CFI_DROP_NREASONS
};

struct gs_cfi_stats {
	size_t fdes;              /* FDEs of .eh_frame */
	size_t debug_frame_fdes;  /* FDEs of .debug_frame taken (not in .eh_frame) */
	size_t shadowed_fdes;     /* FDEs of .debug_frame skipped: .eh_frame covers them */
	size_t bad_fdes;          /* FDEs whose address could not be decoded */
	size_t rows;              /* rows read = exported + every dropped */
	size_t exported;          /* rows that passed the export rules */
	size_t merged;            /* exported rows folded into the previous one */
	size_t dropped[GS_CFI_DROP_NREASONS];
	size_t eh_frame_bytes;    /* size of .eh_frame (0: none) */
	bool eh_frame_broken;     /* reading .eh_frame stopped at a malformed entry */
	size_t eh_frame_broken_at; /* ... at this offset: what follows is unread */
	size_t xexported;         /* rows of xrows (the loop walker's) before merging */
	size_t xdropped[GS_CFI_DROP_NREASONS]; /* rows the loop walker cannot use either */
	size_t signal_rows;       /* xrows of signal frames (CIE 'S') */
	size_t corrupt_fdes;      /* FDEs whose instructions libdw was not given */
	bool eh_frame_refused;    /* .eh_frame was not given to libdw at all: */
	bool debug_frame_refused; /* ... nor .debug_frame (docs/unwind.md) */
	size_t steps;             /* CFA instructions libdw was asked to run, at most */
};

/* Options (GS_OPTS); zero is the default: merge, and read .debug_frame for
 * uncovered ranges. */
struct gs_cfi_opts {
	size_t sz;
	bool no_merge;
	bool no_debug_frame;
	/* A directory of tables cached by build id (a module without one is
	 * never cached): read from there when present, written there when
	 * computed. NULL: no cache. */
	const char *cache_dir;
};

/* A range whose CFI exists but cannot be exported (kept for diagnostics and
 * for the compile-time first row: "UnsupportedCfi" rather than "no row"). */
struct gs_cfi_dropped {
	uint64_t pc_start, pc_end;
	uint8_t reason; /* enum gs_cfi_drop */
};

/* A row as the bpf_loop walker reads it: every rule in full,
 * including DWARF expressions of the form DW_OP_breg<N> off [; DW_OP_deref],
 * rules for rbx and r12-r15, CFAs based on them, signal frames, and an
 * undefined return address (the end of the stack). */
struct gs_cfi_row {
	uint64_t pc_start, pc_end; /* [pc_start, pc_end) link-time */
	struct gs_bt_rules rules;
	uint8_t flags;             /* GS_CFI_ROW_* */
	uint8_t reserved[7];
};

#define GS_CFI_ROW_SIGNAL 0x01 /* the FDE's CIE has 'S': a signal trampoline */

/* Rows of one module in link-time addresses, sorted by (pc_start, pc_end):
 * `rows` by the reference's export rules (the tail-call walker,
 * docs/unwind.md), `xrows` by the loop walker's (a superset). */
struct gs_cfi_table {
	struct gs_unwind_row *rows;
	size_t nrows; /* exported - merged */
	struct gs_cfi_row *xrows;
	size_t nxrows;
	struct gs_cfi_dropped *dropped;
	size_t ndropped;
	struct gs_cfi_stats stats;
};

/* Builds the table of an ELF (from .eh_frame, plus .debug_frame FDEs whose
 * range .eh_frame lacks) into *out, which gs_cfi_table_free() empties
 * (a filled or zeroed one). opts may be NULL; elf is borrowed. No CFI at
 * all gives an empty table and 0; else -ENOMEM, or -EINVAL for CFI that
 * does not read, with err filled. */
GS_API int gs_cfi_table_from_elf(struct Elf *elf, const struct gs_cfi_opts *opts,
				 struct gs_cfi_table *out, struct gs_error *err);
/* Same, opening `path`. -ENOENT/-EACCES/-EINVAL (not ELF) with a message. */
GS_API int gs_cfi_table_from_file(const char *path, const struct gs_cfi_opts *opts,
				  struct gs_cfi_table *out, struct gs_error *err);
GS_API void gs_cfi_table_free(struct gs_cfi_table *t);
/* The row covering pc: 0 and *row; -EOPNOTSUPP when the pc's CFI was
 * dropped (*reason set when not NULL); -ENOENT when no FDE covers it. No
 * message: the codes are the answer. */
GS_API int gs_cfi_table_lookup(const struct gs_cfi_table *t, uint64_t pc, struct gs_unwind_row *row,
			enum gs_cfi_drop *reason);
/* Short stable name of a drop reason ("ra_undefined"); a constant string. */
GS_API const char *gs_cfi_drop_name(enum gs_cfi_drop reason);

/* ---- a module file's rows (modfile_cfi.c) ------------------------------ */

/* The CFI rows of m in *out, built once per build id (files without one:
 * per file) with the default options, owned by m's cache (valid until
 * gs_modfiles_free). 0, or the errors of gs_cfi_table_from_elf. */
GS_API int gs_modfile_cfi(struct gs_modfile *m, const struct gs_cfi_table **out,
			  struct gs_error *err);

/* ---- symbolizer (symbolize.c, symtype.c) ------------------------------------ */

/* One inlined call covering the pc, with where it was called from. */
struct gs_sym_inline {
	const char *name;
	const char *call_file; /* NULL when unknown */
	int call_line, call_col;
};

/* What the renderer needs for one (module, pc); strings live as long as the
 * symbolizer. */
struct gs_sym_info {
	bool found;           /* false: nothing known about pc */
	bool from_dwarf;      /* false: ELF symbol fallback */
	const char *function; /* physical function, or symbol name */
	const char *params;   /* "long unsigned int value, const char *name"; "" */
	uint64_t sym_offset;  /* pc - symbol start (fallback only) */
	const char *file;     /* file of pc's line, NULL when unknown */
	int line, col;
	struct gs_sym_inline *inlines; /* outermost first */
	size_t ninlines;
};

struct gs_symbolizer;

/* Symbolizes through the modules of `files` (borrowed: it must outlive the
 * symbolizer; NULL: a cache of its own), so a module is read from the same
 * file and debug file as target resolution used. NULL with -ENOMEM in err
 * when out of memory; gs_symbolizer_free() frees it (NULL is fine). One
 * thread at a time. */
GS_API struct gs_symbolizer *gs_symbolizer_new(struct gs_modfiles *files, struct gs_error *err);
GS_API void gs_symbolizer_free(struct gs_symbolizer *s);
/* Opens (once) the module file; returns a handle >= 0 for gs_symbolize,
 * or the -errno of gs_modfile_open with err filled. */
GS_API int gs_symbolizer_module(struct gs_symbolizer *s, const char *path, struct gs_error *err);
/* The same for a file already open (of the symbolizer's cache): a handle,
 * or -ENOMEM. */
GS_API int gs_symbolizer_modfile(struct gs_symbolizer *s, struct gs_modfile *file,
				 struct gs_error *err);
/* Symbolizes a link-time pc of a module into *out; results are cached per
 * (module, pc) and the pointer stays valid until gs_symbolizer_free. 0
 * (nothing known: (*out)->found false), -EINVAL for a handle the
 * symbolizer did not give, or -ENOMEM, with err filled. */
GS_API int gs_symbolize(struct gs_symbolizer *s, int module, uint64_t pc,
			const struct gs_sym_info **out, struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_UNWIND_H */
