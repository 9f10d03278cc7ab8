/* The runtime's building blocks below the plan and the session: kernel
 * maps, loading one program, the backtrace plan of one module, uprobe
 * links, event readers and the per-process unwind maps. The session
 * composes them; the layers of libgs and the tests use them directly. Not
 * installed and not exported: an embedder traces through <gs/runtime.h>'s
 * plan and session. */
#ifndef GS_INTERNAL_RUNTIME_H
#define GS_INTERNAL_RUNTIME_H

#include <gs/internal/program.h>
#include <gs/internal/unwind.h>
#include <gs/runtime.h>

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
	size_t n, cap; /* cap: room in v (a pool grows; 0 when v is not malloc'd) */
	struct gs_bpf_batch *batch;
};
/* Creates p's maps. A PERF_EVENT_ARRAY declared with 0 entries gets one per
 * possible CPU. With a `pool`, the maps the reference pins and shares
 * between traces (proc_module_offsets, pid_aliases, the range maps, and the
 * row maps when the program resolves modules per frame) are taken from the
 * pool when one of the same name and shape is there, else created and added
 * to it: one fill of the pool then serves every trace. Close with
 * gs_bpf_maps_close (the pool too: every holder keeps its own fd). */
int gs_bpf_maps_create(const struct gs_program *p, struct gs_bpf_maps *pool,
			      struct gs_bpf_maps *out, struct gs_error *err);
/* Writes what the writer still holds back (errors as in the writer), then
 * closes every fd. Safe on a zeroed struct and twice. */
void gs_bpf_maps_close(struct gs_bpf_maps *m);
/* The map called `name`, or NULL. */
const struct gs_bpf_map *gs_bpf_maps_find(const struct gs_bpf_maps *m, const char *name);
/* A gs_map_writer over m's maps by name, for gs_offsets_write,
 * gs_ranges_replace and gs_rowset_write. Updates of consecutive keys of an
 * ARRAY map are held back and written in one bpf_map_update_batch when any
 * other operation comes, or at gs_bpf_maps_flush (per element where the
 * kernel has no batch operations). An unknown map name gives -ENOENT. */
void gs_bpf_maps_writer(struct gs_bpf_maps *m, struct gs_map_writer *w);
int gs_bpf_maps_flush(struct gs_bpf_maps *m, struct gs_error *err);

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
	/* enum bpf_prog_type; 0: BPF_PROG_TYPE_KPROBE (a uprobe's).
	 * gs_program_load sets it from gs_program.prog_type. */
	uint32_t prog_type;
};
struct gs_loaded {
	int main_fd, step_fd; /* -1 when absent */
	int entry_fd;         /* the entry program of $duration: -1 when absent */
	uint32_t main_verified_insns, step_verified_insns, entry_verified_insns;
};
/* Loads one finished program as BPF_PROG_TYPE_KPROBE, license "GPL", with
 * the fds of `maps` patched into its relocations (maps in the program's map
 * order). On a rejection err says which instruction the verifier stopped
 * at (index, disassembly, note) and why, and *report (when not NULL) gets a
 * malloc'd text: that instruction, its neighbours and the log's last lines. */
int gs_asm_load(const struct gs_asm *a, const char *name, const struct gs_bpf_maps *maps,
		       const struct gs_load_opts *opts, int *fd, char **report,
		       struct gs_error *err);
/* The same with the BTF that describes a's subprograms (a->funcs): loaded
 * with bpf_btf_load and given to the kernel with func_info. */
int gs_asm_load_btf(const struct gs_asm *a, const struct gs_btf *btf, const char *name,
			   const struct gs_bpf_maps *maps, const struct gs_load_opts *opts, int *fd,
			   char **report, struct gs_error *err);
/* Loads p's step program (when it has one) and stores it in
 * bt_prog_array[0], then loads the main program: the order the main
 * program's tail call needs before it is attached; then its entry
 * program (gs_program_entry), for the caller to attach beside it. */
int gs_program_load(const struct gs_program *p, const struct gs_bpf_maps *maps,
			   const struct gs_load_opts *opts, struct gs_loaded *out, char **report,
			   struct gs_error *err);
void gs_loaded_close(struct gs_loaded *l);

/* ---- backtrace plan (btplan.c) ------------------------------------------- */

/* What `bt` at one probe needs: the compile-time probe info for
 * gs_trace_spec.bt, and the rows to write into bt_unwind_rows. */
struct gs_bt_plan {
	struct gs_bt_probe probe;
	struct gs_rowset rows; /* one module, or every module of the process */
	/* With rows_by_fill: the rows and loop-walker rows of the process's
	 * modules, counted (the maps are sized by them), not in rows. */
	size_t counted_rows, counted_xrows;
};
/* Options (GS_OPTS); zero is the default of every field. */
struct gs_bt_plan_opts {
	size_t sz;
	/* With a pid: the multi-module plan (docs/unwind.md, "Many modules"): rows of
	 * every module the process maps plus the probe module, each frame's
	 * module found at run time. Without, or when that gives no rows: the
	 * probe module's rows only. */
	pid_t pid;
	/* Module files and their CFI rows, read once per cache (NULL: a
	 * cache for this call). */
	struct gs_modfiles *files;
	/* The process's modules are counted, not copied: their rows reach
	 * the maps from the module files when the process is filled (the
	 * loop walker's bt_module_rows), so the plan holds only the probe
	 * module's. */
	bool rows_by_fill;
};
int gs_bt_plan_build(const char *module, uint64_t pc, const struct gs_bt_plan_opts *opts,
			    struct gs_bt_plan *out, struct gs_error *err);
void gs_bt_plan_fini(struct gs_bt_plan *p);

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
int gs_uprobe_attach(int prog_fd, const char *path, uint64_t offset,
			    const struct gs_uprobe_opts *opts, struct gs_uprobe **out,
			    struct gs_error *err);
/* The same for n offsets of one file: one link for all of them, or one
 * perf event each (tracefs mode takes one offset). */
int gs_uprobe_attach_offsets(int prog_fd, const char *path, const uint64_t *offsets,
				    size_t n, const struct gs_uprobe_opts *opts,
				    struct gs_uprobe **out, struct gs_error *err);
/* Closes the link or event(s) and removes any tracefs entry; frees u. */
void gs_uprobe_detach(struct gs_uprobe *u);
/* Detaches n probes at once on worker threads (the kernel spends an RCU
 * grace period or more in each uprobe release; links release in
 * parallel, perf events one by one); v[i] are freed and set to NULL. */
void gs_uprobes_detach(struct gs_uprobe **v, size_t n);
/* Removes the gstrace/ entries of tracefs uprobe_events whose gstrace is
 * gone (killed before it could remove them): its pid does not exist or is
 * another process now. Entries of running gstraces stay. Nothing to do
 * when no tracefs is mounted. *removed (may be NULL) counts them. */
int gs_uprobe_events_reap(size_t *removed, struct gs_error *err);

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
int gs_reader_new(const struct gs_reader_opts *opts, struct gs_reader **out,
			 struct gs_error *err);
void gs_reader_free(struct gs_reader *r);
/* Adds a program's output map: a RINGBUF, or a PERF_EVENT_ARRAY read
 * through per-CPU buffers of page_count pages (0: 64). */
int gs_reader_add(struct gs_reader *r, const struct gs_bpf_map *output, uint32_t page_count,
			 struct gs_error *err);
/* gs_reader_add with the contexts (or lookup) of `decoder` for this map
 * alone, the other options the reader's: the map of one program decoded
 * with that program's context. Probes of one trace share its id, and
 * their contexts differ where a copy of a function lacks a value another
 * copy has. decoder NULL: gs_reader_add. */
int gs_reader_add_decoding(struct gs_reader *r, const struct gs_bpf_map *output,
				  uint32_t page_count, const struct gs_decoder_opts *decoder,
				  struct gs_error *err);
/* Waits up to timeout_ms (-1: forever, 0: no wait) and decodes what
 * arrived; returns the number of events delivered, or the first non-zero
 * on_event value, or -errno (-EINTR when a signal came). Decode errors do
 * not stop reading: they are counted and the last one kept. */
int gs_reader_poll(struct gs_reader *r, int timeout_ms, struct gs_error *err);
/* A descriptor for a caller's own poll, readable when a buffer's programs
 * wake it: only once a quarter of the buffer waits (docs/protocol.md,
 * "Delivery"), so the caller polls on a tick of its own too. */
int gs_reader_fd(const struct gs_reader *r);
struct gs_reader_stats {
	uint64_t events;        /* delivered */
	uint64_t lost_samples;  /* perf buffers' lost-sample records */
	uint64_t decode_errors;
	struct gs_error last_decode_error;
};
void gs_reader_stats(const struct gs_reader *r, struct gs_reader_stats *out);
/* Sum over CPUs of event_loss_counters[0]: events the output helper could
 * not deliver. */
int gs_loss_read(const struct gs_bpf_map *loss, uint64_t *total, struct gs_error *err);

/* ---- process maps (procfill.c) ------------------------------------------- */

/* What the unwind maps know about one process. */
struct gs_procfill {
	pid_t pid;
	struct gs_modfiles *files;   /* where its modules are read (borrowed) */
	struct gs_proc_modules mods; /* the last snapshot written */
	uint64_t exe_dev, exe_ino;   /* its /proc/PID/exe then: an exec changes it */
	int64_t first_fill_ns;       /* CLOCK_MONOTONIC of its first fill (0: none yet) */
	uint64_t *sig;               /* its file mappings, to notice changes */
	size_t nsig;
	/* Every fill first writes the rows of modules the row maps lack, then
	 * the offsets and snapshot that point at them. */
	bool add_rows;
	/* A module whose rows the full row maps cannot take is left without
	 * rows (its frames end the walk) and counted in rows_skipped, rather
	 * than failing the fill: CPU samples of many processes. */
	bool skip_full;
	uint32_t rows_skipped;
	/* A module with TLS is mapped that the loader has not registered yet:
	 * each poll reads proc_module_tls again (docs/tls.md), at most
	 * RT_TLS_MAX_TRIES reads in a row. */
	bool tls_pending;
	unsigned tls_tries;
	/* Why its Python frames stay native (an interpreter gstrace cannot
	 * read), "" else: for the session to say once (pyprocs.c). */
	char py_note[512];
	bool py_noted; /* the session said it (gs_session_opts.on_note) */
};
/* files: the module-file cache its modules are read through (NULL: one
 * per read). */
void gs_procfill_init(struct gs_procfill *f, pid_t pid, struct gs_modfiles *files);
void gs_procfill_fini(struct gs_procfill *f);
/* Whether the process runs another program than at its last fill (an
 * exec): one stat, cheap enough to ask of many processes often. */
bool gs_procfill_execd(const struct gs_procfill *f);
/* Reads /proc/PID/maps and writes proc_module_offsets for every module and,
 * when the maps have them, the range slots (docs/unwind.md, "Map layouts"). */
int gs_procfill_offsets(struct gs_procfill *f, struct gs_bpf_maps *maps,
			       struct gs_error *err);
/* A process that is gone: every entry of it leaves the maps (module
 * offsets, TLS blocks, range slots, Python layout, module snapshot, whose
 * bt_modules regions go back for reuse), and f keeps no snapshot, so a
 * refresh would fill it anew. gs_procfill_offsets does this itself when a
 * write fails (a full map): no half-filled process stays. */
void gs_procfill_forget(struct gs_procfill *f, struct gs_bpf_maps *maps);
/* Rewrites the bpf_loop walker's module snapshot of the process from the
 * last fill (no /proc read), so its entries see rows written since. */
int gs_procfill_snapshot(struct gs_procfill *f, struct gs_bpf_maps *maps,
				struct gs_error *err);
/* Writes plan's rows: the compact tables when the maps are the bpf_loop
 * walker's; else at 0.. for a one-module plan, else appended after
 * the rows in use for modules bt_module_row_ranges lacks. */
int gs_procfill_rows(struct gs_bpf_maps *maps, const struct gs_bt_plan *plan,
			    struct gs_error *err);
/* The processes mapping the file at `path` (same inode as stat(path), in
 * /proc/PID/maps), for target mode: malloc'd, ascending. Processes that
 * cannot be read are skipped. */
int gs_pids_mapping(const char *path, pid_t **pids, size_t *n, struct gs_error *err);
/* When the process's file mappings changed since the last fill: appends
 * the rows of modules not there yet (with add_rows or f->add_rows), then
 * rewrites offsets and ranges. 1 when something changed, 0 when not. */
int gs_procfill_refresh(struct gs_procfill *f, struct gs_bpf_maps *maps, bool add_rows,
			       struct gs_error *err);

/* ---- plan and session internals (plan.c, tracefs.c) ------------------- */

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
	/* CPU samples (gs_plan_add_samples): spec.sample is the scope, the
	 * body is sample_bt, and the one probe is every CPU's clock at
	 * sample_hz, not an address. */
	struct gs_stmt sample_bt;
	uint32_t sample_hz;
	bool sample_paused;             /* the clock starts stopped */
	/* This trace's program counts its stacks in BPF (per thread) whatever
	 * the plan's gs_program_opts say: the other traces keep theirs. */
	bool count_stacks, count_per_thread;
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

/* The rows the shared bt_unwind_rows starts with (module ranges), and the
 * process whose modules they cover (0: none). */
const struct gs_rowset *gs_plan_shared_rows(const struct gs_plan *p);
pid_t gs_plan_rows_pid(const struct gs_plan *p);

#ifdef __cplusplus
}
#endif

#endif /* GS_INTERNAL_RUNTIME_H */
