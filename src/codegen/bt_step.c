/* The step program (docs/protocol.md, "Backtraces"): tail-called after
 * EndInstruction with the chain head in bt_state[0].active_slot, it unwinds
 * four more frames of that slot's walk per invocation straight into the
 * event in the accumulation buffer, calls itself again while frames remain
 * and the budget lasts, then moves to the next chained slot, and finally
 * emits the event. Registers: r6 ctx, r8 the slot's state, r9 its
 * instruction. */
#include <errno.h>

#include "bt.h"

static void tail_call_self(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;

	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R6));
	gs_asm_ld_map(a, GS_R2, (uint32_t)cg->prog->map_index[GS_MAP_BT_PROGS]);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 0));
	gs_asm_call(a, BPF_FUNC_tail_call);
}

/* One unwind of the slot's walk; jumps to g->stop when the walk ends. */
static void step_frame(struct bt_gen *g, struct gs_label no_row)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = cg->a;
	uint32_t depth = cg->bt_depth;
	struct gs_label room = gs_asm_label(a, "bt_frames_left");
	struct gs_label slot_ok = gs_asm_label(a, "bt_frame_slot_ok");
	struct bt_row runtime_row = { .constant = NULL };

	gs_asm_note(a, "bt step: stop at the requested depth");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, TS(frame_count)));
	gs_asm_jmp_imm(a, BPF_JLT, GS_R1, (int32_t)depth, room);
	bt_set_final(g, GS_BT_TRUNCATED, false);
	gs_asm_bind(a, room);
	bt_find_row(g, no_row);
	bt_recover(g, &runtime_row);
	bt_validate(g);
	bt_resolve_module(g, !cg->spec->bt->module_ranges);
	gs_asm_note(a, "bt step: frame slot = r9 + 12 + 32 * min(frame_count, depth - 1)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R4, GS_R8, TS(frame_count)));
	gs_asm_jmp_imm(a, BPF_JLE, GS_R4, (int32_t)depth - 1, slot_ok);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, (int32_t)depth - 1));
	gs_asm_bind(a, slot_ok);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R4, BT_FRAME_SHIFT));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R4, BT_FRAMES_OFF));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R4, GS_R9));
	bt_store_frame(g, -1, GS_R4);
	gs_asm_note(a, "bt step: frame_count += 1, in the state and the instruction");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, TS(frame_count)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R8, GS_R1, TS(frame_count)));
	BT_STX(a, frame_count, GS_R1);
	bt_advance(g);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, TS(frame_count)));
	room = gs_asm_label(a, "bt_depth_not_reached");
	gs_asm_jmp_imm(a, BPF_JLT, GS_R1, (int32_t)depth, room);
	bt_set_final(g, GS_BT_TRUNCATED, false);
	gs_asm_bind(a, room);
}

/* Leaving a slot: follow next_slot while the budget lasts, else emit. */
static void finalize(struct bt_gen *g, int16_t event_size)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = cg->a;
	struct gs_label emit = gs_asm_label(a, "bt_step_emit");
	int16_t key = g->sc.key;

	gs_asm_bind(a, g->stop);
	gs_asm_note(a, "bt step: walk done; next chained slot, if any");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, TS(next_slot)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_NO_NEXT_SLOT, emit);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, GS_R8, TS(tail_calls)));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R2, BT_MAX_STEP_CALLS, emit);
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key, 0));
	cg_map_lookup(cg, GS_MAP_BT_STATE, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, emit);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, TS(next_slot)));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R0, GS_R1, TS(active_slot)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, key));
	cg_map_lookup(cg, GS_MAP_BT_STATE, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, emit);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, event_size));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R0, GS_R1, TS(event_size)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, TS(tail_calls)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R0, GS_R1, TS(tail_calls)));
	tail_call_self(cg);
	gs_asm_bind(a, emit);
	cg_emit_event(cg, GS_FP, event_size);
}

/* The step program's own context, built for it: the base only (the
 * program's maps, spec, options and depth); none of the main program's
 * parts, stack slots, labels, flags or statement state. Its walk state
 * and scratch are in its struct bt_gen. */
static struct gs_cg step_context(const struct gs_cg *main_cg, struct gs_asm *a)
{
	return (struct gs_cg){ .a = a, .prog = main_cg->prog, .spec = main_cg->spec,
			       .opts = main_cg->opts, .err = main_cg->err,
			       .max_size = main_cg->max_size, .bt_depth = main_cg->bt_depth };
}

void cg_bt_step_program(const struct gs_cg *main_cg, struct gs_asm *step)
{
	struct gs_cg cg = step_context(main_cg, step);
	struct gs_asm *a = step;
	struct bt_gen g = { .cg = &cg, .in_step = true };
	uint32_t size = GS_INST_HEADER_SIZE + sizeof(struct gs_backtrace_data) + 32 * cg.bt_depth;
	struct gs_label no_row, after_steps;
	int16_t event_size;

	for (size_t i = 0; i < cg.prog->nmaps; i++)
		gs_asm_map(a, cg.prog->maps[i].name);
	/* Its labels read "step.name": a golden file holds both programs. */
	gs_asm_scope_enter(a, "step", -1);
	cg.key_slot = gs_asm_slot(a, "key0", 4, 4);
	event_size = gs_asm_slot(a, "event_size", 4, 4);
	bt_alloc_scratch(a, &g.sc);
	g.st = (struct bt_loc){ .base = GS_R8, .ip = TS(current_ip), .rsp = TS(current_rsp),
				.rbp = TS(current_rbp), .bias = TS(module_bias),
				.cookie = TS(module_cookie), .found = TS(offsets_found),
				.mod_base = TS(module_base), .mod_end = TS(module_end) };
	cg.exit0 = gs_asm_label(a, "exit");
	g.stop = gs_asm_label(a, "bt_step_walk_done");
	no_row = gs_asm_label(a, "bt_no_row");
	after_steps = gs_asm_label(a, "bt_step_budget");

	gs_asm_note(a, "bt step: r8 = bt_state[bt_state[0].active_slot]");
	gs_asm_emit(a, GS_MOV64_REG(GS_R6, GS_R1));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, cg.key_slot, 0));
	cg_lookup_key0(&cg, GS_MAP_BT_STATE);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R0, TS(active_slot)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g.sc.key));
	cg_map_lookup(&cg, GS_MAP_BT_STATE, g.sc.key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, cg.exit0);
	gs_asm_emit(a, GS_MOV64_REG(GS_R8, GS_R0));
	gs_asm_note(a, "bt step: r9 = the instruction, bounds checked for the verifier");
	cg_lookup_key0(&cg, GS_MAP_ACCUM);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R8, TS(inst_offset)));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, (int32_t)(cg.max_size - size), cg.exit0);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R8, TS(event_size)));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R2, (int32_t)cg.max_size, cg.exit0);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R2, event_size));
	gs_asm_emit(a, GS_MOV64_REG(GS_R9, GS_R0));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R9, GS_R1));
	if (cg.spec->bt->module_ranges)
		bt_pid_key(&g);
	for (int i = 0; i < BT_FRAMES_PER_STEP; i++) {
		/* The i-th unwind of one call: its labels read "step.u<i>.name". */
		uint32_t scope = gs_asm_scope_enter(a, "u", i);

		step_frame(&g, no_row);
		gs_asm_scope_set(a, scope);
	}
	gs_asm_ja(a, after_steps);

	gs_asm_bind(a, no_row);
	gs_asm_note(a, "bt step: no unwind row for the caller's pc");
	bt_set_final(&g, GS_BT_NO_UNWIND_ROWS_FOR_PC, false);

	gs_asm_bind(a, after_steps);
	gs_asm_note(a, "bt step: more frames: call again while the budget lasts");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R8, TS(tail_calls)));
	{
		struct gs_label budget_left = gs_asm_label(a, "bt_budget_left");

		gs_asm_jmp_imm(a, BPF_JLT, GS_R1, BT_MAX_STEP_CALLS, budget_left);
		bt_set_final(&g, GS_BT_TRUNCATED, false);
		gs_asm_bind(a, budget_left);
	}
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R8, GS_R1, TS(tail_calls)));
	tail_call_self(&cg);
	gs_asm_note(a, "bt step: the tail call failed");
	bt_set_final(&g, GS_BT_INTERNAL_ERROR, false);

	finalize(&g, event_size);
	gs_asm_bind(a, cg.exit0);
	gs_asm_note(a, "return 0");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}
