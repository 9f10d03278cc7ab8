/* Stores of wire fields, from the protocol structs: an emitter names the
 * struct and the field, the offset comes from offsetof() and the store's
 * width from the field's size (checked at compile time to be one a BPF
 * store has), so no emitter writes a wire offset or width by hand. A
 * store may also cover consecutive fields first..last at once (one u32
 * for a whole header); CG_PACK places each field's value in it.
 * `base` is where the struct starts from the register (CG_PAYLOAD: right
 * after an instruction header at r9). */
#ifndef GS_CODEGEN_WIRE_H
#define GS_CODEGEN_WIRE_H

#include <stddef.h>

#include <gs/asm.h>
#include <gs/protocol.h>

/* Where an instruction's payload starts, from the instruction (r9). */
#define CG_PAYLOAD ((int16_t)sizeof(struct gs_inst_header))

#define CG_FIELD_SIZE(type, field) sizeof(((type *)0)->field)
/* Bytes from the start of field `first` to the end of field `last`. */
#define CG_SPAN(type, first, last) \
	(offsetof(type, last) + CG_FIELD_SIZE(type, last) - offsetof(type, first))
/* The BPF size code of a store of w bytes; a compile error unless w is
 * 1, 2, 4 or 8. */
#define CG_BPF_SIZE(w) \
	((uint8_t)((w) == 1 ? BPF_B : (w) == 2 ? BPF_H : (w) == 4 ? BPF_W : BPF_DW) + \
	 0 * sizeof(struct { \
		 _Static_assert((w) == 1 || (w) == 2 || (w) == 4 || (w) == 8, \
				"a BPF store is 1, 2, 4 or 8 bytes wide"); \
		 int unused; \
	 }))
#define CG_FIELD_OFF(base, type, field) ((int16_t)((base) + (int16_t)offsetof(type, field)))

/* *(field's width *)(reg + base + offsetof(type, field)) = imm / src. */
#define CG_ST_FIELD(a, reg, base, type, field, imm) \
	CG_ST_FIELDS(a, reg, base, type, field, field, imm)
#define CG_STX_FIELD(a, reg, base, type, field, src) \
	gs_asm_emit(a, GS_STX_MEM(CG_BPF_SIZE(CG_FIELD_SIZE(type, field)), reg, src, \
				  CG_FIELD_OFF(base, type, field)))
/* One store of fields first..last (their bytes contiguous by layout). */
#define CG_ST_FIELDS(a, reg, base, type, first, last, imm) \
	gs_asm_emit(a, GS_ST_MEM(CG_BPF_SIZE(CG_SPAN(type, first, last)), reg, \
				 CG_FIELD_OFF(base, type, first), (int32_t)(imm)))
/* v shifted to where `field` sits in a store that starts at `first`. */
#define CG_SHIFT(type, first, field) (8 * (offsetof(type, field) - offsetof(type, first)))
#define CG_PACK(type, first, field, v) ((uint64_t)(v) << CG_SHIFT(type, first, field))

/* The same at run time of the generator: a value of n bytes (1, 2, 4;
 * anything else is stored as a u64). */
static inline uint8_t cg_bpf_size(uint32_t n)
{
	return n == 1 ? BPF_B : n == 2 ? BPF_H : n == 4 ? BPF_W : BPF_DW;
}

/* The instruction header at r9: type and payload length in one u32 store
 * (the reserved byte 0). */
static inline void cg_inst_header(struct gs_asm *a, uint8_t type, uint32_t data_length)
{
	CG_ST_FIELDS(a, GS_R9, 0, struct gs_inst_header, inst_type, reserved,
		     CG_PACK(struct gs_inst_header, inst_type, inst_type, type) |
		     CG_PACK(struct gs_inst_header, inst_type, data_length, data_length));
}

#endif /* GS_CODEGEN_WIRE_H */
