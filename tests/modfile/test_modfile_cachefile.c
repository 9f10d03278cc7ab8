/* The on-disk cache files (cachefile.c) trust only what the effective user
 * alone can write: the directory is created 0700 and its files 0600; a
 * directory or file of another user, writable by group or others, or
 * reached through a symbolic link is ignored (and a file of that kind is
 * replaced by the next store); gs_cache_dir_check() says why. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/modfile.h>

#include "base.h"
#include "mf_int.h"

#define NOBODY 65534
#define EXT ".test"

static const uint8_t id[] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
static const char body[] = "cached bytes";

struct cache {
	char root[64]; /* ours, 0700, removed at the end */
	char dir[128]; /* root/cache: the cache directory */
	char file[192]; /* dir/deadbeef01.test */
};

static int cache_setup(void **state)
{
	struct cache *c = calloc(1, sizeof(*c));

	snprintf(c->root, sizeof(c->root), "/tmp/gs-cachefile-XXXXXX");
	if (!c || !mkdtemp(c->root))
		return -1;
	snprintf(c->dir, sizeof(c->dir), "%s/cache", c->root);
	snprintf(c->file, sizeof(c->file), "%s/deadbeef01" EXT, c->dir);
	*state = c;
	return 0;
}

static int cache_teardown(void **state)
{
	struct cache *c = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->root);
	free(c);
	return system(cmd) == 0 ? 0 : -1;
}

static void store(const char *dir)
{
	const struct mf_cache_part part = { body, sizeof(body) };

	mf_cache_store(dir, id, sizeof(id), EXT, &part, 1);
}

/* What mf_cache_open gives: the stored bytes (true), or nothing. */
static bool reads_back(const char *dir)
{
	char buf[sizeof(body)];
	uint64_t size = 0;
	int fd = mf_cache_open(dir, id, sizeof(id), EXT, &size);
	bool ok;

	if (fd < 0)
		return false;
	ok = size == sizeof(body) && mf_cache_read(fd, buf, sizeof(buf)) &&
	     memcmp(buf, body, sizeof(body)) == 0;
	close(fd);
	return ok;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* gs_cache_dir_check refuses dir with a message holding each needle. */
static void expect_distrusted(const char *dir, const char *n1, const char *n2)
{
	struct gs_error err = { 0 };

	assert_int_equal(gs_cache_dir_check(dir, &err), -EPERM);
	if (!strstr(err.msg, dir) || !strstr(err.msg, n1) || (n2 && !strstr(err.msg, n2)))
		fail_msg("message '%s' lacks the directory, '%s' or '%s'", err.msg, n1,
			 n2 ? n2 : "");
}

#define NEED_ROOT()                 \
	do {                        \
		if (geteuid() != 0) \
			skip();     \
	} while (0)

static void test_store_creates_the_directory_0700_and_files_0600(void **state)
{
	struct cache *c = *state;
	char nested[192];
	struct gs_error err = { 0 };

	snprintf(nested, sizeof(nested), "%s/a/b", c->dir);
	/* absent: acceptable, the first store makes it */
	assert_int_equal(gs_cache_dir_check(nested, &err), 0);
	umask(022);
	store(nested);
	assert_true(reads_back(nested));
	assert_int_equal(mode_of(c->dir), 0700);
	assert_int_equal(mode_of(nested), 0700);
	snprintf(nested, sizeof(nested), "%s/a/b/deadbeef01" EXT, c->dir);
	assert_int_equal(mode_of(nested), 0600);
	snprintf(nested, sizeof(nested), "%s/a/b", c->dir);
	assert_int_equal(gs_cache_dir_check(nested, &err), 0);
}

static void test_directory_writable_by_others_is_ignored(void **state)
{
	struct cache *c = *state;
	static const mode_t modes[] = { 0777, 0770, 0702 };

	for (size_t i = 0; i < BASE_ARRAY_SIZE(modes); i++) {
		store(c->dir);
		assert_true(reads_back(c->dir));
		assert_int_equal(chmod(c->dir, modes[i]), 0);
		assert_false(reads_back(c->dir));
		expect_distrusted(c->dir, "writable by", "chmod 700");
		/* nothing is written there either */
		assert_int_equal(unlink(c->file), 0);
		store(c->dir);
		assert_int_equal(access(c->file, F_OK), -1);
		assert_int_equal(chmod(c->dir, 0700), 0);
	}
}

static void test_directory_of_another_user_is_ignored(void **state)
{
	struct cache *c = *state;

	NEED_ROOT();
	store(c->dir);
	assert_int_equal(chown(c->dir, NOBODY, NOBODY), 0);
	assert_false(reads_back(c->dir));
	expect_distrusted(c->dir, "belongs to uid 65534", "chown it");
	assert_int_equal(chown(c->dir, 0, 0), 0);
	assert_true(reads_back(c->dir));
}

/* A file in a good directory that someone else could have written (left
 * from when the directory was open to them) is not read, and the next
 * store replaces it with the user's own. */
static void test_file_of_another_user_is_ignored_and_replaced(void **state)
{
	struct cache *c = *state;
	struct stat st;

	NEED_ROOT();
	store(c->dir);
	assert_int_equal(chown(c->file, NOBODY, NOBODY), 0);
	assert_false(reads_back(c->dir));
	store(c->dir);
	assert_int_equal(stat(c->file, &st), 0);
	assert_int_equal(st.st_uid, geteuid());
	assert_true(reads_back(c->dir));
}

static void test_file_writable_by_others_is_ignored(void **state)
{
	struct cache *c = *state;

	store(c->dir);
	assert_int_equal(chmod(c->file, 0666), 0);
	assert_false(reads_back(c->dir));
	assert_int_equal(chmod(c->file, 0620), 0);
	assert_false(reads_back(c->dir));
	assert_int_equal(chmod(c->file, 0600), 0);
	assert_true(reads_back(c->dir));
}

/* Links are not followed: the file, or the directory itself. */
static void test_symbolic_links_are_ignored(void **state)
{
	struct cache *c = *state;
	char elsewhere[192], link_dir[192];

	store(c->dir);
	snprintf(elsewhere, sizeof(elsewhere), "%s/real", c->root);
	assert_int_equal(rename(c->file, elsewhere), 0);
	assert_int_equal(symlink(elsewhere, c->file), 0);
	assert_false(reads_back(c->dir));
	assert_int_equal(unlink(c->file), 0);
	assert_int_equal(rename(elsewhere, c->file), 0);
	assert_true(reads_back(c->dir));
	snprintf(link_dir, sizeof(link_dir), "%s/link", c->root);
	assert_int_equal(symlink(c->dir, link_dir), 0);
	assert_false(reads_back(link_dir));
	expect_distrusted(link_dir, "is a symbolic link", "real path");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_creates_the_directory_0700_and_files_0600,
						cache_setup, cache_teardown),
		cmocka_unit_test_setup_teardown(test_directory_writable_by_others_is_ignored,
						cache_setup, cache_teardown),
		cmocka_unit_test_setup_teardown(test_directory_of_another_user_is_ignored,
						cache_setup, cache_teardown),
		cmocka_unit_test_setup_teardown(test_file_of_another_user_is_ignored_and_replaced,
						cache_setup, cache_teardown),
		cmocka_unit_test_setup_teardown(test_file_writable_by_others_is_ignored,
						cache_setup, cache_teardown),
		cmocka_unit_test_setup_teardown(test_symbolic_links_are_ignored, cache_setup,
						cache_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
