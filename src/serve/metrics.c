/* A scrape of /metrics from the session: the script's aggregations as
 * the kernel's maps hold them now (never reset by a scrape), then
 * gstrace's own health read from the session and the process, written
 * by scrape.c and health.c through the events layer's exposition writer.
 * This file is the only one of /metrics that reads the session. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/version.h>

#include "serve_int.h"

/* The session's figures of each trace of the plan, in plan order. */
static int read_traces(const struct srv_ctx *c, struct srv_trace_health **out, size_t *n,
		       struct gs_error *err)
{
	const struct srv_opts *o = c->opts;
	size_t count = gs_plan_trace_count(o->plan);
	struct srv_trace_health *v = calloc(count ? count : 1, sizeof(*v));

	*out = v;
	*n = 0;
	if (!v)
		return gs_errorf(err, -ENOMEM, "out of memory for the traces' health");
	for (size_t i = 0; i < count; i++) {
		const struct gs_plan_trace *t = gs_plan_trace_at(o->plan, i);
		const struct gs_target_pattern *p = gs_plan_trace_pattern(t);
		int rc = gs_session_trace_stats(o->session, i, &v[i].st, err);

		if (rc == -ENOENT) /* a trace the session did not start */
			break;
		if (rc)
			return rc;
		v[i].id = gs_plan_trace_id(t);
		v[i].target = p ? p->text : NULL;
		v[i].has_delivered = o->delivered != NULL;
		v[i].delivered = o->delivered ? o->delivered(o->delivered_arg, v[i].id) : 0;
		*n = i + 1;
	}
	return 0;
}

/* The aggregations, then the health, into w. */
static int write_all(struct srv_ctx *c, struct gs_prom *w, const struct srv_labels *labels,
		     struct gs_error *err)
{
	const struct srv_opts *o = c->opts;
	struct srv_maps maps;
	struct srv_scrape sc = { .w = w, .maps = &maps, .labels = labels, .err = err,
				 .budget = o->max_series ? o->max_series : SRV_DEFAULT_MAX_SERIES };
	struct srv_health h = { .version = GS_VERSION, .samples = c->samples };
	struct srv_trace_health *traces = NULL;
	int rc = srv_maps_from_script(o->script, &maps, err);

	if (rc)
		return rc;
	rc = srv_health_reserve(w, err);
	if (!rc)
		rc = gs_session_aggregations(o->session, srv_scrape_table, &sc, &h.agg_dropped, err);
	srv_maps_free(&maps);
	c->series_dropped += sc.left_out;
	c->scrapes++;
	h.series_dropped = c->series_dropped;
	h.scrapes = c->scrapes;
	h.map_bytes = rc ? 0 : gs_session_map_bytes(o->session);
	if (!rc)
		rc = read_traces(c, &traces, &h.ntraces, err);
	h.traces = traces;
	if (!rc)
		rc = srv_process_read(&h.process, err);
	if (!rc)
		rc = srv_health_write(w, &h, labels, err);
	free(traces);
	return rc;
}

int srv_metrics_render(struct srv_ctx *c, bool openmetrics, char **body, size_t *len,
		       struct gs_error *err)
{
	struct gs_prom *w = NULL;
	FILE *f;
	int rc;

	*body = NULL;
	*len = 0;
	f = open_memstream(body, len);
	if (!f)
		return gs_errorf(err, -ENOMEM, "out of memory for a scrape of /metrics");
	rc = gs_prom_new(f, openmetrics ? GS_PROM_OPENMETRICS : GS_PROM_TEXT, &w, err);
	if (!rc)
		rc = write_all(c, w, &c->labels, err);
	if (!rc)
		rc = gs_prom_finish(w, err);
	gs_prom_free(w);
	if (fclose(f) != 0 && !rc)
		rc = gs_errorf(err, -ENOMEM, "out of memory for a scrape of /metrics");
	if (rc) {
		free(*body);
		*body = NULL;
		*len = 0;
	}
	return rc;
}
