/* The ring buffer reader (ringread.c) against the kernel's writer: records
 * of 64 bytes sent by a socket filter run through BPF_PROG_TEST_RUN into a
 * one-page ring, read one at a time, so that records cross the end of the
 * data again and again (72-byte records in 4096 bytes) and come out whole
 * and in order; a callback that stops leaves the rest for the next read.
 * Skips (exit 77) without bpf(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "rt_int.h"

#define RING 4096u
#define WORDS 8 /* a record: WORDS u64, the first the packet's length */
#define RECORD (WORDS * 8 + BPF_RINGBUF_HDR_SZ)

struct ring_fixture {
	int map, prog;
	struct rt_ring *ring;
};

/* r2 = skb->len; the stack's WORDS words = len, len + 1, ...;
 * bpf_ringbuf_output(map, r10 - 64, 64, 0). */
static int load_writer(int map)
{
	struct bpf_insn insns[64];
	size_t n = 0;

	insns[n++] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = 2,
					.src_reg = 1, .off = 0 };
	for (int i = 0; i < WORDS; i++) {
		insns[n++] = (struct bpf_insn){ .code = BPF_STX | BPF_MEM | BPF_DW,
						.dst_reg = 10, .src_reg = 2,
						.off = (int16_t)(-8 * WORDS + 8 * i) };
		insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K,
						.dst_reg = 2, .imm = 1 };
	}
	insns[n++] = (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1,
					.src_reg = BPF_PSEUDO_MAP_FD, .imm = map };
	insns[n++] = (struct bpf_insn){ 0 };
	insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2,
					.src_reg = 10 };
	insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 2,
					.imm = -8 * WORDS };
	insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 3,
					.imm = 8 * WORDS };
	insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 4 };
	insns[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_ringbuf_output };
	insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 };
	insns[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "gs_ring_writer", "GPL", insns, n, NULL);
}

static int setup(void **state)
{
	static struct ring_fixture f;

	f.map = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gs_ring_test", 0, 0, RING, NULL);
	assert_true(f.map >= 0);
	f.prog = load_writer(f.map);
	assert_true(f.prog >= 0);
	assert_int_equal(rt_ring_open(f.map, RING, &f.ring), 0);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct ring_fixture *f = *state;

	rt_ring_free(f->ring);
	close(f->prog);
	close(f->map);
	return 0;
}

/* Runs the writer on a packet of len bytes: one record. */
static void write_one(const struct ring_fixture *f, size_t len)
{
	static uint8_t pkt[1024];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = (uint32_t)len);

	assert_int_equal(bpf_prog_test_run_opts(f->prog, &o), 0);
}

struct seen {
	uint64_t first[512];
	size_t n;
	int stop_at; /* the callback's answer is -1 at this record (0: never) */
};

static int take(void *ctx, void *data, size_t size)
{
	struct seen *s = ctx;
	uint64_t w[WORDS];

	assert_int_equal(size, sizeof(w));
	memcpy(w, data, sizeof(w));
	for (int i = 1; i < WORDS; i++)
		assert_true(w[i] == w[0] + (uint64_t)i); /* whole, across the end */
	s->first[s->n++] = w[0];
	return s->stop_at && (int)s->n == s->stop_at ? -1 : 0;
}

static void test_records_crossing_the_end_come_out_whole(void **state)
{
	struct ring_fixture *f = *state;
	struct seen s = { 0 };
	size_t split = 0;

	for (size_t k = 0; k < 300; k++) {
		size_t at = (k * RECORD) % RING; /* where record k's header is */

		split += at + BPF_RINGBUF_HDR_SZ < RING && at + RECORD > RING;
		write_one(f, 64 + k);
		assert_int_equal(rt_ring_consume(f->ring, take, &s), 0);
		assert_int_equal(s.n, k + 1);
		if (k)
			assert_true(s.first[k] == s.first[k - 1] + 1);
	}
	/* the samples that crossed the end: read through the copy */
	assert_true(split >= 4);
}

static void test_a_callback_that_stops_leaves_the_rest(void **state)
{
	struct ring_fixture *f = *state;
	struct seen s = { .stop_at = 2 };

	for (size_t k = 0; k < 3; k++)
		write_one(f, 100 + k);
	assert_int_equal(rt_ring_consume(f->ring, take, &s), -1);
	assert_int_equal(s.n, 2);
	s.stop_at = 0;
	assert_int_equal(rt_ring_consume(f->ring, take, &s), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.first[2] == s.first[1] + 1);
	assert_int_equal(rt_ring_consume(f->ring, take, &s), 0);
	assert_int_equal(s.n, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_crossing_the_end_come_out_whole),
		cmocka_unit_test(test_a_callback_that_stops_leaves_the_rest),
	};
	int map = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gs_ring_probe", 0, 0, RING, NULL);

	if (map < 0) {
		printf("skipped: no BPF ring buffer here (needs root and Linux 5.8)\n");
		return 77; /* meson: skipped */
	}
	close(map);
	return cmocka_run_group_tests(tests, setup, teardown);
}
