/* libFuzzer target for the container id in a /proc/PID/cgroup text: a
 * container that may make cgroups names them as it likes, so any bytes
 * either name an id of exactly 64 lowercase hex digits, or none (and the
 * id stays empty); the parser reads only the bytes it is given. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/modfile.h>

#include "smoke.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char id[GS_CONTAINER_ID_LEN + 1];
	/* exactly size bytes: the parser must not read past them */
	char *copy = malloc(size ? size : 1);
	int rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memset(id, 'x', sizeof(id));
	rc = gs_cgroup_container_id(copy, size, id, sizeof(id));
	if (rc == 0) {
		if (strnlen(id, sizeof(id)) != GS_CONTAINER_ID_LEN)
			abort();
		for (size_t i = 0; i < GS_CONTAINER_ID_LEN; i++)
			if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
				abort();
		/* the id is in the text */
		if (!memmem(copy, size, id, GS_CONTAINER_ID_LEN))
			abort();
	} else if (rc != -ENOENT || id[0] != '\0') {
		abort();
	}
	free(copy);
	return 0;
}
