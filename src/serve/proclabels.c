/* The names a profile's samples carry (comm, exe, container id), per
 * process, read from /proc by the modfile layer once per TTL: a drain
 * brings many stacks of few processes, and /proc is not read for each.
 * Bounded: SRV_PROCLABELS_MAX processes, expired ones swept, the oldest
 * replaced when full, so an agent of --all on a host where processes
 * come and go keeps a flat size. A hash of pid over chains of indices
 * into one dense array of entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/modfile.h>

#include "serve_int.h"

#define NBUCKETS 8192 /* a power of two, twice the entries at most */
#define NONE (-1)

struct entry {
	pid_t pid;
	bool gone;
	int64_t read_ns;
	char comm[sizeof(((struct gs_procinfo *)0)->comm)];
	char container[GS_CONTAINER_ID_LEN + 1];
	char *exe;
	int32_t next; /* in its bucket's chain */
};

struct srv_proclabels {
	struct entry *v;
	size_t n;
	int32_t heads[NBUCKETS];
	struct srv_procnames names; /* the last answer */
};

static size_t bucket(pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (NBUCKETS - 1);
}

struct srv_proclabels *srv_proclabels_new(void)
{
	struct srv_proclabels *l = calloc(1, sizeof(*l));

	if (!l || !(l->v = calloc(SRV_PROCLABELS_MAX, sizeof(*l->v)))) {
		free(l);
		return NULL;
	}
	for (size_t i = 0; i < NBUCKETS; i++)
		l->heads[i] = NONE;
	return l;
}

void srv_proclabels_free(struct srv_proclabels *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].exe);
	free(l->v);
	free(l);
}

/* The link that points at entry i (a bucket's head or an entry's next). */
static int32_t *link_to(struct srv_proclabels *l, int32_t i)
{
	int32_t *at = &l->heads[bucket(l->v[i].pid)];

	while (*at != i)
		at = &l->v[*at].next;
	return at;
}

/* Removes entry i: the last entry moves into its place. */
static void drop(struct srv_proclabels *l, int32_t i)
{
	int32_t last = (int32_t)l->n - 1;

	*link_to(l, i) = l->v[i].next;
	free(l->v[i].exe);
	if (i != last) {
		*link_to(l, last) = i;
		l->v[i] = l->v[last];
	}
	l->n--;
}

size_t srv_proclabels_sweep(struct srv_proclabels *l, int64_t now_ns)
{
	for (size_t i = 0; i < l->n;) {
		if (now_ns - l->v[i].read_ns >= SRV_PROCLABELS_TTL_NS)
			drop(l, (int32_t)i); /* the last one moved here: look again */
		else
			i++;
	}
	return l->n;
}

size_t srv_proclabels_count(const struct srv_proclabels *l)
{
	return l->n;
}

/* A new entry for pid, read now: the expired ones go first when full,
 * then the oldest. */
static struct entry *add(struct srv_proclabels *l, pid_t pid, int64_t now_ns)
{
	struct gs_procinfo info;
	struct entry *e;
	size_t b;

	if (l->n == SRV_PROCLABELS_MAX && srv_proclabels_sweep(l, now_ns) == SRV_PROCLABELS_MAX) {
		size_t oldest = 0;

		for (size_t i = 1; i < l->n; i++)
			if (l->v[i].read_ns < l->v[oldest].read_ns)
				oldest = i;
		drop(l, (int32_t)oldest);
	}
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->read_ns = now_ns;
	e->gone = gs_procinfo_read(pid, &info) != 0;
	if (!e->gone) {
		memcpy(e->comm, info.comm, sizeof(e->comm));
		memcpy(e->container, info.container, sizeof(e->container));
		e->exe = info.exe[0] ? strdup(info.exe) : NULL; /* none without memory */
	}
	b = bucket(pid);
	e->next = l->heads[b];
	l->heads[b] = (int32_t)l->n++;
	return e;
}

const struct srv_procnames *srv_proclabels_get(struct srv_proclabels *l, pid_t pid,
					       int64_t now_ns)
{
	struct entry *e = NULL;

	if (pid <= 0)
		return NULL;
	for (int32_t i = l->heads[bucket(pid)]; i != NONE; i = l->v[i].next) {
		if (l->v[i].pid == pid) {
			e = &l->v[i];
			break;
		}
	}
	if (e && now_ns - e->read_ns >= SRV_PROCLABELS_TTL_NS) {
		drop(l, (int32_t)(e - l->v));
		e = NULL;
	}
	if (!e)
		e = add(l, pid, now_ns);
	if (e->gone)
		return NULL;
	l->names = (struct srv_procnames){ .comm = e->comm, .exe = e->exe ? e->exe : "",
					   .container = e->container };
	return &l->names;
}
