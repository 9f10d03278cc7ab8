/* The events layer's private header, shared by its files: an
 * snprintf-style text sink, the escaping of text that comes from the
 * target, the value renderer the instruction renderer calls, the
 * backtrace and frame renderers, and the demangler. Not part of the events
 * API (render.h). */
#ifndef GS_EVENTS_EV_INT_H
#define GS_EVENTS_EV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gs/frames.h>
#include <gs/map_abi.h>
#include <gs/prom.h>
#include <gs/render.h>

/* out.c: a text sink. Counts everything put, stores what fits (and a NUL
 * at done). A growing sink (grow: buf is malloc'd, or NULL) reallocates to
 * hold everything; only when memory runs out does it keep what fits. */
struct ev_out {
	char *buf;
	size_t size;
	size_t len;
	bool grow;
};

void ev_put(struct ev_out *o, const char *s, size_t n);
void ev_put_str(struct ev_out *o, const char *s);
void ev_put_char(struct ev_out *o, char c);
void ev_put_udec(struct ev_out *o, uint64_t v);
void ev_put_sdec(struct ev_out *o, int64_t v);
/* Hex digits of v, at least `digits` of them. */
void ev_put_hex(struct ev_out *o, uint64_t v, bool upper, size_t digits);
void ev_put_0x(struct ev_out *o, uint64_t v);
/* Shortest decimal that reads back as the same double (float when is_float). */
void ev_put_float(struct ev_out *o, double v, bool is_float);
/* NUL-terminates the buffer; the length the whole text has. */
size_t ev_done(struct ev_out *o);

/* Bytes from the target, safe for a terminal: C0 controls, DEL, the C1
 * controls (raw or as UTF-8 C2 80..C2 9F) and bytes that are not UTF-8
 * become \xNN; printable ASCII and valid UTF-8 stay. Inside quotes
 * (quote '"' or '\'') the quote, the backslash, \n, \t and \r get C
 * escapes. GS_RENDER_KEEP_NEWLINES keeps '\n' as it is. */
void ev_put_text(struct ev_out *o, const uint8_t *s, size_t n, char quote, unsigned flags);

/* aggs_entry.c: what an entry of an aggregation table shows, for every
 * renderer of the tables. Key i of keys as the text printer shows it
 * (json: as the JSON printer does, strings and pointers quoted): an
 * enumerator's name, a string key (printable ASCII as it is, the rest
 * \xNN; in JSON \" \\ and \u00NN), or the number. At most
 * EV_AGG_KEY_TEXT_MAX - 1 bytes. */
#define EV_AGG_KEY_TEXT_MAX (6 * GS_AGG_STRING_MAX + 3)
struct gs_agg_desc;
struct gs_agg_entry;
struct gs_agg_table;
struct gs_agg_value;
void ev_put_agg_key(struct ev_out *o, const struct gs_agg_desc *d, const uint8_t *keys,
		    unsigned i, bool json);
/* A string of an aggregation (a key, a name): up to GS_AGG_STRING_MAX bytes
 * or its NUL, escaped as above. */
void ev_put_agg_string(struct ev_out *o, const uint8_t *s, bool json);
/* Bucket i of d's histogram (nb buckets, gs_agg_nbuckets) holds the values
 * [lo, last], from -inf when !has_lo, up to +inf when !has_last: the one
 * statement of the buckets' bounds, which codegen's hist_bucket and
 * lhist_bucket choose. */
struct ev_agg_bucket {
	int64_t lo, last;
	bool has_lo, has_last;
};
struct ev_agg_bucket ev_agg_bucket(const struct gs_agg_desc *d, uint32_t i, uint32_t nb);
/* sum / count, 0 without a count (an integer, as bpftrace shows it). */
int64_t ev_agg_average(const struct gs_agg_value *v);
/* The value a scalar aggregation shows and sorts by (avg and stats: the
 * average). */
int64_t ev_agg_scalar(const struct gs_agg_desc *d, const struct gs_agg_entry *e);
/* A histogram entry's hits, over its buckets. */
uint64_t ev_agg_total(const struct gs_agg_entry *e);
/* t's entries in the order the printers show them: by value (a
 * histogram's by its total), then by key bytes. malloc'd (free it), or
 * NULL without memory. */
const struct gs_agg_entry **ev_agg_sorted(const struct gs_agg_table *t);

/* prom_num.c: v as a sample value or a bound (om: as OpenMetrics wants
 * a float: 1.0, not 1) into buf, EV_PROM_NUM_MAX bytes: an integer
 * exactly, a scaled integer as its exact decimal, a double in its
 * shortest form, each as Go writes them (1e+06, 2.047e-06, 0.0001). */
#define EV_PROM_NUM_MAX 48
void ev_prom_num_text(char *buf, struct gs_prom_num v, bool om);
/* prom.c: whether w writes OpenMetrics (what it may not hold differs). */
bool ev_prom_openmetrics(const struct gs_prom *w);
/* prom.c: whether family (name, type) is neither written nor reserved in
 * w, and could write no sample name of one that is. */
bool ev_prom_name_free(struct gs_prom *w, const char *name, enum gs_prom_type type);

/* frames_jit.c: whether ip of pid, in no module, is JIT code: named by
 * pid's perf map (*name, *off from its entry's start) or in anonymous
 * executable memory (*name NULL); the state kept in *jit (allocated on
 * first use, freed by frames_jit_free). */
struct frames_jit;
bool frames_jit_name(struct frames_jit **jit, pid_t pid, uint64_t ip, const char **name,
		     uint64_t *off);
/* frames.c: the file of pid's module holding the interpreter
 * (_PyEval_EvalFrameDefault), as its module list has it, or NULL: for
 * Python frames no interpreter frame of the native walk names (a walk cut
 * short). Valid until the list is read again. */
const char *ev_frames_interpreter(struct gs_frames *f, pid_t pid);
/* frames.c: the same for native frame r (unresolved) of ev, at raw ip. */
bool ev_frames_jit(struct gs_frames *f, const struct gs_event *ev, uint64_t ip,
		   const char **name, uint64_t *off);
void frames_jit_free(struct frames_jit *jit);

/* kstack.c: a KernelStack instruction's frame i, and the instruction as
 * text, each frame named by name(arg, addr, &off) when given (NULL:
 * addresses only). */
typedef const char *(*ev_kernel_namer)(void *arg, uint64_t addr, uint64_t *off);
uint64_t ev_kernel_frame(const struct gs_inst *in, unsigned i);
/* frames_stack.c's state inside a resolver (frames.c holds it): the
 * stack last shown, the arena of its names, the Python namer. */
struct ev_py;
struct ev_stack_state {
	struct gs_stack_frame *v;
	size_t cap;
	struct gs_arena *arena;
	struct ev_py *py;
};
struct ev_stack_state *ev_frames_state(struct gs_frames *f);
/* frames_python.c: names Python frame w of process pid into out (its
 * function, file, lines, runtime), the interpreter being module (the file
 * of the native frame it replaces) of version 3.minor; out untouched past
 * what is known. */
void ev_py_name(struct gs_frames *fr, struct ev_stack_state *s, pid_t pid, const char *module,
		uint8_t minor, const struct gs_python_frame *w, struct gs_stack_frame *out);
void ev_py_free(struct ev_py *py);

/* pystack.c: a PythonStack instruction's frame i, and its wire text. */
void ev_python_frame(const struct gs_inst *in, unsigned i, struct gs_python_frame *out);
void ev_put_python_stack(struct ev_out *o, const struct gs_inst *in, const char *indent);
void ev_put_kernel_stack(struct ev_out *o, ev_kernel_namer name, void *arg,
			 const struct gs_inst *in, const char *indent);

/* view_ext.c: what a value's views read (gs/view.h), after its bytes: the
 * part of it that belongs to the value being shown (p NULL: not captured;
 * the views then show what their own bytes hold), at view depth `depth`. */
struct ev_ext {
	const uint8_t *p;
	size_t n;
	unsigned depth;
	const struct gs_view_caps *caps;
};

/* Moves x past the extension of a value of type t. */
void ev_ext_skip(struct ev_ext *x, const struct gs_type *t);
/* The extension of a part of the value (x at depth + 1 when `inner`). */
struct ev_ext ev_ext_sub(const struct ev_ext *x, size_t off, const struct gs_type *t, bool inner);

/* value.c: one captured value as `{}` (conv 0), `{:x}`, `{:X}`, `{:p}` or
 * `{:s}` render it; statuses replace it (render.h). */
void ev_put_value(struct ev_out *o, const struct gs_value *v, char conv);
/* t's value from data[0, len) with the extension x. */
void ev_put_typed(struct ev_out *o, const struct gs_type *t, const uint8_t *data, size_t len,
		  unsigned depth, struct ev_ext x);
/* The bytes of a dump ({:x.N}, {:s.N}, with a run-time length): the first
 * n of v's data, as hex pairs (conv 'x' / 'X') or as text (conv 's'). */
void ev_put_dump(struct ev_out *o, const struct gs_value *v, char conv, uint64_t n);

/* view.c: t's view as its debugger shows it; false when t's view is
 * shown as the plain value (not recognized here). */
bool ev_put_view(struct ev_out *o, const struct gs_type *t, const uint8_t *data, size_t len,
		 unsigned depth, struct ev_ext x);

/* view_walk.c: the views read by walking (lists, hash tables, trees,
 * rings); false for the others. */
bool ev_put_walked(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		   unsigned depth, const struct ev_ext *x);

/* render.c: the dump a placeholder with a length shows ({:x.N}, {:s.N}
 * and their run-time lengths {:x.*}, {:x.name$}; args are its wire
 * arguments, the length first for a run-time one): *out is the dump's
 * value with data_len cut to the bytes the length says, so the text and
 * the JSON show the same bytes whichever way the length is given. False
 * when the placeholder is no dump or an argument failed (its status is
 * shown instead: the length's first). */
struct gs_fmt_item;
bool ev_fmt_dump(const struct gs_fmt_item *it, const struct gs_value *args,
		 struct gs_value *out);

/* render.c: one instruction in normal rendering (gs_render_inst),
 * continuation lines of a backtrace after `indent`. */
void ev_put_inst(struct ev_out *o, const struct gs_inst *in, const char *indent);

/* backtrace.c: the one backtrace renderer. The first line has no indent
 * (the caller's item indent), later lines start with '\n' and `indent`
 * (the stopped line) or `frame_indent` (frames); no newline at the end.
 * sym NULL: the protocol-default text (gs_render_inst); else symbolized
 * (the printers), the status and each frame's lines from sym. */
struct ev_frame_cache;
struct ev_bt_frames {
	struct gs_frames *frames;
	struct ev_frame_cache *cache; /* NULL: every frame rendered anew */
	/* the status shown: gs_frames_status */
	uint8_t (*status)(struct gs_frames *f, const struct gs_event *ev, const struct gs_inst *bt);
	/* the stack bt shows (gs_frames_stack) */
	void (*stack)(struct gs_frames *f, const struct gs_event *ev, const struct gs_inst *bt,
		      struct gs_stack *out);
	/* frame f of the stack (a user frame of any kind), shown as frame num;
	 * whether it is a native frame whose module is known (the printer's,
	 * print.c) */
	bool (*put)(struct ev_out *o, const struct ev_bt_frames *sym, const struct gs_inst *in,
		    unsigned num, const struct gs_stack_frame *f, const char *indent);
};
struct ev_bt_style {
	const char *indent, *frame_indent;
	const struct ev_bt_frames *sym;
};
void ev_put_backtrace(struct ev_out *o, const struct ev_bt_style *st, const struct gs_event *ev,
		      const struct gs_inst *in);
/* `\n<indent>#<i>`: every frame line starts so. */
void ev_put_frame_line(struct ev_out *o, const char *indent, unsigned i);

/* print_frame.c: a Python frame's line, `#num leaf at /srv/app/pyb.py:4
 * [python3.11]` (by its code object when it could not be named). */
void ev_put_python_frame(struct ev_out *o, const char *indent, unsigned num,
			 const struct gs_stack_frame *f);
/* print_frame.c: a JIT frame's line, `#num NAME [jit 0xip]` (its perf map's
 * name, else GS_FRAME_JIT_NAME). */
void ev_put_jit_frame(struct ev_out *o, const char *indent, unsigned num,
		      const struct gs_stack_frame *f);
/* print_frame.c: one symbolized frame's lines, each `\n<indent>#<i>...`:
 * an `.inline` line per inline call, then the function; or the raw,
 * signal or unsymbolized form. */
void ev_put_frame(struct ev_out *o, struct gs_frames *frames, const char *indent, unsigned i,
		  uint8_t flags, const struct gs_backtrace_frame *fr, const struct gs_frame *r);

/* print_cache.c: the text of symbolized frames, kept per symbol, module,
 * pc and flags. ev_frame_cache_put writes frame i as ev_put_frame does,
 * from the cache (rendered and kept first when new); false when it cannot
 * keep the frame (then the caller renders it). */
int ev_frame_cache_new(struct ev_frame_cache **out);
void ev_frame_cache_free(struct ev_frame_cache *c);
bool ev_frame_cache_put(struct ev_out *o, struct ev_frame_cache *c, struct gs_frames *frames,
			const char *indent, unsigned i, uint8_t flags,
			const struct gs_backtrace_frame *fr, const struct gs_frame *r);

/* demangle.c: the readable form of a mangled C++ or Rust symbol
 * (malloc'd), or NULL when name is not one. */
char *ev_demangle(const char *name);

#endif /* GS_EVENTS_EV_INT_H */
