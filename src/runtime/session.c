/* A tracing session: the runtime steps in the order the kernel needs them,
 * for every address of every trace (resolve, plan `bt`, build, create maps
 * with the shared ones pooled, fill the unwind maps, load, attach), one
 * reader over all outputs, a periodic refresh when the process maps new
 * files, and a teardown that detaches every probe at once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gs/runtime.h>

#define REFRESH_INTERVAL_NS 1000000000ll

struct session_trace {
	struct gs_program *prog;
	struct gs_bpf_maps maps;
	struct gs_loaded loaded;
	struct gs_uprobe *probe;
};

struct gs_session {
	struct gs_session_opts opts;
	char *module;
	struct gs_bpf_maps pool;     /* module and row maps every trace shares */
	struct gs_cfi_cache *cache;
	/* Processes whose modules the pool holds: the pid, or in target mode
	 * every process mapping one of bt_modules. */
	struct gs_procfill *fills;
	size_t nfills;
	char **bt_modules;
	size_t nbt_modules;
	struct gs_reader *reader;
	struct session_trace *v;
	size_t n;
	int64_t last_refresh_ns;
	char *report;
};

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
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
	struct gs_reader_opts ro = { .sz = sizeof(ro) };
	struct gs_session *s;
	int rc;

	*out = NULL;
	if (!opts || !opts->on_event)
		return gs_errorf(err, -EINVAL, "gs_session_new needs options with an on_event "
				 "callback");
	s = calloc(1, sizeof(*s));
	if (!s)
		return gs_errorf(err, -ENOMEM, "out of memory creating the session");
	memcpy(&s->opts, opts, opts->sz && opts->sz < sizeof(s->opts) ? opts->sz : sizeof(s->opts));
	s->opts.program.sz = sizeof(s->opts.program);
	s->cache = gs_cfi_cache_new();
	s->module = s->opts.module ? strdup(s->opts.module) : NULL;
	s->opts.module = s->module;
	if (!s->cache || (opts->module && !s->module)) {
		gs_session_free(s);
		return gs_errorf(err, -ENOMEM, "out of memory creating the session");
	}
	ro.on_event = s->opts.on_event;
	ro.arg = s->opts.arg;
	ro.decoder.lookup = context_of;
	ro.decoder.lookup_arg = s;
	rc = gs_reader_new(&ro, &s->reader, err);
	if (rc) {
		gs_session_free(s);
		return rc;
	}
	s->last_refresh_ns = monotonic_ns();
	*out = s;
	return 0;
}

static bool has_bt(const struct gs_stmt *body, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (body[i].kind == GS_STMT_BACKTRACE ||
		    (body[i].kind == GS_STMT_IF && (has_bt(body[i].then_body, body[i].nthen) ||
						    has_bt(body[i].else_body, body[i].nelse))))
			return true;
	return false;
}

static void trace_close(struct session_trace *t)
{
	gs_uprobe_detach(t->probe);
	gs_loaded_close(&t->loaded);
	gs_bpf_maps_close(&t->maps);
	gs_program_free(t->prog);
	memset(t, 0, sizeof(*t));
}

/* Fills the pool with pid's modules, once per pid. */
static int fill_pid(struct gs_session *s, pid_t pid, struct gs_error *err)
{
	struct gs_procfill *nv;
	int rc;

	for (size_t i = 0; i < s->nfills; i++)
		if (s->fills[i].pid == pid)
			return 0;
	nv = realloc(s->fills, (s->nfills + 1) * sizeof(*nv));
	if (!nv)
		return gs_errorf(err, -ENOMEM, "out of memory filling the maps of pid %d", (int)pid);
	s->fills = nv;
	gs_procfill_init(&s->fills[s->nfills], pid);
	rc = gs_procfill_offsets(&s->fills[s->nfills], &s->pool, err);
	if (rc) {
		gs_procfill_fini(&s->fills[s->nfills]);
		return rc;
	}
	s->nfills++;
	return 0;
}

/* Target mode: every process now mapping one of the bt traces' modules.
 * One that exits meanwhile is skipped. */
static int fill_target_processes(struct gs_session *s, struct gs_error *err)
{
	for (size_t m = 0; m < s->nbt_modules; m++) {
		pid_t *pids;
		size_t n;
		int rc = gs_pids_mapping(s->bt_modules[m], &pids, &n, err);

		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++) {
			struct gs_error gone;

			rc = fill_pid(s, pids[i], &gone);
			if (rc == -ENOMEM) {
				free(pids);
				return gs_errorf(err, rc, "%s", gone.msg);
			}
		}
		free(pids);
	}
	return 0;
}

static int note_bt_module(struct gs_session *s, const char *module, struct gs_error *err)
{
	char **nv;

	for (size_t i = 0; i < s->nbt_modules; i++)
		if (strcmp(s->bt_modules[i], module) == 0)
			return 0;
	nv = realloc(s->bt_modules, (s->nbt_modules + 1) * sizeof(*nv));
	if (!nv || !(nv[s->nbt_modules] = strdup(module))) {
		if (nv)
			s->bt_modules = nv;
		return gs_errorf(err, -ENOMEM, "out of memory");
	}
	s->bt_modules = nv;
	s->nbt_modules++;
	return 0;
}

/* Row map sizes must agree for traces to share them: the first plan fixes
 * room for the process's rows twice over (later dlopens append). */
static void size_rows(struct gs_session *s, const struct gs_bt_plan *plan)
{
	uint32_t want = plan->probe.nrows > UINT32_MAX / 2 ? UINT32_MAX : 2 * plan->probe.nrows;

	if (s->n == 0 && plan->probe.module_ranges && want > s->opts.program.unwind_rows_max &&
	    want > GS_DEFAULT_UNWIND_ROWS_MAX)
		s->opts.program.unwind_rows_max = want;
}

/* One address of a trace, through to attached. */
static int add_location(struct gs_session *s, const struct gs_trace_spec *spec,
			const struct gs_target *t, const struct gs_location *loc, bool bt,
			struct session_trace *out, struct gs_error *err)
{
	struct gs_bt_plan_opts po = { .sz = sizeof(po), .pid = s->opts.pid, .cache = s->cache };
	struct gs_uprobe_opts uo = { .sz = sizeof(uo), .pid = s->opts.pid,
				     .force_tracefs = s->opts.force_tracefs };
	struct gs_trace_spec located = *spec;
	struct gs_bt_plan plan;
	int rc = 0;

	memset(&plan, 0, sizeof(plan));
	gs_rowset_init(&plan.rows);
	out->loaded.main_fd = out->loaded.step_fd = -1;
	located.target = t->input;
	located.bt = NULL;
	if (bt && po.pid <= 0) {
		/* Target mode: plan with the modules of a process already mapping
		 * the target, so callers in its other modules (libc, the
		 * executable of a library) have rows too; with none, the target's
		 * own rows. */
		pid_t *pids = NULL;
		size_t n = 0;
		struct gs_error ignored;

		if (gs_pids_mapping(t->module, &pids, &n, &ignored) == 0 && n > 0)
			po.pid = pids[0];
		free(pids);
	}
	if (bt) {
		rc = gs_bt_plan_build(t->module, loc->addr, &po, &plan, err);
		if (rc)
			return rc;
		located.bt = &plan.probe;
		size_rows(s, &plan);
	}
	rc = gs_program_build(&located, &s->opts.program, &out->prog, err);
	if (rc == 0)
		rc = gs_bpf_maps_create(out->prog, &s->pool, &out->maps, err);
	if (rc == 0 && bt && s->opts.pid > 0)
		rc = fill_pid(s, s->opts.pid, err);
	if (rc == 0 && bt && s->opts.pid <= 0 && (rc = note_bt_module(s, t->module, err)) == 0)
		rc = fill_target_processes(s, err);
	if (rc == 0 && bt)
		rc = gs_procfill_rows(&out->maps, &plan, err);
	gs_bt_plan_fini(&plan);
	free(s->report);
	s->report = NULL;
	if (rc == 0)
		rc = gs_program_load(out->prog, &out->maps, NULL, &out->loaded, &s->report, err);
	/* Attached before the reader knows the buffer: hits wait in it. */
	if (rc == 0)
		rc = gs_uprobe_attach(out->loaded.main_fd, t->module, loc->file_offset, &uo,
				      &out->probe, err);
	if (rc == 0)
		rc = gs_reader_add(s->reader, &out->maps.v[out->prog->map_index[GS_MAP_OUTPUT]],
				   s->opts.program.perf_page_count, err);
	return rc;
}

int gs_session_add_trace(struct gs_session *s, const struct gs_trace_spec *spec,
			 struct gs_error *err)
{
	struct gs_resolve_opts ro = { .sz = sizeof(ro), .module = s->module, .pid = s->opts.pid };
	bool bt = has_bt(spec->body, spec->nbody);
	struct session_trace *nv;
	struct gs_target t;
	int rc;
	size_t added = 0;

	if (!spec->target)
		return gs_errorf(err, -EINVAL, "trace %u has no target", spec->trace_id);
	rc = gs_target_resolve(spec->target, &ro, &t, err);
	if (rc)
		return rc;
	nv = realloc(s->v, (s->n + t.nlocs) * sizeof(*nv));
	if (!nv) {
		gs_target_free(&t);
		return gs_errorf(err, -ENOMEM, "out of memory adding trace %u", spec->trace_id);
	}
	s->v = nv;
	for (size_t i = 0; i < t.nlocs; i++) {
		struct session_trace *st = &s->v[s->n];

		memset(st, 0, sizeof(*st));
		rc = add_location(s, spec, &t, &t.locs[i], bt, st, err);
		if (rc) {
			trace_close(st);
			break;
		}
		s->n++;
		added++;
	}
	gs_target_free(&t);
	return rc ? rc : (int)added;
}

const char *gs_session_report(const struct gs_session *s)
{
	return s->report;
}

int gs_session_poll(struct gs_session *s, int timeout_ms, struct gs_error *err)
{
	int64_t now = monotonic_ns();
	int rc;

	if (s->nfills && now - s->last_refresh_ns >= REFRESH_INTERVAL_NS) {
		s->last_refresh_ns = now;
		/* A process that is gone just stops producing events; in target
		 * mode it is forgotten, so a new one with its pid is filled. */
		for (size_t i = 0; i < s->nfills;) {
			rc = gs_procfill_refresh(&s->fills[i], &s->pool,
						 s->opts.pid > 0 ? s->cache : NULL, err);
			if (rc < 0 && rc != -ENOENT && rc != -ESRCH)
				return rc;
			if (rc < 0 && s->opts.pid <= 0) {
				gs_procfill_fini(&s->fills[i]);
				s->fills[i] = s->fills[--s->nfills];
				continue;
			}
			i++;
		}
		if (s->opts.pid <= 0 && (rc = fill_target_processes(s, err)))
			return rc;
	}
	return gs_reader_poll(s->reader, timeout_ms, err);
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
	}
	gs_reader_stats(s->reader, &st);
	*total += st.lost_samples;
	return 0;
}

void gs_session_free(struct gs_session *s)
{
	struct gs_uprobe **probes;

	if (!s)
		return;
	/* Probes first and all at once: nothing fires into freed maps. */
	probes = calloc(s->n ? s->n : 1, sizeof(*probes));
	if (probes) {
		for (size_t i = 0; i < s->n; i++) {
			probes[i] = s->v[i].probe;
			s->v[i].probe = NULL;
		}
		gs_uprobes_detach(probes, s->n);
		free(probes);
	}
	for (size_t i = 0; i < s->n; i++)
		trace_close(&s->v[i]);
	free(s->v);
	gs_reader_free(s->reader);
	gs_bpf_maps_close(&s->pool);
	for (size_t i = 0; i < s->nfills; i++)
		gs_procfill_fini(&s->fills[i]);
	free(s->fills);
	for (size_t i = 0; i < s->nbt_modules; i++)
		free(s->bt_modules[i]);
	free(s->bt_modules);
	gs_cfi_cache_free(s->cache);
	free(s->module);
	free(s->report);
	free(s);
}
