/* Module identity: SipHash-1-3 and the cookies of docs/unwind.md (its three
 * vectors), a fixture's build-id cookie recomputed from `readelf -n`, the
 * dev/inode and path-hash fallbacks, and path normalization. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/unwind.h>

#include "base.h"
#include "mf_int.h" /* the steps checked one by one */

#include "fixtures.h"

static void test_build_id_cookie_matches_reference_vector(void **state)
{
	uint8_t id[20];

	(void)state;
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(i + 1);
	assert_int_equal(mf_cookie_from_build_id(id, sizeof(id)), 0xb0a6572c50f6e53aULL);
}

static void test_empty_build_id_cookie_matches_reference_vector(void **state)
{
	(void)state;
	assert_int_equal(mf_cookie_from_build_id(NULL, 0), 0xbd60acb658c79e45ULL);
}

static void test_path_cookie_matches_reference_vector(void **state)
{
	(void)state;
	assert_int_equal(mf_cookie_from_path("/usr/lib/libc.so.6"), 0x64781505a07d930eULL);
}

/* SipHash-1-3 over every message length 0..15 crosses the 8-byte block
 * boundary; the build-id cookie is that hash over le64(len) || id. */
static void test_build_id_cookie_is_siphash_of_length_then_bytes(void **state)
{
	uint8_t msg[8 + 16] = { 0 };

	(void)state;
	for (size_t n = 0; n < 16; n++) {
		msg[0] = (uint8_t)n;
		msg[8 + n] = (uint8_t)(0xa0 + n);
		assert_int_equal(mf_cookie_from_build_id(msg + 8, n), mf_siphash13(0, 0, msg, 8 + n));
	}
	assert_true(mf_siphash13(0, 0, "a", 1) != mf_siphash13(0, 1, "a", 1));
}

static void test_dev_inode_cookie_keeps_low_32_bits_of_each(void **state)
{
	(void)state;
	assert_int_equal(mf_cookie_from_dev_ino(0x1234567800000803ULL, 0xabcdef0100000042ULL),
			 0x0000080300000042ULL);
}

/* The build id `readelf -n` prints gives the cookie gs_module_identify finds. */
static void test_fixture_cookie_equals_one_from_readelf_notes(void **state)
{
	char path[4096], cmd[4200], *out, *hex;
	uint8_t id[GS_BUILD_ID_MAX];
	size_t len = 0;
	struct gs_module_id mid;
	const char *readelf = getenv("GS_READELF") ? getenv("GS_READELF") : "readelf";

	(void)state;
	fx_path("bt_O2_nofp", path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "'%s' -n '%s'", readelf, path);
	out = fx_run(cmd);
	assert_non_null(out);
	hex = strstr(out, "Build ID: ");
	assert_non_null(hex);
	for (hex += 10; len < sizeof(id) && isxdigit(hex[0]) && isxdigit(hex[1]); hex += 2)
		sscanf(hex, "%2hhx", &id[len++]);
	free(out);
	assert_int_equal(len, 20);

	assert_int_equal(gs_module_identify(path, &mid, NULL), 0);
	assert_int_equal(mid.source, GS_COOKIE_BUILD_ID);
	assert_int_equal(mid.build_id_len, len);
	assert_memory_equal(mid.build_id, id, len);
	assert_int_equal(mid.cookie, mf_cookie_from_build_id(id, len));
}

/* A readable file that is not ELF (or has no build id) is named by dev/inode. */
static void test_file_without_build_id_uses_dev_inode(void **state)
{
	char tmpl[] = "/tmp/gs_unwind_noelf_XXXXXX";
	int fd = mkstemp(tmpl);
	struct gs_module_id mid;
	struct stat st;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an elf\n", 11), 11);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_int_equal(gs_module_identify(tmpl, &mid, NULL), 0);
	unlink(tmpl);
	assert_int_equal(mid.source, GS_COOKIE_DEV_INODE);
	assert_int_equal(mid.cookie, mf_cookie_from_dev_ino(st.st_dev, st.st_ino));
}

/* Unopenable, /proc, /sys and deleted files are named by their path hash,
 * taken after normalization. */
static void test_unopenable_paths_use_normalized_path_hash(void **state)
{
	struct gs_module_id mid;

	(void)state;
	assert_int_equal(gs_module_identify("/nonexistent/./lib/libx.so (deleted)", &mid, NULL), 0);
	assert_int_equal(mid.source, GS_COOKIE_PATH_HASH);
	assert_int_equal(mid.cookie, mf_cookie_from_path("/nonexistent/lib/libx.so"));
	assert_int_equal(gs_module_identify("/proc/self/exe", &mid, NULL), 0);
	assert_int_equal(mid.source, GS_COOKIE_PATH_HASH);
	assert_int_equal(gs_module_identify("/sys/kernel/notes", &mid, NULL), 0);
	assert_int_equal(mid.source, GS_COOKIE_PATH_HASH);
	/* A directory is not a regular file. */
	assert_int_equal(gs_module_identify("/tmp", &mid, NULL), 0);
	assert_int_equal(mid.source, GS_COOKIE_PATH_HASH);
}

/* /proc/<pid>/root/... is how a process's files are reached: allowed. */
static void test_proc_pid_root_paths_are_opened(void **state)
{
	char path[4096], root[4200];
	struct gs_module_id direct, via_root;

	(void)state;
	fx_path("bt_O2_nofp", path, sizeof(path));
	snprintf(root, sizeof(root), "/proc/%d/root%s", (int)getpid(), path);
	assert_int_equal(gs_module_identify(path, &direct, NULL), 0);
	assert_int_equal(gs_module_identify(root, &via_root, NULL), 0);
	assert_int_equal(via_root.source, GS_COOKIE_BUILD_ID);
	assert_int_equal(via_root.cookie, direct.cookie);
}

static void test_path_normalization_strips_deleted_and_dot_steps(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "/usr/lib/libc.so.6", "/usr/lib/libc.so.6" },
		{ "/usr/lib/libc.so.6 (deleted)", "/usr/lib/libc.so.6" },
		{ "/usr/./lib/./libc.so.6", "/usr/lib/libc.so.6" },
		{ "/a/././b", "/a/./b" }, /* non-overlapping, like str::replace */
		{ "/my dir/lib x.so (deleted)", "/my dir/lib x.so" },
		{ "/x (deleted) (deleted)", "/x (deleted)" },
		{ " (deleted)", "" },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		assert_int_equal(mf_path_normalize(cases[i].in, out, sizeof(out)),
				 (int)strlen(cases[i].out));
		assert_string_equal(out, cases[i].out);
	}
	assert_int_equal(mf_path_normalize("/usr/lib/libc.so.6", out, 8), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id_cookie_matches_reference_vector),
		cmocka_unit_test(test_empty_build_id_cookie_matches_reference_vector),
		cmocka_unit_test(test_path_cookie_matches_reference_vector),
		cmocka_unit_test(test_build_id_cookie_is_siphash_of_length_then_bytes),
		cmocka_unit_test(test_dev_inode_cookie_keeps_low_32_bits_of_each),
		cmocka_unit_test(test_fixture_cookie_equals_one_from_readelf_notes),
		cmocka_unit_test(test_file_without_build_id_uses_dev_inode),
		cmocka_unit_test(test_unopenable_paths_use_normalized_path_hash),
		cmocka_unit_test(test_proc_pid_root_paths_are_opened),
		cmocka_unit_test(test_path_normalization_strips_deleted_and_dot_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
