/* gstrace's own metrics on /metrics: its build, what each trace
 * delivered, lost and cost the kernel (BPF run time and runs), the maps'
 * memory, the profile samples, the scrapes and the series left out of
 * them, and the standard process metrics Prometheus' client libraries
 * export (process_cpu_seconds_total, ...), so dashboards made for those
 * work unchanged. Written from figures (struct srv_health), which
 * metrics.c reads from the session and srv_process_read from /proc. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "serve_int.h"

#define NS_PER_S 1e9

/* A family read from one figure of h, or from one of each trace's. */
struct health_family {
	const char *name;
	enum gs_prom_type type;
	const char *unit;
	const char *help;
	struct gs_prom_num (*global)(const struct srv_health *h);
	struct gs_prom_num (*per_trace)(const struct srv_trace_health *t);
};

static struct gs_prom_num lost(const struct srv_trace_health *t)
{
	return GS_PROM_INT(t->st.lost);
}

static struct gs_prom_num run_time(const struct srv_trace_health *t)
{
	return GS_PROM_SCALED(t->st.run_time_ns, -9);
}

static struct gs_prom_num runs(const struct srv_trace_health *t)
{
	return GS_PROM_INT(t->st.run_cnt);
}

static struct gs_prom_num stacks_dropped(const struct srv_trace_health *t)
{
	return GS_PROM_INT(t->st.stacks_dropped);
}

static struct gs_prom_num agg_dropped(const struct srv_health *h)
{
	return GS_PROM_INT(h->agg_dropped);
}

static struct gs_prom_num map_bytes(const struct srv_health *h)
{
	return GS_PROM_INT(h->map_bytes);
}

static struct gs_prom_num samples(const struct srv_health *h)
{
	return GS_PROM_INT(h->samples);
}

static struct gs_prom_num series_dropped(const struct srv_health *h)
{
	return GS_PROM_INT(h->series_dropped);
}

static struct gs_prom_num scrapes(const struct srv_health *h)
{
	return GS_PROM_INT(h->scrapes);
}

static struct gs_prom_num cpu(const struct srv_health *h)
{
	return GS_PROM_FLOAT(h->process.cpu_seconds);
}

static struct gs_prom_num resident(const struct srv_health *h)
{
	return GS_PROM_INT(h->process.resident_bytes);
}

static struct gs_prom_num open_fds(const struct srv_health *h)
{
	return GS_PROM_INT(h->process.open_fds);
}

static struct gs_prom_num start_time(const struct srv_health *h)
{
	return GS_PROM_FLOAT(h->process.start_time_seconds);
}

/* After gstrace_build_info and gstrace_events_delivered_total (their
 * labels are their own), in the order they are written. */
static const struct health_family families[] = {
	{ "gstrace_events_lost", GS_PROM_COUNTER, NULL,
	  "Events of the trace the kernel could not deliver (a full buffer).", NULL, lost },
	{ "gstrace_bpf_run_time_seconds", GS_PROM_COUNTER, "seconds",
	  "Time the trace's BPF programs ran, while the kernel's run statistics are on.",
	  NULL, run_time },
	{ "gstrace_bpf_runs", GS_PROM_COUNTER, NULL,
	  "Runs of the trace's BPF programs, while the kernel's run statistics are on.",
	  NULL, runs },
	{ "gstrace_stacks_dropped", GS_PROM_COUNTER, NULL,
	  "Stacks of the trace a full count map could not take.", NULL, stacks_dropped },
	{ "gstrace_aggregation_updates_dropped", GS_PROM_COUNTER, NULL,
	  "Aggregation updates a full map could not take.", agg_dropped, NULL },
	{ "gstrace_bpf_map_memory_bytes", GS_PROM_GAUGE, "bytes",
	  "Memory the kernel holds for the session's BPF maps.", map_bytes, NULL },
	{ "gstrace_profile_samples", GS_PROM_COUNTER, NULL,
	  "CPU samples the profiler drained from BPF.", samples, NULL },
	{ "gstrace_series_dropped", GS_PROM_COUNTER, NULL,
	  "Series scrapes left out: past --serve-max-series, or a counter below zero.",
	  series_dropped, NULL },
	{ "gstrace_scrapes", GS_PROM_COUNTER, NULL, "Scrapes of /metrics, this one included.",
	  scrapes, NULL },
	{ "process_cpu_seconds", GS_PROM_COUNTER, "seconds",
	  "Total user and system CPU time spent in seconds.", cpu, NULL },
	{ "process_resident_memory_bytes", GS_PROM_GAUGE, "bytes",
	  "Resident memory size in bytes.", resident, NULL },
	{ "process_open_fds", GS_PROM_GAUGE, NULL, "Number of open file descriptors.", open_fds,
	  NULL },
	{ "process_start_time_seconds", GS_PROM_GAUGE, "seconds",
	  "Start time of the process since unix epoch in seconds.", start_time, NULL },
};

#define BUILD "gstrace_build"
#define DELIVERED "gstrace_events_delivered"

int srv_health_reserve(struct gs_prom *w, struct gs_error *err)
{
	int rc = gs_prom_reserve(w, BUILD, GS_PROM_INFO, err);

	if (!rc)
		rc = gs_prom_reserve(w, DELIVERED, GS_PROM_COUNTER, err);
	for (size_t i = 0; !rc && i < sizeof(families) / sizeof(families[0]); i++)
		rc = gs_prom_reserve(w, families[i].name, families[i].type, err);
	return rc;
}

/* The series' labels: the --serve-label ones, then extra. */
static size_t series_labels(struct gs_prom_label *v, const struct srv_labels *labels,
			    const struct gs_prom_label *extra, size_t nextra)
{
	for (size_t i = 0; i < labels->n; i++)
		v[i] = labels->v[i];
	for (size_t i = 0; i < nextra; i++)
		v[labels->n + i] = extra[i];
	return labels->n + nextra;
}

static int write_family(struct gs_prom *w, const struct health_family *fam,
			const struct srv_health *h, const struct srv_labels *labels,
			struct gs_error *err)
{
	struct gs_prom_label v[SRV_MAX_LABELS + 2];
	char id[16];
	int rc = gs_prom_family(w, fam->name, fam->type, fam->unit, fam->help, err);

	if (!rc && fam->global)
		rc = gs_prom_sample(w, GS_PROM_VALUE, v, series_labels(v, labels, NULL, 0),
				    fam->global(h), err);
	for (size_t i = 0; !rc && fam->per_trace && i < h->ntraces; i++) {
		struct gs_prom_label trace = { "trace", id };

		snprintf(id, sizeof(id), "%" PRIu32, h->traces[i].id);
		rc = gs_prom_sample(w, GS_PROM_VALUE, v, series_labels(v, labels, &trace, 1),
				    fam->per_trace(&h->traces[i]), err);
	}
	return rc;
}

int srv_health_write(struct gs_prom *w, const struct srv_health *h,
		     const struct srv_labels *labels, struct gs_error *err)
{
	struct gs_prom_label v[SRV_MAX_LABELS + 2], version = { "version", h->version };
	char id[16];
	int rc = gs_prom_family(w, BUILD, GS_PROM_INFO, NULL, "gstrace's version.", err);

	if (!rc)
		rc = gs_prom_sample(w, GS_PROM_VALUE, v, series_labels(v, labels, &version, 1),
				    GS_PROM_INT(1), err);
	if (!rc)
		rc = gs_prom_family(w, DELIVERED, GS_PROM_COUNTER, NULL,
				    "Events of the trace read from the kernel.", err);
	for (size_t i = 0; !rc && i < h->ntraces; i++) {
		struct gs_prom_label trace[] = { { "trace", id },
						 { "target", h->traces[i].target ?
							     h->traces[i].target : "" } };

		if (!h->traces[i].has_delivered)
			continue;
		snprintf(id, sizeof(id), "%" PRIu32, h->traces[i].id);
		rc = gs_prom_sample(w, GS_PROM_VALUE, v, series_labels(v, labels, trace, 2),
				    GS_PROM_INT(h->traces[i].delivered), err);
	}
	for (size_t i = 0; !rc && i < sizeof(families) / sizeof(families[0]); i++)
		rc = write_family(w, &families[i], h, labels, err);
	return rc;
}

/* ---- this process ---------------------------------------------------------- */

static int resident_bytes(uint64_t *out, struct gs_error *err)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long long size, resident;
	int n;

	if (!f)
		return gs_errorf(err, -errno, "cannot read /proc/self/statm: %s", strerror(errno));
	n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	if (n != 2)
		return gs_errorf(err, -EIO, "cannot read /proc/self/statm: unexpected text");
	*out = resident * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

/* The descriptors in /proc/self/fd, less the one reading it. */
static int count_fds(uint64_t *out, struct gs_error *err)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	uint64_t n = 0;

	if (!d)
		return gs_errorf(err, -errno, "cannot list /proc/self/fd: %s", strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			n++;
	closedir(d);
	*out = n;
	return 0;
}

/* /proc/self/stat's start time counts clock ticks since boot (the boot
 * clock's): the epoch's time of the boot added. */
static int start_time_seconds(double *out, struct gs_error *err)
{
	struct gs_proc_stat st;
	struct timespec real, boot;
	int rc = gs_proc_stat_read(0, &st, err);

	if (rc)
		return rc;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	*out = (double)(real.tv_sec - boot.tv_sec) + (double)(real.tv_nsec - boot.tv_nsec) / NS_PER_S +
	       (double)st.start_time / (double)sysconf(_SC_CLK_TCK);
	return 0;
}

int srv_process_read(struct srv_process *p, struct gs_error *err)
{
	struct rusage ru;
	int rc;

	memset(p, 0, sizeof(*p));
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return gs_errorf(err, -errno, "getrusage: %s", strerror(errno));
	p->cpu_seconds = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	rc = resident_bytes(&p->resident_bytes, err);
	if (!rc)
		rc = count_fds(&p->open_fds, err);
	if (!rc)
		rc = start_time_seconds(&p->start_time_seconds, err);
	return rc;
}
