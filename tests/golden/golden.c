/* Golden-file comparison for the golden suite. The diff is left to diff(1)
 * (diffutils is an essential Debian package) so a failing test shows the
 * same unified diff a reviewer would read in git. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "golden.h"

#define DUMP_INDENT "    " /* an instruction line of the label form (src/asm/dump.c) */
#define NOTE_COLUMN 56     /* where dump.c starts `; note` on a shorter line */

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

/* Instructions are indented, comment lines start with ';'. */
static bool is_label_line(const char *p, size_t len)
{
	return len > 1 && p[0] != ' ' && p[0] != ';' && p[len - 1] == ':';
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

		if (is_label_line(p, len)) {
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

/* ---- the round trip: label form back to the indexed form ---------------- */

/* An instruction line of the label form, cut into its parts. */
struct insn_line {
	struct line text;   /* the instruction, without indent and padding */
	struct line note;   /* after `; ` (s NULL: no note) */
	struct line target; /* the name in `goto <name>` and the like (s NULL: none) */
	size_t slots;       /* 2 for a whole ld_imm64 */
};

static bool is_insn_line(const char *p, size_t len)
{
	size_t n = strlen(DUMP_INDENT);

	return len > n && memcmp(p, DUMP_INDENT, n) == 0 && p[n] == '(';
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* The words after which dump.c prints a target as `<name>` (disasm.c). */
static const char *const jump_words[] = { " goto", " gotol", " call", " subprog" };

static struct insn_line insn_parse(const char *p, size_t len)
{
	struct insn_line l = { { p + strlen(DUMP_INDENT), len - strlen(DUMP_INDENT) } };
	const char *t = l.text.s;

	/* The note follows the padding: one space at least, then "; ". */
	for (size_t k = 0; k + 2 < l.text.len; k++) {
		if (t[k] == ' ' && t[k + 1] == ';' && t[k + 2] == ' ') {
			l.note = (struct line){ t + k + 3, l.text.len - k - 3 };
			l.text.len = k;
			break;
		}
	}
	while (l.text.len && t[l.text.len - 1] == ' ')
		l.text.len--;
	l.slots = base_has_prefix(t, "(18) ") && !base_has_prefix(t, "(18) invalid:") ? 2 : 1;
	if (l.text.len && t[l.text.len - 1] == '>') {
		const char *q = memrchr(t, '<', l.text.len);

		for (size_t k = 0; q && k < BASE_ARRAY_SIZE(jump_words); k++) {
			if (q > t && q[-1] == ' ' && ends_with(t, (size_t)(q - 1 - t), jump_words[k])) {
				l.target = (struct line){ q + 1, (size_t)(t + l.text.len - 1 - (q + 1)) };
				break;
			}
		}
	}
	return l;
}

/* A label line's name and the index of the instruction it stands before. */
struct label_at {
	struct line name;
	size_t insn;
};

static int label_at_cmp(const void *x, const void *y)
{
	return line_cmp(&((const struct label_at *)x)->name, &((const struct label_at *)y)->name);
}

struct label_key {
	const struct label_at *labels;
	struct line name;
};

static bool label_below(const void *ctx, size_t i)
{
	const struct label_key *k = ctx;

	return line_cmp(&k->labels[i].name, &k->name) < 0;
}

/* One program: the lines [first, end) of lines[]; its labels first, then
 * its lines in the indexed form. */
static int program_indexed(const struct line *lines, size_t first, size_t end, FILE *out,
			   char *why, size_t size)
{
	struct label_at *labels = malloc((end - first + 1) * sizeof(*labels));
	size_t nlabels = 0, insn = 0;
	int rc = 0;

	if (!labels) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	for (size_t i = first; i < end; i++) {
		if (is_label_line(lines[i].s, lines[i].len))
			labels[nlabels++] = (struct label_at){ { lines[i].s, lines[i].len - 1 }, insn };
		else
			insn += insn_parse(lines[i].s, lines[i].len).slots;
	}
	qsort(labels, nlabels, sizeof(*labels), label_at_cmp);
	insn = 0;
	for (size_t i = first; i < end && !rc; i++) {
		const struct line *ln = &lines[i];
		struct insn_line l;
		int col;

		if (is_label_line(ln->s, ln->len)) {
			/* A local label exists only in the label form. */
			if (!memchr(ln->s, '~', ln->len))
				fprintf(out, "%.*s\n", (int)ln->len, ln->s);
			continue;
		}
		l = insn_parse(ln->s, ln->len);
		col = fprintf(out, "%5zu: ", insn);
		if (!l.target.s) {
			col += fprintf(out, "%.*s", (int)l.text.len, l.text.s);
		} else {
			struct label_key key = { labels, l.target };
			size_t k = base_lower_bound(0, nlabels, &key, label_below);
			bool local = memchr(l.target.s, '~', l.target.len) != NULL;
			size_t head = (size_t)(l.target.s - 1 - l.text.s);

			if (k == nlabels || line_cmp(&labels[k].name, &l.target)) {
				snprintf(why, size, "instruction %zu jumps to <%.*s>, which labels no "
					 "instruction of its program", insn, (int)l.target.len,
					 l.target.s);
				rc = -1;
				break;
			}
			col += fprintf(out, "%.*spc%+lld", (int)head, l.text.s,
				       (long long)labels[k].insn - (long long)(insn + 1));
			if (!local)
				col += fprintf(out, " <%.*s>", (int)l.target.len, l.target.s);
		}
		if (l.note.s)
			fprintf(out, "%*s; %.*s", col < NOTE_COLUMN ? NOTE_COLUMN - col : 1, "",
				(int)l.note.len, l.note.s);
		fputc('\n', out);
		insn += l.slots;
	}
	free(labels);
	return rc;
}

char *gs_golden_indexed(const char *text, char *why, size_t size)
{
	struct line *lines = NULL;
	size_t n = 0, cap = 0, first = 0;
	char *s = NULL;
	size_t len = 0;
	FILE *out;
	int rc = 0;

	if (size)
		why[0] = '\0';
	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (n == cap) {
			struct line *more = realloc(lines, (cap = cap ? 2 * cap : 1024) * sizeof(*lines));

			if (!more) {
				free(lines);
				snprintf(why, size, "out of memory");
				return NULL;
			}
			lines = more;
		}
		lines[n++] = (struct line){ p, l };
		p += l + (end != NULL);
	}
	out = open_memstream(&s, &len);
	if (!out) {
		free(lines);
		snprintf(why, size, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i <= n && !rc; i++) {
		if (i < n && (is_label_line(lines[i].s, lines[i].len) ||
			      is_insn_line(lines[i].s, lines[i].len)))
			continue;
		rc = program_indexed(lines, first, i, out, why, size);
		if (i < n)
			fprintf(out, "%.*s\n", (int)lines[i].len, lines[i].s);
		first = i + 1;
	}
	free(lines);
	if (fclose(out) || rc) {
		if (!rc)
			snprintf(why, size, "out of memory");
		free(s);
		return NULL;
	}
	return s;
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
