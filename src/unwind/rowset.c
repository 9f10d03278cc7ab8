/* The row tables of many modules as the BPF side reads them: one array of
 * rows with each module's rows contiguous, modules in cookie order, and
 * cookie -> [row_start, row_end) (docs/unwind.md, "Many modules"). Also the
 * binary search over rows that the BPF program unrolls, for tests and for
 * the code generator's compile-time first row. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "unwind_int.h"
#include "base.h"

const struct gs_unwind_row *gs_rows_find(const struct gs_unwind_row *rows, size_t lo, size_t hi,
					 uint64_t pc)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < rows[mid].pc_start)
			hi = mid;
		else if (pc >= rows[mid].pc_end)
			lo = mid + 1;
		else
			return &rows[mid];
	}
	return NULL;
}

void gs_rowset_init(struct gs_rowset *s)
{
	memset(s, 0, sizeof(*s));
}

void gs_rowset_fini(struct gs_rowset *s)
{
	for (size_t i = 0; i < s->nmodules; i++)
		free(s->modules[i].xrows);
	free(s->rows);
	free(s->modules);
	memset(s, 0, sizeof(*s));
}

struct cookie_key {
	const struct gs_rowset *s;
	uint64_t cookie;
};

static bool cookie_below(const void *ctx, size_t i)
{
	const struct cookie_key *k = ctx;

	return k->s->modules[i].cookie < k->cookie;
}

/* Index of the first module whose cookie is >= cookie. */
static size_t module_slot(const struct gs_rowset *s, uint64_t cookie)
{
	struct cookie_key k = { s, cookie };

	return base_lower_bound(0, s->nmodules, &k, cookie_below);
}

const struct gs_rowset_module *gs_rowset_module(const struct gs_rowset *s, uint64_t cookie)
{
	size_t i = module_slot(s, cookie);

	return i < s->nmodules && s->modules[i].cookie == cookie ? &s->modules[i] : NULL;
}

const struct gs_unwind_row *gs_rowset_find(const struct gs_rowset *s, uint64_t cookie, uint64_t pc)
{
	const struct gs_rowset_module *m = gs_rowset_module(s, cookie);

	return m ? gs_rows_find(s->rows, m->range.row_start, m->range.row_end, pc) : NULL;
}

/* Inserts a module with its rows (maybe none) where the cookie order puts
 * it; the caller has checked that the cookie is not there. */
static int insert(struct gs_rowset *s, size_t at, uint64_t cookie, const struct gs_unwind_row *rows,
		  size_t nrows, struct gs_error *err)
{
	size_t start;

	if (s->nrows + nrows > UINT32_MAX)
		return gs_errorf(err, -E2BIG, "unwind rows of module 0x%016llx: %zu rows on top of %zu pass the 2^32 row index limit",
				 (unsigned long long)cookie, nrows, s->nrows);
	if (base_grow((void **)&s->rows, &s->rows_cap, s->nrows + nrows, sizeof(*s->rows)) ||
	    base_grow((void **)&s->modules, &s->modules_cap, s->nmodules + 1, sizeof(*s->modules)))
		return gs_errorf(err, -ENOMEM, "out of memory adding %zu unwind rows", nrows);

	/* Insert the rows where the cookie order puts them, shifting later ones. */
	start = at < s->nmodules ? s->modules[at].range.row_start : s->nrows;
	memmove(&s->rows[start + nrows], &s->rows[start], (s->nrows - start) * sizeof(*s->rows));
	memcpy(&s->rows[start], rows, nrows * sizeof(*rows));
	s->nrows += nrows;
	memmove(&s->modules[at + 1], &s->modules[at], (s->nmodules - at) * sizeof(*s->modules));
	s->nmodules++;
	s->modules[at] = (struct gs_rowset_module){
		.cookie = cookie,
		.range = { (uint32_t)start, (uint32_t)(start + nrows) },
	};
	for (size_t i = at + 1; i < s->nmodules; i++) {
		s->modules[i].range.row_start += (uint32_t)nrows;
		s->modules[i].range.row_end += (uint32_t)nrows;
	}
	return 0;
}

int gs_rowset_add(struct gs_rowset *s, uint64_t cookie, const struct gs_unwind_row *rows,
		  size_t nrows, struct gs_error *err)
{
	size_t at = module_slot(s, cookie);

	if (nrows == 0 || (at < s->nmodules && s->modules[at].cookie == cookie))
		return 0;
	return insert(s, at, cookie, rows, nrows, err);
}

int gs_rowset_add_x(struct gs_rowset *s, uint64_t cookie, const struct gs_unwind_row *rows,
		    size_t nrows, const struct gs_cfi_row *xrows, size_t nxrows,
		    struct gs_error *err)
{
	size_t at = module_slot(s, cookie);
	struct gs_cfi_row *copy;
	int rc;

	if ((nrows == 0 && nxrows == 0) || (at < s->nmodules && s->modules[at].cookie == cookie))
		return 0;
	copy = malloc((nxrows ? nxrows : 1) * sizeof(*copy));
	if (!copy)
		return gs_errorf(err, -ENOMEM, "out of memory copying %zu unwind rows", nxrows);
	if (nxrows)
		memcpy(copy, xrows, nxrows * sizeof(*copy));
	rc = insert(s, at, cookie, rows, nrows, err);
	if (rc) {
		free(copy);
		return rc;
	}
	s->modules[at].xrows = copy;
	s->modules[at].nxrows = nxrows;
	return 0;
}

int gs_rowset_write(const struct gs_rowset *s, const struct gs_map_writer *w,
		    uint32_t *row_count, uint32_t max_rows, struct gs_error *err)
{
	for (size_t i = 0; i < s->nmodules; i++) {
		const struct gs_rowset_module *m = &s->modules[i];
		struct gs_module_row_range present, range;
		uint32_t n = m->range.row_end - m->range.row_start;
		int rc = w->lookup(w->ctx, GS_MAP_BT_MODULE_ROW_RANGES, &m->cookie, &present);

		if (rc == 0)
			continue; /* another trace already wrote this module */
		if (rc != -ENOENT)
			return gs_errorf(err, rc, "cannot read %s for module 0x%016llx: %s",
					 GS_MAP_BT_MODULE_ROW_RANGES, (unsigned long long)m->cookie,
					 strerror(-rc));
		if (*row_count > max_rows || n > max_rows - *row_count)
			return gs_errorf(err, -ENOSPC, "%s capacity exceeded: %u rows in use, module 0x%016llx needs %u more, capacity %u; raise the unwind row limit",
					 GS_MAP_BT_UNWIND_ROWS, *row_count,
					 (unsigned long long)m->cookie, n, max_rows);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t key = *row_count + j;

			rc = w->update(w->ctx, GS_MAP_BT_UNWIND_ROWS, &key,
				       &s->rows[m->range.row_start + j]);
			if (rc)
				return gs_errorf(err, rc, "cannot write %s[%u]: %s",
						 GS_MAP_BT_UNWIND_ROWS, key, strerror(-rc));
		}
		range = (struct gs_module_row_range){ *row_count, *row_count + n };
		rc = w->update(w->ctx, GS_MAP_BT_MODULE_ROW_RANGES, &m->cookie, &range);
		if (rc)
			return gs_errorf(err, rc, "cannot write %s for module 0x%016llx: %s",
					 GS_MAP_BT_MODULE_ROW_RANGES, (unsigned long long)m->cookie,
					 strerror(-rc));
		*row_count += n;
	}
	return 0;
}
