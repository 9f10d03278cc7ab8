/* The event's byte budget at build time. Every reservation has a constant
 * size, so the longest path's cursor is known before the program runs:
 * values are captured to what is left of max_trace_event_size once the
 * statements still to come have their least, and an event only overflows
 * when the fixed parts of its costliest path alone do not fit. */
#include "bt.h"

uint32_t cg_print_format_min_size(size_t nargs)
{
	return GS_INST_HEADER_SIZE + sizeof(struct gs_print_complex_format) +
	       (uint32_t)nargs * (GS_FORMAT_ARG_FIXED_HEADER_LEN + CG_MIN_SLOT);
}

/* The least a statement needs in the event (an if: its condition's
 * ExprError; gs_spec_path_max adds the larger branch). */
static uint64_t stmt_min_size(const struct gs_stmt *s, void *arg)
{
	const struct gs_cg *cg = arg;
	uint32_t error = GS_INST_HEADER_SIZE + sizeof(struct gs_expr_error);

	switch (s->kind) {
	case GS_STMT_PRINT_STRING:
		return GS_INST_HEADER_SIZE + sizeof(struct gs_print_string_index);
	case GS_STMT_PRINT_EXPR:
		return GS_INST_HEADER_SIZE + sizeof(struct gs_print_complex_variable) + CG_MIN_SLOT;
	case GS_STMT_PRINT_FORMAT:
		return cg_print_format_min_size(s->nargs);
	case GS_STMT_LET:
	case GS_STMT_IF:
		/* An if: then the then branch, or a failed condition's
		 * ExprError and maybe the else branch (an `else if`), or the
		 * else branch. */
		return s->expr && cg_expr_reads_memory(s->expr) ? error : 0;
	case GS_STMT_BACKTRACE:
		return cg_bt_inst_size(cg) +
		       ((cg_bt_flags(cg, s) & GS_BT_FLAG_KERNEL) ? cg_kernel_stack_size() : 0) +
		       ((cg_bt_flags(cg, s) & GS_BT_FLAG_PYTHON) ? cg_python_stack_size(cg) : 0);
	default:
		return 0;
	}
}

uint32_t cg_budget_min_size(const struct gs_cg *cg, const struct gs_stmt *body, size_t n)
{
	uint64_t total = gs_spec_path_max(body, n, stmt_min_size, (void *)cg);

	return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

uint32_t cg_budget_room(const struct gs_cg *cg, uint32_t fixed)
{
	uint64_t taken = (uint64_t)cg->used + cg->after + GS_END_INSTRUCTION_SIZE + fixed;

	if (taken + CG_MIN_SLOT >= cg->max_size)
		return CG_MIN_SLOT;
	return cg->max_size - (uint32_t)taken;
}
