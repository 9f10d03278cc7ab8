/* The agent beside a run (--serve, docs/agent.md): the flags as the serve
 * layer's options, the count of events each trace delivered (the command
 * keeps it), and what a user should hear when it starts. */
#include <errno.h>
#include <string.h>

#include "say.h"
#include "serve_mode.h"

static uint64_t delivered(void *arg, uint32_t trace_id)
{
	const struct cli_losses *l = arg;

	return trace_id < l->ntraces ? l->per_trace[trace_id] : 0;
}

int cli_serve_start(struct cli_ctx *c, gs_stack_count_fn on_counts, void *arg)
{
	struct srv_opts o = {
		.listen = c->cli.serve_listen, .token_file = c->cli.serve_token,
		.tls_cert = c->cli.serve_tls_cert, .tls_key = c->cli.serve_tls_key,
		.max_series = c->cli.serve_max_series, .max_seconds = c->cli.serve_max_seconds,
		.profile_hz = c->cli.profile_hz ? c->cli.profile_hz : GS_SAMPLE_DEFAULT_FREQUENCY,
		.profiling = c->cli.profile_hz != 0, .nlabels = c->cli.nserve_labels,
		.session = c->session, .plan = c->plan, .script = c->script, .frames = c->frames,
		.on_counts = on_counts, .counts_arg = arg,
		.delivered = delivered, .delivered_arg = &c->losses,
	};
	struct gs_error err = { 0 };
	int rc;

	memcpy(o.labels, c->cli.serve_labels, sizeof(o.labels));
	if ((rc = srv_agent_new(&o, &c->agent, &err))) {
		cli_say("gstrace: ", "%s", err.msg);
		/* the flags' (a token file, TLS files, TLS in a static build) */
		return rc == -EINVAL || rc == -ENOTSUP ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (!srv_listen_loopback(&o.listen) && !o.tls_cert)
		cli_say("gstrace: ", "warning: serving on %s without TLS: the token and what is "
			"served cross the network in clear; give --serve-tls-cert FILE and "
			"--serve-tls-key FILE", o.listen.text);
	cli_say("gstrace: ", "serving on %s://%s (/metrics, /debug/pprof/)",
		o.tls_cert ? "https" : "http", o.listen.text);
	return 0;
}
