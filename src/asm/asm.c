/* The instruction stream of the assembler: emission with notes, the sticky
 * first error, map declarations and their ld_imm64 relocations, and the
 * load-time patching of map fds. Labels and jumps live in label.c, stack
 * slots in stack.c. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/asm.h>

#include "mem.h"

void gs_asm_init(struct gs_asm *a)
{
	memset(a, 0, sizeof(*a));
}

/* The error recorded when there is no memory to record one. */
static const struct gs_error no_memory = { -ENOMEM, "out of memory recording an assembler error" };

static void drop_error(struct gs_asm *a)
{
	if (a->error != &no_memory)
		free((void *)a->error);
	a->error = NULL;
}

void gs_asm_fini(struct gs_asm *a)
{
	drop_error(a);
	free(a->insns);
	free(a->notes);
	free(a->labels);
	free(a->scopes);
	free(a->fixups);
	free(a->relocs);
	free(a->maps);
	free(a->slots);
	free(a->funcs);
	base_arena_free(&a->arena);
	memset(a, 0, sizeof(*a));
}

void asm_fit(struct gs_asm *a)
{
	size_t cap = a->cap;

	base_shrink((void **)&a->insns, &cap, a->len, sizeof(*a->insns));
	base_shrink((void **)&a->notes, &a->cap, a->len, sizeof(*a->notes));
	a->cap = cap < a->cap ? cap : a->cap; /* the room both arrays have */
	base_shrink((void **)&a->labels, &a->labels_cap, a->nlabels, sizeof(*a->labels));
	base_shrink((void **)&a->scopes, &a->scopes_cap, a->nscopes, sizeof(*a->scopes));
	base_shrink((void **)&a->fixups, &a->fixups_cap, a->nfixups, sizeof(*a->fixups));
	base_shrink((void **)&a->relocs, &a->relocs_cap, a->nrelocs, sizeof(*a->relocs));
	base_shrink((void **)&a->maps, &a->maps_cap, a->nmaps, sizeof(*a->maps));
	base_shrink((void **)&a->slots, &a->slots_cap, a->nslots, sizeof(*a->slots));
	base_shrink((void **)&a->funcs, &a->funcs_cap, a->nfuncs, sizeof(*a->funcs));
}

void gs_asm_reset(struct gs_asm *a)
{
	a->len = 0;
	a->nlabels = 0;
	a->nscopes = 0;
	a->scope = 0;
	a->nfixups = 0;
	a->nrelocs = 0;
	a->nmaps = 0;
	a->nslots = 0;
	a->nfuncs = 0;
	a->relaxed = 0;
	a->stack_used = 0;
	a->stack_max = 0;
	a->note = NULL;
	a->finished = false;
	base_arena_free(&a->arena);
	drop_error(a);
}

int gs_asm_fail(struct gs_asm *a, int code, const char *fmt, ...)
{
	struct gs_error *e;
	va_list ap;

	/* gs_asm_failed() reports the code, and 0 there means no error. */
	assert(code < 0);
	if (a->error)
		return a->error->code;
	e = malloc(sizeof(*e));
	if (!e) {
		a->error = &no_memory;
		return no_memory.code;
	}
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code = code;
	a->error = e;
	return code;
}

/* The sticky error's code, read beside where it is recorded: every emitter
 * asks it first, and the accessors (access.c) build on this file, not this
 * file on them. */
int gs_asm_failed(const struct gs_asm *a)
{
	return a->error ? a->error->code : 0;
}

const char *gs_asm_note(struct gs_asm *a, const char *note)
{
	const char *prev = a->note;

	a->note = note;
	return prev;
}

const char *gs_asm_notef(struct gs_asm *a, const char *fmt, ...)
{
	const char *prev = a->note;
	va_list ap;

	va_start(ap, fmt);
	a->note = base_arena_vformat(&a->arena, fmt, ap);
	va_end(ap);
	if (!a->note)
		gs_asm_fail(a, -ENOMEM, "out of memory copying the note '%s'", fmt);
	return prev;
}

/* Room for `count` more instructions, or a sticky error. */
static bool reserve(struct gs_asm *a, size_t count)
{
	size_t need = a->len + count, ncap;

	if (gs_asm_failed(a))
		return false;
	if (a->finished) {
		gs_asm_fail(a, -EINVAL, "instruction emitted after gs_asm_finish() (note: %s)",
			    a->note ? a->note : "none");
		return false;
	}
	if (need <= a->cap)
		return true;
	if (need > GS_MAX_INSNS) {
		gs_asm_fail(a, -E2BIG,
			    "program exceeds %d instructions, the kernel's limit (note: %s); "
			    "split it, e.g. into tail-called programs",
			    GS_MAX_INSNS, a->note ? a->note : "none");
		return false;
	}
	ncap = a->cap;
	if (base_grow((void **)&a->insns, &ncap, need, sizeof(*a->insns)) ||
	    base_grow((void **)&a->notes, &a->cap, need, sizeof(*a->notes))) {
		gs_asm_fail(a, -ENOMEM, "out of memory growing the program to %zu instructions", need);
		return false;
	}
	return true;
}

void gs_asm_emit(struct gs_asm *a, struct bpf_insn insn)
{
	if (a->len >= a->cap || gs_asm_failed(a) || a->finished) {
		if (!reserve(a, 1))
			return;
	}
	assert(a->len < a->cap);
	a->insns[a->len] = insn;
	a->notes[a->len] = a->note;
	a->len++;
}

static void emit_ld_imm64(struct gs_asm *a, uint8_t dst, uint8_t src, uint64_t imm)
{
	struct bpf_insn pair[] = { GS_LD_IMM64_RAW(dst, src, imm) };

	if (!reserve(a, 2))
		return;
	gs_asm_emit(a, pair[0]);
	gs_asm_emit(a, pair[1]);
}

/* The typed emitters take registers r0..r10 (enum gs_reg); GS_INSN would
 * keep a larger number's low bits, another register. */
void gs_asm_ld_imm64(struct gs_asm *a, uint8_t dst, uint64_t imm)
{
	assert(dst < GS_NREGS);
	emit_ld_imm64(a, dst, 0, imm);
}

void gs_asm_call(struct gs_asm *a, int32_t helper_id)
{
	gs_asm_emit(a, GS_CALL_HELPER(helper_id));
}

uint32_t gs_asm_map(struct gs_asm *a, const char *name)
{
	const char *copy;

	if (gs_asm_failed(a))
		return UINT32_MAX;
	copy = base_arena_strndup(&a->arena, name, strlen(name));
	if (!copy || base_grow((void **)&a->maps, &a->maps_cap, a->nmaps + 1, sizeof(*a->maps))) {
		gs_asm_fail(a, -ENOMEM, "out of memory declaring map '%s'", name);
		return UINT32_MAX;
	}
	a->maps[a->nmaps] = copy;
	return (uint32_t)a->nmaps++;
}

static void ld_map(struct gs_asm *a, uint8_t dst, uint32_t map, uint8_t kind, uint32_t off)
{
	uint8_t src = kind == GS_RELOC_MAP_FD ? BPF_PSEUDO_MAP_FD : BPF_PSEUDO_MAP_VALUE;

	assert(dst < GS_NREGS);
	if (gs_asm_failed(a))
		return;
	if (map >= a->nmaps) {
		gs_asm_fail(a, -EINVAL, "map index %u was not declared with gs_asm_map() (note: %s)",
			    map, a->note ? a->note : "none");
		return;
	}
	if (base_grow((void **)&a->relocs, &a->relocs_cap, a->nrelocs + 1, sizeof(*a->relocs))) {
		gs_asm_fail(a, -ENOMEM, "out of memory recording a relocation of map '%s'",
			    a->maps[map]);
		return;
	}
	a->relocs[a->nrelocs] = (struct gs_reloc){ .insn = (uint32_t)a->len, .map = map, .kind = kind };
	emit_ld_imm64(a, dst, src, (uint64_t)off << 32);
	if (!gs_asm_failed(a))
		a->nrelocs++;
}

void gs_asm_ld_map(struct gs_asm *a, uint8_t dst, uint32_t map)
{
	ld_map(a, dst, map, GS_RELOC_MAP_FD, 0);
}

void gs_asm_ld_map_value(struct gs_asm *a, uint8_t dst, uint32_t map, uint32_t off)
{
	ld_map(a, dst, map, GS_RELOC_MAP_VALUE, off);
}

int gs_reloc_apply(struct bpf_insn *insns, size_t n, const struct gs_reloc *relocs,
		   size_t nrelocs, const int *fds, size_t nfds, struct gs_error *err)
{
	for (size_t i = 0; i < nrelocs; i++) {
		const struct gs_reloc *r = &relocs[i];

		if (r->insn + 1 >= n || !gs_insn_is_ld_imm64(&insns[r->insn]))
			return gs_errorf(err, -EINVAL,
					 "relocation %zu points at insn %u, which is not an ld_imm64 "
					 "of this %zu-instruction program", i, r->insn, n);
		if (r->map >= nfds || fds[r->map] < 0)
			return gs_errorf(err, -EINVAL,
					 "relocation %zu (insn %u) needs map %u, but no fd was given "
					 "for it (%zu fds)", i, r->insn, r->map, nfds);
		insns[r->insn].imm = fds[r->map];
	}
	return 0;
}
