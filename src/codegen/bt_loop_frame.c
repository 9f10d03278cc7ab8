/* The bpf_loop walker's callback, gs_bt_frame: one frame per iteration.
 * It finds the current pc's compact row (page index, then a binary search
 * over 16-byte rows), decodes its rules, recovers the caller's registers
 * from the stack window or single reads, validates the step, resolves the
 * caller's module (skipped while it stays in the current one) and stores
 * the frame as ip | module index << 56. */
#include "bt_loop.h"

#define ROW_SEARCH_STEPS 13    /* at most 4096 rows start in one page */
#define MODULE_SEARCH_STEPS 10 /* GS_BT_PROC_MODULES_MAX entries */

/* ---- gs_bt_frame: one frame per bpf_loop iteration ----------------------- */

/* Stack slots of the callback. */
struct frame_slots {
	int16_t lo, hi, found, mid; /* u32 */
	int16_t pc, cfa_reg, cfa_off, ra_kind, ra_reg, ra_off, rbp_kind, rbp_reg, rbp_off;
	int16_t next_ip, next_rsp, next_rbp, err;
};

/* The walk stops with `status`. */
static void stop(struct loop_gen *g, uint8_t status)
{
	gs_asm_emit(g->a, GS_ST_MEM(BPF_B, GS_R6, W(status), status));
	gs_asm_ja(g->a, g->ret);
}

/* r2 = the current frame's register numbered r1: rbp (6), rip (16), else
 * rsp (the reference's rule, spec 6.6). */
static void select_reg(struct loop_gen *g)
{
	struct gs_asm *a = g->a;
	struct gs_label not_rbp = gs_asm_label(a, "walk_reg_not_rbp");
	struct gs_label done = gs_asm_label(a, "walk_reg_selected");

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(rsp)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_DWARF_REG_RBP, not_rbp);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(rbp)));
	gs_asm_ja(a, done);
	gs_asm_bind(a, not_rbp);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_DWARF_REG_RIP, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(ip)));
	gs_asm_bind(a, done);
}

/* r2 = the user u64 at r3: a load from the window when [r3, r3 + 8) is
 * inside it; else, while the window is whole, the window moves to r3 in
 * one read (a deep walk reads its stack a KiB at a time, not a frame at a
 * time); else bpf_probe_read_user of 8 bytes. A failed move empties the
 * window for the rest of the walk. A failed read gives 0, read_failed,
 * and err = err_code unless an error is recorded already. */
static void read_stack(struct loop_gen *g, const struct frame_slots *sl, uint8_t err_code)
{
	struct gs_asm *a = g->a;
	struct gs_label slow = gs_asm_label(a, "walk_read_outside_window");
	struct gs_label single = gs_asm_label(a, "walk_read_single");
	struct gs_label moved = gs_asm_label(a, "walk_window_moved");
	struct gs_label done = gs_asm_label(a, "walk_read_done");
	struct gs_label zero = gs_asm_label(a, "walk_read_failed");

	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R3));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(window_base)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, GS_BT_WINDOW - 8, slow);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 8));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R4, GS_R6, W(window_len)));
	gs_asm_jmp_reg(a, BPF_JGT, GS_R2, GS_R4, slow);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R6));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R1, W(window)));
	gs_asm_ja(a, done);
	gs_asm_bind(a, slow);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R4, GS_R6, W(window_len)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R4, GS_BT_WINDOW, single);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R3, W(cfa)));
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R6));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, W(window)));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, GS_BT_WINDOW));
	gs_asm_call(a, BPF_FUNC_probe_read_user);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R6, W(cfa)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, moved);
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R6, W(window_len), 0));
	gs_asm_ja(a, single);
	gs_asm_bind(a, moved);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R3, W(window_base)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(window)));
	gs_asm_ja(a, done);
	gs_asm_bind(a, single);
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R6));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, W(read_buf)));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 8));
	gs_asm_call(a, BPF_FUNC_probe_read_user);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(read_buf)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(read_failed), 1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->err));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, zero);
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sl->err, err_code));
	gs_asm_bind(a, zero);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 0));
	gs_asm_bind(a, done);
}

/* The row of the current frame's pc in its module: page index, then the
 * last row starting at or below pc's page offset; stops the walk when there
 * is none. r7 = the row. */
static void find_row(struct loop_gen *g, const struct frame_slots *sl)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = g->a;
	struct gs_label no_row = gs_asm_label(a, "walk_no_row");
	struct gs_label exact = gs_asm_label(a, "walk_lookup_pc_exact");
	struct gs_label searched = gs_asm_label(a, "walk_row_searched");
	struct gs_label found = gs_asm_label(a, "walk_row_found");
	struct gs_label known = gs_asm_label(a, "walk_module_known");

	gs_asm_note(a, "bt frame: a caller's module must be known to find its row");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, W(mod_found)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, known);
	stop(g, GS_BT_OFFSETS_UNAVAILABLE);
	gs_asm_bind(a, known);
	gs_asm_note(a, "bt frame: pc = ip (frame 0) or ip - 1 (a return address), minus the bias");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, W(ip)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R6, W(frame_count)));
	gs_asm_jmp_imm(a, BPF_JLE, GS_R2, 1, exact);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, -1));
	gs_asm_bind(a, exact);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, MOD(bias)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sl->pc));
	gs_asm_note(a, "bt frame: page = pc >> 12 - first_page, its rows from bt_row_pages");
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, GS_BT_PAGE_SHIFT));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, MOD(first_page)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R6, MOD(npages)));
	gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, no_row);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R6, MOD(page_lo)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
	bt_lookup(cg, GS_MAP_BT_PAGES, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, no_row);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, 0));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->lo));
	gs_asm_emit(a, GS_ALU32_IMM(BPF_ADD, GS_R1, -1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->found));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, g->key));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
	bt_lookup(cg, GS_MAP_BT_PAGES, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, no_row);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, 0));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->hi));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R8, GS_FP, sl->pc));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R8, GS_BT_ROW_PC_MASK));

	gs_asm_note(a, "bt frame: binary search: the last row of the page starting <= pc");
	for (int i = 0; i < ROW_SEARCH_STEPS; i++) {
		struct gs_label above = gs_asm_label(a, "walk_row_after_pc");
		struct gs_label next = gs_asm_label(a, "walk_row_next");

		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, sl->lo));
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_FP, sl->hi));
		gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, searched);
		gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 1));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->mid));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
		bt_lookup(cg, GS_MAP_BT_CROWS, g->key);
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, searched);
		gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R0, 0));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, GS_BT_ROW_PC_MASK));
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_FP, sl->mid));
		gs_asm_jmp_reg(a, BPF_JGT, GS_R1, GS_R8, above);
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R2, sl->found));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 1));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R2, sl->lo));
		gs_asm_ja(a, next);
		gs_asm_bind(a, above);
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R2, sl->hi));
		gs_asm_bind(a, next);
	}
	gs_asm_bind(a, searched);
	gs_asm_note(a, "bt frame: the row must be the module's");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, sl->found));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R6, MOD(row_lo)));
	gs_asm_jmp_reg(a, BPF_JLT, GS_R1, GS_R2, no_row);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R6, MOD(row_hi)));
	gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, no_row);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
	bt_lookup(cg, GS_MAP_BT_CROWS, g->key);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, found);
	gs_asm_bind(a, no_row);
	stop(g, GS_BT_NO_UNWIND_ROWS_FOR_PC);
	gs_asm_bind(a, found);
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));
}

/* r1 = the signed byte at r7 + off, times 8. */
static void load_off8(struct gs_asm *a, int16_t off)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, off));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 56));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R1, 53));
}

/* kind and register nibbles of the byte at r7 + off into two slots. */
static void load_nibbles(struct gs_asm *a, int16_t off, int16_t kind, int16_t reg)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, off));
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R2, 4));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, kind));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, 15));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, reg));
}

/* The row's rules into the slots: from the 16 bytes, or from the overflow
 * entry; rules this walker does not evaluate stop it (UnsupportedCfi). */
static void decode_row(struct loop_gen *g, const struct frame_slots *sl)
{
	static const struct { int16_t off; uint8_t size; } big[] = {
		{ offsetof(struct gs_unwind_row, cfa_register), BPF_H },
		{ offsetof(struct gs_unwind_row, cfa_offset), BPF_DW },
		{ offsetof(struct gs_unwind_row, ra_kind), BPF_B },
		{ offsetof(struct gs_unwind_row, ra_register), BPF_H },
		{ offsetof(struct gs_unwind_row, ra_offset), BPF_DW },
		{ offsetof(struct gs_unwind_row, rbp_kind), BPF_B },
		{ offsetof(struct gs_unwind_row, rbp_register), BPF_H },
		{ offsetof(struct gs_unwind_row, rbp_offset), BPF_DW },
	};
	const int16_t to[] = { sl->cfa_reg, sl->cfa_off, sl->ra_kind, sl->ra_reg, sl->ra_off,
			       sl->rbp_kind, sl->rbp_reg, sl->rbp_off };
	struct gs_asm *a = g->a;
	struct gs_label compact = gs_asm_label(a, "walk_row_compact");
	struct gs_label overflow = gs_asm_label(a, "walk_row_overflow");
	struct gs_label decoded = gs_asm_label(a, "walk_row_decoded");
	struct gs_label unsupported = gs_asm_label(a, "walk_row_unsupported");
	struct gs_label no_row = gs_asm_label(a, "walk_row_none");
	struct gs_label ra_ok = gs_asm_label(a, "walk_ra_rule_ok");
	struct gs_label rbp_ok = gs_asm_label(a, "walk_rbp_rule_ok");

	gs_asm_note(a, "bt frame: decode the row (CFA kind in the high nibble)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, offsetof(struct gs_bt_row, cfa)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 4));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_CFA_REG_OFF, compact);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_CFA_OVERFLOW, overflow);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_CFA_NONE, no_row);
	gs_asm_bind(a, unsupported);
	stop(g, GS_BT_UNSUPPORTED_CFI);
	gs_asm_bind(a, no_row);
	stop(g, GS_BT_NO_UNWIND_ROWS_FOR_PC);

	gs_asm_bind(a, compact);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, offsetof(struct gs_bt_row, cfa)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, 15));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sl->cfa_reg));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R7, offsetof(struct gs_bt_row, cfa_off)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 48));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R1, 48));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sl->cfa_off));
	load_nibbles(a, offsetof(struct gs_bt_row, ra), sl->ra_kind, sl->ra_reg);
	load_off8(a, offsetof(struct gs_bt_row, ra_off));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sl->ra_off));
	load_nibbles(a, offsetof(struct gs_bt_row, rbp), sl->rbp_kind, sl->rbp_reg);
	load_off8(a, offsetof(struct gs_bt_row, rbp_off));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sl->rbp_off));
	gs_asm_ja(a, decoded);

	gs_asm_bind(a, overflow);
	gs_asm_note(a, "bt frame: large rules: the full row in bt_row_overflow");
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R7, offsetof(struct gs_bt_row, cfa_off)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
	bt_lookup(g->cg, GS_MAP_BT_OVERFLOW, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, no_row);
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		gs_asm_emit(a, GS_LDX_MEM(big[i].size, GS_R1, GS_R0, big[i].off));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, to[i]));
	}

	gs_asm_bind(a, decoded);
	gs_asm_note(a, "bt frame: RA rules 1-4 and rbp rules 0-4 are evaluated here");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->ra_kind));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_UNDEFINED, unsupported);
	gs_asm_jmp_imm(a, BPF_JLE, GS_R1, GS_RECOVERY_SAME_VALUE, ra_ok);
	gs_asm_ja(a, unsupported);
	gs_asm_bind(a, ra_ok);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->rbp_kind));
	gs_asm_jmp_imm(a, BPF_JLE, GS_R1, GS_RECOVERY_SAME_VALUE, rbp_ok);
	gs_asm_ja(a, unsupported);
	gs_asm_bind(a, rbp_ok);
}

/* r2 = the value a rule gives (kind in r1, not AT_CFA_OFFSET): another
 * register, the same one, or CFA + offset. */
static void rule_value(struct loop_gen *g, const struct frame_slots *sl, int16_t reg,
		       int16_t off, struct gs_label done)
{
	struct gs_asm *a = g->a;
	struct gs_label from_reg = gs_asm_label(a, "walk_rule_register");

	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_RECOVERY_VAL_CFA_OFFSET, from_reg);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, sl->next_rsp));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, off));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_ja(a, done);
	gs_asm_bind(a, from_reg);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, reg));
	select_reg(g);
	gs_asm_ja(a, done);
}

/* next_rsp (the CFA), next_ip, next_rbp from the decoded rules (spec 6.6). */
static void recover(struct loop_gen *g, const struct frame_slots *sl)
{
	struct gs_asm *a = g->a;
	struct gs_label ra_rule = gs_asm_label(a, "walk_ra_by_rule");
	struct gs_label ra_set = gs_asm_label(a, "walk_ra_recovered");
	struct gs_label not_fp = gs_asm_label(a, "walk_not_frame_pointer_frame");
	struct gs_label rbp_read = gs_asm_label(a, "walk_rbp_from_stack");
	struct gs_label rbp_rule = gs_asm_label(a, "walk_rbp_by_rule");
	struct gs_label rbp_keep = gs_asm_label(a, "walk_rbp_unchanged");
	struct gs_label rbp_set = gs_asm_label(a, "walk_rbp_recovered");

	gs_asm_note(a, "bt frame: cfa = reg(cfa_register) + cfa_offset");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->cfa_reg));
	select_reg(g);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->cfa_off));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, sl->next_rsp));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sl->err, 0));

	gs_asm_note(a, "bt frame: return address");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->ra_kind));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_RECOVERY_AT_CFA_OFFSET, ra_rule);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, sl->ra_off));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R2));
	read_stack(g, sl, GS_BT_ERROR_RETURN_ADDRESS_READ);
	gs_asm_ja(a, ra_set);
	gs_asm_bind(a, ra_rule);
	rule_value(g, sl, sl->ra_reg, sl->ra_off, ra_set);
	gs_asm_bind(a, ra_set);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, sl->next_ip));

	gs_asm_note(a, "bt frame: rbp (a push rbp; mov rbp, rsp frame saves it at cfa - 16)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->cfa_reg));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_DWARF_REG_RBP, not_fp);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->cfa_off));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 16, not_fp);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, -16));
	gs_asm_ja(a, rbp_read);
	gs_asm_bind(a, not_fp);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->rbp_kind));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_RECOVERY_AT_CFA_OFFSET, rbp_rule);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, sl->rbp_off));
	gs_asm_bind(a, rbp_read);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->next_rsp));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_stack(g, sl, GS_BT_ERROR_FRAME_POINTER_READ);
	gs_asm_ja(a, rbp_set);
	gs_asm_bind(a, rbp_rule);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_UNDEFINED, rbp_keep);
	rule_value(g, sl, sl->rbp_reg, sl->rbp_off, rbp_set);
	gs_asm_bind(a, rbp_keep);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(rbp)));
	gs_asm_bind(a, rbp_set);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, sl->next_rbp));
}

static void loop_stop_status(void *ctx, uint8_t reg)
{
	struct loop_gen *g = ctx;

	gs_asm_emit(g->a, GS_STX_MEM(BPF_B, GS_R6, reg, W(status)));
}

static void loop_complete(void *ctx)
{
	stop(ctx, GS_BT_COMPLETE);
}

/* Falls through when the caller is valid (spec 6.7, bt_check_caller());
 * else stops with the status and error code in bt_walk. Then the caller
 * becomes the current frame. */
static void validate(struct loop_gen *g, const struct frame_slots *sl)
{
	struct gs_asm *a = g->a;
	const struct bt_caller_check c = {
		.note = "bt frame: validate (read error, ip >= 0x1000, user ip, cfa != 0, progress)",
		.err_size = BPF_DW, .err = sl->err, .next_ip = sl->next_ip,
		.next_rsp = sl->next_rsp, .cur_base = GS_R6, .cur_ip = W(ip), .cur_rsp = W(rsp),
		.code_base = GS_R6, .code_off = W(error_code), .stop = g->ret,
		.stop_status = loop_stop_status, .complete = loop_complete, .ctx = g,
	};

	bt_check_caller(a, &c);
	gs_asm_note(a, "bt frame: the caller is the current frame now");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->next_ip));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, W(ip)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->next_rsp));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, W(rsp)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->next_rbp));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, W(rbp)));
}

/* The wire index of the module just found at snapshot index `mid`: the one
 * given earlier in this walk, else a new table entry while slots last. */
static void wire_module(struct loop_gen *g, const struct frame_slots *sl, struct gs_label done)
{
	struct gs_asm *a = g->a;
	struct gs_label fresh = gs_asm_label(a, "walk_module_new_in_walk");

	gs_asm_note(a, "bt frame: the module's wire table index (seen this walk? else append)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, sl->mid));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R1, GS_BT_PROC_MODULES_MAX, done);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R2, 2));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R6));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R3, GS_R2, W(seen_gen)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R4, GS_R6, W(generation)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R6));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R3, GS_R4, fresh);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R3, GS_R1, W(seen_wire)));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R3, W(mod_wire)));
	gs_asm_ja(a, done);
	gs_asm_bind(a, fresh);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R3, GS_R6, W(module_count)));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R3, (int32_t)cg_bt_loop_slots(g->depth), done);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R2, GS_R4, W(seen_gen)));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R1, GS_R3, W(seen_wire)));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R3, W(mod_wire)));
	gs_asm_emit(a, GS_MOV64_REG(GS_R4, GS_R3));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R4, 4));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R4, GS_R9));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(cookie)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R4, GS_R1, TABLE_OFF));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(bias)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R4, GS_R1, TABLE_OFF + 8));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R3, W(module_count)));
}

/* The current frame's module: the same as before while ip stays in it,
 * else a binary search of the process's snapshot. */
static void resolve_module(struct loop_gen *g, const struct frame_slots *sl, struct gs_label done)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = g->a;
	struct gs_label search = gs_asm_label(a, "walk_module_search");
	struct gs_label inside = gs_asm_label(a, "walk_module_found");

	gs_asm_note(a, "bt frame: same module as the last frame? then no search");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R8, GS_R6, W(ip)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, W(mod_found)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, search);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(start)));
	gs_asm_jmp_reg(a, BPF_JLT, GS_R8, GS_R1, search);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(end)));
	gs_asm_jmp_reg(a, BPF_JLT, GS_R8, GS_R1, done);
	gs_asm_bind(a, search);
	gs_asm_note(a, "bt frame: module = binary search of bt_modules[first, first + count)");
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_found), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_wire), GS_BT_WIRE_NO_MODULE));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, sl->lo, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, W(mods_count)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->hi));
	for (int i = 0; i < MODULE_SEARCH_STEPS; i++) {
		struct gs_label above = gs_asm_label(a, "walk_module_not_below");
		struct gs_label next = gs_asm_label(a, "walk_module_next");

		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, sl->lo));
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_FP, sl->hi));
		gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, done);
		gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 1));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->mid));
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R6, W(mods_first)));
		gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
		bt_lookup(cg, GS_MAP_BT_MODULES, g->key);
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_FP, sl->mid));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_bt_module, start)));
		gs_asm_jmp_reg(a, BPF_JGE, GS_R8, GS_R1, above);
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R2, sl->hi));
		gs_asm_ja(a, next);
		gs_asm_bind(a, above);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_bt_module, end)));
		gs_asm_jmp_reg(a, BPF_JLT, GS_R8, GS_R1, inside);
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 1));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R2, sl->lo));
		gs_asm_bind(a, next);
	}
	gs_asm_ja(a, done);
	gs_asm_bind(a, inside);
	gs_asm_note(a, "bt frame: found: the entry becomes the current module");
	for (int16_t off = 0; off < (int16_t)sizeof(struct gs_bt_module); off += 8) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, off));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, W(mod) + off));
	}
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_found), 1));
	wire_module(g, sl, done);
}

void bt_loop_frame_callback(struct loop_gen *g)
{
	struct gs_asm *a = g->a;
	struct frame_slots sl;
	struct gs_label module = gs_asm_label(a, "walk_frame_module");
	struct gs_label store = gs_asm_label(a, "walk_store_frame");
	struct gs_label room = gs_asm_label(a, "walk_frames_left");
	struct gs_label more = gs_asm_label(a, "walk_go_on");

	g->key = gs_asm_slot(a, "walk_key", 8, 8);
	sl.lo = gs_asm_slot(a, "walk_lo", 4, 4);
	sl.hi = gs_asm_slot(a, "walk_hi", 4, 4);
	sl.found = gs_asm_slot(a, "walk_found", 4, 4);
	sl.mid = gs_asm_slot(a, "walk_mid", 4, 4);
	sl.pc = gs_asm_slot(a, "walk_pc", 8, 8);
	sl.cfa_reg = gs_asm_slot(a, "walk_cfa_reg", 8, 8);
	sl.cfa_off = gs_asm_slot(a, "walk_cfa_off", 8, 8);
	sl.ra_kind = gs_asm_slot(a, "walk_ra_kind", 8, 8);
	sl.ra_reg = gs_asm_slot(a, "walk_ra_reg", 8, 8);
	sl.ra_off = gs_asm_slot(a, "walk_ra_off", 8, 8);
	sl.rbp_kind = gs_asm_slot(a, "walk_rbp_kind", 8, 8);
	sl.rbp_reg = gs_asm_slot(a, "walk_rbp_reg", 8, 8);
	sl.rbp_off = gs_asm_slot(a, "walk_rbp_off", 8, 8);
	sl.next_ip = gs_asm_slot(a, "walk_next_ip", 8, 8);
	sl.next_rsp = gs_asm_slot(a, "walk_next_rsp", 8, 8);
	sl.next_rbp = gs_asm_slot(a, "walk_next_rbp", 8, 8);
	sl.err = gs_asm_slot(a, "walk_err", 8, 8);
	g->ret = gs_asm_label(a, "walk_stop");

	gs_asm_note(a, "gs_bt_frame: r6 = bt_walk[0], r9 = the instruction, from the ctx (r2)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R6, GS_R2, CTX_WALK));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R9, GS_R2, CTX_INST));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R6, W(frame_count)));
	gs_asm_jmp_imm(a, BPF_JLT, GS_R1, (int32_t)g->depth, room);
	stop(g, GS_BT_TRUNCATED);
	gs_asm_bind(a, room);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, module);
	find_row(g, &sl);
	decode_row(g, &sl);
	recover(g, &sl);
	validate(g, &sl);
	gs_asm_bind(a, module);
	resolve_module(g, &sl, store);
	gs_asm_bind(a, store);
	gs_asm_note(a, "bt frame: frame[frame_count] = ip | module index << 56");
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R6, W(frame_count)));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R1, (int32_t)g->depth, g->ret);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R2, 3));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R9));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R3, GS_R6, W(mod_wire)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R3, GS_BT_WIRE_IP_BITS));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, GS_R6, W(ip)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_OR, GS_R3, GS_R4));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R2, GS_R3, bt_loop_frames_off(g->depth)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_H, GS_R6, GS_R1, W(frame_count)));
	gs_asm_jmp_imm(a, BPF_JLT, GS_R1, (int32_t)g->depth, more);
	stop(g, GS_BT_TRUNCATED);
	gs_asm_bind(a, more);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, g->ret);
	gs_asm_note(a, "gs_bt_frame: stop the loop");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_emit(a, GS_EXIT());
}
