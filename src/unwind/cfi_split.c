/* A large .eh_frame (node's: about 400,000 rows) walked on two threads:
 * libdw re-reads an FDE's instructions for every row it is asked for, so
 * the walk is the bulk of a cold start. The sorted FDE ranges are cut in
 * two halves of as many FDEs (on node, halves of equal code size left the
 * second about 20 ms longer: its FDEs have more rows; halves by count took
 * within 5 ms of each other); the caller walks the first with
 * its own handles, a worker the second with a libelf and a libdw handle of
 * its own over the same file image (libelf and libdw handles are not safe
 * to share between threads), and the second half's rows are appended to
 * the first's in order, so the table is the one a serial walk builds. */
#include <elfutils/libdw.h>
#include <libelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gs/unwind.h>

#include "unwind_int.h"
#include "base.h"

struct half {
	Elf *elf;
	Dwarf_CFI *cfi;
	const struct mf_fde_range *v;
	size_t n;
	struct gs_cfi_table t;
	struct uw_cfi_builder b;
};

static void *walk_half(void *arg)
{
	struct half *h = arg;

	uw_cfi_walk(&h->b, h->cfi, h->v, h->n);
	return NULL;
}

static bool append(void **dst, size_t *n, size_t *cap, const void *src, size_t m, size_t size)
{
	if (m == 0)
		return true;
	if (base_grow(dst, cap, *n + m, size))
		return false;
	memcpy((char *)*dst + *n * size, src, m * size);
	*n += m;
	return true;
}

/* Appends the second half's table to the first's as if one walk had gone
 * on: its first dropped range joins the last one where a serial walk
 * would have extended it, and the per-row counts add up. */
static void join(struct uw_cfi_builder *b, const struct gs_cfi_table *h)
{
	struct gs_cfi_table *t = b->t;
	struct gs_cfi_stats *s = &t->stats;
	size_t first = 0;

	if (h->ndropped) {
		uw_cfi_add_dropped(b, h->dropped[0].pc_start, h->dropped[0].pc_end,
				   h->dropped[0].reason);
		first = 1;
	}
	if (!append((void **)&t->rows, &t->nrows, &b->rows_cap, h->rows, h->nrows,
		    sizeof(*h->rows)) ||
	    !append((void **)&t->xrows, &t->nxrows, &b->xrows_cap, h->xrows, h->nxrows,
		    sizeof(*h->xrows)) ||
	    !append((void **)&t->dropped, &t->ndropped, &b->dropped_cap, h->dropped + first,
		    h->ndropped - first, sizeof(*h->dropped)))
		b->oom = true;
	s->rows += h->stats.rows;
	s->exported += h->stats.exported;
	s->xexported += h->stats.xexported;
	s->signal_rows += h->stats.signal_rows;
	s->steps += h->stats.steps;
	for (int i = 0; i < GS_CFI_DROP_NREASONS; i++) {
		s->dropped[i] += h->stats.dropped[i];
		s->xdropped[i] += h->stats.xdropped[i];
	}
}

int uw_cfi_walk_split(struct uw_cfi_builder *b, Elf *elf, Dwarf_CFI *cfi,
		      const struct mf_fde_range *v, size_t n)
{
	struct half h = { 0 };
	pthread_t thread;
	size_t size = 0, k;
	char *image;

	if (n < 2 || !(image = elf_rawfile(elf, &size)) || size == 0)
		return -1;
	h.elf = elf_memory(image, size);
	h.cfi = h.elf ? dwarf_getcfi_elf(h.elf) : NULL;
	if (!h.cfi) {
		elf_end(h.elf);
		return -1;
	}
	k = n / 2;
	h.v = v + k;
	h.n = n - k;
	h.b.t = &h.t;
	h.b.zones = b->zones;
	h.b.nzones = b->nzones;
	if (pthread_create(&thread, NULL, walk_half, &h) != 0) {
		dwarf_cfi_end(h.cfi);
		elf_end(h.elf);
		return -1;
	}
	uw_cfi_walk(b, cfi, v, k);
	pthread_join(thread, NULL);
	if (h.b.oom)
		b->oom = true;
	if (!b->oom)
		join(b, &h.t);
	gs_cfi_table_free(&h.t);
	dwarf_cfi_end(h.cfi);
	elf_end(h.elf);
	return 0;
}
