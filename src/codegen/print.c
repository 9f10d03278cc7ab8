/* The print instructions (docs/protocol.md, "One event"): PrintStringIndex
 * for literals, PrintComplexVariable for `print expr;`, PrintComplexFormat
 * for `print "fmt", args;`, and ExprError for a condition whose reads
 * failed. Each reserves its exact size, writes its fixed fields as
 * immediates and stores values computed into r0; r9 points at the
 * instruction. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/format.h>

#include "capture.h"

#define VAR_SIZE ((int16_t)sizeof(struct gs_print_complex_variable))
#define ARG_SIZE ((int16_t)sizeof(struct gs_format_arg_fixed)) /* an argument's fixed header */

void cg_print_string(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	int idx = gs_context_string(&cg->prog->ctx, s->text ? s->text : "", cg->err);

	if (idx < 0) {
		cg_fail(cg, idx, "%s", cg->err ? cg->err->msg : "cannot add to the string table");
		return;
	}
	cg_reserve(cg, GS_INST_HEADER_SIZE + sizeof(struct gs_print_string_index));
	gs_asm_notef(a, "PrintStringIndex %d: \"%.40s\"", idx, s->text ? s->text : "");
	cg_inst_header(a, GS_INST_PRINT_STRING_INDEX, sizeof(struct gs_print_string_index));
	CG_ST_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_print_string_index, string_index, idx);
}

static int name_index(struct gs_cg *cg, const struct gs_expr *e)
{
	int idx = gs_context_var_name(&cg->prog->ctx, e->text ? e->text : "expr", cg->err);

	if (idx < 0)
		cg_fail(cg, idx, "%s", cg->err ? cg->err->msg : "cannot add to the variable names");
	return idx;
}

void cg_print_expr(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	const struct gs_expr *e = s->expr;
	struct capture c;
	int name;
	uint32_t fixed = GS_INST_HEADER_SIZE + sizeof(struct gs_print_complex_variable);

	if (!e) {
		cg_fail(cg, -EINVAL, "print: the expression is missing");
		return;
	}
	name = name_index(cg, e);
	cg->cur_expr = e;
	if (cg_plan_capture(cg, e, 0, 0, false, fixed, &c) < 0 || name < 0)
		return;
	cg_reserve(cg, fixed + c.slot);
	gs_asm_notef(a, "PrintComplexVariable: %.40s", e->text ? e->text : "expr");
	cg_inst_header(a, GS_INST_PRINT_COMPLEX_VARIABLE, VAR_SIZE + c.slot);
	CG_ST_FIELDS(a, GS_R9, CG_PAYLOAD, struct gs_print_complex_variable, var_name_index, type_index,
		     CG_PACK(struct gs_print_complex_variable, var_name_index, var_name_index, name) |
		     CG_PACK(struct gs_print_complex_variable, var_name_index, type_index, c.type));
	/* access_path_len 0, status Ok, data_len = the value's size */
	CG_ST_FIELDS(a, GS_R9, CG_PAYLOAD, struct gs_print_complex_variable, access_path_len, data_len,
		     CG_PACK(struct gs_print_complex_variable, access_path_len, data_len, c.len));
	cg_store_capture(cg, e, &c, CG_PAYLOAD + VAR_SIZE,
		      CG_FIELD_OFF(CG_PAYLOAD, struct gs_print_complex_variable, status),
		      CG_FIELD_OFF(CG_PAYLOAD, struct gs_print_complex_variable, data_len));
}

/* One wire argument of a format: its conversion and how long its dump
 * is (a constant, or the argument before it: `.*` and `.name$`). */
struct placeholder {
	char conv;          /* '\0', 'x', 'X', 'p', 's' */
	uint32_t dump_len;  /* .N: 0 for none */
	bool is_length;     /* the length argument of a run-time length */
	bool dyn;           /* a dump whose length is the argument before it */
};

/* The wire arguments fmt takes, placeholder by placeholder (a run-time
 * length takes two); their number, or -1 after failing the build. */
static int parse_placeholders(struct gs_cg *cg, const char *fmt, struct placeholder *v, int max)
{
	struct gs_fmt_item it;
	size_t pos = 0;
	int n = 0;

	while (gs_fmt_next(fmt, &pos, &it)) {
		struct placeholder ph = { .conv = it.conv };

		if (it.kind == GS_FMT_TEXT)
			continue;
		if (it.kind != GS_FMT_VALUE) {
			cg_fail(cg, -EINVAL, "print \"%.60s\": %s", fmt, it.why);
			return -1;
		}
		if (it.len_kind == GS_FMT_LEN_CONST)
			ph.dump_len = it.length;
		if (gs_fmt_args(&it) == 2) {
			if (n < max)
				v[n] = (struct placeholder){ .is_length = true };
			n++;
			ph.dyn = true;
		}
		if (n < max)
			v[n] = ph;
		n++;
	}
	return n;
}

void cg_print_format(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	uint32_t size = GS_INST_HEADER_SIZE + sizeof(struct gs_print_complex_format);
	int fmt = gs_context_string(&cg->prog->ctx, s->text ? s->text : "", cg->err);
	struct placeholder ph[255];
	struct capture caps[255];
	int want = parse_placeholders(cg, s->text ? s->text : "", ph, 255);
	int16_t off, len_off = 0;

	if (fmt < 0) {
		cg_fail(cg, fmt, "%s", cg->err ? cg->err->msg : "cannot add to the string table");
		return;
	}
	if (want < 0)
		return;
	if ((size_t)want != s->nargs || s->nargs > 255) {
		cg_fail(cg, -EINVAL, "print \"%.60s\": %d placeholder%s%s but %zu argument%s%s",
			s->text, want, want == 1 ? "" : "s", strstr(s->text, ".*") ||
			strchr(s->text, '$') ? " (a .* or .name$ length counts one)" : "", s->nargs,
			s->nargs == 1 ? "" : "s", s->nargs > 255 ? " (at most 255)" : "");
		return;
	}
	for (size_t i = 0; i < s->nargs; i++) {
		int rc;

		cg->cur_expr = s->args[i];
		if (ph[i].is_length)
			rc = cg_plan_length(cg, s->args[i], &caps[i]);
		else
			rc = cg_plan_capture(cg, s->args[i], ph[i].conv, ph[i].dump_len, ph[i].dyn,
					  size + cg_print_format_min_size(s->nargs - i) -
					  GS_INST_HEADER_SIZE - sizeof(struct gs_print_complex_format) -
					  CG_MIN_SLOT, &caps[i]);
		if (rc < 0)
			return;
		size += GS_FORMAT_ARG_FIXED_HEADER_LEN + caps[i].slot;
	}
	cg_reserve(cg, size);
	gs_asm_notef(a, "PrintComplexFormat: \"%.40s\"", s->text);
	cg_inst_header(a, GS_INST_PRINT_COMPLEX_FORMAT, size - GS_INST_HEADER_SIZE);
	CG_ST_FIELDS(a, GS_R9, CG_PAYLOAD, struct gs_print_complex_format, format_string_index,
		     reserved,
		     CG_PACK(struct gs_print_complex_format, format_string_index, format_string_index,
			     fmt) |
		     CG_PACK(struct gs_print_complex_format, format_string_index, arg_count, s->nargs));
	off = CG_PAYLOAD + sizeof(struct gs_print_complex_format);
	for (size_t i = 0; i < s->nargs; i++) {
		const struct gs_expr *e = s->args[i];
		int name = name_index(cg, e);

		if (name < 0)
			return;
		cg->cur_expr = e;
		gs_asm_notef(a, "argument %zu: %.40s", i, e->text ? e->text : "expr");
		CG_ST_FIELDS(a, GS_R9, off, struct gs_format_arg_fixed, arg.var_name_index,
			     arg.type_index,
			     CG_PACK(struct gs_format_arg_fixed, arg.var_name_index,
				     arg.var_name_index, name) |
			     CG_PACK(struct gs_format_arg_fixed, arg.var_name_index, arg.type_index,
				     caps[i].type));
		/* access_path_len 0, status Ok, then data_len = the reserved slot */
		CG_ST_FIELDS(a, GS_R9, off, struct gs_format_arg_fixed, arg.access_path_len, data_len,
			     CG_PACK(struct gs_format_arg_fixed, arg.access_path_len, data_len,
				     caps[i].slot));
		caps[i].len_off = len_off;
		cg_store_capture(cg, e, &caps[i], off + ARG_SIZE,
			      CG_FIELD_OFF(off, struct gs_format_arg_fixed, arg.status), -1);
		if (caps[i].is_length)
			len_off = off;
		off += ARG_SIZE + caps[i].slot;
	}
	cg->cur_expr = NULL;
}

void cg_expr_error(struct gs_cg *cg, const char *text, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	int idx = gs_context_string(&cg->prog->ctx, text ? text : "condition", cg->err);

	if (idx < 0) {
		cg_fail(cg, idx, "%s", cg->err ? cg->err->msg : "cannot add to the string table");
		return;
	}
	cg_reserve(cg, GS_INST_HEADER_SIZE + sizeof(struct gs_expr_error));
	gs_asm_notef(a, "ExprError: %.40s", text ? text : "condition");
	cg_inst_header(a, GS_INST_EXPR_ERROR, sizeof(struct gs_expr_error));
	CG_ST_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_expr_error, string_index, idx);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, rec->slot));
	CG_STX_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_expr_error, error_code, GS_R1);
	CG_ST_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_expr_error, flags, 0);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, rec->slot + CG_ERR(addr)));
	CG_STX_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_expr_error, failing_addr, GS_R1);
}
