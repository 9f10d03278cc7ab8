/* Inside the serve layer: how its files meet. Two threads: the HTTP
 * server's (http.c: connections, limits, the token, static answers) and
 * the command's, where everything that reads the session runs (agent.c,
 * metrics.c, scrape.c, health.c, profile.c). They meet in a queue of requests: the
 * server suspends a request that needs the session and queues it; the
 * command's thread takes it (srv_http_next), answers it (srv_http_answer)
 * and the server resumes and sends. */
#ifndef SRV_INT_H
#define SRV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/internal/serve.h>
#include <gs/prom.h>
#include <gs/pprof.h>

/* ---- the query string (query.c; fuzzed) ---------------------------------- */

/* What a request's query may say. Unknown keys are ignored (pprof clients
 * send their own); a known key with a bad value, or given twice, is
 * refused. */
struct srv_query {
	bool has_seconds;
	uint32_t seconds;    /* ?seconds=N, 1..max */
	bool debug;          /* ?debug=1 (an index page as text) */
};

/* Parses the raw query (after `?`, percent-encoded, len bytes, not
 * NUL-terminated) into *out, seconds at most max_seconds. 0, or -EINVAL
 * with one line in msg fit to send back (nothing of the process in it). */
int srv_query_parse(const char *query, size_t len, uint32_t max_seconds, struct srv_query *out,
		    char *msg, size_t size);

/* What the client accepts (accept.c; fuzzed with the query): whether its
 * Accept header prefers application/openmetrics-text to text/plain (by q,
 * then by order), and whether its Accept-Encoding allows gzip. NULL: the
 * header is absent (no, no). */
bool srv_accept_openmetrics(const char *accept);
bool srv_accept_gzip(const char *accept_encoding);

/* ---- the bearer token (token.c) ----------------------------------------- */

/* Reads the token from path: the file must be a regular file owned by the
 * caller, mode 0600 (no group or other bits), 16 to 4096 bytes of
 * printable ASCII (a final newline dropped). 0 and a malloc'd *token, or
 * -EINVAL / -errno with err naming the file and the fix. */
int srv_token_read(const char *path, char **token, size_t *len, struct gs_error *err);
/* Whether the Authorization header value is `Bearer <token>`, compared in
 * time that depends on the lengths only. */
bool srv_token_check(const char *header, const char *token, size_t len);

/* ---- the HTTP server (http.c) -------------------------------------------- */

enum srv_route {
	SRV_ROUTE_METRICS, /* GET /metrics */
	SRV_ROUTE_PROFILE, /* GET /debug/pprof/profile */
};

/* A request waiting for the command's thread (owned by http.c). */
struct srv_request {
	enum srv_route route;
	bool openmetrics;       /* Accept asked for application/openmetrics-text */
	bool gzip_ok;           /* Accept-Encoding allows gzip */
	uint32_t seconds;       /* SRV_ROUTE_PROFILE: ?seconds=, capped */
	int64_t arrived_ns;     /* CLOCK_MONOTONIC */
	/* Set by the command's thread before srv_http_answer: the answer's
	 * Content-Disposition (a string that lives as long as the program:
	 * `attachment; filename="profile"` for a profile, as Go's
	 * net/http/pprof sends it), or NULL: none. */
	const char *disposition;
	void *priv;             /* http.c's */
};

struct srv_http_opts {
	struct srv_listen listen; /* port 0: one the kernel picks (srv_http_port) */
	const char *token;      /* NULL: no token asked */
	size_t token_len;
	const char *tls_cert_pem, *tls_key_pem; /* file contents, or NULL */
	uint32_t max_seconds;
	unsigned max_connections; /* 0: 64 */
	unsigned timeout_s;       /* an idle or slow connection's; 0: 10 */
};

struct srv_http;

/* Binds and starts the server's thread. 0, or -errno (bind: err says the
 * address and why; EADDRINUSE says so) with err filled. */
int srv_http_new(const struct srv_http_opts *o, struct srv_http **out, struct gs_error *err);
/* Readable while requests wait for the command's thread. */
int srv_http_fd(const struct srv_http *h);
/* The port bound (the one asked for, or the kernel's pick for port 0). */
uint16_t srv_http_port(const struct srv_http *h);
/* The next request waiting, or NULL (and the descriptor no longer
 * readable). Command's thread. */
struct srv_request *srv_http_next(struct srv_http *h);
/* Answers r and lets the server send it: status, Content-Type, an optional
 * Content-Encoding (NULL: none), and the body, which the server takes
 * (malloc'd; freed when sent). r is gone after the call. */
void srv_http_answer(struct srv_http *h, struct srv_request *r, unsigned status,
		     const char *content_type, const char *content_encoding, char *body, size_t len);
/* Requests answered by status class and route, for the health metrics. */
struct srv_http_stats {
	uint64_t requests;      /* every request the server read */
	uint64_t rejected;      /* 4xx answered by the server itself */
	uint64_t unauthorized;  /* 401 */
	uint64_t connections;   /* open now */
};
void srv_http_stats(struct srv_http *h, struct srv_http_stats *st);
/* Stops the server and frees it: every request still waiting, queued or
 * taken by srv_http_next and not answered, is answered 503 (a taken one
 * must not be used after this). Command's thread. */
void srv_http_free(struct srv_http *h);

/* The --serve-label NAME=VALUE strings as labels (each name in names[],
 * each value pointing into its string). */
struct srv_labels {
	struct gs_prom_label v[SRV_MAX_LABELS];
	char names[SRV_MAX_LABELS][64];
	size_t n;
};
/* 0, or -EINVAL with err naming the label and the fix (no '=', a name a
 * series cannot have, one the exposition's own series have: le, quantile,
 * trace, target, version; one given twice, more than SRV_MAX_LABELS). */
int srv_labels_parse(const char *const *text, size_t n, struct srv_labels *out,
		     struct gs_error *err);

/* ---- what the command's thread serves from (agent.c) --------------------- */

struct srv_ctx {
	const struct srv_opts *opts;   /* session, plan, script, frames, labels */
	struct srv_labels labels;      /* opts->labels, parsed once (agent.c) */
	struct srv_http *http;
	int64_t start_realtime_ns;
	/* kept by profile.c */
	uint64_t samples;              /* CPU samples drained from BPF, in total */
	uint64_t drains;
	/* kept by metrics.c */
	uint64_t series_dropped;       /* series left out (--serve-max-series, or a
					* counter below zero), over every scrape */
	uint64_t scrapes;
};

/* ---- /metrics (metrics.c: a scrape from the session; scrape.c: the
 * script's maps as families; health.c: gstrace's own) ------------------ */

/* The whole exposition into *body (malloc'd, *len bytes, for
 * srv_http_answer): the script's aggregations, then the health metrics;
 * OpenMetrics when openmetrics. Counts the scrape and the series it left
 * out in c. 0, or -errno with err filled and *body NULL. */
int srv_metrics_render(struct srv_ctx *c, bool openmetrics, char **body, size_t *len,
		       struct gs_error *err);


/* What the script says about one @map: its keys' label names (a key that
 * is a plain name, $pid, a variable, a let, names its label; NULL: k<i>),
 * whether every value written to it is $duration (nanoseconds: exported
 * in seconds), and a HELP text saying what it holds and which traces
 * write it (several traces' values are merged in BPF: one map per name). */
struct srv_map {
	uint32_t id;
	const char *keys[GS_AGG_MAX_KEYS];
	bool seconds;
	char *help;
};
struct srv_maps {
	struct srv_map *v;
	size_t n;
};
/* s may be NULL (no maps). 0, or -ENOMEM with err. Free with
 * srv_maps_free (valid while s is). */
int srv_maps_from_script(const struct gs_script *s, struct srv_maps *out, struct gs_error *err);
void srv_maps_free(struct srv_maps *m);
/* The map of id, or NULL. */
const struct srv_map *srv_maps_find(const struct srv_maps *m, uint32_t id);

/* One scrape's aggregations: gs_session_aggregations calls
 * srv_scrape_table with it for each table, in script order; the tables
 * share the budget of series (the first get it). */
struct srv_scrape {
	struct gs_prom *w;
	const struct srv_maps *maps;
	const struct srv_labels *labels;
	size_t budget;            /* series (sample lines) this scrape may still write */
	uint64_t left_out;        /* series left out: past the budget, or a counter below zero */
	struct gs_error *err;
};
int srv_scrape_table(void *arg, const struct gs_agg_table *t);

/* gstrace's own figures, read from the session (metrics.c) and the
 * process (srv_process_read), written by srv_health_write. */
struct srv_trace_health {
	uint32_t id;
	const char *target;       /* the trace's pattern as given */
	bool has_delivered;       /* srv_opts.delivered given */
	uint64_t delivered;
	struct gs_trace_stats st;
};
struct srv_process {
	double cpu_seconds;       /* user and system */
	uint64_t resident_bytes;
	uint64_t open_fds;
	double start_time_seconds; /* since the epoch */
};
struct srv_health {
	const char *version;
	const struct srv_trace_health *traces;
	size_t ntraces;
	uint64_t agg_dropped;     /* aggregation updates a full map could not take */
	uint64_t map_bytes;
	uint64_t samples;         /* srv_ctx.samples */
	uint64_t series_dropped;  /* srv_ctx.series_dropped */
	uint64_t scrapes;         /* srv_ctx.scrapes */
	struct srv_process process;
};
/* This process's figures from /proc/self and getrusage. 0 or -errno with
 * err. */
int srv_process_read(struct srv_process *p, struct gs_error *err);
/* Reserves the health families' names in w before the script's (a map
 * named @scrapes then gets its id, not gstrace_scrapes). */
int srv_health_reserve(struct gs_prom *w, struct gs_error *err);
/* The health families, each series with labels first. 0 or -errno with
 * err. */
int srv_health_write(struct gs_prom *w, const struct srv_health *h,
		     const struct srv_labels *labels, struct gs_error *err);
/* ---- the names a process's samples are labelled with (proclabels.c) ----- */

/* comm, exe and container id of each process sampled, read from /proc
 * the first time its samples are drained and kept SRV_PROCLABELS_TTL_NS:
 * then read again (an exec renames a process; a pid is reused), so the
 * cache holds the processes sampled lately only, at most
 * SRV_PROCLABELS_MAX (the oldest goes first). */
#define SRV_PROCLABELS_MAX 4096
#define SRV_PROCLABELS_TTL_NS 10000000000ll
struct srv_procnames {
	const char *comm, *exe, *container; /* raw; "" when unknown or none */
};
struct srv_proclabels;
struct srv_proclabels *srv_proclabels_new(void);
void srv_proclabels_free(struct srv_proclabels *l);
/* pid's names at now_ns (CLOCK_MONOTONIC), read when not known or known
 * for longer than the TTL; NULL when the process is gone (remembered as
 * such for the TTL too) or pid <= 0. Valid until the next call. */
const struct srv_procnames *srv_proclabels_get(struct srv_proclabels *l, pid_t pid,
					       int64_t now_ns);
/* Forgets every entry read longer than the TTL ago; the entries left. */
size_t srv_proclabels_sweep(struct srv_proclabels *l, int64_t now_ns);
size_t srv_proclabels_count(const struct srv_proclabels *l);

/* ---- the open profiles (profiles.c) -------------------------------------- */

/* Profiles being gathered, each for one request, by the end of its
 * seconds: what a tick must do is decided here, from the clock alone, and
 * done by profile.c (the drain, the answers, the sampler's clock). */
#define SRV_DRAIN_OPEN_NS 1000000000ll /* while a profile is open */
#define SRV_DRAIN_IDLE_NS 5000000000ll /* --profile, none open: the map never fills */
#define SRV_MAX_PROFILES 32            /* open at once */

struct srv_profile {
	struct srv_request *req;
	struct gs_pprof *pprof;
	int64_t start_ns, end_ns;      /* CLOCK_MONOTONIC */
};

struct srv_profiles {
	struct srv_profile *v;         /* open, by end_ns */
	size_t n, cap;
	int64_t last_drain_ns;
	bool profiling;                /* the clock runs the whole time (--profile) */
	bool clock_on;
	uint64_t fed;                  /* counts fed to the open profiles */
};

/* What a tick at now does: drain the counts (into every open profile),
 * answer the first `expired` profiles, then stop the clock. */
struct srv_due {
	bool drain;
	size_t expired;
	bool clock_off;
};
void srv_profiles_due(const struct srv_profiles *b, int64_t now_ns, struct srv_due *d);
/* When the next tick has something to do (a profile's end, a drain), on
 * CLOCK_MONOTONIC; INT64_MAX: nothing until a request comes. */
int64_t srv_profiles_next(const struct srv_profiles *b);
/* Opens a profile of `seconds` from now_ns in its place by end time:
 * 0, -EBUSY past SRV_MAX_PROFILES, -ENOMEM. */
int srv_profiles_open(struct srv_profiles *b, struct srv_request *r, struct gs_pprof *pprof,
		      int64_t now_ns, uint32_t seconds);
/* Adds a drained count to every open profile: 0 or -ENOMEM. */
int srv_profiles_feed(struct srv_profiles *b, const struct gs_event *ev, uint64_t count);
/* Takes the first open profile (the one that ends first) out into *out:
 * false when none is open. */
bool srv_profiles_take(struct srv_profiles *b, struct srv_profile *out);
/* Frees what is open (their pprofs; the requests are http.c's). */
void srv_profiles_fini(struct srv_profiles *b);

/* ---- /debug/pprof/profile (profile.c) ------------------------------------ */

/* Go's net/http/pprof answer: the profile gzipped as a file (its media
 * type is the formats table's pprof row). */
#define SRV_PROFILE_DISPOSITION "attachment; filename=\"profile\""

struct srv_profiler;

int srv_profiler_new(struct srv_ctx *c, struct srv_profiler **out, struct gs_error *err);
/* A profile request: it starts now and is answered once its seconds are
 * over (the sampler runs while any is open). r is answered either way: one
 * that cannot be served (no sampler in the plan, SRV_MAX_PROFILES open,
 * no memory) at once, with 503 and why, and 0 returned (the agent goes
 * on). -errno with err filled (the run should end) only when the session
 * fails: the drain, or the clock that would not start (r answered 503). */
int srv_profiler_add(struct srv_profiler *p, struct srv_request *r, struct gs_error *err);
/* Drains the counts when due (each second while a profile is open, and
 * often enough that the maps never fill), answers the profiles whose time
 * is over. 0 or -errno with err. */
int srv_profiler_tick(struct srv_profiler *p, struct gs_error *err);
/* Milliseconds until srv_profiler_tick has work (rounded up), or -1. */
int srv_profiler_wait_ms(const struct srv_profiler *p);
/* The last drain; open profiles answered with what they have. */
int srv_profiler_finish(struct srv_profiler *p, struct gs_error *err);
void srv_profiler_free(struct srv_profiler *p);

#endif /* SRV_INT_H */
