/* Statements: prints, `let`, and if / else if / else with the reference's
 * condition-error rule (a condition whose reads failed emits ExprError and
 * runs neither branch, or moves on to the next `else if`). */
#include <assert.h>
#include <errno.h>

#include "bt.h"

#define ERR_RECORD_SIZE 16

/* A let whose value can fail (a read, a division by zero) says so with
 * ExprError, as a condition does, instead of binding a silent 0. */
static void let_checked(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	struct gs_label ok = gs_asm_label(a, "let_ok");
	size_t mark = gs_asm_stack_mark(a);
	struct cg_err_record rec = { 0 };

	rec.slot = gs_asm_slot(a, "let_error", ERR_RECORD_SIZE, 8);
	cg_err_record_reset(cg, &rec);
	cg_expr(cg, s->expr, &rec);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, cg->var_slots[s->var]));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, rec.slot));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, ok);
	cg_expr_error(cg, s->expr->text, &rec);
	gs_asm_bind(a, ok);
	gs_asm_stack_release(a, mark);
}

static void let(struct gs_cg *cg, const struct gs_stmt *s)
{
	if (s->var >= cg->spec->nvars || !s->expr) {
		cg_fail(cg, -EINVAL, "let: variable index %u is outside the spec's %u variables",
			s->var, cg->spec->nvars);
		return;
	}
	gs_asm_notef(cg->a, "let %.40s", s->text ? s->text : "");
	if (!cg_expr_reads_memory(s->expr)) {
		cg_expr(cg, s->expr, NULL);
		gs_asm_emit(cg->a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, cg->var_slots[s->var]));
		return;
	}
	let_checked(cg, s);
}

static void if_else(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	struct gs_label otherwise = gs_asm_label(a, "if_else");
	struct gs_label end = gs_asm_label(a, "if_end");
	struct gs_label cond_failed = gs_asm_label(a, "if_condition_failed");
	bool reads = cg_expr_reads_memory(s->expr);
	bool else_if = s->nelse == 1 && s->else_body[0].kind == GS_STMT_IF;
	size_t mark = gs_asm_stack_mark(a);
	struct cg_err_record rec = { 0 };
	uint32_t start = cg->used, longest;

	if (!s->expr) {
		cg_fail(cg, -EINVAL, "if: the condition is missing");
		return;
	}
	gs_asm_notef(a, "if %.40s", s->expr->text ? s->expr->text : "");
	if (reads) {
		rec.slot = gs_asm_slot(a, "condition_error", ERR_RECORD_SIZE, 8);
		cg_err_record_reset(cg, &rec);
	}
	cg_expr(cg, s->expr, reads ? &rec : NULL);
	if (reads) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, rec.slot));
		gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, cond_failed);
	}
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, otherwise);
	cg->cur_expr = NULL;
	cg_stmts(cg, s->then_body, s->nthen);
	gs_asm_ja(a, end);
	/* Each path starts where the if did; the event's cursor after it is
	 * the longest path's (an `else if` may follow an ExprError). */
	longest = cg->used;
	cg->used = start;
	if (reads) {
		gs_asm_bind(a, cond_failed);
		cg_expr_error(cg, s->expr->text, &rec);
		gs_asm_ja(a, else_if ? otherwise : end);
		if (cg->used > longest)
			longest = cg->used;
		if (!else_if)
			cg->used = start;
	}
	gs_asm_bind(a, otherwise);
	cg_stmts(cg, s->else_body, s->nelse);
	if (cg->used < longest)
		cg->used = longest;
	gs_asm_bind(a, end);
	gs_asm_stack_release(a, mark);
}

void cg_stmts(struct gs_cg *cg, const struct gs_stmt *body, size_t n)
{
	uint32_t outer = cg->after, rest = cg_budget_min_size(cg, body, n);

	for (size_t i = 0; i < n && !gs_asm_failed(cg->a); i++) {
		const struct gs_stmt *s = &body[i];

		/* What the statements after this one need, at the least: the
		 * body's least is the sum of its statements'. */
		assert(cg_budget_min_size(cg, s, 1) <= rest);
		rest -= cg_budget_min_size(cg, s, 1);
		cg->after = outer + rest;
		/* An error about this statement is about its expression. */
		cg->cur_expr = s->expr;
		/* Its labels read "s<n>.name", n counting statements in source
		 * order, nested ones too: not "s<if>.s<n>". */
		uint32_t scope = gs_asm_scope_set(cg->a, 0);

		gs_asm_scope_enter(cg->a, "s", (int32_t)cg->stmt_no++);
		switch (s->kind) {
		case GS_STMT_PRINT_STRING:
			cg_print_string(cg, s);
			break;
		case GS_STMT_PRINT_FORMAT:
			cg_print_format(cg, s);
			break;
		case GS_STMT_PRINT_EXPR:
			cg_print_expr(cg, s);
			break;
		case GS_STMT_LET:
			let(cg, s);
			break;
		case GS_STMT_IF:
			if_else(cg, s);
			break;
		case GS_STMT_BACKTRACE:
			cg_backtrace(cg, s);
			break;
		case GS_STMT_AGGREGATE:
			cg_aggregate(cg, s);
			break;
		default:
			cg_fail(cg, -EINVAL, "statement %zu has unknown kind %d", i, s->kind);
			break;
		}
		gs_asm_scope_set(cg->a, scope);
		cg->cur_expr = NULL;
	}
	cg->after = outer;
}

/* What EndInstruction reports (docs/protocol.md, "One event", its
 * total_instructions): prints and backtraces count
 * one, `let` none (one when its value can fail), an `if` the larger of its
 * branches. */
static uint64_t instructions(const struct gs_stmt *s, void *arg)
{
	uint8_t bt_flags = (uint8_t)(s->bt_flags | *(const uint8_t *)arg);

	switch (s->kind) {
	case GS_STMT_LET: /* nothing, or ExprError when its value fails */
		return cg_expr_reads_memory(s->expr);
	case GS_STMT_IF: /* its branches: gs_spec_path_max takes the larger */
	case GS_STMT_AGGREGATE: /* nothing in the event */
		return 0;
	case GS_STMT_BACKTRACE: /* and a sample's KernelStack, and a PythonStack */
		return 1u + !!(bt_flags & GS_BT_FLAG_KERNEL) + !!(bt_flags & GS_BT_FLAG_PYTHON);
	default:
		return 1;
	}
}

uint32_t cg_count_instructions(const struct gs_stmt *body, size_t n, uint8_t extra_bt)
{
	uint64_t total = gs_spec_path_max(body, n, instructions, &extra_bt);

	return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}
