/* Debug files with compressed sections (libc's: 4 MB that libdw inflates
 * to 10 MB, 30-50 ms of zlib on every start) cached inflated by build id,
 * `<dir>/<build id hex>.debug`: the ELF image with those sections stored
 * plain, then a trailer naming the debug file it was made from (device,
 * inode, size, modification time) and the build id. The debug-file search
 * hands libdwfl the cached copy instead when the trailer matches the file
 * it found and the copy carries the module's build id; else the original,
 * and the prefetch worker writes the copy from the sections libdw has just
 * inflated. */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "base.h"
#include "mf_int.h"

#define DEBUGCACHE_MAGIC "GSDBGZ0\n"
#define DEBUGCACHE_VERSION 1u
#define DEBUGCACHE_EXT MF_CACHE_EXT_DEBUG
#define DEBUGCACHE_MAX_SECTIONS 4096
#define MAX_ALIGN 65536 /* past it, a section is not moved: no copy */

struct debugcache_trailer {
	char magic[8];
	uint32_t version;
	uint32_t trailer_size;
	uint64_t elf_size; /* the file is the ELF image, then this trailer */
	struct mf_debugcache_src src;
	uint8_t build_id_len;
	uint8_t build_id[GS_BUILD_ID_MAX];
	uint8_t pad[7];
};
_Static_assert(sizeof(struct debugcache_trailer) == 128, "debug cache trailer layout");

_Static_assert(sizeof(struct debugcache_trailer) == MF_DEBUGCACHE_TRAILER_SIZE,
	       "the trailer size mf_int.h gives");

static void trailer_make(struct debugcache_trailer *t, uint64_t elf_size,
			 const struct mf_debugcache_src *src, const uint8_t *id, size_t len)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->magic, DEBUGCACHE_MAGIC, sizeof(t->magic));
	t->version = DEBUGCACHE_VERSION;
	t->trailer_size = sizeof(*t);
	t->elf_size = elf_size;
	t->src = *src;
	t->build_id_len = (uint8_t)len;
	memcpy(t->build_id, id, len);
}

void mf_debugcache_seal(uint8_t *trailer, uint64_t image_size, const struct mf_debugcache_src *src,
			const uint8_t *id, size_t len)
{
	struct debugcache_trailer t;

	trailer_make(&t, image_size, src, id, len > GS_BUILD_ID_MAX ? GS_BUILD_ID_MAX : len);
	memcpy(trailer, &t, sizeof(t));
}

bool mf_debugcache_src_of(int fd, struct mf_debugcache_src *out)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	out->dev = (uint64_t)st.st_dev;
	out->ino = (uint64_t)st.st_ino;
	out->size = (uint64_t)st.st_size;
	out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
	return true;
}

bool mf_debugcache_accept(int fd, uint64_t size, const struct mf_debugcache_src *src,
			  const uint8_t *id, size_t len)
{
	struct debugcache_trailer want, got;
	const void *bid = NULL;
	ssize_t n;
	Elf *elf;
	bool ok;

	if (len == 0 || len > GS_BUILD_ID_MAX || size <= sizeof(got))
		return false;
	trailer_make(&want, size - sizeof(got), src, id, len);
	if (pread(fd, &got, sizeof(got), (off_t)(size - sizeof(got))) != (ssize_t)sizeof(got) ||
	    memcmp(&got, &want, sizeof(got)) != 0)
		return false;
	/* The image itself: an ELF file carrying the module's build id. */
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF;
	if (ok) {
		n = dwelf_elf_gnu_build_id(elf, &bid);
		ok = n == (ssize_t)len && memcmp(bid, id, len) == 0;
	}
	elf_end(elf);
	return ok;
}

int mf_debugcache_open(const char *dir, const uint8_t *id, size_t len, int src_fd)
{
	struct mf_debugcache_src src;
	uint64_t size;
	int fd;

	if (!dir || !mf_debugcache_src_of(src_fd, &src))
		return -1;
	fd = mf_cache_open(dir, id, len, DEBUGCACHE_EXT, &size);
	if (fd < 0)
		return -1;
	if (!mf_debugcache_accept(fd, size, &src, id, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- writing ----------------------------------------------------------- */

struct placed {
	size_t index;
	uint64_t off; /* in the source */
};

static int by_offset(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Room for need bytes (1 MiB at first, then doubling), the new room
 * zeroed. */
static bool grow(uint8_t **buf, size_t *cap, size_t need)
{
	size_t old = *cap;

	if (base_grow((void **)buf, cap, !old && need < (1u << 20) ? 1u << 20 : need, 1))
		return false;
	memset(*buf + old, 0, *cap - old);
	return true;
}

static bool pread_all(int fd, void *buf, uint64_t n, uint64_t off)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t k = pread(fd, p, n, (off_t)off);

		if (k <= 0)
			return false;
		p += k;
		n -= (uint64_t)k;
		off += (uint64_t)k;
	}
	return true;
}

/* The image of the debug file fd (a 64-bit ELF of size bytes) whose
 * compressed sections libdw inflated in elf, its handle on that file:
 * headers, program headers and sections as in the file (libdwfl's private
 * mapping holds the headers libelf rewrote, so they are read from fd), the
 * inflated ones plain, each section at its own offset or later where the
 * inflated ones grew (never an allocated section or a note: program
 * headers point at those), then the section headers. 0 with *out
 * malloc'd, 1 when nothing was inflated, or -1. */
static int image_of(int fd, uint64_t size, Elf *elf, uint8_t **out, size_t *out_size)
{
	size_t nsec, cap = 0, end = 0;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	struct placed *order = NULL;
	uint8_t *buf = NULL;
	uint64_t first;
	bool inflated = false;
	int rc = -1;

	if (size < sizeof(eh) || !pread_all(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    gelf_getclass(elf) != ELFCLASS64)
		return -1;
	nsec = eh.e_shnum;
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || nsec == 0 || nsec > DEBUGCACHE_MAX_SECTIONS ||
	    eh.e_shoff > size || nsec * sizeof(Elf64_Shdr) > size - eh.e_shoff ||
	    eh.e_shstrndx >= nsec || eh.e_phoff > size ||
	    (uint64_t)eh.e_phnum * eh.e_phentsize > size - eh.e_phoff)
		return -1;
	sh = malloc(nsec * sizeof(*sh));
	order = malloc(nsec * sizeof(*order));
	if (!sh || !order || !pread_all(fd, sh, nsec * sizeof(*sh), eh.e_shoff))
		goto out;
	first = eh.e_shoff;
	for (size_t i = 0; i < nsec; i++) {
		order[i] = (struct placed){ i, sh[i].sh_offset };
		if (i && sh[i].sh_type != SHT_NOBITS && sh[i].sh_size && sh[i].sh_offset < first)
			first = sh[i].sh_offset;
	}
	if (first < sizeof(eh) || eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize > first ||
	    !grow(&buf, &cap, first) || !pread_all(fd, buf, first, 0))
		goto out;
	end = first;
	qsort(order, nsec, sizeof(*order), by_offset);
	for (size_t k = 0; k < nsec; k++) {
		size_t i = order[k].index;
		Elf64_Shdr *s = &sh[i];
		Elf_Scn *scn = elf_getscn(elf, i);
		const Elf_Data *d = NULL;
		uint64_t len = s->sh_size, align = s->sh_addralign, off;
		GElf_Shdr now;

		if (i == 0 || s->sh_type == SHT_NOBITS || s->sh_size == 0)
			continue;
		if (!scn || !gelf_getshdr(scn, &now))
			goto out;
		if ((s->sh_flags & SHF_COMPRESSED) && !(now.sh_flags & SHF_COMPRESSED)) {
			/* inflated by libdw: its data is the plain section */
			d = elf_getdata(scn, NULL);
			if (!d || !d->d_buf || d->d_size != now.sh_size ||
			    elf_getdata(scn, (Elf_Data *)d))
				goto out;
			len = d->d_size;
			align = now.sh_addralign;
			s->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			inflated = true;
		} else if (s->sh_offset > size || s->sh_size > size - s->sh_offset) {
			goto out;
		}
		if (align > MAX_ALIGN)
			goto out;
		off = s->sh_offset >= end ? s->sh_offset : align_up(end, align);
		if (off != s->sh_offset && ((s->sh_flags & SHF_ALLOC) || s->sh_type == SHT_NOTE))
			goto out;
		if (off > SIZE_MAX / 4 || len > SIZE_MAX / 4 || !grow(&buf, &cap, off + len))
			goto out;
		if (d)
			memcpy(buf + off, d->d_buf, len);
		else if (!pread_all(fd, buf + off, len, s->sh_offset))
			goto out;
		s->sh_offset = off;
		s->sh_size = len;
		s->sh_addralign = align;
		end = off + len;
	}
	if (!inflated) {
		rc = 1;
		goto out;
	}
	eh.e_shoff = align_up(end, 8);
	if (!grow(&buf, &cap, eh.e_shoff + nsec * sizeof(*sh)))
		goto out;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + eh.e_shoff, sh, nsec * sizeof(*sh));
	*out = buf;
	*out_size = eh.e_shoff + nsec * sizeof(*sh);
	buf = NULL;
	rc = 0;
out:
	free(buf);
	free(sh);
	free(order);
	return rc;
}

/* A valid copy is there already (libdwfl read the file itself). */
static bool already(const char *dir, const uint8_t *id, size_t len, int src_fd)
{
	int fd = mf_debugcache_open(dir, id, len, src_fd);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

void mf_debugcache_store(const char *dir, const uint8_t *id, size_t len, Elf *debug_elf,
			 const char *src_path)
{
	struct debugcache_trailer t;
	struct mf_debugcache_src src;
	uint8_t *img = NULL;
	size_t size, raw_size;
	int fd;

	if (!dir || !debug_elf || !src_path || len == 0 || len > GS_BUILD_ID_MAX)
		return;
	/* The file as it is now, and the one libdw read (same size: not the
	 * cached copy, which is larger); a copy of another file would never
	 * match at the next start anyway. */
	fd = open(src_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (mf_debugcache_src_of(fd, &src) && elf_rawfile(debug_elf, &raw_size) &&
	    raw_size == src.size && !already(dir, id, len, fd) && image_of(fd, src.size, debug_elf, &img, &size) == 0) {
		struct mf_cache_part parts[2] = { { img, size }, { &t, sizeof(t) } };

		trailer_make(&t, size, &src, id, len);
		mf_cache_store(dir, id, len, DEBUGCACHE_EXT, parts, 2);
	}
	close(fd);
	free(img);
}
