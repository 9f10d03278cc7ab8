/* Files cached on disk by build id, one mechanism for every kind (CFI
 * tables, function-name indexes; inflated debug files, debugcache.c, pin
 * theirs in a trailer instead): `<dir>/<build id hex><ext>`, opening
 * with a header the reader builds itself (magic, version, the sizes of its
 * structs, the build id, a hash of the module sections the data was
 * computed from: a file patched or damaged after the link keeps its build
 * id) that the file must repeat byte for byte. Anything else is ignored
 * (and replaced by the next store); files are written under a temporary
 * name and renamed, so a reader never sees half of one. What another user
 * could have written is not read either: the directory and each file must
 * belong to the effective user and be writable by nobody else (the
 * directory is made 0700, its files 0600). */
#define _GNU_SOURCE /* O_NOFOLLOW, SYS_gettid */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>

#include <gs/modfile.h>

#include "base.h"
#include "mf_int.h"

#define PRIME1 0x9e3779b97f4a7c15ull
#define PRIME2 0xc2b2ae3d27d4eb4full

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* Four independent multiply-rotate lanes over 32-byte blocks, then the
 * tail, then a 64-bit finalizer: about 10 GB/s where SipHash-1-3 does 0.8
 * (a 9 MB .debug_info in 1 ms instead of 12). What it guards against is a
 * file changed by accident, as SipHash with its public key did: neither
 * resists a forger, who could write the DWARF itself anyway. */
uint64_t mf_cache_hash(uint64_t seed, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t a = seed ^ PRIME1, b = seed ^ PRIME2, c = seed + PRIME1, d = seed - PRIME2, h;
	size_t n = len;

	for (; n >= 32; p += 32, n -= 32) {
		uint64_t w[4];

		memcpy(w, p, sizeof(w));
		a = rotl(a ^ w[0], 29) * PRIME1;
		b = rotl(b ^ w[1], 29) * PRIME1;
		c = rotl(c ^ w[2], 29) * PRIME1;
		d = rotl(d ^ w[3], 29) * PRIME1;
	}
	h = rotl(a, 1) ^ rotl(b, 7) ^ rotl(c, 12) ^ rotl(d, 18) ^ (uint64_t)len;
	for (; n >= 8; p += 8, n -= 8) {
		uint64_t w;

		memcpy(&w, p, sizeof(w));
		h = rotl(h ^ w, 29) * PRIME1;
	}
	for (; n; p++, n--)
		h = rotl(h ^ *p, 13) * PRIME2;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

uint64_t mf_cache_content(Elf *elf, const char *const *names, size_t n)
{
	uint64_t h = 0;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *s;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || !(s = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    strcmp(s, names[i]) != 0)
				continue;
			d = sh.sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);
			h = mf_cache_hash(h ^ (i + 1), d && d->d_buf ? d->d_buf : "",
					  d ? d->d_size : 0);
			break;
		}
	}
	return h;
}

/* `<build id hex><ext>`, the name of a cache file in its directory. */
static int cache_name(const uint8_t *id, size_t len, const char *ext, char *out, size_t size)
{
	size_t n = 0;
	int k;

	if (len == 0 || len > GS_BUILD_ID_MAX)
		return -ENOENT;
	for (size_t i = 0; i < len && n + 3 < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%02x", id[i]);
	k = snprintf(out + n, size - n, "%s", ext);
	return k >= 0 && (size_t)k < size - n ? 0 : -ENAMETOOLONG;
}

/* Why a cache directory or file (st) cannot be trusted, or NULL: anyone
 * but the effective user who can write it could rewrite what is read back
 * (the rows a backtrace follows, the debug file a name comes from). */
const char *mf_cache_distrust(const struct stat *st, char *why, size_t size)
{
	if (st->st_uid != geteuid())
		snprintf(why, size, "belongs to uid %u, not to uid %u who runs this",
			 (unsigned)st->st_uid, (unsigned)geteuid());
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, size, "is writable by %s (mode %04o)",
			 (st->st_mode & S_IWOTH) ? "others" : "its group",
			 (unsigned)(st->st_mode & 07777));
	else
		return NULL;
	return why;
}

/* mkdir -p of an absolute directory, each new level 0700 (XDG's mode for
 * a cache: what it holds is read back as trusted). */
static void make_dirs(const char *dir)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0700);
		*s = '/';
	}
	mkdir(p, 0700);
}

/* The cache directory opened (not through a symbolic link) and judged on
 * that descriptor, so files are then opened relative to what was judged;
 * created 0700 when absent and create. -ENOENT (absent), -EPERM (not to
 * be trusted), -ELOOP (a symbolic link) or another -errno, with why. Only
 * the directory itself is judged, not its parents. */
int mf_cache_dir_open(const char *dir, bool create, char *why, size_t size)
{
	struct stat st;
	int fd;

	snprintf(why, size, "cannot be opened");
	if (!dir || dir[0] != '/')
		return -ENOENT;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		make_dirs(dir);
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		int rc = -errno;
		struct stat lst;

		/* O_NOFOLLOW | O_DIRECTORY on a link: ENOTDIR (ELOOP without
		 * O_DIRECTORY); which one it was only changes the message */
		if ((rc == -ENOTDIR || rc == -ELOOP) && lstat(dir, &lst) == 0 &&
		    S_ISLNK(lst.st_mode))
			rc = -ELOOP;
		snprintf(why, size, "%s", rc == -ELOOP ? "is a symbolic link" : strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) != 0 || mf_cache_distrust(&st, why, size)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int gs_cache_dir_check(const char *dir, struct gs_error *err)
{
	char why[128];
	int fd = mf_cache_dir_open(dir, false, why, sizeof(why));

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (fd == -ENOENT && dir && dir[0] == '/')
		return 0; /* made 0700 by the first store */
	if (!dir || dir[0] != '/')
		return gs_errorf(err, -EINVAL, "cache directory %s is not an absolute path; give "
				 "one", dir ? dir : "(none)");
	if (fd == -ELOOP)
		return gs_errorf(err, -EPERM, "cache directory %s is a symbolic link; give the "
				 "real path", dir);
	if (fd == -EPERM)
		return gs_errorf(err, -EPERM, "cache directory %s %s: another user could rewrite "
				 "what is read back from it; chown it to uid %u and chmod 700 it",
				 dir, why, (unsigned)geteuid());
	return gs_errorf(err, fd, "cache directory %s: %s; check it", dir, why);
}

bool mf_cache_read(int fd, void *buf, size_t n)
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

int mf_cache_open(const char *dir, const uint8_t *id, size_t len, const char *ext,
		  uint64_t *size)
{
	char name[2 * GS_BUILD_ID_MAX + 32], why[128];
	struct stat st;
	int dfd, fd;

	if (cache_name(id, len, ext, name, sizeof(name)))
		return -ENOENT;
	dfd = mf_cache_dir_open(dir, false, why, sizeof(why));
	if (dfd < 0)
		return dfd == -EPERM || dfd == -ELOOP ? -EPERM : -ENOENT;
	/* O_NONBLOCK: a FIFO put there never hangs the reader; refused below */
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	close(dfd);
	if (fd < 0)
		return -ENOENT;
	/* a file someone else could have written is not read (the next store
	 * replaces it) */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || mf_cache_distrust(&st, why, sizeof(why))) {
		close(fd);
		return -EINVAL;
	}
	/* a hit is a use: the file's modification time is its last use, what
	 * the trim evicts by (cachetrim.c); once a minute is precise enough
	 * and spares an inode write per read */
	if (time(NULL) - st.st_mtim.tv_sec > MF_CACHE_TOUCH_S)
		futimens(fd, (const struct timespec[2]){ { .tv_nsec = UTIME_OMIT },
							 { .tv_nsec = UTIME_NOW } });
	*size = (uint64_t)st.st_size;
	return fd;
}

bool mf_cache_pinned(int fd, uint64_t size, const void *header, size_t hsize)
{
	uint8_t buf[512];
	const uint8_t *want = header;

	if (size < hsize)
		return false;
	while (hsize) {
		size_t k = hsize < sizeof(buf) ? hsize : sizeof(buf);

		if (!mf_cache_read(fd, buf, k) || memcmp(buf, want, k) != 0)
			return false;
		want += k;
		hsize -= k;
	}
	return true;
}

/* A file in dfd under a name of its own, for this store only (O_EXCL: a
 * leftover or a planted name is never reused): its descriptor, or -1. Two
 * threads of one process may store the same build id (the prefetch worker
 * and its caller), so the thread and the clock pick the name. */
static int temp_file(int dfd, const char *name, char *tmp, size_t size)
{
	uint64_t seed;
	int fd = -1;

	seed = (uint64_t)base_now_ns();
	seed ^= (uint64_t)syscall(SYS_gettid) << 32;
	for (int i = 0; i < 16 && fd < 0; i++) {
		seed = seed * PRIME1 + PRIME2;
		snprintf(tmp, size, "%s.%d.%08x", name, (int)getpid(), (unsigned)(seed >> 32));
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

void mf_cache_store(const char *dir, const uint8_t *id, size_t len, const char *ext,
		    const struct mf_cache_part *parts, size_t nparts)
{
	char name[2 * GS_BUILD_ID_MAX + 32], tmp[sizeof(name) + 32], why[128];
	bool ok = true;
	int dfd, fd;

	if (cache_name(id, len, ext, name, sizeof(name)))
		return;
	dfd = mf_cache_dir_open(dir, true, why, sizeof(why));
	if (dfd < 0)
		return;
	fd = temp_file(dfd, name, tmp, sizeof(tmp));
	if (fd < 0) {
		close(dfd);
		return;
	}
	for (size_t i = 0; i < nparts && ok; i++)
		ok = write_all(fd, parts[i].data, parts[i].size);
	ok = close(fd) == 0 && ok;
	if (!ok || renameat(dfd, tmp, dfd, name) != 0)
		unlinkat(dfd, tmp, 0);
	close(dfd);
}
