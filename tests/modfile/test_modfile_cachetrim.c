/* The on-disk cache's size (cachetrim.c): trimming removes the least
 * recently used files first until the rest fit the cap, a read marks a
 * file used, one trim runs at a time per directory, another run's store
 * under way is left alone, and only the names the cache writes are
 * counted, trimmed or cleared: links, directories, other names and
 * overlong names are neither followed nor removed. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/modfile.h>

#include "base.h"
#include "mf_int.h"

struct dir {
	char root[64];  /* ours, removed at the end */
	char path[128]; /* root/cache, 0700 */
};

static int dir_setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->root, sizeof(d->root), "/tmp/gs-cachetrim-XXXXXX");
	if (!mkdtemp(d->root))
		return -1;
	snprintf(d->path, sizeof(d->path), "%s/cache", d->root);
	if (mkdir(d->path, 0700))
		return -1;
	*state = d;
	return 0;
}

static int dir_teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->root);
	free(d);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(const struct dir *d, const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", d->path, name);
}

/* A file of n bytes in the cache directory, last used age seconds ago. */
static void put(const struct dir *d, const char *name, size_t n, int age)
{
	char p[512], buf[4096] = { 0 };
	struct timespec t[2];
	int fd;

	path_of(d, name, p, sizeof(p));
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t k = 0; k < n; k += sizeof(buf))
		assert_true(write(fd, buf, n - k < sizeof(buf) ? n - k : sizeof(buf)) > 0);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	assert_int_equal(futimens(fd, t), 0);
	close(fd);
}

static bool there(const struct dir *d, const char *name)
{
	char p[512];
	struct stat st;

	path_of(d, name, p, sizeof(p));
	return lstat(p, &st) == 0;
}

static struct gs_cache_usage usage(const struct dir *d)
{
	struct gs_cache_usage u;
	struct gs_error err = { 0 };

	if (gs_cache_usage_of(d->path, &u, &err))
		fail_msg("gs_cache_usage_of: %s", err.msg);
	return u;
}

static void test_trim_removes_least_recently_used_first(void **state)
{
	struct dir *d = *state;
	struct gs_cache_usage gone;
	struct gs_error err = { 0 };

	put(d, "aa01.cfi", 1000, 400);
	put(d, "aa02.funcs", 1000, 300);
	put(d, "aa03.debug", 1000, 200);
	put(d, "aa04.cfi", 1000, 100);
	assert_int_equal(gs_cache_trim(d->path, 2500, &gone, &err), 0);
	assert_false(there(d, "aa01.cfi"));
	assert_false(there(d, "aa02.funcs"));
	assert_true(there(d, "aa03.debug"));
	assert_true(there(d, "aa04.cfi"));
	assert_int_equal(gone.total_files, 2);
	assert_int_equal(gone.total_bytes, 2000);
	assert_int_equal(gone.files[GS_CACHE_CFI], 1);
	assert_int_equal(gone.files[GS_CACHE_INDEX], 1);
}

static void test_trim_respects_the_cap_and_leaves_a_fitting_cache_alone(void **state)
{
	struct dir *d = *state;
	struct gs_cache_usage gone;

	for (int i = 0; i < 20; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%04x.cfi", i);
		put(d, name, 4096 + (size_t)i * 100, 1000 - i);
	}
	assert_int_equal(gs_cache_trim(d->path, 1ull << 30, &gone, NULL), 0);
	assert_int_equal(gone.total_files, 0);
	assert_int_equal(usage(d).total_files, 20);
	assert_int_equal(gs_cache_trim(d->path, 30000, &gone, NULL), 0);
	assert_true(usage(d).total_bytes <= 30000);
	assert_true(usage(d).total_bytes + 6000 > 30000); /* no more than needed */
	assert_true(there(d, "0013.cfi")); /* the newest */
	assert_false(there(d, "0000.cfi"));
}

/* What mf_cache_open reads is marked used: a trim then keeps it over a
 * file used more recently before. */
static void test_a_hit_marks_the_file_used(void **state)
{
	struct dir *d = *state;
	static const uint8_t old_id[] = { 0xaa, 0x01 };
	uint64_t size;
	int fd;

	put(d, "aa01.cfi", 1000, 3600); /* read below */
	put(d, "aa02.cfi", 1000, 1800);
	fd = mf_cache_open(d->path, old_id, sizeof(old_id), MF_CACHE_EXT_CFI, &size);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gs_cache_trim(d->path, 1500, NULL, NULL), 0);
	assert_true(there(d, "aa01.cfi"));
	assert_false(there(d, "aa02.cfi"));
	assert_true(usage(d).newest_ns / 1000000000ll + 5 >= (int64_t)time(NULL));
}

/* A trim that finds the lock taken (another run trimming) does nothing;
 * a clear waits a while, then says so. */
static void test_a_trim_under_way_elsewhere_is_not_joined(void **state)
{
	struct dir *d = *state;
	struct gs_error err = { 0 };
	char p[512];
	int lock;

	put(d, "aa01.cfi", 1000, 100);
	path_of(d, "gstrace.lock", p, sizeof(p));
	lock = open(p, O_RDWR | O_CREAT, 0600);
	assert_true(lock >= 0);
	assert_int_equal(flock(lock, LOCK_EX), 0);
	assert_int_equal(gs_cache_trim(d->path, 1, NULL, &err), -EAGAIN);
	assert_non_null(strstr(err.msg, "another gstrace is trimming"));
	assert_int_equal(gs_cache_clear(d->path, NULL, NULL), -EAGAIN);
	assert_true(there(d, "aa01.cfi"));
	close(lock);
	assert_int_equal(gs_cache_trim(d->path, 1, NULL, NULL), 0);
	assert_false(there(d, "aa01.cfi"));
}

/* Processes trimming one directory at once: each file removed once, the
 * cap met, no trim failing otherwise than by skipping. */
static void test_concurrent_trims_are_safe(void **state)
{
	struct dir *d = *state;
	pid_t kids[4];
	uint64_t removed = 0;
	int st;

	for (int i = 0; i < 200; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%04x.funcs", i);
		put(d, name, 1000, 1000 - i);
	}
	for (size_t k = 0; k < BASE_ARRAY_SIZE(kids); k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0) {
			struct gs_cache_usage gone = { 0 };
			int rc = gs_cache_trim(d->path, 50000, &gone, NULL);

			_exit(rc == 0 || rc == -EAGAIN ? (int)gone.total_files % 256 : 255);
		}
	}
	for (size_t k = 0; k < BASE_ARRAY_SIZE(kids); k++) {
		assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 255);
		removed += (uint64_t)WEXITSTATUS(st);
	}
	/* a skipped trim leaves work to the next: finish it, then count */
	assert_int_equal(gs_cache_trim(d->path, 50000, NULL, NULL), 0);
	assert_int_equal(usage(d).total_files, 50);
	assert_true(removed <= 150);
	assert_true(there(d, "00c7.funcs"));
	assert_false(there(d, "0000.funcs"));
}

/* A temporary file is a store under way until GS_CACHE_TEMP_AGE_S old:
 * neither a trim nor a clear removes it before; after, it is a dead run's. */
static void test_temporary_files_of_other_runs_are_left_alone(void **state)
{
	struct dir *d = *state;
	struct gs_cache_usage gone;

	put(d, "aa01.cfi.4242.0badf00d", 5000, 5);
	put(d, "aa02.debug.77.12345678", 5000, GS_CACHE_TEMP_AGE_S + 60);
	put(d, "aa03.cfi", 100, 3);
	assert_int_equal(usage(d).files[GS_CACHE_TEMP], 2);
	assert_int_equal(gs_cache_trim(d->path, 1000, &gone, NULL), 0);
	assert_true(there(d, "aa01.cfi.4242.0badf00d"));
	assert_false(there(d, "aa02.debug.77.12345678"));
	assert_true(there(d, "aa03.cfi")); /* temporary bytes do not count */
	assert_int_equal(gone.files[GS_CACHE_TEMP], 1);
	assert_int_equal(gs_cache_clear(d->path, &gone, NULL), 0);
	assert_true(there(d, "aa01.cfi.4242.0badf00d"));
	assert_false(there(d, "aa03.cfi"));
}

/* Clearing removes the cache's own names only; a hostile directory
 * (links to files elsewhere, directories and odd or overlong names) is
 * neither followed nor emptied. */
static void test_clear_removes_only_the_caches_files(void **state)
{
	struct dir *d = *state;
	static const char *const kept[] = {
		"notes.txt", "AA01.cfi", "a01.cfi", "aa01.cfi.bak", "aa01.cfi.1.xyz",
		"aa01.so", ".cfi", "aa01.cfi.12.0badf00",
	};
	char outside[192], link[512], sub[512], huge[300];
	struct gs_cache_usage gone;

	put(d, "aa01.cfi", 10, 10);
	put(d, "bb02.funcs", 10, 10);
	put(d, "cc03.debug", 10, 10);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(kept); i++)
		put(d, kept[i], 10, 10000);
	memset(huge, 'a', 250);
	strcpy(huge + 250, ".cfi");
	put(d, huge, 10, 10000);
	snprintf(outside, sizeof(outside), "%s/precious", d->root);
	assert_int_equal(close(open(outside, O_WRONLY | O_CREAT, 0600)), 0);
	path_of(d, "dd04.debug", link, sizeof(link));
	assert_int_equal(symlink(outside, link), 0);
	path_of(d, "ee05.cfi", sub, sizeof(sub));
	assert_int_equal(mkdir(sub, 0700), 0);
	path_of(d, "ee05.cfi/ff06.cfi", sub, sizeof(sub));
	assert_int_equal(close(open(sub, O_WRONLY | O_CREAT, 0600)), 0);

	assert_int_equal(usage(d).total_files, 3);
	assert_int_equal(gs_cache_clear(d->path, &gone, NULL), 0);
	assert_int_equal(gone.total_files, 3);
	assert_int_equal(gone.files[GS_CACHE_DEBUG], 1);
	assert_false(there(d, "aa01.cfi"));
	assert_false(there(d, "bb02.funcs"));
	assert_false(there(d, "cc03.debug"));
	for (size_t i = 0; i < BASE_ARRAY_SIZE(kept); i++)
		if (!there(d, kept[i]))
			fail_msg("%s was removed", kept[i]);
	assert_true(there(d, huge));
	assert_true(there(d, "dd04.debug"));
	assert_true(there(d, "ee05.cfi/ff06.cfi"));
	assert_int_equal(access(outside, F_OK), 0);
}

static void test_an_untrusted_or_absent_directory_is_not_touched(void **state)
{
	struct dir *d = *state;
	struct gs_error err = { 0 };
	struct gs_cache_usage u;
	char absent[192];

	put(d, "aa01.cfi", 1000, 100);
	assert_int_equal(chmod(d->path, 0777), 0);
	assert_int_equal(gs_cache_trim(d->path, 1, NULL, &err), -EPERM);
	assert_non_null(strstr(err.msg, "chmod 700"));
	assert_int_equal(gs_cache_clear(d->path, NULL, NULL), -EPERM);
	assert_int_equal(gs_cache_usage_of(d->path, &u, NULL), -EPERM);
	assert_int_equal(chmod(d->path, 0700), 0);
	assert_true(there(d, "aa01.cfi"));
	snprintf(absent, sizeof(absent), "%s/absent", d->root);
	assert_int_equal(gs_cache_trim(absent, 1, NULL, NULL), 0);
	assert_int_equal(gs_cache_usage_of(absent, &u, NULL), 0);
	assert_int_equal(u.total_files, 0);
	assert_int_equal(access(absent, F_OK), -1); /* not created */
	assert_int_equal(gs_cache_trim("relative/dir", 1, NULL, NULL), -EINVAL);
}

/* FIFOs under the cache's names, its lock file's among them: nothing
 * blocks, nothing is removed, the trim says what to remove. */
static void test_fifos_neither_block_nor_go(void **state)
{
	struct dir *d = *state;
	struct gs_error err = { 0 };
	char p[512];

	path_of(d, "aa01.cfi", p, sizeof(p));
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(usage(d).total_files, 0);
	assert_int_equal(gs_cache_clear(d->path, NULL, NULL), 0);
	assert_true(there(d, "aa01.cfi"));
	path_of(d, "gstrace.lock", p, sizeof(p));
	assert_int_equal(unlink(p), 0); /* the clear made it */
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(gs_cache_trim(d->path, 1, NULL, &err), -EPERM);
	assert_non_null(strstr(err.msg, "gstrace.lock"));
	assert_true(there(d, "aa01.cfi"));
}

/* The end of a run trims its cache to the cap it was given. */
static void test_the_end_of_a_run_trims_to_its_cap(void **state)
{
	struct dir *d = *state;
	struct gs_modfiles_opts o = { .sz = sizeof(o), .cfi_cache_dir = d->path,
				      .cache_max_bytes = 1500 };
	struct gs_modfiles *files;

	put(d, "aa01.cfi", 1000, 200);
	put(d, "aa02.cfi", 1000, 100);
	assert_int_equal(gs_modfiles_new(&o, &files, NULL), 0);
	gs_modfiles_free(files);
	assert_false(there(d, "aa01.cfi"));
	assert_true(there(d, "aa02.cfi"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, dir_setup, dir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_trim_removes_least_recently_used_first),
		T(test_trim_respects_the_cap_and_leaves_a_fitting_cache_alone),
		T(test_a_hit_marks_the_file_used),
		T(test_a_trim_under_way_elsewhere_is_not_joined),
		T(test_concurrent_trims_are_safe),
		T(test_temporary_files_of_other_runs_are_left_alone),
		T(test_clear_removes_only_the_caches_files),
		T(test_an_untrusted_or_absent_directory_is_not_touched),
		T(test_fifos_neither_block_nor_go),
		T(test_the_end_of_a_run_trims_to_its_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
