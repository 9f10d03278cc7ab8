/* Internals shared by the files of src/modfile: the module-file cache's
 * own structures (modfile.c opening, layout and symbols; modfile_prefetch.c
 * reading a file's debug information ahead of time on a worker thread),
 * and the steps behind the public module and /proc calls (CFA checks,
 * cookies, maps grouping, load bias, debug-file caches), which tests and
 * fuzz targets check one by one. What the layers above use is in
 * gs/internal/modfile.h. Not part of the API. */
#ifndef GS_MODFILE_MF_INT_H
#define GS_MODFILE_MF_INT_H

#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/stat.h>

#include <gs/modfile.h>
#include <gs/python.h>

#include <gs/internal/modfile.h>

/* ---- .eh_frame_hdr against the FDE chain (cfi_hdr.c) ---- */

/* True unless .eh_frame_hdr's search table (where libdw looks an address
 * up first) names an FDE other than those at offs[0..n) (sorted) of the
 * .eh_frame at eh_addr, or cannot be read the way libdw reads it. */
bool mf_eh_frame_hdr_matches(struct Elf *elf, uint64_t eh_addr, const size_t *offs, size_t n);

/* ---- LEB128 numbers as libdw reads them (leb128.c) ---- */

/* A ULEB128 read the way libdw reads one, so that fields and instructions
 * end where libdw thinks they do: ten bytes at most (one that goes on
 * reads as UINT64_MAX, and libdw takes its eleventh byte for what comes
 * next); false when cut short. */
bool mf_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
/* An SLEB128 takes as many bytes (one that goes on reads as INT64_MAX). */
bool mf_read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v);

/* ---- CFA instructions checked before libdw runs them (cfi_scan.c) ---- */

/* The largest DWARF register number of x86-64 (psABI table 3.36 and its
 * APX extension): GPRs and RA 0-16, xmm0-15 17-32, st0-7 33-40, mm0-7
 * 41-48, rflags 49, es..gs 50-55, fs.base/gs.base 58-59, tr/ldtr 62-63,
 * mxcsr/fcw/fsw 64-66, xmm16-31 67-82, k0-7 118-125, APX r16-r31 130-145.
 * Anything above names no register: libdw would size its array by it. */
#define MF_CFA_MAX_REGISTER 145
/* remember_state nesting: compilers nest one or two (libdw copies the
 * whole register state at each). */
#define MF_CFA_MAX_STATE_DEPTH 64
/* A DWARF expression in CFI: compilers and libc write at most a few
 * dozen bytes (libdw turns each byte into a 32-byte op when asked). */
#define MF_CFA_MAX_EXPRESSION 1024
/* Instructions of a CIE and FDE together, and (rows + 1) x instructions
 * of an FDE: the steps libdw takes to give every row of it, since it
 * re-runs the FDE from its start for each (about 1 ns a step). The
 * largest FDE of 2.4 million in /usr/lib and /usr/bin here, in gcc 12's
 * lto1, has 13,361 instructions over 6,677 rows: 89 M steps, 95 ms. The
 * budget is three times that, so an FDE costs at most about 0.3 s. */
#define MF_CFA_MAX_OPS 65536
#define MF_CFA_MAX_WORK (1ull << 28)

enum mf_cfa_reason {
	MF_CFA_OK,
	MF_CFA_BAD_OPCODE,
	MF_CFA_TRUNCATED,
	MF_CFA_BAD_REGISTER,
	MF_CFA_ROW_IN_CIE,
	MF_CFA_STATE_DEPTH,
	MF_CFA_LONG_EXPRESSION,
	MF_CFA_TOO_LONG,
	MF_CFA_TOO_MUCH_WORK,
	MF_CFA_NREASONS
};

struct mf_cfa_scan_in {
	bool cie;         /* a CIE's initial instructions: no row may move */
	int fde_encoding; /* DW_EH_PE_* of DW_CFA_set_loc's operand */
	unsigned addr_size;
};

struct mf_cfa_scan_out {
	uint32_t ops, rows, max_depth;
};

/* Checks the instructions [p, end): MF_CFA_OK and the counts, or the
 * first reason they cannot be given to libdw. */
int mf_cfa_scan(const uint8_t *p, const uint8_t *end, const struct mf_cfa_scan_in *in,
		struct mf_cfa_scan_out *out);
/* The budget of an FDE run after its CIE: MF_CFA_OK or the reason. */
int mf_cfa_scan_pair(const struct mf_cfa_scan_out *cie, const struct mf_cfa_scan_out *fde);
/* A phrase for a reason ("a register number outside ..."). */
const char *mf_cfa_scan_name(int reason);

/* ---- the cache directory, trusted or not (cachefile.c) ---- */

/* The cache directory opened without following a link and judged on that
 * descriptor (created 0700 when absent and create): its descriptor, or
 * -ENOENT, -EPERM (not to be trusted), -ELOOP (a symbolic link), -errno,
 * with why in why. */
int mf_cache_dir_open(const char *dir, bool create, char *why, size_t size);
/* Why a cache directory or file (st) is not to be trusted, in why, or NULL. */
const char *mf_cache_distrust(const struct stat *st, char *why, size_t size);
/* A hit older than this (seconds) marks its file used again (mtime). */
#define MF_CACHE_TOUCH_S 60

/* ---- debug files cached inflated (debugcache.c) ---- */

/* Debug files cached with their compressed sections inflated
 * (debugcache.c), `<dir>/<build id hex>.debug`: the ELF image, then a
 * trailer naming the file it was made from. */
struct mf_debugcache_src {
	uint64_t dev, ino, size;
	int64_t mtime_ns;
};
#define MF_DEBUGCACHE_TRAILER_SIZE 128
/* The trailer a copy of src of image_size bytes carries (the fuzz target
 * seals its inputs with it). */
void mf_debugcache_seal(uint8_t *trailer, uint64_t image_size, const struct mf_debugcache_src *src,
			const uint8_t *id, size_t len);
/* The identity of the regular file fd (false: not one). */
bool mf_debugcache_src_of(int fd, struct mf_debugcache_src *out);
/* True when the size bytes of fd are a cached copy of src carrying build
 * id id: the trailer matches exactly, and the image is an ELF file with
 * that build id. Anything else is refused. */
bool mf_debugcache_accept(int fd, uint64_t size, const struct mf_debugcache_src *src,
			  const uint8_t *id, size_t len);
/* The cached copy of the debug file open as src_fd, or -1. */
int mf_debugcache_open(const char *dir, const uint8_t *id, size_t len, int src_fd);
/* Writes the copy of debug_elf (libdw's handle on the debug file at
 * src_path) when libdw inflated sections of it; nothing otherwise (a copy
 * read, no compressed section), and failures are ignored (a cache). */
void mf_debugcache_store(const char *dir, const uint8_t *id, size_t len,
			 struct Elf *debug_elf, const char *src_path);

/* ---- the debug-file search (modfile_debug.c) ---- */

/* libdwfl's find_debuginfo for the module-file cache: build-id directories,
 * the debug link beside the module (opened without blocking, build id and
 * CRC checked), then the debug roots and debuginfod through libdwfl. */
int mf_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink, GElf_Word crc,
		      char **debuginfo_file_name);
/* dirs is one or more absolute directories separated by ':'. */
bool mf_debug_dirs_valid(const char *dirs);
/* "a FIFO", "a directory", ... for an st_mode. */
const char *mf_file_kind(unsigned mode);
/* A path that may name a module: not under /proc or /sys, except a
 * process's view of its root (/proc/PID/root/...). */
bool mf_path_visible(const char *p);

/* ---- module identity (module.c, siphash.c) ---- */

/* SipHash-1-3 with 128-bit key (k0, k1) over len bytes. */
uint64_t mf_siphash13(uint64_t k0, uint64_t k1, const void *data, size_t len);
/* Cookie of a GNU build id: SipHash-1-3(0, 0, le64(len) || id). */
uint64_t mf_cookie_from_build_id(const void *id, size_t len);
/* Cookie of a readable file without build id: (dev & 0xffffffff) << 32 | (ino & 0xffffffff). */
uint64_t mf_cookie_from_dev_ino(uint64_t dev, uint64_t ino);
/* Cookie of a file that cannot be opened: SipHash-1-3(0, 0, path || 0xff). */
uint64_t mf_cookie_from_path(const char *normalized_path);

/* ---- /proc/PID/maps grouping (procmaps.c) ---- */

/* One mapped file: same normalized path and same (dev, inode); its
 * mappings as indices into the gs_maps, in maps order. */
struct mf_maps_module {
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
int mf_maps_group(const struct gs_maps *m, struct mf_maps_module **out, size_t *n,
		  struct gs_error *err);
void mf_maps_modules_free(struct mf_maps_module *mods, size_t n);

/* ---- load bias (layout.c) ---- */

#define MF_ELF_MAX_LOADS 16

struct mf_elf_load {
	uint64_t offset, vaddr, filesz, memsz;
};

/* What bias computation needs from the ELF file. */
struct mf_elf_layout {
	uint16_t type; /* ET_EXEC, ET_DYN */
	size_t nloads;
	struct mf_elf_load loads[MF_ELF_MAX_LOADS];
	bool has_anchor;
	uint64_t anchor; /* address of the first .text*, else .rodata*, .data*, .bss* section */
};

/* A mapping of the module: [start, end) maps file bytes from file_offset. */
struct mf_map_candidate {
	uint64_t start, end, file_offset;
};

int mf_elf_layout_read(struct Elf *elf, struct mf_elf_layout *out, struct gs_error *err);
/* Base, size and the load bias (in all four section slots) as
 * docs/unwind.md, "Process maps and load bias", tells them. -ENOENT when
 * no PT_LOAD matches any mapping. */
int mf_module_offsets_compute(const struct mf_elf_layout *layout,
			      const struct mf_map_candidate *maps, size_t n,
			      struct gs_proc_module_offsets *out, struct gs_error *err);

/* A mapping of the module's file bytes at another address than its load
 * bias puts them (V8 maps node's builtins again beside its JIT code): not
 * counted in the module's base and size. */
bool mf_mapping_remapped(const struct mf_elf_layout *layout, const struct mf_map_candidate *m,
			 uint64_t bias);
/* Such a mapping's own offsets: the bias of the segment its bytes come
 * from, base and size the mapping's. false when no segment holds them. */
bool mf_remap_offsets(const struct mf_elf_layout *layout, const struct mf_map_candidate *m,
		      struct gs_proc_module_offsets *out);

/* ---- a process's module placed (module_place.c) ---- */

/* A module's file opened through the cache at src, identified, and placed
 * by its mappings. */
int mf_module_open_at(struct gs_modfiles *files, const struct gs_modfile_src *src,
		      const struct mf_map_candidate *cand, size_t ncand, struct gs_proc_module *out);

/* ---- the vDSO as a module (vdso.c) ---- */

/* The [vdso] of maps as a module: this process's vDSO image, identified by
 * its build id, at that mapping. -ENOENT without one. */
int mf_vdso_module(const struct gs_maps *maps, struct gs_modfiles *files,
		   struct gs_proc_module *out);

/* ---- the module-file cache (modfile.c) ---- */

enum prefetch_state { PREFETCH_NONE, PREFETCH_QUEUED, PREFETCH_RUNNING, PREFETCH_DONE };

/* A file's debug information read ahead through a Dwfl of its own (the
 * file opened again), so the worker shares no libelf or libdw handle with
 * the thread using the cache; once done, the cache answers DWARF and
 * symbol questions from it. */
struct prefetch {
	enum prefetch_state state; /* under gs_modfiles.lock */
	Dwfl *dwfl;
	Dwfl_Module *mod; /* NULL: it could not be read; the file's own Dwfl serves */
	Dwarf *dw;
	Dwarf_Addr bias;
};

struct gs_modfile {
	char *path;
	char *open_path; /* what was opened: the prefetch opens it again */
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	struct gs_module_id id;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	bool layout_done;
	int layout_rc;
	struct mf_elf_layout layout;
	struct mf_cfi_slot *cfi;
	bool dwarf_done;
	Dwarf *dw;
	Dwarf_Addr dwbias;
	bool funcs_done, funcs_from_disk;
	int funcs_rc;
	struct mf_funcindex *funcs;
	struct prefetch pre;
	struct gs_modfiles *owner;
};

struct gs_modfiles {
	Dwfl_Callbacks cb;
	char *debug_dirs;
	char *cfi_cache_dir; /* NULL: CFI tables and function indexes not on disk */
	uint64_t cache_max_bytes; /* what gs_modfiles_free trims it to; 0: the default */
	struct gs_modfile **v; /* never move: handed out */
	size_t n, cap;
	struct mf_cfi_slot **cfi;
	size_t ncfi, cfi_cap;
	size_t opened;
	/* The prefetch worker: started on the first request, joined at free. */
	pthread_mutex_t lock;
	pthread_cond_t done; /* a prefetch finished */
	pthread_cond_t work; /* a request came, or stop */
	pthread_t worker;
	bool worker_started, stop;
	struct gs_modfile **queue; /* [qhead, qend): not taken yet */
	size_t qhead, qend, qcap;
};

/* A module file's load segments and anchor, read once. */
int mf_modfile_layout(struct gs_modfile *m, const struct mf_elf_layout **out,
		      struct gs_error *err);

/* ---- a module file's own Dwfl (modfile_dwfl.c) ---- */

/* A Dwfl of its own with fd (which it owns from then on, or closes on
 * failure) reported as m's main file at bias 0, its debug-file search
 * pointed at m. 0, -ENOMEM or -EINVAL (not an ELF file libdwfl reads). */
int mf_modfile_dwfl_open(struct gs_modfile *m, int fd, Dwfl **dwfl, Dwfl_Module **mod);

/* ---- debug information read ahead (modfile_prefetch.c) ---- */

void mf_prefetch_init(struct gs_modfiles *c);
/* Joins the worker after the file it reads now; the queue is dropped. */
void mf_prefetch_stop(struct gs_modfiles *c);
/* Makes m.pre final: reads it here when it is queued but not started,
 * waits when the worker reads it, returns at once otherwise. */
void mf_prefetch_finish(struct gs_modfile *m);

/* ---- another process's memory (procmem.c) ---- */

/* Up to len bytes at addr in pid into buf: the bytes read (fewer when the
 * span runs into unmapped memory), or -errno (-ESRCH, -EPERM, -EFAULT). */
ssize_t mf_proc_read(pid_t pid, uint64_t addr, void *buf, size_t len);

/* ---- CPython strings (pystr.c) ---- */

/* Code points kept of a name or file read from a process; a longer one is
 * cut and ends in "...". */
#define MF_PY_STR_MAX 1024

/* The PyUnicodeObject at addr in pid as UTF-8 into out (NUL-terminated,
 * at most cap - 1 bytes): compact strings only (ASCII, or kind 1, 2 or 4),
 * with the state bits checked; -EINVAL for anything else, -errno when it
 * cannot be read. */
int mf_py_str_read(pid_t pid, const struct gs_py_layout *l, uint64_t addr, char *out, size_t cap);

/* ---- CPython code objects (pycode.c) ---- */

/* What the namer keeps of one code object: the two fields that tell it is
 * still the same object, its names and its line table. */
struct mf_py_code {
	uint64_t name_ptr;  /* co_name: the object at that address must still have it */
	int firstlineno;
	char *function;     /* co_qualname (3.11+) or co_name; "<?>" when unreadable */
	char *file;         /* co_filename; "<?>" when unreadable */
	uint8_t *table;     /* co_lnotab / co_linetable's bytes */
	size_t table_len;
};

/* Largest line table read (a bytes object the process says is bigger is
 * not read: no line). */
#define MF_PY_TABLE_MAX (1u << 20)

/* Reads the code object at code in pid: 0 and *out (free with
 * mf_py_code_free), or -errno with err when the object itself cannot be
 * read. Unreadable names become "<?>", an unreadable table no table. */
int mf_py_code_read(pid_t pid, const struct gs_py_layout *l, uint64_t code, struct mf_py_code *out,
		    struct gs_error *err);
/* Whether the object at code still has c's co_name pointer and first
 * line: one small read, so a cached name is not given to another object
 * that took the address after the code object was freed. */
bool mf_py_code_still(pid_t pid, const struct gs_py_layout *l, uint64_t code,
		      const struct mf_py_code *c);
void mf_py_code_free(struct mf_py_code *c);

/* perfmap.c, for its tests and fuzz target: an empty map with no file,
 * bytes of a perf map given in any pieces (a line is parsed once its
 * newline comes), and the lookup index rebuilt over what was parsed. */
struct gs_perfmap *mf_perfmap_new(void);
int mf_perfmap_feed(struct gs_perfmap *m, const char *data, size_t len);
int mf_perfmap_index(struct gs_perfmap *m);

#endif /* GS_MODFILE_MF_INT_H */
