/* The bearer token of --serve-token: read from a file only its owner can
 * read (as ssh reads a private key: a token others can read is no secret),
 * and compared with what a request carries in time that does not tell an
 * attacker how many of its bytes were right. */
#define _GNU_SOURCE /* O_NOFOLLOW */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve_int.h"

#define TOKEN_MIN 16
#define TOKEN_MAX 4096

int srv_token_read(const char *path, char **token, size_t *len, struct gs_error *err)
{
	char buf[TOKEN_MAX + 2]; /* the token, a newline, and one byte to see it is longer */
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd, rc = 0;

	*token = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO put in the file's place does not hang the open */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP)
			return gs_errorf(err, -EINVAL, "--serve-token %s: is a symbolic link: give "
					 "the file itself", path);
		return gs_errorf(err, rc, "--serve-token %s: cannot open: %s", path, strerror(-rc));
	}
	if (fstat(fd, &st) < 0) {
		rc = gs_errorf(err, -errno, "--serve-token %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = gs_errorf(err, -EINVAL, "--serve-token %s: not a regular file: put the "
			       "token in a file", path);
		goto out;
	}
	if (st.st_uid != geteuid()) {
		rc = gs_errorf(err, -EINVAL, "--serve-token %s: owned by uid %u, not by this "
			       "user (uid %u): `chown %u %s`, or give a file of your own", path,
			       (unsigned)st.st_uid, (unsigned)geteuid(), (unsigned)geteuid(), path);
		goto out;
	}
	if (st.st_mode & 077) {
		rc = gs_errorf(err, -EINVAL, "--serve-token %s: mode %04o lets others read the "
			       "token: `chmod 600 %s`", path, (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	while (got < sizeof(buf)) {
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = gs_errorf(err, -errno, "--serve-token %s: cannot read: %s", path,
				       strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got && buf[got - 1] == '\n')
		got--;
	if (got > TOKEN_MAX || got < TOKEN_MIN) {
		rc = gs_errorf(err, -EINVAL, "--serve-token %s: the token is %s: write %d to %d "
			       "characters, e.g. `head -c 32 /dev/urandom | base64 > %s`", path,
			       got < TOKEN_MIN ? "too short" : "too long", TOKEN_MIN, TOKEN_MAX,
			       path);
		goto out;
	}
	for (size_t i = 0; i < got; i++) {
		if (buf[i] < 0x21 || buf[i] > 0x7e) {
			rc = gs_errorf(err, -EINVAL, "--serve-token %s: byte %zu is not a visible "
				       "ASCII character: a token is one word of printable ASCII "
				       "(no spaces, one final newline at most)", path, i + 1);
			goto out;
		}
	}
	*token = malloc(got + 1);
	if (!*token) {
		rc = gs_errorf(err, -ENOMEM, "--serve-token %s: out of memory", path);
		goto out;
	}
	memcpy(*token, buf, got);
	(*token)[got] = '\0';
	*len = got;
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return rc;
}

bool srv_token_check(const char *header, const char *token, size_t len)
{
	static const char scheme[] = "Bearer ";
	const char *cred;
	size_t clen;
	unsigned char diff = 0;

	/* The scheme is case-insensitive (RFC 9110, 11.1); what is compared
	 * in constant time is the credential. Its length may show: it is no
	 * secret worth a timing channel of its own. */
	if (!header || strncasecmp(header, scheme, sizeof(scheme) - 1) != 0)
		return false;
	cred = header + sizeof(scheme) - 1;
	while (*cred == ' ')
		cred++;
	clen = strlen(cred);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = i < clen ? (unsigned char)cred[i] : 0;

		diff |= c ^ (unsigned char)token[i];
		/* no early exit the compiler could make of the loop */
		__asm__ volatile("" : "+r"(diff));
	}
	return diff == 0 && clen == len;
}
