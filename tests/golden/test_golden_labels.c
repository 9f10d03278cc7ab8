/* Every golden file names each label once: a reader (and a verifier error)
 * can then tell which of a program's jump targets is meant; and every jump
 * names a label of its program. Checks the files kept under tests/golden/,
 * and the checker itself on sample text. */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "golden/golden.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (text = malloc((size_t)len + 1)) && fread(text, 1, (size_t)len, f) == (size_t)len)
		text[len] = '\0';
	else
		text = (free(text), NULL);
	fclose(f);
	return text;
}

/* Each file also names only labels of its own program at its jumps: its
 * indexed form (gs_golden_indexed) can be rebuilt from it. */
static void test_no_golden_file_repeats_a_label_name(void **state)
{
	const char *src = getenv("GS_SOURCE_DIR");
	char dir[4096], path[8192], label[128];
	struct dirent *de;
	DIR *d;
	int files = 0, bad = 0;

	(void)state;
	assert_non_null(src);
	snprintf(dir, sizeof(dir), "%s/tests/golden", src);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *text, *indexed, why[256];
		int repeats;

		if (n < 5 || strcmp(de->d_name + n - 4, ".txt") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		text = slurp(path);
		assert_non_null(text);
		repeats = gs_golden_repeated_label(text, label, sizeof(label));
		if (repeats) {
			fprintf(stderr, "%s: %d repeated label lines, the first '%s'\n", path,
				repeats, label);
			bad++;
		}
		/* A file of no instruction in the label form would pass unchanged. */
		indexed = gs_golden_indexed(text, why, sizeof(why));
		if (!indexed || strcmp(indexed, text) == 0) {
			fprintf(stderr, "%s: %s\n", path, indexed ? "no instruction in the label "
				"form (an index column?)" : why);
			bad++;
		}
		files++;
		free(indexed);
		free(text);
	}
	closedir(d);
	assert_true(files > 0);
	assert_int_equal(bad, 0);
}

static void test_repeated_label_line_is_found(void **state)
{
	char label[32];

	(void)state;
	assert_int_equal(gs_golden_repeated_label("s1.read_ok:\n    (b7) r0 = 0\n"
						  "s2.read_ok:\n; step program x\n"
						  "s1.read_ok:\n    (95) exit\n",
						  label, sizeof(label)), 1);
	assert_string_equal(label, "s1.read_ok");
}

static void test_instructions_and_notes_are_not_labels(void **state)
{
	char label[32];

	(void)state;
	assert_int_equal(gs_golden_repeated_label("exit:\n    (95) exit\n    (95) exit\n"
						  "; note:\n; note:\n", label, sizeof(label)), 0);
	assert_string_equal(label, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_golden_file_repeats_a_label_name),
		cmocka_unit_test(test_repeated_label_line_is_found),
		cmocka_unit_test(test_instructions_and_notes_are_not_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
