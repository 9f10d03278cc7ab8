/* The bpf_loop backtrace walker (docs/protocol.md, "The bpf_loop walker"):
 * every `bt` statement of a program reserves a compact Backtrace
 * instruction, copies the probe's registers into the per-CPU bt_walk state
 * and calls one global subprogram, gs_bt_walk, verified once however many
 * statements call it. That subprogram finds the process's module snapshot
 * (kept per CPU while the process and bt_snapshot_gen are the same, else one
 * hash lookup), reads a window of the stack above sp in one helper call, and
 * runs bpf_loop over gs_bt_frame, which unwinds one frame per iteration with
 * array lookups only: the row cache, else the page index and a binary search
 * over 16-byte rows, the module search skipped while a frame stays in its
 * caller's module. Registers in the subprograms: r6 the bt_walk state, r9
 * the instruction, r7/r8 values kept across helpers. */
#include "bt_loop.h"

#define WINDOW_MIN (GS_BT_WINDOW / 8)
#define WINDOW_BYTES_PER_FRAME 64 /* what a shallow walk reads: 8 frames, 512 bytes */

/* The first window's size: the whole window, or less for a shallow walk
 * (a smaller read is cheaper; such a window never moves). */
static uint32_t first_window(uint32_t depth)
{
	uint32_t size = WINDOW_MIN;

	while (size < GS_BT_WINDOW && size < depth * WINDOW_BYTES_PER_FRAME)
		size *= 2;
	return size;
}

uint32_t cg_bt_loop_inst_size(uint32_t depth)
{
	return INST_DATA + (uint32_t)GS_BT_COMPACT_SIZE(depth, cg_bt_loop_slots(depth));
}

/* ---- the statement, in the main program ---------------------------------- */

void cg_bt_loop_stmt(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	uint32_t depth = cg->bt_depth, slots = cg_bt_loop_slots(depth);
	uint32_t size = cg_bt_loop_inst_size(depth);
	struct gs_label no_fail = gs_asm_label(a, "bt_walk_reads_ok");
	struct gs_label no_user = gs_asm_label(a, "bt_no_user_regs");

	cg_reserve(cg, size);
	gs_asm_notef(a, "Backtrace (compact): depth %u, flags 0x%x", depth, cg_bt_flags(cg, s));
	cg_inst_header(a, GS_INST_BACKTRACE_COMPACT, size - INST_DATA);
	COMPACT_ST(a, requested_depth, frame_count, depth); /* frame_count 0 */
	COMPACT_ST(a, flags, error_code,
		   CG_PACK(struct gs_backtrace_compact, flags, flags, cg_bt_flags(cg, s)) |
		   CG_PACK(struct gs_backtrace_compact, flags, status, cg->spec->bt ?
			   GS_BT_INTERNAL_ERROR : GS_BT_DWARF_UNAVAILABLE)); /* error_code 0 */
	COMPACT_ST(a, module_count, reserved,
		   CG_PACK(struct gs_backtrace_compact, module_count, module_slots, slots));
	if (!cg->spec->bt) {
		gs_asm_note(a, NULL);
		return;
	}
	if (cg->opts.count_stacks) {
		/* The walker writes module_count entries and frame_count words:
		 * the rest is zeroed so that one stack is one counting key. */
		gs_asm_note(a, "bt: module table and frame words zeroed (a counting key)");
		for (uint32_t off = (uint32_t)TABLE_OFF; off < size; off += 8)
			gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_R9, (int16_t)off, 0));
	}
	gs_asm_note(a, "bt: the probe's registers into bt_walk");
	cg_lookup_key0(cg, GS_MAP_BT_WALK);
	if (cg->sample_regs_slot) {
		/* A sample's: the task's user registers, when it has any. */
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, cg->sample_regs_slot));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, no_user);
	}
	for (int r = 0; r <= GS_DWARF_REG_MAX; r++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, cg->sample_regs_slot ? GS_R2 : GS_R6,
					  gs_dwarf_reg_pt_regs_offset[r]));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R0, GS_R1, REG(r)));
	}
	gs_asm_note(a, "bt: the probe's module and pc: frame 0's module even before a snapshot has it");
	gs_asm_ld_imm64(a, GS_R1, cg->spec->bt->cookie);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R0, GS_R1, W(probe_cookie)));
	gs_asm_ld_imm64(a, GS_R1, cg->spec->bt->pc);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R0, GS_R1, W(probe_pc)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, cg->offset_slot));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, -(int32_t)size));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R0, GS_R1, W(inst_off)));
	gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_R0, W(depth), (int32_t)depth));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R0, W(module_slots), (int32_t)slots));
	gs_asm_note(a, "bt: r0 = gs_bt_walk() (1: a user read failed)");
	gs_asm_call_label(a, cg->loop->walk);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, no_fail);
	cg_mark_fail(cg);
	if (cg->sample_regs_slot) {
		gs_asm_ja(a, no_fail);
		gs_asm_bind(a, no_user);
		gs_asm_note(a, "bt: a kernel thread's user stack: empty, and complete");
		COMPACT_ST(a, flags, error_code,
			   CG_PACK(struct gs_backtrace_compact, flags, flags, cg_bt_flags(cg, s)) |
			   CG_PACK(struct gs_backtrace_compact, flags, status, GS_BT_COMPLETE));
	}
	gs_asm_bind(a, no_fail);
	gs_asm_note(a, NULL);
}

/* ---- gs_bt_walk: the global subprogram ------------------------------------ */

/* r6 = bt_walk[0]; to `bad` when absent. */
static void find_state(struct loop_gen *g, struct gs_label bad)
{
	struct gs_asm *a = g->a;

	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, g->key, 0));
	cg_map_lookup(g->cg, GS_MAP_BT_WALK, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, bad);
	gs_asm_emit(a, GS_MOV64_REG(GS_R6, GS_R0));
}

/* Frame 0 is in the probe's module, at a pc known when the program was
 * built: its module comes from bt_module_rows[probe cookie] (looked up
 * once per CPU and kept: the cookie is the program's, a module's rows never
 * move) with bias = ip - probe pc and [start, end) the pages its rows
 * cover, so a library just mapped (dlopen) unwinds before any snapshot
 * lists it. It takes wire table entry 0. Without rows for the cookie the
 * snapshot search decides. */
static void probe_module(struct loop_gen *g)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = g->a;
	struct gs_label none = gs_asm_label(a, "bt_walk_probe_module_unknown");
	struct gs_label known = gs_asm_label(a, "bt_walk_probe_rows_known");

	gs_asm_note(a, "gs_bt_walk: frame 0's module = the probe's (rows by cookie, bias = ip - pc)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, W(probe_cookie)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, none);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, GS_R6, W(probe_known)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R2, 0, known);
	gs_asm_note(a, "gs_bt_walk: ... bt_module_rows[cookie] once: a module's rows never move");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, g->key));
	cg_map_lookup(cg, GS_MAP_BT_MODULE_ROWS, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, none);
	for (int16_t off = 0; off < (int16_t)sizeof(struct gs_bt_module_rows); off += 8) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, off));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, W(probe_rows) + off));
	}
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(probe_known), 1));
	gs_asm_bind(a, known);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, PROBE_ROWS(row_lo)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, MOD(row_lo)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, PROBE_ROWS(page_lo)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, MOD(page_lo)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, PROBE_ROWS(first_page)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, MOD(first_page)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(probe_cookie)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R2, MOD(cookie)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, REG(GS_DWARF_REG_RIP)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R6, W(probe_pc)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R2, GS_R3));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R2, MOD(bias)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, GS_BT_PAGE_SHIFT));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, MOD(start)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R3, GS_R6, MOD(npages)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R3, GS_BT_PAGE_SHIFT));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R3));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, MOD(end)));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_found), 1));
	gs_asm_note(a, "gs_bt_walk: ... wire table entry 0");
	gs_asm_emit(a, GS_MOV64_REG(GS_R9, GS_R7));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, W(inst_off)));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, (int32_t)(cg->max_size - g->inst_size), none);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R9, GS_R1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(cookie)));
	CG_STX_FIELD(a, GS_R9, TABLE_OFF, struct gs_bt_wire_module, cookie, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(bias)));
	CG_STX_FIELD(a, GS_R9, TABLE_OFF, struct gs_bt_wire_module, bias, GS_R1);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_wire), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(module_count), 1));
	gs_asm_bind(a, none);
}

/* mods_first and mods_count = the process's module snapshot: the one the
 * last walk on this CPU found while the process and bt_snapshot_gen are
 * the same (the writer bumps it after every snapshot it writes or
 * removes), else bt_proc_modules[tgid], through pid_aliases only when
 * gstrace and the target may see different pids (a PID namespace: known
 * at build time), kept for the next walk. Left 0 when there is none. */
static void find_snapshot(struct loop_gen *g)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = g->a;
	struct gs_label lookup = gs_asm_label(a, "bt_walk_snapshot_lookup");
	struct gs_label plain = gs_asm_label(a, "bt_walk_pid_not_aliased");
	struct gs_label count_ok = gs_asm_label(a, "bt_walk_module_count_ok");
	struct gs_label done = gs_asm_label(a, "bt_walk_snapshot_known");
	bool aliases = cg->opts.pid_ns_ino != 0;

	gs_asm_note(a, "gs_bt_walk: r8 = bt_snapshot_gen.snapshot, key = tgid");
	gs_asm_ld_map_value(a, GS_R1, (uint32_t)cg->prog->map_index[GS_MAP_BT_GEN],
			    offsetof(struct gs_bt_gen, snapshot));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R8, GS_R1, 0));
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R0, g->key));
	gs_asm_note(a, "gs_bt_walk: the same process and generation as the last walk: its snapshot");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, W(snap_tgid)));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R1, GS_R0, lookup);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, W(snap_gen)));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R1, GS_R8, lookup);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, W(snap_first)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, W(mods_first)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, W(snap_count)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, W(mods_count)));
	gs_asm_ja(a, done);
	gs_asm_bind(a, lookup);
	gs_asm_notef(a, "gs_bt_walk: else bt_proc_modules[%s]",
		     aliases ? "pid_aliases[tgid] ?: tgid" : "tgid");
	if (aliases) {
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R0, g->key + 4));
		cg_map_lookup(cg, GS_MAP_PID_ALIASES, g->key);
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, plain);
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, 0));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
		gs_asm_bind(a, plain);
	}
	cg_map_lookup(cg, GS_MAP_BT_PROC_MODULES, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, 0));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, W(mods_first)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, W(snap_first)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, 4));
	gs_asm_jmp_imm(a, BPF_JLE, GS_R1, GS_BT_PROC_MODULES_MAX, count_ok);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, GS_BT_PROC_MODULES_MAX));
	gs_asm_bind(a, count_ok);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, W(mods_count)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, W(snap_count)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R8, W(snap_gen)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, aliases ? g->key + 4 : g->key));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, W(snap_tgid)));
	gs_asm_bind(a, done);
}

static void emit_walker(struct loop_gen *g, struct gs_label frame_cb)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = g->a;
	struct gs_label ret0 = gs_asm_label(a, "bt_walk_return");
	struct gs_label gen_ok = gs_asm_label(a, "bt_walk_generation_set");
	struct gs_label window_done = gs_asm_label(a, "bt_walk_window_read");

	gs_asm_note(a, "gs_bt_walk: r6 = bt_walk[0], r7 = the accumulation buffer");
	find_state(g, ret0);
	cg_map_lookup(cg, GS_MAP_ACCUM, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ret0);
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));

	gs_asm_note(a, "gs_bt_walk: a new walk: generation += 1 (never 0), counters 0");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, W(generation)));
	gs_asm_emit(a, GS_ALU32_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_jmp32_imm(a, BPF_JNE, GS_R1, 0, gen_ok);
	gs_asm_emit(a, GS_MOV32_IMM(GS_R1, 1));
	gs_asm_bind(a, gen_ok);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, W(generation)));
	gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_R6, W(frame_count), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_found), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_wire), GS_BT_WIRE_NO_MODULE));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(module_count), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(status), GS_BT_INTERNAL_ERROR));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(read_failed), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_R6, W(error_code), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R6, W(mods_count), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R6, W(window_len), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(exact), 0));

	find_snapshot(g);

	gs_asm_note(a, "gs_bt_walk: window = the stack above sp, in one read (smaller near the top)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R6, REG(GS_DWARF_REG_RSP)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R3, W(window_base)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R3, W(first_sp)));
	for (uint32_t size = first_window(g->depth); size >= WINDOW_MIN; size /= 2) {
		struct gs_label next = gs_asm_label(a, "bt_walk_window_smaller");

		cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R6, .dst_off = W(window),
							 .len = size, .load_src = true,
							 .src_base = GS_R6,
							 .src_off = REG(GS_DWARF_REG_RSP),
							 .resident = true });
		gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, next);
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R6, W(window_len), (int32_t)size));
		gs_asm_ja(a, window_done);
		gs_asm_bind(a, next);
	}
	gs_asm_bind(a, window_done);
	probe_module(g);

	gs_asm_note(a, "gs_bt_walk: r9 = the instruction, bounded for the verifier");
	gs_asm_emit(a, GS_MOV64_REG(GS_R9, GS_R7));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, W(inst_off)));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, (int32_t)(cg->max_size - g->inst_size), ret0);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R9, GS_R1));
	gs_asm_note(a, "gs_bt_walk: the callback's ctx holds r6 and r9: no lookups per frame");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R6, g->ctx + CTX_WALK));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R9, g->ctx + CTX_INST));
	gs_asm_notef(a, "gs_bt_walk: bpf_loop(%u, gs_bt_frame, &ctx, 0): one frame each", g->depth);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, (int32_t)g->depth));
	gs_asm_ld_func(a, GS_R2, frame_cb);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, g->ctx));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 0));
	gs_asm_call(a, BPF_FUNC_loop);

	gs_asm_note(a, "gs_bt_walk: frame count, status, error code, modules into the instruction");
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R6, W(frame_count)));
	COMPACT_STX(a, frame_count, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, W(status)));
	COMPACT_STX(a, status, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R6, W(error_code)));
	COMPACT_STX(a, error_code, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, W(module_count)));
	COMPACT_STX(a, module_count, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R0, GS_R6, W(read_failed)));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, ret0);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

void cg_bt_loop_subprogs(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	struct loop_gen g = { .cg = cg, .a = a, .depth = cg->bt_depth,
			      .inst_size = cg_bt_loop_inst_size(cg->bt_depth) };
	struct gs_label frame_cb = gs_asm_label(a, "gs_bt_frame");

	gs_asm_func_begin(a, cg->loop->btf_walk);
	gs_asm_bind(a, cg->loop->walk);
	g.key = gs_asm_slot(a, "walk_key", 8, 8);
	g.ctx = gs_asm_slot(a, "walk_ctx", 16, 8);
	emit_walker(&g, frame_cb);
	gs_asm_func_begin(a, cg->loop->btf_frame);
	gs_asm_bind(a, frame_cb);
	bt_loop_frame_callback(&g);
	gs_asm_note(a, NULL);
}
