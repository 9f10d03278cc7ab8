/* The trace plan: every trace resolved, its backtrace planned at each
 * address, the shared map sizes decided, and every program built, once.
 * The session loads exactly what is here and the dry run prints it, so
 * there is one spec-to-program pipeline. Rows of every module the planned
 * processes map are kept once (the shared rows), not once per probe. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/asm.h>
#include <gs/modfile.h>
#include <gs/runtime.h>

#include "base.h"
#include "opts.h"
#include "rt_int.h"

int gs_plan_new(const struct gs_plan_opts *opts, struct gs_plan **out, struct gs_error *err)
{
	struct gs_plan *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return gs_errorf(err, -ENOMEM, "out of memory creating the trace plan");
	rc = OPTS_COPY(&p->opts, opts, gs_plan_opts, err);
	if (!rc)
		rc = OPTS_COPY(&p->program, p->opts.program, gs_program_opts, err);
	if (rc) {
		free(p);
		return rc;
	}
	p->opts.program = NULL;
	p->module = p->opts.module ? strdup(p->opts.module) : NULL;
	p->files = p->opts.files;
	if (!p->files && gs_modfiles_new(NULL, &p->own_files, NULL) == 0)
		p->files = p->own_files;
	gs_rowset_init(&p->shared);
	if (!p->files || (p->opts.module && !p->module)) {
		gs_plan_free(p);
		return gs_errorf(err, -ENOMEM, "out of memory creating the trace plan");
	}
	p->opts.module = p->module;
	*out = p;
	return 0;
}

static void trace_fini(struct gs_plan_trace *t)
{
	for (size_t i = 0; i < t->nprobes; i++)
		gs_program_free(t->probes[i].prog);
	free(t->probes);
	gs_target_free(&t->target);
	free(t->names_note);
	free(t->tls_note);
}

void gs_plan_free(struct gs_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ntraces; i++)
		trace_fini(&p->traces[i]);
	free(p->traces);
	for (size_t i = 0; i < p->nown; i++) {
		gs_rowset_fini(&p->own[i]->rows);
		free(p->own[i]);
	}
	free(p->own);
	free(p->resolved);
	for (size_t i = 0; i < p->nrows_pids; i++)
		free(p->rows_pids[i].module);
	free(p->rows_pids);
	rt_values_free(p->values);
	gs_rowset_fini(&p->shared);
	gs_modfiles_free(p->own_files);
	free(p->module);
	free(p);
}

/* The process whose modules `bt` rows cover for a trace in `module`: the
 * traced one, else (target mode) the first process already mapping it, so
 * callers in its other modules (libc, the executable of a library) unwind
 * too; 0 when none does. */
static pid_t rows_pid_for(struct gs_plan *p, const char *module)
{
	struct gs_error ignored;
	pid_t *pids = NULL, pid = 0;
	size_t n = 0;

	if (p->opts.pid > 0)
		return p->opts.pid;
	/* Scanning every process is costly: once per module. */
	for (size_t i = 0; i < p->nrows_pids; i++)
		if (strcmp(p->rows_pids[i].module, module) == 0)
			return p->rows_pids[i].pid;
	if (gs_pids_mapping(module, &pids, &n, &ignored) == 0 && n > 0)
		pid = pids[0];
	free(pids);
	if (base_grow((void **)&p->rows_pids, &p->rows_pids_cap, p->nrows_pids + 1,
		      sizeof(*p->rows_pids)) == 0) {
		struct memo_rows_pid *m = &p->rows_pids[p->nrows_pids];

		m->module = strdup(module);
		m->pid = pid;
		p->nrows_pids += m->module != NULL;
	}
	return pid;
}

/* ---- one resolution per distinct pattern ---------------------------------- */

static uint64_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

/* The trace that already resolved a pattern written as `key`, or NULL. */
static const struct gs_plan_trace *memo_find(const struct gs_plan *p, const char *key)
{
	size_t mask = p->resolved_cap - 1;

	if (!p->resolved_cap)
		return NULL;
	for (size_t i = hash_text(key) & mask;; i = (i + 1) & mask) {
		if (!p->resolved[i].key)
			return NULL;
		if (strcmp(p->resolved[i].key, key) == 0)
			return &p->traces[p->resolved[i].trace];
	}
}

static void memo_put(struct gs_plan *p, const char *key, size_t trace)
{
	size_t mask;

	if (2 * (p->nresolved + 1) > p->resolved_cap) {
		size_t ncap = p->resolved_cap ? 2 * p->resolved_cap : 64;
		struct memo_target *nv = calloc(ncap, sizeof(*nv));

		if (!nv)
			return; /* no memo: resolve again next time */
		for (size_t i = 0; i < p->resolved_cap; i++) {
			if (!p->resolved[i].key)
				continue;
			for (size_t k = hash_text(p->resolved[i].key) & (ncap - 1);;
			     k = (k + 1) & (ncap - 1)) {
				if (!nv[k].key) {
					nv[k] = p->resolved[i];
					break;
				}
			}
		}
		free(p->resolved);
		p->resolved = nv;
		p->resolved_cap = ncap;
	}
	mask = p->resolved_cap - 1;
	for (size_t i = hash_text(key) & mask;; i = (i + 1) & mask) {
		if (!p->resolved[i].key) {
			p->resolved[i] = (struct memo_target){ key, trace };
			p->nresolved++;
			return;
		}
	}
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	*oom |= s && !d;
	return d;
}

/* A deep copy of a resolved target. */
static int copy_target(const struct gs_target *from, struct gs_target *to, struct gs_error *err)
{
	bool oom = false;

	memset(to, 0, sizeof(*to));
	to->input = dup_or_null(from->input, &oom);
	to->module = dup_or_null(from->module, &oom);
	to->locs = calloc(from->nlocs ? from->nlocs : 1, sizeof(*to->locs));
	if (to->locs) {
		to->nlocs = from->nlocs;
		for (size_t i = 0; i < from->nlocs; i++) {
			to->locs[i] = from->locs[i];
			to->locs[i].function = dup_or_null(from->locs[i].function, &oom);
		}
	}
	if (oom || !to->locs) {
		gs_target_free(to);
		return gs_errorf(err, -ENOMEM, "out of memory copying the target `%s`",
				 from->input ? from->input : "");
	}
	return 0;
}

/* Moves a module-ranges plan's rows into the shared rows (a module already
 * there is kept as it is). */
static int share_rows(struct gs_plan *p, struct gs_rowset *rows, struct gs_error *err)
{
	/* The first plan's rows are taken as they are: copying node's (57 MB
	 * of rows and loop-walker rows) took about 35 ms of a cold start. */
	if (p->shared.nmodules == 0) {
		gs_rowset_fini(&p->shared);
		p->shared = *rows;
		gs_rowset_init(rows);
		return 0;
	}
	for (size_t i = 0; i < rows->nmodules; i++) {
		const struct gs_rowset_module *m = &rows->modules[i];
		int rc = gs_rowset_add_x(&p->shared, m->cookie, rows->rows + m->range.row_start,
					 m->range.row_end - m->range.row_start, m->xrows, m->nxrows,
					 err);

		if (rc)
			return rc;
	}
	return 0;
}

/* The own rows of the probe module (one-module plans), taken from bp. */
static const struct gs_rowset *own_rows(struct gs_plan *p, struct gs_bt_plan *bp,
					struct gs_error *err)
{
	struct own_rows *o;

	for (size_t i = 0; i < p->nown; i++)
		if (p->own[i]->cookie == bp->probe.cookie)
			return &p->own[i]->rows;
	if (base_grow((void **)&p->own, &p->own_cap, p->nown + 1, sizeof(*p->own)) ||
	    !(o = calloc(1, sizeof(*o)))) {
		gs_errorf(err, -ENOMEM, "out of memory planning the backtrace");
		return NULL;
	}
	o->cookie = bp->probe.cookie;
	o->rows = bp->rows;
	gs_rowset_init(&bp->rows); /* moved */
	p->own[p->nown++] = o;
	return &o->rows;
}

static int plan_bt(struct gs_plan *p, struct gs_plan_trace *t, struct gs_error *err)
{
	pid_t pid = rows_pid_for(p, t->target.module);
	struct gs_bt_plan_opts po = { .sz = sizeof(po), .pid = pid, .files = p->files,
				      /* the session's own pid: its fill writes the rows */
				      .rows_by_fill = p->program.unwinder == GS_UNWINDER_LOOP &&
						      p->opts.pid > 0 && pid == p->opts.pid };

	for (size_t i = 0; i < t->nprobes; i++) {
		struct gs_plan_probe *pr = &t->probes[i];
		struct gs_bt_plan bp;
		int rc = gs_bt_plan_build(t->target.module, pr->loc->addr, &po, &bp, err);

		if (rc)
			return rc;
		/* Without a row at the probe the walk cannot leave frame 0: a
		 * property of the binary, known now. */
		if (bp.probe.first_row_kind != GS_BT_ROW_USABLE &&
		    (rc = rt_plan_cfi_problem(p->files, t->target.module, pr->loc->addr,
					      bp.probe.first_row_kind == GS_BT_ROW_MISSING,
					      err)) != 0) {
			gs_bt_plan_fini(&bp);
			return rc;
		}
		pr->bt_probe = bp.probe;
		if (bp.counted_rows > p->fill_rows)
			p->fill_rows = bp.counted_rows;
		if (bp.counted_xrows > p->fill_xrows)
			p->fill_xrows = bp.counted_xrows;
		if (bp.probe.module_ranges) {
			rc = share_rows(p, &bp.rows, err);
			if (rc == 0 && !p->rows_pid)
				p->rows_pid = pid;
		} else if (bp.rows.nrows && !(pr->rows = own_rows(p, &bp, err))) {
			rc = -ENOMEM;
		}
		gs_bt_plan_fini(&bp);
		if (rc)
			return rc;
	}
	return 0;
}

/* Each probe's copy of the body with DWARF names resolved at its address. */
static int plan_values(struct gs_plan *p, struct gs_plan_trace *t, const struct gs_expr **at,
		       struct gs_error *err)
{
	if (!rt_body_needs_dwarf(t->spec.body, t->spec.nbody, t->spec.retprobe))
		return 0;
	if (!p->values && rt_values_new(p->opts.pid, p->files, &p->values))
		return gs_errorf(err, -ENOMEM, "out of memory planning trace `%s`",
				 t->pattern.text);
	return rt_values_resolve(p->values, t, at, err);
}

/* gs_plan_add; *at is the expression an error is about, or NULL. */
static int plan_add(struct gs_plan *p, const struct gs_target_pattern *target,
		    const struct gs_trace_spec *spec, const struct gs_expr **at,
		    struct gs_error *err)
{
	struct gs_resolve_opts ro = { .sz = sizeof(ro), .module = p->module, .pid = p->opts.pid,
				      .entry = spec && spec->retprobe, .files = p->files };
	const struct gs_plan_trace *prior;
	struct gs_plan_trace *t;
	int64_t t0 = base_now_ns(), t1;
	int rc;

	if (p->built)
		return gs_errorf(err, -EBUSY, "the trace plan is built already: add every trace "
				 "before gs_plan_build()");
	if (!target || !spec)
		return gs_errorf(err, -EINVAL, "gs_plan_add needs a target and a trace spec");
	if (spec->retprobe && target->kind != GS_TARGET_FUNCTION)
		return gs_errorf(err, -EINVAL, "a return probe needs a function, and `%s` is not a "
				 "function name; name the function", target->text);
	/* At a return the pc is the caller's return address, known only at
	 * run time, and the walker starts from a row chosen at compile time. */
	if (spec->retprobe && gs_stmts_count_bt(spec->body, spec->nbody))
		return gs_errorf(err, -EINVAL, "bt in a return probe is not supported: the "
				 "unwind starts from the probe's own row; take the backtrace in "
				 "`trace %s { bt; }` at the entry", target->name);
	if (base_grow((void **)&p->traces, &p->traces_cap, p->ntraces + 1, sizeof(*p->traces)))
		return gs_errorf(err, -ENOMEM, "out of memory adding trace `%s`",
				 target->text ? target->text : "");
	t = &p->traces[p->ntraces];
	memset(t, 0, sizeof(*t));
	t->id = spec->trace_id;
	t->pattern = *target;
	t->spec = *spec;
	t->bt = gs_stmts_count_bt(spec->body, spec->nbody) > 0;
	/* A pattern written again resolves the same way: copied, not redone. */
	prior = target->text ? memo_find(p, target->text) : NULL;
	rc = prior && prior->pattern.kind == target->kind &&
		     prior->spec.retprobe == spec->retprobe ?
		     copy_target(&prior->target, &t->target, err) :
		     gs_target_resolve(target, &ro, &t->target, err);
	t1 = base_now_ns();
	p->times.ns[GS_PHASE_RESOLVE] += t1 - t0;
	if (rc)
		return rc;
	t->probes = calloc(t->target.nlocs, sizeof(*t->probes));
	if (!t->probes) {
		gs_target_free(&t->target);
		return gs_errorf(err, -ENOMEM, "out of memory adding trace `%s`", target->text);
	}
	t->nprobes = t->target.nlocs;
	if (p->opts.max_probes && p->nprobes + t->nprobes > p->opts.max_probes) {
		size_t total = p->nprobes + t->nprobes;

		trace_fini(t);
		return gs_errorf(err, -E2BIG, "this trace brings the probe addresses to %zu, over "
				 "the limit of %zu (gstrace --max-probes); raise the limit, or "
				 "trace fewer functions or addresses", total, p->opts.max_probes);
	}
	for (size_t i = 0; i < t->nprobes; i++)
		t->probes[i].loc = &t->target.locs[i];
	rc = t->bt ? plan_bt(p, t, err) : 0;
	t0 = base_now_ns();
	p->times.ns[GS_PHASE_PLAN_ROWS] += t0 - t1;
	if (rc == 0)
		rc = plan_values(p, t, at, err);
	p->times.ns[GS_PHASE_VALUES] += base_now_ns() - t0;
	if (rc) {
		trace_fini(t);
		return rc;
	}
	if (target->text && !prior)
		memo_put(p, target->text, p->ntraces);
	p->ntraces++;
	p->nprobes += t->nprobes;
	return 0;
}

int gs_plan_add(struct gs_plan *p, const struct gs_target_pattern *target,
		const struct gs_trace_spec *spec, struct gs_error *err)
{
	const struct gs_expr *at;

	return plan_add(p, target, spec, &at, err);
}

int gs_plan_add_script(struct gs_plan *p, const struct gs_script *s, struct gs_error *err)
{
	for (size_t i = 0; i < s->ntraces; i++) {
		const struct gs_script_trace *st = &s->traces[i];
		struct gs_trace_spec spec;
		struct gs_error why;
		int rc;

		const struct gs_expr *at = NULL;

		gs_script_trace_spec(st, p->opts.first_trace_id + (uint32_t)i, &spec);
		rc = plan_add(p, &st->target, &spec, &at, &why);
		if (rc && at && rc != -ENOMEM)
			return gs_script_expr_errorf(s, at, err, rc, "%s", why.msg);
		if (rc)
			return rc == -ENOMEM ? gs_errorf(err, rc, "%s", why.msg) :
			       gs_script_trace_errorf(s, st, err, rc, "%s", why.msg);
		p->traces[p->ntraces - 1].script = s;
		p->traces[p->ntraces - 1].script_trace = st;
	}
	return 0;
}

/* A program that cannot be built, said at the trace's place in the script
 * when there is one. A full BPF stack is the script's doing (-ENOSPC from
 * the assembler): it gets the fix, not the assembler's own hint. */
static int build_failed(const struct gs_plan_trace *t, const struct gs_plan_probe *pr, int rc,
			const struct gs_error *why, struct gs_error *err)
{
	char msg[GS_ERROR_MSG_MAX];

	if (rc == -ENOSPC)
		snprintf(msg, sizeof(msg), "its BPF program needs more than the %d bytes of "
			 "stack the kernel allows (%u let variable%s take %u; bt, reads and "
			 "nested conditions the rest): bind fewer lets, nest less, or split "
			 "the trace", GS_STACK_MAX, t->spec.nvars, t->spec.nvars == 1 ? "" : "s",
			 8 * t->spec.nvars);
	else
		snprintf(msg, sizeof(msg), "%s", why->msg);
	if (t->script && t->script_trace)
		return gs_script_trace_errorf(t->script, t->script_trace, err,
					      rc == -ENOSPC ? -EINVAL : rc, "%s", msg);
	return gs_errorf(err, rc == -ENOSPC ? -EINVAL : rc, "trace #%u (%s) at %s 0x%" PRIx64
			 ": %s", t->id, t->pattern.text, t->target.module, pr->loc->addr, msg);
}

/* An aggregation updated by several programs is one table: each keeps
 * the key types of the first program that updates it. */
static int same_aggregations(const struct gs_plan *p, const struct gs_program *prog,
			     struct gs_error *err)
{
	for (size_t i = 0; i < p->ntraces; i++) {
		for (size_t k = 0; k < p->traces[i].nprobes; k++) {
			const struct gs_program *o = p->traces[i].probes[k].prog;

			if (o == prog)
				return 0;
			for (size_t a = 0; o && a < prog->naggs; a++)
				for (size_t b = 0; b < o->naggs; b++)
					if (o->aggs[b].id == prog->aggs[a].id &&
					    memcmp(o->aggs[b].key_kind, prog->aggs[a].key_kind,
						   sizeof(o->aggs[b].key_kind)))
						return gs_errorf(err, -EINVAL, "%s is keyed by "
								 "other types here than in trace "
								 "#%u (%s): keep each key's type",
								 prog->aggs[a].name,
								 p->traces[i].id,
								 p->traces[i].pattern.text);
		}
	}
	return 0;
}

/* The options t's programs are built with: the plan's, but counting in
 * BPF where the trace alone asks for it (a sampler beside a script's
 * probes). Plans without such a trace build with the plan's own. */
static const struct gs_program_opts *trace_program_opts(const struct gs_plan *p,
							const struct gs_plan_trace *t,
							struct gs_program_opts *po)
{
	if (!t->count_stacks && !t->count_per_thread)
		return &p->program;
	*po = p->program;
	po->count_stacks |= t->count_stacks;
	po->count_per_thread |= t->count_per_thread;
	return po;
}

/* Every probe's program built (again, freeing an earlier build). */
static int build_all(struct gs_plan *p, size_t rows, int64_t *t0, struct gs_error *err)
{
	for (size_t i = 0; i < p->ntraces; i++) {
		struct gs_plan_trace *t = &p->traces[i];

		for (size_t k = 0; k < t->nprobes; k++) {
			struct gs_plan_probe *pr = &t->probes[k];
			struct gs_trace_spec spec = t->spec;
			struct gs_program_opts po;
			const struct gs_expr *at = NULL;
			struct gs_error why;
			int rc;

			spec.target = t->pattern.text;
			if (pr->body)
				spec.body = pr->body;
			if (spec.sample)
				spec.body = &t->sample_bt;
			if (t->bt) {
				if (pr->bt_probe.module_ranges)
					pr->bt_probe.nrows = (uint32_t)rows;
				spec.bt = &pr->bt_probe;
			}
			gs_program_free(pr->prog);
			pr->prog = NULL;
			rc = gs_program_build_at(&spec, trace_program_opts(p, t, &po), &pr->prog,
						 &at, &why);
			p->times.ns[GS_PHASE_BUILD] += base_now_ns() - *t0;
			*t0 = base_now_ns();
			if (rc && at && t->script)
				return gs_script_expr_errorf(t->script, at, err, rc, "%s", why.msg);
			if (rc)
				return build_failed(t, pr, rc, &why, err);
			if ((rc = same_aggregations(p, pr->prog, &why)))
				return build_failed(t, pr, rc, &why, err);
		}
	}
	return 0;
}

/* The bytes of keys the plan's aggregations need at most (GS_AGG_KEY_MAX
 * when there are none). */
static uint32_t agg_key_bytes(const struct gs_plan *p)
{
	uint32_t most = 0;
	bool any = false;

	for (size_t i = 0; i < p->ntraces; i++) {
		for (size_t k = 0; k < p->traces[i].nprobes; k++) {
			const struct gs_program *prog = p->traces[i].probes[k].prog;

			for (size_t a = 0; prog && a < prog->naggs; a++) {
				const struct gs_agg_desc *d = &prog->aggs[a];
				uint32_t n = d->nkeys ? d->key_off[d->nkeys - 1] +
					(d->key_kind[d->nkeys - 1] == GS_AGG_KEY_STRING ?
					 GS_AGG_STRING_MAX : 8) : 0;

				any = true;
				most = n > most ? n : most;
			}
		}
	}
	return any ? most : GS_AGG_KEY_MAX;
}

int gs_plan_build(struct gs_plan *p, struct gs_error *err)
{
	size_t rows = p->shared.nrows, xrows = 0;
	int64_t t0 = base_now_ns();
	uint32_t want, need;
	bool again = false;
	int rc;

	/* The loop walker's rows are more (rules of rbx, r12-r15): size by them;
	 * a process's modules may be counted only (the loop walker's fill
	 * writes them), the probe module among them. */
	for (size_t i = 0; i < p->shared.nmodules; i++)
		xrows += p->shared.modules[i].nxrows;
	rows = p->fill_rows > rows ? p->fill_rows : rows;
	xrows = p->fill_xrows > xrows ? p->fill_xrows : xrows;
	if (xrows > rows)
		rows = xrows;
	want = rows > UINT32_MAX / 2 ? UINT32_MAX : (uint32_t)(2 * rows);

	if (p->built)
		return gs_errorf(err, -EBUSY, "the trace plan is built already");
	/* Programs share bt_unwind_rows only when its shape is the same in
	 * each: one size for all, with room for modules mapped later. */
	if (want > p->program.unwind_rows_max && want > GS_DEFAULT_UNWIND_ROWS_MAX)
		p->program.unwind_rows_max = want;
	/* Thread-locals start from the thread pointer, where the kernel's BTF
	 * says; without it they read as OffsetsUnavailable (docs/tls.md). */
	if (!p->program.task_fsbase_offset)
		p->program.task_fsbase_offset = rt_values_task_fsbase(p->values);
	rc = rt_plan_python(p, err);
	if (rc == 0)
		rc = build_all(p, rows, &t0, err);
	/* The aggregations' keys hashed no longer than they need: built again
	 * with the most any of them takes (the map is one for all); and the
	 * output buffers sized by the largest event (plan_output.c). */
	if (rc == 0 && (need = agg_key_bytes(p)) < GS_AGG_KEY_MAX) {
		p->program.agg_key_bytes = need ? need : 8;
		again = true;
	}
	if (rc == 0 && rt_plan_size_output(p))
		again = true;
	if (again)
		rc = build_all(p, rows, &t0, err);
	if (rc)
		return rc;
	/* The programs hold their own copies of the types: DWARF can go. */
	for (size_t i = 0; i < p->ntraces; i++)
		for (size_t k = 0; k < p->traces[i].nprobes; k++)
			p->traces[i].probes[k].body = NULL;
	rt_values_free(p->values);
	p->values = NULL;
	p->built = true;
	return 0;
}

int gs_plan_from_script(const struct gs_script *s, const struct gs_plan_opts *opts,
			struct gs_plan **out, struct gs_error *err)
{
	struct gs_plan *p;
	int rc = gs_plan_new(opts, &p, err);

	*out = NULL;
	if (rc)
		return rc;
	rc = gs_plan_add_script(p, s, err);
	if (rc == 0)
		rc = gs_plan_build(p, err);
	if (rc) {
		gs_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
