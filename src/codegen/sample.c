/* CPU samples (gs_trace_spec.sample, gstrace --profile): the program is a
 * perf_event program that every CPU's clock runs. It counts the sample of
 * the task it interrupted: never the idle task, only the target's
 * processes, and the user stack from the registers the task had when it
 * last left user mode (bpf_task_pt_regs), which is where it was when the
 * sample came from user mode and where it will return to when the sample
 * came from a system call or an interrupt. A task without user registers (a
 * kernel thread) is counted only when the kernel stack is asked for, with
 * an empty user stack. The kernel stack itself (GS_BT_FLAG_KERNEL) is a
 * KernelStack instruction after the backtrace, from bpf_get_stack(). */
#include <errno.h>
#include <stddef.h>

#include "cg.h"
#include "wire.h"

/* x86-64 struct pt_regs: cs, whose low two bits are the privilege level
 * the registers were saved at (3: user mode). */
#define PT_REGS_CS 136
#define USER_RPL 3

bool cg_sample_kernel_stack(const struct gs_trace_spec *spec)
{
	for (size_t i = 0; spec->sample && i < spec->nbody; i++)
		if (spec->body[i].kind == GS_STMT_BACKTRACE &&
		    (spec->body[i].bt_flags & GS_BT_FLAG_KERNEL))
			return true;
	return false;
}

const char *cg_sample_unqualified(const struct gs_trace_spec *spec, const struct gs_program_opts *o)
{
	if (spec->sample > GS_SAMPLE_ALL)
		return "its sample scope is none of process, known processes or all";
	if (spec->nbody != 1 || spec->body[0].kind != GS_STMT_BACKTRACE)
		return "a CPU sample's body is exactly one `bt`";
	if (o->unwinder != GS_UNWINDER_LOOP)
		return "CPU samples unwind with the loop walker only (bpf_loop, Linux 5.17+)";
	if (!spec->bt)
		return "a CPU sample needs the unwind context of its `bt` (a cookie 0 probe)";
	if (spec->sample == GS_SAMPLE_PID && !o->filter_pid)
		return "a process's samples need gs_program_opts.filter_pid";
	if (spec->retprobe)
		return "a CPU sample is not a return probe";
	return NULL;
}

/* Which samples count: not the idle task's, and only the target's. */
static void sample_filter(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;

	gs_asm_note(a, "sample: not the idle task (tgid 0)");
	gs_asm_call(a, BPF_FUNC_get_current_pid_tgid);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 32));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, cg->exit0);
	switch (cg->spec->sample) {
	case GS_SAMPLE_PID:
		cg_pid_filter(cg);
		break;
	case GS_SAMPLE_KNOWN:
		gs_asm_note(a, "sample: a process whose modules the runtime has written");
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R0, cg->key_slot));
		cg_map_lookup(cg, GS_MAP_BT_PROC_MODULES, cg->key_slot);
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, cg->exit0);
		break;
	default:
		break;
	}
}

void cg_sample_prologue(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	struct gs_label user = gs_asm_label(a, "sample_user_regs");
	struct gs_label done = gs_asm_label(a, "sample_regs_known");

	sample_filter(cg);
	cg->sample_regs_slot = gs_asm_slot(a, "sample_user_regs", 8, 8);
	gs_asm_note(a, "sample: r0 = the task's user registers (bpf_task_pt_regs)");
	gs_asm_call(a, BPF_FUNC_get_current_task_btf);
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R0));
	gs_asm_call(a, BPF_FUNC_task_pt_regs);
	gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R0, PT_REGS_CS));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, 3));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, USER_RPL, user);
	if (!cg_sample_kernel_stack(cg->spec)) {
		gs_asm_note(a, "sample: a kernel thread has no user stack: not counted");
		gs_asm_ja(a, cg->exit0);
	} else {
		gs_asm_note(a, "sample: a kernel thread: its kernel stack only");
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, cg->sample_regs_slot, 0));
		gs_asm_ja(a, done);
	}
	gs_asm_bind(a, user);
	gs_asm_note(a, "sample: a user task: its registers for bt");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, cg->sample_regs_slot));
	gs_asm_bind(a, done);
	gs_asm_note(a, NULL);
}

uint32_t cg_kernel_stack_size(void)
{
	return GS_INST_HEADER_SIZE + (uint32_t)GS_KSTACK_SIZE;
}

void cg_kernel_stack(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	struct gs_label none = gs_asm_label(a, "kstack_none");
	int16_t ips = (int16_t)(CG_PAYLOAD + sizeof(struct gs_kernel_stack));

	cg_reserve(cg, cg_kernel_stack_size());
	gs_asm_notef(a, "KernelStack: depth %u (bpf_get_stack zeroes what it does not fill)",
		     GS_KSTACK_DEPTH);
	cg_inst_header(a, GS_INST_KERNEL_STACK, (uint32_t)GS_KSTACK_SIZE);
	CG_ST_FIELDS(a, GS_R9, CG_PAYLOAD, struct gs_kernel_stack, requested_depth, frame_count,
		     CG_PACK(struct gs_kernel_stack, requested_depth, requested_depth,
			     GS_KSTACK_DEPTH));
	CG_ST_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_kernel_stack, reserved, 0);
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R6));
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R9));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, ips));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 8 * GS_KSTACK_DEPTH));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, 0));
	gs_asm_call(a, BPF_FUNC_get_stack);
	gs_asm_jmp_imm(a, BPF_JSLE, GS_R0, 0, none);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, 3));
	CG_STX_FIELD(a, GS_R9, CG_PAYLOAD, struct gs_kernel_stack, frame_count, GS_R0);
	gs_asm_bind(a, none);
	gs_asm_note(a, NULL);
}
