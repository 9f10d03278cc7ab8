/* Golden suite for the assembler: every sample program is built, dumped in
 * the label form (gs_asm_dump) and compared with tests/golden/asm_<name>.txt. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <gs/internal/asm.h>
#include <gs/disasm.h>

#include "golden/golden.h"
#include "progs/sample_progs.h"

static void test_program_dump_matches_golden_file(void **state)
{
	const struct gs_test_prog *prog = *state;
	struct gs_asm a;
	struct gs_error err;
	char name[256];
	char *text;

	gs_asm_init(&a);
	if (gs_test_prog_build(prog, &a, &err) != 0)
		fail_msg("%s: %s", prog->name, err.msg);
	text = gs_asm_dump_str(&a);
	assert_non_null(text);
	snprintf(name, sizeof(name), "asm_%s", prog->name);
	if (gs_golden_check(name, text) != 0)
		fail_msg("%s: dump differs from tests/golden/%s.txt", prog->name, name);
	free(text);
	gs_asm_fini(&a);
}

int main(void)
{
	struct CMUnitTest *tests = calloc(gs_test_nprogs, sizeof(*tests));
	int failed;

	if (!tests)
		return 1;
	for (size_t i = 0; i < gs_test_nprogs; i++) {
		tests[i].name = gs_test_progs[i].name;
		tests[i].test_func = test_program_dump_matches_golden_file;
		tests[i].initial_state = (void *)&gs_test_progs[i];
	}
	failed = _cmocka_run_group_tests("golden-asm", tests, gs_test_nprogs, NULL, NULL);
	free(tests);
	return failed;
}
