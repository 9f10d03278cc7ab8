/* The general DWARF expression compiler (src/dwarf/locexpr.c) on op arrays
 * built by hand, as libdw hands them over: each expression's location
 * program, op by op with the stack depth before it, and the refusals
 * (a loop, a stack too deep or too long, an underflow, branches meeting
 * with different depths, a register outside pt_regs) with their reasons.
 * The numbers the programs compute are checked on the VM (vm-values) and
 * against gdb (e2e values-dwexpr-*). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base.h"
#include "dwarf_fixture.h"
#include "dwv_int.h"

/* An op at byte offset `at` (branch targets are byte offsets). */
#define DOP(at, a, n1, n2) { .atom = (a), .number = (n1), .number2 = (n2), .offset = (at) }

struct want {
	uint8_t code, reg, size, flags, depth;
	int64_t arg;
};

static struct dfx fx;

static int setup(void **state)
{
	(void)state;
	return dfx_open(&fx, dfx_variants()[0]) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	dfx_close(&fx);
	return 0;
}

static struct gs_var_loc compile(const Dwarf_Op *ops, size_t n)
{
	struct gs_var_loc out = { .why = GS_LOC_WHY_UNSUPPORTED };

	dwv_locexpr(fx.d, NULL, NULL, 0, ops, n, &out);
	return out;
}

static void expect_program(const struct gs_loc_piece *p, uint8_t kind, const struct want *w,
			   size_t n, uint8_t max_depth)
{
	assert_int_equal(p->kind, kind);
	assert_int_equal(p->base, GS_LOC_BASE_PROGRAM);
	assert_non_null(p->prog);
	assert_int_equal(p->prog->nops, n);
	assert_int_equal(p->prog->max_depth, max_depth);
	for (size_t i = 0; i < n; i++) {
		const struct gs_loc_op *o = &p->prog->ops[i];

		if (o->code != w[i].code || o->reg != w[i].reg || o->size != w[i].size ||
		    o->flags != w[i].flags || o->depth != w[i].depth || o->arg != w[i].arg)
			fail_msg("op %zu: code %u reg %u size %u flags %u depth %u arg %lld, want "
				 "%u %u %u %u %u %lld", i, o->code, o->reg, o->size, o->flags, o->depth,
				 (long long)o->arg, w[i].code, w[i].reg, w[i].size, w[i].flags,
				 w[i].depth, (long long)w[i].arg);
	}
}

/* One expression, one value piece: the program op by op. */
struct program_case {
	const char *what;
	Dwarf_Op ops[12];
	size_t nops;
	struct want w[12];
	size_t nw;
	uint8_t max_depth;
};

static const struct program_case program_cases[] = {
	{ "local = a * 3 + b at -O2",
	  { DOP(0, DW_OP_breg5, 0, 0), DOP(2, DW_OP_lit3, 0, 0), DOP(3, DW_OP_mul, 0, 0),
	    DOP(4, DW_OP_breg4, 0, 0), DOP(6, DW_OP_plus, 0, 0),
	    DOP(7, DW_OP_stack_value, 0, 0) }, 6,
	  { { GS_LOP_REG, 5, 0, 0, 0, 0 }, { GS_LOP_CONST, 0, 0, 0, 1, 3 },
	    { GS_LOP_MUL, 0, 0, GS_LOPF_SIGNED, 2, 0 }, { GS_LOP_REG, 4, 0, 0, 1, 0 },
	    { GS_LOP_ADD, 0, 0, GS_LOPF_SIGNED, 2, 0 } }, 5, 2 },
	{ "w = n->weight + 1: a deref inside",
	  { DOP(0, DW_OP_breg5, 4, 0), DOP(2, DW_OP_deref_size, 4, 0),
	    DOP(4, DW_OP_plus_uconst, 1, 0), DOP(6, DW_OP_stack_value, 0, 0) }, 4,
	  { { GS_LOP_REG, 5, 0, 0, 0, 4 }, { GS_LOP_DEREF, 0, 4, 0, 1, 0 },
	    { GS_LOP_CONST, 0, 0, 0, 1, 1 }, { GS_LOP_ADD, 0, 0, GS_LOPF_SIGNED, 2, 0 } }, 4, 2 },
	{ "|rdi|: bra +3 lands on neg, skip +1 at the end",
	  { DOP(0, DW_OP_breg5, 0, 0), DOP(2, DW_OP_dup, 0, 0), DOP(3, DW_OP_lit0, 0, 0),
	    DOP(4, DW_OP_lt, 0, 0), DOP(5, DW_OP_bra, 3, 0), DOP(8, DW_OP_skip, 1, 0),
	    DOP(11, DW_OP_neg, 0, 0), DOP(12, DW_OP_stack_value, 0, 0) }, 8,
	  { { GS_LOP_REG, 5, 0, 0, 0, 0 }, { GS_LOP_PICK, 0, 0, 0, 1, 0 },
	    { GS_LOP_CONST, 0, 0, 0, 2, 0 }, { GS_LOP_LT, 0, 0, GS_LOPF_SIGNED, 3, 0 },
	    { GS_LOP_BRA, 0, 0, 0, 2, 6 }, { GS_LOP_SKIP, 0, 0, 0, 1, 7 },
	    { GS_LOP_NEG, 0, 0, GS_LOPF_SIGNED, 1, 0 } }, 7, 3 },
	{ "generic mod unsigned (flags 0), div signed; shr is unsigned by its op",
	  { DOP(0, DW_OP_breg0, 0, 0), DOP(2, DW_OP_lit7, 0, 0), DOP(3, DW_OP_mod, 0, 0),
	    DOP(4, DW_OP_lit2, 0, 0), DOP(5, DW_OP_div, 0, 0), DOP(6, DW_OP_lit1, 0, 0),
	    DOP(7, DW_OP_shr, 0, 0), DOP(8, DW_OP_stack_value, 0, 0) }, 8,
	  { { GS_LOP_REG, 0, 0, 0, 0, 0 }, { GS_LOP_CONST, 0, 0, 0, 1, 7 },
	    { GS_LOP_MOD, 0, 0, 0, 2, 0 }, { GS_LOP_CONST, 0, 0, 0, 1, 2 },
	    { GS_LOP_DIV, 0, 0, GS_LOPF_SIGNED, 2, 0 }, { GS_LOP_CONST, 0, 0, 0, 1, 1 },
	    { GS_LOP_SHR, 0, 0, GS_LOPF_SIGNED, 2, 0 } }, 7, 2 },
	{ "lit1 lit2 lit3 rot swap over drop plus plus: shuffles keep depths",
	  { DOP(0, DW_OP_lit1, 0, 0), DOP(1, DW_OP_lit2, 0, 0), DOP(2, DW_OP_lit3, 0, 0),
	    DOP(3, DW_OP_rot, 0, 0), DOP(4, DW_OP_swap, 0, 0), DOP(5, DW_OP_over, 0, 0),
	    DOP(6, DW_OP_drop, 0, 0), DOP(7, DW_OP_plus, 0, 0), DOP(8, DW_OP_plus, 0, 0),
	    DOP(9, DW_OP_stack_value, 0, 0) }, 10,
	  { { GS_LOP_CONST, 0, 0, 0, 0, 1 }, { GS_LOP_CONST, 0, 0, 0, 1, 2 },
	    { GS_LOP_CONST, 0, 0, 0, 2, 3 }, { GS_LOP_ROT, 0, 0, 0, 3, 0 },
	    { GS_LOP_SWAP, 0, 0, 0, 3, 0 }, { GS_LOP_PICK, 0, 0, 0, 3, 1 },
	    { GS_LOP_DROP, 0, 0, 0, 4, 0 }, { GS_LOP_ADD, 0, 0, GS_LOPF_SIGNED, 3, 0 },
	    { GS_LOP_ADD, 0, 0, GS_LOPF_SIGNED, 2, 0 } }, 9, 4 },
};

static void test_expressions_lower_op_by_op(void **state)
{
	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(program_cases); i++) {
		const struct program_case *c = &program_cases[i];
		struct gs_var_loc l = compile(c->ops, c->nops);

		print_message("%s\n", c->what);
		assert_int_equal(l.npieces, 1);
		assert_int_equal(l.why, GS_LOC_WHY_NONE);
		expect_program(&l.pieces[0], GS_LOC_VALUE, c->w, c->nw, c->max_depth);
	}
}

static void test_pieces_mix_registers_programs_and_holes(void **state)
{
	/* reg0 piece 8; breg4 0 lit5 mul stack_value piece 8; piece 8 */
	static const Dwarf_Op ops[] = {
		DOP(0, DW_OP_reg0, 0, 0), DOP(1, DW_OP_piece, 8, 0), DOP(3, DW_OP_breg4, 0, 0),
		DOP(5, DW_OP_lit5, 0, 0), DOP(6, DW_OP_mul, 0, 0), DOP(7, DW_OP_stack_value, 0, 0),
		DOP(8, DW_OP_piece, 8, 0), DOP(10, DW_OP_piece, 8, 0),
	};
	struct gs_var_loc l = compile(ops, 8);

	(void)state;
	assert_int_equal(l.npieces, 3);
	assert_int_equal(l.pieces[0].kind, GS_LOC_REGISTER);
	assert_int_equal(l.pieces[0].size, 8);
	assert_int_equal(l.pieces[1].kind, GS_LOC_VALUE);
	assert_int_equal(l.pieces[1].base, GS_LOC_BASE_PROGRAM);
	assert_int_equal(l.pieces[1].size, 8);
	assert_int_equal(l.pieces[2].kind, GS_LOC_UNAVAILABLE);
}

static void test_whole_byte_bit_pieces_are_pieces(void **state)
{
	static const Dwarf_Op bytes[] = {
		DOP(0, DW_OP_breg4, 0, 0), DOP(2, DW_OP_lit1, 0, 0), DOP(3, DW_OP_plus, 0, 0),
		DOP(4, DW_OP_stack_value, 0, 0), DOP(5, DW_OP_bit_piece, 32, 0),
	};
	struct gs_var_loc l = compile(bytes, 5);

	(void)state;
	assert_int_equal(l.npieces, 1);
	assert_int_equal(l.pieces[0].size, 4);
}

/* ---- refusals ------------------------------------------------------------------------ */

/* What does not compile, and the reason the location keeps. */
static const struct refusal_case {
	const char *what;
	Dwarf_Op ops[6];
	size_t nops;
	uint8_t why;
} refusals[] = {
	{ "a backward skip: a loop",
	  { DOP(0, DW_OP_lit1, 0, 0), DOP(1, DW_OP_skip, (uint64_t)-4, 0),
	    DOP(4, DW_OP_stack_value, 0, 0) }, 3, GS_LOC_WHY_TOO_COMPLEX },
	{ "bra lands with depth 0 where falling through brings depth 1",
	  { DOP(0, DW_OP_lit1, 0, 0), DOP(1, DW_OP_bra, 1, 0), DOP(4, DW_OP_lit2, 0, 0),
	    DOP(5, DW_OP_lit3, 0, 0), DOP(6, DW_OP_stack_value, 0, 0) }, 5,
	  GS_LOC_WHY_TOO_COMPLEX },
	{ "a bit piece of 3 bits at bit 1",
	  { DOP(0, DW_OP_breg4, 0, 0), DOP(2, DW_OP_lit1, 0, 0), DOP(3, DW_OP_plus, 0, 0),
	    DOP(4, DW_OP_stack_value, 0, 0), DOP(5, DW_OP_bit_piece, 3, 1) }, 5,
	  GS_LOC_WHY_UNSUPPORTED },
	{ "plus on one entry: an underflow",
	  { DOP(0, DW_OP_lit1, 0, 0), DOP(1, DW_OP_plus, 0, 0), DOP(2, DW_OP_stack_value, 0, 0) },
	  3, GS_LOC_WHY_UNSUPPORTED },
	{ "xmm0 in arithmetic: not in pt_regs",
	  { DOP(0, DW_OP_breg17, 0, 0), DOP(2, DW_OP_lit1, 0, 0), DOP(3, DW_OP_plus, 0, 0),
	    DOP(4, DW_OP_stack_value, 0, 0) }, 4, GS_LOC_WHY_UNSUPPORTED },
	{ "thread-local storage: another branch's work",
	  { DOP(0, DW_OP_const8u, 16, 0), DOP(9, DW_OP_GNU_push_tls_address, 0, 0) }, 2,
	  GS_LOC_WHY_UNSUPPORTED },
};

static void test_refusals_leave_no_location_and_a_reason(void **state)
{
	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(refusals); i++) {
		struct gs_var_loc l = compile(refusals[i].ops, refusals[i].nops);

		print_message("%s\n", refusals[i].what);
		assert_int_equal(l.npieces, 0);
		assert_int_equal(l.why, refusals[i].why);
	}
}

static void test_stack_past_its_depth_is_refused(void **state)
{
	Dwarf_Op ops[GS_LOC_PROG_MAX_DEPTH + 2];

	(void)state;
	for (size_t i = 0; i <= GS_LOC_PROG_MAX_DEPTH; i++)
		ops[i] = (Dwarf_Op)DOP(i, DW_OP_lit1, 0, 0);
	ops[GS_LOC_PROG_MAX_DEPTH + 1] = (Dwarf_Op)DOP(GS_LOC_PROG_MAX_DEPTH + 1,
						      DW_OP_stack_value, 0, 0);
	struct gs_var_loc l = compile(ops, GS_LOC_PROG_MAX_DEPTH + 2);

	assert_int_equal(l.npieces, 0);
	assert_int_equal(l.why, GS_LOC_WHY_TOO_COMPLEX);
}

static void test_expression_past_the_op_limit_is_refused(void **state)
{
	static Dwarf_Op ops[GS_LOC_PROG_MAX_OPS + 3];
	size_t n = 0;

	(void)state;
	ops[n] = (Dwarf_Op)DOP(n, DW_OP_lit1, 0, 0), n++;
	while (n < GS_LOC_PROG_MAX_OPS + 2)
		ops[n] = (Dwarf_Op)DOP(n, DW_OP_nop, 0, 0), n++;
	ops[n] = (Dwarf_Op)DOP(n, DW_OP_stack_value, 0, 0), n++;
	struct gs_var_loc l = compile(ops, n);

	assert_int_equal(l.npieces, 0);
	assert_int_equal(l.why, GS_LOC_WHY_TOO_COMPLEX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expressions_lower_op_by_op),
		cmocka_unit_test(test_pieces_mix_registers_programs_and_holes),
		cmocka_unit_test(test_whole_byte_bit_pieces_are_pieces),
		cmocka_unit_test(test_refusals_leave_no_location_and_a_reason),
		cmocka_unit_test(test_stack_past_its_depth_is_refused),
		cmocka_unit_test(test_expression_past_the_op_limit_is_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
