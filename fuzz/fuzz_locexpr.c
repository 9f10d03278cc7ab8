/* libFuzzer target for the DWARF expression compiler (src/dwarf/locexpr.c)
 * and the code generator of its programs: an input that is an ELF image
 * opens the module the compiler allocates in (and whose call sites entry
 * values search); any other input is a DWARF expression, 4 bytes an op
 * (an atom from the operations the compiler knows or any byte, two small
 * operands, branch offsets included), compiled at a few PCs. Whatever the
 * compiler accepts must keep the promises of gs/value.h (depths within
 * bounds and consistent, forward jumps, pt_regs registers), and
 * gs_program_build() must turn it into a program or refuse it with a
 * message that is not an internal error. Nothing may crash or hang. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gs/program.h>

#include "dwv_int.h"
#include "smoke.h"

#define MAX_IMAGE (1 << 20)
#define MAX_OPS 96

static const uint8_t atoms[] = {
	DW_OP_addr, DW_OP_deref, DW_OP_const1u, DW_OP_const1s, DW_OP_const8u, DW_OP_dup,
	DW_OP_drop, DW_OP_over, DW_OP_pick, DW_OP_swap, DW_OP_rot, DW_OP_abs, DW_OP_and,
	DW_OP_div, DW_OP_minus, DW_OP_mod, DW_OP_mul, DW_OP_neg, DW_OP_not, DW_OP_or,
	DW_OP_plus, DW_OP_plus_uconst, DW_OP_shl, DW_OP_shr, DW_OP_shra, DW_OP_xor, DW_OP_bra,
	DW_OP_eq, DW_OP_ge, DW_OP_gt, DW_OP_le, DW_OP_lt, DW_OP_ne, DW_OP_skip, DW_OP_lit0,
	DW_OP_lit1, DW_OP_lit31, DW_OP_reg0, DW_OP_reg5, DW_OP_reg17, DW_OP_breg0, DW_OP_breg4,
	DW_OP_breg5, DW_OP_breg7, DW_OP_breg16, DW_OP_breg17, DW_OP_regx, DW_OP_fbreg,
	DW_OP_bregx, DW_OP_piece, DW_OP_deref_size, DW_OP_nop, DW_OP_call_frame_cfa,
	DW_OP_bit_piece, DW_OP_stack_value, DW_OP_GNU_uninit, DW_OP_convert, DW_OP_entry_value,
	DW_OP_implicit_pointer, DW_OP_GNU_push_tls_address,
};

static struct {
	uint8_t image[MAX_IMAGE];
	Elf *elf;
	Dwarf *dw;
	struct gs_dwarf *d;
} m;

static void close_module(void)
{
	gs_dwarf_free(m.d);
	if (m.dw)
		dwarf_end(m.dw);
	if (m.elf)
		elf_end(m.elf);
	memset(&m.elf, 0, sizeof(m) - offsetof(typeof(m), elf));
}

/* The promises of a location program, checked apart from the compiler. */
static void check_program(const struct gs_loc_prog *p)
{
	if (!p || !p->nops || p->nops > GS_LOC_PROG_MAX_OPS || !p->max_depth ||
	    p->max_depth > GS_LOC_PROG_MAX_DEPTH)
		abort();
	for (uint16_t i = 0; i < p->nops; i++) {
		const struct gs_loc_op *o = &p->ops[i];

		if (o->depth > p->max_depth)
			abort();
		if ((o->code == GS_LOP_BRA || o->code == GS_LOP_SKIP) &&
		    (o->arg <= i || o->arg > p->nops))
			abort();
		if (o->code == GS_LOP_REG && o->reg > GS_DWARF_REG_MAX)
			abort();
		if (o->code == GS_LOP_DEREF && (!o->size || o->size > 8))
			abort();
	}
}

static const struct gs_type t_long = { .kind = GS_TYPE_I64, .size = 8, .name = "long",
				       .byte_size = 8, .flags = GS_TYPEF_SIGNED };

static void build(const struct gs_var *v)
{
	struct gs_expr e = { .kind = GS_EXPR_NAME, .name = v->name, .dvar = v, .text = v->name };
	struct gs_stmt body[] = { { .kind = GS_STMT_PRINT_EXPR, .expr = &e } };
	struct gs_trace_spec spec = { .trace_id = 1, .target = "fuzz", .body = body, .nbody = 1 };
	struct gs_program_opts po = { .sz = sizeof(po) };
	struct gs_program *prog = NULL;
	struct gs_error err;

	if (gs_program_build(&spec, &po, &prog, &err) == 0)
		gs_program_free(prog);
	else if (!err.msg[0] || strstr(err.msg, "internal error"))
		abort();
}

static void compile(const uint8_t *data, size_t size)
{
	Dwarf_Op ops[MAX_OPS];
	size_t n = 0;
	uint64_t at = 0;

	for (size_t i = 0; i + 4 <= size && n < MAX_OPS; i += 4, n++) {
		uint8_t a = data[i] < 0xc0 ? atoms[data[i] % sizeof(atoms)] : data[i];

		ops[n] = (Dwarf_Op){ .atom = a, .number = (uint64_t)(int64_t)(int8_t)data[i + 1],
				     .number2 = data[i + 2], .offset = at };
		at += a == DW_OP_bra || a == DW_OP_skip ? 3 : 1 + (data[i + 3] & 3);
	}
	for (uint64_t pc = 0; pc < 3; pc++) {
		struct gs_var v = { .name = "x", .type = &t_long };

		v.loc.why = GS_LOC_WHY_UNSUPPORTED;
		v.loc.cookie = 1;
		dwv_locexpr(m.d, NULL, NULL, pc * 0x40, ops, n, &v.loc);
		if (v.loc.npieces > 16)
			abort();
		for (uint32_t k = 0; k < v.loc.npieces; k++)
			if (v.loc.pieces[k].base == GS_LOC_BASE_PROGRAM)
				check_program(v.loc.pieces[k].prog);
		if (pc == 0)
			build(&v);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_dwarf_opts o = { .sz = sizeof(o), .cookie = 1 };

	elf_version(EV_CURRENT);
	if (size >= 4 && memcmp(data, ELFMAG, 4) == 0 && size <= MAX_IMAGE) {
		close_module();
		memcpy(m.image, data, size);
		m.elf = elf_memory((char *)m.image, size);
		m.dw = m.elf ? dwarf_begin_elf(m.elf, DWARF_C_READ, NULL) : NULL;
		o.cfi_elf = m.elf;
		if (!m.dw || gs_dwarf_new(m.dw, &o, &m.d, NULL))
			close_module();
		return 0;
	}
	if (m.d)
		compile(data, size);
	return 0;
}
