/* The end of a run. Losses are counted in the kernel per program; what is
 * lost while gstrace reads is the user's concern, what the probes drop
 * while they are being detached (reading has stopped, nobody wants those
 * events) is not, and is never reported as lost; nor are the events after
 * --max-events' limit, which are discarded. Detaching a thousand probes
 * takes a noticeable moment: past half a second a notice says what
 * gstrace is doing. At the end, when something was lost, one summary line
 * says what was delivered and lost, and each trace's share. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gs/render.h>

#include "stop.h"

#define NOTICE_AFTER_NS 500000000l
#define NAMES_SHOWN 4
#define DRAIN_POLLS 64 /* of at most 4096 events each (reader.c) */

/* "trace #0 (foo)", or "traces #0 (a), #1 (b) and 7 more": the session
 * counts losses of every trace together. */
static void put_traces(const struct gs_script *s)
{
	if (!s) {
		fputs("the CPU samples", stderr);
		return;
	}
	if (s->ntraces == 1) {
		fputs("trace #0 (", stderr);
		gs_render_fputs(stderr, s->traces[0].target.text, 0);
		fputc(')', stderr);
		return;
	}
	fputs("traces", stderr);
	for (size_t i = 0; i < s->ntraces && i < NAMES_SHOWN; i++) {
		fprintf(stderr, "%s #%zu (", i ? "," : "", i);
		gs_render_fputs(stderr, s->traces[i].target.text, 0);
		fputc(')', stderr);
	}
	if (s->ntraces > NAMES_SHOWN)
		fprintf(stderr, " and %zu more", s->ntraces - NAMES_SHOWN);
}

int cli_losses_init(struct cli_losses *l, size_t ntraces, bool verbose, bool summary)
{
	l->per_trace = calloc(ntraces ? ntraces : 1, sizeof(*l->per_trace));
	l->ntraces = l->per_trace ? ntraces : 0;
	l->verbose = verbose;
	l->summary = summary;
	return l->per_trace ? 0 : -ENOMEM;
}

void cli_count_event(struct cli_losses *l, uint64_t trace_id)
{
	if (l->limit_reached) {
		l->discarded++;
		return;
	}
	l->delivered++;
	if (trace_id < l->ntraces)
		l->per_trace[trace_id]++;
}

void cli_limit_reached(struct cli_losses *l, struct gs_session *sess)
{
	if (l->limit_reached)
		return;
	l->limit_reached = true;
	if (!sess || gs_session_lost(sess, &l->lost_at_limit, NULL))
		l->lost_at_limit = l->reported;
}

/* The kernel's losses of the reading time: past --max-events' limit, no
 * more than it had lost when the limit was reached. */
static int lost_so_far(struct gs_session *sess, const struct cli_losses *l, uint64_t *total)
{
	int rc = gs_session_lost(sess, total, NULL);

	if (rc == 0 && l->limit_reached && *total > l->lost_at_limit)
		*total = l->lost_at_limit;
	return rc;
}

void cli_report_lost(const struct gs_script *s, struct gs_session *sess, struct cli_losses *l)
{
	uint64_t total;

	if (lost_so_far(sess, l, &total) || total <= l->reported)
		return;
	fputs("gstrace: ", stderr);
	put_traces(s);
	fprintf(stderr, " lost %" PRIu64 " events in kernel before userspace delivery (total %"
		PRIu64 ")\n", total - l->reported, total);
	l->reported = total;
}

/* "gstrace: 10234 events delivered, 512 lost; per trace: #0 (foo) 6000,
 * #1 (bar) 4234": what came to userspace (before --max-events' limit), what
 * the kernel lost while gstrace read (the losses are counted for every
 * trace together), and each trace's share of the delivered events. */
static void put_summary(const struct gs_script *s, const struct cli_losses *l)
{
	uint64_t rest = 0;

	fprintf(stderr, "gstrace: %" PRIu64 " event%s delivered, %" PRIu64 " lost",
		l->delivered, l->delivered == 1 ? "" : "s", l->reported);
	if (s && s->ntraces == l->ntraces && l->ntraces) {
		fputs("; per trace:", stderr);
		for (size_t i = 0; i < l->ntraces; i++) {
			if (i >= NAMES_SHOWN) {
				rest += l->per_trace[i];
				continue;
			}
			fprintf(stderr, "%s #%zu (", i ? "," : "", i);
			gs_render_fputs(stderr, s->traces[i].target.text, 0);
			fprintf(stderr, ") %" PRIu64, l->per_trace[i]);
		}
		if (l->ntraces > NAMES_SHOWN)
			fprintf(stderr, ", %zu more traces %" PRIu64, l->ntraces - NAMES_SHOWN, rest);
	}
	fputc('\n', stderr);
}

struct notice {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	size_t probes;
};

static void *notice_main(void *arg)
{
	struct notice *n = arg;
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += NOTICE_AFTER_NS;
	if (until.tv_nsec >= 1000000000l) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000l;
	}
	pthread_mutex_lock(&n->lock);
	while (!n->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&n->cond, &n->lock, &until);
	if (!n->done) {
		fprintf(stderr, "gstrace: detaching %zu probe%s...\n", n->probes,
			n->probes == 1 ? "" : "s");
		fflush(stderr);
	}
	pthread_mutex_unlock(&n->lock);
	return NULL;
}

void cli_teardown(const struct gs_script *s, struct gs_session *sess, struct cli_losses *l)
{
	struct notice n = { 0 };
	pthread_condattr_t ca;
	pthread_t thread;
	bool started;
	uint64_t total;

	if (!sess) {
		free(l->per_trace);
		l->per_trace = NULL;
		return;
	}
	n.probes = gs_session_probe_count(sess);
	/* What was lost while reading is said before the teardown starts. */
	cli_report_lost(s, sess, l);
	pthread_mutex_init(&n.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&n.cond, &ca);
	pthread_condattr_destroy(&ca);
	started = pthread_create(&thread, NULL, notice_main, &n) == 0;
	gs_session_detach(sess);
	pthread_mutex_lock(&n.lock);
	n.done = true;
	pthread_cond_signal(&n.cond);
	pthread_mutex_unlock(&n.lock);
	if (started)
		pthread_join(thread, NULL);
	pthread_cond_destroy(&n.cond);
	pthread_mutex_destroy(&n.lock);
	/* Past the limit, what the kernel dropped after it is discarded, and
	 * what the buffers still hold is read (to count it) with --verbose. */
	if (l->limit_reached && gs_session_lost(sess, &total, NULL) == 0 &&
	    total > l->lost_at_limit)
		l->discarded += total - l->lost_at_limit;
	for (int i = 0; l->limit_reached && l->verbose && i < DRAIN_POLLS; i++)
		if (gs_session_poll(sess, 0, NULL) <= 0)
			break;
	if (!l->limit_reached && l->reported && gs_session_lost(sess, &total, NULL) == 0 &&
	    total > l->reported) {
		fputs("gstrace: ", stderr);
		put_traces(s);
		fprintf(stderr, " dropped %" PRIu64 " more events while the probes were being "
			"detached, after reading stopped (not counted as lost)\n",
			total - l->reported);
	}
	if (l->summary && (l->reported || l->verbose))
		put_summary(s, l);
	if (l->limit_reached && l->verbose)
		fprintf(stderr, "gstrace: %" PRIu64 " event%s after the limit (--max-events) %s "
			"discarded\n", l->discarded, l->discarded == 1 ? "" : "s",
			l->discarded == 1 ? "was" : "were");
	gs_session_free(sess);
	free(l->per_trace);
	l->per_trace = NULL;
}
