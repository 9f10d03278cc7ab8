/* The two halves of fault-in reads (fault.c) that are not a read: each
 * hit's number on its CPU (read_fault_gen, counted up by the prologue),
 * and the global subprogram gs_fault_in that touches a read's pages and
 * tells whether another hit began on this CPU meanwhile. */
#include "cg.h"

#define FAULT_PAGE 4096 /* the smallest page: a step that touches every page */

void cg_fault_prologue(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;

	if (!cg->fault)
		return;
	gs_asm_note(a, "fault-in reads: this hit's number on its CPU (read_fault_gen += 1)");
	cg_lookup_key0(cg, GS_MAP_READ_GEN);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 1));
	gs_asm_emit(a, GS_ATOMIC_FETCH_ADD(BPF_DW, GS_R0, GS_R1, 0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, cg->fault->gen_slot));
}

/* int gs_fault_in(u64 addr, u64 len, u64 gen): one byte of each page of
 * [addr, addr + len) copied with bpf_copy_from_user into this frame,
 * which faults the page in (the first page that cannot be ends it: the
 * read fails there); then 0 when read_fault_gen still is gen (no hit began
 * on this CPU meanwhile), else 1. A read is at most the event's size. */
void cg_fault_subprog(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	uint32_t pages = (cg->max_size + FAULT_PAGE - 2) / FAULT_PAGE + 1;
	struct gs_label touched = gs_asm_label(a, "fault_pages_touched");
	struct gs_label alone = gs_asm_label(a, "fault_cpu_alone");
	struct gs_label shared = gs_asm_label(a, "fault_cpu_shared");
	int16_t addr, end, gen, key, byte;

	gs_asm_func_begin(a, cg->fault->btf);
	gs_asm_bind(a, cg->fault->fn);
	addr = gs_asm_slot(a, "fault_addr", 8, 8);
	end = gs_asm_slot(a, "fault_end", 8, 8);
	gen = gs_asm_slot(a, "fault_gen", 8, 8);
	key = gs_asm_slot(a, "fault_key", 4, 4);
	byte = gs_asm_slot(a, "fault_byte", 8, 8);
	gs_asm_note(a, "gs_fault_in(addr, len, gen): touch each page, then is the CPU still ours?");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, addr));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, end));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, gen));
	for (uint32_t k = 0; k < pages; k++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, addr));
		if (k) {
			gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R3, -FAULT_PAGE));
			gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, (int32_t)(k * FAULT_PAGE)));
			gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, GS_FP, end));
			gs_asm_jmp_reg(a, BPF_JGE, GS_R3, GS_R4, touched);
		}
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_FP));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, byte));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 1));
		gs_asm_call(a, BPF_FUNC_copy_from_user);
		if (k + 1 < pages)
			gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, touched);
	}
	gs_asm_bind(a, touched);
	gs_asm_note(a, "did a hit begin on this CPU since this one did (gen)?");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key, 0));
	cg_map_lookup(cg, GS_MAP_READ_GEN, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, shared); /* never: one entry, key 0 */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, gen));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_jmp_reg(a, BPF_JEQ, GS_R1, GS_R2, alone);
	gs_asm_bind(a, shared);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_bind(a, alone);
	gs_asm_emit(a, GS_EXIT());
	gs_asm_note(a, NULL);
}
