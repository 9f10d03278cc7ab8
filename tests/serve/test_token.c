/* The bearer token (src/serve/token.c): the file --serve-token names is
 * taken only when it is a regular file of the caller's that nobody else
 * may read, holding one word of visible ASCII; each refusal names the
 * file and the fix. Then the Authorization header checked against it. */
#define _GNU_SOURCE
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

#include "serve_int.h"

static const char good[] = "s3cr3t-t0ken-0123456789abcdef";

struct dir {
	char path[64];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	snprintf(d->path, sizeof(d->path), "/tmp/gs-token-XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", d->path);
	if (system(cmd) != 0)
		return -1;
	free(d);
	return 0;
}

static const char *write_file(struct dir *d, const char *name, const char *text, size_t len,
			      mode_t mode)
{
	static char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", d->path, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static void test_token_read_drops_final_newline(void **state)
{
	struct dir *d = *state;
	char text[64];
	struct gs_error err;
	char *tok;
	size_t len;

	snprintf(text, sizeof(text), "%s\n", good);
	assert_int_equal(srv_token_read(write_file(d, "t1", text, strlen(text), 0600), &tok,
					&len, &err), 0);
	assert_string_equal(tok, good);
	assert_int_equal(len, strlen(good));
	free(tok);
	assert_int_equal(srv_token_read(write_file(d, "t2", good, strlen(good), 0400), &tok,
					&len, &err), 0);
	assert_string_equal(tok, good);
	free(tok);
}

static void expect_refused(const char *path, int code, const char *says)
{
	struct gs_error err = { 0 };
	char *tok = (char *)1;
	size_t len = 1;
	int rc = srv_token_read(path, &tok, &len, &err);

	if (rc != code)
		fail_msg("%s: %d, not %d (%s)", path, rc, code, err.msg);
	assert_null(tok);
	assert_int_equal(len, 0);
	if (!strstr(err.msg, path) || !strstr(err.msg, says))
		fail_msg("\"%s\" should name %s and say \"%s\"", err.msg, path, says);
}

static void test_token_read_refusals(void **state)
{
	struct dir *d = *state;
	char big[5000], path[128];

	(void)state;
	expect_refused(write_file(d, "open", good, strlen(good), 0644), -EINVAL, "chmod 600");
	expect_refused(write_file(d, "group", good, strlen(good), 0640), -EINVAL, "chmod 600");
	expect_refused(write_file(d, "short", "abc\n", 4, 0600), -EINVAL, "too short");
	memset(big, 'a', sizeof(big));
	expect_refused(write_file(d, "long", big, sizeof(big), 0600), -EINVAL, "too long");
	expect_refused(write_file(d, "long2", big, 4097, 0600), -EINVAL, "too long");
	expect_refused(write_file(d, "space", "0123456789 abcdefgh", 19, 0600), -EINVAL,
		       "byte 11 is not a visible ASCII");
	expect_refused(write_file(d, "crlf", "0123456789abcdefgh\r\n", 20, 0600), -EINVAL,
		       "byte 19");
	expect_refused(write_file(d, "utf8", "0123456789abcdef\xc3\xa9", 18, 0600), -EINVAL,
		       "byte 17");
	expect_refused(write_file(d, "nul", "0123456789\0abcdefgh", 19, 0600), -EINVAL,
		       "byte 11");
	expect_refused(write_file(d, "twonl", "0123456789abcdefgh\n\n", 20, 0600), -EINVAL,
		       "byte 19");

	snprintf(path, sizeof(path), "%s/link", d->path);
	assert_int_equal(symlink(write_file(d, "target", good, strlen(good), 0600), path), 0);
	expect_refused(path, -EINVAL, "symbolic link");
	expect_refused(d->path, -EINVAL, "not a regular file");
	snprintf(path, sizeof(path), "%s/fifo", d->path);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_refused(path, -EINVAL, "not a regular file");
	snprintf(path, sizeof(path), "%s/absent", d->path);
	expect_refused(path, -ENOENT, "cannot open");
}

static void test_token_read_refuses_another_owner(void **state)
{
	struct dir *d = *state;
	const char *path = write_file(d, "theirs", good, strlen(good), 0600);

	if (geteuid() != 0) {
		print_message("skipped: giving a file to another user needs root\n");
		skip();
	}
	assert_int_equal(chown(path, 65534, 65534), 0);
	expect_refused(path, -EINVAL, "owned by uid 65534");
}

static void test_token_check(void **state)
{
	static const struct {
		const char *header;
		bool ok;
	} cases[] = {
		{ "Bearer s3cr3t-t0ken-0123456789abcdef", true },
		{ "bearer s3cr3t-t0ken-0123456789abcdef", true },
		{ "BEARER  s3cr3t-t0ken-0123456789abcdef", true },
		{ NULL, false },
		{ "", false },
		{ "Bearer", false },
		{ "Bearer ", false },
		{ "s3cr3t-t0ken-0123456789abcdef", false },
		{ "Basic s3cr3t-t0ken-0123456789abcdef", false },
		{ "Bearer s3cr3t-t0ken-0123456789abcdeF", false },
		{ "Bearer s3cr3t-t0ken-0123456789abcde", false },
		{ "Bearer s3cr3t-t0ken-0123456789abcdefx", false },
		{ "Bearer s3cr3t-t0ken-0123456789abcdef ", false },
		{ "Bearers3cr3t-t0ken-0123456789abcdef", false },
		{ "Bearer S3cr3t-t0ken-0123456789abcdef", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (srv_token_check(cases[i].header, good, strlen(good)) != cases[i].ok)
			fail_msg("Authorization: %s: should be %s",
				 cases[i].header ? cases[i].header : "(none)",
				 cases[i].ok ? "taken" : "refused");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_read_drops_final_newline),
		cmocka_unit_test(test_token_read_refusals),
		cmocka_unit_test(test_token_read_refuses_another_owner),
		cmocka_unit_test(test_token_check),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
