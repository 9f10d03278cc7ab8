/* Stack counting and the flame graph: identical keys count once, the
 * folded stacks of a known profile render as an SVG that parses as XML,
 * with one frame (a <g class="f"> holding one rect) per node of the merged
 * stack tree and each frame's width its share of the samples. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/fold.h>

#include "base.h"

static void add(struct gs_counts *c, const char *stack, uint64_t n)
{
	assert_true(gs_counts_add(c, stack, strlen(stack), n, NULL) >= 0);
}

static void test_counts_merge_identical_keys_and_sort_by_count(void **state)
{
	struct gs_counts *c = gs_counts_new();
	struct gs_count *v;
	bool is_new;

	(void)state;
	assert_non_null(c);
	assert_true(gs_counts_add(c, "a;b", 3, 1, &is_new) == 0 && is_new);
	assert_true(gs_counts_add(c, "a;c", 3, 5, &is_new) == 1 && is_new);
	assert_true(gs_counts_add(c, "a;b", 3, 1, &is_new) == 0 && !is_new);
	/* a key that only shares a prefix is another key */
	assert_true(gs_counts_add(c, "a;b;", 4, 1, &is_new) == 2 && is_new);
	for (int i = 0; i < 5000; i++) { /* past several table growths */
		char k[32];

		snprintf(k, sizeof(k), "x;%d", i);
		add(c, k, 1);
	}
	assert_int_equal(gs_counts_size(c), 5003);
	assert_int_equal(gs_counts_total(c), 5008);
	v = gs_counts_sorted(c);
	assert_non_null(v);
	assert_int_equal(v[0].count, 5);
	assert_memory_equal(v[0].key, "a;c", 3);
	assert_int_equal(v[1].count, 2);
	assert_memory_equal(v[1].key, "a;b", 3);
	free(v);
	gs_counts_free(c);
}

/* The known profile: all(10) -> a(6) -> b(4) -> c(3); a -> d(2); e(4). */
static const struct { const char *name; uint64_t samples; } expected[] = {
	{ "all", 10 }, { "a", 6 }, { "b", 4 }, { "c", 3 }, { "d", 2 }, { "e", 4 },
};

/* Width of the rect in the frame whose title starts with "name (". */
static double frame_width(const char *svg, const char *name, int *frames)
{
	char title[64];
	const char *at, *w;

	snprintf(title, sizeof(title), "<title>%s (", name);
	*frames = 0;
	for (at = strstr(svg, title); at; at = strstr(at + 1, title))
		(*frames)++;
	at = strstr(svg, title);
	if (!at || !(w = strstr(at, "width=\"")))
		return -1;
	return strtod(w + 7, NULL);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_flamegraph_of_a_known_profile(void **state)
{
	struct gs_counts *c = gs_counts_new();
	char path[] = "/tmp/gs_flamegraph_XXXXXX.svg", cmd[512], *svg = NULL;
	size_t len = 0;
	FILE *f;
	int fd, rc;

	(void)state;
	add(c, "a;b;c", 3);
	add(c, "a;b", 1);
	add(c, "a;d", 2);
	add(c, "e", 4);
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	f = fdopen(fd, "w+");
	assert_int_equal(gs_flamegraph_write(c, "a <known> & profile", f), 0);
	rewind(f);
	assert_int_not_equal(getdelim(&svg, &len, '\0', f), -1);
	fclose(f);
	/* one frame, one rect per node; the background is the only other rect */
	assert_int_equal(count(svg, "<g class=\"f\""), BASE_ARRAY_SIZE(expected));
	assert_int_equal(count(svg, "<rect "), BASE_ARRAY_SIZE(expected) + 1);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(expected); i++) {
		int frames;
		double w = frame_width(svg, expected[i].name, &frames);

		assert_int_equal(frames, 1);
		/* 1180 px of frames for 10 samples */
		assert_true(w > 118.0 * (double)expected[i].samples - 0.01 &&
			    w < 118.0 * (double)expected[i].samples + 0.01);
	}
	/* self-contained: a script inside, nothing fetched */
	assert_non_null(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA["));
	assert_non_null(strstr(svg, "function zoom("));
	assert_non_null(strstr(svg, "function search("));
	assert_null(strstr(svg, "http://www.w3.org/1999/xlink"));
	assert_null(strstr(svg, "href="));
	assert_non_null(strstr(svg, "a &lt;known&gt; &amp; profile"));
	/* well-formed XML, where a parser is at hand */
	if (access("/usr/bin/python3", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; "
			 "r = E.parse(sys.argv[1]).getroot(); "
			 "sys.exit(0 if len(r.findall(\".//{http://www.w3.org/2000/svg}rect\")) == %zu "
			 "else 3)' %s", BASE_ARRAY_SIZE(expected) + 1, path);
		rc = system(cmd);
		assert_int_equal(rc, 0);
	} else {
		print_message("not parsed as XML: no /usr/bin/python3 here\n");
	}
	unlink(path);
	free(svg);
	gs_counts_free(c);
}

static void test_flamegraph_of_nothing_is_still_an_svg(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(gs_flamegraph_write(NULL, "empty", f), 0);
	fclose(f);
	assert_non_null(strstr(text, "</svg>"));
	assert_int_equal(count(text, "<g class=\"f\""), 0);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_merge_identical_keys_and_sort_by_count),
		cmocka_unit_test(test_flamegraph_of_a_known_profile),
		cmocka_unit_test(test_flamegraph_of_nothing_is_still_an_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
