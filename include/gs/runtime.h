/* The runtime: the only layer that makes syscalls. An embedder resolves
 * targets, builds a trace plan (one program per probe) and runs it in a
 * session: maps created and filled, programs loaded (verifier log on
 * rejection), uprobes attached, events read into the decoder. The
 * building blocks below the session (maps, loading one program, uprobe
 * links, readers, the per-process unwind maps) are internal to libgs
 * (<gs/internal/runtime.h>, not installed). libbpf is used for its
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

#include <gs/aggs.h>
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

/* ---- what this kernel can do (maps.c, load.c, attach.c) ----------------- */

/* 0 when bpf() works here; else -errno and why not (no privileges, no
 * bpf() in this kernel) so a caller can say so or a test can skip. */
GS_API int gs_bpf_permitted(struct gs_error *err);
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

/* Resolves a parsed target pattern into *out, one of:
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
 * binary, address outside every segment). *out's strings and locations
 * are malloc'd: gs_target_free() empties it (a filled or zeroed one). */
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

/* Writes to f the functions whose names match glob (fnmatch), by module:
 * name, file:line from DWARF, and address (or "inlined only"); ELF symbols
 * DWARF does not name too. 0; -ENOENT when none matches, -EINVAL without
 * a pid or module, or the errors of opening them, with err filled. */
GS_API int gs_list_functions(const char *glob, const struct gs_list_opts *o, FILE *f,
			     struct gs_error *err);
/* Writes to f, for each address the trace target (as a script writes it)
 * resolves to (gs_target_resolve): the variables visible there, innermost
 * first, each with its scope (param, local, static, global), type and
 * where it lives (register, stack, global, optimized out). 0, or the
 * errors of parsing and resolving the target, with err filled. */
GS_API int gs_list_vars(const char *target, const struct gs_list_opts *o, FILE *f,
			struct gs_error *err);

/* ---- uprobes (attach.c) -------------------------------------------------- */

/* 0 when the perf uprobe PMU or tracefs uprobe_events is usable; else
 * -errno and why not, with err filled. */
GS_API int gs_uprobe_supported(struct gs_error *err);
/* 0 when this kernel has uprobe_multi links (Linux 6.6+, bpf() allowed);
 * else -errno and why not. */
GS_API int gs_uprobe_multi_supported(struct gs_error *err);

/* ---- the trace plan (plan.c, plan_print.c) -------------------------------- */

/* Everything a run will load, computed once: each trace's target resolved
 * to its addresses, what `bt` needs at each (the compile-time row, the rows
 * the unwind maps will hold), the map sizes every program agrees on, and
 * the built programs. The live session loads exactly these programs, and
 * --dry-run / --dump-insns print them, so the listing is what gets loaded. */

/* Options (GS_OPTS); zero is the default of every field. */
enum gs_python_frames {
	GS_PYTHON_FRAMES_AUTO = 0,
	GS_PYTHON_FRAMES_OFF = 1,
	GS_PYTHON_FRAMES_ON = 2, /* an error where they cannot be walked */
};

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
	/* The id gs_plan_add_script gives the script's first trace (the
	 * others follow it): a live session numbers traces across scripts. */
	uint32_t first_trace_id;
	/* Backtraces show the Python frames of a CPython 3.8-3.13 process in
	 * place (gs_program_opts.python_frames): AUTO when the target runs
	 * CPython (-p: a module holding the interpreter; -t: the binary holds
	 * it or links libpython; neither: every process may). */
	enum gs_python_frames python_frames;
};

/* One trace of a plan: opaque, read through the accessors below. */
struct gs_plan_trace;

struct gs_plan;

/* An empty plan in *out (opts may be NULL: target mode, every default;
 * opts->program and module are copied), freed with gs_plan_free(). Needs
 * no privileges: a plan never touches the kernel. 0, or -EINVAL (bad
 * options) / -ENOMEM with err filled and *out NULL. */
GS_API int gs_plan_new(const struct gs_plan_opts *opts, struct gs_plan **out, struct gs_error *err);
/* Resolves target, checks that CFI covers every address when the body has
 * a `bt`, and plans the backtrace there. spec (its body) and the pattern's
 * strings are borrowed: they must outlive the plan. 0, or -errno with err
 * naming the target and the fix (-ENOENT, -EINVAL: bad input; -E2BIG past
 * max_probes; -EBUSY once the plan is built). */
GS_API int gs_plan_add(struct gs_plan *p, const struct gs_target_pattern *target,
		       const struct gs_trace_spec *spec, struct gs_error *err);
/* gs_plan_add() for every trace of a parsed script (trace id =
 * first_trace_id + its index); errors show the trace's position, source
 * line and caret. s must outlive the plan. */
GS_API int gs_plan_add_script(struct gs_plan *p, const struct gs_script *s, struct gs_error *err);
/* Sizes the maps programs share (room for the shared rows twice over: later
 * dlopens append) and builds every probe's program, once. 0, or -errno
 * with err naming the trace (its position, for a script's); -EBUSY when
 * built already. */
GS_API int gs_plan_build(struct gs_plan *p, struct gs_error *err);
/* CPU samples (gstrace --profile): every CPU's clock runs a perf_event
 * program frequency times a second that walks the user stack of the task
 * it interrupted, in BPF with the loop unwinder, and (kernel_stacks) keeps
 * the kernel stack above it. Which tasks: the plan's process (pid), the
 * processes mapping its module (module: every process running it, picked
 * up as they start), or every process (neither); never the idle task.
 * With gs_program_opts.count_stacks the stacks are counted in BPF
 * (gs_session_stack_counts), else each sample is an event. Needs Linux
 * 5.17+ (bpf_loop, bpf_task_pt_regs). Options (GS_OPTS); zero is the
 * default of every field. */
struct gs_sample_opts {
	size_t sz;
	uint32_t trace_id;
	uint32_t frequency; /* samples a second on each CPU; 0: 99 */
	bool kernel_stacks;
	/* Count this trace's stacks in BPF whatever gs_program_opts.count_stacks
	 * says (the other traces of the plan, a script's, keep their events). */
	bool count_stacks;
	/* The clock starts stopped: nothing is sampled until
	 * gs_session_sampling(s, true). */
	bool paused;
	/* With counting (count_stacks here or in the plan's program opts):
	 * each thread's stacks count apart, the event a count stands for
	 * carrying its tid (else 0: a process's threads together). */
	bool per_thread;
};
#define GS_SAMPLE_DEFAULT_FREQUENCY 99
/* Adds the CPU samples above to p as one trace (opts may be NULL), before
 * gs_plan_build. 0, or -EINVAL (the plan's programs use the tail-call
 * unwinder, bad options), -EBUSY (built already), -ENOMEM, with err
 * filled. */
GS_API int gs_plan_add_samples(struct gs_plan *p, const struct gs_sample_opts *opts,
			       struct gs_error *err);
/* Whether trace t samples CPUs (gs_plan_add_samples) rather than probing
 * addresses. */
GS_API bool gs_plan_trace_samples(const struct gs_plan_trace *t);

/* gs_plan_new + gs_plan_add_script + gs_plan_build: *out, or NULL and
 * the first error. s must outlive the plan. */
GS_API int gs_plan_from_script(const struct gs_script *s, const struct gs_plan_opts *opts,
			       struct gs_plan **out, struct gs_error *err);
/* Frees the plan, its programs and traces (NULL is fine), after every
 * session started on it; its own module-file cache too, not one given. */
GS_API void gs_plan_free(struct gs_plan *p);

/* The plan's traces in the order added: their count, and the i-th (NULL
 * past the last), owned by p (valid until gs_plan_free). The accessors
 * below read one; what they return is p's too. */
GS_API size_t gs_plan_trace_count(const struct gs_plan *p);
GS_API const struct gs_plan_trace *gs_plan_trace_at(const struct gs_plan *p, size_t i);
/* The trace id its events carry, its target as given and as resolved
 * (module and addresses). */
GS_API uint32_t gs_plan_trace_id(const struct gs_plan_trace *t);
GS_API const struct gs_target_pattern *gs_plan_trace_pattern(const struct gs_plan_trace *t);
GS_API const struct gs_target *gs_plan_trace_target(const struct gs_plan_trace *t);
/* What a user should know about how the trace resolved, one sentence each
 * (an IFUNC's implementation, copies that lack a name and print <optimized
 * out>, thread-locals the process cannot give): the i-th, NULL past the
 * last. */
GS_API const char *gs_plan_trace_note(const struct gs_plan_trace *t, size_t i);
/* Its probes (one per address of the target) and each one's program
 * (NULL before gs_plan_build, or past the last). The plan's probes over
 * every trace. */
GS_API size_t gs_plan_trace_probe_count(const struct gs_plan_trace *t);
GS_API const struct gs_program *gs_plan_trace_program(const struct gs_plan_trace *t, size_t i);
GS_API size_t gs_plan_probe_count(const struct gs_plan *p);
/* The program options every program was built with (sizes decided). */
GS_API const struct gs_program_opts *gs_plan_program_opts(const struct gs_plan *p);
/* The largest event any of its programs sends, in bytes
 * (gs_program_event_size); 0 when none sends events. */
GS_API uint32_t gs_plan_largest_event(const struct gs_plan *p);
/* The default size in bytes of one output buffer (a ring buffer, or one
 * CPU's perf buffer) of `nbuffers` in a session whose largest event is
 * `largest_event` bytes: room for GS_OUTPUT_EVENTS such records, rounded
 * up to a power of two, at most GS_OUTPUT_MAX_SIZE and at most an equal
 * share (a power of two) of GS_OUTPUT_TOTAL_MAX, at least
 * GS_OUTPUT_MIN_SIZE (gs/map_abi.h). A plan whose program options leave
 * ringbuf_size (or perf_page_count) 0 sizes its buffers so. */
GS_API uint32_t gs_output_default_size(uint32_t largest_event, size_t nbuffers);
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

/* Short stable name of a phase ("plan rows"); a constant string. */
GS_API const char *gs_phase_name(enum gs_phase phase);
/* The plan's phases (resolve, plan rows, build) added into *t. */
GS_API void gs_plan_phase_times(const struct gs_plan *p, struct gs_phase_times *t);

enum gs_plan_print {
	GS_PLAN_PRINT_SUMMARY = 1, /* per probe: address, programs, maps, rows */
	GS_PLAN_PRINT_INSNS = 2,   /* per probe: main then step program listing */
};
/* Writes what `what` asks (GS_PLAN_PRINT_* bits) for every probe of a
 * built plan to f: the --dry-run and --dump-insns texts of docs/cli.md.
 * 0, -EINVAL for a plan not built, or -EIO when f reports an error. */
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
	/* What a user should hear once, as a line without a newline (arg is
	 * on_event's): a traced process whose Python frames stay native
	 * (`pid 42: python 3.7: unsupported (...), native frames only`). NULL: none. */
	void (*on_note)(void *arg, const char *text);
};

struct gs_session;

/* A session with nothing loaded yet in *out, freed with gs_session_free()
 * (NULL is fine). opts is required (on_event). 0, or -EINVAL (no
 * on_event, bad options) / -ENOMEM with err filled and *out NULL. */
GS_API int gs_session_new(const struct gs_session_opts *opts, struct gs_session **out,
			  struct gs_error *err);
/* Loads and attaches every probe of plan, in plan order: creates its maps
 * (the module and row maps shared by every program), fills the unwind maps
 * (with a pid, that process; in target mode every process mapping a traced
 * module, rescanned at most once a second later), loads, adds its output
 * to the reader, attaches (a uprobe_multi link per program where the kernel
 * has them, else perf events). First it removes the tracefs entries that
 * killed gstraces left (gs_uprobe_events_reap). The plan must outlive
 * the session. Returns the number of probes attached or -errno, err
 * naming the trace; a verifier rejection's full report is then
 * gs_session_report(). Needs root (or CAP_BPF and CAP_PERFMON): -EPERM or
 * -EACCES otherwise. -EINVAL for a plan not built; -EBUSY when called
 * twice (once per session). */
GS_API int gs_session_start(struct gs_session *s, const struct gs_plan *plan, struct gs_error *err);
/* The verifier report of the last rejected load, or NULL; owned by s. */
GS_API const char *gs_session_report(const struct gs_session *s);
/* The session's phases (create maps, write rows, load, attach) added into
 * *t. */
GS_API void gs_session_phase_times(const struct gs_session *s, struct gs_phase_times *t);
/* Refreshes the unwind maps (at most once a second: the process's when its
 * mappings changed; in target mode, processes that started mapping a
 * traced module), then reads events, waiting up to timeout_ms (-1:
 * forever), each to on_event. The number of events, on_event's first
 * non-zero value, -EINTR when a signal interrupted the wait (err not
 * filled), or -errno with err filled. After gs_session_start. */
GS_API int gs_session_poll(struct gs_session *s, int timeout_ms, struct gs_error *err);
/* Descriptor for the caller's own poll: readable when a buffer's programs
 * wake it, which they do only once a quarter of the buffer waits (or when
 * a dlopen's hook rings), so a caller sleeping on it also calls
 * gs_session_poll every few milliseconds (the reader's tick is 5 ms;
 * gs_live_fd has such a tick of its own). */
GS_API int gs_session_fd(const struct gs_session *s);
/* Events lost in the kernel so far in *total: loss counters of every
 * trace plus lost perf samples. 0, or -errno of a map read with err
 * filled. */
GS_API int gs_session_lost(const struct gs_session *s, uint64_t *total, struct gs_error *err);
/* Counting in BPF (gs_program_opts.count_stacks): calls fn once per
 * distinct stack counted so far by every program, with the event a
 * userspace count would have seen (decoded from the map key by the
 * event decoder: trace id, tgid, the Backtrace; time 0, tid 0 unless the
 * trace counts per thread) and its count. Stacks the full map dropped are in gs_session_lost(). */
typedef int (*gs_stack_count_fn)(void *arg, const struct gs_event *ev, uint64_t count);
/* Calls fn as above (ev valid during the call only). 0, the first
 * non-zero value of fn, or -errno with err filled. */
GS_API int gs_session_stack_counts(const struct gs_session *s, gs_stack_count_fn fn, void *arg,
				   struct gs_error *err);
/* What CPU samples (gs_plan_add_samples) keep in memory: the processes
 * whose modules are in the maps, the modules with unwind rows, the rows in
 * use and the most the maps hold (gs_program_opts.unwind_rows_max), the
 * bytes of every map the programs share (what the kernel allocated for
 * them), and the modules left without rows because the maps were full. */
struct gs_sample_stats {
	size_t processes;
	size_t modules;
	uint64_t rows, rows_capacity;
	uint64_t map_bytes;
	uint64_t modules_without_rows; /* counted at each fill that tried them */
	/* Processes left out because the module maps were full (counted at
	 * each fill that tried them), and the entries of proc_module_offsets
	 * (at most gs_program_opts.proc_offsets_max): one per module of each
	 * process filled. */
	uint64_t processes_skipped;
	uint64_t module_entries;
};
/* Fills *st from the started session's maps. 0, or -errno of listing the
 * module rows map, with err filled. */
GS_API int gs_session_sample_stats(const struct gs_session *s, struct gs_sample_stats *st,
				   struct gs_error *err);
/* The aggregations of the session's traces (docs/cli.md, "Aggregations"),
 * read from their map as they are now (at exit, or every --interval):
 * fn gets one table per @name in script order (the table is valid during
 * the call only). *dropped (when not NULL): updates a full map could not
 * take (raise gs_program_opts.agg_max_keys). */
typedef int (*gs_agg_table_fn)(void *arg, const struct gs_agg_table *t);
/* Calls fn as above; nothing when no trace aggregates. 0, fn's first
 * non-zero value, or -errno (a map read, -ENOMEM) with err filled. */
GS_API int gs_session_aggregations(const struct gs_session *s, gs_agg_table_fn fn, void *arg,
				   uint64_t *dropped, struct gs_error *err);
/* Probes attached so far. */
GS_API size_t gs_session_probe_count(const struct gs_session *s);

/* ---- what an agent reads while the session runs (docs/agent.md) ---------- */

/* gs_session_poll also returns (0 events) when fd is readable: a caller's
 * own source of work (the agent's requests), waited for with the events.
 * fd stays the caller's, and readable until the caller reads it. 0 or
 * -errno with err filled. */
GS_API int gs_session_wake_on(struct gs_session *s, int fd, struct gs_error *err);
/* Starts (on) or stops the clock of the session's CPU samples
 * (gs_plan_add_samples; gs_sample_opts.paused starts it stopped). 0
 * (also with no samples), or -errno with err filled. */
GS_API int gs_session_sampling(struct gs_session *s, bool on, struct gs_error *err);
/* As gs_session_stack_counts, but each stack is removed from its map as it
 * is read: fn sees the counts made since the last drain, and the map never
 * fills in a long run. A count BPF adds to a stack while it is being
 * removed is lost (a few at most, at a drain's instant). 0, fn's first
 * non-zero value, or -errno with err filled. */
GS_API int gs_session_drain_stack_counts(struct gs_session *s, gs_stack_count_fn fn, void *arg,
					 struct gs_error *err);
/* One trace's figures, summed over its programs. run_time_ns and run_cnt
 * are the kernel's (bpf_prog_info), counted only while run statistics are
 * on (gs_bpf_run_stats_enable, or sysctl kernel.bpf_stats_enabled). */
struct gs_trace_stats {
	uint32_t trace_id;
	uint32_t programs;        /* loaded programs (probes, or one sampler) */
	uint64_t lost;            /* events the kernel could not deliver */
	uint64_t stacks_dropped;  /* stacks a full stack_counts map could not take */
	/* aggregation updates a full map could not take: the map is the
	 * session's, so every trace that aggregates reports its total */
	uint64_t agg_dropped;
	uint64_t run_time_ns, run_cnt;
};
/* Fills *st for the session's i-th trace, in plan order. 0, -ENOENT past
 * the last, or -errno of a map or program read with err filled. */
GS_API int gs_session_trace_stats(const struct gs_session *s, size_t i, struct gs_trace_stats *st,
				  struct gs_error *err);
/* Bytes the kernel charges for every map the session created (their
 * memlock, as /proc/PID/fdinfo shows it), shared maps once. */
GS_API uint64_t gs_session_map_bytes(const struct gs_session *s);
/* Turns on the kernel's run-time statistics of every BPF program
 * (BPF_ENABLE_STATS, Linux 5.8+) for as long as the returned descriptor is
 * open. The descriptor, or -errno with err filled. */
GS_API int gs_bpf_run_stats_enable(struct gs_error *err);
/* Detaches every probe, concurrently; maps, counters and buffers stay, so
 * gs_session_lost() and gs_session_poll() still work (nothing new comes).
 * Once per session; gs_session_free() does it when not done. */
GS_API void gs_session_detach(struct gs_session *s);
/* Detaches every probe (when not done) and frees everything (NULL is
 * fine); the plan stays the caller's. */
GS_API void gs_session_free(struct gs_session *s);

#ifdef __cplusplus
}
#endif

#endif /* GS_RUNTIME_H */
