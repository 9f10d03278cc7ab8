/* gs_program_build(): one trace's description (a gs_trace_spec, as the
 * script parser or a library user writes it) -> the BPF program, the maps it
 * needs and the side tables its events refer to. Building needs no
 * privileges and never touches the kernel; the runtime creates the maps,
 * patches the relocations and loads the program. */
#ifndef GS_PROGRAM_H
#define GS_PROGRAM_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/asm.h>
#include <gs/context.h>
#include <gs/error.h>
#include <gs/protocol.h>
#include <gs/spec.h>
#include <gs/value.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options (GS_OPTS; zero = the default each field's comment gives) --- */

enum gs_output_kind {
	GS_OUTPUT_RINGBUF = 0,
	GS_OUTPUT_PERF = 1,
};

/* Which backtrace walker `bt` compiles to. */
enum gs_unwinder {
	GS_UNWINDER_TAILCALL = 0, /* the reference's: 5 frames inline, then a tail-called
				   * step program (depth <= 128, any kernel with BPF) */
	GS_UNWINDER_LOOP = 1,     /* one global subprogram with a bpf_loop (Linux 5.17+),
				   * shared by every `bt`, depth <= 512 */
};

struct gs_program_opts {
	size_t sz; /* sizeof(struct gs_program_opts): lets the struct grow */
	enum gs_output_kind output;
	uint32_t max_trace_event_size; /* 0: 32768 (clamped to the output buffer) */
	/* 0: 262144 here; a trace plan (gs/runtime.h) sizes a 0 by the
	 * largest event of its programs instead (gs_output_default_size). */
	uint32_t ringbuf_size;
	uint32_t perf_page_count;      /* 0: 64, or as ringbuf_size in a plan */
	/* PID filter: none when filter_pid == 0. With pid_ns_ino set, the
	 * filter compares the TGID seen in that PID namespace (helper 120). */
	uint32_t filter_pid;
	uint64_t pid_ns_dev, pid_ns_ino;
	/* Namespace for $pid/$tid when there is no namespace filter. */
	uint64_t special_ns_dev, special_ns_ino;
	uint32_t backtrace_depth;        /* 0: 128; clamped to 1..128 (tail call)
					  * or 1..512 (loop) */
	enum gs_unwinder unwinder;
	uint32_t unwind_rows_max;        /* 0: 65536 bt_unwind_rows entries */
	uint32_t proc_offsets_max;       /* 0: 4096 (module maps' capacity) */
	/* Cap of `{:s}` strings and `{:x.N}`/`{:s.N}` dumps, in bytes; 0: 256
	 * (the reference's mem_dump_cap). Bounded by the event size. */
	uint32_t max_string_len;
	/* Cap of the bytes memcmp/strncmp/starts_with compare; 0: 64. */
	uint32_t compare_cap;
	/* Skip gs_asm_check() of the result (about 20 ns per instruction);
	 * the kernel's verifier still checks at load time. */
	bool skip_check;
	/* Count stacks in BPF instead of emitting events: each hit adds one
	 * to stack_counts[its stack] (struct gs_stack_count_key, protocol.h)
	 * and sends nothing; a stack the full map cannot take adds one to
	 * stack_count_drops. The body must be exactly one `bt` (any flags)
	 * and the unwinder the loop walker (the build fails otherwise,
	 * naming why). */
	bool count_stacks;
	uint32_t stack_counts_max; /* 0: GS_DEFAULT_STACK_COUNTS_MAX entries */
	/* Reads of user memory fault pages in, as gdb's reads do: the
	 * program is built to be loaded sleepable (BPF_F_SLEEPABLE, Linux
	 * 6.0+ for uprobes; gs_sleepable_uprobe_supported()). A read tries
	 * bpf_probe_read_user first and, when that fails, reads again with
	 * bpf_copy_from_user, which may sleep on the fault. The ring buffer
	 * output and the loop unwinder only (the kernel refuses perf event
	 * arrays and program arrays in sleepable programs). */
	bool fault_in;
	/* offsetof(struct task_struct, thread.fsbase) in the running kernel
	 * (its BTF), where thread-locals find the thread pointer; 0: unknown,
	 * and every thread-local is OffsetsUnavailable (docs/tls.md). */
	uint32_t task_fsbase_offset;
	/* Standard-library values (gs/view.h, docs/values.md): the elements
	 * of a container and the characters of a string read at most, as
	 * gdb's `print elements` (0: 200; 16 for containers whose elements
	 * read more, such as a vector of strings), and views inside views
	 * (0: 4). */
	uint32_t max_elements;
	uint32_t max_view_depth;
	/* Entries of gs_aggs, the map every aggregation of a session shares
	 * (one per key, and per bucket of a histogram's key); 0:
	 * GS_AGG_DEFAULT_MAX_KEYS. */
	uint32_t agg_max_keys;
	/* Bytes of gs_agg_key.keys the programs use (the map's key is 8 more),
	 * a multiple of 8; 0: GS_AGG_KEY_MAX. Every program sharing gs_aggs
	 * must have the same: the runtime's plan sets the most its
	 * aggregations need, so that the key hashed per update is no longer
	 * than it must be. An aggregation whose keys need more fails the
	 * build. */
	uint32_t agg_key_bytes;
	/* Every `bt` also walks the hit thread's Python frames
	 * (GS_BT_FLAG_PYTHON on each, gs/wire.h "Python stack"): the loop
	 * unwinder only, reading py_procs and task_fsbase_offset. */
	bool python_frames;
	/* With count_stacks: the count key keeps the thread id
	 * (gs_stack_count_key.tid), so each thread's stacks count apart;
	 * without, tid is 0 and a process's threads count together. */
	bool count_per_thread;
};

/* ---- the result ----------------------------------------------------------- */

/* A built program: opaque (its layout is not ABI), read through the
 * accessors below, freed with gs_program_free(). */
struct gs_program;

/* Builds `spec` into a new program in *out (opts may be NULL: every
 * default). spec and what it points to (gs_var, gs_type) are read during
 * the call only. 0, or -errno with err naming the statement or expression
 * at fault (-EINVAL: a spec or options it cannot build; -E2BIG: past a
 * limit; -ENOSPC: past the 512-byte stack; -ENOMEM), *out NULL. Free with
 * gs_program_free(). */
GS_API int gs_program_build(const struct gs_trace_spec *spec, const struct gs_program_opts *opts,
			    struct gs_program **out, struct gs_error *err);
/* The same; on failure *at is the expression of spec the error is about
 * (the member a type lacks, the value a placeholder cannot print), or
 * NULL when the error is about no expression (at may be NULL): a caller
 * with the script can then show the error where the user wrote it. */
GS_API int gs_program_build_at(const struct gs_trace_spec *spec,
			       const struct gs_program_opts *opts, struct gs_program **out,
			       const struct gs_expr **at, struct gs_error *err);
/* Frees p and everything its accessors gave (NULL is fine). */
GS_API void gs_program_free(struct gs_program *p);

/* The finished main program (with its subprograms), and the backtrace
 * step program of the tail-call walker (NULL when it has none): for
 * gs_asm_insns(), gs_asm_dump() and the like. Every accessor below reads
 * a built program, and what it returns is p's (valid until
 * gs_program_free). */
GS_API const struct gs_asm *gs_program_main(const struct gs_program *p);
GS_API const struct gs_asm *gs_program_step(const struct gs_program *p);
/* The program at the function's entry that keeps the time $duration
 * measures from (a return probe reading $duration), or NULL: the runtime
 * attaches it where the return probe is, with the same maps. */
GS_API const struct gs_asm *gs_program_entry(const struct gs_program *p);
/* The aggregations the program updates (*n of them), or NULL. */
GS_API const struct gs_agg_desc *gs_program_aggregations(const struct gs_program *p, size_t *n);
/* The program's name for the kernel, and the trace it was built for. */
GS_API const char *gs_program_name(const struct gs_program *p);
GS_API uint32_t gs_program_trace_id(const struct gs_program *p);
/* The strings, variable names and types its events refer to: what a
 * decoder of its events needs (gs_decoder_new). */
GS_API const struct gs_trace_context *gs_program_context(const struct gs_program *p);
/* Whether it must be loaded sleepable (gs_program_opts.fault_in). */
GS_API bool gs_program_sleepable(const struct gs_program *p);
/* The bytes of its largest event (header through EndInstruction, a
 * backtrace at its full depth): every reservation has a constant size,
 * so this is the longest path's; 0 when it sends no events
 * (aggregations only, stacks counted in BPF). What the runtime sizes the
 * output buffer by (gs_output_default_size, gs/runtime.h). */
GS_API uint32_t gs_program_event_size(const struct gs_program *p);

#ifdef __cplusplus
}
#endif

#endif /* GS_PROGRAM_H */
