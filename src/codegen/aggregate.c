/* Aggregation statements (`@name[keys] = fn(x);`): the key built on the
 * stack as struct gs_agg_key (map_abi.h), a histogram's bucket computed
 * from x, then this CPU's value in gs_aggs found (or inserted zeroed
 * with BPF_NOEXIST and found again) and updated in place: count, sum,
 * min and max, whatever the function (userspace shows what it asks for).
 * A key the full map cannot take counts one in gs_agg_drops. Each
 * aggregation compiled is described for userspace (gs_agg_desc). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"

#define KEY(field) ((int16_t)offsetof(struct gs_agg_key, field))
#define VAL(field) ((int16_t)offsetof(struct gs_agg_value, field))

uint32_t cg_agg_key_bytes(const struct gs_cg *cg)
{
	uint32_t n = cg->opts.agg_key_bytes;

	return n && n < GS_AGG_KEY_MAX ? (n + 7) & ~7u : GS_AGG_KEY_MAX;
}

/* A key's kind from its C type, or a string for a char array or char *. */
static int key_kind(struct gs_cg *cg, const struct gs_expr *e)
{
	const struct gs_type *t;
	struct gs_ctype c;

	if (e->kind == GS_EXPR_BYTES) { /* a "literal" */
		if (e->nbytes < GS_AGG_STRING_MAX)
			return GS_AGG_KEY_STRING;
		cg_fail_at(cg, e, -E2BIG, "a string key holds at most %d bytes, and %s has %u",
			   GS_AGG_STRING_MAX - 1, cg_text(e), e->nbytes);
		return -1;
	}
	t = cg_is_value(cg, e) ? cg_value_type(cg, e) : NULL;

	if (t && (t->kind == GS_TYPE_POINTER || t->kind == GS_TYPE_ARRAY) && t->target &&
	    (t->target->flags & GS_TYPEF_CHAR || t->target->kind == GS_TYPE_CHAR))
		return GS_AGG_KEY_STRING;
	c = cg_ctype(cg, e);
	switch (c.kind) {
	case GS_CT_BOOL:
		return GS_AGG_KEY_BOOL;
	case GS_CT_POINTER:
		return GS_AGG_KEY_POINTER;
	case GS_CT_INT:
		return c.is_signed ? GS_AGG_KEY_INT : GS_AGG_KEY_UINT;
	default:
		cg_fail_at(cg, e, -EINVAL, "%s cannot key an aggregation: it is %s; key by an "
			   "integer, a pointer or a string (a member of it, say)", cg_text(e),
			   t && t->name ? t->name : "not a scalar");
		return -1;
	}
}

/* The context's copy of e's enum type, or NULL (not an enum). */
static const struct gs_type *key_enum(struct gs_cg *cg, const struct gs_expr *e)
{
	const struct gs_type *t = e->kind != GS_EXPR_BYTES && cg_is_value(cg, e) ?
				  cg_value_type(cg, e) : NULL;
	int idx;

	if (!t || t->kind != GS_TYPE_ENUM)
		return NULL;
	idx = cg_context_type(cg, t);
	return idx < 0 ? NULL : cg->prog->ctx.types[idx];
}

/* The description of s's aggregation, its key layout from the typed pass;
 * the same @name compiled twice in one trace is described once. */
static const struct gs_agg_desc *describe(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_program *p = cg->prog;
	struct gs_agg_desc d = { .name = s->agg->name, .id = s->agg->id, .fn = s->agg->fn,
				 .nkeys = (uint8_t)s->nargs, .lmin = s->agg->lmin,
				 .lmax = s->agg->lmax, .lstep = s->agg->lstep };
	uint32_t off = 0;
	struct gs_agg_desc *v;

	if (s->nargs > GS_AGG_MAX_KEYS) {
		cg_fail(cg, -EINVAL, "%s has %zu keys, at most %d", d.name, s->nargs,
			GS_AGG_MAX_KEYS);
		return NULL;
	}
	for (size_t i = 0; i < s->nargs; i++) {
		int k = key_kind(cg, s->args[i]);

		if (k < 0)
			return NULL;
		d.key_kind[i] = (uint8_t)k;
		d.key_off[i] = (uint16_t)off;
		d.key_enum[i] = key_enum(cg, s->args[i]);
		off += k == GS_AGG_KEY_STRING ? GS_AGG_STRING_MAX : 8;
	}
	if (off > cg_agg_key_bytes(cg)) {
		cg_fail_at(cg, s->args[0], -E2BIG, "the keys of %s take %u bytes, more than %u "
			   "(a string key takes %d, an integer 8): key by fewer strings", d.name,
			   off, cg_agg_key_bytes(cg), GS_AGG_STRING_MAX);
		return NULL;
	}
	for (size_t i = 0; i < p->naggs; i++) {
		if (p->aggs[i].id != d.id)
			continue;
		if (memcmp(p->aggs[i].key_kind, d.key_kind, sizeof(d.key_kind)))
			cg_fail_at(cg, s->args[0], -EINVAL, "%s is keyed by other types here than "
				   "where it was first updated: keep each key's type", d.name);
		return &p->aggs[i];
	}
	v = realloc(p->aggs, (p->naggs + 1) * sizeof(*v));
	if (!v) {
		cg_fail(cg, -ENOMEM, "out of memory describing %s", d.name);
		return NULL;
	}
	p->aggs = v;
	v[p->naggs] = d;
	return &v[p->naggs++];
}

/* r1 = bucket of x (in r1) for hist: 0 negatives, 1 zero, 2 + log2(x). */
static void hist_bucket(struct gs_asm *a)
{
	struct gs_label done = gs_asm_label(a, "hist_bucket_done");

	gs_asm_note(a, "hist: bucket = x < 0 ? 0 : x == 0 ? 1 : 2 + log2(x)");
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 0));
	gs_asm_jmp_imm(a, BPF_JSLT, GS_R1, 0, done);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 1));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, done);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 2));
	for (int shift = 32; shift; shift /= 2) {
		struct gs_label below = gs_asm_label(a, "hist_log2_below");

		gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R1));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R3, shift));
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R3, 0, below);
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R3));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, shift));
		gs_asm_bind(a, below);
	}
	gs_asm_bind(a, done);
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R2));
}

/* r1 = bucket of x (in r1) for lhist: 0 below min, n + 1 at max and
 * above, else 1 + (x - min) / step. */
static void lhist_bucket(struct gs_asm *a, const struct gs_agg_stmt *g)
{
	struct gs_label done = gs_asm_label(a, "lhist_bucket_done");
	int64_t n = (g->lmax - g->lmin) / g->lstep;

	gs_asm_notef(a, "lhist: bucket of [%lld, %lld) step %lld", (long long)g->lmin,
		     (long long)g->lmax, (long long)g->lstep);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 0));
	gs_asm_jmp_imm(a, BPF_JSLT, GS_R1, (int32_t)g->lmin, done);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)(n + 1)));
	gs_asm_jmp_imm(a, BPF_JSGE, GS_R1, (int32_t)g->lmax, done);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_SUB, GS_R2, (int32_t)g->lmin));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_DIV, GS_R2, (int32_t)g->lstep));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 1));
	gs_asm_bind(a, done);
	gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R2));
}

/* The key's part i: an integer as 8 bytes, a string read up to
 * GS_AGG_STRING_MAX bytes (a failed read records its error in rec and
 * jumps to fail: no update). */
static void key_part(struct gs_cg *cg, const struct gs_expr *e, uint8_t kind, int16_t at,
		     const struct cg_err_record *rec, const struct gs_label *fail)
{
	struct gs_asm *a = cg->a;
	const struct gs_type *t;

	cg->cur_expr = e;
	if (e->kind == GS_EXPR_BYTES) { /* the key is zeroed: the bytes alone */
		for (uint32_t i = 0; i < e->nbytes; i++)
			gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_FP, at + (int16_t)i, (int8_t)e->bytes[i]));
		return;
	}
	if (kind != GS_AGG_KEY_STRING) {
		cg_expr(cg, e, rec);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, at));
		return;
	}
	t = cg_value_type(cg, e);
	if (t && t->kind == GS_TYPE_ARRAY)
		cg_object_address(cg, e, rec);
	else
		cg_expr(cg, e, rec);
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R0));
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = GS_FP, .dst_off = at,
						 .len = GS_AGG_STRING_MAX, .str = true,
						 .rec = rec, .fail = fail,
						 .ok_name = "agg_key_read_ok" });
}

void cg_aggregate(struct gs_cg *cg, const struct gs_stmt *s)
{
	struct gs_asm *a = cg->a;
	const struct gs_agg_stmt *g = s->agg;
	const struct gs_agg_desc *d;
	size_t mark = gs_asm_stack_mark(a);
	bool reads = false;
	struct cg_err_record rec = { 0 };
	struct gs_label found, dropped, end;
	int16_t key, zero, x;

	if (!g || (g->fn != GS_AGG_COUNT && !s->expr)) {
		cg_fail(cg, -EINVAL, "aggregation statement without its function or value");
		return;
	}
	if (!(d = describe(cg, s)))
		return;
	found = gs_asm_label(a, "agg_found");
	dropped = gs_asm_label(a, "agg_full");
	end = gs_asm_label(a, "agg_end");
	reads = s->expr && cg_expr_reads_memory(s->expr);
	for (size_t i = 0; i < s->nargs; i++)
		reads = reads || cg_expr_reads_memory(s->args[i]) ||
			(d->key_kind[i] == GS_AGG_KEY_STRING && s->args[i]->kind != GS_EXPR_BYTES);
	key = gs_asm_slot(a, "agg_key", (uint16_t)(KEY(keys) + cg_agg_key_bytes(cg)), 8);
	zero = gs_asm_slot(a, "agg_zero", sizeof(struct gs_agg_value), 8);
	x = gs_asm_slot(a, "agg_x", 8, 8);
	if (reads) {
		rec.slot = gs_asm_slot(a, "agg_error", 16, 8);
		cg_err_record_reset(cg, &rec);
	}
	gs_asm_notef(a, "%s: key = { id %u }, zeroed", g->name, g->id);
	for (int16_t off = 0; off < KEY(keys) + (int16_t)cg_agg_key_bytes(cg); off += 8)
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, key + off, 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, key + KEY(id), (int32_t)g->id));
	if (s->expr) {
		gs_asm_notef(a, "%s: x = %.40s", g->name, cg_text(s->expr));
		cg->cur_expr = s->expr;
		cg_expr(cg, s->expr, reads ? &rec : NULL);
	} else {
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 1));
	}
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, x));
	for (size_t i = 0; i < s->nargs; i++) {
		gs_asm_notef(a, "%s: key %zu = %.40s", g->name, i, cg_text(s->args[i]));
		key_part(cg, s->args[i], d->key_kind[i], key + KEY(keys) + d->key_off[i],
			 reads ? &rec : NULL, &end);
	}
	if (reads) {
		gs_asm_note(a, "a read failed: no update");
		gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP, rec.slot));
		gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, end);
	}
	if (g->fn == GS_AGG_HIST || g->fn == GS_AGG_LHIST) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, x));
		if (g->fn == GS_AGG_HIST)
			hist_bucket(a);
		else
			lhist_bucket(a, g);
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, key + KEY(bucket)));
	}
	gs_asm_notef(a, "%s: r7 = this CPU's value, inserted zeroed when missing", g->name);
	cg_map_lookup(cg, GS_MAP_AGGS, key);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, found);
	for (int16_t off = 0; off < (int16_t)sizeof(struct gs_agg_value); off += 8)
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, zero + off, 0));
	gs_asm_ld_map(a, GS_R1, (uint32_t)cg->prog->map_index[GS_MAP_AGGS]);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, key));
	gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_FP));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, zero));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R4, BPF_NOEXIST));
	gs_asm_call(a, BPF_FUNC_map_update_elem);
	cg_map_lookup(cg, GS_MAP_AGGS, key);
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, dropped);
	gs_asm_bind(a, found);
	gs_asm_notef(a, "%s: count += 1, sum += x, min, max", g->name);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, x));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, VAL(count)));
	{
		struct gs_label not_first = gs_asm_label(a, "agg_not_first");
		struct gs_label min_kept = gs_asm_label(a, "agg_min_kept");
		struct gs_label max_kept = gs_asm_label(a, "agg_max_kept");

		gs_asm_jmp_imm(a, BPF_JNE, GS_R1, 0, not_first);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R0, GS_R2, VAL(min)));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R0, GS_R2, VAL(max)));
		gs_asm_bind(a, not_first);
		/* Atomic: a program preempted on this CPU (sleepable, or a
		 * preemptible kernel) by another hit loses no count; min and
		 * max may then miss a sample. */
		gs_asm_emit(a, GS_MOV64_IMM(GS_R1, 1));
		gs_asm_emit(a, GS_ATOMIC_ADD(BPF_DW, GS_R0, GS_R1, VAL(count)));
		gs_asm_emit(a, GS_ATOMIC_ADD(BPF_DW, GS_R0, GS_R2, VAL(sum)));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R0, VAL(min)));
		gs_asm_jmp_reg(a, BPF_JSGE, GS_R2, GS_R3, min_kept);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R0, GS_R2, VAL(min)));
		gs_asm_bind(a, min_kept);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R0, VAL(max)));
		gs_asm_jmp_reg(a, BPF_JSLE, GS_R2, GS_R3, max_kept);
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R0, GS_R2, VAL(max)));
		gs_asm_bind(a, max_kept);
	}
	gs_asm_ja(a, end);
	gs_asm_bind(a, dropped);
	gs_asm_notef(a, "%s: the map is full: gs_agg_drops[0] += 1", g->name);
	cg_count_one(cg, GS_MAP_AGG_DROPS, end);
	gs_asm_bind(a, end);
	gs_asm_note(a, NULL);
	gs_asm_stack_release(a, mark);
}
