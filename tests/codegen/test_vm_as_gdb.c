/* Values as gdb shows them on the test VM: C strings and C++
 * references (cg_cstring_specs.c): a char *'s string read with the value
 * and shown as gdb shows it, at the views' text cap (8 here), past it,
 * NULL and unreadable; a struct reached through a reference, its char *
 * member's string with it; {:p} of the same pointer its address alone.
 * Empty and short DWARF pieces (cg_pieces_specs.c): a Vec whose pointer
 * has no piece is not read at address 0; a u64 a piece gives half of is
 * that half, zeros above, whatever the event buffer held. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/render.h>

#include "base.h"
#include "vm_values.h"

#define ACTIVITY_ADDR 0x7f0000004000ull /* activity's text */
#define ACCT_ADDR 0x7f0000005000ull     /* what a refers to */
#define TAG_ADDR 0x7f0000006000ull      /* a.tag's text */
#define UNMAPPED 0x7f00dead0000ull

static const char *text_of(const struct gs_value *v, char *buf, size_t size)
{
	gs_render_value(v, 0, buf, size);
	return buf;
}

/* Runs the case with activity = `activity` (at ACTIVITY_ADDR when it is
 * text, else as the pointer itself) and a referring to ACCT_ADDR (or
 * `acct` when it is 0 or unmapped). */
static void run_with(struct harness *h, const char *activity, uint64_t pointer, uint64_t acct)
{
	uint8_t a[GS_CGV_ACCT_SIZE] = { 0 };
	int32_t id = 7;
	uint64_t tag = TAG_ADDR;

	vmv_build(h, "val_cstring");
	memcpy(a + GS_CGV_ACCT_ID, &id, 4);
	memcpy(a + GS_CGV_ACCT_TAG, &tag, 8);
	vmv_user_mem(h, ACCT_ADDR, a, sizeof(a));
	vmv_user_mem(h, TAG_ADDR, "vip", 4);
	if (activity)
		vmv_user_mem(h, ACTIVITY_ADDR, activity, strlen(activity) + 1);
	h->regs[REG(112)] = activity ? ACTIVITY_ADDR : pointer; /* rdi */
	h->regs[REG(104)] = acct;                               /* rsi */
	vmv_run(h);
}

static void test_char_pointer_shows_its_string_as_gdb(void **state)
{
	static const struct {
		const char *text;
		uint64_t pointer;
		const char *want;
	} cases[] = {
		{ "main", 0, "0x7f0000004000 \"main\"" },
		{ "", 0, "0x7f0000004000 \"\"" },
		/* exactly the cap: whole; one more: the cap's characters, then
		 * gdb's ... */
		{ "main_loo", 0, "0x7f0000004000 \"main_loo\"" },
		{ "main_loop", 0, "0x7f0000004000 \"main_loo\"..." },
		{ "a\tb\x01", 0, "0x7f0000004000 \"a\\tb\\x01\"" },
		{ NULL, 0, "0x0" },
		{ NULL, UNMAPPED, "0x7f00dead0000 <error: Cannot access memory at address "
				  "0x7f00dead0000>" },
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		struct harness hh, *h = &hh;

		run_with(h, cases[i].text, cases[i].pointer, ACCT_ADDR);
		assert_int_equal(vmv_var(h, 0)->status, GS_VAR_OK);
		assert_string_equal(text_of(vmv_var(h, 0), buf, sizeof(buf)), cases[i].want);
		/* {} the same; {:p} the address alone (nothing more read) */
		assert_string_equal(text_of(vmv_arg(h, 3, 0), buf, sizeof(buf)), cases[i].want);
		assert_int_equal(vmv_arg(h, 3, 1)->data_len, 12);
		vmv_teardown(h);
	}
}

static void test_reference_is_its_referent_with_its_strings(void **state)
{
	struct harness hh, *h = &hh;
	char buf[256];

	(void)state;
	run_with(h, "main", 0, ACCT_ADDR);
	assert_string_equal(text_of(vmv_var(h, 1), buf, sizeof(buf)),
			    "{id = 7, tag = 0x7f0000006000 \"vip\"}");
	assert_string_equal(vmv_var(h, 1)->type->name, "struct acct");
	assert_int_equal(vmv_i32(vmv_var(h, 2)), 7);
	vmv_teardown(h);

	/* a reference to nothing: a NULL dereference, as a NULL pointer's */
	run_with(h, "main", 0, 0);
	assert_int_equal(vmv_var(h, 1)->status, GS_VAR_NULL_DEREF);
	assert_int_equal(vmv_var(h, 2)->status, GS_VAR_NULL_DEREF);
	vmv_teardown(h);

	run_with(h, "main", 0, UNMAPPED);
	assert_string_equal(text_of(vmv_var(h, 1), buf, sizeof(buf)),
			    "<read error: errno=-14 at 0x7f00dead0000>");
	vmv_teardown(h);
}

/* The event buffer as an earlier event may leave it: every byte 0xff. */
static void stale_event_buffer(struct harness *h)
{
	const struct gs_map_spec *m = &h->p->maps[h->p->map_index[GS_MAP_ACCUM]];
	uint8_t *stale = malloc(m->value_size);
	uint32_t key = 0;
	struct gs_error err;

	assert_non_null(stale);
	memset(stale, 0xff, m->value_size);
	if (gs_vm_map_update(&h->vm, h->map_ids[h->p->map_index[GS_MAP_ACCUM]], &key, stale, &err))
		fail_msg("event buffer: %s", err.msg);
	free(stale);
}

static void test_missing_pieces_are_not_zeros_read(void **state)
{
	struct harness hh, *h = &hh;
	char buf[256];

	(void)state;
	vmv_build(h, "val_pieces");
	stale_event_buffer(h);
	h->regs[REG(112)] = 4;                     /* rdi: v's cap */
	h->regs[REG(104)] = 3;                     /* rsi: v's len */
	h->regs[REG(96)] = 0xdeadbeef00000005ull;  /* rdx: n's low half, 5 */
	vmv_run(h);
	assert_int_equal(vmv_var(h, 0)->status, GS_VAR_OK);
	assert_string_equal(text_of(vmv_var(h, 0), buf, sizeof(buf)),
			    "Vec(size=3) = {<optimized out>}");
	/* the pointer's piece is written zero, its view's status says
	 * optimized out: nothing was read */
	assert_int_equal(vmv_var(h, 0)->data[0], 0);
	assert_int_equal(vmv_var(h, 0)->data[24], GS_VAR_OPTIMIZED_OUT);
	assert_int_equal(vmv_i64(vmv_var(h, 1)), 5);
	assert_int_equal(vmv_end_status(h), GS_EXEC_SUCCESS);
	vmv_teardown(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_char_pointer_shows_its_string_as_gdb),
		cmocka_unit_test(test_reference_is_its_referent_with_its_strings),
		cmocka_unit_test(test_missing_pieces_are_not_zeros_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
