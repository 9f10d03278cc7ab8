/* Kernel suite for the code generator: every spec of cg_specs.c, in
 * ringbuf and perf mode and sleepable with reads that fault pages in
 * (ringbuf; every shape but the tail-call walker's), loaded as a uprobe
 * (KPROBE-type) program through the real verifier with the reference's
 * map sizes. Prints one line per program:
 * `verified_insns <name> <insns> <verified_insns>`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/program.h>
#include <gs/disasm.h>
#include <gs/runtime.h>

#include "base.h"
#include "cg_specs.h"
#include "kernel/kload.h"

#define LOG_TAIL_LINES 30

#define VARIANTS 3 /* ringbuf, perf, sleepable */

struct kernel_case {
	const struct gs_cg_case *c;
	enum gs_output_kind output;
	bool sleepable;        /* built with fault_in, loaded with BPF_F_SLEEPABLE */
	const struct gs_error *no_bpf;
	const char *no_sleep;  /* why this kernel cannot load sleepable uprobes */
	char name[96];
};

static void test_generated_program_passes_the_verifier(void **state)
{
	struct kernel_case *kc = *state;
	struct gs_program_opts o = gs_cg_case_opts(kc->c, kc->output);
	struct gs_program *p;
	struct gs_kload k;
	struct gs_kload_desc d;
	struct gs_error err;
	int rc;

	if (kc->no_bpf) {
		print_message("skipped: %s\n", kc->no_bpf->msg);
		skip();
	}
	if (kc->sleepable && kc->no_sleep) {
		print_message("skipped: %s\n", kc->no_sleep);
		skip();
	}
	o.fault_in = kc->sleepable;
	if (kc->sleepable && o.unwinder == GS_UNWINDER_TAILCALL && kc->c->spec->bt &&
	    gs_program_build(kc->c->spec, &o, &p, &err)) {
		/* The tail-call walker's program array is never sleepable: the
		 * build refuses it, naming why. */
		assert_non_null(strstr(err.msg, "cannot fault pages in"));
		print_message("refused, as it must be: %s\n", err.msg);
		return;
	}
	if (gs_program_build(kc->c->spec, &o, &p, &err))
		fail_msg("%s: %s", kc->name, err.msg);
	/* A trace that reads no user memory has nothing to fault in: it is
	 * built as an ordinary program even when faults are asked for. */
	assert_int_equal(p->sleepable, kc->sleepable &&
			 gs_stmts_read_user_memory(kc->c->spec->body, kc->c->spec->nbody));
	d = (struct gs_kload_desc){ .name = p->name,
				    .type = p->prog_type ? p->prog_type : BPF_PROG_TYPE_KPROBE,
				    .maps = p->maps, .nmaps = p->nmaps, .btf = p->btf,
				    .prog_flags = p->sleepable ? BPF_F_SLEEPABLE : 0 };
	gs_kload_init(&k);
	rc = gs_kload_create_maps(&k, &d, &err);
	if (rc == 0)
		rc = gs_kload_prog(&k, &d, &p->main, &err);
	if (rc) {
		fprintf(stderr, "%s\n--- %s as generated ---\n", err.msg, kc->name);
		gs_asm_dump(&p->main, stderr);
		if (k.log)
			fprintf(stderr, "--- last %d lines of the verifier log ---\n%s\n",
				LOG_TAIL_LINES, gs_kload_log_tail(k.log, LOG_TAIL_LINES));
		gs_kload_fini(&k);
		gs_program_free(p);
		fail_msg("%s was not loaded", kc->name);
	}
	printf("verified_insns %s %zu %u\n", kc->name, p->main.len, k.verified_insns);
	if (p->has_step) {
		char step[128];

		snprintf(step, sizeof(step), "%s.step", kc->name);
		d.name = p->step_name;
		if (gs_kload_prog(&k, &d, p->step, &err)) {
			fprintf(stderr, "%s\n--- %s ---\n", err.msg, step);
			gs_asm_dump(p->step, stderr);
			fprintf(stderr, "--- last %d lines of the verifier log ---\n%s\n",
				LOG_TAIL_LINES, gs_kload_log_tail(k.log, LOG_TAIL_LINES));
			gs_kload_fini(&k);
			gs_program_free(p);
			fail_msg("%s was not loaded", step);
		}
		printf("verified_insns %s %zu %u\n", step, p->step->len, k.verified_insns);
	}
	if (p->entry) {
		char entry[128];

		snprintf(entry, sizeof(entry), "%s.entry", kc->name);
		d.name = p->entry_name;
		d.prog_flags = 0;
		if (gs_kload_prog(&k, &d, p->entry, &err)) {
			fprintf(stderr, "%s\n--- %s ---\n", err.msg, entry);
			gs_asm_dump(p->entry, stderr);
			fprintf(stderr, "--- last %d lines of the verifier log ---\n%s\n",
				LOG_TAIL_LINES, gs_kload_log_tail(k.log, LOG_TAIL_LINES));
			gs_kload_fini(&k);
			gs_program_free(p);
			fail_msg("%s was not loaded", entry);
		}
		printf("verified_insns %s %zu %u\n", entry, p->entry->len, k.verified_insns);
	}
	fflush(stdout);
	gs_kload_fini(&k);
	gs_program_free(p);
}

#define MANY_BT 20
#define VERIFIED_INSNS_BOUND 100000

/* trace f { bt; bt; ... } with MANY_BT statements, frames in any module. */
static const struct gs_bt_probe many_probe = {
	.cookie = GS_CG_PROBE_COOKIE, .pc = GS_CG_PROBE_PC, .first_row_kind = GS_BT_ROW_USABLE,
	.first_row = { .pc_start = 0x1130, .pc_end = 0x1140, .cfa_offset = 8, .ra_offset = -8,
		       .cfa_register = 7, .ra_register = 16, .rbp_register = 6,
		       .ra_kind = GS_RECOVERY_AT_CFA_OFFSET },
	.nrows = GS_CG_BT_ROWS, .module_ranges = true,
};

static struct gs_stmt many_body[MANY_BT];
static const struct gs_trace_spec many = {
	.trace_id = 20, .target = "many_bt", .body = many_body, .nbody = MANY_BT,
	.bt = &many_probe,
};

/* The loop walker is verified once, however many bt statements call it:
 * the whole program stays under VERIFIED_INSNS_BOUND verified
 * instructions. */
static void test_twenty_bt_statements_verify_once(void **state)
{
	struct gs_program_opts o = { .sz = sizeof(o), .unwinder = GS_UNWINDER_LOOP,
				     .backtrace_depth = GS_BT_LOOP_MAX_DEPTH };
	const struct gs_error *no_bpf = *state;
	struct gs_program *p;
	struct gs_kload k;
	struct gs_kload_desc d;
	struct gs_error err;

	if (no_bpf) {
		print_message("skipped: %s\n", no_bpf->msg);
		skip();
	}
	for (size_t i = 0; i < MANY_BT; i++)
		many_body[i] = (struct gs_stmt){ .kind = GS_STMT_BACKTRACE };
	if (gs_program_build(&many, &o, &p, &err))
		fail_msg("%s", err.msg);
	d = (struct gs_kload_desc){ .name = p->name, .type = BPF_PROG_TYPE_KPROBE,
				    .maps = p->maps, .nmaps = p->nmaps, .btf = p->btf };
	gs_kload_init(&k);
	if (gs_kload_create_maps(&k, &d, &err) || gs_kload_prog(&k, &d, &p->main, &err))
		fail_msg("%s", err.msg);
	printf("BENCH kernel.verified_insns.bt20 %u insns\n", k.verified_insns);
	printf("verified_insns cg_many_bt20.loop %zu %u\n", p->main.len, k.verified_insns);
	fflush(stdout);
	assert_true(k.verified_insns <= VERIFIED_INSNS_BOUND);
	gs_kload_fini(&k);
	gs_program_free(p);
}

/* Counting in BPF: `bt;` whose program adds to stack_counts instead of
 * emitting, its key pointing into the accumulation buffer, verified at the
 * default depth and the deepest. */
static void test_stack_counting_program_passes_the_verifier(void **state)
{
	static const uint32_t depths[] = { GS_BT_DEFAULT_DEPTH, GS_BT_LOOP_MAX_DEPTH };
	const struct gs_error *no_bpf = *state;
	static const struct gs_stmt one_bt = { .kind = GS_STMT_BACKTRACE };
	struct gs_trace_spec spec = many;

	if (no_bpf) {
		print_message("skipped: %s\n", no_bpf->msg);
		skip();
	}
	spec.body = &one_bt;
	spec.nbody = 1;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(depths); i++) {
		struct gs_program_opts o = { .sz = sizeof(o), .unwinder = GS_UNWINDER_LOOP,
					     .backtrace_depth = depths[i], .count_stacks = true };
		struct gs_program *p;
		struct gs_kload k;
		struct gs_kload_desc d;
		struct gs_error err;
		const struct gs_map_spec *m;

		if (gs_program_build(&spec, &o, &p, &err))
			fail_msg("%s", err.msg);
		m = &p->maps[p->map_index[GS_MAP_STACK_COUNTS]];
		assert_int_equal(m->key_size, 12 + 12 + 16 * 32 + 8 * depths[i]);
		assert_int_equal(m->max_entries, GS_DEFAULT_STACK_COUNTS_MAX);
		d = (struct gs_kload_desc){ .name = p->name, .type = BPF_PROG_TYPE_KPROBE,
					    .maps = p->maps, .nmaps = p->nmaps, .btf = p->btf };
		gs_kload_init(&k);
		if (gs_kload_create_maps(&k, &d, &err) || gs_kload_prog(&k, &d, &p->main, &err)) {
			if (k.log)
				fprintf(stderr, "%s\n", gs_kload_log_tail(k.log, LOG_TAIL_LINES));
			fail_msg("count_stacks depth %u: %s", depths[i], err.msg);
		}
		printf("verified_insns cg_count_stacks_depth%u.loop %zu %u\n", depths[i],
		       p->main.len, k.verified_insns);
		fflush(stdout);
		gs_kload_fini(&k);
		gs_program_free(p);
	}
}

/* CPU samples (gs_trace_spec.sample): the perf_event program of each
 * scope, with and without the kernel stack, counting in BPF and emitting,
 * at the default depth and the deepest. */
static void test_sampling_programs_pass_the_verifier(void **state)
{
	static const uint8_t scopes[] = { GS_SAMPLE_PID, GS_SAMPLE_KNOWN, GS_SAMPLE_ALL };
	static const struct gs_bt_probe anywhere = { .module_ranges = true, .nrows = 1000 };
	const struct gs_error *no_bpf = *state;

	if (no_bpf) {
		print_message("skipped: %s\n", no_bpf->msg);
		skip();
	}
	for (size_t i = 0; i < 3 * 2 * 2 * 2; i++) {
		uint8_t scope = scopes[i % 3];
		bool kernel = (i / 3) % 2, count = (i / 6) % 2;
		uint32_t depth = (i / 12) % 2 ? GS_BT_LOOP_MAX_DEPTH : GS_BT_DEFAULT_DEPTH;
		struct gs_stmt bt = { .kind = GS_STMT_BACKTRACE,
				      .bt_flags = kernel ? GS_BT_FLAG_KERNEL : 0 };
		struct gs_trace_spec spec = { .trace_id = 1, .target = "profile", .body = &bt,
					      .nbody = 1, .bt = &anywhere, .sample = scope };
		struct gs_program_opts o = { .sz = sizeof(o), .unwinder = GS_UNWINDER_LOOP,
					     .backtrace_depth = depth, .count_stacks = count,
					     .filter_pid = scope == GS_SAMPLE_PID ? 4242 : 0 };
		struct gs_program *p;
		struct gs_kload k;
		struct gs_kload_desc d;
		struct gs_error err;

		if (gs_program_build(&spec, &o, &p, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(p->prog_type, BPF_PROG_TYPE_PERF_EVENT);
		if (count)
			assert_int_equal(p->maps[p->map_index[GS_MAP_STACK_COUNTS]].key_size,
					 12 + 12 + 16 * 32 + 8 * depth +
					 (kernel ? 4 + 8 + 8 * GS_KSTACK_DEPTH : 0));
		d = (struct gs_kload_desc){ .name = p->name, .type = BPF_PROG_TYPE_PERF_EVENT,
					    .maps = p->maps, .nmaps = p->nmaps, .btf = p->btf };
		gs_kload_init(&k);
		if (gs_kload_create_maps(&k, &d, &err) || gs_kload_prog(&k, &d, &p->main, &err)) {
			if (k.log)
				fprintf(stderr, "%s\n", gs_kload_log_tail(k.log, LOG_TAIL_LINES));
			fail_msg("sample scope %u kernel %d count %d depth %u: %s", scope, kernel,
				 count, depth, err.msg);
		}
		printf("verified_insns cg_sample_scope%u%s%s_depth%u.loop %zu %u\n", scope,
		       kernel ? "_kstack" : "", count ? "_count" : "", depth, p->main.len,
		       k.verified_insns);
		fflush(stdout);
		gs_kload_fini(&k);
		gs_program_free(p);
	}
}

/* The tail-call generator builds any number of bt statements: jumps past
 * 16 bits are widened (its verification cost still grows per statement). */
static void test_twenty_bt_statements_build_with_the_tail_call_walker(void **state)
{
	struct gs_program_opts o = { .sz = sizeof(o) };
	struct gs_program *p;
	struct gs_error err;

	(void)state;
	for (size_t i = 0; i < MANY_BT; i++)
		many_body[i] = (struct gs_stmt){ .kind = GS_STMT_BACKTRACE };
	if (gs_program_build(&many, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_true(p->main.len > 32768);
	assert_true(p->main.relaxed > 0);
	gs_program_free(p);
}

int main(void)
{
	size_t n = (gs_cg_ncases + gs_cg_value_ncases) * VARIANTS;
	struct kernel_case *cases = calloc(n, sizeof(*cases));
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	struct gs_error bpf_err;
	bool no_bpf = gs_kload_bpf_permitted(&bpf_err) != 0;
	int failed;

	if (!cases || !tests)
		return 1;
	for (size_t i = 0; i < n; i++) {
		struct kernel_case *kc = &cases[i];

		size_t at = i / VARIANTS;

		kc->c = at < gs_cg_ncases ? &gs_cg_cases[at] : &gs_cg_value_cases[at - gs_cg_ncases];
		kc->output = i % VARIANTS == 1 ? GS_OUTPUT_PERF : GS_OUTPUT_RINGBUF;
		kc->sleepable = i % VARIANTS == 2;
		kc->no_bpf = no_bpf ? &bpf_err : NULL;
		kc->no_sleep = no_bpf || gs_sleepable_uprobe_supported() ? NULL :
			       "this kernel loads no sleepable uprobe programs (Linux 6.0+)";
		snprintf(kc->name, sizeof(kc->name), "cg_%s.%s", kc->c->name,
			 kc->sleepable ? "sleepable" : kc->output == GS_OUTPUT_PERF ? "perf" :
			 "ringbuf");
		tests[i].name = kc->name;
		tests[i].test_func = test_generated_program_passes_the_verifier;
		tests[i].initial_state = kc;
	}
	failed = _cmocka_run_group_tests("kernel-codegen", tests, n, NULL, NULL);
	{
		const struct CMUnitTest many_tests[] = {
			cmocka_unit_test_prestate(test_twenty_bt_statements_verify_once,
						  no_bpf ? &bpf_err : NULL),
			cmocka_unit_test(test_twenty_bt_statements_build_with_the_tail_call_walker),
			cmocka_unit_test_prestate(test_stack_counting_program_passes_the_verifier,
						  no_bpf ? &bpf_err : NULL),
			cmocka_unit_test_prestate(test_sampling_programs_pass_the_verifier,
						  no_bpf ? &bpf_err : NULL),
		};

		failed += cmocka_run_group_tests_name("kernel-codegen-many-bt", many_tests, NULL,
						      NULL);
	}
	free(tests);
	free(cases);
	/* Every test skipped: tell meson so (exit 77) instead of "passed". */
	return no_bpf && failed == 0 ? 77 : failed;
}
