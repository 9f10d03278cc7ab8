/* The live session (gs/live.h): every trace is a script of its own, with
 * its own plan and session over one module-file cache, so adding, editing,
 * enabling or removing one loads or detaches that trace's programs only.
 * One epoll descriptor holds every running session's; ids are ours, 1, 2,
 * ... never reused, and each plan numbers its trace with its live id. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <gs/live.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include "base.h"
#include "opts.h"
#include "rt_int.h"

/* How often a poll looks at every session while it waits, and how often
 * the live descriptor turns readable while a trace runs (live_tick.c): the
 * reader's own tick, since a ring buffer need not wake its descriptor for
 * every event. Until a trace's first event, for at most LIVE_FIRST_TICKS_MS
 * after it starts, every millisecond: a new trace shows it is live as soon
 * as its probe fires (the reader does the same). */
#define LIVE_TICK_MS 5
#define LIVE_FIRST_TICK_MS 1
#define LIVE_FIRST_TICKS_MS 1000
/* Polls that read what a session still buffers once it is detached. */
#define LIVE_DRAIN_POLLS 64

struct live_trace {
	struct gs_live *l;
	uint32_t id;
	char *source;               /* its text, trailing blanks trimmed */
	struct gs_script *script;   /* one trace */
	struct gs_plan *plan;       /* built */
	struct gs_session *session; /* NULL while disabled */
	uint64_t hits;
	int64_t awaits_ms; /* started then, no event since; 0: one came */
};

struct gs_live {
	struct gs_live_opts opts;
	struct gs_program_opts program;
	bool has_program;
	char *module;
	struct gs_modfiles *files, *own_files;
	int epfd;
	struct rt_tick tick; /* in epfd: readable each tick while a trace runs */
	struct live_trace **v; /* by id */
	size_t n, cap;
	uint32_t next_id;
	uint64_t lost_before; /* of the sessions already freed */
	char *report;
	/* The poll under way: events delivered, and a callback's stop value. */
	int delivered, stop;
};

/* ---- one trace: script, plan, session ----------------------------------- */

/* The live descriptor's tick as the traces need it now: none without a
 * running trace, fast while a trace started less than LIVE_FIRST_TICKS_MS
 * ago awaits its first event. */
static void update_tick(struct gs_live *l)
{
	int64_t now = base_now_ms();
	int period = 0;

	for (size_t i = 0; i < l->n && period != LIVE_FIRST_TICK_MS; i++) {
		const struct live_trace *t = l->v[i];

		if (!t->session)
			continue;
		period = t->awaits_ms && now - t->awaits_ms < LIVE_FIRST_TICKS_MS ?
			 LIVE_FIRST_TICK_MS : LIVE_TICK_MS;
	}
	rt_tick_set(&l->tick, period);
}

static int on_trace_event(void *arg, const struct gs_event *ev)
{
	struct live_trace *t = arg;
	int rc;

	t->hits++;
	t->awaits_ms = 0;
	t->l->delivered++;
	rc = t->l->opts.on_event(t->l->opts.arg, ev);
	if (rc)
		t->l->stop = rc;
	return rc;
}

static void trace_free(struct live_trace *t)
{
	if (!t)
		return;
	gs_session_free(t->session);
	gs_plan_free(t->plan);
	gs_script_free(t->script);
	free(t->source);
	free(t);
}

static const char *trace_target(const struct live_trace *t)
{
	return t->script->traces[0].target.text;
}

/* The plan of a one-trace script, built: programs ready, nothing loaded. */
static int plan_trace(struct gs_live *l, struct live_trace *t, struct gs_error *err)
{
	GS_OPTS(gs_plan_opts, po, .pid = l->opts.pid, .module = l->module,
		.program = l->has_program ? &l->program : NULL, .files = l->files,
		.hold_on_dlopen = l->opts.hold_on_dlopen, .first_trace_id = t->id);

	return gs_plan_from_script(t->script, &po, &t->plan, err);
}

static char *trimmed_copy(const char *text, size_t len)
{
	char *s;

	while (len && strchr(" \t\r\n\f\v", text[len - 1]))
		len--;
	s = malloc(len + 1);
	if (s) {
		memcpy(s, text, len);
		s[len] = '\0';
	}
	return s;
}

/* A live trace from the text of exactly one trace, planned and built.
 * pad (may be "") goes before text when parsing, so that messages give the
 * line:column of the whole script it was cut from. */
static int trace_make(struct gs_live *l, uint32_t id, const char *pad, const char *text,
		      size_t len, const char *name, struct live_trace **out, struct gs_error *err)
{
	GS_OPTS(gs_script_opts, so, .name = name, .input_pid = (uint32_t)l->opts.pid);
	size_t npad = strlen(pad);
	struct live_trace *t = calloc(1, sizeof(*t));
	char *padded = malloc(npad + len + 1);
	int rc = -ENOMEM;

	*out = NULL;
	if (t && padded && (t->source = trimmed_copy(text, len))) {
		memcpy(padded, pad, npad);
		memcpy(padded + npad, text, len);
		t->l = l;
		t->id = id;
		rc = gs_script_parse(padded, npad + len, &so, &t->script, err);
	} else {
		gs_errorf(err, rc, "out of memory reading trace #%u", id);
	}
	free(padded);
	if (rc == 0 && t->script->ntraces != 1)
		rc = gs_errorf(err, -EINVAL, "trace #%u: an edit takes one trace, and the text "
			       "has %zu; edit one trace at a time, and add the others as new "
			       "traces (gs_live_add)", id, t->script->ntraces);
	if (rc == 0)
		rc = plan_trace(l, t, err);
	if (rc) {
		trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

/* Loads and attaches t; its events then reach the live descriptor. */
static int trace_start(struct live_trace *t, struct gs_error *err)
{
	struct gs_live *l = t->l;
	GS_OPTS(gs_session_opts, so, .force_tracefs = l->opts.force_tracefs,
		.no_multi_link = l->opts.no_multi_link, .on_event = on_trace_event, .arg = t);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = t };
	struct gs_session *s;
	const char *report;
	int rc = gs_session_new(&so, &s, err);

	if (rc)
		return rc;
	rc = gs_session_start(s, t->plan, err);
	if (rc < 0) {
		report = gs_session_report(s);
		if (report) {
			free(l->report);
			l->report = strdup(report); /* NULL when short of memory: no report */
		}
		gs_session_free(s);
		return rc;
	}
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, gs_session_fd(s), &ev)) {
		rc = -errno;
		gs_session_free(s);
		return gs_errorf(err, rc, "trace #%u (%s): cannot watch its events: %s", t->id,
				 trace_target(t), strerror(-rc));
	}
	t->session = s;
	t->awaits_ms = base_now_ms();
	return 0;
}

/* Detaches t, delivers what it had buffered, keeps its loss count, frees
 * its session. drain false: its buffered events are dropped (a start that
 * failed halfway: nobody saw the trace). */
static void trace_stop(struct live_trace *t, bool drain)
{
	struct gs_live *l = t->l;
	uint64_t lost;

	if (!t->session)
		return;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, gs_session_fd(t->session), NULL);
	gs_session_detach(t->session);
	for (int i = 0; drain && i < LIVE_DRAIN_POLLS; i++)
		if (gs_session_poll(t->session, 0, NULL) <= 0)
			break;
	if (gs_session_lost(t->session, &lost, NULL) == 0)
		l->lost_before += lost;
	gs_session_free(t->session);
	t->session = NULL;
}

static struct live_trace *find(const struct gs_live *l, uint32_t id, size_t *at)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i]->id == id) {
			if (at)
				*at = i;
			return l->v[i];
		}
	}
	return NULL;
}

static int unknown_id(uint32_t id, struct gs_error *err)
{
	return gs_errorf(err, -ENOENT, "no trace #%u in the live session: it was removed, or "
			 "never added; gs_live_trace_info lists the traces", id);
}

/* ---- the session ---------------------------------------------------------- */

int gs_live_new(const struct gs_live_opts *opts, struct gs_live **out, struct gs_error *err)
{
	struct gs_live *l = calloc(1, sizeof(*l));
	int rc;

	*out = NULL;
	if (!l)
		return gs_errorf(err, -ENOMEM, "out of memory creating the live session");
	l->epfd = -1;
	l->tick.fd = -1;
	rc = OPTS_COPY(&l->opts, opts, gs_live_opts, err);
	if (rc == 0 && !l->opts.on_event)
		rc = gs_errorf(err, -EINVAL, "gs_live_new needs options with an on_event "
			       "callback");
	if (rc == 0 && l->opts.program) {
		rc = OPTS_COPY(&l->program, l->opts.program, gs_program_opts, err);
		l->has_program = true;
	}
	l->opts.program = NULL;
	if (rc == 0 && l->opts.module && !(l->module = strdup(l->opts.module)))
		rc = gs_errorf(err, -ENOMEM, "out of memory creating the live session");
	l->opts.module = NULL;
	l->files = l->opts.files;
	if (rc == 0 && !l->files && (rc = gs_modfiles_new(NULL, &l->own_files, err)) == 0)
		l->files = l->own_files;
	if (rc == 0 && (l->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		rc = gs_errorf(err, -errno, "cannot create the live session's epoll descriptor: %s",
			       strerror(errno));
	if (rc == 0)
		rc = rt_tick_open(&l->tick, l->epfd, &l->tick, err);
	if (rc) {
		gs_live_free(l);
		return rc;
	}
	l->next_id = 1;
	*out = l;
	return 0;
}

void gs_live_free(struct gs_live *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		trace_free(l->v[i]);
	free(l->v);
	rt_tick_close(&l->tick);
	if (l->epfd >= 0)
		close(l->epfd);
	gs_modfiles_free(l->own_files);
	free(l->module);
	free(l->report);
	free(l);
}

struct gs_modfiles *gs_live_modfiles(const struct gs_live *l)
{
	return l->files;
}

/* ---- a script cut into its traces ------------------------------------------ */

/* Where trace i's text starts: its `trace` keyword, the last one before
 * its pattern (offset), after the previous trace's pattern (from). */
static size_t trace_start_at(const char *text, size_t from, size_t offset)
{
	for (size_t i = offset; i >= from + 5; i--)
		if (memcmp(text + i - 5, "trace", 5) == 0)
			return i - 5;
	return from;
}

/* Newlines and spaces that put a text cut at `at` where it was in the
 * whole script, for messages: malloc'd, NULL when short of memory. */
static char *position_pad(const char *text, size_t at)
{
	size_t lines = 0, col = 0;
	char *pad;

	for (size_t i = 0; i < at; i++) {
		col = text[i] == '\n' ? 0 : col + 1;
		lines += text[i] == '\n';
	}
	pad = malloc(lines + col + 1);
	if (pad) {
		memset(pad, '\n', lines);
		memset(pad + lines, ' ', col);
		pad[lines + col] = '\0';
	}
	return pad;
}

/* The traces of s (parsed from text) as live traces, ids from first,
 * planned and built; into v (s->ntraces). On error none is left. */
static int make_traces(struct gs_live *l, const struct gs_script *s, const char *text, size_t len,
		       const char *name, uint32_t first, struct live_trace **v,
		       struct gs_error *err)
{
	size_t n = s->ntraces, i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		size_t start = trace_start_at(text, i ? s->traces[i - 1].offset : 0,
					      s->traces[i].offset);
		size_t end = i + 1 < n ? trace_start_at(text, s->traces[i].offset,
							s->traces[i + 1].offset) : len;
		char *pad = position_pad(text, start);

		rc = pad ? trace_make(l, first + (uint32_t)i, pad, text + start, end - start, name,
				      &v[i], err) :
			   gs_errorf(err, -ENOMEM, "out of memory reading the script");
		free(pad);
		if (rc)
			break;
	}
	if (rc)
		for (size_t k = 0; k < i; k++)
			trace_free(v[k]);
	return rc;
}

int gs_live_check(struct gs_live *l, const char *text, size_t len, const char *name,
		  struct gs_error *err)
{
	GS_OPTS(gs_script_opts, so, .name = name, .input_pid = (uint32_t)l->opts.pid);
	GS_OPTS(gs_plan_opts, po, .pid = l->opts.pid, .module = l->module,
		.program = l->has_program ? &l->program : NULL, .files = l->files,
		.hold_on_dlopen = l->opts.hold_on_dlopen, .first_trace_id = l->next_id);
	struct gs_script *s;
	struct gs_plan *p = NULL;
	int rc = gs_script_parse(text, len, &so, &s, err);

	if (rc == 0)
		rc = gs_plan_from_script(s, &po, &p, err);
	gs_plan_free(p);
	gs_script_free(s);
	return rc;
}

static int grow(struct gs_live *l, size_t more, struct gs_error *err)
{
	if (base_grow((void **)&l->v, &l->cap, l->n + more, sizeof(*l->v)))
		return gs_errorf(err, -ENOMEM, "out of memory adding %zu trace%s", more,
				 more == 1 ? "" : "s");
	return 0;
}

/* Starts v[0..n) unless disabled; on error the ones started are stopped
 * and their buffered events dropped (their ids are given again). */
static int start_all(struct live_trace **v, size_t n, struct gs_error *err)
{
	int rc = 0;
	size_t i;

	for (i = 0; i < n && rc == 0; i++)
		rc = trace_start(v[i], err);
	if (rc)
		for (size_t k = 0; k + 1 < i; k++)
			trace_stop(v[k], false);
	return rc;
}

int gs_live_add(struct gs_live *l, const char *text, size_t len, const char *name,
		bool start_disabled, uint32_t *ids, size_t max_ids, size_t *nids,
		struct gs_error *err)
{
	GS_OPTS(gs_script_opts, so, .name = name, .input_pid = (uint32_t)l->opts.pid);
	struct live_trace **v = NULL;
	struct gs_script *s;
	size_t n;
	int rc;

	if (nids)
		*nids = 0;
	/* The whole script first: a syntax error shows where it is in it. */
	rc = gs_script_parse(text, len, &so, &s, err);
	if (rc)
		return rc;
	n = s->ntraces;
	if (n == 0)
		rc = gs_errorf(err, -EINVAL, "%s: the script has no trace; write `trace TARGET "
			       "{ ... }`", name ? name : "script");
	if (rc == 0 && !(v = calloc(n, sizeof(*v))))
		rc = gs_errorf(err, -ENOMEM, "out of memory adding %zu traces", n);
	if (rc == 0)
		rc = grow(l, n, err);
	if (rc == 0)
		rc = make_traces(l, s, text, len, name, l->next_id, v, err);
	gs_script_free(s);
	if (rc == 0 && !start_disabled && (rc = start_all(v, n, err)) != 0)
		for (size_t i = 0; i < n; i++)
			trace_free(v[i]);
	if (rc) {
		free(v);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		if (ids && i < max_ids)
			ids[i] = v[i]->id;
		l->v[l->n++] = v[i];
	}
	l->next_id += (uint32_t)n;
	if (nids)
		*nids = n;
	free(v);
	update_tick(l);
	return 0;
}

int gs_live_edit(struct gs_live *l, uint32_t id, const char *text, size_t len,
		 struct gs_error *err)
{
	struct live_trace *old, *nt;
	struct gs_error why;
	char name[32];
	size_t at;
	int rc;

	if (!(old = find(l, id, &at)))
		return unknown_id(id, err);
	snprintf(name, sizeof(name), "trace #%u", id);
	rc = trace_make(l, id, "", text, len, name, &nt, err);
	if (rc)
		return rc;
	if (old->session) {
		trace_stop(old, true);
		rc = trace_start(nt, &why);
		/* Not loaded after all (the verifier): the old one goes back. */
		if (rc) {
			struct gs_error again;
			int back;

			trace_free(nt);
			back = trace_start(old, &again);
			update_tick(l);
			if (back)
				return gs_errorf(err, rc, "%s\n(the old trace #%u could not be "
						 "attached again, so it is disabled: %s)", why.msg,
						 id, again.msg);
			return gs_errorf(err, rc, "%s", why.msg);
		}
	}
	nt->hits = old->hits; /* counted through the drain */
	l->v[at] = nt;
	trace_free(old);
	update_tick(l);
	return 0;
}

int gs_live_enable(struct gs_live *l, uint32_t id, bool enable, struct gs_error *err)
{
	struct live_trace *t = find(l, id, NULL);
	int rc = 0;

	if (!t)
		return unknown_id(id, err);
	if (enable && !t->session)
		rc = trace_start(t, err);
	if (!enable)
		trace_stop(t, true);
	update_tick(l);
	return rc;
}

int gs_live_remove(struct gs_live *l, uint32_t id, struct gs_error *err)
{
	struct live_trace *t;
	size_t at;

	if (!(t = find(l, id, &at)))
		return unknown_id(id, err);
	trace_stop(t, true);
	trace_free(t);
	memmove(&l->v[at], &l->v[at + 1], (l->n - at - 1) * sizeof(*l->v));
	l->n--;
	update_tick(l);
	return 0;
}

/* ---- what there is ---------------------------------------------------------- */

size_t gs_live_count(const struct gs_live *l)
{
	return l->n;
}

int gs_live_trace_info(const struct gs_live *l, size_t i, struct gs_live_trace_info *out)
{
	const struct live_trace *t;
	const struct gs_plan_trace *pt;

	if (i >= l->n)
		return -ENOENT;
	t = l->v[i];
	pt = gs_plan_trace_at(t->plan, 0);
	*out = (struct gs_live_trace_info){
		.id = t->id,
		.state = t->session ? GS_LIVE_ENABLED : GS_LIVE_DISABLED,
		.source = t->source,
		.target = trace_target(t),
		.module = gs_plan_trace_target(pt)->module,
		.nprobes = gs_plan_probe_count(t->plan),
		.hits = t->hits,
	};
	return 0;
}

const char *gs_live_trace_note(const struct gs_live *l, uint32_t id, size_t i)
{
	const struct live_trace *t = find(l, id, NULL);

	return t ? gs_plan_trace_note(gs_plan_trace_at(t->plan, 0), i) : NULL;
}

const char *gs_live_report(const struct gs_live *l)
{
	return l->report;
}

int gs_live_lost(const struct gs_live *l, uint64_t *total, struct gs_error *err)
{
	*total = l->lost_before;
	for (size_t i = 0; i < l->n; i++) {
		uint64_t lost;
		int rc;

		if (!l->v[i]->session)
			continue;
		rc = gs_session_lost(l->v[i]->session, &lost, err);
		if (rc)
			return rc;
		*total += lost;
	}
	return 0;
}

/* The script language's comment is `//`: a saved script reads back. */
int gs_live_save(const struct gs_live *l, FILE *f)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct live_trace *t = l->v[i];

		if (i)
			fputc('\n', f);
		if (!t->session)
			fprintf(f, "// disabled: trace %u\n", t->id);
		fprintf(f, "%s\n", t->source);
	}
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

/* ---- events ----------------------------------------------------------------- */

int gs_live_fd(const struct gs_live *l)
{
	return l->epfd;
}

/* One pass over every enabled trace, without waiting: gs_session_poll also
 * refreshes its unwind maps, so each is polled even when nothing waits. */
static int poll_each(struct gs_live *l, struct gs_error *err)
{
	for (size_t i = 0; i < l->n && !l->stop; i++) {
		struct gs_error why;
		int rc;

		if (!l->v[i]->session)
			continue;
		rc = gs_session_poll(l->v[i]->session, 0, &why);
		if (rc < 0)
			return gs_errorf(err, rc, "trace #%u (%s): %s", l->v[i]->id,
					 trace_target(l->v[i]), why.msg);
	}
	return 0;
}

int gs_live_poll(struct gs_live *l, int timeout_ms, struct gs_error *err)
{
	int64_t deadline = timeout_ms < 0 ? INT64_MAX : base_now_ms() + timeout_ms;

	l->delivered = 0;
	l->stop = 0;
	for (;;) {
		int64_t left = deadline == INT64_MAX ? LIVE_TICK_MS : deadline - base_now_ms();
		struct epoll_event evs[16];
		int rc = epoll_wait(l->epfd, evs, 16, left <= 0 ? 0 :
				    left < LIVE_TICK_MS ? (int)left : LIVE_TICK_MS);

		if (rc < 0 && errno == EINTR)
			return -EINTR;
		if (rc < 0)
			return gs_errorf(err, -errno, "waiting for events failed: %s",
					 strerror(errno));
		for (int i = 0; i < rc; i++)
			if (evs[i].data.ptr == &l->tick)
				rt_tick_ack(&l->tick);
		rc = poll_each(l, err);
		/* the fast tick ends with the first events (or its time) */
		if (l->tick.period_ms == LIVE_FIRST_TICK_MS)
			update_tick(l);
		if (rc)
			return rc;
		if (l->stop)
			return l->stop;
		if (l->delivered || left <= 0 || base_now_ms() >= deadline)
			return l->delivered;
	}
}
