/* libFuzzer target for the static checker: any bytes, read as an array of
 * instructions, must give a verdict (with or without notes and an error
 * struct) without crashing, reading out of bounds or leaking. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gs/asm.h>

#include "smoke.h"

static const char *const note_texts[] = {
	NULL, "", "prologue", "reserve check", "%s %n %d: a note with printf directives",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size / sizeof(struct bpf_insn), i;
	/* Exactly n instructions, so a read past the end is caught. */
	struct bpf_insn *insns = malloc(n * sizeof(*insns) + 1);
	const char **notes = malloc(n * sizeof(*notes) + 1);
	struct gs_error plain, noted;
	int r1, r2, r3;

	if (!insns || !notes)
		abort();
	memcpy(insns, data, n * sizeof(*insns));
	for (i = 0; i < n; i++)
		notes[i] = note_texts[data[i * sizeof(*insns)] % 5];

	r1 = gs_check(insns, n, NULL, &plain);
	r2 = gs_check(insns, n, notes, &noted);
	r3 = gs_check(insns, n, notes, NULL);
	/* Notes change the message, never the verdict. */
	if (r1 != r2 || r2 != r3 || (r1 != 0 && r1 != -EINVAL))
		abort();
	if (r1 && (plain.code != r1 || !plain.msg[0] || !noted.msg[0]))
		abort();
	if (!r1 && (plain.code || plain.msg[0]))
		abort();

	free(notes);
	free(insns);
	return 0;
}
