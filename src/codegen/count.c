/* Counting in BPF (gs_program_opts.count_stacks): a trace whose body is one
 * `bt` adds one to stack_counts[key] instead of emitting its event, so a
 * hot probe costs a hash update rather than a ring buffer record and a
 * decode. The key is the accumulation buffer from the message's tgid on
 * (struct gs_stack_count_key, then the 0x11 payload the walker wrote, its
 * unused tail zeroed by the statement): no copy. */
#include <errno.h>
#include <stddef.h>

#include "bt.h"

#define KEY_OFF ((int32_t)offsetof(struct gs_event_message, pid) + \
		 (int32_t)sizeof(struct gs_event_header))

const char *cg_count_unqualified(const struct gs_trace_spec *spec, const struct gs_program_opts *o)
{
	if (spec->nbody != 1 || spec->body[0].kind != GS_STMT_BACKTRACE)
		return "its body is not exactly one `bt`: counting in BPF counts stacks only "
		       "(write trace FN { bt; }, or count in userspace: --count-in user)";
	if (o->unwinder != GS_UNWINDER_LOOP)
		return "the tail-call unwinder has no counting in BPF, and the loop unwinder "
		       "needs bpf_loop (Linux 5.17+): count in userspace (--count-in user)";
	if (!spec->bt)
		return "its probe has no unwind context (no backtrace to count)";
	return NULL;
}

uint32_t cg_count_key_size(uint32_t depth)
{
	return (uint32_t)GS_STACK_COUNT_KEY_SIZE(depth, cg_bt_loop_slots(depth));
}

/* Instead of EndInstruction and emission: count the stack. The event's
 * first instruction is the backtrace (the body is one `bt`), so the key
 * sits at a constant offset of the buffer. */
void cg_count_stack(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	uint32_t counts = (uint32_t)cg->prog->map_index[GS_MAP_STACK_COUNTS];
	struct gs_label add = gs_asm_label(a, "count_add");
	struct gs_label insert = gs_asm_label(a, "count_insert");
	struct gs_label retry = gs_asm_label(a, "count_retry");
	struct gs_label dropped = gs_asm_label(a, "count_dropped");
	int16_t one = gs_asm_slot(a, "count_one", 8, 8);

	gs_asm_note(a, "count: r7 = key = accum + tgid's offset (tgid, tid 0, the backtrace)");
	cg_lookup_key0(cg, GS_MAP_ACCUM);
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R7, KEY_OFF));
	gs_asm_note(a, "count: stack_counts[key] += 1 when the stack is known");
	cg_map_lookup_at(cg, GS_MAP_STACK_COUNTS, GS_R7, 0);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, insert);
	gs_asm_bind(a, add);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 1));
	gs_asm_emit(a, GS_ATOMIC_ADD(BPF_DW, GS_R0, GS_R1, 0));
	gs_asm_ja(a, cg->exit0);
	gs_asm_bind(a, insert);
	gs_asm_note(a, "count: else insert 1 (BPF_NOEXIST: another CPU may insert it first)");
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, one, 1));
	gs_asm_ld_map(a, GS_R1, counts);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R7));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, one));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, BPF_NOEXIST));
	gs_asm_call(a, BPF_FUNC_map_update_elem);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, cg->exit0);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, -EEXIST, retry);
	gs_asm_ja(a, dropped);
	gs_asm_bind(a, retry);
	gs_asm_note(a, "count: inserted meanwhile: look it up once more");
	cg_map_lookup_at(cg, GS_MAP_STACK_COUNTS, GS_R7, 0);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, add);
	gs_asm_bind(a, dropped);
	gs_asm_note(a, "count: the map is full: stack_count_drops[0] += 1");
	cg_count_one(cg, GS_MAP_STACK_DROPS, cg->exit0);
	gs_asm_note(a, NULL);
	gs_asm_ja(a, cg->exit0);
}
