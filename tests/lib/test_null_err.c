/* Every libgs call accepts a NULL `struct gs_error *` (gs/error.h): the
 * failure is then only the return code. Here the code generator's string
 * and name tables fail to add an entry (strdup is wrapped at link time to
 * fail for one marker text, as it would out of memory): building with err
 * NULL must return that failure, not crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include <gs/program.h>

#define FAILING_TEXT "no memory for this one"

char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);

char *__wrap_strdup(const char *s)
{
	return strcmp(s, FAILING_TEXT) == 0 ? NULL : __real_strdup(s);
}

static void check_fails_without_err(enum gs_stmt_kind kind)
{
	const struct gs_expr value = { .kind = GS_EXPR_INT, .text = FAILING_TEXT, .value = 1 };
	const struct gs_stmt body[] = {
		{ .kind = GS_STMT_PRINT_STRING, .text = "fine" },
		{ .kind = kind, .text = FAILING_TEXT, .expr = &value },
	};
	const struct gs_trace_spec spec = { .target = "t", .body = body, .nbody = 2 };
	struct gs_program *p = (struct gs_program *)1;
	struct gs_error err;

	assert_int_equal(gs_program_build(&spec, NULL, &p, NULL), -ENOMEM);
	assert_null(p);
	/* With an error out, the same failure says what it is. */
	assert_int_equal(gs_program_build(&spec, NULL, &p, &err), -ENOMEM);
	assert_non_null(strstr(err.msg, "out of memory adding"));
}

static void test_string_table_failure_with_null_err_returns_the_error(void **state)
{
	(void)state;
	check_fails_without_err(GS_STMT_PRINT_STRING);
}

static void test_name_table_failure_with_null_err_returns_the_error(void **state)
{
	(void)state;
	check_fails_without_err(GS_STMT_PRINT_EXPR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_string_table_failure_with_null_err_returns_the_error),
		cmocka_unit_test(test_name_table_failure_with_null_err_returns_the_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
