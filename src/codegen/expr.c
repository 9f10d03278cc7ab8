/* Expressions of the script, evaluated into r0 (clobbering r0-r5): integer
 * literals, special variables, pt_regs registers, `let` variables, and
 * dereferences of user memory through bpf_probe_read_user with the
 * statuses of docs/protocol.md, "One event"; operators (C precedence already
 * resolved by the parser) in operators.c, source-level values in value*.c. */
#include <errno.h>

#include "cg.h"

bool cg_expr_is_simple(const struct gs_expr *e)
{
	switch (e->kind) {
	case GS_EXPR_INT:
	case GS_EXPR_REG:
	case GS_EXPR_VAR:
		return true;
	case GS_EXPR_SPECIAL:
		return e->special == GS_SPECIAL_PC || e->special == GS_SPECIAL_SP ||
		       e->special == GS_SPECIAL_RETVAL || e->special == GS_SPECIAL_DURATION;
	default:
		return false;
	}
}

/* A division or modulo whose divisor may be zero at run time. */
static bool divides_unsafely(const struct gs_expr *e)
{
	return e->kind == GS_EXPR_BINARY && (e->op == GS_OP_DIV || e->op == GS_OP_MOD) &&
	       !(e->rhs && e->rhs->kind == GS_EXPR_INT && e->rhs->value != 0);
}

/* Whether e can fail at run time (a read, or a division by zero): its
 * callers then keep an error record for it. */
static enum gs_visit can_fail(struct gs_visitor *v, const struct gs_expr *e)
{
	(void)v;
	return divides_unsafely(e) || e->kind == GS_EXPR_DEREF || gs_expr_is_value(e) ?
		       GS_VISIT_STOP : GS_VISIT_CONTINUE;
}

bool cg_expr_reads_memory(const struct gs_expr *e)
{
	struct gs_visitor v = { .expr = can_fail };

	return gs_visit_expr(&v, e);
}

static void load_int(struct gs_cg *cg, uint8_t reg, int64_t v)
{
	if (cg_fits_imm(v))
		gs_asm_emit(cg->a, GS_MOV64_IMM(reg, (int32_t)v));
	else
		gs_asm_ld_imm64(cg->a, reg, (uint64_t)v);
}

/* A DWARF register's pt_regs offset, or -1 after failing the build. */
static int reg_offset(struct gs_cg *cg, const struct gs_expr *e)
{
	if (e->reg <= GS_DWARF_REG_MAX)
		return gs_dwarf_reg_pt_regs_offset[e->reg];
	if (e->reg >= 17 && e->reg <= 32)
		cg_fail_at(cg, e, -EINVAL, "%s: uprobe pt_regs does not expose XMM register values "
			"(DWARF register %u)", e->text ? e->text : "register", e->reg);
	else
		cg_fail_at(cg, e, -EINVAL, "%s: unsupported DWARF register %u (x86_64 has 0..16 "
			"in pt_regs)", e->text ? e->text : "register", e->reg);
	return -1;
}

/* Evaluates a simple expression (no helper call) straight into `reg`. */
void cg_simple_into(struct gs_cg *cg, const struct gs_expr *e, uint8_t reg)
{
	struct gs_asm *a = cg->a;
	int off;

	switch (e->kind) {
	case GS_EXPR_INT:
		load_int(cg, reg, e->value);
		break;
	case GS_EXPR_REG:
		off = reg_offset(cg, e);
		if (off >= 0)
			gs_asm_emit(a, GS_LDX_MEM(BPF_DW, reg, GS_R6, off));
		break;
	case GS_EXPR_VAR:
		if (e->var >= cg->spec->nvars) {
			cg_fail(cg, -EINVAL, "variable %s (index %u) was never defined with let",
				e->text ? e->text : "?", e->var);
			break;
		}
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, reg, GS_FP, cg->var_slots[e->var]));
		break;
	case GS_EXPR_SPECIAL:
		if (e->special == GS_SPECIAL_DURATION) {
			if (!cg->duration_slot) {
				cg_fail(cg, -EINVAL, "$duration is known only in a return probe");
				break;
			}
			gs_asm_emit(a, GS_LDX_MEM(BPF_DW, reg, GS_FP, cg->duration_slot));
			break;
		}
		/* fall through */
	default: /* $pc, $sp, $retval */
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, reg, GS_R6, e->special == GS_SPECIAL_PC ?
					  GS_PT_REGS_IP : e->special == GS_SPECIAL_SP ?
					  GS_PT_REGS_SP : GS_PT_REGS_AX));
		break;
	}
}

/* $pid and $tid as seen in the configured PID namespace (helper 120),
 * falling back to host values when the helper fails. */
static void special_pid(struct gs_cg *cg, enum gs_special which)
{
	struct gs_asm *a = cg->a;
	const struct gs_program_opts *o = &cg->opts;
	uint64_t dev = o->pid_ns_ino ? o->pid_ns_dev : o->special_ns_dev;
	uint64_t ino = o->pid_ns_ino ? o->pid_ns_ino : o->special_ns_ino;
	struct gs_label host = gs_asm_label(a, "pid_host_fallback");
	struct gs_label done = gs_asm_label(a, "pid_done");

	if (ino) {
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, cg->nsinfo_slot, 0));
		gs_asm_ld_imm64(a, GS_R1, dev);
		gs_asm_ld_imm64(a, GS_R2, ino);
		gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, cg->nsinfo_slot));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 8));
		gs_asm_call(a, BPF_FUNC_get_ns_current_pid_tgid);
		gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, host);
		/* struct bpf_pidns_info { u32 pid; u32 tgid; } */
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R0, GS_FP,
					  cg->nsinfo_slot + (which == GS_SPECIAL_TID ? 0 : 4)));
		gs_asm_ja(a, done);
	}
	gs_asm_bind(a, host);
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	if (which == GS_SPECIAL_TID)
		gs_asm_emit(a, GS_MOV32_REG(GS_R0, GS_R0));
	else
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
	gs_asm_bind(a, done);
}

static void special(struct gs_cg *cg, const struct gs_expr *e)
{
	struct gs_asm *a = cg->a;

	switch (e->special) {
	case GS_SPECIAL_PID:
	case GS_SPECIAL_TID:
		special_pid(cg, e->special);
		break;
	case GS_SPECIAL_HOST_PID:
		gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
		break;
	case GS_SPECIAL_TIMESTAMP:
		gs_asm_call(a, BPF_FUNC_ktime_get_ns);
		break;
	default:
		cg_simple_into(cg, e, GS_R0);
		break;
	}
}

/* *(size *)(addr): NULL -> NullDeref, helper error -> ReadError with its
 * errno and the address; either way the value is 0 and any_fail is set. */
static void deref(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	size_t mark = gs_asm_stack_mark(a);
	int16_t addr = gs_asm_slot(a, "read_addr", 8, 8);
	int16_t buf = gs_asm_slot(a, "read_buf", 8, 8);
	struct gs_label null = gs_asm_label(a, "read_null");
	struct gs_label failed = gs_asm_label(a, "read_failed");
	struct gs_label done = gs_asm_label(a, "read_done");
	int shift = 64 - 8 * e->size;
	const char *prev;

	if (e->size != 1 && e->size != 2 && e->size != 4 && e->size != 8) {
		cg_fail_at(cg, e, -EINVAL, "%s: a read is 1, 2, 4 or 8 bytes, not %u",
			e->text ? e->text : "dereference", e->size);
		return;
	}
	cg_expr(cg, e->lhs, rec);
	prev = gs_asm_notef(a, "read %u bytes of user memory: %s", e->size, e->text ? e->text : "*");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, addr));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R0));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, null);
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = buf,
						 .len = e->size });
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, failed);
	gs_asm_emit(a, GS_LDX_MEM(cg_bpf_size(e->size), GS_R0, GS_FP, buf));
	if (e->is_signed && shift) {
		gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R0, shift));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R0, shift));
	}
	cg_mark_success(cg);
	gs_asm_ja(a, done);

	gs_asm_bind(a, null);
	gs_asm_note(a, "read of NULL: status NullDeref");
	cg_error_tail(cg, rec, GS_VAR_NULL_DEREF, false, 0, NULL);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_ja(a, done);

	gs_asm_bind(a, failed);
	gs_asm_note(a, "read failed: status ReadError {errno, addr}");
	cg_error_tail(cg, rec, GS_VAR_READ_ERROR, true, addr, NULL);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_bind(a, done);
	gs_asm_note(a, prev);
	gs_asm_stack_release(a, mark);
}

void cg_expr(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	if (!e) {
		cg_fail(cg, -EINVAL, "an expression is missing (NULL operand)");
		return;
	}
	switch (e->kind) {
	case GS_EXPR_SPECIAL:
		special(cg, e);
		break;
	case GS_EXPR_UNARY:
		cg_unary(cg, e, rec);
		break;
	case GS_EXPR_BINARY:
		cg_binary(cg, e, rec);
		break;
	case GS_EXPR_DEREF:
		if (e->size)
			deref(cg, e, rec);
		else
			cg_value_expr(cg, e, rec);
		break;
	case GS_EXPR_NAME:
	case GS_EXPR_MEMBER:
	case GS_EXPR_INDEX:
	case GS_EXPR_ADDR:
	case GS_EXPR_CAST:
		cg_value_expr(cg, e, rec);
		break;
	case GS_EXPR_BUILTIN:
		cg_builtin(cg, e, rec);
		break;
	case GS_EXPR_BYTES:
		cg_fail_at(cg, e, -EINVAL, "%s: a string or hex() is not a number: compare it (s == "
			"\"lit\", memcmp, strncmp, starts_with) or print it", e->text ? e->text : "hex(...)");
		break;
	default:
		cg_simple_into(cg, e, GS_R0);
		break;
	}
}
