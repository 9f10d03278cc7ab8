/* The frame resolver on this test's own process: frames in two modules
 * (the test binary and libc) resolved in the order the folded and
 * aggregate paths use, caller first, so looking up the callee's module
 * while a caller's is held must not move what the caller holds. Run under
 * ASan in CI, where a moved module array is a use-after-free. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/frames.h>

__attribute__((noinline)) static int frames_anchor(int x)
{
	return x * 3 + 1;
}

/* A backtrace instruction of frames at these raw addresses (modules
 * unknown to the walker: cookie 0, pc = raw ip). */
static struct gs_inst raw_bt(const struct gs_backtrace_frame *f, uint16_t n)
{
	struct gs_inst bt = { .type = GS_INST_BACKTRACE };

	bt.backtrace.requested_depth = n;
	bt.backtrace.frame_count = n;
	bt.backtrace.status = GS_BT_COMPLETE;
	bt.backtrace.frames = f;
	return bt;
}

static void test_caller_resolved_before_callee_module_is_known(void **state)
{
	struct gs_frames_opts o = { .sz = sizeof(o), .pid = getpid() };
	struct gs_backtrace_frame f[2];
	struct gs_event ev = { .pid = (uint32_t)getpid() };
	struct gs_frames *fr;
	struct gs_frame r1, r0;
	struct gs_inst bt;
	/* Frame 0 in libc, frame 1 in this binary, both one past a call. */
	uint64_t in_libc = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid") + 1;
	uint64_t in_test = (uint64_t)(uintptr_t)&frames_anchor + 1;

	(void)state;
	assert_int_equal(frames_anchor(1), 4);
	memset(f, 0, sizeof(f));
	f[0].pc = f[0].raw_ip = in_libc;
	f[1].pc = f[1].raw_ip = in_test;
	bt = raw_bt(f, 2);
	assert_int_equal(gs_frames_new(&o, &fr, NULL), 0);
	/* The caller first: its module is added, then the callee's while the
	 * caller's is still in use. */
	gs_frames_resolve(fr, &ev, &bt, 1, &r1);
	gs_frames_resolve(fr, &ev, &bt, 0, &r0);
	assert_true(r1.resolved);
	assert_true(r0.resolved);
	assert_string_not_equal(r1.module, r0.module);
	assert_non_null(r1.function);
	assert_string_equal(r1.function, "frames_anchor");
	gs_frames_free(fr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caller_resolved_before_callee_module_is_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
