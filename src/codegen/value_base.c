/* Where source-level values start: the modules whose globals and
 * thread-locals a trace reads (found before the build, at most
 * CG_MAX_MODULES of each), each module's load bias looked up once per
 * event in the prologue, and a module's bias at run time (the static
 * bases a place starts from: value_read.c). */
#include <assert.h>
#include <errno.h>

#include "cg.h"

/* The load bias of a module, computed once per event (cg_values_prologue). */
static int bias_index(const struct cg_values *v, uint64_t cookie)
{
	for (uint32_t i = 0; i < v->nbias; i++)
		if (v->bias_cookie[i] == cookie)
			return (int)i;
	return -1;
}

static bool needs_bias(const struct gs_loc_piece *p)
{
	if (p->kind == GS_LOC_REGISTER)
		return false;
	return p->base == GS_LOC_BASE_MODULE ||
	       (p->base == GS_LOC_BASE_PROGRAM && p->prog && p->prog->has_module);
}

static enum gs_visit collect_cookies(struct gs_visitor *v, const struct gs_expr *e)
{
	struct gs_cg *cg = v->arg;

	cg->values->any |= gs_expr_is_value(e) || e->kind == GS_EXPR_BUILTIN;
	if (e->kind == GS_EXPR_NAME && e->dvar) {
		const struct gs_var_loc *l = &e->dvar->loc;

		for (uint32_t i = 0; i < l->npieces; i++)
			if (l->pieces[i].base == GS_LOC_BASE_TLS && l->pieces[i].kind != GS_LOC_REGISTER &&
			    cg_tls_add(cg, l->cookie, cg_text(e)))
				return GS_VISIT_STOP;
		for (uint32_t i = 0; i < l->npieces; i++)
			if (needs_bias(&l->pieces[i]) && bias_index(cg->values, l->cookie) < 0) {
				if (cg->values->nbias == CG_MAX_MODULES) {
					cg_fail(cg, -E2BIG, "%s: a trace reads globals of at most %d "
						"modules", cg_text(e), CG_MAX_MODULES);
					return GS_VISIT_STOP;
				}
				cg->values->bias_cookie[cg->values->nbias++] = l->cookie;
			}
	}
	return GS_VISIT_CONTINUE;
}

void cg_values_scan(struct gs_cg *cg)
{
	struct gs_visitor v = { .expr = collect_cookies, .arg = cg };

	gs_visit_stmts(&v, cg->spec->body, cg->spec->nbody);
}

/* pid key = pid_aliases[tgid] ?: tgid; then each module's bias (0 and
 * found = 0 when the process's offsets were not written: OffsetsUnavailable
 * at each use, docs/protocol.md, "One event"). */
void cg_values_prologue(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	int16_t key;

	if (!cg->values->nbias && !cg->values->ntls)
		return;
	/* collect_cookies refused a module past these */
	assert(cg->values->nbias <= CG_MAX_MODULES && cg->values->ntls <= CG_MAX_MODULES);
	key = gs_asm_slot(a, "module_key", 16, 8);
	for (uint32_t i = 0; i < cg->values->nbias; i++)
		cg->values->bias_slot[i] = gs_asm_slot(a, "module_bias", 16, 8);
	gs_asm_note(a, "globals: pid key = pid_aliases[tgid] ?: tgid");
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R0, key));
	cg_map_lookup(cg, GS_MAP_PID_ALIASES, key);
	{
		struct gs_label plain = gs_asm_label(a, "globals_pid_not_aliased");

		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, plain);
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R0, 0));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, key));
		gs_asm_bind(a, plain);
	}
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key + 4, 0));
	for (uint32_t i = 0; i < cg->values->nbias; i++) {
		struct gs_label missing = gs_asm_label(a, "module_offsets_missing");
		uint64_t c = cg->values->bias_cookie[i];

		gs_asm_notef(a, "globals: bias of module %016llx = proc_module_offsets[{pid, "
			     "cookie}]", (unsigned long long)c);
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key + 8, (int32_t)(uint32_t)c));
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key + 12, (int32_t)(uint32_t)(c >> 32)));
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, cg->values->bias_slot[i], 0));
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, cg->values->bias_slot[i] + 8, 0));
		cg_map_lookup(cg, GS_MAP_PROC_OFFSETS, key);
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, missing);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, 0));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, cg->values->bias_slot[i]));
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, cg->values->bias_slot[i] + 8, 1));
		gs_asm_bind(a, missing);
	}
	gs_asm_note(a, NULL);
	cg_tls_prologue(cg, key);
}

/* r<dst> = the load bias of cookie's module (cg_values_prologue found
 * it); when the runtime wrote no offsets for the process, records
 * OffsetsUnavailable and jumps to fail. */
void cg_module_bias(struct gs_cg *cg, uint64_t cookie, uint8_t dst, const struct cg_err_record *rec,
		    struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	int i = bias_index(cg->values, cookie);
	struct gs_label found = gs_asm_label(a, "module_offsets_found");

	assert(cg_writable_reg(dst));
	if (i < 0) {
		cg_fail(cg, -EINVAL, "internal error: module %016llx's bias was not "
			"prepared", (unsigned long long)cookie);
		return;
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, dst, GS_FP, cg->values->bias_slot[i] + 8));
	gs_asm_jmp_imm(a, BPF_JNE, dst, 0, found);
	cg_error_tail(cg, rec, GS_VAR_OFFSETS_UNAVAILABLE, false, 0, &fail);
	gs_asm_bind(a, found);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, dst, GS_FP, cg->values->bias_slot[i]));
}
