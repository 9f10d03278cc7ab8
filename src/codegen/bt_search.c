/* The lookups of an unwind (docs/protocol.md, "Backtraces"): the PID key of
 * the proc-module maps, the probe module's load bias, the unwind row of a PC
 * by an unrolled binary search over bt_unwind_rows, and a caller frame's
 * module by an unrolled binary search over the active proc_module_ranges
 * slot. Unrolled: the verifier sees straight-line code, no loop. */
#include "bt.h"

uint32_t bt_steps(uint64_t n)
{
	uint32_t bits = 0;

	if (n <= 1)
		return 1;
	for (uint64_t v = n - 1; v; v >>= 1)
		bits++;
	return bits + 1;
}

/* pid = pid_aliases[tgid] or the host TGID itself. */
void bt_pid_key(struct bt_gen *g)
{
	struct gs_asm *a = g->cg->a;
	struct gs_label plain = gs_asm_label(a, "pid_not_aliased");

	gs_asm_note(a, "bt: pid key = pid_aliases[tgid] ?: tgid");
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R0, g->sc.pid));
	cg_map_lookup(g->cg, GS_MAP_PID_ALIASES, g->sc.pid);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, plain);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, offsetof(struct gs_pid_alias, proc_pid)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->sc.pid));
	gs_asm_bind(a, plain);
}

/* st.bias, st.found = proc_module_offsets[{pid, 0, cookie}].text, found. */
void bt_probe_offsets(struct bt_gen *g, uint64_t cookie)
{
	struct gs_asm *a = g->cg->a;
	struct gs_label missing = gs_asm_label(a, "probe_offsets_missing");
	const struct bt_loc *st = &g->st;
	bool ranges = g->cg->spec->bt->module_ranges;

	gs_asm_note(a, "bt: probe module bias = proc_module_offsets[{pid, cookie}]");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, g->sc.pid));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->sc.key));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, g->sc.key + 4, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, g->sc.key + 8, (int32_t)(uint32_t)cookie));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, g->sc.key + 12, (int32_t)(uint32_t)(cookie >> 32)));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, st->base, st->bias, 0));
	/* Callers are resolved through proc_module_ranges only (the offsets
	 * may be stale or the snapshot may lack the module): the walk starts
	 * with no module range, so frame 1 searches. */
	if (ranges) {
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, st->base, st->mod_base, 0));
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, st->base, st->mod_end, 0));
	}
	gs_asm_emit(a, GS_ST_MEM(BPF_B, st->base, st->found, 0));
	cg_map_lookup(g->cg, GS_MAP_PROC_OFFSETS, g->sc.key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, missing);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_proc_module_offsets, text)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, st->base, GS_R1, st->bias));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, st->base, st->found, 1));
	gs_asm_bind(a, missing);
}

/* lo, hi = bt_module_row_ranges[st.cookie], or [0, nrows) for one module. */
static void row_bounds(struct bt_gen *g, struct gs_label not_found)
{
	struct gs_asm *a = g->cg->a;
	const struct gs_bt_probe *bt = g->cg->spec->bt;

	if (!bt->module_ranges) {
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, g->sc.lo, 0));
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, g->sc.hi, (int32_t)bt->nrows));
		return;
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, g->st.base, g->st.cookie));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, g->sc.key));
	cg_map_lookup(g->cg, GS_MAP_BT_ROW_RANGES, g->sc.key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, not_found);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, offsetof(struct gs_module_row_range, row_start)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->sc.lo));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, offsetof(struct gs_module_row_range, row_end)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->sc.hi));
}

/* One unrolled halving: mid = (lo + hi) / 2 into key + key_off, then r0 =
 * the map's entry there (to not_found when the range is empty or the entry
 * is missing); then the caller's comparisons. */
static void search_step(struct bt_gen *g, int map_kind, int16_t key_off,
			struct gs_label not_found)
{
	struct gs_asm *a = g->cg->a;

	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, g->sc.lo));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_FP, g->sc.hi));
	gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, not_found);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->sc.key + key_off));
	cg_map_lookup(g->cg, map_kind, g->sc.key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, not_found);
}

/* With value (u64) in r1 and the entry in r0 holding [start, end) at
 * start_off and start_off + 8: below -> hi = mid, above -> lo = mid + 1,
 * inside -> jump to `inside`. */
/* narrow() reads [start, end) of a row and of a range entry alike. */
_Static_assert(offsetof(struct gs_unwind_row, pc_start) ==
	       offsetof(struct gs_proc_module_range, base) &&
	       offsetof(struct gs_unwind_row, pc_end) == offsetof(struct gs_proc_module_range, end),
	       "rows and ranges start with [start, end)");
_Static_assert(offsetof(struct gs_proc_module_range, cookie_hi) ==
	       offsetof(struct gs_proc_module_range, cookie_lo) + 4,
	       "a range's cookie halves make one u64");

static void narrow(struct bt_gen *g, int16_t key_off, struct gs_label inside)
{
	struct gs_asm *a = g->cg->a;
	struct gs_label above = gs_asm_label(a, "search_not_below");
	struct gs_label next = gs_asm_label(a, "search_next");

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R0, offsetof(struct gs_unwind_row, pc_start)));
	gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, above);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R3, GS_FP, g->sc.key + key_off));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R3, g->sc.hi));
	gs_asm_ja(a, next);
	gs_asm_bind(a, above);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R0, offsetof(struct gs_unwind_row, pc_end)));
	gs_asm_jmp_reg(a, BPF_JLT, GS_R1, GS_R2, inside);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R3, GS_FP, g->sc.key + key_off));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R3, g->sc.lo));
	gs_asm_bind(a, next);
}

/* r7 = the row of a caller frame: lookup pc = st.ip - 1 (the call, not the
 * return address), minus the module bias when it is known. */
void bt_find_row(struct bt_gen *g, struct gs_label not_found)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = cg->a;
	const struct bt_loc *st = &g->st;
	struct gs_label pc_ready = gs_asm_label(a, "lookup_pc_ready");
	struct gs_label found = gs_asm_label(a, "bt_row_found");
	uint32_t entries = cg->prog->maps[cg->prog->map_index[GS_MAP_BT_ROWS]].max_entries;

	gs_asm_note(a, "bt: row = bt_unwind_rows search at ip - 1 - bias");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, st->base, st->ip));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, -1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, st->base, st->found));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, pc_ready);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, st->base, st->bias));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_bind(a, pc_ready);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, g->sc.lookup_pc));
	row_bounds(g, not_found);
	for (uint32_t i = 0; i < bt_steps(entries); i++) {
		search_step(g, GS_MAP_BT_ROWS, 0, not_found);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, g->sc.lookup_pc));
		narrow(g, 0, found);
	}
	gs_asm_ja(a, not_found);
	gs_asm_bind(a, found);
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));
}

/* next_{cookie,bias,found} of the frame at next_ip. One module: the current
 * one, as found as it is. Several: the proc_module_ranges entry holding
 * next_ip in pid's active slot, else the current cookie and bias with
 * found = 0. The range the last search found is remembered: while next_ip
 * stays inside it the answer is that same entry (ranges do not overlap),
 * so the search is skipped. */
void bt_resolve_module(struct bt_gen *g, bool fallback_found)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = cg->a;
	const struct bt_loc *st = &g->st;
	const struct bt_scratch *sc = &g->sc;
	struct gs_label done = gs_asm_label(a, "module_resolved");
	struct gs_label inside = gs_asm_label(a, "module_range_found");
	struct gs_label search = gs_asm_label(a, "module_search");

	gs_asm_note(a, "bt: module of the next frame");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, st->base, st->cookie));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_cookie));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, st->base, st->bias));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_bias));
	if (fallback_found) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, st->base, st->found));
		gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_FP, GS_R1, sc->next_found));
	} else {
		gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, sc->next_found, 0));
	}
	if (!cg->spec->bt->module_ranges)
		return;
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, st->base, st->mod_base));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_mod_base));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, st->base, st->mod_end));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, sc->next_mod_end));
	/* The step program, which walks most frames, skips the search while
	 * the IP stays in the last range found. The main program's three
	 * runtime frames always search: there a skip would double the paths
	 * the verifier walks per frame for little run time. */
	if (g->in_step) {
		gs_asm_note(a, "bt: same module as this frame? then no search");
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, sc->next_ip));
		gs_asm_jmp_reg(a, BPF_JLT, GS_R3, GS_R1, search);
		gs_asm_jmp_reg(a, BPF_JGE, GS_R3, GS_R2, search);
		gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, sc->next_found, 1));
		gs_asm_ja(a, done);
	}
	gs_asm_bind(a, search);
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sc->next_mod_base, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sc->next_mod_end, 0));
	gs_asm_note(a, "bt: module = proc_module_ranges search in the active slot");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, sc->pid));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sc->key));
	cg_map_lookup(g->cg, GS_MAP_RANGE_META, sc->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, offsetof(struct gs_proc_module_range_meta, active_slot)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sc->key + 4));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, offsetof(struct gs_proc_module_range_meta, count)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sc->hi));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, sc->lo, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, sc->key + 12, 0));
	for (uint32_t i = 0; i < bt_steps(2ull * cg->opts.proc_offsets_max); i++) {
		search_step(g, GS_MAP_RANGES, 8, done);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc->next_ip));
		narrow(g, 8, inside);
	}
	gs_asm_ja(a, done);
	gs_asm_bind(a, inside);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0,
				  offsetof(struct gs_proc_module_range, cookie_lo))); /* | cookie_hi << 32 */
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_cookie));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_proc_module_range, text)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_bias));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, sc->next_found, 1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_proc_module_range, base)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_mod_base));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_proc_module_range, end)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc->next_mod_end));
	gs_asm_bind(a, done);
}
