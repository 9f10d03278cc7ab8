/* Labels and the jumps that refer to them. A jump is emitted with a zero
 * offset and a fixup beside it; gs_asm_finish() resolves every fixup once,
 * `off = target - (pc + 1)`, and names the label in any error. */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <gs/internal/asm.h>

#include "mem.h"
#include "scope.h"

#define NOTE(n) ((n) ? (n) : "none")

/* The label's name as the disassembly shows it, scopes and ordinal
 * included, for an error message (formatted only on that path). */
struct qname {
	char s[160];
};

static struct qname qualified(const struct gs_asm *a, uint32_t id)
{
	struct qname q;

	asm_label_format(a, id, asm_label_ordinal(a, id), q.s, sizeof(q.s));
	return q;
}

static struct gs_label new_label(struct gs_asm *a, const char *name)
{
	struct gs_label_info *info;

	if (!name || base_grow((void **)&a->labels, &a->labels_cap, a->nlabels + 1,
			      sizeof(*a->labels))) {
		gs_asm_fail(a, -ENOMEM, "out of memory creating label '%s'", name ? name : "?");
		return (struct gs_label){ UINT32_MAX };
	}
	info = &a->labels[a->nlabels];
	info->name = name;
	info->note = a->note;
	info->pos = -1;
	info->binds = 0;
	info->scope = a->scope;
	return (struct gs_label){ (uint32_t)a->nlabels++ };
}

struct gs_label gs_asm_label(struct gs_asm *a, const char *name)
{
	return new_label(a, name);
}

struct gs_label gs_asm_labelf(struct gs_asm *a, const char *fmt, ...)
{
	va_list ap;
	char *name;

	va_start(ap, fmt);
	name = base_arena_vformat(&a->arena, fmt, ap);
	va_end(ap);
	return new_label(a, name);
}

static struct gs_label_info *lookup(struct gs_asm *a, struct gs_label l, const char *what)
{
	if (l.id < a->nlabels)
		return &a->labels[l.id];
	gs_asm_fail(a, -EINVAL, "%s: label handle %u was not created by this assembler (note: %s)",
		    what, l.id, NOTE(a->note));
	return NULL;
}

void gs_asm_bind(struct gs_asm *a, struct gs_label l)
{
	struct gs_label_info *info = lookup(a, l, "bind");

	if (!info || gs_asm_failed(a))
		return;
	if (info->binds++ == 0) {
		info->pos = (int64_t)a->len;
		return;
	}
	gs_asm_fail(a, -EINVAL,
		    "label '%s' bound twice: at insn %lld and again at insn %zu (note: %s)",
		    qualified(a, l.id).s, (long long)info->pos, a->len, NOTE(a->note));
}

static void jump(struct gs_asm *a, struct bpf_insn insn, struct gs_label to, uint8_t kind)
{
	if (!lookup(a, to, "jump") || gs_asm_failed(a))
		return;
	if (base_grow((void **)&a->fixups, &a->fixups_cap, a->nfixups + 1, sizeof(*a->fixups))) {
		gs_asm_fail(a, -ENOMEM, "out of memory recording a jump to '%s'",
			    qualified(a, to.id).s);
		return;
	}
	a->fixups[a->nfixups] = (struct gs_fixup){ .insn = (uint32_t)a->len, .label = to.id,
						   .kind = kind };
	gs_asm_emit(a, insn);
	if (!gs_asm_failed(a))
		a->nfixups++;
}

/* The conditional jumps take one of the comparisons (BPF_JEQ ... BPF_JSLE:
 * not goto, call or exit, which have their own emitters) and registers
 * r0..r10; GS_INSN would fold anything else into a valid-looking field. */
static inline bool conditional(uint8_t op)
{
	uint8_t k = op >> 4;

	return (op & 0x0f) == 0 && k >= BPF_JEQ >> 4 && k <= BPF_JSLE >> 4 &&
	       op != BPF_CALL && op != BPF_EXIT && op != BPF_JA;
}

void gs_asm_jmp_imm(struct gs_asm *a, uint8_t op, uint8_t dst, int32_t imm, struct gs_label to)
{
	assert(conditional(op) && dst < GS_NREGS);
	jump(a, GS_JMP_IMM(op, dst, imm, 0), to, GS_FIXUP_OFF16);
}

void gs_asm_jmp_reg(struct gs_asm *a, uint8_t op, uint8_t dst, uint8_t src, struct gs_label to)
{
	assert(conditional(op) && dst < GS_NREGS && src < GS_NREGS);
	jump(a, GS_JMP_REG(op, dst, src, 0), to, GS_FIXUP_OFF16);
}

void gs_asm_jmp32_imm(struct gs_asm *a, uint8_t op, uint8_t dst, int32_t imm, struct gs_label to)
{
	assert(conditional(op) && dst < GS_NREGS);
	jump(a, GS_JMP32_IMM(op, dst, imm, 0), to, GS_FIXUP_OFF16);
}

void gs_asm_jmp32_reg(struct gs_asm *a, uint8_t op, uint8_t dst, uint8_t src, struct gs_label to)
{
	assert(conditional(op) && dst < GS_NREGS && src < GS_NREGS);
	jump(a, GS_JMP32_REG(op, dst, src, 0), to, GS_FIXUP_OFF16);
}

void gs_asm_ja(struct gs_asm *a, struct gs_label to)
{
	jump(a, GS_JA(0), to, GS_FIXUP_OFF16);
}

void gs_asm_gotol(struct gs_asm *a, struct gs_label to)
{
	jump(a, GS_GOTOL(0), to, GS_FIXUP_IMM32);
}

void gs_asm_call_label(struct gs_asm *a, struct gs_label subprog)
{
	jump(a, GS_CALL_BPF(0), subprog, GS_FIXUP_IMM32);
}

void gs_asm_ld_func(struct gs_asm *a, uint8_t dst, struct gs_label callback)
{
	struct bpf_insn pair[] = { GS_LD_IMM64_RAW(dst, BPF_PSEUDO_FUNC, 0) };

	assert(dst < GS_NREGS);
	jump(a, pair[0], callback, GS_FIXUP_IMM32); /* imm: target - (pc + 1), as a call */
	gs_asm_emit(a, pair[1]);
}

static int64_t distance(const struct gs_asm *a, const struct gs_fixup *f)
{
	return a->labels[f->label].pos - ((int64_t)f->insn + 1);
}

static bool fits16(int64_t d)
{
	return d >= INT16_MIN && d <= INT16_MAX;
}

/* The kernel grows a program after the verifier: it inlines helper calls
 * (a per-CPU array map lookup becomes 10 instructions, an array lookup 8)
 * and refuses one whose 16-bit jump then leaves the range ("insn N cannot
 * be patched due to 16-bit range"). A 16-bit jump is kept only when it
 * reaches with this much room per helper call between the jump and its
 * target; code without calls keeps the whole range, so a program widens
 * no more jumps than it must (gotol needs Linux 6.6). */
#define GROWTH_PER_CALL 12

static bool is_helper_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0;
}

/* calls[i]: helper calls among instructions [0, i). */
static uint32_t *count_calls(const struct gs_asm *a)
{
	uint32_t *calls = malloc((a->len + 1) * sizeof(*calls));

	if (!calls)
		return NULL;
	calls[0] = 0;
	for (size_t i = 0; i < a->len; i++)
		calls[i + 1] = calls[i] + is_helper_call(&a->insns[i]);
	return calls;
}

static bool reaches_after_patching(const struct gs_asm *a, const struct gs_fixup *f,
				   const uint32_t *calls)
{
	int64_t d = distance(a, f), from = (int64_t)f->insn + 1, to = from + d;
	int64_t room = (int64_t)(d >= 0 ? calls[to] - calls[from] : calls[from] - calls[to]) *
		       GROWTH_PER_CALL;

	return d >= 0 ? d + room <= INT16_MAX : d - room >= INT16_MIN;
}

/* Moves instructions, labels, fixups, relocations and subprograms up so
 * that two instructions fit after each insn i with widen[i]. */
static int insert_after(struct gs_asm *a, const bool *widen, size_t count)
{
	size_t old = a->len, cap = a->cap, need = old + 2 * count;
	uint32_t *add = calloc(old + 1, sizeof(*add));

	if (!add || need > GS_MAX_INSNS ||
	    base_grow((void **)&a->insns, &cap, need, sizeof(*a->insns)) ||
	    base_grow((void **)&a->notes, &a->cap, need, sizeof(*a->notes))) {
		free(add);
		return gs_asm_fail(a, need > GS_MAX_INSNS ? -E2BIG : -ENOMEM,
				   "widening %zu far jumps would make the program %zu instructions",
				   count, need);
	}
	for (size_t i = 0; i < old; i++)
		add[i + 1] = add[i] + (widen[i] ? 2 : 0);
	for (size_t i = old; i-- > 0;) {
		size_t ni = i + add[i];

		/* relax() widens conditional jumps only: a ja becomes a gotol. */
		assert(!widen[i] || (BPF_CLASS(a->insns[i].code) == BPF_JMP ||
				     BPF_CLASS(a->insns[i].code) == BPF_JMP32));

		a->insns[ni] = a->insns[i];
		a->notes[ni] = a->notes[i];
		if (!widen[i])
			continue;
		a->insns[ni].off = 1; /* taken: skip the ja, land on the gotol */
		a->insns[ni + 1] = GS_JA(1);
		a->insns[ni + 2] = GS_GOTOL(0);
		a->notes[ni + 1] = a->notes[ni + 2] = a->notes[i];
	}
	for (size_t i = 0; i < a->nlabels; i++)
		if (a->labels[i].pos >= 0 && (size_t)a->labels[i].pos <= old)
			a->labels[i].pos += add[a->labels[i].pos];
	for (size_t i = 0; i < a->nfixups; i++) {
		struct gs_fixup *f = &a->fixups[i];
		bool w = widen[f->insn];

		f->insn += add[f->insn];
		if (w && f->kind == GS_FIXUP_OFF16) { /* the gotol now carries the target */
			f->insn += 2;
			f->kind = GS_FIXUP_IMM32;
		}
	}
	for (size_t i = 0; i < a->nrelocs; i++)
		a->relocs[i].insn += add[a->relocs[i].insn];
	for (size_t i = 0; i < a->nfuncs; i++)
		a->funcs[i].insn += add[a->funcs[i].insn];
	a->len = need;
	a->relaxed += (uint32_t)count;
	free(add);
	return 0;
}

/* Widens every 16-bit jump whose target is out of reach once the kernel
 * has patched the program, until all fit: widening moves code, which may
 * put other jumps out of reach. */
static int relax(struct gs_asm *a)
{
	/* Short programs (nearly all) reach everywhere, however many calls. */
	if (a->len <= INT16_MAX / (GROWTH_PER_CALL + 1))
		return 0;
	for (;;) {
		bool *widen = NULL;
		uint32_t *calls = count_calls(a);
		size_t count = 0;
		int rc;

		if (!calls)
			return gs_asm_fail(a, -ENOMEM, "out of memory widening far jumps");
		for (size_t i = 0; i < a->nfixups; i++) {
			struct gs_fixup *f = &a->fixups[i];
			struct bpf_insn *in = &a->insns[f->insn];

			if (f->kind != GS_FIXUP_OFF16 || a->labels[f->label].binds == 0 ||
			    a->labels[f->label].pos < 0 || a->labels[f->label].pos > (int64_t)a->len ||
			    reaches_after_patching(a, f, calls))
				continue;
			if (in->code == (BPF_JMP | BPF_JA)) {
				*in = GS_GOTOL(0);
				f->kind = GS_FIXUP_IMM32;
				a->relaxed++;
				continue;
			}
			if (!widen && !(widen = calloc(a->len, sizeof(*widen)))) {
				free(calls);
				return gs_asm_fail(a, -ENOMEM, "out of memory widening far jumps");
			}
			if (!widen[f->insn])
				count++;
			widen[f->insn] = true;
		}
		free(calls);
		if (!count)
			return 0;
		rc = insert_after(a, widen, count);
		free(widen);
		if (rc)
			return rc;
	}
}

static int resolve(struct gs_asm *a, const struct gs_fixup *f)
{
	const struct gs_label_info *l;
	const char *note;
	int64_t dist;

	/* jump() records a fixup only for a label of this assembler, at the
	 * instruction it emits; insert_after() moves both along. */
	assert(f->label < a->nlabels && f->insn < a->len);
	l = &a->labels[f->label];
	note = NOTE(a->notes[f->insn]);

	if (l->binds == 0)
		return gs_asm_fail(a, -EINVAL,
				   "label '%s' is the target of insn %u (note: %s) but is never bound",
				   qualified(a, f->label).s, f->insn, note);
	if (l->pos >= (int64_t)a->len)
		return gs_asm_fail(a, -EINVAL,
				   "label '%s' is bound after the last instruction (%lld), yet "
				   "insn %u (note: %s) jumps to it; bind it before an instruction",
				   qualified(a, f->label).s, (long long)l->pos, f->insn, note);
	dist = distance(a, f);
	if (f->kind == GS_FIXUP_OFF16) {
		if (!fits16(dist))
			return gs_asm_fail(a, -ERANGE,
					   "jump at insn %u (note: %s) to label '%s' at insn %lld spans "
					   "%lld instructions; a 16-bit jump reaches %d..%d: use "
					   "gs_asm_gotol() or split the program",
					   f->insn, note, qualified(a, f->label).s, (long long)l->pos,
					   (long long)dist, INT16_MIN, INT16_MAX);
		a->insns[f->insn].off = (int16_t)dist;
	} else {
		a->insns[f->insn].imm = (int32_t)dist;
	}
	return 0;
}

int gs_asm_finish(struct gs_asm *a, struct gs_error *err)
{
	if (!gs_asm_failed(a) && a->finished)
		gs_asm_fail(a, -EINVAL, "gs_asm_finish() called twice");
	if (!gs_asm_failed(a))
		relax(a);
	for (size_t i = 0; i < a->nfixups && !gs_asm_failed(a); i++)
		resolve(a, &a->fixups[i]);
	a->finished = true;
	if (gs_asm_failed(a)) {
		if (err)
			*err = *a->error;
		return a->error->code;
	}
	asm_fit(a);
	gs_error_clear(err);
	return 0;
}
