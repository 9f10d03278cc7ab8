/* Golden-file comparison for the golden suite. The diff is left to diff(1)
 * (diffutils is an essential Debian package) so a failing test shows the
 * same unified diff a reviewer would read in git. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "golden.h"

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!f)
		return -errno;
	if (fputs(text, f) == EOF)
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

static void show_diff(const char *expected_path, const char *actual)
{
	char tmp[] = "/tmp/gs-golden-XXXXXX";
	char *cmd = NULL;
	int fd = mkstemp(tmp);

	if (fd < 0 || write(fd, actual, strlen(actual)) < 0) {
		fprintf(stderr, "golden: cannot write a temporary file for the diff: %s\n",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	if (asprintf(&cmd, "diff -u --label '%s' --label actual '%s' '%s' 1>&2",
		     expected_path, expected_path, tmp) < 0 || system(cmd) == -1)
		fprintf(stderr, "golden: could not run diff(1)\n");
	free(cmd);
	unlink(tmp);
}

struct line {
	const char *s;
	size_t len;
};

static int line_cmp(const void *x, const void *y)
{
	const struct line *a = x, *b = y;
	int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

int gs_golden_repeated_label(const char *text, char *name, size_t size)
{
	struct line *labels = NULL;
	size_t n = 0, cap = 0;
	int repeats = 0;

	if (size)
		name[0] = '\0';
	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		/* Instructions start with their index, notes with ';'. */
		if (len > 1 && p[0] != ' ' && p[0] != ';' && p[len - 1] == ':') {
			if (n == cap) {
				struct line *more = realloc(labels, (cap = cap ? 2 * cap : 256) *
							    sizeof(*labels));

				if (!more) {
					free(labels);
					snprintf(name, size, "(out of memory)");
					return -1;
				}
				labels = more;
			}
			labels[n++] = (struct line){ p, len - 1 };
		}
		p += len + (end != NULL);
	}
	if (n)
		qsort(labels, n, sizeof(*labels), line_cmp);
	for (size_t i = 1; i < n; i++) {
		if (line_cmp(&labels[i - 1], &labels[i]))
			continue;
		if (!repeats++)
			snprintf(name, size, "%.*s", (int)labels[i].len, labels[i].s);
	}
	free(labels);
	return repeats;
}

int gs_golden_check(const char *name, const char *actual)
{
	const char *src = getenv("GS_SOURCE_DIR");
	const char *update = getenv("GS_UPDATE_GOLDEN");
	char path[4096];
	size_t len;
	char *expected;
	int same;

	if (!src || !*src) {
		fprintf(stderr, "golden: GS_SOURCE_DIR is not set; run the test through "
				"`meson test` (it sets it) or export it to the source tree\n");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/tests/golden/%s.txt", src, name);
	{
		char label[128];
		int repeats = gs_golden_repeated_label(actual, label, sizeof(label));

		if (repeats) {
			fprintf(stderr, "golden: %s: %d label line%s repeat an earlier one (first: "
					"'%s'); a dump names each jump target once: give the label a "
					"scope (gs_asm_scope_enter)\n", name, repeats,
				repeats == 1 ? "" : "s", label);
			return -1;
		}
	}
	if (update && strcmp(update, "1") == 0) {
		int rc = write_file(path, actual);

		if (rc)
			fprintf(stderr, "golden: cannot write %s: %s\n", path, strerror(-rc));
		else
			fprintf(stderr, "golden: rewrote %s; review it with git diff\n", path);
		return rc ? -1 : 0;
	}
	expected = read_file(path, &len);
	if (!expected) {
		fprintf(stderr, "golden: cannot read %s (%s); create it with GS_UPDATE_GOLDEN=1 "
				"and review it before committing\n", path, strerror(errno));
		return -1;
	}
	same = len == strlen(actual) && memcmp(expected, actual, len) == 0;
	free(expected);
	if (same)
		return 0;
	fprintf(stderr, "golden: %s differs from the program built now:\n", path);
	show_diff(path, actual);
	fprintf(stderr, "golden: if the change is intended, rerun with GS_UPDATE_GOLDEN=1 and "
			"review the diff line by line\n");
	return -1;
}
