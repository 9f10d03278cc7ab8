/* libFuzzer target for the function-name index as read from the cache
 * directory (any user who can write there writes these bytes): any input
 * either parses into an index whose every name is found again by its own
 * lookup, with its own DIEs, or is refused; nothing is read past it. */
#include <stdlib.h>
#include <string.h>

#include "smoke.h"
#include "mf_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mf_funcindex *x;
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (mf_funcindex_parse(copy, size, &x) == 0) {
		for (size_t i = 0; i < mf_funcindex_count(x); i++) {
			const uint64_t *offs, *found;
			size_t n;
			const char *name = mf_funcindex_at(x, i, &offs, &n);

			if (!n || mf_funcindex_find(x, name, &found) != n || found != offs)
				abort();
		}
		mf_funcindex_free(x);
	}
	free(copy);
	return 0;
}
