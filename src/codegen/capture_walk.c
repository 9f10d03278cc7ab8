/* The views that walk: VecDeque's ring (two reads, the part from the
 * first element to the buffer's end, then the part from its start),
 * std::deque's buffers, Rust's B-tree, and a red-black tree (std::map,
 * set) walked depth first, left first, its pending nodes on a stack kept
 * in the extension, each node read whole. An element is a value whose
 * own views capture_view.c expands: the recursion of a container of
 * containers. */
#include "capture.h"

#define STATUS_OK 0

/* r<dst> = min(r<dst>, r<lim>, max) (unsigned): the constant again, so
 * that the verifier knows the bound on every path. */
static void umin(struct gs_asm *a, uint8_t dst, uint8_t lim, uint32_t max)
{
	struct gs_label ok = gs_asm_label(a, "umin_ok");
	struct gs_label capped = gs_asm_label(a, "umin_capped");

	gs_asm_jmp_reg(a, BPF_JLE, dst, lim, ok);
	gs_asm_emit(a, GS_MOV64_REG(dst, lim));
	gs_asm_bind(a, ok);
	gs_asm_jmp_imm(a, BPF_JLE, dst, (int32_t)max, capped);
	gs_asm_emit(a, GS_MOV64_IMM(dst, (int32_t)max));
	gs_asm_bind(a, capped);
}

/* The end of a walk's reads: at `bad`, a failed read's status, and at
 * `ok` the views of the count (r10 + count) elements read in order at r9 +
 * data (their extensions after 2 * cap slots); then `done`. */
static void walk_end(struct gs_cg *cg, const struct gs_view *v, int32_t ext, struct gs_label bad,
		     struct gs_label ok, struct gs_label done, uint32_t cap, int16_t count,
		     int32_t data, unsigned depth)
{
	struct gs_asm *a = cg->a;
	uint32_t size = v->elem->byte_size;

	gs_asm_bind(a, bad);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, GS_VAR_READ_ERROR));
	gs_asm_ja(a, done);
	gs_asm_bind(a, ok);
	cg_view_elements(cg, v, cap, count, data, size, 0, data + (int32_t)(2 * cap * size), depth,
			 done);
	gs_asm_bind(a, done);
}

void cg_view_ring(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		  unsigned depth)
{
	struct gs_asm *a = cg->a;
	uint32_t cap = gs_view_cap(&cg->prog->ctx.view_caps, v);
	uint32_t size = v->elem->byte_size;
	struct gs_label done = gs_asm_label(a, "view_done");
	struct gs_label bad = gs_asm_label(a, "ring_bad");
	struct gs_label one = gs_asm_label(a, "ring_one_part");
	size_t mark = gs_asm_stack_mark(a);
	int16_t count = gs_asm_slot(a, "ring_count", 8, 8);
	int16_t first = gs_asm_slot(a, "ring_first", 8, 8);
	int32_t data = ext + 1;

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, count, 0));
	/* r4 = the buffer's capacity, r5 = the first element's index */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R4, GS_R9, (int16_t)(raw + (int32_t)v->cap_off)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R5, GS_R9, (int16_t)(raw + (int32_t)v->head_off)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R4, 0, done);
	gs_asm_jmp_reg(a, BPF_JGE, GS_R5, GS_R4, bad);
	/* r2 = the length, at most cap */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R9, (int16_t)(raw + (int32_t)v->len_off)));
	if (v->len_how == GS_VLEN_MASKED) {
		gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R2, GS_R5));
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R4));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_SUB, GS_R1, 1));
		gs_asm_emit(a, GS_ALU64_REG(BPF_AND, GS_R2, GS_R1));
	}
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, (int32_t)cap));
	umin(a, GS_R2, GS_R1, cap);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, done);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, count));
	/* the first part: min(len, capacity - first) elements from the first */
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R4));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R5));
	umin(a, GS_R2, GS_R1, cap);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, first));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R2, (int32_t)size));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(raw + (int32_t)v->ptr_off)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R5, (int32_t)size));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R5));
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9, .dst_off = (int16_t)data,
						 .len = cap * size, .len_in_r2 = true });
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, bad);
	/* the rest, from the buffer's start, after the first part */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, count));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, first));
	gs_asm_jmp_reg(a, BPF_JGE, GS_R1, GS_R2, one);
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R2, GS_R1));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R3, (int32_t)cap));
	umin(a, GS_R2, GS_R3, cap);
	umin(a, GS_R1, GS_R3, cap);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R2, (int32_t)size));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R1, (int32_t)size));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R9));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(raw + (int32_t)v->ptr_off)));
	cg_view_read_at(cg, cap * size, data);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, one);
	walk_end(cg, v, ext, bad, one, done, cap, count, data, depth);
	gs_asm_stack_release(a, mark);
}

/* r<dst> = (the pointer at r9 + a - the one at r9 + b) / size. */
static void span_of(struct gs_asm *a, uint8_t dst, int32_t at, int32_t bt, uint32_t size)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, dst, GS_R9, (int16_t)at));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_R9, (int16_t)bt));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, dst, GS_R0));
	if (size > 1)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_DIV, dst, (int32_t)size));
}

void cg_view_deque(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		   unsigned depth)
{
	struct gs_asm *a = cg->a;
	uint32_t cap = gs_view_cap(&cg->prog->ctx.view_caps, v);
	uint32_t nodes = gs_view_deque_nodes(&cg->prog->ctx.view_caps, v);
	uint32_t size = v->elem->byte_size, per = v->node_size;
	int32_t st = raw + (int32_t)v->ptr_off, fin = raw + (int32_t)v->len_off;
	int32_t ptrs = ext + 1, data = ptrs + (int32_t)(8 * nodes);
	struct gs_label done = gs_asm_label(a, "view_done");
	struct gs_label walked = gs_asm_label(a, "deque_walked");
	struct gs_label bad = gs_asm_label(a, "deque_bad");
	struct gs_label last = gs_asm_label(a, "deque_no_finish_node");
	size_t mark = gs_asm_stack_mark(a);
	int16_t count = gs_asm_slot(a, "deque_count", 8, 8);
	int16_t left = gs_asm_slot(a, "deque_left", 8, 8);
	int16_t off = gs_asm_slot(a, "deque_off", 8, 8);

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, count, 0));
	/* the length, as libstdc++'s iterator difference */
	span_of(a, GS_R2, fin + (int32_t)v->right_off, st + (int32_t)v->right_off, 8);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R9, (int16_t)(fin + (int32_t)v->right_off)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, last);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_SUB, GS_R2, 1));
	gs_asm_bind(a, last);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R2, (int32_t)per));
	span_of(a, GS_R1, fin + (int32_t)v->head_off, fin + (int32_t)v->cap_off, size);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	span_of(a, GS_R1, st + (int32_t)v->next_off, st + (int32_t)v->head_off, size);
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R1));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, (int32_t)cap));
	umin(a, GS_R2, GS_R1, cap);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, done);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, count));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, left));
	/* the buffers' pointers, from the first's */
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)(8 * nodes)));
	cg_view_read_into(cg, st + (int32_t)v->right_off, ptrs, 8 * nodes, ext, done);
	/* the first buffer: from the first element to the buffer's end */
	span_of(a, GS_R2, st + (int32_t)v->next_off, st + (int32_t)v->head_off, size);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, left));
	umin(a, GS_R2, GS_R1, cap);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, left));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, left));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R2, (int32_t)size));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, off));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(st + (int32_t)v->head_off)));
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9, .dst_off = (int16_t)data,
						 .len = cap * size, .len_in_r2 = true });
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, bad);
	/* then whole buffers (the last one in part) */
	for (uint32_t j = 1; j < nodes; j++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, left));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, walked);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R1, (int32_t)per));
		umin(a, GS_R2, GS_R1, per < cap ? per : cap);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, left));
		gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, left));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R2, (int32_t)size));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, off));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R3, (int32_t)(cap * size)));
		umin(a, GS_R1, GS_R3, cap * size);
		gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R1));
		gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R3, GS_R2));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R3, off));
		gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R9));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(ptrs + (int32_t)(8 * j))));
		cg_view_read_at(cg, cap * size, data);
		gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, bad);
	}
	gs_asm_ja(a, walked);
	walk_end(cg, v, ext, bad, walked, done, cap, count, data, depth);
	gs_asm_stack_release(a, mark);
}

/* stack[r10[sp] & mask] = r3, r1 = that slot's index. */
static void stack_put(struct gs_asm *a, int32_t stack, int16_t sp, uint32_t mask)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sp));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, (int32_t)mask));
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R2, 3));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R9));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R2, GS_R3, (int16_t)stack));
}

/* r3 = the entry on top of the stack, popped; -> empty when there is none. */
static void pop(struct gs_asm *a, int32_t stack, int16_t sp, uint32_t mask, struct gs_label empty)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, sp));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, empty);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_SUB, GS_R1, 1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_AND, GS_R1, (int32_t)mask));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sp));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R1, 3));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R9));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R1, (int16_t)stack));
}

/* Pushes the child pointer at r9 + at on the stack at r9 + stack, its
 * depth kept at r10 + sp: without a branch (the depth goes up by one when
 * the child is not NULL; a NULL one is written and overwritten later), so
 * that the verifier sees one state whatever the tree's shape. The depth
 * is masked to the stack's slots (a power of two), which the walk never
 * outgrows: each node read pops one and pushes at most two. */
static void push(struct gs_asm *a, int32_t at, int32_t stack, int16_t sp, uint32_t mask)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)at));
	stack_put(a, stack, sp, mask);
	/* r1 += (r3 != 0): the sign bit of r3 | -r3 */
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R3));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_NEG, GS_R2, 0));
	gs_asm_emit(a, GS_ALU64_REG(BPF_OR, GS_R2, GS_R3));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R2, 63));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sp));
}

void cg_view_tree(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		  unsigned depth)
{
	struct gs_asm *a = cg->a;
	uint32_t cap = gs_view_tree_nodes(&cg->prog->ctx.view_caps, v);
	struct gs_label walked = gs_asm_label(a, "tree_walked");
	struct gs_label done = gs_asm_label(a, "view_done");
	size_t mark = gs_asm_stack_mark(a);
	int16_t count = gs_asm_slot(a, "tree_count", 8, 8);
	int16_t sp = gs_asm_slot(a, "tree_sp", 8, 8);
	int32_t nread = ext + 1, addrs = nread + 4, nodes = addrs + (int32_t)(8 * cap);
	int32_t stack = nodes + (int32_t)(cap * v->node_size);
	uint32_t mask = gs_view_tree_slots(cap) - 1;

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, (int16_t)nread, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, count, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sp, 0));
	push(a, raw + (int32_t)v->ptr_off, stack, sp, mask);
	for (uint32_t k = 0; k < cap; k++) {
		int32_t node = nodes + (int32_t)(k * v->node_size);
		struct gs_label ok = gs_asm_label(a, "tree_node_ok");

		pop(a, stack, sp, mask, walked);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R9, GS_R3, (int16_t)(addrs + (int32_t)(8 * k))));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)v->node_size));
		cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9, .dst_off = (int16_t)node,
							 .len = v->node_size, .len_in_r2 = true });
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ok);
		gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, GS_VAR_READ_ERROR));
		gs_asm_ja(a, walked);
		gs_asm_bind(a, ok);
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, (int16_t)nread, (int32_t)k + 1));
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, count, (int32_t)k + 1));
		/* right first, so that the left is walked first */
		push(a, node + (int32_t)v->right_off, stack, sp, mask);
		push(a, node + (int32_t)v->next_off, stack, sp, mask);
	}
	gs_asm_bind(a, walked);
	cg_view_elements(cg, v, cap, count, nodes, v->node_size, v->value_off,
			 stack + (int32_t)(8 * (mask + 1)), depth, done);
	gs_asm_bind(a, done);
	gs_asm_stack_release(a, mark);
}

/* Pushes the packed child entry (height - 1 << 56 | the pointer at r9 +
 * at) when the child's index c is at most the node's count (kept at r10 +
 * nkeys): without a branch, as push() does. r10 + up holds the children's
 * height, shifted. */
static void push_edge(struct gs_asm *a, int32_t at, uint32_t c, int16_t nkeys, int16_t up,
		      int32_t stack, int16_t sp, uint32_t mask)
{
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)at));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, up));
	gs_asm_emit(a, GS_ALU64_REG(BPF_OR, GS_R3, GS_R2));
	stack_put(a, stack, sp, mask);
	/* r1 += (c <= count): 1 + ((count - c) >> 63, arithmetic) */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, nkeys));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_SUB, GS_R2, (int32_t)c));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ARSH, GS_R2, 63));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 1));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, sp));
}

void cg_view_btree(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		   unsigned depth)
{
	struct gs_asm *a = cg->a;
	const struct gs_view_caps *caps = &cg->prog->ctx.view_caps;
	uint32_t n = gs_view_btree_nodes(caps, v), mask = GS_VIEW_BTREE_SLOTS - 1;
	uint32_t kin = gs_view_ext_size(caps, v->elem, depth + 1);
	uint32_t vin = gs_view_ext_size(caps, v->fields[0].type, depth + 1);
	int32_t nread = ext + 1, addrs = nread + 4, nodes = addrs + (int32_t)(8 * n);
	int32_t stack = nodes + (int32_t)(n * v->node_size);
	int32_t inner = stack + 8 * GS_VIEW_BTREE_SLOTS;
	struct gs_label walked = gs_asm_label(a, "btree_walked");
	struct gs_label done = gs_asm_label(a, "view_done");
	struct gs_label bad = gs_asm_label(a, "btree_bad");
	size_t mark = gs_asm_stack_mark(a);
	int16_t count = gs_asm_slot(a, "btree_count", 8, 8);
	int16_t sp = gs_asm_slot(a, "btree_sp", 8, 8);
	int16_t nkeys = gs_asm_slot(a, "btree_keys", 8, 8);
	int16_t up = gs_asm_slot(a, "btree_up", 8, 8);

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, (int16_t)nread, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, count, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, sp, 1));
	/* the root, packed with its height */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(raw + (int32_t)v->ptr_off)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R9, (int16_t)(raw + (int32_t)v->head_off)));
	gs_asm_jmp_imm(a, BPF_JGT, GS_R2, 200, bad);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R2, 56));
	gs_asm_emit(a, GS_ALU64_REG(BPF_OR, GS_R3, GS_R2));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R9, GS_R3, (int16_t)stack));
	for (uint32_t k = 0; k < n; k++) {
		int32_t node = nodes + (int32_t)(k * v->node_size);
		struct gs_label leaf = gs_asm_label(a, "btree_leaf");
		struct gs_label read = gs_asm_label(a, "btree_read");
		struct gs_label leaf_done = gs_asm_label(a, "btree_no_children");

		pop(a, stack, sp, mask, walked);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R9, GS_R3, (int16_t)(addrs + (int32_t)(8 * k))));
		/* the children's height, shifted, for their entries */
		gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R3));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R2, 56));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, up));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R3, 8));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R3, 8));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, leaf);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)v->node_size));
		gs_asm_ja(a, read);
		gs_asm_bind(a, leaf);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)v->right_off));
		gs_asm_bind(a, read);
		cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9, .dst_off = (int16_t)node,
							 .len = v->node_size, .len_in_r2 = true });
		gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, bad);
		gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_R9, (int16_t)nread, (int32_t)k + 1));
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, count, (int32_t)k + 1));
		/* an internal node: its children, the last first */
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, up));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, leaf_done);
		gs_asm_emit(a, GS_ALU64_IMM(BPF_SUB, GS_R2, 1));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R2, 56));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, up));
		gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R2, GS_R9, (int16_t)(node + (int32_t)v->cap_off)));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, nkeys));
		for (int32_t c = v->node_keys; c >= 0; c--)
			push_edge(a, node + (int32_t)v->right_off + 8 * c, (uint32_t)c, nkeys, up, stack,
				  sp, mask);
		gs_asm_bind(a, leaf_done);
	}
	gs_asm_ja(a, walked);
	gs_asm_bind(a, bad);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, GS_VAR_READ_ERROR));
	gs_asm_ja(a, done);
	gs_asm_bind(a, walked);
	/* each node's keys' and values' views, as many as it holds */
	for (uint32_t k = 0; (kin || vin) && k < n; k++) {
		int32_t node = nodes + (int32_t)(k * v->node_size);

		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, count));
		gs_asm_jmp_imm(a, BPF_JLE, GS_R1, (int32_t)k, done);
		for (uint32_t i = 0; i < v->node_keys; i++) {
			struct gs_label next = gs_asm_label(a, "btree_key_done");
			int32_t at = inner + (int32_t)((k * v->node_keys + i) * (kin + vin));

			gs_asm_emit(a, GS_LDX_MEM(BPF_H, GS_R1, GS_R9, (int16_t)(node + (int32_t)v->cap_off)));
			gs_asm_jmp_imm(a, BPF_JLE, GS_R1, (int32_t)i, next);
			if (kin)
				cg_view_expand(cg, v->elem, node + (int32_t)(v->next_off +
						i * v->elem->byte_size), at, depth + 1);
			if (vin)
				cg_view_expand(cg, v->fields[0].type, node + (int32_t)(v->value_off +
						i * v->fields[0].type->byte_size), at + (int32_t)kin,
					       depth + 1);
			gs_asm_bind(a, next);
		}
	}
	gs_asm_bind(a, done);
	gs_asm_stack_release(a, mark);
}
