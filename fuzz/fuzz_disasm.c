/* libFuzzer target for the disassembler: any bytes, read as an array of
 * instructions, must format at every index into buffers of any size
 * (always NUL-terminated inside them) and as a whole program. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/disasm.h>

#include "base.h"
#include "smoke.h"

static const size_t buf_sizes[] = { 0, 7, 64, 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	size_t n = size / sizeof(struct bpf_insn), i, k;
	/* Exactly n instructions, so a read past the end is caught. */
	struct bpf_insn *insns = malloc(n * sizeof(*insns) + 1);

	if (!insns)
		abort();
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	memcpy(insns, data, n * sizeof(*insns));

	for (i = 0; i < n; i++) {
		size_t slots = 0;

		for (k = 0; k < BASE_ARRAY_SIZE(buf_sizes); k++) {
			size_t bsize = buf_sizes[k];
			/* Exactly bsize bytes (none for 0), so an overflow is caught. */
			char *buf = malloc(bsize);
			size_t got;

			if (!buf && bsize)
				abort();
			got = gs_disasm_insn(insns + i, n - i, buf, bsize);
			if (got < 1 || got > 2 || got > n - i || (slots && got != slots))
				abort();
			if (bsize && strnlen(buf, bsize) >= bsize)
				abort();
			slots = got;
			free(buf);
		}
	}
	gs_disasm_prog(insns, n, devnull);

	free(insns);
	return 0;
}
