/* gs_output_default_size(): the output buffer a plan chooses when the
 * caller names none. Room for GS_OUTPUT_EVENTS of the largest event (with
 * the record header), a power of two, never under GS_OUTPUT_MIN_SIZE nor
 * over GS_OUTPUT_MAX_SIZE, and many buffers share GS_OUTPUT_TOTAL_MAX. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gs/map_abi.h>
#include <gs/runtime.h>

#define KiB 1024u
#define MiB (1024u * 1024u)

static void test_no_events_or_small_events_get_the_minimum(void **state)
{
	(void)state;
	assert_int_equal(gs_output_default_size(0, 1), GS_OUTPUT_MIN_SIZE);
	assert_int_equal(gs_output_default_size(0, 1000), GS_OUTPUT_MIN_SIZE);
	/* 24 + 8 bytes x 8192 = 256 KiB exactly */
	assert_int_equal(gs_output_default_size(24, 1), 256 * KiB);
	assert_int_equal(GS_OUTPUT_MIN_SIZE, GS_DEFAULT_RINGBUF_SIZE);
}

static void test_room_for_the_largest_event_rounded_to_a_power_of_two(void **state)
{
	(void)state;
	/* 25 bytes: a 40-byte record (8-aligned) x 8192 = 320 KiB -> 512 KiB */
	assert_int_equal(gs_output_default_size(25, 1), 512 * KiB);
	/* a 16-frame backtrace event (436 bytes): 448 x 8192 = 3.5 MiB -> 4 MiB */
	assert_int_equal(gs_output_default_size(436, 1), 4 * MiB);
	/* 504 + 8 = 512 bytes x 8192 = 4 MiB exactly */
	assert_int_equal(gs_output_default_size(504, 1), 4 * MiB);
	/* one byte more would want 8 MiB: the maximum */
	assert_int_equal(gs_output_default_size(505, 1), GS_OUTPUT_MAX_SIZE);
	assert_int_equal(gs_output_default_size(120, 1), 1 * MiB);
	assert_int_equal(gs_output_default_size(248, 1), 2 * MiB);
	for (uint32_t e = 1; e < 40000; e += 97) {
		uint32_t size = gs_output_default_size(e, 1);

		assert_int_equal(size & (size - 1), 0);
		assert_true(size >= GS_OUTPUT_MIN_SIZE && size <= GS_OUTPUT_MAX_SIZE);
		if (size < GS_OUTPUT_MAX_SIZE)
			assert_true((uint64_t)size >= (uint64_t)(e + 8) * GS_OUTPUT_EVENTS);
	}
}

static void test_the_largest_events_stop_at_the_maximum(void **state)
{
	(void)state;
	/* a 128-frame backtrace (1588 bytes) would want 12.5 MiB: 4 MiB */
	assert_int_equal(gs_output_default_size(1588, 1), 4 * MiB);
	assert_int_equal(gs_output_default_size(32768, 1), GS_OUTPUT_MAX_SIZE);
	assert_int_equal(gs_output_default_size(UINT32_MAX, 1), GS_OUTPUT_MAX_SIZE);
}

static void test_many_buffers_share_the_total(void **state)
{
	(void)state;
	assert_int_equal(gs_output_default_size(32768, 4), 4 * MiB);
	assert_int_equal(gs_output_default_size(32768, 5), 2 * MiB);
	assert_int_equal(gs_output_default_size(32768, 16), 1 * MiB);
	assert_int_equal(gs_output_default_size(32768, 64), GS_OUTPUT_MIN_SIZE);
	/* the share never goes under the minimum, whatever the count */
	assert_int_equal(gs_output_default_size(32768, 100000), GS_OUTPUT_MIN_SIZE);
	/* a share larger than the event needs changes nothing */
	assert_int_equal(gs_output_default_size(436, 4), 4 * MiB);
	assert_int_equal(gs_output_default_size(436, 5), 2 * MiB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_events_or_small_events_get_the_minimum),
		cmocka_unit_test(test_room_for_the_largest_event_rounded_to_a_power_of_two),
		cmocka_unit_test(test_the_largest_events_stop_at_the_maximum),
		cmocka_unit_test(test_many_buffers_share_the_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
