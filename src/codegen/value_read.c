/* Reading a place (value.c finds it): its address (a static base plus
 * an offset, or the address kept in its slot), its scalar into r0 with C's
 * widening (sign or zero extension, bit fields extracted), its bytes into
 * r9 + off (an event slot, or our stack when a register value is taken
 * apart), and a standard-library view's data pointer and length. User
 * memory is read with one bpf_probe_read_user per contiguous range; a
 * failed read records ReadError {errno, address} and jumps to `fail`.
 * These read and never compile an expression: below the expression
 * compiler, which calls them. */
#include <assert.h>
#include <errno.h>

#include "cg.h"

/* r<dst> = the run-time address (or value) base + offset of a static base:
 * a register, a module's bias (value_base.c), a TLS block (value_tls.c)
 * or a location program's result (value_expr.c). A module base whose
 * offsets are missing records OffsetsUnavailable and jumps to fail. */
void cg_static_value(struct gs_cg *cg, uint8_t base, uint8_t reg,
		     const struct gs_loc_prog *prog, uint64_t cookie, int64_t offset, uint8_t dst,
		     const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;

	assert(cg_writable_reg(dst));
	if (base == GS_LOC_BASE_PROGRAM)
		cg_loc_program(cg, prog, cookie, dst, rec, fail);
	else if (base == GS_LOC_BASE_REG)
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, dst, GS_R6, gs_dwarf_reg_pt_regs_offset[reg]));
	else if (base == GS_LOC_BASE_TLS)
		cg_tls_block(cg, cookie, dst, rec, fail);
	else if (base == GS_LOC_BASE_MODULE)
		cg_module_bias(cg, cookie, dst, rec, fail);
	else
		gs_asm_emit(a, GS_MOV64_IMM(dst, 0));
	cg_add_offset(cg, dst, offset);
}

/* r<dst> = the address of a MEM place. */
void cg_mem_address(struct gs_cg *cg, const struct cg_place *p, uint8_t dst,
		    const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;

	assert(cg_writable_reg(dst) && (gs_asm_failed(a) || p->kind == CG_PLACE_MEM));
	if (!p->dyn) {
		cg_static_value(cg, p->base, p->reg, p->prog, p->cookie, p->offset, dst, rec, fail);
		return;
	}
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, dst, GS_FP, p->addr_slot));
	if (p->offset)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, dst, (int32_t)p->offset));
}

/* r0 <<= 64 - bits; r0 >>= 64 - bits (arithmetic when signed). */
static void extend(struct gs_asm *a, uint32_t bits, bool is_signed)
{
	if (!bits || bits >= 64)
		return;
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R0, 64 - bits));
	gs_asm_emit(a, GS_ALU64_IMM(is_signed ? BPF_ARSH : BPF_RSH, GS_R0, 64 - bits));
}

static bool type_signed(const struct gs_type *t)
{
	return t->flags & GS_TYPEF_SIGNED;
}

/* bpf_probe_read_user(dst_base + off, len, r3 = address); on error ReadError. */
static void read_user(struct gs_cg *cg, uint8_t dst_base, int16_t off, uint32_t len,
		      int16_t addr_save, const struct cg_err_record *rec, struct gs_label fail)
{
	cg_read_user(cg, &(struct cg_user_read){ .dst_base = dst_base, .dst_off = off, .len = len,
						 .save_addr = true, .addr_slot = addr_save,
						 .rec = rec, .fail = &fail });
}

/* Stores the low `len` bytes of r1 at r9 + off (len 1..8). */
static void store_reg_bytes(struct gs_asm *a, int16_t off, uint32_t len)
{
	uint32_t done = 0;

	assert(len <= 8);
	while (done < len) {
		uint32_t n = len - done >= 8 ? 8 : len - done >= 4 ? 4 : len - done >= 2 ? 2 : 1;

		gs_asm_emit(a, GS_STX_MEM(cg_bpf_size(n), GS_R9, GS_R1, off + (int16_t)done));
		done += n;
		if (done < len)
			gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R1, 8 * n));
	}
}

/* len zero bytes at r9 + off: what gdb reads where a location has no
 * piece (past the last one) and what an empty piece holds, rather than
 * the bytes an earlier event left there. Each store aligned to its size:
 * r9 may point into our stack (a value taken apart there). */
static void store_zeros(struct gs_asm *a, int16_t off, uint32_t len)
{
	for (uint32_t done = 0; done < len;) {
		int32_t at = off + (int32_t)done;
		uint32_t n = 8;

		while (n > 1 && (n > len - done || at % (int32_t)n))
			n /= 2;
		gs_asm_emit(a, GS_ST_MEM(cg_bpf_size(n), GS_R9, (int16_t)at, 0));
		done += n;
	}
}

/* One piece of a location, `len` bytes of it stored at r9 + off. */
static void store_piece(struct gs_cg *cg, const struct gs_var_loc *l,
			const struct gs_loc_piece *pc, int16_t off, uint32_t len,
			const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;

	switch (pc->kind) {
	case GS_LOC_REGISTER:
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, gs_dwarf_reg_pt_regs_offset[pc->reg]));
		store_reg_bytes(a, off, len > 8 ? 8 : len);
		break;
	case GS_LOC_VALUE:
		cg_static_value(cg, pc->base, pc->reg, pc->prog, l->cookie, pc->offset, GS_R1, rec,
				fail);
		store_reg_bytes(a, off, len > 8 ? 8 : len);
		break;
	case GS_LOC_IMPLICIT:
		for (uint32_t i = 0; i < len; i++)
			gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R9, off + (int16_t)i,
						 i < pc->size ? pc->bytes[i] : 0));
		break;
	case GS_LOC_MEMORY:
		cg_static_value(cg, pc->base, pc->reg, pc->prog, l->cookie, pc->offset, GS_R3, rec,
				fail);
		read_user(cg, GS_R9, off, len, cg->values->addr_slot + 8, rec, fail);
		break;
	default: /* an empty piece: its members show <optimized out> */
		store_zeros(a, off, len);
		break;
	}
}

void cg_place_store(struct gs_cg *cg, const struct cg_place *p, int16_t off, uint32_t len,
		    const struct cg_err_record *rec, struct gs_label fail)
{
	struct gs_asm *a = cg->a;

	switch (p->kind) {
	case CG_PLACE_MEM:
		cg_mem_address(cg, p, GS_R3, rec, fail);
		read_user(cg, GS_R9, off, len, p->addr_slot + 8, rec, fail);
		break;
	case CG_PLACE_BUF:
		for (uint32_t done = 0; done < len;) {
			uint32_t n = len - done >= 8 ? 8 : len - done >= 4 ? 4 :
				     len - done >= 2 ? 2 : 1;

			gs_asm_emit(a, GS_LDX_MEM(cg_bpf_size(n), GS_R1, GS_FP,
						  p->buf_slot + (int16_t)(p->offset + done)));
			gs_asm_emit(a, GS_STX_MEM(cg_bpf_size(n), GS_R9, GS_R1, off + (int16_t)done));
			done += n;
		}
		break;
	case CG_PLACE_SCALAR:
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, p->addr_slot + 8));
		store_reg_bytes(a, off, len > 8 ? 8 : len);
		break;
	case CG_PLACE_LOC: {
		const struct gs_var_loc *l = p->loc;
		uint32_t at = 0;

		for (uint32_t i = 0; i < l->npieces && at < len; i++) {
			uint32_t n = l->npieces == 1 && !l->pieces[i].size ? len : l->pieces[i].size;

			if (n > len - at)
				n = len - at;
			store_piece(cg, l, &l->pieces[i], off + (int16_t)at, n, rec, fail);
			at += n;
		}
		store_zeros(a, off + (int16_t)at, len - at);
		break;
	}
	default: /* optimized out: the caller reports it */
		break;
	}
}

void cg_place_load(struct gs_cg *cg, const struct cg_place *p, const struct cg_err_record *rec,
		   struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	const struct gs_type *t = p->type;
	uint32_t n, bits;

	if (!t || gs_asm_failed(a))
		return;
	n = t->byte_size;
	if (p->bit_size) {
		n = (p->bit_offset + p->bit_size + 7) / 8;
		if (n > 8) {
			cg_fail(cg, -EINVAL, "a bit field of %u bits at bit %u spans more than 8 "
				"bytes", p->bit_size, p->bit_offset);
			return;
		}
	}
	if (!n || n > 8) {
		cg_fail(cg, -EINVAL, "a %s of %u bytes is not a number", t->name, t->byte_size);
		return;
	}
	/* the values' address slot: address @0, scalar @8, read buffer @16 */
	assert((p->kind != CG_PLACE_MEM && p->kind != CG_PLACE_SCALAR) ||
	       cg_slot_held(a, p->addr_slot, 24));
	switch (p->kind) {
	case CG_PLACE_NONE:
		cg_error_tail(cg, rec, GS_VAR_ACCESS_ERROR, false, 0, &fail);
		return;
	case CG_PLACE_SCALAR:
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_FP, p->addr_slot + 8));
		break;
	case CG_PLACE_MEM:
		/* 8 zeroed bytes, then the n read: odd widths load as a u64 */
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_FP, p->addr_slot + 16, 0));
		cg_mem_address(cg, p, GS_R3, rec, fail);
		read_user(cg, GS_FP, p->addr_slot + 16, n, p->addr_slot + 8, rec, fail);
		gs_asm_emit(a, GS_LDX_MEM(n == 1 || n == 2 || n == 4 ? cg_bpf_size(n) : BPF_DW, GS_R0,
					  GS_FP, p->addr_slot + 16));
		break;
	case CG_PLACE_BUF:
		if (n == 1 || n == 2 || n == 4 || n == 8) {
			gs_asm_emit(a, GS_LDX_MEM(cg_bpf_size(n), GS_R0, GS_FP,
						  p->buf_slot + (int16_t)p->offset));
		} else {
			gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
			for (uint32_t i = n; i-- > 0;) {
				gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R0, 8));
				gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_FP,
							  p->buf_slot + (int16_t)(p->offset + i)));
				gs_asm_emit(a, GS_ALU64_REG(BPF_OR, GS_R0, GS_R1));
			}
		}
		break;
	case CG_PLACE_LOC: {
		const struct gs_var_loc *l = p->loc;
		const struct gs_loc_piece *pc = &l->pieces[0];

		if (l->npieces != 1) {
			cg_fail(cg, -EINVAL, "internal error: a composite %s was not copied before "
				"its use", t->name);
			return;
		}
		if (pc->kind == GS_LOC_REGISTER) {
			gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R0, GS_R6,
						  gs_dwarf_reg_pt_regs_offset[pc->reg]));
		} else if (pc->kind == GS_LOC_VALUE) {
			cg_static_value(cg, pc->base, pc->reg, pc->prog, l->cookie, pc->offset, GS_R0,
					rec, fail);
		} else {
			uint64_t v = 0;

			for (uint32_t i = 0; i < 8 && i < pc->size; i++)
				v |= (uint64_t)pc->bytes[i] << (8 * i);
			gs_asm_ld_imm64(a, GS_R0, v);
		}
		break;
	}
	}
	bits = p->bit_size ? p->bit_size : 8 * n;
	if (p->bit_size && p->bit_offset)
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R0, p->bit_offset));
	extend(a, bits, type_signed(t));
}

/* The u64 fields of a view: data pointer, length, end pointer. */
static const struct gs_type view_word = {
	.kind = GS_TYPE_U64, .size = 8, .name = "unsigned long", .byte_size = 8,
};

void cg_view_bounds(struct gs_cg *cg, const struct cg_place *p, const struct gs_view *v,
		    int16_t ptr_slot, int16_t len_slot, const struct cg_err_record *rec,
		    struct gs_label fail)
{
	struct gs_asm *a = cg->a;
	struct cg_place q = *p;
	const char *prev = gs_asm_notef(a, "%s: data pointer at +%u, length at +%u%s",
					p->type->name, v->ptr_off, v->len_off,
					v->len_how == GS_VLEN_END ? " (end pointer)" : "");

	q.type = &view_word;
	q.bit_offset = q.bit_size = 0;
	q.offset = p->offset + v->ptr_off;
	cg_place_load(cg, &q, rec, fail);
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, ptr_slot));
	q.offset = p->offset + v->len_off;
	cg_place_load(cg, &q, rec, fail);
	if (v->len_how == GS_VLEN_END) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, ptr_slot));
		gs_asm_emit(a, GS_ALU64_REG(BPF_SUB, GS_R0, GS_R1));
		if (v->elem->byte_size != 1)
			gs_asm_emit(a, GS_ALU64_IMM(BPF_DIV, GS_R0, (int32_t)v->elem->byte_size));
	}
	gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_FP, GS_R0, len_slot));
	gs_asm_note(a, prev);
}
