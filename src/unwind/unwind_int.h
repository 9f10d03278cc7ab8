/* Internals shared by the files of src/unwind: the CFI table being built
 * from a module's FDE ranges (the ranges and the fence come from the
 * modfile layer, gs/internal/modfile.h), the walk and its split, the loop
 * walker's row conversion, CFI tables cached on disk, and the per-process
 * range snapshot. Tests and fuzz targets check these steps one by one.
 * Not part of the public API. */
#ifndef GS_UNWIND_INT_H
#define GS_UNWIND_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/error.h>
#include <gs/internal/unwind.h>

#include <gs/internal/modfile.h>

struct Elf;
struct Dwarf_Frame_s; /* libdw's Dwarf_Frame */
struct gs_cfi_row;

/* ---- a CFI table being built (cfi.c) ---- */

/* The table and its arrays' capacities, and the zones not to ask libdw
 * about. */
struct uw_cfi_builder {
	struct gs_cfi_table *t;
	size_t rows_cap, dropped_cap, xrows_cap;
	bool oom;
	const struct mf_fde_range *zones; /* corrupt FDEs' ranges: sorted, disjoint */
	size_t nzones;
};

struct Dwarf_CFI_s; /* libdw's Dwarf_CFI */

/* With map: a table found in the on-disk cache is mapped, not read, its
 * arrays pointing into map (then freed by uw_cfi_table_unmap, not
 * gs_cfi_table_free); else, and for a table computed, map->addr is NULL. */
struct uw_cfi_mapping {
	void *addr;
	size_t size;
};
/* gs_cfi_table_from_elf with .eh_frame split from split_min_fdes FDEs
 * (tests: 0 splits whatever it can, SIZE_MAX never). */
int uw_cfi_table_build(struct Elf *elf, const struct gs_cfi_opts *opts, size_t split_min_fdes,
		       struct gs_cfi_table *out, struct uw_cfi_mapping *map,
		       struct gs_error *err);

/* ---- FDE ranges walked into rows (cfi_walk.c) ---- */

/* Appends the rows of the FDE ranges v[0..n), in that order, to b (rows,
 * xrows, dropped ranges and the per-row counts of b->t->stats). */
void uw_cfi_walk(struct uw_cfi_builder *b, struct Dwarf_CFI_s *cfi, const struct mf_fde_range *v,
		 size_t n);
/* Appends the dropped range [lo, hi) (none when empty), extending the
 * last one when it ends at lo for the same reason; counts nothing. */
void uw_cfi_add_dropped(struct uw_cfi_builder *b, uint64_t lo, uint64_t hi, int reason);
/* The same, counting a row dropped for reason in b->t->stats. */
void uw_cfi_drop(struct uw_cfi_builder *b, uint64_t lo, uint64_t hi, int reason);

/* ---- the walk on two threads (cfi_split.c) ---- */

/* .eh_frame of at least this many FDEs is walked on two threads. */
#define UW_CFI_SPLIT_MIN_FDES 1024
/* uw_cfi_walk over the sorted ranges v[0..n) on two threads: the caller's
 * on cfi (over elf), a worker's on handles of its own over elf's image;
 * the same table, byte for byte. -1 when it did not start (no image, no
 * handle, no thread): the caller walks serially; b untouched then. */
int uw_cfi_walk_split(struct uw_cfi_builder *b, struct Elf *elf, struct Dwarf_CFI_s *cfi,
		      const struct mf_fde_range *v, size_t n);

/* ---- the loop walker's rows (cfi_xrow.c) ---- */

/* The loop walker's row from a libdw frame: fills row->rules and returns
 * -1, or returns the enum gs_cfi_drop reason it cannot. */
int uw_convert_xrow(struct Dwarf_Frame_s *frame, int ra_reg, struct gs_cfi_row *row);
/* The same for every rule but the CFA, which row->rules.cfa already holds
 * (a PLT piece's rsp + off). */
int uw_convert_xrules(struct Dwarf_Frame_s *frame, int ra_reg, struct gs_cfi_row *row);

/* ---- PLT stubs (cfi_plt.c) ---- */

/* A .plt longer than this many 16-byte entries keeps its expression
 * (dropped as cfa_expression) rather than costing two rows per entry. */
#define UW_PLT_MAX_ENTRIES 65536
/* K (1-15) when frame's CFA is the linker's PLT expression, rsp + 8 +
 * ((pc & 15) >= K ? 8 : 0), over a row [lo, hi) of at most
 * UW_PLT_MAX_ENTRIES entries; -1 otherwise. */
int uw_plt_threshold(struct Dwarf_Frame_s *frame, uint64_t lo, uint64_t hi);
/* The piece of such a row holding addr: returns its end (at most hi) and
 * sets *cfa_off, the CFA's offset from rsp there (8 or 16). */
uint64_t uw_plt_piece(uint64_t addr, uint64_t hi, int k, int32_t *cfa_off);

/* ---- CFI tables on disk by build id (cfi_cache.c) ---- */

/* Load: 0, or -errno (absent, or not this format); with map, the arrays
 * are mapped (see struct uw_cfi_mapping). Store ignores failures (a
 * cache). */
int uw_cfi_cache_load(const char *dir, struct Elf *elf, const uint8_t *id, size_t len,
		      struct gs_cfi_table *t, struct uw_cfi_mapping *map);
void uw_cfi_cache_store(const char *dir, struct Elf *elf, const uint8_t *id, size_t len,
			const struct gs_cfi_table *t);
/* Frees t whichever way it was made. */
void uw_cfi_table_unmap(struct gs_cfi_table *t, struct uw_cfi_mapping *map);

/* ---- ranges (ranges.c) ---- */

/* The sorted values of one snapshot: items with base < base + size, as
 * {base, end, text=bias, cookie}, sorted by (base, end, cookie). Returns
 * how many of `out` (room for n) were filled. */
size_t uw_ranges_build(const struct gs_range_item *items, size_t n,
		       struct gs_proc_module_range *out);

#endif /* GS_UNWIND_INT_H */
