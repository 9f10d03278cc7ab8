/* Files the gstrace command writes, opened without following a symbolic
 * link and checked on the opened descriptor before anything is truncated:
 * root writing -o into /tmp must not overwrite what another user planted
 * there (a link to /etc/shadow, a file of theirs). */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "outfile.h"

#define CREATE_TRIES 4 /* lost races against a file appearing at the name */

__attribute__((format(printf, 5, 6)))
static int refuse(int code, char *msg, size_t size, const char *head, const char *fmt, ...)
{
	size_t n = (size_t)snprintf(msg, size, "%s: ", head);
	va_list ap;

	if (n < size) {
		va_start(ap, fmt);
		vsnprintf(msg + n, size - n, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Why the file st, in the directory dir (shown as dname), must not be
 * written; 0 when it may. */
static int unsafe(const struct stat *st, const struct stat *dir, const char *dname, char *msg,
		  size_t size, const char *head)
{
	bool shared = (dir->st_mode & S_ISVTX) && (dir->st_mode & (S_IWGRP | S_IWOTH));

	if (S_ISDIR(st->st_mode))
		return refuse(-EISDIR, msg, size, head, "is a directory; give a file name");
	if (!shared || !(S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode)))
		return 0;
	if (st->st_uid != geteuid())
		return refuse(-EPERM, msg, size, head, "belongs to uid %u, not to you (uid %u), in "
			      "%s, a sticky directory others can write: it may have been put there "
			      "to be overwritten; remove it, or give a path of your own",
			      (unsigned)st->st_uid, (unsigned)geteuid(), dname);
	if (S_ISREG(st->st_mode) && st->st_nlink > 1)
		return refuse(-EPERM, msg, size, head, "has %lu hard links, in %s, a sticky "
			      "directory others can write: it may be a link to another file; "
			      "remove it, or give a path of your own",
			      (unsigned long)st->st_nlink, dname);
	return 0;
}

/* The name's last component opened for writing in dfd: the file there,
 * else a new one (O_EXCL: nothing planted meanwhile is opened instead). A
 * FIFO nobody reads yet is checked before the open that waits for a
 * reader. *created when it is new. */
static int open_at(int dfd, const char *base, const struct stat *dir, const char *dname,
		   bool *created, char *msg, size_t size, const char *head)
{
	const int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
	char link[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd, rc;

	*created = false;
	for (int i = 0; i < CREATE_TRIES; i++) {
		fd = openat(dfd, base, flags | O_NONBLOCK);
		if (fd >= 0)
			return fd;
		if (errno == ENOENT) {
			fd = openat(dfd, base, flags | O_CREAT | O_EXCL, 0666);
			if (fd >= 0) {
				*created = true;
				return fd;
			}
			if (errno == EEXIST)
				continue;
		}
		break;
	}
	if (errno == ELOOP) {
		n = readlinkat(dfd, base, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
		return refuse(-ELOOP, msg, size, head, "is a symbolic link%s%s%s; give the real "
			      "path", n > 0 ? " (to " : "", link, n > 0 ? ")" : "");
	}
	if (errno == ENXIO && fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISFIFO(st.st_mode)) {
		if ((rc = unsafe(&st, dir, dname, msg, size, head)))
			return rc;
		fd = openat(dfd, base, flags);
		if (fd >= 0)
			return fd;
	}
	return refuse(-errno, msg, size, head, "%s; check the directory and permissions",
		      strerror(errno));
}

int cli_open_write(const char *flag, const char *path, FILE **out, char *msg, size_t size)
{
	char head[PATH_MAX + 32], dname[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	struct stat dir, st;
	struct statfs fs;
	bool created;
	int dfd, fd, rc, fl;

	*out = NULL;
	snprintf(head, sizeof(head), "%s %s", flag, path);
	if (!*base)
		return refuse(-EISDIR, msg, size, head, "names a directory; give a file name");
	if (!slash)
		snprintf(dname, sizeof(dname), ".");
	else if ((size_t)(slash - path) >= sizeof(dname))
		return refuse(-ENAMETOOLONG, msg, size, head, "the path is too long");
	else
		snprintf(dname, sizeof(dname), "%.*s", slash == path ? 1 : (int)(slash - path),
			 path);
	dfd = open(dname, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &dir) != 0) {
		rc = refuse(-errno, msg, size, head, "directory %s: %s; check the directory and "
			    "permissions", dname, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return rc;
	}
	fd = open_at(dfd, base, &dir, dname, &created, msg, size, head);
	if (fd < 0) {
		close(dfd);
		return fd;
	}
	/* What was opened is what is judged: no race with a rename since. */
	if (fstat(fd, &st) != 0)
		rc = refuse(-errno, msg, size, head, "%s", strerror(errno));
	else
		rc = created ? 0 : unsafe(&st, &dir, dname, msg, size, head);
	close(dfd);
	if (!rc && fstatfs(fd, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC ||
					      fs.f_type == SYSFS_MAGIC))
		rc = refuse(-EINVAL, msg, size, head, "a file of %s does not store what is written "
			    "to it; give a regular file, a pipe or a terminal",
			    fs.f_type == PROC_SUPER_MAGIC ? "/proc" : "/sys");
	if (!rc && (fl = fcntl(fd, F_GETFL)) >= 0 && (fl & O_NONBLOCK) &&
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
		rc = refuse(-errno, msg, size, head, "%s", strerror(errno));
	if (!rc && S_ISREG(st.st_mode) && !created && ftruncate(fd, 0) != 0)
		rc = refuse(-errno, msg, size, head, "cannot empty it: %s; check the file",
			    strerror(errno));
	if (!rc && !(*out = fdopen(fd, "w")))
		rc = refuse(-errno, msg, size, head, "%s", strerror(errno));
	if (rc)
		close(fd);
	return rc;
}

int cli_open_binary(const char *flag, const char *path, FILE **out, char *msg, size_t size)
{
	int rc = cli_open_write(flag, path, out, msg, size);

	if (rc == 0 && isatty(fileno(*out))) {
		fclose(*out);
		*out = NULL;
		return refuse(-EINVAL, msg, size, flag, "%s is a terminal, and the profile is "
			      "gzipped binary data; give a file (e.g. %s out.pb.gz) or a pipe",
			      path, flag);
	}
	return rc;
}
