/* Source-level values at run time (their types: value_type.c): the code
 * that finds where such a value is ("place"): user memory at a constant or
 * computed address, a pt_regs location, a copy on our stack, or a computed
 * scalar (reading one: value_read.c). Constant parts fold at build time;
 * each pointer followed costs one bpf_probe_read_user. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"

/* Turns a MEM place with a static base into one whose address is in its
 * slot, so a computed index or a pointer can be added at run time. */
static void make_dyn(struct gs_cg *cg, struct cg_place *p, const struct cg_err_record *rec,
		     struct gs_label fail)
{
	if (p->dyn)
		return;
	cg_mem_address(cg, p, GS_R0, rec, fail);
	gs_asm_emit(cg->a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, p->addr_slot));
	p->dyn = true;
	p->offset = 0;
}

static void materialize(struct gs_cg *cg, struct cg_place *p, const struct cg_err_record *rec,
			struct gs_label fail);

/* r0 = the scalar of a place; a value in several pieces (rax:rdx, a
 * register and a stack slot) is put together on our stack first. */
static void load_scalar(struct gs_cg *cg, struct cg_place *p, const struct cg_err_record *rec,
			struct gs_label fail)
{
	if (p->kind == CG_PLACE_LOC && p->loc->npieces != 1)
		materialize(cg, p, rec, fail);
	cg_place_load(cg, p, rec, fail);
}

/* Follows a pointer place: r0 = its value, NULL -> NullDeref; the result
 * is user memory at that address. */
static void follow(struct gs_cg *cg, struct cg_place *p, const struct gs_type *target,
		   const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	struct gs_label ok = gs_asm_label(a, "pointer_not_null");

	load_scalar(cg, p, rec, fail);
	gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, ok);
	cg_error_tail(cg, rec, GS_VAR_NULL_DEREF, false, 0, &fail);
	gs_asm_bind(a, ok);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, p->addr_slot));
	p->kind = CG_PLACE_MEM;
	p->dyn = true;
	p->offset = 0;
	p->type = target;
	p->bit_size = p->bit_offset = 0;
}

/* Copies a register / composite location to our stack, so members and
 * elements of it are plain offsets. */
static void materialize(struct gs_cg *cg, struct cg_place *p, const struct cg_err_record *rec,
			struct gs_label fail)
{
	uint32_t size = p->type->byte_size;
	struct gs_asm *a = cg->a;
	int16_t buf;

	if (size > CG_MAX_MATERIALIZE || !size) {
		cg_fail(cg, -EINVAL, "a %s of %u bytes held in registers cannot be taken apart "
			"(at most %d bytes)", p->type->name, size, CG_MAX_MATERIALIZE);
		return;
	}
	buf = gs_asm_slot(a, "value_copy", CG_MAX_MATERIALIZE, 8);
	/* The slot writer stores through r9: point it at the stack copy. */
	gs_asm_emit(a, GS_MOV64_REG(GS_R8, GS_R9));
	gs_asm_emit(a, GS_MOV64_REG(GS_R9, GS_FP));
	cg_place_store(cg, p, buf, size, rec, fail);
	gs_asm_emit(a, GS_MOV64_REG(GS_R9, GS_R8));
	p->kind = CG_PLACE_BUF;
	p->buf_slot = buf;
	p->offset = 0;
}

static void place_init(struct gs_cg *cg, struct cg_place *p, const struct gs_type *t)
{
	memset(p, 0, sizeof(*p));
	p->type = t;
	p->addr_slot = cg->values->addr_slot;
}

/* Loads a non-value expression (a script integer) as a scalar place. */
static void scalar_from_expr(struct gs_cg *cg, const struct gs_expr *e, const struct gs_type *t,
			     const struct cg_err_record *rec, struct cg_place *p)
{
	cg_expr(cg, e, rec);
	gs_asm_emit(cg->a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, cg->values->addr_slot + 8));
	place_init(cg, p, t);
	p->kind = CG_PLACE_SCALAR;
}

static void scalar_from_r0(struct gs_cg *cg, struct cg_place *p, const struct gs_type *t)
{
	gs_asm_emit(cg->a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, cg->values->addr_slot + 8));
	p->kind = CG_PLACE_SCALAR;
	p->type = t;
	p->bit_size = p->bit_offset = 0;
}

/* r0, the value cast e converts, as C converts it to t when t is _Bool
 * (any other scalar keeps the bytes t's size takes: the same value). */
static void to_bool(struct gs_cg *cg, const struct gs_expr *e, const struct gs_type *t)
{
	if (t->kind == GS_TYPE_BOOL)
		cg_convert(cg, GS_R0, cg_ctype(cg, e->lhs), gs_ctype_of_type(t));
}

void cg_place_reach(struct gs_cg *cg, struct cg_place *p, const struct gs_type *t,
		  const struct cg_err_record *rec, struct gs_label fail)
{
	if (p->type->kind == GS_TYPE_POINTER)
		follow(cg, p, t, rec, fail);
	else if (p->kind == CG_PLACE_LOC || p->kind == CG_PLACE_SCALAR)
		materialize(cg, p, rec, fail);
}

/* x[i] on a sequence or string view c (x itself, or a reference to it):
 * the element at data + i * its size, i checked against the length at
 * run time (outside it: AccessError, the index kept as its address). */
static void view_index(struct gs_cg *cg, const struct gs_expr *e, struct cg_place *p,
		       const struct gs_type *c, const struct cg_err_record *rec,
		       struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	const struct gs_view *v = c->view;
	uint32_t stride = v->elem->byte_size;
	size_t mark = gs_asm_stack_mark(a);
	int16_t ptr = gs_asm_slot(a, "view_data", 8, 8);
	int16_t len = gs_asm_slot(a, "view_length", 8, 8);
	int16_t idx = gs_asm_slot(a, "view_index", 8, 8);
	struct gs_label in_range = gs_asm_label(a, "view_index_in_range");
	const char *prev;

	if (stride > INT32_MAX) {
		cg_fail_at(cg, e, -EINVAL, "%s: elements of %u bytes are too large to index",
			cg_text(e), stride);
		return;
	}
	cg_place_reach(cg, p, c, rec, fail);
	if (gs_asm_failed(a))
		return;
	p->type = c;
	cg_view_bounds(cg, p, v, ptr, len, rec, fail);
	prev = gs_asm_notef(a, "%s: (%s) < the length, address = data + (%s) * %u", cg_text(e),
			    cg_text(e->rhs), cg_text(e->rhs), stride);
	cg_expr(cg, e->rhs, rec);
	cg_convert(cg, GS_R0, cg_ctype(cg, e->rhs), GS_CTYPE_LONG);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, len));
	gs_asm_jmp_reg(a, BPF_JLT, GS_R0, GS_R1, in_range);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, idx));
	cg_error_tail(cg, rec, GS_VAR_ACCESS_ERROR, false, idx, &fail);
	gs_asm_bind(a, in_range);
	if (stride != 1)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R0, (int32_t)stride));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, ptr));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R0));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, p->addr_slot));
	p->kind = CG_PLACE_MEM;
	p->dyn = true;
	p->offset = 0;
	p->type = v->elem;
	p->bit_size = p->bit_offset = 0;
	gs_asm_note(a, prev);
	gs_asm_stack_release(a, mark);
}

static void index_place(struct gs_cg *cg, const struct gs_expr *e, struct cg_place *p,
			const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	const struct gs_type *elem = p->type->target;
	uint32_t stride;
	size_t mark;
	int16_t base = p->addr_slot;

	if (cg_seq_container(p->type)) {
		view_index(cg, e, p, cg_seq_container(p->type), rec, fail);
		return;
	}
	stride = elem->byte_size;
	mark = gs_asm_stack_mark(a);
	if (p->type->kind == GS_TYPE_POINTER)
		follow(cg, p, p->type->target, rec, fail);
	else if (p->kind == CG_PLACE_LOC || p->kind == CG_PLACE_SCALAR)
		materialize(cg, p, rec, fail);
	p->type = elem;
	if (e->rhs && e->rhs->kind == GS_EXPR_INT) {
		int64_t off = e->rhs->value * (int64_t)stride;

		if (p->kind == CG_PLACE_BUF && (off < 0 || off + stride > CG_MAX_MATERIALIZE)) {
			cg_fail_at(cg, e, -EINVAL, "%s: index %lld is outside the value", cg_text(e),
				(long long)e->rhs->value);
			return;
		}
		p->offset += off;
		return;
	}
	if (p->kind != CG_PLACE_MEM) {
		cg_fail_at(cg, e, -EINVAL, "%s: a computed index needs the array in memory; %s lives in "
			"registers here (use a constant index)", cg_text(e), cg_text(e->lhs));
		return;
	}
	make_dyn(cg, p, rec, fail);
	gs_asm_notef(a, "index: address += (%s) * %u", cg_text(e->rhs), stride);
	if (cg_expr_reads_memory(e->rhs)) {
		/* the index's own values go through the address slot: keep the
		 * base apart while it is computed */
		base = gs_asm_slot(a, "index_base", 8, 8);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, p->addr_slot));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, base));
	}
	cg_expr(cg, e->rhs, rec);
	if (stride != 1)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_MUL, GS_R0, (int32_t)stride));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, base));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R0));
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R1, p->addr_slot));
	gs_asm_stack_release(a, mark);
}

/* p, a smart pointer in memory or on our stack: the object it points to. */
static void through_smart_pointer(struct gs_cg *cg, struct cg_place *p,
				  const struct cg_err_record *rec, struct gs_label fail)
{
	const struct gs_view_field *f = cg_smart_pointer(p->type);

	p->offset += f->offset;
	p->type = f->type;
	follow(cg, p, f->type->target, rec, fail);
}

/* Where e's declared type is stored: for a reference, the reference. */
static void declared_place(struct gs_cg *cg, const struct gs_expr *e,
			   const struct cg_err_record *rec, struct gs_label fail, struct cg_place *p)
{
	const struct gs_type *t = cg_declared_type(cg, e);
	const struct gs_type_member *m;
	uint32_t off = 0;

	place_init(cg, p, t);
	if (!t)
		return;
	switch (e->kind) {
	case GS_EXPR_NAME: {
		const struct gs_var_loc *l = &e->dvar->loc;

		if (!l->npieces) {
			p->kind = CG_PLACE_NONE;
		} else if (l->npieces == 1 && l->pieces[0].kind == GS_LOC_MEMORY) {
			p->kind = CG_PLACE_MEM;
			p->base = l->pieces[0].base;
			p->reg = l->pieces[0].reg;
			p->prog = l->pieces[0].prog;
			p->cookie = l->cookie;
			p->offset = l->pieces[0].offset;
		} else {
			p->kind = CG_PLACE_LOC;
			p->loc = l;
		}
		return;
	}
	case GS_EXPR_BINARY: /* p + n: a computed pointer */
		scalar_from_expr(cg, e, t, rec, p);
		return;
	case GS_EXPR_CAST:
		if (!cg_is_value(cg, e->lhs)) {
			cg_expr(cg, e->lhs, rec);
			to_bool(cg, e, t);
			place_init(cg, p, t);
			if (cg_is_aggregate(t) || t->kind == GS_TYPE_ARRAY) {
				/* a number cast to a struct or an array: the object at
				 * that address, as GhostScope reads it */
				scalar_from_r0(cg, p, cg_pointer_to(cg, t));
				follow(cg, p, t, rec, fail);
				return;
			}
			scalar_from_r0(cg, p, t);
			return;
		}
		cg_place(cg, e->lhs, rec, fail, p);
		if (p->kind != CG_PLACE_NONE && (cg_is_aggregate(t) || t->kind == GS_TYPE_ARRAY) &&
		    p->type && p->type->kind == GS_TYPE_POINTER) {
			/* a pointer cast to a struct or an array type (C has no such
			 * cast): the object it points to, as GhostScope reads
			 * cast(&node.words, "uint32_t[4]") */
			follow(cg, p, t, rec, fail);
			return;
		}
		if (p->kind == CG_PLACE_NONE || cg_is_aggregate(t) || t->kind == GS_TYPE_ARRAY) {
			p->type = t; /* the same bytes, seen as another type */
			return;
		}
		load_scalar(cg, p, rec, fail);
		to_bool(cg, e, t);
		scalar_from_r0(cg, p, t);
		return;
	case GS_EXPR_ADDR:
		cg_place(cg, e->lhs, rec, fail, p);
		if (p->kind != CG_PLACE_MEM) {
			if (!gs_asm_failed(cg->a))
				cg_fail_at(cg, e, -EINVAL, "%s: %s has no address here (it is %s)", cg_text(e),
					cg_text(e->lhs), p->kind == CG_PLACE_NONE ? "optimized out" :
					"held in registers or computed");
			return;
		}
		cg_mem_address(cg, p, GS_R0, rec, fail);
		scalar_from_r0(cg, p, t);
		return;
	default:
		break;
	}
	cg_place(cg, e->lhs, rec, fail, p);
	if (gs_asm_failed(cg->a))
		return;
	if (p->kind == CG_PLACE_NONE) {
		p->type = t;
		return;
	}
	switch (e->kind) {
	case GS_EXPR_MEMBER:
		cg_place_reach(cg, p, p->type->kind == GS_TYPE_POINTER ? p->type->target : p->type, rec, fail);
		/* as many hops as cg_through_smart_pointers takes (at most 4) */
		for (const struct gs_type *to = cg_through_smart_pointers(p->type, e->name);
		     p->type != to && cg_smart_pointer(p->type);)
			through_smart_pointer(cg, p, rec, fail);
		m = gs_type_find_member(p->type, e->name, &off);
		p->offset += off;
		p->type = m->type;
		p->bit_offset = m->bit_offset;
		p->bit_size = m->bit_size;
		if (p->kind == CG_PLACE_BUF && p->offset + m->type->byte_size > CG_MAX_MATERIALIZE)
			cg_fail_at(cg, e, -EINVAL, "%s: member outside the copied value", cg_text(e));
		break;
	case GS_EXPR_INDEX:
		index_place(cg, e, p, rec, fail);
		break;
	case GS_EXPR_DEREF:
		if (p->type->kind == GS_TYPE_POINTER) {
			follow(cg, p, t, rec, fail);
		} else if (cg_smart_pointer(p->type)) {
			cg_place_reach(cg, p, p->type, rec, fail);
			through_smart_pointer(cg, p, rec, fail);
		}
		else
			p->type = t; /* *array: its first element */
		break;
	default:
		break;
	}
}

void cg_place(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec,
	      struct gs_label fail, struct cg_place *p)
{
	declared_place(cg, e, rec, fail, p);
	if (gs_asm_failed(cg->a) || !p->type || cg_referent(p->type) == p->type)
		return;
	/* a reference: the object it refers to (a null one is NullDeref) */
	if (p->kind == CG_PLACE_NONE)
		p->type = cg_referent(p->type);
	else
		follow(cg, p, cg_referent(p->type), rec, fail);
}

void cg_object_address(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	struct gs_label fail = gs_asm_label(a, "array_failed");
	struct gs_label done = gs_asm_label(a, "array_done");
	size_t fixups = a->nfixups;
	struct cg_place p;

	cg_place(cg, e, rec, fail, &p);
	if (gs_asm_failed(a))
		return;
	if (p.kind != CG_PLACE_MEM) {
		cg_fail_at(cg, e, -EINVAL, "%s: the %s has no address here (it is %s), so it "
			"cannot be used as a pointer", cg_text(e), p.type && p.type->kind == GS_TYPE_ARRAY ?
			"array" : "value", p.kind == CG_PLACE_NONE ?
			"optimized out" : "held in registers or computed");
		return;
	}
	cg_mem_address(cg, &p, GS_R0, rec, fail);
	if (cg_label_used(a, fixups, fail)) {
		gs_asm_ja(a, done);
		gs_asm_bind(a, fail);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	}
	gs_asm_bind(a, done);
}

/* r0 = the value of e, a source-level value used in arithmetic (an array:
 * its address); a failed read leaves 0 (status in rec). */
void cg_value_expr(struct gs_cg *cg, const struct gs_expr *e, const struct cg_err_record *rec)
{
	struct gs_asm *a = cg->a;
	struct gs_label fail = gs_asm_label(a, "value_failed");
	struct gs_label done = gs_asm_label(a, "value_done");
	struct cg_place p;
	const struct gs_type *t = cg_value_type(cg, e);

	if (!t)
		return;
	if (t->kind == GS_TYPE_ARRAY) {
		cg_object_address(cg, e, rec);
		return;
	}
	if (cg_is_aggregate(t) || t->byte_size > 8 ||
	    t->kind == GS_TYPE_F32 || t->kind == GS_TYPE_F64) {
		cg_fail_at(cg, e, -EINVAL, "%s is a %s: only integers, enums, bools, chars and pointers "
			"can be computed with (print it instead)", cg_text(e), t->name);
		return;
	}
	size_t fixups = a->nfixups;

	cg_place(cg, e, rec, fail, &p);
	if (p.kind == CG_PLACE_NONE) {
		/* Known now to have no value: its load would always fail, and
		 * the code after it would be dead. */
		cg_error_tail(cg, rec, GS_VAR_ACCESS_ERROR, false, 0, NULL);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	} else {
		load_scalar(cg, &p, rec, fail);
	}
	if (cg_label_used(a, fixups, fail)) {
		gs_asm_ja(a, done);
		gs_asm_bind(a, fail);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	}
	gs_asm_bind(a, done);
}

/* r3 = the address a string, a dump or a comparison reads from: a
 * pointer's value (NULL -> NullDeref), an array's or a struct's address. */
void cg_value_address(struct gs_cg *cg, struct cg_place *p, const struct cg_err_record *rec,
		      struct gs_label fail)
{
	struct gs_asm *a = cg->a;

	if (!p->type || gs_asm_failed(a))
		return; /* the value's type was refused: the build has failed */
	if (p->type->kind == GS_TYPE_POINTER || p->kind == CG_PLACE_SCALAR) {
		struct gs_label ok = gs_asm_label(a, "read_pointer_not_null");

		load_scalar(cg, p, rec, fail);
		gs_asm_emit(a, GS_MOV64_REG(GS_R3, GS_R0));
		gs_asm_jmp_imm(a, BPF_JNE, GS_R3, 0, ok);
		cg_error_tail(cg, rec, GS_VAR_NULL_DEREF, false, 0, &fail);
		gs_asm_bind(a, ok);
		return;
	}
	if (p->kind != CG_PLACE_MEM) {
		cg_fail(cg, -EINVAL, "a %s %s has no address to read from", p->type->name,
			p->kind == CG_PLACE_NONE ? "optimized out here" : "held in registers");
		return;
	}
	cg_mem_address(cg, p, GS_R3, rec, fail);
}
