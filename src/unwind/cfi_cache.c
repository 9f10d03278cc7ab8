/* CFI tables cached on disk by build id (a large module's rows
 * ready in a fraction of the time libdw takes to compute them), through the
 * shared cache files (cachefile.c): `<dir>/<build id hex>.cfi`, a header
 * that pins the format (magic, version, the sizes of every struct), the
 * build id and a hash of the module's .eh_frame and .debug_frame bytes,
 * then the reference rows, the loop walker's rows and the dropped ranges
 * as they are in memory. A file that does not match in every respect is
 * ignored (and replaced). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gelf.h>

#include <gs/unwind.h>

#include "unwind_int.h"

#define CACHE_MAGIC "GSCFI\0\0\1"
#define CACHE_VERSION 5u /* 3: the content hash is mf_cache_hash; 4: corrupt FDEs;
			   * 5: PLT rows (cfi_plt.c) */

struct cache_header {
	char magic[8];
	uint32_t version;
	uint32_t row_size, xrow_size, dropped_size, stats_size;
	uint32_t build_id_len;
	uint8_t build_id[GS_BUILD_ID_MAX];
	uint64_t content; /* mf_cache_content of the CFI sections */
	uint64_t nrows, nxrows, ndropped;
	struct gs_cfi_stats stats;
};

/* What the rows are computed from: .eh_frame, then .debug_frame. */
static const char *const cfi_sections[] = { ".eh_frame", ".debug_frame" };

static void header_for(struct cache_header *h, Elf *elf, const uint8_t *id, size_t len)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, CACHE_MAGIC, sizeof(h->magic));
	h->version = CACHE_VERSION;
	h->row_size = sizeof(struct gs_unwind_row);
	h->xrow_size = sizeof(struct gs_cfi_row);
	h->dropped_size = sizeof(struct gs_cfi_dropped);
	h->stats_size = sizeof(struct gs_cfi_stats);
	h->build_id_len = (uint32_t)len;
	memcpy(h->build_id, id, len);
	h->content = mf_cache_content(elf, cfi_sections, 2);
}

_Static_assert(sizeof(struct cache_header) % 8 == 0 && sizeof(struct gs_unwind_row) % 8 == 0 &&
	       sizeof(struct gs_cfi_row) % 8 == 0,
	       "mapped arrays start 8-byte aligned after the header");

/* t's arrays pointing into the file mapped: the pages a run reads come
 * from the page cache as it reads them (the loop walker's never touch the
 * reference rows), instead of 3.6 MB of libc's read into fresh memory. */
static int map_arrays(int fd, uint64_t size, const struct cache_header *h,
		      struct gs_cfi_table *t, struct uw_cfi_mapping *map)
{
	uint8_t *base;

	if (size > SIZE_MAX)
		return -EFBIG;
	base = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	map->addr = base;
	map->size = (size_t)size;
	t->rows = (struct gs_unwind_row *)(base + sizeof(*h));
	t->xrows = (struct gs_cfi_row *)((uint8_t *)t->rows + h->nrows * sizeof(*t->rows));
	t->dropped = (struct gs_cfi_dropped *)((uint8_t *)t->xrows +
					       h->nxrows * sizeof(*t->xrows));
	return 0;
}

int uw_cfi_cache_load(const char *dir, Elf *elf, const uint8_t *id, size_t len,
		      struct gs_cfi_table *t, struct uw_cfi_mapping *map)
{
	const size_t pinned = offsetof(struct cache_header, nrows);
	struct cache_header want, got;
	uint64_t size, rest;
	int fd;

	memset(t, 0, sizeof(*t));
	if (map)
		memset(map, 0, sizeof(*map));
	fd = mf_cache_open(dir, id, len, MF_CACHE_EXT_CFI, &size);
	if (fd < 0)
		return fd;
	header_for(&want, elf, id, len); /* hashing only when a file is there */
	rest = size - pinned;
	if (!mf_cache_pinned(fd, size, &want, pinned) ||
	    !mf_cache_read(fd, (char *)&got + pinned, sizeof(got) - pinned) ||
	    got.nrows > SIZE_MAX / sizeof(*t->rows) || got.nxrows > SIZE_MAX / sizeof(*t->xrows) ||
	    got.ndropped > SIZE_MAX / sizeof(*t->dropped) ||
	    rest != sizeof(got) - pinned + got.nrows * sizeof(*t->rows) +
			    got.nxrows * sizeof(*t->xrows) + got.ndropped * sizeof(*t->dropped)) {
		close(fd);
		return -EINVAL;
	}
	if (map && map_arrays(fd, size, &got, t, map) == 0)
		goto counts;
	t->rows = malloc(got.nrows ? got.nrows * sizeof(*t->rows) : 1);
	t->xrows = malloc(got.nxrows ? got.nxrows * sizeof(*t->xrows) : 1);
	t->dropped = malloc(got.ndropped ? got.ndropped * sizeof(*t->dropped) : 1);
	if (!t->rows || !t->xrows || !t->dropped ||
	    !mf_cache_read(fd, t->rows, got.nrows * sizeof(*t->rows)) ||
	    !mf_cache_read(fd, t->xrows, got.nxrows * sizeof(*t->xrows)) ||
	    !mf_cache_read(fd, t->dropped, got.ndropped * sizeof(*t->dropped))) {
		close(fd);
		gs_cfi_table_free(t);
		return -EINVAL;
	}
counts:
	close(fd);
	t->nrows = got.nrows;
	t->nxrows = got.nxrows;
	t->ndropped = got.ndropped;
	t->stats = got.stats;
	return 0;
}

void uw_cfi_cache_store(const char *dir, Elf *elf, const uint8_t *id, size_t len,
			const struct gs_cfi_table *t)
{
	struct cache_header h;

	if (!dir || len == 0 || len > GS_BUILD_ID_MAX)
		return;
	header_for(&h, elf, id, len);
	h.nrows = t->nrows;
	h.nxrows = t->nxrows;
	h.ndropped = t->ndropped;
	h.stats = t->stats;
	mf_cache_store(dir, id, len, MF_CACHE_EXT_CFI, (const struct mf_cache_part[]){
			       { &h, sizeof(h) },
			       { t->rows, t->nrows * sizeof(*t->rows) },
			       { t->xrows, t->nxrows * sizeof(*t->xrows) },
			       { t->dropped, t->ndropped * sizeof(*t->dropped) },
		       }, 4);
}

void uw_cfi_table_unmap(struct gs_cfi_table *t, struct uw_cfi_mapping *map)
{
	if (map && map->addr) {
		munmap(map->addr, map->size);
		memset(map, 0, sizeof(*map));
		memset(t, 0, sizeof(*t));
		return;
	}
	gs_cfi_table_free(t);
}
