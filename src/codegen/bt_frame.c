/* One unwind step (docs/protocol.md, "Backtraces"): recover the caller's
 * CFA, return address and rbp from a row, validate the result with the
 * reference's error-code precedence, store the frame, and move the walk on.
 * Status bytes go into the Backtrace instruction at r9. */
#include <assert.h>

#include "bt.h"

enum row_field { F_CFA_REG, F_CFA_OFF, F_RA_KIND, F_RA_REG, F_RA_OFF, F_RBP_KIND, F_RBP_REG,
		 F_RBP_OFF };

static const struct {
	int16_t off;
	uint8_t size;
} row_fields[] = {
	[F_CFA_REG] = { 40, BPF_H }, [F_CFA_OFF] = { 16, BPF_DW },
	[F_RA_KIND] = { 46, BPF_B }, [F_RA_REG] = { 42, BPF_H }, [F_RA_OFF] = { 24, BPF_DW },
	[F_RBP_KIND] = { 47, BPF_B }, [F_RBP_REG] = { 44, BPF_H }, [F_RBP_OFF] = { 32, BPF_DW },
};

static int64_t const_field(const struct gs_unwind_row *r, enum row_field f)
{
	switch (f) {
	case F_CFA_REG: return r->cfa_register;
	case F_CFA_OFF: return r->cfa_offset;
	case F_RA_KIND: return r->ra_kind;
	case F_RA_REG: return r->ra_register;
	case F_RA_OFF: return r->ra_offset;
	case F_RBP_KIND: return r->rbp_kind;
	case F_RBP_REG: return r->rbp_register;
	default: return r->rbp_offset;
	}
}

/* reg = a field of the row: a constant, or loaded from r7. */
static void field(struct bt_gen *g, const struct bt_row *row, enum row_field f, uint8_t reg)
{
	struct gs_asm *a = g->cg->a;

	if (!row->constant) {
		gs_asm_emit(a, GS_LDX_MEM(row_fields[f].size, reg, GS_R7, row_fields[f].off));
		return;
	}
	if (const_field(row->constant, f) >= INT32_MIN && const_field(row->constant, f) <= INT32_MAX)
		gs_asm_emit(a, GS_MOV64_IMM(reg, (int32_t)const_field(row->constant, f)));
	else
		gs_asm_ld_imm64(a, reg, (uint64_t)const_field(row->constant, f));
}

/* r2 = the current frame's register numbered r1: rbp (6), rip (16), else rsp. */
static void select_reg(struct bt_gen *g)
{
	struct gs_asm *a = g->cg->a;
	struct gs_label not_rbp = gs_asm_label(a, "reg_not_rbp");
	struct gs_label done = gs_asm_label(a, "reg_selected");

	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, g->st.base, g->st.rsp));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_DWARF_REG_RBP, not_rbp);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, g->st.base, g->st.rbp));
	gs_asm_ja(a, done);
	gs_asm_bind(a, not_rbp);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_DWARF_REG_RIP, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, g->st.base, g->st.ip));
	gs_asm_bind(a, done);
}

/* read_buf = the user u64 at r3; on failure read_buf = 0, any_fail is set
 * (main program) and, when err_code is non-zero, err = err_code unless
 * an earlier error is recorded (only_if_kind: only for that RA kind). */
static void read_user(struct bt_gen *g, const struct bt_row *row, uint8_t err_code,
		      int only_ra_kind)
{
	struct gs_asm *a = g->cg->a;
	struct gs_label ok = gs_asm_label(a, "stack_read_ok");
	struct gs_label zero = gs_asm_label(a, "stack_read_zero");

	cg_read_user(g->cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = g->sc.read_buf,
						    .len = 8, .resident = true });
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ok);
	if (!g->in_step)
		cg_mark_fail(g->cg);
	if (only_ra_kind >= 0) {
		field(g, row, F_RA_KIND, GS_R1);
		gs_asm_jmp_imm(a, BPF_JNE, GS_R1, only_ra_kind, zero);
	} else {
		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, g->sc.err));
		gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, zero);
	}
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, g->sc.err, err_code));
	gs_asm_bind(a, zero);
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, g->sc.read_buf, 0));
	gs_asm_bind(a, ok);
}

/* r2 = the value a REGISTER / SAME_VALUE / VAL_CFA_OFFSET / AT_CFA rule
 * gives, with kind in r1. `mem` jumps to the caller's memory case. */
static void rule_value(struct bt_gen *g, const struct bt_row *row, enum row_field reg_f,
		       enum row_field off_f, struct gs_label mem, struct gs_label done)
{
	struct gs_asm *a = g->cg->a;
	struct gs_label from_reg = gs_asm_label(a, "rule_register");
	struct gs_label val_cfa = gs_asm_label(a, "rule_val_cfa");

	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_REGISTER, from_reg);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_SAME_VALUE, from_reg);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_RECOVERY_VAL_CFA_OFFSET, val_cfa);
	gs_asm_ja(a, mem);
	gs_asm_bind(a, from_reg);
	field(g, row, reg_f, GS_R1);
	select_reg(g);
	gs_asm_ja(a, done);
	gs_asm_bind(a, val_cfa);
	field(g, row, off_f, GS_R2);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, g->sc.next_rsp));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_ja(a, done);
}

void bt_recover(struct bt_gen *g, const struct bt_row *row)
{
	struct gs_asm *a = g->cg->a;
	const struct bt_scratch *sc = &g->sc;
	struct gs_label ra_mem = gs_asm_label(a, "ra_from_stack");
	struct gs_label ra_set = gs_asm_label(a, "ra_recovered");
	struct gs_label not_fp = gs_asm_label(a, "not_frame_pointer_frame");
	struct gs_label rbp_read = gs_asm_label(a, "rbp_from_stack");
	struct gs_label rbp_rule = gs_asm_label(a, "rbp_by_rule");
	struct gs_label rbp_keep = gs_asm_label(a, "rbp_unchanged");
	struct gs_label rbp_set = gs_asm_label(a, "rbp_recovered");

	gs_asm_note(a, "bt: cfa = reg(cfa_register) + cfa_offset");
	field(g, row, F_CFA_REG, GS_R1);
	select_reg(g);
	field(g, row, F_CFA_OFF, GS_R1);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, sc->next_rsp));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, sc->err, 0));

	gs_asm_note(a, "bt: return address at cfa + ra_offset (always read)");
	field(g, row, F_RA_OFF, GS_R3);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R2));
	read_user(g, row, GS_BT_ERROR_RETURN_ADDRESS_READ, GS_RECOVERY_AT_CFA_OFFSET);
	field(g, row, F_RA_KIND, GS_R1);
	rule_value(g, row, F_RA_REG, F_RA_OFF, ra_mem, ra_set);
	gs_asm_bind(a, ra_mem);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, sc->read_buf));
	gs_asm_bind(a, ra_set);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, sc->next_ip));

	gs_asm_note(a, "bt: rbp (a push rbp; mov rbp, rsp frame saves it at cfa - 16)");
	field(g, row, F_CFA_REG, GS_R1);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_DWARF_REG_RBP, not_fp);
	field(g, row, F_CFA_OFF, GS_R1);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 16, not_fp);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, -16));
	gs_asm_ja(a, rbp_read);
	gs_asm_bind(a, not_fp);
	field(g, row, F_RBP_KIND, GS_R1);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_RECOVERY_AT_CFA_OFFSET, rbp_rule);
	field(g, row, F_RBP_OFF, GS_R3);
	gs_asm_bind(a, rbp_read);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc->next_rsp));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_user(g, row, GS_BT_ERROR_FRAME_POINTER_READ, -1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, sc->read_buf));
	gs_asm_ja(a, rbp_set);
	gs_asm_bind(a, rbp_rule);
	rule_value(g, row, F_RBP_REG, F_RBP_OFF, rbp_keep, rbp_set);
	gs_asm_bind(a, rbp_keep);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, g->st.base, g->st.rbp));
	gs_asm_bind(a, rbp_set);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, sc->next_rbp));
}

/* Stores the status in reg, or OffsetsUnavailable when the current
 * frame's module bias is unknown (the reference's S_or_off). Clobbers r2. */
static void store_status_or_offsets(struct bt_gen *g, uint8_t reg)
{
	struct gs_asm *a = g->cg->a;
	struct gs_label keep = gs_asm_label(a, "status_offsets_known");

	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, g->st.base, g->st.found));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R2, 0, keep);
	gs_asm_emit(a, GS_MOV64_IMM(reg, GS_BT_OFFSETS_UNAVAILABLE));
	gs_asm_bind(a, keep);
	BT_STX(a, status, reg);
}

/* status (or OffsetsUnavailable, when or_offsets) into the instruction. */
void bt_status(struct bt_gen *g, uint8_t status, bool or_offsets)
{
	struct gs_asm *a = g->cg->a;

	if (!or_offsets) {
		BT_ST(a, status, status);
		return;
	}
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, status));
	store_status_or_offsets(g, GS_R1);
}

/* The walk ends here: status, no error code. */
void bt_set_final(struct bt_gen *g, uint8_t status, bool or_offsets)
{
	bt_status(g, status, or_offsets);
	BT_ST(g->cg->a, error_code, 0);
	gs_asm_ja(g->cg->a, g->stop);
}

void bt_check_caller(struct gs_asm *a, const struct bt_caller_check *c)
{
	struct gs_label invalid = gs_asm_label(a, "frame_invalid");
	struct gs_label complete = gs_asm_label(a, "walk_complete");
	struct gs_label valid = gs_asm_label(a, "frame_valid");
	struct gs_label read_error = gs_asm_label(a, "frame_read_error");
	struct gs_label status_ready = gs_asm_label(a, "frame_status_ready");
	uint8_t next = c->next_base ? c->next_base : GS_FP;

	gs_asm_note(a, c->note);
	gs_asm_emit(a, GS_LDX_MEM(c->err_size, GS_R1, GS_FP, c->err));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, next, c->next_ip));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, invalid);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, complete);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, GS_BT_ERROR_NEXT_IP_BELOW_USER));
	gs_asm_jmp_imm(a, BPF_JLT, GS_R2, BT_MIN_USER_IP, invalid);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, GS_BT_ERROR_NEXT_IP_KERNEL_LIKE));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R2));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R3, GS_BT_WIRE_IP_BITS));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R3, 0, invalid);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, GS_BT_ERROR_NEXT_CFA_ZERO));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, next, c->next_rsp));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, invalid);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, c->cur_base, c->cur_rsp));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R3, GS_R4, valid);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, c->cur_base, c->cur_ip));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R2, GS_R4, valid);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, GS_BT_ERROR_NEXT_CFA_NOT_ADVANCING));

	gs_asm_bind(a, invalid);
	if (c->stop_note)
		gs_asm_note(a, c->stop_note);
	gs_asm_emit(a, GS_STX_MEM(BPF_H, c->code_base, GS_R1, c->code_off));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, GS_BT_INVALID_FRAME));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_ERROR_RETURN_ADDRESS_READ, read_error);
	if (c->cfa_read) /* the loop walker's only */
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_BT_ERROR_CFA_READ, read_error);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_BT_ERROR_FRAME_POINTER_READ, status_ready);
	gs_asm_bind(a, read_error);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, GS_BT_READ_ERROR));
	gs_asm_bind(a, status_ready);
	c->stop_status(c->ctx, GS_R3);
	gs_asm_ja(a, c->stop);

	gs_asm_bind(a, complete);
	c->complete(c->ctx);
	gs_asm_bind(a, valid);
}

static void tail_stop_status(void *ctx, uint8_t reg)
{
	store_status_or_offsets(ctx, reg);
}

static void tail_complete(void *ctx)
{
	struct bt_gen *g = ctx;

	gs_asm_note(g->cg->a, "bt: return address 0: the walk is complete");
	bt_set_final(g, GS_BT_COMPLETE, true);
}

/* Falls through when the recovered frame is valid; otherwise writes the
 * stop status (OffsetsUnavailable when the module is unknown) and error
 * code into the instruction and jumps to the stop label. */
void bt_validate(struct bt_gen *g)
{
	const struct bt_caller_check c = {
		.note = "bt: validate (read error, ip >= 0x1000, user ip, cfa != 0, progress)",
		.stop_note = "bt: stop: read error (codes 1, 2) or invalid frame",
		.err_size = BPF_B, .err = g->sc.err, .next_ip = g->sc.next_ip,
		.next_rsp = g->sc.next_rsp, .cur_base = g->st.base, .cur_ip = g->st.ip,
		.cur_rsp = g->st.rsp, .code_base = GS_R9,
		.code_off = CG_FIELD_OFF(CG_PAYLOAD, struct gs_backtrace_data, error_code),
		.stop = g->stop, .stop_status = tail_stop_status, .complete = tail_complete,
		.ctx = g,
	};

	bt_check_caller(g->cg->a, &c);
}

/* frame[k] = {next_cookie, next_found ? next_ip - next_bias : next_ip,
 * next_ip, flags 0} at r9 + 12 + 32 k, or at the pointer in dyn_reg when
 * frame < 0 (the step program's bounded dynamic slot). */
void bt_store_frame(struct bt_gen *g, int frame, uint8_t dyn_reg)
{
	struct gs_asm *a = g->cg->a;
	const struct bt_scratch *sc = &g->sc;
	uint8_t base = frame < 0 ? dyn_reg : GS_R9;
	int16_t off = frame < 0 ? 0 : (int16_t)(BT_FRAMES_OFF + (frame << BT_FRAME_SHIFT));
	struct gs_label raw = gs_asm_label(a, "frame_pc_raw");

	/* the main program stores its first BT_INLINE_FRAMES frames, the
	 * step program through a register */
	assert(frame < 0 ? cg_writable_reg(dyn_reg) : frame < BT_INLINE_FRAMES);
	gs_asm_notef(a, "bt: store frame %d", frame);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc->next_cookie));
	CG_STX_FIELD(a, base, off, struct gs_backtrace_frame, module_cookie, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc->next_ip));
	CG_STX_FIELD(a, base, off, struct gs_backtrace_frame, raw_ip, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R2, GS_FP, sc->next_found));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, raw);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, sc->next_bias));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_bind(a, raw);
	CG_STX_FIELD(a, base, off, struct gs_backtrace_frame, pc, GS_R1);
	CG_ST_FIELD(a, base, off, struct gs_backtrace_frame, flags, 0);
}

/* st = next. */
void bt_advance(struct bt_gen *g)
{
	struct gs_asm *a = g->cg->a;
	const struct bt_loc *st = &g->st;
	const struct bt_scratch *sc = &g->sc;
	const int16_t from[] = { sc->next_ip, sc->next_rsp, sc->next_rbp, sc->next_bias,
				 sc->next_cookie, sc->next_mod_base, sc->next_mod_end };
	const int16_t to[] = { st->ip, st->rsp, st->rbp, st->bias, st->cookie, st->mod_base,
			       st->mod_end };

	/* the module range rides along only where modules are searched */
	size_t n = g->cg->spec->bt->module_ranges ? 7 : 5;

	for (size_t i = 0; i < n; i++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, from[i]));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, st->base, GS_R1, to[i]));
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, sc->next_found));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, st->base, GS_R1, st->found));
}
