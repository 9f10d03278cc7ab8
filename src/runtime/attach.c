/* Uprobe attachment, three ways: a uprobe_multi BPF link (Linux 6.6+; one
 * link carries every offset of a program in a module, made with the raw
 * BPF_LINK_CREATE call since the packaged libbpf may predate it), a perf
 * event of the `uprobe` PMU per offset, or a tracefs uprobe_events entry
 * opened as a tracepoint event (tracefs.c) where the PMU is missing.
 * Releasing a uprobe costs the kernel RCU grace periods: perf events are
 * released one at a time under a global mutex, links concurrently, so many
 * probes detach on threads. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <gs/runtime.h>

#include "base.h"
#include "opts.h"
#include "rt_int.h"

#define PMU_DIR "/sys/bus/event_source/devices/uprobe"
#define EVENT_GROUP "gstrace"
#define DETACH_THREADS_MAX 128 /* links release concurrently: more is faster */

/* The link_create part of union bpf_attr for BPF_TRACE_UPROBE_MULTI, as
 * Linux 6.8 (with pid) lays it out; older headers lack it. */
struct uprobe_multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, multi_flags, pid;
};
_Static_assert(offsetof(struct uprobe_multi_attr, path) == 16, "link_create union at 16");
_Static_assert(offsetof(struct uprobe_multi_attr, cnt) == 48, "uprobe_multi.cnt");
_Static_assert(offsetof(struct uprobe_multi_attr, pid) == 56, "uprobe_multi.pid");

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
	const char *bit;
	long t;
	int rc = read_int(PMU_DIR "/type", &t);

	if (rc)
		return rc;
	*type = (int)t;
	*ret_bit = 0;
	if (read_small(PMU_DIR "/format/retprobe", buf, sizeof(buf)) == 0 &&
	    (bit = base_after_prefix(buf, "config:")))
		*ret_bit = atoi(bit);
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

/* The kernel's internal ENOTSUPP, which uprobe registration returns for an
 * instruction it will not probe (not in the libc headers). */
#define ENOTSUPP_KERNEL 524

static const char *open_hint(int code)
{
	switch (code) {
	case -ESRCH:
		return "; the process is gone";
	case -EACCES:
	case -EPERM:
		return "; run as root (CAP_PERFMON and CAP_BPF, or CAP_SYS_ADMIN)";
	case -ENOENT:
	case -EBADF:
		return "; check the binary's path";
	case -EINVAL:
		return "; the offset must be inside the file's code";
	case -ENOTSUPP_KERNEL:
		return "; the kernel cannot put a uprobe on the instruction there: the address is "
		       "not an instruction's first byte, or uprobes refuse that instruction; give "
		       "the address of an instruction as `objdump -d` lists it";
	default:
		return "";
	}
}

/* strerror, but for the kernel's own ENOTSUPP (524), which libc does not
 * name ("Unknown error 524"). */
static const char *attach_strerror(int code)
{
	return code == -ENOTSUPP_KERNEL ? "not supported (ENOTSUPP)" : strerror(-code);
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
				 attach_strerror(fd), open_hint(fd));
	u->fds[u->nfds++] = fd;
	rc = bind_program(fd, prog_fd);
	if (rc)
		return gs_errorf(err, rc, "cannot attach the BPF program to the uprobe at %s+0x%llx: %s",
				 path, (unsigned long long)offset, strerror(-rc));
	return 0;
}

static int attach_tracefs(int prog_fd, const char *path, uint64_t offset,
			  const struct gs_uprobe_opts *o, struct gs_uprobe *u, struct gs_error *err)
{
	char dir[64], name[64], idpath[256];
	struct perf_event_attr attr;
	long id;
	int rc, fd;

	if (strpbrk(path, " \t\n"))
		return gs_errorf(err, -EINVAL, "%s: tracefs uprobes cannot take a path with white "
				 "space; use a link without it", path);
	rc = rt_tracefs_dir(dir, sizeof(dir), err);
	if (rc == 0)
		rc = rt_tracefs_add(dir, path, offset, o->retprobe, name, sizeof(name), err);
	if (rc)
		return rc;
	u->tracefs_dir = strdup(dir);
	u->tracefs_event = malloc(sizeof(EVENT_GROUP) + strlen(name) + 1);
	if (!u->tracefs_dir || !u->tracefs_event) {
		rt_tracefs_remove(dir, name);
		free(u->tracefs_event);
		u->tracefs_event = NULL;
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

/* ---- uprobe_multi links --------------------------------------------------- */

#define UPROBE_MULTI_RETURN 1u /* BPF_F_UPROBE_MULTI_RETURN */

static int link_create_uprobe_multi(int prog_fd, const char *path, const uint64_t *offsets,
				    size_t n, pid_t pid, bool retprobe)
{
	struct uprobe_multi_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (uint32_t)prog_fd;
	attr.attach_type = RT_TRACE_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)path;
	attr.offsets = (uint64_t)(uintptr_t)offsets;
	attr.cnt = (uint32_t)n;
	attr.multi_flags = retprobe ? UPROBE_MULTI_RETURN : 0;
	attr.pid = pid > 0 ? (uint32_t)pid : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

int gs_uprobe_multi_supported(struct gs_error *err)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = RT_TRACE_UPROBE_MULTI);
	uint64_t offset = 0;
	int prog, link;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "gs_probe_multi", "GPL", ret0, 2, &o);
	if (prog < 0)
		return gs_errorf(err, prog, "this kernel has no uprobe_multi links (Linux 6.6+): "
				 "loading a BPF_TRACE_UPROBE_MULTI program failed: %s",
				 strerror(-prog));
	/* A directory is no binary: a kernel with the links says EBADF. */
	link = link_create_uprobe_multi(prog, "/", &offset, 1, 0, false);
	close(prog);
	if (link >= 0) {
		close(link);
		return 0;
	}
	if (link == -EBADF)
		return 0;
	return gs_errorf(err, link, "this kernel has no uprobe_multi links (Linux 6.6+): "
			 "BPF_LINK_CREATE said %s", strerror(-link));
}

static int attach_multi(int prog_fd, const char *path, const uint64_t *offsets, size_t n,
			const struct gs_uprobe_opts *o, struct gs_uprobe *u, struct gs_error *err)
{
	int fd;

	fd = link_create_uprobe_multi(prog_fd, path, offsets, n, o->pid, o->retprobe);
	if (fd < 0)
		return gs_errorf(err, fd, "cannot create a uprobe_multi link at %s+0x%llx%s%s: %s%s",
				 path, (unsigned long long)offsets[0],
				 n > 1 ? " and more" : "", o->pid > 0 ? " for that pid" : "",
				 attach_strerror(fd), open_hint(fd));
	u->link_fd = fd;
	return 0;
}

/* ---- the API ------------------------------------------------------------- */

int gs_uprobe_attach_offsets(int prog_fd, const char *path, const uint64_t *offsets, size_t n,
			     const struct gs_uprobe_opts *opts, struct gs_uprobe **out,
			     struct gs_error *err)
{
	struct gs_uprobe_opts o;
	struct gs_uprobe *u;
	int type, ret_bit, rc;

	*out = NULL;
	rc = OPTS_COPY(&o, opts, gs_uprobe_opts, err);
	if (rc)
		return rc;
	if (!n)
		return gs_errorf(err, -EINVAL, "no offset to attach to in %s", path);
	if (access(path, F_OK) != 0)
		return gs_errorf(err, -errno, "cannot attach to %s: %s; check the path", path,
				 strerror(errno));
	u = calloc(1, sizeof(*u));
	if (!u || !(u->fds = calloc(n, sizeof(*u->fds)))) {
		free(u);
		return gs_errorf(err, -ENOMEM, "out of memory attaching to %s", path);
	}
	u->link_fd = -1;
	if (o.multi_link) {
		rc = attach_multi(prog_fd, path, offsets, n, &o, u, err);
	} else if (!o.force_tracefs && pmu_info(&type, &ret_bit) == 0) {
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = attach_pmu(prog_fd, path, offsets[i], &o, type, ret_bit, u, err);
	} else {
		if (n > 1)
			rc = gs_errorf(err, -EINVAL, "tracefs uprobes take one offset each");
		else
			rc = attach_tracefs(prog_fd, path, offsets[0], &o, u, err);
	}
	if (rc) {
		gs_uprobe_detach(u);
		return rc;
	}
	*out = u;
	return 0;
}

int gs_uprobe_attach(int prog_fd, const char *path, uint64_t offset,
		     const struct gs_uprobe_opts *opts, struct gs_uprobe **out, struct gs_error *err)
{
	return gs_uprobe_attach_offsets(prog_fd, path, &offset, 1, opts, out, err);
}

void gs_uprobe_detach(struct gs_uprobe *u)
{
	if (!u)
		return;
	if (u->link_fd >= 0)
		close(u->link_fd);
	for (size_t i = 0; i < u->nfds; i++)
		close(u->fds[i]);
	if (u->tracefs_event && u->tracefs_dir)
		rt_tracefs_remove(u->tracefs_dir, strchr(u->tracefs_event, '/') + 1);
	free(u->tracefs_event);
	free(u->tracefs_dir);
	free(u->fds);
	free(u);
}

struct detach_work {
	struct gs_uprobe **v;
	size_t n;
	atomic_size_t next, done;
};

static void *detach_worker(void *arg)
{
	struct detach_work *w = arg;
	size_t i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->n) {
		gs_uprobe_detach(w->v[i]);
		w->v[i] = NULL;
		atomic_fetch_add(&w->done, 1);
	}
	return NULL;
}

void gs_uprobes_detach(struct gs_uprobe **v, size_t n)
{
	pthread_t threads[DETACH_THREADS_MAX];
	struct detach_work w = { .v = v, .n = n };
	size_t nthreads = n < DETACH_THREADS_MAX ? n : DETACH_THREADS_MAX, started = 0;
	pthread_attr_t attr;

	atomic_init(&w.next, 0);
	atomic_init(&w.done, 0);
	/* Workers only wait in close(): a small stack each. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	if (n > 1)
		for (; started < nthreads - 1; started++)
			if (pthread_create(&threads[started], &attr, detach_worker, &w) != 0)
				break;
	pthread_attr_destroy(&attr);
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
	return rt_tracefs_dir(dir, sizeof(dir), err);
}
