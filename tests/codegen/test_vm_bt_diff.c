/* Differential check of the backtrace code generator: seeded random scenarios
 * (bt_scenario.c) unwound by the generated programs on the test VM and by the
 * spec-6 reference walker (bt_reference.c); every field must agree. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/program.h>
#include <gs/decode.h>

#include "base.h"
#include "bt_scenario.h"
#include "cg_specs.h"
#include "cg_vm.h"

#define SCENARIOS_PER_SPEC 400 /* GS_BT_DIFF_SCENARIOS overrides */

/* One spec's program, built once, and the decoded result of one run. */
struct harness {
	const char *name;
	struct gs_program *p;
	struct bt_sc_shape shape;
	uint8_t flags[2]; /* of its top-level bt statements */
	size_t nbt;
	struct gs_vm vm;
	uint32_t map_ids[16];
	struct bt_ref_backtrace got[2];
	size_t ngot, nevents;
};

/* What the reference walks of every spec ended with, so the last test can
 * show the agreement covered each stop reason. */
static struct {
	unsigned scenarios, walks, in_step, full_depth;
	unsigned step_no_row_unresolved; /* the step program's missing-row quirk */
	unsigned outcome[GS_BT_NO_UNWIND_ROWS_FOR_PC + 1][GS_BT_ERROR_NEXT_CFA_NOT_ADVANCING + 1];
} cover;

static void open_harness(struct harness *h, const char *name)
{
	const struct gs_cg_case *c = NULL;
	struct gs_program_opts o;
	struct gs_error err;

	memset(h, 0, sizeof(*h));
	h->name = name;
	for (size_t i = 0; i < gs_cg_ncases; i++)
		if (strcmp(gs_cg_cases[i].name, name) == 0)
			c = &gs_cg_cases[i];
	assert_non_null(c);
	o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
	if (gs_program_build(c->spec, &o, &h->p, &err))
		fail_msg("%s: %s", name, err.msg);
	h->shape = (struct bt_sc_shape){ .probe_cookie = c->spec->bt->cookie,
		.probe_pc = c->spec->bt->pc, .probe_row = c->spec->bt->first_row,
		.depth = h->p->backtrace_depth, .nrows = c->spec->bt->nrows,
		.module_ranges = c->spec->bt->module_ranges,
		.row_entries = h->p->maps[h->p->map_index[GS_MAP_BT_ROWS]].max_entries };
	if (h->shape.module_ranges)
		h->shape.range_entries = h->p->maps[h->p->map_index[GS_MAP_RANGES]].max_entries;
	for (size_t i = 0; i < c->spec->nbody; i++) /* top-level bt statements only */
		if (c->spec->body[i].kind == GS_STMT_BACKTRACE && h->nbt < 2)
			h->flags[h->nbt++] = c->spec->body[i].bt_flags;
}

/* ---- the VM side ---------------------------------------------------------- */

static void put(struct harness *h, enum gs_map_slot kind, const void *key, const void *value)
{
	struct gs_error err;

	if (gs_vm_map_update(&h->vm, h->map_ids[h->p->map_index[kind]], key, value, &err))
		fail_msg("%s: %s", h->name, err.msg);
}

static int keep_event(void *arg, const struct gs_event *ev)
{
	struct harness *h = arg;

	h->nevents++;
	for (size_t i = 0; i < ev->ninsts && h->ngot < 2; i++) {
		const struct gs_inst *in = &ev->insts[i];
		struct bt_ref_backtrace *b = &h->got[h->ngot];

		if (in->type != GS_INST_BACKTRACE)
			continue;
		*b = (struct bt_ref_backtrace){ in->backtrace.requested_depth,
			in->backtrace.frame_count, in->backtrace.flags, in->backtrace.status,
			in->backtrace.error_code, { { 0 } }, false, false };
		memcpy(b->frames, in->backtrace.frames, b->frame_count * sizeof(b->frames[0]));
		h->ngot++;
	}
	return 0;
}

/* The scenario's maps, as the loader would write them for pid BT_SC_TGID. */
static void put_maps(struct harness *h, const struct bt_scenario *sc)
{
	uint64_t cookie = sc->w.probe_cookie, b = sc->w.offsets_bias;
	struct gs_proc_module_key key = { BT_SC_TGID, 0, (uint32_t)cookie,
					  (uint32_t)(cookie >> 32) };
	uint32_t pid = BT_SC_TGID;

	if (sc->w.offsets_found)
		put(h, GS_MAP_PROC_OFFSETS, &key, &(struct gs_proc_module_offsets){ b, b, b, b,
			sc->offsets_base, sc->offsets_size });
	for (uint32_t i = 0; i < sc->w.rows_written; i++)
		put(h, GS_MAP_BT_ROWS, &i, &sc->rows[i]);
	if (!sc->w.module_ranges)
		return;
	for (size_t i = 0; i < sc->w.nmodule_rows; i++)
		put(h, GS_MAP_BT_ROW_RANGES, &sc->module_rows[i].cookie, &sc->module_rows[i].range);
	if (sc->w.meta_found)
		put(h, GS_MAP_RANGE_META, &pid, &(struct gs_proc_module_range_meta){
			sc->active_slot, sc->w.meta_count });
	for (uint32_t i = 0; i < sc->w.nranges; i++) {
		struct gs_proc_module_range_key rkey = { BT_SC_TGID, sc->active_slot, i, 0 };

		put(h, GS_MAP_RANGES, &rkey, &sc->ranges[i]);
		rkey.slot ^= 1;
		put(h, GS_MAP_RANGES, &rkey, &sc->stale[i]);
	}
}

/* Loads the programs into a fresh VM, gives it the scenario's maps and
 * stack, runs the probe, and decodes what it emitted. */
static void run_vm(struct harness *h, const struct bt_scenario *sc)
{
	const struct gs_program *p = h->p;
	const struct gs_trace_context *contexts[32] = { 0 };
	GS_OPTS(gs_decoder_opts, dopts, .contexts = contexts, .ncontexts = 32);
	struct gs_decoder *dec;
	struct gs_error err;
	uint64_t regs[21] = { 0 }, r0;
	int prog, step;

	gs_vm_init(&h->vm);
	h->vm.tgid = h->vm.pid = BT_SC_TGID;
	prog = gs_cg_vm_load(&h->vm, p, h->map_ids, &step, &err);
	if (prog < 0)
		fail_msg("%s: %s", h->name, err.msg);
	put_maps(h, sc);
	bt_sc_map_stack(&h->vm, sc);
	regs[GS_PT_REGS_IP / 8] = sc->w.ip;
	regs[GS_PT_REGS_SP / 8] = sc->w.sp;
	regs[GS_PT_REGS_BP / 8] = sc->w.bp;
	if (gs_vm_run(&h->vm, (uint32_t)prog, regs, sizeof(regs), &r0, &err))
		fail_msg("scenario %u (%s): vm: %s", sc->index, h->name, err.msg);
	contexts[p->trace_id] = &p->ctx;
	h->ngot = h->nevents = 0;
	assert_int_equal(gs_decoder_new(&dopts, &dec, &err), 0);
	for (size_t i = 0; i < h->vm.nrecords; i++)
		if (gs_decoder_feed(dec, h->vm.records[i].data, h->vm.records[i].size, keep_event,
				    h, &err) < 0)
			fail_msg("scenario %u (%s): decode: %s", sc->index, h->name, err.msg);
	gs_decoder_free(dec);
	gs_vm_fini(&h->vm);
}

/* ---- comparing and reporting ------------------------------------------------ */

static struct bt_sc_view view(const struct bt_ref_backtrace *b)
{
	return (struct bt_sc_view){ b->requested_depth, b->frame_count, b->flags, b->status,
				    b->error_code, b->frames };
}

static void print_scenario(const struct harness *h, struct bt_scenario *sc)
{
	fprintf(stderr, "scenario %u (%s, depth %u): ip %#" PRIx64 " sp %#" PRIx64 " bp %#" PRIx64
		"; probe offsets %s, bias %#" PRIx64 ", [%#" PRIx64 ", +%#" PRIx64 ")\n", sc->index,
		h->name, h->shape.depth, sc->w.ip, sc->w.sp, sc->w.bp,
		sc->w.offsets_found ? "found" : "missing", sc->w.offsets_bias, sc->offsets_base,
		sc->offsets_size);
	bt_sc_print_rows(sc);
	for (size_t i = 0; i < sc->w.nmodule_rows; i++)
		fprintf(stderr, "  module rows %016" PRIx64 ": [%u, %u)\n",
			sc->module_rows[i].cookie, sc->module_rows[i].range.row_start,
			sc->module_rows[i].range.row_end);
	if (sc->w.module_ranges)
		fprintf(stderr, "  range meta: %s, slot %u, count %u\n", sc->w.meta_found ?
			"present" : "missing", sc->active_slot, sc->w.meta_count);
	for (uint32_t i = 0; sc->w.module_ranges && i < sc->w.nranges; i++)
		fprintf(stderr, "  range %u: [%#" PRIx64 ", %#" PRIx64 ") bias %#" PRIx64
			" cookie %08x%08x\n", i, sc->ranges[i].base, sc->ranges[i].end,
			sc->ranges[i].text, sc->ranges[i].cookie_hi, sc->ranges[i].cookie_lo);
	fprintf(stderr, "  stack words the reference read:\n");
	sc->log_reads = false;
	for (size_t i = 0; i < sc->nreads; i++) {
		uint64_t v;

		if (bt_sc_read(sc, sc->reads[i], &v))
			fprintf(stderr, "    [%#" PRIx64 "] = %#" PRIx64 "\n", sc->reads[i], v);
		else
			fprintf(stderr, "    [%#" PRIx64 "] unmapped\n", sc->reads[i]);
	}
}

static void account(const struct harness *h, const struct bt_ref_backtrace *want)
{
	cover.scenarios++;
	for (size_t b = 0; b < h->nbt; b++) {
		const struct bt_ref_backtrace *w = &want[b];

		cover.walks++;
		cover.outcome[w->status % 9][w->error_code % 7]++;
		cover.in_step += w->in_step;
		cover.full_depth += w->frame_count == h->shape.depth;
		cover.step_no_row_unresolved += w->in_step && !w->resolved &&
						w->status == GS_BT_NO_UNWIND_ROWS_FOR_PC;
	}
}

/* Runs one scenario on both sides into want (the reference); false, with
 * the scenario and both results printed, when they differ. */
static bool check_scenario(struct harness *h, struct bt_scenario *sc,
			   struct bt_ref_backtrace want[2])
{
	bool ok;

	sc->log_reads = true;
	sc->nreads = 0;
	bt_ref_event(&sc->w, h->shape.depth, h->flags, h->nbt, want);
	run_vm(h, sc);
	ok = h->nevents == 1 && h->ngot == h->nbt;
	for (size_t b = 0; ok && b < h->nbt; b++) {
		struct bt_sc_view x = view(&want[b]), g = view(&h->got[b]);

		ok = bt_sc_same(&x, &g);
	}
	if (ok)
		return true;
	print_scenario(h, sc);
	fprintf(stderr, "  %zu events, %zu backtraces decoded\n", h->nevents, h->ngot);
	for (size_t b = 0; b < h->nbt; b++) {
		struct bt_sc_view x = view(&want[b]), g = b < h->ngot ? view(&h->got[b]) : x;

		bt_sc_print("expected", &x, &g);
		if (b < h->ngot)
			bt_sc_print("actual  ", &g, &x);
	}
	return false;
}

/* Generates and checks scenarios [first, first + count) on one spec. */
static void check_spec(const char *name, unsigned first)
{
	struct harness h;
	struct bt_scenario *sc = malloc(sizeof(*sc));
	const char *env = getenv("GS_BT_DIFF_SCENARIOS");
	unsigned count = env ? (unsigned)strtoul(env, NULL, 0) : SCENARIOS_PER_SPEC;
	unsigned mismatches = 0;

	assert_non_null(sc);
	open_harness(&h, name);
	for (unsigned i = first; i < first + count; i++) {
		struct bt_ref_backtrace want[2];

		bt_sc_generate(sc, &h.shape, i);
		mismatches += !check_scenario(&h, sc, want);
		account(&h, want);
	}
	gs_program_free(h.p);
	free(sc);
	if (mismatches)
		fail_msg("%s: %u of %u scenarios differ from the reference walker", name,
			 mismatches, count);
}

static void test_inline_depth5_matches_the_reference(void **state)
{
	(void)state;
	check_spec("bt_depth5", 0);
}

static void test_depth7_handoff_to_the_step_program_matches_the_reference(void **state)
{
	(void)state;
	check_spec("bt_depth7", 100000);
}

static void test_depth128_tail_calls_match_the_reference(void **state)
{
	(void)state;
	check_spec("bt_depth128", 200000);
}

static void test_module_ranges_depth5_match_the_reference(void **state)
{
	(void)state;
	check_spec("bt_modules_depth5", 300000);
}

static void test_module_ranges_depth128_match_the_reference(void **state)
{
	(void)state;
	check_spec("bt_modules_depth128", 400000);
}

static void test_two_chained_statements_share_the_budget_like_the_reference(void **state)
{
	(void)state;
	check_spec("bt_two", 500000);
}

/* With module ranges, every caller frame's module comes from
 * proc_module_ranges, even a frame back in the probe module. Here the
 * probe module's offsets are known but the pid has no range snapshot yet:
 * frame 1 stays unresolved (pc = raw ip), its row lookup at the raw ip
 * fails, and the walk stops with OffsetsUnavailable after two frames. */
static void test_probe_module_callers_resolve_through_the_range_maps_only(void **state)
{
	struct harness h;
	struct bt_scenario *sc = malloc(sizeof(*sc));
	struct bt_ref_backtrace want[2];
	const uint64_t bias = 0x555555554000ull, sp = BT_SC_STACK + 0x100;
	bool ok;

	(void)state;
	assert_non_null(sc);
	open_harness(&h, "bt_modules_depth5");
	bt_sc_init(sc, &h.shape);
	sc->mods[0] = (struct bt_sc_module){ h.shape.probe_cookie, bias, 0, 1 };
	sc->nmods = 1;
	sc->rows[0] = (struct gs_unwind_row){ .pc_start = 0x2000, .pc_end = 0x2100,
		.cfa_offset = 32, .ra_offset = -8, .cfa_register = GS_DWARF_REG_RSP,
		.ra_register = GS_DWARF_REG_RIP, .rbp_register = GS_DWARF_REG_RBP,
		.ra_kind = GS_RECOVERY_AT_CFA_OFFSET, .rbp_kind = GS_RECOVERY_SAME_VALUE };
	sc->w.rows_written = 1;
	sc->module_rows[0] = (struct bt_ref_module_rows){ h.shape.probe_cookie, { 0, 1 } };
	sc->w.nmodule_rows = 1;
	sc->w.offsets_found = true;
	sc->w.offsets_bias = sc->offsets_base = bias;
	sc->offsets_size = 0x100000;
	sc->w.ip = bias + h.shape.probe_pc;
	sc->w.sp = sp;
	bt_sc_poke(sc, sp + 8, bias + 0x2010); /* frame 1: function 0 ... */
	bt_sc_poke(sc, sp + 16 + 32 - 8, 0);   /* ... which returns to 0 */
	ok = check_scenario(&h, sc, want);
	assert_int_equal(want[0].frame_count, 2);
	assert_int_equal(want[0].status, GS_BT_OFFSETS_UNAVAILABLE);
	assert_int_equal(want[0].frames[1].pc, bias + 0x2010);
	gs_program_free(h.p);
	free(sc);
	if (!ok)
		fail_msg("a caller in the probe module was resolved without proc_module_ranges");
}

/* Runs after the spec tests: their scenarios reached every stop of spec
 * 6.13 that the generated walk can produce, so the agreement means something. */
static void test_scenarios_reach_every_stop_reason(void **state)
{
	static const uint8_t want[][2] = {
		{ GS_BT_COMPLETE, 0 }, { GS_BT_TRUNCATED, 0 }, { GS_BT_OFFSETS_UNAVAILABLE, 0 },
		{ GS_BT_READ_ERROR, 1 }, { GS_BT_READ_ERROR, 2 }, { GS_BT_INVALID_FRAME, 3 },
		{ GS_BT_INVALID_FRAME, 4 }, { GS_BT_INVALID_FRAME, 5 }, { GS_BT_INVALID_FRAME, 6 },
		{ GS_BT_NO_UNWIND_ROWS_FOR_PC, 0 },
	};

	(void)state;
	if (getenv("GS_BT_DIFF_SCENARIOS"))
		skip();
	print_message("%u scenarios, %u walks: %u went on in the step program, %u reached the "
		      "requested depth, %u hit the step program's missing-row quirk\n",
		      cover.scenarios, cover.walks, cover.in_step, cover.full_depth,
		      cover.step_no_row_unresolved);
	assert_true(cover.scenarios >= 2000);
	assert_true(cover.in_step > 0 && cover.full_depth > 0 && cover.step_no_row_unresolved > 0);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(want); i++)
		if (!cover.outcome[want[i][0]][want[i][1]])
			fail_msg("no scenario ended with status %u, error code %u", want[i][0],
				 want[i][1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_depth5_matches_the_reference),
		cmocka_unit_test(test_depth7_handoff_to_the_step_program_matches_the_reference),
		cmocka_unit_test(test_depth128_tail_calls_match_the_reference),
		cmocka_unit_test(test_module_ranges_depth5_match_the_reference),
		cmocka_unit_test(test_module_ranges_depth128_match_the_reference),
		cmocka_unit_test(test_two_chained_statements_share_the_budget_like_the_reference),
		cmocka_unit_test(test_probe_module_callers_resolve_through_the_range_maps_only),
		cmocka_unit_test(test_scenarios_reach_every_stop_reason),
	};

	return cmocka_run_group_tests_name("vm-backtrace-diff", tests, NULL, NULL);
}
