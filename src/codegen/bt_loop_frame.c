/* The bpf_loop walker's callback, gs_bt_frame: one frame per iteration.
 * It finds the current pc's compact row (the per-CPU row cache, else page
 * index, then a binary search over 16-byte rows), decodes its rules into
 * bt_walk.rules, evaluates them on the walk's registers (CFA = reg + off or
 * *(reg + off); each of rip, rbp, rbx, r12-r15 saved at/val CFA + off, in a
 * register, or at/val reg + off), validates the step, resolves the
 * caller's module (skipped while it stays in the current one) and stores
 * the frame as ip | module index << 56. */
#include "bt_loop.h"

#define ROW_SEARCH_STEPS 13    /* at most 4096 rows start in one page */
#define MODULE_SEARCH_STEPS 10 /* GS_BT_PROC_MODULES_MAX entries */

#define RULE(field) ((int16_t)(W(rules) + offsetof(struct gs_bt_rules, field)))
#define R_OFF 0  /* offsetof(struct gs_bt_rule, off) */
#define R_KIND ((int16_t)offsetof(struct gs_bt_rule, kind))
#define R_REG ((int16_t)offsetof(struct gs_bt_rule, reg))

/* ---- gs_bt_frame: one frame per bpf_loop iteration ----------------------- */

/* Stack slots of the callback. */
struct frame_slots {
	int16_t lo, hi, found, mid; /* u32 */
	int16_t pc, err;
};

/* The walk stops with `status`. */
static void stop(struct loop_gen *g, uint8_t status)
{
	gs_asm_emit(g->a, GS_ST_MEM(BPF_B, GS_R6, W(status), status));
	gs_asm_ja(g->a, g->ret);
}

/* r2 = the current frame's register numbered r1 (DWARF 0..16); a number
 * past 16 stops the walk (UnsupportedCfi). Clobbers r1. */
static void reg_value(struct loop_gen *g, struct gs_label unsupported)
{
	struct gs_asm *a = g->a;

	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, GS_DWARF_REG_MAX, unsupported);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 3));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R6));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R1, W(regs)));
}

/* r1 = the s32 at r6 + off, sign-extended. */
static void load_s32(struct gs_asm *a, int16_t off)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, off));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 32));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R1, 32));
}

/* r2 = the user u64 at r3: a load from the window when [r3, r3 + 8) is
 * inside it; else, while the window is whole, the window moves to r3 in
 * one read (a deep walk reads its stack a KiB at a time, not a frame at a
 * time); else bpf_probe_read_user of 8 bytes. A failed move empties the
 * window for the rest of the walk. A failed read gives 0; when `fatal`
 * also read_failed, and err = err_code unless an error is recorded already. */
static void read_stack(struct loop_gen *g, const struct frame_slots *sl, uint8_t err_code,
		       bool fatal)
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
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R3, W(move)));
	cg_read_user(g->cg, &(struct cg_user_read){ .dst_base = GS_R6, .dst_off = W(window),
						    .len = GS_BT_WINDOW, .resident = true });
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R6, W(move)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, moved);
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R6, W(window_len), 0));
	gs_asm_ja(a, single);
	gs_asm_bind(a, moved);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R3, W(window_base)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(window)));
	gs_asm_ja(a, done);
	gs_asm_bind(a, single);
	cg_read_user(g->cg, &(struct cg_user_read){ .dst_base = GS_R6, .dst_off = W(read_buf),
						    .len = 8, .resident = true });
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(read_buf)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
	if (fatal) {
		gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(read_failed), 1));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sl->err));
		gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, zero);
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sl->err, err_code));
	}
	gs_asm_bind(a, zero);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 0));
	gs_asm_bind(a, done);
}

/* r2 = bt_walk's row cache entry for the pc in slot sl->pc and the current
 * module (r3 = its row_hi): a multiplicative hash of both. */
static void row_cache_entry(struct loop_gen *g, const struct frame_slots *sl)
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
static void find_row(struct loop_gen *g, const struct frame_slots *sl)
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
	stop(g, GS_BT_OFFSETS_UNAVAILABLE);
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

		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, sl->lo));
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_FP, sl->hi));
		gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, searched);
		gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 1));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->mid));
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
	stop(g, GS_BT_NO_UNWIND_ROWS_FOR_PC);
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
static void decode_row(struct loop_gen *g)
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
	stop(g, GS_BT_UNSUPPORTED_CFI);
	gs_asm_bind(a, no_row);
	stop(g, GS_BT_NO_UNWIND_ROWS_FOR_PC);

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

/* next[dst] = what the rule at r6 + rule gives: kept (same value,
 * undefined), *(CFA + off), CFA + off, another register, *(reg + off) or
 * reg + off. A failed read is recorded as err_code when `fatal`. */
static void eval_rule(struct loop_gen *g, const struct frame_slots *sl, int16_t rule, int dst,
		      uint8_t err_code, bool fatal, struct gs_label unsupported)
{
	struct gs_asm *a = g->a;
	struct gs_label from_cfa = gs_asm_label(a, "walk_rule_from_cfa");
	struct gs_label from_breg = gs_asm_label(a, "walk_rule_from_breg");
	struct gs_label plus_off = gs_asm_label(a, "walk_rule_plus_offset");
	struct gs_label from_reg = gs_asm_label(a, "walk_rule_register");
	struct gs_label keep = gs_asm_label(a, "walk_rule_keep");
	struct gs_label set = gs_asm_label(a, "walk_rule_done");

	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, rule + R_KIND));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_AT_CFA_OFFSET, from_cfa);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_SAME_VALUE, keep);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_UNDEFINED, keep);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_VAL_CFA_OFFSET, from_cfa);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_REGISTER, from_reg);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_EXPRESSION, from_breg);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_VAL_EXPRESSION, from_breg);
	gs_asm_ja(a, unsupported);
	gs_asm_bind(a, keep);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, REG(dst)));
	gs_asm_ja(a, set);
	gs_asm_note(a, "bt frame: base + offset: the CFA (kinds 1, 2) or a register (5, 6)");
	gs_asm_bind(a, from_cfa);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(cfa)));
	gs_asm_ja(a, plus_off);
	gs_asm_bind(a, from_breg);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, rule + R_REG));
	reg_value(g, unsupported);
	gs_asm_bind(a, plus_off);
	load_s32(a, rule + R_OFF);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_note(a, "bt frame: a value (kinds 2, 6), else read at that address (1, 5)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, rule + R_KIND));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_VAL_CFA_OFFSET, set);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_VAL_EXPRESSION, set);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R2));
	read_stack(g, sl, err_code, fatal);
	gs_asm_ja(a, set);
	gs_asm_bind(a, from_reg);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, rule + R_REG));
	reg_value(g, unsupported);
	gs_asm_bind(a, set);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R2, NEXT(dst)));
}

/* The caller's registers into bt_walk.next from the decoded rules: the CFA
 * (its rsp), rip (an undefined return address: the end of the stack), rbp
 * (a CFA of rbp + 16 always takes it from CFA - 16, spec 6.6), rbx and
 * r12-r15. */
static void recover(struct loop_gen *g, const struct frame_slots *sl)
{
	struct gs_asm *a = g->a;
	struct gs_label unsupported = gs_asm_label(a, "walk_rule_unsupported");
	struct gs_label cfa_set = gs_asm_label(a, "walk_cfa_computed");
	struct gs_label has_ra = gs_asm_label(a, "walk_ra_defined");
	struct gs_label not_fp = gs_asm_label(a, "walk_not_frame_pointer_frame");
	struct gs_label rbp_set = gs_asm_label(a, "walk_rbp_recovered");
	struct gs_label rules_done = gs_asm_label(a, "walk_rules_evaluated");

	gs_asm_note(a, "bt frame: cfa = reg + off, or *(reg + off)");
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sl->err, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, RULE(cfa) + R_REG));
	reg_value(g, unsupported);
	load_s32(a, RULE(cfa) + R_OFF);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, RULE(cfa) + R_KIND));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_BT_CFA_REG_DEREF, cfa_set);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R2));
	read_stack(g, sl, GS_BT_ERROR_CFA_READ, true);
	gs_asm_bind(a, cfa_set);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R2, W(cfa)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R2, NEXT(GS_DWARF_REG_RSP)));

	gs_asm_note(a, "bt frame: return address (undefined: the end of the stack)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, RULE(ra) + R_KIND));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_RECOVERY_UNDEFINED, has_ra);
	stop(g, GS_BT_COMPLETE);
	gs_asm_bind(a, has_ra);
	eval_rule(g, sl, RULE(ra), GS_DWARF_REG_RIP, GS_BT_ERROR_RETURN_ADDRESS_READ, true,
		  unsupported);

	gs_asm_note(a, "bt frame: rbp (a push rbp; mov rbp, rsp frame saves it at cfa - 16)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, RULE(cfa) + R_KIND));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_BT_CFA_REG_OFF, not_fp);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, RULE(cfa) + R_REG));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_DWARF_REG_RBP, not_fp);
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, RULE(cfa) + R_OFF));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 16, not_fp);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R6, W(cfa)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, -16));
	read_stack(g, sl, GS_BT_ERROR_FRAME_POINTER_READ, true);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R2, NEXT(GS_DWARF_REG_RBP)));
	gs_asm_ja(a, rbp_set);
	gs_asm_bind(a, not_fp);
	eval_rule(g, sl, RULE(rbp), GS_DWARF_REG_RBP, GS_BT_ERROR_FRAME_POINTER_READ, true,
		  unsupported);
	gs_asm_bind(a, rbp_set);

	gs_asm_note(a, "bt frame: rbx, r12-r15 (a failed read leaves 0, the walk goes on)");
	for (int k = 0; k < GS_BT_NSAVED; k++)
		eval_rule(g, sl, (int16_t)(RULE(saved) + k * (int16_t)sizeof(struct gs_bt_rule)),
			  gs_bt_saved_dwarf[k], 0, false, unsupported);
	gs_asm_ja(a, rules_done);
	gs_asm_bind(a, unsupported);
	stop(g, GS_BT_UNSUPPORTED_CFI);
	gs_asm_bind(a, rules_done);
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
	static const uint8_t tracked[] = { GS_DWARF_REG_RIP, GS_DWARF_REG_RSP, GS_DWARF_REG_RBP,
					   3, 12, 13, 14, 15 };
	struct gs_asm *a = g->a;
	const struct bt_caller_check c = {
		.note = "bt frame: validate (read error, ip >= 0x1000, user ip, cfa != 0, progress)",
		.err_size = BPF_DW, .err = sl->err, .next_base = GS_R6,
		.next_ip = NEXT(GS_DWARF_REG_RIP), .next_rsp = NEXT(GS_DWARF_REG_RSP),
		.cfa_read = true, .cur_base = GS_R6, .cur_ip = REG(GS_DWARF_REG_RIP),
		.cur_rsp = REG(GS_DWARF_REG_RSP), .code_base = GS_R6, .code_off = W(error_code),
		.stop = g->ret,
		.stop_status = loop_stop_status, .complete = loop_complete, .ctx = g,
	};

	bt_check_caller(a, &c);
	gs_asm_note(a, "bt frame: the caller is the current frame now (rip rsp rbp rbx r12-r15)");
	for (size_t i = 0; i < sizeof(tracked); i++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, NEXT(tracked[i])));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, REG(tracked[i])));
	}
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
	CG_STX_FIELD(a, GS_R4, TABLE_OFF, struct gs_bt_wire_module, cookie, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(bias)));
	CG_STX_FIELD(a, GS_R4, TABLE_OFF, struct gs_bt_wire_module, bias, GS_R1);
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
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R8, GS_R6, REG(GS_DWARF_REG_RIP)));
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
		cg_map_lookup(cg, GS_MAP_BT_MODULES, g->key);
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
	decode_row(g);
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
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, GS_R6, REG(GS_DWARF_REG_RIP)));
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
