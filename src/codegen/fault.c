/* Reads of user memory that fault pages in, as gdb's reads do
 * (docs/protocol.md, "How a program builds an event"): in a sleepable
 * program (gs_program_opts.fault_in) a read that bpf_probe_read_user cannot
 * do without a page fault (a page the process never touched, or one swapped
 * out) is done again after its pages are faulted in by bpf_copy_from_user,
 * which may sleep.
 *
 * A sleeping program keeps its CPU (migration is disabled) but not the
 * CPU to itself: another hit can run on it meanwhile and fill the same
 * per-CPU accumulation buffer. So the sleeping calls write only to this
 * program's stack (one byte per page, faulting the page in), and after
 * them the program checks that no hit began on its CPU since it began
 * (read_fault_gen, counted up by every hit's prologue). If one did, the
 * buffer is no longer this event's: it is dropped and counted as a loss;
 * the other hit's event is whole, since nothing was written to the buffer
 * while this one slept. Only then is the read done again, without
 * sleeping, into its destination. The touching and the check are one
 * global subprogram, gs_fault_in, which the verifier checks once however
 * many reads call it (fault_subprog.c, with the count of hits).
 *
 * This file is the read's side: whether a read is retried, and the
 * retry after its first try. It calls no emitter (emit.c's user read
 * calls it). */
#include "cg.h"

#define FAULT_ADDR 0    /* offsets in the fault slot: the address read */
#define FAULT_LEN 8     /* the length, when it is in r2 at run time */

bool cg_fault_read(const struct cg_fault *f, const struct cg_user_read *r)
{
	return f && !r->resident;
}

void cg_fault_save(struct gs_asm *a, const struct cg_fault *f, const struct cg_user_read *r)
{
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, f->read_slot + FAULT_ADDR));
	if (r->len_in_r2)
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, f->read_slot + FAULT_LEN));
}

/* r2 = the length of the read. */
static void load_len(struct gs_asm *a, const struct cg_fault *f, const struct cg_user_read *r)
{
	if (r->len_in_r2)
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, f->read_slot + FAULT_LEN));
	else
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)r->len));
}

void cg_fault_retry(struct gs_cg *cg, const struct cg_user_read *r)
{
	struct gs_asm *a = cg->a;
	struct cg_fault *f = cg->fault;
	struct gs_label done = gs_asm_label(a, "read_without_fault");
	const char *prev;

	/* The _str helper returns the bytes read, NUL included. */
	gs_asm_jmp_imm(a, r->str ? BPF_JSGE : BPF_JEQ, GS_R0, 0, done);
	prev = gs_asm_note(a, "read failed without faults: fault its pages in (may sleep); "
			   "another hit began on this CPU meanwhile: the buffer is not ours");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, f->read_slot + FAULT_ADDR));
	load_len(a, f, r);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, f->gen_slot));
	gs_asm_call_label(a, f->fn);
	f->called = true;
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, cg->overflow);
	gs_asm_note(a, "read again, without sleeping");
	if (r->dst_slot)
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, r->dst_slot));
	else
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, r->dst_base));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, r->dst_off));
	load_len(a, f, r);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, f->read_slot + FAULT_ADDR));
	gs_asm_call(a, r->str ? BPF_FUNC_probe_read_user_str : BPF_FUNC_probe_read_user);
	gs_asm_bind(a, done);
	gs_asm_note(a, prev);
}
