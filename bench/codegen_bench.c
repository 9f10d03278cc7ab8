/* Code generation cost: build + finish (+ the static check gs_program_build
 * runs) of every codegen test spec, in ringbuf mode, best of several
 * rounds. Prints BENCH codegen.event.build_us.<spec> and the size of each
 * program (targets: print_format <= 5 us; two `bt` at depth 128 <= 50 us),
 * the backtrace code per frame, and, where bpf() is permitted, what the
 * verifier walks for the backtrace programs and for 21 and 200 conditions
 * (kernel.verified_insns.if200 <= 200,000). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "cg_specs.h"
#include <gs/internal/program.h>
#include "kernel/kload.h"

#define ROUNDS 20
#define REPS 200

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static const struct gs_cg_case *find(const char *name)
{
	for (size_t i = 0; i < gs_cg_ncases; i++)
		if (strcmp(gs_cg_cases[i].name, name) == 0)
			return &gs_cg_cases[i];
	return NULL;
}

static struct gs_program *build(const char *name)
{
	const struct gs_cg_case *c = find(name);
	struct gs_program_opts o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
	struct gs_program *p = NULL;
	struct gs_error err;

	if (gs_program_build(c->spec, &o, &p, &err))
		fprintf(stderr, "codegen_bench: %s: %s\n", name, err.msg);
	return p;
}

/* verified_insns of a program (main or step), or 0 when it cannot load. */
static uint32_t verified(struct gs_program *p, bool step)
{
	struct gs_kload_desc d = { .name = step ? p->step_name : p->name,
				   .type = BPF_PROG_TYPE_KPROBE, .maps = p->maps,
				   .nmaps = p->nmaps };
	struct gs_kload k;
	struct gs_error err;
	uint32_t n = 0;

	gs_kload_init(&k);
	if (gs_kload_create_maps(&k, &d, &err) == 0 &&
	    gs_kload_prog(&k, &d, step ? p->step : &p->main, &err) == 0)
		n = k.verified_insns;
	gs_kload_fini(&k);
	return n;
}

/* Best-of time of building a two-`bt` depth-128 spec with module ranges
 * without the static check: what the code generator itself costs, for the
 * bpf_loop walker (the default) and the tail-call walker. */
static void build_unchecked(const char *name, const char *metric)
{
	const struct gs_cg_case *c = find(name);
	struct gs_program_opts o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
	double best = -1;

	o.skip_check = true;
	for (int round = 0; round < ROUNDS; round++) {
		double t0 = now_ns(), t;

		for (int rep = 0; rep < REPS; rep++) {
			struct gs_program *p;

			if (gs_program_build(c->spec, &o, &p, NULL))
				return;
			gs_program_free(p);
		}
		t = (now_ns() - t0) / REPS;
		if (best < 0 || t < best)
			best = t;
	}
	printf("BENCH %s %.2f us\n", metric, best / 1000.0);
}

static void backtrace_figures(void)
{
	struct gs_program *d2 = build("bt_depth2"), *d5 = build("bt_depth5");
	struct gs_program *two = build("bt_two"), *deep = build("bt_depth128");
	struct gs_error err;

	if (!d2 || !d5 || !two || !deep)
		return;
	build_unchecked("bt_loop_two", "codegen.bt.build_us.depth128");
	build_unchecked("bt_two", "codegen.bt.build_us.depth128.tailcall");
	printf("BENCH codegen.bt.insns.main %zu insns\n", deep->main.len);
	printf("BENCH codegen.bt.insns.step %zu insns\n", deep->step->len);
	/* frames 2..4 of depth 5 are the runtime frames the main program adds */
	printf("BENCH codegen.bt.insns_per_frame %.1f insns\n",
	       (double)(d5->main.len - d2->main.len) / 3);
	printf("BENCH codegen.bt.insns.main.two_bt_modules %zu insns\n", two->main.len);
	if (gs_kload_bpf_permitted(&err) == 0) {
		printf("BENCH kernel.bt.verified_insns.main %u insns\n", verified(deep, false));
		printf("BENCH kernel.bt.verified_insns.step %u insns\n", verified(deep, true));
		printf("BENCH kernel.bt.verified_insns.main.two_bt_modules %u insns\n",
		       verified(two, false));
	} else {
		printf("# kernel figures skipped: %s\n", err.msg);
	}
	gs_program_free(d2);
	gs_program_free(d5);
	gs_program_free(two);
	gs_program_free(deep);
}

/* Conditions over pointer dereferences (cg_many_ifs.c): what the verifier
 * walks for 21 (GhostScope's script that did not load) and 200 (target
 * <= 200,000 insns), and the program sizes. */
static void condition_figures(void)
{
	static const size_t counts[] = { 21, 200 };
	struct gs_error err;

	if (gs_kload_bpf_permitted(&err)) {
		printf("# kernel.verified_insns.if* skipped: %s\n", err.msg);
		return;
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(counts); i++) {
		struct gs_program_opts o = { .sz = sizeof(o) };
		struct gs_trace_spec *spec = gs_cgv_many_ifs(counts[i]);
		struct gs_program *p = NULL;

		if (!spec || gs_program_build(spec, &o, &p, &err)) {
			printf("# kernel.verified_insns.if%zu skipped: %s\n", counts[i],
			       spec ? err.msg : "out of memory");
		} else {
			printf("BENCH codegen.event.insns.if%zu %zu insns\n", counts[i], p->main.len);
			printf("BENCH kernel.verified_insns.if%zu %u insns\n", counts[i],
			       verified(p, false));
		}
		gs_program_free(p);
		gs_cgv_many_ifs_free(spec);
	}
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
		if (strcmp(c->name, "bt_two") == 0)
			printf("BENCH codegen.bt.build_checked_us.depth128 %.2f us\n", best / 1000.0);
		printf("BENCH codegen.event.build_us.%s %.2f us\n", c->name, best / 1000.0);
		printf("BENCH codegen.event.insns.%s %zu insns\n", c->name, insns);
	}
	backtrace_figures();
	condition_figures();
	return 0;
}
