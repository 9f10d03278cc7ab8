/* Shared by the files of the Python walk (docs/unwind.md, "Python
 * frames"): py_walk.c (the PythonStack instruction in the main program,
 * and the gs_py_walk subprogram that finds the thread's PyThreadState)
 * and py_frame.c (gs_py_frame, the bpf_loop callback that records one
 * frame per iteration). Both read the layout from the py_procs value, so
 * one program serves every CPython version and several processes. */
#ifndef GS_CODEGEN_PY_WALK_H
#define GS_CODEGEN_PY_WALK_H

#include <stddef.h>

#include "bt_loop.h"

/* The walk's state, in gs_py_walk's stack frame; the callbacks get its
 * address as their ctx. Pointers spilled here come back to the callbacks
 * with the verifier's knowledge of them: no map lookup per iteration. */
struct py_walk_ctx {
	uint64_t walk;     /* bt_walk[0]: its window is the frame read buffer */
	uint64_t inst;     /* the PythonStack instruction */
	uint64_t proc;     /* py_procs[tgid] */
	uint64_t next;     /* the frame to read next (the thread search: the tstate) */
	uint64_t tp;       /* the thread pointer (fs base) */
	uint64_t interp;   /* the thread search: the interpreter being searched */
	uint32_t count;    /* records written */
	uint32_t read_len; /* bytes of a frame that hold every field the walk reads */
	uint32_t threads;  /* the thread search: threads seen in this interpreter */
	uint32_t interps;  /* ... interpreters seen */
	uint8_t status;    /* enum gs_py_status, once the walk stops */
	uint8_t found;     /* the thread search found the tstate (in `next`) */
	uint8_t pad[6];
};
#define PC(field) ((int16_t)offsetof(struct py_walk_ctx, field))
#define PP(field) ((int16_t)offsetof(struct gs_py_proc, field))
/* The frame's bytes, read at once into bt_walk.window: the native walk
 * that ran before is done with it, and the next one reads it afresh. */
#define PY_BUF W(window)
#define PY_READ_MAX 256 /* a frame's fields the walk reads lie in its first 256 bytes */
_Static_assert(PY_READ_MAX <= GS_BT_WINDOW, "a frame's read fits in the window");

/* The PythonStack instruction at r9. */
#define PY_ST(a, first, last, imm) \
	CG_ST_FIELDS(a, GS_R9, CG_PAYLOAD, struct gs_python_stack, first, last, imm)
#define PY_STX(a, field, src) \
	CG_STX_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_python_stack, field, src)
#define PY_FRAMES_OFF ((int16_t)(CG_PAYLOAD + sizeof(struct gs_python_stack)))
#define PY_FRAME_SHIFT 4 /* record k at PY_FRAMES_OFF + (k << 4) */
_Static_assert(sizeof(struct gs_python_frame) == 1u << PY_FRAME_SHIFT,
	       "a Python frame record is 16 bytes");

/* What the subprograms' emitters share. */
struct py_gen {
	struct gs_cg *cg;
	struct gs_asm *a;
	uint32_t depth;      /* records of the instruction */
	int16_t ctx;         /* struct py_walk_ctx, in gs_py_walk's frame */
	struct gs_label ret; /* a callback's: return 1 (stop the loop) */
};

/* The records one instruction holds: the bt's depth, at most GS_PY_MAX_DEPTH. */
static inline uint32_t py_depth(const struct gs_cg *cg)
{
	return cg->bt_depth < GS_PY_MAX_DEPTH ? cg->bt_depth : GS_PY_MAX_DEPTH;
}

/* py_frame.c: the body of gs_py_frame (r1 the index, r2 the ctx). */
void py_frame_callback(struct py_gen *g);

#endif /* GS_CODEGEN_PY_WALK_H */
