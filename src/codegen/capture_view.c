/* The reads of views (gs/view.h) after a value's bytes are captured: each
 * string, sequence and box the value holds is read from the pointers in
 * the bytes just captured, into the extension after them, in the order
 * gs_view_ext_size lays out and the decoder reads. Each view's status
 * byte says how its read went; a failed one never fails the value. */
#include "capture.h"

#define STATUS_OK 0

/* A string or a sequence: its length, its elements, then each element's
 * own views, as many as were read. */
static void seq(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		unsigned depth)
{
	struct gs_asm *a = cg->a;
	const struct gs_view_caps *caps = &cg->prog->ctx.view_caps;
	uint32_t cap = gs_view_cap(caps, v);
	uint32_t size = v->kind == GS_VIEW_STRING ? 1 : v->elem->byte_size;
	uint32_t inner = v->kind == GS_VIEW_STRING ? 0 : gs_view_ext_size(caps, v->elem, depth + 1);
	struct gs_label done = gs_asm_label(a, "view_done");
	size_t mark = gs_asm_stack_mark(a);
	int16_t count = 0;

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	cg_view_length(cg, v, raw, cap);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, done);
	if (inner) {
		count = gs_asm_slot(a, "view_count", 8, 8);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, count));
	}
	if (size > 1)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R2, (int32_t)size));
	cg_view_read_into(cg, raw + (int32_t)v->ptr_off, ext + 1, cap * size, ext, done);
	if (inner)
		cg_view_elements(cg, v, cap, count, ext + 1, size, 0, ext + 1 + (int32_t)(cap * size),
				 depth, done);
	gs_asm_bind(a, done);
	gs_asm_stack_release(a, mark);
}

/* vector<bool>: the words from the first to the last one used, at most
 * the cap's. */
static void bits(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext)
{
	struct gs_asm *a = cg->a;
	uint32_t max = 8 * gs_view_bits_words(&cg->prog->ctx.view_caps);
	struct gs_label done = gs_asm_label(a, "view_done");
	struct gs_label whole = gs_asm_label(a, "bits_whole_words");
	struct gs_label ok = gs_asm_label(a, "view_len_ok");

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R9, (int16_t)(raw + (int32_t)v->len_off)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R9, (int16_t)(raw + (int32_t)v->ptr_off)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R2, GS_R1));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R9, (int16_t)(raw + (int32_t)v->head_off)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, whole);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 8));
	gs_asm_bind(a, whole);
	gs_asm_jmp_imm(a, BPF_JLE, GS_R2, (int32_t)max, ok);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)max));
	gs_asm_bind(a, ok);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, done);
	cg_view_read_into(cg, raw + (int32_t)v->ptr_off, ext + 1, max, ext, done);
	gs_asm_bind(a, done);
}

/* r3 = the pointer at r9 + raw + ptr_off of a view that reads one object
 * there, its status OK; a NULL one is NullDeref (-> done, nothing read). */
static void view_pointer(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
			 struct gs_label done)
{
	struct gs_asm *a = cg->a;
	struct gs_label set = gs_asm_label(a, "view_ptr_set");

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(raw + (int32_t)v->ptr_off)));
	gs_asm_jmp_imm(a, BPF_JNE, GS_R3, 0, set);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, GS_VAR_NULL_DEREF));
	gs_asm_ja(a, done);
	gs_asm_bind(a, set);
}

/* C's string: the text at the pointer, up to its NUL, GS_VIEW_CSTRING_READ
 * bytes at most (one more character than shown and the NUL: the decoder
 * tells a longer text by it); NULL: NullDeref, nothing read (gdb: 0x0). */
static void cstring(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext)
{
	struct gs_asm *a = cg->a;
	struct gs_label done = gs_asm_label(a, "view_done");

	view_pointer(cg, v, raw, ext, done);
	cg_read_user(cg, &(struct cg_user_read){
		.dst_base = GS_R9, .dst_off = (int16_t)(ext + 1), .str = true,
		.len = GS_VIEW_CSTRING_READ(gs_view_cap(&cg->prog->ctx.view_caps, v)) });
	gs_asm_jmp_imm(a, BPF_JSGT, GS_R0, 0, done);
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, GS_VAR_READ_ERROR));
	gs_asm_bind(a, done);
}

/* One pointee, read whole (NULL: NullDeref), then its views. */
static void box(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		unsigned depth)
{
	struct gs_asm *a = cg->a;
	struct gs_label done = gs_asm_label(a, "view_done");
	uint32_t size = v->elem->byte_size;

	view_pointer(cg, v, raw, ext, done);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)size));
	cg_view_read_into(cg, raw + (int32_t)v->ptr_off, ext + 1, size, ext, done);
	cg_view_expand(cg, v->elem, ext + 1, ext + 1 + (int32_t)size, depth + 1);
	gs_asm_bind(a, done);
}

/* Each element's own views, for the first `count` (kept at r10 + count)
 * of cap elements of `stride` bytes at r9 + first, the value at `value`
 * in each; their extensions from r9 + ext. */
void cg_view_elements(struct gs_cg *cg, const struct gs_view *v, uint32_t cap, int16_t count,
		     int32_t first, uint32_t stride, uint32_t value, int32_t ext, unsigned depth,
		     struct gs_label done)
{
	struct gs_asm *a = cg->a;
	uint32_t inner = gs_view_ext_size(&cg->prog->ctx.view_caps, v->elem, depth + 1);

	for (uint32_t i = 0; inner && i < cap; i++) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, count));
		gs_asm_jmp_imm(a, BPF_JLE, GS_R1, (int32_t)i, done);
		cg_view_expand(cg, v->elem, first + (int32_t)(i * stride + value),
		       ext + (int32_t)(i * inner), depth + 1);
	}
}

/* std::list, unordered_map/set: node after node from the first pointer,
 * each read whole into its slot, as many as the length says (at most
 * cap), stopping at a NULL link. */
static void list(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		 unsigned depth)
{
	struct gs_asm *a = cg->a;
	uint32_t cap = gs_view_cap(&cg->prog->ctx.view_caps, v);
	struct gs_label walked = gs_asm_label(a, "list_walked");
	struct gs_label done = gs_asm_label(a, "view_done");
	size_t mark = gs_asm_stack_mark(a);
	int16_t count = gs_asm_slot(a, "list_count", 8, 8);
	int16_t want = gs_asm_slot(a, "list_len", 8, 8);
	int32_t nodes = ext + 1;

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, count, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R9, (int16_t)(raw + (int32_t)v->len_off)));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, want));
	for (uint32_t i = 0; i < cap; i++) {
		int32_t slot = nodes + (int32_t)(i * v->node_size);

		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, want));
		gs_asm_jmp_imm(a, BPF_JLE, GS_R1, (int32_t)i, walked);
		/* the link: the value's first pointer, then the last node's */
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(i ? slot - (int32_t)v->node_size +
							       (int32_t)v->next_off :
							       raw + (int32_t)v->ptr_off)));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, walked);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)v->node_size));
		{
			struct gs_label ok = gs_asm_label(a, "list_node_ok");

			cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_R9,
								 .dst_off = (int16_t)slot,
								 .len = v->node_size,
								 .len_in_r2 = true });
			gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ok);
			gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, GS_VAR_READ_ERROR));
			gs_asm_ja(a, walked);
			gs_asm_bind(a, ok);
		}
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, count, (int32_t)i + 1));
	}
	gs_asm_bind(a, walked);
	cg_view_elements(cg, v, cap, count, nodes, v->node_size, v->value_off,
		 nodes + (int32_t)(cap * v->node_size), depth, done);
	gs_asm_bind(a, done);
	gs_asm_stack_release(a, mark);
}

/* hashbrown's table: min(buckets, cap) control bytes from ctrl, and the
 * buckets before ctrl (bucket i at ctrl - (i + 1) * size), read so that
 * bucket i lands in slot cap - 1 - i; then the full buckets' views. */
static void hash(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		 unsigned depth)
{
	struct gs_asm *a = cg->a;
	uint32_t cap = gs_view_cap(&cg->prog->ctx.view_caps, v);
	uint32_t size = v->elem->byte_size;
	uint32_t inner = gs_view_ext_size(&cg->prog->ctx.view_caps, v->elem, depth + 1);
	struct gs_label done = gs_asm_label(a, "view_done");
	struct gs_label fits = gs_asm_label(a, "hash_fits");
	size_t mark = gs_asm_stack_mark(a);
	int16_t nb = gs_asm_slot(a, "hash_buckets", 8, 8);
	int32_t ctrl = ext + 1, slots = ctrl + (int32_t)cap;

	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, STATUS_OK));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(raw + (int32_t)v->ptr_off)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, done);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_R9, (int16_t)(raw + (int32_t)v->cap_off)));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 1));
	gs_asm_jmp_imm(a, BPF_JLE, GS_R2, (int32_t)cap, fits);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)cap));
	gs_asm_bind(a, fits);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R2, 0, done);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R2, nb));
	cg_view_read_into(cg, raw + (int32_t)v->ptr_off, ctrl, cap, ext, done);
	/* the buckets: nb * size bytes ending at ctrl, into the last nb slots */
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, nb));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R2, (int32_t)size));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R9, (int16_t)(raw + (int32_t)v->ptr_off)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R3, GS_R2));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R1, (int32_t)(cap * size)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R1, GS_R2));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R9));
	{
		struct gs_label ok = gs_asm_label(a, "hash_read_ok");

		cg_view_read_at(cg, cap * size, slots);
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, ok);
		gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, GS_VAR_READ_ERROR));
		gs_asm_ja(a, done);
		gs_asm_bind(a, ok);
	}
	for (uint32_t i = 0; inner && i < cap; i++) {
		struct gs_label empty = gs_asm_label(a, "hash_bucket_empty");

		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, nb));
		gs_asm_jmp_imm(a, BPF_JLE, GS_R1, (int32_t)i, done);
		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R9, (int16_t)(ctrl + (int32_t)i)));
		gs_asm_jmp_imm(a, BPF_JSET, GS_R1, 0x80, empty);
		cg_view_expand(cg, v->elem, slots + (int32_t)((cap - 1 - i) * size),
		       slots + (int32_t)(2 * cap * size + i * inner), depth + 1);
		gs_asm_bind(a, empty);
	}
	gs_asm_bind(a, done);
	gs_asm_stack_release(a, mark);
}

void cg_view_expand(struct gs_cg *cg, const struct gs_type *t, int32_t raw, int32_t ext,
	    unsigned depth)
{
	const struct gs_view_caps *caps = &cg->prog->ctx.view_caps;
	const struct gs_view *v = gs_view_at(caps, t, depth);

	if (!gs_view_ext_size(caps, t, depth))
		return;
	if (v && v->kind != GS_VIEW_INLINE && gs_view_gap(t) != GS_VIEW_GAP_NONE) {
		/* the pointer or the length is in a DWARF piece that has no
		 * value here: nothing to follow (not address 0) */
		gs_asm_emit(cg->a, GS_ST_MEM(BPF_B, GS_R9, (int16_t)ext, GS_VAR_OPTIMIZED_OUT));
		return;
	}
	if (v && (v->kind == GS_VIEW_STRING || v->kind == GS_VIEW_SEQ)) {
		seq(cg, v, raw, ext, depth);
		return;
	}
	if (v && v->kind == GS_VIEW_BOX) {
		box(cg, v, raw, ext, depth);
		return;
	}
	if (v && v->kind == GS_VIEW_CSTRING) {
		cstring(cg, v, raw, ext);
		return;
	}
	if (v && v->kind == GS_VIEW_BTREE) {
		cg_view_btree(cg, v, raw, ext, depth);
		return;
	}
	if (v && v->kind == GS_VIEW_DEQUE) {
		cg_view_deque(cg, v, raw, ext, depth);
		return;
	}
	if (v && v->kind == GS_VIEW_BITS) {
		bits(cg, v, raw, ext);
		return;
	}
	if (v && v->kind == GS_VIEW_LIST) {
		list(cg, v, raw, ext, depth);
		return;
	}
	if (v && v->kind == GS_VIEW_HASH) {
		hash(cg, v, raw, ext, depth);
		return;
	}
	if (v && v->kind == GS_VIEW_TREE) {
		cg_view_tree(cg, v, raw, ext, depth);
		return;
	}
	if (v && v->kind == GS_VIEW_RING) {
		cg_view_ring(cg, v, raw, ext, depth);
		return;
	}
	if (v && v->nfields) {
		for (uint32_t i = 0; i < v->nfields; i++) {
			const struct gs_view_field *f = &v->fields[i];

			cg_view_expand(cg, f->type, raw + (int32_t)f->offset, ext, depth + 1);
			ext += (int32_t)gs_view_ext_size(caps, f->type, depth + 1);
		}
		return;
	}
	if (t->kind == GS_TYPE_STRUCT || t->kind == GS_TYPE_UNION) {
		for (uint32_t i = 0; i < t->nmembers; i++) {
			const struct gs_type_member *m = &t->members[i];

			cg_view_expand(cg, m->type, raw + (int32_t)m->offset, ext, depth);
			ext += (int32_t)gs_view_ext_size(caps, m->type, depth);
		}
	} else if (t->kind == GS_TYPE_ARRAY && t->target) {
		uint32_t inner = gs_view_ext_size(caps, t->target, depth);

		for (uint32_t i = 0; i < t->count; i++)
			cg_view_expand(cg, t->target, raw + (int32_t)(i * t->target->byte_size),
			       ext + (int32_t)(i * inner), depth);
	}
}

/* Bytes a printed value takes with its views, at the trace's caps. */
static uint64_t value_cost(struct gs_cg *cg, const struct gs_expr *e)
{
	const struct gs_type *t;

	if (!e || !cg_is_value(cg, e) || cg_value_unavailable(e) || !(t = cg_value_type(cg, e)))
		return 0;
	return (uint64_t)t->byte_size + gs_view_ext_size(&cg->prog->ctx.view_caps, t, 0);
}

static uint64_t print_cost(const struct gs_stmt *s, void *arg)
{
	struct gs_cg *cg = arg;
	uint64_t n = 0;

	if (s->kind == GS_STMT_PRINT_EXPR)
		return value_cost(cg, s->expr);
	if (s->kind == GS_STMT_PRINT_FORMAT)
		for (size_t i = 0; i < s->nargs; i++)
			n += value_cost(cg, s->args[i]);
	return n;
}

void cg_views_fit(struct gs_cg *cg, const struct gs_stmt *body, size_t n)
{
	struct gs_view_caps *caps = &cg->prog->ctx.view_caps;
	uint64_t room = cg->max_size > 2048 ? cg->max_size - 1024 : cg->max_size / 2;

	/* fewer elements for every view of the trace, until what its costliest
	 * path prints fits in the event with a kilobyte to spare for the rest
	 * (headers, strings, a backtrace's share is planned apart), down to 8 */
	while (caps->elements > 8 && gs_spec_path_max(body, n, print_cost, cg) > room) {
		caps->elements /= 2;
		caps->string_bytes = caps->elements;
		if (caps->nested > caps->elements)
			caps->nested = caps->elements;
	}
}

void cg_capture_views(struct gs_cg *cg, const struct gs_type *t, int16_t off)
{
	const char *prev = gs_asm_notef(cg->a, "views of %.60s", t->name);

	cg_view_expand(cg, t, off, off + (int32_t)t->byte_size, 0);
	gs_asm_note(cg->a, prev);
}
