/* Shared by the files of the bpf_loop walker: bt_loop.c (the `bt`
 * statement and the gs_bt_walk subprogram), bt_loop_frame.c (the
 * gs_bt_frame callback, one frame per iteration), bt_loop_row.c (its
 * row) and bt_loop_module.c (its module). Offsets into the per-CPU
 * walk state and the compact instruction come from offsetof(). */
#ifndef GS_CODEGEN_BT_LOOP_H
#define GS_CODEGEN_BT_LOOP_H

#include <stddef.h>

#include "bt.h"

#define W(field) ((int16_t)offsetof(struct gs_bt_walk, field))
#define REG(n) ((int16_t)(W(regs) + 8 * (n)))   /* bt_walk.regs[n], DWARF number n */
#define NEXT(n) ((int16_t)(W(next) + 8 * (n)))
#define MOD(field) ((int16_t)(offsetof(struct gs_bt_walk, mod) + offsetof(struct gs_bt_module, field)))
#define PROBE_ROWS(field) \
	((int16_t)(offsetof(struct gs_bt_walk, probe_rows) + offsetof(struct gs_bt_module_rows, field)))
#define INST_DATA CG_PAYLOAD /* instruction header before gs_backtrace_compact */
#define I(field) CG_FIELD_OFF(INST_DATA, struct gs_backtrace_compact, field)
/* Fields first..last of the compact instruction at r9, in one store. */
#define COMPACT_ST(a, first, last, imm) \
	CG_ST_FIELDS(a, GS_R9, INST_DATA, struct gs_backtrace_compact, first, last, imm)
#define COMPACT_STX(a, field, src) \
	CG_STX_FIELD(a, GS_R9, INST_DATA, struct gs_backtrace_compact, field, src)
#define TABLE_OFF ((int16_t)(INST_DATA + sizeof(struct gs_backtrace_compact)))

/* What both subprograms' emitters share. */
struct loop_gen {
	struct gs_cg *cg;
	struct gs_asm *a;
	uint32_t depth, inst_size;
	int16_t key;
	int16_t ctx;         /* gs_bt_walk's slot the callback gets: CTX_* */
	struct gs_label ret; /* return r0 = 1 (callback: stop) */
	struct gs_label fp;  /* callback: the frame-pointer step (status stored) */
};

/* The callback's ctx, in gs_bt_walk's frame: the bt_walk value (r6) and
 * the instruction (r9), spilled there; the verifier restores both
 * pointers, so an iteration needs no map lookup to find them. */
#define CTX_WALK 0
#define CTX_INST 8

/* Offset of frame 0 in an instruction of this depth. */
static inline int16_t bt_loop_frames_off(uint32_t depth)
{
	return (int16_t)(TABLE_OFF + 16 * cg_bt_loop_slots(depth));
}

/* ---- gs_bt_frame: one frame per bpf_loop iteration ----------------------- */

/* A decoded rule in bt_walk.rules. */
#define RULE(field) ((int16_t)(W(rules) + offsetof(struct gs_bt_rules, field)))
#define R_OFF 0  /* offsetof(struct gs_bt_rule, off) */
#define R_KIND ((int16_t)offsetof(struct gs_bt_rule, kind))
#define R_REG ((int16_t)offsetof(struct gs_bt_rule, reg))

/* Stack slots of the callback. */
struct loop_frame_slots {
	int16_t lo, hi, found, mid; /* u32 */
	int16_t pc, err;
};

/* The walk stops with `status`. */
static inline void bt_loop_stop(struct loop_gen *g, uint8_t status)
{
	gs_asm_emit(g->a, GS_ST_MEM(BPF_B, GS_R6, W(status), status));
	gs_asm_ja(g->a, g->ret);
}

/* No row for the current pc: the frame-pointer step, which stops the
 * walk with `status` (what it stops with today) when its checks fail. */
static inline void bt_loop_fp_step(struct loop_gen *g, uint8_t status)
{
	gs_asm_emit(g->a, GS_ST_MEM(BPF_B, GS_R6, W(status), status));
	gs_asm_ja(g->a, g->fp);
}

/* One step of a binary search over the slots [lo, hi): to `done` when the
 * range is empty, else r1 = mid = (lo + hi) / 2, stored in the mid slot
 * (the module search and the row search). */
static inline void bt_loop_search_mid(struct gs_asm *a, const struct loop_frame_slots *sl,
				      struct gs_label done)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, sl->lo));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_FP, sl->hi));
	gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, done);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->mid));
}

/* The body of gs_bt_frame (bt_loop_frame.c). */
void bt_loop_frame_callback(struct loop_gen *g);
/* bt_loop_row.c: r7 = the current pc's row (in the row cache), then its
 * rules decoded into bt_walk.rules; where there is no row (no module, no
 * row for the pc, a row of no CFI) either stores the status the walk
 * would stop with and goes to the frame-pointer step (g->fp); a CFA it
 * does not evaluate stops the walk. */
void bt_loop_find_row(struct loop_gen *g, const struct loop_frame_slots *sl);
void bt_loop_decode_row(struct loop_gen *g);
/* bt_loop_module.c: the current frame's module and its wire index;
 * jumps to done. */
void bt_loop_resolve_module(struct loop_gen *g, const struct loop_frame_slots *sl,
			    struct gs_label done);

#endif /* GS_CODEGEN_BT_LOOP_H */
