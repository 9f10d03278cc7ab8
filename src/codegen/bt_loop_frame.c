/* The bpf_loop walker's callback, gs_bt_frame: one frame per iteration.
 * It finds the current pc's compact row and decodes its rules
 * (bt_loop_row.c), evaluates them on the walk's registers (CFA = reg + off
 * or *(reg + off); each of rip, rbp, rbx, r12-r15 saved at/val CFA + off,
 * in a register, or at/val reg + off) reading the stack through a window,
 * validates the step, resolves the caller's module (bt_loop_module.c) and
 * stores the frame as ip | module index << 56. */
#include "bt_loop.h"

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
static void read_stack(struct loop_gen *g, const struct loop_frame_slots *sl, uint8_t err_code,
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

/* next[dst] = what the rule at r6 + rule gives: kept (same value,
 * undefined), *(CFA + off), CFA + off, another register, *(reg + off) or
 * reg + off. A failed read is recorded as err_code when `fatal`. */
static void eval_rule(struct loop_gen *g, const struct loop_frame_slots *sl, int16_t rule, int dst,
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
 * (a CFA of rbp + 16 always takes it from CFA - 16: docs/protocol.md,
 * "Backtraces"), rbx and r12-r15. */
static void recover(struct loop_gen *g, const struct loop_frame_slots *sl)
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
	bt_loop_stop(g, GS_BT_COMPLETE);
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
	bt_loop_stop(g, GS_BT_UNSUPPORTED_CFI);
	gs_asm_bind(a, rules_done);
}

/* The frame-pointer step (docs/unwind.md, "Frames without CFI"): where
 * the current pc has no row (JIT code, V8's builtins), the caller comes
 * from the frame record rbp points at, as V8 and HotSpot with
 * -XX:+PreserveFramePointer keep it: CFA = rbp + 16, return address
 * *(rbp + 8), the caller's rbp *rbp, rbx and r12-r15 kept. Checked first:
 * rbp nonzero and 8-aligned, the CFA above the current sp (the walk only
 * goes up the stack) and at most GS_BT_FP_STACK_SPAN above frame 0's sp,
 * the return address readable and nonzero. A failed check stops the walk
 * with the status stored before the jump here and error
 * FRAME_POINTER_CHAIN; else validate() checks the caller as any other. */
static void fp_step(struct loop_gen *g, const struct loop_frame_slots *sl, struct gs_label done)
{
	static const int kept[] = { 3, 12, 13, 14, 15 };
	struct gs_asm *a = g->a;
	struct gs_label bad = gs_asm_label(a, "walk_fp_chain_invalid");

	gs_asm_bind(a, g->fp);
	gs_asm_note(a, "bt frame: no row: step by the frame pointer (cfa = rbp + 16)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, REG(GS_DWARF_REG_RBP)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, bad);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R2, 7));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R2, 0, bad);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 16));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, REG(GS_DWARF_REG_RSP)));
	gs_asm_jmp_reg(a, BPF_JLE, GS_R1, GS_R2, bad);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R6, W(first_sp)));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, (int32_t)GS_BT_FP_STACK_SPAN));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R3));
	gs_asm_jmp_reg(a, BPF_JGT, GS_R1, GS_R2, bad);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, W(cfa)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, NEXT(GS_DWARF_REG_RSP)));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sl->err, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(exact), 0));
	gs_asm_note(a, "bt frame: ... return address = *(rbp + 8), nonzero");
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, -8));
	read_stack(g, sl, 0, false);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, bad);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R2, NEXT(GS_DWARF_REG_RIP)));
	gs_asm_note(a, "bt frame: ... the caller's rbp = *rbp (0 where the chain ends)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R6, REG(GS_DWARF_REG_RBP)));
	read_stack(g, sl, 0, false);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R2, NEXT(GS_DWARF_REG_RBP)));
	for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, REG(kept[k])));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, NEXT(kept[k])));
	}
	gs_asm_ja(a, done);
	gs_asm_bind(a, bad);
	gs_asm_note(a, "bt frame: ... a check failed: the walk ends as it would without the step");
	gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_R6, W(error_code), GS_BT_ERROR_FRAME_POINTER_CHAIN));
	gs_asm_ja(a, g->ret);
}

static void loop_stop_status(void *ctx, uint8_t reg)
{
	struct loop_gen *g = ctx;

	gs_asm_emit(g->a, GS_STX_MEM(BPF_B, GS_R6, reg, W(status)));
}

static void loop_complete(void *ctx)
{
	bt_loop_stop(ctx, GS_BT_COMPLETE);
}

/* Falls through when the caller is valid (bt_check_caller(), the error
 * codes of docs/protocol.md, "Backtraces");
 * else stops with the status and error code in bt_walk. Then the caller
 * becomes the current frame. */
static void validate(struct loop_gen *g, const struct loop_frame_slots *sl)
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

void bt_loop_frame_callback(struct loop_gen *g)
{
	struct gs_asm *a = g->a;
	struct loop_frame_slots sl;
	struct gs_label module = gs_asm_label(a, "walk_frame_module");
	struct gs_label store = gs_asm_label(a, "walk_store_frame");
	struct gs_label room = gs_asm_label(a, "walk_frames_left");
	struct gs_label more = gs_asm_label(a, "walk_go_on");
	struct gs_label caller = gs_asm_label(a, "walk_caller_recovered");

	g->key = gs_asm_slot(a, "walk_key", 8, 8);
	sl.lo = gs_asm_slot(a, "walk_lo", 4, 4);
	sl.hi = gs_asm_slot(a, "walk_hi", 4, 4);
	sl.found = gs_asm_slot(a, "walk_found", 4, 4);
	sl.mid = gs_asm_slot(a, "walk_mid", 4, 4);
	sl.pc = gs_asm_slot(a, "walk_pc", 8, 8);
	sl.err = gs_asm_slot(a, "walk_err", 8, 8);
	g->ret = gs_asm_label(a, "walk_stop");
	g->fp = gs_asm_label(a, "walk_frame_pointer_step");

	gs_asm_note(a, "gs_bt_frame: r6 = bt_walk[0], r9 = the instruction, from the ctx (r2)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R6, GS_R2, CTX_WALK));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R9, GS_R2, CTX_INST));
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R6, W(frame_count)));
	gs_asm_jmp_imm(a, BPF_JLT, GS_R1, (int32_t)g->depth, room);
	bt_loop_stop(g, GS_BT_TRUNCATED);
	gs_asm_bind(a, room);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, module);
	bt_loop_find_row(g, &sl);
	bt_loop_decode_row(g);
	recover(g, &sl);
	gs_asm_bind(a, caller);
	validate(g, &sl);
	gs_asm_bind(a, module);
	bt_loop_resolve_module(g, &sl, store);
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
	bt_loop_stop(g, GS_BT_TRUNCATED);
	gs_asm_bind(a, more);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
	gs_asm_bind(a, g->ret);
	gs_asm_note(a, "gs_bt_frame: stop the loop");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_emit(a, GS_EXIT());
	/* Out of the way of the frames with rows: it jumps back to validate. */
	fp_step(g, &sl, caller);
}
