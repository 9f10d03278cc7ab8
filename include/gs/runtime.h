/* The runtime: the only layer that makes syscalls. It creates the maps of a
 * built gs_program, loads it (verifier log on rejection), resolves trace
 * targets to file offsets, attaches uprobes, fills the unwind maps of a
 * process and reads events into the decoder. libbpf is used for its
 * low-level calls only (bpf_map_*, bpf_prog_load, ring_buffer__*,
 * perf_buffer__*). Every call returns 0 or -errno with a gs_error message
 * naming the input and what to do. */
#ifndef GS_RUNTIME_H
#define GS_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <gs/api.h>
#include <gs/btf.h>
#include <gs/decode.h>
#include <gs/error.h>
#include <gs/modfile.h>
#include <gs/program.h>
#include <gs/script.h>
#include <gs/unwind.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- maps (maps.c) ------------------------------------------------------- */

#define GS_BPF_NAME_MAX 32 /* whole names; the kernel keeps the first 15 bytes */

struct gs_bpf_map {
	char name[GS_BPF_NAME_MAX];
	uint32_t type; /* enum bpf_map_type */
	uint32_t key_size, value_size, max_entries;
	int fd;        /* -1 once closed */
	uint32_t flags; /* BPF_F_* it was created with: ARRAY maps are
			 * BPF_F_MMAPABLE where the kernel allows, and then
			 * written in bulk through a mapping of the map */
};

struct gs_bpf_batch; /* array updates the map writer holds back (maps.c) */

/* The kernel maps of one program, in the program's map order (so v[i].fd is
 * what relocations to map i need), or a pool of shared maps. */
struct gs_bpf_maps {
	struct gs_bpf_map *v;
	size_t n;
	struct gs_bpf_batch *batch;
};

/* Creates p's maps. A PERF_EVENT_ARRAY declared with 0 entries gets one per
 * possible CPU. With a `pool`, the maps the reference pins and shares
 * between traces (proc_module_offsets, pid_aliases, the range maps, and the
 * row maps when the program resolves modules per frame) are taken from the
 * pool when one of the same name and shape is there, else created and added
 * to it: one fill of the pool then serves every trace. Close with
 * gs_bpf_maps_close (the pool too: every holder keeps its own fd). */
GS_API int gs_bpf_maps_create(const struct gs_program *p, struct gs_bpf_maps *pool,
			      struct gs_bpf_maps *out, struct gs_error *err);
/* Writes what the writer still holds back (errors as in the writer), then
 * closes every fd. Safe on a zeroed struct and twice. */
GS_API void gs_bpf_maps_close(struct gs_bpf_maps *m);
/* The map called `name`, or NULL. */
GS_API const struct gs_bpf_map *gs_bpf_maps_find(const struct gs_bpf_maps *m, const char *name);

/* A gs_map_writer over m's maps by name, for gs_offsets_write,
 * gs_ranges_replace and gs_rowset_write. Updates of consecutive keys of an
 * ARRAY map are held back and written in one bpf_map_update_batch when any
 * other operation comes, or at gs_bpf_maps_flush (per element where the
 * kernel has no batch operations). An unknown map name gives -ENOENT. */
GS_API void gs_bpf_maps_writer(struct gs_bpf_maps *m, struct gs_map_writer *w);
GS_API int gs_bpf_maps_flush(struct gs_bpf_maps *m, struct gs_error *err);

/* 0 when bpf() works here; else -errno and why not (no privileges, no
 * bpf() in this kernel) so a caller can say so or a test can skip. */
GS_API int gs_bpf_permitted(struct gs_error *err);

/* ---- loading (load.c) ---------------------------------------------------- */

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_load_opts {
	size_t sz;
	uint32_t log_size;  /* verifier log buffer on a rejection; 0: 16 MiB */
	unsigned log_lines; /* log lines in the report; 0: 15 */
	/* Load for a uprobe_multi link (expected attach type
	 * BPF_TRACE_UPROBE_MULTI): such a program attaches through
	 * gs_uprobe_opts.multi_link only. */
	bool uprobe_multi;
	/* Load sleepable (BPF_F_SLEEPABLE): a program built with
	 * gs_program_opts.fault_in. gs_program_load sets it for the main
	 * program from gs_program.sleepable. */
	bool sleepable;
};

struct gs_loaded {
	int main_fd, step_fd; /* -1 when absent */
	uint32_t main_verified_insns, step_verified_insns;
};

/* Loads one finished program as BPF_PROG_TYPE_KPROBE, license "GPL", with
 * the fds of `maps` patched into its relocations (maps in the program's map
 * order). On a rejection err says which instruction the verifier stopped
 * at (index, disassembly, note) and why, and *report (when not NULL) gets a
 * malloc'd text: that instruction, its neighbours and the log's last lines. */
GS_API int gs_asm_load(const struct gs_asm *a, const char *name, const struct gs_bpf_maps *maps,
		       const struct gs_load_opts *opts, int *fd, char **report,
		       struct gs_error *err);
/* The same with the BTF that describes a's subprograms (a->funcs): loaded
 * with bpf_btf_load and given to the kernel with func_info. */
GS_API int gs_asm_load_btf(const struct gs_asm *a, const struct gs_btf *btf, const char *name,
			   const struct gs_bpf_maps *maps, const struct gs_load_opts *opts, int *fd,
			   char **report, struct gs_error *err);
/* 1 when this kernel runs bpf_loop callbacks from a global subprogram of a
 * kprobe program (Linux 5.17+ with BTF), 0 when not; probed once per
 * process. */
GS_API int gs_bpf_loop_supported(void);
/* 1 when this kernel has the BPF ring buffer (Linux 5.8+), 0 when it
 * refuses the map type; a refusal for another reason (no privilege) counts
 * as 1, so the load that follows reports it. Probed once per process. */
GS_API int gs_ringbuf_supported(void);
/* 1 when this kernel loads sleepable uprobe programs that call
 * bpf_copy_from_user (Linux 6.0+), the programs that fault pages in
 * (gs_program_opts.fault_in); 0 when not. Probed once per process. */
GS_API int gs_sleepable_uprobe_supported(void);
/* Loads p's step program (when it has one) and stores it in
 * bt_prog_array[0], then loads the main program: the order the main
 * program's tail call needs before it is attached. */
GS_API int gs_program_load(const struct gs_program *p, const struct gs_bpf_maps *maps,
			   const struct gs_load_opts *opts, struct gs_loaded *out, char **report,
			   struct gs_error *err);
GS_API void gs_loaded_close(struct gs_loaded *l);

/* ---- targets (resolve.c over the dwarf layer's target.c) ------------------ */

/* One address a target resolved to. */
struct gs_location {
	uint64_t addr;        /* link-time address in the module */
	uint64_t file_offset; /* p_offset + (addr - p_vaddr) of its PT_LOAD */
	bool inlined;         /* an inline instance of the function */
	bool from_dwarf;      /* false: the ELF symbol, no prologue skipped */
	char *function;       /* containing function (ELF symbol), or NULL */
	int line;             /* file:line targets: the line used (may follow
			       * the one asked when it has no code) */
	/* file:line targets whose line is in a function's prologue (its `{`
	 * or signature line: the entry): probed after the prologue, as gdb's
	 * `break file:line` is. entry: that function's entry (0: not moved);
	 * body_line: the line at addr (0: unknown). */
	uint64_t entry;
	int body_line;
};

struct gs_target {
	char *input;  /* what the user wrote */
	char *module; /* the file to attach to and to read */
	struct gs_location *locs; /* by address, at least one */
	size_t nlocs;
	/* What the user should know about how it resolved (an IFUNC: the
	 * implementation the process selected, or that the resolver is what
	 * gets probed), or NULL. */
	char *note;
};

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_resolve_opts {
	size_t sz;
	const char *module; /* the binary targets refer to (-t PATH) */
	pid_t pid;          /* a process: its executable is the default module,
			     * and `lib:0xADDR` or a function not found in the
			     * default module are looked up in what it maps */
	bool entry;         /* functions at their entry address: no prologue
			     * skipped, no inline copies (return probes) */
	struct gs_modfiles *files; /* where modules are opened (NULL: a cache
				    * for this call) */
};

/* Resolves a parsed target pattern, one of (reference 12.1):
 *   function     DWARF definitions, prologue skipped (the first line-table
 *                entry flagged prologue_end inside the function, else the
 *                first entry whose line differs from the entry line: gdb's
 *                rule; at -O2 that is often the entry itself), plus every
 *                inline instance (its entry pc); without a DWARF definition
 *                the ELF symbols of that name (.symtab, the debug file's
 *                .symtab, else .dynsym), prologue skipped when a line table
 *                covers them
 *   0xADDR       link-time address in the default module
 *   module:0xADDR  the same in a module given by path or by a suffix of a
 *                path the process maps
 *   file:line    every statement-start entry of that line (the next line
 *                with code when it has none), file matched by path suffix
 * DWARF comes from the file or from its debug file, found as the module-file
 * cache finds it (gs/modfile.h): build id, debug link, debuginfod.
 * With a pid, a function or line the default module lacks is looked for in
 * the other modules it maps (those with a symbol of that name first). Every
 * location gets its file offset, and must lie in an executable PT_LOAD.
 * Errors name the input and say what to do (unknown function, missing
 * binary, address outside every segment). */
GS_API int gs_target_resolve(const struct gs_target_pattern *pattern,
			     const struct gs_resolve_opts *opts, struct gs_target *out,
			     struct gs_error *err);
GS_API void gs_target_free(struct gs_target *t);

/* gs_proc_exe, the executable of a process: gs/modfile.h. */

/* ---- listings (listing.c): what there is to trace ------------------------ */

/* Zero is the default of every field; one of the two is needed. */
struct gs_list_opts {
	size_t sz;
	pid_t pid;          /* a process: its executable and every module it maps */
	const char *module; /* -t PATH: this module (with a pid, targets resolve here) */
	/* The module files to read through (their cache directory keeps the
	 * function indexes); NULL: a cache of its own, without one. */
	struct gs_modfiles *files;
};

/* The functions whose names match glob (fnmatch), by module: name,
 * file:line from DWARF, and address (or "inlined only"); ELF symbols DWARF
 * does not name too. -ENOENT when none matches. */
int gs_list_functions(const char *glob, const struct gs_list_opts *o, FILE *f,
		      struct gs_error *err);
/* For each address the trace target resolves to (gs_target_resolve): the
 * variables visible there, innermost first, each with its scope (param,
 * local, static, global), type and where it lives (register, stack,
 * global, optimized out). */
int gs_list_vars(const char *target, const struct gs_list_opts *o, FILE *f,
		 struct gs_error *err);

/* ---- backtrace plan (btplan.c) ------------------------------------------- */

/* What `bt` at one probe needs: the compile-time probe info for
 * gs_trace_spec.bt, and the rows to write into bt_unwind_rows. */
struct gs_bt_plan {
	struct gs_bt_probe probe;
	struct gs_rowset rows; /* one module, or every module of the process */
};

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_bt_plan_opts {
	size_t sz;
	/* With a pid: the multi-module plan (reference 6.3 step 1), rows of
	 * every module the process maps plus the probe module, each frame's
	 * module found at run time. Without, or when that gives no rows: the
	 * probe module's rows only. */
	pid_t pid;
	/* Module files and their CFI rows, read once per cache (NULL: a
	 * cache for this call). */
	struct gs_modfiles *files;
};

GS_API int gs_bt_plan_build(const char *module, uint64_t pc, const struct gs_bt_plan_opts *opts,
			    struct gs_bt_plan *out, struct gs_error *err);
GS_API void gs_bt_plan_fini(struct gs_bt_plan *p);

/* ---- uprobes (attach.c) -------------------------------------------------- */

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_uprobe_opts {
	size_t sz;
	pid_t pid;          /* > 0: that process; else every process */
	bool retprobe;
	bool force_tracefs; /* skip the perf uprobe PMU (tests, old kernels) */
	/* Attach through one uprobe_multi BPF link (every offset in it); the
	 * program must have been loaded with gs_load_opts.uprobe_multi. */
	bool multi_link;
};

/* One attached probe: a uprobe_multi link, or perf event fd(s) and, in
 * tracefs mode, the uprobe_events entry to remove. */
struct gs_uprobe {
	int link_fd;         /* the uprobe_multi link, or -1 */
	int *fds;            /* perf events (PMU or tracefs mode) */
	size_t nfds;
	char *tracefs_event; /* "gstrace/<name>", or NULL (PMU or link) */
	char *tracefs_dir;   /* where uprobe_events is, in tracefs mode */
};

/* Attaches prog_fd at (path, file offset): through a uprobe_multi link
 * (opts->multi_link), else the perf `uprobe` PMU (perf_event_open +
 * PERF_EVENT_IOC_SET_BPF + ENABLE), else a tracefs uprobe_events entry
 * (tracefs is mounted at /sys/kernel/tracing when no tracefs is). For
 * every process a perf event is opened on CPU 0 (pid -1 needs a CPU); the
 * program runs for hits on every CPU since BPF is attached to the probe,
 * not to the event's CPU. */
GS_API int gs_uprobe_attach(int prog_fd, const char *path, uint64_t offset,
			    const struct gs_uprobe_opts *opts, struct gs_uprobe **out,
			    struct gs_error *err);
/* The same for n offsets of one file: one link for all of them, or one
 * perf event each (tracefs mode takes one offset). */
GS_API int gs_uprobe_attach_offsets(int prog_fd, const char *path, const uint64_t *offsets,
				    size_t n, const struct gs_uprobe_opts *opts,
				    struct gs_uprobe **out, struct gs_error *err);
/* Closes the link or event(s) and removes any tracefs entry; frees u. */
GS_API void gs_uprobe_detach(struct gs_uprobe *u);
/* Detaches n probes at once on worker threads (the kernel spends an RCU
 * grace period or more in each uprobe release; links release in
 * parallel, perf events one by one); v[i] are freed and set to NULL. */
GS_API void gs_uprobes_detach(struct gs_uprobe **v, size_t n);
/* 0 when the perf uprobe PMU or tracefs uprobe_events is usable. */
GS_API int gs_uprobe_supported(struct gs_error *err);
/* 0 when this kernel has uprobe_multi links (Linux 6.6+, bpf() allowed);
 * else -errno and why not. */
GS_API int gs_uprobe_multi_supported(struct gs_error *err);
/* Removes the gstrace/ entries of tracefs uprobe_events whose gstrace is
 * gone (killed before it could remove them): its pid does not exist or is
 * another process now. Entries of running gstraces stay. Nothing to do
 * when no tracefs is mounted. *removed (may be NULL) counts them. */
GS_API int gs_uprobe_events_reap(size_t *removed, struct gs_error *err);

/* ---- reading events (reader.c) ------------------------------------------- */

/* Options (GS_OPTS); on_event is required, zero is the default of the rest. */
struct gs_reader_opts {
	size_t sz;
	/* Decoders get these contexts (mode is set per source); NULL: none.
	 * Copied: it need not outlive the call. */
	const struct gs_decoder_opts *decoder;
	/* A non-zero return ends the poll, which returns it (perf buffers
	 * still deliver the rest of the CPU buffer being drained: libbpf
	 * cannot stop there, and dropping would lose events). */
	gs_event_fn on_event;
	void *arg;
};

struct gs_reader;

GS_API int gs_reader_new(const struct gs_reader_opts *opts, struct gs_reader **out,
			 struct gs_error *err);
GS_API void gs_reader_free(struct gs_reader *r);
/* Adds a program's output map: a RINGBUF, or a PERF_EVENT_ARRAY read
 * through per-CPU buffers of page_count pages (0: 64). */
GS_API int gs_reader_add(struct gs_reader *r, const struct gs_bpf_map *output, uint32_t page_count,
			 struct gs_error *err);
/* gs_reader_add with the contexts (or lookup) of `decoder` for this map
 * alone, the other options the reader's: the map of one program decoded
 * with that program's context. Probes of one trace share its id, and
 * their contexts differ where a copy of a function lacks a value another
 * copy has. decoder NULL: gs_reader_add. */
GS_API int gs_reader_add_decoding(struct gs_reader *r, const struct gs_bpf_map *output,
				  uint32_t page_count, const struct gs_decoder_opts *decoder,
				  struct gs_error *err);
/* Waits up to timeout_ms (-1: forever, 0: no wait) and decodes what
 * arrived; returns the number of events delivered, or the first non-zero
 * on_event value, or -errno (-EINTR when a signal came). Decode errors do
 * not stop reading: they are counted and the last one kept. */
GS_API int gs_reader_poll(struct gs_reader *r, int timeout_ms, struct gs_error *err);
/* A descriptor that is readable when events wait, for a caller's own poll. */
GS_API int gs_reader_fd(const struct gs_reader *r);

struct gs_reader_stats {
	uint64_t events;        /* delivered */
	uint64_t lost_samples;  /* perf buffers' lost-sample records */
	uint64_t decode_errors;
	struct gs_error last_decode_error;
};
GS_API void gs_reader_stats(const struct gs_reader *r, struct gs_reader_stats *out);

/* Sum over CPUs of event_loss_counters[0]: events the output helper could
 * not deliver. */
GS_API int gs_loss_read(const struct gs_bpf_map *loss, uint64_t *total, struct gs_error *err);

/* ---- process maps (procfill.c) ------------------------------------------- */

/* What the unwind maps know about one process. */
struct gs_procfill {
	pid_t pid;
	struct gs_modfiles *files;   /* where its modules are read (borrowed) */
	struct gs_proc_modules mods; /* the last snapshot written */
	uint64_t *sig;               /* its file mappings, to notice changes */
	size_t nsig;
	/* Every fill first writes the rows of modules the row maps lack, then
	 * the offsets and snapshot that point at them. */
	bool add_rows;
	/* A module with TLS is mapped that the loader has not registered yet:
	 * each poll reads proc_module_tls again (docs/tls.md), at most
	 * RT_TLS_MAX_TRIES reads in a row. */
	bool tls_pending;
	unsigned tls_tries;
};

/* files: the module-file cache its modules are read through (NULL: one
 * per read). */
GS_API void gs_procfill_init(struct gs_procfill *f, pid_t pid, struct gs_modfiles *files);
GS_API void gs_procfill_fini(struct gs_procfill *f);
/* Reads /proc/PID/maps and writes proc_module_offsets for every module and,
 * when the maps have them, the range slots (reference 8.4). */
GS_API int gs_procfill_offsets(struct gs_procfill *f, struct gs_bpf_maps *maps,
			       struct gs_error *err);
/* A process that is gone: its module snapshot leaves the maps and its
 * bt_modules regions go back for reuse. */
GS_API void gs_procfill_forget(struct gs_procfill *f, struct gs_bpf_maps *maps);
/* Rewrites the bpf_loop walker's module snapshot of the process from the
 * last fill (no /proc read), so its entries see rows written since. */
GS_API int gs_procfill_snapshot(struct gs_procfill *f, struct gs_bpf_maps *maps,
				struct gs_error *err);
/* Writes plan's rows: the compact tables when the maps are the bpf_loop
 * walker's; else at 0.. for a one-module plan, else appended after
 * the rows in use for modules bt_module_row_ranges lacks (reference 7.4). */
GS_API int gs_procfill_rows(struct gs_bpf_maps *maps, const struct gs_bt_plan *plan,
			    struct gs_error *err);
/* The processes mapping the file at `path` (same inode as stat(path), in
 * /proc/PID/maps), for target mode: malloc'd, ascending. Processes that
 * cannot be read are skipped. */
GS_API int gs_pids_mapping(const char *path, pid_t **pids, size_t *n, struct gs_error *err);
/* When the process's file mappings changed since the last fill: appends
 * the rows of modules not there yet (with add_rows or f->add_rows), then
 * rewrites offsets and ranges. 1 when something changed, 0 when not. */
GS_API int gs_procfill_refresh(struct gs_procfill *f, struct gs_bpf_maps *maps, bool add_rows,
			       struct gs_error *err);

/* ---- the trace plan (plan.c, plan_print.c) -------------------------------- */

/* Everything a run will load, computed once: each trace's target resolved
 * to its addresses, what `bt` needs at each (the compile-time row, the rows
 * the unwind maps will hold), the map sizes every program agrees on, and
 * the built programs. The live session loads exactly these programs, and
 * --dry-run / --dump-insns print them, so the listing is what gets loaded. */

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_plan_opts {
	size_t sz;
	/* A process (-p, or a launched command): targets resolve in its
	 * executable and then its other modules, probes fire for it only
	 * (set program->filter_pid to match), and `bt` rows cover every
	 * module it maps. 0: target mode, where `bt` rows cover the modules of
	 * a process already mapping the target (the first by pid), if any. */
	pid_t pid;
	const char *module;                    /* -t: the binary targets refer to */
	const struct gs_program_opts *program; /* NULL: every default */
	/* Where every module is opened, read and symbolized (borrowed: it
	 * must outlive the plan and every session of it). NULL: the plan's own
	 * (gs_plan_modfiles). */
	struct gs_modfiles *files;
	/* Most probe addresses the plan may hold (each is a program, its maps
	 * and a uprobe): the trace that goes past it fails with -E2BIG and a
	 * message naming the limit. 0: no limit. */
	size_t max_probes;
	/* With pid and a `bt`: the process stops (SIGSTOP from the dlopen
	 * hook) each time its dynamic linker has mapped or unmapped a
	 * library, until the session has refreshed its module maps (then
	 * SIGCONT), so a backtrace through a library just dlopened unwinds
	 * from its first hit, as under gdb. For a process the caller started
	 * (launch mode): a shell with job control would report the stop. */
	bool hold_on_dlopen;
};

/* One address of one trace. */
struct gs_plan_probe {
	const struct gs_location *loc; /* in its trace's target */
	struct gs_program *prog;       /* built by gs_plan_build() */
	struct gs_bt_probe bt_probe;   /* what bt knows at compile time (trace bt) */
	/* Rows for this program's own bt_unwind_rows (one-module plans), or
	 * NULL: the rows are the plan's shared rows (module ranges) or none. */
	const struct gs_rowset *rows;
	/* The trace's body with its DWARF names, casts and $retval resolved
	 * at this address, until gs_plan_build() returns; NULL: the trace's
	 * own body (nothing to resolve). */
	const struct gs_stmt *body;
};

struct gs_plan_trace {
	uint32_t id;                    /* the trace id its events carry */
	struct gs_target_pattern pattern; /* as given (strings are the caller's) */
	struct gs_trace_spec spec;      /* as given (body is the caller's) */
	const struct gs_script *script; /* for messages at its position, or NULL */
	const struct gs_script_trace *script_trace;
	struct gs_target target;        /* resolved: module and addresses */
	struct gs_plan_probe *probes;   /* one per address of target */
	size_t nprobes;
	bool bt;                        /* the body has a bt: unwind maps are filled */
	/* Copies of a function traced by name (inline instances, same-named
	 * statics) that lack names the body reads, which print <optimized
	 * out> there: "'a' is not visible in 1 of 3 copies (inlined in main at
	 * prog.c:40, 0x1150); they print <optimized out>", or NULL. */
	char *names_note;
	/* Thread-locals the body reads that the process cannot give (no
	 * thread pointer in the kernel's BTF, no glibc loader tables):
	 * "'st_tls' is a thread-local and the process has no glibc dynamic
	 * linker to give its module id; it prints <optimized out>", or NULL. */
	char *tls_note;
};

struct gs_plan;

GS_API int gs_plan_new(const struct gs_plan_opts *opts, struct gs_plan **out, struct gs_error *err);
/* Resolves target, checks that CFI covers every address when the body has
 * a `bt`, and plans the backtrace there. spec (its body) and the pattern's
 * strings are borrowed: they must outlive the plan. 0, or -errno with err
 * naming the target and the fix (-ENOENT, -EINVAL: bad input). */
GS_API int gs_plan_add(struct gs_plan *p, const struct gs_target_pattern *target,
		       const struct gs_trace_spec *spec, struct gs_error *err);
/* gs_plan_add() for every trace of a parsed script (trace id = its index);
 * errors show the trace's position, source line and caret. s must outlive
 * the plan. */
GS_API int gs_plan_add_script(struct gs_plan *p, const struct gs_script *s, struct gs_error *err);
/* Sizes the maps programs share (room for the shared rows twice over: later
 * dlopens append) and builds every probe's program. */
GS_API int gs_plan_build(struct gs_plan *p, struct gs_error *err);
/* gs_plan_new + gs_plan_add_script + gs_plan_build. */
GS_API int gs_plan_from_script(const struct gs_script *s, const struct gs_plan_opts *opts,
			       struct gs_plan **out, struct gs_error *err);
GS_API void gs_plan_free(struct gs_plan *p);

GS_API size_t gs_plan_trace_count(const struct gs_plan *p);
GS_API const struct gs_plan_trace *gs_plan_trace_at(const struct gs_plan *p, size_t i);
GS_API size_t gs_plan_probe_count(const struct gs_plan *p);
/* The program options every program was built with (sizes decided). */
GS_API const struct gs_program_opts *gs_plan_program_opts(const struct gs_plan *p);
/* The rows the shared bt_unwind_rows starts with (module ranges), and the
 * process whose modules they cover (0: none). */
GS_API const struct gs_rowset *gs_plan_shared_rows(const struct gs_plan *p);
GS_API pid_t gs_plan_rows_pid(const struct gs_plan *p);
/* The pid given in the options (0: target mode). */
GS_API pid_t gs_plan_pid(const struct gs_plan *p);
/* The module-file cache the plan read through (its own or the options'):
 * hand it to the symbolizer so frames read the same files. */
GS_API struct gs_modfiles *gs_plan_modfiles(const struct gs_plan *p);

/* ---- where start-up time goes (plan.c, session.c) ----------------------- */

enum gs_phase {
	GS_PHASE_RESOLVE,     /* targets to addresses (ELF, DWARF, debug files) */
	GS_PHASE_PLAN_ROWS,   /* CFI rows of the probe and process modules */
	GS_PHASE_VALUES,      /* DWARF names, casts and $retval at each address */
	GS_PHASE_BUILD,       /* code generation of every program */
	GS_PHASE_CREATE_MAPS, /* bpf map creation */
	GS_PHASE_WRITE_ROWS,  /* module offsets, ranges and unwind rows */
	GS_PHASE_LOAD,        /* bpf_prog_load: the verifier */
	GS_PHASE_ATTACH,      /* uprobes and readers */
	GS_PHASE_COUNT
};

/* Nanoseconds spent in each phase so far. */
struct gs_phase_times {
	uint64_t ns[GS_PHASE_COUNT];
};

/* Short stable name of a phase ("plan rows"). */
GS_API const char *gs_phase_name(enum gs_phase phase);
/* The plan's phases (resolve, plan rows, build) added into *t. */
GS_API void gs_plan_phase_times(const struct gs_plan *p, struct gs_phase_times *t);

enum gs_plan_print {
	GS_PLAN_PRINT_SUMMARY = 1, /* per probe: address, programs, maps, rows */
	GS_PLAN_PRINT_INSNS = 2,   /* per probe: main then step program listing */
};
/* Writes what `what` asks (GS_PLAN_PRINT_* bits) for every probe to f:
 * the --dry-run and --dump-insns texts of docs/cli.md. 0 or -errno. */
GS_API int gs_plan_print(const struct gs_plan *p, unsigned what, FILE *f);

/* ---- a tracing session (session.c) --------------------------------------- */

/* Options (GS_OPTS); on_event is required, zero is the default of the rest. */
struct gs_session_opts {
	size_t sz;
	bool force_tracefs;   /* attach through tracefs uprobe_events, not the PMU */
	/* Attach through perf events even where the kernel has uprobe_multi
	 * links (which detach in parallel, and are the default). */
	bool no_multi_link;
	gs_event_fn on_event; /* decoded events; a non-zero return ends a poll */
	void *arg;
};

struct gs_session;

GS_API int gs_session_new(const struct gs_session_opts *opts, struct gs_session **out,
			  struct gs_error *err);
/* Loads and attaches every probe of plan, in plan order: creates its maps
 * (the module and row maps shared by every program), fills the unwind maps
 * (with a pid, that process; in target mode every process mapping a traced
 * module, rescanned at most once a second later), loads, adds its output
 * to the reader, attaches (a uprobe_multi link per program where the kernel
 * has them, else perf events). First it removes the tracefs entries that
 * killed gstraces left (gs_uprobe_events_reap). The
 * plan must outlive the session. Returns the number of probes attached or
 * -errno, err naming the trace; a verifier rejection's full report is then
 * gs_session_report(). Call once per session. */
GS_API int gs_session_start(struct gs_session *s, const struct gs_plan *plan, struct gs_error *err);
/* The verifier report of the last rejected load, or NULL. */
GS_API const char *gs_session_report(const struct gs_session *s);
/* The session's phases (create maps, write rows, load, attach) added into
 * *t. */
GS_API void gs_session_phase_times(const struct gs_session *s, struct gs_phase_times *t);
/* Refreshes the unwind maps (at most once a second: the process's when its
 * mappings changed; in target mode, processes that started mapping a
 * traced module), then reads events as gs_reader_poll does. */
GS_API int gs_session_poll(struct gs_session *s, int timeout_ms, struct gs_error *err);
/* Descriptor readable when events wait (for the caller's own poll). */
GS_API int gs_session_fd(const struct gs_session *s);
/* Events lost in the kernel so far: loss counters of every trace plus lost
 * perf samples. */
GS_API int gs_session_lost(const struct gs_session *s, uint64_t *total, struct gs_error *err);
/* Counting in BPF (gs_program_opts.count_stacks): calls fn once per
 * distinct stack counted so far by every program, with the event a
 * userspace count would have seen (decoded from the map key by the
 * event decoder: trace id, tgid, the Backtrace; time and tid 0) and its
 * count. Stacks the full map dropped are in gs_session_lost(). 0, the
 * first non-zero value of fn, or -errno. */
typedef int (*gs_stack_count_fn)(void *arg, const struct gs_event *ev, uint64_t count);
GS_API int gs_session_stack_counts(const struct gs_session *s, gs_stack_count_fn fn, void *arg,
				   struct gs_error *err);
/* Probes attached so far. */
GS_API size_t gs_session_probe_count(const struct gs_session *s);
/* Detaches every probe, concurrently; maps, counters and buffers stay, so
 * gs_session_lost() and gs_session_poll() still work (nothing new comes).
 * Once per session; gs_session_free() does it when not done. */
GS_API void gs_session_detach(struct gs_session *s);
/* Detaches every probe (when not done) and frees everything. */
GS_API void gs_session_free(struct gs_session *s);

#ifdef __cplusplus
}
#endif

#endif /* GS_RUNTIME_H */
