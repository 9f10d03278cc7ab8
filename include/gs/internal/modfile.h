/* The modfile layer's interface to the libgs layers built on it (unwind's
 * row walk and CFI cache, the dwarf layer's CFA checks and name search):
 * the FDE ranges of a file's CFI sections and the fence libdw stays
 * behind, files cached on disk by build id, the function-name index, and
 * the small helpers every reader of an ELF file shares (
 * opening an ELF, its build id, a mapped path normalized). Not installed,
 * not exported; src/runtime does not include it. The modfile layer's own
 * internals are in mf_int.h. */
#ifndef GS_INTERNAL_MODFILE_H
#define GS_INTERNAL_MODFILE_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gs/error.h>
#include <gs/modfile.h>

struct Elf;
struct gs_modfile;
struct gs_modfiles;

/* The address range of one FDE, [lo, hi) in link-time addresses. */
struct mf_fde_range {
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
struct mf_fde_ranges {
	struct mf_fde_range *v;
	size_t n, cap;
	size_t bad; /* FDEs skipped: undecodable address or CIE */
	size_t section_bytes; /* size of the section (0: none) */
	bool broken;          /* the walk stopped at a malformed entry, */
	size_t broken_at;     /* ... at this offset in the section */
	struct mf_fde_range *corrupt; /* ranges of the corrupt FDEs */
	size_t ncorrupt, ncorrupt_v, corrupt_cap;
	bool refused;         /* libdw must not read this section */
	size_t *offs;         /* (while reading) offsets of the FDE entries */
	size_t noffs, offs_cap;
};

/* Collects every FDE range of `.eh_frame` (eh_frame true) or `.debug_frame`,
 * walking the entries with dwarf_next_cfi(). A missing section gives an
 * empty list and 0. */
int mf_fde_ranges_read(struct Elf *elf, bool eh_frame, struct mf_fde_ranges *out,
		       struct gs_error *err);
void mf_fde_ranges_free(struct mf_fde_ranges *r);

/* Zones libdw is never asked about (cfi_fence.c): the corrupt FDEs'
 * ranges of a section, sorted and disjoint, or the whole of it. */
struct mf_cfi_fence {
	bool refused;
	struct mf_fde_range *zones;
	size_t nzones;
};

/* The fence of elf's .eh_frame (eh_frame true) or .debug_frame. */
int mf_cfi_fence_read(struct Elf *elf, bool eh_frame, struct mf_cfi_fence *out,
		      struct gs_error *err);
/* May libdw run this section's CFI to answer for pc? */
bool mf_cfi_fence_allows(const struct mf_cfi_fence *f, uint64_t pc);
void mf_cfi_fence_free(struct mf_cfi_fence *f);
/* Ranges by start (qsort), and sorted and merged in place: how many. */
int mf_range_cmp(const void *a, const void *b);
size_t mf_ranges_coalesce(struct mf_fde_range *v, size_t n);
/* The first of the sorted, disjoint zones[0..n) ending after addr. */
const struct mf_fde_range *mf_zone_after(const struct mf_fde_range *zones, size_t n,
					 uint64_t addr);

/* Files cached on disk by build id (cachefile.c), `<dir>/<build id hex><ext>`:
 * each kind's file starts with a header its reader builds (magic, version,
 * struct sizes, build id, mf_cache_content of what it was computed from)
 * and must repeat exactly; the rest is the kind's own, its size checked. */
#define MF_CACHE_EXT_CFI ".cfi"     /* unwind rows (src/unwind/cfi_cache.c) */
#define MF_CACHE_EXT_INDEX ".funcs" /* function-name indexes (funcindex.c) */
#define MF_CACHE_EXT_DEBUG ".debug" /* inflated debug files (debugcache.c) */
struct mf_cache_part {
	const void *data;
	size_t size;
};

/* A fast 64-bit hash of len bytes (not SipHash: see cachefile.c). */
uint64_t mf_cache_hash(uint64_t seed, const void *data, size_t len);
/* mf_cache_hash of the raw bytes of the named sections, chained in that
 * order (a section that is not there counts as empty). */
uint64_t mf_cache_content(struct Elf *elf, const char *const *names, size_t n);
/* The cache file opened (a regular file; *size its size), or -ENOENT
 * (absent), -EPERM (the directory is not to be trusted: see
 * gs_cache_dir_check), -EINVAL (not a regular file of the user's alone). */
int mf_cache_open(const char *dir, const uint8_t *id, size_t len, const char *ext,
		  uint64_t *size);
/* Reads the file's first hsize bytes: true when they equal header. */
bool mf_cache_pinned(int fd, uint64_t size, const void *header, size_t hsize);
/* Reads exactly n bytes. */
bool mf_cache_read(int fd, void *buf, size_t n);
/* Writes the parts, in order, under a temporary name renamed into place,
 * the directory created 0700 when absent and left alone when it is not to
 * be trusted; failures are ignored (a cache). */
void mf_cache_store(const char *dir, const uint8_t *id, size_t len, const char *ext,
		    const struct mf_cache_part *parts, size_t nparts);
/* ---- function-name index (funcindex.c) ---------------------------------- */

/* One name of the index: its DIEs are offs[first .. first + count). */
struct mf_funcname {
	uint32_t name; /* offset of the NUL-terminated name in the pool */
	uint32_t first, count;
	uint32_t pad;
};

struct mf_funcindex;
/* The walk the index stands for: dwarf_getfuncs over every compile (and
 * partial) unit in order. 0, or -ECANCELED when cb aborted it. */
int mf_funcindex_walk(Dwarf *dw, int (*cb)(Dwarf_Die *die, void *arg), void *arg);
/* The index of dw by that walk: 0, -ENOMEM, -E2BIG (over 2^32 names). */
int mf_funcindex_build(Dwarf *dw, struct mf_funcindex **out);
/* From <dir>/<build id>.funcs, valid only for the DWARF in elf (its
 * sections' hash is pinned): 0, -ENOENT (none), -EINVAL (not this format,
 * another DWARF, or malformed), -ENOMEM. */
int mf_funcindex_load(const char *dir, struct Elf *elf, const uint8_t *id, size_t len,
		      struct mf_funcindex **out);
/* The part of such a file after its pinned header (counts, then arrays),
 * checked in every respect: 0, -EINVAL, -ENOMEM. */
int mf_funcindex_parse(const void *body, size_t size, struct mf_funcindex **out);
/* Writes it there; failures are ignored (a cache). */
void mf_funcindex_store(const char *dir, struct Elf *elf, const uint8_t *id, size_t len,
			const struct mf_funcindex *x);
void mf_funcindex_free(struct mf_funcindex *x);
/* The DIE offsets of the subprograms called name, in walk order: how many. */
size_t mf_funcindex_find(const struct mf_funcindex *x, const char *name, const uint64_t **offs);
/* The names, sorted (strcmp): how many, and the i-th with its DIEs. */
/* The position of the first name not below key (names are sorted by
 * strcmp: a prefix's names are the run from there). */
size_t mf_funcindex_lower(const struct mf_funcindex *x, const char *key);
size_t mf_funcindex_count(const struct mf_funcindex *x);
const char *mf_funcindex_at(const struct mf_funcindex *x, size_t i, const uint64_t **offs,
			    size_t *n);

/* The function-name index of m's DWARF, built on first use by one walk of
 * every unit, or read from the cache directory when a run before this one
 * left it there (and then written there). 0; -ENOENT when m has no DWARF;
 * -ENOMEM. *from_disk (may be NULL): it was read from the cache. */
int mf_modfile_funcs(struct gs_modfile *m, const struct mf_funcindex **out, bool *from_disk);

/* ---- helpers (elf_util.c, module.c) ---- */


/* Opens path read-only as an ELF; *fd and *elf on success, else -errno
 * with a message naming the path. */
int mf_elf_open(const char *path, int *fd, struct Elf **elf, struct gs_error *err);
void mf_elf_close(int fd, struct Elf *elf);

/* Strips a trailing " (deleted)" and turns every "/./" into "/". Returns
 * the length, or -ENAMETOOLONG when out (size bytes) is too small. */
int mf_path_normalize(const char *path, char *out, size_t size);
/* The GNU build id note of an ELF: its length (0: none) and *id into the
 * ELF's data; -EINVAL when the notes are malformed. */
int mf_elf_build_id(struct Elf *elf, const uint8_t **id, size_t *len);

/* ---- what a target names (procexe.c, ifunc.c) ---- */

struct stat;
/* gs_proc_exe's answer, and the identity of /proc/PID/exe in *exe. */
int mf_proc_exe(pid_t pid, char **path, struct stat *exe, struct gs_error *err);
/* The module `name` of `module:0xADDR` (input): an existing path, else the
 * one module pid maps whose path ends in it; *out malloc'd. */
int mf_find_module(const char *input, const char *name, pid_t pid, struct gs_modfiles *files,
		   char **out, struct gs_error *err);
/* The implementation pid's dynamic linker chose for the IFUNC of file
 * (named path in pid's maps) whose resolver is at `resolver`: read from
 * the module's GOT in the process, as a link-time address of the module.
 * false when it cannot be known (no pid, no IRELATIVE slot, unreadable). */
bool mf_ifunc_selected(struct gs_modfile *file, const char *path, pid_t pid, uint64_t resolver,
		       uint64_t *impl);

/* ---- the kernel's symbols (kallsyms.c) ---- */

/* Text symbols of path (NULL: /proc/kallsyms), sorted by address; an
 * empty table where addresses read as 0 (kptr_restrict). */
struct gs_kallsyms;
int gs_kallsyms_load(const char *path, struct gs_kallsyms **out, struct gs_error *err);
/* The function at or below addr and *off from it, or NULL. */
const char *gs_kallsyms_find(const struct gs_kallsyms *k, uint64_t addr, uint64_t *off);
void gs_kallsyms_free(struct gs_kallsyms *k);

/* ---- a JIT runtime's perf map (perfmap.c) ---- */

/* /tmp/perf-PID.map (docs/jit.md): `START SIZE NAME` a line, the newest
 * line winning where two overlap. Bounded: entries and name bytes past
 * these caps are not read; a longer name is cut to GS_PERFMAP_MAX_NAME. */
#define GS_PERFMAP_MAX_ENTRIES (2u << 20)
#define GS_PERFMAP_MAX_NAME 1024
#define GS_PERFMAP_MAX_NAME_BYTES (256u << 20)
struct gs_perfmap;
/* pid's perf map, read now: /proc/PID/root/tmp/perf-NSPID.map (NSpid: its
 * pid in its own namespace), or /tmp/perf-PID.map when its root cannot be
 * read. NULL with errno (ENOENT: none written yet) when it cannot be read. */
struct gs_perfmap *gs_perfmap_open(pid_t pid);
/* The same for a file named directly. */
struct gs_perfmap *gs_perfmap_open_path(const char *path);
/* Reads on from where the last read stopped when the file grew (its size
 * or mtime changed), from the start when it is another file or shrank: 1
 * when entries were added, 0 when nothing changed, or -errno (the map
 * keeps what it had). */
int gs_perfmap_refresh(struct gs_perfmap *m);
/* The name of the entry covering addr (the runtime's text, NUL-ended) and
 * *off = addr - its start, or NULL; valid until gs_perfmap_free (names
 * never move, also when the file is read anew). */
const char *gs_perfmap_lookup(const struct gs_perfmap *m, uint64_t addr, uint64_t *off);
/* Entries read (lines that parsed, up to the cap). */
size_t gs_perfmap_count(const struct gs_perfmap *m);
void gs_perfmap_free(struct gs_perfmap *m);

/* ---- what names a process in a profile (procinfo.c) ---- */

/* A container id: 64 lowercase hex digits. */
#define GS_CONTAINER_ID_LEN 64
/* The container a /proc/PID/cgroup text (len bytes, need not end in NUL)
 * says the process runs in: the id in docker-ID.scope,
 * cri-containerd-ID.scope, crio-ID.scope, libpod-ID.scope, or a directory
 * that is the id (/docker/ID, kubepods' pod directories), the innermost
 * one of the first line naming one. 0 and the id NUL-ended in id; -ENOENT
 * when none (id empty), -ENOSPC when size < GS_CONTAINER_ID_LEN + 1. */
int gs_cgroup_container_id(const char *text, size_t len, char *id, size_t size);

/* A process's names, raw (the process chose them: escape to print). */
struct gs_procinfo {
	char comm[16];      /* /proc/PID/comm, its newline dropped */
	char exe[4096];     /* the link /proc/PID/exe, "" when unreadable */
	char container[GS_CONTAINER_ID_LEN + 1]; /* "" when none */
};
/* Reads them now: 0, -ENOENT when the process is gone, -EINVAL for a
 * pid <= 0, or the -errno of reading its comm. */
int gs_procinfo_read(pid_t pid, struct gs_procinfo *out);

/* ---- a module file's CFI rows, which the unwind layer builds ---- */

/* The rows of every file of a cache with one cookie (build id), kept by
 * the cache and filled by unwind's gs_modfile_cfi (modfile_cfi.c there):
 * rc and msg its answer (msg without the file's path), table what unwind built (this layer does not
 * know its type), fini what frees it with the cache. */
struct mf_cfi_slot {
	uint64_t cookie;
	bool filled;
	int rc;
	char *msg; /* malloc'd (a message's room in each would be MiBs for a
		    * process's modules); NULL with rc: out of memory */
	void *table;
	void (*fini)(void *table);
};

/* m's slot, created empty on the first ask for its cookie; NULL when out
 * of memory. *cache_dir: the cache's cfi_cache_dir (NULL: none). */
struct mf_cfi_slot *mf_modfile_cfi_slot(struct gs_modfile *m, const char **cache_dir);

#endif /* GS_INTERNAL_MODFILE_H */
