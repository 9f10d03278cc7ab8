/* Thread-local variables (GS_LOC_BASE_TLS, docs/tls.md): the hit thread's
 * TLS block of each module a trace reads, found once per event as
 * libthread_db's td_thr_tlsbase finds it for gdb (glibc, x86-64, TLS
 * variant II). The thread pointer is the task's fs base (task_struct's
 * thread.fsbase, at the offset the runtime took from the kernel's BTF);
 * proc_module_tls[{pid, cookie}] says where the module's block is:
 * thread pointer - static offset, or the thread's DTV slot, checked
 * against the loader's slotinfo entry as libthread_db checks it. A module
 * the runtime has not found (or that was dlclosed since it read the
 * tables) is OffsetsUnavailable, a DTV slot the thread has not filled
 * TlsUnallocated, a failed read ReadError: never a guess. */
#include <assert.h>
#include <errno.h>

#include "cg.h"

/* The per-module slot: the block's address, and how it was found. */
#define TLS_BLOCK 0  /* u64 the TLS block's address */
#define TLS_STATUS 8 /* u64 enum gs_var_status: 0 found */
#define TLS_ERRNO 16 /* s64 a failed read's errno */
#define TLS_ADDR 24  /* u64 a failed read's address */
#define TLS_SLOT_SIZE 32

/* The shared scratch: the map value's fields, and what the DTV holds. */
#define TLS_MODID 0
#define TLS_GEN 8       /* the slot's address, then the generation read there */
#define TLS_DTV 16
#define TLS_DTV_HEAD 24 /* dtv[-1].counter (its length) @+0, dtv[0].counter (gen) @+16 */
#define TLS_VAL 56
#define TLS_SLOTINFO 64 /* the loader's slot of modid: {gen, link_map} */
#define TLS_LINK_MAP 80 /* the link_map the runtime read there */
#define TLS_SCRATCH_SIZE 88

static int tls_index(const struct cg_values *v, uint64_t cookie)
{
	for (uint32_t i = 0; i < v->ntls; i++)
		if (v->tls_cookie[i] == cookie)
			return (int)i;
	return -1;
}

int cg_tls_add(struct gs_cg *cg, uint64_t cookie, const char *name)
{
	if (tls_index(cg->values, cookie) >= 0)
		return 0;
	if (cg->values->ntls == CG_MAX_MODULES) {
		cg_fail(cg, -E2BIG, "%s: a trace reads thread-locals of at most %d modules", name,
			CG_MAX_MODULES);
		return -E2BIG;
	}
	cg->values->tls_cookie[cg->values->ntls++] = cookie;
	return 0;
}

/* A failure found in the prologue: status (and a read's errno in r0 and
 * address at addr_slot) kept in the module's slot, for its uses to report. */
static void set_status(struct gs_asm *a, int16_t slot, enum gs_var_status status,
		       int16_t addr_slot)
{
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, slot + TLS_STATUS, status));
	if (status != GS_VAR_READ_ERROR)
		return;
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, slot + TLS_ERRNO));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, addr_slot));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot + TLS_ADDR));
}

/* bpf_probe_read_user(r10 + dst, len, r3); r0 != 0 -> read error, done. */
static void read_user(struct gs_asm *a, int16_t dst, uint32_t len, int16_t slot,
		      int16_t addr_slot, struct gs_label done)
{
	struct gs_label ok = gs_asm_label(a, "tls_read_ok");

	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, addr_slot));
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, dst));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)len));
	gs_asm_call(a, BPF_FUNC_probe_read_user);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ok);
	set_status(a, slot, GS_VAR_READ_ERROR, addr_slot);
	gs_asm_ja(a, done);
	gs_asm_bind(a, ok);
}

/* The block of one module: r0 = its proc_module_tls entry or NULL. */
static void module_block(struct gs_cg *cg, int16_t slot, int16_t tp, int16_t sc)
{
	struct gs_asm *a = cg->a;
	struct gs_label done = gs_asm_label(a, "tls_done");
	struct gs_label dynamic = gs_asm_label(a, "tls_dynamic");
	struct gs_label unallocated = gs_asm_label(a, "tls_unallocated");
	struct gs_label stale = gs_asm_label(a, "tls_stale");
	int16_t addr = slot + TLS_ADDR;

	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, slot + TLS_STATUS, GS_VAR_OFFSETS_UNAVAILABLE));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_proc_module_tls, modid)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc + TLS_MODID));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0,
				  offsetof(struct gs_proc_module_tls, slotinfo)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc + TLS_GEN));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0,
				  offsetof(struct gs_proc_module_tls, link_map)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc + TLS_LINK_MAP));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0,
				  offsetof(struct gs_proc_module_tls, static_offset)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, tp));
	gs_asm_note(a, "tls: no thread pointer yet (the loader's start): no TLS");
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, unallocated);
	gs_asm_note(a, "tls: static TLS: block = thread pointer - static offset");
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, dynamic);
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R2, GS_R1));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, slot + TLS_BLOCK));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, slot + TLS_STATUS, GS_VAR_OK));
	gs_asm_ja(a, done);

	gs_asm_bind(a, dynamic);
	gs_asm_note(a, "tls: dynamic TLS: the loader's slot of modid still names the module");
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, sc + TLS_VAL));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, sc + TLS_GEN));
	read_user(a, sc + TLS_SLOTINFO, 16, slot, addr, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc + TLS_SLOTINFO + GS_TLS_SLOT_MAP));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, sc + TLS_LINK_MAP));
	gs_asm_note(a, "tls: a slot naming another link_map: dlclosed since the runtime read it");
	gs_asm_jmp_reg(a, BPF_JNE, GS_R1, GS_R2, stale);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc + TLS_SLOTINFO + GS_TLS_SLOT_GEN));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sc + TLS_GEN));
	gs_asm_note(a, "tls: dtv = *(thread pointer + 8)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, sc + TLS_VAL));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, GS_TLS_TCB_DTV));
	read_user(a, sc + TLS_DTV, 8, slot, addr, done);
	gs_asm_note(a, "tls: dtv[-1] (its length) and dtv[0] (the thread's generation)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, sc + TLS_DTV));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, -GS_TLS_DTV_ENTRY));
	read_user(a, sc + TLS_DTV_HEAD, 2 * GS_TLS_DTV_ENTRY, slot, addr, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc + TLS_MODID));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, sc + TLS_DTV_HEAD));
	gs_asm_jmp_reg(a, BPF_JGT, GS_R1, GS_R2, unallocated);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc + TLS_GEN));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, sc + TLS_DTV_HEAD + GS_TLS_DTV_ENTRY));
	gs_asm_jmp_reg(a, BPF_JGT, GS_R1, GS_R2, unallocated);
	gs_asm_note(a, "tls: block = dtv[modid].val");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_FP, sc + TLS_MODID));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R3, 4));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc + TLS_DTV));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1));
	read_user(a, sc + TLS_VAL, 8, slot, addr, done);
	gs_asm_note(a, "tls: TLS_DTV_UNALLOCATED (odd) or NULL: not allocated in this thread");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sc + TLS_VAL));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, unallocated);
	gs_asm_jmp_imm(a, BPF_JSET, GS_R1, 1, unallocated);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, slot + TLS_BLOCK));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, slot + TLS_STATUS, GS_VAR_OK));
	gs_asm_ja(a, done);
	gs_asm_bind(a, unallocated);
	set_status(a, slot, GS_VAR_TLS_UNALLOCATED, 0);
	gs_asm_ja(a, done);
	gs_asm_bind(a, stale);
	set_status(a, slot, GS_VAR_OFFSETS_UNAVAILABLE, 0);
	gs_asm_bind(a, done);
	/* The paths here differ only by the status constant they stored, which
	 * the verifier would keep apart (its uses branch on it) for every
	 * module after this one: 4^n paths. Copied over itself by a helper,
	 * the slot holds bytes the verifier does not know, and the paths
	 * merge: n modules verify in n times one module's instructions. */
	gs_asm_note(a, "tls: the status as unknown bytes, so the paths merge here");
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, slot + TLS_STATUS));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 8));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R1));
	gs_asm_call(a, BPF_FUNC_probe_read);
}

void cg_tls_prologue(struct gs_cg *cg, int16_t key)
{
	struct gs_asm *a = cg->a;
	int16_t tp, sc;

	if (!cg->values->ntls)
		return;
	if (!cg->opts.task_fsbase_offset) {
		/* the kernel's BTF does not say where the thread pointer is */
		for (uint32_t i = 0; i < cg->values->ntls; i++) {
			cg->values->tls_slot[i] = gs_asm_slot(a, "tls_block", TLS_SLOT_SIZE, 8);
			gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, cg->values->tls_slot[i] + TLS_STATUS,
						 GS_VAR_OFFSETS_UNAVAILABLE));
		}
		return;
	}
	tp = gs_asm_slot(a, "thread_pointer", 8, 8);
	sc = gs_asm_slot(a, "tls_scratch", TLS_SCRATCH_SIZE, 8);
	for (uint32_t i = 0; i < cg->values->ntls; i++)
		cg->values->tls_slot[i] = gs_asm_slot(a, "tls_block", TLS_SLOT_SIZE, 8);
	gs_asm_note(a, "tls: thread pointer = current task's thread.fsbase");
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, tp, 0));
	gs_asm_call(a, BPF_FUNC_get_current_task);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R0));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, (int32_t)cg->opts.task_fsbase_offset));
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, tp));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 8));
	/* bpf_probe_read: a kernel address on x86-64, on every kernel with uprobes */
	gs_asm_call(a, BPF_FUNC_probe_read);
	for (uint32_t i = 0; i < cg->values->ntls; i++) {
		uint64_t c = cg->values->tls_cookie[i];
		int16_t slot = cg->values->tls_slot[i];

		gs_asm_notef(a, "tls: module %016llx = proc_module_tls[{pid, cookie}]",
			     (unsigned long long)c);
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, slot + TLS_ERRNO, 0));
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, slot + TLS_ADDR, 0));
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key + 8, (int32_t)(uint32_t)c));
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key + 12, (int32_t)(uint32_t)(c >> 32)));
		cg_map_lookup(cg, GS_MAP_PROC_TLS, key);
		module_block(cg, slot, tp, sc);
	}
	gs_asm_note(a, NULL);
}

void cg_tls_block(struct gs_cg *cg, uint64_t cookie, uint8_t dst, const struct cg_err_record *rec,
		  struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	int i = tls_index(cg->values, cookie);
	struct gs_label found = gs_asm_label(a, "tls_found");
	struct gs_label unavailable = gs_asm_label(a, "tls_offsets_unavailable");
	struct gs_label unallocated = gs_asm_label(a, "tls_not_allocated");
	int16_t slot;

	if (i < 0) {
		cg_fail(cg, -EINVAL, "internal error: module %016llx's TLS block was not "
			"prepared", (unsigned long long)cookie);
		return;
	}
	slot = cg->values->tls_slot[i];
	/* held from the prologue to the end of the program */
	assert(cg_writable_reg(dst) && cg_slot_held(a, slot, TLS_SLOT_SIZE));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, dst, GS_FP, slot + TLS_STATUS));
	gs_asm_jmp_imm(a, BPF_JEQ, dst, GS_VAR_OK, found);
	gs_asm_jmp_imm(a, BPF_JEQ, dst, GS_VAR_OFFSETS_UNAVAILABLE, unavailable);
	gs_asm_jmp_imm(a, BPF_JEQ, dst, GS_VAR_TLS_UNALLOCATED, unallocated);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, slot + TLS_ERRNO));
	cg_error_tail(cg, rec, GS_VAR_READ_ERROR, true, slot + TLS_ADDR, &fail);
	gs_asm_bind(a, unavailable);
	cg_error_tail(cg, rec, GS_VAR_OFFSETS_UNAVAILABLE, false, 0, &fail);
	gs_asm_bind(a, unallocated);
	cg_error_tail(cg, rec, GS_VAR_TLS_UNALLOCATED, false, 0, &fail);
	gs_asm_bind(a, found);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, dst, GS_FP, slot + TLS_BLOCK));
}
