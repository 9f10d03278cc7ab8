/* Kernel suite for the code generator: every spec of cg_specs.c, in
 * ringbuf and perf mode, loaded as a uprobe (KPROBE-type) program through
 * the real verifier with the reference's map sizes. Prints one line per
 * program: `verified_insns <name> <insns> <verified_insns>`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <gs/disasm.h>

#include "cg_specs.h"
#include "kernel/kload.h"

#define LOG_TAIL_LINES 30

struct kernel_case {
	const struct gs_cg_case *c;
	enum gs_output_kind output;
	const struct gs_error *no_bpf;
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
	if (gs_program_build(kc->c->spec, &o, &p, &err))
		fail_msg("%s: %s", kc->name, err.msg);
	d = (struct gs_kload_desc){ .name = p->name, .type = BPF_PROG_TYPE_KPROBE,
				    .maps = p->maps, .nmaps = p->nmaps, .btf = &p->btf };
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
		if (gs_kload_prog(&k, &d, &p->step, &err)) {
			fprintf(stderr, "%s\n--- %s ---\n", err.msg, step);
			gs_asm_dump(&p->step, stderr);
			fprintf(stderr, "--- last %d lines of the verifier log ---\n%s\n",
				LOG_TAIL_LINES, gs_kload_log_tail(k.log, LOG_TAIL_LINES));
			gs_kload_fini(&k);
			gs_program_free(p);
			fail_msg("%s was not loaded", step);
		}
		printf("verified_insns %s %zu %u\n", step, p->step.len, k.verified_insns);
	}
	fflush(stdout);
	gs_kload_fini(&k);
	gs_program_free(p);
}

int main(void)
{
	size_t n = gs_cg_ncases * 2;
	struct kernel_case *cases = calloc(n, sizeof(*cases));
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	struct gs_error bpf_err;
	bool no_bpf = gs_kload_bpf_permitted(&bpf_err) != 0;
	int failed;

	if (!cases || !tests)
		return 1;
	for (size_t i = 0; i < n; i++) {
		struct kernel_case *kc = &cases[i];

		kc->c = &gs_cg_cases[i / 2];
		kc->output = i % 2 ? GS_OUTPUT_PERF : GS_OUTPUT_RINGBUF;
		kc->no_bpf = no_bpf ? &bpf_err : NULL;
		snprintf(kc->name, sizeof(kc->name), "cg_%s.%s", kc->c->name,
			 kc->output == GS_OUTPUT_PERF ? "perf" : "ringbuf");
		tests[i].name = kc->name;
		tests[i].test_func = test_generated_program_passes_the_verifier;
		tests[i].initial_state = kc;
	}
	failed = _cmocka_run_group_tests("kernel-codegen", tests, n, NULL, NULL);
	free(tests);
	free(cases);
	/* Every test skipped: tell meson so (exit 77) instead of "passed". */
	return no_bpf && failed == 0 ? 77 : failed;
}
