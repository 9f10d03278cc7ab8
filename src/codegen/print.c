/* The print instructions (reference spec 1.6): PrintStringIndex for
 * literals, PrintComplexVariable for `print expr;`, PrintComplexFormat for
 * `print "fmt", args;`, and ExprError for a condition whose reads failed.
 * Each reserves its exact size, writes its fixed fields as immediates and
 * stores values computed into r0; r9 points at the instruction. */
#include <errno.h>
#include <string.h>

#include "cg.h"

#define ERR_RECORD_SIZE 16

static uint8_t size_code(uint8_t bytes)
{
	return bytes == 8 ? BPF_DW : bytes == 4 ? BPF_W : bytes == 2 ? BPF_H : BPF_B;
}

/* Width of the value slot: a value that may fail to read reserves room for
 * a gs_read_error_payload instead. */
static uint16_t slot_size(const struct gs_expr *e, uint8_t len)
{
	if (cg_expr_reads_memory(e) && len < sizeof(struct gs_read_error_payload))
		return sizeof(struct gs_read_error_payload);
	return len;
}

static uint32_t inst_header(uint8_t type, uint32_t data_length)
{
	return type | (data_length << 8);
}

void cg_print_string(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	int idx = gs_context_string(&cg->prog->ctx, s->text ? s->text : "", cg->err);

	if (idx < 0) {
		cg_fail(cg, idx, "%s", cg->err->msg);
		return;
	}
	cg_reserve(cg, GS_INST_HEADER_SIZE + sizeof(struct gs_print_string_index));
	gs_asm_notef(a, "PrintStringIndex %d: \"%.40s\"", idx, s->text ? s->text : "");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, 0, inst_header(GS_INST_PRINT_STRING_INDEX, 2)));
	gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_R9, 4, idx));
}

/* Evaluates e and stores it at r9 + off: on success the value (len bytes),
 * else the status byte at r9 + status_off and the error payload at
 * r9 + off. data_len_off >= 0 also rewrites the u16 data_len there to what
 * the error leaves (0 for NULL, 12 for a read error). */
static void store_value(struct gs_cg *cg, const struct gs_expr *e, uint8_t len, int16_t off,
			int16_t status_off, int16_t data_len_off)
{
	struct gs_asm *a = cg->a;
	struct cg_err_record rec;
	size_t mark = gs_asm_stack_mark(a);
	struct gs_label failed, done, null_deref;

	if (!cg_expr_reads_memory(e)) {
		cg_expr(cg, e, NULL);
		gs_asm_emit(a, GS_STX_MEM(size_code(len), GS_R9, GS_R0, off));
		return;
	}
	failed = gs_asm_label(a, "value_read_failed");
	done = gs_asm_label(a, "value_stored");
	null_deref = gs_asm_label(a, "value_null_deref");
	rec.slot = gs_asm_slot(a, "read_error", ERR_RECORD_SIZE, 8);
	cg_err_record_reset(cg, &rec);
	cg_expr(cg, e, &rec);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, rec.slot));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, failed);
	gs_asm_emit(a, GS_STX_MEM(size_code(len), GS_R9, GS_R0, off));
	gs_asm_ja(a, done);

	gs_asm_bind(a, failed);
	gs_asm_note(a, "store the read's status and error payload");
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R9, GS_R1, status_off));
	if (data_len_off >= 0) {
		gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_R9, data_len_off, 0));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, GS_VAR_NULL_DEREF, null_deref);
		gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_R9, data_len_off,
					 sizeof(struct gs_read_error_payload)));
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, rec.slot + 4));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R9, GS_R1, off));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, rec.slot + 8));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R9, GS_R1, off + 4));
	gs_asm_bind(a, null_deref);
	gs_asm_bind(a, done);
	gs_asm_stack_release(a, mark);
}

static int name_index(struct gs_cg *cg, const struct gs_expr *e)
{
	int idx = gs_context_var_name(&cg->prog->ctx, e->text ? e->text : "expr", cg->err);

	if (idx < 0)
		cg_fail(cg, idx, "%s", cg->err->msg);
	return idx;
}

void cg_print_expr(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	const struct gs_expr *e = s->expr;
	uint8_t len;
	int type, name;
	uint16_t slot;

	if (!e) {
		cg_fail(cg, -EINVAL, "print: the expression is missing");
		return;
	}
	type = cg_expr_type(cg, e, &len);
	name = name_index(cg, e);
	if (type < 0 || name < 0)
		return;
	slot = slot_size(e, len);
	cg_reserve(cg, GS_INST_HEADER_SIZE + sizeof(struct gs_print_complex_variable) + slot);
	gs_asm_notef(a, "PrintComplexVariable: %.40s", e->text ? e->text : "expr");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, 0, inst_header(GS_INST_PRINT_COMPLEX_VARIABLE,
							       8 + slot)));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, 4, (uint32_t)name | (uint32_t)type << 16));
	/* access_path_len 0, status Ok, data_len = the value's size */
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, 8, (uint32_t)len << 16));
	store_value(cg, e, len, 12, 9, 10);
}

/* Placeholders `{...}` in fmt, with `{{` and `}}` as escapes. */
static size_t count_placeholders(const char *fmt)
{
	size_t n = 0;

	for (const char *p = fmt; *p; p++) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			p++;
		} else if (*p == '{') {
			n++;
			while (p[1] && p[1] != '}')
				p++;
		}
	}
	return n;
}

void cg_print_format(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	uint32_t size = GS_INST_HEADER_SIZE + sizeof(struct gs_print_complex_format);
	int fmt = gs_context_string(&cg->prog->ctx, s->text ? s->text : "", cg->err);
	size_t want = count_placeholders(s->text ? s->text : "");
	int16_t off;

	if (fmt < 0) {
		cg_fail(cg, fmt, "%s", cg->err->msg);
		return;
	}
	if (want != s->nargs || s->nargs > 255) {
		cg_fail(cg, -EINVAL, "print \"%.60s\": %zu placeholder%s but %zu argument%s%s",
			s->text, want, want == 1 ? "" : "s", s->nargs, s->nargs == 1 ? "" : "s",
			s->nargs > 255 ? " (at most 255)" : "");
		return;
	}
	for (size_t i = 0; i < s->nargs; i++) {
		uint8_t len;

		if (cg_expr_type(cg, s->args[i], &len) < 0)
			return;
		size += GS_FORMAT_ARG_FIXED_HEADER_LEN + slot_size(s->args[i], len);
	}
	cg_reserve(cg, size);
	gs_asm_notef(a, "PrintComplexFormat: \"%.40s\"", s->text);
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, 0, inst_header(GS_INST_PRINT_COMPLEX_FORMAT,
							       size - GS_INST_HEADER_SIZE)));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, 4, (uint32_t)fmt | (uint32_t)s->nargs << 16));
	off = GS_INST_HEADER_SIZE + sizeof(struct gs_print_complex_format);
	for (size_t i = 0; i < s->nargs; i++) {
		const struct gs_expr *e = s->args[i];
		uint8_t len;
		int type = cg_expr_type(cg, e, &len);
		int name = name_index(cg, e);
		uint16_t slot = slot_size(e, len);

		if (name < 0)
			return;
		gs_asm_notef(a, "argument %zu: %.40s", i, e->text ? e->text : "expr");
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, off, (uint32_t)name | (uint32_t)type << 16));
		/* access_path_len 0, status Ok, then data_len = the reserved slot */
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, off + 4, (uint32_t)slot << 16));
		store_value(cg, e, len, off + GS_FORMAT_ARG_FIXED_HEADER_LEN, off + 5, -1);
		off += GS_FORMAT_ARG_FIXED_HEADER_LEN + slot;
	}
}

void cg_expr_error(struct gs_cg *cg, const char *text, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	int idx = gs_context_string(&cg->prog->ctx, text ? text : "condition", cg->err);

	if (idx < 0) {
		cg_fail(cg, idx, "%s", cg->err->msg);
		return;
	}
	cg_reserve(cg, GS_INST_HEADER_SIZE + sizeof(struct gs_expr_error));
	gs_asm_notef(a, "ExprError: %.40s", text ? text : "condition");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, 0, inst_header(GS_INST_EXPR_ERROR, 12)));
	gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_R9, 4, idx));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, rec->slot));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R9, GS_R1, 6));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, 7, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, rec->slot + 8));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R9, GS_R1, 8));
}
