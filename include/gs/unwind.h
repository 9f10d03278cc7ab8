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
#include <gs/protocol.h>

#ifdef __cplusplus
extern "C" {
#endif

struct Elf; /* libelf's handle (typedef struct Elf Elf) */

/* ---- rows from CFI (cfi.c, cfi_fde.c) ------------------------------------ */

/* Why a CFI row was left out of the BPF table (reference 7.2-7.3). */
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

/* A row as the bpf_loop walker reads it (issue 11): every rule in full,
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
 * `rows` by the reference's export rules (the tail-call walker, reference
 * 7.2-7.3), `xrows` by the loop walker's (a superset). */
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
 * range .eh_frame lacks). No CFI at all gives an empty table and 0. */
GS_API int gs_cfi_table_from_elf(struct Elf *elf, const struct gs_cfi_opts *opts,
				 struct gs_cfi_table *out, struct gs_error *err);
/* Same, opening `path`. -ENOENT/-EACCES/-EINVAL (not ELF) with a message. */
GS_API int gs_cfi_table_from_file(const char *path, const struct gs_cfi_opts *opts,
				  struct gs_cfi_table *out, struct gs_error *err);
GS_API void gs_cfi_table_free(struct gs_cfi_table *t);
/* The row covering pc: 0 and *row; -EOPNOTSUPP when the pc's CFI was
 * dropped (*reason set when not NULL); -ENOENT when no FDE covers it. */
GS_API int gs_cfi_table_lookup(const struct gs_cfi_table *t, uint64_t pc, struct gs_unwind_row *row,
			enum gs_cfi_drop *reason);
/* The loop walker's form of a reference row (its rules as they are; rbx
 * and r12-r15 unchanged): for tables built by hand. */
GS_API void gs_cfi_row_from_unwind_row(const struct gs_unwind_row *u, struct gs_cfi_row *out);
/* The loop walker's row covering pc: 0 and *row, or -ENOENT. */
GS_API int gs_cfi_table_xlookup(const struct gs_cfi_table *t, uint64_t pc, struct gs_cfi_row *row);
/* The FDEs of .eh_frame whose CIE says 'S' (signal trampolines such as
 * libc's __restore_rt): *n pairs [lo, hi) in *ranges (malloc'd, link-time). */
GS_API int gs_signal_frame_ranges(struct Elf *elf, uint64_t **ranges, size_t *n,
				  struct gs_error *err);
/* Short stable name of a drop reason ("ra_undefined"). */
GS_API const char *gs_cfi_drop_name(enum gs_cfi_drop reason);

/* ---- many modules' rows (rowset.c) ---------------------------------------- */

/* First row of [lo, hi) with pc_start <= pc < pc_end, by the same binary
 * search the BPF side runs (reference 6.9); NULL when none. */
GS_API const struct gs_unwind_row *gs_rows_find(const struct gs_unwind_row *rows, size_t lo,
						size_t hi, uint64_t pc);

struct gs_rowset_module {
	uint64_t cookie;
	struct gs_module_row_range range; /* rows [row_start, row_end) */
	struct gs_cfi_row *xrows;         /* the loop walker's rows (owned), or NULL */
	size_t nxrows;
};

/* bt_unwind_rows and bt_module_row_ranges as they will be written: modules
 * in cookie order, each one's rows contiguous (reference 6.3 step 1, 7.4). */
struct gs_rowset {
	struct gs_unwind_row *rows;
	size_t nrows, rows_cap;
	struct gs_rowset_module *modules;
	size_t nmodules, modules_cap;
};

GS_API void gs_rowset_init(struct gs_rowset *s);
GS_API void gs_rowset_fini(struct gs_rowset *s);
/* Adds a module's sorted rows, keeping cookie order. 0 and nothing added for
 * an empty table or a cookie already present; -E2BIG past 2^32 rows. */
GS_API int gs_rowset_add(struct gs_rowset *s, uint64_t cookie, const struct gs_unwind_row *rows,
		  size_t nrows, struct gs_error *err);
/* The same with the module's loop walker rows (copied), which the compact
 * tables are built from; a module with rows of either kind is added. */
GS_API int gs_rowset_add_x(struct gs_rowset *s, uint64_t cookie, const struct gs_unwind_row *rows,
		    size_t nrows, const struct gs_cfi_row *xrows, size_t nxrows,
		    struct gs_error *err);
/* The module entry of a cookie, or NULL. */
GS_API const struct gs_rowset_module *gs_rowset_module(const struct gs_rowset *s, uint64_t cookie);
/* The row for pc inside the cookie's range, or NULL. */
GS_API const struct gs_unwind_row *gs_rowset_find(const struct gs_rowset *s, uint64_t cookie,
						  uint64_t pc);

/* ---- writing maps without the kernel (ranges.c, rowset.c) ------------------ */

/* What the runtime plugs in (bpf_map_update_elem & co. on named maps) and
 * tests fake. Each returns 0 or -errno; remove and lookup give -ENOENT for
 * an absent key. */
struct gs_map_writer {
	void *ctx;
	int (*update)(void *ctx, const char *map, const void *key, const void *value);
	int (*remove)(void *ctx, const char *map, const void *key);
	int (*lookup)(void *ctx, const char *map, const void *key, void *value);
};

/* Appends the modules of `s` whose cookie bt_module_row_ranges lacks at
 * *row_count.., then records their ranges (reference 7.4 shared mode).
 * -ENOSPC "capacity exceeded" when rows would pass max_rows. */
GS_API int gs_rowset_write(const struct gs_rowset *s, const struct gs_map_writer *w,
			   uint32_t *row_count, uint32_t max_rows, struct gs_error *err);

/* One module of a process as the range maps see it. */
struct gs_range_item {
	uint64_t base, size, bias, cookie;
};

/* Reference 8.4: fills the inactive slot of pid with the snapshot, then
 * flips proc_module_range_meta[pid] to it. Slot entries are always written
 * as indices 0..n-1, so clearing deletes from 0 up to the first absent key. */
GS_API int gs_ranges_replace(const struct gs_map_writer *w, uint32_t pid,
			     const struct gs_range_item *items, size_t n, struct gs_error *err);
/* proc_module_offsets[{pid, 0, cookie}] = offsets. */
GS_API int gs_offsets_write(const struct gs_map_writer *w, uint32_t pid, uint64_t cookie,
			    const struct gs_proc_module_offsets *offsets, struct gs_error *err);

/* ---- the bpf_loop walker's tables (btrows.c, protocol.h 2b) --------------- */

/* One module's compact rows; pages[p] and overflow indices are relative to
 * the module (the writer adds where they land in the maps). */
struct gs_bt_rowtab {
	struct gs_bt_row *rows;
	size_t nrows;
	uint32_t *pages;          /* npages + 1 entries */
	uint32_t npages;
	uint64_t first_page;
	struct gs_bt_rules *overflow; /* rules too large for a row, in full */
	size_t noverflow;
};

/* Capacities of bt_rows, bt_row_pages and bt_row_overflow. */
struct gs_bt_table_caps {
	uint32_t rows, pages, overflow;
};

/* From sorted gs_cfi_rows (a gs_cfi_table's xrows): rows that end where
 * the next starts, a GS_BT_CFA_NONE row in every gap and at the end,
 * identical neighbours merged. Lookups give the table's xlookup answer for
 * every pc. */
GS_API int gs_bt_rowtab_build(const struct gs_cfi_row *rows, size_t n, struct gs_bt_rowtab *out,
		       struct gs_error *err);
/* The rules of compact row i of t in full (decoded, or its overflow entry). */
GS_API void gs_bt_rowtab_rules(const struct gs_bt_rowtab *t, size_t i, struct gs_bt_rules *out);
GS_API void gs_bt_rowtab_free(struct gs_bt_rowtab *t);
/* The walker's lookup (protocol.h 2b): index into rows of the row covering
 * link-time pc, or -1 outside the pages (rows of kind NONE are returned as
 * they are). */
GS_API long gs_bt_rows_find(const struct gs_bt_row *rows, const uint32_t *pages,
			    uint64_t first_page, uint32_t npages, uint64_t pc);
/* Appends t to the tables and then records bt_module_rows[cookie] (nothing
 * when the cookie is there already). -ENOSPC when a table is full. */
GS_API int gs_bt_rowtab_write(const struct gs_map_writer *w, uint64_t cookie,
		       const struct gs_bt_rowtab *t, const struct gs_bt_table_caps *caps,
		       struct gs_error *err);
/* The same for every module of a rowset that bt_module_rows lacks, from
 * its xrows (gs_rowset_add_x). */
GS_API int gs_bt_rowset_write(const struct gs_rowset *s, const struct gs_map_writer *w,
		       const struct gs_bt_table_caps *caps, struct gs_error *err);
/* A process's sorted module snapshot in bt_modules (each entry with the
 * rows bt_module_rows has for it now), written into the region BPF does not
 * read, then bt_proc_modules[pid] flipped to it. `capacity`: bt_modules'
 * entries. */
GS_API int gs_bt_modules_replace(const struct gs_map_writer *w, uint32_t pid,
				 const struct gs_range_item *items, size_t n, uint32_t capacity,
				 struct gs_error *err);
/* Forgets pid's snapshot and returns its regions for reuse (a process that
 * is gone, or grew past its regions: replace frees the old pair itself). */
GS_API int gs_bt_modules_remove(const struct gs_map_writer *w, uint32_t pid,
				struct gs_error *err);

/* ---- module identity (module.c, siphash.c) -------------------------------- */

enum gs_cookie_source {
	GS_COOKIE_BUILD_ID,
	GS_COOKIE_DEV_INODE,
	GS_COOKIE_PATH_HASH,
};

#define GS_BUILD_ID_MAX 64

struct gs_module_id {
	uint64_t cookie;
	uint8_t source; /* enum gs_cookie_source */
	uint8_t build_id_len;
	uint8_t build_id[GS_BUILD_ID_MAX];
	uint64_t dev, ino; /* 0 when the file could not be opened */
};

/* Cookie of the file at `path` (normalized first), reference 8.1: build id,
 * else dev/inode, else the path hash. Paths under /proc and /sys (other than
 * /proc/<pid>/root/...) and non-regular files count as unopenable. Never
 * fails for a bad file; -ENAMETOOLONG for an overlong path. */
GS_API int gs_module_identify(const char *path, struct gs_module_id *out, struct gs_error *err);

/* ---- /proc/PID/maps (procmaps.c) ------------------------------------------- */

enum gs_map_kind {
	GS_MAP_ANON,   /* no path */
	GS_MAP_FILE,   /* a path starting with '/' */
	GS_MAP_PSEUDO, /* [heap], [stack], [vdso], [vvar], anything else */
};

struct gs_map_entry {
	uint64_t start, end, offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	char perms[5];
	uint8_t kind;  /* enum gs_map_kind */
	bool deleted;  /* the path had a " (deleted)" suffix */
	char *path;    /* normalized; NULL for GS_MAP_ANON */
};

struct gs_maps {
	struct gs_map_entry *entries;
	size_t n, cap;
};

/* Parses maps text (len bytes, need not end in NUL or newline). A malformed
 * line fails with -EINVAL naming the line number. */
GS_API int gs_maps_parse(const char *text, size_t len, struct gs_maps *out, struct gs_error *err);
/* Reads and parses /proc/<pid>/maps. */
GS_API int gs_maps_read(pid_t pid, struct gs_maps *out, struct gs_error *err);

/* What /proc/<pid>/stat says about a process (procstat.c). */
struct gs_proc_stat {
	char comm[64];            /* its name, raw: escape it to print it */
	char state;               /* 'R', 'S', 'Z', ... */
	pid_t ppid;
	unsigned long flags;      /* PF_* (PF_KTHREAD 0x00200000: a kernel thread) */
	unsigned long long start_time; /* clock ticks after boot: pid + this names it */
};

/* Parses len bytes of a stat line (the name may hold ')' and spaces: the
 * fields follow the last ')'). -EINVAL with a message when malformed. */
GS_API int gs_proc_stat_parse(const char *text, size_t len, struct gs_proc_stat *out,
			      struct gs_error *err);
/* Reads /proc/<pid>/stat (pid <= 0: this process). -ENOENT when gone. */
GS_API int gs_proc_stat_read(pid_t pid, struct gs_proc_stat *out, struct gs_error *err);
/* The process (thread group) that thread `pid` belongs to, from
 * /proc/<pid>/status; pid itself when that cannot be read. */
GS_API pid_t gs_proc_tgid(pid_t pid);
GS_API void gs_maps_free(struct gs_maps *m);

struct gs_modfiles; /* the module-file cache (gs/modfile.h) */
struct gs_modfile;

/* A module of a live process: identity, its file and its offsets. */
struct gs_proc_module {
	char *path;      /* as mapped (normalized) */
	char *open_path; /* the path, /proc/<pid>/root<path>, or (deleted or
			  * unreachable) /proc/<pid>/map_files/<range> */
	struct gs_module_id id;
	struct gs_proc_module_offsets offsets;
	struct gs_modfile *file; /* in the cache given to the load; NULL without */
};

struct gs_proc_modules {
	struct gs_proc_module *v;
	size_t n;
	size_t skipped; /* mapped files that were not usable ELF modules */
};

/* Every ELF module mapped by pid, with cookie and offsets (reference
 * 8.1-8.3), each file read through `files` (opened once per cache; NULL:
 * a cache for this call, and no file pointers kept). A file is opened
 * through /proc/PID/map_files where permitted, else by its path, and must
 * be a regular file with the mapping's inode. Files that cannot be read as
 * ELF are skipped and counted. */
GS_API int gs_proc_modules_load(pid_t pid, struct gs_modfiles *files, struct gs_proc_modules *out,
				struct gs_error *err);
GS_API void gs_proc_modules_free(struct gs_proc_modules *m);
/* The module whose [base, base + size) holds ip, or NULL. */
GS_API const struct gs_proc_module *gs_proc_modules_find(const struct gs_proc_modules *m,
							 uint64_t ip);

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
 * file and debug file as target resolution used. */
GS_API struct gs_symbolizer *gs_symbolizer_new(struct gs_modfiles *files, struct gs_error *err);
GS_API void gs_symbolizer_free(struct gs_symbolizer *s);
/* Opens (once) the module file; returns a handle >= 0 for gs_symbolize. */
GS_API int gs_symbolizer_module(struct gs_symbolizer *s, const char *path, struct gs_error *err);
/* The same for a file already open (of the symbolizer's cache). */
GS_API int gs_symbolizer_modfile(struct gs_symbolizer *s, struct gs_modfile *file,
				 struct gs_error *err);
/* Symbolizes a link-time pc of a module; results are cached per (module,
 * pc) and the pointer stays valid until gs_symbolizer_free. */
GS_API int gs_symbolize(struct gs_symbolizer *s, int module, uint64_t pc,
			const struct gs_sym_info **out, struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_UNWIND_H */
