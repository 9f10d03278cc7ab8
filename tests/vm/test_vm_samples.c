/* The shared sample programs (tests/progs) run in the VM: each returns what
 * its comment promises -- the same values the kernel suite checks under
 * BPF_PROG_TEST_RUN -- the output samples emit exactly their bytes, and the
 * broken samples stop the VM on the path that breaks them. */
#include <stdio.h>
#include <string.h>

#include <gs/internal/program.h>
#include <gs/asm.h>

#include "base.h"
#include "progs/sample_progs.h"
#include "vm_test.h"

#define SKB_LEN_VALUE 64 /* skb->len of the socket filters' ctx */

/* What each program returns on its first run over fresh maps, worked out
 * by hand from its comment (little-endian host: see test_vm_isa.c). */
static const struct {
	const char *prog;
	uint32_t retval;
} expected_returns[] = {
	{ "straight_line", 42 },
	{ "loop_sum", 120 },
	{ "array_lookup", 1 },
	{ "ringbuf_output", 0 },
	{ "percpu_counter", 1 },
	{ "tail_call", 0 },
	{ "map_value_direct", 5 },
	{ "alu32_jmp32", 12 },
	{ "signed_ops", 21 },
	{ "atomics", 50 },
	{ "byte_swap", 0x08070605u ^ 0x44332211u ^ 0x3412u ^ 0x55667788u },
	{ "subprog_call", 42 },
	{ "ld_imm64_const", 0x9abcdef0u },
	{ "perf_event_output", 0 },
};

/* A ctx big enough for either program type: an __sk_buff with len set,
 * or a pt_regs. */
union sample_ctx {
	struct __sk_buff skb;
	uint8_t regs[PT_REGS_SIZE];
};

/* Builds `name`, creates its maps and tail target in t's VM and returns the
 * program index; *ctx_size is the size of its program type's ctx. */
static int load_sample(struct vt *t, const char *name, size_t *ctx_size)
{
	const struct gs_test_prog *prog = NULL;
	uint32_t map_ids[4];
	struct gs_asm a;
	int index;

	for (size_t i = 0; i < gs_test_nprogs; i++)
		if (strcmp(gs_test_progs[i].name, name) == 0)
			prog = &gs_test_progs[i];
	assert_non_null(prog);
	gs_asm_init(&a);
	if (gs_test_prog_build(prog, &a, &t->err) && !prog->broken)
		fail_msg("%s: %s", name, t->err.msg);
	for (size_t m = 0; m < prog->nmaps; m++) {
		const struct gs_map_spec *tm = &prog->maps[m];

		map_ids[m] = vt_map(t, tm->type, tm->name, tm->key_size, tm->value_size,
				    tm->max_entries);
		if (tm->type == BPF_MAP_TYPE_PROG_ARRAY && prog->needs_tail_target) {
			int target = gs_vm_add_prog(&t->vm, PROG(GS_MOV64_IMM(GS_R0, 0),
								  GS_EXIT()), NULL, NULL);
			uint32_t slot = 0, value = (uint32_t)target;

			assert_int_equal(gs_vm_map_update(&t->vm, map_ids[m], &slot, &value, NULL),
					 0);
		}
	}
	index = gs_vm_load_asm(&t->vm, &a, map_ids, &t->err);
	if (index < 0)
		fail_msg("%s: gs_vm_load_asm: %s", name, t->err.msg);
	*ctx_size = prog->type == BPF_PROG_TYPE_KPROBE ? PT_REGS_SIZE : sizeof(struct __sk_buff);
	gs_asm_fini(&a);
	return index;
}

static int run_sample(struct vt *t, const char *name, uint32_t skb_len)
{
	union sample_ctx ctx;
	size_t ctx_size;
	int prog = load_sample(t, name, &ctx_size);

	memset(&ctx, 0, sizeof(ctx));
	ctx.skb.len = skb_len;
	return gs_vm_run(&t->vm, (uint32_t)prog, &ctx, ctx_size, &t->r0, &t->err);
}

static void test_every_sample_returns_its_documented_value(void **state)
{
	int wrong = 0;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(expected_returns); i++) {
		struct vt *t;
		int ret;

		assert_int_equal(vt_setup((void **)&t), 0);
		ret = run_sample(t, expected_returns[i].prog, SKB_LEN_VALUE);
		if (ret || (uint32_t)t->r0 != expected_returns[i].retval) {
			fprintf(stderr, "%s: want %#x, got %d %#llx %s\n", expected_returns[i].prog,
				expected_returns[i].retval, ret, (unsigned long long)t->r0,
				t->err.msg);
			wrong++;
		}
		vt_teardown((void **)&t);
	}
	(void)state;
	assert_int_equal(wrong, 0);
}

static void test_ringbuf_sample_emits_magic_and_skb_len(void **state)
{
	const uint64_t want[2] = { 0x6773, SKB_LEN_VALUE };
	struct vt *t = *state;

	assert_int_equal(run_sample(t, "ringbuf_output", SKB_LEN_VALUE), 0);
	assert_int_equal(t->vm.nrecords, 1);
	assert_int_equal(t->vm.records[0].size, sizeof(want));
	assert_memory_equal(t->vm.records[0].data, want, sizeof(want));
}

static void test_perf_sample_emits_pid_tgid_and_timestamp_on_this_cpu(void **state)
{
	struct vt *t = *state;
	uint64_t want[2];

	t->vm.tgid = 1000;
	t->vm.pid = 1001;
	t->vm.ktime = 123456789;
	t->vm.cpu = 1;
	want[0] = 1000ull << 32 | 1001;
	want[1] = 123456789;
	assert_int_equal(run_sample(t, "perf_event_output", 0), 0);
	assert_int_equal(t->vm.nrecords, 1);
	assert_int_equal(t->vm.records[0].cpu, 1);
	assert_int_equal(t->vm.records[0].size, sizeof(want));
	assert_memory_equal(t->vm.records[0].data, want, sizeof(want));
}

static void test_broken_samples_stop_on_the_broken_path(void **state)
{
	struct vt *t = *state;

	assert_int_equal(run_sample(t, "broken_unset_reg", SKB_LEN_VALUE), -EINVAL);
	assert_non_null(strstr(t->err.msg, "source r3 was never written"));
	/* long enough packets take the exit; a runt runs off the end */
	assert_int_equal(run_sample(t, "broken_fall_off_end", SKB_LEN_VALUE), 0);
	assert_int_equal(t->r0, SKB_LEN_VALUE);
	assert_int_equal(run_sample(t, "broken_fall_off_end", 10), -EINVAL);
	assert_non_null(strstr(t->err.msg, "runs past the end of the program"));
}

int vt_run_sample_tests(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, vt_setup, vt_teardown)
		cmocka_unit_test(test_every_sample_returns_its_documented_value),
		T(test_ringbuf_sample_emits_magic_and_skb_len),
		T(test_perf_sample_emits_pid_tgid_and_timestamp_on_this_cpu),
		T(test_broken_samples_stop_on_the_broken_path),
#undef T
	};

	return cmocka_run_group_tests_name("vm-samples", tests, NULL, NULL);
}
