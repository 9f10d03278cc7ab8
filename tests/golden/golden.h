/* Golden files: expected text kept under tests/golden/, compared with what a
 * test produced. GS_UPDATE_GOLDEN=1 rewrites them instead; review the diff
 * (git diff tests/golden) before committing. */
#ifndef GS_TEST_GOLDEN_H
#define GS_TEST_GOLDEN_H

#include <stddef.h>

/* Compares `actual` with tests/golden/<name>.txt under $GS_SOURCE_DIR.
 * Returns 0 when equal (or rewritten), -1 after printing a unified diff or
 * the reason the file could not be read. */
int gs_golden_check(const char *name, const char *actual);

/* The first label line (`name:` at column 0) that `text` repeats, copied
 * into name (truncated to size), and how many label lines repeat one
 * before them: 0 when every label of the dump reads differently. */
int gs_golden_repeated_label(const char *text, char *name, size_t size);

/* The round trip of the label form (gs_asm_dump): the same text in the
 * indexed form (gs_asm_dump_flags with GS_DUMP_INDEXED), its labels
 * resolved back to offsets: an index column, `pc+N <name>` for every
 * `<name>` a jump names (`pc+N` alone for a local label, `name~N`, whose
 * line goes), notes padded again. Lines that are neither labels nor
 * instructions (`; step program x`, blank) pass unchanged and start the
 * next program, whose indices start at 0. A malloc'd string, or NULL with
 * the reason in why (a jump to a label its program lacks; no memory). */
char *gs_golden_indexed(const char *text, char *why, size_t size);

#endif /* GS_TEST_GOLDEN_H */
