/* The base library: the arena's alignment, zeroing, big blocks and
 * strings, the growable array's doubling and overflow refusal, and the
 * small helpers (array size, prefixes, the lower-bound search, the clock). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base.h"

static void test_arena_aligns_and_zeroes(void **state)
{
	struct gs_arena *a = NULL;
	char *s;

	(void)state;
	s = base_arena_strndup(&a, "x", 1); /* leaves the block unaligned */
	assert_non_null(s);
	for (size_t n = 1; n < 100; n += 7) {
		unsigned char *p = base_arena_alloc(&a, n);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(p[i], 0);
		memset(p, 0xa5, n);
	}
	assert_string_equal(s, "x");
	assert_non_null(base_arena_alloc(&a, 0));
	base_arena_free(&a);
	assert_null(a);
	base_arena_free(&a); /* an empty arena frees to nothing */
}

static void test_big_block_keeps_the_current_one(void **state)
{
	struct gs_arena *a = NULL;
	char *small, *big, *next;

	(void)state;
	small = base_arena_alloc(&a, 16);
	big = base_arena_alloc(&a, 1 << 20);
	next = base_arena_alloc(&a, 16);
	assert_non_null(small);
	assert_non_null(big);
	assert_non_null(next);
	/* the small allocations share the first block, after the big one */
	assert_true(next > small && next - small < 256);
	memset(big, 1, 1 << 20);
	assert_null(base_arena_alloc(&a, SIZE_MAX - 8));
	base_arena_free(&a);
}

static void test_strings(void **state)
{
	struct gs_arena *a = NULL;
	char longer[1000];
	char *s;

	(void)state;
	assert_string_equal(base_arena_strdup(&a, NULL), "");
	assert_string_equal(base_arena_strndup(&a, "abcdef", 3), "abc");
	assert_string_equal(base_arena_format(&a, "%s-%d", "t", 42), "t-42");
	memset(longer, 'q', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	s = base_arena_format(&a, "<%s>", longer); /* past the 256-byte first try */
	assert_non_null(s);
	assert_int_equal(strlen(s), sizeof(longer) + 1);
	assert_int_equal(s[0], '<');
	assert_int_equal(s[sizeof(longer)], '>');
	base_arena_free(&a);
}

static void test_arena_grow(void **state)
{
	struct gs_arena *a = NULL;
	int *v = NULL;
	size_t cap = 0;

	(void)state;
	for (size_t n = 0; n < 1000; n++) {
		assert_int_equal(base_arena_grow(&a, &v, &cap, n, sizeof(*v)), 0);
		assert_true(cap > n);
		v[n] = (int)n;
	}
	for (size_t n = 0; n < 1000; n++)
		assert_int_equal(v[n], (int)n);
	base_arena_free(&a);
}

static void test_grow_doubles_and_refuses_overflow(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(base_grow((void **)&v, &cap, 1, sizeof(*v)), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(base_grow((void **)&v, &cap, 16, sizeof(*v)), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(base_grow((void **)&v, &cap, 17, sizeof(*v)), 0);
	assert_int_equal(cap, 32);
	assert_int_equal(base_grow((void **)&v, &cap, 33, sizeof(*v)), 0);
	assert_int_equal(cap, 64);
	v[32] = 7;
	assert_int_equal(base_grow((void **)&v, &cap, SIZE_MAX / 4, sizeof(*v)), -ENOMEM);
	assert_int_equal(cap, 64);
	assert_int_equal(v[32], 7);
	base_shrink((void **)&v, &cap, 33, sizeof(*v));
	assert_int_equal(cap, 33);
	assert_int_equal(v[32], 7);
	free(v);
}

static void test_array_size(void **state)
{
	static const int three[3];
	const char word[] = "four";

	(void)state;
	assert_int_equal(BASE_ARRAY_SIZE(three), 3);
	assert_int_equal(BASE_ARRAY_SIZE(word), 5);
}

static void test_prefixes(void **state)
{
	(void)state;
	assert_true(base_has_prefix("usdt:python", "usdt:"));
	assert_true(base_has_prefix("x", ""));
	assert_false(base_has_prefix("us", "usdt:"));
	assert_string_equal(base_after_prefix("usdt:python", "usdt:"), "python");
	assert_string_equal(base_after_prefix("usdt:", "usdt:"), "");
	assert_null(base_after_prefix("uprobe:f", "usdt:"));
}

static bool below_key(const void *ctx, size_t i)
{
	static const int sorted[] = { 1, 3, 3, 3, 7, 9 };
	const int *key = ctx;

	return sorted[i] < *key;
}

static void test_lower_bound(void **state)
{
	static const struct {
		int key;
		size_t at;
	} cases[] = { { 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 1 }, { 4, 4 }, { 8, 5 }, { 9, 5 },
		      { 10, 6 } };

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++)
		assert_int_equal(base_lower_bound(0, 6, &cases[i].key, below_key), cases[i].at);
	/* a sub-range: the search never looks outside it */
	assert_int_equal(base_lower_bound(2, 4, &cases[0].key, below_key), 2);
	assert_int_equal(base_lower_bound(2, 4, &cases[7].key, below_key), 4);
	assert_int_equal(base_lower_bound(3, 3, &cases[0].key, below_key), 3);
}

static void test_clock(void **state)
{
	int64_t a = base_now_ns(), ms = base_now_ms(), b = base_now_ns();

	(void)state;
	assert_true(a > 0);
	assert_true(b >= a); /* monotonic */
	assert_true(ms >= a / 1000000 && ms <= b / 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arena_aligns_and_zeroes),
		cmocka_unit_test(test_big_block_keeps_the_current_one),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_arena_grow),
		cmocka_unit_test(test_grow_doubles_and_refuses_overflow),
		cmocka_unit_test(test_array_size),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_lower_bound),
		cmocka_unit_test(test_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
