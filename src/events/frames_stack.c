/* The stack a backtrace shows (gs_frames_stack, gs/frames.h): the kernel
 * frames of a sample first, then the native frames innermost first, where
 * each native _PyEval_EvalFrameDefault frame gives way to the Python frames
 * that call of the interpreter was running. A PythonStack's frames come in
 * runs, one per C call of the interpreter, each run ending at a frame
 * marked GS_PY_FRAME_CALL_END; the n-th run belongs to the n-th
 * interpreter frame from the innermost. Runs left when the native frames
 * end (a walk cut short) follow the last native frame, so no Python frame
 * is lost. */
#include <stdlib.h>
#include <string.h>

#include <gs/frames.h>
#include <gs/python.h>

#include "base.h"
#include "ev_int.h"

/* The instruction of type `type` among those that follow bt (its
 * KernelStack, then its PythonStack), or NULL. */
static const struct gs_inst *follower(const struct gs_event *ev, const struct gs_inst *bt,
				      uint8_t type)
{
	size_t i = (size_t)(bt - ev->insts);

	for (size_t k = i + 1; k < ev->ninsts && k <= i + 2; k++) {
		if (ev->insts[k].type == type)
			return &ev->insts[k];
		if (ev->insts[k].type != GS_INST_KERNEL_STACK &&
		    ev->insts[k].type != GS_INST_PYTHON_STACK)
			break;
	}
	return NULL;
}

/* The interpreter's frame function, or one of its parts (`.cold`). */
static bool is_eval_frame(const struct gs_frame *r)
{
	const char *fn = r->sym ? r->sym->function : NULL;

	if (!fn || !base_has_prefix(fn, GS_PY_EVAL_FUNCTION))
		return false;
	fn += strlen(GS_PY_EVAL_FUNCTION);
	return *fn == '\0' || *fn == '.';
}

static struct gs_stack_frame *push(struct ev_stack_state *s, size_t *n, uint8_t kind,
				   unsigned index)
{
	struct gs_stack_frame *f;

	if (base_grow((void **)&s->v, &s->cap, *n + 1, sizeof(*s->v)))
		return NULL;
	f = &s->v[(*n)++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->index = index;
	return f;
}

static void add_kernel(struct gs_frames *fr, struct ev_stack_state *s, size_t *n,
		       const struct gs_inst *ks)
{
	for (unsigned i = 0; ks && i < ks->kernel_stack.frame_count; i++) {
		struct gs_stack_frame *f = push(s, n, GS_FRAME_KERNEL, i);

		if (!f)
			return;
		f->addr = ev_kernel_frame(ks, i);
		f->function = gs_frames_kernel_symbol(fr, f->addr, &f->offset);
	}
}

/* Python frames [*next, end of the run) of py; *next moves past them. */
static void add_python_run(struct gs_frames *fr, struct ev_stack_state *s, size_t *n,
			   const struct gs_event *ev, const struct gs_inst *py,
			   const char *module, unsigned *next)
{
	while (*next < py->python_stack.frame_count) {
		unsigned i = (*next)++;
		struct gs_python_frame w;
		struct gs_stack_frame *f = push(s, n, GS_FRAME_PYTHON, i);

		if (!f)
			return;
		ev_python_frame(py, i, &w);
		f->addr = w.code;
		ev_py_name(fr, s, (pid_t)ev->pid, module, py->python_stack.minor, &w, f);
		if (w.instr & GS_PY_FRAME_CALL_END)
			return;
	}
}

void gs_frames_stack(struct gs_frames *fr, const struct gs_event *ev, const struct gs_inst *bt,
		     struct gs_stack *out)
{
	struct ev_stack_state *s = ev_frames_state(fr);
	const struct gs_inst *py = follower(ev, bt, GS_INST_PYTHON_STACK);
	const char *py_module = NULL;
	unsigned next_py = 0;
	bool after_signal = false;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->python_status = py ? py->python_stack.status : GS_PY_NOT_PYTHON;
	out->python_frames = py ? py->python_stack.frame_count : 0;
	base_arena_free(&s->arena);
	add_kernel(fr, s, &n, follower(ev, bt, GS_INST_KERNEL_STACK));
	out->kernel = n;
	for (unsigned i = 0; i < bt->backtrace.frame_count; i++) {
		struct gs_stack_frame *f;
		const char *jit_name;
		uint64_t jit_off;
		struct gs_frame r;
		bool jit;

		gs_frames_resolve(fr, ev, bt, i, &r);
		if (py && next_py < py->python_stack.frame_count && is_eval_frame(&r)) {
			py_module = r.path;
			add_python_run(fr, s, &n, ev, py, py_module, &next_py);
			after_signal = false;
			continue;
		}
		jit = !r.resolved && ev_frames_jit(fr, ev, bt->backtrace.frames[i].raw_ip, &jit_name,
						   &jit_off);
		if (!(f = push(s, &n, jit ? GS_FRAME_JIT : GS_FRAME_NATIVE, i)))
			break;
		f->native = r;
		f->caller = i > 0 && !after_signal;
		f->function = jit ? jit_name : r.function;
		if (jit) {
			f->addr = bt->backtrace.frames[i].raw_ip;
			f->offset = jit_off;
		}
		after_signal = r.signal_frame;
	}
	if (py && next_py < py->python_stack.frame_count && !py_module)
		py_module = ev_frames_interpreter(fr, (pid_t)ev->pid);
	while (py && next_py < py->python_stack.frame_count)
		add_python_run(fr, s, &n, ev, py, py_module, &next_py);
	out->frames = s->v;
	out->count = n;
}
