/* The reads every view's capture makes (capture_view.c, capture_walk.c):
 * a view's length from the bytes already captured, capped, and r2 bytes
 * from a pointer into the event. They read and capture no value: below
 * the views' recursion, which calls them. */
#include "capture.h"

/* r2 = the number of elements (or bytes) of v, whose value is at r9 +
 * raw, at most cap. Clobbers r1. */
void cg_view_length(struct gs_cg *cg, const struct gs_view *v, int32_t raw, uint32_t cap)
{
	struct gs_asm *a = cg->a;
	struct gs_label ok = gs_asm_label(a, "view_len_ok");
	uint32_t size = v->elem && v->elem->byte_size ? v->elem->byte_size : 1;

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R9, (int16_t)(raw + (int32_t)v->len_off)));
	if (v->len_how == GS_VLEN_END) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R9, (int16_t)(raw + (int32_t)v->ptr_off)));
		gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R2, GS_R1));
		if (size > 1)
			gs_asm_emit(a, GS_ALU64_IMM(BPF_DIV, GS_R2, (int32_t)size));
	}
	gs_asm_jmp_imm(a, BPF_JLE, GS_R2, (int32_t)cap, ok);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)cap));
	gs_asm_bind(a, ok);
}

/* Reads r2 bytes (1..max) from the pointer at r9 + src into r9 + dst;
 * the status byte at r9 + status says how it went. -> skip when it failed. */
void cg_view_read_into(struct gs_cg *cg, int32_t src, int32_t dst, uint32_t max, int32_t status,
		      struct gs_label skip)
{
	struct gs_asm *a = cg->a;
	struct gs_label ok = gs_asm_label(a, "view_read_ok");

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)src));
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9, .dst_off = (int16_t)dst,
						 .len = max, .len_in_r2 = true });
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ok);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)status, GS_VAR_READ_ERROR));
	gs_asm_ja(a, skip);
	gs_asm_bind(a, ok);
}

void cg_view_read_at(struct gs_cg *cg, uint32_t max, int32_t off)
{
	struct gs_asm *a = cg->a;
	size_t mark = gs_asm_stack_mark(a);
	int16_t dst = gs_asm_slot(a, "view_dst", 8, 8);

	/* kept on the stack: the read's second try after a fault needs it
	 * after the helper call has clobbered r1 */
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, dst));
	cg_read_user(cg, &(struct cg_user_read){ .dst_slot = dst, .dst_off = (int16_t)off,
						 .len = max, .len_in_r2 = true });
	gs_asm_stack_release(a, mark);
}
