/* How a printed value is captured into its instruction, for
 * PrintComplexVariable and PrintComplexFormat alike (print.c): the plan
 * (the bytes it takes, its context type, truncated to what the event's
 * budget leaves) made before the instruction is reserved, then the
 * stores: a script value, a source-level value's bytes, a string up to
 * its NUL, a dump of N bytes, a literal; a failed read as its status and
 * error payload. */
#include <errno.h>
#include <string.h>

#include "capture.h"

#define ERR_RECORD_SIZE ((uint16_t)sizeof(struct cg_err_slot))
/* A value's status byte and u16 data_len, in a PrintComplexVariable or in
 * a format argument alike: the stores below serve both. */
#define STATUS CG_BPF_SIZE(CG_FIELD_SIZE(struct gs_format_arg, status))
#define DATA_LEN CG_BPF_SIZE(CG_FIELD_SIZE(struct gs_format_arg_fixed, data_len))
_Static_assert(CG_FIELD_SIZE(struct gs_print_complex_variable, status) ==
	       CG_FIELD_SIZE(struct gs_format_arg, status) &&
	       CG_FIELD_SIZE(struct gs_print_complex_variable, data_len) ==
	       CG_FIELD_SIZE(struct gs_format_arg_fixed, data_len),
	       "a value's status and data_len have one width in both instructions");

/* Width of the value slot: a value that may fail to read reserves room for
 * a gs_read_error_payload instead. */
static uint16_t slot_size(const struct gs_expr *e, uint8_t len)
{
	if (cg_expr_reads_memory(e) && len < sizeof(struct gs_read_error_payload))
		return sizeof(struct gs_read_error_payload);
	return len;
}

/* After a failed read: the status byte at r9 + status_off and the error
 * payload at r9 + off; data_len_off >= 0 also rewrites the u16 data_len
 * there to what the error leaves (0 for NULL, 12 for a read error). */
static void store_failure(struct gs_cg *cg, const struct cg_err_record *rec, int16_t off,
			  int16_t status_off, int16_t data_len_off, bool source_value,
			  bool code_in_r1)
{
	struct gs_asm *a = cg->a;
	struct gs_label null_deref = gs_asm_label(a, "value_null_deref");

	gs_asm_note(a, "store the read's status and error payload");
	if (!code_in_r1)
		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, rec->slot));
	gs_asm_emit(a, GS_STX_MEM(STATUS, GS_R9, GS_R1, status_off));
	if (data_len_off >= 0) {
		gs_asm_emit(a, GS_ST_MEM(DATA_LEN, GS_R9, data_len_off, 0));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_VAR_NULL_DEREF, null_deref);
		/* Only source-level values can miss offsets or be optimized out. */
		if (source_value) {
			gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_VAR_OFFSETS_UNAVAILABLE, null_deref);
			gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_VAR_ACCESS_ERROR, null_deref);
		}
		gs_asm_emit(a, GS_ST_MEM(DATA_LEN, GS_R9, data_len_off,
					 sizeof(struct gs_read_error_payload)));
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, rec->slot + CG_ERR(err)));
	CG_STX_FIELD(a, GS_R9, off, struct gs_read_error_payload, errno_value, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, rec->slot + CG_ERR(addr)));
	CG_STX_FIELD(a, GS_R9, off, struct gs_read_error_payload, addr, GS_R1);
	gs_asm_bind(a, null_deref);
}

static enum gs_visit is_value(struct gs_visitor *v, const struct gs_expr *e)
{
	(void)v;
	return gs_expr_is_value(e) || e->kind == GS_EXPR_BUILTIN ? GS_VISIT_STOP : GS_VISIT_CONTINUE;
}

/* Whether e holds a source-level value or a builtin anywhere. */
static bool has_value(const struct gs_expr *e)
{
	struct gs_visitor v = { .expr = is_value };

	return gs_visit_expr(&v, e);
}

/* Evaluates e and stores it at r9 + off: on success the value (len bytes),
 * else the failure (store_failure). */
static void store_value(struct gs_cg *cg, const struct gs_expr *e, uint8_t len, int16_t off,
			int16_t status_off, int16_t data_len_off)
{
	struct gs_asm *a = cg->a;
	struct cg_err_record rec;
	size_t mark = gs_asm_stack_mark(a);
	struct gs_label failed, done;

	if (!cg_expr_reads_memory(e)) {
		cg_expr(cg, e, NULL);
		gs_asm_emit(a, GS_STX_MEM(cg_bpf_size(len), GS_R9, GS_R0, off));
		return;
	}
	failed = gs_asm_label(a, "value_read_failed");
	done = gs_asm_label(a, "value_stored");
	rec.slot = gs_asm_slot(a, "read_error", ERR_RECORD_SIZE, 8);
	cg_err_record_reset(cg, &rec);
	cg_expr(cg, e, &rec);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, rec.slot));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, failed);
	gs_asm_emit(a, GS_STX_MEM(cg_bpf_size(len), GS_R9, GS_R0, off));
	gs_asm_ja(a, done);

	gs_asm_bind(a, failed);
	store_failure(cg, &rec, off, status_off, data_len_off, has_value(e), true);
	gs_asm_bind(a, done);
	gs_asm_stack_release(a, mark);
}

static int flat_type(struct gs_cg *cg, uint8_t kind, uint32_t size, uint8_t flags,
		     const char *name)
{
	struct gs_type t = { .kind = kind, .size = size <= 8 ? (uint8_t)size : 0, .name = name,
			     .flags = flags, .byte_size = size };

	return gs_context_add_type(&cg->prog->ctx, &t, cg->err);
}

/* Plans the capture of e with conversion conv ('\0', 'x', 'X', 'p', 's')
 * and static length dump_len (0: none), or a run-time length (dyn: up to
 * max_string_len bytes, as many as the argument before says); `fixed` is
 * what the statement needs besides this value's slot. */
int cg_plan_capture(struct gs_cg *cg, const struct gs_expr *e, char conv, uint32_t dump_len,
		    bool dyn, uint32_t fixed, struct capture *c)
{
	const struct gs_type *t;
	uint32_t cap = cg->opts.max_string_len;
	uint32_t room = cg_budget_room(cg, fixed);

	memset(c, 0, sizeof(*c));
	if (e->kind == GS_EXPR_BYTES) {
		if (dump_len || dyn || (conv && conv != 's')) {
			cg_fail_at(cg, e, -EINVAL, "%s: a string of the script prints with {} or {:s}",
				e->text ? e->text : "string");
			return -EINVAL;
		}
		c->kind = CAPTURE_LITERAL;
		c->len = e->nbytes + 1; /* with its NUL */
		if (c->len > room) {
			c->len = room;
			c->truncated = true;
		}
		c->slot = (uint16_t)(c->len < CG_MIN_SLOT ? CG_MIN_SLOT : c->len);
		c->type = flat_type(cg, GS_TYPE_CSTRING, c->len, GS_TYPEF_CHAR, "char[]");
		return c->type < 0 ? c->type : 0;
	}
	if (!cg_is_value(cg, e)) {
		uint8_t len;

		if (dump_len || dyn || conv == 's') {
			cg_fail_at(cg, e, -EINVAL, "%s: {:%c%s} reads memory, and needs a pointer, an "
				"array or a variable, not a %s", e->text ? e->text : "expr",
				conv ? conv : 'x', dump_len ? ".N" : dyn ? ".*" : "",
				e->kind == GS_EXPR_DEREF ? "value read from memory" : "script integer");
			return -EINVAL;
		}
		c->kind = CAPTURE_SCALAR;
		c->type = cg_expr_type(cg, e, &len);
		c->len = len;
		c->slot = slot_size(e, len);
		return c->type < 0 ? c->type : 0;
	}
	t = cg_value_type(cg, e);
	if (!t)
		return -EINVAL;
	if (cap > room)
		cap = room;
	if (cg_value_unavailable(e)) {
		c->kind = CAPTURE_MISSING;
		c->type = flat_type(cg, GS_TYPE_OPTIMIZED_OUT, 0, 0, t->name);
		return c->type < 0 ? c->type : 0;
	}
	if (dump_len || dyn) {
		if (t->kind != GS_TYPE_POINTER && t->kind != GS_TYPE_ARRAY &&
		    !(t->kind == GS_TYPE_STRUCT || t->kind == GS_TYPE_UNION)) {
			cg_fail_at(cg, e, -EINVAL, "%s: {:%c.N} dumps memory from a pointer, an array or "
				"a struct, not from a value of type %s", e->text ? e->text : "expr",
				conv ? conv : 'x', t->name);
			return -EINVAL;
		}
		c->kind = CAPTURE_DUMP;
		c->dyn = dyn;
		c->len = !dyn && dump_len < cap ? dump_len : cap;
		c->truncated = !dyn && dump_len > c->len;
		c->slot = (uint16_t)(c->len < 12 ? 12 : c->len);
		c->type = flat_type(cg, GS_TYPE_ARRAY, c->len, conv == 's' ? GS_TYPEF_CHAR : 0,
				    conv == 's' ? "char[]" : "u8[]");
		return c->type < 0 ? c->type : 0;
	}
	if (conv == 's' && cg_seq_container(t) &&
	    cg_seq_container(t)->view->kind == GS_VIEW_STRING) {
		/* std::string, string_view, String, &str: no NUL to stop at
		 * (a str points into a longer buffer), the length says where
		 * the text ends */
		c->kind = CAPTURE_VIEW_TEXT;
		if (cap >= room)
			cap = room - 1;
		c->len = cap + 1;
		c->slot = (uint16_t)(c->len < CG_MIN_SLOT ? CG_MIN_SLOT : c->len);
		c->type = flat_type(cg, GS_TYPE_CSTRING, c->len, GS_TYPEF_CHAR, t->name);
		return c->type < 0 ? c->type : 0;
	}
	if (conv == 's') {
		const struct gs_type *el = t->target;

		if ((t->kind != GS_TYPE_POINTER && t->kind != GS_TYPE_ARRAY) || !el ||
		    !(el->flags & GS_TYPEF_CHAR || el->byte_size == 1)) {
			cg_fail_at(cg, e, -EINVAL, "%s: {:s} reads a char * or a char array, not a "
				"value of type %s", e->text ? e->text : "expr", t->name);
			return -EINVAL;
		}
		/* C's string: up to its NUL, at most cap bytes shown. A char
		 * array that fits is read whole (no NUL needed, as in C and
		 * gdb); anything else through the NUL-terminated read, one
		 * byte more than shown so that a string of exactly cap bytes
		 * is not taken for a longer one. */
		c->kind = CAPTURE_STRING;
		if (cap >= room)
			cap = room - 1;
		c->exact = t->kind == GS_TYPE_ARRAY && t->count && t->count <= cap;
		c->len = c->exact ? t->count : cap + 1;
		c->slot = (uint16_t)(c->len < CG_MIN_SLOT ? CG_MIN_SLOT : c->len);
		c->type = flat_type(cg, GS_TYPE_CSTRING, c->len, GS_TYPEF_CHAR, t->name);
		return c->type < 0 ? c->type : 0;
	}
	c->kind = CAPTURE_VALUE;
	c->len = t->byte_size;
	if (c->len > room) {
		c->len = room;
		c->truncated = true;
	}
	/* What its views read comes after its bytes, when all of it fits
	 * (else the decoder shows the views as not read); {:x} and {:p}
	 * show the bytes alone. */
	c->ext = conv ? 0 : gs_view_ext_size(&cg->prog->ctx.view_caps, t, 0);
	if (c->truncated || c->ext > GS_VIEW_MAX_EXT || c->ext > room - c->len)
		c->ext = 0;
	c->len += c->ext;
	c->slot = (uint16_t)(c->len < 12 ? 12 : c->len);
	c->type = cg_context_type(cg, t);
	return c->type < 0 ? c->type : 0;
}

/* The length argument of a run-time length: a signed 64-bit integer,
 * whatever its expression's type. */
int cg_plan_length(struct gs_cg *cg, const struct gs_expr *e, struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = CAPTURE_SCALAR;
	c->len = 8;
	c->slot = slot_size(e, 8);
	c->type = cg_context_int64(cg, true);
	c->is_length = true;
	return c->type < 0 ? c->type : 0;
}

/* r2 = the run-time length of a dump: the i64 the length argument (its
 * header at r9 + c->len_off) holds, capped at c->len (Truncated); a length of 0 or
 * less, or one whose read failed, makes the dump ZeroLength (-> done).
 * Clobbers r1. */
static void dyn_length(struct gs_cg *cg, const struct capture *c, int16_t status_off,
		       struct gs_label done)
{
	struct gs_asm *a = cg->a;
	struct gs_label zero = gs_asm_label(a, "dump_length_zero");
	struct gs_label capped = gs_asm_label(a, "dump_length_ok");
	const char *prev = gs_asm_notef(a, "dump length = the argument before, 1..%u", c->len);

	gs_asm_emit(a, GS_LDX_MEM(STATUS, GS_R1, GS_R9,
				  CG_FIELD_OFF(c->len_off, struct gs_format_arg, status)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, GS_VAR_OK, zero);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R9,
				  c->len_off + (int16_t)sizeof(struct gs_format_arg_fixed)));
	gs_asm_jmp_imm(a, BPF_JSLE, GS_R2, 0, zero);
	gs_asm_jmp_imm(a, BPF_JLE, GS_R2, (int32_t)c->len, capped);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)c->len));
	gs_asm_emit(a, GS_ST_MEM(STATUS, GS_R9, status_off, GS_VAR_TRUNCATED));
	cg_mark_fail(cg);
	gs_asm_ja(a, capped);
	gs_asm_bind(a, zero);
	gs_asm_emit(a, GS_ST_MEM(STATUS, GS_R9, status_off, GS_VAR_ZERO_LENGTH));
	gs_asm_ja(a, done);
	gs_asm_bind(a, capped);
	gs_asm_note(a, prev);
}

/* After a NUL-terminated read of c->len = cap + 1 bytes into r9 + off
 * (r0 = the bytes read, NUL included): when cap bytes came before the NUL
 * the read put in, the string goes on iff the source's byte at cap is not
 * NUL. That byte is read again (it is there: the string's own NUL or one
 * of its characters) and the shown text ends at cap either way. */
static void string_end(struct gs_cg *cg, const struct capture *c, int16_t off, int16_t status_off)
{
	struct gs_asm *a = cg->a;
	struct gs_label whole = gs_asm_label(a, "string_whole");
	int16_t last = (int16_t)(off + c->len - 1);
	const char *prev = gs_asm_notef(a, "string: does it go on past %u bytes?", c->len - 1);

	gs_asm_jmp_imm(a, BPF_JLT, GS_R0, (int32_t)c->len, whole);
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9, .dst_off = last, .len = 1,
						 .load_src = true, .src_base = GS_FP,
						 .src_off = cg->values->addr_slot + 8,
						 .src_add = (int32_t)(c->len - 1) });
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R9, last));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, last, 0));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, whole);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, whole);
	gs_asm_emit(a, GS_ST_MEM(STATUS, GS_R9, status_off, GS_VAR_TRUNCATED));
	cg_mark_fail(cg);
	gs_asm_bind(a, whole);
	gs_asm_note(a, prev);
}

/* {:s} of a standard-library string into r9 + off: min(its length, cap)
 * bytes from its data pointer (a longer text is Truncated), then a NUL. */
static void view_text(struct gs_cg *cg, const struct gs_expr *e, struct cg_place *p,
		      const struct capture *c, int16_t off, int16_t status_off,
		      const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	uint32_t cap = c->len - 1;
	int16_t ptr = gs_asm_slot(a, "view_data", 8, 8);
	int16_t len = gs_asm_slot(a, "view_length", 8, 8);
	struct gs_label fits = gs_asm_label(a, "view_text_fits");
	struct gs_label ended = gs_asm_label(a, "view_text_ended");
	const char *prev = gs_asm_notef(a, "{:s} of %s: its length's bytes, at most %u",
					cg_text(e), cap);

	cg_view_bounds_of(cg, p, ptr, len, rec, fail);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, len));
	gs_asm_jmp_imm(a, BPF_JLE, GS_R2, (int32_t)cap, fits);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)cap));
	gs_asm_emit(a, GS_ST_MEM(STATUS, GS_R9, status_off, GS_VAR_TRUNCATED));
	cg_mark_fail(cg);
	gs_asm_bind(a, fits);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, len));
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9, .dst_off = off, .len = cap,
						 .len_in_r2 = true, .load_src = true,
						 .src_base = GS_FP, .src_off = ptr, .addr_slot = ptr,
						 .rec = rec, .fail = &fail,
						 .ok_name = "view_text_read_ok" });
	/* the NUL after the text; the bound again for the verifier */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, len));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R1, (int32_t)cap, ended);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R9));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R2, off, 0));
	gs_asm_bind(a, ended);
	gs_asm_note(a, prev);
}

/* Captures a source-level value into r9 + off (data_len at data_len_off
 * when >= 0: PrintComplexVariable's exact length). */
void cg_store_capture(struct gs_cg *cg, const struct gs_expr *e, const struct capture *c,
		      int16_t off, int16_t status_off, int16_t data_len_off)
{
	struct gs_asm *a = cg->a;
	struct cg_err_record rec;
	size_t mark = gs_asm_stack_mark(a);
	struct gs_label fail = gs_asm_label(a, "capture_failed");
	struct gs_label done = gs_asm_label(a, "capture_done");
	struct cg_place p;
	size_t fixups;

	if (c->kind == CAPTURE_SCALAR) {
		store_value(cg, e, (uint8_t)c->len, off, status_off, data_len_off);
		return;
	}
	if (c->kind == CAPTURE_MISSING)
		return;
	if (c->kind == CAPTURE_LITERAL) {
		for (uint32_t i = 0; i < c->len; i++)
			gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, off + (int16_t)i,
						 i < e->nbytes ? e->bytes[i] : 0));
		if (c->truncated)
			gs_asm_emit(a, GS_ST_MEM(STATUS, GS_R9, status_off, GS_VAR_TRUNCATED));
		return;
	}
	rec.slot = gs_asm_slot(a, "read_error", ERR_RECORD_SIZE, 8);
	cg_err_record_reset(cg, &rec);
	fixups = a->nfixups;
	cg_place(cg, e, &rec, fail, &p);
	if (gs_asm_failed(a))
		return;
	if (c->kind == CAPTURE_VALUE && p.bit_size) {
		cg_place_load(cg, &p, &rec, fail);
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R0));
		for (uint32_t i = 0; i < c->len && i < 8; i++) {
			gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R9, GS_R1, off + (int16_t)i));
			gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 8));
		}
	} else if (c->kind == CAPTURE_VIEW_TEXT) {
		view_text(cg, e, &p, c, off, status_off, &rec, fail);
	} else if (c->kind == CAPTURE_VALUE) {
		if (p.kind == CG_PLACE_NONE) {
			cg_error_tail(cg, &rec, GS_VAR_ACCESS_ERROR, false, 0, &fail);
		} else {
			cg_place_store(cg, &p, off, c->len - c->ext, &rec, fail);
			if (c->ext)
				cg_capture_views(cg, cg_value_type(cg, e), off);
		}
	} else {
		cg_value_address(cg, &p, &rec, fail);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, cg->values->addr_slot + 8));
		if (c->dyn)
			dyn_length(cg, c, status_off, done);
		bool terminated = c->kind == CAPTURE_STRING && !c->exact;

		/* the dyn length is in r2 (dyn_length) */
		cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9, .dst_off = off,
							 .len = c->len, .len_in_r2 = c->dyn,
							 .str = terminated,
							 .addr_slot = cg->values->addr_slot + 8,
							 .rec = &rec, .fail = &fail,
							 .ok_name = "capture_read_ok" });
		if (terminated)
			string_end(cg, c, off, status_off);
	}
	cg_mark_success(cg);
	if (c->truncated) {
		gs_asm_emit(a, GS_ST_MEM(STATUS, GS_R9, status_off, GS_VAR_TRUNCATED));
		cg_mark_fail(cg);
	}
	if (cg_label_used(a, fixups, fail)) {
		gs_asm_ja(a, done);
		gs_asm_bind(a, fail);
		store_failure(cg, &rec, off, status_off, data_len_off, true, false);
	}
	gs_asm_bind(a, done);
	gs_asm_stack_release(a, mark);
}
