/* libFuzzer target for the kernel-symbol reader (gs_kallsyms_load, the
 * names of --kernel-stacks frames): any bytes as the file either load, with
 * every lookup answering a name it read or nothing, or fail with a
 * message. The bytes reach it through a memfd, as a file would. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gs/internal/modfile.h>

#include "base.h"
#include "smoke.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_kallsyms *k;
	struct gs_error err;
	char path[64];
	int fd = memfd_create("kallsyms", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (gs_kallsyms_load(path, &k, &err) == 0) {
		uint64_t probes[] = { 0, 1, 0xffffffff81000000ull, UINT64_MAX };

		for (size_t i = 0; i < BASE_ARRAY_SIZE(probes); i++) {
			uint64_t off = 0;
			const char *name = gs_kallsyms_find(k, probes[i], &off);

			if (name && (!*name || off > probes[i]))
				abort();
		}
		gs_kallsyms_free(k);
	} else if (!err.msg[0]) {
		abort();
	}
	close(fd);
	return 0;
}
