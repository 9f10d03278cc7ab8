/* Fuzzy matching of file paths for the `o` file picker: a query matches
 * a path when its characters appear in it in order (case-insensitive);
 * matches that start words, follow '/', or run contiguously, and those in
 * the file's base name, rank first. No terminal. */
#ifndef TUI_FUZZY_H
#define TUI_FUZZY_H

#include <stddef.h>

/* The score of path for query: < 0 when it does not match, higher is
 * better. An empty query matches everything with score 0. */
long tui_fuzzy_score(const char *query, const char *path);
/* Writes into out (up to max) the indices of paths[0..n) that match,
 * best first (ties: shorter path, then path order). Returns how many. */
size_t tui_fuzzy_rank(const char *query, const char *const *paths, size_t n, size_t *out,
		      size_t max);

#endif /* TUI_FUZZY_H */
