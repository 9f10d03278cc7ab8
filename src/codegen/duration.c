/* $duration: the time since the same thread's entry of the call a return
 * probe sees. A small program at the function's entry keeps
 * bpf_ktime_get_ns() in gs_entry_times under {tid, trace, sp}; the return
 * program finds it under the sp the entry had (x86-64: the return popped
 * the return address, so its sp is 8 above the entry's) and removes it.
 * Each level of a recursion has its own sp, so each finds its own entry;
 * the map is an LRU, so the entries of calls that never return (a thread
 * killed inside, a longjmp over the frame) are evicted, never piled up. */
#include "cg.h"

#define EK(field) ((int16_t)offsetof(struct gs_entry_key, field))
#define RETURN_SP_ABOVE_ENTRY 8 /* the return address the `ret` popped */

/* The key at r10 + key for this thread and trace, sp + sp_add. */
static void entry_key(struct gs_cg *cg, int16_t key, int32_t sp_add)
{
	struct gs_asm *a = cg->a;

	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R0, key + EK(tid)));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key + EK(trace_id), (int32_t)cg->spec->trace_id));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, GS_PT_REGS_SP));
	if (sp_add)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, sp_add));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, key + EK(sp)));
}

void cg_duration_prologue(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	size_t mark = gs_asm_stack_mark(a);
	int16_t key;

	if (!cg->duration_slot)
		return;
	key = gs_asm_slot(a, "entry_key", sizeof(struct gs_entry_key), 8);
	gs_asm_note(a, "$duration: the entry's time, by {tid, trace, sp - 8}; none: no event");
	entry_key(cg, key, -RETURN_SP_ABOVE_ENTRY);
	cg_map_lookup(cg, GS_MAP_ENTRY_TIMES, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, cg->exit0);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R7, GS_R0, 0));
	gs_asm_ld_map(a, GS_R1, (uint32_t)cg->prog->map_index[GS_MAP_ENTRY_TIMES]);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, key));
	gs_asm_call(a, BPF_FUNC_map_delete_elem);
	gs_asm_call(a, BPF_FUNC_ktime_get_ns);
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R0, GS_R7));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, cg->duration_slot));
	gs_asm_note(a, NULL);
	gs_asm_stack_release(a, mark);
}

void cg_entry_program(const struct gs_cg *main_cg, struct gs_asm *a)
{
	struct gs_cg cg = { .a = a, .prog = main_cg->prog, .spec = main_cg->spec,
			    .opts = main_cg->opts, .err = main_cg->err };
	int16_t key, now;

	for (size_t i = 0; i < cg.prog->nmaps; i++)
		gs_asm_map(a, cg.prog->maps[i].name);
	/* Its labels read "entry.name": a golden file holds both programs. */
	gs_asm_scope_enter(a, "entry", -1);
	key = gs_asm_slot(a, "entry_key", sizeof(struct gs_entry_key), 8);
	now = gs_asm_slot(a, "entry_time", 8, 8);
	if (cg.opts.pid_ns_ino)
		cg.nsinfo_slot = gs_asm_slot(a, "pidns_info", 8, 8);
	cg.exit0 = gs_asm_label(a, "exit");
	gs_asm_note(a, "r6 = ctx");
	gs_asm_emit(a, GS_MOV64_REG(GS_R6, GS_R1));
	cg_pid_filter(&cg);
	gs_asm_note(a, "gs_entry_times[{tid, trace, sp}] = ktime");
	entry_key(&cg, key, 0);
	gs_asm_call(a, BPF_FUNC_ktime_get_ns);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, now));
	gs_asm_ld_map(a, GS_R1, (uint32_t)cg.prog->map_index[GS_MAP_ENTRY_TIMES]);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, key));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, now));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, BPF_ANY));
	gs_asm_call(a, BPF_FUNC_map_update_elem);
	gs_asm_bind(a, cg.exit0);
	gs_asm_note(a, "return 0");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}
