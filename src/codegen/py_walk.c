/* The Python walk (docs/unwind.md, "Python frames"): a `bt` with
 * GS_BT_FLAG_PYTHON reserves a PythonStack instruction after its
 * backtrace and calls one global subprogram, gs_py_walk, verified once
 * however many statements call it. It finds the process's layout in
 * py_procs[tgid], the thread's PyThreadState (its thread-local, or the
 * interpreters' thread lists searched for the thread pointer by the
 * bpf_loop callback gs_py_thread), the innermost frame, and runs bpf_loop
 * over gs_py_frame (py_frame.c), one frame per iteration. Every offset
 * comes from the py_procs value, so one program serves every CPython
 * version. Registers in gs_py_walk: r6 the bt_walk value, r7 kept values,
 * r8 the py_procs value, r9 the instruction. */
#include <errno.h>

#include "py_walk.h"

/* ---- what the build asks for ---------------------------------------------- */

static enum gs_visit python_bt(struct gs_visitor *v, const struct gs_stmt *s)
{
	uint8_t extra = *(const uint8_t *)v->arg;

	if (s->kind == GS_STMT_BACKTRACE && ((s->bt_flags | extra) & GS_BT_FLAG_PYTHON))
		return GS_VISIT_STOP;
	/* Only an if holds statements; expressions hold none. */
	return s->kind == GS_STMT_IF ? GS_VISIT_CONTINUE : GS_VISIT_SKIP;
}

bool cg_py_wanted(const struct gs_trace_spec *spec, const struct gs_program_opts *o)
{
	uint8_t extra = cg_bt_extra_flags(o);

	return gs_visit_stmts(&(struct gs_visitor){ .stmt = python_bt, .arg = &extra }, spec->body,
			      spec->nbody);
}

const char *cg_py_unqualified(const struct gs_trace_spec *spec, const struct gs_program_opts *o)
{
	if (o->unwinder != GS_UNWINDER_LOOP)
		return "the Python walk runs beside the loop unwinder only (bpf_loop, Linux "
		       "5.17+): the tail-call unwinder has none";
	if (!spec->bt)
		return "its probe has no unwind context, and the Python walk runs beside the "
		       "loop unwinder's";
	if (!o->task_fsbase_offset)
		return "finding the thread's PyThreadState needs the thread pointer: "
		       "gs_program_opts.task_fsbase_offset (task_struct's thread.fsbase, from "
		       "the kernel's BTF) is not set";
	return NULL;
}

/* ---- the statement, in the main program ---------------------------------- */

uint32_t cg_python_stack_size(const struct gs_cg *cg)
{
	return GS_INST_HEADER_SIZE + (uint32_t)GS_PYTHON_STACK_SIZE(py_depth(cg));
}

void cg_python_stack(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	uint32_t size = cg_python_stack_size(cg);
	struct gs_label ok = gs_asm_label(a, "py_walk_reads_ok");

	cg_reserve(cg, size);
	gs_asm_notef(a, "PythonStack: depth %u, NotPython until the walk finds the process",
		     py_depth(cg));
	cg_inst_header(a, GS_INST_PYTHON_STACK, size - GS_INST_HEADER_SIZE);
	PY_ST(a, requested_depth, frame_count,
	      CG_PACK(struct gs_python_stack, requested_depth, requested_depth, py_depth(cg)));
	PY_ST(a, status, reserved, CG_PACK(struct gs_python_stack, status, status,
					   GS_PY_NOT_PYTHON)); /* minor 0 */
	gs_asm_note(a, "py: r0 = gs_py_walk(the instruction's offset) (1: a read failed)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, cg->offset_slot));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, -(int32_t)size));
	gs_asm_call_label(a, cg->py->walk);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ok);
	cg_mark_fail(cg);
	gs_asm_bind(a, ok);
	gs_asm_note(a, NULL);
}

/* ---- gs_py_walk: the global subprogram ------------------------------------ */

/* r1 = the user u64 at r3, read into r10 + slot; to fail when the read fails. */
static void read_word(struct py_gen *g, int16_t slot, struct gs_label fail)
{
	cg_read_user(g->cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = slot, .len = 8,
						    .resident = true });
	gs_asm_jmp_imm(g->a, BPF_JNE, GS_R0, 0, fail);
	gs_asm_emit(g->a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, slot));
}

/* r1 = max(r1, r2). */
static void max_into_r1(struct gs_asm *a)
{
	struct gs_label keep = gs_asm_label(a, "py_walk_max_kept");

	gs_asm_jmp_reg(a, BPF_JLE, GS_R2, GS_R1, keep);
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R2));
	gs_asm_bind(a, keep);
}

/* ctx.read_len = the end of the farthest field a frame's walk reads; a
 * layout the walk cannot follow (a field past PY_READ_MAX, an instr_size
 * other than 4 and 8, no entry field where the style needs one, a style
 * it does not know) is a process it does not know: to unknown. */
static void frame_read_len(struct py_gen *g, struct gs_label unknown)
{
	struct gs_asm *a = g->a;
	struct gs_label entry_none = gs_asm_label(a, "py_walk_no_entry_field");
	struct gs_label size_ok = gs_asm_label(a, "py_walk_instr_size_ok");
	struct gs_label known = gs_asm_label(a, "py_walk_layout_known");

	gs_asm_note(a, "gs_py_walk: a frame's bytes = its farthest field's end, at most 256");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, PP(style)));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, GS_PY_STYLE_OWNER, unknown);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, PP(instr_size)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 8, size_ok);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 4, unknown);
	gs_asm_bind(a, size_ok);
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R8, PP(frame_instr)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R8, PP(frame_code)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 8));
	max_into_r1(a);
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R8, PP(frame_back)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 8));
	max_into_r1(a);
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R8, PP(frame_entry)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, GS_PY_NONE, entry_none);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 1));
	max_into_r1(a);
	gs_asm_bind(a, entry_none);
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, PY_READ_MAX, unknown);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->ctx + PC(read_len)));
	gs_asm_note(a, "gs_py_walk: 3.11+ frames need their entry field");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, PP(style)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_PY_STYLE_FRAME_OBJECT, known);
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R8, PP(frame_entry)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, GS_PY_NONE, unknown);
	gs_asm_bind(a, known);
}

/* r6 = bt_walk[0], r9 = the instruction at offset r1 of the accumulation
 * buffer (bounded for the verifier), its records zeroed (a counting key
 * holds them), ctx zeroed; to ret0 when a lookup fails. */
static void walk_prologue(struct py_gen *g, int16_t key, struct gs_label ret0)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = g->a;
	uint32_t size = cg_python_stack_size(cg);

	gs_asm_note(a, "gs_py_walk: r6 = bt_walk[0], r9 = the instruction at offset r1");
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R1));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, key, 0));
	cg_map_lookup(cg, GS_MAP_BT_WALK, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ret0);
	gs_asm_emit(a, GS_MOV64_REG(GS_R6, GS_R0));
	cg_map_lookup(cg, GS_MAP_ACCUM, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ret0);
	gs_asm_emit(a, GS_MOV64_REG(GS_R9, GS_R0));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R7, (int32_t)(cg->max_size - size), ret0);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R9, GS_R7));
	gs_asm_note(a, "gs_py_walk: every record zero, so that equal stacks are one counting key");
	for (uint32_t off = (uint32_t)PY_FRAMES_OFF; off < size; off += 8)
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_R9, (int16_t)off, 0));
	gs_asm_note(a, "gs_py_walk: the window is the frames' read buffer now");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R6, W(window_len), 0));
	for (int16_t off = 0; off < (int16_t)sizeof(struct py_walk_ctx); off += 8)
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, g->ctx + off, 0));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R6, g->ctx + PC(walk)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R9, g->ctx + PC(inst)));
}

/* r8 = py_procs[tgid] (its minor into the instruction); to unknown when
 * the process has no entry. */
static void find_process(struct py_gen *g, int16_t key, struct gs_label unknown)
{
	struct gs_asm *a = g->a;

	gs_asm_note(a, "gs_py_walk: r8 = py_procs[tgid]");
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R0, key));
	cg_map_lookup(g->cg, GS_MAP_PY_PROCS, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, unknown);
	gs_asm_emit(a, GS_MOV64_REG(GS_R8, GS_R0));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R8, g->ctx + PC(proc)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, PP(minor)));
	PY_STX(a, minor, GS_R1);
}

/* ctx.tp = the thread pointer: the task's thread.fsbase, which glibc's
 * pthread_self() returns on x86-64 and which CPython keeps as thread_id. */
static void thread_pointer(struct py_gen *g)
{
	struct gs_asm *a = g->a;

	gs_asm_note(a, "gs_py_walk: the thread pointer = the task's thread.fsbase");
	gs_asm_call(a, BPF_FUNC_get_current_task);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, (int32_t)g->cg->opts.task_fsbase_offset));
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, g->ctx + PC(tp)));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 8));
	gs_asm_call(a, BPF_FUNC_probe_read_kernel);
}

/* ctx.next = the thread's PyThreadState: where its thread-local says
 * (3.12+) when it is set, else searched for in the interpreters' lists
 * (gs_py_thread), the one whose thread_id is the thread pointer. To none
 * without one, to bad when a read fails. */
static void find_thread_state(struct py_gen *g, int16_t word, struct gs_label thread_cb,
			      struct gs_label none, struct gs_label bad)
{
	struct gs_asm *a = g->a;
	struct gs_label search = gs_asm_label(a, "py_walk_search_threads");
	struct gs_label known = gs_asm_label(a, "py_walk_thread_state_known");

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, g->ctx + PC(tp)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, none);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R8, PP(tstate_tls)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, search);
	gs_asm_note(a, "gs_py_walk: tstate = *(thread pointer + tstate_tls)");
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R2));
	read_word(g, word, bad);
	/* NULL while the thread has let go of the interpreter (3.12+ clear
	 * it around a blocking call, a ctypes call among them): search */
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, search);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, g->ctx + PC(next)));
	gs_asm_ja(a, known);

	gs_asm_bind(a, search);
	gs_asm_note(a, "gs_py_walk: else the first interpreter's first thread ...");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R8, PP(runtime)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R8, PP(runtime_interp_head)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_word(g, word, bad);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, none);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, g->ctx + PC(interp)));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R8, PP(interp_tstate_head)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_word(g, word, bad);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, g->ctx + PC(next)));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, g->ctx + PC(interps), 1));
	gs_asm_notef(a, "gs_py_walk: ... bpf_loop(%u, gs_py_thread, &ctx, 0): a thread each",
		     GS_PY_INTERPS_MAX * (GS_PY_THREADS_MAX + 1));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, GS_PY_INTERPS_MAX * (GS_PY_THREADS_MAX + 1)));
	gs_asm_ld_func(a, GS_R2, thread_cb);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, g->ctx));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 0));
	gs_asm_call(a, BPF_FUNC_loop);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, g->ctx + PC(status)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_PY_READ_ERROR, bad);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, g->ctx + PC(found)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, none);
	gs_asm_bind(a, known);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, g->ctx + PC(next)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, none);
}

/* ctx.next = the innermost frame: *(tstate + tstate_frame), and through
 * the _PyCFrame where there is one (3.11, 3.12). */
static void innermost_frame(struct py_gen *g, int16_t word, struct gs_label bad)
{
	struct gs_asm *a = g->a;
	struct gs_label direct = gs_asm_label(a, "py_walk_frame_known");

	gs_asm_note(a, "gs_py_walk: frame = *(tstate + tstate_frame) ...");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, g->ctx + PC(next)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R8, PP(tstate_frame)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_word(g, word, bad);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, g->ctx + PC(next)));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R1));
	gs_asm_note(a, "gs_py_walk: ... and *(that + cframe_current) in 3.11 and 3.12");
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R8, PP(cframe_current)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_PY_NONE, direct);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, direct);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_word(g, word, bad);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, g->ctx + PC(next)));
	gs_asm_bind(a, direct);
}

static void emit_walk(struct py_gen *g, struct gs_label thread_cb, struct gs_label frame_cb)
{
	struct gs_asm *a = g->a;
	int16_t key = gs_asm_slot(a, "py_walk_key", 8, 8);
	int16_t word = gs_asm_slot(a, "py_walk_word", 8, 8);
	struct gs_label ret0 = gs_asm_label(a, "py_walk_return");
	struct gs_label none = gs_asm_label(a, "py_walk_no_thread_state");
	struct gs_label bad = gs_asm_label(a, "py_walk_read_error");
	struct gs_label done = gs_asm_label(a, "py_walk_done");

	walk_prologue(g, key, ret0);
	find_process(g, key, ret0);
	frame_read_len(g, ret0);
	thread_pointer(g);
	find_thread_state(g, word, thread_cb, none, bad);
	innermost_frame(g, word, bad);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, g->ctx + PC(status), GS_PY_TRUNCATED));
	gs_asm_notef(a, "gs_py_walk: bpf_loop(%u, gs_py_frame, &ctx, 0): a frame each (a "
		     "C call's shim takes one too)", 2 * g->depth + 1);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, (int32_t)(2 * g->depth + 1)));
	gs_asm_ld_func(a, GS_R2, frame_cb);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, g->ctx));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 0));
	gs_asm_call(a, BPF_FUNC_loop);
	gs_asm_ja(a, done);
	gs_asm_bind(a, none);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, g->ctx + PC(status), GS_PY_NO_THREAD_STATE));
	gs_asm_ja(a, done);
	gs_asm_bind(a, bad);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, g->ctx + PC(status), GS_PY_READ_ERROR));
	gs_asm_bind(a, done);
	gs_asm_note(a, "gs_py_walk: frame count and status into the instruction");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, g->ctx + PC(count)));
	PY_STX(a, frame_count, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, g->ctx + PC(status)));
	PY_STX(a, status, GS_R1);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_PY_READ_ERROR, ret0);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, ret0);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

/* ---- gs_py_thread: one thread of the interpreters' lists per iteration ---- */

/* ctx.next is the thread to look at: 0 moves to the next interpreter (at
 * most GS_PY_INTERPS_MAX), and a list past GS_PY_THREADS_MAX is left for
 * the next one (a cycle in a hostile process ends there). Stops with
 * ctx.found when a thread's thread_id is the thread pointer, with
 * ctx.status ReadError when a read fails. r7 = the ctx, r8 = py_procs. */
static void emit_thread_callback(struct py_gen *g)
{
	struct gs_asm *a = g->a;
	int16_t word = gs_asm_slot(a, "py_thread_word", 8, 8);
	struct gs_label thread = gs_asm_label(a, "py_thread_look");
	struct gs_label room = gs_asm_label(a, "py_thread_room");
	struct gs_label other = gs_asm_label(a, "py_thread_other");
	struct gs_label bad = gs_asm_label(a, "py_thread_read_error");
	struct gs_label stop = gs_asm_label(a, "py_thread_stop");
	struct gs_label go_on = gs_asm_label(a, "py_thread_go_on");

	gs_asm_note(a, "gs_py_thread: r7 = the ctx (r2), r8 = py_procs[tgid]");
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R2));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R8, GS_R7, PC(proc)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R7, PC(next)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R3, 0, thread);
	gs_asm_note(a, "gs_py_thread: the list's end: the next interpreter's first thread");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R7, PC(interps)));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R1, GS_PY_INTERPS_MAX, stop);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R7, GS_R1, PC(interps)));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R7, PC(threads), 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R7, PC(interp)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R8, PP(interp_next)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_word(g, word, bad);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, stop);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R7, GS_R1, PC(interp)));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R8, PP(interp_tstate_head)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_word(g, word, bad);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R7, GS_R1, PC(next)));
	gs_asm_ja(a, go_on);

	gs_asm_bind(a, thread);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R7, PC(threads)));
	gs_asm_jmp_imm(a, BPF_JLT, GS_R1, GS_PY_THREADS_MAX, room);
	gs_asm_note(a, "gs_py_thread: a list this long is left for the next interpreter");
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_R7, PC(next), 0));
	gs_asm_ja(a, go_on);
	gs_asm_bind(a, room);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R7, GS_R1, PC(threads)));
	gs_asm_note(a, "gs_py_thread: this thread's when its thread_id is the thread pointer");
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R8, PP(tstate_thread_id)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_word(g, word, bad);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R7, PC(tp)));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R1, GS_R2, other);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R7, PC(found), 1));
	gs_asm_ja(a, stop);
	gs_asm_bind(a, other);
	gs_asm_note(a, "gs_py_thread: else the next thread");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R7, PC(next)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R8, PP(tstate_next)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_word(g, word, bad);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R7, GS_R1, PC(next)));
	gs_asm_bind(a, go_on);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, bad);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R7, PC(status), GS_PY_READ_ERROR));
	gs_asm_bind(a, stop);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_emit(a, GS_EXIT());
}

void cg_py_subprogs(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	struct py_gen g = { .cg = cg, .a = a, .depth = py_depth(cg) };
	struct gs_label thread_cb = gs_asm_label(a, "gs_py_thread");
	struct gs_label frame_cb = gs_asm_label(a, "gs_py_frame");

	gs_asm_func_begin(a, cg->py->btf_walk);
	gs_asm_bind(a, cg->py->walk);
	g.ctx = gs_asm_slot(a, "py_walk_ctx", sizeof(struct py_walk_ctx), 8);
	emit_walk(&g, thread_cb, frame_cb);
	gs_asm_func_begin(a, cg->py->btf_thread);
	gs_asm_bind(a, thread_cb);
	emit_thread_callback(&g);
	gs_asm_func_begin(a, cg->py->btf_frame);
	gs_asm_bind(a, frame_cb);
	py_frame_callback(&g);
	gs_asm_note(a, NULL);
}
