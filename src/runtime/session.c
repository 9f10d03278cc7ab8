/* A tracing session: a built trace plan put into the kernel in the order
 * it needs (create maps with the shared ones pooled, fill the unwind maps,
 * load, attach) for every probe, one reader over all outputs, a periodic
 * refresh when a process maps new files, and a teardown that detaches
 * every probe at once. It never resolves or builds: the plan did. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <gs/internal/program.h>
#include <gs/runtime.h>

#include "base.h"
#include "opts.h"
#include "rt_int.h"
#include "session_int.h"

/* The context of the one program writing a buffer. */
static const struct gs_trace_context *program_context(void *arg, uint64_t trace_id)
{
	const struct gs_program *prog = arg;

	return prog->trace_id == trace_id ? &prog->ctx : NULL;
}

static const struct gs_trace_context *context_of(void *arg, uint64_t trace_id)
{
	struct gs_session *s = arg;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].prog->trace_id == trace_id)
			return &s->v[i].prog->ctx;
	return NULL;
}

int gs_session_new(const struct gs_session_opts *opts, struct gs_session **out,
		   struct gs_error *err)
{
	struct gs_session *s;
	int rc;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return gs_errorf(err, -ENOMEM, "out of memory creating the session");
	rc = OPTS_COPY(&s->opts, opts, gs_session_opts, err);
	if (!rc && !s->opts.on_event)
		rc = gs_errorf(err, -EINVAL, "gs_session_new needs options with an on_event "
			       "callback");
	if (rc) {
		free(s);
		return rc;
	}
	GS_OPTS(gs_decoder_opts, dec, .lookup = context_of, .lookup_arg = s);
	GS_OPTS(gs_reader_opts, ro, .decoder = &dec, .on_event = s->opts.on_event,
		.arg = s->opts.arg);
	rc = gs_reader_new(&ro, &s->reader, err);
	if (rc) {
		gs_session_free(s);
		return rc;
	}
	s->last_refresh_ns = base_now_ns();
	*out = s;
	return 0;
}

static void trace_close(struct session_trace *t)
{
	rt_sampler_free(t->sampler);
	gs_uprobe_detach(t->probe);
	gs_uprobe_detach(t->entry_probe);
	gs_loaded_close(&t->loaded);
	gs_bpf_maps_close(&t->maps);
	memset(t, 0, sizeof(*t));
}

/* The rows a probe's program needs in its maps: the plan's shared rows,
 * written once into the pooled map, or the probe module's own. */
static int write_rows(struct gs_session *s, const struct gs_plan_probe *pr,
		      struct gs_bpf_maps *maps, struct gs_error *err)
{
	struct gs_bt_plan rows = { .probe = pr->bt_probe };
	int rc;

	if (pr->bt_probe.module_ranges) {
		if (s->shared_rows_written)
			return 0;
		rows.rows = *gs_plan_shared_rows(s->plan);
		rc = gs_procfill_rows(maps, &rows, err);
		s->shared_rows_written = rc == 0;
		return rc;
	}
	if (!pr->rows)
		return 0;
	rows.rows = *pr->rows;
	return gs_procfill_rows(maps, &rows, err);
}

/* The unwind maps a probe reads: the processes' module offsets (bt and
 * globals), and for bt the rows and module snapshots. */
static int fill_maps(struct gs_session *s, const struct gs_plan_trace *t,
		     const struct gs_plan_probe *pr, struct session_trace *out, bool offsets,
		     struct gs_error *err)
{
	int rc = 0;

	if (offsets && s->pid > 0)
		rc = rt_session_fill_pid(s, s->pid, err);
	if (rc == 0 && offsets && s->pid <= 0 && s->sample_scope == GS_SAMPLE_ALL)
		rc = rt_session_scan(s, err);
	else if (rc == 0 && offsets && s->pid <= 0 &&
		 (rc = rt_session_note_module(s, t->target.module, err)) == 0)
		rc = rt_session_fill_targets(s, err);
	if (rc == 0 && t->bt)
		rc = write_rows(s, pr, &out->maps, err);
	/* The loop walker's snapshots carry each module's rows: refresh them. */
	for (size_t i = 0; rc == 0 && t->bt && i < s->nfills; i++)
		rc = gs_procfill_snapshot(&s->fills[i], &s->pool, err);
	return rc;
}

/* Opens the loop walker's gate once the unwind maps are written: its
 * programs emit nothing while bt_snapshot_gen.open is 0. */
static int open_gate(struct gs_session *s, struct gs_error *err)
{
	const struct gs_bpf_map *map = gs_bpf_maps_find(&s->pool, GS_MAP_NAME_BT_GEN);
	uint32_t key = 0;
	struct gs_bt_gen gen;
	int rc;

	if (!map || s->gate_open)
		return 0;
	rc = bpf_map_lookup_elem(map->fd, &key, &gen);
	gen.open = 1;
	if (rc == 0)
		rc = bpf_map_update_elem(map->fd, &key, &gen, BPF_ANY);
	if (rc)
		return gs_errorf(err, rc, "cannot write %s: %s", GS_MAP_NAME_BT_GEN, strerror(-rc));
	s->gate_open = true;
	return 0;
}

/* With a pid: a process's dlopen and dlclose reach the module maps at
 * once, through a uprobe on its dynamic linker's hook (none: the refresh
 * timer alone); holding, the process waits for them, and the hook's
 * doorbell wakes the reader. Once per session, when its modules are known. */
static void start_dlhook(struct gs_session *s)
{
	struct gs_error ignored;
	int fd;

	if (s->dlhook_tried || s->pid <= 0 || !s->nfills)
		return;
	s->dlhook_tried = true;
	if (rt_dlhook_new(&s->fills[0], rt_plan_holds_dlopen(s->plan), s->opts.force_tracefs,
			  &s->dlhook, &ignored))
		s->dlhook = NULL;
	if ((fd = rt_dlhook_doorbell_fd(s->dlhook)) >= 0)
		rt_reader_wake_on(s->reader, fd, &ignored);
}

/* An attach on its own thread: registering a uprobe waits for an RCU
 * grace period (about 10 ms) that the caller spends writing rows. */
struct attach_job {
	struct rt_warm *warm; /* stopped before this attach */
	int prog_fd;
	const char *path;
	uint64_t offset;
	struct gs_uprobe_opts uo;
	struct gs_uprobe *probe;
	struct gs_error err;
	int rc;
};

static void *attach_thread(void *arg)
{
	struct attach_job *j = arg;

	rt_warm_stop(j->warm);
	j->rc = gs_uprobe_attach(j->prog_fd, j->path, j->offset, &j->uo, &j->probe, &j->err);
	return NULL;
}

/* The probe's maps written (rows, snapshots, offsets); for bt, the gate
 * then opens. */
static int write_maps(struct gs_session *s, const struct gs_plan_trace *t,
		      const struct gs_plan_probe *pr, struct session_trace *out,
		      bool offsets, struct gs_error *err)
{
	int64_t t0 = base_now_ns();
	int rc = fill_maps(s, t, pr, out, offsets, err);

	if (rc == 0 && t->bt)
		rc = open_gate(s, err);
	s->times.ns[GS_PHASE_WRITE_ROWS] += base_now_ns() - t0;
	return rc;
}

/* The probe's program loaded (a rejection's report kept), and its output
 * given to the reader before the first hit: a perf event array without a
 * buffer on a CPU would lose it. Each probe's events are decoded with its
 * own program's context: the copies of one function may differ (a value
 * one copy lacks). */
static int load_and_read(struct gs_session *s, const struct gs_plan_probe *pr,
			 struct session_trace *out, const struct gs_load_opts *lo,
			 struct gs_error *err)
{
	GS_OPTS(gs_decoder_opts, dec, .lookup = program_context, .lookup_arg = (void *)pr->prog);
	int rc;

	free(s->report);
	s->report = NULL;
	rc = gs_program_load(pr->prog, &out->maps, lo, &out->loaded, &s->report, err);
	if (rc == 0)
		rc = gs_reader_add_decoding(s->reader,
					    &out->maps.v[pr->prog->map_index[GS_MAP_OUTPUT]],
					    gs_plan_program_opts(s->plan)->perf_page_count, &dec, err);
	return rc;
}

/* One probe of the plan, through to attached. The first loop-walker
 * program of a session attaches while its unwind maps are written: it is
 * gated on them. */
static int start_probe(struct gs_session *s, const struct gs_plan_trace *t,
		       const struct gs_plan_probe *pr, struct session_trace *out,
		       struct gs_error *err)
{
	struct gs_load_opts lo = { .sz = sizeof(lo), .uprobe_multi = s->multi };
	struct attach_job job = {
		.warm = s->warm,
		.path = t->target.module, .offset = pr->loc->file_offset,
		.uo = { .sz = sizeof(job.uo), .pid = s->pid, .retprobe = t->spec.retprobe,
			.force_tracefs = s->opts.force_tracefs, .multi_link = s->multi },
	};
	uint64_t *ns = s->times.ns;
	int64_t t0 = base_now_ns(), t1;
	/* bt, and globals (rebased through proc_module_offsets), need the
	 * process's module offsets. */
	bool offsets = t->bt || pr->prog->map_index[GS_MAP_PROC_OFFSETS] >= 0;
	/* Only while the gate is closed: a later probe of an open one would
	 * run before its rows are written. */
	bool gated = t->bt && pr->prog->map_index[GS_MAP_BT_GEN] >= 0 && !s->gate_open;
	bool threaded;
	pthread_t th;
	int rc;

	out->loaded.main_fd = out->loaded.step_fd = out->loaded.entry_fd = -1;
	out->prog = pr->prog;
	rc = gs_bpf_maps_create(pr->prog, &s->pool, &out->maps, err);
	ns[GS_PHASE_CREATE_MAPS] += base_now_ns() - t0;
	if (rc == 0 && !gated)
		rc = write_maps(s, t, pr, out, offsets, err);
	t0 = base_now_ns();
	if (rc == 0)
		rc = load_and_read(s, pr, out, &lo, err);
	t1 = base_now_ns();
	ns[GS_PHASE_LOAD] += t1 - t0;
	if (rc)
		return rc;
	job.prog_fd = out->loaded.main_fd;
	threaded = gated && pthread_create(&th, NULL, attach_thread, &job) == 0;
	if (gated) {
		rc = write_maps(s, t, pr, out, offsets, err);
		t1 = base_now_ns();
		/* Registering the hook's uprobe queues behind the attach's: the
		 * two share its grace period instead of waiting one each (the
		 * hook's alone took up to 16 ms, after every probe). */
		if (rc == 0 && threaded)
			start_dlhook(s);
	}
	if (threaded)
		pthread_join(th, NULL);
	else if (rc == 0)
		attach_thread(&job);
	out->probe = job.probe;
	if (rc == 0 && job.rc)
		rc = gs_errorf(err, job.rc, "%s", job.err.msg);
	/* $duration's entry program: attached after the return probe, so a
	 * call entered before it has no entry and its return is skipped. */
	if (rc == 0 && out->loaded.entry_fd >= 0) {
		struct gs_uprobe_opts eo = job.uo;

		eo.retprobe = false;
		rc = gs_uprobe_attach(out->loaded.entry_fd, job.path, job.offset, &eo,
				      &out->entry_probe, err);
	}
	ns[GS_PHASE_ATTACH] += base_now_ns() - t1;
	return rc;
}

/* CPU samples: maps created and written for the scope's processes, the
 * program loaded, then the clock started on every CPU. */
static int start_sample(struct gs_session *s, const struct gs_plan_trace *t,
			const struct gs_plan_probe *pr, struct session_trace *out,
			struct gs_error *err)
{
	struct gs_load_opts lo = { .sz = sizeof(lo) };
	uint64_t *ns = s->times.ns;
	int64_t t0 = base_now_ns(), t1;
	int rc;

	out->loaded.main_fd = out->loaded.step_fd = -1;
	out->prog = pr->prog;
	rc = gs_bpf_maps_create(pr->prog, &s->pool, &out->maps, err);
	ns[GS_PHASE_CREATE_MAPS] += base_now_ns() - t0;
	if (rc == 0)
		rc = write_maps(s, t, pr, out, true, err);
	t0 = base_now_ns();
	if (rc == 0)
		rc = load_and_read(s, pr, out, &lo, err);
	t1 = base_now_ns();
	ns[GS_PHASE_LOAD] += t1 - t0;
	if (rc == 0)
		rc = rt_sampler_attach(out->loaded.main_fd, t->sample_hz, t->sample_paused,
				       &out->sampler, err);
	ns[GS_PHASE_ATTACH] += base_now_ns() - t1;
	return rc;
}

int gs_session_start(struct gs_session *s, const struct gs_plan *plan, struct gs_error *err)
{
	size_t ntraces = gs_plan_trace_count(plan), nprobes = gs_plan_probe_count(plan);
	int rc = 0;

	if (s->plan)
		return gs_errorf(err, -EBUSY, "the session has started already: one plan per "
				 "session");
	s->plan = plan;
	s->pid = gs_plan_pid(plan);
	s->files = gs_plan_modfiles(plan);
	/* Entries a killed gstrace left in tracefs go first (never ours, never
	 * a running one's). */
	gs_uprobe_events_reap(NULL, NULL);
	/* One link per program where the kernel has them: detaching is then
	 * concurrent, perf events detach one at a time. */
	s->multi = !s->opts.force_tracefs && !s->opts.no_multi_link &&
		   gs_uprobe_multi_supported(NULL) == 0;
	rt_warm_start(s);
	/* A sampler's processes need their rows whichever trace fills them
	 * first (a script's probes come before the sampler in the plan). */
	for (size_t i = 0; i < ntraces && !s->sample_scope; i++) {
		const struct gs_plan_trace *t = gs_plan_trace_at(plan, i);

		s->sample_scope = t->spec.sample;
		s->sample_module = t->target.module;
	}
	s->v = calloc(nprobes ? nprobes : 1, sizeof(*s->v));
	if (!s->v)
		return gs_errorf(err, -ENOMEM, "out of memory starting %zu probes", nprobes);
	for (size_t i = 0; i < ntraces && rc == 0; i++) {
		const struct gs_plan_trace *t = gs_plan_trace_at(plan, i);

		for (size_t k = 0; k < t->nprobes && rc == 0; k++) {
			struct session_trace *st = &s->v[s->n];
			struct gs_error why;

			if (!t->probes[k].prog)
				return gs_errorf(err, -EINVAL, "the trace plan is not built: call "
						 "gs_plan_build() before gs_session_start()");
			rc = gs_plan_trace_samples(t) ?
				start_sample(s, t, &t->probes[k], st, &why) :
				start_probe(s, t, &t->probes[k], st, &why);
			if (rc) {
				trace_close(st);
				/* at the trace's place in the script, when there is one */
				if (t->script && t->script_trace)
					gs_script_trace_errorf(t->script, t->script_trace, err, rc,
							       "%s", why.msg);
				else
					gs_errorf(err, rc, "trace #%u (%s): %s", t->id,
						  t->pattern.text, why.msg);
			} else {
				s->n++;
			}
		}
	}
	if (rc == 0)
		start_dlhook(s);
	rt_warm_release(s);
	return rc ? rc : (int)s->n;
}

const char *gs_session_report(const struct gs_session *s)
{
	return s->report;
}

void gs_session_phase_times(const struct gs_session *s, struct gs_phase_times *t)
{
	for (int i = 0; i < GS_PHASE_COUNT; i++)
		t->ns[i] += s->times.ns[i];
}

int gs_session_poll(struct gs_session *s, int timeout_ms, struct gs_error *err)
{
	int64_t now = base_now_ns();
	bool changed = rt_dlhook_changed(s->dlhook);
	int rc, n;

	/* A module whose TLS its loader registers after mapping it (a dlopen
	 * relocating): that process's tables again, until they have it. */
	for (size_t i = 0; i < s->nfills && !changed;) {
		rc = s->fills[i].tls_pending ? rt_session_refresh_fill(s, i, s->pid > 0, err) : 0;
		if (rc < 0)
			return rc;
		i += rc == 0;
	}
	if (s->nfills && (changed || now - s->last_refresh_ns >= REFRESH_INTERVAL_NS) &&
	    (rc = rt_session_refresh(s, now, err)))
		return rc;
	if (s->sample_scope >= GS_SAMPLE_KNOWN && now - s->last_scan_ns >= SCAN_INTERVAL_NS &&
	    (rc = rt_session_scan(s, err)))
		return rc;
	/* Python frames that stay native: said once per process */
	for (size_t i = 0; s->opts.on_note && i < s->nfills; i++) {
		if (s->fills[i].py_note[0] && !s->fills[i].py_noted) {
			s->fills[i].py_noted = true;
			s->opts.on_note(s->opts.arg, s->fills[i].py_note);
		}
	}
	n = gs_reader_poll(s->reader, timeout_ms, err);
	/* A held process waits for its refresh, not for the next poll. */
	if (n >= 0 && rt_dlhook_changed(s->dlhook) &&
	    (rc = rt_session_refresh(s, base_now_ns(), err)))
		return rc;
	return n;
}

int gs_session_fd(const struct gs_session *s)
{
	return gs_reader_fd(s->reader);
}

int gs_session_lost(const struct gs_session *s, uint64_t *total, struct gs_error *err)
{
	struct gs_reader_stats st;

	*total = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct gs_program *p = s->v[i].prog;
		uint64_t lost;
		int rc = gs_loss_read(&s->v[i].maps.v[p->map_index[GS_MAP_LOSS]], &lost, err);

		if (rc)
			return rc;
		*total += lost;
		if (p->map_index[GS_MAP_STACK_DROPS] >= 0) {
			rc = gs_loss_read(&s->v[i].maps.v[p->map_index[GS_MAP_STACK_DROPS]],
					  &lost, err);
			if (rc)
				return rc;
			*total += lost;
		}
	}
	gs_reader_stats(s->reader, &st);
	*total += st.lost_samples;
	return 0;
}

int gs_session_wake_on(struct gs_session *s, int fd, struct gs_error *err)
{
	return rt_reader_wake_on(s->reader, fd, err);
}

int gs_session_sampling(struct gs_session *s, bool on, struct gs_error *err)
{
	for (size_t i = 0; i < s->n; i++) {
		int rc = rt_sampler_enable(s->v[i].sampler, on, err);

		if (rc)
			return rc;
	}
	return 0;
}

const struct gs_program *rt_session_trace(const struct gs_session *s, size_t i,
					  const struct gs_bpf_maps **maps)
{
	if (i >= s->n)
		return NULL;
	*maps = &s->v[i].maps;
	return s->v[i].prog;
}

size_t gs_session_probe_count(const struct gs_session *s)
{
	return s->n;
}

void gs_session_detach(struct gs_session *s)
{
	struct gs_uprobe **probes;
	size_t n = 0;

	if (!s || s->detached)
		return;
	s->detached = true;
	/* All at once, on threads; one at a time when memory is short. */
	probes = calloc(s->n ? 2 * s->n : 1, sizeof(*probes));
	for (size_t i = 0; i < s->n; i++) {
		rt_sampler_free(s->v[i].sampler);
		s->v[i].sampler = NULL;
		if (probes) {
			probes[n++] = s->v[i].probe;
			if (s->v[i].entry_probe)
				probes[n++] = s->v[i].entry_probe;
		} else {
			gs_uprobe_detach(s->v[i].probe);
			gs_uprobe_detach(s->v[i].entry_probe);
		}
		s->v[i].probe = s->v[i].entry_probe = NULL;
	}
	if (probes)
		gs_uprobes_detach(probes, n);
	free(probes);
}

void gs_session_free(struct gs_session *s)
{
	if (!s)
		return;
	/* Probes first: nothing fires into freed maps. */
	rt_warm_free(s);
	gs_session_detach(s);
	for (size_t i = 0; i < s->n; i++)
		trace_close(&s->v[i]);
	free(s->v);
	rt_dlhook_free(s->dlhook);
	gs_reader_free(s->reader);
	gs_bpf_maps_close(&s->pool);
	for (size_t i = 0; i < s->nfills; i++)
		gs_procfill_fini(&s->fills[i]);
	free(s->fills);
	for (size_t i = 0; i < s->nbt_modules; i++)
		free(s->bt_modules[i]);
	free(s->bt_modules);
	free(s->seen);
	free(s->report);
	free(s);
}
