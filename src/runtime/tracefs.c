/* tracefs uprobe_events, the fallback when the kernel has no uprobe PMU:
 * where the file is (mounting tracefs when nothing is), adding and removing
 * entries, and reaping what dead gstrace processes left. Entries are named
 * gstrace/gs_p<pid>_s<start time>_<random>: the pid and its start time say
 * whether the process that added one is still alive (a pid alone is reused),
 * the random part keeps names unique however many probes share an address. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <gs/runtime.h>

#include "base.h"
#include "rt_int.h"

#define TRACEFS_MOUNT "/sys/kernel/tracing"
#define DEBUGFS_TRACING "/sys/kernel/debug/tracing"
#define EVENT_GROUP "gstrace"
#define NAME_TRIES 8
#define REMOVE_RETRIES 50 /* x 20 ms: the kernel may hold the event briefly */
#define EVENTS_MAX (64u << 20)

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t n;
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	n = n < 0 ? -errno : (ssize_t)len == n ? 0 : -EIO;
	close(fd);
	return (int)n;
}

/* The directory holding a writable uprobe_events, without mounting. */
static int find_dir(char *out, size_t size)
{
	static const char *const dirs[] = { TRACEFS_MOUNT, DEBUGFS_TRACING };
	char probe[128];

	for (size_t i = 0; i < BASE_ARRAY_SIZE(dirs); i++) {
		snprintf(probe, sizeof(probe), "%s/uprobe_events", dirs[i]);
		if (access(probe, W_OK) == 0) {
			snprintf(out, size, "%s", dirs[i]);
			return 0;
		}
	}
	return -ENOENT;
}

int rt_tracefs_dir(char *out, size_t size, struct gs_error *err)
{
	if (find_dir(out, size) == 0)
		return 0;
	if (mount("tracefs", TRACEFS_MOUNT, "tracefs", 0, NULL) != 0)
		return gs_errorf(err, -errno, "no uprobe PMU and no tracefs: mounting tracefs at "
				 TRACEFS_MOUNT " failed (%s); mount it, or run as root (with "
				 "CAP_SYS_ADMIN)", strerror(errno));
	if (find_dir(out, size) == 0)
		return 0;
	return gs_errorf(err, -ENOENT, "tracefs has no uprobe_events: this kernel was built "
			 "without CONFIG_UPROBE_EVENTS");
}

/* Clock ticks after boot at which pid started (0: no such process). */
static unsigned long long start_time(pid_t pid)
{
	struct gs_proc_stat st;

	return gs_proc_stat_read(pid, &st, NULL) == 0 ? st.start_time : 0;
}

int rt_tracefs_add(const char *dir, const char *path, uint64_t offset, bool retprobe,
		   char *name, size_t name_size, struct gs_error *err)
{
	char events[PATH_MAX], def[PATH_MAX + 160];
	unsigned long long me = start_time(0);
	int rc = -EEXIST;

	snprintf(events, sizeof(events), "%s/uprobe_events", dir);
	for (int k = 0; k < NAME_TRIES && rc == -EEXIST; k++) {
		uint32_t r = 0;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)time(NULL) * 2654435761u + (uint32_t)k;
		snprintf(name, name_size, "gs_p%d_s%llu_%08x", (int)getpid(), me, r);
		snprintf(def, sizeof(def), "%c:" EVENT_GROUP "/%s %s:0x%llx", retprobe ? 'r' : 'p',
			 name, path, (unsigned long long)offset);
		rc = write_text(events, def);
	}
	if (rc)
		return gs_errorf(err, rc, "cannot add the uprobe `%s` to %s: %s%s", def, events,
				 strerror(-rc), rc == -EPERM || rc == -EACCES ?
				 "; run as root (CAP_SYS_ADMIN writes tracefs)" : "");
	return 0;
}

/* Removes gstrace/<name>; while the kernel still holds the event (EBUSY)
 * it is tried again, up to `retries` times 20 ms. */
static int remove_entry(const char *dir, const char *name, int retries)
{
	char events[PATH_MAX], def[160];
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	int rc;

	snprintf(events, sizeof(events), "%s/uprobe_events", dir);
	snprintf(def, sizeof(def), "-:" EVENT_GROUP "/%s", name);
	for (int i = 0; (rc = write_text(events, def)) == -EBUSY && i < retries; i++)
		nanosleep(&nap, NULL);
	return rc;
}

void rt_tracefs_remove(const char *dir, const char *name)
{
	remove_entry(dir, name, REMOVE_RETRIES);
}

/* Whether the gstrace that named an entry `name` is gone: its pid does not
 * exist, or is another process now (its start time differs). Names of
 * another form (another tool's, or an older gstrace's, whose owner cannot
 * be told for sure) are never gone. */
static bool owner_gone(const char *name)
{
	unsigned long long start;
	int pid, n = 0;

	if (sscanf(name, "gs_p%d_s%llu_%*x%n", &pid, &start, &n) >= 2 && n && !name[n] &&
	    pid > 0)
		return start_time(pid) != start;
	return false;
}

/* The whole of a tracefs file (it has no size): malloc'd text. */
static char *read_all(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 0;
	char *text = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t got;

		/* 16 KiB, then doubling, up to EVENTS_MAX. */
		if (cap - len < 4096 &&
		    (cap >= EVENTS_MAX || base_grow((void **)&text, &cap, len + 16384, 1)))
			break;
		got = read(fd, text + len, cap - len - 1);
		if (got <= 0) {
			close(fd);
			text[len] = '\0';
			return text;
		}
		len += (size_t)got;
	}
	close(fd);
	free(text);
	return NULL;
}

int gs_uprobe_events_reap(size_t *removed, struct gs_error *err)
{
	char dir[64], events[128];
	char *text, *line, *save = NULL;

	if (removed)
		*removed = 0;
	if (find_dir(dir, sizeof(dir)))
		return 0; /* no tracefs mounted: nothing can have leaked there */
	snprintf(events, sizeof(events), "%s/uprobe_events", dir);
	text = read_all(events);
	if (!text)
		return gs_errorf(err, -errno ? -errno : -ENOMEM, "cannot read %s: %s", events,
				 strerror(errno ? errno : ENOMEM));
	/* "p:gstrace/gs_p12_s345_0badf00d /bin/x:0x1139" */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (sscanf(line, "%*c:" EVENT_GROUP "/%127s", name) != 1 || !owner_gone(name))
			continue;
		/* in use (EBUSY): its owner is alive after all */
		if (remove_entry(dir, name, 0) == 0 && removed)
			(*removed)++;
	}
	free(text);
	return 0;
}
