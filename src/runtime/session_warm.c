/* The kernel's uprobe registration waited out while the programs verify.
 * Registering a uprobe takes the write side of a per-CPU rwsem in
 * uprobe_register (dup_mmap_sem), whose rcu_sync waits an RCU grace period
 * (6-18 ms here, more on a loaded machine) unless a registration passed one
 * less than about a grace period ago. A thread started with the session
 * links a program that does nothing (r0 = 0) at the first probe's address,
 * and again every WARM_PERIOD_US until the first real attach asks it to
 * stop: that wait is then spent while the maps are made and the verifier
 * works, and the real links are made without it. Once every probe is
 * attached, the do-nothing links are released on a thread (links release
 * in parallel, each after a grace period of its own). */
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "session_int.h"

#define WARM_PERIOD_US 2000
#define WARM_MAX_LINKS 32 /* 64 ms of verifying: the window long closed after */

struct rt_warm {
	pthread_t th, releaser;
	bool joined, releasing;
	atomic_bool stop;
	int prog_fd;
	const char *path;
	uint64_t offset;
	pid_t pid;
	struct gs_uprobe *v[WARM_MAX_LINKS];
	size_t n;
};

static void *warm_up(void *arg)
{
	struct rt_warm *w = arg;
	struct gs_uprobe_opts uo = { .sz = sizeof(uo), .pid = w->pid, .multi_link = true };

	while (w->n < WARM_MAX_LINKS) {
		struct gs_error ignored;

		if (gs_uprobe_attach(w->prog_fd, w->path, w->offset, &uo, &w->v[w->n],
				     &ignored) != 0)
			break;
		w->n++;
		for (int i = 0; i < 4 && !atomic_load(&w->stop); i++)
			usleep(WARM_PERIOD_US / 4);
		if (atomic_load(&w->stop))
			break;
	}
	return NULL;
}

void rt_warm_start(struct gs_session *s)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = RT_TRACE_UPROBE_MULTI);
	const struct gs_plan *plan = s->plan;
	const struct gs_plan_trace *t = NULL;
	struct rt_warm *w;

	/* Links only: perf events release one at a time, slowly. */
	if (!s->multi)
		return;
	for (size_t i = 0; i < gs_plan_trace_count(plan) && !t; i++) {
		const struct gs_plan_trace *c = gs_plan_trace_at(plan, i);

		if (!gs_plan_trace_samples(c) && c->nprobes)
			t = c;
	}
	if (!t || !(w = calloc(1, sizeof(*w))))
		return;
	w->path = t->target.module;
	w->offset = t->probes[0].loc->file_offset;
	w->pid = s->pid;
	w->prog_fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "gs_warm", "GPL", ret0, 2, &o);
	if (w->prog_fd < 0 || pthread_create(&w->th, NULL, warm_up, w) != 0) {
		if (w->prog_fd >= 0)
			close(w->prog_fd);
		free(w);
		return;
	}
	s->warm = w;
}

void rt_warm_stop(struct rt_warm *w)
{
	if (!w || w->joined)
		return;
	atomic_store(&w->stop, true);
	pthread_join(w->th, NULL);
	w->joined = true;
	close(w->prog_fd); /* the links hold it until they are released */
	w->prog_fd = -1;
}

static void *release(void *arg)
{
	struct rt_warm *w = arg;

	gs_uprobes_detach(w->v, w->n);
	return NULL;
}

void rt_warm_release(struct gs_session *s)
{
	struct rt_warm *w = s->warm;

	if (!w || w->releasing)
		return;
	rt_warm_stop(w);
	w->releasing = pthread_create(&w->releaser, NULL, release, w) == 0;
}

void rt_warm_free(struct gs_session *s)
{
	struct rt_warm *w = s->warm;

	if (!w)
		return;
	rt_warm_stop(w);
	if (w->releasing)
		pthread_join(w->releaser, NULL);
	else
		gs_uprobes_detach(w->v, w->n);
	free(w);
	s->warm = NULL;
}
