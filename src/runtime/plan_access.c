/* A plan's traces as an embedder reads them: accessors over the layout that
 * stays inside libgs (<gs/internal/runtime.h>). */
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

	for (size_t k = 0; k < sizeof(notes) / sizeof(notes[0]); k++)
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
