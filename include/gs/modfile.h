/* Module files: every ELF file a run reads (the traced executable, its
 * libraries) opened once, by identity (device and inode), and kept with
 * what each reader needs from it: the ELF, the load layout, the cookie, the
 * CFI rows (shared by every file with the same build id), and through
 * libdwfl its symbols and its debug information wherever gdb would find it
 * (in the file, a build-id directory, a .gnu_debuglink file with its CRC
 * checked, MiniDebugInfo, debuginfod). Target resolution, the backtrace
 * plan, the process maps and the symbolizer all read through one cache,
 * so one module is opened once and symbolized from the same debug file it
 * was resolved with.
 *
 * Files are opened on a target's behalf, so as hostile input: without
 * blocking (a FIFO never hangs the caller), checked on the descriptor to
 * be a regular file with the identity the caller expects. */
#ifndef GS_MODFILE_H
#define GS_MODFILE_H

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

struct Dwarf;       /* libdw */
struct Dwfl_Module; /* libdwfl */

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

/* Cookie of the file at `path` (normalized first) into *out: build id,
 * else dev/inode, else the path hash (docs/protocol.md, "Backtraces").
 * Paths under /proc and /sys (other than /proc/<pid>/root/...) and
 * non-regular files count as unopenable. Never fails for a bad file;
 * -ENAMETOOLONG for an overlong path, with err filled. */
GS_API int gs_module_identify(const char *path, struct gs_module_id *out, struct gs_error *err);

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_modfiles_opts {
	size_t sz;
	/* Debug-file roots, ':'-separated absolute directories, each searched
	 * as gdb's debug-file-directory: ROOT/.build-id/xx/yyyy.debug and
	 * ROOT/<the module's directory>/<debug link>. NULL:
	 * "/usr/lib/debug". The module's own directory and its .debug/
	 * subdirectory are always searched for a debug link, and debuginfod
	 * when libdebuginfod is installed and DEBUGINFOD_URLS is set. */
	const char *debug_dirs;
	/* Where CFI tables are cached by build id (gs_cfi_opts.cache_dir);
	 * NULL: computed each run. Used only while gs_cache_dir_check()
	 * accepts it. */
	const char *cfi_cache_dir;
	/* What that directory may hold, in bytes, when gs_modfiles_free
	 * trims it (gs_cache_trim); 0: GS_CACHE_DEFAULT_MAX_BYTES. */
	uint64_t cache_max_bytes;
};

/* Whether dir can hold the on-disk caches (cfi_cache_dir above,
 * gs_cfi_opts.cache_dir): 0 when it belongs to the effective user and
 * neither its group nor others can write it, or when it does not exist
 * yet (the first store creates it 0700). Else -EINVAL (NULL, or not an
 * absolute path), -EPERM (another owner, writable by others, a symbolic
 * link) or -errno, with a message naming
 * the directory, why, and the fix. Every read and store checks the same
 * on the descriptor it opened and ignores such a directory, and any file
 * in it that is not the user's alone, silently: this is how a caller
 * learns why, to say it once. Only the directory itself is judged, not
 * its parents. */
GS_API int gs_cache_dir_check(const char *dir, struct gs_error *err);

/* ---- the cache's size: use, trim, clear (cachetrim.c) ---------------------
 *
 * A cache directory holds files named `<build id hex><ext>`, one kind per
 * extension (GS_CACHE_CFI .cfi, GS_CACHE_INDEX .funcs, GS_CACHE_DEBUG
 * .debug), the temporary files a store writes before its rename, and a
 * lock file: only those are counted, trimmed or cleared; anything else
 * (another name, a symbolic link, a directory) is left alone and never
 * followed. A file's modification time is its last use: each read that
 * finds it sets it (at most once a minute). Trimming removes the least
 * recently used files until the rest fit, under an exclusive flock on the
 * lock file, taken without waiting: a trim that finds another one under
 * way skips (-EAGAIN). A file removed while another run reads it stays
 * readable to that run (it holds it open); another run's temporary file
 * is never removed while younger than GS_CACHE_TEMP_AGE_S. */
#define GS_CACHE_DEFAULT_MAX_BYTES (256ull << 20)
#define GS_CACHE_TEMP_AGE_S 600 /* an older temporary file is a dead run's */

enum gs_cache_kind {
	GS_CACHE_CFI,   /* unwind rows */
	GS_CACHE_INDEX, /* function-name indexes */
	GS_CACHE_DEBUG, /* debug files with their sections inflated */
	GS_CACHE_TEMP,  /* a store's file before its rename */
	GS_CACHE_NKINDS,
};

/* Files of each kind and their bytes: what is there (gs_cache_usage), or
 * what was removed (gs_cache_trim, gs_cache_clear). */
struct gs_cache_usage {
	uint64_t files[GS_CACHE_NKINDS];
	uint64_t bytes[GS_CACHE_NKINDS];
	uint64_t total_files, total_bytes;
	/* last use of the least and the most recently used file, in
	 * nanoseconds since the epoch; 0 when there is none */
	int64_t oldest_ns, newest_ns;
};

/* What dir holds. 0 (a directory that does not exist holds nothing), or
 * the errors of gs_cache_dir_check with its message. */
GS_API int gs_cache_usage_of(const char *dir, struct gs_cache_usage *out, struct gs_error *err);
/* Removes the least recently used files of dir until the rest take at
 * most max_bytes (0: GS_CACHE_DEFAULT_MAX_BYTES), and temporary files
 * older than GS_CACHE_TEMP_AGE_S; what it removed in *removed (may be
 * NULL). 0, -EAGAIN when another process is trimming it (nothing done),
 * or the errors of gs_cache_dir_check. Reads at most 65536 entries. */
GS_API int gs_cache_trim(const char *dir, uint64_t max_bytes, struct gs_cache_usage *removed,
			 struct gs_error *err);
/* Removes every file of dir the cache made (not temporary files younger
 * than GS_CACHE_TEMP_AGE_S: stores under way), waiting up to two seconds
 * for a trim under way; what it removed in *removed (may be NULL). 0,
 * -EAGAIN (the lock stayed taken), or the errors of gs_cache_dir_check. */
GS_API int gs_cache_clear(const char *dir, struct gs_cache_usage *removed, struct gs_error *err);

struct gs_modfiles;
struct gs_modfile;

/* An empty cache in *out (opts may be NULL: every default; its strings
 * are copied), freed with gs_modfiles_free() (NULL is fine). 0, or
 * -EINVAL (debug_dirs not absolute directories, bad options, libelf
 * unusable) / -ENOMEM with err filled and *out NULL. One thread at a
 * time (its own prefetch worker aside). */
GS_API int gs_modfiles_new(const struct gs_modfiles_opts *opts, struct gs_modfiles **out,
			   struct gs_error *err);
/* Frees every file; pointers into them (tables, names, Dwarf) end here.
 * Trims the cache directory first (gs_cache_trim), when there is one. */
GS_API void gs_modfiles_free(struct gs_modfiles *c);

/* Where a file is and what it must be. Zero is the default of every field
 * but path. */
struct gs_modfile_src {
	size_t sz;
	/* The file's name: what is shown, attached to, and where its debug
	 * link is searched from (so it must be visible from this process). */
	const char *path;
	/* What to open when that is not path: /proc/PID/map_files/START-END
	 * or /proc/PID/exe (the very file a process maps or runs). */
	const char *open_path;
	/* The identity the file must have; ino 0: any; dev 0: not compared. */
	uint64_t dev, ino;
	/* Refuse a symbolic link as the last component of the opened path
	 * (a path rebuilt under /proc/PID/root, where none is expected). */
	bool no_follow;
};

/* The cached file at src (identity from stat, so a hit opens nothing), else
 * opens it: without blocking, then fstat on the descriptor must show a
 * regular file with the identity stat showed (and src asked). -ENOENT,
 * -EACCES, -EINVAL (a FIFO, device, directory or a non-ELF file), -ESTALE
 * (another file than expected) with a message naming the path. *out stays
 * valid until gs_modfiles_free. */
GS_API int gs_modfile_open_src(struct gs_modfiles *c, const struct gs_modfile_src *src,
			       struct gs_modfile **out, struct gs_error *err);
/* gs_modfile_open_src with only a path. */
GS_API int gs_modfile_open(struct gs_modfiles *c, const char *path, struct gs_modfile **out,
			   struct gs_error *err);
/* Files opened (not found in the cache) so far: what tests count. */
GS_API size_t gs_modfiles_opened(const struct gs_modfiles *c);

/* A file of the cache with this cookie (build id), or NULL: what names
 * the frames of a process that is gone by the time they are shown. */
GS_API struct gs_modfile *gs_modfiles_by_cookie(const struct gs_modfiles *c, uint64_t cookie);
/* The name it was first opened under (owned by the cache, as are the
 * results of the accessors below: valid until gs_modfiles_free). */
GS_API const char *gs_modfile_path(const struct gs_modfile *m);
/* Cookie (build id, else device and inode), build id, device, inode. */
GS_API const struct gs_module_id *gs_modfile_id(const struct gs_modfile *m);
/* The file's ELF (libdwfl's handle: do not end it); never NULL. */
GS_API struct Elf *gs_modfile_elf(struct gs_modfile *m);
/* The DWARF of the file, found on first use in the file itself or in its
 * debug file; NULL when there is none. *bias (may be NULL) is what to add
 * to a DWARF address to get the file's own (link-time) address: 0 unless a
 * debug file was prelinked differently. Hand it to the dwarf layer with
 * gs_modfile_elf() as the CFI ELF. */
GS_API struct Dwarf *gs_modfile_dwarf(struct gs_modfile *m, uint64_t *bias);
/* The separate debug file in use (after gs_modfile_dwarf or a symbol
 * lookup needed it), or NULL when the file carries its own or has none. */
GS_API const char *gs_modfile_debug_path(struct gs_modfile *m);
/* libdwfl's module, reported at bias 0 (Dwfl addresses are the file's
 * link-time addresses): symbols from .symtab, the debug file's .symtab,
 * else .dynsym and .gnu_debugdata. Waits for gs_modfile_prefetch_debug's
 * worker when it is reading this file. */
GS_API struct Dwfl_Module *gs_modfile_dwfl(struct gs_modfile *m);
/* Starts reading the file's debug information (its debug file found, the
 * compressed sections inflated, symbols and address ranges indexed) on a
 * worker thread with handles of its own, so that the first symbolization
 * does not pay for it: gs_modfile_dwarf() and gs_modfile_dwfl() then
 * answer from what it read, waiting for it, or reading it themselves when
 * the worker has not started on it. A file whose DWARF is read already, or
 * asked twice, is not read again. */
GS_API void gs_modfile_prefetch_debug(struct gs_modfile *m);

/* The executable of pid as this process can name it: its path when that is
 * the same file (a regular file with the device and inode of /proc/PID/exe),
 * else /proc/PID/root<path> under the same check, in *path (malloc'd: the
 * caller frees it). -ENOENT when neither is, -ESTALE when the process's
 * mount namespace shows something else there (a FIFO bind-mounted over
 * it, say), with err filled and *path NULL. */
GS_API int gs_proc_exe(pid_t pid, char **path, struct gs_error *err);

#define GS_MODFILE_SYMS_MAX 16

/* Function symbols (STT_FUNC, STT_GNU_IFUNC, defined, non-zero) called
 * name: their addresses and sizes, distinct, at most max, into addr[] and
 * size[] (max entries each). Returns how many; never fails. */
GS_API size_t gs_modfile_symbols_named(struct gs_modfile *m, const char *name, uint64_t *addr,
				       uint64_t *size, size_t max);
/* The name of the function symbol containing addr (a link-time address),
 * or NULL; valid while m is. */
GS_API const char *gs_modfile_function_at(struct gs_modfile *m, uint64_t addr);
/* A symbol at addr is an IFUNC (STT_GNU_IFUNC: addr is its resolver). */
GS_API bool gs_modfile_is_ifunc(struct gs_modfile *m, uint64_t addr);

/* ---- signal frames (cfi_fde.c) ------------------------------------------ */

struct Elf;
/* The FDEs of .eh_frame whose CIE says 'S' (signal trampolines such as
 * libc's __restore_rt): *n pairs [lo, hi) in *ranges (link-time; malloc'd
 * for the caller to free, NULL when there is none). 0, or -errno of
 * reading .eh_frame / -ENOMEM with err filled. elf is borrowed. */
GS_API int gs_signal_frame_ranges(struct Elf *elf, uint64_t **ranges, size_t *n,
				  struct gs_error *err);

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

/* Parses maps text (len bytes, need not end in NUL or newline) into *out,
 * which gs_maps_free() empties. A malformed line fails with -EINVAL naming
 * the line number (-ENOMEM without memory); *out is then empty. */
GS_API int gs_maps_parse(const char *text, size_t len, struct gs_maps *out, struct gs_error *err);
/* Reads and parses /proc/<pid>/maps: as gs_maps_parse, and the -errno
 * of opening or reading it (-ENOENT: no such process). */
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
/* Empties what gs_maps_parse / gs_maps_read filled (or a zeroed struct). */
GS_API void gs_maps_free(struct gs_maps *m);

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
	/* Executable mappings of a module of v at another bias than its own
	 * (V8 maps node's embedded builtins again beside its JIT code): each
	 * its file, cookie and path, base and size the mapping's, and the
	 * bias its segment has there; not in v, whose consumers look modules
	 * up by cookie. For unwinding and naming pcs there. */
	struct gs_proc_module *remaps;
	size_t nremaps;
};

/* Every ELF module mapped by pid, and its vDSO, with cookie and offsets
 * (docs/protocol.md, "Backtraces"), into *out, which
 * gs_proc_modules_free() empties. Each file is read through `files`
 * (borrowed: it outlives *out's file pointers; NULL: a cache for this
 * call, and no file pointers kept). A file is opened through
 * /proc/PID/map_files where permitted, else by its path, and must be a
 * regular file with the mapping's inode. Files that cannot be read as ELF
 * are skipped and counted. 0, or gs_maps_read's errors / -ENOMEM. */
GS_API int gs_proc_modules_load(pid_t pid, struct gs_modfiles *files, struct gs_proc_modules *out,
				struct gs_error *err);
GS_API void gs_proc_modules_free(struct gs_proc_modules *m);
/* The module of m whose [base, base + size) holds ip, or NULL (remaps not
 * included). */
GS_API const struct gs_proc_module *gs_proc_modules_find(const struct gs_proc_modules *m,
							 uint64_t ip);

#ifdef __cplusplus
}
#endif

#endif /* GS_MODFILE_H */
