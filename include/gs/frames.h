/* Backtrace frames back to modules and source, as
 * gstrace prints them: each frame's module found by its raw ip in the
 * process's module list (read again when an unknown address shows up: a
 * dlopen), else by cookie among binaries known up front; the symbolizer at
 * the pc for frame 0 and at pc - 1 for callers (a return address is after
 * its call, except after a signal frame); signal trampolines; demangled
 * names; and the entry-point rule that shows a walk ending in `_start` as
 * complete. No libbpf: events in, names out. */
#ifndef GS_FRAMES_H
#define GS_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gs/api.h>
#include <gs/decode.h>
#include <gs/error.h>
#include <gs/unwind.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_frames_opts {
	size_t sz;
	/* The traced process (-p or a launched command): frames are looked up
	 * in its modules first, then in the event's process. 0: none. */
	pid_t pid;
	/* Binaries known before any event (-t PATH, a launched command): the
	 * last resort for a frame whose process is gone, by cookie. The
	 * strings are borrowed for the resolver's life. */
	const char *const *modules;
	size_t nmodules;
	/* Where module files are opened and symbolized (borrowed: it must
	 * outlive the resolver; the trace plan's, gs_plan_modfiles, so frames
	 * read the files and debug files resolution read). NULL: its own. */
	struct gs_modfiles *files;
	/* Show C++ and Rust names as the linker sees them (--no-demangle). */
	bool no_demangle;
};

struct gs_frames;

/* A new resolver in *out (opts may be NULL: every default), freed with
 * gs_frames_free() (NULL is fine), after which no frame, name or symbol
 * it gave is valid. A module of opts.modules that cannot be opened is
 * left out silently. 0, or -EINVAL (bad options) / -ENOMEM with err
 * filled and *out NULL. One thread at a time: every call fills caches. */
GS_API int gs_frames_new(const struct gs_frames_opts *opts, struct gs_frames **out,
			 struct gs_error *err);
GS_API void gs_frames_free(struct gs_frames *f);
/* Reads pid's module list now, so its frames still resolve after it exits.
 * A process that cannot be read keeps the list read before (or none). */
GS_API void gs_frames_preload(struct gs_frames *f, pid_t pid);

/* One frame as it is shown. */
struct gs_frame {
	bool resolved;      /* its module is known */
	const char *module; /* file name of the module as the process maps it (never
			     * a /proc/PID/map_files/START-END it was read through) */
	const char *path;   /* the module file the symbolizer read */
	uint64_t pc;        /* module pc when resolved, else the frame's pc */
	uint64_t cookie;    /* module cookie when resolved, else the frame's */
	/* Symbolized at pc (frame 0) or pc - 1 (callers); NULL for raw
	 * backtraces or when nothing is known about the pc. Valid until the
	 * resolver is freed. */
	const struct gs_sym_info *sym;
	/* sym's function as shown: demangled unless no_demangle; NULL with sym. */
	const char *function;
	/* A signal trampoline (its CIE says 'S', e.g. __restore_rt): shown as
	 * gdb does, `<signal handler called>`; the frame after it is
	 * symbolized at its pc, which was interrupted, not called from. */
	bool signal_frame;
};

#define GS_FRAME_SIGNAL_NAME "<signal handler called>"
#define GS_FRAME_JIT_NAME "[anon:jit]"

/* Fills *out with frame i (< bt's frame_count) of the backtrace
 * instruction bt of ev; never fails: an unknown frame is unresolved.
 * out's strings point into f's caches: valid until gs_frames_free. */
GS_API void gs_frames_resolve(struct gs_frames *f, const struct gs_event *ev,
			      const struct gs_inst *bt, unsigned i, struct gs_frame *out);
/* A name of the symbolizer's (a function or an inline call) as shown:
 * demangled unless no_demangle; valid until the resolver is freed. name
 * is cached by its address, so it must live as long (NULL gives NULL);
 * name itself when it is not mangled or there is no memory. */
GS_API const char *gs_frames_name(struct gs_frames *f, const char *name);
/* The kernel function at addr (a KernelStack frame) and *off from it, from
 * /proc/kallsyms read at the first call; NULL when unknown (addresses
 * hidden by kptr_restrict, or none at or below addr). */
GS_API const char *gs_frames_kernel_symbol(struct gs_frames *f, uint64_t addr, uint64_t *off);
/* The module file a resolved frame was read from (the file of r->path:
 * its build id, its ELF), or NULL when r is unresolved or the file is
 * unreadable; valid until the resolver is freed. */
GS_API struct gs_modfile *gs_frames_modfile(struct gs_frames *f, const struct gs_frame *r);
/* The status to show (enum gs_bt_status, docs/protocol.md "Backtraces"):
 * bt's own, except that UnsupportedCfi / NoUnwindRowsForPc read as
 * complete when the last frame is at the process entry (`_start`). */
GS_API uint8_t gs_frames_status(struct gs_frames *f, const struct gs_event *ev,
				const struct gs_inst *bt);

/* ---- the stack as shown: frames of every kind, in order ---------------------

 * What a backtrace instruction shows once the instructions that go with it
 * are folded in: the kernel frames of a sample (KernelStack), the native
 * frames, and the Python frames (PythonStack) each native
 * _PyEval_EvalFrameDefault frame was running, in its place. Every renderer
 * (text, JSON, folded, flame graph, pprof, aggregates, the interactive
 * mode) reads frames through this one list, so a new kind of frame is a
 * new kind here and a case in each renderer (docs/architecture.md). */
enum gs_frame_kind {
	GS_FRAME_NATIVE = 0, /* a machine-code frame of a module */
	GS_FRAME_KERNEL = 1, /* a sample's kernel frame */
	GS_FRAME_PYTHON = 2, /* a CPython function */
	/* machine code in no module's file: in anonymous executable memory or
	 * named by the process's perf map (docs/jit.md) */
	GS_FRAME_JIT = 3,
};

struct gs_stack_frame {
	uint8_t kind;   /* enum gs_frame_kind */
	unsigned index; /* in its instruction: the backtrace's, KernelStack's or PythonStack's */
	/* NATIVE, JIT: as gs_frames_resolve() fills it; caller: its pc is a
	 * return address (symbolized at pc - 1). */
	struct gs_frame native;
	bool caller;
	/* What is shown as the function: the demangled native function, the
	 * kernel symbol, the Python qualified name, the JIT's name; NULL when
	 * nothing is known. */
	const char *function;
	/* PYTHON: its file, the line it is at (0: unknown) and the first line
	 * of its code; runtime names the interpreter ("python3.11"). */
	const char *file;
	int line, first_line;
	const char *runtime;
	/* KERNEL: the address and its offset from function. PYTHON: the code
	 * object's address. JIT: the address and its offset from the start of
	 * its perf map entry; function is the runtime's name as it wrote it
	 * (`JS:*leaf /srv/app/x.js:1`: escape it to print it), NULL without an
	 * entry (shown as GS_FRAME_JIT_NAME). */
	uint64_t addr, offset;
};

struct gs_stack {
	const struct gs_stack_frame *frames; /* innermost first */
	size_t count;
	size_t kernel; /* the first `kernel` frames are the kernel's */
	/* The PythonStack that went with it: its status (enum gs_py_status)
	 * and frames; python_status GS_PY_NOT_PYTHON when there was none. */
	uint8_t python_status;
	uint16_t python_frames;
};

/* The stack backtrace instruction bt of ev shows, in *out: valid until the
 * next call on f. Never fails: what cannot be named is shown as the wire
 * has it (an unnamed Python frame by its code object). */
GS_API void gs_frames_stack(struct gs_frames *f, const struct gs_event *ev,
			    const struct gs_inst *bt, struct gs_stack *out);

#ifdef __cplusplus
}
#endif

#endif /* GS_FRAMES_H */
