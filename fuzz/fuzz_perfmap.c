/* libFuzzer target for the perf-map reader (perfmap.c, the names of JIT
 * frames): any bytes, given whole or in two pieces split anywhere, parse
 * into the same map, and every lookup answers a name that is text, at an
 * offset inside the entry, or nothing; never a crash, an overread or a
 * leak. */
#include <stdlib.h>
#include <string.h>

#include <gs/internal/modfile.h>

#include "mf_int.h"
#include "smoke.h"

static struct gs_perfmap *parse(const uint8_t *data, size_t size, size_t split)
{
	struct gs_perfmap *m = mf_perfmap_new();

	if (!m)
		abort();
	if (mf_perfmap_feed(m, (const char *)data, split) ||
	    mf_perfmap_feed(m, (const char *)data + split, size - split) || mf_perfmap_index(m))
		abort();
	return m;
}

/* Addresses worth asking about: the hex numbers at the start of lines,
 * their neighbours, and the extremes. */
static size_t probes(const uint8_t *data, size_t size, uint64_t *out, size_t cap)
{
	size_t n = 0;

	out[n++] = 0;
	out[n++] = UINT64_MAX;
	for (size_t i = 0; i < size && n + 3 <= cap; i++) {
		uint64_t v = 0;
		size_t k = i;

		if (i && data[i - 1] != '\n')
			continue;
		for (; k < size && k - i < 16 && strchr("0123456789abcdefABCDEF", data[k]) &&
		       data[k]; k++)
			v = v << 4 | (uint64_t)(data[k] <= '9' ? data[k] - '0' : (data[k] | 0x20) - 'a' + 10);
		out[n++] = v - 1;
		out[n++] = v;
		out[n++] = v + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split = size ? data[0] % (size + 1) : 0, n;
	struct gs_perfmap *whole = parse(data, size, size), *pieces = parse(data, size, split);
	uint64_t addrs[96];

	if (gs_perfmap_count(whole) != gs_perfmap_count(pieces))
		abort();
	n = probes(data, size, addrs, sizeof(addrs) / sizeof(addrs[0]));
	for (size_t i = 0; i < n; i++) {
		uint64_t off = 0, off2 = 0;
		const char *a = gs_perfmap_lookup(whole, addrs[i], &off);
		const char *b = gs_perfmap_lookup(pieces, addrs[i], &off2);

		if (!a != !b || (a && (strcmp(a, b) || off != off2 || off > addrs[i] || !*a ||
				       strlen(a) > GS_PERFMAP_MAX_NAME)))
			abort();
	}
	gs_perfmap_free(whole);
	gs_perfmap_free(pieces);
	return 0;
}
