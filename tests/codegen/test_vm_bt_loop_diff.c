/* Differential check of the bpf_loop walker: the seeded scenarios of the
 * tail-call walker's test (bt_scenario.c) -- rows as compilers emit them
 * and odd ones, one to three modules, corrupted call chains -- with each
 * module's rows turned into compact tables and the process's module
 * snapshot written by the runtime's writers (btrows.c) into the VM's maps;
 * the generated walker on the VM and the reference walker over the same
 * maps (bt_loop_reference.c) must agree on every field of every frame. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/unwind.h>
#include <gs/internal/program.h>
#include <gs/decode.h>

#include "base.h"
#include "bt_loop_reference.h"
#include "bt_scenario.h"
#include "cg_specs.h"
#include "cg_vm.h"

/* One spec's program, built once, and the decoded result of one run. */
struct harness {
	const char *name;
	struct gs_program *p;
	struct bt_sc_shape shape;
	uint8_t flags[2];
	size_t nbt;
	struct gs_vm vm;
	uint32_t map_ids[32];
	struct gs_cg_vm_maps maps;
	struct bt_loop_backtrace got[2];
	size_t ngot, nevents;
};

/* What the scenarios reached, so that agreement means something. */
static struct {
	unsigned scenarios, walks, full_depth, multi_module, unknown_frames, deep, fp_steps;
	unsigned outcome[GS_BT_NO_UNWIND_ROWS_FOR_PC + 1][GS_BT_ERROR_FRAME_POINTER_CHAIN + 1];
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
	assert_true(h->p->nmaps <= 32);
	h->shape = (struct bt_sc_shape){ .probe_cookie = c->spec->bt->cookie,
		.probe_pc = c->spec->bt->pc, .probe_row = c->spec->bt->first_row,
		.depth = h->p->backtrace_depth, .nrows = c->spec->bt->nrows,
		.module_ranges = true, .row_entries = 1u << 16, .range_entries = 64 };
	for (size_t i = 0; i < c->spec->nbody; i++) /* top-level bt statements only */
		if (c->spec->body[i].kind == GS_STMT_BACKTRACE && h->nbt < 2)
			h->flags[h->nbt++] = c->spec->body[i].bt_flags;
}

/* ---- the maps, as the runtime writes them --------------------------------- */

static uint32_t max_entries(const struct harness *h, enum gs_map_slot kind)
{
	return h->p->maps[h->p->map_index[kind]].max_entries;
}

/* Some rows get the rules beyond the reference's, chosen by a hash of their
 * start so a scenario stays the same: a CFA read through memory, expression
 * rules for the return address and rbp, rbx/r12-r15 saved at the CFA, a
 * signal frame, an undefined return address. */
static void rules_beyond_the_reference(struct gs_cfi_row *r)
{
	uint64_t h = (r->pc_start + 1) * 0x9e3779b97f4a7c15ull;
	uint8_t base = (h >> 40) & 1 ? GS_DWARF_REG_RSP : GS_DWARF_REG_RBP;

	if (((h >> 8) & 7) == 0)
		r->rules.cfa.kind = GS_BT_CFA_REG_DEREF;
	if (((h >> 11) & 7) == 0)
		r->rules.ra = (struct gs_bt_rule){ .kind = GS_RECOVERY_EXPRESSION, .reg = base,
						   .off = 8 * (int32_t)((h >> 44) & 7) };
	if (((h >> 14) & 7) == 0)
		r->rules.rbp = (struct gs_bt_rule){ .kind = (h >> 47) & 1 ? GS_RECOVERY_EXPRESSION :
						    GS_RECOVERY_VAL_EXPRESSION, .reg = base,
						    .off = 8 * (int32_t)((h >> 48) & 3) };
	for (int i = 0; i < GS_BT_NSAVED; i++)
		if (((h >> (17 + 2 * i)) & 3) == 0)
			r->rules.saved[i] = (struct gs_bt_rule){ .kind = GS_RECOVERY_AT_CFA_OFFSET,
								 .off = -16 - 8 * i };
	if (((h >> 27) & 15) == 0)
		r->flags = GS_CFI_ROW_SIGNAL;
	if (((h >> 31) & 31) == 0)
		r->rules.ra.kind = GS_RECOVERY_UNDEFINED;
}

/* Each module's rows (the probe module's with the probe's own row first)
 * as compact tables, unless the scenario leaves its rows out; then the
 * process's module snapshot, unless the scenario has none. */
static void put_maps(struct harness *h, const struct bt_scenario *sc)
{
	struct gs_map_writer w = gs_cg_vm_writer(&h->maps);
	struct gs_bt_table_caps caps = { max_entries(h, GS_MAP_BT_CROWS),
		max_entries(h, GS_MAP_BT_PAGES), max_entries(h, GS_MAP_BT_OVERFLOW) };
	struct gs_range_item items[BT_SC_MAX_MODULES];
	struct gs_error err;

	for (size_t m = 0; m < sc->nmods; m++) {
		const struct bt_sc_module *mod = &sc->mods[m];
		struct gs_cfi_row rows[BT_SC_MAX_ROWS + 1];
		size_t n = 0;
		struct gs_bt_rowtab t;
		bool listed = false;

		for (size_t i = 0; i < sc->w.nmodule_rows; i++)
			listed |= sc->module_rows[i].cookie == mod->cookie;
		if (!listed)
			continue;
		if (m == 0)
			gs_cfi_row_from_unwind_row(&sc->w.probe_row, &rows[n++]);
		for (uint32_t j = 0; j < mod->nfns; j++) {
			gs_cfi_row_from_unwind_row(&sc->rows[mod->row_start + j], &rows[n]);
			rules_beyond_the_reference(&rows[n++]);
		}
		if (gs_bt_rowtab_build(rows, n, &t, &err) ||
		    gs_bt_rowtab_write(&w, mod->cookie, &t, &caps, &err))
			fail_msg("scenario %u: rows: %s", sc->index, err.msg);
		gs_bt_rowtab_free(&t);
	}
	/* The session opens the programs' gate once the maps are written. */
	if (w.update(w.ctx, GS_MAP_NAME_BT_GEN, &(uint32_t){ 0 }, &(struct gs_bt_gen){ .open = 1 }))
		fail_msg("scenario %u: cannot set %s", sc->index, GS_MAP_NAME_BT_GEN);
	if (!sc->w.meta_found)
		return;
	for (uint32_t i = 0; i < sc->w.nranges; i++)
		items[i] = (struct gs_range_item){ sc->ranges[i].base,
			sc->ranges[i].end - sc->ranges[i].base, sc->ranges[i].text,
			sc->ranges[i].cookie_lo | (uint64_t)sc->ranges[i].cookie_hi << 32 };
	if (gs_bt_modules_replace(&w, BT_SC_TGID, items, sc->w.nranges,
				  max_entries(h, GS_MAP_BT_MODULES), &err))
		fail_msg("scenario %u: modules: %s", sc->index, err.msg);
}

/* The reference reads the VM's maps as they are before the run. */
static const void *vm_elem(void *ctx, const char *map, const void *key)
{
	struct harness *h = ctx;

	for (size_t i = 0; i < h->p->nmaps; i++)
		if (strcmp(h->p->maps[i].name, map) == 0)
			return gs_vm_map_lookup(&h->vm, h->map_ids[i], key, 0);
	return NULL;
}

static int keep_event(void *arg, const struct gs_event *ev)
{
	struct harness *h = arg;

	h->nevents++;
	for (size_t i = 0; i < ev->ninsts && h->ngot < 2; i++) {
		const struct gs_inst *in = &ev->insts[i];
		struct bt_loop_backtrace *b = &h->got[h->ngot];

		if (in->type != GS_INST_BACKTRACE)
			continue;
		b->requested_depth = in->backtrace.requested_depth;
		b->frame_count = in->backtrace.frame_count;
		b->flags = in->backtrace.flags;
		b->status = in->backtrace.status;
		b->error_code = in->backtrace.error_code;
		memcpy(b->frames, in->backtrace.frames, b->frame_count * sizeof(b->frames[0]));
		h->ngot++;
	}
	return 0;
}

/* A fresh VM with the program, the scenario's maps and stack. */
static void load_vm(struct harness *h, const struct bt_scenario *sc)
{
	struct gs_error err;
	int step;

	gs_vm_init(&h->vm);
	h->vm.tgid = h->vm.pid = BT_SC_TGID;
	if (gs_cg_vm_load(&h->vm, h->p, h->map_ids, &step, &err) < 0)
		fail_msg("%s: %s", h->name, err.msg);
	h->maps = (struct gs_cg_vm_maps){ &h->vm, h->p, h->map_ids };
	put_maps(h, sc);
	bt_sc_map_stack(&h->vm, sc);
}

/* Runs the probe and decodes what it emitted into h->got. */
static void run_vm(struct harness *h, const struct bt_scenario *sc)
{
	const struct gs_trace_context *contexts[32] = { 0 };
	GS_OPTS(gs_decoder_opts, dopts, .contexts = contexts, .ncontexts = 32);
	struct gs_decoder *dec;
	struct gs_error err;
	uint64_t regs[21] = { 0 }, r0;

	regs[GS_PT_REGS_IP / 8] = sc->w.ip;
	regs[GS_PT_REGS_SP / 8] = sc->w.sp;
	regs[GS_PT_REGS_BP / 8] = sc->w.bp;
	if (gs_vm_run(&h->vm, (uint32_t)0, regs, sizeof(regs), &r0, &err))
		fail_msg("scenario %u (%s): vm: %s", sc->index, h->name, err.msg);
	contexts[h->p->trace_id] = &h->p->ctx;
	h->ngot = h->nevents = 0;
	assert_int_equal(gs_decoder_new(&dopts, &dec, &err), 0);
	for (size_t i = 0; i < h->vm.nrecords; i++)
		if (gs_decoder_feed(dec, h->vm.records[i].data, h->vm.records[i].size, keep_event,
				    h, &err) < 0)
			fail_msg("scenario %u (%s): decode: %s", sc->index, h->name, err.msg);
	gs_decoder_free(dec);
}

/* ---- comparing and reporting ------------------------------------------------ */

static struct bt_sc_view view(const struct bt_loop_backtrace *b)
{
	return (struct bt_sc_view){ b->requested_depth, b->frame_count, b->flags, b->status,
				    b->error_code, b->frames };
}

static void print_scenario(const struct harness *h, const struct bt_scenario *sc)
{
	fprintf(stderr, "scenario %u (%s, depth %u): ip %#" PRIx64 " sp %#" PRIx64 " bp %#" PRIx64
		"\n", sc->index, h->name, h->shape.depth, sc->w.ip, sc->w.sp, sc->w.bp);
	for (size_t m = 0; m < sc->nmods; m++)
		fprintf(stderr, "  module %zu: cookie %016" PRIx64 " bias %#" PRIx64 " rows [%u, +%u)"
			"\n", m, sc->mods[m].cookie, sc->mods[m].bias, sc->mods[m].row_start,
			sc->mods[m].nfns);
	bt_sc_print_rows(sc);
	for (uint32_t i = 0; i < sc->w.nranges; i++)
		fprintf(stderr, "  range %u: [%#" PRIx64 ", %#" PRIx64 ") bias %#" PRIx64 "%s\n", i,
			sc->ranges[i].base, sc->ranges[i].end, sc->ranges[i].text,
			sc->w.meta_found ? "" : " (no snapshot)");
}

static void account(const struct harness *h, const struct bt_loop_backtrace *want)
{
	cover.scenarios++;
	for (size_t b = 0; b < h->nbt; b++) {
		const struct bt_loop_backtrace *w = &want[b];

		cover.walks++;
		cover.outcome[w->status % (GS_BT_NO_UNWIND_ROWS_FOR_PC + 1)]
			     [w->error_code % (GS_BT_ERROR_FRAME_POINTER_CHAIN + 1)]++;
		cover.fp_steps += w->fp_steps > 0;
		cover.full_depth += w->frame_count == h->shape.depth;
		cover.deep += w->frame_count > 128;
		cover.multi_module += w->modules > 1;
		cover.unknown_frames += w->unknown_frames > 0;
	}
}

static bool same_as_reference(const struct harness *h, const struct bt_loop_backtrace want[2])
{
	bool ok = h->nevents == 1 && h->ngot == h->nbt;

	for (size_t b = 0; ok && b < h->nbt; b++) {
		struct bt_sc_view x = view(&want[b]), g = view(&h->got[b]);

		ok = bt_sc_same(&x, &g);
	}
	return ok;
}

/* Runs one scenario on both sides; false, with both printed, on a
 * difference. The probe fires twice: the second walk starts from what the
 * first left in bt_walk (its snapshot, the probe module's rows, cached
 * rows) and must give the same frames. */
static bool check_scenario(struct harness *h, struct bt_scenario *sc,
			   struct bt_loop_backtrace want[2])
{
	struct bt_loop_world w = { .ip = sc->w.ip, .sp = sc->w.sp, .bp = sc->w.bp,
				   .tgid = BT_SC_TGID, .probe_cookie = h->shape.probe_cookie,
				   .probe_pc = h->shape.probe_pc, .elem = vm_elem, .elem_ctx = h,
				   .read_u64 = bt_sc_read, .read_ctx = sc };
	const char *run = "first";
	bool ok;

	load_vm(h, sc);
	for (size_t b = 0; b < h->nbt; b++)
		bt_loop_ref_walk(&w, h->shape.depth, h->flags[b], &want[b]);
	run_vm(h, sc);
	ok = same_as_reference(h, want);
	if (ok) {
		run = "second (from bt_walk's caches)";
		gs_vm_clear_records(&h->vm);
		run_vm(h, sc);
		ok = same_as_reference(h, want);
	}
	gs_vm_fini(&h->vm);
	if (ok)
		return true;
	print_scenario(h, sc);
	fprintf(stderr, "  %s walk: %zu events, %zu backtraces decoded\n", run, h->nevents,
		h->ngot);
	for (size_t b = 0; b < h->nbt; b++) {
		struct bt_sc_view x = view(&want[b]), g = b < h->ngot ? view(&h->got[b]) : x;

		bt_sc_print("expected", &x, &g);
		if (b < h->ngot)
			bt_sc_print("actual  ", &g, &x);
	}
	return false;
}

/* Generates and checks scenarios [first, first + count) on one spec;
 * GS_BT_DIFF_SCENARIOS overrides the count. */
static void check_spec(const char *name, unsigned first, unsigned count)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct bt_scenario *sc = malloc(sizeof(*sc));
	struct bt_loop_backtrace *want = calloc(2, sizeof(*want));
	const char *env = getenv("GS_BT_DIFF_SCENARIOS");
	unsigned mismatches = 0;

	assert_true(h && sc && want);
	if (env)
		count = (unsigned)strtoul(env, NULL, 0);
	open_harness(h, name);
	for (unsigned i = first; i < first + count; i++) {
		bt_sc_generate(sc, &h->shape, i);
		mismatches += !check_scenario(h, sc, want);
		account(h, want);
	}
	gs_program_free(h->p);
	free(want);
	free(sc);
	free(h);
	if (mismatches)
		fail_msg("%s: %u of %u scenarios differ from the reference walker", name,
			 mismatches, count);
}

static void test_loop_walker_depth128_matches_the_reference(void **state)
{
	(void)state;
	check_spec("bt_loop_depth128", 600000, 1000);
}

static void test_loop_walker_depth512_matches_the_reference(void **state)
{
	(void)state;
	check_spec("bt_loop_depth512", 700000, 700);
}

static void test_two_statements_walk_alike_and_match_the_reference(void **state)
{
	(void)state;
	check_spec("bt_loop_two", 800000, 700);
}

/* Runs after the spec tests: their scenarios reached every stop the loop
 * walker can produce, depth 512, several modules and unknown ones. */
static void test_scenarios_reach_every_stop_of_the_loop_walker(void **state)
{
	static const uint8_t want[][2] = {
		/* a pc without a row ends the walk only when the frame-pointer
		 * step finds no frame record there either (code 8) */
		{ GS_BT_COMPLETE, 0 }, { GS_BT_TRUNCATED, 0 },
		{ GS_BT_OFFSETS_UNAVAILABLE, GS_BT_ERROR_FRAME_POINTER_CHAIN },
		{ GS_BT_READ_ERROR, 1 }, { GS_BT_READ_ERROR, 2 },
		{ GS_BT_INVALID_FRAME, 3 }, { GS_BT_INVALID_FRAME, 4 }, { GS_BT_INVALID_FRAME, 5 },
		{ GS_BT_INVALID_FRAME, 6 },
		{ GS_BT_NO_UNWIND_ROWS_FOR_PC, GS_BT_ERROR_FRAME_POINTER_CHAIN },
	};

	(void)state;
	if (getenv("GS_BT_DIFF_SCENARIOS"))
		skip();
	print_message("%u scenarios, %u walks: %u reached the requested depth, %u went past "
		      "128 frames, %u crossed modules, %u had frames of unknown modules, %u took "
		      "a frame-pointer step\n",
		      cover.scenarios, cover.walks, cover.full_depth, cover.deep,
		      cover.multi_module, cover.unknown_frames, cover.fp_steps);
	assert_true(cover.scenarios >= 2400);
	assert_true(cover.full_depth > 0 && cover.deep > 0 && cover.multi_module > 0 &&
		    cover.unknown_frames > 0 && cover.fp_steps > 0);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(want); i++)
		if (!cover.outcome[want[i][0]][want[i][1]])
			fail_msg("no scenario ended with status %u, error code %u", want[i][0],
				 want[i][1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_walker_depth128_matches_the_reference),
		cmocka_unit_test(test_loop_walker_depth512_matches_the_reference),
		cmocka_unit_test(test_two_statements_walk_alike_and_match_the_reference),
		cmocka_unit_test(test_scenarios_reach_every_stop_of_the_loop_walker),
	};

	return cmocka_run_group_tests_name("vm-bt-loop-diff", tests, NULL, NULL);
}
