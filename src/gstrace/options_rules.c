/* gstrace's command line, its rules: which combinations of flags make a
 * run (targets, the interactive mode, CPU profiles, the agent, outputs),
 * the cache's own modes, and where a pprof profile goes. Each refusal
 * names the flags and the fix (exit 2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/formats.h>
#include <gs/internal/serve.h>
#include <gs/program.h>
#include <gs/protocol.h>

#include "options.h"

/* The target forms of a run: -p PID, -t PATH, or -- CMD, one process at
 * most. */
static int check_targets(const struct cli *c, bool dashdash, char *msg, size_t size)
{
	if (dashdash && !c->ncommand)
		return cli_usage_error(msg, size, "nothing after --; give the command to launch "
				   "(e.g. -- ./prog arg)");
	if (c->ncommand && c->pid)
		return cli_usage_error(msg, size, "-p and a command after -- both given; trace a "
				   "running process (-p PID) or launch one (-- CMD), not both");
	if (!c->pid && !c->target && !c->ncommand)
		return cli_usage_error(msg, size, "%s; give -p PID, -t PATH or -- CMD [ARGS...]",
				   c->tui ? "--tui needs a target" : "no target");
	return 0;
}

/* --tui: a script is optional (traces are added on screen), and the
 * flags of printing, counting and stopping belong to the line mode. */
static int check_tui(const struct cli *c, bool dashdash, char *msg, size_t size)
{
	const char *line_only = c->dry_run ? "--dry-run" : c->dump_insns ? "--dump-insns" :
				c->aggregate ? "--aggregate" : c->count_in_bpf ? "--count-in" :
				c->flamegraph ? "--flamegraph" : c->pprof ? "--pprof" :
				c->output ? "--output" :
				c->format != CLI_PRETTY ? "--script-output" :
				c->max_events ? "--max-events" : c->ready_marker ?
				"--emit-ready-marker" : NULL;

	if (line_only)
		return cli_usage_error(msg, size, "%s is a flag of the line mode; the interactive "
				   "mode (--tui) prints events in its output panel (`save output "
				   "FILE` writes them): drop %s or --tui", line_only, line_only);
	return check_targets(c, dashdash, msg, size);
}

static bool has_script(const struct cli *c)
{
	return c->script || c->script_file;
}

/* What samples CPUs without a script (--profile, or the agent's profile
 * endpoint) samples one target: -p PID, -t PATH, --all or -- CMD. */
static int check_sampled_target(const struct cli *c, bool dashdash, const char *mode,
				char *msg, size_t size)
{
	int targets = !!c->pid + !!c->target + !!c->all + !!dashdash;

	if (targets != 1)
		return cli_usage_error(msg, size, "%s %s; give one of -p PID, -t PATH (every "
				   "process running it), --all (every process) or -- CMD "
				   "[ARGS...]", mode, targets ? "samples one target" :
				   "needs a target");
	if (dashdash && !c->ncommand)
		return cli_usage_error(msg, size, "nothing after --; give the command to launch "
				   "(e.g. -- ./prog arg)");
	return 0;
}

/* --profile: CPU samples of one target, counted as stacks; with --serve,
 * a script may run beside it (its probes on the script's target). */
static int check_profile(const struct cli *c, bool dashdash, char *msg, size_t size)
{
	int rc;

	if (has_script(c) && !c->serve)
		return cli_usage_error(msg, size, "--profile samples CPUs and takes no script: drop "
				   "%s, or trace functions without --profile (an agent, "
				   "--serve ADDR:PORT, runs both)", c->script ? "-s" : "--script-file");
	if (c->tui)
		return cli_usage_error(msg, size, "--profile is a flag of the line mode; drop --tui");
	if (!has_script(c) && (rc = check_sampled_target(c, dashdash, "--profile", msg, size)))
		return rc;
	if (c->unwinder == GS_UNWINDER_TAILCALL)
		return cli_usage_error(msg, size, "--profile unwinds with the loop unwinder only: "
				   "drop --unwinder tailcall");
	if (c->max_events && !has_script(c))
		return cli_usage_error(msg, size, "--profile counts samples and sees no events to stop "
				   "after: drop --max-events (--duration SECONDS ends the run)");
	if (c->aggregate && cli_format_folds(c))
		return cli_usage_error(msg, size, "--aggregate and --script-output %s both print "
				   "the samples; give one", cli_format(c)->name);
	return 0;
}

/* The settings of the agent that are not --serve itself, by flag. */
static const char *serve_setting(const struct cli *c)
{
	return c->serve_token ? "--serve-token" : c->serve_tls_cert ? "--serve-tls-cert" :
	       c->serve_tls_key ? "--serve-tls-key" : c->serve_max_series ?
	       "--serve-max-series" : c->serve_max_seconds ? "--serve-max-seconds" :
	       c->nserve_labels ? "--serve-label" : NULL;
}

/* --serve: an agent runs a trace (a script, --profile, both, or its
 * profile endpoint alone) and serves it; what loads nothing or takes the
 * terminal is not one, and it is reachable from elsewhere only with a
 * token. */
static int check_serve(const struct cli *c, char *msg, size_t size)
{
	const char *setting = serve_setting(c);
	const char *other = c->tui ? "--tui" : c->dry_run ? "--dry-run" : c->dump_insns ?
			    "--dump-insns" : c->list_functions ? "-l" : c->list_vars ?
			    "--list-vars" : NULL;

	if (!c->serve) {
		if (setting)
			return cli_usage_error(msg, size, "%s is a setting of the agent; add --serve "
					   "ADDR:PORT (e.g. --serve 127.0.0.1:9464) or drop %s",
					   setting, setting);
		return 0;
	}
	if (other)
		return cli_usage_error(msg, size, "--serve runs an agent until it is stopped, and "
				   "%s %s: drop one", other, c->tui ? "takes the terminal" :
				   c->list_functions || c->list_vars ? "lists and traces nothing" :
				   "loads nothing");
	if (!c->serve_tls_cert != !c->serve_tls_key)
		return cli_usage_error(msg, size, "%s without %s: HTTPS needs the certificate and "
				   "its key; give both or neither", c->serve_tls_cert ?
				   "--serve-tls-cert" : "--serve-tls-key", c->serve_tls_cert ?
				   "--serve-tls-key FILE" : "--serve-tls-cert FILE");
	if (!srv_listen_loopback(&c->serve_listen) && !c->serve_token)
		return cli_usage_error(msg, size, "--serve %s listens beyond this host, where anyone "
				   "reaching the port reads what it serves: add --serve-token FILE "
				   "(a token in a file of mode 0600) or listen on loopback "
				   "(--serve 127.0.0.1:%u)", c->serve_listen.text,
				   (unsigned)c->serve_listen.port);
	return 0;
}

/* --serve with neither a script nor --profile: the profile endpoint alone,
 * its sampler running only while a profile is asked for. Nothing counts
 * for the terminal or a file at exit, so their flags are a mistake. */
static int check_serve_alone(const struct cli *c, bool dashdash, char *msg, size_t size)
{
	const char *line = c->aggregate ? "--aggregate" : c->interval_ms ? "--interval" :
			   c->count_in_given ? "--count-in" : c->format_set ? "--script-output" :
			   c->flamegraph ? "--flamegraph" : c->pprof && cli_format(c)->binary ? "-o" :
			   c->pprof ? "--pprof" : c->output ? "-o" :
			   c->max_events ? "--max-events" : NULL;

	if (line)
		return cli_usage_error(msg, size, "%s is a flag of what a script or --profile "
				   "counts, and this agent runs neither (its profiles are sampled "
				   "on request): add --profile [HZ] or a script, or drop %s", line,
				   line);
	return check_sampled_target(c, dashdash, "--serve", msg, size);
}

/* --quiet: nothing on the terminal but notes; what only prints is not
 * quieted, and -o already sends everything elsewhere. */
static int check_quiet(const struct cli *c, char *msg, size_t size)
{
	const char *other = c->output ? "-o" : c->interval_ms ? "--interval" : c->tui ? "--tui" :
			    c->dry_run ? "--dry-run" : c->dump_insns ? "--dump-insns" :
			    c->list_functions ? "-l" : c->list_vars ? "--list-vars" : NULL;

	if (!c->quiet || !other)
		return 0;
	if (c->output)
		return cli_usage_error(msg, size, "--quiet prints nothing on the terminal and -o "
				   "%s writes there instead: give one", c->output);
	if (c->interval_ms)
		return cli_usage_error(msg, size, "--quiet prints nothing on the terminal and "
				   "--interval the counts every few seconds: give one");
	return cli_usage_error(msg, size, "--quiet and %s: %s only prints; drop --quiet", other,
			       other);
}

/* The combination rules, once every flag is read. */
/* Whether the script may hold @aggregations (a file is read later: the
 * run checks it then, cli_check_interval). */
static bool cli_script_may_aggregate(const struct cli *c)
{
	return c->script_file || (c->script && strchr(c->script, '@'));
}

int cli_check(const struct cli *c, bool dashdash, char *msg, size_t size)
{
	int rc;

	if ((rc = check_serve(c, msg, size)) || (rc = check_quiet(c, msg, size)))
		return rc;
	if ((c->all || c->kernel_stacks || c->unwind_memory_mb) && !c->profile_hz && !c->serve)
		return cli_usage_error(msg, size, "%s is a flag of CPU profiles; add --profile [HZ] "
				   "(or --serve ADDR:PORT, whose profiles it sets)",
				   c->all ? "--all" : c->kernel_stacks ? "--kernel-stacks" :
				   "--unwind-memory");
	if (c->profile_hz && ((rc = check_profile(c, dashdash, msg, size)) || !has_script(c)))
		return rc;

	if (c->list_functions || c->list_vars) {
		if (c->list_functions && c->list_vars)
			return cli_usage_error(msg, size, "-l and --list-vars both given; list functions "
					   "or variables, one at a time");
		if (c->script || c->script_file || c->ncommand || dashdash)
			return cli_usage_error(msg, size, "%s lists and traces nothing; give it alone "
					   "with -p PID or -t PATH, without a script or a command",
					   c->list_functions ? "-l" : "--list-vars");
		if (!c->pid && !c->target)
			return cli_usage_error(msg, size, "%s needs where to look: -p PID or -t PATH",
					   c->list_functions ? "-l" : "--list-vars");
		return 0;
	}
	if (c->script && c->script_file)
		return cli_usage_error(msg, size, "-s and --script-file both given; give the script "
				   "one way only");
	if ((c->tui_history || c->nsrcpaths) && !c->tui)
		return cli_usage_error(msg, size, "%s is a setting of the interactive mode; add --tui",
				   c->tui_history ? "--tui-history" : "--srcpath");
	if (c->tui)
		return check_tui(c, dashdash, msg, size);
	if (!has_script(c) && c->serve)
		return check_serve_alone(c, dashdash, msg, size);
	if (!has_script(c))
		return cli_usage_error(msg, size, "no script; give one with -s SCRIPT or "
				   "--script-file FILE (e.g. -s 'trace main { bt; }')");
	if (c->all)
		return cli_usage_error(msg, size, "--all samples every process, and a script's "
				   "probes need -p PID, -t PATH or -- CMD, which the agent's "
				   "profiles then sample too: drop --all or the script");
	rc = check_targets(c, dashdash, msg, size);
	if (rc)
		return rc;
	if (c->ringbuf_size && c->force_perf)
		return cli_usage_error(msg, size, "--ringbuf-size sizes the ring buffer, and "
				   "--force-perf-event-array uses perf buffers instead; size those "
				   "with --perf-pages N");
	if (c->perf_pages && !c->force_perf)
		return cli_usage_error(msg, size, "--perf-pages sizes the perf buffers of "
				   "--force-perf-event-array; the ring buffer in use is sized with "
				   "--ringbuf-size BYTES");
	if (c->interval_ms && !c->aggregate && !cli_script_may_aggregate(c))
		return cli_usage_error(msg, size, "--interval prints the counts of --aggregate; add "
				   "--aggregate (or drop --interval)");
	if (c->count_in_bpf && !c->aggregate && !cli_format_folds(c) && !c->pprof)
		return cli_usage_error(msg, size, "--count-in bpf counts stacks in the kernel and "
				   "prints no events: use it with --aggregate, --script-output "
				   "folded or --pprof FILE (--flamegraph goes with any)");
	if (c->count_in_bpf && c->max_events)
		return cli_usage_error(msg, size, "--count-in bpf sees no events to stop after: "
				   "drop --max-events (--duration SECONDS ends the run) or count "
				   "in userspace");
	if (c->count_in_bpf && c->unwinder == GS_UNWINDER_TAILCALL)
		return cli_usage_error(msg, size, "--count-in bpf needs the loop unwinder (the "
				   "tail-call walker has no counting in BPF): drop --unwinder "
				   "tailcall or count in userspace");
	if (c->fault_in == CLI_FAULT_ON && c->force_perf)
		return cli_usage_error(msg, size, "--fault-in on needs the ring buffer: the kernel "
				   "refuses perf event arrays in the sleepable programs that fault "
				   "pages in; drop --force-perf-event-array or --fault-in on");
	if (c->fault_in == CLI_FAULT_ON && c->unwinder == GS_UNWINDER_TAILCALL)
		return cli_usage_error(msg, size, "--fault-in on needs the loop unwinder: the kernel "
				   "refuses the tail-call unwinder's program array in sleepable "
				   "programs; drop --unwinder tailcall or --fault-in on");
	if (c->aggregate && cli_format_folds(c))
		return cli_usage_error(msg, size, "--aggregate and --script-output %s both count "
				   "events; %s counts stacks only, --aggregate whole events: "
				   "give one", cli_format(c)->name, cli_format(c)->name);
	return 0;
}

/* --cache-info, --cache-clear: the cache alone (its place, its cap);
 * anything of a run is a mistake worth saying. */
int cli_check_cache_mode(const struct cli *c, bool dashdash, char *msg, size_t size)
{
	const char *mode = c->action == CLI_CACHE_INFO ? "--cache-info" : "--cache-clear";

	if (c->pid || c->target || c->script || c->script_file || dashdash || c->profile_hz ||
	    c->tui || c->list_functions || c->list_vars || c->dry_run || c->output || c->serve)
		return cli_usage_error(msg, size, "%s works on the on-disk cache and traces "
				   "nothing; give it alone (with --cache-dir DIR or --cache-size "
				   "SIZE at most)", mode);
	if (c->cache_off)
		return cli_usage_error(msg, size, "%s with --cache-size off: no cache to %s; drop "
				   "--cache-size off", mode, c->action == CLI_CACHE_INFO ?
				   "show" : "clear");
	return 0;
}

/* A binary format (pprof) as the output format: -o FILE picks it by the
 * file name's ending (FILE.pb.gz) when no --script-output is given; it is
 * no text for a terminal, so it needs -o, which then names the profile
 * (the events print nowhere). */
int cli_settle_pprof(struct cli *c, char *msg, size_t size)
{
	const struct gs_output_format *f = c->output ? gs_output_format_for_path(c->output) :
				       NULL;

	if (!c->format_set && cli_format_writable(f))
		c->format = (enum cli_format)f->id;
	f = cli_format(c);
	if (!f->binary)
		return 0;
	if (!c->output)
		return cli_usage_error(msg, size, "--script-output %s writes a gzipped binary "
				   "profile, not text: give its file with -o FILE%s (or "
				   "--pprof FILE%s beside another output)", f->name, f->extension,
				   f->extension);
	if (c->pprof)
		return cli_usage_error(msg, size, "--script-output %s writes the profile to -o "
				   "%s and --pprof %s names another: give one", f->name, c->output,
				   c->pprof);
	c->pprof = c->output;
	c->output = NULL;
	return 0;
}
