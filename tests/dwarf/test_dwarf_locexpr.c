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

static void test_two_registers_combined_are_a_value_program(void **state)
{
	/* local = a * 3 + b at -O2 */
	static const Dwarf_Op ops[] = {
		DOP(0, DW_OP_breg5, 0, 0), DOP(2, DW_OP_lit3, 0, 0), DOP(3, DW_OP_mul, 0, 0),
		DOP(4, DW_OP_breg4, 0, 0), DOP(6, DW_OP_plus, 0, 0),
		DOP(7, DW_OP_stack_value, 0, 0),
	};
	static const struct want w[] = {
		{ GS_LOP_REG, 5, 0, 0, 0, 0 }, { GS_LOP_CONST, 0, 0, 0, 1, 3 },
		{ GS_LOP_MUL, 0, 0, GS_LOPF_SIGNED, 2, 0 }, { GS_LOP_REG, 4, 0, 0, 1, 0 },
		{ GS_LOP_ADD, 0, 0, GS_LOPF_SIGNED, 2, 0 },
	};
	struct gs_var_loc l = compile(ops, 6);

	(void)state;
	assert_int_equal(l.npieces, 1);
	assert_int_equal(l.why, GS_LOC_WHY_NONE);
	expect_program(&l.pieces[0], GS_LOC_VALUE, w, 5, 2);
}

static void test_deref_inside_an_expression_reads_its_size(void **state)
{
	/* w = n->weight + 1 */
	static const Dwarf_Op ops[] = {
		DOP(0, DW_OP_breg5, 4, 0), DOP(2, DW_OP_deref_size, 4, 0),
		DOP(4, DW_OP_plus_uconst, 1, 0), DOP(6, DW_OP_stack_value, 0, 0),
	};
	static const struct want w[] = {
		{ GS_LOP_REG, 5, 0, 0, 0, 4 }, { GS_LOP_DEREF, 0, 4, 0, 1, 0 },
		{ GS_LOP_CONST, 0, 0, 0, 1, 1 }, { GS_LOP_ADD, 0, 0, GS_LOPF_SIGNED, 2, 0 },
	};
	struct gs_var_loc l = compile(ops, 4);

	(void)state;
	assert_int_equal(l.npieces, 1);
	expect_program(&l.pieces[0], GS_LOC_VALUE, w, 4, 2);
}

static void test_bra_and_skip_land_on_the_ops_they_name(void **state)
{
	/* |rdi|: dup; lit0; lt; bra +3 -> neg; skip +1 -> end */
	static const Dwarf_Op ops[] = {
		DOP(0, DW_OP_breg5, 0, 0), DOP(2, DW_OP_dup, 0, 0), DOP(3, DW_OP_lit0, 0, 0),
		DOP(4, DW_OP_lt, 0, 0), DOP(5, DW_OP_bra, 3, 0), DOP(8, DW_OP_skip, 1, 0),
		DOP(11, DW_OP_neg, 0, 0), DOP(12, DW_OP_stack_value, 0, 0),
	};
	static const struct want w[] = {
		{ GS_LOP_REG, 5, 0, 0, 0, 0 }, { GS_LOP_PICK, 0, 0, 0, 1, 0 },
		{ GS_LOP_CONST, 0, 0, 0, 2, 0 }, { GS_LOP_LT, 0, 0, GS_LOPF_SIGNED, 3, 0 },
		{ GS_LOP_BRA, 0, 0, 0, 2, 6 }, { GS_LOP_SKIP, 0, 0, 0, 1, 7 },
		{ GS_LOP_NEG, 0, 0, GS_LOPF_SIGNED, 1, 0 },
	};
	struct gs_var_loc l = compile(ops, 8);

	(void)state;
	assert_int_equal(l.npieces, 1);
	expect_program(&l.pieces[0], GS_LOC_VALUE, w, 7, 3);
}

static void test_generic_mod_and_shr_are_unsigned_div_signed(void **state)
{
	static const Dwarf_Op ops[] = {
		DOP(0, DW_OP_breg0, 0, 0), DOP(2, DW_OP_lit7, 0, 0), DOP(3, DW_OP_mod, 0, 0),
		DOP(4, DW_OP_lit2, 0, 0), DOP(5, DW_OP_div, 0, 0), DOP(6, DW_OP_lit1, 0, 0),
		DOP(7, DW_OP_shr, 0, 0), DOP(8, DW_OP_stack_value, 0, 0),
	};
	struct gs_var_loc l = compile(ops, 8);
	const struct gs_loc_op *o;

	(void)state;
	assert_int_equal(l.npieces, 1);
	o = l.pieces[0].prog->ops;
	assert_int_equal(o[2].code, GS_LOP_MOD);
	assert_int_equal(o[2].flags, 0);
	assert_int_equal(o[4].code, GS_LOP_DIV);
	assert_int_equal(o[4].flags, GS_LOPF_SIGNED);
	assert_int_equal(o[6].code, GS_LOP_SHR);
}

static void test_stack_shuffles_keep_depths(void **state)
{
	/* lit1 lit2 lit3 rot swap over drop plus plus: depths 0..3 */
	static const Dwarf_Op ops[] = {
		DOP(0, DW_OP_lit1, 0, 0), DOP(1, DW_OP_lit2, 0, 0), DOP(2, DW_OP_lit3, 0, 0),
		DOP(3, DW_OP_rot, 0, 0), DOP(4, DW_OP_swap, 0, 0), DOP(5, DW_OP_over, 0, 0),
		DOP(6, DW_OP_drop, 0, 0), DOP(7, DW_OP_plus, 0, 0), DOP(8, DW_OP_plus, 0, 0),
		DOP(9, DW_OP_stack_value, 0, 0),
	};
	static const struct want w[] = {
		{ GS_LOP_CONST, 0, 0, 0, 0, 1 }, { GS_LOP_CONST, 0, 0, 0, 1, 2 },
		{ GS_LOP_CONST, 0, 0, 0, 2, 3 }, { GS_LOP_ROT, 0, 0, 0, 3, 0 },
		{ GS_LOP_SWAP, 0, 0, 0, 3, 0 }, { GS_LOP_PICK, 0, 0, 0, 3, 1 },
		{ GS_LOP_DROP, 0, 0, 0, 4, 0 }, { GS_LOP_ADD, 0, 0, GS_LOPF_SIGNED, 3, 0 },
		{ GS_LOP_ADD, 0, 0, GS_LOPF_SIGNED, 2, 0 },
	};
	struct gs_var_loc l = compile(ops, 10);

	(void)state;
	assert_int_equal(l.npieces, 1);
	expect_program(&l.pieces[0], GS_LOC_VALUE, w, 9, 4);
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

static void test_whole_byte_bit_pieces_are_pieces_others_refused(void **state)
{
	static const Dwarf_Op bytes[] = {
		DOP(0, DW_OP_breg4, 0, 0), DOP(2, DW_OP_lit1, 0, 0), DOP(3, DW_OP_plus, 0, 0),
		DOP(4, DW_OP_stack_value, 0, 0), DOP(5, DW_OP_bit_piece, 32, 0),
	};
	static const Dwarf_Op bits[] = {
		DOP(0, DW_OP_breg4, 0, 0), DOP(2, DW_OP_lit1, 0, 0), DOP(3, DW_OP_plus, 0, 0),
		DOP(4, DW_OP_stack_value, 0, 0), DOP(5, DW_OP_bit_piece, 3, 1),
	};
	struct gs_var_loc l = compile(bytes, 5);

	(void)state;
	assert_int_equal(l.npieces, 1);
	assert_int_equal(l.pieces[0].size, 4);
	l = compile(bits, 5);
	assert_int_equal(l.npieces, 0);
}

/* ---- refusals ------------------------------------------------------------------------ */

static void test_backward_branch_is_refused_as_a_loop(void **state)
{
	static const Dwarf_Op ops[] = {
		DOP(0, DW_OP_lit1, 0, 0), DOP(1, DW_OP_skip, (uint64_t)-4, 0),
		DOP(4, DW_OP_stack_value, 0, 0),
	};
	struct gs_var_loc l = compile(ops, 3);

	(void)state;
	assert_int_equal(l.npieces, 0);
	assert_int_equal(l.why, GS_LOC_WHY_TOO_COMPLEX);
}

static void test_branches_meeting_with_different_depths_are_refused(void **state)
{
	/* lit1; bra -> lit3 (depth 0 there); lit2; lit3 (depth 1 by falling through) */
	static const Dwarf_Op ops[] = {
		DOP(0, DW_OP_lit1, 0, 0), DOP(1, DW_OP_bra, 1, 0), DOP(4, DW_OP_lit2, 0, 0),
		DOP(5, DW_OP_lit3, 0, 0), DOP(6, DW_OP_stack_value, 0, 0),
	};
	struct gs_var_loc l = compile(ops, 5);

	(void)state;
	assert_int_equal(l.npieces, 0);
	assert_int_equal(l.why, GS_LOC_WHY_TOO_COMPLEX);
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

static void test_underflow_and_foreign_registers_leave_the_location_alone(void **state)
{
	static const Dwarf_Op underflow[] = {
		DOP(0, DW_OP_lit1, 0, 0), DOP(1, DW_OP_plus, 0, 0), DOP(2, DW_OP_stack_value, 0, 0),
	};
	static const Dwarf_Op xmm[] = {
		DOP(0, DW_OP_breg17, 0, 0), DOP(2, DW_OP_lit1, 0, 0), DOP(3, DW_OP_plus, 0, 0),
		DOP(4, DW_OP_stack_value, 0, 0),
	};
	static const Dwarf_Op tls[] = {
		DOP(0, DW_OP_const8u, 16, 0), DOP(9, DW_OP_GNU_push_tls_address, 0, 0),
	};
	struct gs_var_loc l = compile(underflow, 3);

	(void)state;
	assert_int_equal(l.npieces, 0);
	assert_int_equal(l.why, GS_LOC_WHY_UNSUPPORTED);
	l = compile(xmm, 4);
	assert_int_equal(l.npieces, 0);
	assert_int_equal(l.why, GS_LOC_WHY_UNSUPPORTED);
	l = compile(tls, 2);
	assert_int_equal(l.npieces, 0);
	assert_int_equal(l.why, GS_LOC_WHY_UNSUPPORTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_registers_combined_are_a_value_program),
		cmocka_unit_test(test_deref_inside_an_expression_reads_its_size),
		cmocka_unit_test(test_bra_and_skip_land_on_the_ops_they_name),
		cmocka_unit_test(test_generic_mod_and_shr_are_unsigned_div_signed),
		cmocka_unit_test(test_stack_shuffles_keep_depths),
		cmocka_unit_test(test_pieces_mix_registers_programs_and_holes),
		cmocka_unit_test(test_whole_byte_bit_pieces_are_pieces_others_refused),
		cmocka_unit_test(test_backward_branch_is_refused_as_a_loop),
		cmocka_unit_test(test_branches_meeting_with_different_depths_are_refused),
		cmocka_unit_test(test_stack_past_its_depth_is_refused),
		cmocka_unit_test(test_expression_past_the_op_limit_is_refused),
		cmocka_unit_test(test_underflow_and_foreign_registers_leave_the_location_alone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
