/* Internals of the backtrace code generator (docs/protocol.md,
 * "Backtraces"), shared by the main program's `bt` statements and the step
 * program.
 *
 * A walk's state (ip, rsp, rbp, module bias, cookie, found) lives either in
 * stack slots (main program) or in a bt_state map value pointed to by r8
 * (step program); `struct bt_loc` says where, so one emitter serves both.
 * Registers while a frame is unwound: r6 ctx, r9 the Backtrace instruction,
 * r7 the unwind row (a bt_unwind_rows value, or constants for the probe's
 * compile-time row), r8 the step program's state; r0-r5 scratch. */
#ifndef GS_CODEGEN_BT_H
#define GS_CODEGEN_BT_H

#include <stddef.h>

#include "cg.h"

#define BT_INLINE_FRAMES 5      /* frames the main program produces */
#define BT_FRAMES_PER_STEP 4    /* unwinds per step program invocation */
#define BT_MAX_STEP_CALLS 32    /* tail_calls budget */
#define BT_MIN_USER_IP 0x1000

/* Offsets inside a bt_state value (struct gs_bt_tail_state). */
#define TS(field) ((int16_t)offsetof(struct gs_bt_tail_state, field))
/* One u32 store writes frame_count, requested_depth, offsets_found and
 * tail_calls; one more writes flags, active_slot and error_code. */
_Static_assert(offsetof(struct gs_bt_tail_state, requested_depth) ==
	       offsetof(struct gs_bt_tail_state, frame_count) + 1 &&
	       offsetof(struct gs_bt_tail_state, offsets_found) ==
	       offsetof(struct gs_bt_tail_state, frame_count) + 2 &&
	       offsetof(struct gs_bt_tail_state, tail_calls) ==
	       offsetof(struct gs_bt_tail_state, frame_count) + 3,
	       "bt_state: frame_count .. tail_calls are one u32");
_Static_assert(offsetof(struct gs_bt_tail_state, active_slot) ==
	       offsetof(struct gs_bt_tail_state, flags) + 1 &&
	       offsetof(struct gs_bt_tail_state, error_code) ==
	       offsetof(struct gs_bt_tail_state, flags) + 2,
	       "bt_state: flags .. error_code are one u32");

/* Fields of the Backtrace instruction at r9: BacktraceData after the
 * header, then the frames. */
#define BT_ST(a, field, imm) \
	CG_ST_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_backtrace_data, field, imm)
#define BT_STX(a, field, src) \
	CG_STX_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_backtrace_data, field, src)
#define BT_FRAMES_OFF ((int16_t)(CG_PAYLOAD + sizeof(struct gs_backtrace_data)))
#define BT_FRAME_SHIFT 5 /* frame k at BT_FRAMES_OFF + (k << 5) */
_Static_assert(sizeof(struct gs_backtrace_frame) == 1u << BT_FRAME_SHIFT,
	       "a frame slot is 32 bytes");

/* The row a frame is recovered with: constants known at compile time
 * (the probe's row) or the bt_unwind_rows value in r7. */
struct bt_row {
	const struct gs_unwind_row *constant; /* NULL: the row is in r7 */
};

struct bt_gen {
	struct gs_cg *cg;
	struct bt_loc st;
	struct bt_scratch sc;
	bool in_step;       /* the step program: no any_fail flags to set */
	struct gs_label stop; /* after the final status was written */
};

/* backtrace.c: the scratch slots of one frame computation */
void bt_alloc_scratch(struct gs_asm *a, struct bt_scratch *sc);

/* bt_search.c: the steps of an unrolled binary search over n entries */
uint32_t bt_steps(uint64_t n);
void bt_pid_key(struct bt_gen *g);
void bt_probe_offsets(struct bt_gen *g, uint64_t cookie);
void bt_find_row(struct bt_gen *g, struct gs_label not_found);
void bt_resolve_module(struct bt_gen *g, bool fallback_found);

/* The checks of a recovered caller (docs/protocol.md, "Backtraces": the
 * error codes, the first that applies), shared by both walkers: r1 =
 * the first failing check's error code (the recovery's own when it
 * failed), stored as a u16 at code_base + code_off; then stop_status gets
 * the stop status in a register and the emitter jumps to `stop`; a return
 * address of 0 calls `complete` (which ends the walk); a valid caller
 * falls through. The recovery's results are in stack slots, the current
 * frame's ip and rsp at cur_base + cur_ip / cur_rsp. Clobbers r1-r4. */
struct bt_caller_check {
	const char *note;      /* of the checks */
	const char *stop_note; /* of the stop, or NULL to keep the note */
	uint8_t err_size;      /* BPF_B or BPF_DW: the recovery's error slot */
	int16_t err, next_ip, next_rsp;
	uint8_t next_base;     /* base of next_ip/next_rsp: 0 for the stack (r10) */
	bool cfa_read;         /* error code 7 (a CFA read failed) is a read error too */
	uint8_t cur_base, code_base;
	int16_t cur_ip, cur_rsp, code_off;
	struct gs_label stop;
	void (*stop_status)(void *ctx, uint8_t reg);
	void (*complete)(void *ctx);
	void *ctx;
};

/* bt_frame.c */
void bt_check_caller(struct gs_asm *a, const struct bt_caller_check *c);
void bt_status(struct bt_gen *g, uint8_t status, bool or_offsets);
void bt_set_final(struct bt_gen *g, uint8_t status, bool or_offsets);
void bt_recover(struct bt_gen *g, const struct bt_row *row);
void bt_validate(struct bt_gen *g);
void bt_store_frame(struct bt_gen *g, int frame, uint8_t dyn_reg);
void bt_advance(struct bt_gen *g);

/* backtrace.c */
void cg_bt_prepare(struct gs_asm *a, struct cg_tail_walker *w);
void cg_backtrace(struct gs_cg *cg, const struct gs_stmt *s);
void cg_bt_chain_prologue(struct gs_asm *a, const struct cg_tail_walker *w);
void cg_bt_dispatch(struct gs_cg *cg);

/* bt_loop.c */
/* The instruction's module table entries at this depth. */
static inline uint32_t cg_bt_loop_slots(uint32_t depth)
{
	return depth < GS_BT_WIRE_MODULES ? depth : GS_BT_WIRE_MODULES;
}
uint32_t cg_bt_loop_inst_size(uint32_t depth);
void cg_bt_loop_stmt(struct gs_cg *cg, const struct gs_stmt *s);
/* The subprograms gs_bt_walk and gs_bt_frame, after the main program. */
void cg_bt_loop_subprogs(struct gs_cg *cg);

/* count.c: counting in BPF (gs_program_opts.count_stacks). Why spec
 * cannot count in BPF under o (a sentence), or NULL when it can. */
const char *cg_count_unqualified(const struct gs_trace_spec *spec, const struct gs_program_opts *o);
uint32_t cg_count_key_size(uint32_t depth);
/* stack_counts[the event's stack] += 1, in place of EndInstruction and
 * the event's emission. */
void cg_count_stack(struct gs_cg *cg);

/* bt_step.c */
void cg_bt_step_program(const struct gs_cg *main_cg, struct gs_asm *step);

#endif /* GS_CODEGEN_BT_H */
