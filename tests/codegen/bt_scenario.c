/* The scenario generator of the backtrace differential test (bt_scenario.h):
 * xorshift64* from a fixed seed per index; rows mostly as compilers emit
 * them, sometimes anything; a call chain laid out frame by frame. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bt_scenario.h"

#define FN_BASE 0x2000ull  /* link address area of caller function j: */
#define FN_STRIDE 0x200ull /* [FN_BASE + j * FN_STRIDE, + 0x1b8) */

enum corruption { C_NONE, C_HOLE_RA, C_HOLE_RBP, C_ZERO_RA, C_NO_ROW, C_LOW_IP, C_KERNEL_IP,
		  C_STUCK, C_CFA_ZERO, C_OUTSIDE, C_NKINDS };

struct rng {
	uint64_t s;
};

static uint64_t next64(struct rng *r) /* xorshift64* */
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Dull;
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return next64(r) % n;
}

static bool chance(struct rng *r, unsigned percent)
{
	return below(r, 100) < percent;
}

/* 8 * a random integer in [lo, hi]. */
static int64_t words(struct rng *r, int lo, int hi)
{
	return 8 * (lo + (int64_t)below(r, (uint64_t)(hi - lo + 1)));
}

static uint16_t any_reg(struct rng *r)
{
	static const uint16_t regs[] = { GS_DWARF_REG_RBP, GS_DWARF_REG_RSP, GS_DWARF_REG_RIP, 3 };

	return regs[below(r, 4)];
}

/* ---- the stack ------------------------------------------------------------- */

bool bt_sc_read(void *ctx, uint64_t addr, uint64_t *out)
{
	struct bt_scenario *sc = ctx;
	uint64_t off = addr - BT_SC_STACK;

	if (sc->log_reads && sc->nreads < BT_SC_MAX_READS)
		sc->reads[sc->nreads++] = addr;
	if (addr < BT_SC_STACK || off > BT_SC_STACK_WORDS * 8 - 8 || !sc->mapped[off / 8] ||
	    !sc->mapped[(off + 7) / 8])
		return false;
	memcpy(out, (const uint8_t *)sc->stack + off, 8);
	return true;
}

void bt_sc_poke(struct bt_scenario *sc, uint64_t addr, uint64_t value)
{
	uint64_t off = addr - BT_SC_STACK;

	if (addr >= BT_SC_STACK && off < BT_SC_STACK_WORDS * 8 && off % 8 == 0 &&
	    !sc->written[off / 8]) {
		sc->stack[off / 8] = value;
		sc->written[off / 8] = true;
	}
}

static void unmap(struct bt_scenario *sc, uint64_t addr)
{
	uint64_t off = addr - BT_SC_STACK;

	if (addr >= BT_SC_STACK && off < BT_SC_STACK_WORDS * 8)
		sc->mapped[off / 8] = false;
}

void bt_sc_init(struct bt_scenario *sc, const struct bt_sc_shape *shape)
{
	memset(sc, 0, sizeof(*sc));
	sc->w = (struct bt_ref_world){ .probe_cookie = shape->probe_cookie,
		.probe_row = shape->probe_row, .nrows = shape->nrows,
		.module_ranges = shape->module_ranges,
		.range_entries = shape->range_entries, .rows = sc->rows,
		.row_entries = shape->row_entries, .module_rows = sc->module_rows,
		.ranges = sc->ranges, .read_u64 = bt_sc_read, .read_ctx = sc };
	for (size_t i = 0; i < BT_SC_STACK_WORDS; i++)
		sc->mapped[i] = true;
}

/* ---- modules and rows --------------------------------------------------------- */

static int nfns(const struct bt_scenario *sc)
{
	return (int)sc->w.rows_written;
}

static const struct bt_sc_module *module_of(const struct bt_scenario *sc, int fn)
{
	for (size_t m = 0; m < sc->nmods; m++)
		if ((uint32_t)fn >= sc->mods[m].row_start &&
		    (uint32_t)fn < sc->mods[m].row_start + sc->mods[m].nfns)
			return &sc->mods[m];
	return &sc->mods[0];
}

/* A return address into function fn: ip - 1 lands inside its row. */
static uint64_t return_address(struct rng *r, const struct bt_scenario *sc, int fn)
{
	const struct gs_unwind_row *row = &sc->rows[fn];

	return module_of(sc, fn)->bias + row->pc_start + 1 + below(r, row->pc_end - row->pc_start);
}

/* The function whose code holds ip - 1 at its module's bias or, failing
 * that, at its link address; -1 for none. */
static int fn_at(const struct bt_scenario *sc, uint64_t ip)
{
	for (int pass = 0; pass < 2; pass++)
		for (int f = 0; f < nfns(sc); f++) {
			uint64_t pc = ip - 1 - (pass ? 0 : module_of(sc, f)->bias);

			if (pc >= sc->rows[f].pc_start && pc < sc->rows[f].pc_end)
				return f;
		}
	return -1;
}

static uint64_t noise(struct rng *r, const struct bt_scenario *sc)
{
	unsigned k = (unsigned)below(r, 100);

	if (k < 25)
		return 0;
	if (k < 60)
		return return_address(r, sc, (int)below(r, (uint64_t)nfns(sc)));
	if (k < 85)
		return BT_SC_STACK + 8 * below(r, BT_SC_STACK_WORDS);
	return next64(r);
}

/* Rules of a caller function: mostly what compilers emit (rsp frames,
 * push rbp; mov rbp,rsp frames, RA at CFA-8), sometimes anything. */
static struct gs_unwind_row random_row(struct rng *r, uint64_t start, uint64_t end)
{
	struct gs_unwind_row row = { .pc_start = start, .pc_end = end, .ra_offset = -8,
				     .ra_register = GS_DWARF_REG_RIP,
				     .rbp_register = GS_DWARF_REG_RBP,
				     .ra_kind = GS_RECOVERY_AT_CFA_OFFSET,
				     .rbp_kind = GS_RECOVERY_SAME_VALUE };
	unsigned cfa = (unsigned)below(r, 100), ra = (unsigned)below(r, 100);
	unsigned rbp = (unsigned)below(r, 100);

	row.cfa_register = cfa < 85 ? (cfa < 50 ? GS_DWARF_REG_RSP : GS_DWARF_REG_RBP) : any_reg(r);
	row.cfa_offset = cfa < 50 ? words(r, 2, 13) : cfa < 85 ? 16 : words(r, 0, 5);
	if (ra >= 80)
		row.ra_offset = words(r, -4, 1);
	if (ra >= 88) {
		row.ra_kind = (uint8_t)below(r, 5);
		row.ra_register = any_reg(r);
	}
	if (rbp >= 40 && rbp < 75) {
		row.rbp_kind = GS_RECOVERY_AT_CFA_OFFSET;
		row.rbp_offset = words(r, -4, -2);
	} else if (rbp >= 75) {
		row.rbp_kind = (uint8_t)below(r, 5);
		row.rbp_register = any_reg(r);
		row.rbp_offset = words(r, -4, 2);
	}
	return row;
}

/* The probe module (four functions without module ranges, 2-6 with), a
 * second module with rows, and sometimes a third without; rows of the
 * modules concatenated in cookie order as the loader writes them. */
static void gen_modules(struct rng *r, struct bt_scenario *sc)
{
	struct bt_sc_module *a = &sc->mods[0];
	uint32_t n = 0;
	size_t first;

	*a = (struct bt_sc_module){ sc->w.probe_cookie, chance(r, 10) ? 0 : 0x555555554000ull +
				    0x1000 * below(r, 0x10000), 0, sc->w.nrows };
	sc->nmods = 1;
	if (sc->w.module_ranges) {
		a->nfns = 2 + (uint32_t)below(r, 5);
		sc->mods[1] = (struct bt_sc_module){ next64(r) | 1, (chance(r, 50) ?
			0x7f0000000000ull : 0x400000000ull) + 0x1000 * below(r, 0x100000), 0,
			2 + (uint32_t)below(r, 5) };
		first = sc->mods[1].cookie < a->cookie; /* whose rows come first */
		sc->mods[!first].row_start = sc->mods[first].nfns;
		sc->nmods = 2;
		if (chance(r, 30)) /* a mapped module without rows */
			sc->mods[sc->nmods++] = (struct bt_sc_module){ next64(r) | 1,
				0x7f8000000000ull + 0x1000 * below(r, 0x1000), 0, 0 };
	}
	for (size_t m = 0; m < sc->nmods; m++)
		for (uint32_t j = 0; j < sc->mods[m].nfns; j++, n++) {
			uint64_t start = FN_BASE + FN_STRIDE * j + (uint64_t)words(r, 0, 7);

			sc->rows[sc->mods[m].row_start + j] =
				random_row(r, start, start + 0x40 + (uint64_t)words(r, 0, 0x27));
		}
	sc->w.rows_written = n;
	if (chance(r, 15)) { /* a frame kept in rbp whose return address is in a register */
		struct gs_unwind_row *odd = &sc->rows[below(r, n)];

		odd->cfa_register = GS_DWARF_REG_RBP;
		odd->cfa_offset = words(r, 0, 1);
		odd->ra_kind = chance(r, 50) ? GS_RECOVERY_REGISTER : GS_RECOVERY_SAME_VALUE;
		odd->ra_register = any_reg(r);
		odd->rbp_kind = GS_RECOVERY_SAME_VALUE;
	}
	sc->w.offsets_found = chance(r, 85);
	sc->w.offsets_bias = a->bias + (chance(r, 5) ? 0x1000 : 0); /* sometimes stale */
	sc->offsets_base = a->bias + 0x1000;
	sc->offsets_size = 0x100000;
}

/* bt_module_row_ranges, proc_module_range_meta and both slots of
 * proc_module_ranges, sometimes missing or off by one. */
static void gen_module_maps(struct rng *r, struct bt_scenario *sc)
{
	for (size_t m = 0; m < sc->nmods; m++) {
		const struct bt_sc_module *mod = &sc->mods[m];
		struct gs_proc_module_range v = { mod->bias + 0x1000, mod->bias + 0x4000 +
			0x1000 * below(r, 0x100), mod->bias, (uint32_t)mod->cookie,
			(uint32_t)(mod->cookie >> 32) };
		size_t at = m;

		if (m == 0) { /* proc_module_offsets agrees with the probe module's range */
			sc->offsets_base = v.base;
			sc->offsets_size = v.end - v.base;
		}
		for (; at > 0 && sc->ranges[at - 1].base > v.base; at--)
			sc->ranges[at] = sc->ranges[at - 1];
		sc->ranges[at] = v;
		if (mod->nfns && (m == 0 || !chance(r, 6)))
			sc->module_rows[sc->w.nmodule_rows++] = (struct bt_ref_module_rows){
				mod->cookie, { mod->row_start, mod->row_start + mod->nfns +
					       (chance(r, 3) ? 1 + (uint32_t)below(r, 2) : 0) } };
	}
	for (size_t m = 0; m < sc->nmods; m++) {
		sc->stale[m] = sc->ranges[(m + 1) % sc->nmods];
		sc->stale[m].text ^= 0x10000;
	}
	sc->w.nranges = (uint32_t)sc->nmods;
	sc->w.meta_found = !chance(r, 4);
	sc->w.meta_count = sc->w.nranges - (chance(r, 5) ? 1 : 0) + (chance(r, 3) ? 1 : 0);
	sc->active_slot = (uint32_t)below(r, 2);
}

/* ---- the call chain ------------------------------------------------------------- */

/* What one frame of the chain writes: the return address into function
 * fn at ra_at and, when the row restores rbp from memory, want_rbp. */
struct link {
	uint64_t cfa, ra_at, rbp_at;
	bool saves_rbp, steers_rbp; /* rbp from memory; or from pt_regs bp */
	int fn;
	uint64_t ra, want_rbp;
};

/* A caller function with an rbp-based CFA, preferring one whose unwind
 * reads no memory when `no_reads`; -1 for none. */
static int rbp_framed_fn(struct rng *r, const struct bt_scenario *sc, bool no_reads)
{
	int first = (int)below(r, (uint64_t)nfns(sc)), any = -1;

	for (int i = 0; i < nfns(sc); i++) {
		int f = (first + i) % nfns(sc);
		const struct gs_unwind_row *row = &sc->rows[f];
		bool reads = row->cfa_offset == 16 || row->ra_kind == GS_RECOVERY_AT_CFA_OFFSET ||
			     row->rbp_kind == GS_RECOVERY_AT_CFA_OFFSET;

		if (row->cfa_register != GS_DWARF_REG_RBP)
			continue;
		if (!no_reads || !reads)
			return f;
		any = f;
	}
	return any;
}

static void corrupt(struct rng *r, struct bt_scenario *sc, enum corruption kind, struct link *l)
{
	const struct gs_unwind_row *row = &sc->rows[l->fn];
	int g;

	switch (kind) {
	case C_HOLE_RA:
		unmap(sc, l->ra_at);
		break;
	case C_HOLE_RBP:
		unmap(sc, l->saves_rbp ? l->rbp_at : l->ra_at);
		break;
	case C_NO_ROW: /* just past the function, or its first byte (ip - 1 before it) */
		l->ra = module_of(sc, l->fn)->bias +
			(chance(r, 50) ? row->pc_end + 1 + below(r, 8) : row->pc_start);
		break;
	case C_LOW_IP:
		l->ra = 1 + below(r, 0xfff);
		break;
	case C_KERNEL_IP:
		l->ra = chance(r, 50) ? 0xffffffff81000000ull + below(r, 1 << 20)
				      : 1ull << (56 + below(r, 8)) | below(r, 1 << 30);
		break;
	case C_STUCK: /* the caller's CFA is this one and it returns to itself */
	case C_CFA_ZERO: /* the caller's CFA is 0 */
		g = rbp_framed_fn(r, sc, kind == C_CFA_ZERO);
		if (g < 0 || !l->steers_rbp) {
			l->ra = 0;
			break;
		}
		l->fn = g;
		l->ra = return_address(r, sc, g);
		l->want_rbp = (kind == C_STUCK ? l->cfa : 0) - (uint64_t)sc->rows[g].cfa_offset;
		break;
	case C_OUTSIDE: /* a link address, a module without rows, or no module */
		if (chance(r, 40))
			l->ra -= module_of(sc, l->fn)->bias;
		else if (chance(r, 50) && sc->nmods == 3)
			l->ra = sc->mods[2].bias + 0x2000 + below(r, 0x1000);
		else
			l->ra = 0x10000000 + below(r, 1ull << 32);
		break;
	default:
		l->ra = 0;
		break;
	}
}

/* Writes a call chain of `frames` callers, each frame laid out by its row,
 * with at most one corruption, then fills the rest with noise. The chain
 * follows the reference's recover() so each frame sits where the walk will
 * look for it. */
static void gen_stack(struct rng *r, struct bt_scenario *sc, uint32_t frames)
{
	const struct gs_unwind_row *row = &sc->w.probe_row;
	uint64_t ip = sc->w.ip, rsp = sc->w.sp, rbp = sc->w.bp;
	enum corruption kind = chance(r, 60) ? (enum corruption)(1 + below(r, C_NKINDS - 1))
					     : C_NONE;
	uint32_t corrupt_at = (uint32_t)below(r, frames + 1);
	bool stuck = false;

	if (chance(r, 5)) /* the stack mapping ends early */
		for (size_t i = 64 + below(r, BT_SC_STACK_WORDS - 64); i < BT_SC_STACK_WORDS; i++)
			sc->mapped[i] = false;
	for (uint32_t k = 0; k <= frames; k++) {
		bool fp = row->cfa_register == GS_DWARF_REG_RBP && row->cfa_offset == 16;
		struct link l = { .cfa = (row->cfa_register == GS_DWARF_REG_RBP ? rbp :
					  row->cfa_register == GS_DWARF_REG_RIP ? ip : rsp) +
					 (uint64_t)row->cfa_offset };
		struct bt_ref_next n;

		l.ra_at = l.cfa + (uint64_t)row->ra_offset;
		l.saves_rbp = fp || row->rbp_kind == GS_RECOVERY_AT_CFA_OFFSET;
		l.steers_rbp = l.saves_rbp || k == 0;
		l.rbp_at = l.cfa + (fp ? (uint64_t)-16 : (uint64_t)row->rbp_offset);
		for (int tries = 0; tries < 4; tries++) { /* prefer a callee rbp can steer */
			l.fn = (int)below(r, (uint64_t)nfns(sc));
			if (l.steers_rbp || sc->rows[l.fn].cfa_register != GS_DWARF_REG_RBP)
				break;
		}
		l.ra = stuck ? ip : k == frames ? 0 : return_address(r, sc, l.fn);
		l.want_rbp = sc->rows[l.fn].cfa_register == GS_DWARF_REG_RBP || chance(r, 50)
			   ? l.cfa + (uint64_t)words(r, 0, 7) : noise(r, sc);
		if (k == corrupt_at && kind != C_NONE)
			corrupt(r, sc, kind, &l);
		if (k == 0 && !l.saves_rbp && (chance(r, 80) || k == corrupt_at))
			sc->w.bp = rbp = l.want_rbp; /* the probe's row keeps rbp */
		bt_sc_poke(sc, l.ra_at, l.ra);
		if (l.saves_rbp)
			bt_sc_poke(sc, l.rbp_at, l.want_rbp);
		n = bt_ref_recover(&sc->w, row, ip, rsp, rbp);
		stuck = k == corrupt_at && kind == C_STUCK;
		if (n.err || k == frames || fn_at(sc, n.ip) < 0 ||
		    (k >= corrupt_at && kind != C_NONE && !stuck && kind != C_OUTSIDE))
			break;
		row = &sc->rows[fn_at(sc, n.ip)];
		ip = n.ip;
		rsp = n.rsp;
		rbp = n.rbp;
	}
	for (size_t i = 0; i < BT_SC_STACK_WORDS; i++)
		if (!sc->written[i])
			sc->stack[i] = noise(r, sc);
}

static uint32_t chain_length(struct rng *r, uint32_t depth)
{
	unsigned k = (unsigned)below(r, 100);

	if (depth <= 7)
		return (uint32_t)below(r, depth + 4);
	if (depth > 160 && k < 30) /* the loop walker's depths: past 512 sometimes */
		return 300 + (uint32_t)below(r, 400);
	return k < 25 ? (uint32_t)below(r, 10) : k < 55 ? 5 + (uint32_t)below(r, 60)
							: 100 + (uint32_t)below(r, 60);
}

void bt_sc_generate(struct bt_scenario *sc, const struct bt_sc_shape *shape, unsigned index)
{
	struct rng r = { 0x9E3779B97F4A7C15ull * (index + 1ull) };

	bt_sc_init(sc, shape);
	sc->index = index;
	gen_modules(&r, sc);
	if (shape->module_ranges)
		gen_module_maps(&r, sc);
	sc->w.ip = sc->mods[0].bias + shape->probe_pc;
	sc->w.sp = BT_SC_STACK + 0x40 + (uint64_t)words(&r, 0, 31);
	sc->w.bp = chance(&r, 50) ? sc->w.sp + (uint64_t)words(&r, 0, 64) : below(&r, 1ull << 40);
	gen_stack(&r, sc, chain_length(&r, shape->depth));
}

/* ---- what both differential tests share ------------------------------------ */

void bt_sc_map_stack(struct gs_vm *vm, const struct bt_scenario *sc)
{
	for (size_t i = 0, end; i < BT_SC_STACK_WORDS; i = end) {
		for (end = i + 1; end < BT_SC_STACK_WORDS && sc->mapped[end] == sc->mapped[i];)
			end++;
		if (sc->mapped[i])
			gs_vm_add_user_mem(vm, BT_SC_STACK + 8 * i, &sc->stack[i], 8 * (end - i),
					   NULL);
	}
}

void bt_sc_print_rows(const struct bt_scenario *sc)
{
	static const char *const kinds[] = { "undef", "at_cfa", "val_cfa", "reg", "same" };

	for (uint32_t i = 0; i < sc->w.rows_written; i++) {
		const struct gs_unwind_row *r = &sc->rows[i];

		fprintf(stderr, "  row %u [%#" PRIx64 ", %#" PRIx64 "): cfa = r%u %+" PRId64
			", ra %s r%u %+" PRId64 ", rbp %s r%u %+" PRId64 "\n", i, r->pc_start,
			r->pc_end, r->cfa_register, r->cfa_offset, kinds[r->ra_kind % 5],
			r->ra_register, r->ra_offset, kinds[r->rbp_kind % 5], r->rbp_register,
			r->rbp_offset);
	}
}

static bool same_frame(const struct gs_backtrace_frame *a, const struct gs_backtrace_frame *b)
{
	return a->module_cookie == b->module_cookie && a->pc == b->pc && a->raw_ip == b->raw_ip &&
	       a->flags == b->flags;
}

bool bt_sc_same(const struct bt_sc_view *a, const struct bt_sc_view *b)
{
	if (a->requested_depth != b->requested_depth || a->frame_count != b->frame_count ||
	    a->flags != b->flags || a->status != b->status || a->error_code != b->error_code)
		return false;
	for (size_t i = 0; i < a->frame_count; i++)
		if (!same_frame(&a->frames[i], &b->frames[i]))
			return false;
	return true;
}

/* Long walks print their first 16 and last 4 frames and every difference. */
void bt_sc_print(const char *who, const struct bt_sc_view *b, const struct bt_sc_view *other)
{
	fprintf(stderr, "  %s: depth %u, %u frames, flags 0x%x, status %u, error_code %u\n", who,
		b->requested_depth, b->frame_count, b->flags, b->status, b->error_code);
	for (size_t i = 0; i < b->frame_count; i++) {
		const struct gs_backtrace_frame *f = &b->frames[i];
		bool differs = i >= other->frame_count || !same_frame(f, &other->frames[i]);

		if (differs || i < 16 || i + 4 >= b->frame_count)
			fprintf(stderr, "  %s [%3zu] cookie %016" PRIx64 " pc %#18" PRIx64
				" raw %#18" PRIx64 " flags %u\n", differs ? "!" : " ", i,
				f->module_cookie, f->pc, f->raw_ip, f->flags);
	}
}
