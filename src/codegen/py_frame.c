/* The Python walk's bpf_loop callback, gs_py_frame: one frame per
 * iteration. It reads the frame's first read_len bytes in one helper call
 * (every field the walk needs lies there), records its code object and
 * instruction, marks the outermost frame of each C call of
 * _PyEval_EvalFrameDefault (GS_PY_FRAME_CALL_END) the way its version
 * shows it, and moves to the frame's caller. Registers: r7 the ctx, r6 the
 * bt_walk value (the read buffer), r8 the py_procs value, r9 the
 * instruction. The loop is bounded by the depth; a cycle in a hostile
 * process ends as Truncated. */
#include "py_walk.h"

/* r2 = the frame's field at the py_procs offset `field` (a u16), as a
 * pointer into the read buffer: r6 + PY_BUF + offset, the offset bounded
 * so that `width` bytes lie in the buffer (a larger one stops the walk). */
static void field_ptr(struct py_gen *g, int16_t field, uint32_t width)
{
	struct gs_asm *a = g->a;

	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R8, field));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R2, (int32_t)(PY_READ_MAX - width), g->ret);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R6));
}

/* r3 = GS_PY_FRAME_CALL_END; reg |= r3. */
static void mark_call_end(struct gs_asm *a, uint8_t reg)
{
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R3, 63));
	gs_asm_emit(a, GS_ALU64_REG(BPF_OR, reg, GS_R3));
}

/* r1 = ctx.count, to g->ret unless below the depth (the verifier's bound
 * on the record's offset); r2 = record r1's address - PY_FRAMES_OFF. */
static void record_at_count(struct py_gen *g)
{
	struct gs_asm *a = g->a;

	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R7, PC(count)));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R1, (int32_t)g->depth, g->ret);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R2, PY_FRAME_SHIFT));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R9));
}

/* From 3.12 a frame the C stack owns is the shim an entry into
 * _PyEval_EvalFrameDefault pushes: it is not recorded, and the record
 * written just before it (the outermost frame of the inner C call) ends
 * that call. An innermost shim, before any record, marks nothing. To
 * `record` when the frame is not one. */
static void skip_shim(struct py_gen *g, struct gs_label record, struct gs_label next)
{
	struct gs_asm *a = g->a;

	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, PP(style)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_PY_STYLE_OWNER, record);
	gs_asm_note(a, "gs_py_frame: 3.12+: a C call's shim (owner = the C stack's) ...");
	field_ptr(g, PP(frame_entry), 1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R2, PY_BUF));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R3, GS_R8, PP(owned_by_cstack)));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R1, GS_R3, record);
	gs_asm_note(a, "gs_py_frame: ... is skipped, and the record before it ends a C call");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R7, PC(count)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, next);
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, (int32_t)g->depth, g->ret);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, PY_FRAME_SHIFT));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R9));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R5, GS_R1, PY_FRAMES_OFF - 8));
	mark_call_end(a, GS_R5);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R1, GS_R5, PY_FRAMES_OFF - 8));
	gs_asm_ja(a, next);
}

/* r4 = the code object, r5 = the instruction (f_lasti zero-extended, or
 * the pointer), with GS_PY_FRAME_CALL_END where the version marks the
 * end of a C call: every frame before 3.11, an is_entry one in 3.11. */
static void read_record(struct py_gen *g)
{
	struct gs_asm *a = g->a;
	struct gs_label lasti = gs_asm_label(a, "py_frame_lasti");
	struct gs_label have_instr = gs_asm_label(a, "py_frame_instr_read");
	struct gs_label end = gs_asm_label(a, "py_frame_call_end");
	struct gs_label plain = gs_asm_label(a, "py_frame_record");

	gs_asm_note(a, "gs_py_frame: r4 = code, r5 = instr");
	field_ptr(g, PP(frame_code), 8);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, GS_R2, PY_BUF));
	field_ptr(g, PP(frame_instr), 8);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R3, GS_R8, PP(instr_size)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 4, lasti);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R5, GS_R2, PY_BUF));
	gs_asm_ja(a, have_instr);
	gs_asm_bind(a, lasti);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R5, GS_R2, PY_BUF));
	gs_asm_bind(a, have_instr);
	gs_asm_note(a, "gs_py_frame: a C call's end: every frame to 3.10, is_entry in 3.11");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, PP(style)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_PY_STYLE_FRAME_OBJECT, end);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_PY_STYLE_IS_ENTRY, plain);
	field_ptr(g, PP(frame_entry), 1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R2, PY_BUF));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, plain);
	gs_asm_bind(a, end);
	mark_call_end(a, GS_R5);
	gs_asm_bind(a, plain);
}

void py_frame_callback(struct py_gen *g)
{
	struct gs_asm *a = g->a;
	struct gs_label frame = gs_asm_label(a, "py_frame_left");
	struct gs_label room = gs_asm_label(a, "py_frame_room");
	struct gs_label read_ok = gs_asm_label(a, "py_frame_read_ok");
	struct gs_label record = gs_asm_label(a, "py_frame_not_shim");
	struct gs_label next = gs_asm_label(a, "py_frame_next");

	g->ret = gs_asm_label(a, "py_frame_stop");
	gs_asm_note(a, "gs_py_frame: r7 = the ctx (r2); r6 = bt_walk, r9 = the instruction, "
		       "r8 = py_procs, from it");
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R2));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R6, GS_R7, PC(walk)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R9, GS_R7, PC(inst)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R8, GS_R7, PC(proc)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R7, PC(next)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R3, 0, frame);
	gs_asm_note(a, "gs_py_frame: no caller: the thread's first frame was the last");
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R7, PC(status), GS_PY_COMPLETE));
	gs_asm_ja(a, g->ret);
	gs_asm_bind(a, frame);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R7, PC(count)));
	gs_asm_jmp_imm(a, BPF_JLT, GS_R1, (int32_t)g->depth, room);
	gs_asm_note(a, "gs_py_frame: the depth is reached with frames left: Truncated");
	gs_asm_ja(a, g->ret);
	gs_asm_bind(a, room);
	gs_asm_note(a, "gs_py_frame: the frame's read_len bytes, at once, into the window");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R7, PC(read_len)));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R2, PY_READ_MAX, g->ret);
	cg_read_user(g->cg, &(struct cg_user_read){ .dst_base = GS_R6, .dst_off = PY_BUF,
						    .len = PY_READ_MAX, .len_in_r2 = true,
						    .resident = true });
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, read_ok);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R7, PC(status), GS_PY_READ_ERROR));
	gs_asm_ja(a, g->ret);
	gs_asm_bind(a, read_ok);
	skip_shim(g, record, next);
	gs_asm_bind(a, record);
	read_record(g);
	gs_asm_note(a, "gs_py_frame: record[count] = {code, instr}, count += 1");
	record_at_count(g);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R2, GS_R4, PY_FRAMES_OFF));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R2, GS_R5, PY_FRAMES_OFF + 8));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R7, GS_R1, PC(count)));
	gs_asm_bind(a, next);
	gs_asm_note(a, "gs_py_frame: on to the caller");
	field_ptr(g, PP(frame_back), 8);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R2, PY_BUF));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R7, GS_R1, PC(next)));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, g->ret);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_emit(a, GS_EXIT());
}
