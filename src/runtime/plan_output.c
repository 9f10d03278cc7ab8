/* The size of a plan's output buffers when the caller names none: each
 * holds GS_OUTPUT_EVENTS of the largest event any program sends, so that a
 * hot function's backtraces wait for a busy reader instead of being lost,
 * while a session of many probes stays within GS_OUTPUT_TOTAL_MAX. */
#include <bpf/libbpf.h>

#include <gs/map_abi.h>
#include <gs/runtime.h>

#include "rt_int.h"

#define PAGE 4096u

uint32_t gs_output_default_size(uint32_t largest_event, size_t nbuffers)
{
	uint64_t record = ((uint64_t)largest_event + GS_OUTPUT_RECORD_HEADER + 7) & ~7ull;
	uint64_t want = largest_event ? record * GS_OUTPUT_EVENTS : 0;
	uint64_t size = GS_OUTPUT_MIN_SIZE, share = GS_OUTPUT_MAX_SIZE;

	while (size < want && size < GS_OUTPUT_MAX_SIZE)
		size *= 2;
	/* an equal share of the total, a power of two */
	while (nbuffers > 1 && share * nbuffers > GS_OUTPUT_TOTAL_MAX && share > GS_OUTPUT_MIN_SIZE)
		share /= 2;
	return (uint32_t)(size < share ? size : share);
}

uint32_t gs_plan_largest_event(const struct gs_plan *p)
{
	uint32_t most = 0;

	for (size_t i = 0; i < p->ntraces; i++)
		for (size_t k = 0; k < p->traces[i].nprobes; k++) {
			const struct gs_program *prog = p->traces[i].probes[k].prog;
			uint32_t n = prog ? gs_program_event_size(prog) : 0;

			most = n > most ? n : most;
		}
	return most;
}

bool rt_plan_size_output(struct gs_plan *p)
{
	struct gs_program_opts *o = &p->program;
	uint32_t largest = gs_plan_largest_event(p);
	size_t probes = gs_plan_probe_count(p);
	int ncpus;

	if (o->output == GS_OUTPUT_RINGBUF && !o->ringbuf_size) {
		o->ringbuf_size = gs_output_default_size(largest, probes);
		return o->ringbuf_size != GS_DEFAULT_RINGBUF_SIZE;
	}
	if (o->output == GS_OUTPUT_PERF && !o->perf_page_count) {
		ncpus = libbpf_num_possible_cpus();
		o->perf_page_count = gs_output_default_size(largest, probes *
							    (size_t)(ncpus > 0 ? ncpus : 1)) / PAGE;
		return false; /* the programs never see the perf buffers' size */
	}
	return false;
}
