/* Shared by the two files of the bpf_loop walker: bt_loop.c (the `bt`
 * statement and the gs_bt_walk subprogram) and bt_loop_frame.c (the
 * gs_bt_frame callback, one frame per iteration). Offsets into the per-CPU
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
};

/* The callback's ctx, in gs_bt_walk's frame: the bt_walk value (r6) and
 * the instruction (r9), spilled there; the verifier restores both
 * pointers, so an iteration needs no map lookup to find them. */
#define CTX_WALK 0
#define CTX_INST 8

/* Offset of frame 0 in an instruction of this depth. */
int16_t bt_loop_frames_off(uint32_t depth);
/* The body of gs_bt_frame (bt_loop_frame.c). */
void bt_loop_frame_callback(struct loop_gen *g);

#endif /* GS_CODEGEN_BT_LOOP_H */
