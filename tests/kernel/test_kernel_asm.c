/* The kernel suite for the assembler: every sample program goes through
 * gs_asm_check and the real verifier, and the two must agree (valid ones
 * pass both, broken ones fail both). Accepted socket filters then run once
 * under BPF_PROG_TEST_RUN, so the kernel executes what we assembled. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/disasm.h>

#include "base.h"
#include "kernel/kload.h"
#include "progs/sample_progs.h"

#define LOG_TAIL_LINES 20
#define SKIP_EXIT_CODE 77 /* meson: the test was skipped */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_BE16_1234 0x3412u     /* be16(0x1234) swaps on this host */
#define HOST_LE32_LOW 0x55667788u  /* le32(0x1122334455667788) keeps the low word */
#else
#define HOST_BE16_1234 0x1234u
#define HOST_LE32_LOW 0x88776655u
#endif

/* What each socket filter returns on its first run over fresh maps, worked
 * out by hand from the program's comment, not from our own output. */
static const struct expected_return {
	const char *prog;
	uint32_t retval;
} expected_returns[] = {
	{ "straight_line", 42 },
	{ "loop_sum", 120 },          /* 0 + 1 + ... + 15 */
	{ "array_lookup", 1 },        /* ++value of a zeroed entry */
	{ "ringbuf_output", 0 },      /* bpf_ringbuf_output() wrote the record */
	{ "percpu_counter", 1 },
	{ "tail_call", 0 },           /* the target ran; 1 means it fell through */
	{ "map_value_direct", 5 },
	{ "alu32_jmp32", 12 },
	{ "signed_ops", 21 },         /* (-128 s/ 4 s/ -16) * 10 - (-7 s% 3) */
	{ "atomics", 50 },            /* count 1 + last 42 + state 7 */
	{ "byte_swap", 0x08070605u ^ 0x44332211u ^ HOST_BE16_1234 ^ HOST_LE32_LOW },
	{ "subprog_call", 42 },
	{ "ld_imm64_const", 0x9abcdef0u }, /* the low word of the constant */
};

/* One sample program's test; setup and teardown own the assembler and
 * the kernel objects so a failed assertion leaks no fd. */
struct prog_case {
	const struct gs_test_prog *prog;
	const struct gs_error *no_bpf; /* why bpf() cannot be used, or NULL */
	struct gs_asm a;
	struct gs_kload k;
	struct gs_kload_desc desc; /* the program's name, type and maps */
	char test_name[96];
};

static struct gs_kload_desc desc_of(const struct gs_test_prog *prog)
{
	return (struct gs_kload_desc){ .name = prog->name, .type = prog->type,
				       .maps = prog->maps, .nmaps = prog->nmaps };
}

static int case_setup(void **state)
{
	struct prog_case *c = *state;

	gs_asm_init(&c->a);
	gs_kload_init(&c->k);
	c->desc = desc_of(c->prog);
	return 0;
}

static int case_teardown(void **state)
{
	struct prog_case *c = *state;

	gs_kload_fini(&c->k);
	gs_asm_fini(&c->a);
	return 0;
}

static const struct expected_return *find_expected_return(const char *name)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(expected_returns); i++)
		if (strcmp(expected_returns[i].prog, name) == 0)
			return &expected_returns[i];
	return NULL;
}

/* Builds the program (it must build) and skips when bpf() is unavailable. */
static void build_or_skip(struct prog_case *c)
{
	struct gs_error err;

	if (c->no_bpf) {
		print_message("skipped: %s\n", c->no_bpf->msg);
		skip();
	}
	if (gs_test_prog_build(c->prog, &c->a, &err))
		fail_msg("building %s failed: %s", c->prog->name, err.msg);
}


static void create_maps(struct prog_case *c)
{
	struct gs_error err;

	if (gs_kload_create_maps(&c->k, &c->desc, &err))
		fail_msg("%s", err.msg);
	if (c->prog->needs_tail_target && gs_kload_fill_tail_target(&c->k, &c->desc, &err))
		fail_msg("%s", err.msg);
}

/* Our listing beside the verifier's last words: instruction numbers match. */
static void report_rejection(const struct prog_case *c, const struct gs_error *err)
{
	fprintf(stderr, "%s\n--- %s as assembled ---\n", err->msg, c->prog->name);
	gs_asm_dump(&c->a, stderr);
	fprintf(stderr, "--- last %d lines of the verifier log ---\n%s\n", LOG_TAIL_LINES,
		gs_kload_log_tail(c->k.log, LOG_TAIL_LINES));
}

static void check_test_run(const struct prog_case *c)
{
	const struct expected_return *want = find_expected_return(c->prog->name);
	struct gs_error err;
	uint32_t retval;

	if (gs_kload_test_run(c->k.prog_fd, &retval, &err))
		fail_msg("%s: %s", c->prog->name, err.msg);
	if (!want) {
		print_message("%s returned %u (no expected value recorded)\n", c->prog->name, retval);
		return;
	}
	if (retval != want->retval)
		fail_msg("%s returned %u (0x%x) under BPF_PROG_TEST_RUN, expected %u (0x%x)",
			 c->prog->name, retval, retval, want->retval, want->retval);
}

static void test_valid_program_passes_gs_check_and_the_verifier(void **state)
{
	struct prog_case *c = *state;
	struct gs_error err;

	build_or_skip(c);
	if (gs_asm_check(&c->a, &err))
		fail_msg("gs_asm_check rejected valid program %s: %s", c->prog->name, err.msg);
	create_maps(c);
	if (gs_kload_prog(&c->k, &c->desc, &c->a, &err)) {
		report_rejection(c, &err);
		fail_msg("the verifier rejected valid program %s", c->prog->name);
	}
	printf("verified_insns %s %zu %u\n", c->prog->name, c->a.len, c->k.verified_insns);
	fflush(stdout);
	if (c->prog->type == BPF_PROG_TYPE_SOCKET_FILTER)
		check_test_run(c);
}

static void test_broken_program_fails_gs_check_and_the_verifier(void **state)
{
	struct prog_case *c = *state;
	struct gs_error err;

	build_or_skip(c);
	assert_int_not_equal(gs_asm_check(&c->a, &err), 0);
	if (!strstr(err.msg, c->prog->check_error))
		fail_msg("gs_asm_check rejected %s for another reason: '%s' lacks '%s'",
			 c->prog->name, err.msg, c->prog->check_error);
	print_message("gs_check: %s\n", err.msg);
	create_maps(c);
	if (gs_kload_prog(&c->k, &c->desc, &c->a, &err) == 0)
		fail_msg("the verifier accepted broken program %s (%u insns verified)",
			 c->prog->name, c->k.verified_insns);
	print_message("kernel: %s\n", err.msg);
}

static void test_sample_table_has_two_broken_and_twelve_valid_programs(void **state)
{
	size_t broken = 0;

	(void)state;
	for (size_t i = 0; i < gs_test_nprogs; i++) {
		const struct gs_test_prog *p = &gs_test_progs[i];

		broken += p->broken;
		assert_true(!p->broken || p->check_error);
		for (size_t j = 0; j < i; j++)
			if (strcmp(gs_test_progs[j].name, p->name) == 0)
				fail_msg("two sample programs are named %s", p->name);
	}
	assert_int_equal(broken, 2);
	assert_true(gs_test_nprogs - broken >= 12);
}

int main(void)
{
	struct gs_error bpf_err;
	bool no_bpf = gs_kload_bpf_permitted(&bpf_err) != 0;
	struct prog_case *cases = calloc(gs_test_nprogs, sizeof(*cases));
	struct CMUnitTest *tests = calloc(gs_test_nprogs + 1, sizeof(*tests));
	size_t n = 0;
	int failed;

	if (!cases || !tests) {
		fprintf(stderr, "out of memory setting up %zu kernel tests\n", gs_test_nprogs);
		return 1;
	}
	if (no_bpf)
		printf("kernel suite skipped: %s\n", bpf_err.msg);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
		test_sample_table_has_two_broken_and_twelve_valid_programs);
	for (size_t i = 0; i < gs_test_nprogs; i++) {
		struct prog_case *c = &cases[i];
		const struct gs_test_prog *p = &gs_test_progs[i];

		c->prog = p;
		c->no_bpf = no_bpf ? &bpf_err : NULL;
		snprintf(c->test_name, sizeof(c->test_name), "%s_%s",
			 p->broken ? "gs_check_and_verifier_reject" : "gs_check_and_verifier_accept",
			 p->name);
		tests[n++] = (struct CMUnitTest){
			.name = c->test_name,
			.test_func = p->broken ? test_broken_program_fails_gs_check_and_the_verifier
					       : test_valid_program_passes_gs_check_and_the_verifier,
			.setup_func = case_setup,
			.teardown_func = case_teardown,
			.initial_state = c,
		};
	}
	failed = _cmocka_run_group_tests("kernel_asm", tests, n, NULL, NULL);
	free(tests);
	free(cases);
	if (failed)
		return failed;
	return no_bpf ? SKIP_EXIT_CODE : 0;
}
