/* The scenario runner shared by the e2e and faults suites: runs one
 * scenario by name as a cmocka test, or lists them (`--list`). Exit 77
 * (meson: skipped) with the reason when the machine cannot run it: not
 * root, no uprobes, no gdb, no gstrace binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "e2e.h"

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

static const struct e2e_scenario *find(const struct e2e_table *t, size_t nt, const char *name)
{
	for (size_t k = 0; k < nt; k++)
		for (size_t i = 0; i < *t[k].n; i++)
			if (strcmp(t[k].v[i].name, name) == 0)
				return &t[k].v[i];
	return NULL;
}

static const char *why_not(const struct e2e_scenario *s)
{
	const char *why = e2e_why_no_gstrace();

	if (!why && (s->needs & E2E_NEED_TRACING))
		why = e2e_why_no_tracing();
	if (!why && (s->needs & E2E_NEED_GDB))
		why = e2e_why_no_gdb();
	return why;
}

int e2e_main(int argc, char **argv, const char *suite, const struct e2e_table *t, size_t nt)
{
	const struct e2e_scenario *s;
	const char *why;
	struct CMUnitTest tests[1];
	int rc;

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (size_t k = 0; k < nt; k++)
			for (size_t i = 0; i < *t[k].n; i++)
				printf("%s\n", t[k].v[i].name);
		return 0;
	}
	if (argc != 2 || !(s = find(t, nt, argv[1]))) {
		fprintf(stderr, "usage: %s SCENARIO | --list\n", argv[0]);
		return 2;
	}
	why = why_not(s);
	if (why) {
		printf("SKIP %s: %s\n", s->name, why);
		return 77;
	}
	memset(tests, 0, sizeof(tests));
	tests[0].name = s->name;
	tests[0].test_func = run_scenario;
	tests[0].initial_state = (void *)s;
	rc = _cmocka_run_group_tests(suite, tests, 1, NULL, NULL);
	if (skip_reason) {
		printf("SKIP %s: %s\n", s->name, skip_reason);
		return 77;
	}
	return rc ? 1 : 0;
}
