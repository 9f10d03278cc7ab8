/* libFuzzer target for CPython line tables (pylines.c): the table comes
 * from a traced process's memory, so any bytes, with any version, first
 * line and offset, give a line or a refusal, reading nothing past the
 * table. Input: the minor version (byte 0, 8 + b % 6), the offset (bytes
 * 1-4), the first line (bytes 5-6), then the table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/python.h>

#include "smoke.h"

#define HEAD 7

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t minor, *table;
	uint32_t offset;
	uint16_t first;
	size_t n;
	int line = 0, rc;

	if (size < HEAD)
		return 0;
	minor = (uint8_t)(GS_PY_MINOR_FIRST + data[0] % (GS_PY_MINOR_LAST - GS_PY_MINOR_FIRST + 1));
	memcpy(&offset, data + 1, 4);
	memcpy(&first, data + 5, 2);
	n = size - HEAD;
	/* exactly n bytes: ASan sees a read past them */
	table = malloc(n ? n : 1);
	if (!table)
		return 0;
	memcpy(table, data + HEAD, n);
	rc = gs_py_addr2line(minor, table, n, first, offset, &line);
	if (rc != 0 && rc != -ERANGE && rc != -EINVAL)
		abort();
	/* 3.8 and 3.9 give any offset a line */
	if (minor <= 9 && rc == -ERANGE)
		abort();
	free(table);
	return 0;
}
