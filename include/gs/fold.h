/* Stack profiles from decoded events: a backtrace folded into Brendan
 * Gregg's folded form (`root;caller;leaf`, function names without
 * parameters, inline calls as frames of their own) and a table that counts
 * identical keys (folded stacks, or whole events) in userspace, listed by
 * count, and the flame graph drawn from folded stacks. What `--script-output
 * folded`, `--flamegraph` and `--aggregate` are made of; no libbpf. */
#ifndef GS_FOLD_H
#define GS_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gs/api.h>
#include <gs/decode.h>
#include <gs/error.h>
#include <gs/frames.h>
#include <gs/print.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes backtrace instruction bt of ev, root first, into buf (always
 * NUL-terminated when size > 0): the user frames of the stack it shows
 * (gs_frames_stack: Python frames in their places, as gs_fold_stack
 * writes them); each native frame is its function (then the functions
 * inlined into it at that pc, outermost first), else `module+0xpc`
 * (module known, no symbol), else `[unknown]`. Bytes a
 * folded line cannot hold (';', controls, non-ASCII) become '?'. f is the
 * frame resolver the frames are symbolized with (not NULL). Returns the
 * length the whole text needs (as snprintf does). */
GS_API size_t gs_fold_backtrace(struct gs_frames *f, const struct gs_event *ev,
				const struct gs_inst *bt, char *buf, size_t size);

/* Writes frames [first, count) of a shown stack (gs_frames_stack), root
 * first, as gs_fold_backtrace writes native frames: kernel frames suffixed
 * `_[k]`, Python frames `function (file:line)` with the file's base name
 * (`function (file)` when py_lines is false, so a function's lines fold
 * together), JIT frames by the runtime's name or `[anon:jit]`. first =
 * st->kernel leaves the kernel's frames out. Returns the length the whole
 * text needs, as gs_fold_backtrace. */
GS_API size_t gs_fold_stack(const struct gs_stack *st, size_t first, bool py_lines, char *buf,
			    size_t size);

/* Writes the KernelStack instruction ks (a CPU sample's, gs/wire.h),
 * outermost first, each frame its kernel function (f's kallsyms; NULL f:
 * none) or its address, suffixed `_[k]` as flame graphs mark kernel
 * frames: what follows the user stack's leaf in a folded line. Returns the
 * length the whole text needs, as gs_fold_backtrace. */
GS_API size_t gs_fold_kernel_stack(struct gs_frames *f, const struct gs_inst *ks, char *buf,
				   size_t size);

/* A counting table of byte keys, each with an optional text. */
struct gs_counts;

struct gs_count {
	const void *key;
	size_t len;
	uint64_t count;
	const char *text; /* what gs_counts_set_text gave, or NULL */
};

/* An empty table, or NULL without memory; gs_counts_free() frees it, its
 * keys and texts (NULL is fine). */
GS_API struct gs_counts *gs_counts_new(void);
GS_API void gs_counts_free(struct gs_counts *c);
/* Adds n to key's count (a new key, copied, starts at 0); *is_new tells
 * whether it was first seen now (may be NULL). Returns the entry's index
 * for gs_counts_set_text, or -ENOMEM. */
GS_API long gs_counts_add(struct gs_counts *c, const void *key, size_t len, uint64_t n,
			  bool *is_new);
/* Gives entry `index` a copy of text (replacing any). 0, -EINVAL for an
 * index not in the table, or -ENOMEM. */
GS_API int gs_counts_set_text(struct gs_counts *c, long index, const char *text);
GS_API size_t gs_counts_size(const struct gs_counts *c); /* distinct keys */
GS_API uint64_t gs_counts_total(const struct gs_counts *c); /* sum of counts */
/* Every entry, by count, highest first (ties by key bytes): a malloc'd
 * array of gs_counts_size() entries pointing into c (valid until c next
 * changes), which the caller frees with free(); NULL with no memory (or
 * none to list). */
GS_API struct gs_count *gs_counts_sorted(const struct gs_counts *c);

/* An interactive flame graph of the folded stacks counted in stacks (keys
 * `root;...;leaf`, as gs_fold_backtrace writes them; NULL: none), as one
 * SVG written to f: plain JavaScript inside it zooms on a click and
 * highlights a regular expression (Ctrl-F or the Search button), with
 * nothing fetched from a network. title is not NULL (escaped as XML). 0,
 * -ENOMEM, or -EIO when f reports an error. */
GS_API int gs_flamegraph_write(const struct gs_counts *stacks, const char *title, FILE *f);

/* Events counted as they are decoded (gstrace --aggregate, --script-output
 * folded, --flamegraph): by their whole content, or by folded stack, or
 * both. An event's key is what it shows once symbolized: its trace, each
 * printed item's text, and per backtrace the status and each frame's
 * module file and module pc (the same stack in two processes of one
 * binary, at other load addresses, counts once); not its time or thread. */
struct gs_aggregate;

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_aggregate_opts {
	size_t sz;
	bool events; /* count whole events (the table) */
	bool stacks; /* count the folded stack of each backtrace */
	/* How the table shows an event (borrowed for the call): its format
	 * (pretty shows as plain, indented under the count; json as the whole
	 * object), timestamp style, boot clock, and the frame resolver keys
	 * and stacks are made with (borrowed: it outlives the aggregate).
	 * NULL: plain, and a resolver of the aggregate's own. */
	const struct gs_printer_opts *print;
	/* Folded Python frames without their lines (`leaf (pyb.py)`):
	 * --no-py-lines, for a profile by function. */
	bool no_py_lines;
};

/* A new aggregate in *out (opts may be NULL: counts nothing until
 * events or stacks is set), freed with gs_aggregate_free() (NULL is
 * fine). 0, or -EINVAL (options that fail the checks of docs/api.md) /
 * -ENOMEM with err filled and *out NULL. */
GS_API int gs_aggregate_new(const struct gs_aggregate_opts *opts, struct gs_aggregate **out,
			    struct gs_error *err);
GS_API void gs_aggregate_free(struct gs_aggregate *a);
/* Counts ev n times (1 as it arrives; more for counts made in BPF): what
 * it keeps of ev is copied. 0, or -ENOMEM. */
GS_API int gs_aggregate_event(struct gs_aggregate *a, const struct gs_event *ev, uint64_t n);
/* Forgets every count. 0, or -ENOMEM. */
GS_API int gs_aggregate_clear(struct gs_aggregate *a);
/* The table so far, by count: in the text formats
 *   @ <total> events, <distinct> distinct, in <seconds> s
 *   <count> (<share>%) TraceID:<id>
 *   <the event's items as plain output shows them, pretty: indented two>
 * in json one object per line, {"table":{"events":..,"distinct":..,
 * "seconds":..}}, then {"count":..,"total":..,"event":<the event's object>}
 * per distinct event. */
GS_API void gs_aggregate_print_table(const struct gs_aggregate *a, FILE *f, double elapsed_s);
/* `root;...;leaf count` per distinct stack, by count (--script-output
 * folded, the input of flamegraph.pl and speedscope). */
GS_API void gs_aggregate_print_folded(const struct gs_aggregate *a, FILE *f);
/* The folded stacks and their counts (NULL unless opts.stacks), owned by
 * a: valid until the next gs_aggregate_clear or gs_aggregate_free. */
GS_API const struct gs_counts *gs_aggregate_stacks(const struct gs_aggregate *a);

#ifdef __cplusplus
}
#endif

#endif /* GS_FOLD_H */
