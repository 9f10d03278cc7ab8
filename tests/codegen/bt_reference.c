/* The reference backtrace walker (bt_reference.h): one function per step
 * of the walk docs/protocol.md ("Backtraces") describes, as the reference
 * implementation's specification lays them out. Plain loops and structs;
 * nothing from src/codegen. */
#include <assert.h>

#include "bt_reference.h"

#define INLINE_FRAMES 5     /* BPF_INLINE_BACKTRACE_FRAME_LIMIT */
#define FRAMES_PER_STEP 4   /* BPF_BACKTRACE_FRAMES_PER_TAIL_CALL */
#define MAX_STEP_CALLS 32   /* BPF_BACKTRACE_MAX_STEP_INVOCATIONS */
#define MIN_USER_IP 0x1000
#define KERNEL_LIKE_MASK 0xFF00000000000000ull
#define MAX_STATEMENTS 8

/* st of the spec: the frame the next unwind starts from. */
struct walk {
	uint64_t ip, rsp, rbp, bias, cookie;
	bool found;
};

struct verdict {
	bool valid, complete;
	uint16_t code;
};

struct module {
	uint64_t cookie, bias;
	bool found;
};

/* Binary-search steps the BPF side unrolls for n entries. */
static uint32_t steps(uint64_t n)
{
	uint32_t bits = 0;

	if (n <= 1)
		return 1;
	for (n--; n; n >>= 1)
		bits++;
	return bits + 1;
}

static uint8_t s_or_off(uint8_t status, bool found)
{
	return found ? status : GS_BT_OFFSETS_UNAVAILABLE;
}

static uint64_t reg(uint16_t r, uint64_t ip, uint64_t rsp, uint64_t rbp)
{
	return r == GS_DWARF_REG_RBP ? rbp : r == GS_DWARF_REG_RIP ? ip : rsp;
}

static uint64_t read_user(const struct bt_ref_world *w, uint64_t addr, bool *failed)
{
	uint64_t v;

	if (w->read_u64(w->read_ctx, addr, &v))
		return v;
	*failed = true;
	return 0;
}

/* A caller's CFA, return address and rbp from a row. */
struct bt_ref_next bt_ref_recover(const struct bt_ref_world *w, const struct gs_unwind_row *row,
				  uint64_t ip, uint64_t rsp, uint64_t rbp)
{
	struct bt_ref_next n = { 0 };
	uint64_t cfa = reg(row->cfa_register, ip, rsp, rbp) + (uint64_t)row->cfa_offset;
	bool fp = row->cfa_register == GS_DWARF_REG_RBP && row->cfa_offset == 16;
	bool ra_failed = false, rbp_failed = false;
	uint64_t mra = read_user(w, cfa + (uint64_t)row->ra_offset, &ra_failed);

	if (ra_failed && row->ra_kind == GS_RECOVERY_AT_CFA_OFFSET)
		n.err = GS_BT_ERROR_RETURN_ADDRESS_READ;
	if (row->ra_kind == GS_RECOVERY_REGISTER || row->ra_kind == GS_RECOVERY_SAME_VALUE)
		n.ip = reg(row->ra_register, ip, rsp, rbp);
	else if (row->ra_kind == GS_RECOVERY_VAL_CFA_OFFSET)
		n.ip = cfa + (uint64_t)row->ra_offset;
	else
		n.ip = mra;

	if (row->rbp_kind == GS_RECOVERY_AT_CFA_OFFSET || fp) {
		n.rbp = read_user(w, cfa + (fp ? (uint64_t)-16 : (uint64_t)row->rbp_offset),
				  &rbp_failed);
		if (rbp_failed && n.err == 0)
			n.err = GS_BT_ERROR_FRAME_POINTER_READ;
	} else if (row->rbp_kind == GS_RECOVERY_REGISTER ||
		   row->rbp_kind == GS_RECOVERY_SAME_VALUE) {
		n.rbp = reg(row->rbp_register, ip, rsp, rbp);
	} else if (row->rbp_kind == GS_RECOVERY_VAL_CFA_OFFSET) {
		n.rbp = cfa + (uint64_t)row->rbp_offset;
	} else {
		n.rbp = rbp;
	}
	n.rsp = cfa;
	return n;
}

/* The checks of a recovered caller, and the first failing one's code. */
static struct verdict validate(const struct walk *st, const struct bt_ref_next *n)
{
	bool ok_low = n->ip >= MIN_USER_IP;
	bool ok_high = (n->ip & KERNEL_LIKE_MASK) == 0;
	bool cfa_nz = n->rsp != 0;
	bool progress = n->rsp != st->rsp || n->ip != st->ip;
	struct verdict v = { .code = n->err };

	v.valid = n->err == 0 && ok_low && ok_high && cfa_nz && progress;
	v.complete = n->err == 0 && n->ip == 0;
	if (v.code == 0)
		v.code = !ok_low ? GS_BT_ERROR_NEXT_IP_BELOW_USER
		       : !ok_high ? GS_BT_ERROR_NEXT_IP_KERNEL_LIKE
		       : !cfa_nz ? GS_BT_ERROR_NEXT_CFA_ZERO
		       : !progress ? GS_BT_ERROR_NEXT_CFA_NOT_ADVANCING : 0;
	if (v.complete)
		v.code = 0;
	return v;
}

static uint8_t stop_status(struct verdict v, bool found)
{
	if (v.complete)
		return s_or_off(GS_BT_COMPLETE, found);
	if (v.code == GS_BT_ERROR_RETURN_ADDRESS_READ || v.code == GS_BT_ERROR_FRAME_POINTER_READ)
		return s_or_off(GS_BT_READ_ERROR, found);
	return s_or_off(GS_BT_INVALID_FRAME, found);
}

/* A caller's module, literally as the reference searches: both halves of
 * the search update from one entry. */
static struct module resolve_module(const struct bt_ref_world *w, uint64_t ip, uint64_t fb_cookie,
				    uint64_t fb_bias, bool fb_found)
{
	struct module m = { fb_cookie, fb_bias, fb_found };
	uint32_t lo = 0, hi = w->meta_found ? w->meta_count : 0;

	if (!w->module_ranges)
		return m;
	m.found = false;
	for (uint32_t i = 0; i < steps(w->range_entries); i++) {
		const struct gs_proc_module_range *r;
		uint32_t mid, hi_old = hi;

		if (m.found || lo >= hi || !w->meta_found)
			continue;
		mid = (uint32_t)(((uint64_t)lo + hi) >> 1);
		r = mid < w->nranges ? &w->ranges[mid] : NULL;
		if (!r) {
			lo = hi_old;
			continue;
		}
		if (r->base <= ip && ip < r->end) {
			m.found = true;
			m.cookie = r->cookie_lo | (uint64_t)r->cookie_hi << 32;
			m.bias = r->text;
		}
		if (ip < r->base)
			hi = mid;
		if (ip >= r->end)
			lo = mid + 1;
	}
	return m;
}

/* The row covering pc in the cookie's bounds, or NULL. Entries
 * past rows_written read as zero rows (an ARRAY map), past row_entries as
 * absent. */
static const struct gs_unwind_row *lookup(const struct bt_ref_world *w, uint64_t pc,
					  uint64_t cookie)
{
	static const struct gs_unwind_row zero_row;
	uint64_t lo = 0, hi = 0;

	if (!w->module_ranges) {
		hi = w->nrows;
	} else {
		for (size_t i = 0; i < w->nmodule_rows; i++) {
			if (w->module_rows[i].cookie == cookie) {
				lo = w->module_rows[i].range.row_start;
				hi = w->module_rows[i].range.row_end;
				break;
			}
		}
	}
	for (uint32_t i = 0; i < steps(w->row_entries) && lo < hi; i++) {
		uint64_t mid = (lo + hi) >> 1;
		const struct gs_unwind_row *row;

		if (mid >= w->row_entries)
			return NULL;
		row = mid < w->rows_written ? &w->rows[mid] : &zero_row;
		if (pc < row->pc_start)
			hi = mid;
		else if (pc >= row->pc_end)
			lo = mid + 1;
		else
			return row;
	}
	return NULL;
}

/* The row of a caller frame: the call instruction, ip - 1. */
static const struct gs_unwind_row *caller_row(const struct bt_ref_world *w, const struct walk *st,
					      uint64_t raw)
{
	return lookup(w, st->found ? raw - st->bias : raw, st->cookie);
}

/* One unwind from `row` stored as frame k: recover, validate, resolve the
 * module, store, move st on. False, with the stop status and error code
 * written, when the frame is not valid. */
static bool unwind(const struct bt_ref_world *w, const struct gs_unwind_row *row, struct walk *st,
		   struct bt_ref_backtrace *bt, uint32_t k)
{
	struct bt_ref_next n = bt_ref_recover(w, row, st->ip, st->rsp, st->rbp);
	struct verdict v = validate(st, &n);
	struct module m;

	if (!v.valid) {
		bt->status = stop_status(v, st->found);
		bt->error_code = v.code;
		return false;
	}
	m = resolve_module(w, n.ip, st->cookie, st->bias, w->module_ranges ? false : st->found);
	bt->frames[k] = (struct gs_backtrace_frame){ .module_cookie = m.cookie,
		.pc = m.found ? n.ip - m.bias : n.ip, .raw_ip = n.ip };
	bt->frame_count = (uint8_t)(k + 1);
	*st = (struct walk){ n.ip, n.rsp, n.rbp, m.bias, m.cookie, m.found };
	return true;
}

/* Frame 0, the first unwind and the main program's frames. True when five
 * frames are stored in tail mode and the slot is linked into the chain
 * (only when the fifth frame's module is known). */
static bool main_prefix(const struct bt_ref_world *w, uint32_t depth, uint8_t flags,
			struct bt_ref_backtrace *bt, struct walk *st)
{
	bool tail = depth > INLINE_FRAMES && w->nrows > 0;
	uint32_t inline_depth = depth < INLINE_FRAMES ? depth : INLINE_FRAMES;
	bool found = w->offsets_found;

	*bt = (struct bt_ref_backtrace){ .requested_depth = (uint8_t)depth, .frame_count = 1,
					 .flags = flags };
	*st = (struct walk){ w->ip, w->sp, w->bp, found ? w->offsets_bias : 0, w->probe_cookie,
			     found };
	bt->frames[0] = (struct gs_backtrace_frame){ .module_cookie = w->probe_cookie,
		.pc = found ? w->ip - w->offsets_bias : w->ip, .raw_ip = w->ip };
	if (depth == 1) {
		bt->status = s_or_off(GS_BT_TRUNCATED, found);
		return false;
	}
	/* the compile-time row is usable: provisional ReadError */
	bt->status = s_or_off(GS_BT_READ_ERROR, found);
	if (!unwind(w, &w->probe_row, st, bt, 1))
		return false;
	bt->status = s_or_off(depth == 2 ? GS_BT_TRUNCATED : GS_BT_READ_ERROR, found);
	if (depth == 2)
		return false;
	if (w->nrows == 0) {
		bt->status = s_or_off(GS_BT_NO_UNWIND_ROWS_FOR_PC, found);
		return false;
	}
	for (uint32_t k = 2; k < inline_depth; k++) {
		const struct gs_unwind_row *row = caller_row(w, st, st->ip - 1);
		bool was_found = st->found;

		if (!row) {
			bt->status = s_or_off(GS_BT_NO_UNWIND_ROWS_FOR_PC, st->found);
			return false;
		}
		if (!unwind(w, row, st, bt, k))
			return false;
		/* k + 1 == depth never holds in tail mode (depth > 5) */
		bt->status = s_or_off(k + 1 == depth ? GS_BT_TRUNCATED : GS_BT_READ_ERROR,
				      was_found);
	}
	return tail && st->found;
}

static uint32_t set_final(struct bt_ref_backtrace *bt, uint8_t status, uint32_t tail_calls)
{
	bt->status = status;
	bt->error_code = 0;
	return tail_calls;
}

/* The step program, for one chained slot entered with `tail_calls`:
 * invocations of four unwinds while frames remain and the budget lasts.
 * Returns tail_calls at finalize. A missing row is NoUnwindRowsForPc even
 * when the module's offsets are unknown (no override here). */
static uint32_t step_walk(const struct bt_ref_world *w, uint32_t depth, struct walk *st,
			  struct bt_ref_backtrace *bt, uint32_t tail_calls)
{
	bt->in_step = true;
	for (;;) {
		for (int i = 0; i < FRAMES_PER_STEP; i++) {
			uint32_t fc = bt->frame_count;
			const struct gs_unwind_row *row;

			if (fc >= depth)
				return set_final(bt, GS_BT_TRUNCATED, tail_calls);
			row = caller_row(w, st, fc == 1 ? st->ip : st->ip - 1);
			if (!row)
				return set_final(bt, GS_BT_NO_UNWIND_ROWS_FOR_PC, tail_calls);
			if (!unwind(w, row, st, bt, fc < depth - 1 ? fc : depth - 1))
				return tail_calls;
			if (fc + 1 >= depth)
				return set_final(bt, GS_BT_TRUNCATED, tail_calls);
		}
		if (tail_calls >= MAX_STEP_CALLS)
			return set_final(bt, GS_BT_TRUNCATED, tail_calls);
		tail_calls++;
	}
}

void bt_ref_event(const struct bt_ref_world *w, uint32_t depth, const uint8_t *flags, size_t nbt,
		  struct bt_ref_backtrace *out)
{
	struct walk st[MAX_STATEMENTS];
	size_t chain[MAX_STATEMENTS], nchain = 0;
	uint32_t tail_calls = 1;

	assert(nbt <= MAX_STATEMENTS);
	for (size_t i = 0; i < nbt; i++)
		if (main_prefix(w, depth, flags[i], &out[i], &st[i]))
			chain[nchain++] = i;
	/* the chain head starts with tail_calls 1; each next slot gets the
	 * finishing count + 1, if it is still below the budget */
	for (size_t c = 0; c < nchain; c++) {
		tail_calls = step_walk(w, depth, &st[chain[c]], &out[chain[c]], tail_calls);
		if (tail_calls >= MAX_STEP_CALLS)
			break;
		tail_calls++;
	}
	for (size_t i = 0; i < nbt; i++)
		out[i].resolved = st[i].found;
}
