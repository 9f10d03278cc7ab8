/* The on-disk cache's size (gs/modfile.h): what its directory holds by
 * kind, and the least recently used files removed until the rest fit a
 * cap, or all of them. Only names the cache writes are touched
 * (`<build id hex><ext>`, their temporary `<name>.<pid>.<8 hex>`), only
 * regular files of the effective user, never through a link; one trim at
 * a time per directory (flock), and another run's store under way is
 * never cut short (temporary files younger than GS_CACHE_TEMP_AGE_S). */
#define _GNU_SOURCE /* O_NOFOLLOW, AT_SYMLINK_NOFOLLOW */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "base.h"
#include "mf_int.h"

#define LOCK_NAME "gstrace.lock"
#define MAX_SCAN 65536   /* directory entries read per call: bounded work */
#define NAME_MAX_OURS 160 /* 128 hex digits, an extension, a temporary suffix */
#define CLEAR_WAIT_MS 2000

static const char *const exts[] = {
	[GS_CACHE_CFI] = MF_CACHE_EXT_CFI,
	[GS_CACHE_INDEX] = MF_CACHE_EXT_INDEX,
	[GS_CACHE_DEBUG] = MF_CACHE_EXT_DEBUG,
};

struct entry {
	int64_t used_ns; /* the modification time: last use */
	uint64_t bytes;
	enum gs_cache_kind kind;
	char name[NAME_MAX_OURS];
};

static size_t span(const char *s, const char *set)
{
	return strspn(s, set);
}

/* `.<pid>.<8 hex>`, the tail temp_file() (cachefile.c) gives a store. */
static bool temp_tail(const char *t)
{
	size_t d;

	if (*t++ != '.' || (d = span(t, "0123456789")) == 0 || d > 10 || t[d] != '.')
		return false;
	t += d + 1;
	return span(t, "0123456789abcdef") == 8 && t[8] == '\0';
}

/* The kind of the file called name, or -1: not a name the cache writes. */
static int kind_of(const char *name)
{
	size_t h = span(name, "0123456789abcdef");

	if (h < 2 || h > 2 * GS_BUILD_ID_MAX || h % 2)
		return -1;
	for (int k = 0; k < (int)BASE_ARRAY_SIZE(exts); k++) {
		const char *tail = base_after_prefix(name + h, exts[k]);

		if (!tail)
			continue;
		if (*tail == '\0')
			return k;
		return temp_tail(tail) ? GS_CACHE_TEMP : -1;
	}
	return -1;
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000ll + st->st_mtim.tv_nsec;
}

/* The file called name in dfd when it is one of the cache's: a regular
 * file of the effective user, not followed if a link. */
static bool ours(int dfd, const char *name, struct stat *st)
{
	return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode) &&
	       st->st_uid == geteuid();
}

/* The cache's files in dfd (at most MAX_SCAN entries read), malloc'd in
 * *out. 0 or -ENOMEM / -errno. */
static int scan(int dfd, struct entry **out, size_t *n)
{
	struct entry *v = NULL;
	size_t cap = 0, seen = 0;
	struct dirent *de;
	DIR *d;
	int fd;

	*out = NULL;
	*n = 0;
	/* a descriptor of its own: readdir moves the offset of the one it has */
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		int rc = -errno;

		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (seen++ < MAX_SCAN && (de = readdir(d))) {
		int kind = strlen(de->d_name) < NAME_MAX_OURS ? kind_of(de->d_name) : -1;
		struct stat st;

		if (kind < 0 || !ours(dfd, de->d_name, &st))
			continue;
		if (base_grow((void **)&v, &cap, *n + 1, sizeof(*v))) {
			closedir(d);
			free(v);
			*n = 0;
			return -ENOMEM;
		}
		v[*n].used_ns = mtime_ns(&st);
		v[*n].bytes = (uint64_t)st.st_size;
		v[*n].kind = (enum gs_cache_kind)kind;
		strcpy(v[*n].name, de->d_name);
		(*n)++;
	}
	closedir(d);
	*out = v;
	return 0;
}

static void count(struct gs_cache_usage *u, const struct entry *e)
{
	u->files[e->kind]++;
	u->bytes[e->kind] += e->bytes;
	u->total_files++;
	u->total_bytes += e->bytes;
	if (e->kind == GS_CACHE_TEMP)
		return;
	if (!u->oldest_ns || e->used_ns < u->oldest_ns)
		u->oldest_ns = e->used_ns;
	if (e->used_ns > u->newest_ns)
		u->newest_ns = e->used_ns;
}

/* The directory for reading and removing: its descriptor, -ENOENT (not
 * there: nothing to do), or the error of gs_cache_dir_check. */
static int dir_open(const char *dir, struct gs_error *err)
{
	char why[128];
	int dfd = mf_cache_dir_open(dir, false, why, sizeof(why));

	if (dfd >= 0 || (dfd == -ENOENT && dir && dir[0] == '/'))
		return dfd;
	gs_cache_dir_check(dir, err);
	return dfd == -ENOENT ? -EINVAL : dfd;
}

int gs_cache_usage_of(const char *dir, struct gs_cache_usage *out, struct gs_error *err)
{
	struct entry *v;
	size_t n;
	int dfd, rc;

	memset(out, 0, sizeof(*out));
	dfd = dir_open(dir, err);
	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	rc = scan(dfd, &v, &n);
	close(dfd);
	if (rc)
		return gs_errorf(err, rc, "cache directory %s cannot be read: %s", dir,
				 strerror(-rc));
	for (size_t i = 0; i < n; i++)
		count(out, &v[i]);
	free(v);
	return 0;
}

/* The lock file of dfd, locked exclusively: its descriptor, or -EAGAIN
 * (another process holds it past wait_ms) or -errno. */
static int lock_take(int dfd, int wait_ms)
{
	struct stat st;
	int fd = openat(dfd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK || wait_ms <= 0)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000000 }, NULL);
		wait_ms -= 50;
	}
	close(fd);
	return -EAGAIN;
}

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->used_ns < y->used_ns ? -1 : x->used_ns > y->used_ns;
}

/* Removes e unless it changed since the scan (a read that marked it used,
 * a store that replaced it): true when it went. */
static bool evict(int dfd, const struct entry *e, struct gs_cache_usage *removed)
{
	struct stat st;

	if (!ours(dfd, e->name, &st) || mtime_ns(&st) != e->used_ns ||
	    (uint64_t)st.st_size != e->bytes || unlinkat(dfd, e->name, 0) != 0)
		return false;
	count(removed, e);
	return true;
}

/* Removes dead temporary files, then the least recently used entries
 * until the rest take at most keep bytes. */
static int sweep(const char *dir, uint64_t keep, int wait_ms, struct gs_cache_usage *removed,
		 struct gs_error *err)
{
	struct gs_cache_usage gone = { 0 };
	int64_t dead_before = ((int64_t)time(NULL) - GS_CACHE_TEMP_AGE_S) * 1000000000ll;
	uint64_t total = 0;
	struct entry *v;
	size_t n;
	int dfd, lock, rc;

	if (removed)
		memset(removed, 0, sizeof(*removed));
	dfd = dir_open(dir, err);
	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	lock = lock_take(dfd, wait_ms);
	if (lock < 0) {
		close(dfd);
		return gs_errorf(err, lock, "cache directory %s: %s", dir, lock == -EAGAIN ?
				 "another gstrace is trimming it; try again" :
				 "its lock file " LOCK_NAME " cannot be opened (remove it)");
	}
	rc = scan(dfd, &v, &n);
	if (rc == 0) {
		if (n)
			qsort(v, n, sizeof(*v), by_use);
		for (size_t i = 0; i < n; i++)
			total += v[i].kind == GS_CACHE_TEMP ? 0 : v[i].bytes;
		for (size_t i = 0; i < n; i++) {
			if (v[i].kind == GS_CACHE_TEMP) {
				if (v[i].used_ns < dead_before)
					evict(dfd, &v[i], &gone);
			} else if (total > keep && evict(dfd, &v[i], &gone)) {
				total -= v[i].bytes;
			}
		}
		free(v);
	} else {
		gs_errorf(err, rc, "cache directory %s cannot be read: %s", dir, strerror(-rc));
	}
	close(lock); /* unlocks */
	close(dfd);
	if (removed)
		*removed = gone;
	return rc;
}

int gs_cache_trim(const char *dir, uint64_t max_bytes, struct gs_cache_usage *removed,
		  struct gs_error *err)
{
	return sweep(dir, max_bytes ? max_bytes : GS_CACHE_DEFAULT_MAX_BYTES, 0, removed, err);
}

int gs_cache_clear(const char *dir, struct gs_cache_usage *removed, struct gs_error *err)
{
	return sweep(dir, 0, CLEAR_WAIT_MS, removed, err);
}
