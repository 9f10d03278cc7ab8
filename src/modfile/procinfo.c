/* What names a process in a profile (the agent's sample labels): its
 * command name, its executable's path and the container it runs in, read
 * from /proc/PID/{comm,exe,cgroup}. Every byte of them is the target's to
 * choose (a name, a path, a cgroup a delegated container made), so each
 * read is bounded and the container id is only ever 64 lowercase hex
 * digits. Raw bytes otherwise: whoever prints them escapes them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/internal/modfile.h>

/* /proc/PID/cgroup is one line per hierarchy (one on cgroup v2); more
 * than this is not a kernel's. */
#define CGROUP_TEXT_MAX 65536

/* The systemd and runtime spellings of a container's cgroup, around its
 * id: docker-ID.scope (systemd driver), cri-containerd-ID.scope,
 * crio-ID.scope, libpod-ID.scope (podman); /docker/ID, and kubepods'
 * .../pod<uid>/ID, where the directory is the id itself. */
static const char *const prefixes[] = { "docker-", "cri-containerd-", "crio-", "libpod-", "" };
#define SCOPE ".scope"

static bool hex64(const char *s, size_t n)
{
	if (n != GS_CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* The id one path component (n bytes) names, or NULL. */
static const char *component_id(const char *c, size_t n)
{
	size_t scope = strlen(SCOPE);

	if (n > scope && memcmp(c + n - scope, SCOPE, scope) == 0)
		n -= scope;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t plen = strlen(prefixes[i]);

		if (n >= plen && memcmp(c, prefixes[i], plen) == 0 && hex64(c + plen, n - plen))
			return c + plen;
	}
	return NULL;
}

/* The innermost component of a path (n bytes) that names a container: a
 * container inside another is the one the process runs in. */
static const char *path_id(const char *path, size_t n)
{
	const char *end = path + n, *found = NULL;

	for (const char *c = path; c < end;) {
		const char *slash = memchr(c, '/', (size_t)(end - c));
		const char *stop = slash ? slash : end;
		const char *id = component_id(c, (size_t)(stop - c));

		if (id)
			found = id;
		c = stop + (slash != NULL);
	}
	return found;
}

int gs_cgroup_container_id(const char *text, size_t len, char *id, size_t size)
{
	const char *end = text + len;

	if (size < GS_CONTAINER_ID_LEN + 1)
		return -ENOSPC;
	id[0] = '\0';
	/* `hierarchy:controllers:path` a line; the path is the rest, ':'
	 * and all. The first line that names a container says it. */
	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *stop = nl ? nl : end, *c1, *c2, *found;

		c1 = memchr(line, ':', (size_t)(stop - line));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(stop - c1 - 1)) : NULL;
		if (c2 && (found = path_id(c2 + 1, (size_t)(stop - c2 - 1)))) {
			memcpy(id, found, GS_CONTAINER_ID_LEN);
			id[GS_CONTAINER_ID_LEN] = '\0';
			return 0;
		}
		line = stop + (nl != NULL);
	}
	return -ENOENT;
}

/* Up to size - 1 bytes of /proc/PID/<name> into buf: the count, or -errno. */
static ssize_t read_proc(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	size_t got = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < size - 1) {
		ssize_t n = read(fd, buf + got, size - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

int gs_procinfo_read(pid_t pid, struct gs_procinfo *out)
{
	char path[64], *text;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (pid <= 0)
		return -EINVAL;
	/* the name: one line, the kernel's 15 bytes at most */
	n = read_proc(pid, "comm", out->comm, sizeof(out->comm));
	if (n < 0)
		return n == -ESRCH ? -ENOENT : (int)n;
	if (n > 0 && out->comm[n - 1] == '\n')
		out->comm[n - 1] = '\0';
	/* a kernel thread has no executable; another user's may be closed */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, out->exe, sizeof(out->exe) - 1);
	out->exe[n > 0 ? n : 0] = '\0';
	/* no container is said when the text cannot be read */
	if ((text = malloc(CGROUP_TEXT_MAX))) {
		n = read_proc(pid, "cgroup", text, CGROUP_TEXT_MAX);
		if (n > 0)
			gs_cgroup_container_id(text, (size_t)n, out->container,
					       sizeof(out->container));
		free(text);
	}
	return 0;
}
