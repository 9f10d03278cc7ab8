/* What a gstrace run holds in the kernel, read without bpftool: the ids in
 * /proc/PID/fdinfo of its BPF programs, maps and links while it runs,
 * looked up by id once it has ended; and its tracefs uprobe entries, which
 * are named after its pid. */
#include <dirent.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "faults.h"

static void add_id(uint32_t **v, size_t *n, uint32_t id)
{
	uint32_t *nv;

	/* a link's fdinfo names its program too: each id once */
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == id)
			return;
	nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		abort();
	*v = nv;
	(*v)[(*n)++] = id;
}

bool faults_objects_read(pid_t pid, struct faults_objects *o)
{
	char dir[64], path[384], line[256];
	struct dirent *de;
	DIR *d;

	memset(o, 0, sizeof(*o));
	o->pid = pid;
	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", (int)pid);
	d = opendir(dir);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			unsigned id;

			if (sscanf(line, "prog_id: %u", &id) == 1)
				add_id(&o->progs, &o->nprogs, id);
			else if (sscanf(line, "map_id: %u", &id) == 1)
				add_id(&o->maps, &o->nmaps, id);
			else if (sscanf(line, "link_id: %u", &id) == 1)
				add_id(&o->links, &o->nlinks, id);
		}
		if (f)
			fclose(f);
	}
	closedir(d);
	return true;
}

void faults_objects_free(struct faults_objects *o)
{
	free(o->progs);
	free(o->maps);
	free(o->links);
	memset(o, 0, sizeof(*o));
}

/* Whether the object `id` still exists (its fd can be had by id). */
static bool alive(int cmd, uint32_t id)
{
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id; /* prog_id, map_id and link_id share the slot */
	fd = syscall(__NR_bpf, cmd, &attr, sizeof(attr));
	if (fd >= 0) {
		close((int)fd);
		return true;
	}
	return errno != ENOENT;
}

static size_t count_alive(int cmd, const uint32_t *ids, size_t n, uint32_t *first)
{
	size_t live = 0;

	for (size_t i = 0; i < n; i++) {
		if (alive(cmd, ids[i])) {
			if (!live)
				*first = ids[i];
			live++;
		}
	}
	return live;
}

void faults_expect_no_events_of(struct e2e_ctx *c, pid_t gstrace_pid)
{
	char needle[32];
	char *events = e2e_uprobe_events();

	snprintf(needle, sizeof(needle), "gstrace/gs_p%d_", (int)gstrace_pid);
	e2e_expect(c, !strstr(events, needle), "tracefs uprobe_events still has an entry of "
		   "gstrace pid %d:\n%s", (int)gstrace_pid, events);
	free(events);
}

void faults_expect_released(struct e2e_ctx *c, const struct faults_objects *o)
{
	size_t progs = 0, maps = 0, links = 0;
	uint32_t p = 0, m = 0, l = 0;

	/* Released objects are freed after RCU grace periods: look again. */
	for (int i = 0; i < 60; i++) {
		progs = count_alive(BPF_PROG_GET_FD_BY_ID, o->progs, o->nprogs, &p);
		maps = count_alive(BPF_MAP_GET_FD_BY_ID, o->maps, o->nmaps, &m);
		links = count_alive(BPF_LINK_GET_FD_BY_ID, o->links, o->nlinks, &l);
		if (!progs && !maps && !links)
			break;
		usleep(50000);
	}
	e2e_note(c, "gstrace pid %d held %zu programs, %zu maps, %zu links\n", (int)o->pid,
		 o->nprogs, o->nmaps, o->nlinks);
	e2e_expect(c, progs == 0, "%zu of its %zu BPF programs still exist (id %u)", progs,
		   o->nprogs, p);
	e2e_expect(c, maps == 0, "%zu of its %zu BPF maps still exist (id %u)", maps, o->nmaps, m);
	e2e_expect(c, links == 0, "%zu of its %zu BPF links still exist (id %u)", links,
		   o->nlinks, l);
	faults_expect_no_events_of(c, o->pid);
}
