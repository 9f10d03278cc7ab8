/* Unwind rows of one module from its CFI (docs/unwind.md, "Rows"): every FDE
 * range of .eh_frame, plus .debug_frame FDEs for ranges .eh_frame lacks, is
 * walked row by row through libdw (cfi_walk.c; .eh_frame's on two threads
 * when it is large, cfi_split.c), corrupt FDEs' ranges fenced off first;
 * then rows are sorted and identical neighbours merged, and the table
 * cached on disk by build id (cfi_cache.c). */
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "opts.h"
#include "unwind_int.h"
#include "base.h"

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
		uw_cfi_drop(b, b->zones[i].lo, b->zones[i].hi, GS_CFI_DROP_CORRUPT);
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
		uw_cfi_walk(b, cfi, &dbg.v[i], 1);
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
