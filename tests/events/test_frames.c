/* The frame resolver on this test's own process: frames in two modules
 * (the test binary and libc) resolved in the order the folded and
 * aggregate paths use, caller first, so looking up the callee's module
 * while a caller's is held must not move what the caller holds. Run under
 * ASan in CI, where a moved module array is a use-after-free. And JIT
 * frames: a pc in this process's anonymous executable memory is named
 * from its perf map, never from a module. */
#include <dlfcn.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

static void test_anonymous_code_is_named_from_the_perf_map(void **state)
{
	struct gs_frames_opts o = { .sz = sizeof(o), .pid = getpid() };
	struct gs_event ev = { .pid = (uint32_t)getpid() };
	struct gs_backtrace_frame f[2];
	struct gs_stack st;
	struct gs_frames *fr;
	struct gs_inst bt;
	char path[64];
	uint64_t code;
	FILE *map;
	void *page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(page != MAP_FAILED);
	code = (uint64_t)(uintptr_t)page;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	assert_non_null(map);
	fprintf(map, "%" PRIx64 " 40 JS:*jitLeaf /srv/app/x.js:8:17\n", code);
	fclose(map);
	memset(f, 0, sizeof(f));
	f[0].pc = f[0].raw_ip = code + 0x10;
	f[1].pc = f[1].raw_ip = code + 4096 + 8; /* no entry: anonymous JIT memory */
	bt = raw_bt(f, 2);
	ev.insts = &bt;
	ev.ninsts = 1;
	assert_int_equal(gs_frames_new(&o, &fr, NULL), 0);
	gs_frames_stack(fr, &ev, &bt, &st);
	unlink(path);
	assert_int_equal(st.count, 2);
	assert_false(st.frames[0].native.resolved);
	assert_int_equal(st.frames[0].kind, GS_FRAME_JIT);
	assert_string_equal(st.frames[0].function, "JS:*jitLeaf /srv/app/x.js:8:17");
	assert_int_equal(st.frames[0].offset, 0x10);
	assert_false(st.frames[1].native.resolved);
	assert_int_equal(st.frames[1].kind, GS_FRAME_JIT);
	assert_null(st.frames[1].function);
	gs_frames_free(fr);
	munmap(page, 2 * 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caller_resolved_before_callee_module_is_known),
		cmocka_unit_test(test_anonymous_code_is_named_from_the_perf_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
