/* The build error of a program, the bottom of the code generator: every
 * emitter may call it, it calls none. The first error is kept (the
 * assembler's sticky error) with the expression it is about, which
 * gs_program_build_at reports. */
#include <stdarg.h>
#include <stdio.h>

#include "cg.h"

void cg_fail(struct gs_cg *cg, int code, const char *fmt, ...)
{
	char msg[GS_ERROR_MSG_MAX];
	va_list ap;

	if (!gs_asm_failed(cg->a) && !cg->fail_at)
		cg->fail_at = cg->cur_expr;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gs_asm_fail(cg->a, code, "%s", msg);
}

void cg_fail_at(struct gs_cg *cg, const struct gs_expr *e, int code, const char *fmt, ...)
{
	char msg[GS_ERROR_MSG_MAX];
	va_list ap;

	if (!gs_asm_failed(cg->a) && !cg->fail_at)
		cg->fail_at = e;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cg_fail(cg, code, "%s", msg);
}
