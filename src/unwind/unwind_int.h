/* Internals shared by the files of src/unwind: FDE ranges of a CFI section,
 * a growable array helper, the ELF opening every reader does the same way,
 * the module-file cache's debug-file search, and the steps behind the
 * public module and range calls (cookies, path normalization, maps
 * grouping, load bias), which tests and fuzz targets check one by one. Not
 * part of the public API. */
#ifndef GS_UNWIND_INT_H
#define GS_UNWIND_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/error.h>
#include <gs/unwind.h>

struct Elf;
struct Dwarf_Frame_s; /* libdw's Dwarf_Frame */
struct gs_cfi_row;

/* The address range of one FDE, [lo, hi) in link-time addresses. */
struct uw_fde_range {
	uint64_t lo, hi;
	bool signal;  /* its CIE's augmentation has 'S': a signal trampoline */
	uint32_t ops; /* CFA instructions of it and its CIE (libdw's steps per row) */
};

/* The FDEs of a CFI section. Every FDE libdw could be made to run (those
 * on the chain of entries, read on past a broken one as libdw does, and
 * those .eh_frame_hdr's search table names) has its instructions checked
 * first (cfi_scan.c); one that fails is "corrupt": its range is kept so
 * that libdw is never asked about an address in it. When that cannot be
 * ensured (a failing FDE whose range is not known here, an entry libdw may
 * read otherwise, a search table naming FDEs off the chain) the section is
 * refused: libdw must not be given it at all. */
struct uw_fde_ranges {
	struct uw_fde_range *v;
	size_t n, cap;
	size_t bad; /* FDEs skipped: undecodable address or CIE */
	size_t section_bytes; /* size of the section (0: none) */
	bool broken;          /* the walk stopped at a malformed entry, */
	size_t broken_at;     /* ... at this offset in the section */
	struct uw_fde_range *corrupt; /* ranges of the corrupt FDEs */
	size_t ncorrupt, ncorrupt_v, corrupt_cap;
	bool refused;         /* libdw must not read this section */
	size_t *offs;         /* (while reading) offsets of the FDE entries */
	size_t noffs, offs_cap;
};

/* Collects every FDE range of `.eh_frame` (eh_frame true) or `.debug_frame`,
 * walking the entries with dwarf_next_cfi(). A missing section gives an
 * empty list and 0. */
int uw_fde_ranges_read(struct Elf *elf, bool eh_frame, struct uw_fde_ranges *out,
		       struct gs_error *err);
void uw_fde_ranges_free(struct uw_fde_ranges *r);
/* True unless .eh_frame_hdr's search table (where libdw looks an address
 * up first) names an FDE other than those at offs[0..n) (sorted) of the
 * .eh_frame at eh_addr, or cannot be read the way libdw reads it. */
bool uw_eh_frame_hdr_matches(struct Elf *elf, uint64_t eh_addr, const size_t *offs, size_t n);

/* ---- CFA instructions checked before libdw runs them (cfi_scan.c) ---- */

/* The largest DWARF register number of x86-64 (psABI table 3.36 and its
 * APX extension): GPRs and RA 0-16, xmm0-15 17-32, st0-7 33-40, mm0-7
 * 41-48, rflags 49, es..gs 50-55, fs.base/gs.base 58-59, tr/ldtr 62-63,
 * mxcsr/fcw/fsw 64-66, xmm16-31 67-82, k0-7 118-125, APX r16-r31 130-145.
 * Anything above names no register: libdw would size its array by it. */
#define UW_CFA_MAX_REGISTER 145
/* remember_state nesting: compilers nest one or two (libdw copies the
 * whole register state at each). */
#define UW_CFA_MAX_STATE_DEPTH 64
/* A DWARF expression in CFI: compilers and libc write at most a few
 * dozen bytes (libdw turns each byte into a 32-byte op when asked). */
#define UW_CFA_MAX_EXPRESSION 1024
/* Instructions of a CIE and FDE together, and (rows + 1) x instructions
 * of an FDE: the steps libdw takes to give every row of it, since it
 * re-runs the FDE from its start for each (about 1 ns a step). The
 * largest FDE of 2.4 million in /usr/lib and /usr/bin here, in gcc 12's
 * lto1, has 13,361 instructions over 6,677 rows: 89 M steps, 95 ms. The
 * budget is three times that, so an FDE costs at most about 0.3 s. */
#define UW_CFA_MAX_OPS 65536
#define UW_CFA_MAX_WORK (1ull << 28)

enum uw_cfa_reason {
	UW_CFA_OK,
	UW_CFA_BAD_OPCODE,
	UW_CFA_TRUNCATED,
	UW_CFA_BAD_REGISTER,
	UW_CFA_ROW_IN_CIE,
	UW_CFA_STATE_DEPTH,
	UW_CFA_LONG_EXPRESSION,
	UW_CFA_TOO_LONG,
	UW_CFA_TOO_MUCH_WORK,
	UW_CFA_NREASONS
};

struct uw_cfa_scan_in {
	bool cie;         /* a CIE's initial instructions: no row may move */
	int fde_encoding; /* DW_EH_PE_* of DW_CFA_set_loc's operand */
	unsigned addr_size;
};

struct uw_cfa_scan_out {
	uint32_t ops, rows, max_depth;
};

/* Checks the instructions [p, end): UW_CFA_OK and the counts, or the
 * first reason they cannot be given to libdw. */
/* A ULEB128 read the way libdw reads one, so that fields and instructions
 * end where libdw thinks they do: ten bytes at most (one that goes on
 * reads as UINT64_MAX, and libdw takes its eleventh byte for what comes
 * next); false when cut short. An SLEB128 takes as many bytes. */
bool uw_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
int uw_cfa_scan(const uint8_t *p, const uint8_t *end, const struct uw_cfa_scan_in *in,
		struct uw_cfa_scan_out *out);
/* The budget of an FDE run after its CIE: UW_CFA_OK or the reason. */
int uw_cfa_scan_pair(const struct uw_cfa_scan_out *cie, const struct uw_cfa_scan_out *fde);
/* A phrase for a reason ("a register number outside ..."). */
const char *uw_cfa_scan_name(int reason);

/* Zones libdw is never asked about (cfi_fence.c): the corrupt FDEs'
 * ranges of a section, sorted and disjoint, or the whole of it. */
struct uw_cfi_fence {
	bool refused;
	struct uw_fde_range *zones;
	size_t nzones;
};

/* The fence of elf's .eh_frame (eh_frame true) or .debug_frame. */
int uw_cfi_fence_read(struct Elf *elf, bool eh_frame, struct uw_cfi_fence *out,
		      struct gs_error *err);
/* May libdw run this section's CFI to answer for pc? */
bool uw_cfi_fence_allows(const struct uw_cfi_fence *f, uint64_t pc);
void uw_cfi_fence_free(struct uw_cfi_fence *f);
/* Ranges by start (qsort), and sorted and merged in place: how many. */
int uw_range_cmp(const void *a, const void *b);
size_t uw_ranges_coalesce(struct uw_fde_range *v, size_t n);
/* The first of the sorted, disjoint zones[0..n) ending after addr. */
const struct uw_fde_range *uw_zone_after(const struct uw_fde_range *zones, size_t n,
					 uint64_t addr);

/* A CFI table being built (cfi.c): the arrays' capacities beside it. */
struct uw_cfi_builder {
	struct gs_cfi_table *t;
	size_t rows_cap, dropped_cap, xrows_cap;
	bool oom;
	const struct uw_fde_range *zones; /* corrupt FDEs' ranges: sorted, disjoint */
	size_t nzones;
};

struct Dwarf_CFI_s; /* libdw's Dwarf_CFI */

/* Appends the rows of the FDE ranges v[0..n), in that order, to b (rows,
 * xrows, dropped ranges and the per-row counts of b->t->stats). */
void uw_cfi_walk(struct uw_cfi_builder *b, struct Dwarf_CFI_s *cfi, const struct uw_fde_range *v,
		 size_t n);
/* Appends the dropped range [lo, hi) (none when empty), extending the
 * last one when it ends at lo for the same reason; counts nothing. */
void uw_cfi_add_dropped(struct uw_cfi_builder *b, uint64_t lo, uint64_t hi, int reason);

/* .eh_frame of at least this many FDEs is walked on two threads. */
#define UW_CFI_SPLIT_MIN_FDES 1024
/* uw_cfi_walk over the sorted ranges v[0..n) on two threads (cfi_split.c):
 * the caller's on cfi (over elf), a worker's on handles of its own over
 * elf's image; the same table, byte for byte. -1 when it did not start (no image, no
 * handle, no thread): the caller walks serially; b untouched then. */
int uw_cfi_walk_split(struct uw_cfi_builder *b, struct Elf *elf, struct Dwarf_CFI_s *cfi,
		      const struct uw_fde_range *v, size_t n);
/* gs_cfi_table_from_elf with .eh_frame split from split_min_fdes FDEs
 * (tests: 0 splits whatever it can, SIZE_MAX never). */
int uw_cfi_table_build(struct Elf *elf, const struct gs_cfi_opts *opts, size_t split_min_fdes,
		       struct gs_cfi_table *out, struct gs_error *err);

/* The loop walker's row from a libdw frame (cfi_xrow.c): fills row->rules
 * and returns -1, or returns the enum gs_cfi_drop reason it cannot. */
int uw_convert_xrow(struct Dwarf_Frame_s *frame, int ra_reg, struct gs_cfi_row *row);

/* Files cached on disk by build id (cachefile.c), `<dir>/<build id hex><ext>`:
 * each kind's file starts with a header its reader builds (magic, version,
 * struct sizes, build id, uw_cache_content of what it was computed from)
 * and must repeat exactly; the rest is the kind's own, its size checked. */
struct uw_cache_part {
	const void *data;
	size_t size;
};

/* A fast 64-bit hash of len bytes (not SipHash: see cachefile.c). */
uint64_t uw_cache_hash(uint64_t seed, const void *data, size_t len);
/* uw_cache_hash of the raw bytes of the named sections, chained in that
 * order (a section that is not there counts as empty). */
uint64_t uw_cache_content(struct Elf *elf, const char *const *names, size_t n);
/* The cache file opened (a regular file; *size its size), or -ENOENT
 * (absent), -EPERM (the directory is not to be trusted: see
 * gs_cache_dir_check), -EINVAL (not a regular file of the user's alone). */
int uw_cache_open(const char *dir, const uint8_t *id, size_t len, const char *ext,
		  uint64_t *size);
/* Reads the file's first hsize bytes: true when they equal header. */
bool uw_cache_pinned(int fd, uint64_t size, const void *header, size_t hsize);
/* Reads exactly n bytes. */
bool uw_cache_read(int fd, void *buf, size_t n);
/* Writes the parts, in order, under a temporary name renamed into place,
 * the directory created 0700 when absent and left alone when it is not to
 * be trusted; failures are ignored (a cache). */
void uw_cache_store(const char *dir, const uint8_t *id, size_t len, const char *ext,
		    const struct uw_cache_part *parts, size_t nparts);

/* Debug files cached with their compressed sections inflated
 * (debugcache.c), `<dir>/<build id hex>.debug`: the ELF image, then a
 * trailer naming the file it was made from. */
struct uw_debugcache_src {
	uint64_t dev, ino, size;
	int64_t mtime_ns;
};
#define UW_DEBUGCACHE_TRAILER_SIZE 128
/* The trailer a copy of src of image_size bytes carries (the fuzz target
 * seals its inputs with it). */
void uw_debugcache_seal(uint8_t *trailer, uint64_t image_size, const struct uw_debugcache_src *src,
			const uint8_t *id, size_t len);
/* The identity of the regular file fd (false: not one). */
bool uw_debugcache_src_of(int fd, struct uw_debugcache_src *out);
/* True when the size bytes of fd are a cached copy of src carrying build
 * id id: the trailer matches exactly, and the image is an ELF file with
 * that build id. Anything else is refused. */
bool uw_debugcache_accept(int fd, uint64_t size, const struct uw_debugcache_src *src,
			  const uint8_t *id, size_t len);
/* The cached copy of the debug file open as src_fd, or -1. */
int uw_debugcache_open(const char *dir, const uint8_t *id, size_t len, int src_fd);
/* Writes the copy of debug_elf (libdw's handle on the debug file at
 * src_path) when libdw inflated sections of it; nothing otherwise (a copy
 * read, no compressed section), and failures are ignored (a cache). */
void uw_debugcache_store(const char *dir, const uint8_t *id, size_t len,
			 struct Elf *debug_elf, const char *src_path);

/* CFI tables on disk by build id (cfi_cache.c): load 0 or -errno (absent,
 * or not this format); store ignores failures (a cache). */
struct gs_cfi_table;
int uw_cfi_cache_load(const char *dir, struct Elf *elf, const uint8_t *id, size_t len,
		      struct gs_cfi_table *t);
void uw_cfi_cache_store(const char *dir, struct Elf *elf, const uint8_t *id, size_t len,
			const struct gs_cfi_table *t);

/* ---- function-name index (funcindex.c) ---------------------------------- */

#include <elfutils/libdw.h>

/* One name of the index: its DIEs are offs[first .. first + count). */
struct uw_funcname {
	uint32_t name; /* offset of the NUL-terminated name in the pool */
	uint32_t first, count;
	uint32_t pad;
};

struct uw_funcindex;
/* The walk the index stands for: dwarf_getfuncs over every compile (and
 * partial) unit in order. 0, or -ECANCELED when cb aborted it. */
int uw_funcindex_walk(Dwarf *dw, int (*cb)(Dwarf_Die *die, void *arg), void *arg);
/* The index of dw by that walk: 0, -ENOMEM, -E2BIG (over 2^32 names). */
int uw_funcindex_build(Dwarf *dw, struct uw_funcindex **out);
/* From <dir>/<build id>.funcs, valid only for the DWARF in elf (its
 * sections' hash is pinned): 0, -ENOENT (none), -EINVAL (not this format,
 * another DWARF, or malformed), -ENOMEM. */
int uw_funcindex_load(const char *dir, struct Elf *elf, const uint8_t *id, size_t len,
		      struct uw_funcindex **out);
/* The part of such a file after its pinned header (counts, then arrays),
 * checked in every respect: 0, -EINVAL, -ENOMEM. */
int uw_funcindex_parse(const void *body, size_t size, struct uw_funcindex **out);
/* Writes it there; failures are ignored (a cache). */
void uw_funcindex_store(const char *dir, struct Elf *elf, const uint8_t *id, size_t len,
			const struct uw_funcindex *x);
void uw_funcindex_free(struct uw_funcindex *x);
/* The DIE offsets of the subprograms called name, in walk order: how many. */
size_t uw_funcindex_find(const struct uw_funcindex *x, const char *name, const uint64_t **offs);
/* The names, sorted (strcmp): how many, and the i-th with its DIEs. */
size_t uw_funcindex_count(const struct uw_funcindex *x);
const char *uw_funcindex_at(const struct uw_funcindex *x, size_t i, const uint64_t **offs,
			    size_t *n);

/* Grows *v (element size `size`) so that it holds at least `need`
 * elements; 0 or -ENOMEM. */
int uw_grow(void **v, size_t *cap, size_t need, size_t size);

/* Opens path read-only as an ELF; *fd and *elf on success, else -errno
 * with a message naming the path. */
int uw_elf_open(const char *path, int *fd, struct Elf **elf, struct gs_error *err);
void uw_elf_close(int fd, struct Elf *elf);

/* ---- module files (modfile.c, modfile_debug.c) ---------------------------- */

#include <elfutils/libdwfl.h>

/* libdwfl's find_debuginfo for the module-file cache: build-id directories,
 * the debug link beside the module (opened without blocking, build id and
 * CRC checked), then the debug roots and debuginfod through libdwfl. */
int uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink, GElf_Word crc,
		      char **debuginfo_file_name);
/* The function-name index of m's DWARF, built on first use by one walk of
 * every unit, or read from the cache directory when a run before this one
 * left it there (and then written there). 0; -ENOENT when m has no DWARF;
 * -ENOMEM. *from_disk (may be NULL): it was read from the cache. */
struct gs_modfile;
int uw_modfile_funcs(struct gs_modfile *m, const struct uw_funcindex **out, bool *from_disk);
/* dirs is one or more absolute directories separated by ':'. */
bool uw_debug_dirs_valid(const char *dirs);
/* "a FIFO", "a directory", ... for an st_mode. */
const char *uw_file_kind(unsigned mode);
/* A path that may name a module: not under /proc or /sys, except a
 * process's view of its root (/proc/PID/root/...). */
bool uw_path_visible(const char *p);


/* ---- ranges (ranges.c) ---- */

/* The sorted values of one snapshot: items with base < base + size, as
 * {base, end, text=bias, cookie}, sorted by (base, end, cookie). Returns
 * how many of `out` (room for n) were filled. */
size_t uw_ranges_build(const struct gs_range_item *items, size_t n,
		       struct gs_proc_module_range *out);
/* ---- module identity (module.c, siphash.c) ---- */

/* SipHash-1-3 with 128-bit key (k0, k1) over len bytes. */
uint64_t uw_siphash13(uint64_t k0, uint64_t k1, const void *data, size_t len);
/* Cookie of a GNU build id: SipHash-1-3(0, 0, le64(len) || id). */
uint64_t uw_cookie_from_build_id(const void *id, size_t len);
/* Cookie of a readable file without build id: (dev & 0xffffffff) << 32 | (ino & 0xffffffff). */
uint64_t uw_cookie_from_dev_ino(uint64_t dev, uint64_t ino);
/* Cookie of a file that cannot be opened: SipHash-1-3(0, 0, path || 0xff). */
uint64_t uw_cookie_from_path(const char *normalized_path);

/* Strips a trailing " (deleted)" and turns every "/./" into "/". Returns
 * the length, or -ENAMETOOLONG when out (size bytes) is too small. */
int uw_path_normalize(const char *path, char *out, size_t size);
/* The GNU build id note of an ELF: its length (0: none) and *id into the
 * ELF's data; -EINVAL when the notes are malformed. */
int uw_elf_build_id(struct Elf *elf, const uint8_t **id, size_t *len);

/* ---- /proc/PID/maps grouping (procmaps.c) ---- */

/* One mapped file (reference 8.2): same normalized path and same
 * (dev, inode); its mappings as indices into the gs_maps, in maps order. */
struct uw_maps_module {
	const char *path; /* owned by the gs_maps */
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	bool deleted;
	size_t *maps;
	size_t nmaps;
	uint64_t base, end; /* lowest start, highest end */
};

/* Groups the file mappings, skipping anonymous ones, '[' pseudo paths and
 * /proc or /sys paths. Modules come in order of first appearance. */
int uw_maps_group(const struct gs_maps *m, struct uw_maps_module **out, size_t *n,
		  struct gs_error *err);
void uw_maps_modules_free(struct uw_maps_module *mods, size_t n);

/* ---- load bias (layout.c) ---- */

#define UW_ELF_MAX_LOADS 16

struct uw_elf_load {
	uint64_t offset, vaddr, filesz, memsz;
};

/* What bias computation needs from the ELF file. */
struct uw_elf_layout {
	uint16_t type; /* ET_EXEC, ET_DYN */
	size_t nloads;
	struct uw_elf_load loads[UW_ELF_MAX_LOADS];
	bool has_anchor;
	uint64_t anchor; /* address of the first .text*, else .rodata*, .data*, .bss* section */
};

/* A mapping of the module: [start, end) maps file bytes from file_offset. */
struct uw_map_candidate {
	uint64_t start, end, file_offset;
};

int uw_elf_layout_read(struct Elf *elf, struct uw_elf_layout *out, struct gs_error *err);
/* Reference 8.3: base, size and the load bias (in all four section slots).
 * -ENOENT when no PT_LOAD matches any mapping. */
int uw_module_offsets_compute(const struct uw_elf_layout *layout,
			      const struct uw_map_candidate *maps, size_t n,
			      struct gs_proc_module_offsets *out, struct gs_error *err);

/* A module file's load segments and anchor, read once (modfile.c). */
int uw_modfile_layout(struct gs_modfile *m, const struct uw_elf_layout **out,
		      struct gs_error *err);

#endif /* GS_UNWIND_INT_H */
