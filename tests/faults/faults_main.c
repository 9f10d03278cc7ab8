/* Runs one faults scenario by name (`test_faults escape-output`) as a
 * cmocka test, or lists them (`--list`). Exit 77 (meson: skipped) with the
 * reason when this machine cannot run it: not root, no uprobes, no gstrace
 * binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "faults.h"

static const char *skip_reason;

static void run_scenario(void **state)
{
	const struct e2e_scenario *s = *state;
	struct e2e_ctx c = { .scenario = s->name };
	double t0 = e2e_now();

	s->run(&c);
	printf("%s", e2e_buf_str(&c.log));
	printf("scenario %s: %u failure(s) in %.2f s\n", s->name, c.failures, e2e_now() - t0);
	fflush(stdout);
	e2e_buf_free(&c.log);
	if (c.skip) {
		skip_reason = c.skip;
		skip();
	}
	if (c.failures)
		fail_msg("%s: %u expectation(s) failed (see FAIL lines above)", s->name, c.failures);
}

static const struct {
	const struct e2e_scenario *v;
	const size_t *n;
} tables[] = {
	{ faults_output_scenarios, &faults_output_nscenarios },
	{ faults_teardown_scenarios, &faults_teardown_nscenarios },
	{ faults_input_scenarios, &faults_input_nscenarios },
	{ faults_target_scenarios, &faults_target_nscenarios },
};

static const struct e2e_scenario *find(const char *name)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (size_t i = 0; i < *tables[t].n; i++)
			if (strcmp(tables[t].v[i].name, name) == 0)
				return &tables[t].v[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct e2e_scenario *s;
	const char *why;
	struct CMUnitTest tests[1];
	int rc;

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
			for (size_t i = 0; i < *tables[t].n; i++)
				printf("%s\n", tables[t].v[i].name);
		return 0;
	}
	if (argc != 2 || !(s = find(argv[1]))) {
		fprintf(stderr, "usage: %s SCENARIO | --list\n", argv[0]);
		return 2;
	}
	why = e2e_why_no_gstrace();
	if (!why && (s->needs & E2E_NEED_TRACING))
		why = e2e_why_no_tracing();
	if (why) {
		printf("SKIP %s: %s\n", s->name, why);
		return 77;
	}
	memset(tests, 0, sizeof(tests));
	tests[0].name = s->name;
	tests[0].test_func = run_scenario;
	tests[0].initial_state = (void *)s;
	rc = _cmocka_run_group_tests("faults", tests, 1, NULL, NULL);
	if (skip_reason) {
		printf("SKIP %s: %s\n", s->name, skip_reason);
		return 77;
	}
	return rc ? 1 : 0;
}
