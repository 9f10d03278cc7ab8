/* The label form loses nothing: for every program the golden suite dumps
 * (each sample program of the assembler, each codegen spec in ringbuf and
 * perf mode, with and without reads that fault pages in, main, step and
 * entry programs), its label form with the labels resolved back to
 * offsets (gs_golden_indexed) is its indexed dump, instruction for
 * instruction. Then the converter itself on text that pins its rules. */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/asm.h>
#include <gs/internal/program.h>
#include <gs/disasm.h>

#include "base.h"
#include "cg_specs.h"
#include "golden/golden.h"
#include "progs/sample_progs.h"

static char *dump_indexed(const struct gs_asm *a)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	assert_int_equal(gs_asm_dump_flags(a, GS_DUMP_INDEXED, f), 0);
	assert_int_equal(fclose(f), 0);
	return s;
}

/* Whether a's label form comes back as its indexed form; prints the first
 * line that does not. */
static bool round_trips(const char *what, const struct gs_asm *a)
{
	char *label = gs_asm_dump_str(a), *indexed = dump_indexed(a), *back;
	char why[256];
	bool same;

	assert_non_null(label);
	back = gs_golden_indexed(label, why, sizeof(why));
	if (!back)
		fprintf(stderr, "%s: %s\n", what, why);
	same = back && strcmp(back, indexed) == 0;
	if (back && !same) {
		size_t k = 0, line = 1;

		for (; back[k] && back[k] == indexed[k]; k++)
			line += back[k] == '\n';
		fprintf(stderr, "%s: line %zu of the indexed dump differs after the round trip\n",
			what, line);
	}
	free(label);
	free(indexed);
	free(back);
	return same;
}

static void test_every_sample_program_round_trips(void **state)
{
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < gs_test_nprogs; i++) {
		struct gs_asm a;
		struct gs_error err;

		gs_asm_init(&a);
		if (gs_test_prog_build(&gs_test_progs[i], &a, &err) != 0)
			fail_msg("%s: %s", gs_test_progs[i].name, err.msg);
		bad += !round_trips(gs_test_progs[i].name, &a);
		gs_asm_fini(&a);
	}
	assert_int_equal(bad, 0);
}

/* Builds c in one mode and round-trips each of its programs, counting
 * them in *built. Reads that fault pages in are refused to some specs
 * (the tail-call unwinder's): those have no such program to dump. */
static size_t codegen_case_fails(const struct gs_cg_case *c, enum gs_output_kind output,
				 bool fault_in, size_t *built)
{
	struct gs_program_opts o = gs_cg_case_opts(c, output);
	struct gs_program *p;
	struct gs_error err;
	char what[160];
	size_t bad = 0;

	o.fault_in = fault_in;
	if (gs_program_build(c->spec, &o, &p, &err)) {
		if (fault_in)
			return 0;
		fail_msg("%s: %s", c->name, err.msg);
	}
	++*built;
	snprintf(what, sizeof(what), "%s (%s%s)", c->name,
		 output == GS_OUTPUT_PERF ? "perf" : "ringbuf", fault_in ? ", fault-in" : "");
	bad += !round_trips(what, &p->main);
	if (p->has_step)
		bad += !round_trips(what, p->step);
	if (p->entry)
		bad += !round_trips(what, p->entry);
	gs_program_free(p);
	return bad;
}

static void test_every_codegen_program_round_trips(void **state)
{
	const struct { const struct gs_cg_case *cases; size_t n; } sets[] = {
		{ gs_cg_cases, gs_cg_ncases },
		{ gs_cg_value_cases, gs_cg_value_ncases },
	};
	size_t bad = 0, built = 0;

	(void)state;
	for (size_t s = 0; s < 2; s++) {
		for (size_t i = 0; i < sets[s].n; i++) {
			const struct gs_cg_case *c = &sets[s].cases[i];

			bad += codegen_case_fails(c, GS_OUTPUT_RINGBUF, false, &built);
			bad += codegen_case_fails(c, GS_OUTPUT_PERF, false, &built);
			bad += codegen_case_fails(c, GS_OUTPUT_RINGBUF, true, &built);
		}
	}
	/* Every spec in both modes, and some with reads that fault in. */
	assert_true(gs_cg_ncases > 0);
	assert_true(built > 2 * (gs_cg_ncases + gs_cg_value_ncases));
	assert_int_equal(bad, 0);
}

/* A conditional jump past what 16 bits reach once the kernel has inlined
 * the helpers is widened by gs_asm_finish() into `if ... goto +1; goto +1;
 * gotol L`: jumps with raw offsets, which the label form shows by local
 * labels, and which must come back as the same offsets. */
static void test_widened_jump_round_trips_through_local_labels(void **state)
{
	struct gs_asm a;
	struct gs_error err;
	struct gs_label far;
	char *label;

	(void)state;
	gs_asm_init(&a);
	far = gs_asm_label(&a, "far");
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R0, 0, far);
	for (int i = 0; i < 3000; i++)
		gs_asm_call(&a, BPF_FUNC_ktime_get_ns);
	gs_asm_bind(&a, far);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), 0);
	label = gs_asm_dump_str(&a);
	assert_non_null(label);
	assert_true(base_has_prefix(label,
				    "    (b7) r0 = 0\n"
				    "    (15) if r0 == 0x0 goto <~1>\n"
				    "    (05) goto <~2>\n"
				    "~1:\n"
				    "    (06) gotol <far>\n"
				    "~2:\n"
				    "    (85) call bpf_ktime_get_ns#5\n"));
	assert_true(round_trips("widened", &a));
	free(label);
	gs_asm_fini(&a);
}

/* The converter's rules on text written by hand: indices count an
 * ld_imm64 twice, a jump's `<name>` becomes `pc+N <name>` (`pc+N` alone
 * for a local label, whose line goes), the note is padded to its column
 * again, and a comment line starts the next program at index 0. */
static void test_converter_resolves_labels_per_program(void **state)
{
	char why[128];
	char *s = gs_golden_indexed(
		"    (18) r1 = 0x1                                       ; a note\n"
		"    (05) goto <done>\n"
		"~1:\n"
		"    (05) goto <~1>\n"
		"done:\n"
		"    (95) exit\n"
		"\n"
		"; step program x\n"
		"back:\n"
		"    (85) call <back>                                    ; again\n",
		why, sizeof(why));

	(void)state;
	assert_non_null(s);
	assert_string_equal(s,
		"    0: (18) r1 = 0x1                                    ; a note\n"
		"    2: (05) goto pc+1 <done>\n"
		"    3: (05) goto pc-1\n"
		"done:\n"
		"    4: (95) exit\n"
		"\n"
		"; step program x\n"
		"back:\n"
		"    0: (85) call pc-1 <back>                            ; again\n");
	free(s);
}

static void test_converter_refuses_a_label_of_another_program(void **state)
{
	char why[128];

	(void)state;
	assert_null(gs_golden_indexed("done:\n    (95) exit\n\n; step program x\n"
				      "    (05) goto <done>\n", why, sizeof(why)));
	assert_string_equal(why, "instruction 0 jumps to <done>, which labels no instruction "
				 "of its program");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_sample_program_round_trips),
		cmocka_unit_test(test_every_codegen_program_round_trips),
		cmocka_unit_test(test_widened_jump_round_trips_through_local_labels),
		cmocka_unit_test(test_converter_resolves_labels_per_program),
		cmocka_unit_test(test_converter_refuses_a_label_of_another_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
