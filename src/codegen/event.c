/* Event framing (docs/protocol.md, "How a program builds an event"): the PID
 * filter, header and message, the reserve check every instruction goes
 * through, EndInstruction with the execution status, and emission through
 * the ring buffer or the perf array with the loss counter. Values are
 * captured to what the event has room for (budget.c); an event whose fixed
 * parts still outgrow the accumulation buffer is dropped whole and counted
 * as a loss: nothing partial is ever emitted, nothing vanishes uncounted. */
#include <errno.h>

#include "cg.h"

#define MESSAGE ((int16_t)sizeof(struct gs_event_header)) /* where the message starts */

/* Host filter: the TGID from bpf_get_current_pid_tgid(). Namespace filter:
 * the TGID the target's PID namespace sees (helper 120); a failed helper
 * means "not our process". */
void cg_pid_filter(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	const struct gs_program_opts *o = &cg->opts;

	if (!o->filter_pid)
		return;
	if (!o->pid_ns_ino) {
		gs_asm_notef(a, "pid filter: host tgid == %u", o->filter_pid);
		gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
		gs_asm_jmp_imm(a, BPF_JNE, GS_R0, (int32_t)o->filter_pid, cg->exit0);
		return;
	}
	gs_asm_notef(a, "pid filter: tgid in pid namespace %llu == %u",
		     (unsigned long long)o->pid_ns_ino, o->filter_pid);
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, cg->nsinfo_slot, 0));
	gs_asm_ld_imm64(a, GS_R1, o->pid_ns_dev);
	gs_asm_ld_imm64(a, GS_R2, o->pid_ns_ino);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, cg->nsinfo_slot));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 8));
	gs_asm_call(a, BPF_FUNC_get_ns_current_pid_tgid);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, cg->exit0);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R0, GS_FP, cg->nsinfo_slot + 4));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, (int32_t)o->filter_pid, cg->exit0);
}

/* After the hit was let through (program.c: the PID filter or a CPU
 * sample's): the walker's gate, key0 and the cursor. */
void cg_prologue(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;

	if (cg->loop) {
		/* The runtime attaches before it writes the unwind maps and
		 * opens this gate once they are in place: no event before, so
		 * none has a backtrace cut short by missing rows. */
		gs_asm_note(a, "bt: nothing until the unwind maps are written (bt_snapshot_gen.open)");
		gs_asm_ld_map_value(a, GS_R1, (uint32_t)cg->prog->map_index[GS_MAP_BT_GEN],
				    offsetof(struct gs_bt_gen, open));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R1, 0));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, cg->exit0);
	}
	gs_asm_note(a, "key0 = 0, event_offset = 0");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, cg->key_slot, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, cg->offset_slot, 0));
}

/* Header and message, after the parts' prologues (program.c). */
void cg_event_begin(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;

	gs_asm_note(a, "message: r7 = ktime, r8 = pid_tgid");
	gs_asm_call(a, BPF_FUNC_ktime_get_ns);
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	gs_asm_emit(a, GS_MOV64_REG(GS_R8, GS_R0));

	/* Header and message share one reservation: an event that cannot
	 * hold the 28 bytes is dropped either way. */
	cg_reserve(cg, GS_EVENT_PREFIX_SIZE);
	gs_asm_note(a, "header: magic; message: trace id, timestamp, tgid, tid");
	CG_ST_FIELD(a, GS_R9, 0, struct gs_event_header, magic, GS_MAGIC);
	CG_ST_FIELD(a, GS_R9, MESSAGE, struct gs_event_message, trace_id, cg->spec->trace_id);
	CG_STX_FIELD(a, GS_R9, MESSAGE, struct gs_event_message, timestamp, GS_R7);
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R8));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 32));
	CG_STX_FIELD(a, GS_R9, MESSAGE, struct gs_event_message, pid, GS_R1);
	if (cg->opts.count_stacks && !cg->opts.count_per_thread)
		CG_ST_FIELD(a, GS_R9, MESSAGE, struct gs_event_message, tid, 0); /* the key has no tid */
	else
		CG_STX_FIELD(a, GS_R9, MESSAGE, struct gs_event_message, tid, GS_R8);
	gs_asm_note(a, "any_fail = any_success = no");
	gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_FP, cg->flags_slot, CG_FLAG_NO | CG_FLAG_NO << 8));
}

void cg_reserve(struct gs_cg *cg, uint32_t size)
{
	struct gs_asm *a = cg->a;
	const char *prev;

	if (size > cg->max_size) {
		cg_fail(cg, -E2BIG,
			"an instruction of %u bytes cannot fit an event of at most %u bytes "
			"(max_trace_event_size): raise it or print less in one statement",
			size, cg->max_size);
		return;
	}
	prev = gs_asm_notef(a, "reserve %u bytes: r9 = accum + event_offset", size);
	if (cg->accum_slot && cg->accum_saved) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, cg->accum_slot));
	} else {
		cg_lookup_key0(cg, GS_MAP_ACCUM);
		if (cg->accum_slot) {
			gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, cg->accum_slot));
			cg->accum_saved = true;
		}
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, cg->offset_slot));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R1, (int32_t)cg->max_size, cg->overflow);
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, (int32_t)(cg->max_size - size), cg->overflow);
	gs_asm_emit(a, GS_MOV64_REG(GS_R9, GS_R0));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R9, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, (int32_t)size));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, cg->offset_slot));
	gs_asm_note(a, prev);
	cg->used += size;
}

/* EndInstruction: status 2 when reads failed and none succeeded, 1 when
 * both happened, else 0. cg_emit_event then sends the whole event in
 * one record (after the step program's dispatch, when there is one). */
void cg_end_instruction(struct gs_cg *cg, uint16_t total)
{
	struct gs_asm *a = cg->a;
	struct gs_label store = gs_asm_label(a, "end_status_ready");

	cg_reserve(cg, GS_END_INSTRUCTION_SIZE);
	gs_asm_note(a, "EndInstruction: total, execution_status");
	cg_inst_header(a, GS_INST_END, sizeof(struct gs_end_instruction));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, cg->flags_slot));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, GS_FP, cg->flags_slot + 1));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, GS_EXEC_SUCCESS));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, CG_FLAG_NO, store);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, GS_EXEC_COMPLETE_FAILURE));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, CG_FLAG_NO, store);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, GS_EXEC_PARTIAL_FAILURE));
	gs_asm_bind(a, store);
	/* total_instructions, execution_status, reserved 0: one u32 */
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R3, CG_SHIFT(struct gs_end_instruction,
							     total_instructions, execution_status)));
	if (total)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_OR, GS_R3, total));
	gs_asm_emit(a, GS_STX_MEM(CG_BPF_SIZE(sizeof(struct gs_end_instruction)), GS_R9, GS_R3,
				  CG_PAYLOAD));
}

/* Sends the accumulation buffer, size = min(the u32 at size_base +
 * size_off, max), through the output map; on failure counts a loss. */
void cg_emit_event(struct gs_cg *cg, uint8_t size_base, int16_t size_off)
{
	struct gs_asm *a = cg->a;
	struct gs_label size_ok = gs_asm_label(a, "size_ok");
	struct gs_label sent = gs_asm_label(a, "event_sent");

	gs_asm_note(a, "emit: size = min(event_offset, max)");
	cg_lookup_key0(cg, GS_MAP_ACCUM);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R5, size_base, size_off));
	gs_asm_jmp_imm(a, BPF_JLE, GS_R5, (int32_t)cg->max_size, size_ok);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R5, (int32_t)cg->max_size));
	gs_asm_bind(a, size_ok);
	if (cg->opts.output == GS_OUTPUT_PERF) {
		gs_asm_note(a, "bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, buf, size)");
		gs_asm_emit(a, GS_MOV64_REG(GS_R4, GS_R0));
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R6));
		gs_asm_ld_map(a, GS_R2, GS_MAP_OUTPUT);
		gs_asm_emit(a, GS_MOV32_IMM(GS_R3, -1));
		gs_asm_call(a, BPF_FUNC_perf_event_output);
	} else {
		struct gs_label quiet = gs_asm_label(a, "ringbuf_no_wakeup");

		/* A wakeup costs more than the rest of an event: the reader is
		 * woken only once a quarter of the buffer waits, and polls on a
		 * short timer for the rest (docs/protocol.md, "Delivery"). */
		gs_asm_note(a, "flags = ringbuf_query(AVAIL_DATA) < size / 4 ? NO_WAKEUP : FORCE_WAKEUP");
		gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));
		gs_asm_emit(a, GS_MOV64_REG(GS_R8, GS_R5));
		gs_asm_ld_map(a, GS_R1, GS_MAP_OUTPUT);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, BPF_RB_AVAIL_DATA));
		gs_asm_call(a, BPF_FUNC_ringbuf_query);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R4, BPF_RB_NO_WAKEUP));
		gs_asm_jmp_imm(a, BPF_JLT, GS_R0, (int32_t)(cg->opts.ringbuf_size / 4), quiet);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R4, BPF_RB_FORCE_WAKEUP));
		gs_asm_bind(a, quiet);
		gs_asm_note(a, "bpf_ringbuf_output(&ringbuf, buf, size, flags)");
		gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R7));
		gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R8));
		gs_asm_ld_map(a, GS_R1, GS_MAP_OUTPUT);
		gs_asm_call(a, BPF_FUNC_ringbuf_output);
	}
	gs_asm_jmp_imm(a, BPF_JSGE, GS_R0, 0, sent);
	gs_asm_note(a, "output failed: event_loss_counters[0] += 1");
	cg_count_one(cg, GS_MAP_LOSS, cg->exit0);
	gs_asm_bind(a, sent);
	gs_asm_note(a, NULL);
	gs_asm_ja(a, cg->exit0);
}

/* The shared exits, after all the code that jumps to them. */
void cg_epilogue(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;

	/* Without an event, only an ExprError reserves (and may overflow). */
	if (cg->quiet && !cg_label_used(a, 0, cg->overflow))
		goto out;
	gs_asm_bind(a, cg->overflow);
	gs_asm_note(a, "overflow: drop the whole event, event_loss_counters[0] += 1");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, cg->offset_slot, 0));
	cg_count_one(cg, GS_MAP_LOSS, cg->exit0);
out:
	gs_asm_bind(a, cg->exit0);
	gs_asm_note(a, "return 0");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}
