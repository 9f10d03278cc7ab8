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

#endif /* GS_TEST_GOLDEN_H */
