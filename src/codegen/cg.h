/* The context of the program being written (a base, struct gs_cg, and
 * the parts each program kind owns), and the emitters' entry points. The
 * bottom every emitter may call and that calls no emitter: fail.c,
 * status.c, emit.c (with fault.c's retry); the top: program.c.
 * Register convention of every generated program: r6 = ctx (struct pt_regs *)
 * for the whole program; r9 = destination of the instruction being written
 * (set by cg_reserve, survives helper calls); r7 and r8 hold values an
 * emitter keeps across helper calls; r0-r5 are scratch. Expressions are
 * evaluated into r0 and clobber r0-r5 only. */
#ifndef GS_CODEGEN_CG_H
#define GS_CODEGEN_CG_H

#include <gs/internal/program.h>

#include "wire.h"

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
	int16_t slot; /* a struct cg_err_slot */
};

/* The stack record behind a cg_err_record; CG_ERR(field) is its offset. */
struct cg_err_slot {
	uint8_t code;     /* enum gs_var_status, 0: no error yet */
	uint8_t unused[3];
	int32_t err;      /* the helper's negative errno */
	uint64_t addr;    /* the address that failed */
};
#define CG_ERR(field) ((int16_t)offsetof(struct cg_err_slot, field))

/* The flags any_fail and any_success hold CG_FLAG_NO or CG_FLAG_YES, never 0:
 * the verifier keeps a store of 0 into a byte that is not 8-byte aligned
 * as a known zero, and of anything else as "some byte". With 0 for "no",
 * the states after an `if` whose branches read differently would differ
 * by these bytes and not prune; with two nonzero values every path holds
 * "some byte" in both (docs/cli.md, "Conditions"). */
#define CG_FLAG_NO 1
#define CG_FLAG_YES 2

#define CG_MAX_SYNTH_TYPES 32
#define CG_MAX_MODULES 8
#define CG_MAX_MATERIALIZE 64 /* bytes of a register-held value taken apart */

/* Where a source-level value is while its access chain is compiled. */
enum cg_place_kind {
	CG_PLACE_NONE,   /* optimized out */
	CG_PLACE_MEM,    /* user memory: (dyn ? *addr_slot : static base) + offset */
	CG_PLACE_BUF,    /* our stack: buf_slot + offset */
	CG_PLACE_LOC,    /* a register / computed / constant / composite location */
	CG_PLACE_SCALAR, /* a computed scalar at addr_slot + 8 */
};

struct cg_place {
	uint8_t kind;               /* enum cg_place_kind */
	const struct gs_type *type;
	bool dyn;
	uint8_t base, reg;          /* static base: enum gs_loc_base, register */
	const struct gs_loc_prog *prog; /* base PROGRAM: what computes it */
	uint64_t cookie;
	int64_t offset;
	int16_t addr_slot;          /* u64 address @0, scalar / saved address @8,
				     * read buffer @16 */
	int16_t buf_slot;
	const struct gs_var_loc *loc;
	uint16_t bit_offset, bit_size;
};

/* The parts of a program context each program kind owns. A part is
 * there (its pointer in struct gs_cg not NULL) only in the program that
 * needs it: the step program has none of them. */

/* Source-level values (value*.c, pointer.c, context_type.c): where they
 * are at run time (the address slot, each module's bias and TLS block),
 * the types made for them (pointer arithmetic's "pointer to t") and the
 * context type table entries already added for them. */
struct cg_values {
	int16_t addr_slot;                 /* 24 bytes, see struct cg_place */
	bool any;                          /* the trace reads source-level values */
	uint32_t nbias;                    /* modules whose globals are read */
	uint64_t bias_cookie[CG_MAX_MODULES];
	int16_t bias_slot[CG_MAX_MODULES]; /* u64 bias @0, u64 found @8 */
	uint32_t ntls;                     /* modules whose thread-locals are read */
	uint64_t tls_cookie[CG_MAX_MODULES];
	int16_t tls_slot[CG_MAX_MODULES];  /* value_tls.c */
	struct gs_type *synth[CG_MAX_SYNTH_TYPES]; /* in synth_arena: the build's */
	char synth_names[CG_MAX_SYNTH_TYPES][128];
	uint32_t nsynth;
	struct gs_arena *synth_arena;
	const struct gs_type *added_from[64]; /* types copied into the context ... */
	int added_index[64];                 /* ... and their indices */
	uint32_t nadded;
	/* context types of computed values, -1 until used */
	int type_deref[2][4];              /* [signed][log2 size] */
	int type_i64, type_u64, type_bool;
};

/* Fault-in reads (fault.c, fault_subprog.c): the main program's, with
 * opts.fault_in only. Apart from the values because every user read
 * (emit.c) asks it whether to retry. */
struct cg_fault {
	int16_t gen_slot;    /* u64: read_fault_gen when this hit began */
	int16_t read_slot;   /* 16 bytes: address @0, length @8 */
	struct gs_label fn;  /* the gs_fault_in subprogram ... */
	bool called;         /* ... called by some read (else not emitted) */
	uint32_t btf;        /* its BTF FUNC type */
};

/* The unrolled walker in the main program (backtrace.c; the tail-call
 * walker of the reference): its state and scratch in stack slots, and
 * past depth 5 the chain of bt_state slots handed to the step program
 * (bt_step.c, whose walk state is a bt_state value, in its bt_gen). */
struct cg_tail_walker {
	bool step;            /* depth > 5 with rows: the step program exists */
	uint32_t next_slot;   /* bt_state slot of the next `bt` */
	struct bt_loc st;     /* the walk state, in stack slots */
	struct bt_scratch sc;
	int16_t enabled;      /* u8: some slot was linked in this event */
	int16_t last;         /* u8: the last linked slot */
	int16_t inst_offset;  /* u32: event_offset before the bt reservation */
};

/* The bpf_loop walker (bt_loop.c): `bt` calls its subprogram. */
struct cg_loop_walker {
	struct gs_label walk;          /* gs_bt_walk's entry */
	uint32_t btf_walk, btf_frame;  /* BTF FUNC types of the subprograms */
};

/* The Python walk (py_walk.c): a `bt` with GS_BT_FLAG_PYTHON calls its
 * subprogram, which calls two bpf_loop callbacks. */
struct cg_py_walker {
	struct gs_label walk;                      /* gs_py_walk's entry */
	uint32_t btf_walk, btf_thread, btf_frame;  /* BTF FUNC types of the subprograms */
};

/* The base every emitter gets: the program being written, the spec and
 * options it is written from, the first error, the shared exits; in the
 * main program also the event's framing slots, its byte budget and the
 * statement being compiled. */
struct gs_cg {
	struct gs_asm *a;
	struct gs_program *prog;
	const struct gs_trace_spec *spec;
	struct gs_program_opts opts; /* with defaults filled in */
	struct gs_error *err;
	uint32_t max_size;           /* max_trace_event_size in force */
	uint32_t bt_depth;           /* requested depth, 1..512 (1..128 tail-call walker) */

	/* The expression being compiled, and the one the first error is
	 * about (gs_program_build_at). */
	const struct gs_expr *cur_expr, *fail_at;

	int16_t key_slot;         /* u32 0: key of the one-entry maps */
	struct gs_label exit0;    /* return 0 */

	/* the event (main program: event.c) */
	/* The accumulation buffer's address: the first reservation (the
	 * prologue's, before every other) looks it up and keeps it here, the
	 * others load it. A lookup per reservation, as the reference does,
	 * is a helper call each, and each one the kernel inlines after the
	 * verifier: 200 conditions loaded in 4.5 s instead of 1.1 s. */
	int16_t accum_slot;
	bool accum_saved;        /* the prologue's reservation has been emitted */
	int16_t offset_slot; /* u32 event_offset: the accumulation cursor */
	int16_t flags_slot;  /* u8 any_fail @0, u8 any_success @1 */
	int16_t nsinfo_slot; /* struct bpf_pidns_info, allocated on first use */
	struct gs_label overflow; /* event too large: drop it, count a loss, return 0 */
	/* The event's byte budget, known at build time because every
	 * reservation has a constant size: `used` is the cursor on the
	 * longest path emitted so far, `after` the least the statements
	 * still to come need (their fixed parts, each value at its
	 * smallest slot). A value is captured to what is left between them,
	 * with the Truncated status, so that the event fits. */
	uint32_t used, after;

	/* the statements (main program: stmt.c, expr.c) */
	struct gs_typed *typed;   /* the C type of every expression (spec/ctype.c) */
	int16_t *var_slots;       /* one u64 per `let` variable */
	uint32_t stmt_no;         /* statements begun: each one's label scope "s<n>" */
	/* $duration: the u64 the prologue computed (duration.c), or 0 */
	int16_t duration_slot;
	/* No event: the body only aggregates (gs_stmts_emit_events false). */
	bool quiet;

	/* the parts, NULL where this program has none */
	struct cg_values *values;
	struct cg_fault *fault;
	struct cg_tail_walker *tail;
	struct cg_loop_walker *loop;
	struct cg_py_walker *py;
	/* A CPU sample's user registers (sample.c): a stack slot holding
	 * the pt_regs pointer, or 0 for a task without a user side; 0 (no
	 * slot) in a probe's program, whose registers are its ctx. */
	int16_t sample_regs_slot;
};

/* The flags a `bt` statement is built with: its own, and
 * GS_BT_FLAG_PYTHON on every one when the program walks Python frames
 * (gs_program_opts.python_frames). Every emitter of a bt's instructions
 * asks here. */
static inline uint8_t cg_bt_extra_flags(const struct gs_program_opts *o)
{
	return o->python_frames ? GS_BT_FLAG_PYTHON : 0;
}

static inline uint8_t cg_bt_flags(const struct gs_cg *cg, const struct gs_stmt *s)
{
	return (uint8_t)(s->bt_flags | cg_bt_extra_flags(&cg->opts));
}

/* Whether the main program hands long walks to the step program. */
static inline bool cg_has_step(const struct gs_cg *cg)
{
	return cg->tail && cg->tail->step;
}

/* Small helpers every emitter uses. */
static inline bool cg_fits_imm(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}
static inline bool cg_op_is_compare(int op)
{
	return op >= GS_OP_EQ && op <= GS_OP_GE;
}
/* A value's source text, for messages (the name when it has none). */
static inline const char *cg_text(const struct gs_expr *e)
{
	return e->text ? e->text : e->name ? e->name : "expression";
}
static inline bool cg_is_aggregate(const struct gs_type *t)
{
	return t->kind == GS_TYPE_STRUCT || t->kind == GS_TYPE_UNION;
}
/* The contracts the emitters' comments state, for their assert()s (debug
 * builds): a register an emitter may write is r0-r9 (r10 is the frame
 * pointer), and n bytes at r10 + off lie in a stack slot held now
 * (gs_asm_slot, not yet released). A failed build's slots are
 * placeholders (the sticky error stops emission): no contract then. */
static inline bool cg_writable_reg(uint8_t reg)
{
	return reg < GS_FP;
}
static inline bool cg_slot_held(const struct gs_asm *a, int32_t off, uint32_t n)
{
	return gs_asm_failed(a) || (off < 0 && off >= -a->stack_used && off + (int64_t)n <= 0);
}
/* The typed pass's C type of e (spec/ctype.c), kept in the context. */
static inline struct gs_ctype cg_ctype(const struct gs_cg *cg, const struct gs_expr *e)
{
	return gs_typed_get(cg->typed, e);
}

/* The entry points below, file by file, from the bottom (calls no
 * emitter) to the top (program.c). Files call down, with one circle: the
 * expression compiler (expr.c, operators.c, pointer.c, value.c,
 * view_expr.c, builtin.c), whose operands are expressions again
 * (tests/lib/file_cycles.py allows that circle and no other). */

/* fail.c: records a build error (the first one is kept), about the
 * expression being compiled (cg_fail) or about e (cg_fail_at). */
__attribute__((format(printf, 3, 4)))
void cg_fail(struct gs_cg *cg, int code, const char *fmt, ...);
__attribute__((format(printf, 4, 5)))
void cg_fail_at(struct gs_cg *cg, const struct gs_expr *e, int code, const char *fmt, ...);

/* status.c: the any_fail / any_success flags and error records */
void cg_mark_fail(struct gs_cg *cg);
void cg_mark_success(struct gs_cg *cg);
void cg_err_record_reset(struct gs_cg *cg, const struct cg_err_record *rec);
/* Marks any_fail; records code, errno r1 and address r2 when rec has no
 * error yet (clobbers r3). */
void cg_record_error(struct gs_cg *cg, const struct cg_err_record *rec, uint8_t code);
/* A failure's tail: r1 = errno (the helper's r0, or 0), r2 = the address
 * (the u64 at r10 + addr_slot, or 0 when addr_slot is 0), the first error
 * recorded in rec as `code` (cg_record_error), then a jump to *fail, or
 * on to the caller's code when fail is NULL. Clobbers r1-r3. */
void cg_error_tail(struct gs_cg *cg, const struct cg_err_record *rec, uint8_t code,
		   bool errno_in_r0, int16_t addr_slot, const struct gs_label *fail);

/* emit.c: the emitters every statement kind shares */
/* r0 = bpf_map_lookup_elem(&map of map_kind, key_base + key_off) (key_off 0:
 * the register itself); clobbers r1-r5. cg_map_lookup: a key on the stack. */
void cg_map_lookup_at(struct gs_cg *cg, int map_kind, uint8_t key_base, int16_t key_off);
static inline void cg_map_lookup(struct gs_cg *cg, int map_kind, int16_t key)
{
	cg_map_lookup_at(cg, map_kind, GS_FP, key);
}
/* r0 = entry 0 of a one-entry map; on NULL, return 0 (cg->exit0). */
void cg_lookup_key0(struct gs_cg *cg, int map_kind);
/* map_kind[0] += 1 for a counter of drops or losses: an atomic add (a
 * sleepable hit preempted on its CPU loses no count), or on to missing
 * when the lookup fails. key0 must hold 0. */
void cg_count_one(struct gs_cg *cg, int map_kind, struct gs_label missing);
/* bpf_probe_read_user(_str)(r1 = dst_base + dst_off, r2 = len, r3 = the
 * address); with opts.fault_in, a read that failed is done again once its
 * pages are faulted in (fault.c). Clobbers r0-r5 (r0: the helper's
 * result). */
struct cg_user_read {
	uint8_t dst_base;
	int16_t dst_off;
	int16_t dst_slot;    /* non-zero: the destination is the pointer kept at
			      * r10 + dst_slot (a run-time place in the event),
			      * plus dst_off, instead of dst_base + dst_off */
	uint32_t len;        /* the bytes to read (0 reads none, as the helper allows) */
	bool len_in_r2;      /* r2 holds the length already, at most len */
	bool str;            /* NUL-terminated (probe_read_user_str) */
	bool load_src;       /* r3 = *(u64 *)(src_base + src_off) + src_add, after r1
			      * and r2; else r3 holds the address already */
	uint8_t src_base;
	int16_t src_off;
	int32_t src_add;
	bool save_addr;      /* first keep r3 at r10 + addr_slot */
	int16_t addr_slot;   /* where the address is kept for the error, or 0 */
	/* With fail: a failed read records ReadError {errno, address} in rec
	 * (cg_error_tail) and jumps to *fail; a read that worked goes on at a
	 * label named ok_name ("read_ok" when NULL). */
	const struct cg_err_record *rec;
	const struct gs_label *fail;
	const char *ok_name;
	/* Memory a fault never needs to bring in (the stack the backtrace
	 * walker reads, in subprograms without the fault slot): no retry. */
	bool resident;
};
void cg_read_user(struct gs_cg *cg, const struct cg_user_read *r);
/* r<dst> += offset; past an immediate, through r5 (r4 when dst is r5). */
void cg_add_offset(struct gs_cg *cg, uint8_t dst, int64_t offset);
/* Signed 64-bit division (or modulo) dst = dst / src on any kernel (no BPF
 * v4 sdiv), without a branch: the magnitudes are divided, then the sign
 * put back; src is not 0 and is clobbered, as are tmp and tmp2. */
void cg_signed_divmod(struct gs_cg *cg, uint8_t dst, uint8_t src, uint8_t tmp, uint8_t tmp2,
		      bool mod);
/* Whether a jump to l was emitted since the fixup count was fixup_mark (a
 * failure path nothing jumps to must not be emitted: dead code). */
bool cg_label_used(const struct gs_asm *a, size_t fixup_mark, struct gs_label l);

/* fault.c: a read's second try after its pages are faulted in, in
 * sleepable programs (called by cg_read_user only) */
/* Whether r is done again after a fault (f: the program's fault-in
 * part, NULL without opts.fault_in; r not resident). */
bool cg_fault_read(const struct cg_fault *f, const struct cg_user_read *r);
/* Before the first try: keeps r3 (and r2 when len_in_r2) in the fault
 * part's read slot. */
void cg_fault_save(struct gs_asm *a, const struct cg_fault *f, const struct cg_user_read *r);
/* After the first try (r0 its result): on failure, faults the pages in
 * (gs_fault_in), drops the event when another hit began on this CPU
 * meanwhile (jumps to cg->overflow), and reads again; r0 is then the
 * second try's result. */
void cg_fault_retry(struct gs_cg *cg, const struct cg_user_read *r);

/* fault_subprog.c: read_fault_gen += 1, this hit's number kept in the
 * fault part's gen_slot (nothing without it); the global subprogram
 * gs_fault_in(addr, len, gen), verified once for every read: emitted
 * after the main program. */
void cg_fault_prologue(struct gs_cg *cg);
void cg_fault_subprog(struct gs_cg *cg);

/* convert.c: reg, a value of C type `from` (extended to 64 bits), as C
 * converts it to `to` (nothing emitted when every `from` is a `to`);
 * cg_normalize: reg's low to.size bytes extended as a `to`. */
void cg_convert(struct gs_cg *cg, uint8_t reg, struct gs_ctype from, struct gs_ctype to);
void cg_normalize(struct gs_cg *cg, uint8_t reg, struct gs_ctype to);

/* value_type.c: the type questions about source-level values, answered at
 * build time (nothing emitted; a refusal fails the build). A C++ reference
 * is its referent: cg_value_type is the type of the value e stands for (a
 * reference's target), cg_declared_type the type of what is stored where
 * e is (the reference itself), which cg_place follows. */
const struct gs_type *cg_value_type(struct gs_cg *cg, const struct gs_expr *e);
const struct gs_type *cg_declared_type(struct gs_cg *cg, const struct gs_expr *e);
/* t's target when t is a reference, else t. */
const struct gs_type *cg_referent(const struct gs_type *t);
bool cg_value_unavailable(const struct gs_expr *e);
/* Whether e is a source-level value: gs_expr_is_value, or p + n / p - n
 * over a pointer or an array (a typed pointer). */
bool cg_is_value(const struct gs_cg *cg, const struct gs_expr *e);
/* The pointer type p + n has (an array operand decayed), NULL on failure. */
const struct gs_type *cg_pointer_arith_type(struct gs_cg *cg, const struct gs_expr *e);
/* The type "pointer to t" (one per t, owned by cg). */
const struct gs_type *cg_pointer_to(struct gs_cg *cg, const struct gs_type *t);
/* t's view when it is a sequence or a string with a sized element, else NULL. */
const struct gs_view *cg_seq_view(const struct gs_type *t);
/* The container `x[i]`, `len(x)` and `x == "lit"` see in a value of type t:
 * t itself, or what t points to (a C++ reference is a pointer in DWARF),
 * when that has a sequence or string view; else NULL. */
const struct gs_type *cg_seq_container(const struct gs_type *t);
/* The pointer a std::unique_ptr or std::shared_ptr of type t holds (its
 * offset in t's bytes and its pointer type), or NULL. */
const struct gs_view_field *cg_smart_pointer(const struct gs_type *t);
/* What `x->member` reaches in a value of type t (pointer already
 * followed): t, or the pointee of its smart pointers when t has no such
 * member (`up->x` on a std::unique_ptr<S>). */
const struct gs_type *cg_through_smart_pointers(const struct gs_type *t, const char *member);

/* context_type.c: the context type index of a value of e's type (*size:
 * its byte size), and of a source-level type t. */
int cg_expr_type(struct gs_cg *cg, const struct gs_expr *e, uint8_t *size);
int cg_context_type(struct gs_cg *cg, const struct gs_type *t);
/* The context type index of a 64-bit integer, signed (i64) or not (u64). */
int cg_context_int64(struct gs_cg *cg, bool is_signed);

/* value_tls.c: thread-locals. cg_tls_add: a module whose TLS a trace
 * reads (name: the variable, for the message); cg_tls_prologue: each
 * module's block for the hit thread, once per event (key: the pid key of
 * cg_values_prologue); cg_tls_block: r<dst> = the block of cookie's
 * module, or its failure recorded in rec and a jump to fail (clobbers
 * r0-r3 only then). */
int cg_tls_add(struct gs_cg *cg, uint64_t cookie, const char *name);
void cg_tls_prologue(struct gs_cg *cg, int16_t key);
void cg_tls_block(struct gs_cg *cg, uint64_t cookie, uint8_t dst, const struct cg_err_record *rec,
		  struct gs_label fail);

/* value_base.c: where source-level values start. cg_values_scan finds
 * the modules whose bias or TLS block the values need, and whether any
 * values exist; cg_values_prologue looks each bias up once per event. */
void cg_values_scan(struct gs_cg *cg);
void cg_values_prologue(struct gs_cg *cg);
/* r<dst> = the load bias of cookie's module; missing offsets record
 * OffsetsUnavailable and jump to fail. */
void cg_module_bias(struct gs_cg *cg, uint64_t cookie, uint8_t dst, const struct cg_err_record *rec,
		    struct gs_label fail);

/* value_expr.c: r<dst> = the result of a location program (clobbers r0-r5;
 * a failed read or an unavailable value records it and jumps to fail). */
void cg_loc_program(struct gs_cg *cg, const struct gs_loc_prog *prog, uint64_t cookie,
		    uint8_t dst, const struct cg_err_record *rec, struct gs_label fail);

/* value_read.c: reading a place. cg_static_value: r<dst> = a static
 * base + offset; cg_mem_address: r<dst> = a MEM place's address;
 * cg_place_load: r0 = its scalar; cg_place_store: its len bytes at r9 +
 * off. */
void cg_static_value(struct gs_cg *cg, uint8_t base, uint8_t reg,
		     const struct gs_loc_prog *prog, uint64_t cookie, int64_t offset, uint8_t dst,
		     const struct cg_err_record *rec, struct gs_label fail);
void cg_mem_address(struct gs_cg *cg, const struct cg_place *p, uint8_t dst,
		    const struct cg_err_record *rec, struct gs_label fail);
void cg_place_load(struct gs_cg *cg, const struct cg_place *p, const struct cg_err_record *rec,
		   struct gs_label fail);
void cg_place_store(struct gs_cg *cg, const struct cg_place *p, int16_t off, uint32_t len,
		    const struct cg_err_record *rec, struct gs_label fail);
/* The data pointer of p, a value with view v, into the u64 at r10 +
 * ptr_slot and its length in elements into the u64 at r10 + len_slot (p is
 * in memory or on our stack; clobbers r0-r5). */
void cg_view_bounds(struct gs_cg *cg, const struct cg_place *p, const struct gs_view *v,
		    int16_t ptr_slot, int16_t len_slot, const struct cg_err_record *rec,
		    struct gs_label fail);

/* expr.c: evaluation into r0 (the expression compiler's entry) */
void cg_expr(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);
/* Whether e can fail at run time (a read, a division by zero): its
 * callers keep an error record for it. */
bool cg_expr_reads_memory(const struct gs_expr *e);
/* Whether e is evaluated without a helper call (a literal, a register, a
 * `let` variable, $pc $sp $retval), and its value into reg. */
bool cg_expr_is_simple(const struct gs_expr *e);
void cg_simple_into(struct gs_cg *cg, const struct gs_expr *e, uint8_t reg);

/* operators.c: r0 = e, a binary or unary operator. */
void cg_binary(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);
void cg_unary(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);

/* pointer.c: r0 = e, a + or - with a pointer operand, as C computes it. */
void cg_pointer_arith(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);

/* value.c: where a source-level value is (its place), and its value. */
void cg_place(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec,
	      struct gs_label fail, struct cg_place *p);
/* Makes p, a pointer to a t or a t in registers, a place whose bytes are
 * t's in memory or on our stack, where its fields are offsets. */
void cg_place_reach(struct gs_cg *cg, struct cg_place *p, const struct gs_type *t,
		    const struct cg_err_record *rec, struct gs_label fail);
/* r3 = the address a string, a dump or a comparison reads from. */
void cg_value_address(struct gs_cg *cg, struct cg_place *p, const struct cg_err_record *rec,
		      struct gs_label fail);
/* r0 = e's value (an array: its address); 0 when a read failed. */
void cg_value_expr(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);
/* r0 = the address of e, a value in memory (an array: what it is in an
 * expression); 0 when a read on the way failed (status in rec). */
void cg_object_address(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);

/* view_expr.c: standard-library values in expressions (gs/view.h) */
/* r0 = len(e->lhs): a sequence's or string's length in elements (0 when
 * a read failed, status in rec), a C array's bound. */
void cg_len(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);
/* p (the place of x), a value with a sequence or string view or a
 * reference to one: its data pointer and length into the slots
 * (cg_view_bounds); the view, or NULL after failing the build. */
const struct gs_view *cg_view_bounds_of(struct gs_cg *cg, struct cg_place *p, int16_t ptr_slot,
				       int16_t len_slot, const struct cg_err_record *rec,
				       struct gs_label fail);
const struct gs_view *cg_view_place_bounds(struct gs_cg *cg, const struct gs_expr *x,
					   int16_t ptr_slot, int16_t len_slot,
					   const struct cg_err_record *rec, struct gs_label fail);

/* builtin.c: memcmp, strncmp, starts_with into r0 (1: equal) */
void cg_builtin(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);
/* r0 = e, `s == "lit"` or `s != "lit"` (either side the literal, a
 * GS_EXPR_BYTES): C string equality of a char * or char array with it. */
void cg_string_equal(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec);

/* event.c: the PID filter, prologue, reservations, EndInstruction,
 * emission. program.c runs the prologues: r6 = ctx and the filter
 * (cg_pid_filter, or a sample's cg_sample_prologue), cg_prologue (the
 * walker's gate, key and cursor), the parts' own (duration, fault-in, the
 * walker's chain), then cg_event_begin (header and message). */
/* Exits (return 0) unless the process is gs_program_opts.filter_pid's. */
void cg_pid_filter(struct gs_cg *cg);
void cg_prologue(struct gs_cg *cg);
void cg_event_begin(struct gs_cg *cg);
void cg_reserve(struct gs_cg *cg, uint32_t size);
void cg_end_instruction(struct gs_cg *cg, uint16_t total_instructions);
void cg_emit_event(struct gs_cg *cg, uint8_t size_base, int16_t size_off);
void cg_epilogue(struct gs_cg *cg);

/* sample.c: CPU samples (gs_trace_spec.sample) */
const char *cg_sample_unqualified(const struct gs_trace_spec *spec, const struct gs_program_opts *o);
bool cg_sample_kernel_stack(const struct gs_trace_spec *spec);
void cg_sample_prologue(struct gs_cg *cg);
uint32_t cg_kernel_stack_size(void);
void cg_kernel_stack(struct gs_cg *cg);

/* py_walk.c: the Python walk (GS_BT_FLAG_PYTHON). Whether some `bt` of
 * spec asks for it; why it cannot be built under o (a sentence), or NULL;
 * the bytes its PythonStack instruction reserves; the instruction, after
 * the backtrace's; the subprograms gs_py_walk, gs_py_thread and
 * gs_py_frame, after the main program. */
bool cg_py_wanted(const struct gs_trace_spec *spec, const struct gs_program_opts *o);
const char *cg_py_unqualified(const struct gs_trace_spec *spec, const struct gs_program_opts *o);
uint32_t cg_python_stack_size(const struct gs_cg *cg);
void cg_python_stack(struct gs_cg *cg);
void cg_py_subprogs(struct gs_cg *cg);

/* budget.c: the bytes an event needs, at build time */
#define CG_MIN_SLOT 12 /* the smallest value slot: room for a read error */
/* Bytes a value's slot may take now, when the statement being planned has
 * `fixed` bytes besides it (its header, the arguments planned before, the
 * least the ones after need): never below CG_MIN_SLOT. */
uint32_t cg_budget_room(const struct gs_cg *cg, uint32_t fixed);
/* The least bytes statements reserve on their costliest path. */
uint32_t cg_budget_min_size(const struct gs_cg *cg, const struct gs_stmt *body, size_t n);
uint32_t cg_print_format_min_size(size_t nargs);

/* backtrace.c: the bytes a `bt` instruction reserves (budget.c plans
 * with it; the walkers' entry points are in bt.h). */
uint32_t cg_bt_inst_size(const struct gs_cg *cg);

/* print.c: the print instructions, and ExprError for an expression
 * whose reads failed (text: its source, for the string table) */
void cg_print_string(struct gs_cg *cg, const struct gs_stmt *s);
void cg_print_expr(struct gs_cg *cg, const struct gs_stmt *s);
void cg_print_format(struct gs_cg *cg, const struct gs_stmt *s);
void cg_expr_error(struct gs_cg *cg, const char *text, const struct cg_err_record *rec);

/* aggregate.c: `@name[keys] = fn(x);` (describes the aggregation in
 * prog->aggs) */
void cg_aggregate(struct gs_cg *cg, const struct gs_stmt *s);
/* The bytes of gs_agg_key.keys in use (gs_program_opts.agg_key_bytes). */
uint32_t cg_agg_key_bytes(const struct gs_cg *cg);

/* duration.c: $duration. cg_duration_prologue (main program of a return
 * probe using it): the entry's time found and removed, the difference
 * kept in duration_slot; a return whose entry was not seen ends the
 * program. cg_entry_program: the program at the function's entry that
 * keeps the time, with main_cg's maps and PID filter. */
void cg_duration_prologue(struct gs_cg *cg);
void cg_entry_program(const struct gs_cg *main_cg, struct gs_asm *a);

/* stmt.c: statements and their instruction count */
void cg_stmts(struct gs_cg *cg, const struct gs_stmt *body, size_t n);
/* EndInstruction's count of body's instructions; extra_bt: flags every
 * `bt` has beside its own (cg_bt_flags). */
uint32_t cg_count_instructions(const struct gs_stmt *body, size_t n, uint8_t extra_bt);

#endif /* GS_CODEGEN_CG_H */
