/* The reference walker over compact rows (bt_loop_reference.h): one
 * function per step the protocol describes -- the module snapshot, the row
 * lookup by page index and binary search, the row's rules, recovery and
 * validation (spec 6.6-6.7), the caller's module and its wire table entry.
 * Plain loops over the maps' entries; nothing from src/codegen. */
#include <string.h>

#include "bt_loop_reference.h"

#define MIN_USER_IP 0x1000

/* A frame's registers and module, as the walk moves up. */
struct frame {
	uint64_t ip, rsp, rbp;
	bool known;                /* mod is the snapshot entry holding ip */
	uint32_t mod_index;        /* its index in the snapshot */
	struct gs_bt_module mod;
};

/* Rules of one row, whatever its encoding. */
struct rules {
	uint16_t cfa_reg, ra_reg, rbp_reg;
	int64_t cfa_off, ra_off, rbp_off;
	uint8_t ra_kind, rbp_kind;
};

struct next {
	uint64_t ip, rsp, rbp;
	uint16_t err;
};

struct walk {
	const struct bt_loop_world *w;
	struct bt_loop_backtrace *bt;
	uint32_t first, count; /* the snapshot: bt_modules [first, first + count) */
	int wire_of[GS_BT_PROC_MODULES_MAX]; /* snapshot index -> table entry, or -1 */
	uint8_t slots;
	struct gs_bt_wire_module table[GS_BT_WIRE_MODULES];
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

/* The snapshot entry whose [start, end) holds ip, by binary search. */
static bool search_module(struct walk *k, uint64_t ip, struct frame *f)
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
			f->mod_index = mid;
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
	bool same = f->known && f->mod.start <= f->ip && f->ip < f->mod.end;

	if (!same && !(f->known = search_module(k, f->ip, f)))
		return GS_BT_WIRE_NO_MODULE;
	if (!same && k->wire_of[f->mod_index] < 0 && k->bt->modules < k->slots) {
		k->table[k->bt->modules] = (struct gs_bt_wire_module){ f->mod.cookie, f->mod.bias };
		k->wire_of[f->mod_index] = k->bt->modules++;
	}
	return k->wire_of[f->mod_index] >= 0 ? (uint8_t)k->wire_of[f->mod_index]
					     : GS_BT_WIRE_NO_MODULE;
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

/* The row's rules: 0, or the status that stops the walk. */
static uint8_t decode(const struct walk *k, const struct gs_bt_row *r, struct rules *out)
{
	const struct gs_unwind_row *u;

	switch (r->cfa >> 4) {
	case GS_BT_CFA_NONE:
		return GS_BT_NO_UNWIND_ROWS_FOR_PC;
	case GS_BT_CFA_REG_OFF:
		*out = (struct rules){ .cfa_reg = r->cfa & 15, .cfa_off = r->cfa_off,
			.ra_kind = r->ra >> 4, .ra_reg = r->ra & 15, .ra_off = 8 * (int64_t)r->ra_off,
			.rbp_kind = r->rbp >> 4, .rbp_reg = r->rbp & 15,
			.rbp_off = 8 * (int64_t)r->rbp_off };
		break;
	case GS_BT_CFA_OVERFLOW:
		u = elem(k->w, GS_MAP_NAME_BT_OVERFLOW, (uint16_t)r->cfa_off);
		if (!u)
			return GS_BT_NO_UNWIND_ROWS_FOR_PC;
		*out = (struct rules){ .cfa_reg = u->cfa_register, .cfa_off = u->cfa_offset,
			.ra_kind = u->ra_kind, .ra_reg = u->ra_register, .ra_off = u->ra_offset,
			.rbp_kind = u->rbp_kind, .rbp_reg = u->rbp_register,
			.rbp_off = u->rbp_offset };
		break;
	default: /* REG_DEREF, EXPRESSION: issue 11 */
		return GS_BT_UNSUPPORTED_CFI;
	}
	/* an undefined RA (the end of the stack) and expressions: issue 11 */
	if (out->ra_kind == GS_RECOVERY_UNDEFINED || out->ra_kind > GS_RECOVERY_SAME_VALUE ||
	    out->rbp_kind > GS_RECOVERY_SAME_VALUE)
		return GS_BT_UNSUPPORTED_CFI;
	return 0;
}

static uint64_t reg(uint16_t r, const struct frame *f)
{
	return r == GS_DWARF_REG_RBP ? f->rbp : r == GS_DWARF_REG_RIP ? f->ip : f->rsp;
}

static uint64_t read_user(const struct walk *k, uint64_t addr, uint16_t code, uint16_t *err)
{
	uint64_t v;

	if (k->w->read_u64(k->w->read_ctx, addr, &v))
		return v;
	if (*err == 0)
		*err = code;
	return 0;
}

/* Spec 6.6; the return address is read only when its rule needs memory. */
static struct next recover(const struct walk *k, const struct rules *r, const struct frame *f)
{
	uint64_t cfa = reg(r->cfa_reg, f) + (uint64_t)r->cfa_off;
	bool fp = r->cfa_reg == GS_DWARF_REG_RBP && r->cfa_off == 16;
	struct next n = { .rsp = cfa };

	if (r->ra_kind == GS_RECOVERY_AT_CFA_OFFSET)
		n.ip = read_user(k, cfa + (uint64_t)r->ra_off, GS_BT_ERROR_RETURN_ADDRESS_READ,
				 &n.err);
	else if (r->ra_kind == GS_RECOVERY_VAL_CFA_OFFSET)
		n.ip = cfa + (uint64_t)r->ra_off;
	else
		n.ip = reg(r->ra_reg, f);
	if (fp || r->rbp_kind == GS_RECOVERY_AT_CFA_OFFSET)
		n.rbp = read_user(k, cfa + (fp ? (uint64_t)-16 : (uint64_t)r->rbp_off),
				  GS_BT_ERROR_FRAME_POINTER_READ, &n.err);
	else if (r->rbp_kind == GS_RECOVERY_VAL_CFA_OFFSET)
		n.rbp = cfa + (uint64_t)r->rbp_off;
	else if (r->rbp_kind == GS_RECOVERY_UNDEFINED)
		n.rbp = f->rbp;
	else
		n.rbp = reg(r->rbp_reg, f);
	return n;
}

#define GO_ON (-1) /* the caller is valid: the walk goes on */

/* Spec 6.7: GO_ON, or the status that stops the walk (*code set). */
static int validate(const struct frame *f, const struct next *n, uint16_t *code)
{
	*code = n->err;
	if (n->err)
		return n->err == GS_BT_ERROR_RETURN_ADDRESS_READ ||
		       n->err == GS_BT_ERROR_FRAME_POINTER_READ ? GS_BT_READ_ERROR
								 : GS_BT_INVALID_FRAME;
	if (n->ip == 0)
		return GS_BT_COMPLETE;
	*code = n->ip < MIN_USER_IP ? GS_BT_ERROR_NEXT_IP_BELOW_USER
	      : n->ip >> GS_BT_WIRE_IP_BITS ? GS_BT_ERROR_NEXT_IP_KERNEL_LIKE
	      : n->rsp == 0 ? GS_BT_ERROR_NEXT_CFA_ZERO
	      : n->rsp == f->rsp && n->ip == f->ip ? GS_BT_ERROR_NEXT_CFA_NOT_ADVANCING : 0;
	return *code ? GS_BT_INVALID_FRAME : GO_ON;
}

/* One unwind from frame `f` (frame_count frames stored): GO_ON with f
 * moved to its caller, or the status that stops the walk. */
static int unwind(struct walk *k, struct frame *f)
{
	const struct gs_bt_row *row;
	struct rules r;
	struct next n;
	int status;
	uint64_t pc;

	if (!f->known)
		return GS_BT_OFFSETS_UNAVAILABLE;
	/* frame 0 at its pc, a caller at its call instruction */
	pc = (k->bt->frame_count <= 1 ? f->ip : f->ip - 1) - f->mod.bias;
	row = lookup_row(k, &f->mod, pc);
	if (!row)
		return GS_BT_NO_UNWIND_ROWS_FOR_PC;
	status = decode(k, row, &r);
	if (status)
		return status;
	n = recover(k, &r, f);
	status = validate(f, &n, &k->bt->error_code);
	if (status != GO_ON)
		return status;
	f->ip = n.ip;
	f->rsp = n.rsp;
	f->rbp = n.rbp;
	return GO_ON;
}

void bt_loop_ref_walk(const struct bt_loop_world *w, uint32_t depth, uint8_t flags,
		      struct bt_loop_backtrace *out)
{
	struct walk k = { .w = w, .bt = out };
	struct frame f = { .ip = w->ip, .rsp = w->sp, .rbp = w->bp };
	uint8_t wire[GS_BT_LOOP_MAX_DEPTH];

	memset(out, 0, sizeof(*out));
	out->requested_depth = (uint16_t)depth;
	out->flags = flags;
	out->status = GS_BT_TRUNCATED; /* unless a stop comes first */
	k.slots = (uint8_t)(depth < GS_BT_WIRE_MODULES ? depth : GS_BT_WIRE_MODULES);
	memset(k.wire_of, -1, sizeof(k.wire_of));
	find_snapshot(&k);
	while (out->frame_count < depth) {
		if (out->frame_count > 0) {
			int status = unwind(&k, &f);

			if (status != GO_ON) {
				out->status = (uint8_t)status;
				break;
			}
		}
		wire[out->frame_count++] = resolve_module(&k, &f);
		out->frames[out->frame_count - 1].raw_ip = f.ip;
	}
	if (out->status != GS_BT_INVALID_FRAME && out->status != GS_BT_READ_ERROR)
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
