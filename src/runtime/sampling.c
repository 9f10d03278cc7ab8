/* The clock of CPU samples (gs_plan_add_samples): one software cpu-clock
 * perf event per online CPU, in frequency mode, each running the sample
 * program (PERF_EVENT_IOC_SET_BPF, which every kernel with BPF perf_event
 * programs has). Closing the events detaches the program; stopping them
 * (PERF_EVENT_IOC_DISABLE) stops the clock, program kept. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gs/runtime.h>

#include "rt_int.h"

#define CPU_LIST "/sys/devices/system/cpu/online"
#define MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"

struct rt_sampler {
	int *fds;
	size_t n;
};

/* The online CPUs ("0-3,5") as a malloc'd array: 0 or -errno. */
static int online_cpus(int **out, size_t *n, struct gs_error *err)
{
	char buf[4096];
	FILE *f = fopen(CPU_LIST, "r");
	int *v = NULL;
	size_t cap = 0;
	char *p;

	*n = 0;
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return gs_errorf(err, -EIO, "cannot read %s: %s", CPU_LIST,
				 strerror(errno ? errno : EIO));
	}
	fclose(f);
	for (p = buf; *p && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && c < 65536; c++) {
			if (*n == cap) {
				int *w = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

				if (!w) {
					free(v);
					return gs_errorf(err, -ENOMEM, "out of memory listing CPUs");
				}
				v = w;
			}
			v[(*n)++] = (int)c;
		}
		p = *end == ',' ? end + 1 : end;
	}
	*out = v;
	return *n ? 0 : gs_errorf(err, -EIO, "%s lists no CPU", CPU_LIST);
}

static unsigned long max_rate(void)
{
	unsigned long v = 0;
	FILE *f = fopen(MAX_RATE, "r");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

int rt_sampler_attach(int prog_fd, uint32_t hz, bool paused, struct rt_sampler **out,
		      struct gs_error *err)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_freq = hz, .freq = 1,
		.disabled = 1,
	};
	struct rt_sampler *s;
	size_t ncpus = 0;
	int *cpus = NULL;
	int rc = online_cpus(&cpus, &ncpus, err);

	*out = NULL;
	if (rc) {
		free(cpus);
		return rc;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		free(cpus);
		return gs_errorf(err, -ENOMEM, "out of memory starting the CPU clock");
	}
	s->fds = calloc(ncpus, sizeof(*s->fds));
	for (size_t i = 0; s->fds && i < ncpus && rc == 0; i++) {
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpus[i], -1,
				      PERF_FLAG_FD_CLOEXEC);
		unsigned long rate;

		if (fd < 0 && errno == ENODEV)
			continue; /* went offline meanwhile */
		if (fd < 0) {
			rc = -errno;
			rate = max_rate();
			if (rc == -EINVAL && rate && hz > rate)
				gs_errorf(err, rc, "cannot sample at %u Hz: the kernel allows at most "
					  "%lu (%s); sample less often", hz, rate, MAX_RATE);
			else
				gs_errorf(err, rc, "cannot open the cpu-clock event of CPU %d: %s%s",
					  cpus[i], strerror(-rc), rc == -EACCES || rc == -EPERM ?
					  " (run as root, or with CAP_PERFMON)" : "");
			break;
		}
		s->fds[s->n++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
		    (!paused && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)))
			rc = gs_errorf(err, -errno, "cannot run the sample program on CPU %d: %s",
				       cpus[i], strerror(errno));
	}
	if (!s->fds)
		rc = gs_errorf(err, -ENOMEM, "out of memory starting the CPU clock");
	free(cpus);
	if (rc) {
		rt_sampler_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int rt_sampler_enable(struct rt_sampler *s, bool on, struct gs_error *err)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (ioctl(s->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			return gs_errorf(err, -errno, "cannot %s the CPU clock: %s",
					 on ? "start" : "stop", strerror(errno));
	return 0;
}

void rt_sampler_free(struct rt_sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		close(s->fds[i]);
	free(s->fds);
	free(s);
}
