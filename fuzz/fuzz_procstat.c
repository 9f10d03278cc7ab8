/* libFuzzer target for the /proc/PID/stat parser: the command name in it is
 * the process's own choice (')' and spaces included), so any bytes either
 * parse, with a NUL-terminated name that fits, or fail with a message. */
#include <stdlib.h>
#include <string.h>

#include <gs/unwind.h>

#include "smoke.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_proc_stat st;
	struct gs_error err;

	/* exactly size bytes: the parser must not read past them */
	char *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (gs_proc_stat_parse(copy, size, &st, &err) == 0) {
		if (strnlen(st.comm, sizeof(st.comm)) >= sizeof(st.comm))
			abort();
	} else if (!err.msg[0]) {
		abort();
	}
	free(copy);
	return 0;
}
