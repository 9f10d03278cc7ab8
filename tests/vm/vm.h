/* A BPF interpreter for tests only: runs programs built
 * by the assembler on synthetic registers, stacks and maps, with the helpers
 * generated code calls, so tests can check the exact bytes a program emits.
 * Never linked into gstrace.
 *
 * Memory is checked the way the verifier would at run time: every register
 * carries its provenance (a scalar, the ctx, a stack frame, one map value, a
 * map handle, a callback), and a load, store, atomic or helper pointer argument must lie
 * entirely inside the one region its pointer came from. Anything else --
 * a read of a register never written, a NULL or scalar dereference, an
 * access past a region, a write to the read-only ctx, an instruction or
 * helper the VM does not know, more than `insn_budget` instructions --
 * stops the run with -errno and a message naming the program, the pc, the
 * instruction as the verifier log prints it, and its note:
 *
 *     prog 0 pc 7: (61) r2 = *(u32 *)(r1 +168): read of 4 bytes at ctx+168
 *     is outside the 168-byte ctx (note: event.len = skb->len)
 *
 * Typical use:
 *
 *     struct gs_vm vm;
 *     gs_vm_init(&vm);                      // then set vm.pid, vm.ktime, ...
 *     int events = gs_vm_add_map(&vm, BPF_MAP_TYPE_RINGBUF, "events", 0, 0, 65536, &err);
 *     int prog = gs_vm_load_asm(&vm, &a, (uint32_t[]){ events }, &err);
 *     gs_vm_run(&vm, prog, &regs, sizeof(regs), &r0, &err);
 *     // vm.records[0 .. vm.nrecords): what the program emitted
 *     gs_vm_fini(&vm);
 *
 * Functions return 0 (or an index) on success and -errno with err filled on
 * failure; err may be NULL. */
#ifndef GS_TEST_VM_H
#define GS_TEST_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>

#include <gs/asm.h>
#include <gs/btf.h>
#include <gs/error.h>

#define GS_VM_STACK_SIZE GS_STACK_MAX /* bytes of each call frame's stack */
#define GS_VM_MAX_FRAMES 8            /* MAX_CALL_FRAMES: main + 7 nested calls */
#define GS_VM_MAX_TAIL_CALLS 33       /* MAX_TAIL_CALL_CNT (Linux >= 5.17) */
#define GS_VM_DEFAULT_BUDGET 1000000  /* instructions per run */
#define GS_VM_DEFAULT_NCPUS 2
#define GS_VM_MAX_CPUS 64
#define GS_VM_FD_BASE 1000            /* the fake fd of map id i is GS_VM_FD_BASE + i */
#define GS_VM_STACK_POISON 0xa5       /* every stack byte at the start of a run */
#define GS_VM_NAME_MAX 64

/* A HASH map entry: exact-key match; the value never moves while the
 * entry exists, so pointers a lookup returned stay valid. */
struct gs_vm_hash_entry {
	uint8_t *key;
	uint8_t *value;
};

/* A map. Create with gs_vm_add_map(); read fields freely, change contents
 * through the gs_vm_map_* functions (or through a pointer they return). */
struct gs_vm_map {
	enum bpf_map_type type; /* ARRAY, PERCPU_ARRAY, HASH, PROG_ARRAY,
				 * RINGBUF or PERF_EVENT_ARRAY */
	char name[GS_VM_NAME_MAX];
	uint32_t key_size, value_size, max_entries;
	uint32_t ncopies;  /* PERCPU_ARRAY: vm->ncpus at creation; else 1 */
	uint8_t *values;   /* ARRAY, PERCPU_ARRAY: value (key, cpu) at
			    * (key * ncopies + cpu) * value_size; zeroed */
	struct gs_vm_hash_entry *entries; /* HASH: insertion order */
	uint32_t nentries, entries_cap;
	int32_t *progs;    /* PROG_ARRAY: VM program index per slot, or -1 */
	uint64_t ring_used; /* RINGBUF: bytes of undrained records, 8-byte
			     * header included, rounded up to 8 */
	bool fail_lookup;  /* failure injection: bpf_map_lookup_elem() on this
			    * map returns NULL (see gs_vm_fail_lookups()) */
};

/* One record an output helper (ringbuf_output, perf_event_output) wrote. */
struct gs_vm_record {
	uint32_t map;   /* VM map id of the RINGBUF or PERF_EVENT_ARRAY */
	uint32_t cpu;   /* vm->cpu during the call */
	uint64_t flags; /* the helper's flags argument */
	uint32_t size;
	uint8_t *data;  /* a copy of the `size` bytes */
};

/* What the last run did. */
struct gs_vm_stats {
	uint64_t insns;       /* instructions executed (an ld_imm64 counts once) */
	uint32_t tail_calls;  /* tail calls that started their target */
	uint32_t helper_calls; /* bpf_loop counts once, however many iterations */
	uint32_t max_depth;   /* deepest call frame reached: 1 = main only */
};

struct gs_vm_prog;
struct gs_vm_mem;
struct gs_vm_exec;

struct gs_vm {
	/* Configuration: defaults from gs_vm_init(), change them before the
	 * maps (ncpus) or the run (the rest) that should see them. */
	uint32_t ncpus;         /* simulated CPUs (2); per-CPU maps copy it */
	uint32_t cpu;           /* the CPU the next run is on (0) */
	uint32_t pid, tgid;     /* host thread and process ids (helper 14) */
	uint64_t ktime;         /* what the next bpf_ktime_get_ns() returns ... */
	uint64_t ktime_step;    /* ... and how much each call adds to it (1000) */
	uint64_t ns_dev, ns_ino;   /* the pid namespace helper 120 matches ... */
	uint32_t ns_pid, ns_tgid;  /* ... and the ids it reports in it */
	uint64_t current_task;  /* what bpf_get_current_task() returns */
	uint64_t insn_budget;   /* instructions per run (GS_VM_DEFAULT_BUDGET) */

	/* Failure injection: the next `fail_outputs` calls of an output helper
	 * return `fail_output_err` (-ENOSPC) and record nothing. */
	uint32_t fail_outputs;
	int fail_output_err;
	/* Called when bpf_copy_from_user faults memory in (the program may
	 * sleep there: another hit can run on its CPU meanwhile). */
	void (*on_fault)(struct gs_vm *vm, void *arg);
	void *on_fault_arg;

	/* Results: records accumulate across runs until gs_vm_clear_records(). */
	struct gs_vm_record *records;
	size_t nrecords, records_cap;
	struct gs_vm_stats stats;

	/* Internals: use the functions below. */
	struct gs_vm_map *maps;
	size_t nmaps, maps_cap;
	struct gs_vm_prog *progs;
	size_t nprogs, progs_cap;
	struct gs_vm_mem *user_mem, *kernel_mem;
	size_t nuser_mem, nkernel_mem, user_mem_cap, kernel_mem_cap;
	struct gs_vm_exec *exec;
};

/* Lifetime. gs_vm_init() cannot fail; the run state is allocated by the
 * first gs_vm_run(). gs_vm_fini() frees maps, programs, records, memory. */
void gs_vm_init(struct gs_vm *vm);
void gs_vm_fini(struct gs_vm *vm);

/* Maps. gs_vm_add_map() validates sizes as the kernel does (ARRAY and
 * PROG_ARRAY keys are u32, PROG_ARRAY values u32, RINGBUF has neither and
 * max_entries 0 means unbounded, PERF_EVENT_ARRAY max_entries 0 becomes
 * ncpus) and returns the map id (0, 1, ...). */
int gs_vm_add_map(struct gs_vm *vm, enum bpf_map_type type, const char *name,
		  uint32_t key_size, uint32_t value_size, uint32_t max_entries,
		  struct gs_error *err);
/* The map with id `map`, or NULL. */
struct gs_vm_map *gs_vm_get_map(struct gs_vm *vm, uint32_t map);
/* The fake fd a raw GS_LD_MAP_FD / GS_LD_MAP_VALUE must carry for `map`. */
int gs_vm_map_fd(uint32_t map);
/* The value under `key` (CPU `cpu`'s copy for a per-CPU map; cpu is
 * ignored otherwise), or NULL: no such key, or not a keyed map. */
void *gs_vm_map_lookup(struct gs_vm *vm, uint32_t map, const void *key, uint32_t cpu);
/* Sets the value under `key`: every CPU's copy of a per-CPU map; inserts
 * into a HASH (-E2BIG when full); a PROG_ARRAY value is a u32 program index
 * from gs_vm_add_prog(). */
int gs_vm_map_update(struct gs_vm *vm, uint32_t map, const void *key, const void *value,
		     struct gs_error *err);
/* Removes a HASH entry or empties a PROG_ARRAY slot; -ENOENT if absent. */
int gs_vm_map_delete(struct gs_vm *vm, uint32_t map, const void *key, struct gs_error *err);
/* The u64 at byte `off` of the value under `key`, summed over every CPU's
 * copy (what userspace does with a per-CPU counter); 0 if absent. */
uint64_t gs_vm_map_sum_u64(struct gs_vm *vm, uint32_t map, const void *key, uint32_t off);
/* Failure injection: while `on`, bpf_map_lookup_elem() on `map` returns NULL. */
void gs_vm_fail_lookups(struct gs_vm *vm, uint32_t map, bool on);

/* Programs. gs_vm_add_prog() copies n instructions whose map fds are
 * already patched (gs_vm_map_fd()) and their notes (may be NULL) and
 * returns the program index. gs_vm_load_asm() takes a finished assembler:
 * it copies the program and patches each relocation of assembler map i
 * with VM map map_ids[i] (a->nmaps entries). */
int gs_vm_add_prog(struct gs_vm *vm, const struct bpf_insn *insns, size_t n,
		   const char *const *notes, struct gs_error *err);
int gs_vm_load_asm(struct gs_vm *vm, const struct gs_asm *a, const uint32_t *map_ids,
		   struct gs_error *err);
/* gs_vm_load_asm() of a program with subprogram records
 * (gs_asm_func_begin()) whose FUNC types are in `btf`: calls and callback
 * loads must then name a recorded subprogram, and a global one runs as the
 * verifier checks it -- alone, seeing only the parameters its FUNC_PROTO
 * declares (scalars or pointers as declared), returning a scalar. Without
 * BTF (NULL, or no records) every subprogram runs as a static one. */
int gs_vm_load_asm_btf(struct gs_vm *vm, const struct gs_asm *a, const struct gs_btf *btf,
		       const uint32_t *map_ids, struct gs_error *err);

/* Fake address spaces for probe_read_user* (user) and probe_read_kernel*
 * (kernel): `len` bytes at `addr`, copied (zeros when bytes is NULL). A read
 * must find every byte it touches in some region, else it fails with
 * -EFAULT. Regions may be adjacent; they should not overlap. */
int gs_vm_add_user_mem(struct gs_vm *vm, uint64_t addr, const void *bytes, size_t len,
		       struct gs_error *err);
int gs_vm_add_kernel_mem(struct gs_vm *vm, uint64_t addr, const void *bytes, size_t len,
			 struct gs_error *err);
/* User memory that is mapped but not resident (a page the process never
 * touched): probe_read_user* fail on it with -EFAULT; bpf_copy_from_user
 * faults it in (calling vm->on_fault) and reads it. */
int gs_vm_add_user_mem_absent(struct gs_vm *vm, uint64_t addr, const void *bytes, size_t len,
			      struct gs_error *err);

/* Runs program `prog` on CPU vm->cpu with r1 = ctx (ctx_size bytes,
 * read-only, may be NULL with size 0), stacks poisoned with
 * GS_VM_STACK_POISON, and returns 0 with r0 filled (may be NULL), or -errno
 * with err naming the instruction:
 *   -EFAULT  memory access outside the pointer's region, NULL/scalar deref
 *   -EINVAL  a register read before it is written, an invalid instruction
 *            or helper argument, r10 written, pointer arithmetic the
 *            verifier forbids
 *   -ENOSYS  an unknown helper, kfunc, or legacy packet load
 *   -E2BIG   more than GS_VM_MAX_FRAMES call frames (a bpf_loop callback
 *            takes one)
 *   -ELOOP   more than vm->insn_budget instructions
 *   -ENOMEM  the VM itself ran out of memory
 * vm->stats describes the run either way; records the run made before it
 * stopped stay in vm->records. */
int gs_vm_run(struct gs_vm *vm, uint32_t prog, const void *ctx, size_t ctx_size,
	      uint64_t *r0, struct gs_error *err);

/* Copies `size` bytes at fp+off of the main frame's stack as the last run
 * left it (after a tail call: the last program's), e.g. a cursor in a slot
 * from gs_asm_slot(). -EINVAL outside [fp-512, fp) or before any run. */
int gs_vm_read_stack(const struct gs_vm *vm, int16_t off, void *buf, size_t size);

/* Output records. */
size_t gs_vm_count_records(const struct gs_vm *vm, uint32_t map);
/* Forgets every record and drains every ring buffer (ring_used = 0). */
void gs_vm_clear_records(struct gs_vm *vm);

#endif /* GS_TEST_VM_H */
