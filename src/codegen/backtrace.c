/* The Backtrace instruction (docs/protocol.md, "Backtraces"): frame 0 from
 * pt_regs, the first unwind from the probe's compile-time row, up to five
 * frames in the main program, then, past depth 5, the walk is handed to the
 * step program through a bt_state slot linked into the event's chain and a
 * tail call dispatched after EndInstruction. */
#include <errno.h>

#include "base.h"
#include "bt.h"

static struct bt_gen gen_for(struct gs_cg *cg)
{
	return (struct bt_gen){ .cg = cg, .st = cg->tail->st, .sc = cg->tail->sc,
				.stop = gs_asm_label(cg->a, "bt_done") };
}

/* Frame 0 = the probe hit: ip, sp and bp from pt_regs, the probe module's
 * cookie and bias. */
static void frame0(struct bt_gen *g)
{
	struct gs_asm *a = g->cg->a;
	const struct gs_bt_probe *bt = g->cg->spec->bt;
	const struct bt_loc *st = &g->st;
	const struct bt_scratch *sc = &g->sc;

	bt_pid_key(g);
	bt_probe_offsets(g, bt->cookie);
	gs_asm_note(a, "bt: frame 0 = pt_regs ip, sp, bp in the probe module");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, GS_PT_REGS_IP));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, st->ip));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_ip));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, GS_PT_REGS_SP));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, st->rsp));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, GS_PT_REGS_BP));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, st->rbp));
	gs_asm_ld_imm64(a, GS_R1, bt->cookie);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, st->cookie));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_cookie));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, st->bias));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_bias));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, st->found));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_FP, GS_R1, sc->next_found));
	bt_store_frame(g, 0, 0);
}

/* After a frame is recovered and valid: its module, store it as frame k,
 * count it, provisional status, and move the walk on. */
static void keep_frame(struct bt_gen *g, int k)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = cg->a;

	bt_resolve_module(g, !cg->spec->bt->module_ranges);
	bt_store_frame(g, k, 0);
	BT_ST(a, frame_count, k + 1);
	bt_status(g, (uint32_t)k + 1 == cg->bt_depth ? GS_BT_TRUNCATED : GS_BT_READ_ERROR, true);
	bt_advance(g);
}

/* Five frames are stored and the walk goes on in the step program: fill
 * bt_state[slot] and link it into the event's chain (only when the last
 * frame's module is known, as in the reference). r7 = the slot, r8 = slot 0. */
static void link_tail_slot(struct bt_gen *g, uint8_t flags)
{
	struct gs_cg *cg = g->cg;
	struct cg_tail_walker *w = cg->tail;
	struct gs_asm *a = cg->a;
	const struct bt_loc *st = &g->st;
	uint32_t slot = w->next_slot++;
	int16_t key = g->sc.key;
	struct gs_label have_state = gs_asm_label(a, "bt_state_found");
	struct gs_label chain = gs_asm_label(a, "bt_chain_after_last");
	struct gs_label head = gs_asm_label(a, "bt_chain_head");
	struct gs_label linked = gs_asm_label(a, "bt_slot_linked");
	static const int16_t to[] = { TS(current_ip), TS(current_rsp), TS(current_rbp),
				      TS(module_bias), TS(module_cookie) };
	const int16_t from[] = { st->ip, st->rsp, st->rbp, st->bias, st->cookie };

	gs_asm_notef(a, "bt: continue in the step program from bt_state[%u]", slot);
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key, (int32_t)slot));
	cg_map_lookup(cg, GS_MAP_BT_STATE, key);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, have_state);
	BT_ST(a, status, GS_BT_INTERNAL_ERROR);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, w->enabled, 0));
	gs_asm_ja(a, g->stop);
	gs_asm_bind(a, have_state);
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));
	for (size_t i = 0; i < BASE_ARRAY_SIZE(from); i++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, from[i]));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R7, GS_R1, to[i]));
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, w->inst_offset));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R7, GS_R1, TS(inst_offset)));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R7, TS(event_size), 0));
	/* frame_count 5, requested_depth, offsets_found (below), tail_calls 1 */
	CG_ST_FIELDS(a, GS_R7, 0, struct gs_bt_tail_state, frame_count, tail_calls,
		     CG_PACK(struct gs_bt_tail_state, frame_count, frame_count, BT_INLINE_FRAMES) |
		     CG_PACK(struct gs_bt_tail_state, frame_count, requested_depth, cg->bt_depth) |
		     CG_PACK(struct gs_bt_tail_state, frame_count, tail_calls, 1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, st->found));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R7, GS_R1, TS(offsets_found)));
	/* flags, active_slot, error_code 0 */
	CG_ST_FIELDS(a, GS_R7, 0, struct gs_bt_tail_state, flags, error_code,
		     CG_PACK(struct gs_bt_tail_state, flags, flags, flags) |
		     CG_PACK(struct gs_bt_tail_state, flags, active_slot, slot));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R7, TS(next_slot), GS_BT_NO_NEXT_SLOT));
	if (cg->spec->bt->module_ranges) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, st->mod_base));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R7, GS_R2, TS(module_base)));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, st->mod_end));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R7, GS_R2, TS(module_end)));
	}

	gs_asm_note(a, "bt: link the slot into this event's chain");
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, g->stop);
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key, 0));
	cg_map_lookup(cg, GS_MAP_BT_STATE, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, g->stop);
	gs_asm_emit(a, GS_MOV64_REG(GS_R8, GS_R0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, w->enabled));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, chain);
	gs_asm_bind(a, head);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R8, TS(active_slot), (int32_t)slot));
	gs_asm_ja(a, linked);
	gs_asm_bind(a, chain);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, w->last));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, key));
	cg_map_lookup(cg, GS_MAP_BT_STATE, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, head);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R0, TS(next_slot), (int32_t)slot));
	gs_asm_bind(a, linked);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, w->last, (int32_t)slot));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, w->enabled, 1));
}

static void tail_stmt(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	const struct gs_bt_probe *bt = cg->spec->bt;
	struct bt_gen g = gen_for(cg);
	uint32_t depth = cg->bt_depth;
	uint32_t payload = cg_bt_inst_size(cg) - GS_INST_HEADER_SIZE;
	uint32_t inline_depth = depth < BT_INLINE_FRAMES ? depth : BT_INLINE_FRAMES;
	struct gs_label no_row = gs_asm_label(a, "bt_no_row");
	struct bt_row probe_row = { .constant = bt ? &bt->first_row : NULL };
	struct bt_row runtime_row = { .constant = NULL };
	uint32_t scope; /* the statement's; each frame's labels read "f<k>.name" */

	if (cg_has_step(cg)) {
		gs_asm_note(a, "bt: remember where the instruction starts");
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, cg->offset_slot));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, cg->tail->inst_offset));
	}
	cg_reserve(cg, GS_INST_HEADER_SIZE + payload);
	gs_asm_notef(a, "Backtrace: depth %u, flags 0x%x", depth, cg_bt_flags(cg, s));
	cg_inst_header(a, GS_INST_BACKTRACE, payload);
	/* requested_depth, frame_count 1, flags, status 0 */
	CG_ST_FIELDS(a, GS_R9, CG_PAYLOAD, struct gs_backtrace_data, requested_depth, status,
		     CG_PACK(struct gs_backtrace_data, requested_depth, requested_depth, depth) |
		     CG_PACK(struct gs_backtrace_data, requested_depth, frame_count, 1) |
		     CG_PACK(struct gs_backtrace_data, requested_depth, flags, cg_bt_flags(cg, s)));
	BT_ST(a, error_code, 0);
	if (!bt) {
		gs_asm_note(a, "bt: no DWARF for the probe");
		BT_ST(a, frame_count, 0);
		BT_ST(a, status, GS_BT_DWARF_UNAVAILABLE);
		return;
	}
	scope = gs_asm_scope_enter(a, "f", 0);
	frame0(&g);
	gs_asm_scope_set(a, scope);
	if (depth == 1)
		bt_set_final(&g, GS_BT_TRUNCATED, true);
	else if (cg_has_step(cg) && bt->nrows == 0)
		bt_set_final(&g, GS_BT_NO_UNWIND_ROWS_FOR_PC, true);
	else if (bt->first_row_kind == GS_BT_ROW_MISSING)
		bt_set_final(&g, GS_BT_NO_UNWIND_ROWS_FOR_PC, true);
	else if (bt->first_row_kind == GS_BT_ROW_UNSUPPORTED)
		bt_set_final(&g, GS_BT_UNSUPPORTED_CFI, true);
	if (depth == 1 || (cg_has_step(cg) && bt->nrows == 0) ||
	    bt->first_row_kind != GS_BT_ROW_USABLE) {
		gs_asm_bind(a, g.stop);
		return;
	}
	gs_asm_note(a, "bt: frame 1 from the probe's compile-time row");
	scope = gs_asm_scope_enter(a, "f", 1);
	bt_recover(&g, &probe_row);
	bt_validate(&g);
	keep_frame(&g, 1);
	gs_asm_scope_set(a, scope);
	if (depth > 2 && bt->nrows == 0) {
		bt_set_final(&g, GS_BT_NO_UNWIND_ROWS_FOR_PC, true);
	} else if (depth > 2) {
		for (uint32_t k = 2; k < inline_depth; k++) {
			scope = gs_asm_scope_enter(a, "f", (int32_t)k);
			bt_find_row(&g, no_row);
			bt_recover(&g, &runtime_row);
			bt_validate(&g);
			keep_frame(&g, (int)k);
			gs_asm_scope_set(a, scope);
		}
		if (cg_has_step(cg))
			link_tail_slot(&g, cg_bt_flags(cg, s));
		gs_asm_ja(a, g.stop);
		gs_asm_bind(a, no_row);
		gs_asm_note(a, "bt: no unwind row for the caller's pc");
		bt_set_final(&g, GS_BT_NO_UNWIND_ROWS_FOR_PC, true);
	}
	gs_asm_bind(a, g.stop);
	gs_asm_note(a, NULL);
}

uint32_t cg_bt_inst_size(const struct gs_cg *cg)
{
	if (cg->loop)
		return cg_bt_loop_inst_size(cg->bt_depth);
	return GS_INST_HEADER_SIZE + sizeof(struct gs_backtrace_data) +
	       (uint32_t)sizeof(struct gs_backtrace_frame) * cg->bt_depth;
}

void cg_backtrace(struct gs_cg *cg, const struct gs_stmt *s)
{
	if (cg->loop)
		cg_bt_loop_stmt(cg, s);
	else
		tail_stmt(cg, s);
	if (cg_bt_flags(cg, s) & GS_BT_FLAG_KERNEL) {
		if (!cg->spec->sample)
			cg_fail(cg, -EINVAL, "a kernel stack is a CPU sample's only: at a uprobe "
				"it is the probe's own trap");
		else
			cg_kernel_stack(cg);
	}
	if (cg_bt_flags(cg, s) & GS_BT_FLAG_PYTHON)
		cg_python_stack(cg);
}

/* In the prologue: this event has linked no bt_state slot yet. */
void cg_bt_chain_prologue(struct gs_asm *a, const struct cg_tail_walker *w)
{
	gs_asm_note(a, "bt: no step program slot linked yet");
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, w->enabled, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, w->last, GS_BT_NO_NEXT_SLOT));
}

/* After EndInstruction: if a slot was linked, record the event's size in
 * the chain head's state and tail-call the step program; it emits the
 * event. A failed tail call falls through to the normal emission. */
void cg_bt_dispatch(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	struct cg_tail_walker *w = cg->tail;
	struct gs_label out = gs_asm_label(a, "bt_no_dispatch");
	int16_t key = w->sc.key;

	gs_asm_note(a, "bt: hand the event to the step program");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, w->enabled));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, out);
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key, 0));
	cg_map_lookup(cg, GS_MAP_BT_STATE, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, out);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R0, TS(active_slot)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, key));
	cg_map_lookup(cg, GS_MAP_BT_STATE, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, out);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, cg->offset_slot));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R0, GS_R1, TS(event_size)));
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R6));
	gs_asm_ld_map(a, GS_R2, (uint32_t)cg->prog->map_index[GS_MAP_BT_PROGS]);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 0));
	gs_asm_call(a, BPF_FUNC_tail_call);
	gs_asm_bind(a, out);
}

/* Stack slots of the walk, taken once per program: the state, the scratch
 * of one frame, and (past depth 5) the chain bookkeeping. */
void cg_bt_prepare(struct gs_asm *a, struct cg_tail_walker *w)
{
	struct bt_loc *st = &w->st;

	st->base = GS_FP;
	st->ip = gs_asm_slot(a, "bt_ip", 8, 8);
	st->rsp = gs_asm_slot(a, "bt_rsp", 8, 8);
	st->rbp = gs_asm_slot(a, "bt_rbp", 8, 8);
	st->bias = gs_asm_slot(a, "bt_bias", 8, 8);
	st->cookie = gs_asm_slot(a, "bt_cookie", 8, 8);
	st->mod_base = gs_asm_slot(a, "bt_module_base", 8, 8);
	st->mod_end = gs_asm_slot(a, "bt_module_end", 8, 8);
	st->found = gs_asm_slot(a, "bt_found", 1, 1);
	bt_alloc_scratch(a, &w->sc);
	if (w->step) {
		w->inst_offset = gs_asm_slot(a, "bt_inst_offset", 4, 4);
		w->enabled = gs_asm_slot(a, "bt_tail_enabled", 1, 1);
		w->last = gs_asm_slot(a, "bt_tail_last", 1, 1);
	}
}

/* Per-frame scratch, in both programs. */
void bt_alloc_scratch(struct gs_asm *a, struct bt_scratch *sc)
{
	sc->next_ip = gs_asm_slot(a, "bt_next_ip", 8, 8);
	sc->next_rsp = gs_asm_slot(a, "bt_next_rsp", 8, 8);
	sc->next_rbp = gs_asm_slot(a, "bt_next_rbp", 8, 8);
	sc->next_bias = gs_asm_slot(a, "bt_next_bias", 8, 8);
	sc->next_cookie = gs_asm_slot(a, "bt_next_cookie", 8, 8);
	sc->next_mod_base = gs_asm_slot(a, "bt_next_module_base", 8, 8);
	sc->next_mod_end = gs_asm_slot(a, "bt_next_module_end", 8, 8);
	sc->read_buf = gs_asm_slot(a, "bt_read_buf", 8, 8);
	sc->lookup_pc = gs_asm_slot(a, "bt_lookup_pc", 8, 8);
	sc->key = gs_asm_slot(a, "bt_key", 16, 8);
	sc->lo = gs_asm_slot(a, "bt_lo", 4, 4);
	sc->hi = gs_asm_slot(a, "bt_hi", 4, 4);
	sc->pid = gs_asm_slot(a, "bt_pid", 4, 4);
	sc->next_found = gs_asm_slot(a, "bt_next_found", 1, 1);
	sc->err = gs_asm_slot(a, "bt_err", 1, 1);
}
