/* libFuzzer target for the inflated debug-file copies of the cache
 * directory (any user who can write there writes these bytes): the first
 * byte chooses whether the rest is the whole file, or an image the target
 * seals with the trailer a copy of its made-up debug file carries (so the
 * ELF and build-id checks are reached). Any input is accepted or refused
 * without a crash, and one accepted raw ends in exactly that trailer. */
#define _GNU_SOURCE /* memfd_create */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "smoke.h"
#include "mf_int.h"

static const uint8_t build_id[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				      11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
static const struct mf_debugcache_src src = { .dev = 2049, .ino = 4242, .size = 123456,
					      .mtime_ns = 1700000000000000000ll };

/* A memfd takes a write of any size whole. */
static bool put(int fd, const uint8_t *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t trailer[MF_DEBUGCACHE_TRAILER_SIZE], got[MF_DEBUGCACHE_TRAILER_SIZE];
	bool sealed = size > 0 && (data[0] & 1), ok;
	size_t total;
	int fd;

	if (size == 0)
		return 0;
	data++;
	size--;
	fd = memfd_create("fuzz_debugcache", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	mf_debugcache_seal(trailer, size, &src, build_id, sizeof(build_id));
	total = size + (sealed ? sizeof(trailer) : 0);
	if (!put(fd, data, size) || (sealed && !put(fd, trailer, sizeof(trailer)))) {
		close(fd);
		return 0;
	}
	ok = mf_debugcache_accept(fd, total, &src, build_id, sizeof(build_id));
	if (ok && !sealed) {
		mf_debugcache_seal(trailer, size - sizeof(trailer), &src, build_id,
				   sizeof(build_id));
		if (size < sizeof(got) || pread(fd, got, sizeof(got), (off_t)(size - sizeof(got))) !=
						  (ssize_t)sizeof(got) ||
		    memcmp(got, trailer, sizeof(got)) != 0)
			abort();
	}
	close(fd);
	return 0;
}
