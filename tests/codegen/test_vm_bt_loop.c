/* The bpf_loop walker's programs on the test VM: gs_bt_walk called as a
 * global subprogram, gs_bt_frame run by bpf_loop, over compact rows and a
 * module snapshot written by the runtime's own writers (btrows.c) into the
 * VM's maps. The differential test (test_vm_bt_loop_diff.c) covers the
 * statuses; these pin the plain walks end to end. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/unwind.h>
#include <gs/internal/program.h>
#include <gs/decode.h>

#include "bt_loop_reference.h"
#include "cg_specs.h"
#include "cg_vm.h"

#define TGID 4242u
#define BIAS 0x555555554000ull  /* the probe module's load bias */
#define BIAS2 0x7f0000000000ull /* a second module's */
#define COOKIE2 0xaabbccdd00112233ull
#define STACK 0x7ffd00000000ull /* lowest address of the fake stack */
#define STACK_SIZE 0x6000
#define FN(i) (0x2000ull + 0x100ull * (i)) /* link address of caller function i */
#define NFNS 4

struct loop_harness {
	struct gs_vm vm;
	struct gs_program *p;
	uint32_t map_ids[32];
	struct gs_cg_vm_maps maps;
	struct gs_map_writer w;
	uint64_t regs[21];
	uint8_t stack[STACK_SIZE];
	const struct gs_trace_context *contexts[32];
	/* the Backtrace instructions of the one decoded event */
	struct bt_seen {
		uint16_t requested_depth, frame_count;
		uint8_t flags, status;
		uint16_t error_code;
	} bt[2];
	struct gs_backtrace_frame frames[2][GS_BT_LOOP_MAX_DEPTH];
	size_t nbt, nevents;
	int prog;
	bool stack_mapped;
};

/* What the session does once the unwind maps are written (open 1), or
 * before (0). */
static void set_gate(struct loop_harness *h, uint64_t open)
{
	uint32_t key = 0;
	struct gs_bt_gen gen;

	assert_int_equal(h->w.lookup(h->w.ctx, GS_MAP_NAME_BT_GEN, &key, &gen), 0);
	gen.open = open;
	assert_int_equal(h->w.update(h->w.ctx, GS_MAP_NAME_BT_GEN, &key, &gen), 0);
}

static struct loop_harness *setup(const char *name)
{
	struct loop_harness *h = calloc(1, sizeof(*h));
	const struct gs_cg_case *c = NULL;
	struct gs_program_opts o;
	struct gs_error err;
	int step;

	assert_non_null(h);
	for (size_t i = 0; i < gs_cg_ncases; i++)
		if (strcmp(gs_cg_cases[i].name, name) == 0)
			c = &gs_cg_cases[i];
	assert_non_null(c);
	o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
	if (gs_program_build(c->spec, &o, &h->p, &err))
		fail_msg("%s: %s", name, err.msg);
	assert_true(h->p->nmaps <= 32);
	gs_vm_init(&h->vm);
	h->vm.tgid = h->vm.pid = TGID;
	h->prog = gs_cg_vm_load(&h->vm, h->p, h->map_ids, &step, &err);
	if (h->prog < 0)
		fail_msg("%s: %s", name, err.msg);
	assert_int_equal(step, -1); /* no tail calls: one program */
	h->maps = (struct gs_cg_vm_maps){ &h->vm, h->p, h->map_ids };
	h->w = gs_cg_vm_writer(&h->maps);
	h->contexts[h->p->trace_id] = &h->p->ctx;
	h->regs[GS_PT_REGS_IP / 8] = BIAS + GS_CG_PROBE_PC;
	h->regs[GS_PT_REGS_SP / 8] = STACK;
	h->regs[GS_PT_REGS_BP / 8] = 0x1234;
	set_gate(h, 1);
	return h;
}

static void teardown(struct loop_harness *h)
{
	gs_vm_fini(&h->vm);
	gs_program_free(h->p);
	free(h);
}

/* A caller row: CFA = rsp + cfa, RA at CFA - 8, rbp unchanged. */
static struct gs_unwind_row rsp_row(uint64_t start, uint64_t end, int64_t cfa)
{
	return (struct gs_unwind_row){ .pc_start = start, .pc_end = end, .cfa_offset = cfa,
				       .ra_offset = -8, .cfa_register = GS_DWARF_REG_RSP,
				       .ra_register = GS_DWARF_REG_RIP,
				       .rbp_register = GS_DWARF_REG_RBP,
				       .ra_kind = GS_RECOVERY_AT_CFA_OFFSET,
				       .rbp_kind = GS_RECOVERY_SAME_VALUE };
}

/* The capacities of the program's compact row tables. */
static struct gs_bt_table_caps table_caps(const struct loop_harness *h)
{
	return (struct gs_bt_table_caps){
		h->p->maps[h->p->map_index[GS_MAP_BT_CROWS]].max_entries,
		h->p->maps[h->p->map_index[GS_MAP_BT_PAGES]].max_entries,
		h->p->maps[h->p->map_index[GS_MAP_BT_OVERFLOW]].max_entries };
}

/* A module's rows: the probe function (CFA = rsp + 16) and callers 0..3
 * (CFA = rsp + 32), written as compact tables. */
static void put_rows(struct loop_harness *h, uint64_t cookie)
{
	struct gs_unwind_row rows[1 + NFNS];
	struct gs_cfi_row xrows[1 + NFNS];
	struct gs_bt_table_caps caps = table_caps(h);
	struct gs_bt_rowtab t;
	struct gs_error err;

	rows[0] = rsp_row(GS_CG_PROBE_PC - 4, GS_CG_PROBE_PC + 0x20, 16);
	for (uint32_t i = 0; i < NFNS; i++)
		rows[1 + i] = rsp_row(FN(i), FN(i + 1), 32);
	for (uint32_t i = 0; i < 1 + NFNS; i++)
		gs_cfi_row_from_unwind_row(&rows[i], &xrows[i]);
	if (gs_bt_rowtab_build(xrows, 1 + NFNS, &t, &err) ||
	    gs_bt_rowtab_write(&h->w, cookie, &t, &caps, &err))
		fail_msg("rows: %s", err.msg);
	gs_bt_rowtab_free(&t);
}

static void put_modules(struct loop_harness *h, const struct gs_range_item *items, size_t n)
{
	struct gs_error err;

	if (gs_bt_modules_replace(&h->w, TGID, items, n,
				  h->p->maps[h->p->map_index[GS_MAP_BT_MODULES]].max_entries, &err))
		fail_msg("modules: %s", err.msg);
}

static void stack_u64(struct loop_harness *h, uint64_t addr, uint64_t v)
{
	assert_true(addr >= STACK && addr + 8 <= STACK + STACK_SIZE);
	memcpy(h->stack + (addr - STACK), &v, 8);
}

/* n callers above the probe: caller i returns into fns(i) + 0x10 at bias;
 * 0 ends the chain. Frame 0's CFA is sp + 16, each caller's 32 above. */
static void chain(struct loop_harness *h, size_t n, uint64_t (*ra)(size_t i))
{
	uint64_t cfa = STACK + 16;

	for (size_t i = 0; i < n; i++, cfa += 32)
		stack_u64(h, cfa - 8, ra(i));
	stack_u64(h, cfa - 8, 0);
}

static uint64_t ra_in_probe_module(size_t i)
{
	return BIAS + FN(i % NFNS) + 0x10;
}

static int keep_event(void *arg, const struct gs_event *ev)
{
	struct loop_harness *h = arg;

	h->nevents++;
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type != GS_INST_BACKTRACE)
			continue;
		assert_true(h->nbt < 2);
		h->bt[h->nbt] = (struct bt_seen){ in->backtrace.requested_depth,
			in->backtrace.frame_count, in->backtrace.flags, in->backtrace.status,
			in->backtrace.error_code };
		memcpy(h->frames[h->nbt], in->backtrace.frames,
		       in->backtrace.frame_count * sizeof(struct gs_backtrace_frame));
		h->nbt++;
	}
	return 0;
}

/* One hit of the probe, decoded: `events` events expected. */
static void run_events(struct loop_harness *h, size_t events)
{
	GS_OPTS(gs_decoder_opts, dopts, .contexts = h->contexts, .ncontexts = 32);
	struct gs_decoder *dec;
	struct gs_error err;
	uint64_t r0;

	if (!h->stack_mapped)
		gs_vm_add_user_mem(&h->vm, STACK, h->stack, sizeof(h->stack), NULL);
	h->stack_mapped = true;
	h->nbt = h->nevents = 0;
	gs_vm_clear_records(&h->vm);
	if (gs_vm_run(&h->vm, (uint32_t)h->prog, h->regs, sizeof(h->regs), &r0, &err))
		fail_msg("vm: %s", err.msg);
	if (gs_decoder_new(&dopts, &dec, &err))
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < h->vm.nrecords; i++)
		if (gs_decoder_feed(dec, h->vm.records[i].data, h->vm.records[i].size,
				    keep_event, h, &err) < 0)
			fail_msg("decode: %s", err.msg);
	gs_decoder_free(dec);
	assert_int_equal(h->nevents, events);
}

static void run(struct loop_harness *h)
{
	run_events(h, 1);
}

static void assert_bt(const struct loop_harness *h, size_t i, unsigned frames, uint8_t status,
		      uint16_t code)
{
	assert_true(i < h->nbt);
	if (h->bt[i].frame_count != frames || h->bt[i].status != status ||
	    h->bt[i].error_code != code)
		fail_msg("backtrace %zu: %u frames, status %u, code %u; expected %u, %u, %u", i,
			 h->bt[i].frame_count, h->bt[i].status, h->bt[i].error_code, frames,
			 status, code);
}

static void assert_frame(const struct gs_backtrace_frame *f, uint64_t cookie, uint64_t bias,
			 uint64_t raw)
{
	assert_int_equal(f->module_cookie, cookie);
	assert_int_equal(f->raw_ip, raw);
	assert_int_equal(f->pc, raw - bias);
}

static const struct gs_range_item probe_module = { BIAS + 0x1000, 0x10000, BIAS,
						   GS_CG_PROBE_COOKIE };

static void test_loop_walker_unwinds_to_the_end_of_the_stack(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth128");

	(void)state;
	put_rows(h, GS_CG_PROBE_COOKIE);
	put_modules(h, &probe_module, 1);
	chain(h, 6, ra_in_probe_module);
	run(h);
	assert_int_equal(h->bt[0].requested_depth, 128);
	assert_int_equal(h->bt[0].flags, GS_BT_FLAG_FULL | GS_BT_FLAG_INLINE);
	assert_bt(h, 0, 7, GS_BT_COMPLETE, 0);
	assert_frame(&h->frames[0][0], GS_CG_PROBE_COOKIE, BIAS, BIAS + GS_CG_PROBE_PC);
	for (size_t i = 1; i < 7; i++)
		assert_frame(&h->frames[0][i], GS_CG_PROBE_COOKIE, BIAS, ra_in_probe_module(i - 1));
	/* gs_bt_walk was entered once, bpf_loop ran gs_bt_frame 8 times */
	assert_int_equal(h->vm.stats.max_depth, 3);
	teardown(h);
}

/* 600 callers, most read past the stack window: 512 frames, Truncated. */
static void test_loop_walker_reaches_depth_512(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth512");

	(void)state;
	put_rows(h, GS_CG_PROBE_COOKIE);
	put_modules(h, &probe_module, 1);
	chain(h, 600, ra_in_probe_module);
	run(h);
	assert_bt(h, 0, 512, GS_BT_TRUNCATED, 0);
	for (size_t i = 1; i < 512; i++)
		assert_frame(&h->frames[0][i], GS_CG_PROBE_COOKIE, BIAS, ra_in_probe_module(i - 1));
	teardown(h);
}

static uint64_t ra_alternating(size_t i)
{
	return (i % 2 ? BIAS2 : BIAS) + FN(i % NFNS) + 0x10;
}

/* Callers alternate between two modules: each frame carries its own
 * module's cookie and bias through the wire table. */
static void test_loop_walker_crosses_modules_and_back(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth128");
	const struct gs_range_item mods[] = { probe_module,
					      { BIAS2 + 0x1000, 0x10000, BIAS2, COOKIE2 } };

	(void)state;
	put_rows(h, GS_CG_PROBE_COOKIE);
	put_rows(h, COOKIE2);
	put_modules(h, mods, 2);
	chain(h, 9, ra_alternating);
	run(h);
	assert_bt(h, 0, 10, GS_BT_COMPLETE, 0);
	for (size_t i = 1; i < 10; i++)
		assert_frame(&h->frames[0][i], i % 2 ? GS_CG_PROBE_COOKIE : COOKIE2,
			     i % 2 ? BIAS : BIAS2, ra_alternating(i - 1));
	teardown(h);
}

/* Two statements walk the same stack each with their own flags. */
static void test_every_statement_calls_the_one_walker(void **state)
{
	struct loop_harness *h = setup("bt_loop_two");

	(void)state;
	put_rows(h, GS_CG_PROBE_COOKIE);
	put_modules(h, &probe_module, 1);
	chain(h, 3, ra_in_probe_module);
	run(h);
	assert_int_equal(h->nbt, 2);
	assert_bt(h, 0, 4, GS_BT_COMPLETE, 0);
	assert_bt(h, 1, 4, GS_BT_COMPLETE, 0);
	assert_int_equal(h->bt[0].flags, GS_BT_FLAG_FULL | GS_BT_FLAG_INLINE);
	assert_int_equal(h->bt[1].flags, GS_BT_FLAG_RAW);
	assert_memory_equal(h->frames[0], h->frames[1], 4 * sizeof(h->frames[0][0]));
	teardown(h);
}

/* No snapshot for the process yet (a library dlopen'ed a moment ago):
 * frame 0's module is the probe's, found by its cookie with bias = ip -
 * probe pc, so callers in it unwind. */
static void test_without_a_snapshot_frame_0_module_comes_from_the_probe(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth128");

	(void)state;
	put_rows(h, GS_CG_PROBE_COOKIE);
	chain(h, 3, ra_in_probe_module);
	run(h);
	assert_bt(h, 0, 4, GS_BT_COMPLETE, 0);
	for (size_t i = 0; i < 4; i++)
		assert_frame(&h->frames[0][i], GS_CG_PROBE_COOKIE, BIAS,
			     i ? ra_in_probe_module(i - 1) : BIAS + GS_CG_PROBE_PC);
	teardown(h);
}

/* Neither a snapshot nor rows for the probe's module: frame 0 alone, its
 * module unknown; the frame-pointer step found no frame record there
 * (the harness's rbp is no chain), which the error code says. */
static void test_without_rows_or_snapshot_the_walk_stops_at_frame_0(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth128");

	(void)state;
	chain(h, 3, ra_in_probe_module);
	run(h);
	assert_bt(h, 0, 1, GS_BT_OFFSETS_UNAVAILABLE, GS_BT_ERROR_FRAME_POINTER_CHAIN);
	assert_frame(&h->frames[0][0], 0, 0, BIAS + GS_CG_PROBE_PC);
	teardown(h);
}

/* A walk reuses the snapshot the last one found on its CPU only while
 * bt_snapshot_gen holds: a new snapshot (a library mapped, another file at
 * a module's addresses) is read at the next walk. */
static void test_a_new_snapshot_replaces_what_the_last_walk_kept(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth128");
	const struct gs_range_item mods[] = { probe_module,
					      { BIAS2 + 0x1000, 0x10000, BIAS2, COOKIE2 } };
	const struct gs_range_item moved = { BIAS2 + 0x1000, 0x10000, BIAS2 + 0x1000000,
					     COOKIE2 };

	(void)state;
	put_rows(h, GS_CG_PROBE_COOKIE);
	put_rows(h, COOKIE2);
	put_modules(h, mods, 1);
	chain(h, 9, ra_alternating);
	run(h);
	/* the third frame's module is not in the snapshot: no row, and no
	 * frame record for the frame-pointer step */
	assert_bt(h, 0, 3, GS_BT_OFFSETS_UNAVAILABLE, GS_BT_ERROR_FRAME_POINTER_CHAIN);
	run(h); /* from the kept snapshot: the same */
	assert_bt(h, 0, 3, GS_BT_OFFSETS_UNAVAILABLE, GS_BT_ERROR_FRAME_POINTER_CHAIN);
	put_modules(h, mods, 2);
	run(h);
	assert_bt(h, 0, 10, GS_BT_COMPLETE, 0);
	for (size_t i = 1; i < 10; i++)
		assert_frame(&h->frames[0][i], i % 2 ? GS_CG_PROBE_COOKIE : COOKIE2,
			     i % 2 ? BIAS : BIAS2, ra_alternating(i - 1));
	/* another load of the second module at its addresses: another bias */
	put_modules(h, (const struct gs_range_item[]){ probe_module, moved }, 2);
	run(h);
	assert_frame(&h->frames[0][2], COOKIE2, BIAS2 + 0x1000000, ra_alternating(1));
	teardown(h);
}

/* The session attaches before it writes the unwind maps: until it opens
 * the gate (bt_snapshot_gen.open) the program emits nothing, so no event
 * carries a backtrace cut short by rows or a snapshot not yet written. */
static void test_nothing_is_emitted_before_the_unwind_maps_are_written(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth128");

	(void)state;
	set_gate(h, 0);
	put_rows(h, GS_CG_PROBE_COOKIE);
	put_modules(h, &probe_module, 1);
	chain(h, 3, ra_in_probe_module);
	run_events(h, 0);
	set_gate(h, 1);
	run(h);
	assert_bt(h, 0, 4, GS_BT_COMPLETE, 0);
	teardown(h);
}

/* ---- the rules beyond the reference's ("The bpf_loop walker") -------------- */

static struct gs_bt_rule rule(uint8_t kind, uint8_t reg, int32_t off)
{
	return (struct gs_bt_rule){ .off = off, .kind = kind, .reg = reg };
}

/* A row of [start, end) with CFA = reg + off (kind), RA at CFA - 8, every
 * other register unchanged. */
static struct gs_cfi_row xrow(uint64_t start, uint64_t end, uint8_t cfa_kind, uint8_t cfa_reg,
			      int32_t cfa_off)
{
	struct gs_cfi_row r = { .pc_start = start, .pc_end = end };

	r.rules.cfa = rule(cfa_kind, cfa_reg, cfa_off);
	r.rules.ra = rule(GS_RECOVERY_AT_CFA_OFFSET, 0, -8);
	r.rules.rbp = rule(GS_RECOVERY_SAME_VALUE, 0, 0);
	for (int i = 0; i < GS_BT_NSAVED; i++)
		r.rules.saved[i] = rule(GS_RECOVERY_SAME_VALUE, 0, 0);
	return r;
}

static void put_xrows(struct loop_harness *h, const struct gs_cfi_row *rows, size_t n)
{
	struct gs_bt_table_caps caps = table_caps(h);
	struct gs_bt_rowtab t;
	struct gs_error err;

	if (gs_bt_rowtab_build(rows, n, &t, &err) ||
	    gs_bt_rowtab_write(&h->w, GS_CG_PROBE_COOKIE, &t, &caps, &err))
		fail_msg("rows: %s", err.msg);
	gs_bt_rowtab_free(&t);
}

static const void *vm_elem(void *ctx, const char *map, const void *key)
{
	struct loop_harness *h = ctx;

	for (size_t i = 0; i < h->p->nmaps; i++)
		if (strcmp(h->p->maps[i].name, map) == 0)
			return gs_vm_map_lookup(&h->vm, h->map_ids[i], key, 0);
	return NULL;
}

static bool stack_read(void *ctx, uint64_t addr, uint64_t *out)
{
	struct loop_harness *h = ctx;

	if (addr < STACK || addr - STACK > STACK_SIZE - 8)
		return false;
	memcpy(out, h->stack + (addr - STACK), 8);
	return true;
}

/* The reference walker over the same maps and stack agrees with the VM. */
static void assert_like_reference(struct loop_harness *h)
{
	struct bt_loop_world w = { .ip = h->regs[GS_PT_REGS_IP / 8],
		.sp = h->regs[GS_PT_REGS_SP / 8], .bp = h->regs[GS_PT_REGS_BP / 8], .tgid = TGID,
		.probe_cookie = GS_CG_PROBE_COOKIE, .probe_pc = GS_CG_PROBE_PC, .elem = vm_elem,
		.elem_ctx = h, .read_u64 = stack_read, .read_ctx = h };
	struct bt_loop_backtrace *want = calloc(1, sizeof(*want));

	assert_non_null(want);
	for (int r = 0; r <= GS_DWARF_REG_MAX; r++)
		w.regs[r] = h->regs[gs_dwarf_reg_pt_regs_offset[r] / 8];
	bt_loop_ref_walk(&w, h->bt[0].requested_depth, h->bt[0].flags, want);
	assert_int_equal(want->frame_count, h->bt[0].frame_count);
	assert_int_equal(want->status, h->bt[0].status);
	assert_int_equal(want->error_code, h->bt[0].error_code);
	for (size_t i = 0; i < want->frame_count; i++) {
		assert_int_equal(want->frames[i].raw_ip, h->frames[0][i].raw_ip);
		assert_int_equal(want->frames[i].module_cookie, h->frames[0][i].module_cookie);
	}
	free(want);
}

#define SIGCTX (STACK + 16)     /* the kernel's ucontext, at the trampoline's rsp */
#define SP1 (STACK + 0x1000)    /* the interrupted frame's rsp ... */
#define RBP1 (STACK + 0x1100)   /* ... rbp (a DRAP frame: CFA at *(rbp - 8)) */
#define RBX1 (STACK + 0x2000)   /* ... rbx (the next CFA is rbx + 16) */
#define CFA2 (STACK + 0x1200)

/* A probe in a signal handler whose signal interrupted a DRAP function,
 * called from a function whose CFA is rbx-based, called from a thread's
 * bottom: frame 1 is the trampoline (CFA and every register read from the
 * ucontext by DW_OP_breg7 expressions, CIE S), frame 2 is looked up at its
 * exact pc (at ip - 1 it would be the trampoline's), its CFA read through
 * rbp (DW_OP_breg6 -8; DW_OP_deref) and rbp by an expression, frame 3's
 * CFA is rbx + 16 with rbx restored by the trampoline, frame 4's RA is
 * undefined: complete, as gdb ends there. */
static void test_signal_drap_rbx_frames_and_the_end_of_the_stack(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth128");
	struct gs_cfi_row rows[5];

	(void)state;
	rows[0] = xrow(GS_CG_PROBE_PC - 4, GS_CG_PROBE_PC + 0x20, GS_BT_CFA_REG_OFF, 7, 16);
	/* the trampoline: its FDE starts a byte early, as glibc's does */
	rows[1] = xrow(FN(0) - 1, FN(1), GS_BT_CFA_REG_DEREF, 7, 160);
	rows[1].flags = GS_CFI_ROW_SIGNAL;
	rows[1].rules.ra = rule(GS_RECOVERY_EXPRESSION, 7, 168);
	rows[1].rules.rbp = rule(GS_RECOVERY_EXPRESSION, 7, 120);
	rows[1].rules.saved[0] = rule(GS_RECOVERY_EXPRESSION, 7, 128); /* rbx */
	rows[1].rules.saved[1] = rule(GS_RECOVERY_EXPRESSION, 7, 72);  /* r12 */
	rows[2] = xrow(FN(1), FN(2), GS_BT_CFA_REG_DEREF, 6, -8);     /* DRAP */
	rows[2].rules.rbp = rule(GS_RECOVERY_EXPRESSION, 6, 0);
	rows[3] = xrow(FN(2), FN(3), GS_BT_CFA_REG_OFF, 3, 16);       /* CFA on rbx */
	rows[3].rules.saved[0] = rule(GS_RECOVERY_AT_CFA_OFFSET, 0, -16);
	rows[4] = xrow(FN(3), FN(4), GS_BT_CFA_REG_OFF, 7, 8);        /* clone3 */
	rows[4].rules.ra = rule(GS_RECOVERY_UNDEFINED, 0, 0);
	put_xrows(h, rows, 5);
	put_modules(h, &probe_module, 1);
	stack_u64(h, STACK + 8, BIAS + FN(0));         /* the handler returns to the trampoline */
	stack_u64(h, SIGCTX + 160, SP1);
	stack_u64(h, SIGCTX + 168, BIAS + FN(1));      /* interrupted at the first instruction */
	stack_u64(h, SIGCTX + 120, RBP1);
	stack_u64(h, SIGCTX + 128, RBX1);
	stack_u64(h, SIGCTX + 72, 0x1212);
	stack_u64(h, RBP1 - 8, CFA2);                  /* DRAP: the CFA saved below rbp */
	stack_u64(h, RBP1, 0x4242);                    /* and the caller's rbp at rbp */
	stack_u64(h, CFA2 - 8, BIAS + FN(2) + 0x10);
	stack_u64(h, RBX1 + 8, BIAS + FN(3) + 0x10);   /* CFA = rbx + 16, RA at CFA - 8 */
	stack_u64(h, RBX1, STACK + 0x3000);            /* rbx saved at CFA - 16 */
	run(h);
	assert_bt(h, 0, 5, GS_BT_COMPLETE, 0);
	assert_frame(&h->frames[0][0], GS_CG_PROBE_COOKIE, BIAS, BIAS + GS_CG_PROBE_PC);
	assert_frame(&h->frames[0][1], GS_CG_PROBE_COOKIE, BIAS, BIAS + FN(0));
	assert_frame(&h->frames[0][2], GS_CG_PROBE_COOKIE, BIAS, BIAS + FN(1));
	assert_frame(&h->frames[0][3], GS_CG_PROBE_COOKIE, BIAS, BIAS + FN(2) + 0x10);
	assert_frame(&h->frames[0][4], GS_CG_PROBE_COOKIE, BIAS, BIAS + FN(3) + 0x10);
	assert_like_reference(h);
	teardown(h);
}

/* A CFA read through memory that faults: read error, code 7. */
static void test_a_cfa_read_that_faults_is_a_read_error(void **state)
{
	struct loop_harness *h = setup("bt_loop_depth128");
	struct gs_cfi_row rows[2];

	(void)state;
	rows[0] = xrow(GS_CG_PROBE_PC - 4, GS_CG_PROBE_PC + 0x20, GS_BT_CFA_REG_OFF, 7, 16);
	rows[1] = xrow(FN(0), FN(1), GS_BT_CFA_REG_DEREF, 6, -8);
	put_xrows(h, rows, 2);
	put_modules(h, &probe_module, 1);
	stack_u64(h, STACK + 8, BIAS + FN(0) + 0x10);
	h->regs[GS_PT_REGS_BP / 8] = 0x10; /* rbp - 8 is no user memory */
	run(h);
	assert_bt(h, 0, 2, GS_BT_READ_ERROR, GS_BT_ERROR_CFA_READ);
	assert_like_reference(h);
	teardown(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_walker_unwinds_to_the_end_of_the_stack),
		cmocka_unit_test(test_loop_walker_reaches_depth_512),
		cmocka_unit_test(test_loop_walker_crosses_modules_and_back),
		cmocka_unit_test(test_every_statement_calls_the_one_walker),
		cmocka_unit_test(test_without_a_snapshot_frame_0_module_comes_from_the_probe),
		cmocka_unit_test(test_without_rows_or_snapshot_the_walk_stops_at_frame_0),
		cmocka_unit_test(test_a_new_snapshot_replaces_what_the_last_walk_kept),
		cmocka_unit_test(test_nothing_is_emitted_before_the_unwind_maps_are_written),
		cmocka_unit_test(test_signal_drap_rbx_frames_and_the_end_of_the_stack),
		cmocka_unit_test(test_a_cfa_read_that_faults_is_a_read_error),
	};

	return cmocka_run_group_tests_name("vm-bt-loop", tests, NULL, NULL);
}
