/* Stack slots below r10. A slot is named so that an overflow says which
 * value did not fit; marks let an emitter give back the slots it took, so
 * deep programs reuse their scratch space instead of growing the frame. */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <gs/internal/asm.h>

#include "mem.h"

/* The frame's invariant: the bytes in use end where the last slot held
 * ends, inside the frame and within the largest frame seen. */
static inline bool frame_ok(const struct gs_asm *a)
{
	return a->stack_used >= 0 && a->stack_used <= a->stack_max &&
	       a->stack_max <= GS_STACK_MAX &&
	       a->stack_used == (a->nslots ? -a->slots[a->nslots - 1].off : 0);
}

int16_t gs_asm_slot(struct gs_asm *a, const char *name, uint16_t size, uint16_t align)
{
	int end;
	const char *copy;

	assert(frame_ok(a));
	if (gs_asm_failed(a))
		return -GS_STACK_MAX;
	if (size == 0 || align == 0 || align > 8 || (align & (align - 1))) {
		gs_asm_fail(a, -EINVAL, "stack slot '%s': size %u / alignment %u is invalid "
			    "(size > 0, alignment 1, 2, 4 or 8)", name, size, align);
		return -GS_STACK_MAX;
	}
	end = (a->stack_used + size + align - 1) & ~(align - 1);
	if (end > GS_STACK_MAX) {
		gs_asm_fail(a, -ENOSPC,
			    "stack frame exceeds %d bytes: slot '%s' (%u bytes) would end at r10-%d "
			    "with %d bytes already in use (note: %s); release scratch slots with "
			    "gs_asm_stack_release() or keep the value in a map",
			    GS_STACK_MAX, name, size, end, a->stack_used,
			    a->note ? a->note : "none");
		return -GS_STACK_MAX;
	}
	if (base_grow((void **)&a->slots, &a->slots_cap, a->nslots + 1, sizeof(*a->slots)) ||
	    !(copy = base_arena_strndup(&a->arena, name, strlen(name)))) {
		gs_asm_fail(a, -ENOMEM, "out of memory allocating stack slot '%s'", name);
		return -GS_STACK_MAX;
	}
	a->slots[a->nslots++] = (struct gs_stack_slot){ .name = copy, .off = (int16_t)-end,
							.size = size };
	a->stack_used = end;
	if (end > a->stack_max)
		a->stack_max = end;
	/* The slot lies inside the frame: [r10 - end, r10 - end + size). */
	assert(end >= size && end <= GS_STACK_MAX && frame_ok(a));
	return (int16_t)-end;
}

size_t gs_asm_stack_mark(const struct gs_asm *a)
{
	return a->nslots;
}

void gs_asm_stack_release(struct gs_asm *a, size_t mark)
{
	if (mark > a->nslots) {
		gs_asm_fail(a, -EINVAL, "stack release to mark %zu, but only %zu slots are held",
			    mark, a->nslots);
		return;
	}
	a->nslots = mark;
	a->stack_used = mark ? -a->slots[mark - 1].off : 0;
	assert(frame_ok(a));
}

void gs_asm_func_begin(struct gs_asm *a, uint32_t btf_type_id)
{
	if (gs_asm_failed(a))
		return;
	if (base_grow((void **)&a->funcs, &a->funcs_cap, a->nfuncs + 1, sizeof(*a->funcs))) {
		gs_asm_fail(a, -ENOMEM, "out of memory recording a subprogram");
		return;
	}
	if (a->nfuncs && a->funcs[a->nfuncs - 1].insn >= a->len) {
		gs_asm_fail(a, -EINVAL, "subprogram at insn %zu starts where the previous one does "
			    "(note: %s)", a->len, a->note ? a->note : "none");
		return;
	}
	a->funcs[a->nfuncs++] = (struct gs_asm_func){ .insn = (uint32_t)a->len,
						     .type_id = btf_type_id };
	/* A new frame: slots start again at r10 (stack_max keeps the largest). */
	a->nslots = 0;
	a->stack_used = 0;
}
