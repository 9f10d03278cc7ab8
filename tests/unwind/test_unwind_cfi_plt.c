/* PLT stubs (cfi_plt.c): the linker's .plt CFA expression becomes two
 * plain rows per 16-byte entry, rsp + 8 before the entry's push and
 * rsp + 16 after it, in both the reference's rows and the loop walker's.
 * Checked on a real library's .plt (pyenv's libpython 3.13, else libc),
 * K taken from readelf's own dump of the expression. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <gs/internal/unwind.h>

#include "fixtures.h"
#include "readelf_frames.h"
#include "unwind_int.h"

#define LIBPYTHON "/root/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0"

/* The .eh_frame FDE readelf shows with the PLT expression. */
static const struct rf_fde *plt_fde(const struct rf_frames *rf)
{
	for (size_t i = 0; i < rf->n; i++)
		if (!rf->fdes[i].debug_frame && rf->fdes[i].plt_k)
			return &rf->fdes[i];
	return NULL;
}

/* The first pc of the FDE where readelf's CFA is the expression. */
static uint64_t expression_start(const struct rf_fde *d)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].cfa_reg == -1)
			return d->rows[i].loc;
	return d->hi;
}

static void assert_plt_row(const struct gs_cfi_table *t, uint64_t pc, int cfa_off)
{
	struct gs_unwind_row row;
	struct gs_cfi_row xrow;

	print_message("  pc 0x%llx: want CFA rsp+%d\n", (unsigned long long)pc, cfa_off);
	assert_int_equal(gs_cfi_table_lookup(t, pc, &row, NULL), 0);
	assert_int_equal(row.cfa_register, GS_DWARF_REG_RSP);
	assert_int_equal(row.cfa_offset, cfa_off);
	assert_int_equal(row.ra_kind, GS_RECOVERY_AT_CFA_OFFSET);
	assert_int_equal(row.ra_offset, -8);
	assert_int_equal(row.rbp_kind, GS_RECOVERY_SAME_VALUE);

	assert_int_equal(gs_cfi_table_xlookup(t, pc, &xrow), 0);
	assert_int_equal(xrow.rules.cfa.kind, GS_BT_CFA_REG_OFF);
	assert_int_equal(xrow.rules.cfa.reg, GS_DWARF_REG_RSP);
	assert_int_equal(xrow.rules.cfa.off, cfa_off);
	assert_int_equal(xrow.rules.ra.kind, GS_RECOVERY_AT_CFA_OFFSET);
	assert_int_equal(xrow.rules.ra.off, -8);
	assert_int_equal(xrow.rules.rbp.kind, GS_RECOVERY_SAME_VALUE);
}

/* Entries of a real .plt: at an entry's start (jmp *GOT) the return
 * address is on top of the stack, from +K (after push $index) one slot
 * lower; the first entry, the last one and one in between. */
static void test_real_plt_entries_unwind_before_and_after_the_push(void **state)
{
	const char *path = access(LIBPYTHON, R_OK) == 0 ? LIBPYTHON : fx_libc();
	struct gs_cfi_table t;
	struct rf_frames rf;
	const struct rf_fde *d;
	uint64_t lo, entries[3];

	(void)state;
	if (!path)
		skip();
	print_message("%s\n", path);
	assert_int_equal(rf_load(path, &rf), 0);
	d = plt_fde(&rf);
	assert_non_null(d); /* every GNU ld .plt has it */
	assert_true(d->plt_k == 10 || d->plt_k == 11);
	lo = expression_start(d);
	assert_true(lo % 16 == 0 && lo + 32 <= d->hi);
	entries[0] = lo;
	entries[1] = lo + (d->hi - lo) / 32 * 16;
	entries[2] = d->hi - 16;
	assert_int_equal(gs_cfi_table_from_file(path, NULL, &t, NULL), 0);
	for (int i = 0; i < 3; i++) {
		assert_plt_row(&t, entries[i], 8);
		assert_plt_row(&t, entries[i] + (uint64_t)d->plt_k - 1, 8);
		assert_plt_row(&t, entries[i] + (uint64_t)d->plt_k, 16);
		assert_plt_row(&t, entries[i] + 15, 16);
	}
	gs_cfi_table_free(&t);
	rf_free(&rf);
}

/* The pieces, end and CFA offset, at and around both cuts, and at the
 * end of the range and of the address space (no wrap). */
static void test_plt_pieces_cut_at_k_and_at_the_entry_end(void **state)
{
	static const struct {
		uint64_t addr, hi;
		int k;
		uint64_t end;
		int32_t off;
	} cases[] = {
		{ 0x1000, 0x2000, 11, 0x100b, 8 },
		{ 0x100a, 0x2000, 11, 0x100b, 8 },
		{ 0x100b, 0x2000, 11, 0x1010, 16 },
		{ 0x100f, 0x2000, 11, 0x1010, 16 },
		{ 0x1000, 0x2000, 10, 0x100a, 8 },
		{ 0x100a, 0x2000, 10, 0x1010, 16 },
		{ 0x1ff0, 0x1ff4, 11, 0x1ff4, 8 },
		{ 0x1ffc, 0x2000, 11, 0x2000, 16 },
		{ UINT64_MAX - 3, UINT64_MAX, 11, UINT64_MAX, 16 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int32_t off = 0;

		assert_int_equal(uw_plt_piece(cases[i].addr, cases[i].hi, cases[i].k, &off),
				 cases[i].end);
		assert_int_equal(off, cases[i].off);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_plt_entries_unwind_before_and_after_the_push),
		cmocka_unit_test(test_plt_pieces_cut_at_k_and_at_the_entry_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
