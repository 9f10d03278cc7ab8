/* State shared by the emitters of one program, and their entry points.
 * Register convention of every generated program: r6 = ctx (struct pt_regs *)
 * for the whole program; r9 = destination of the instruction being written
 * (set by cg_reserve, survives helper calls); r7 and r8 hold values an
 * emitter keeps across helper calls; r0-r5 are scratch. Expressions are
 * evaluated into r0 and clobber r0-r5 only. */
#ifndef GS_CODEGEN_CG_H
#define GS_CODEGEN_CG_H

#include <gs/program.h>

/* Where a backtrace walk's state lives: base register (GS_FP for stack
 * slots, or a register holding a bt_state value) + offsets. */
struct bt_loc {
	uint8_t base;
	int16_t ip, rsp, rbp, bias, cookie, found; /* found is a u8 */
	int16_t mod_base, mod_end; /* the current module's [base, end) */
};

/* Scratch stack slots of one frame computation. */
struct bt_scratch {
	int16_t next_ip, next_rsp, next_rbp, next_bias, next_cookie, next_found; /* found: u8 */
	int16_t next_mod_base, next_mod_end;
	int16_t err;       /* u8 error code of the recovery */
	int16_t read_buf;  /* u64 destination of bpf_probe_read_user */
	int16_t lookup_pc; /* u64 */
	int16_t lo, hi;    /* u32 search bounds */
	int16_t key;       /* 16 bytes: map keys of the searches */
	int16_t pid;       /* u32 pid key of the proc-module maps */
};

/* Where a failed user-memory read is recorded: the first error wins. */
struct cg_err_record {
	int16_t slot; /* u8 code @0 (enum gs_var_status), s32 errno @4, u64 addr @8 */
};

struct gs_cg {
	struct gs_asm *a;
	struct gs_program *prog;
	const struct gs_trace_spec *spec;
	struct gs_program_opts opts; /* with defaults filled in */
	struct gs_error *err;
	uint32_t max_size;           /* max_trace_event_size in force */

	/* stack slots */
	int16_t key_slot;    /* u32 0: key of the one-entry maps */
	int16_t offset_slot; /* u32 event_offset: the accumulation cursor */
	int16_t flags_slot;  /* u8 any_fail @0, u8 any_success @1 */
	int16_t nsinfo_slot; /* struct bpf_pidns_info, allocated on first use */
	int16_t *var_slots;  /* one u64 per `let` variable */

	struct gs_label exit0;    /* return 0 */
	struct gs_label overflow; /* event too large: drop it, return 0 */

	int type_i64, type_u64, type_bool; /* context type indices, -1 until used */
	int type_deref[2][4];              /* [signed][log2 size] */

	/* backtrace (backtrace.c) */
	uint32_t bt_depth;       /* requested depth, 1..128 */
	bool bt_tail;            /* depth > 5 with rows: the step program exists */
	uint32_t bt_next_slot;   /* bt_state slot of the next tail-mode `bt` */
	struct bt_loc bt_st;     /* the walk state, in stack slots */
	struct bt_scratch bt_sc;
	int16_t bt_tail_enabled; /* u8: some slot was linked in this event */
	int16_t bt_tail_last;    /* u8: the last linked slot */
	int16_t bt_inst_offset;  /* u32: event_offset before the bt reservation */
	/* the bpf_loop walker (bt_loop.c) */
	bool bt_loop;            /* `bt` calls the gs_bt_walk subprogram */
	struct gs_label bt_walk; /* its entry */
	uint32_t bt_btf_walk, bt_btf_frame; /* BTF FUNC types of the subprograms */
};

/* event.c: prologue, reservations, EndInstruction, emission */
void cg_prologue(struct gs_cg *cg);
void cg_reserve(struct gs_cg *cg, uint32_t size);
void cg_lookup_key0(struct gs_cg *cg, uint32_t map);
void cg_end_and_emit(struct gs_cg *cg, uint16_t total_instructions);
void cg_emit_event(struct gs_cg *cg, uint8_t size_base, int16_t size_off);
void cg_epilogue(struct gs_cg *cg);
void cg_mark_fail(struct gs_cg *cg);
void cg_mark_success(struct gs_cg *cg);

/* expr.c: evaluation into r0 */
bool cg_expr_reads_memory(const struct gs_expr *e);
int cg_expr_type(struct gs_cg *cg, const struct gs_expr *e, uint8_t *size);
void cg_expr(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);
void cg_err_record_reset(struct gs_cg *cg, const struct cg_err_record *rec);

/* print.c: the print instructions */
void cg_print_string(struct gs_cg *cg, const struct gs_stmt *s);
void cg_print_expr(struct gs_cg *cg, const struct gs_stmt *s);
void cg_print_format(struct gs_cg *cg, const struct gs_stmt *s);
void cg_expr_error(struct gs_cg *cg, const char *text, const struct cg_err_record *rec);

/* stmt.c: statements and their instruction count */
void cg_stmts(struct gs_cg *cg, const struct gs_stmt *body, size_t n);
uint32_t cg_count_instructions(const struct gs_stmt *body, size_t n);

/* Records a build error (the first one is kept). */
__attribute__((format(printf, 3, 4)))
void cg_fail(struct gs_cg *cg, int code, const char *fmt, ...);

#endif /* GS_CODEGEN_CG_H */
