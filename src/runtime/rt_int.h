/* Internals shared by the files of src/runtime: the line-table queries
 * target resolution needs (srclines.c), what the session borrows from the
 * plan (plan.c), and the clock phases are timed with. Not part of the
 * public API. */
#ifndef GS_RT_INT_H
#define GS_RT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gelf.h>

#include <gs/error.h>
#include <gs/internal/runtime.h>

/* The dlopen hook (dlhook.c): a uprobe on the dynamic linker's
 * _dl_debug_state in f's process that counts calls; rt_dlhook_changed is 1
 * once per change of the count. Holding, the process also stops at each
 * completed change until rt_dlhook_release(), and the doorbell's fd (for
 * the reader's epoll) is readable as soon as it does. */
#define RT_DLHOOK_PROG "gs_dl_hook"
#define RT_DLHOOK_MAP "gs_dl_changes"
#define RT_DLHOOK_DOORBELL "gs_dl_doorbell"
#define RT_DLHOOK_DOORBELL_SIZE 4096u /* bytes: the smallest ring buffer, a page */
struct rt_dlhook;
struct gs_procfill;
struct gs_asm;
struct gs_reader;
/* Where the hook goes in a process. */
struct rt_dlhook_site {
	char *path;          /* the dynamic linker (malloc'd) */
	uint64_t off;        /* file offset of _dl_debug_state */
	bool has_state;      /* it defines _r_debug: state_delta holds */
	int32_t state_delta; /* &_r_debug.r_state - &_dl_debug_state */
};
int rt_dlhook_locate(pid_t pid, struct rt_dlhook_site *site, struct gs_error *err);
void rt_dlhook_site_free(struct rt_dlhook_site *site);
/* The hook's program into a (finished): counting; with hold, stopping
 * first; with doorbell too, ringing RT_DLHOOK_DOORBELL (its second map). */
int rt_dlhook_program(struct gs_asm *a, const struct rt_dlhook_site *site, bool hold,
		      bool doorbell, struct gs_error *err);
int rt_dlhook_new(const struct gs_procfill *f, bool hold, bool force_tracefs,
		  struct rt_dlhook **out, struct gs_error *err);
int rt_dlhook_doorbell_fd(const struct rt_dlhook *h);
int rt_dlhook_changed(struct rt_dlhook *h);
/* SIGCONT when rt_dlhook_changed saw a stop (holding only). */
void rt_dlhook_release(struct rt_dlhook *h);
void rt_dlhook_free(struct rt_dlhook *h);
/* A BPF ring buffer of size bytes (the map's max_entries) mapped for
 * reading, its data once (ringread.c); rt_ring_consume hands each record
 * to cb until none is left or cb returns < 0 (returned then). */
struct rt_ring;
int rt_ring_open(int map_fd, uint32_t size, struct rt_ring **out);
int rt_ring_consume(struct rt_ring *r, int (*cb)(void *ctx, void *data, size_t size), void *ctx);
void rt_ring_free(struct rt_ring *r);
/* An fd whose readiness ends gs_reader_poll (reader.c) with what it has
 * delivered so far, so the caller can act on it. */
int rt_reader_wake_on(struct gs_reader *r, int fd, struct gs_error *err);
/* A periodic timer in an epoll set (live_tick.c): the set is readable
 * every period_ms (1-999; 0 disarms) until rt_tick_ack reads the timer.
 * mark is the epoll data the timer's readiness carries. */
struct rt_tick {
	int fd;
	int period_ms;
};
int rt_tick_open(struct rt_tick *t, int epfd, void *mark, struct gs_error *err);
void rt_tick_set(struct rt_tick *t, int period_ms);
void rt_tick_ack(struct rt_tick *t);
void rt_tick_close(struct rt_tick *t);
/* The plan's process stops at each dlopen until its maps are refreshed
 * (gs_plan_opts.hold_on_dlopen, plan.c). */
struct gs_plan;
bool rt_plan_holds_dlopen(const struct gs_plan *p);
/* Output buffers of the size their largest event asks (plan_output.c),
 * where the options name none: true when the programs, built with the
 * fixed default, must be built again. */
bool rt_plan_size_output(struct gs_plan *p);

/* The clock of CPU samples (sampling.c): a cpu-clock perf event per online
 * CPU at hz, each running prog_fd, started unless paused; freeing closes
 * them (detaches). rt_sampler_enable starts or stops every CPU's (NULL:
 * nothing to do). */
struct rt_sampler;
int rt_sampler_attach(int prog_fd, uint32_t hz, bool paused, struct rt_sampler **out,
		      struct gs_error *err);
int rt_sampler_enable(struct rt_sampler *s, bool on, struct gs_error *err);
void rt_sampler_free(struct rt_sampler *s);

/* Whether pid maps the file at path now (procfill.c). */
bool rt_pid_maps_file(pid_t pid, const char *path);

/* ---- uprobes (attach.c, tracefs.c) ---- */

/* enum bpf_attach_type BPF_TRACE_UPROBE_MULTI (Linux 6.6), which older
 * <linux/bpf.h> lack: programs for uprobe_multi links are loaded with it. */
#define RT_TRACE_UPROBE_MULTI 48

/* The directory of a writable uprobe_events, mounting tracefs at
 * /sys/kernel/tracing when none is there. */
int rt_tracefs_dir(char *out, size_t size, struct gs_error *err);
/* Adds a uprobe (or uretprobe) at path+offset as gstrace/<name>, the name
 * made from this process's pid, start time and a random part. */
int rt_tracefs_add(const char *dir, const char *path, uint64_t offset, bool retprobe,
		   char *name, size_t name_size, struct gs_error *err);
/* Removes gstrace/<name>, retrying while the kernel holds it (up to 1 s). */
void rt_tracefs_remove(const char *dir, const char *name);

struct gs_bpf_map;
/* keys[i] -> values[i] for n elements (key_size / value_size each), in
 * batches of bpf_map_update_batch, else one bpf_map_update_elem each. */
int rt_map_update_many(const struct gs_bpf_map *map, const void *keys, const void *values,
		       size_t n, struct gs_error *err);

/* The start of the last `lines` lines of a verifier log (a final newline
 * ends a line rather than starting one). */
const char *rt_verifier_log_tail(const char *log, unsigned lines);
/* The verifier's verdict: the last non-empty line of the log that is not
 * its closing statistics ("processed N insns ..."), copied into buf. */
void rt_verifier_log_reason(const char *log, char *buf, size_t size);

/* ---- modules with their DWARF (dwarfcache.c) ---- */

struct gs_dwarf;
struct gs_modfile;
struct gs_modfiles;

struct rt_dwarf_module {
	char *path;
	struct gs_modfile *file; /* the module-file cache's */
	struct gs_dwarf *d;      /* NULL: no DWARF (why says so) */
	uint64_t cookie;
	char *why;               /* d NULL: the sentence saying why (malloc'd: a
				  * process has hundreds of modules), or NULL
				  * when there was no memory to keep it */
};
/* The sentence saying why m has no DWARF. */
const char *rt_dwarf_module_why(const struct rt_dwarf_module *m);

struct rt_dwarf_cache;
/* Over the run's module files (NULL: a cache of its own). */
struct rt_dwarf_cache *rt_dwarf_cache_new(struct gs_modfiles *files);
void rt_dwarf_cache_free(struct rt_dwarf_cache *c);
/* The module at path with the dwarf layer over its DWARF, once per cache:
 * the one place the plan and the listings get a module's DWARF. cookie 0:
 * its own. -errno with err when the file cannot be opened; a module
 * without DWARF comes back with d NULL. Valid until the cache is freed. */
int rt_dwarf_module(struct rt_dwarf_cache *c, const char *path, uint64_t cookie,
		    const struct rt_dwarf_module **out, struct gs_error *err);
struct gs_modfiles *rt_dwarf_cache_files(const struct rt_dwarf_cache *c);

/* ---- why bt cannot unwind from a probe (plan_cfi.c) ---- */

/* The probe at addr of module has no usable first row (missing: none at
 * all, else an unsupported one): -errno with the message naming the CFI
 * problem and its fix, or 0 when an unsupported row is only that (the
 * walk then stops there, as the reference's does). */
int rt_plan_cfi_problem(struct gs_modfiles *files, const char *module, uint64_t addr,
			bool missing, struct gs_error *err);

/* ---- thread-local storage of a process (proctls.c, kbtf.c) ---- */

struct gs_proc_modules;

/* plan_python.c: sets p->program.python_frames as p->opts.python_frames
 * asks (and the thread pointer's offset the walk needs). 0, or -EINVAL /
 * a BTF error when they were asked for and cannot be walked. */
struct gs_plan;
int rt_plan_python(struct gs_plan *p, struct gs_error *err);

/* pyprocs.c: py_procs[pid] from pid's modules when its programs walk
 * Python frames: the entry of the interpreter it runs, none when it runs
 * none or one gstrace cannot read (then note says why, when given). 0 or
 * a map write's error. */
int rt_py_write(pid_t pid, struct gs_bpf_maps *maps, const struct gs_proc_modules *mods,
		char *note, size_t note_size, struct gs_error *err);

/* Reads of a process's TLS tables in a row while a mapped module with TLS
 * is not registered (polls: some seconds), before giving up on it. */
#define RT_TLS_MAX_TRIES 200

/* A module's TLS block placement, for proc_module_tls. */
struct rt_tls_module {
	uint64_t cookie;
	struct gs_proc_module_tls tls;
};

struct rt_tls_table {
	struct rt_tls_module *v;
	size_t n, cap;
	bool found; /* the loader's tables were found (glibc with libthread_db's
		     * descriptors) */
};

/* Reads pid's TLS modules from its dynamic linker (mods: its modules, with
 * their files). -ENOENT when the process has no such tables (not glibc, a
 * static executable, or the loader not started yet). */
int rt_tls_read(pid_t pid, const struct gs_proc_modules *mods, struct rt_tls_table *t);
/* Some module of mods has a PT_TLS segment but no entry in t (not
 * registered yet: a dlopen still relocating). */
bool rt_tls_missing(const struct gs_proc_modules *mods, const struct rt_tls_table *t);
void rt_tls_table_free(struct rt_tls_table *t);
/* Whether a thread-local of module `cookie` can be read in pid (0: no
 * process yet): GS_LOC_WHY_NONE, with desc saying how pid's threads find
 * its block when the loader lists it (else ""), or why it cannot
 * (GS_LOC_WHY_TLS_*: it is then <optimized out>). Reads the kernel's BTF
 * and pid's tables once per rt_tls_check. */
struct rt_tls_check {
	pid_t pid;
	bool tried, fsbase_known, no_loader;
	uint32_t fsbase;          /* task_struct.thread.fsbase, when known */
	struct rt_tls_table t;
};
uint8_t rt_tls_check(struct rt_tls_check *k, struct gs_modfiles *files, uint64_t cookie,
		     char *desc, size_t size);
void rt_tls_check_fini(struct rt_tls_check *k);
/* offsetof(struct task_struct, thread.fsbase) from the running kernel's
 * BTF (/sys/kernel/btf/vmlinux). */
int rt_task_fsbase_offset(uint32_t *off, struct gs_error *err);

/* ---- source-level values of the plan (plan_values.c) ---- */

struct rt_values;
struct gs_plan_trace;
/* Names resolved for the plan of pid (0: target mode, probe modules only),
 * reading modules through files. */
int rt_values_new(pid_t pid, struct gs_modfiles *files, struct rt_values **out);
void rt_values_free(struct rt_values *v);
/* The body names DWARF things (names, casts; $retval in a return probe). */
bool rt_body_needs_dwarf(const struct gs_stmt *body, size_t n, bool retprobe);
/* Gives each probe of t its copy of t's body resolved at its address; on
 * an error about an expression, *at is it. Valid until v is freed. */
int rt_values_resolve(struct rt_values *v, struct gs_plan_trace *t, const struct gs_expr **at,
		      struct gs_error *err);
/* task_struct.thread.fsbase's offset when some name resolved so far is a
 * thread-local and the kernel's BTF has it; else 0. */
uint32_t rt_values_task_fsbase(const struct rt_values *v);

/* ---- the session's traces (session.c), for stackcount.c ---- */

struct gs_session;
struct gs_bpf_maps;
/* Program i of the session and its maps, or NULL past the last. */
const struct gs_program *rt_session_trace(const struct gs_session *s, size_t i,
					  const struct gs_bpf_maps **maps);

/* plan_copies.c: names some copies of a function traced by name lack. */
struct rt_missing {
	size_t probe;          /* index in the trace's probes */
	struct gs_expr *node;  /* the name in that probe's copy of the body */
	int code;              /* the lookup's failure there */
	char *why;             /* and its message (malloc'd: one per copy, and a
				* trace may have thousands) */
};

struct rt_copies {
	struct rt_missing *v;
	size_t n, cap;
};

struct gs_plan_trace;
struct gs_dwarf;
struct gs_dwarf_scope;
struct gs_modfile;
int rt_copies_add(struct rt_copies *cs, size_t probe, struct gs_expr *node,
		  const struct gs_error *why);
void rt_copies_free(struct rt_copies *cs);
/* Every missing name an unavailable variable of the type a copy that has
 * it gives (scopes: each probe's, NULL where no CU covers it), and the
 * trace's names_note naming the copies; an error at the name (*at) when no
 * copy has it. */
int rt_copies_finish(struct rt_copies *cs, struct gs_plan_trace *t, struct gs_dwarf *d,
		     struct gs_modfile *file, const struct gs_dwarf_scope *const *scopes,
		     void *(*alloc)(void *arg, size_t n), void *arg, const struct gs_expr **at,
		     struct gs_error *err);

/* ---- the plan (plan.c builds it, plan_access.c reads it) -------------- */

/* The rows of one module for programs that hold their own rows. */
struct own_rows {
	uint64_t cookie;
	struct gs_rowset rows;
};

/* Work done once per distinct input, however many traces repeat it. */
struct memo_rows_pid {
	char *module;
	pid_t pid;
};

struct gs_plan {
	struct gs_plan_opts opts;
	char *module;
	struct gs_program_opts program;
	struct gs_plan_trace *traces;
	size_t ntraces, traces_cap, nprobes;
	struct gs_modfiles *files, *own_files;
	struct gs_phase_times times;
	struct gs_rowset shared;
	/* The most rows and loop-walker rows a plan counted without holding
	 * them (gs_bt_plan.counted_rows): the process's modules. */
	size_t fill_rows, fill_xrows;
	pid_t rows_pid;
	struct own_rows **own; /* never move: probes point at their rows */
	size_t nown, own_cap;
	struct rt_values *values; /* DWARF names, open until the build */
	bool built;
	/* Trace i resolved pattern text `index[j].key`: later traces with the
	 * same pattern copy its target instead of resolving again. */
	struct memo_target { const char *key; size_t trace; } *resolved;
	size_t nresolved, resolved_cap; /* open addressing, cap a power of 2 */
	struct memo_rows_pid *rows_pids;
	size_t nrows_pids, rows_pids_cap;
};

#endif /* GS_RT_INT_H */
