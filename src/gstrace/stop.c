/* The end of a run. Losses are counted in the kernel per program; what is
 * lost while gstrace reads is the user's concern, what the probes drop
 * while they are being detached (reading has stopped, nobody wants those
 * events) is not, and is never reported as lost. Detaching a thousand
 * probes takes a noticeable moment: past half a second a notice says what
 * gstrace is doing. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include <gs/render.h>

#include "stop.h"

#define NOTICE_AFTER_NS 500000000l
#define NAMES_SHOWN 4

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

void cli_report_lost(const struct gs_script *s, struct gs_session *sess, struct cli_losses *l)
{
	uint64_t total;

	if (gs_session_lost(sess, &total, NULL) || total <= l->reported)
		return;
	fputs("gstrace: ", stderr);
	put_traces(s);
	fprintf(stderr, " lost %" PRIu64 " events in kernel before userspace delivery (total %"
		PRIu64 ")\n", total - l->reported, total);
	l->reported = total;
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

	if (!sess)
		return;
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
	if (l->reported && gs_session_lost(sess, &total, NULL) == 0 && total > l->reported) {
		fputs("gstrace: ", stderr);
		put_traces(s);
		fprintf(stderr, " dropped %" PRIu64 " more events while the probes were being "
			"detached, after reading stopped (not counted as lost)\n",
			total - l->reported);
	}
	gs_session_free(sess);
}
