/* Golden files: expected text kept under tests/golden/, compared with what a
 * test produced. GS_UPDATE_GOLDEN=1 rewrites them instead; review the diff
 * (git diff tests/golden) before committing. */
#ifndef GS_TEST_GOLDEN_H
#define GS_TEST_GOLDEN_H

/* Compares `actual` with tests/golden/<name>.txt under $GS_SOURCE_DIR.
 * Returns 0 when equal (or rewritten), -1 after printing a unified diff or
 * the reason the file could not be read. */
int gs_golden_check(const char *name, const char *actual);

#endif /* GS_TEST_GOLDEN_H */
