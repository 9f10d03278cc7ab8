/* The static checker: finds code-generator bugs (bad opcodes, jumps out of
 * the program, r10 written, stack out of the frame, dead code, paths that
 * fall off the end, registers read before they are written) before the
 * kernel verifier does, and names the instruction, its text and its note. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include <gs/internal/asm.h>
#include <gs/disasm.h>

#define R(r) ((uint16_t)(1u << (r)))
#define REGS_ALL ((uint16_t)0x7ff)		/* r0..r10 */
#define REGS_ARGS ((uint16_t)0x03e)		/* r1..r5: clobbered by calls */
#define MAIN_ENTRY (R(1) | R(10))		/* context pointer, frame */
#define CALLBACK_ENTRY (REGS_ARGS | R(10))	/* arguments from a helper, frame */

enum {
	N_SLOT2 = 1 << 0,	/* second half of an ld_imm64: not an instruction */
	N_ENTRY = 1 << 1,	/* a subprogram starts here */
	N_CALLEE = 1 << 2,	/* succ[1] is a subprogram this calls or references */
	N_CALLBACK = 1 << 3,	/* ... as a callback, called by a helper */
	N_VISITED = 1 << 4,	/* reached: `written` is meaningful */
	N_QUEUED = 1 << 5,	/* on the worklist */
};

/* One instruction, decoded once. Its effect on the set of written registers
 * is out = (written & keep) | gen. */
struct node {
	int32_t succ[2];	/* [0] next in line, [1] jump or call target; -1 none */
	uint32_t sub;		/* first instruction of its subprogram */
	uint16_t reads;		/* registers it reads */
	uint16_t gen;		/* registers it writes */
	uint16_t keep;		/* registers whose state survives it */
	uint16_t written;	/* registers written on every path reaching it */
	uint8_t flags;
};

struct checker {
	const struct bpf_insn *insns;
	size_t n;
	struct node *nodes;
	int32_t *work;		/* worklist: a stack of node indices */
	size_t top;
	char why[192];		/* what is wrong with the instruction at hand */
};

__attribute__((format(printf, 2, 3)))
static int bad(struct checker *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* Formats `insn 12 (if r1 == 0x0 goto pc+40; note: reserve check): why`. */
static int report(const struct checker *c, const char *const *notes, size_t i,
		  struct gs_error *err)
{
	char text[96];
	const char *t = text;
	const char *note = notes ? notes[i] : NULL;

	gs_disasm_insn(c->insns + i, c->n - i, text, sizeof(text));
	/* The checker shows the instruction, not its opcode byte: drop "(bf) ". */
	if (t[0] == '(' && isxdigit((unsigned char)t[1]) && isxdigit((unsigned char)t[2]) &&
	    t[3] == ')' && t[4] == ' ')
		t += 5;
	if (note)
		return gs_errorf(err, -EINVAL, "insn %zu (%s; note: %s): %s", i, t, note, c->why);
	return gs_errorf(err, -EINVAL, "insn %zu (%s): %s", i, t, c->why);
}

static const char *const class_names[8] = {
	"ld", "ldx", "st", "stx", "alu", "jmp", "jmp32", "alu64",
};

static int unknown(struct checker *c, const struct bpf_insn *in)
{
	return bad(c, "unknown opcode 0x%02x in the %s class", in->code,
		   class_names[BPF_CLASS(in->code)]);
}

enum { F_DST = 1, F_SRC = 2, F_OFF = 4, F_IMM = 8 };

/* Fields the ISA reserves for this form must be zero. */
static int reserved(struct checker *c, const struct bpf_insn *in, int fields)
{
	if ((fields & F_DST) && in->dst_reg)
		return bad(c, "reserved field dst_reg is %u, must be 0", in->dst_reg);
	if ((fields & F_SRC) && in->src_reg)
		return bad(c, "reserved field src_reg is %u, must be 0", in->src_reg);
	if ((fields & F_OFF) && in->off)
		return bad(c, "reserved field off is %d, must be 0", in->off);
	if ((fields & F_IMM) && in->imm)
		return bad(c, "reserved field imm is %d, must be 0", in->imm);
	return 0;
}

static int target(struct checker *c, size_t i, int64_t delta, const char *what,
		  int32_t *out)
{
	int64_t t = (int64_t)i + 1 + delta;

	if (t < 0 || t >= (int64_t)c->n)
		return bad(c, "%s target %lld is outside the program (0..%zu)", what,
			   (long long)t, c->n - 1);
	*out = (int32_t)t;
	return 0;
}

static const uint8_t size_bytes[4] = { 4, 2, 1, 8 };	/* by BPF_SIZE >> 3 */

/* Accesses through r10 stay in the frame and, as the kernel demands for
 * the stack, are aligned to their size. */
static int stack_access(struct checker *c, const struct bpf_insn *in, int base)
{
	int size = size_bytes[BPF_SIZE(in->code) >> 3];

	if (base != BPF_REG_10)
		return 0;
	if (in->off + size > 0 || in->off < -GS_STACK_MAX)
		return bad(c, "stack access of %d bytes at r10%+d is outside the frame (r10-%d to r10)",
			   size, in->off, GS_STACK_MAX);
	if (in->off % size)
		return bad(c, "stack access of %d bytes at r10%+d is not aligned to its size",
			   size, in->off);
	return 0;
}

static int decode_alu(struct checker *c, const struct bpf_insn *in, struct node *nd)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	bool x = BPF_SRC(in->code) == BPF_X;
	uint8_t op = BPF_OP(in->code);
	int bits = is64 ? 64 : 32;

	nd->reads = R(in->dst_reg) | (x ? R(in->src_reg) : 0);
	nd->gen = R(in->dst_reg);
	switch (op) {
	case BPF_NEG:
		if (x)
			return unknown(c, in);
		return reserved(c, in, F_SRC | F_OFF | F_IMM);
	case BPF_END:
		if (is64 && x)
			return unknown(c, in);
		if (in->imm != 16 && in->imm != 32 && in->imm != 64)
			return bad(c, "byte swap width %d is not 16, 32 or 64", in->imm);
		nd->reads = R(in->dst_reg);
		return reserved(c, in, F_SRC | F_OFF);
	case BPF_MOV:
		nd->reads = x ? R(in->src_reg) : 0;
		if (!x)
			return reserved(c, in, F_SRC | F_OFF);
		if (in->off != 0 && in->off != 8 && in->off != 16 && !(is64 && in->off == 32))
			return bad(c, "sign-extension width off=%d is not %s", in->off,
				   is64 ? "0, 8, 16 or 32" : "0, 8 or 16");
		return reserved(c, in, F_IMM);
	case BPF_DIV:
	case BPF_MOD:
		if (in->off != 0 && in->off != 1)
			return bad(c, "off is %d, must be 0 (unsigned) or 1 (signed)", in->off);
		if (x)
			return reserved(c, in, F_IMM);
		if (in->imm == 0)
			return bad(c, "%s by immediate zero", op == BPF_DIV ? "division" : "modulo");
		return reserved(c, in, F_SRC);
	case BPF_LSH: case BPF_RSH: case BPF_ARSH:
		if (!x && (in->imm < 0 || in->imm >= bits))
			return bad(c, "shift by %d is out of range for a %d-bit shift (0..%d)",
				   in->imm, bits, bits - 1);
		/* fallthrough */
	case BPF_ADD: case BPF_SUB: case BPF_MUL:
	case BPF_OR: case BPF_AND: case BPF_XOR:
		return reserved(c, in, F_OFF | (x ? F_IMM : F_SRC));
	default:
		return unknown(c, in);
	}
}

static int decode_call(struct checker *c, size_t i, const struct bpf_insn *in,
		       struct node *nd)
{
	nd->gen = R(0);
	nd->keep = (uint16_t)~REGS_ARGS;
	nd->succ[0] = (int32_t)(i + 1);
	switch (in->src_reg) {
	case 0:
		return reserved(c, in, F_DST | F_OFF);
	case BPF_PSEUDO_KFUNC_CALL:	/* off picks the BTF of a module */
		return reserved(c, in, F_DST);
	case BPF_PSEUDO_CALL:
		nd->flags |= N_CALLEE;
		if (reserved(c, in, F_DST | F_OFF))
			return -1;
		return target(c, i, in->imm, "call", &nd->succ[1]);
	default:
		return bad(c, "call kind src_reg=%u is not a helper (0), function (1) or kfunc (2)",
			   in->src_reg);
	}
}

static int decode_jmp(struct checker *c, size_t i, const struct bpf_insn *in,
		      struct node *nd)
{
	bool is32 = BPF_CLASS(in->code) == BPF_JMP32;
	bool x = BPF_SRC(in->code) == BPF_X;

	switch (BPF_OP(in->code)) {
	case BPF_JA:
		if (x)
			return unknown(c, in);
		if (is32) {	/* gotol: 32-bit offset in imm */
			if (reserved(c, in, F_DST | F_SRC | F_OFF))
				return -1;
			return target(c, i, in->imm, "jump", &nd->succ[1]);
		}
		if (reserved(c, in, F_DST | F_SRC | F_IMM))
			return -1;
		return target(c, i, in->off, "jump", &nd->succ[1]);
	case BPF_CALL:
		if (is32 || x)
			return unknown(c, in);
		return decode_call(c, i, in, nd);
	case BPF_EXIT:
		if (is32 || x)
			return unknown(c, in);
		nd->reads = R(0);
		return reserved(c, in, F_DST | F_SRC | F_OFF | F_IMM);
	case BPF_JEQ: case BPF_JGT: case BPF_JGE: case BPF_JSET:
	case BPF_JNE: case BPF_JSGT: case BPF_JSGE: case BPF_JLT:
	case BPF_JLE: case BPF_JSLT: case BPF_JSLE:
		nd->reads = R(in->dst_reg) | (x ? R(in->src_reg) : 0);
		nd->succ[0] = (int32_t)(i + 1);
		if (reserved(c, in, x ? F_IMM : F_SRC))
			return -1;
		return target(c, i, in->off, "jump", &nd->succ[1]);
	default:
		return unknown(c, in);
	}
}

static int decode_ld_imm64(struct checker *c, size_t i, const struct bpf_insn *in,
			   struct node *nd)
{
	const struct bpf_insn *hi = in + 1;

	if (i + 1 >= c->n)
		return bad(c, "ld_imm64 has no second slot: the program ends after its first half");
	if (hi->code || hi->dst_reg || hi->src_reg || hi->off)
		return bad(c, "second slot of ld_imm64 must be zero but for imm (code 0x%02x, dst_reg %u, src_reg %u, off %d)",
			   hi->code, hi->dst_reg, hi->src_reg, hi->off);
	c->nodes[i + 1].flags |= N_SLOT2;
	c->nodes[i + 1].succ[0] = c->nodes[i + 1].succ[1] = -1;
	nd->gen = R(in->dst_reg);
	nd->succ[0] = (int32_t)(i + 2);
	if (reserved(c, in, F_OFF))
		return -1;
	switch (in->src_reg) {
	case 0: case BPF_PSEUDO_MAP_VALUE: case BPF_PSEUDO_BTF_ID: case BPF_PSEUDO_MAP_IDX_VALUE:
		return 0;
	case BPF_PSEUDO_MAP_FD: case BPF_PSEUDO_MAP_IDX:
		if (hi->imm)
			return bad(c, "map reference has a non-zero second imm %d", hi->imm);
		return 0;
	case BPF_PSEUDO_FUNC:	/* a callback: its body is a subprogram */
		nd->flags |= N_CALLEE | N_CALLBACK;
		return target(c, i, in->imm, "function", &nd->succ[1]);
	default:
		return bad(c, "ld_imm64 kind src_reg=%u is not one of 0..6", in->src_reg);
	}
}

static int decode_ld(struct checker *c, size_t i, const struct bpf_insn *in,
		     struct node *nd)
{
	uint8_t mode = BPF_MODE(in->code);

	if (mode == BPF_IMM && BPF_SIZE(in->code) == BPF_DW)
		return decode_ld_imm64(c, i, in, nd);
	if ((mode != BPF_ABS && mode != BPF_IND) || BPF_SIZE(in->code) == BPF_DW)
		return unknown(c, in);
	/* Legacy packet loads: r0 = skb[imm] with the skb in r6; they clobber
	 * r1..r5 like a call. */
	nd->reads = R(6) | (mode == BPF_IND ? R(in->src_reg) : 0);
	nd->gen = R(0);
	nd->keep = (uint16_t)~REGS_ARGS;
	nd->succ[0] = (int32_t)(i + 1);
	return reserved(c, in, F_DST | F_OFF | (mode == BPF_ABS ? F_SRC : 0));
}

static int decode_atomic(struct checker *c, const struct bpf_insn *in, struct node *nd)
{
	uint8_t size = BPF_SIZE(in->code);

	if (size != BPF_W && size != BPF_DW)
		return bad(c, "atomic operations take a word or double word, not %d bytes",
			   size_bytes[size >> 3]);
	switch (in->imm) {
	case BPF_ADD | BPF_FETCH: case BPF_OR | BPF_FETCH:
	case BPF_AND | BPF_FETCH: case BPF_XOR | BPF_FETCH:
	case BPF_XCHG:
		nd->gen = R(in->src_reg);
		/* fallthrough */
	case BPF_ADD: case BPF_OR: case BPF_AND: case BPF_XOR:
		break;
	case BPF_CMPXCHG:
		nd->reads |= R(0);
		nd->gen = R(0);
		break;
	default:
		return bad(c, "atomic operation imm=0x%x is not add, or, and, xor (| fetch), xchg or cmpxchg",
			   (unsigned)in->imm);
	}
	return stack_access(c, in, in->dst_reg);
}

static int decode_mem(struct checker *c, const struct bpf_insn *in, struct node *nd)
{
	uint8_t mode = BPF_MODE(in->code);

	switch (BPF_CLASS(in->code)) {
	case BPF_LDX:
		if (mode != BPF_MEM && !(mode == BPF_MEMSX && BPF_SIZE(in->code) != BPF_DW))
			return unknown(c, in);
		nd->reads = R(in->src_reg);
		nd->gen = R(in->dst_reg);
		if (reserved(c, in, F_IMM))
			return -1;
		return stack_access(c, in, in->src_reg);
	case BPF_ST:
		if (mode != BPF_MEM)
			return unknown(c, in);
		nd->reads = R(in->dst_reg);
		if (reserved(c, in, F_SRC))
			return -1;
		return stack_access(c, in, in->dst_reg);
	default:	/* BPF_STX */
		nd->reads = R(in->dst_reg) | R(in->src_reg);
		if (mode == BPF_ATOMIC)
			return decode_atomic(c, in, nd);
		if (mode != BPF_MEM)
			return unknown(c, in);
		if (reserved(c, in, F_IMM))
			return -1;
		return stack_access(c, in, in->dst_reg);
	}
}

/* Fills nodes[i] from insns[i], checking everything one instruction shows
 * on its own. Returns the slots it takes, or -1 with c->why set. */
static int decode(struct checker *c, size_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	struct node *nd = &c->nodes[i];
	int ret;

	nd->succ[0] = -1;
	nd->succ[1] = -1;
	nd->keep = 0xffff;
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		nd->succ[0] = (int32_t)(i + 1);
		ret = decode_alu(c, in, nd);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		ret = decode_jmp(c, i, in, nd);
		break;
	case BPF_LD:
		ret = decode_ld(c, i, in, nd);
		break;
	default:
		nd->succ[0] = (int32_t)(i + 1);
		ret = decode_mem(c, in, nd);
		break;
	}
	if (ret)
		return -1;
	if ((nd->reads | nd->gen) & ~REGS_ALL) {
		int r = __builtin_ctz((nd->reads | nd->gen) & ~REGS_ALL);

		return bad(c, "register r%d does not exist (r0..r10)", r);
	}
	if (nd->gen & R(10))
		return bad(c, "writes r10, the read-only frame pointer");
	if ((nd->flags & N_CALLEE) && nd->succ[1] >= 0)
		c->nodes[nd->succ[1]].flags |= N_ENTRY;
	return gs_insn_is_ld_imm64(in) ? 2 : 1;
}

/* Checks what needs the whole program decoded: jumps land on instructions
 * of their own subprogram, and no subprogram runs into the next one. */
static ssize_t check_links(struct checker *c)
{
	struct node *nodes = c->nodes;
	uint32_t sub = 0;
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (nodes[i].flags & N_ENTRY)
			sub = (uint32_t)i;
		nodes[i].sub = sub;
	}
	for (i = 0; i < c->n; i++) {
		const struct node *nd = &nodes[i];
		int32_t t = nd->succ[1], next = nd->succ[0];

		if (nd->flags & N_SLOT2)
			continue;
		if (t >= 0 && (nodes[t].flags & N_SLOT2)) {
			bad(c, "%s target %d is the second half of the ld_imm64 at insn %d",
			    (nd->flags & N_CALLEE) ? "call" : "jump", t, t - 1);
			return (ssize_t)i;
		}
		if (t >= 0 && !(nd->flags & N_CALLEE) && nodes[t].sub != nd->sub) {
			bad(c, "jump target %d is in the subprogram at insn %u, not in this one (at insn %u)",
			    t, nodes[t].sub, nd->sub);
			return (ssize_t)i;
		}
		if (next > 0 && (size_t)next < c->n && (nodes[next].flags & N_ENTRY)) {
			bad(c, "falls through into the subprogram at insn %d: end the function with exit",
			    next);
			return (ssize_t)i;
		}
	}
	return -1;
}

/* Meets `state` into the registers written on entry to s; queues s when
 * that changed or s is reached for the first time. */
static void flow(struct checker *c, int32_t s, uint16_t state)
{
	struct node *nd = &c->nodes[s];

	if (nd->flags & N_VISITED) {
		if ((nd->written & state) == nd->written)
			return;
		nd->written &= state;
	} else {
		nd->written = state;
		nd->flags |= N_VISITED;
	}
	if (!(nd->flags & N_QUEUED)) {
		nd->flags |= N_QUEUED;
		c->work[c->top++] = s;
	}
}

/* What a subprogram finds written on entry: like the kernel, the caller's
 * r1..r5 as they are at the call (a callback gets whatever the helper
 * passes, which the checker cannot know), and its own frame pointer. */
static uint16_t callee_entry(const struct node *nd)
{
	if (nd->flags & N_CALLBACK)
		return CALLBACK_ENTRY;
	return (uint16_t)((nd->written & REGS_ARGS) | R(10));
}

/* Must-analysis of written registers, iterated to a fixed point: `written`
 * of each reachable instruction becomes the intersection over all paths
 * from an entry. An instruction is on the worklist at most once, so n slots
 * suffice, and each can lose at most 11 registers, which bounds the work. */
static void solve(struct checker *c)
{
	int32_t n = (int32_t)c->n;

	flow(c, 0, MAIN_ENTRY);
	while (c->top) {
		struct node *nd = &c->nodes[c->work[--c->top]];
		uint16_t out = (uint16_t)((nd->written & nd->keep) | nd->gen);

		nd->flags &= (uint8_t)~N_QUEUED;
		if (nd->succ[1] >= 0)
			flow(c, nd->succ[1], (nd->flags & N_CALLEE) ? callee_entry(nd) : out);
		/* Pushed last, so straight-line code is walked in order. */
		if (nd->succ[0] >= 0 && nd->succ[0] < n)
			flow(c, nd->succ[0], out);
	}
}

/* After solving: the first instruction, in program order, that is dead,
 * runs off the end, or reads a register some path leaves unwritten. */
static ssize_t check_paths(struct checker *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct node *nd = &c->nodes[i];
		uint16_t unset = nd->reads & (uint16_t)~nd->written;

		if (nd->flags & N_SLOT2)
			continue;
		if (!(nd->flags & N_VISITED))
			bad(c, "unreachable: no path from insn 0 or a called subprogram leads here (the kernel rejects dead code)");
		else if (nd->succ[0] == (int32_t)c->n)
			bad(c, "falls off the end of the program: every path must end in exit");
		else if (unset)
			bad(c, "reads r%d before it is written on every path%s",
			    __builtin_ctz(unset),
			    nd->reads == R(0) && nd->succ[0] < 0 ? " (exit returns r0)" : "");
		else
			continue;
		return (ssize_t)i;
	}
	return -1;
}

/* The checks, each reported at the first instruction that fails it:
 *  - size: not empty, at most GS_MAX_INSNS;
 *  - form: known opcode, reserved fields zero, registers r0..r10, byte swap
 *    widths, sign-extension widths, atomic ops and sizes, ld_imm64 pairs and
 *    kinds, call kinds;
 *  - r10 never written; no division or modulo by immediate zero; immediate
 *    shifts below the operand width; stack accesses through r10 inside
 *    r10-512..r10 and aligned;
 *  - targets of jumps, calls and callback references inside the program,
 *    not on the second half of an ld_imm64, and, for jumps, inside their own
 *    subprogram; no subprogram falls through into the next;
 *  - every instruction reachable, no path runs off the end, no register read
 *    before every path to it has written it (calls clobber r1..r5; a
 *    subprogram starts with the r1..r5 its callers wrote). */
int gs_check(const struct bpf_insn *insns, size_t n, const char *const *notes,
	     struct gs_error *err)
{
	struct checker c = { .insns = insns, .n = n };
	ssize_t at = -1;
	size_t i;
	int step;

	if (n == 0)
		return gs_errorf(err, -EINVAL, "program is empty: it needs at least an exit instruction");
	if (n > GS_MAX_INSNS)
		return gs_errorf(err, -EINVAL, "program has %zu instructions, more than the kernel's limit of %d",
				 n, GS_MAX_INSNS);
	c.nodes = calloc(n, sizeof(*c.nodes));
	c.work = malloc(n * sizeof(*c.work));
	if (!c.nodes || !c.work) {
		free(c.nodes);
		free(c.work);
		return gs_errorf(err, -ENOMEM, "out of memory checking a program of %zu instructions", n);
	}
	for (i = 0; i < n; i += (size_t)step) {
		step = decode(&c, i);
		if (step < 0) {
			at = (ssize_t)i;
			break;
		}
	}
	if (at < 0)
		at = check_links(&c);
	if (at < 0) {
		solve(&c);
		at = check_paths(&c);
	}
	free(c.work);
	free(c.nodes);
	if (at >= 0)
		return report(&c, notes, (size_t)at, err);
	gs_error_clear(err);
	return 0;
}

int gs_asm_check(const struct gs_asm *a, struct gs_error *err)
{
	return gs_check(a->insns, a->len, a->notes, err);
}
