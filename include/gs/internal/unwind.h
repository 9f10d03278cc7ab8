/* The unwind layer's row machinery for the runtime: many modules' rows
 * in one set, the writers of the row and range maps through a map-writer
 * interface (so they are tested without a kernel), and the bpf_loop
 * walker's tables. Not installed and not exported: an embedder reads a
 * module's rows through <gs/unwind.h>'s gs_cfi_table calls. */
#ifndef GS_INTERNAL_UNWIND_H
#define GS_INTERNAL_UNWIND_H

#include <gs/unwind.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a module file's rows (modfile_cfi.c) -------------------------------- */

/* Frees m's CFI table once its rows are in the maps (libc's: 3.6 MB the run
 * no longer needs); a later gs_modfile_cfi reads it again. Tables pointers
 * from gs_modfile_cfi are not to be kept across this call. */
void gs_modfile_cfi_drop(struct gs_modfile *m);

/* ---- rows for the loop walker (cfi_table.c, cfi_xrow.c) ------------------------- */

/* The loop walker's form of a reference row (its rules as they are; rbx
 * and r12-r15 unchanged): for tables built by hand. */
void gs_cfi_row_from_unwind_row(const struct gs_unwind_row *u, struct gs_cfi_row *out);
/* The loop walker's row covering pc: 0 and *row, or -ENOENT. */
int gs_cfi_table_xlookup(const struct gs_cfi_table *t, uint64_t pc, struct gs_cfi_row *row);

/* ---- many modules' rows (rowset.c) ---------------------------------------- */

/* First row of [lo, hi) with pc_start <= pc < pc_end, by the same binary
 * search the BPF side runs (docs/protocol.md, "Backtraces"); NULL when none. */
const struct gs_unwind_row *gs_rows_find(const struct gs_unwind_row *rows, size_t lo,
						size_t hi, uint64_t pc);

struct gs_rowset_module {
	uint64_t cookie;
	struct gs_module_row_range range; /* rows [row_start, row_end) */
	struct gs_cfi_row *xrows;         /* the loop walker's rows (owned), or NULL */
	size_t nxrows;
};

/* bt_unwind_rows and bt_module_row_ranges as they will be written: modules
 * in cookie order, each one's rows contiguous (docs/unwind.md, "Many modules"). */
struct gs_rowset {
	struct gs_unwind_row *rows;
	size_t nrows, rows_cap;
	struct gs_rowset_module *modules;
	size_t nmodules, modules_cap;
};

void gs_rowset_init(struct gs_rowset *s);
void gs_rowset_fini(struct gs_rowset *s);
/* Adds a module's sorted rows, keeping cookie order. 0 and nothing added for
 * an empty table or a cookie already present; -E2BIG past 2^32 rows. */
int gs_rowset_add(struct gs_rowset *s, uint64_t cookie, const struct gs_unwind_row *rows,
		  size_t nrows, struct gs_error *err);
/* The same with the module's loop walker rows (copied), which the compact
 * tables are built from; a module with rows of either kind is added. */
int gs_rowset_add_x(struct gs_rowset *s, uint64_t cookie, const struct gs_unwind_row *rows,
		    size_t nrows, const struct gs_cfi_row *xrows, size_t nxrows,
		    struct gs_error *err);
/* The module entry of a cookie, or NULL. */
const struct gs_rowset_module *gs_rowset_module(const struct gs_rowset *s, uint64_t cookie);
/* The row for pc inside the cookie's range, or NULL. */
const struct gs_unwind_row *gs_rowset_find(const struct gs_rowset *s, uint64_t cookie,
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
 * *row_count.., then records their ranges (docs/unwind.md, "Many modules").
 * -ENOSPC "capacity exceeded" when rows would pass max_rows. */
int gs_rowset_write(const struct gs_rowset *s, const struct gs_map_writer *w,
			   uint32_t *row_count, uint32_t max_rows, struct gs_error *err);

/* One module of a process as the range maps see it. */
struct gs_range_item {
	uint64_t base, size, bias, cookie;
};

/* Reference 8.4: fills the inactive slot of pid with the snapshot, then
 * flips proc_module_range_meta[pid] to it. Slot entries are always written
 * as indices 0..n-1, so clearing deletes from 0 up to the first absent key. */
int gs_ranges_replace(const struct gs_map_writer *w, uint32_t pid,
			     const struct gs_range_item *items, size_t n, struct gs_error *err);
/* A process that is gone: both slots of pid and its meta entry deleted
 * (absent ones are no error). */
void gs_ranges_remove(const struct gs_map_writer *w, uint32_t pid);
/* proc_module_offsets[{pid, 0, cookie}] = offsets. */
int gs_offsets_write(const struct gs_map_writer *w, uint32_t pid, uint64_t cookie,
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
int gs_bt_rowtab_build(const struct gs_cfi_row *rows, size_t n, struct gs_bt_rowtab *out,
		       struct gs_error *err);
/* The rules of compact row i of t in full (decoded, or its overflow entry). */
void gs_bt_rowtab_rules(const struct gs_bt_rowtab *t, size_t i, struct gs_bt_rules *out);
void gs_bt_rowtab_free(struct gs_bt_rowtab *t);
/* The walker's lookup (protocol.h 2b): index into rows of the row covering
 * link-time pc, or -1 outside the pages (rows of kind NONE are returned as
 * they are). */
long gs_bt_rows_find(const struct gs_bt_row *rows, const uint32_t *pages,
			    uint64_t first_page, uint32_t npages, uint64_t pc);
/* Appends t to the tables and then records bt_module_rows[cookie] (nothing
 * when the cookie is there already). -ENOSPC when a table is full. */
int gs_bt_rowtab_write(const struct gs_map_writer *w, uint64_t cookie,
		       const struct gs_bt_rowtab *t, const struct gs_bt_table_caps *caps,
		       struct gs_error *err);
/* The same for every module of a rowset that bt_module_rows lacks, from
 * its xrows (gs_rowset_add_x). */
int gs_bt_rowset_write(const struct gs_rowset *s, const struct gs_map_writer *w,
		       const struct gs_bt_table_caps *caps, struct gs_error *err);
/* A process's sorted module snapshot in bt_modules (each entry with the
 * rows bt_module_rows has for it now), written into the region BPF does not
 * read, then bt_proc_modules[pid] flipped to it. `capacity`: bt_modules'
 * entries. */
int gs_bt_modules_replace(const struct gs_map_writer *w, uint32_t pid,
				 const struct gs_range_item *items, size_t n, uint32_t capacity,
				 struct gs_error *err);
/* Forgets pid's snapshot and returns its regions for reuse (a process that
 * is gone, or grew past its regions: replace frees the old pair itself). */
int gs_bt_modules_remove(const struct gs_map_writer *w, uint32_t pid,
				struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_INTERNAL_UNWIND_H */
