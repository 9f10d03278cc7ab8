/* GET /debug/pprof/profile?seconds=N on the command's thread: every
 * request gets a pprof profile of its own, and one CPU sampler serves
 * them all (the plan's sample trace, counting in BPF). While a profile is
 * open the clock runs (under --profile it always does) and the counts
 * are drained from BPF each second into every open profile and to the
 * command's own table (srv_opts.on_counts); a profile whose seconds are
 * over is written, gzipped, and answered as Go's net/http/pprof answers.
 * Samples carry the process's comm, exe and container id (proclabels.c)
 * and the agent's --serve-label pairs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gs/formats.h>

#include "serve_int.h"

struct srv_profiler {
	struct srv_ctx *c;
	struct srv_profiles book;
	struct srv_proclabels *names;
	uint32_t hz;
	/* the traces that sample CPUs: only their counts go to profiles */
	uint32_t *sample_ids;
	size_t nsample_ids;
	int64_t now_ns;          /* of the drain under way, for the names */
	int fed_rc;              /* the first error of feeding a drain's counts */
	int64_t last_sweep_ns;
};

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static bool samples_cpu(const struct srv_profiler *p, uint64_t trace_id)
{
	for (size_t i = 0; i < p->nsample_ids; i++)
		if (p->sample_ids[i] == trace_id)
			return true;
	return false;
}

/* ---- the counts drained ---- */

static int on_drained(void *arg, const struct gs_event *ev, uint64_t count)
{
	struct srv_profiler *p = arg;
	const struct srv_opts *o = p->c->opts;
	int rc = 0;

	if (samples_cpu(p, ev->trace_id)) {
		p->c->samples += count;
		rc = srv_profiles_feed(&p->book, ev, count);
	}
	if (rc == 0 && o->on_counts)
		rc = o->on_counts(o->counts_arg, ev, count);
	if (rc && !p->fed_rc)
		p->fed_rc = rc;
	return rc;
}

/* Every count made since the last drain, into the open profiles (none
 * open: to on_counts only). */
static int drain(struct srv_profiler *p, int64_t now, struct gs_error *err)
{
	int rc;

	p->now_ns = now;
	p->fed_rc = 0;
	rc = gs_session_drain_stack_counts(p->c->opts->session, on_drained, p, err);
	p->book.last_drain_ns = now;
	p->c->drains++;
	/* the callbacks' own error (the drain's are said by it) */
	if (rc < 0 && rc == p->fed_rc)
		gs_errorf(err, rc, "cannot take the CPU samples drained from BPF: %s",
			  strerror(-rc));
	return rc < 0 ? rc : 0;
}

static int set_clock(struct srv_profiler *p, bool on, struct gs_error *err)
{
	int rc = gs_session_sampling(p->c->opts->session, on, err);

	if (rc == 0)
		p->book.clock_on = on;
	return rc;
}

/* ---- labels ---- */

static size_t labels_of(void *arg, const struct gs_event *ev, struct gs_pprof_label *out,
			size_t max)
{
	struct srv_profiler *p = arg;
	const struct srv_procnames *names = srv_proclabels_get(p->names, (pid_t)ev->pid,
								p->now_ns);
	size_t n = 0;

	if (names && max >= 3) {
		out[n++] = (struct gs_pprof_label){ "comm", names->comm };
		out[n++] = (struct gs_pprof_label){ "exe", names->exe };
		out[n++] = (struct gs_pprof_label){ "container_id", names->container };
	}
	/* --serve-label's, parsed once by the agent */
	for (size_t i = 0; i < p->c->labels.n && n < max; i++)
		out[n++] = (struct gs_pprof_label){ p->c->labels.v[i].name,
						    p->c->labels.v[i].value };
	return n;
}

/* ---- answers ---- */

static void answer_text(struct srv_profiler *p, struct srv_request *r, unsigned status,
			const char *text)
{
	char *body = strdup(text);

	srv_http_answer(p->c->http, r, status, "text/plain; charset=utf-8", NULL, body,
			body ? strlen(body) : 0);
}

/* The profile written, gzipped, as the answer to its request; freed. */
static void answer(struct srv_profiler *p, struct srv_profile *pr, int64_t now)
{
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	struct gs_error err = { 0 };
	int rc = -ENOMEM;

	gs_pprof_set_duration(pr->pprof, (uint64_t)(now - pr->start_ns));
	if (f) {
		rc = gs_pprof_write(pr->pprof, f, &err);
		if (fclose(f) != 0 && rc == 0)
			rc = -ENOMEM;
	}
	gs_pprof_free(pr->pprof);
	if (rc) {
		free(body);
		answer_text(p, pr->req, 500, "the profile could not be written: out of memory\n");
		return;
	}
	pr->req->disposition = SRV_PROFILE_DISPOSITION;
	srv_http_answer(p->c->http, pr->req, 200, gs_output_format(GS_OUTPUT_PPROF)->content_type,
			NULL, body, len);
}

/* ---- the profiler ---- */

int srv_profiler_new(struct srv_ctx *c, struct srv_profiler **out, struct gs_error *err)
{
	const struct gs_plan *plan = c->opts->plan;
	size_t ntraces = plan ? gs_plan_trace_count(plan) : 0;
	struct srv_profiler *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return gs_errorf(err, -ENOMEM, "out of memory starting the profiler");
	p->c = c;
	p->hz = c->opts->profile_hz ? c->opts->profile_hz : GS_SAMPLE_DEFAULT_FREQUENCY;
	p->book.profiling = c->opts->profiling;
	p->book.last_drain_ns = p->last_sweep_ns = clock_ns(CLOCK_MONOTONIC);
	p->names = srv_proclabels_new();
	p->sample_ids = calloc(ntraces ? ntraces : 1, sizeof(*p->sample_ids));
	if (!p->names || !p->sample_ids) {
		srv_profiler_free(p);
		return gs_errorf(err, -ENOMEM, "out of memory starting the profiler");
	}
	for (size_t i = 0; i < ntraces; i++)
		if (gs_plan_trace_samples(gs_plan_trace_at(plan, i)))
			p->sample_ids[p->nsample_ids++] =
				gs_plan_trace_id(gs_plan_trace_at(plan, i));
	/* the clock as the mode wants it, whatever the plan started with */
	rc = p->nsample_ids ? set_clock(p, p->book.profiling, err) : 0;
	if (rc) {
		srv_profiler_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int srv_profiler_add(struct srv_profiler *p, struct srv_request *r, struct gs_error *err)
{
	GS_OPTS(gs_pprof_opts, po, .frames = p->c->opts->frames, .period_type = "cpu",
		.period_unit = "nanoseconds", .period = 1000000000ll / p->hz,
		.labels = labels_of, .labels_arg = p);
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	uint32_t seconds = r->seconds ? r->seconds : SRV_DEFAULT_SECONDS;
	struct gs_pprof *pprof;
	int rc;

	/* the request's own refusals: the agent goes on */
	if (!p->nsample_ids) {
		answer_text(p, r, 503, "this agent samples no CPU: it was started without one\n");
		return 0;
	}
	if (p->book.n >= SRV_MAX_PROFILES) {
		answer_text(p, r, 503, "too many profiles are being taken at once: ask again "
			    "later\n");
		return 0;
	}
	/* what came before belongs to the profiles already open (or to the
	 * command's table alone): the new one starts from an empty map */
	rc = drain(p, now, err);
	if (rc == 0 && !p->book.clock_on)
		rc = set_clock(p, true, err);
	if (rc) {
		answer_text(p, r, 503, "the CPU sampler failed: see the agent's log\n");
		return rc;
	}
	po.time_ns = clock_ns(CLOCK_REALTIME);
	po.duration_ns = (uint64_t)seconds * 1000000000ull;
	if (gs_pprof_new(&po, &pprof, NULL)) {
		answer_text(p, r, 503, "out of memory for a profile: ask again later\n");
		return 0;
	}
	if (srv_profiles_open(&p->book, r, pprof, now, seconds)) {
		gs_pprof_free(pprof);
		answer_text(p, r, 503, "out of memory for a profile: ask again later\n");
	}
	return 0;
}

/* The profiles due answered, then the clock stopped when none is left
 * and no --profile keeps it: what the sampler counted meanwhile goes to
 * the command's table. */
static int settle(struct srv_profiler *p, const struct srv_due *d, int64_t now,
		  struct gs_error *err)
{
	struct srv_profile pr;
	int rc = 0;

	for (size_t i = 0; i < d->expired && srv_profiles_take(&p->book, &pr); i++)
		answer(p, &pr, now);
	if (d->clock_off && (rc = set_clock(p, false, err)) == 0)
		rc = drain(p, now, err);
	return rc;
}

int srv_profiler_tick(struct srv_profiler *p, struct gs_error *err)
{
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	struct srv_due d;
	int rc = 0;

	if (now - p->last_sweep_ns >= SRV_PROCLABELS_TTL_NS) {
		srv_proclabels_sweep(p->names, now);
		p->last_sweep_ns = now;
	}
	srv_profiles_due(&p->book, now, &d);
	if (d.drain)
		rc = drain(p, now, err);
	/* a failed drain still answers what is due, with what it has */
	if (rc == 0)
		return settle(p, &d, now, err);
	settle(p, &d, now, NULL);
	return rc;
}

int srv_profiler_wait_ms(const struct srv_profiler *p)
{
	int64_t next = srv_profiles_next(&p->book), left;

	if (next == INT64_MAX)
		return -1;
	left = next - clock_ns(CLOCK_MONOTONIC);
	return left <= 0 ? 0 : left >= INT32_MAX * 1000000ll ? INT32_MAX :
							      (int)((left + 999999) / 1000000);
}

int srv_profiler_finish(struct srv_profiler *p, struct gs_error *err)
{
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	struct srv_due d = { .drain = true, .expired = p->book.n,
			     .clock_off = p->book.clock_on && !p->book.profiling };
	int rc = drain(p, now, err);

	if (rc == 0)
		return settle(p, &d, now, err);
	settle(p, &d, now, NULL);
	return rc;
}

void srv_profiler_free(struct srv_profiler *p)
{
	if (!p)
		return;
	srv_profiles_fini(&p->book);
	srv_proclabels_free(p->names);
	free(p->sample_ids);
	free(p);
}
