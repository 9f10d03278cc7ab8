/* The loop walker's row of a frame (gs_bt_frame, bt_loop_frame.c): the
 * current pc's compact row from the per-CPU row cache, else the page
 * index and a binary search over the 16-byte rows of that page (kept in
 * the cache), then decoded into bt_walk.rules: the CFA rule, the return
 * address and rbp rules, the 2-bit rules of rbx and r12-r15, or all of
 * them from bt_row_overflow for a row too large for 16 bytes. */
#include "bt_loop.h"

#define ROW_SEARCH_STEPS 13    /* at most 4096 rows start in one page */

/* r2 = bt_walk's row cache entry for the pc in slot sl->pc and the current
 * module (r3 = its row_hi): a multiplicative hash of both. */
static void row_cache_entry(struct loop_gen *g, const struct loop_frame_slots *sl)
{
	struct gs_asm *a = g->a;

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, sl->pc));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R3, GS_R6, MOD(row_hi)));
	gs_asm_emit(a, GS_MOV64_REG(GS_R4, GS_R3));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R4, 32));
	gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, GS_R2, GS_R4));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R2, (int32_t)0x9E3779B1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R2, 64 - __builtin_ctz(GS_BT_ROW_CACHE)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R2, __builtin_ctz(sizeof(struct gs_bt_row_cache))));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R6));
}

/* The row of the current frame's pc in its module: from the row cache when
 * an earlier walk found it, else page index, then the last row starting
 * at or below pc's page offset, kept in the cache; stops the walk when
 * there is none. r7 = the row (in the cache either way: one path on). */
void bt_loop_find_row(struct loop_gen *g, const struct loop_frame_slots *sl)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = g->a;
	struct gs_label no_row = gs_asm_label(a, "walk_no_row");
	struct gs_label exact = gs_asm_label(a, "walk_lookup_pc_exact");
	struct gs_label searched = gs_asm_label(a, "walk_row_searched");
	struct gs_label found = gs_asm_label(a, "walk_row_found");
	struct gs_label known = gs_asm_label(a, "walk_module_known");
	struct gs_label uncached = gs_asm_label(a, "walk_row_not_cached");
	struct gs_label hit = gs_asm_label(a, "walk_row_cached");

	gs_asm_note(a, "bt frame: a caller's module must be known to find its row");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, W(mod_found)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, known);
	bt_loop_fp_step(g, GS_BT_OFFSETS_UNAVAILABLE);
	gs_asm_bind(a, known);
	gs_asm_note(a, "bt frame: pc = ip (frame 0, after a signal frame) or ip - 1, minus the bias");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, REG(GS_DWARF_REG_RIP)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R6, W(frame_count)));
	gs_asm_jmp_imm(a, BPF_JLE, GS_R2, 1, exact);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, GS_R6, W(exact)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R2, 0, exact);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, -1));
	gs_asm_bind(a, exact);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, MOD(bias)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sl->pc));
	gs_asm_note(a, "bt frame: page = pc >> 12 - first_page, one of the module's");
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, GS_BT_PAGE_SHIFT));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, MOD(first_page)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R6, MOD(npages)));
	gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, no_row);
	gs_asm_emit(a, GS_MOV64_REG(GS_R8, GS_R1));
	gs_asm_note(a, "bt frame: the row cache: an entry for this pc and module is the row");
	row_cache_entry(g, sl);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, GS_R2, W(rows)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R5, GS_FP, sl->pc));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R4, GS_R5, uncached);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R4, GS_R2, W(rows) + offsetof(struct gs_bt_row_cache, row_hi)));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R4, GS_R3, uncached);
	gs_asm_ja(a, hit);
	gs_asm_bind(a, uncached);
	gs_asm_note(a, "bt frame: else the page's rows from bt_row_pages");
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R8));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R6, MOD(page_lo)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
	cg_map_lookup(cg, GS_MAP_BT_PAGES, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, no_row);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, 0));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->lo));
	gs_asm_emit(a, GS_ALU32_IMM(BPF_ADD, GS_R1, -1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->found));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, g->key));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
	cg_map_lookup(cg, GS_MAP_BT_PAGES, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, no_row);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, 0));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->hi));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R8, GS_FP, sl->pc));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R8, GS_BT_ROW_PC_MASK));

	gs_asm_note(a, "bt frame: binary search: the last row of the page starting <= pc");
	for (int i = 0; i < ROW_SEARCH_STEPS; i++) {
		struct gs_label above = gs_asm_label(a, "walk_row_after_pc");
		struct gs_label next = gs_asm_label(a, "walk_row_next");

		bt_loop_search_mid(a, sl, searched);
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
		cg_map_lookup(cg, GS_MAP_BT_CROWS, g->key);
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
	cg_map_lookup(cg, GS_MAP_BT_CROWS, g->key);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, found);
	gs_asm_bind(a, no_row);
	bt_loop_fp_step(g, GS_BT_NO_UNWIND_ROWS_FOR_PC);
	gs_asm_bind(a, found);
	gs_asm_note(a, "bt frame: the row into the cache, and decoded from there (one path to verify)");
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));
	row_cache_entry(g, sl);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->pc));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R2, GS_R1, W(rows)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R2, GS_R3, W(rows) + offsetof(struct gs_bt_row_cache, row_hi)));
	for (int16_t off = 0; off < (int16_t)sizeof(struct gs_bt_row); off += 8) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R7, off));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R2, GS_R1,
					  W(rows) + offsetof(struct gs_bt_row_cache, row) + off));
	}
	gs_asm_bind(a, hit);
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R2));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R7, W(rows) + offsetof(struct gs_bt_row_cache, row)));
}

/* r1 = the signed byte at r7 + off, times 8. */
static void load_off8(struct gs_asm *a, int16_t off)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, off));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 56));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R1, 53));
}

/* The kind and register nibbles of the byte at r7 + off, and the offset
 * byte at r7 + off8 times 8, into the rule at r6 + rule. */
static void decode_rule(struct gs_asm *a, int16_t off, int16_t off8, int16_t rule)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, off));
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R2, 4));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R2, rule + R_KIND));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, 15));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R1, rule + R_REG));
	load_off8(a, off8);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, rule + R_OFF));
}

/* The row's rules into bt_walk.rules: from the 16 bytes, or the overflow
 * entry as it is; the row's signal flag into bt_walk.exact for the next
 * frame. Stops the walk on a row of no CFI or a CFA it does not evaluate. */
void bt_loop_decode_row(struct loop_gen *g)
{
	struct gs_asm *a = g->a;
	struct gs_label compact = gs_asm_label(a, "walk_row_compact");
	struct gs_label overflow = gs_asm_label(a, "walk_row_overflow");
	struct gs_label decoded = gs_asm_label(a, "walk_row_decoded");
	struct gs_label unsupported = gs_asm_label(a, "walk_row_unsupported");
	struct gs_label no_row = gs_asm_label(a, "walk_row_none");
	struct gs_label cfa_ok = gs_asm_label(a, "walk_cfa_kind_ok");

	gs_asm_note(a, "bt frame: a signal frame's caller is looked up at its ip");
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R7, offsetof(struct gs_bt_row, pc)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 12));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R1, W(exact)));
	gs_asm_note(a, "bt frame: decode the row (CFA kind in the high nibble)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, offsetof(struct gs_bt_row, cfa)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 4));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_CFA_OVERFLOW, overflow);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_CFA_NONE, no_row);
	gs_asm_ja(a, compact);
	gs_asm_bind(a, unsupported);
	bt_loop_stop(g, GS_BT_UNSUPPORTED_CFI);
	gs_asm_bind(a, no_row);
	bt_loop_fp_step(g, GS_BT_NO_UNWIND_ROWS_FOR_PC);

	gs_asm_bind(a, compact);
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R1, RULE(cfa) + R_KIND));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, offsetof(struct gs_bt_row, cfa)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, 15));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R1, RULE(cfa) + R_REG));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R7, offsetof(struct gs_bt_row, cfa_off)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 48));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R1, 48));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, RULE(cfa) + R_OFF));
	decode_rule(a, offsetof(struct gs_bt_row, ra), offsetof(struct gs_bt_row, ra_off), RULE(ra));
	decode_rule(a, offsetof(struct gs_bt_row, rbp), offsetof(struct gs_bt_row, rbp_off),
		    RULE(rbp));
	gs_asm_note(a, "bt frame: rbx, r12-r15: 2-bit kind (same / at CFA) and offset / 8");
	for (int16_t k = 0; k < GS_BT_NSAVED; k++) {
		int16_t rule = (int16_t)(RULE(saved) + k * (int16_t)sizeof(struct gs_bt_rule));
		int16_t byte = (int16_t)(offsetof(struct gs_bt_row, saved) + k);
		struct gs_label at_cfa = gs_asm_label(a, "walk_saved_at_cfa");
		struct gs_label next = gs_asm_label(a, "walk_saved_decoded");

		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R7, byte));
		gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R2, 3));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, GS_BT_SAVED_AT_CFA, at_cfa);
		gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, rule + R_KIND, GS_RECOVERY_SAME_VALUE));
		gs_asm_ja(a, next);
		gs_asm_bind(a, at_cfa);
		gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, rule + R_KIND, GS_RECOVERY_AT_CFA_OFFSET));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 56));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R1, 58));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 3));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R6, GS_R1, rule + R_OFF));
		gs_asm_bind(a, next);
	}
	gs_asm_ja(a, decoded);

	gs_asm_bind(a, overflow);
	gs_asm_note(a, "bt frame: large rules: all of them in bt_row_overflow");
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R7, offsetof(struct gs_bt_row, cfa_off)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
	cg_map_lookup(g->cg, GS_MAP_BT_OVERFLOW, g->key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, no_row);
	for (int16_t off = 0; off < (int16_t)sizeof(struct gs_bt_rules); off += 8) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, off));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, W(rules) + off));
	}

	gs_asm_bind(a, decoded);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, RULE(cfa) + R_KIND));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_CFA_REG_OFF, cfa_ok);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_CFA_REG_DEREF, cfa_ok);
	gs_asm_ja(a, unsupported);
	gs_asm_bind(a, cfa_ok);
}
