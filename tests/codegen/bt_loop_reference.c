/* The reference walker over compact rows (bt_loop_reference.h): one
 * function per step the protocol describes -- frame 0's module from the
 * probe, the module snapshot, the row lookup by page index and binary
 * search, the row's rules, their evaluation on the register file (the
 * rules beyond the reference's: CFA read through memory, expression rules,
 * rbx and r12-r15, signal frames, the end of the stack), the frame-pointer
 * step where a pc has no row, validation (the
 * checks of docs/protocol.md, "Backtraces"), the caller's module
 * and its wire table entry. Plain loops over the maps' entries; nothing
 * from src/codegen. */
#include <string.h>

#include "bt_loop_reference.h"

#define MIN_USER_IP 0x1000
#define GO_ON (-1) /* the caller is valid: the walk goes on */

static const uint8_t tracked[] = { GS_DWARF_REG_RIP, GS_DWARF_REG_RSP, GS_DWARF_REG_RBP,
				   3, 12, 13, 14, 15 };

/* A frame's registers and module, as the walk moves up. */
struct frame {
	uint64_t regs[GS_BT_NREGS];
	bool known;     /* mod holds the frame's ip */
	uint8_t wire;   /* its wire table entry, or GS_BT_WIRE_NO_MODULE */
	bool exact;     /* the row lookup is at ip (after a signal frame) */
	struct gs_bt_module mod;
};

struct walk {
	const struct bt_loop_world *w;
	struct bt_loop_backtrace *bt;
	uint32_t first, count; /* the snapshot: bt_modules [first, first + count) */
	int wire_of[GS_BT_PROC_MODULES_MAX]; /* snapshot index -> table entry, or -1 */
	uint8_t slots;
	struct gs_bt_wire_module table[GS_BT_WIRE_MODULES];
	uint64_t first_sp; /* frame 0's: the frame-pointer step stays within a span of it */
};

static const void *elem(const struct bt_loop_world *w, const char *map, uint32_t key)
{
	return w->elem(w->elem_ctx, map, &key);
}

/* bt_proc_modules[tgid]; no entry: an empty snapshot. */
static void find_snapshot(struct walk *k)
{
	const struct gs_bt_proc_modules *pm;
	uint32_t tgid = k->w->tgid;

	pm = k->w->elem(k->w->elem_ctx, GS_MAP_NAME_BT_PROC_MODULES, &tgid);
	k->first = pm ? pm->first : 0;
	k->count = pm ? pm->count : 0;
	if (k->count > GS_BT_PROC_MODULES_MAX)
		k->count = GS_BT_PROC_MODULES_MAX;
}

/* Frame 0's module: the probe's rows by cookie, bias = ip - probe pc, the
 * pages the rows cover; wire entry 0. */
static void probe_module(struct walk *k, struct frame *f)
{
	const struct gs_bt_module_rows *r;
	uint64_t cookie = k->w->probe_cookie, bias;

	if (!cookie || !(r = k->w->elem(k->w->elem_ctx, GS_MAP_NAME_BT_MODULE_ROWS, &cookie)))
		return;
	bias = f->regs[GS_DWARF_REG_RIP] - k->w->probe_pc;
	f->mod = (struct gs_bt_module){ .start = bias + (r->first_page << GS_BT_PAGE_SHIFT),
		.end = bias + ((r->first_page + r->npages) << GS_BT_PAGE_SHIFT), .cookie = cookie,
		.bias = bias, .first_page = r->first_page, .row_lo = r->row_lo,
		.row_hi = r->row_hi, .page_lo = r->page_lo, .npages = r->npages };
	f->known = true;
	f->wire = 0;
	k->table[0] = (struct gs_bt_wire_module){ cookie, bias };
	k->bt->modules = 1;
}

/* The snapshot entry whose [start, end) holds ip, by binary search. */
static bool search_module(struct walk *k, uint64_t ip, struct frame *f, uint32_t *index)
{
	uint32_t lo = 0, hi = k->count;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		const struct gs_bt_module *m = elem(k->w, GS_MAP_NAME_BT_MODULES, k->first + mid);

		if (!m)
			return false;
		if (ip < m->start) {
			hi = mid;
		} else if (ip < m->end) {
			f->mod = *m;
			*index = mid;
			return true;
		} else {
			lo = mid + 1;
		}
	}
	return false;
}

/* The frame's module: its caller's while ip stays inside it, else the
 * snapshot's; the module table index it goes on the wire with. */
static uint8_t resolve_module(struct walk *k, struct frame *f)
{
	uint64_t ip = f->regs[GS_DWARF_REG_RIP];
	uint32_t index;

	if (f->known && f->mod.start <= ip && ip < f->mod.end)
		return f->wire;
	f->wire = GS_BT_WIRE_NO_MODULE;
	f->known = search_module(k, ip, f, &index);
	if (!f->known)
		return f->wire;
	if (k->wire_of[index] < 0 && k->bt->modules < k->slots) {
		k->table[k->bt->modules] = (struct gs_bt_wire_module){ f->mod.cookie, f->mod.bias };
		k->wire_of[index] = k->bt->modules++;
	}
	if (k->wire_of[index] >= 0)
		f->wire = (uint8_t)k->wire_of[index];
	return f->wire;
}

/* The row covering link-time pc in the frame's module: its page's rows
 * [pages[p], pages[p + 1]) searched by page offset, else the row before
 * the page; it must lie in [row_lo, row_hi). */
static const struct gs_bt_row *lookup_row(const struct walk *k, const struct gs_bt_module *m,
					  uint64_t pc)
{
	uint64_t page = (pc >> GS_BT_PAGE_SHIFT) - m->first_page;
	const uint32_t *plo, *phi;
	int64_t found, lo, hi;

	if (page >= m->npages)
		return NULL;
	plo = elem(k->w, GS_MAP_NAME_BT_PAGES, m->page_lo + (uint32_t)page);
	phi = elem(k->w, GS_MAP_NAME_BT_PAGES, m->page_lo + (uint32_t)page + 1);
	if (!plo || !phi)
		return NULL;
	lo = *plo;
	hi = *phi;
	found = lo - 1;
	while (lo < hi) {
		int64_t mid = (lo + hi) / 2;
		const struct gs_bt_row *r = elem(k->w, GS_MAP_NAME_BT_CROWS, (uint32_t)mid);

		if (!r)
			break;
		if ((r->pc & GS_BT_ROW_PC_MASK) <= (pc & GS_BT_ROW_PC_MASK)) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (found < m->row_lo || found >= m->row_hi)
		return NULL;
	return elem(k->w, GS_MAP_NAME_BT_CROWS, (uint32_t)found);
}

/* A RA or rbp rule of a compact row: kind and register nibbles, s8 / 8. */
static struct gs_bt_rule nibble_rule(uint8_t nib, int8_t off8)
{
	return (struct gs_bt_rule){ .kind = nib >> 4, .reg = nib & 15, .off = 8 * off8 };
}

/* The row's rules: 0, or the status that stops the walk. */
static uint8_t decode(const struct walk *k, const struct gs_bt_row *r, struct gs_bt_rules *out)
{
	const struct gs_bt_rules *o;

	switch (r->cfa >> 4) {
	case GS_BT_CFA_NONE:
		return GS_BT_NO_UNWIND_ROWS_FOR_PC;
	case GS_BT_CFA_OVERFLOW:
		o = elem(k->w, GS_MAP_NAME_BT_OVERFLOW, (uint16_t)r->cfa_off);
		if (!o)
			return GS_BT_NO_UNWIND_ROWS_FOR_PC;
		*out = *o;
		break;
	default:
		out->cfa = (struct gs_bt_rule){ .kind = r->cfa >> 4, .reg = r->cfa & 15,
						.off = r->cfa_off };
		out->ra = nibble_rule(r->ra, r->ra_off);
		out->rbp = nibble_rule(r->rbp, r->rbp_off);
		for (int i = 0; i < GS_BT_NSAVED; i++)
			out->saved[i] = (r->saved[i] & 3) == GS_BT_SAVED_AT_CFA ?
				(struct gs_bt_rule){ .kind = GS_RECOVERY_AT_CFA_OFFSET,
						     .off = 8 * ((int8_t)r->saved[i] >> 2) } :
				(struct gs_bt_rule){ .kind = GS_RECOVERY_SAME_VALUE };
		break;
	}
	if (out->cfa.kind != GS_BT_CFA_REG_OFF && out->cfa.kind != GS_BT_CFA_REG_DEREF)
		return GS_BT_UNSUPPORTED_CFI;
	return 0;
}

/* An 8-byte user read; a failure gives 0 and records `code` first. */
static uint64_t read_user(const struct walk *k, uint64_t addr, uint16_t code, uint16_t *err)
{
	uint64_t v;

	if (k->w->read_u64(k->w->read_ctx, addr, &v))
		return v;
	if (code && *err == 0)
		*err = code;
	return 0;
}

/* What a rule gives for register dst: 0 and *out, or UnsupportedCfi. */
static int eval(const struct walk *k, const struct gs_bt_rule *r, const struct frame *f,
		uint64_t cfa, int dst, uint16_t code, uint16_t *err, uint64_t *out)
{
	switch (r->kind) {
	case GS_RECOVERY_AT_CFA_OFFSET:
		*out = read_user(k, cfa + (uint64_t)(int64_t)r->off, code, err);
		return 0;
	case GS_RECOVERY_SAME_VALUE:
	case GS_RECOVERY_UNDEFINED:
		*out = f->regs[dst];
		return 0;
	case GS_RECOVERY_VAL_CFA_OFFSET:
		*out = cfa + (uint64_t)(int64_t)r->off;
		return 0;
	case GS_RECOVERY_REGISTER:
	case GS_RECOVERY_EXPRESSION:
	case GS_RECOVERY_VAL_EXPRESSION:
		if (r->reg > GS_DWARF_REG_MAX)
			return GS_BT_UNSUPPORTED_CFI;
		*out = f->regs[r->reg];
		if (r->kind == GS_RECOVERY_REGISTER)
			return 0;
		*out += (uint64_t)(int64_t)r->off;
		if (r->kind == GS_RECOVERY_EXPRESSION)
			*out = read_user(k, *out, code, err);
		return 0;
	default:
		return GS_BT_UNSUPPORTED_CFI;
	}
}

/* The caller's registers (docs/protocol.md): GO_ON with next[] set, or
 * the status that stops the walk. */
static int recover(const struct walk *k, const struct gs_bt_rules *r, const struct frame *f,
		   uint64_t next[GS_BT_NREGS], uint16_t *err)
{
	uint64_t cfa;
	int rc;

	*err = 0;
	if (r->cfa.reg > GS_DWARF_REG_MAX)
		return GS_BT_UNSUPPORTED_CFI;
	cfa = f->regs[r->cfa.reg] + (uint64_t)(int64_t)r->cfa.off;
	if (r->cfa.kind == GS_BT_CFA_REG_DEREF)
		cfa = read_user(k, cfa, GS_BT_ERROR_CFA_READ, err);
	next[GS_DWARF_REG_RSP] = cfa;
	if (r->ra.kind == GS_RECOVERY_UNDEFINED)
		return GS_BT_COMPLETE;
	rc = eval(k, &r->ra, f, cfa, GS_DWARF_REG_RIP, GS_BT_ERROR_RETURN_ADDRESS_READ, err,
		  &next[GS_DWARF_REG_RIP]);
	if (rc)
		return rc;
	if (r->cfa.kind == GS_BT_CFA_REG_OFF && r->cfa.reg == GS_DWARF_REG_RBP && r->cfa.off == 16)
		next[GS_DWARF_REG_RBP] = read_user(k, cfa - 16, GS_BT_ERROR_FRAME_POINTER_READ, err);
	else if ((rc = eval(k, &r->rbp, f, cfa, GS_DWARF_REG_RBP, GS_BT_ERROR_FRAME_POINTER_READ,
			    err, &next[GS_DWARF_REG_RBP])))
		return rc;
	for (int i = 0; i < GS_BT_NSAVED; i++)
		if ((rc = eval(k, &r->saved[i], f, cfa, gs_bt_saved_dwarf[i], 0, err,
			       &next[gs_bt_saved_dwarf[i]])))
			return rc;
	return GO_ON;
}

/* The checks (docs/protocol.md, "Backtraces", plus code 7): GO_ON, or the
 * status that stops the walk. */
static int validate(const struct frame *f, const uint64_t next[GS_BT_NREGS], uint16_t err,
		    uint16_t *code)
{
	uint64_t ip = next[GS_DWARF_REG_RIP], rsp = next[GS_DWARF_REG_RSP];

	*code = err;
	if (err)
		return err == GS_BT_ERROR_RETURN_ADDRESS_READ ||
		       err == GS_BT_ERROR_FRAME_POINTER_READ ||
		       err == GS_BT_ERROR_CFA_READ ? GS_BT_READ_ERROR : GS_BT_INVALID_FRAME;
	if (ip == 0)
		return GS_BT_COMPLETE;
	*code = ip < MIN_USER_IP ? GS_BT_ERROR_NEXT_IP_BELOW_USER
	      : ip >> GS_BT_WIRE_IP_BITS ? GS_BT_ERROR_NEXT_IP_KERNEL_LIKE
	      : rsp == 0 ? GS_BT_ERROR_NEXT_CFA_ZERO
	      : rsp == f->regs[GS_DWARF_REG_RSP] && ip == f->regs[GS_DWARF_REG_RIP] ?
			GS_BT_ERROR_NEXT_CFA_NOT_ADVANCING : 0;
	return *code ? GS_BT_INVALID_FRAME : GO_ON;
}

/* Where f's pc has no row (`status` says why): its caller from the frame
 * record rbp points at (docs/unwind.md, "Frames without CFI"), checked,
 * then validated as any caller; a failed check stops with `status` and
 * FRAME_POINTER_CHAIN. */
static int fp_step(struct walk *k, struct frame *f, int status)
{
	uint64_t rbp = f->regs[GS_DWARF_REG_RBP], cfa = rbp + 16, next[GS_BT_NREGS];
	uint16_t ignored = 0;
	int rc;

	if (!rbp || (rbp & 7) || cfa <= f->regs[GS_DWARF_REG_RSP] ||
	    cfa > k->first_sp + GS_BT_FP_STACK_SPAN)
		goto bad;
	memcpy(next, f->regs, sizeof(next));
	next[GS_DWARF_REG_RSP] = cfa;
	f->exact = false;
	next[GS_DWARF_REG_RIP] = read_user(k, cfa - 8, 0, &ignored);
	if (!next[GS_DWARF_REG_RIP])
		goto bad;
	next[GS_DWARF_REG_RBP] = read_user(k, rbp, 0, &ignored);
	rc = validate(f, next, 0, &k->bt->error_code);
	if (rc != GO_ON)
		return rc;
	for (size_t i = 0; i < sizeof(tracked); i++)
		f->regs[tracked[i]] = next[tracked[i]];
	k->bt->fp_steps++;
	return GO_ON;
bad:
	k->bt->error_code = GS_BT_ERROR_FRAME_POINTER_CHAIN;
	return status;
}

/* One unwind from frame `f` (frame_count frames stored): GO_ON with f
 * moved to its caller, or the status that stops the walk. */
static int unwind(struct walk *k, struct frame *f)
{
	const struct gs_bt_row *row;
	struct gs_bt_rules r = { 0 };
	uint64_t next[GS_BT_NREGS], ip = f->regs[GS_DWARF_REG_RIP], pc;
	uint16_t err;
	int status;

	if (!f->known)
		return fp_step(k, f, GS_BT_OFFSETS_UNAVAILABLE);
	/* frame 0 and a signal frame's caller at their pc, a caller at its call */
	pc = (k->bt->frame_count <= 1 || f->exact ? ip : ip - 1) - f->mod.bias;
	row = lookup_row(k, &f->mod, pc);
	if (!row)
		return fp_step(k, f, GS_BT_NO_UNWIND_ROWS_FOR_PC);
	f->exact = (row->pc & GS_BT_ROW_F_SIGNAL) != 0;
	status = decode(k, row, &r);
	if (status == GS_BT_NO_UNWIND_ROWS_FOR_PC)
		return fp_step(k, f, status);
	if (status)
		return status;
	memcpy(next, f->regs, sizeof(next));
	status = recover(k, &r, f, next, &err);
	if (status == GO_ON)
		status = validate(f, next, err, &k->bt->error_code);
	if (status != GO_ON)
		return status;
	for (size_t i = 0; i < sizeof(tracked); i++)
		f->regs[tracked[i]] = next[tracked[i]];
	return GO_ON;
}

void bt_loop_ref_walk(const struct bt_loop_world *w, uint32_t depth, uint8_t flags,
		      struct bt_loop_backtrace *out)
{
	struct walk k = { .w = w, .bt = out };
	struct frame f = { .wire = GS_BT_WIRE_NO_MODULE };
	uint8_t wire[GS_BT_LOOP_MAX_DEPTH];

	memset(out, 0, sizeof(*out));
	memcpy(f.regs, w->regs, sizeof(f.regs));
	f.regs[GS_DWARF_REG_RIP] = w->ip;
	f.regs[GS_DWARF_REG_RSP] = w->sp;
	f.regs[GS_DWARF_REG_RBP] = w->bp;
	k.first_sp = w->sp;
	out->requested_depth = (uint16_t)depth;
	out->flags = flags;
	out->status = GS_BT_TRUNCATED; /* unless a stop comes first */
	k.slots = (uint8_t)(depth < GS_BT_WIRE_MODULES ? depth : GS_BT_WIRE_MODULES);
	memset(k.wire_of, -1, sizeof(k.wire_of));
	find_snapshot(&k);
	probe_module(&k, &f);
	while (out->frame_count < depth) {
		if (out->frame_count > 0) {
			int status = unwind(&k, &f);

			if (status != GO_ON) {
				out->status = (uint8_t)status;
				break;
			}
		}
		wire[out->frame_count++] = resolve_module(&k, &f);
		out->frames[out->frame_count - 1].raw_ip = f.regs[GS_DWARF_REG_RIP];
	}
	if (out->status != GS_BT_INVALID_FRAME && out->status != GS_BT_READ_ERROR &&
	    out->error_code != GS_BT_ERROR_FRAME_POINTER_CHAIN)
		out->error_code = 0;
	for (uint32_t i = 0; i < out->frame_count; i++) {
		struct gs_backtrace_frame *fr = &out->frames[i];

		fr->pc = fr->raw_ip;
		if (wire[i] < out->modules) {
			fr->module_cookie = k.table[wire[i]].cookie;
			fr->pc = fr->raw_ip - k.table[wire[i]].bias;
		} else {
			out->unknown_frames++;
		}
	}
}
