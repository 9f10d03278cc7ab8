/* Internals of the test VM shared by its files: loaded programs, the fake
 * address spaces, and the run state -- registers that carry provenance,
 * call frames with their stacks, and the table of memory regions a pointer
 * may point into. Tests include vm.h only. */
#ifndef GS_TEST_VM_PRIV_H
#define GS_TEST_VM_PRIV_H

#include "vm/vm.h"

/* A subprogram the program's BTF describes (gs_vm_load_asm_btf()). */
struct gs_vm_func {
	uint32_t insn;    /* its first instruction */
	bool global;      /* BTF_FUNC_GLOBAL: verified alone, so run as such */
	uint8_t nargs;    /* parameters of its FUNC_PROTO (at most 5) */
	uint8_t ptr_args; /* bit i: parameter i is a pointer (else a scalar) */
};

struct gs_vm_prog {
	struct bpf_insn *insns;
	char **notes;      /* n copied notes (each may be NULL), or NULL */
	bool *imm64_tail;  /* imm64_tail[i]: insns[i] is an ld_imm64's 2nd slot */
	size_t n;
	struct gs_vm_func *funcs; /* in instruction order, or NULL: no BTF given */
	size_t nfuncs;
};

struct gs_vm_mem {
	uint64_t addr;
	uint8_t *bytes;
	size_t len;
	bool absent; /* mapped, not resident: only a faulting read brings it in */
};

enum vm_region_kind {
	VM_CTX,
	VM_STACK,
	VM_MAP_VALUE,
	VM_MAP_HANDLE, /* a map from ld_imm64 src=1: passed to helpers, never memory */
	VM_FUNC,       /* a subprogram from ld_imm64 src=4: a callback, never memory */
};

/* Memory a pointer register may reach: [base, base + size). */
struct vm_region {
	uint8_t kind;  /* enum vm_region_kind */
	bool writable;
	uint8_t *base;
	size_t size;
	uint32_t map;   /* VM_MAP_VALUE, VM_MAP_HANDLE: VM map id */
	uint32_t frame; /* VM_STACK: call depth (0 = main) */
};

/* Region ids a register carries: 0 for a scalar, fixed ids for the ctx and
 * each frame's stack, then map values and handles as the run meets them. */
#define VM_SCALAR 0u
#define VM_REGION_CTX 1u
#define VM_REGION_STACK0 2u /* + call depth */
#define VM_REGION_FUNC (VM_REGION_STACK0 + GS_VM_MAX_FRAMES) /* value: FUNC_BASE + pc */
#define VM_REGION_DYNAMIC (VM_REGION_FUNC + 1)

/* A register: its value (a pointer's value is a host address), where it
 * points, and whether anything wrote it. */
struct vm_reg {
	uint64_t v;
	uint32_t region;
	bool init;
};

#define VM_STACK_SLOTS (GS_VM_STACK_SIZE / 8)

/* How a frame was entered: what its exit checks and where it goes. */
enum vm_frame_kind {
	VM_CALL_STATIC, /* a bpf-to-bpf call of a static subprogram */
	VM_CALL_GLOBAL, /* ... of a global one: r0 must be a scalar */
	VM_CALL_LOOP,   /* a bpf_loop callback: r0 0 or 1, then maybe again */
};

struct vm_frame {
	uint8_t stack[GS_VM_STACK_SIZE] __attribute__((aligned(8)));
	uint32_t slot_region[VM_STACK_SLOTS]; /* pointer spilled to each 8-byte
					       * slot (index 0 = fp-512), or 0 */
	struct vm_reg saved[4];               /* the caller's r6-r9 */
	uint32_t ret_prog;                    /* where exit returns to */
	size_t ret_pc;
	uint8_t kind;                         /* enum vm_frame_kind */
	/* VM_CALL_LOOP: the callback, its ctx argument, iterations done of n */
	size_t loop_pc;
	struct vm_reg loop_ctx;
	uint32_t loop_i, loop_n;
};

struct gs_vm_exec {
	struct gs_vm *vm;
	struct gs_error *err;
	int code;                 /* 0, or the -errno that stopped the run */
	uint32_t prog;            /* the running program ... */
	const struct gs_vm_prog *p;
	size_t pc;                /* ... and its instruction being executed */
	struct vm_reg r[GS_NREGS];
	struct vm_frame frames[GS_VM_MAX_FRAMES];
	uint32_t depth;           /* current frame index */
	struct vm_region *regions;
	size_t nregions, regions_cap;
	uint32_t tail_call_cnt;   /* the kernel's counter: attempts past the check */
	bool tail_called;         /* a helper started program `prog` afresh */
};

/* Stops the run (the first failure wins) with a message naming the
 * program, pc, instruction and note; returns code. */
__attribute__((format(printf, 3, 4)))
int vm_fail(struct gs_vm_exec *x, int code, const char *fmt, ...);
/* Fails unless register `reg` was written; `why` says who reads it. */
bool vm_reg_ok(struct gs_vm_exec *x, uint8_t reg, const char *why);

/* vm_mem.c: regions and checked access. */
enum vm_access { VM_READ, VM_WRITE, VM_ATOMIC };
void vm_regions_reset(struct gs_vm_exec *x, const void *ctx, size_t ctx_size);
uint32_t vm_region_map_value(struct gs_vm_exec *x, uint32_t map, uint8_t *value);
uint32_t vm_region_map_handle(struct gs_vm_exec *x, uint32_t map);
/* Text for a pointer: "ctx+16", "fp-8", "fp-8 of frame 1", "value+4 of map 'm'". */
void vm_describe(struct gs_vm_exec *x, uint32_t region, uint64_t addr, char *buf, size_t size);
/* Host memory for an instruction's access of `size` bytes at reg + off,
 * or NULL with the run failed. */
uint8_t *vm_insn_mem(struct gs_vm_exec *x, uint8_t reg, int16_t off, size_t size,
		     enum vm_access acc);
/* Host memory for helper argument register `reg` pointing at `size` bytes
 * (size 0 accepts NULL too), or NULL with the run failed. *ok says which. */
uint8_t *vm_arg_mem(struct gs_vm_exec *x, uint8_t reg, uint64_t size, bool write,
		    const char *helper, bool *ok);
/* Forgets pointers spilled to the stack slots [p, p + size) overlap. */
void vm_stack_clobber(struct gs_vm_exec *x, uint32_t region, const uint8_t *p, size_t size);
/* The pointer region spilled at `p` (an 8-aligned stack slot), or 0. */
uint32_t vm_stack_spill(struct gs_vm_exec *x, uint32_t region, const uint8_t *p);
void vm_stack_set_spill(struct gs_vm_exec *x, uint32_t region, const uint8_t *p, uint32_t ptr);
/* Copies len bytes at addr of a fake address space: 0, or -EFAULT when a
 * byte is unmapped (dst is then left partly written). */
int vm_fake_read(const struct gs_vm_mem *mems, size_t n, uint64_t addr, uint8_t *dst,
		 size_t len);
/* The fake byte at addr: 0, or -EFAULT. */
int vm_fake_byte(const struct gs_vm_mem *mems, size_t n, uint64_t addr, uint8_t *out);
/* Makes the regions [addr, addr + len) touches resident, as a read that
 * may fault does: the number of regions brought in, or -EFAULT when a
 * byte of the range is in no region. */
int vm_fake_fault_in(struct gs_vm_mem *mems, size_t n, uint64_t addr, size_t len);

/* vm_alu.c: ALU and conditional jumps. */
void vm_alu(struct gs_vm_exec *x, const struct bpf_insn *in);
/* 1 taken, 0 not, -1 the run failed. */
int vm_jmp_cond(struct gs_vm_exec *x, const struct bpf_insn *in);

/* vm_maps.c, for the helpers. */
/* The VM map behind a fake fd, or NULL. */
struct gs_vm_map *vm_map_by_fd(struct gs_vm *vm, int32_t fd, uint32_t *id);
/* The value of an ARRAY / PERCPU_ARRAY / HASH under key for `cpu`, or NULL. */
uint8_t *vm_map_elem(struct gs_vm_map *m, const void *key, uint32_t cpu);
void vm_maps_free(struct gs_vm *vm);
int vm_add_record(struct gs_vm *vm, uint32_t map, uint64_t flags, const uint8_t *data,
		  uint32_t size);

/* vm_helpers.c: runs helper `id` with r1-r5; 0, or the run's -errno.
 * bpf_loop is not among them: it enters frames (vm_loop_start()). */
int vm_call_helper(struct gs_vm_exec *x, int32_t id);

/* vm_call.c: bpf-to-bpf calls, bpf_loop and exit. */
#define VM_FUNC_BASE 0xffffffffa0000000ull /* a callback's value: this + its pc */
/* A fresh frame at depth d: poisoned stack, no spilled pointers, r10. */
void vm_enter_frame(struct gs_vm_exec *x, uint32_t d);
/* call pc+imm+1: a new frame; a global subprogram sees only its parameters. */
void vm_bpf_call(struct gs_vm_exec *x, const struct bpf_insn *in);
/* bpf_loop(nr_loops, callback, ctx, flags): runs the callback in a frame of
 * its own, iteration by iteration, through vm_exit(). */
void vm_loop_start(struct gs_vm_exec *x);
/* exit: true when the run has finished (frame 0), else back to the caller
 * or into the next bpf_loop iteration. */
bool vm_exit(struct gs_vm_exec *x);
/* The subprogram starting at pc of the running program, or NULL. */
const struct gs_vm_func *vm_func_at(const struct gs_vm_prog *p, size_t pc);

#endif /* GS_TEST_VM_PRIV_H */
