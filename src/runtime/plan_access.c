/* A plan as its readers see it (the session, the dry run, an embedder):
 * accessors over the layouts that stay inside libgs (rt_int.h,
 * <gs/internal/runtime.h>). plan.c builds the plan. */
#include "base.h"
#include "rt_int.h"

uint32_t gs_plan_trace_id(const struct gs_plan_trace *t)
{
	return t->id;
}

const struct gs_target_pattern *gs_plan_trace_pattern(const struct gs_plan_trace *t)
{
	return &t->pattern;
}

const struct gs_target *gs_plan_trace_target(const struct gs_plan_trace *t)
{
	return &t->target;
}

const char *gs_plan_trace_note(const struct gs_plan_trace *t, size_t i)
{
	const char *notes[] = { t->target.note, t->names_note, t->tls_note };

	for (size_t k = 0; k < BASE_ARRAY_SIZE(notes); k++)
		if (notes[k] && i-- == 0)
			return notes[k];
	return NULL;
}

size_t gs_plan_trace_probe_count(const struct gs_plan_trace *t)
{
	return t->nprobes;
}

const struct gs_program *gs_plan_trace_program(const struct gs_plan_trace *t, size_t i)
{
	return i < t->nprobes ? t->probes[i].prog : NULL;
}

size_t gs_plan_trace_count(const struct gs_plan *p)
{
	return p->ntraces;
}

const struct gs_plan_trace *gs_plan_trace_at(const struct gs_plan *p, size_t i)
{
	return i < p->ntraces ? &p->traces[i] : NULL;
}

size_t gs_plan_probe_count(const struct gs_plan *p)
{
	return p->nprobes;
}

const struct gs_program_opts *gs_plan_program_opts(const struct gs_plan *p)
{
	return &p->program;
}

const struct gs_rowset *gs_plan_shared_rows(const struct gs_plan *p)
{
	return &p->shared;
}

pid_t gs_plan_rows_pid(const struct gs_plan *p)
{
	return p->rows_pid;
}

pid_t gs_plan_pid(const struct gs_plan *p)
{
	return p->opts.pid;
}

bool rt_plan_holds_dlopen(const struct gs_plan *p)
{
	return p->opts.hold_on_dlopen;
}

struct gs_modfiles *gs_plan_modfiles(const struct gs_plan *p)
{
	return p->files;
}

void gs_plan_phase_times(const struct gs_plan *p, struct gs_phase_times *t)
{
	for (int i = 0; i < GS_PHASE_COUNT; i++)
		t->ns[i] += p->times.ns[i];
}

const char *gs_phase_name(enum gs_phase phase)
{
	static const char *const names[GS_PHASE_COUNT] = {
		[GS_PHASE_RESOLVE] = "resolve",
		[GS_PHASE_PLAN_ROWS] = "plan rows",
		[GS_PHASE_VALUES] = "values",
		[GS_PHASE_BUILD] = "build",
		[GS_PHASE_CREATE_MAPS] = "create maps",
		[GS_PHASE_WRITE_ROWS] = "write rows",
		[GS_PHASE_LOAD] = "load/verify",
		[GS_PHASE_ATTACH] = "attach",
	};

	return (unsigned)phase < GS_PHASE_COUNT ? names[phase] : "unknown";
}
