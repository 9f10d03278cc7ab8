/* CFI that libdw must never be given (cfi_scan.c, cfi_fde.c, cfi_hdr.c):
 * the scanner's verdict on instruction bytes, as a table; hostile FDEs of
 * a real shared object (fixtures/cfi_hostile.S) dropped as corrupt while
 * their neighbours keep their rows; the dwarf layer's fence; and a search
 * table naming an FDE the section does not hold, which refuses it all. */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/internal/unwind.h>

#include "base.h"
#include "fixtures.h"
#include "unwind_int.h"
#include "mf_int.h"

/* ---- the scanner, on bytes ------------------------------------------------ */

struct scan_case {
	const char *name;
	uint8_t bytes[24];
	size_t len;
	bool cie;
	int want;
};

#define B(...) { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ })

static const struct scan_case scan_cases[] = {
	{ "the 7-byte FDE: expression rule for 0x07ffffff",
	  B(0x41, 0x10, 0xff, 0xff, 0xff, 0x3f, 0x00), false, MF_CFA_BAD_REGISTER },
	{ "gcc's push rbp; mov rsp, rbp", B(0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06),
	  false, MF_CFA_OK },
	{ "undefined r145 (APX r31)", B(0x07, 0x91, 0x01), false, MF_CFA_OK },
	{ "undefined r146", B(0x07, 0x92, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "same_value r146", B(0x08, 0x92, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "restore_extended r146", B(0x06, 0x92, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "offset_extended r146", B(0x05, 0x92, 0x01, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "offset_extended_sf r146", B(0x11, 0x92, 0x01, 0x7f), false, MF_CFA_BAD_REGISTER },
	{ "val_offset r146", B(0x14, 0x92, 0x01, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "val_offset_sf r146", B(0x15, 0x92, 0x01, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "GNU_negative_offset_extended r146", B(0x2f, 0x92, 0x01, 0x01), false,
	  MF_CFA_BAD_REGISTER },
	{ "register rbp in r146", B(0x09, 0x06, 0x92, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "register r146 in rbp", B(0x09, 0x92, 0x01, 0x06), false, MF_CFA_BAD_REGISTER },
	{ "val_expression r146", B(0x16, 0x92, 0x01, 0x00), false, MF_CFA_BAD_REGISTER },
	{ "def_cfa r146", B(0x0c, 0x92, 0x01, 0x08), false, MF_CFA_BAD_REGISTER },
	{ "def_cfa_sf r146", B(0x12, 0x92, 0x01, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "def_cfa_register r146", B(0x0d, 0x92, 0x01), false, MF_CFA_BAD_REGISTER },
	{ "a ULEB128 of 11 bytes", B(0x07, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				    0x80, 0x01), false, MF_CFA_BAD_REGISTER },
	/* libdw reads ten bytes of a ULEB128 and the eleventh as the next
	 * instruction: here an expression rule for 0x0fffffff */
	{ "a ULEB128 past ten bytes hides no instruction",
	  B(0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 0xff, 0xff,
	    0xff, 0x7f, 0x00), false, MF_CFA_BAD_REGISTER },
	{ "DW_CFA_lo_user", B(0x1c), false, MF_CFA_BAD_OPCODE },
	{ "DW_CFA_MIPS_advance_loc8", B(0x1d, 0, 0, 0, 0, 0, 0, 0, 0), false,
	  MF_CFA_BAD_OPCODE },
	{ "DW_CFA_GNU_window_save (SPARC)", B(0x2d), false, MF_CFA_BAD_OPCODE },
	{ "DW_CFA_hi_user", B(0x3f), false, MF_CFA_BAD_OPCODE },
	{ "expression without its length", B(0x10, 0x06), false, MF_CFA_TRUNCATED },
	{ "expression longer than the FDE", B(0x10, 0x06, 0x08, 0x77), false,
	  MF_CFA_TRUNCATED },
	{ "advance_loc2 cut short", B(0x03, 0x01), false, MF_CFA_TRUNCATED },
	{ "def_cfa without its offset", B(0x0c, 0x07), false, MF_CFA_TRUNCATED },
	{ "set_loc of a pcrel sdata4 encoding", B(0x01, 1, 2, 3, 4), false, MF_CFA_OK },
	{ "advance_loc in a CIE", B(0x41), true, MF_CFA_ROW_IN_CIE },
	{ "a CIE's def_cfa and offset", B(0x0c, 0x07, 0x08, 0x90, 0x01), true, MF_CFA_OK },
	{ "restore_state without remember_state", B(0x0b), false, MF_CFA_STATE_DEPTH },
	{ "remember, restore", B(0x0a, 0x41, 0x0b), false, MF_CFA_OK },
	{ "GNU_args_size, nop", B(0x2e, 0x10, 0x00), false, MF_CFA_OK },
};

static void test_scanner_verdicts(void **state)
{
	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(scan_cases); i++) {
		const struct scan_case *c = &scan_cases[i];
		struct mf_cfa_scan_in in = { .cie = c->cie, .fde_encoding = DW_EH_PE_pcrel |
					     DW_EH_PE_sdata4, .addr_size = 8 };
		struct mf_cfa_scan_out out;
		int got = mf_cfa_scan(c->bytes, c->bytes + c->len, &in, &out);

		if (got != c->want)
			fail_msg("%s: %s, want %s", c->name, mf_cfa_scan_name(got),
				 mf_cfa_scan_name(c->want));
	}
}

/* An expression is allowed up to 1024 bytes: past that, the bytes being
 * there or not decide between too long and cut short. */
static void test_expression_length_is_bounded(void **state)
{
	static uint8_t buf[2048];
	struct mf_cfa_scan_in in = { .addr_size = 8 };
	struct mf_cfa_scan_out out;

	(void)state;
	memcpy(buf, (uint8_t[]){ 0x10, 0x06, 0x80, 0x08 }, 4); /* expression r6, 1024 bytes */
	assert_int_equal(mf_cfa_scan(buf, buf + 4 + 1024, &in, &out), MF_CFA_OK);
	buf[2] = 0x81; /* 1025 */
	assert_int_equal(mf_cfa_scan(buf, buf + 4 + 1025, &in, &out), MF_CFA_LONG_EXPRESSION);
	assert_int_equal(mf_cfa_scan(buf, buf + 4 + 10, &in, &out), MF_CFA_TRUNCATED);
}

/* The budget counts what libdw does: (rows + 1) x instructions. */
static void test_work_budget_counts_rows_times_instructions(void **state)
{
	struct mf_cfa_scan_out cie = { .ops = 2 };
	struct mf_cfa_scan_out fde = { .ops = 13361, .rows = 6677 }; /* lto1's largest */

	(void)state;
	assert_int_equal(mf_cfa_scan_pair(&cie, &fde), MF_CFA_OK);
	fde = (struct mf_cfa_scan_out){ .ops = 32800, .rows = 16400 };
	assert_int_equal(mf_cfa_scan_pair(&cie, &fde), MF_CFA_TOO_MUCH_WORK);
	fde = (struct mf_cfa_scan_out){ .ops = MF_CFA_MAX_OPS };
	assert_int_equal(mf_cfa_scan_pair(&cie, &fde), MF_CFA_TOO_LONG);
}

/* ---- a shared object with hostile FDEs ---------------------------------- */

struct hostile {
	char path[4096];
	struct gs_cfi_table t;
};

static int setup(void **state)
{
	static struct hostile h;
	struct gs_error err;

	fx_path("libcfi_hostile.so", h.path, sizeof(h.path));
	if (gs_cfi_table_from_file(h.path, NULL, &h.t, &err) != 0) {
		print_message("%s\n", err.msg);
		return -1;
	}
	*state = &h;
	return 0;
}

static int teardown(void **state)
{
	struct hostile *h = *state;

	gs_cfi_table_free(&h->t);
	return 0;
}

static uint64_t addr_of(struct hostile *h, const char *fn)
{
	uint64_t addr, size;

	assert_true(fx_symbol(h->path, fn, &addr, &size));
	return addr + 1; /* after the first nop */
}

static void test_hostile_fdes_are_dropped_as_corrupt(void **state)
{
	static const char *const corrupt[] = { "cfi_huge_register", "cfi_register_146",
					       "cfi_remember_65", "cfi_too_much_work" };
	struct hostile *h = *state;
	enum gs_cfi_drop reason;
	struct gs_cfi_row x;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(corrupt); i++) {
		uint64_t pc = addr_of(h, corrupt[i]);

		reason = GS_CFI_DROP_NREASONS;
		assert_int_equal(gs_cfi_table_lookup(&h->t, pc, NULL, &reason), -EOPNOTSUPP);
		assert_int_equal(reason, GS_CFI_DROP_CORRUPT);
		assert_int_equal(gs_cfi_table_xlookup(&h->t, pc, &x), -ENOENT);
	}
	assert_int_equal(h->t.stats.corrupt_fdes, 4);
	assert_false(h->t.stats.eh_frame_refused);
	assert_string_equal(gs_cfi_drop_name(GS_CFI_DROP_CORRUPT), "corrupt_cfi");
}

static void test_neighbours_keep_their_rows(void **state)
{
	static const char *const kept[] = { "cfi_ok_before", "cfi_apx_register",
					    "cfi_remember_64", "cfi_ok_after" };
	struct hostile *h = *state;
	struct gs_unwind_row row;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(kept); i++)
		assert_int_equal(gs_cfi_table_lookup(&h->t, addr_of(h, kept[i]), &row, NULL), 0);
	assert_int_equal(h->t.stats.fdes, 4);
	/* what libdw ran: a few instructions per row, nothing like the budget */
	assert_true(h->t.stats.steps < 10000);
}

/* The dwarf layer's fence (the CFA of a frame base) agrees. */
static void test_fence_keeps_libdw_away(void **state)
{
	struct hostile *h = *state;
	struct mf_cfi_fence f;
	struct gs_error err;
	Elf *elf;
	int fd;

	assert_int_equal(mf_elf_open(h->path, &fd, &elf, &err), 0);
	assert_int_equal(mf_cfi_fence_read(elf, true, &f, &err), 0);
	assert_false(mf_cfi_fence_allows(&f, addr_of(h, "cfi_huge_register")));
	assert_false(mf_cfi_fence_allows(&f, addr_of(h, "cfi_too_much_work") + 0x100));
	assert_true(mf_cfi_fence_allows(&f, addr_of(h, "cfi_ok_before")));
	assert_true(mf_cfi_fence_allows(&f, addr_of(h, "cfi_apx_register")));
	mf_cfi_fence_free(&f);
	mf_elf_close(fd, elf);
}

/* A copy whose .eh_frame_hdr names an FDE 4 bytes past a real one: libdw
 * would parse whatever is there, so nothing of .eh_frame is given to it. */
static void test_search_table_off_the_chain_refuses_the_section(void **state)
{
	struct hostile *h = *state;
	char copy[] = "/tmp/gs-cfi-hostile-XXXXXX";
	struct gs_cfi_table t;
	struct gs_error err;
	enum gs_cfi_drop reason;
	int fd = mkstemp(copy);
	FILE *in = fopen(h->path, "rb");
	uint8_t *data;
	long len;
	bool patched = false;

	assert_true(fd >= 0 && in);
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	rewind(in);
	data = malloc((size_t)len);
	assert_true(data && fread(data, 1, (size_t)len, in) == (size_t)len);
	fclose(in);
	for (unsigned i = 0; i < ((Elf64_Ehdr *)data)->e_shnum; i++) {
		Elf64_Ehdr *eh = (Elf64_Ehdr *)data;
		Elf64_Shdr *sh = (Elf64_Shdr *)(data + eh->e_shoff) + i;
		Elf64_Shdr *strs = (Elf64_Shdr *)(data + eh->e_shoff) + eh->e_shstrndx;
		int32_t fde;

		if (strcmp((char *)data + strs->sh_offset + sh->sh_name, ".eh_frame_hdr") != 0)
			continue;
		/* version, 3 encodings, eh_frame_ptr, fde_count, then (loc, fde) */
		memcpy(&fde, data + sh->sh_offset + 16, 4);
		fde += 4;
		memcpy(data + sh->sh_offset + 16, &fde, 4);
		patched = true;
	}
	assert_true(patched);
	assert_int_equal(write(fd, data, (size_t)len), len);
	close(fd);
	free(data);
	assert_int_equal(gs_cfi_table_from_file(copy, NULL, &t, &err), 0);
	assert_true(t.stats.eh_frame_refused);
	assert_int_equal(t.nrows, 0);
	assert_int_equal(t.nxrows, 0);
	assert_int_equal(gs_cfi_table_lookup(&t, addr_of(h, "cfi_ok_before"), NULL, &reason),
			 -EOPNOTSUPP);
	assert_int_equal(reason, GS_CFI_DROP_CORRUPT);
	gs_cfi_table_free(&t);
	unlink(copy);
}

int main(void)
{
	const struct CMUnitTest bytes[] = {
		cmocka_unit_test(test_scanner_verdicts),
		cmocka_unit_test(test_expression_length_is_bounded),
		cmocka_unit_test(test_work_budget_counts_rows_times_instructions),
	};
	const struct CMUnitTest file[] = {
		cmocka_unit_test(test_hostile_fdes_are_dropped_as_corrupt),
		cmocka_unit_test(test_neighbours_keep_their_rows),
		cmocka_unit_test(test_fence_keeps_libdw_away),
		cmocka_unit_test(test_search_table_off_the_chain_refuses_the_section),
	};

	return cmocka_run_group_tests(bytes, NULL, NULL) ||
	       cmocka_run_group_tests(file, setup, teardown);
}
