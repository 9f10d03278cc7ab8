/* Where a module's debug file is, the way gdb looks (build-id directories,
 * then the .gnu_debuglink name beside the module, in its .debug/ directory
 * and under each debug root, then debuginfod when a server is configured).
 * libdwfl searches the build-id directories and debuginfod; the roots are
 * root's own, the two places beside the module
 * belong to whoever owns the traced program, so those are opened here
 * without blocking, checked on the descriptor, and accepted only when
 * their build id and CRC match the module's. */
#define _GNU_SOURCE /* asprintf */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <gs/modfile.h>

#include "base.h"
#include "mf_int.h"

#define CRC_CHUNK 65536

bool mf_debug_dirs_valid(const char *dirs)
{
	const char *p = dirs;

	do {
		if (*p != '/')
			return false;
		p = strchr(p, ':');
	} while (p && *++p);
	return !p;
}

const char *mf_file_kind(unsigned mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISDIR(mode) ? "a directory" :
	       S_ISSOCK(mode) ? "a socket" : S_ISLNK(mode) ? "a symbolic link" :
	       S_ISREG(mode) ? "a regular file" : "a special file";
}

bool mf_path_visible(const char *p)
{
	const char *q;

	if (base_has_prefix(p, "/sys/") || strcmp(p, "/sys") == 0)
		return false;
	if ((q = base_after_prefix(p, "/proc/"))) {
		if (*q < '0' || *q > '9')
			return false;
		while (*q >= '0' && *q <= '9')
			q++;
		return base_has_prefix(q, "/root/");
	}
	return strcmp(p, "/proc") != 0;
}

/* CRC-32 of the whole file (the .gnu_debuglink checksum is zlib's). */
static bool file_crc(int fd, uint64_t size, uint32_t *out)
{
	unsigned char *buf = malloc(CRC_CHUNK);
	uLong crc = crc32(0, Z_NULL, 0);
	uint64_t off = 0;

	if (!buf)
		return false;
	while (off < size) {
		ssize_t n = pread(fd, buf, CRC_CHUNK, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		crc = crc32(crc, buf, (uInt)n);
		off += (uint64_t)n;
	}
	free(buf);
	*out = (uint32_t)crc;
	return off == size;
}

/* The candidate is the module's debug file: an ELF with the module's build
 * id (when it has one) and the debug link's CRC (when it gives one). */
static bool matches(const struct gs_modfile *m, int fd, uint64_t size, uint32_t crc)
{
	const struct gs_module_id *id = &m->id;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool ok = elf && elf_kind(elf) == ELF_K_ELF;
	uint32_t got;

	if (ok && id->build_id_len) {
		const void *bid = NULL;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);

		ok = n == id->build_id_len && memcmp(bid, id->build_id, (size_t)n) == 0;
	}
	elf_end(elf);
	if (!ok || (!crc && !id->build_id_len))
		return false; /* nothing ties it to the module */
	return !crc || (file_crc(fd, size, &got) && got == crc);
}

/* <dir>/<link> and <dir>/.debug/<link> beside the module at file_name. */
static int find_beside(const struct gs_modfile *m, const char *file_name, const char *link,
		       uint32_t crc, char **found)
{
	static const char *const forms[] = { "%.*s/%s", "%.*s/.debug/%s" };
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	const struct gs_module_id *id = &m->id;

	/* A link is a file name; one with a '/' would leave the directory. */
	if (!slash || !link || !link[0] || strchr(link, '/') || strcmp(link, "..") == 0 ||
	    !mf_path_visible(file_name))
		return -1;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(forms); i++) {
		char *cand = NULL;
		struct stat st;
		int fd;

		if (asprintf(&cand, forms[i], (int)(slash - file_name), file_name, link) < 0)
			return -1;
		fd = open(cand, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    !(st.st_dev == id->dev && st.st_ino == id->ino) &&
		    matches(m, fd, (uint64_t)st.st_size, crc)) {
			*found = cand;
			return fd;
		}
		if (fd >= 0)
			close(fd);
		free(cand);
	}
	return -1;
}

/* <root><dir>/<link> under each debug root, dir being the module's own
 * directory (/usr/lib/debug/usr/lib/x86_64-linux-gnu/libz.so.1.debug), as
 * gdb looks; the roots belong to root, so no other check than the link's. */
static int find_under_roots(const struct gs_modfile *m, const char *file_name, const char *link,
			    uint32_t crc, char **found)
{
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	const char *dirs = m->owner->debug_dirs;

	if (!slash || file_name[0] != '/' || !link || !link[0] || strchr(link, '/') || !dirs)
		return -1;
	for (const char *d = dirs; *d;) {
		size_t n = strcspn(d, ":");
		char *cand = NULL;
		struct stat st;
		int fd = -1;

		if (asprintf(&cand, "%.*s%.*s/%s", (int)n, d, (int)(slash - file_name), file_name,
			     link) >= 0)
			fd = open(cand, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    matches(m, fd, (uint64_t)st.st_size, crc)) {
			*found = cand;
			return fd;
		}
		if (fd >= 0)
			close(fd);
		free(cand);
		d += n;
		if (*d == ':')
			d++;
	}
	return -1;
}

/* Whether a debuginfod server is configured: only then is libdwfl's own
 * search asked, which loads the debuginfod client (libcurl, GnuTLS: 5 MB
 * of a run's memory and milliseconds of its start) on first use even when
 * no server is set. */
static bool debuginfod_configured(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[0];
}

/* The cached copy of the debug file fd with its sections inflated, when
 * there is a valid one (fd is closed then); the name libdwfl keeps is the
 * debug file's own (alternate files are found beside it). */
static int inflated_copy(const struct gs_modfile *m, int fd)
{
	int cfd;

	if (fd < 0 || !m || !m->owner->cfi_cache_dir || !m->id.build_id_len)
		return fd;
	cfd = mf_debugcache_open(m->owner->cfi_cache_dir, m->id.build_id, m->id.build_id_len, fd);
	if (cfd < 0)
		return fd;
	close(fd);
	return cfd;
}

/* The inflated copy of <root>/.build-id/xx/yyyy.debug under a debug root,
 * asked before libdwfl's own build-id search, which opens the file itself
 * and keeps that handle whatever descriptor the search then returns. */
static int inflated_by_build_id(const struct gs_modfile *m, char **found)
{
	const struct gs_module_id *id = &m->id;
	const char *dirs = m->owner->debug_dirs;
	char hex[2 * GS_BUILD_ID_MAX + 1];

	if (!m->owner->cfi_cache_dir || id->build_id_len < 2 || !dirs)
		return -1;
	for (size_t i = 0; i < id->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id->build_id[i]);
	for (const char *d = dirs; *d;) {
		size_t n = strcspn(d, ":");
		char *path = NULL;
		int fd = -1, cfd;

		if (asprintf(&path, "%.*s/.build-id/%.2s/%s.debug", (int)n, d, hex, hex + 2) >= 0)
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		cfd = fd >= 0 ? mf_debugcache_open(m->owner->cfi_cache_dir, id->build_id,
						   id->build_id_len, fd) : -1;
		if (fd >= 0)
			close(fd);
		if (cfd >= 0) {
			*found = path;
			return cfd;
		}
		free(path);
		d += n;
		if (*d == ':')
			d++;
	}
	return -1;
}

int mf_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink, GElf_Word crc,
		      char **debuginfo_file_name)
{
	int fd = *userdata ? inflated_by_build_id(*userdata, debuginfo_file_name) : -1;

	if (fd >= 0)
		return fd;
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink,
					  crc, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	if (*userdata) {
		fd = find_beside(*userdata, file_name, debuglink, crc, debuginfo_file_name);
		if (fd >= 0)
			return inflated_copy(*userdata, fd);
	}
	/* The debug roots (debuginfo_path holds absolute directories only),
	 * then libdwfl's search, for debuginfod, when configured. */
	if (*userdata) {
		fd = find_under_roots(*userdata, file_name, debuglink, crc, debuginfo_file_name);
		if (fd >= 0)
			return inflated_copy(*userdata, fd);
		if (!debuginfod_configured())
			return -1;
	}
	errno = 0;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink, crc,
					    debuginfo_file_name);
}
