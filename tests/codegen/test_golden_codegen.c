/* Golden suite for the code generator: every spec of cg_specs.c, in
 * ringbuf and perf mode, dumped and compared with
 * tests/golden/cg_<name>.<mode>.txt; and the specs that read user memory
 * in each way (fixed, NUL-terminated, run-time length) once more with
 * reads that fault pages in: cg_<name>.sleepable.txt. */
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <gs/internal/program.h>
#include <gs/disasm.h>

#include "base.h"
#include "cg_specs.h"
#include "golden/golden.h"

struct golden_case {
	const struct gs_cg_case *c;
	enum gs_output_kind output;
	bool fault_in;
	char name[96];
};

/* The specs whose reads cover every path of the fault-in retry. */
static const char *const sleepable_specs[] = { "user_read", "val_strings", "val_runtime_len" };

/* The main program, then the backtrace step program and the entry
 * program of $duration when there are. */
static char *dump(const struct gs_program *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	gs_asm_dump(&p->main, f);
	if (p->has_step) {
		fprintf(f, "\n; step program %s\n", p->step_name);
		gs_asm_dump(p->step, f);
	}
	if (p->entry) {
		fprintf(f, "\n; entry program %s\n", p->entry_name);
		gs_asm_dump(p->entry, f);
	}
	fclose(f);
	return text;
}

static void test_generated_program_matches_golden_file(void **state)
{
	struct golden_case *g = *state;
	struct gs_program_opts o = gs_cg_case_opts(g->c, g->output);
	struct gs_program *p;
	struct gs_error err;
	char *text;

	o.fault_in = g->fault_in;
	if (gs_program_build(g->c->spec, &o, &p, &err))
		fail_msg("%s: %s", g->name, err.msg);
	text = dump(p);
	assert_non_null(text);
	if (gs_golden_check(g->name, text))
		fail_msg("%s differs from its golden file", g->name);
	free(text);
	gs_program_free(p);
}

int main(void)
{
	size_t nsleep = BASE_ARRAY_SIZE(sleepable_specs);
	size_t n = (gs_cg_ncases + gs_cg_value_ncases) * 2 + nsleep;
	struct golden_case *cases = calloc(n, sizeof(*cases));
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	int failed;

	if (!cases || !tests)
		return 1;
	for (size_t i = 0; i < n - nsleep; i++) {
		struct golden_case *g = &cases[i];

		g->c = i / 2 < gs_cg_ncases ? &gs_cg_cases[i / 2] :
			&gs_cg_value_cases[i / 2 - gs_cg_ncases];
		g->output = i % 2 ? GS_OUTPUT_PERF : GS_OUTPUT_RINGBUF;
		snprintf(g->name, sizeof(g->name), "cg_%s.%s", g->c->name,
			 g->output == GS_OUTPUT_PERF ? "perf" : "ringbuf");
		tests[i].name = g->name;
		tests[i].test_func = test_generated_program_matches_golden_file;
		tests[i].initial_state = g;
	}
	for (size_t k = 0; k < nsleep; k++) {
		struct golden_case *g = &cases[n - nsleep + k];

		for (size_t i = 0; i < n - nsleep; i += 2)
			if (strcmp(cases[i].c->name, sleepable_specs[k]) == 0)
				g->c = cases[i].c;
		if (!g->c)
			return 1;
		g->output = GS_OUTPUT_RINGBUF;
		g->fault_in = true;
		snprintf(g->name, sizeof(g->name), "cg_%s.sleepable", g->c->name);
		tests[n - nsleep + k] = (struct CMUnitTest){ .name = g->name,
			.test_func = test_generated_program_matches_golden_file, .initial_state = g };
	}
	failed = _cmocka_run_group_tests("golden-codegen", tests, n, NULL, NULL);
	free(tests);
	free(cases);
	return failed;
}
