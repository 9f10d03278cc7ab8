/* The VM's maps and helpers: lookups in each map type (per-CPU copies kept
 * apart), time and ids, the pid-namespace helper, probe reads over the fake
 * address spaces (success, -EFAULT with zero fill, strings), output helpers
 * captured per CPU, failure injection, and tail calls up to the kernel's
 * limit of 33. */
#include <string.h>

#include "vm_test.h"

#define MISS 999 /* what the lookup programs return for a NULL */

/* Userspace's update of a u32-keyed map with a u64 value. */
static int put_u64(struct vt *t, uint32_t map, uint32_t key, uint64_t value)
{
	return gs_vm_map_update(&t->vm, map, &key, &value, &t->err);
}

/* Runs: r0 = *(u64 *)lookup(map, &key), or MISS. */
static uint64_t lookup_u64(struct vt *t, uint32_t map, uint32_t key)
{
	return vt_eval(t, PROG(
		GS_ST_MEM(BPF_W, GS_FP, -4, key),
		GS_LD_MAP_FD(GS_R1, gs_vm_map_fd(map)),
		GS_MOV64_REG(GS_R2, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R2, -4),
		GS_CALL_HELPER(BPF_FUNC_map_lookup_elem),
		GS_JMP_IMM(BPF_JNE, GS_R0, 0, 2),
		GS_MOV64_IMM(GS_R0, MISS),
		GS_EXIT(),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R0, 0),
		GS_EXIT()));
}

/* Runs: return ++*(u64 *)lookup(map, &(u32){0}), or MISS. */
static uint64_t increment_key0(struct vt *t, uint32_t map)
{
	return vt_eval(t, PROG(
		GS_ST_MEM(BPF_W, GS_FP, -4, 0),
		GS_LD_MAP_FD(GS_R1, gs_vm_map_fd(map)),
		GS_MOV64_REG(GS_R2, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R2, -4),
		GS_CALL_HELPER(BPF_FUNC_map_lookup_elem),
		GS_JMP_IMM(BPF_JNE, GS_R0, 0, 2),
		GS_MOV64_IMM(GS_R0, MISS),
		GS_EXIT(),
		GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, 0),
		GS_ALU64_IMM(BPF_ADD, GS_R1, 1),
		GS_STX_MEM(BPF_DW, GS_R0, GS_R1, 0),
		GS_MOV64_REG(GS_R0, GS_R1),
		GS_EXIT()));
}

static void test_array_lookup_hits_in_range_and_misses_past_the_end(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_ARRAY, "values", 4, 8, 2);

	assert_int_equal(put_u64(t, map, 1, 77), 0);
	assert_int_equal(lookup_u64(t, map, 0), 0);
	assert_int_equal(lookup_u64(t, map, 1), 77);
	assert_int_equal(lookup_u64(t, map, 2), MISS);
}

static void test_hash_lookup_matches_the_exact_key(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_HASH, "by_pid", 4, 8, 2);

	assert_int_equal(lookup_u64(t, map, 7), MISS);
	assert_int_equal(put_u64(t, map, 7, 70), 0);
	assert_int_equal(lookup_u64(t, map, 7), 70);
	assert_int_equal(lookup_u64(t, map, 0x107), MISS);
	/* replace, fill, overflow, delete */
	assert_int_equal(put_u64(t, map, 7, 71), 0);
	assert_int_equal(put_u64(t, map, 8, 80), 0);
	assert_int_equal(put_u64(t, map, 9, 90), -E2BIG);
	assert_int_equal(lookup_u64(t, map, 7), 71);
	assert_int_equal(gs_vm_map_delete(&t->vm, map, &(uint32_t){ 7 }, NULL), 0);
	assert_int_equal(lookup_u64(t, map, 7), MISS);
	assert_int_equal(lookup_u64(t, map, 8), 80);
	assert_int_equal(gs_vm_map_delete(&t->vm, map, &(uint32_t){ 7 }, NULL), -ENOENT);
}

static void test_percpu_array_gives_each_cpu_its_own_copy(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_PERCPU_ARRAY, "hits", 4, 8, 1);
	const uint32_t key = 0;

	assert_int_equal(increment_key0(t, map), 1);
	assert_int_equal(increment_key0(t, map), 2);
	t->vm.cpu = 1;
	assert_int_equal(increment_key0(t, map), 1);
	t->vm.cpu = 0;
	assert_int_equal(increment_key0(t, map), 3);
	assert_int_equal(*(uint64_t *)gs_vm_map_lookup(&t->vm, map, &key, 0), 3);
	assert_int_equal(*(uint64_t *)gs_vm_map_lookup(&t->vm, map, &key, 1), 1);
	assert_int_equal(gs_vm_map_sum_u64(&t->vm, map, &key, 0), 4);
	t->vm.cpu = 2;
	assert_int_equal(gs_vm_run(&t->vm, 0, NULL, 0, NULL, &t->err), -EINVAL);
	assert_non_null(strstr(t->err.msg, "has 2 CPUs"));
}

static void test_prog_array_cannot_be_looked_up(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1);

	assert_int_equal(vt_run(t, PROG(
		GS_ST_MEM(BPF_W, GS_FP, -4, 0),
		GS_LD_MAP_FD(GS_R1, gs_vm_map_fd(map)),
		GS_MOV64_REG(GS_R2, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R2, -4),
		GS_CALL_HELPER(BPF_FUNC_map_lookup_elem),
		GS_EXIT())), -EINVAL);
	assert_non_null(strstr(t->err.msg, "map 'jump_table' cannot be looked up"));
}

static void test_injected_lookup_failure_returns_null(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_ARRAY, "buf", 4, 8, 1);

	gs_vm_fail_lookups(&t->vm, map, true);
	assert_int_equal(lookup_u64(t, map, 0), MISS);
	gs_vm_fail_lookups(&t->vm, map, false);
	assert_int_equal(lookup_u64(t, map, 0), 0);
}

static void test_lookup_key_must_cover_key_size(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_HASH, "wide", 16, 8, 1);

	vt_expect_error(t, -EFAULT, "bpf_map_lookup_elem reads 16 bytes at fp-8 is outside", PROG(
		GS_LD_MAP_FD(GS_R1, gs_vm_map_fd(map)),
		GS_MOV64_REG(GS_R2, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R2, -8),
		GS_CALL_HELPER(BPF_FUNC_map_lookup_elem),
		GS_EXIT()));
}

static void test_ktime_advances_by_its_step_per_call(void **state)
{
	struct vt *t = *state;

	t->vm.ktime = 1000;
	t->vm.ktime_step = 10;
	assert_int_equal(vt_eval(t, PROG(
		GS_CALL_HELPER(BPF_FUNC_ktime_get_ns),
		GS_MOV64_REG(GS_R6, GS_R0),
		GS_CALL_HELPER(BPF_FUNC_ktime_get_ns),
		GS_ALU64_IMM(BPF_MUL, GS_R0, 10000),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R6),
		GS_EXIT())), 1010 * 10000 + 1000);
	assert_int_equal(t->vm.ktime, 1020);
	assert_int_equal(t->vm.stats.helper_calls, 2);
}

static void test_pid_tgid_has_tgid_high_and_pid_low(void **state)
{
	struct vt *t = *state;

	t->vm.tgid = 4242;
	t->vm.pid = 4243;
	assert_int_equal(vt_eval(t, PROG(GS_CALL_HELPER(BPF_FUNC_get_current_pid_tgid), GS_EXIT())),
			 (4242ull << 32) | 4243);
}

static void test_current_task_is_the_configured_address(void **state)
{
	struct vt *t = *state;

	t->vm.current_task = 0xffff888812345600ull;
	assert_int_equal(vt_eval(t, PROG(GS_CALL_HELPER(BPF_FUNC_get_current_task), GS_EXIT())),
			 0xffff888812345600ull);
}

static void test_helpers_forget_r1_to_r5(void **state)
{
	vt_expect_error(*state, -EINVAL, "source r1 was never written", PROG(
		GS_CALL_HELPER(BPF_FUNC_ktime_get_ns),
		GS_MOV64_REG(GS_R0, GS_R1),
		GS_EXIT()));
}

/* A one-entry ARRAY "out" of { s64 ret; u8 buf[16]; } filled with 0xff,
 * which helper-calling programs write through ld_imm64 src=2. */
struct out {
	int64_t ret;
	uint8_t buf[16];
};

static uint32_t out_map(struct vt *t)
{
	uint32_t map = vt_map(t, BPF_MAP_TYPE_ARRAY, "out", 4, sizeof(struct out), 1);
	struct out fill;

	memset(&fill, 0xff, sizeof(fill));
	assert_int_equal(gs_vm_map_update(&t->vm, map, &(uint32_t){ 0 }, &fill, NULL), 0);
	return map;
}

static struct out *out_value(struct vt *t, uint32_t map)
{
	return gs_vm_map_lookup(&t->vm, map, &(uint32_t){ 0 }, 0);
}

/* out.ret = helper(&out.buf, size, addr) for the probe_read family. */
static struct out *probe(struct vt *t, int32_t helper, uint64_t addr, uint32_t size)
{
	uint32_t map = out_map(t);
	int fd = gs_vm_map_fd(map);

	assert_int_equal(vt_eval(t, PROG(
		GS_LD_MAP_VALUE(GS_R1, fd, offsetof(struct out, buf)),
		GS_MOV64_IMM(GS_R2, size),
		GS_LD_IMM64(GS_R3, addr),
		GS_CALL_HELPER(helper),
		GS_LD_MAP_VALUE(GS_R1, fd, 0),
		GS_STX_MEM(BPF_DW, GS_R1, GS_R0, 0),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT())), 0);
	return out_value(t, map);
}

static const uint8_t ff8[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t zero16[16];

static void test_probe_read_user_copies_mapped_bytes(void **state)
{
	struct vt *t = *state;
	struct out *o;

	assert_int_equal(gs_vm_add_user_mem(&t->vm, 0x10000, "hello, world", 12, NULL), 0);
	o = probe(t, BPF_FUNC_probe_read_user, 0x10007, 5);
	assert_int_equal(o->ret, 0);
	assert_memory_equal(o->buf, "world\xff", 6);
	o = probe(t, BPF_FUNC_probe_read_user, 0x10000, 0);
	assert_int_equal(o->ret, 0);
	assert_memory_equal(o->buf, ff8, 8);
}

static void test_probe_read_user_fault_zero_fills_and_returns_efault(void **state)
{
	struct vt *t = *state;
	struct out *o;

	assert_int_equal(gs_vm_add_user_mem(&t->vm, 0x10000, "hello, world", 12, NULL), 0);
	/* 4 of the 8 bytes are mapped: all or nothing */
	o = probe(t, BPF_FUNC_probe_read_user, 0x10008, 8);
	assert_int_equal(o->ret, -EFAULT);
	assert_memory_equal(o->buf, zero16, 8);
	assert_memory_equal(o->buf + 8, ff8, 8);
	o = probe(t, BPF_FUNC_probe_read_user, 0, 16);
	assert_int_equal(o->ret, -EFAULT);
	assert_memory_equal(o->buf, zero16, 16);
}

static void test_probe_read_user_spans_adjacent_regions(void **state)
{
	struct vt *t = *state;
	struct out *o;

	assert_int_equal(gs_vm_add_user_mem(&t->vm, 0x20004, "5678", 4, NULL), 0);
	assert_int_equal(gs_vm_add_user_mem(&t->vm, 0x20000, "1234", 4, NULL), 0);
	o = probe(t, BPF_FUNC_probe_read_user, 0x20002, 6);
	assert_int_equal(o->ret, 0);
	assert_memory_equal(o->buf, "345678", 6);
}

static void test_probe_read_user_str_returns_length_with_nul(void **state)
{
	struct vt *t = *state;
	struct out *o;

	assert_int_equal(gs_vm_add_user_mem(&t->vm, 0x30000, "abc\0def", 8, NULL), 0);
	o = probe(t, BPF_FUNC_probe_read_user_str, 0x30000, 16);
	assert_int_equal(o->ret, 4);
	assert_memory_equal(o->buf, "abc\0\xff", 5); /* nothing past the NUL */
	/* too long for the buffer: size - 1 bytes and a NUL, returns size */
	o = probe(t, BPF_FUNC_probe_read_user_str, 0x30004, 3);
	assert_int_equal(o->ret, 3);
	assert_memory_equal(o->buf, "de\0\xff", 4);
	o = probe(t, BPF_FUNC_probe_read_user_str, 0x30000, 0);
	assert_int_equal(o->ret, 0);
	assert_memory_equal(o->buf, ff8, 8);
}

static void test_probe_read_user_str_faults_without_a_nul_before_unmapped(void **state)
{
	struct vt *t = *state;
	struct out *o;

	assert_int_equal(gs_vm_add_user_mem(&t->vm, 0x30000, "xyz", 3, NULL), 0);
	o = probe(t, BPF_FUNC_probe_read_user_str, 0x30000, 8);
	assert_int_equal(o->ret, -EFAULT);
	assert_memory_equal(o->buf, zero16, 8);
	assert_memory_equal(o->buf + 8, ff8, 8);
	/* a size that ends at the last mapped byte never touches the next */
	o = probe(t, BPF_FUNC_probe_read_user_str, 0x30000, 3);
	assert_int_equal(o->ret, 3);
	assert_memory_equal(o->buf, "xy\0", 3);
}

static void test_probe_read_kernel_reads_only_kernel_space(void **state)
{
	struct vt *t = *state;
	const uint64_t fsbase = 0x00007f0012345000ull, kaddr = 0xffff888800001000ull;
	struct out *o;

	assert_int_equal(gs_vm_add_kernel_mem(&t->vm, kaddr, &fsbase, sizeof(fsbase), NULL), 0);
	assert_int_equal(gs_vm_add_user_mem(&t->vm, 0x10000, "user", 4, NULL), 0);
	o = probe(t, BPF_FUNC_probe_read_kernel, kaddr, 8);
	assert_int_equal(o->ret, 0);
	assert_memory_equal(o->buf, &fsbase, 8);
	assert_int_equal(probe(t, BPF_FUNC_probe_read_user, kaddr, 8)->ret, -EFAULT);
	assert_int_equal(probe(t, BPF_FUNC_probe_read_kernel, 0x10000, 4)->ret, -EFAULT);
	assert_int_equal(probe(t, BPF_FUNC_probe_read_kernel_str, 0x10000, 4)->ret, -EFAULT);
}

/* out.ret = bpf_get_ns_current_pid_tgid(dev, ino, &out.buf, size) */
static struct out *ns_ids(struct vt *t, uint64_t dev, uint64_t ino, uint32_t size)
{
	uint32_t map = out_map(t);
	int fd = gs_vm_map_fd(map);

	assert_int_equal(vt_eval(t, PROG(
		GS_LD_IMM64(GS_R1, dev),
		GS_LD_IMM64(GS_R2, ino),
		GS_LD_MAP_VALUE(GS_R3, fd, offsetof(struct out, buf)),
		GS_MOV64_IMM(GS_R4, size),
		GS_CALL_HELPER(BPF_FUNC_get_ns_current_pid_tgid),
		GS_LD_MAP_VALUE(GS_R1, fd, 0),
		GS_STX_MEM(BPF_DW, GS_R1, GS_R0, 0),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT())), 0);
	return out_value(t, map);
}

static void test_ns_pid_tgid_fills_ids_only_in_the_configured_namespace(void **state)
{
	struct vt *t = *state;
	const uint32_t ids[2] = { 77, 78 }; /* struct bpf_pidns_info { pid, tgid } */
	struct out *o;

	t->vm.ns_dev = 4;
	t->vm.ns_ino = 0xeffffffcull;
	t->vm.ns_pid = 77;
	t->vm.ns_tgid = 78;
	o = ns_ids(t, 4, 0xeffffffcull, 8);
	assert_int_equal(o->ret, 0);
	assert_memory_equal(o->buf, ids, 8);
	o = ns_ids(t, 4, 0xeffffffdull, 8);
	assert_int_equal(o->ret, -EINVAL);
	assert_memory_equal(o->buf, zero16, 8);
	o = ns_ids(t, 5, 0xeffffffcull, 8);
	assert_int_equal(o->ret, -EINVAL);
	/* the wrong size is refused, and only that many bytes are zeroed */
	o = ns_ids(t, 4, 0xeffffffcull, 4);
	assert_int_equal(o->ret, -EINVAL);
	assert_memory_equal(o->buf, zero16, 4);
	assert_memory_equal(o->buf + 4, ff8, 4);
}

/* 16 bytes { 0x1111..., 0x2222... } at fp-16 sent with
 * bpf_perf_event_output(ctx, map, flags, fp-16, 16); returns its result. */
static int64_t perf_output(struct vt *t, uint32_t map, uint64_t flags)
{
	return (int64_t)vt_eval(t, PROG(
		GS_LD_IMM64(GS_R2, 0x1111111111111111ull),
		GS_STX_MEM(BPF_DW, GS_FP, GS_R2, -16),
		GS_LD_IMM64(GS_R2, 0x2222222222222222ull),
		GS_STX_MEM(BPF_DW, GS_FP, GS_R2, -8),
		GS_LD_MAP_FD(GS_R2, gs_vm_map_fd(map)),
		GS_LD_IMM64(GS_R3, flags),
		GS_MOV64_REG(GS_R4, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R4, -16),
		GS_MOV64_IMM(GS_R5, 16),
		GS_CALL_HELPER(BPF_FUNC_perf_event_output),
		GS_EXIT()));
}

static void test_perf_event_output_captures_the_record_and_cpu(void **state)
{
	static const uint64_t want[2] = { 0x1111111111111111ull, 0x2222222222222222ull };
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_PERF_EVENT_ARRAY, "events", 4, 4, 0);

	assert_int_equal(gs_vm_get_map(&t->vm, map)->max_entries, 2); /* one per CPU */
	t->vm.cpu = 1;
	assert_int_equal(perf_output(t, map, BPF_F_CURRENT_CPU), 0);
	assert_int_equal(t->vm.nrecords, 1);
	assert_int_equal(t->vm.records[0].map, map);
	assert_int_equal(t->vm.records[0].cpu, 1);
	assert_int_equal(t->vm.records[0].flags, BPF_F_CURRENT_CPU);
	assert_int_equal(t->vm.records[0].size, 16);
	assert_memory_equal(t->vm.records[0].data, want, 16);
	/* an explicit index works for this CPU only */
	assert_int_equal(perf_output(t, map, 1), 0);
	assert_int_equal(perf_output(t, map, 0), -EOPNOTSUPP);
	assert_int_equal(perf_output(t, map, 2), -E2BIG);
	assert_int_equal(gs_vm_count_records(&t->vm, map), 2);
}

static void test_perf_event_output_rejects_a_sign_extended_current_cpu(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_PERF_EVENT_ARRAY, "events", 4, 4, 0);

	/* `r3 = -1` as a 64-bit mov: all 64 bits set, not BPF_F_CURRENT_CPU */
	assert_int_equal(perf_output(t, map, ~0ull), -EINVAL);
	assert_int_equal(t->vm.nrecords, 0);
}

/* bpf_ringbuf_output(map, fp-16, 16, flags) of zeroed bytes. */
static int64_t ringbuf_output(struct vt *t, uint32_t map, uint64_t flags)
{
	return (int64_t)vt_eval(t, PROG(
		GS_ST_MEM(BPF_DW, GS_FP, -16, 0),
		GS_ST_MEM(BPF_DW, GS_FP, -8, 0),
		GS_LD_MAP_FD(GS_R1, gs_vm_map_fd(map)),
		GS_MOV64_REG(GS_R2, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R2, -16),
		GS_MOV64_IMM(GS_R3, 16),
		GS_MOV64_IMM(GS_R4, flags),
		GS_CALL_HELPER(BPF_FUNC_ringbuf_output),
		GS_EXIT()));
}

static void test_ringbuf_output_captures_records_until_the_ring_is_full(void **state)
{
	struct vt *t = *state;
	uint32_t map = vt_map(t, BPF_MAP_TYPE_RINGBUF, "ring", 0, 0, 4096);
	int written = 0;

	/* each record takes 16 bytes + an 8-byte header: 170 fit in 4096 */
	while (ringbuf_output(t, map, 0) == 0)
		written++;
	assert_int_equal(written, 170);
	assert_int_equal(ringbuf_output(t, map, 0), -EAGAIN);
	assert_int_equal(gs_vm_count_records(&t->vm, map), 170);
	assert_int_equal(t->vm.records[0].size, 16);
	assert_memory_equal(t->vm.records[169].data, zero16, 16);
	gs_vm_clear_records(&t->vm); /* userspace drained the ring */
	assert_int_equal(ringbuf_output(t, map, BPF_RB_NO_WAKEUP), 0);
	assert_int_equal(ringbuf_output(t, map, 4), -EINVAL);
	assert_int_equal(t->vm.nrecords, 1);
}

static void test_output_failure_injection_fails_the_next_n_calls(void **state)
{
	struct vt *t = *state;
	uint32_t ring = vt_map(t, BPF_MAP_TYPE_RINGBUF, "ring", 0, 0, 0);
	uint32_t perf = vt_map(t, BPF_MAP_TYPE_PERF_EVENT_ARRAY, "perf", 4, 4, 0);

	t->vm.fail_outputs = 2;
	assert_int_equal(ringbuf_output(t, ring, 0), -ENOSPC);
	assert_int_equal(perf_output(t, perf, BPF_F_CURRENT_CPU), -ENOSPC);
	assert_int_equal(ringbuf_output(t, ring, 0), 0);
	t->vm.fail_outputs = 1;
	t->vm.fail_output_err = -EBUSY;
	assert_int_equal(perf_output(t, perf, BPF_F_CURRENT_CPU), -EBUSY);
	assert_int_equal(perf_output(t, perf, BPF_F_CURRENT_CPU), 0);
	assert_int_equal(t->vm.nrecords, 2);
}

static void test_unknown_helper_fails_the_run(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -ENOSYS, "helper 6 (bpf_trace_printk) is not implemented", PROG(
		GS_CALL_HELPER(BPF_FUNC_trace_printk),
		GS_EXIT()));
	vt_expect_error(t, -ENOSYS, "helper 100000 (unknown", PROG(
		GS_CALL_HELPER(100000),
		GS_EXIT()));
}

static void test_helper_arguments_are_checked(void **state)
{
	struct vt *t = *state;

	vt_expect_error(t, -EINVAL, "bpf_probe_read_user argument r3 was never written", PROG(
		GS_MOV64_REG(GS_R1, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R1, -8),
		GS_MOV64_IMM(GS_R2, 8),
		GS_CALL_HELPER(BPF_FUNC_probe_read_user),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "r1 must be a map loaded by ld_imm64", PROG(
		GS_MOV64_IMM(GS_R1, 0),
		GS_MOV64_REG(GS_R2, GS_FP),
		GS_CALL_HELPER(BPF_FUNC_map_lookup_elem),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "argument r2 must be a scalar, not the pointer fp+0", PROG(
		GS_MOV64_REG(GS_R1, GS_FP),
		GS_ALU64_IMM(BPF_ADD, GS_R1, -8),
		GS_MOV64_REG(GS_R2, GS_FP),
		GS_MOV64_IMM(GS_R3, 0),
		GS_CALL_HELPER(BPF_FUNC_probe_read_user),
		GS_EXIT()));
	vt_expect_error(t, -EINVAL, "r1 must be the ctx", PROG(
		GS_MOV64_IMM(GS_R1, 0),
		GS_MOV64_IMM(GS_R2, 0),
		GS_MOV64_IMM(GS_R3, 0),
		GS_CALL_HELPER(BPF_FUNC_tail_call),
		GS_MOV64_IMM(GS_R0, 0),
		GS_EXIT()));
}

/* tail_call(ctx, jump_table, index), then return 1: the fall-through. */
static int caller_prog(struct vt *t, uint32_t jump_table, int32_t index)
{
	return gs_vm_add_prog(&t->vm, PROG(
		GS_ST_MEM(BPF_DW, GS_FP, -8, 0),
		GS_MOV64_IMM(GS_R6, 6),
		GS_LD_MAP_FD(GS_R2, gs_vm_map_fd(jump_table)),
		GS_MOV64_IMM(GS_R3, index),
		GS_CALL_HELPER(BPF_FUNC_tail_call),
		GS_MOV64_IMM(GS_R0, 1),
		GS_EXIT()), NULL, NULL);
}

static void set_slot(struct vt *t, uint32_t jump_table, uint32_t slot, int prog)
{
	assert_int_equal(gs_vm_map_update(&t->vm, jump_table, &slot, &(uint32_t){ (uint32_t)prog },
					  &t->err), 0);
}

static void test_tail_call_starts_the_target_with_ctx_and_a_fresh_stack(void **state)
{
	struct vt *t = *state;
	uint32_t jt = vt_map(t, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 2);
	int caller = caller_prog(t, jt, 1);
	/* r0 = ctx[3] + (fp-8 still poisoned ? 100 : 0) */
	int target = gs_vm_add_prog(&t->vm, PROG(
		GS_LDX_MEM(BPF_B, GS_R0, GS_R1, 3),
		GS_LDX_MEM(BPF_DW, GS_R2, GS_FP, -8),
		GS_LD_IMM64(GS_R3, 0xa5a5a5a5a5a5a5a5ull),
		GS_JMP_REG(BPF_JNE, GS_R2, GS_R3, 1),
		GS_ALU64_IMM(BPF_ADD, GS_R0, 100),
		GS_EXIT()), NULL, NULL);

	set_slot(t, jt, 1, target);
	assert_int_equal(vt_run_prog(t, caller), 0);
	assert_int_equal(t->r0, 103);
	assert_int_equal(t->vm.stats.tail_calls, 1);
}

static void test_failed_tail_call_falls_through(void **state)
{
	struct vt *t = *state;
	uint32_t jt = vt_map(t, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 2);
	int target = gs_vm_add_prog(&t->vm, PROG(GS_MOV64_IMM(GS_R0, 0), GS_EXIT()), NULL, NULL);

	set_slot(t, jt, 0, target);
	assert_int_equal(vt_run_prog(t, caller_prog(t, jt, 1)), 0); /* empty slot */
	assert_int_equal(t->r0, 1);
	assert_int_equal(vt_run_prog(t, caller_prog(t, jt, 2)), 0); /* past the end */
	assert_int_equal(t->r0, 1);
	assert_int_equal(vt_run_prog(t, caller_prog(t, jt, -1)), 0);
	assert_int_equal(t->r0, 1);
	assert_int_equal(t->vm.stats.tail_calls, 0);
	assert_int_equal(gs_vm_map_delete(&t->vm, jt, &(uint32_t){ 0 }, NULL), 0);
	assert_int_equal(vt_run_prog(t, caller_prog(t, jt, 0)), 0);
	assert_int_equal(t->r0, 1);
	/* bpf_tail_call() returns nothing */
	vt_expect_error(t, -EINVAL, "return value r0 was never written", PROG(
		GS_LD_MAP_FD(GS_R2, gs_vm_map_fd(jt)),
		GS_MOV64_IMM(GS_R3, 1),
		GS_CALL_HELPER(BPF_FUNC_tail_call),
		GS_EXIT()));
}

static void test_tail_call_target_cannot_read_the_callers_registers(void **state)
{
	struct vt *t = *state;
	uint32_t jt = vt_map(t, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1);
	int caller = caller_prog(t, jt, 0);
	int target = gs_vm_add_prog(&t->vm, PROG(GS_MOV64_REG(GS_R0, GS_R6), GS_EXIT()),
				    NULL, NULL);

	set_slot(t, jt, 0, target);
	assert_int_equal(vt_run_prog(t, caller), -EINVAL);
	assert_non_null(strstr(t->err.msg, "prog 1 pc 0"));
	assert_non_null(strstr(t->err.msg, "source r6 was never written"));
}

static void test_tail_calls_stop_after_33(void **state)
{
	struct vt *t = *state;
	uint32_t jt = vt_map(t, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1);
	uint32_t runs = vt_map(t, BPF_MAP_TYPE_ARRAY, "runs", 4, 8, 1);
	/* ++runs, then tail-call itself; when that fails, return runs */
	int self = gs_vm_add_prog(&t->vm, PROG(
		GS_LD_MAP_VALUE(GS_R7, gs_vm_map_fd(runs), 0),
		GS_MOV64_IMM(GS_R2, 1),
		GS_ATOMIC_ADD(BPF_DW, GS_R7, GS_R2, 0),
		GS_LD_MAP_FD(GS_R2, gs_vm_map_fd(jt)),
		GS_MOV64_IMM(GS_R3, 0),
		GS_CALL_HELPER(BPF_FUNC_tail_call),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R7, 0),
		GS_EXIT()), NULL, NULL);

	set_slot(t, jt, 0, self);
	assert_int_equal(vt_run_prog(t, self), 0);
	assert_int_equal(t->r0, 1 + GS_VM_MAX_TAIL_CALLS);
	assert_int_equal(t->vm.stats.tail_calls, GS_VM_MAX_TAIL_CALLS);
}

static void test_tail_call_from_a_subprogram_returns_to_its_caller(void **state)
{
	struct vt *t = *state;
	uint32_t jt = vt_map(t, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1);
	/* main: r6 = 10; r0 = sub(ctx) + r6. sub: tail_call(ctx, jt, 0).
	 * The target replaces sub's frame and returns 5 to main. */
	int main_prog = gs_vm_add_prog(&t->vm, PROG(
		GS_MOV64_IMM(GS_R6, 10),
		GS_CALL_BPF(2),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R6),
		GS_EXIT(),
		GS_LD_MAP_FD(GS_R2, gs_vm_map_fd(jt)),
		GS_MOV64_IMM(GS_R3, 0),
		GS_CALL_HELPER(BPF_FUNC_tail_call),
		GS_MOV64_IMM(GS_R0, 1000),
		GS_EXIT()), NULL, NULL);
	int target = gs_vm_add_prog(&t->vm, PROG(GS_MOV64_IMM(GS_R0, 5), GS_EXIT()), NULL, NULL);

	set_slot(t, jt, 0, target);
	assert_int_equal(vt_run_prog(t, main_prog), 0);
	assert_int_equal(t->r0, 15);
}

static void test_map_shapes_are_checked_like_the_kernel(void **state)
{
	struct vt *t = *state;
	struct gs_vm *vm = &t->vm;

	assert_int_equal(gs_vm_add_map(vm, BPF_MAP_TYPE_ARRAY, "a", 8, 8, 1, &t->err), -EINVAL);
	assert_non_null(strstr(t->err.msg, "4-byte key"));
	assert_int_equal(gs_vm_add_map(vm, BPF_MAP_TYPE_PERCPU_ARRAY, "accum", 4, 32768, 1, NULL),
			 0);
	assert_int_equal(gs_vm_add_map(vm, BPF_MAP_TYPE_PERCPU_ARRAY, "big", 4, 32769, 1, NULL),
			 -EINVAL);
	assert_int_equal(gs_vm_add_map(vm, BPF_MAP_TYPE_RINGBUF, "r", 0, 0, 6000, NULL), -EINVAL);
	assert_int_equal(gs_vm_add_map(vm, BPF_MAP_TYPE_HASH, "h", 0, 8, 1, NULL), -EINVAL);
	assert_int_equal(gs_vm_add_map(vm, BPF_MAP_TYPE_LRU_HASH, "l", 4, 8, 1, NULL), -EINVAL);
	assert_int_equal(gs_vm_map_update(vm, 0, &(uint32_t){ 1 }, zero16, NULL), -E2BIG);
	t->vm.ncpus = 3;
	assert_int_equal(gs_vm_add_map(vm, BPF_MAP_TYPE_PERCPU_ARRAY, "three", 4, 8, 1, NULL), 1);
	assert_int_equal(gs_vm_get_map(vm, 1)->ncopies, 3);
}

static void test_prog_array_slots_take_loaded_programs_only(void **state)
{
	struct vt *t = *state;
	uint32_t jt = vt_map(t, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1);

	assert_int_equal(gs_vm_map_update(&t->vm, jt, &(uint32_t){ 0 }, &(uint32_t){ 0 }, &t->err),
			 -EINVAL);
	assert_non_null(strstr(t->err.msg, "no program 0"));
}

int vt_run_helper_tests(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, vt_setup, vt_teardown)
		T(test_array_lookup_hits_in_range_and_misses_past_the_end),
		T(test_hash_lookup_matches_the_exact_key),
		T(test_percpu_array_gives_each_cpu_its_own_copy),
		T(test_prog_array_cannot_be_looked_up),
		T(test_injected_lookup_failure_returns_null),
		T(test_lookup_key_must_cover_key_size),
		T(test_ktime_advances_by_its_step_per_call),
		T(test_pid_tgid_has_tgid_high_and_pid_low),
		T(test_current_task_is_the_configured_address),
		T(test_helpers_forget_r1_to_r5),
		T(test_probe_read_user_copies_mapped_bytes),
		T(test_probe_read_user_fault_zero_fills_and_returns_efault),
		T(test_probe_read_user_spans_adjacent_regions),
		T(test_probe_read_user_str_returns_length_with_nul),
		T(test_probe_read_user_str_faults_without_a_nul_before_unmapped),
		T(test_probe_read_kernel_reads_only_kernel_space),
		T(test_ns_pid_tgid_fills_ids_only_in_the_configured_namespace),
		T(test_perf_event_output_captures_the_record_and_cpu),
		T(test_perf_event_output_rejects_a_sign_extended_current_cpu),
		T(test_ringbuf_output_captures_records_until_the_ring_is_full),
		T(test_output_failure_injection_fails_the_next_n_calls),
		T(test_unknown_helper_fails_the_run),
		T(test_helper_arguments_are_checked),
		T(test_tail_call_starts_the_target_with_ctx_and_a_fresh_stack),
		T(test_failed_tail_call_falls_through),
		T(test_tail_call_target_cannot_read_the_callers_registers),
		T(test_tail_calls_stop_after_33),
		T(test_tail_call_from_a_subprogram_returns_to_its_caller),
		T(test_map_shapes_are_checked_like_the_kernel),
		T(test_prog_array_slots_take_loaded_programs_only),
#undef T
	};

	return cmocka_run_group_tests_name("vm-helpers", tests, NULL, NULL);
}
