/* Reads of user memory that fault pages in, as gdb's reads do (issue 19,
 * item 6): in a sleepable program (gs_program_opts.fault_in) a read that
 * bpf_probe_read_user cannot do without a page fault (a page the process
 * never touched, or one swapped out) is done again after its pages are
 * faulted in by bpf_copy_from_user, which may sleep.
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
 * many reads call it. */
#include "cg.h"

#define FAULT_PAGE 4096 /* the smallest page: a step that touches every page */
#define FAULT_ADDR 0    /* offsets in the fault slot: the address read */
#define FAULT_LEN 8     /* the length, when it is in r2 at run time */

void cg_fault_prologue(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;

	if (!cg->fault)
		return;
	gs_asm_note(a, "fault-in reads: this hit's number on its CPU (read_fault_gen += 1)");
	cg_lookup_key0(cg, GS_MAP_READ_GEN);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 1));
	gs_asm_emit(a, GS_ATOMIC_FETCH_ADD(BPF_DW, GS_R0, GS_R1, 0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, cg->fault->gen_slot));
}

bool cg_fault_read(const struct cg_fault *f, const struct cg_user_read *r)
{
	return f && !r->resident;
}

void cg_fault_save(struct gs_cg *cg, const struct cg_user_read *r)
{
	struct gs_asm *a = cg->a;

	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, cg->fault->read_slot + FAULT_ADDR));
	if (r->len_in_r2)
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, cg->fault->read_slot + FAULT_LEN));
}

/* r2 = the length of the read. */
static void load_len(struct gs_cg *cg, const struct cg_user_read *r)
{
	if (r->len_in_r2)
		gs_asm_emit(cg->a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, cg->fault->read_slot + FAULT_LEN));
	else
		gs_asm_emit(cg->a, GS_MOV64_IMM(GS_R2, (int32_t)r->len));
}

void cg_fault_retry(struct gs_cg *cg, const struct cg_user_read *r)
{
	struct gs_asm *a = cg->a;
	struct gs_label done = gs_asm_label(a, "read_without_fault");
	const char *prev;

	/* The _str helper returns the bytes read, NUL included. */
	gs_asm_jmp_imm(a, r->str ? BPF_JSGE : BPF_JEQ, GS_R0, 0, done);
	prev = gs_asm_note(a, "read failed without faults: fault its pages in (may sleep); "
			   "another hit began on this CPU meanwhile: the buffer is not ours");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, cg->fault->read_slot + FAULT_ADDR));
	load_len(cg, r);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, cg->fault->gen_slot));
	gs_asm_call_label(a, cg->fault->fn);
	cg->fault->called = true;
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, cg->overflow);
	gs_asm_note(a, "read again, without sleeping");
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, r->dst_base));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, r->dst_off));
	load_len(cg, r);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, cg->fault->read_slot + FAULT_ADDR));
	gs_asm_call(a, r->str ? BPF_FUNC_probe_read_user_str : BPF_FUNC_probe_read_user);
	gs_asm_bind(a, done);
	gs_asm_note(a, prev);
}

/* int gs_fault_in(u64 addr, u64 len, u64 gen): one byte of each page of
 * [addr, addr + len) copied with bpf_copy_from_user into this frame,
 * which faults the page in (the first page that cannot be ends it: the
 * read fails there); then 0 when read_fault_gen still is gen (no hit began
 * on this CPU meanwhile), else 1. A read is at most the event's size. */
void cg_fault_subprog(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	uint32_t pages = (cg->max_size + FAULT_PAGE - 2) / FAULT_PAGE + 1;
	struct gs_label touched = gs_asm_label(a, "fault_pages_touched");
	struct gs_label alone = gs_asm_label(a, "fault_cpu_alone");
	struct gs_label shared = gs_asm_label(a, "fault_cpu_shared");
	int16_t addr, end, gen, key, byte;

	gs_asm_func_begin(a, cg->fault->btf);
	gs_asm_bind(a, cg->fault->fn);
	addr = gs_asm_slot(a, "fault_addr", 8, 8);
	end = gs_asm_slot(a, "fault_end", 8, 8);
	gen = gs_asm_slot(a, "fault_gen", 8, 8);
	key = gs_asm_slot(a, "fault_key", 4, 4);
	byte = gs_asm_slot(a, "fault_byte", 8, 8);
	gs_asm_note(a, "gs_fault_in(addr, len, gen): touch each page, then is the CPU still ours?");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, addr));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, end));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, gen));
	for (uint32_t k = 0; k < pages; k++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, addr));
		if (k) {
			gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R3, -FAULT_PAGE));
			gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, (int32_t)(k * FAULT_PAGE)));
			gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, GS_FP, end));
			gs_asm_jmp_reg(a, BPF_JGE, GS_R3, GS_R4, touched);
		}
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_FP));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, byte));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 1));
		gs_asm_call(a, BPF_FUNC_copy_from_user);
		if (k + 1 < pages)
			gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, touched);
	}
	gs_asm_bind(a, touched);
	gs_asm_note(a, "did a hit begin on this CPU since this one did (gen)?");
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key, 0));
	cg_map_lookup(cg, GS_MAP_READ_GEN, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, shared); /* never: one entry, key 0 */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, gen));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_jmp_reg(a, BPF_JEQ, GS_R1, GS_R2, alone);
	gs_asm_bind(a, shared);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_bind(a, alone);
	gs_asm_emit(a, GS_EXIT());
	gs_asm_note(a, NULL);
}
