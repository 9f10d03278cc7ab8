/* LEB128 numbers read the way libdw reads them, for the checks that run
 * before libdw does (cfi_fde.c decoding an FDE's fields, cfi_scan.c its
 * instructions): where a number ends decides where the next field or
 * instruction starts, so both files read it here, once. */
#include <stdbool.h>
#include <stdint.h>

#include "mf_int.h"

bool mf_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned i = 0; i < 10; i++) {
		uint8_t b;

		if (*p >= end)
			return false;
		b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return true;
	}
	*v = UINT64_MAX;
	return true;
}

bool mf_read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t u = 0;

	for (unsigned i = 0; i < 10; i++) {
		uint8_t b;

		if (*p >= end)
			return false;
		b = *(*p)++;
		u |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (7 * (i + 1) < 64 && (b & 0x40))
				u |= ~0ULL << (7 * (i + 1));
			*v = (int64_t)u;
			return true;
		}
	}
	*v = INT64_MAX;
	return true;
}
