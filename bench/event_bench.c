/* How an event of a size known at compile time should reach the ring
 * buffer: built in the per-CPU accumulation buffer and copied
 * by bpf_ringbuf_output (what the code generator does), or written straight
 * into a bpf_ringbuf_reserve'd record and submitted. Both programs write the
 * same bytes with the same wakeup policy and run under BPF_PROG_TEST_RUN
 * (ns per run, best of ROUNDS). Needs root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/insn.h>

#include "base.h"

#define ROUNDS 15
#define REPEAT 10000 /* every record fits below the wakeup threshold */
#define RING_SIZE (64u << 20) /* a quarter holds REPEAT records of each size */

static const unsigned sizes[] = { 48, 256, 1024 };

/* r7 = the record to fill: accumulation buffer (copy) or reserved (direct). */
static void build(struct gs_asm *a, bool direct, unsigned size, uint32_t ring, uint32_t accum)
{
	struct gs_label out = gs_asm_label(a, "out");
	struct gs_label quiet = gs_asm_label(a, "quiet");

	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, -4, 0));
	if (direct) {
		gs_asm_ld_map(a, GS_R1, ring);
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, (int32_t)size));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 0));
		gs_asm_call(a, BPF_FUNC_ringbuf_reserve);
	} else {
		gs_asm_ld_map(a, GS_R1, accum);
		gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_FP));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, -4));
		gs_asm_call(a, BPF_FUNC_map_lookup_elem);
	}
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, out);
	gs_asm_emit(a, GS_MOV64_REG(GS_R7, GS_R0));
	/* the event: a header, then 8-byte words (what prints write) */
	for (unsigned off = 0; off < size; off += 8)
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_R7, (int16_t)off, (int32_t)off));
	gs_asm_ld_map(a, GS_R1, ring);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, BPF_RB_AVAIL_DATA));
	gs_asm_call(a, BPF_FUNC_ringbuf_query);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R8, BPF_RB_NO_WAKEUP));
	gs_asm_jmp_imm(a, BPF_JLT, GS_R0, (int32_t)(RING_SIZE / 4), quiet);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R8, BPF_RB_FORCE_WAKEUP));
	gs_asm_bind(a, quiet);
	if (direct) {
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R7));
		gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R8));
		gs_asm_call(a, BPF_FUNC_ringbuf_submit);
	} else {
		gs_asm_ld_map(a, GS_R1, ring);
		gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R7));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R3, (int32_t)size));
		gs_asm_emit(a, GS_MOV64_REG(GS_R4, GS_R8));
		gs_asm_call(a, BPF_FUNC_ringbuf_output);
	}
	gs_asm_bind(a, out);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

/* ns per run of one program variant on fresh maps, best of ROUNDS; -1. */
static double measure(bool direct, unsigned size)
{
	double best = -1;

	for (int round = 0; round < ROUNDS; round++) {
		int ring = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "ev_ring", 0, 0, RING_SIZE, NULL);
		int accum = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "ev_accum", 4, 1024, 1, NULL);
		uint8_t packet[64] = { 0 };
		LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = packet,
			    .data_size_in = sizeof(packet), .repeat = REPEAT);
		struct gs_asm a;
		int fds[2] = { ring, accum }, prog = -1;

		uint32_t ring_map, accum_map;

		gs_asm_init(&a);
		ring_map = gs_asm_map(&a, "ev_ring"); /* fds[] order */
		accum_map = gs_asm_map(&a, "ev_accum");
		build(&a, direct, size, ring_map, accum_map);
		static char log[1 << 16];
		LIBBPF_OPTS(bpf_prog_load_opts, lo, .log_buf = log, .log_size = sizeof(log),
			    .log_level = getenv("GS_BENCH_DEBUG") ? 1 : 0);

		if (ring >= 0 && accum >= 0 && gs_asm_finish(&a, NULL) == 0 &&
		    gs_reloc_apply(a.insns, a.len, a.relocs, a.nrelocs, fds, 2, NULL) == 0)
			prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ev_bench", "GPL", a.insns,
					     a.len, &lo);
		if (prog < 0 && getenv("GS_BENCH_DEBUG"))
			fprintf(stderr, "event_bench: load failed: %s\n%s\n", strerror(-prog),
				log + (strlen(log) > 600 ? strlen(log) - 600 : 0));
		if (prog >= 0 && bpf_prog_test_run_opts(prog, &run) == 0 &&
		    (best < 0 || run.duration < best))
			best = run.duration;
		if (prog >= 0)
			close(prog);
		if (ring >= 0)
			close(ring);
		if (accum >= 0)
			close(accum);
		gs_asm_fini(&a);
	}
	return best;
}

int main(void)
{
	if (geteuid() != 0) {
		printf("# skipped: bpf.event_ns: not root\n");
		return 0;
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(sizes); i++) {
		double copy = measure(false, sizes[i]), direct = measure(true, sizes[i]);

		if (copy < 0 || direct < 0) {
			printf("# skipped: bpf.event_ns.*.%u: the programs did not run\n", sizes[i]);
			continue;
		}
		printf("BENCH bpf.event_ns.copy_output.%u %.0f ns\n", sizes[i], copy);
		printf("BENCH bpf.event_ns.reserve_submit.%u %.0f ns\n", sizes[i], direct);
	}
	return 0;
}
