/* The BPF helpers generated code calls, as the test VM runs them: argument
 * checks the verifier would make (map types, pointers covering their sizes,
 * the ctx), the kernel's return values and failure behaviour (-EFAULT with a
 * zeroed destination, -EINVAL for a foreign pid namespace, the tail-call
 * limit), and the failure injection of struct gs_vm. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <gs/disasm.h>

#include "base.h"
#include "vm_priv.h"

#define RINGBUF_HDR_SIZE 8u

struct helper {
	int32_t id;
	uint8_t nargs;
	bool ret_void; /* r0 is unreadable after the call (bpf_tail_call) */
	int (*run)(struct gs_vm_exec *x, const char *name);
};

static void ret_scalar(struct gs_vm_exec *x, uint64_t v)
{
	x->r[0] = (struct vm_reg){ .v = v, .init = true };
}

static void ret_errno(struct gs_vm_exec *x, int err)
{
	ret_scalar(x, (uint64_t)(int64_t)err);
}

/* Argument register `reg` as a scalar; false with the run failed if it
 * holds a pointer. */
static bool arg_scalar(struct gs_vm_exec *x, uint8_t reg, const char *name, uint64_t *v)
{
	char where[96];

	if (x->r[reg].region != VM_SCALAR) {
		vm_describe(x, x->r[reg].region, x->r[reg].v, where, sizeof(where));
		vm_fail(x, -EINVAL, "%s: argument r%d must be a scalar, not the pointer %s",
			name, reg, where);
		return false;
	}
	*v = x->r[reg].v;
	return true;
}

/* The map argument in `reg` if it is a map handle of `type`, else NULL with
 * the run failed. */
static struct gs_vm_map *arg_map(struct gs_vm_exec *x, uint8_t reg, const char *name,
				 enum bpf_map_type type, uint32_t *id)
{
	const struct vm_region *r = &x->regions[x->r[reg].region];
	struct gs_vm_map *m;

	if (x->r[reg].region == VM_SCALAR || r->kind != VM_MAP_HANDLE) {
		vm_fail(x, -EINVAL, "%s: r%d must be a map loaded by ld_imm64 (src=1)", name, reg);
		return NULL;
	}
	m = &x->vm->maps[r->map];
	if (m->type != type) {
		vm_fail(x, -EINVAL, "%s: map '%s' in r%d has the wrong type for this helper",
			name, m->name, reg);
		return NULL;
	}
	*id = r->map;
	return m;
}

static bool arg_ctx(struct gs_vm_exec *x, uint8_t reg, const char *name)
{
	const struct vm_reg *r = &x->r[reg];

	if (r->region != VM_REGION_CTX ||
	    r->v != (uint64_t)(uintptr_t)x->regions[VM_REGION_CTX].base) {
		vm_fail(x, -EINVAL, "%s: r%d must be the ctx the program was given", name, reg);
		return false;
	}
	return true;
}

static int map_lookup_elem(struct gs_vm_exec *x, const char *name)
{
	const struct vm_region *r = &x->regions[x->r[1].region];
	struct gs_vm_map *m;
	uint8_t *key, *value;
	bool ok;

	if (x->r[1].region == VM_SCALAR || r->kind != VM_MAP_HANDLE)
		return vm_fail(x, -EINVAL, "%s: r1 must be a map loaded by ld_imm64 (src=1)", name);
	m = &x->vm->maps[r->map];
	if (m->type != BPF_MAP_TYPE_ARRAY && m->type != BPF_MAP_TYPE_PERCPU_ARRAY &&
	    m->type != BPF_MAP_TYPE_HASH)
		return vm_fail(x, -EINVAL, "%s: map '%s' cannot be looked up from a program "
			       "(only ARRAY, PERCPU_ARRAY and HASH here)", name, m->name);
	if (m->type == BPF_MAP_TYPE_PERCPU_ARRAY && x->vm->cpu >= m->ncopies)
		return vm_fail(x, -EINVAL, "%s: map '%s' has copies for %u CPUs, not for CPU %u",
			       name, m->name, m->ncopies, x->vm->cpu);
	key = vm_arg_mem(x, 2, m->key_size, false, name, &ok);
	if (!ok)
		return x->code;
	value = m->fail_lookup ? NULL : vm_map_elem(m, key, x->vm->cpu);
	if (!value) {
		ret_scalar(x, 0);
		return 0;
	}
	x->r[0] = (struct vm_reg){
		.v = (uint64_t)(uintptr_t)value, .region = vm_region_map_value(x, r->map, value),
		.init = true,
	};
	return x->code;
}

static int ktime_get_ns(struct gs_vm_exec *x, const char *name)
{
	(void)name;
	ret_scalar(x, x->vm->ktime);
	x->vm->ktime += x->vm->ktime_step;
	return 0;
}

/* The kernel's order: index in range, then the counter (which counts every
 * attempt that gets this far), then an empty slot. A failure falls through. */
static int tail_call(struct gs_vm_exec *x, const char *name)
{
	struct gs_vm_map *m;
	uint64_t index;
	uint32_t id;
	int32_t target;

	if (!arg_ctx(x, 1, name) || !(m = arg_map(x, 2, name, BPF_MAP_TYPE_PROG_ARRAY, &id)) ||
	    !arg_scalar(x, 3, name, &index))
		return x->code;
	if ((uint32_t)index >= m->max_entries || x->tail_call_cnt >= GS_VM_MAX_TAIL_CALLS)
		return 0;
	x->tail_call_cnt++;
	target = m->progs[(uint32_t)index];
	if (target < 0)
		return 0;
	x->prog = (uint32_t)target;
	x->tail_called = true;
	x->vm->stats.tail_calls++;
	return 0;
}

static int get_current_pid_tgid(struct gs_vm_exec *x, const char *name)
{
	(void)name;
	ret_scalar(x, (uint64_t)x->vm->tgid << 32 | x->vm->pid);
	return 0;
}

static int get_current_task(struct gs_vm_exec *x, const char *name)
{
	(void)name;
	ret_scalar(x, x->vm->current_task);
	return 0;
}

/* Consumes one injected output failure, if any. */
static bool inject_output_failure(struct gs_vm_exec *x)
{
	if (!x->vm->fail_outputs)
		return false;
	x->vm->fail_outputs--;
	ret_errno(x, x->vm->fail_output_err);
	return true;
}

static int record(struct gs_vm_exec *x, uint32_t map, uint64_t flags, const uint8_t *data,
		  uint64_t size)
{
	if (vm_add_record(x->vm, map, flags, data, (uint32_t)size))
		return vm_fail(x, -ENOMEM, "out of memory capturing a %" PRIu64 "-byte record",
			       size);
	ret_scalar(x, 0);
	return 0;
}

/* bpf_perf_event_output(ctx, map, flags, data, size), tracing flavour:
 * flags is a CPU index or BPF_F_CURRENT_CPU and nothing else. */
static int perf_event_output(struct gs_vm_exec *x, const char *name)
{
	uint64_t flags, size, index;
	struct gs_vm_map *m;
	uint8_t *data;
	uint32_t id;
	bool ok;

	if (!arg_ctx(x, 1, name) ||
	    !(m = arg_map(x, 2, name, BPF_MAP_TYPE_PERF_EVENT_ARRAY, &id)) ||
	    !arg_scalar(x, 3, name, &flags) || !arg_scalar(x, 5, name, &size))
		return x->code;
	data = vm_arg_mem(x, 4, size, false, name, &ok);
	if (!ok)
		return x->code;
	if (flags & ~(uint64_t)BPF_F_INDEX_MASK) {
		ret_errno(x, -EINVAL);
		return 0;
	}
	index = flags == BPF_F_CURRENT_CPU ? x->vm->cpu : flags;
	if (index >= m->max_entries) {
		ret_errno(x, -E2BIG);
		return 0;
	}
	if (index != x->vm->cpu) { /* that CPU's perf event cannot be written from here */
		ret_errno(x, -EOPNOTSUPP);
		return 0;
	}
	if (inject_output_failure(x))
		return 0;
	return record(x, id, flags, data, size);
}

/* bpf_ringbuf_output(map, data, size, flags): -EAGAIN when the record
 * (8-byte header, rounded up to 8) does not fit the undrained space. */
static int ringbuf_output(struct gs_vm_exec *x, const char *name)
{
	uint64_t size, flags, cost;
	struct gs_vm_map *m;
	uint8_t *data;
	uint32_t id;
	bool ok;

	if (!(m = arg_map(x, 1, name, BPF_MAP_TYPE_RINGBUF, &id)) ||
	    !arg_scalar(x, 3, name, &size) || !arg_scalar(x, 4, name, &flags))
		return x->code;
	data = vm_arg_mem(x, 2, size, false, name, &ok);
	if (!ok)
		return x->code;
	if (flags & ~(uint64_t)(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP)) {
		ret_errno(x, -EINVAL);
		return 0;
	}
	if (inject_output_failure(x))
		return 0;
	cost = (size + RINGBUF_HDR_SIZE + 7) & ~7ull;
	if (m->max_entries && cost > m->max_entries - m->ring_used) {
		ret_errno(x, -EAGAIN);
		return 0;
	}
	m->ring_used += cost;
	return record(x, id, flags, data, size);
}

/* bpf_ringbuf_query(map, flags): BPF_RB_AVAIL_DATA is what the VM's
 * records hold undrained; the other queries give the map's size or 0. */
static int ringbuf_query(struct gs_vm_exec *x, const char *name)
{
	struct gs_vm_map *m;
	uint64_t flags;
	uint32_t id;

	if (!(m = arg_map(x, 1, name, BPF_MAP_TYPE_RINGBUF, &id)) ||
	    !arg_scalar(x, 2, name, &flags))
		return x->code;
	ret_scalar(x, flags == BPF_RB_AVAIL_DATA ? m->ring_used :
		      flags == BPF_RB_RING_SIZE ? m->max_entries : 0);
	return 0;
}

/* bpf_probe_read_{user,kernel}(dst, size, src): all or nothing; a fault
 * zeroes dst. */
static int probe_read(struct gs_vm_exec *x, const char *name, const struct gs_vm_mem *mems,
		      size_t nmems)
{
	uint64_t size, src;
	uint8_t *dst;
	bool ok;

	if (!arg_scalar(x, 2, name, &size))
		return x->code;
	dst = vm_arg_mem(x, 1, size, true, name, &ok);
	if (!ok)
		return x->code;
	src = x->r[3].v; /* any value: it is an address in the fake space */
	if (size && vm_fake_read(mems, nmems, src, dst, size)) {
		memset(dst, 0, size);
		ret_errno(x, -EFAULT);
		return 0;
	}
	ret_scalar(x, 0);
	return 0;
}

/* bpf_probe_read_{user,kernel}_str(dst, size, src): the kernel's
 * strncpy_from_*_nofault: reads up to size bytes, stops after a NUL and
 * returns the length with it; without one, the last byte becomes NUL and
 * the result is size. A fault anywhere zeroes dst and returns -EFAULT. */
static int probe_read_str(struct gs_vm_exec *x, const char *name, const struct gs_vm_mem *mems,
			  size_t nmems)
{
	uint64_t size, src;
	uint8_t *dst;
	bool ok;

	if (!arg_scalar(x, 2, name, &size))
		return x->code;
	dst = vm_arg_mem(x, 1, size, true, name, &ok);
	if (!ok)
		return x->code;
	src = x->r[3].v;
	for (uint64_t i = 0; i < size; i++) {
		if (vm_fake_byte(mems, nmems, src + i, &dst[i])) {
			memset(dst, 0, size);
			ret_errno(x, -EFAULT);
			return 0;
		}
		if (dst[i] == 0) {
			ret_scalar(x, i + 1);
			return 0;
		}
	}
	if (size)
		dst[size - 1] = 0;
	ret_scalar(x, size);
	return 0;
}

static int probe_read_user(struct gs_vm_exec *x, const char *name)
{
	return probe_read(x, name, x->vm->user_mem, x->vm->nuser_mem);
}

static int probe_read_kernel(struct gs_vm_exec *x, const char *name)
{
	return probe_read(x, name, x->vm->kernel_mem, x->vm->nkernel_mem);
}

static int probe_read_user_str(struct gs_vm_exec *x, const char *name)
{
	return probe_read_str(x, name, x->vm->user_mem, x->vm->nuser_mem);
}

static int probe_read_kernel_str(struct gs_vm_exec *x, const char *name)
{
	return probe_read_str(x, name, x->vm->kernel_mem, x->vm->nkernel_mem);
}

/* bpf_copy_from_user(dst, size, src), sleepable programs only: faults
 * absent memory in (vm->on_fault runs, as another hit may while the
 * program sleeps), then reads like probe_read_user. */
static int copy_from_user(struct gs_vm_exec *x, const char *name)
{
	struct gs_vm *vm = x->vm;
	uint64_t size;
	int brought = 0;

	if (!arg_scalar(x, 2, name, &size))
		return x->code;
	if (size)
		brought = vm_fake_fault_in(vm->user_mem, vm->nuser_mem, x->r[3].v, size);
	if (brought > 0 && vm->on_fault)
		vm->on_fault(vm, vm->on_fault_arg);
	return probe_read_user(x, name);
}

/* bpf_get_ns_current_pid_tgid(dev, ino, nsdata, size): the ids in the
 * VM's pid namespace when (dev, ino) names it; else -EINVAL and zeroes. */
static int get_ns_current_pid_tgid(struct gs_vm_exec *x, const char *name)
{
	uint64_t dev, ino, size;
	uint32_t ids[2];
	uint8_t *nsdata;
	bool ok;

	if (!arg_scalar(x, 1, name, &dev) || !arg_scalar(x, 2, name, &ino) ||
	    !arg_scalar(x, 4, name, &size))
		return x->code;
	if (size == 0)
		return vm_fail(x, -EINVAL, "%s: size 0 (the verifier wants a positive size)", name);
	nsdata = vm_arg_mem(x, 3, size, true, name, &ok);
	if (!ok)
		return x->code;
	if (size != sizeof(ids) || dev != (uint32_t)dev || dev != x->vm->ns_dev ||
	    ino != x->vm->ns_ino) {
		memset(nsdata, 0, size);
		ret_errno(x, -EINVAL);
		return 0;
	}
	ids[0] = x->vm->ns_pid;
	ids[1] = x->vm->ns_tgid;
	memcpy(nsdata, ids, sizeof(ids));
	ret_scalar(x, 0);
	return 0;
}

static const struct helper helpers[] = {
	{ BPF_FUNC_map_lookup_elem, 2, false, map_lookup_elem },
	{ BPF_FUNC_ktime_get_ns, 0, false, ktime_get_ns },
	{ BPF_FUNC_tail_call, 3, true, tail_call },
	{ BPF_FUNC_get_current_pid_tgid, 0, false, get_current_pid_tgid },
	{ BPF_FUNC_perf_event_output, 5, false, perf_event_output },
	{ BPF_FUNC_get_current_task, 0, false, get_current_task },
	{ BPF_FUNC_probe_read_user, 3, false, probe_read_user },
	{ BPF_FUNC_probe_read_kernel, 3, false, probe_read_kernel },
	{ BPF_FUNC_probe_read_user_str, 3, false, probe_read_user_str },
	{ BPF_FUNC_probe_read_kernel_str, 3, false, probe_read_kernel_str },
	{ BPF_FUNC_copy_from_user, 3, false, copy_from_user },
	{ BPF_FUNC_get_ns_current_pid_tgid, 4, false, get_ns_current_pid_tgid },
	{ BPF_FUNC_ringbuf_output, 4, false, ringbuf_output },
	{ BPF_FUNC_ringbuf_query, 2, false, ringbuf_query },
};

int vm_call_helper(struct gs_vm_exec *x, int32_t id)
{
	const char *name = gs_helper_name(id);
	const struct helper *h = NULL;
	char why[64];
	int ret;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(helpers); i++)
		if (helpers[i].id == id)
			h = &helpers[i];
	if (!h)
		return vm_fail(x, -ENOSYS, "helper %d (%s) is not implemented by the test VM", id,
			       name ? name : "unknown to the disassembler too");
	snprintf(why, sizeof(why), "%s argument", name);
	for (uint8_t reg = 1; reg <= h->nargs; reg++)
		if (!vm_reg_ok(x, reg, why))
			return x->code;
	x->vm->stats.helper_calls++;
	ret = h->run(x, name);
	if (ret)
		return ret;
	/* The verifier forgets r1-r5 after any call. */
	for (uint8_t reg = 1; reg <= 5; reg++)
		x->r[reg].init = false;
	if (h->ret_void)
		x->r[0].init = false;
	return 0;
}
