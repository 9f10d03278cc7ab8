/* Code generation cost: build + finish (+ the static check gs_program_build
 * runs) of every codegen test spec, in ringbuf mode, best of several
 * rounds. Prints BENCH codegen.event.build_us.<spec> and the size of each
 * program. Target: <= 5 us for print_format. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cg_specs.h"

#define ROUNDS 20
#define REPS 200

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(void)
{
	for (size_t i = 0; i < gs_cg_ncases; i++) {
		const struct gs_cg_case *c = &gs_cg_cases[i];
		struct gs_program_opts o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
		double best = -1;
		size_t insns = 0;

		for (int round = 0; round < ROUNDS; round++) {
			double t0 = now_ns(), t;

			for (int rep = 0; rep < REPS; rep++) {
				struct gs_program *p;
				struct gs_error err;

				if (gs_program_build(c->spec, &o, &p, &err)) {
					fprintf(stderr, "codegen_bench: %s: %s\n", c->name, err.msg);
					return 1;
				}
				insns = p->main.len;
				gs_program_free(p);
			}
			t = (now_ns() - t0) / REPS;
			if (best < 0 || t < best)
				best = t;
		}
		printf("BENCH codegen.event.build_us.%s %.2f us\n", c->name, best / 1000.0);
		printf("BENCH codegen.event.insns.%s %zu insns\n", c->name, insns);
	}
	return 0;
}
