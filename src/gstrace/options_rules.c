/* gstrace's command line, its rules: which combinations of flags make a
 * run (targets, the interactive mode, CPU profiles, outputs), the cache's
 * own modes, and where a pprof profile goes. Each refusal names the flags
 * and the fix (exit 2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* --profile: CPU samples of one target, counted as stacks. */
static int check_profile(const struct cli *c, bool dashdash, char *msg, size_t size)
{
	int targets = !!c->pid + !!c->target + !!c->all + !!dashdash;

	if (c->script || c->script_file)
		return cli_usage_error(msg, size, "--profile samples CPUs and takes no script: drop "
				   "%s, or trace functions without --profile",
				   c->script ? "-s" : "--script-file");
	if (c->tui)
		return cli_usage_error(msg, size, "--profile is a flag of the line mode; drop --tui");
	if (targets != 1)
		return cli_usage_error(msg, size, "%s; give one of -p PID, -t PATH (every process "
				   "running it), --all (every process) or -- CMD [ARGS...]",
				   targets ? "--profile samples one target" : "--profile needs a target");
	if (dashdash && !c->ncommand)
		return cli_usage_error(msg, size, "nothing after --; give the command to launch "
				   "(e.g. -- ./prog arg)");
	if (c->unwinder == GS_UNWINDER_TAILCALL)
		return cli_usage_error(msg, size, "--profile unwinds with the loop unwinder only: "
				   "drop --unwinder tailcall");
	if (c->max_events)
		return cli_usage_error(msg, size, "--profile counts samples and sees no events to stop "
				   "after: drop --max-events (--duration SECONDS ends the run)");
	if (c->aggregate && c->format == CLI_FOLDED)
		return cli_usage_error(msg, size, "--aggregate and --script-output folded both print "
				   "the samples; give one");
	return 0;
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

	if ((c->all || c->kernel_stacks || c->unwind_memory_mb) && !c->profile_hz)
		return cli_usage_error(msg, size, "%s is a flag of CPU profiles; add --profile [HZ]",
				   c->all ? "--all" : c->kernel_stacks ? "--kernel-stacks" :
				   "--unwind-memory");
	if (c->profile_hz)
		return check_profile(c, dashdash, msg, size);

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
	if (!c->script && !c->script_file)
		return cli_usage_error(msg, size, "no script; give one with -s SCRIPT or "
				   "--script-file FILE (e.g. -s 'trace main { bt; }')");
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
	if (c->count_in_bpf && !c->aggregate && c->format != CLI_FOLDED && !c->pprof)
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
	if (c->aggregate && c->format == CLI_FOLDED)
		return cli_usage_error(msg, size, "--aggregate and --script-output folded both count "
				   "events; folded counts stacks only, --aggregate whole events: "
				   "give one");
	return 0;
}

/* --cache-info, --cache-clear: the cache alone (its place, its cap);
 * anything of a run is a mistake worth saying. */
int cli_check_cache_mode(const struct cli *c, bool dashdash, char *msg, size_t size)
{
	const char *mode = c->action == CLI_CACHE_INFO ? "--cache-info" : "--cache-clear";

	if (c->pid || c->target || c->script || c->script_file || dashdash || c->profile_hz ||
	    c->tui || c->list_functions || c->list_vars || c->dry_run || c->output)
		return cli_usage_error(msg, size, "%s works on the on-disk cache and traces "
				   "nothing; give it alone (with --cache-dir DIR or --cache-size "
				   "SIZE at most)", mode);
	if (c->cache_off)
		return cli_usage_error(msg, size, "%s with --cache-size off: no cache to %s; drop "
				   "--cache-size off", mode, c->action == CLI_CACHE_INFO ?
				   "show" : "clear");
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* pprof as the output format: -o FILE.pb.gz picks it when no
 * --script-output is given; it is a binary file, so it needs -o, which
 * then names the profile (the events print nowhere). */
int cli_settle_pprof(struct cli *c, char *msg, size_t size)
{
	if (!c->format_set && c->output && ends_with(c->output, ".pb.gz"))
		c->format = CLI_PPROF;
	if (c->format != CLI_PPROF)
		return 0;
	if (!c->output)
		return cli_usage_error(msg, size, "--script-output pprof writes a gzipped binary "
				   "profile, not text: give its file with -o FILE.pb.gz (or "
				   "--pprof FILE.pb.gz beside another output)");
	if (c->pprof)
		return cli_usage_error(msg, size, "--script-output pprof writes the profile to -o "
				   "%s and --pprof %s names another: give one", c->output,
				   c->pprof);
	c->pprof = c->output;
	c->output = NULL;
	return 0;
}
