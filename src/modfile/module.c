/* Module identity (docs/unwind.md): the cookie that names a module in maps
 * and frames. SipHash-1-3 of the GNU build id when the file has one, else
 * its device and inode, else a hash of its path when it cannot be opened. */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "mf_int.h"

#define DELETED_SUFFIX " (deleted)"

uint64_t mf_cookie_from_build_id(const void *id, size_t len)
{
	uint8_t msg[8 + 256];
	uint64_t n = len;

	if (len > 256)
		len = 256; /* build ids are 20 bytes; longer notes are not build ids */
	for (int i = 0; i < 8; i++)
		msg[i] = (uint8_t)(n >> (8 * i));
	if (len)
		memcpy(msg + 8, id, len);
	return mf_siphash13(0, 0, msg, 8 + len);
}

uint64_t mf_cookie_from_dev_ino(uint64_t dev, uint64_t ino)
{
	return (dev & 0xffffffffULL) << 32 | (ino & 0xffffffffULL);
}

uint64_t mf_cookie_from_path(const char *normalized_path)
{
	size_t n = strlen(normalized_path);
	uint8_t stackbuf[PATH_MAX + 1], *msg = stackbuf;
	uint64_t h;

	if (n + 1 > sizeof(stackbuf)) {
		msg = malloc(n + 1);
		if (!msg)
			return 0;
	}
	memcpy(msg, normalized_path, n);
	msg[n] = 0xff; /* Rust's Hash for str appends 0xff */
	h = mf_siphash13(0, 0, msg, n + 1);
	if (msg != stackbuf)
		free(msg);
	return h;
}

int mf_path_normalize(const char *path, char *out, size_t size)
{
	size_t n = strlen(path), sl = strlen(DELETED_SUFFIX), o = 0;

	if (n >= sl && strcmp(path + n - sl, DELETED_SUFFIX) == 0)
		n -= sl;
	for (size_t i = 0; i < n;) {
		if (o + 1 >= size)
			return -ENAMETOOLONG;
		/* Non-overlapping, left to right, like the reference's
		 * str::replace: "/././x" becomes "/./x". */
		if (i + 3 <= n && memcmp(path + i, "/./", 3) == 0) {
			out[o++] = '/';
			i += 3;
			continue;
		}
		out[o++] = path[i++];
	}
	if (o >= size)
		return -ENAMETOOLONG;
	out[o] = '\0';
	return (int)o;
}

int mf_elf_build_id(Elf *elf, const uint8_t **id, size_t *len)
{
	const void *p = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);

	*id = NULL;
	*len = 0;
	if (n < 0)
		return -EINVAL;
	*id = p;
	*len = (size_t)n;
	return 0;
}

int gs_module_identify(const char *path, struct gs_module_id *out, struct gs_error *err)
{
	char norm[PATH_MAX];
	struct stat st, fst;
	int fd = -1, n = mf_path_normalize(path, norm, sizeof(norm));
	Elf *elf;

	memset(out, 0, sizeof(*out));
	if (n < 0)
		return gs_errorf(err, n, "module path too long (%zu bytes): %.64s...", strlen(path), path);
	/* stat first and open without blocking: a FIFO is never opened for
	 * good, and the descriptor must be the file stat saw. */
	if (mf_path_visible(norm) && stat(norm, &st) == 0 && S_ISREG(st.st_mode))
		fd = open(norm, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino) {
		if (fd >= 0)
			close(fd);
		out->source = GS_COOKIE_PATH_HASH;
		out->cookie = mf_cookie_from_path(norm);
		return 0;
	}
	out->dev = fst.st_dev;
	out->ino = fst.st_ino;
	out->source = GS_COOKIE_DEV_INODE;
	out->cookie = mf_cookie_from_dev_ino(fst.st_dev, fst.st_ino);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		const uint8_t *id;
		size_t len;

		if (mf_elf_build_id(elf, &id, &len) == 0 && len > 0 && len <= GS_BUILD_ID_MAX) {
			out->source = GS_COOKIE_BUILD_ID;
			out->build_id_len = (uint8_t)len;
			memcpy(out->build_id, id, len);
			out->cookie = mf_cookie_from_build_id(id, len);
		}
	}
	elf_end(elf);
	close(fd);
	return 0;
}
