/* Uprobe attachment: a perf event of the `uprobe` PMU for (path, file
 * offset), or when the kernel lacks the PMU a tracefs uprobe_events entry
 * opened as a tracepoint event; the BPF program goes on with
 * PERF_EVENT_IOC_SET_BPF. Detaching many probes runs on threads because the
 * kernel takes a long time (an RCU grace period) to release each one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <gs/runtime.h>

#define PMU_DIR "/sys/bus/event_source/devices/uprobe"
#define TRACEFS_MOUNT "/sys/kernel/tracing"
#define DEBUGFS_TRACING "/sys/kernel/debug/tracing"
#define EVENT_GROUP "gstrace"
#define DETACH_THREADS_MAX 32
#define REMOVE_RETRIES 50 /* x 20 ms: the kernel may hold the event briefly */

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* A small sysfs / tracefs file as text, trailing newline dropped. */
static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

static int read_int(const char *path, long *out)
{
	char buf[64], *end;
	int rc = read_small(path, buf, sizeof(buf));

	if (rc)
		return rc;
	*out = strtol(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

/* The PMU's type, and the config bit of `retprobe` ("config:0"). */
static int pmu_info(int *type, int *ret_bit)
{
	char buf[64];
	long t;
	int rc = read_int(PMU_DIR "/type", &t);

	if (rc)
		return rc;
	*type = (int)t;
	*ret_bit = 0;
	if (read_small(PMU_DIR "/format/retprobe", buf, sizeof(buf)) == 0 &&
	    strncmp(buf, "config:", 7) == 0)
		*ret_bit = atoi(buf + 7);
	return 0;
}

static int bind_program(int pfd, int prog_fd)
{
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog_fd) < 0)
		return -errno;
	if (ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return -errno;
	return 0;
}

/* Opens the event for the scope: one process (any CPU), or every process,
 * which perf only allows per CPU. One CPU is enough: the program hangs off
 * the probe and runs on whichever CPU hits it. */
static int open_scoped(struct perf_event_attr *attr, pid_t pid)
{
	return pid > 0 ? perf_event_open(attr, pid, -1) : perf_event_open(attr, -1, 0);
}

static const char *open_hint(int code)
{
	switch (code) {
	case -ESRCH:
		return "; the process is gone";
	case -EACCES:
	case -EPERM:
		return "; run as root (CAP_PERFMON and CAP_BPF)";
	case -ENOENT:
		return "; check the binary's path";
	case -EINVAL:
		return "; the offset must be inside the file's code";
	default:
		return "";
	}
}

static int attach_pmu(int prog_fd, const char *path, uint64_t offset, const struct gs_uprobe_opts *o,
		      int type, int ret_bit, struct gs_uprobe *u, struct gs_error *err)
{
	struct perf_event_attr attr;
	int fd, rc;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)type;
	attr.config = o->retprobe ? 1ull << ret_bit : 0;
	attr.config1 = (uint64_t)(uintptr_t)path; /* uprobe_path */
	attr.config2 = offset;                    /* probe_offset */
	fd = open_scoped(&attr, o->pid);
	if (fd < 0)
		return gs_errorf(err, fd, "cannot create a uprobe at %s+0x%llx%s: %s%s", path,
				 (unsigned long long)offset, o->pid > 0 ? " for that pid" : "",
				 strerror(-fd), open_hint(fd));
	u->fds[u->nfds++] = fd;
	rc = bind_program(fd, prog_fd);
	if (rc)
		return gs_errorf(err, rc, "cannot attach the BPF program to the uprobe at %s+0x%llx: %s",
				 path, (unsigned long long)offset, strerror(-rc));
	return 0;
}

/* ---- tracefs fallback ---------------------------------------------------- */

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

/* Where uprobe_events is, mounting tracefs when no tracing directory is. */
static int tracefs_dir(char *out, size_t size, struct gs_error *err)
{
	static const char *const dirs[] = { TRACEFS_MOUNT, DEBUGFS_TRACING };
	char probe[128];

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(probe, sizeof(probe), "%s/uprobe_events", dirs[i]);
			if (access(probe, W_OK) == 0) {
				snprintf(out, size, "%s", dirs[i]);
				return 0;
			}
		}
		if (pass == 0 && mount("tracefs", TRACEFS_MOUNT, "tracefs", 0, NULL) != 0)
			return gs_errorf(err, -errno, "no uprobe PMU and no tracefs: mounting "
					 "tracefs at " TRACEFS_MOUNT " failed (%s); mount it or "
					 "run as root", strerror(errno));
	}
	return gs_errorf(err, -ENOENT, "tracefs has no uprobe_events: this kernel was built "
			 "without CONFIG_UPROBE_EVENTS");
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int attach_tracefs(int prog_fd, const char *path, uint64_t offset,
			  const struct gs_uprobe_opts *o, struct gs_uprobe *u, struct gs_error *err)
{
	char dir[64], events[96], name[64], def[PATH_MAX + 160], idpath[256];
	struct perf_event_attr attr;
	long id;
	int rc, fd;

	if (strpbrk(path, " \t\n"))
		return gs_errorf(err, -EINVAL, "%s: tracefs uprobes cannot take a path with white "
				 "space; use a link without it", path);
	rc = tracefs_dir(dir, sizeof(dir), err);
	if (rc)
		return rc;
	snprintf(events, sizeof(events), "%s/uprobe_events", dir);
	for (unsigned k = 0;; k++) {
		snprintf(name, sizeof(name), "gs_%d_%08x_%llx_%u", (int)getpid(), fnv1a(path),
			 (unsigned long long)offset, k);
		snprintf(def, sizeof(def), "%c:" EVENT_GROUP "/%s %s:0x%llx", o->retprobe ? 'r' : 'p',
			 name, path, (unsigned long long)offset);
		rc = write_text(events, def);
		if (rc != -EEXIST || k == 16)
			break;
	}
	if (rc)
		return gs_errorf(err, rc, "cannot add the uprobe `%s` to %s: %s", def, events,
				 strerror(-rc));
	u->tracefs_dir = strdup(dir);
	u->tracefs_event = malloc(sizeof(EVENT_GROUP) + strlen(name) + 1);
	if (!u->tracefs_dir || !u->tracefs_event) {
		snprintf(def, sizeof(def), "-:" EVENT_GROUP "/%s", name);
		write_text(events, def);
		return gs_errorf(err, -ENOMEM, "out of memory");
	}
	sprintf(u->tracefs_event, EVENT_GROUP "/%s", name);
	snprintf(idpath, sizeof(idpath), "%s/events/" EVENT_GROUP "/%s/id", dir, name);
	rc = read_int(idpath, &id);
	if (rc)
		return gs_errorf(err, rc, "cannot read the id of uprobe event %s (%s): %s", name,
				 idpath, strerror(-rc));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	fd = open_scoped(&attr, o->pid);
	if (fd < 0)
		return gs_errorf(err, fd, "cannot open the tracepoint of uprobe %s (%s+0x%llx): %s%s",
				 name, path, (unsigned long long)offset, strerror(-fd),
				 open_hint(fd));
	u->fds[u->nfds++] = fd;
	rc = bind_program(fd, prog_fd);
	if (rc)
		return gs_errorf(err, rc, "cannot attach the BPF program to uprobe %s: %s", name,
				 strerror(-rc));
	return 0;
}

/* ---- the API ------------------------------------------------------------- */

int gs_uprobe_attach(int prog_fd, const char *path, uint64_t offset,
		     const struct gs_uprobe_opts *opts, struct gs_uprobe **out, struct gs_error *err)
{
	struct gs_uprobe_opts o = { 0 };
	struct gs_uprobe *u;
	int type, ret_bit, rc;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (access(path, F_OK) != 0)
		return gs_errorf(err, -errno, "cannot attach to %s: %s; check the path", path,
				 strerror(errno));
	u = calloc(1, sizeof(*u));
	if (!u || !(u->fds = calloc(1, sizeof(*u->fds)))) {
		free(u);
		return gs_errorf(err, -ENOMEM, "out of memory attaching to %s", path);
	}
	if (!o.force_tracefs && pmu_info(&type, &ret_bit) == 0)
		rc = attach_pmu(prog_fd, path, offset, &o, type, ret_bit, u, err);
	else
		rc = attach_tracefs(prog_fd, path, offset, &o, u, err);
	if (rc) {
		gs_uprobe_detach(u);
		return rc;
	}
	*out = u;
	return 0;
}

void gs_uprobe_detach(struct gs_uprobe *u)
{
	char events[96], def[160];
	struct timespec nap = { 0, 20 * 1000 * 1000 };

	if (!u)
		return;
	for (size_t i = 0; i < u->nfds; i++)
		close(u->fds[i]);
	if (u->tracefs_event && u->tracefs_dir) {
		snprintf(events, sizeof(events), "%s/uprobe_events", u->tracefs_dir);
		snprintf(def, sizeof(def), "-:%s", u->tracefs_event);
		for (int i = 0; i < REMOVE_RETRIES && write_text(events, def) == -EBUSY; i++)
			nanosleep(&nap, NULL);
	}
	free(u->tracefs_event);
	free(u->tracefs_dir);
	free(u->fds);
	free(u);
}

struct detach_work {
	struct gs_uprobe **v;
	size_t n;
	atomic_size_t next;
};

static void *detach_worker(void *arg)
{
	struct detach_work *w = arg;
	size_t i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->n) {
		gs_uprobe_detach(w->v[i]);
		w->v[i] = NULL;
	}
	return NULL;
}

void gs_uprobes_detach(struct gs_uprobe **v, size_t n)
{
	pthread_t threads[DETACH_THREADS_MAX];
	struct detach_work w = { .v = v, .n = n };
	size_t nthreads = n < DETACH_THREADS_MAX ? n : DETACH_THREADS_MAX, started = 0;

	atomic_init(&w.next, 0);
	if (n > 1)
		for (; started < nthreads; started++)
			if (pthread_create(&threads[started], NULL, detach_worker, &w) != 0)
				break;
	detach_worker(&w); /* the caller works too, and alone if no thread started */
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
}

int gs_uprobe_supported(struct gs_error *err)
{
	int type, bit;
	char dir[64];

	if (pmu_info(&type, &bit) == 0)
		return 0;
	return tracefs_dir(dir, sizeof(dir), err);
}
