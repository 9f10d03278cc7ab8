/* Fuzzy path matching for the file picker (fuzzy.h). The best alignment of
 * the query in the path is found by dynamic programming over (query char,
 * path position), O(query * path): every matched character scores a base,
 * plus a bonus where it starts a word (path start, after '/', '_', '-',
 * '.', a camel hump), lies in the base name, or follows the previous match
 * directly; each path character skipped between matches costs a point,
 * and the path's length a little, so short, tight matches rank first. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzy.h"

#define FUZZY_MATCH 16      /* each character matched */
#define FUZZY_START 10      /* path start or after '/': a component starts */
#define FUZZY_WORD 8        /* after '_', '-', '.', ' ' */
#define FUZZY_CAMEL 7       /* an upper-case letter after a lower-case one */
#define FUZZY_BASENAME 6    /* in the file's base name */
#define FUZZY_RUN 6         /* right after the previous match */
#define FUZZY_GAP 1         /* each character skipped between matches */
#define FUZZY_LENGTH_DIV 4  /* the path's length / this, off the total */
#define FUZZY_NONE (-1000000000L)

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* What matching path[j] is worth apart from runs and gaps. */
static long bonus(const char *path, size_t j, size_t base)
{
	char prev = j ? path[j - 1] : '/', c = path[j];
	long b = FUZZY_MATCH;

	if (prev == '/')
		b += FUZZY_START;
	else if (prev == '_' || prev == '-' || prev == '.' || prev == ' ')
		b += FUZZY_WORD;
	else if (prev >= 'a' && prev <= 'z' && c >= 'A' && c <= 'Z')
		b += FUZZY_CAMEL;
	if (j >= base)
		b += FUZZY_BASENAME;
	return b;
}

static long max2(long a, long b)
{
	return a > b ? a : b;
}

/* One row of the table: cur[j] is the best score of query[0..i] with
 * query[i] matched at path[j], from prev (row i - 1; NULL for row 0). */
static void row(const char *path, size_t n, size_t base, char q, const long *prev, long *cur)
{
	long reach = FUZZY_NONE; /* best prev[j'] - gaps, j' < j */

	for (size_t j = 0; j < n; j++) {
		long here = FUZZY_NONE;

		if (prev && j > 0)
			reach = max2(reach == FUZZY_NONE ? FUZZY_NONE : reach - FUZZY_GAP, prev[j - 1]);
		if (lower(path[j]) == q && !prev) {
			here = bonus(path, j, base);
		} else if (lower(path[j]) == q && reach != FUZZY_NONE) {
			long run = prev[j - 1] != FUZZY_NONE ? prev[j - 1] + FUZZY_RUN : FUZZY_NONE;

			here = max2(reach, run) + bonus(path, j, base);
		}
		cur[j] = here;
	}
}

long tui_fuzzy_score(const char *query, const char *path)
{
	size_t m = strlen(query), n = strlen(path), base;
	const char *slash = strrchr(path, '/');
	long *a, *b, best = FUZZY_NONE;

	if (!m)
		return 0;
	if (m > n)
		return -1;
	base = slash ? (size_t)(slash - path) + 1 : 0;
	a = malloc(n * sizeof(*a));
	b = malloc(n * sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	row(path, n, base, lower(query[0]), NULL, a);
	for (size_t i = 1; i < m; i++) {
		long *t;

		row(path, n, base, lower(query[i]), a, b);
		t = a, a = b, b = t;
	}
	for (size_t j = 0; j < n; j++)
		best = max2(best, a[j]);
	free(a);
	free(b);
	if (best == FUZZY_NONE)
		return -1;
	best -= (long)(n / FUZZY_LENGTH_DIV);
	return best > 0 ? best : 0;
}

struct ranked {
	size_t idx, len;
	long score;
};

static int by_rank(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

size_t tui_fuzzy_rank(const char *query, const char *const *paths, size_t n, size_t *out,
		      size_t max)
{
	struct ranked *r = malloc((n ? n : 1) * sizeof(*r));
	size_t k = 0;

	if (!r)
		return 0;
	for (size_t i = 0; i < n; i++) {
		long s = tui_fuzzy_score(query, paths[i]);

		if (s >= 0)
			r[k++] = (struct ranked){ .idx = i, .len = strlen(paths[i]), .score = s };
	}
	/* The index breaks the last tie, so qsort's instability is moot. */
	qsort(r, k, sizeof(*r), by_rank);
	if (k > max)
		k = max;
	for (size_t i = 0; i < k; i++)
		out[i] = r[i].idx;
	free(r);
	return k;
}
