/* The bpf_loop walker's row tables (protocol.h 2b): a module's rows turned
 * into 16-byte gs_bt_row with a page index and an overflow table for rules
 * too large for a row, the lookup the walker runs (for tests and for
 * checking), and the writers of bt_rows/bt_row_pages/bt_row_overflow/
 * bt_module_rows and of a process's sorted bt_modules snapshot. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "unwind_int.h"
#include "base.h"

void gs_bt_rowtab_free(struct gs_bt_rowtab *t)
{
	free(t->rows);
	free(t->pages);
	free(t->overflow);
	memset(t, 0, sizeof(*t));
}

static bool fits_reg(uint8_t reg)
{
	return reg <= 15;
}

/* An offset stored as offset / 8 in `bits` signed bits. */
static bool fits_off8(int64_t off, int bits)
{
	int64_t lim = (int64_t)1 << (bits - 1);

	return off % 8 == 0 && off / 8 >= -lim && off / 8 < lim;
}

/* A RA or rbp rule in a nibble pair and an s8 offset / 8. */
static bool rule_fits(const struct gs_bt_rule *r)
{
	switch (r->kind) {
	case GS_RECOVERY_AT_CFA_OFFSET:
	case GS_RECOVERY_VAL_CFA_OFFSET:
		return fits_off8(r->off, 8);
	case GS_RECOVERY_REGISTER:
		return fits_reg(r->reg);
	case GS_RECOVERY_EXPRESSION:
	case GS_RECOVERY_VAL_EXPRESSION:
		return fits_reg(r->reg) && fits_off8(r->off, 8);
	default:
		return true;
	}
}

/* A callee-saved register's rule in 2 bits and an s6 offset / 8. */
static bool saved_fits(const struct gs_bt_rule *r)
{
	return r->kind == GS_RECOVERY_SAME_VALUE || r->kind == GS_RECOVERY_UNDEFINED ||
	       (r->kind == GS_RECOVERY_AT_CFA_OFFSET && fits_off8(r->off, 6));
}

static uint8_t nibbles(const struct gs_bt_rule *r)
{
	bool has_reg = r->kind == GS_RECOVERY_REGISTER || r->kind == GS_RECOVERY_EXPRESSION ||
		       r->kind == GS_RECOVERY_VAL_EXPRESSION;

	return (uint8_t)(r->kind << 4 | (has_reg ? r->reg : 0));
}

static int8_t off8(const struct gs_bt_rule *r)
{
	bool has_off = r->kind == GS_RECOVERY_AT_CFA_OFFSET ||
		       r->kind == GS_RECOVERY_VAL_CFA_OFFSET ||
		       r->kind == GS_RECOVERY_EXPRESSION || r->kind == GS_RECOVERY_VAL_EXPRESSION;

	return (int8_t)(has_off ? r->off / 8 : 0);
}

static int grow(void **v, size_t *cap, size_t need, size_t elem, struct gs_error *err)
{
	if (base_grow(v, cap, need, elem))
		return gs_errorf(err, -ENOMEM, "out of memory building compact unwind rows");
	return 0;
}

/* Appends a row starting at pc, merging with the previous one when both
 * give the same rules (only the start differs). */
static int push(struct gs_bt_rowtab *t, size_t *cap, uint64_t *starts, uint64_t pc,
		struct gs_bt_row r, struct gs_error *err)
{
	if (t->nrows) {
		struct gs_bt_row prev = t->rows[t->nrows - 1];

		if (starts[t->nrows - 1] == pc) { /* a zero-length row: the later one wins */
			t->nrows--;
		} else {
			/* Same rules and flags; only the start differs. */
			prev.pc = (uint16_t)((prev.pc & ~GS_BT_ROW_PC_MASK) | (r.pc & GS_BT_ROW_PC_MASK));
			if (memcmp(&prev, &r, sizeof(r)) == 0)
				return 0;
		}
	}
	if (grow((void **)&t->rows, cap, t->nrows + 1, sizeof(*t->rows), err))
		return -ENOMEM;
	starts[t->nrows] = pc;
	t->rows[t->nrows++] = r;
	return 0;
}

static int encode(struct gs_bt_rowtab *t, size_t *ovf_cap, const struct gs_cfi_row *u,
		  struct gs_bt_row *r, struct gs_error *err)
{
	const struct gs_bt_rules *x = &u->rules;
	bool fits = fits_reg(x->cfa.reg) && x->cfa.off >= INT16_MIN && x->cfa.off <= INT16_MAX &&
		    rule_fits(&x->ra) && rule_fits(&x->rbp);

	for (int i = 0; i < GS_BT_NSAVED; i++)
		fits = fits && saved_fits(&x->saved[i]);
	memset(r, 0, sizeof(*r));
	r->pc = (uint16_t)(u->pc_start & GS_BT_ROW_PC_MASK);
	if (u->flags & GS_CFI_ROW_SIGNAL)
		r->pc |= GS_BT_ROW_F_SIGNAL;
	if (fits) {
		r->cfa = (uint8_t)(x->cfa.kind << 4 | x->cfa.reg);
		r->cfa_off = (int16_t)x->cfa.off;
		r->ra = nibbles(&x->ra);
		r->rbp = nibbles(&x->rbp);
		r->ra_off = off8(&x->ra);
		r->rbp_off = off8(&x->rbp);
		for (int i = 0; i < GS_BT_NSAVED; i++)
			if (x->saved[i].kind == GS_RECOVERY_AT_CFA_OFFSET)
				r->saved[i] = (uint8_t)(GS_BT_SAVED_AT_CFA |
							(uint8_t)(x->saved[i].off / 8) << 2);
		return 0;
	}
	if (t->noverflow > UINT16_MAX)
		return gs_errorf(err, -E2BIG, "more than %u unwind rows of one module have rules "
				 "too large for a compact row", UINT16_MAX + 1);
	if (grow((void **)&t->overflow, ovf_cap, t->noverflow + 1, sizeof(*t->overflow), err))
		return -ENOMEM;
	t->overflow[t->noverflow] = *x;
	r->cfa = GS_BT_CFA_OVERFLOW << 4;
	r->cfa_off = (int16_t)(uint16_t)t->noverflow++;
	return 0;
}

void gs_bt_rowtab_rules(const struct gs_bt_rowtab *t, size_t i, struct gs_bt_rules *out)
{
	const struct gs_bt_row *r = &t->rows[i];
	struct gs_bt_rule *rules[] = { &out->ra, &out->rbp };
	const uint8_t nib[] = { r->ra, r->rbp };
	const int8_t off[] = { r->ra_off, r->rbp_off };

	memset(out, 0, sizeof(*out));
	if (r->cfa >> 4 == GS_BT_CFA_OVERFLOW) {
		if ((uint16_t)r->cfa_off < t->noverflow)
			*out = t->overflow[(uint16_t)r->cfa_off];
		return;
	}
	out->cfa = (struct gs_bt_rule){ .kind = r->cfa >> 4, .reg = r->cfa & 15, .off = r->cfa_off };
	for (int k = 0; k < 2; k++) {
		rules[k]->kind = nib[k] >> 4;
		rules[k]->off = off[k] * 8;
		if (rules[k]->kind == GS_RECOVERY_REGISTER || rules[k]->kind >= GS_RECOVERY_EXPRESSION)
			rules[k]->reg = nib[k] & 15;
		if (rules[k]->kind == GS_RECOVERY_REGISTER || rules[k]->kind == GS_RECOVERY_SAME_VALUE ||
		    rules[k]->kind == GS_RECOVERY_UNDEFINED)
			rules[k]->off = 0;
	}
	for (int k = 0; k < GS_BT_NSAVED; k++) {
		int8_t v = (int8_t)r->saved[k];

		if ((r->saved[k] & 3) == GS_BT_SAVED_AT_CFA)
			out->saved[k] = (struct gs_bt_rule){ .kind = GS_RECOVERY_AT_CFA_OFFSET,
							     .off = (v >> 2) * 8 };
		else
			out->saved[k].kind = GS_RECOVERY_SAME_VALUE;
	}
}

static int build_pages(struct gs_bt_rowtab *t, const uint64_t *starts, struct gs_error *err)
{
	uint64_t last = starts[t->nrows - 1] >> GS_BT_PAGE_SHIFT;
	size_t r = 0;

	t->first_page = starts[0] >> GS_BT_PAGE_SHIFT;
	if (last - t->first_page >= UINT32_MAX)
		return gs_errorf(err, -E2BIG, "a module's unwind rows span more than 2^32 pages");
	t->npages = (uint32_t)(last - t->first_page + 1);
	t->pages = calloc((size_t)t->npages + 1, sizeof(*t->pages));
	if (!t->pages)
		return gs_errorf(err, -ENOMEM, "out of memory for %u page index entries", t->npages);
	for (uint32_t p = 0; p <= t->npages; p++) {
		uint64_t page_start = (t->first_page + p) << GS_BT_PAGE_SHIFT;

		while (r < t->nrows && starts[r] < page_start)
			r++;
		t->pages[p] = (uint32_t)r;
	}
	return 0;
}

int gs_bt_rowtab_build(const struct gs_cfi_row *rows, size_t n, struct gs_bt_rowtab *out,
		       struct gs_error *err)
{
	size_t cap = 0, ovf_cap = 0;
	uint64_t *starts = NULL, end = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return 0;
	if (n > UINT32_MAX / 2)
		return gs_errorf(err, -E2BIG, "%zu unwind rows pass the compact table's limit", n);
	starts = malloc((2 * n + 1) * sizeof(*starts));
	if (!starts)
		return gs_errorf(err, -ENOMEM, "out of memory building %zu compact unwind rows", n);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct gs_cfi_row *u = &rows[i];
		struct gs_bt_row r;

		if (u->pc_start >= u->pc_end)
			continue;
		if (out->nrows && u->pc_start > end) { /* a gap: no CFI there */
			struct gs_bt_row none = { .pc = (uint16_t)(end & GS_BT_ROW_PC_MASK) };

			rc = push(out, &cap, starts, end, none, err);
		}
		if (rc == 0 && out->nrows && u->pc_start < starts[out->nrows - 1])
			continue; /* overlaps what an earlier row already starts: keep that */
		if (rc == 0)
			rc = encode(out, &ovf_cap, u, &r, err);
		if (rc == 0)
			rc = push(out, &cap, starts, u->pc_start, r, err);
		if (u->pc_end > end)
			end = u->pc_end;
	}
	if (rc == 0 && out->nrows) {
		struct gs_bt_row none = { .pc = (uint16_t)(end & GS_BT_ROW_PC_MASK) };

		rc = push(out, &cap, starts, end, none, err);
	}
	if (rc == 0 && out->nrows)
		rc = build_pages(out, starts, err);
	free(starts);
	if (rc)
		gs_bt_rowtab_free(out);
	return rc;
}

struct off_key {
	const struct gs_bt_row *rows;
	uint32_t off;
};

static bool row_starts_by(const void *ctx, size_t i)
{
	const struct off_key *k = ctx;

	return (k->rows[i].pc & GS_BT_ROW_PC_MASK) <= k->off;
}

long gs_bt_rows_find(const struct gs_bt_row *rows, const uint32_t *pages, uint64_t first_page,
		     uint32_t npages, uint64_t pc)
{
	uint64_t page = pc >> GS_BT_PAGE_SHIFT;
	struct off_key k = { rows, (uint32_t)(pc & GS_BT_ROW_PC_MASK) };

	if (page < first_page || page - first_page >= npages)
		return -1;
	/* the row before the first starting past pc in the page: with none
	 * at or before it, the row that starts before the page */
	return (long)base_lower_bound(pages[page - first_page], pages[page - first_page + 1], &k,
				      row_starts_by) - 1;
}

/* ---- writing ---------------------------------------------------------------- */

/* Key 0 of bt_module_rows: what the tables hold so far (row_lo: rows,
 * row_hi: overflow entries, page_lo: page entries). */
static int usage(const struct gs_map_writer *w, struct gs_bt_module_rows *u, struct gs_error *err)
{
	uint64_t key = 0;
	int rc = w->lookup(w->ctx, GS_MAP_NAME_BT_MODULE_ROWS, &key, u);

	if (rc == -ENOENT) {
		memset(u, 0, sizeof(*u));
		return 0;
	}
	return rc ? gs_errorf(err, rc, "cannot read %s: %s", GS_MAP_NAME_BT_MODULE_ROWS,
			      strerror(-rc)) : 0;
}

static int put_many(const struct gs_map_writer *w, const char *map, uint32_t first,
		    const void *values, size_t size, size_t n, struct gs_error *err)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t key = first + (uint32_t)i;
		int rc = w->update(w->ctx, map, &key, (const uint8_t *)values + i * size);

		if (rc)
			return gs_errorf(err, rc, "cannot write %s[%u]: %s", map, key, strerror(-rc));
	}
	return 0;
}

int gs_bt_rowtab_write(const struct gs_map_writer *w, uint64_t cookie,
		       const struct gs_bt_rowtab *t, const struct gs_bt_table_caps *caps,
		       struct gs_error *err)
{
	struct gs_bt_module_rows u, m, present;
	uint64_t zero = 0;
	int rc;

	if (cookie == 0 || t->nrows == 0)
		return 0;
	rc = w->lookup(w->ctx, GS_MAP_NAME_BT_MODULE_ROWS, &cookie, &present);
	if (rc == 0)
		return 0; /* another trace or an earlier fill wrote it */
	if (rc != -ENOENT)
		return gs_errorf(err, rc, "cannot read %s for module 0x%016llx: %s",
				 GS_MAP_NAME_BT_MODULE_ROWS, (unsigned long long)cookie, strerror(-rc));
	rc = usage(w, &u, err);
	if (rc)
		return rc;
	if (t->nrows > caps->rows - u.row_lo || t->noverflow > caps->overflow - u.row_hi ||
	    (uint64_t)t->npages + 1 > caps->pages - u.page_lo)
		return gs_errorf(err, -ENOSPC, "the compact unwind tables are full: module "
				 "0x%016llx needs %zu rows, %u pages and %zu large rules on top of "
				 "%u, %u and %u in use (capacity %u, %u, %u); raise the unwind "
				 "row limit", (unsigned long long)cookie, t->nrows, t->npages + 1,
				 t->noverflow, u.row_lo, u.page_lo, u.row_hi, caps->rows,
				 caps->pages, caps->overflow);
	m = (struct gs_bt_module_rows){ .row_lo = u.row_lo, .row_hi = u.row_lo + (uint32_t)t->nrows,
		.page_lo = u.page_lo, .npages = t->npages, .first_page = t->first_page };
	{
		/* Page entries and overflow indices are relative to the module. */
		uint32_t *pages = malloc(((size_t)t->npages + 1) * sizeof(*pages));
		struct gs_bt_row *rows = malloc(t->nrows * sizeof(*rows));

		if (!pages || !rows) {
			free(pages);
			free(rows);
			return gs_errorf(err, -ENOMEM, "out of memory writing compact rows");
		}
		for (uint32_t p = 0; p <= t->npages; p++)
			pages[p] = t->pages[p] + u.row_lo;
		for (size_t i = 0; i < t->nrows; i++) {
			rows[i] = t->rows[i];
			if (rows[i].cfa >> 4 == GS_BT_CFA_OVERFLOW)
				rows[i].cfa_off = (int16_t)(uint16_t)((uint16_t)rows[i].cfa_off +
								     u.row_hi);
		}
		rc = u.row_hi + t->noverflow > UINT16_MAX + 1u ?
			gs_errorf(err, -ENOSPC, "more than %u large unwind rules in all modules",
				  UINT16_MAX + 1) : 0;
		if (rc == 0)
			rc = put_many(w, GS_MAP_NAME_BT_OVERFLOW, u.row_hi, t->overflow,
				      sizeof(*t->overflow), t->noverflow, err);
		if (rc == 0)
			rc = put_many(w, GS_MAP_NAME_BT_CROWS, u.row_lo, rows, sizeof(*rows), t->nrows, err);
		if (rc == 0)
			rc = put_many(w, GS_MAP_NAME_BT_PAGES, u.page_lo, pages, sizeof(*pages),
				      (size_t)t->npages + 1, err);
		free(pages);
		free(rows);
		if (rc)
			return rc;
	}
	/* Rows first, then where they are: BPF never sees a module half written. */
	rc = w->update(w->ctx, GS_MAP_NAME_BT_MODULE_ROWS, &cookie, &m);
	if (rc == 0) {
		u.row_lo = m.row_hi;
		u.row_hi += (uint32_t)t->noverflow;
		u.page_lo += t->npages + 1;
		rc = w->update(w->ctx, GS_MAP_NAME_BT_MODULE_ROWS, &zero, &u);
	}
	if (rc)
		return gs_errorf(err, rc, "cannot write %s for module 0x%016llx: %s",
				 GS_MAP_NAME_BT_MODULE_ROWS, (unsigned long long)cookie, strerror(-rc));
	return 0;
}

int gs_bt_rowset_write(const struct gs_rowset *s, const struct gs_map_writer *w,
		       const struct gs_bt_table_caps *caps, struct gs_error *err)
{
	for (size_t i = 0; i < s->nmodules; i++) {
		const struct gs_rowset_module *m = &s->modules[i];
		struct gs_bt_module_rows present;
		struct gs_bt_rowtab t;
		int rc;

		if (!m->nxrows || w->lookup(w->ctx, GS_MAP_NAME_BT_MODULE_ROWS, &m->cookie,
					    &present) == 0)
			continue;
		rc = gs_bt_rowtab_build(m->xrows, m->nxrows, &t, err);
		if (rc == 0)
			rc = gs_bt_rowtab_write(w, m->cookie, &t, caps, err);
		gs_bt_rowtab_free(&t);
		if (rc)
			return rc;
	}
	return 0;
}

static int cmp_module(const void *a, const void *b)
{
	const struct gs_bt_module *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Free bt_modules regions are bt_proc_modules entries under keys past any
 * pid (BPF never looks them up): key GS_BT_FREE_KEY + i, i < the
 * allocator's count, each {base, cap}. */
#define GS_BT_FREE_KEY 0x80000000u

static int read_alloc(const struct gs_map_writer *w, struct gs_bt_proc_modules *alloc,
		      struct gs_error *err)
{
	uint32_t zero = 0;
	int rc = w->lookup(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &zero, alloc);

	if (rc == -ENOENT) {
		memset(alloc, 0, sizeof(*alloc));
		return 0;
	}
	return rc ? gs_errorf(err, rc, "cannot read the %s allocator: %s",
			      GS_MAP_NAME_BT_PROC_MODULES, strerror(-rc)) : 0;
}

static int write_alloc(const struct gs_map_writer *w, const struct gs_bt_proc_modules *alloc,
		       struct gs_error *err)
{
	uint32_t zero = 0;
	int rc = w->update(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &zero, alloc);

	return rc ? gs_errorf(err, rc, "cannot write the %s allocator: %s",
			      GS_MAP_NAME_BT_PROC_MODULES, strerror(-rc)) : 0;
}

/* Returns a process's two regions [base, base + 2 cap) to the free list. */
static int release_regions(const struct gs_map_writer *w, uint32_t base, uint32_t cap,
			   struct gs_error *err)
{
	struct gs_bt_proc_modules alloc, region = { .base = base, .cap = cap };
	uint32_t key;
	int rc = read_alloc(w, &alloc, err);

	if (rc || cap == 0)
		return rc;
	key = GS_BT_FREE_KEY + alloc.count;
	rc = w->update(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &key, &region);
	if (rc)
		return gs_errorf(err, rc, "cannot record a free %s region: %s",
				 GS_MAP_NAME_BT_MODULES, strerror(-rc));
	alloc.count++;
	return write_alloc(w, &alloc, err);
}

/* Two regions of cap entries for a process: a free pair at least that
 * large (first fit), else new ones past the last. *base on success. */
static int take_regions(const struct gs_map_writer *w, uint32_t *cap, uint32_t capacity,
			uint32_t pid, uint32_t count, uint32_t *base, struct gs_error *err)
{
	struct gs_bt_proc_modules alloc, region, last;
	int rc = read_alloc(w, &alloc, err);

	for (uint32_t i = 0; rc == 0 && i < alloc.count; i++) {
		uint32_t key = GS_BT_FREE_KEY + i, last_key = GS_BT_FREE_KEY + alloc.count - 1;

		if (w->lookup(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &key, &region) != 0 ||
		    region.cap < *cap)
			continue;
		/* Taken: the last free entry moves into its key. */
		if (key != last_key) {
			rc = w->lookup(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &last_key, &last);
			if (rc == 0)
				rc = w->update(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &key, &last);
		}
		if (rc == 0)
			w->remove(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &last_key);
		alloc.count--;
		*base = region.base;
		*cap = region.cap;
		return rc ? gs_errorf(err, rc, "cannot reuse a free %s region: %s",
				      GS_MAP_NAME_BT_MODULES, strerror(-rc)) : write_alloc(w, &alloc, err);
	}
	if (rc)
		return rc;
	if (alloc.base > capacity || 2 * *cap > capacity - alloc.base)
		return gs_errorf(err, -ENOSPC, "%s is full (%u entries): cannot hold the %u "
				 "modules of pid %u; trace fewer processes", GS_MAP_NAME_BT_MODULES,
				 capacity, count, pid);
	*base = alloc.base;
	alloc.base += 2 * *cap;
	return write_alloc(w, &alloc, err);
}

/* After a snapshot flip or removal: walks drop their per-CPU copy of
 * {first, count} (a writer without the map has no walker that keeps one). */
static int bump_generation(const struct gs_map_writer *w, struct gs_error *err)
{
	uint32_t key = 0;
	struct gs_bt_gen gen;
	int rc = w->lookup(w->ctx, GS_MAP_NAME_BT_GEN, &key, &gen);

	if (rc == -ENOENT)
		return 0;
	gen.snapshot++;
	if (rc == 0)
		rc = w->update(w->ctx, GS_MAP_NAME_BT_GEN, &key, &gen);
	return rc ? gs_errorf(err, rc, "cannot write %s: %s", GS_MAP_NAME_BT_GEN, strerror(-rc)) : 0;
}

int gs_bt_modules_replace(const struct gs_map_writer *w, uint32_t pid,
			  const struct gs_range_item *items, size_t n, uint32_t capacity,
			  struct gs_error *err)
{
	struct gs_bt_proc_modules meta = { 0 };
	struct gs_bt_module *v;
	uint32_t count = 0, region;
	int rc;

	if (pid == 0 || pid >= GS_BT_FREE_KEY)
		return gs_errorf(err, -EINVAL, "pid %u cannot have a module snapshot", pid);
	rc = w->lookup(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &pid, &meta);
	if (rc && rc != -ENOENT)
		return gs_errorf(err, rc, "cannot read %s[%u]: %s", GS_MAP_NAME_BT_PROC_MODULES, pid,
				 strerror(-rc));
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return gs_errorf(err, -ENOMEM, "out of memory sorting %zu modules", n);
	for (size_t i = 0; i < n; i++) {
		const struct gs_range_item *it = &items[i];
		struct gs_bt_module_rows r = { 0 };

		if (it->size == 0 || it->base + it->size < it->base)
			continue;
		if (w->lookup(w->ctx, GS_MAP_NAME_BT_MODULE_ROWS, &it->cookie, &r) != 0)
			memset(&r, 0, sizeof(r)); /* no rows (yet): its frames stop the walk */
		v[count++] = (struct gs_bt_module){ .start = it->base, .end = it->base + it->size,
			.cookie = it->cookie, .bias = it->bias, .first_page = r.first_page,
			.row_lo = r.row_lo, .row_hi = r.row_hi, .page_lo = r.page_lo,
			.npages = r.npages };
	}
	qsort(v, count, sizeof(*v), cmp_module);
	if (count > GS_BT_PROC_MODULES_MAX)
		count = GS_BT_PROC_MODULES_MAX; /* the walk searches no further */
	if (rc == -ENOENT || count > meta.cap) { /* two new regions; the old ones are freed */
		uint32_t cap = count < 32 ? 64 : 2 * count, base = 0;

		if (cap > GS_BT_PROC_MODULES_MAX)
			cap = GS_BT_PROC_MODULES_MAX;
		rc = take_regions(w, &cap, capacity, pid, count, &base, err);
		if (rc == 0 && meta.cap)
			rc = release_regions(w, meta.base, meta.cap, err);
		if (rc) {
			free(v);
			return rc;
		}
		meta.base = base;
		meta.cap = cap;
		meta.first = meta.base + meta.cap; /* so the region written is base */
	}
	/* The region BPF does not read now, then the flip in one update. */
	region = meta.first == meta.base ? meta.base + meta.cap : meta.base;
	rc = put_many(w, GS_MAP_NAME_BT_MODULES, region, v, sizeof(*v), count, err);
	free(v);
	if (rc)
		return rc;
	meta.first = region;
	meta.count = count;
	rc = w->update(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &pid, &meta);
	if (rc)
		return gs_errorf(err, rc, "cannot write %s[%u]: %s", GS_MAP_NAME_BT_PROC_MODULES, pid,
				 strerror(-rc));
	return bump_generation(w, err);
}

int gs_bt_modules_remove(const struct gs_map_writer *w, uint32_t pid, struct gs_error *err)
{
	struct gs_bt_proc_modules meta;
	int rc;

	if (pid == 0 || pid >= GS_BT_FREE_KEY)
		return 0;
	rc = w->lookup(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &pid, &meta);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return gs_errorf(err, rc, "cannot read %s[%u]: %s", GS_MAP_NAME_BT_PROC_MODULES, pid,
				 strerror(-rc));
	/* BPF stops finding the process first (walks drop their copy of its
	 * snapshot with the generation), then its regions are reused. */
	rc = w->remove(w->ctx, GS_MAP_NAME_BT_PROC_MODULES, &pid);
	if (rc && rc != -ENOENT)
		return gs_errorf(err, rc, "cannot delete %s[%u]: %s", GS_MAP_NAME_BT_PROC_MODULES,
				 pid, strerror(-rc));
	rc = bump_generation(w, err);
	return rc ? rc : release_regions(w, meta.base, meta.cap, err);
}
