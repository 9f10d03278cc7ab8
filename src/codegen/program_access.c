/* A built program as an embedder reads it: accessors over the layout that
 * stays inside libgs (<gs/internal/program.h>). */
#include <gs/internal/program.h>

const struct gs_asm *gs_program_main(const struct gs_program *p)
{
	return &p->main;
}

const struct gs_asm *gs_program_step(const struct gs_program *p)
{
	return p->has_step ? p->step : NULL;
}

const char *gs_program_name(const struct gs_program *p)
{
	return p->name;
}

uint32_t gs_program_trace_id(const struct gs_program *p)
{
	return p->trace_id;
}

const struct gs_trace_context *gs_program_context(const struct gs_program *p)
{
	return &p->ctx;
}

bool gs_program_sleepable(const struct gs_program *p)
{
	return p->sleepable;
}

const struct gs_asm *gs_program_entry(const struct gs_program *p)
{
	return p->entry;
}

const struct gs_agg_desc *gs_program_aggregations(const struct gs_program *p, size_t *n)
{
	*n = p->naggs;
	return p->aggs;
}

uint32_t gs_program_event_size(const struct gs_program *p)
{
	return p->event_size;
}
