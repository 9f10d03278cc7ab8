/* CFI tables cached on disk by build id (issue 11: a large module's rows
 * ready in a fraction of the time libdw takes to compute them): one file
 * per build id, `<dir>/<build id hex>.cfi`, holding a header that pins the
 * format (magic, version, the sizes of every struct), the build id and a
 * hash of the module's .eh_frame and .debug_frame bytes (a file patched or
 * damaged after the link keeps its build id), then the reference rows, the
 * loop walker's rows and the dropped ranges as they are in memory. A file
 * that does not match in every respect is ignored (and replaced); files
 * are written to a temporary name and renamed, so a reader never sees half
 * of one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include <gs/unwind.h>

#include "unwind_int.h"

#define CACHE_MAGIC "GSCFI\0\0\1"
#define CACHE_VERSION 2u

struct cache_header {
	char magic[8];
	uint32_t version;
	uint32_t row_size, xrow_size, dropped_size, stats_size;
	uint32_t build_id_len;
	uint8_t build_id[GS_BUILD_ID_MAX];
	uint64_t content; /* SipHash of the CFI sections' raw bytes */
	uint64_t nrows, nxrows, ndropped;
	struct gs_cfi_stats stats;
};

/* SipHash of the raw bytes of .eh_frame, then of .debug_frame (0 for a
 * section that is not there), chained. */
static uint64_t cfi_content(Elf *elf)
{
	static const char *const names[] = { ".eh_frame", ".debug_frame" };
	uint64_t h = 0;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    strcmp(n, names[i]) != 0)
				continue;
			d = sh.sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);
			h = uw_siphash13(h, i + 1, d && d->d_buf ? d->d_buf : "", d ? d->d_size : 0);
			break;
		}
	}
	return h;
}

static int cache_path(const char *dir, const uint8_t *id, size_t len, char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "%s/", dir);

	for (size_t i = 0; i < len && n + 3 < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%02x", id[i]);
	return n + 5 < size && snprintf(out + n, size - n, ".cfi") == 4 ? 0 : -ENAMETOOLONG;
}

static bool read_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t k = read(fd, p, n);

		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

static bool write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t k = write(fd, p, n);

		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

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
	h->content = cfi_content(elf);
}

int uw_cfi_cache_load(const char *dir, Elf *elf, const uint8_t *id, size_t len,
		      struct gs_cfi_table *t)
{
	struct cache_header want, got;
	char path[4096];
	struct stat st;
	int fd;

	memset(t, 0, sizeof(*t));
	if (!dir || len == 0 || len > GS_BUILD_ID_MAX || cache_path(dir, id, len, path, sizeof(path)))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	header_for(&want, elf, id, len);
	if (fstat(fd, &st) != 0 || !read_all(fd, &got, sizeof(got)) ||
	    memcmp(&got, &want, offsetof(struct cache_header, nrows)) != 0 ||
	    got.nrows > SIZE_MAX / sizeof(*t->rows) || got.nxrows > SIZE_MAX / sizeof(*t->xrows) ||
	    got.ndropped > SIZE_MAX / sizeof(*t->dropped) ||
	    (uint64_t)st.st_size != sizeof(got) + got.nrows * sizeof(*t->rows) +
					    got.nxrows * sizeof(*t->xrows) +
					    got.ndropped * sizeof(*t->dropped)) {
		close(fd);
		return -EINVAL;
	}
	t->rows = malloc(got.nrows ? got.nrows * sizeof(*t->rows) : 1);
	t->xrows = malloc(got.nxrows ? got.nxrows * sizeof(*t->xrows) : 1);
	t->dropped = malloc(got.ndropped ? got.ndropped * sizeof(*t->dropped) : 1);
	if (!t->rows || !t->xrows || !t->dropped ||
	    !read_all(fd, t->rows, got.nrows * sizeof(*t->rows)) ||
	    !read_all(fd, t->xrows, got.nxrows * sizeof(*t->xrows)) ||
	    !read_all(fd, t->dropped, got.ndropped * sizeof(*t->dropped))) {
		close(fd);
		gs_cfi_table_free(t);
		return -EINVAL;
	}
	close(fd);
	t->nrows = got.nrows;
	t->nxrows = got.nxrows;
	t->ndropped = got.ndropped;
	t->stats = got.stats;
	return 0;
}

/* mkdir -p of an absolute directory. */
static void make_dirs(const char *dir)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

void uw_cfi_cache_store(const char *dir, Elf *elf, const uint8_t *id, size_t len,
			const struct gs_cfi_table *t)
{
	struct cache_header h;
	char path[4096], tmp[4200];
	bool ok;
	int fd;

	if (!dir || len == 0 || len > GS_BUILD_ID_MAX || cache_path(dir, id, len, path, sizeof(path)))
		return;
	make_dirs(dir);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	header_for(&h, elf, id, len);
	h.nrows = t->nrows;
	h.nxrows = t->nxrows;
	h.ndropped = t->ndropped;
	h.stats = t->stats;
	ok = write_all(fd, &h, sizeof(h)) &&
	     write_all(fd, t->rows, t->nrows * sizeof(*t->rows)) &&
	     write_all(fd, t->xrows, t->nxrows * sizeof(*t->xrows)) &&
	     write_all(fd, t->dropped, t->ndropped * sizeof(*t->dropped));
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
}
