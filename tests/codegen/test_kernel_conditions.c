/* Kernel suite: traces of many conditions over pointer dereferences load
 * through the real verifier, and what it walks grows with the number of
 * conditions, not with the number of paths through them (GhostScope's 21
 * `if`s failed with "BPF program is too large"). Prints
 * `verified_insns cg_many_ifs<n>.<mode> <insns> <verified_insns>`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <gs/internal/program.h>
#include <gs/disasm.h>

#include "cg_specs.h"
#include "kernel/kload.h"

#define LOG_TAIL_LINES 30
#define IF200_BOUND 200000 /* verified insns of 200 conditions (the target) */

/* verified_insns of a trace of n conditions, failing the test with the
 * verifier's last lines when the kernel refuses it. */
static uint32_t load_many_ifs(size_t n, enum gs_output_kind output)
{
	struct gs_program_opts o = { .sz = sizeof(o), .output = output };
	struct gs_trace_spec *spec = gs_cgv_many_ifs(n);
	struct gs_program *p;
	struct gs_kload k;
	struct gs_kload_desc d;
	struct gs_error err;
	const char *mode = output == GS_OUTPUT_PERF ? "perf" : "ringbuf";
	uint32_t verified;

	assert_non_null(spec);
	if (gs_program_build(spec, &o, &p, &err))
		fail_msg("%zu conditions: %s", n, err.msg);
	d = (struct gs_kload_desc){ .name = p->name, .type = BPF_PROG_TYPE_KPROBE,
				    .maps = p->maps, .nmaps = p->nmaps, .btf = p->btf };
	gs_kload_init(&k);
	if (gs_kload_create_maps(&k, &d, &err) || gs_kload_prog(&k, &d, &p->main, &err)) {
		if (k.log)
			fprintf(stderr, "--- last %d lines of the verifier log ---\n%s\n",
				LOG_TAIL_LINES, gs_kload_log_tail(k.log, LOG_TAIL_LINES));
		fail_msg("%zu conditions (%s) were not loaded: %s", n, mode, err.msg);
	}
	verified = k.verified_insns;
	printf("verified_insns cg_many_ifs%zu.%s %zu %u\n", n, mode, p->main.len, verified);
	fflush(stdout);
	gs_kload_fini(&k);
	gs_program_free(p);
	gs_cgv_many_ifs_free(spec);
	return verified;
}

static void skip_without_bpf(void **state)
{
	const struct gs_error *no_bpf = *state;

	if (no_bpf) {
		print_message("skipped: %s\n", no_bpf->msg);
		skip();
	}
}

/* GhostScope's case: 21 conditions, which used to hit the 1,000,000 limit. */
static void test_twenty_one_conditions_load(void **state)
{
	skip_without_bpf(state);
	load_many_ifs(21, GS_OUTPUT_RINGBUF);
	load_many_ifs(21, GS_OUTPUT_PERF);
}

/* 200 conditions load under the bound, in both output modes. */
static void test_two_hundred_conditions_load_under_the_bound(void **state)
{
	uint32_t ringbuf, perf;

	skip_without_bpf(state);
	ringbuf = load_many_ifs(200, GS_OUTPUT_RINGBUF);
	perf = load_many_ifs(200, GS_OUTPUT_PERF);
	printf("BENCH kernel.verified_insns.if200 %u insns\n", ringbuf);
	assert_true(ringbuf <= IF200_BOUND);
	assert_true(perf <= IF200_BOUND);
}

/* A condition costs the verifier the same whatever comes before it: from
 * 50 to 200 conditions the cost per condition stays that of the first 50
 * (within a quarter), where it used to multiply with the paths. */
static void test_each_condition_costs_the_same(void **state)
{
	uint32_t v10, v50, v200;
	double first, later;

	skip_without_bpf(state);
	v10 = load_many_ifs(10, GS_OUTPUT_RINGBUF);
	v50 = load_many_ifs(50, GS_OUTPUT_RINGBUF);
	v200 = load_many_ifs(200, GS_OUTPUT_RINGBUF);
	first = (double)(v50 - v10) / 40;
	later = (double)(v200 - v50) / 150;
	printf("verified_insns per condition: %.1f (10..50), %.1f (50..200)\n", first, later);
	assert_true(later <= first * 1.25);
}

int main(void)
{
	struct gs_error bpf_err;
	bool no_bpf = gs_kload_bpf_permitted(&bpf_err) != 0;
	const struct gs_error *why = no_bpf ? &bpf_err : NULL;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_twenty_one_conditions_load, (void *)why),
		cmocka_unit_test_prestate(test_two_hundred_conditions_load_under_the_bound,
					  (void *)why),
		cmocka_unit_test_prestate(test_each_condition_costs_the_same, (void *)why),
	};
	int failed = cmocka_run_group_tests_name("kernel-conditions", tests, NULL, NULL);

	return no_bpf && failed == 0 ? 77 : failed;
}
