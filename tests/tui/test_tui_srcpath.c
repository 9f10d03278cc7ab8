/* srcpath: build-time source paths to the files on this machine, in the
 * order maps, the path itself, then search directories by trailing
 * components; checked with a fake filesystem. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "srcpath.h"

static const char *const *existing;

static int fake_exists(const char *path)
{
	for (const char *const *p = existing; *p; p++)
		if (strcmp(*p, path) == 0)
			return 0;
	return -1;
}

static void check_find(const struct tui_srcpath *p, const char *path, const char *want)
{
	char *got = tui_srcpath_find(p, path, fake_exists);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_map_then_self_then_dirs(void **state)
{
	static const char *const files[] = {
		"/home/me/src/app/main.c", "/build/app/util.c", "/opt/src/app/x.c",
		"/opt/src/y.c", NULL,
	};
	struct tui_srcpath p;

	(void)state;
	existing = files;
	tui_srcpath_init(&p);
	check_find(&p, "/build/app/main.c", NULL);
	assert_int_equal(tui_srcpath_map(&p, "/build/", "/home/me/src"), 0);
	check_find(&p, "/build/app/main.c", "/home/me/src/app/main.c");
	/* not under the map's new place: the path itself */
	check_find(&p, "/build/app/util.c", "/build/app/util.c");
	/* a prefix is a whole component: /buildx is not under /build */
	check_find(&p, "/buildx/app/main.c", NULL);
	assert_int_equal(tui_srcpath_add(&p, "/opt/src"), 0);
	/* longest tail first: /opt/src/app/x.c before /opt/src/x.c */
	check_find(&p, "/somewhere/else/app/x.c", "/opt/src/app/x.c");
	check_find(&p, "/somewhere/y.c", "/opt/src/y.c");
	check_find(&p, "relative/y.c", "/opt/src/y.c");
	tui_srcpath_fini(&p);
}

static void test_replace_and_reject(void **state)
{
	static const char *const files[] = { "/new/a.c", NULL };
	struct tui_srcpath p;

	(void)state;
	existing = files;
	tui_srcpath_init(&p);
	assert_int_equal(tui_srcpath_map(&p, "/b", "/old"), 0);
	assert_int_equal(tui_srcpath_map(&p, "/b/", "/new"), 0);
	assert_int_equal(p.nmaps, 1);
	check_find(&p, "/b/a.c", "/new/a.c");
	assert_int_equal(tui_srcpath_map(&p, "rel", "/x"), -EINVAL);
	assert_int_equal(tui_srcpath_map(&p, "/x", ""), -EINVAL);
	assert_int_equal(tui_srcpath_add(&p, "rel/dir"), -EINVAL);
	assert_int_equal(tui_srcpath_arg(&p, "/c=/new"), 0);
	assert_int_equal(p.nmaps, 2);
	assert_int_equal(tui_srcpath_arg(&p, "/dir/"), 0);
	assert_int_equal(tui_srcpath_add(&p, "/dir"), 0);
	assert_int_equal(p.ndirs, 1);
	assert_string_equal(p.dirs[0], "/dir");
	tui_srcpath_fini(&p);
}

static void test_candidates(void **state)
{
	struct tui_srcpath p;
	char *c[8];
	size_t n;

	(void)state;
	tui_srcpath_init(&p);
	tui_srcpath_map(&p, "/b", "/m");
	tui_srcpath_add(&p, "/d");
	n = tui_srcpath_candidates(&p, "/b/x/y.c", c, 8);
	assert_int_equal(n, 5);
	assert_string_equal(c[0], "/m/x/y.c");
	assert_string_equal(c[1], "/b/x/y.c");
	assert_string_equal(c[2], "/d/b/x/y.c");
	assert_string_equal(c[3], "/d/x/y.c");
	assert_string_equal(c[4], "/d/y.c");
	for (size_t i = 0; i < n; i++)
		free(c[i]);
	assert_int_equal(tui_srcpath_candidates(&p, "/b/x/y.c", c, 2), 2);
	free(c[0]);
	free(c[1]);
	tui_srcpath_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_then_self_then_dirs),
		cmocka_unit_test(test_replace_and_reject),
		cmocka_unit_test(test_candidates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
