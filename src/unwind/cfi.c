/* Unwind rows of one module from its CFI (docs/unwind.md, "Rows"): every FDE
 * range of .eh_frame, plus .debug_frame FDEs for ranges .eh_frame lacks, is
 * walked row by row through libdw (dwarf_cfi_addrframe, dwarf_frame_info),
 * each row's CFA / RA / rsp / rbp rules are converted to the 56-byte wire
 * row or dropped with a reason, and (cfi_xrow.c) to the loop walker's full
 * row; then rows are sorted and identical neighbours merged. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "opts.h"
#include "unwind_int.h"
#include "base.h"

enum rule_kind { RULE_UNDEFINED, RULE_SAME, RULE_AT_CFA, RULE_VAL_CFA, RULE_REGISTER, RULE_EXPR };

struct rule {
	enum rule_kind kind;
	int64_t value; /* offset, or register number */
};

static const char *const drop_names[GS_CFI_DROP_NREASONS] = {
	[GS_CFI_DROP_EMPTY_RANGE] = "empty_range",
	[GS_CFI_DROP_CFA_EXPRESSION] = "cfa_expression",
	[GS_CFI_DROP_CFA_REGISTER] = "cfa_register",
	[GS_CFI_DROP_RA_UNDEFINED] = "ra_undefined",
	[GS_CFI_DROP_RA_RULE] = "ra_rule",
	[GS_CFI_DROP_SP_RULE] = "sp_rule",
	[GS_CFI_DROP_RBP_RULE] = "rbp_rule",
	[GS_CFI_DROP_LIBDW_ERROR] = "libdw_error",
	[GS_CFI_DROP_SAVED_RULE] = "saved_rule",
	[GS_CFI_DROP_CORRUPT] = "corrupt_cfi",
};

const char *gs_cfi_drop_name(enum gs_cfi_drop reason)
{
	return (unsigned)reason < GS_CFI_DROP_NREASONS ? drop_names[reason] : "unknown";
}

/* Reads libdw's location description for a register back into a rule:
 * libdw spells "at CFA + n" as call_frame_cfa, plus_uconst n, and adds
 * stack_value for "value CFA + n". */
static int register_rule(Dwarf_Frame *frame, int regno, struct rule *out)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0)
		return -1;
	out->value = 0;
	if (nops == 0) {
		out->kind = ops ? RULE_UNDEFINED : RULE_SAME;
		return 0;
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx) {
		out->kind = RULE_REGISTER;
		out->value = (int64_t)ops[0].number;
		return 0;
	}
	out->kind = RULE_EXPR;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return 0;
	size_t i = 1;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		out->value = (int64_t)ops[i++].number;
	if (i == nops)
		out->kind = RULE_AT_CFA;
	else if (i + 1 == nops && ops[i].atom == DW_OP_stack_value)
		out->kind = RULE_VAL_CFA;
	return 0;
}

/* Fills row from the frame's rules; -1 when exportable, else the reason. */
static int convert_row(Dwarf_Frame *frame, int ra_reg, struct gs_unwind_row *row)
{
	struct rule ra, sp, bp;
	Dwarf_Op *cfa;
	size_t ncfa;

	if (dwarf_frame_cfa(frame, &cfa, &ncfa) != 0)
		return GS_CFI_DROP_CFA_EXPRESSION;
	if (ncfa != 1 || cfa[0].atom != DW_OP_bregx)
		return GS_CFI_DROP_CFA_EXPRESSION;
	if (cfa[0].number != GS_DWARF_REG_RBP && cfa[0].number != GS_DWARF_REG_RSP)
		return GS_CFI_DROP_CFA_REGISTER;
	if (ra_reg < 0 || register_rule(frame, ra_reg, &ra) != 0 ||
	    register_rule(frame, GS_DWARF_REG_RSP, &sp) != 0 ||
	    register_rule(frame, GS_DWARF_REG_RBP, &bp) != 0)
		return GS_CFI_DROP_LIBDW_ERROR;
	if (ra.kind == RULE_UNDEFINED)
		return GS_CFI_DROP_RA_UNDEFINED;
	if (ra.kind != RULE_AT_CFA)
		return GS_CFI_DROP_RA_RULE;
	if (sp.kind == RULE_EXPR)
		return GS_CFI_DROP_SP_RULE;

	row->cfa_register = (uint16_t)cfa[0].number;
	row->cfa_offset = (int64_t)cfa[0].number2;
	row->ra_kind = GS_RECOVERY_AT_CFA_OFFSET;
	row->ra_offset = ra.value;
	row->ra_register = (uint16_t)ra_reg;
	switch (bp.kind) {
	case RULE_AT_CFA:
	case RULE_VAL_CFA:
		row->rbp_kind = bp.kind == RULE_AT_CFA ? GS_RECOVERY_AT_CFA_OFFSET
						       : GS_RECOVERY_VAL_CFA_OFFSET;
		row->rbp_offset = bp.value;
		row->rbp_register = GS_DWARF_REG_RBP;
		return -1;
	case RULE_REGISTER:
		if (bp.value != GS_DWARF_REG_RBP && bp.value != GS_DWARF_REG_RSP &&
		    bp.value != GS_DWARF_REG_RIP)
			return GS_CFI_DROP_RBP_RULE;
		row->rbp_kind = GS_RECOVERY_REGISTER;
		row->rbp_register = (uint16_t)bp.value;
		return -1;
	case RULE_SAME:
	case RULE_UNDEFINED:
		row->rbp_kind = GS_RECOVERY_SAME_VALUE;
		row->rbp_register = GS_DWARF_REG_RBP;
		return -1;
	default:
		return GS_CFI_DROP_RBP_RULE;
	}
}

static void add_row(struct uw_cfi_builder *b, const struct gs_unwind_row *row)
{
	struct gs_cfi_table *t = b->t;

	if (base_grow((void **)&t->rows, &b->rows_cap, t->nrows + 1, sizeof(*t->rows))) {
		b->oom = true;
		return;
	}
	t->rows[t->nrows++] = *row;
	t->stats.exported++;
}

static void add_xrow(struct uw_cfi_builder *b, const struct gs_cfi_row *row)
{
	struct gs_cfi_table *t = b->t;

	if (base_grow((void **)&t->xrows, &b->xrows_cap, t->nxrows + 1, sizeof(*t->xrows))) {
		b->oom = true;
		return;
	}
	t->xrows[t->nxrows++] = *row;
	t->stats.xexported++;
	t->stats.signal_rows += (row->flags & GS_CFI_ROW_SIGNAL) != 0;
}

void uw_cfi_add_dropped(struct uw_cfi_builder *b, uint64_t lo, uint64_t hi, int reason)
{
	struct gs_cfi_table *t = b->t;

	if (lo >= hi)
		return;
	if (t->ndropped && t->dropped[t->ndropped - 1].pc_end == lo &&
	    t->dropped[t->ndropped - 1].reason == reason) {
		t->dropped[t->ndropped - 1].pc_end = hi;
		return;
	}
	if (base_grow((void **)&t->dropped, &b->dropped_cap, t->ndropped + 1, sizeof(*t->dropped))) {
		b->oom = true;
		return;
	}
	/* zeroed whole: the padding goes into the cache file as it is */
	memset(&t->dropped[t->ndropped], 0, sizeof(*t->dropped));
	t->dropped[t->ndropped].pc_start = lo;
	t->dropped[t->ndropped].pc_end = hi;
	t->dropped[t->ndropped++].reason = (uint8_t)reason;
}

static void add_dropped(struct uw_cfi_builder *b, uint64_t lo, uint64_t hi, int reason)
{
	b->t->stats.dropped[reason]++;
	uw_cfi_add_dropped(b, lo, hi, reason);
}

/* Walks the rows of one FDE range: each dwarf_cfi_addrframe() call gives
 * the row holding addr and, through dwarf_frame_info(), where it ends.
 * libdw answers for an address with any FDE covering it, so addresses a
 * corrupt FDE covers are never asked about: dropped as corrupt. */
static void walk_range(struct uw_cfi_builder *b, Dwarf_CFI *cfi, struct mf_fde_range range)
{
	uint64_t addr = range.lo;

	if (range.lo >= range.hi) {
		b->t->stats.rows++;
		add_dropped(b, range.lo, range.hi, GS_CFI_DROP_EMPTY_RANGE);
		return;
	}
	while (addr < range.hi && !b->oom) {
		struct gs_unwind_row row = { 0 };
		struct gs_cfi_row xrow = { 0 };
		const struct mf_fde_range *zone = mf_zone_after(b->zones, b->nzones, addr);
		Dwarf_Frame *frame = NULL;
		Dwarf_Addr start, end;
		bool signal = false;
		int ra_reg, reason, xreason;

		b->t->stats.rows++;
		if (zone && zone->lo <= addr) { /* the zone's own dropped range covers it */
			b->t->stats.dropped[GS_CFI_DROP_CORRUPT]++;
			addr = zone->hi < range.hi ? zone->hi : range.hi;
			continue;
		}
		b->t->stats.steps += range.ops;
		if (dwarf_cfi_addrframe(cfi, addr, &frame) != 0) {
			add_dropped(b, addr, range.hi, GS_CFI_DROP_LIBDW_ERROR);
			return;
		}
		ra_reg = dwarf_frame_info(frame, &start, &end, &signal);
		if (ra_reg < 0 || end <= addr) {
			free(frame);
			add_dropped(b, addr, range.hi, GS_CFI_DROP_LIBDW_ERROR);
			return;
		}
		if (end > range.hi)
			end = range.hi;
		if (zone && end > zone->lo)
			end = zone->lo;
		reason = convert_row(frame, ra_reg, &row);
		xreason = uw_convert_xrow(frame, ra_reg, &xrow);
		free(frame);
		if (xreason >= 0) {
			b->t->stats.xdropped[xreason]++;
		} else {
			xrow.pc_start = addr;
			xrow.pc_end = end;
			xrow.flags = signal ? GS_CFI_ROW_SIGNAL : 0;
			add_xrow(b, &xrow);
		}
		if (reason >= 0) {
			add_dropped(b, addr, end, reason);
		} else {
			row.pc_start = addr;
			row.pc_end = end;
			add_row(b, &row);
		}
		addr = end;
	}
}

void uw_cfi_walk(struct uw_cfi_builder *b, Dwarf_CFI *cfi, const struct mf_fde_range *v, size_t n)
{
	for (size_t i = 0; i < n && !b->oom; i++)
		walk_range(b, cfi, v[i]);
}

struct range_key {
	const struct mf_fde_range *v;
	uint64_t addr;
};

static bool range_ends_by(const void *ctx, size_t i)
{
	const struct range_key *k = ctx;

	return k->v[i].hi <= k->addr;
}

static bool overlaps(const struct mf_fde_range *v, size_t n, struct mf_fde_range r)
{
	struct range_key k = { v, r.lo };
	size_t at = base_lower_bound(0, n, &k, range_ends_by); /* first ending after r.lo */

	return at < n && v[at].lo < r.hi;
}

/* The ranges of a section's corrupt FDEs become zones libdw is never asked
 * about (b->zones, sorted and disjoint), each a dropped range; a refused
 * section's every range is dropped so, and nothing of it is walked. */
static void fence(struct uw_cfi_builder *b, struct mf_fde_ranges *r)
{
	b->t->stats.corrupt_fdes += r->ncorrupt;
	if (r->refused && r->n) {
		if (base_grow((void **)&r->corrupt, &r->corrupt_cap, r->ncorrupt_v + r->n,
			    sizeof(*r->corrupt))) {
			b->oom = true;
			return;
		}
		memcpy(r->corrupt + r->ncorrupt_v, r->v, r->n * sizeof(*r->v));
		r->ncorrupt_v += r->n;
		r->n = 0;
	}
	b->zones = r->corrupt;
	b->nzones = mf_ranges_coalesce(r->corrupt, r->ncorrupt_v);
	for (size_t i = 0; i < b->nzones; i++) {
		b->t->stats.rows++;
		add_dropped(b, b->zones[i].lo, b->zones[i].hi, GS_CFI_DROP_CORRUPT);
	}
}

/* .debug_frame rows for the ranges .eh_frame does not describe (a binary
 * built with -fno-asynchronous-unwind-tables -g has only those). */
static int add_debug_frame(struct uw_cfi_builder *b, Elf *elf, struct mf_fde_ranges *eh,
			   struct gs_error *err)
{
	struct mf_fde_ranges dbg;
	Dwarf *dw;
	Dwarf_CFI *cfi;
	size_t ncovered;
	int rc = mf_fde_ranges_read(elf, false, &dbg, err);

	if (rc)
		return rc;
	b->t->stats.debug_frame_refused = dbg.refused;
	fence(b, &dbg);
	if (dbg.n == 0 || b->oom) {
		mf_fde_ranges_free(&dbg);
		return 0;
	}
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	cfi = dw ? dwarf_getcfi(dw) : NULL;
	b->t->stats.bad_fdes += dbg.bad;
	ncovered = mf_ranges_coalesce(eh->v, eh->n);
	if (dbg.n > 1)
		qsort(dbg.v, dbg.n, sizeof(*dbg.v), mf_range_cmp);
	for (size_t i = 0; cfi && i < dbg.n && !b->oom; i++) {
		if (overlaps(eh->v, ncovered, dbg.v[i])) {
			b->t->stats.shadowed_fdes++;
			continue;
		}
		b->t->stats.debug_frame_fdes++;
		walk_range(b, cfi, dbg.v[i]);
	}
	if (dw)
		dwarf_end(dw);
	mf_fde_ranges_free(&dbg);
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct gs_unwind_row *x = a, *y = b;

	if (x->pc_start != y->pc_start)
		return x->pc_start < y->pc_start ? -1 : 1;
	return x->pc_end < y->pc_end ? -1 : x->pc_end > y->pc_end;
}

static int cmp_dropped(const void *a, const void *b)
{
	const struct gs_cfi_dropped *x = a, *y = b;

	return x->pc_start < y->pc_start ? -1 : x->pc_start > y->pc_start;
}

static bool same_rules(const struct gs_unwind_row *a, const struct gs_unwind_row *b)
{
	return a->cfa_offset == b->cfa_offset && a->ra_offset == b->ra_offset &&
	       a->rbp_offset == b->rbp_offset && a->cfa_register == b->cfa_register &&
	       a->ra_register == b->ra_register && a->rbp_register == b->rbp_register &&
	       a->ra_kind == b->ra_kind && a->rbp_kind == b->rbp_kind;
}

static bool rows_sorted(const struct gs_cfi_table *t)
{
	for (size_t i = 1; i < t->nrows; i++)
		if (cmp_row(&t->rows[i - 1], &t->rows[i]) > 0)
			return false;
	return true;
}

static int cmp_xrow(const void *a, const void *b)
{
	const struct gs_cfi_row *x = a, *y = b;

	if (x->pc_start != y->pc_start)
		return x->pc_start < y->pc_start ? -1 : 1;
	return x->pc_end < y->pc_end ? -1 : x->pc_end > y->pc_end;
}

static void sort_and_merge_x(struct gs_cfi_table *t, bool merge)
{
	size_t out = 0;
	bool sorted = true;

	for (size_t i = 1; i < t->nxrows && sorted; i++)
		sorted = cmp_xrow(&t->xrows[i - 1], &t->xrows[i]) <= 0;
	if (!sorted)
		qsort(t->xrows, t->nxrows, sizeof(*t->xrows), cmp_xrow);
	if (!merge)
		return;
	for (size_t i = 0; i < t->nxrows; i++) {
		struct gs_cfi_row *prev = out ? &t->xrows[out - 1] : NULL;
		const struct gs_cfi_row *r = &t->xrows[i];

		if (prev && prev->pc_end == r->pc_start && prev->flags == r->flags &&
		    memcmp(&prev->rules, &r->rules, sizeof(r->rules)) == 0) {
			prev->pc_end = r->pc_end;
			continue;
		}
		t->xrows[out++] = *r;
	}
	t->nxrows = out;
}

static void sort_and_merge(struct gs_cfi_table *t, bool merge)
{
	size_t out = 0;

	/* FDEs are walked in address order, so this is usually a no-op check. */
	if (!rows_sorted(t))
		qsort(t->rows, t->nrows, sizeof(*t->rows), cmp_row);
	if (t->ndropped > 1)
		qsort(t->dropped, t->ndropped, sizeof(*t->dropped), cmp_dropped);
	if (!merge)
		return;
	for (size_t i = 0; i < t->nrows; i++) {
		struct gs_unwind_row *prev = out ? &t->rows[out - 1] : NULL;

		if (prev && prev->pc_end == t->rows[i].pc_start && same_rules(prev, &t->rows[i])) {
			prev->pc_end = t->rows[i].pc_end;
			t->stats.merged++;
			continue;
		}
		t->rows[out++] = t->rows[i];
	}
	t->nrows = out;
}

int uw_cfi_table_build(Elf *elf, const struct gs_cfi_opts *opts, size_t split_min_fdes,
		       struct gs_cfi_table *out, struct uw_cfi_mapping *map, struct gs_error *err)
{
	struct uw_cfi_builder b = { .t = out };
	struct mf_fde_ranges eh;
	struct gs_cfi_opts o;
	Dwarf_CFI *cfi = NULL;
	int rc;

	const uint8_t *id = NULL;
	size_t idlen = 0;

	memset(out, 0, sizeof(*out));
	if (map)
		memset(map, 0, sizeof(*map));
	rc = OPTS_COPY(&o, opts, gs_cfi_opts, err);
	if (rc)
		return rc;
	/* The cache holds default tables only (merged, with .debug_frame). */
	if (o.cache_dir && !o.no_merge && !o.no_debug_frame &&
	    mf_elf_build_id(elf, &id, &idlen) == 0 && idlen &&
	    uw_cfi_cache_load(o.cache_dir, elf, id, idlen, out, map) == 0)
		return 0;
	rc = mf_fde_ranges_read(elf, true, &eh, err);
	if (rc)
		return rc;
	out->stats.fdes = eh.n;
	out->stats.bad_fdes = eh.bad;
	out->stats.eh_frame_bytes = eh.section_bytes;
	out->stats.eh_frame_broken = eh.broken;
	out->stats.eh_frame_broken_at = eh.broken_at;
	out->stats.eh_frame_refused = eh.refused;
	fence(&b, &eh);
	if (eh.n && !b.oom) {
		cfi = dwarf_getcfi_elf(elf);
		if (!cfi) {
			mf_fde_ranges_free(&eh);
			return gs_errorf(err, -EINVAL, "libdw cannot read .eh_frame: %s",
					 dwarf_errmsg(-1));
		}
	}
	if (eh.n > 1)
		qsort(eh.v, eh.n, sizeof(*eh.v), mf_range_cmp);
	if (eh.n < split_min_fdes || uw_cfi_walk_split(&b, elf, cfi, eh.v, eh.n) != 0)
		uw_cfi_walk(&b, cfi, eh.v, eh.n);
	if (cfi)
		dwarf_cfi_end(cfi);
	if (!o.no_debug_frame && !b.oom)
		rc = add_debug_frame(&b, elf, &eh, err);
	mf_fde_ranges_free(&eh);
	if (b.oom || rc) {
		gs_cfi_table_free(out);
		return rc ? rc : gs_errorf(err, -ENOMEM, "out of memory building unwind rows");
	}
	sort_and_merge(out, !o.no_merge);
	sort_and_merge_x(out, !o.no_merge);
	if (o.cache_dir && !o.no_merge && !o.no_debug_frame && idlen)
		uw_cfi_cache_store(o.cache_dir, elf, id, idlen, out);
	return 0;
}

int gs_cfi_table_from_elf(Elf *elf, const struct gs_cfi_opts *opts, struct gs_cfi_table *out,
			  struct gs_error *err)
{
	return uw_cfi_table_build(elf, opts, UW_CFI_SPLIT_MIN_FDES, out, NULL, err);
}

int gs_cfi_table_from_file(const char *path, const struct gs_cfi_opts *opts,
			   struct gs_cfi_table *out, struct gs_error *err)
{
	Elf *elf;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	rc = mf_elf_open(path, &fd, &elf, err);
	if (rc)
		return rc;
	rc = gs_cfi_table_from_elf(elf, opts, out, err);
	if (rc && err) {
		char msg[GS_ERROR_MSG_MAX];

		memcpy(msg, err->msg, sizeof(msg));
		gs_errorf(err, rc, "%s: %s", path, msg);
	}
	mf_elf_close(fd, elf);
	return rc;
}

void gs_cfi_table_free(struct gs_cfi_table *t)
{
	free(t->rows);
	free(t->xrows);
	free(t->dropped);
	memset(t, 0, sizeof(*t));
}

struct pc_key {
	const struct gs_cfi_table *t;
	uint64_t pc;
};

static bool dropped_starts_by(const void *ctx, size_t i)
{
	const struct pc_key *k = ctx;

	return k->t->dropped[i].pc_start <= k->pc;
}

static bool xrow_ends_by(const void *ctx, size_t i)
{
	const struct pc_key *k = ctx;

	return k->t->xrows[i].pc_end <= k->pc;
}

int gs_cfi_table_lookup(const struct gs_cfi_table *t, uint64_t pc, struct gs_unwind_row *row,
			enum gs_cfi_drop *reason)
{
	const struct gs_unwind_row *r = gs_rows_find(t->rows, 0, t->nrows, pc);
	struct pc_key k = { t, pc };
	size_t past;

	if (r) {
		if (row)
			*row = *r;
		return 0;
	}
	/* the first dropped range starting past pc: pc may be in the one before */
	past = base_lower_bound(0, t->ndropped, &k, dropped_starts_by);
	if (past && pc < t->dropped[past - 1].pc_end) {
		if (reason)
			*reason = (enum gs_cfi_drop)t->dropped[past - 1].reason;
		return -EOPNOTSUPP;
	}
	return -ENOENT;
}

int gs_cfi_table_xlookup(const struct gs_cfi_table *t, uint64_t pc, struct gs_cfi_row *row)
{
	struct pc_key k = { t, pc };
	size_t at = base_lower_bound(0, t->nxrows, &k, xrow_ends_by); /* first ending after pc */

	if (at == t->nxrows || t->xrows[at].pc_start > pc)
		return -ENOENT;
	if (row)
		*row = t->xrows[at];
	return 0;
}
