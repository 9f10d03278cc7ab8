/* Names as frames show them: C++ (Itanium) and Rust (legacy and v0)
 * demangled without their parameter lists, C names left alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "ev_int.h"

struct name_case {
	const char *linkage;
	const char *shown; /* NULL: not a mangled name, shown as it is */
};

static void test_names_of_each_language(void **state)
{
	static const struct name_case cases[] = {
		{ "_ZN1A2goEi", "A::go" },
		{ "_ZN2ns4workIiEEvT_", "ns::work<int>" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back" },
		/* Rust legacy: the hash suffix dropped, as gdb shows it */
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		/* Rust v0 */
		{ "_RNvCs1234_7mycrate3foo", "mycrate::foo" },
		{ "_RNvNtCs1234_7mycrate5inner3bar", "mycrate::inner::bar" },
		{ "main", NULL },
		{ "_start", NULL },
		{ "_Rfoo", NULL },     /* _R without a valid v0 path */
		{ "_Zbad", NULL },     /* _Z that does not parse */
		{ "", NULL },
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		char *got = ev_demangle(cases[i].linkage);

		if (!cases[i].shown) {
			if (got)
				fail_msg("%s: demangled to %s, want it left alone", cases[i].linkage, got);
			continue;
		}
		if (!got || strcmp(got, cases[i].shown))
			fail_msg("%s: got %s, want %s", cases[i].linkage, got ? got : "(null)",
				 cases[i].shown);
		free(got);
	}
	assert_null(ev_demangle(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_of_each_language),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
