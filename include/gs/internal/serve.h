/* The agent (gstrace --serve, docs/agent.md): the serve layer's one entry.
 * The command builds the plan and starts the session as for any run, then
 * hands the agent what it serves; its own loop waits in gs_session_poll
 * (the agent's descriptor wakes it) and calls srv_agent_work after each
 * poll. Everything the agent does to the session happens in that call, on
 * the command's thread: the HTTP server's thread only queues requests.
 * Not installed, not exported. */
#ifndef GS_INTERNAL_SERVE_H
#define GS_INTERNAL_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/error.h>
#include <gs/frames.h>
#include <gs/runtime.h>
#include <gs/script.h>

/* What --serve-max-series, --serve-max-seconds and ?seconds= default to. */
#define SRV_DEFAULT_MAX_SERIES 10000
#define SRV_DEFAULT_MAX_SECONDS 300
#define SRV_DEFAULT_SECONDS 30
/* Labels --serve-label adds to every series and sample. */
#define SRV_MAX_LABELS 16

/* An address to listen on, as --serve takes it: `127.0.0.1:9464`,
 * `[::1]:9464`, `0.0.0.0:9464`, `localhost:9464` (loopback), or `:9464`
 * (loopback: the default address is never another). */
struct srv_listen {
	int family;             /* AF_INET or AF_INET6 */
	uint8_t addr[16];       /* network order: 4 bytes for AF_INET */
	uint16_t port;          /* 1..65535 */
	char text[64];          /* as a URL writes it: `127.0.0.1:9464`, `[::1]:9464` */
};

/* Parses text into *out: 0, or -EINVAL with one line in msg naming the
 * value and the fix (no name resolution: a number, `localhost` or empty). */
int srv_listen_parse(const char *text, struct srv_listen *out, char *msg, size_t size);
/* Whether l is a loopback address (127.0.0.0/8, ::1). */
bool srv_listen_loopback(const struct srv_listen *l);

/* Whether name may be a --serve-label's: a Prometheus label name
 * ([a-zA-Z_][a-zA-Z0-9_]*, not `__...`) that neither the agent's own
 * series use (le, quantile, trace, target, version) nor a scrape sets
 * (instance, job). The one rule the command's parser and the agent read. */
bool srv_label_name_ok(const char *name);
#define SRV_LABEL_RULE "letters, digits and _, not starting with a digit or __, not le, " \
	"quantile, trace, target, version, instance or job"

struct srv_opts {
	struct srv_listen listen;
	/* --serve-token FILE: a bearer token every request must carry (the
	 * file must be 0600 and the caller's). Required off loopback. */
	const char *token_file;
	/* --serve-tls-cert / --serve-tls-key: PEM files, both or neither. */
	const char *tls_cert, *tls_key;
	uint32_t max_series;     /* 0: SRV_DEFAULT_MAX_SERIES */
	uint32_t max_seconds;    /* ?seconds= cap; 0: SRV_DEFAULT_MAX_SECONDS */
	/* The CPU sampler (a trace of the plan, gs_plan_add_samples with
	 * count_stacks): its frequency, and whether it runs the whole time
	 * (--profile) or only while a profile is being asked for. */
	uint32_t profile_hz;
	bool profiling;
	/* --serve-label NAME=VALUE, checked by the parser */
	const char *labels[SRV_MAX_LABELS];
	size_t nlabels;
	struct gs_session *session;
	const struct gs_plan *plan;
	const struct gs_script *script; /* NULL: none */
	struct gs_frames *frames;       /* names every frame */
	/* Counts drained from BPF go here too (the command's own table and
	 * files at exit), or NULL. */
	gs_stack_count_fn on_counts;
	void *counts_arg;
	/* Events read so far for a trace id (the command counts them), or
	 * NULL. */
	uint64_t (*delivered)(void *arg, uint32_t trace_id);
	void *delivered_arg;
};

struct srv_agent;

/* Checks the options (the token file, the TLS files, off loopback without
 * a token: refused), binds and starts serving, and has the session wake
 * on the agent's descriptor. 0, -EINVAL (the user's to fix: err names the
 * flag and the fix), or -errno (bind, memory) with err filled. */
int srv_agent_new(const struct srv_opts *o, struct srv_agent **out, struct gs_error *err);
/* On the command's thread, after each gs_session_poll: answers what waits
 * (scrapes now; a profile once its seconds are over), and drains the
 * stacks counted in BPF into the open profiles when they are due. 0, or
 * -errno with err filled (the run should end). */
int srv_agent_work(struct srv_agent *a, struct gs_error *err);
/* How long the command's poll may wait before srv_agent_work has work no
 * request brings (a profile's seconds over, a drain due): milliseconds,
 * or -1 for as long as it likes. */
int srv_agent_wait_ms(const struct srv_agent *a);
/* At the end: the last counts drained (to on_counts), profiles still open
 * answered with what they have. Then srv_agent_free. */
int srv_agent_finish(struct srv_agent *a, struct gs_error *err);
void srv_agent_free(struct srv_agent *a);

#endif /* GS_INTERNAL_SERVE_H */
