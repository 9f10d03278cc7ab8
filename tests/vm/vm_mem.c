/* Memory of the test VM: the regions a pointer may reach (ctx, each call
 * frame's stack, map values, map handles), the checks every load, store,
 * atomic and helper pointer argument passes, pointers spilled to the stack,
 * and the fake user and kernel address spaces probe_read reads. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_priv.h"

static uint32_t region_add(struct gs_vm_exec *x, struct vm_region r)
{
	if (x->nregions == x->regions_cap) {
		size_t cap = x->regions_cap * 2;
		struct vm_region *grown = realloc(x->regions, cap * sizeof(*grown));

		if (!grown) {
			vm_fail(x, -ENOMEM, "out of memory tracking %zu memory regions", cap);
			return VM_SCALAR;
		}
		x->regions = grown;
		x->regions_cap = cap;
	}
	x->regions[x->nregions] = r;
	return (uint32_t)x->nregions++;
}

void vm_regions_reset(struct gs_vm_exec *x, const void *ctx, size_t ctx_size)
{
	x->nregions = VM_REGION_DYNAMIC;
	x->regions[VM_SCALAR] = (struct vm_region){ 0 };
	/* The ctx is never written through: the cast only fits the struct. */
	x->regions[VM_REGION_CTX] = (struct vm_region){
		.kind = VM_CTX, .base = (uint8_t *)(uintptr_t)ctx, .size = ctx_size,
	};
	for (uint32_t d = 0; d < GS_VM_MAX_FRAMES; d++)
		x->regions[VM_REGION_STACK0 + d] = (struct vm_region){
			.kind = VM_STACK, .writable = true, .base = x->frames[d].stack,
			.size = GS_VM_STACK_SIZE, .frame = d,
		};
	x->regions[VM_REGION_FUNC] = (struct vm_region){ .kind = VM_FUNC };
}

uint32_t vm_region_map_value(struct gs_vm_exec *x, uint32_t map, uint8_t *value)
{
	for (size_t i = VM_REGION_DYNAMIC; i < x->nregions; i++)
		if (x->regions[i].kind == VM_MAP_VALUE && x->regions[i].base == value)
			return (uint32_t)i;
	return region_add(x, (struct vm_region){
		.kind = VM_MAP_VALUE, .writable = true, .base = value,
		.size = x->vm->maps[map].value_size, .map = map,
	});
}

uint32_t vm_region_map_handle(struct gs_vm_exec *x, uint32_t map)
{
	for (size_t i = VM_REGION_DYNAMIC; i < x->nregions; i++)
		if (x->regions[i].kind == VM_MAP_HANDLE && x->regions[i].map == map)
			return (uint32_t)i;
	return region_add(x, (struct vm_region){ .kind = VM_MAP_HANDLE, .map = map });
}

void vm_describe(struct gs_vm_exec *x, uint32_t region, uint64_t addr, char *buf, size_t size)
{
	const struct vm_region *r = &x->regions[region];
	int64_t rel = (int64_t)(addr - (uint64_t)(uintptr_t)r->base);

	if (region == VM_SCALAR) {
		snprintf(buf, size, "0x%" PRIx64, addr);
		return;
	}
	switch (r->kind) {
	case VM_CTX:
		snprintf(buf, size, "ctx%+" PRId64, rel);
		break;
	case VM_STACK:
		if (r->frame == x->depth)
			snprintf(buf, size, "fp%+" PRId64, rel - GS_VM_STACK_SIZE);
		else
			snprintf(buf, size, "fp%+" PRId64 " of frame %u", rel - GS_VM_STACK_SIZE,
				 r->frame);
		break;
	case VM_MAP_VALUE:
		snprintf(buf, size, "value%+" PRId64 " of map '%s'", rel, x->vm->maps[r->map].name);
		break;
	case VM_FUNC:
		snprintf(buf, size, "the subprogram at pc %" PRIu64, (uint64_t)(addr - VM_FUNC_BASE));
		break;
	default:
		snprintf(buf, size, "map '%s'", x->vm->maps[r->map].name);
		break;
	}
}

/* The region's name in "outside the 24-byte value of map 'stats'". */
static void region_name(struct gs_vm_exec *x, const struct vm_region *r, char *buf, size_t size)
{
	switch (r->kind) {
	case VM_CTX:
		snprintf(buf, size, "%zu-byte ctx", r->size);
		break;
	case VM_STACK:
		snprintf(buf, size, "%d-byte stack frame [fp-%d, fp)", GS_VM_STACK_SIZE,
			 GS_VM_STACK_SIZE);
		break;
	default:
		snprintf(buf, size, "%zu-byte value of map '%s'", r->size,
			 x->vm->maps[r->map].name);
		break;
	}
}

/* Host memory for `size` bytes at addr inside `region`, or NULL with the
 * run failed; `what` starts the message ("read of 4 bytes"). Stack and
 * ctx accesses by instructions must be aligned to their size, as the
 * verifier demands. */
static uint8_t *region_mem(struct gs_vm_exec *x, uint32_t region, uint64_t addr, uint64_t size,
			   bool write, bool aligned, const char *what)
{
	const struct vm_region *r = &x->regions[region];
	uint64_t rel = addr - (uint64_t)(uintptr_t)r->base;
	char where[96], name[96];

	vm_describe(x, region, addr, where, sizeof(where));
	if (r->kind == VM_MAP_HANDLE || r->kind == VM_FUNC) {
		vm_fail(x, -EFAULT, "%s at %s: a %s is not memory", what, where,
			r->kind == VM_FUNC ? "callback" : "map handle");
		return NULL;
	}
	if (r->kind == VM_STACK && r->frame > x->depth) {
		vm_fail(x, -EFAULT, "%s at %s: that frame has returned", what, where);
		return NULL;
	}
	if (rel > r->size || size > r->size - rel) {
		region_name(x, r, name, sizeof(name));
		vm_fail(x, -EFAULT, "%s at %s is outside the %s", what, where, name);
		return NULL;
	}
	if (write && !r->writable) {
		vm_fail(x, -EFAULT, "%s at %s: the ctx is read-only", what, where);
		return NULL;
	}
	if (aligned && r->kind != VM_MAP_VALUE && size > 1 && (rel & (size - 1))) {
		vm_fail(x, -EFAULT, "%s at %s is misaligned: %s accesses must be %" PRIu64
			"-byte aligned", what, where, r->kind == VM_CTX ? "ctx" : "stack", size);
		return NULL;
	}
	return r->base + rel;
}

/* Fails for a dereference of a register that holds no pointer. */
static void not_a_pointer(struct gs_vm_exec *x, uint8_t reg, const char *what)
{
	if (x->r[reg].v == 0)
		vm_fail(x, -EFAULT, "%s through r%d, which is NULL", what, reg);
	else
		vm_fail(x, -EFAULT, "%s through r%d, which holds the scalar 0x%" PRIx64
			", not a pointer", what, reg, x->r[reg].v);
}

uint8_t *vm_insn_mem(struct gs_vm_exec *x, uint8_t reg, int16_t off, size_t size,
		     enum vm_access acc)
{
	static const char *const verbs[] = {
		[VM_READ] = "read", [VM_WRITE] = "write", [VM_ATOMIC] = "atomic update",
	};
	const struct vm_reg *r = &x->r[reg];
	char what[48];
	uint8_t *p;

	if (!vm_reg_ok(x, reg, "the address"))
		return NULL;
	snprintf(what, sizeof(what), "%s of %zu bytes", verbs[acc], size);
	if (r->region == VM_SCALAR) {
		not_a_pointer(x, reg, what);
		return NULL;
	}
	p = region_mem(x, r->region, r->v + (uint64_t)(int64_t)off, size, acc != VM_READ, true,
		       what);
	if (p && acc != VM_READ)
		vm_stack_clobber(x, r->region, p, size);
	return p;
}

uint8_t *vm_arg_mem(struct gs_vm_exec *x, uint8_t reg, uint64_t size, bool write,
		    const char *helper, bool *ok)
{
	const struct vm_reg *r = &x->r[reg];
	char what[96];
	uint8_t *p;

	*ok = false;
	snprintf(what, sizeof(what), "%s %s %" PRIu64 " bytes", helper,
		 write ? "writes" : "reads", size);
	if (r->region == VM_SCALAR) {
		if (size == 0 && r->v == 0) {
			*ok = true;
			return NULL;
		}
		not_a_pointer(x, reg, what);
		return NULL;
	}
	p = region_mem(x, r->region, r->v, size, write, false, what);
	if (!p)
		return NULL;
	if (write)
		vm_stack_clobber(x, r->region, p, size);
	*ok = true;
	return p;
}

static struct vm_frame *stack_frame(struct gs_vm_exec *x, uint32_t region)
{
	if (region < VM_REGION_STACK0 || region >= VM_REGION_DYNAMIC)
		return NULL;
	return &x->frames[region - VM_REGION_STACK0];
}

void vm_stack_clobber(struct gs_vm_exec *x, uint32_t region, const uint8_t *p, size_t size)
{
	struct vm_frame *f = stack_frame(x, region);
	size_t first, last;

	if (!f || size == 0)
		return;
	first = (size_t)(p - f->stack) / 8;
	last = (size_t)(p - f->stack + size - 1) / 8;
	for (size_t i = first; i <= last && i < VM_STACK_SLOTS; i++)
		f->slot_region[i] = VM_SCALAR;
}

uint32_t vm_stack_spill(struct gs_vm_exec *x, uint32_t region, const uint8_t *p)
{
	struct vm_frame *f = stack_frame(x, region);

	return f ? f->slot_region[(size_t)(p - f->stack) / 8] : VM_SCALAR;
}

void vm_stack_set_spill(struct gs_vm_exec *x, uint32_t region, const uint8_t *p, uint32_t ptr)
{
	struct vm_frame *f = stack_frame(x, region);

	if (f)
		f->slot_region[(size_t)(p - f->stack) / 8] = ptr;
}

/* The region holding addr, or NULL. */
static const struct gs_vm_mem *fake_find(const struct gs_vm_mem *mems, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr - mems[i].addr < mems[i].len)
			return &mems[i];
	return NULL;
}

int vm_fake_read(const struct gs_vm_mem *mems, size_t n, uint64_t addr, uint8_t *dst, size_t len)
{
	while (len) {
		const struct gs_vm_mem *m = fake_find(mems, n, addr);
		size_t rel, chunk;

		if (!m || m->absent)
			return -EFAULT;
		rel = (size_t)(addr - m->addr);
		chunk = m->len - rel < len ? m->len - rel : len;
		memcpy(dst, m->bytes + rel, chunk);
		dst += chunk;
		len -= chunk;
		addr += chunk;
		if (len && addr == 0) /* wrapped past the top of the address space */
			return -EFAULT;
	}
	return 0;
}

int vm_fake_byte(const struct gs_vm_mem *mems, size_t n, uint64_t addr, uint8_t *out)
{
	const struct gs_vm_mem *m = fake_find(mems, n, addr);

	if (!m || m->absent)
		return -EFAULT;
	*out = m->bytes[addr - m->addr];
	return 0;
}

int vm_fake_fault_in(struct gs_vm_mem *mems, size_t n, uint64_t addr, size_t len)
{
	int brought = 0;

	while (len) {
		struct gs_vm_mem *m = (struct gs_vm_mem *)fake_find(mems, n, addr);
		size_t rel, chunk;

		if (!m)
			return -EFAULT;
		brought += m->absent;
		m->absent = false;
		rel = (size_t)(addr - m->addr);
		chunk = m->len - rel < len ? m->len - rel : len;
		len -= chunk;
		addr += chunk;
		if (len && addr == 0)
			return -EFAULT;
	}
	return brought;
}

static int add_mem(struct gs_vm_mem **mems, size_t *n, size_t *cap, uint64_t addr,
		   const void *bytes, size_t len, bool absent, const char *space,
		   struct gs_error *err)
{
	struct gs_vm_mem *m;

	if (len == 0 || addr + len - 1 < addr)
		return gs_errorf(err, -EINVAL, "%s memory of %zu bytes at 0x%" PRIx64
				 " is empty or wraps past the top of the address space",
				 space, len, addr);
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct gs_vm_mem *grown = realloc(*mems, ncap * sizeof(*grown));

		if (!grown)
			return gs_errorf(err, -ENOMEM, "out of memory adding %s memory", space);
		*mems = grown;
		*cap = ncap;
	}
	m = &(*mems)[*n];
	m->bytes = malloc(len);
	if (!m->bytes)
		return gs_errorf(err, -ENOMEM, "out of memory copying %zu bytes of %s memory",
				 len, space);
	if (bytes)
		memcpy(m->bytes, bytes, len);
	else
		memset(m->bytes, 0, len);
	m->addr = addr;
	m->len = len;
	m->absent = absent;
	(*n)++;
	return 0;
}

int gs_vm_add_user_mem(struct gs_vm *vm, uint64_t addr, const void *bytes, size_t len,
		       struct gs_error *err)
{
	return add_mem(&vm->user_mem, &vm->nuser_mem, &vm->user_mem_cap, addr, bytes, len, false,
		       "user", err);
}

int gs_vm_add_user_mem_absent(struct gs_vm *vm, uint64_t addr, const void *bytes, size_t len,
			      struct gs_error *err)
{
	return add_mem(&vm->user_mem, &vm->nuser_mem, &vm->user_mem_cap, addr, bytes, len, true,
		       "user", err);
}

int gs_vm_add_kernel_mem(struct gs_vm *vm, uint64_t addr, const void *bytes, size_t len,
			 struct gs_error *err)
{
	return add_mem(&vm->kernel_mem, &vm->nkernel_mem, &vm->kernel_mem_cap, addr, bytes, len,
		       false, "kernel", err);
}
