/* gstrace: parse the command line and the script, check the targets, open
 * a session (or launch the command first), attach every trace, then print
 * events until SIGINT/SIGTERM, --max-events, --duration or the target's
 * end. Every exit path detaches everything. Exit status: 0 success, 1
 * runtime failure, 2 bad usage or bad input. What comes before anything is
 * loaded (script, checks, plan, dry run) is prepare.c's. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gs/fold.h>
#include <gs/modfile.h>
#include <gs/print.h>
#include <gs/render.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include "base.h"
#include "cachedir.h"
#include "config.h"
#include "launch.h"
#include "list.h"
#include "options.h"
#include "prepare.h"
#include "say.h"
#include "serve_mode.h"
#include "stop.h"
#include "targets.h"

#define POLL_MS 100
#define LOSS_REPORT_NS 1000000000ll

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* What the event callback needs. */
struct run {
	struct gs_printer *out;
	FILE *outf;
	struct gs_aggregate *agg; /* counting (--aggregate, folded, --flamegraph) */
	struct gs_pprof *pprof;   /* --pprof */
	bool print_events;    /* each event as it comes */
	bool agg_failed;
	uint64_t events, max_events; /* events that printed something */
	struct cli_losses *tally;    /* delivered, and discarded past max_events */
	struct gs_session *const *session;
};

/* An event whose `if`s printed nothing shows nothing, and does not count
 * towards --max-events. */
static bool printed_something(const struct gs_event *ev)
{
	for (size_t i = 0; i < ev->ninsts; i++)
		if (ev->insts[i].type != GS_INST_END)
			return true;
	return false;
}

/* The session's notes (a process whose Python frames stay native): said
 * on stderr, once each. */
static void on_note(void *arg, const char *text)
{
	(void)arg;
	cli_say("gstrace: ", "%s", text);
}

static int on_event(void *arg, const struct gs_event *ev)
{
	struct run *r = arg;

	/* After the limit (perf buffers deliver the rest of a CPU's buffer
	 * after a stop; the teardown reads what is left to count it):
	 * discarded, counted apart. */
	cli_count_event(r->tally, ev->trace_id);
	if (r->max_events && r->events >= r->max_events)
		return 0;
	if (r->print_events)
		gs_print_event(r->out, ev, r->outf);
	if ((r->agg && gs_aggregate_event(r->agg, ev, 1)) ||
	    (r->pprof && gs_pprof_add(r->pprof, ev, 1))) {
		r->agg_failed = true;
		return 1;
	}
	r->events += printed_something(ev);
	if (!r->max_events || r->events < r->max_events)
		return 0;
	cli_limit_reached(r->tally, *r->session);
	return 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a signal ends the poll */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed output pipe is an end like any other, not a kill. */
	signal(SIGPIPE, SIG_IGN);
}

/* A probe holds several descriptors (program, maps, link, buffer): the
 * soft limit (often 1024) goes up to the hard one, as tracers do. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Flushes the output; false to stop (a closed pipe ends quietly). */
static bool flush_output(FILE *f, int *status)
{
	if (fflush(f) == 0 && !ferror(f))
		return true;
	if (errno != EPIPE) {
		cli_say("gstrace: ", "cannot write the events: %s", strerror(errno));
		*status = EXIT_RUNTIME;
	}
	return false;
}

static void teardown(struct cli_ctx *c)
{
	srv_agent_free(c->agent); /* it reads the session: before it goes */
	c->agent = NULL;
	cli_teardown(c->script, c->session, &c->losses);
	c->session = NULL;
	gs_aggregate_free(c->agg);
	gs_pprof_free(c->pprof);
	gs_printer_free(c->out);
	gs_frames_free(c->frames);
	if (c->flamef)
		fclose(c->flamef);
	if (c->pproff)
		fclose(c->pproff);
	if (c->outf && c->outf != stdout)
		fclose(c->outf);
	gs_plan_free(c->plan);
	gs_modfiles_free(c->files);
	gs_script_free(c->script);
	free(c->script_text);
	free(c->cmd_path);
}

/* --verbose: where start-up time went, phase by phase, on one line. */
static void print_phases(struct cli_ctx *c, uint64_t start_ns)
{
	struct gs_phase_times t = { { 0 } };
	uint64_t sum = 0;

	gs_plan_phase_times(c->plan, &t);
	if (c->session)
		gs_session_phase_times(c->session, &t);
	fputs("gstrace: start-up:", stderr);
	for (int i = 0; i < GS_PHASE_COUNT; i++) {
		fprintf(stderr, "%s %s %.1f ms", i ? "," : "", gs_phase_name((enum gs_phase)i),
			(double)t.ns[i] / 1e6);
		sum += t.ns[i];
	}
	fprintf(stderr, "; %.1f ms in them, %.1f ms since start\n", (double)sum / 1e6,
		(double)((uint64_t)base_now_ns() - start_ns) / 1e6);
}

/* Test switches (docs/cli.md, "Environment"): attach through tracefs, or
 * through perf events where uprobe_multi links would be used. */
static bool env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The frame resolver and the printer of --script-output and
 * --script-timestamp (the table of --aggregate prints with the same). */
static int make_printer(struct cli_ctx *c, pid_t pid, struct gs_printer_opts *po,
			struct gs_error *err)
{
	static const enum gs_print_format formats[] = {
		[CLI_PRETTY] = GS_PRINT_PRETTY, [CLI_PLAIN] = GS_PRINT_PLAIN,
		[CLI_JSON] = GS_PRINT_JSON, [CLI_FOLDED] = GS_PRINT_PLAIN,
		[CLI_PPROF] = GS_PRINT_PLAIN,
	};
	static const enum gs_print_time times[] = {
		[CLI_TS_LOCAL] = GS_PRINT_TIME_LOCAL, [CLI_TS_BOOT] = GS_PRINT_TIME_BOOT,
		[CLI_TS_NONE] = GS_PRINT_TIME_NONE,
	};
	struct gs_frames_opts fo = {
		.sz = sizeof(fo), .pid = pid, .modules = c->modules, .nmodules = c->nmodules,
		.files = c->files, .no_demangle = c->cli.no_demangle,
	};
	int rc = gs_frames_new(&fo, &c->frames, err);

	if (rc)
		return rc;
	*po = (struct gs_printer_opts){
		.sz = sizeof(*po), .format = formats[c->cli.format],
		.timestamp = times[c->cli.timestamp], .frames = c->frames,
		.boot_realtime_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC),
	};
	return gs_printer_new(po, &c->out, err);
}

/* The profile of --pprof, its frames named by the printer's resolver. */
static int make_pprof(struct cli_ctx *c, struct gs_error *err)
{
	struct gs_pprof_opts o = {
		.sz = sizeof(o), .frames = c->frames, .time_ns = clock_ns(CLOCK_REALTIME),
	};

	/* CPU samples: each stands for 1/HZ s of one CPU */
	if (c->cli.profile_hz) {
		o.period_type = "cpu";
		o.period_unit = "nanoseconds";
		o.period = 1000000000ll / c->cli.profile_hz;
	}

	return gs_pprof_new(&o, &c->pprof, err);
}

static int count_from_bpf(void *arg, const struct gs_event *ev, uint64_t count)
{
	struct cli_ctx *c = arg;
	int rc = c->agg ? gs_aggregate_event(c->agg, ev, count) : 0;

	return rc == 0 && c->pprof ? gs_pprof_add(c->pprof, ev, count) : rc;
}

/* Session, probes, ready marker. */
static int attach(struct cli_ctx *c, struct run *r, pid_t pid)
{
	struct gs_aggregate_opts ao = { .sz = sizeof(ao) };
	struct gs_printer_opts po;
	struct gs_session_opts so = {
		.sz = sizeof(so), .on_event = on_event, .arg = r, .on_note = on_note,
		.force_tracefs = env_flag("GSTRACE_FORCE_TRACEFS"),
		.no_multi_link = env_flag("GSTRACE_NO_UPROBE_MULTI"),
	};
	struct gs_error err = { 0 };
	const char *report;

	if (gs_bpf_permitted(&err) || gs_uprobe_supported(&err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_RUNTIME;
	}
	if (make_printer(c, pid, &po, &err) || gs_session_new(&so, &c->session, &err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_RUNTIME;
	}
	r->out = c->out;
	r->outf = c->outf;
	/* a format written at exit counts, and --quiet prints nothing */
	r->print_events = !c->cli.aggregate && !c->cli.quiet &&
			  cli_format(&c->cli)->when == GS_OUTPUT_STREAMING;
	ao.events = c->cli.aggregate;
	ao.stacks = cli_format_folds(&c->cli) || c->cli.flamegraph;
	ao.print = &po;
	ao.no_py_lines = c->cli.no_py_lines;
	if ((ao.events || ao.stacks) && gs_aggregate_new(&ao, &c->agg, &err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_RUNTIME;
	}
	r->agg = c->agg;
	if (c->cli.pprof && make_pprof(c, &err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_RUNTIME;
	}
	r->pprof = c->pprof;
	if (pid > 0)
		gs_frames_preload(c->frames, pid);
	if (stop_signal)
		return 0;
	if (gs_session_start(c->session, c->plan, &err) < 0) {
		cli_say(base_has_prefix(err.msg, "trace #") ? "gstrace: " : "", "%s", err.msg);
		report = gs_session_report(c->session);
		if (report && report[0]) {
			gs_render_fputs(stderr, report, GS_RENDER_KEEP_NEWLINES);
			if (report[strlen(report) - 1] != '\n')
				fputc('\n', stderr);
		}
		/* the kernel's ENOTSUPP: an address no uprobe can take, the user's */
		return err.code == -524 ? EXIT_USAGE : EXIT_RUNTIME;
	}
	/* The agent's profiles also feed --profile's own counts (the table, a
	 * file at exit); a script agent's sampler is the endpoint's alone. */
	if (c->cli.serve) {
		int rc = cli_serve_start(c, c->cli.profile_hz ? count_from_bpf : NULL, c);

		if (rc)
			return rc;
	}
	if (c->cli.ready_marker) {
		fprintf(stderr, "%s\n", c->cli.ready_marker);
		fflush(stderr);
	}
	return 0;
}

/* Reads what is still buffered once the target is gone. */
static void drain(struct gs_session *s)
{
	for (int i = 0; i < 64 && !stop_signal; i++)
		if (gs_session_poll(s, 0, NULL) <= 0)
			return;
}

/* --count-in bpf: the counts are the session's stack_counts maps, read
 * whole (since the start) into the cleared counts and profile. 0 or
 * -errno with err set. */
static int counts_from_session(struct cli_ctx *c, struct gs_error *err)
{
	int rc = c->agg ? gs_aggregate_clear(c->agg) : 0;

	if (c->pprof)
		gs_pprof_clear_samples(c->pprof);
	if (rc == 0)
		rc = gs_session_stack_counts(c->session, count_from_bpf, c, err);
	if (rc == -ENOMEM)
		gs_errorf(err, rc, "out of memory counting the stacks counted in BPF");
	return rc;
}

/* The profile into its file, once tracing ends. 0 or -errno, said. */
static int write_pprof(struct cli_ctx *c, double elapsed_s)
{
	struct gs_error err = { 0 };
	int rc;

	gs_pprof_set_duration(c->pprof, (uint64_t)(elapsed_s * 1e9));
	rc = gs_pprof_write(c->pprof, c->pproff, &err);
	if (fclose(c->pproff) != 0 && rc == 0)
		rc = gs_errorf(&err, -EIO, "%s", strerror(errno));
	c->pproff = NULL;
	if (rc) {
		cli_say("gstrace: ", "cannot write the profile %s: %s", c->cli.pprof, err.msg);
		return rc;
	}
	fprintf(stderr, "gstrace: pprof profile of %" PRIu64 " stacks (%zu distinct samples) "
		"written to %s\n", gs_pprof_total(c->pprof), gs_pprof_samples(c->pprof),
		c->cli.pprof);
	return 0;
}

/* Whether the script updates @aggregations (docs/cli.md, "Aggregations"). */
static bool script_aggregates(const struct gs_script *s)
{
	for (size_t i = 0; s && i < s->ntraces; i++)
		if (gs_stmts_aggregate(s->traces[i].body, s->traces[i].nbody))
			return true;
	return false;
}

static int print_agg_table(void *arg, const struct gs_agg_table *t)
{
	struct cli_ctx *c = arg;

	if (!t->n || c->cli.quiet) /* nothing counted yet, or nothing to print */
		return 0;
	return c->cli.format == CLI_JSON ? gs_agg_print_json(c->outf, t) :
					   gs_agg_print_text(c->outf, t);
}

/* The @aggregations as they are now: at exit (final: with the updates a
 * full map dropped) and every --interval. 0 or an exit status. */
static int print_aggregations(struct cli_ctx *c, bool final)
{
	struct gs_error err = { 0 };
	uint64_t dropped = 0;

	if (!script_aggregates(c->script))
		return 0;
	if (gs_session_aggregations(c->session, print_agg_table, c, &dropped, &err)) {
		cli_say("gstrace: ", "reading the aggregations failed: %s", err.msg);
		return EXIT_RUNTIME;
	}
	if (dropped && final)
		cli_say("gstrace: ", "%" PRIu64 " aggregation update%s found the map full (%u "
			"entries) and %s not counted: raise --max-keys", dropped,
			dropped == 1 ? "" : "s", c->cli.max_keys ? c->cli.max_keys :
			GS_AGG_DEFAULT_MAX_KEYS, dropped == 1 ? "was" : "were");
	return 0;
}

/* What counting made, once tracing ends: the --aggregate table, the folded
 * stacks, the flame graph. 0 or an exit status. */
static int finish_counts(struct cli_ctx *c, double elapsed_s)
{
	const struct gs_counts *stacks;
	struct gs_error err = { 0 };
	int status = 0;

	if (c->cli.profile_hz && c->cli.verbose) {
		struct gs_sample_stats st;

		if (gs_session_sample_stats(c->session, &st, &err) == 0)
			cli_say("gstrace: ", "profile: %zu processes, %zu modules, %" PRIu64 " unwind "
				"rows (%" PRIu64 " bytes); the maps hold %" PRIu64 " rows and %"
				PRIu64 " module entries%s%s", st.processes, st.modules, st.rows,
				st.map_bytes, st.rows_capacity, st.module_entries,
				st.modules_without_rows ? "; some modules got no rows: the maps "
				"were full (raise --unwind-memory)" : "",
				st.processes_skipped ? "; some processes were left out: the module "
				"maps were full" : "");
	}
	if (script_aggregates(c->script)) {
		/* every probe off first: the values read are the final ones */
		gs_session_detach(c->session);
		if ((status = print_aggregations(c, true)))
			return status;
	}
	if (c->agent) {
		/* every probe off first; the agent drained the counts as it went
		 * (into the table too): the last of them, and open profiles
		 * answered */
		gs_session_detach(c->session);
		if (srv_agent_finish(c->agent, &err)) {
			cli_say("gstrace: ", "%s", err.msg);
			return EXIT_RUNTIME;
		}
	} else if (c->cli.count_in_bpf) {
		/* every probe off first: the counts read are the final ones */
		gs_session_detach(c->session);
		if (counts_from_session(c, &err)) {
			cli_say("gstrace: ", "%s", err.msg);
			return EXIT_RUNTIME;
		}
	}
	stacks = c->agg ? gs_aggregate_stacks(c->agg) : NULL;
	if (c->cli.aggregate && !c->cli.quiet)
		gs_aggregate_print_table(c->agg, c->outf, elapsed_s);
	if (cli_format_folds(&c->cli) && !c->cli.quiet)
		gs_aggregate_print_folded(c->agg, c->outf);
	flush_output(c->outf, &status);
	if (c->flamef) {
		char title[160];

		snprintf(title, sizeof(title), "gstrace: %" PRIu64 " stacks, %.1f s",
			 gs_counts_total(stacks), elapsed_s);
		if (gs_flamegraph_write(stacks, title, c->flamef) || fclose(c->flamef)) {
			fprintf(stderr, "gstrace: cannot write the flame graph %s: %s\n",
				c->cli.flamegraph, strerror(errno));
			status = EXIT_RUNTIME;
		} else {
			fprintf(stderr, "gstrace: flame graph of %" PRIu64 " stacks (%zu distinct) "
				"written to %s\n", gs_counts_total(stacks), gs_counts_size(stacks),
				c->cli.flamegraph);
		}
		c->flamef = NULL;
	}
	if (c->pproff && write_pprof(c, elapsed_s))
		status = EXIT_RUNTIME;
	return status;
}

/* Prints events until something ends the trace. 0 or an exit status;
 * *target_ended tells whether the target's end was the reason.
 * --duration counts from here: every probe is attached. */
static int event_loop(struct cli_ctx *c, struct run *r, pid_t pid, bool *target_ended)
{
	int64_t start = base_now_ns(), next_tick = start + LOSS_REPORT_NS;
	int64_t interval = (int64_t)c->cli.interval_ms * 1000000, next_table = start + interval;
	int64_t deadline = c->cli.duration_ms ? start + (int64_t)c->cli.duration_ms * 1000000 : 0;
	bool watch = !c->cli.ncommand && pid > 0;
	enum cli_watch_state seen = CLI_WATCH_RUNNING;
	struct cli_watch w = { .pidfd = -1 };
	int status = 0;

	if (watch)
		cli_watch_start(&w, pid);

	*target_ended = false;
	while (!stop_signal) {
		int64_t now = base_now_ns();
		int timeout = POLL_MS, rc;
		struct gs_error err = { 0 };

		if (deadline && now >= deadline)
			break;
		if (deadline && (deadline - now) / 1000000 < timeout)
			timeout = (int)((deadline - now) / 1000000) + 1;
		/* a profile's answer is due at the end of its seconds, not at
		 * the end of a poll */
		if (c->agent && (rc = srv_agent_wait_ms(c->agent)) >= 0 && rc < timeout)
			timeout = rc;
		rc = gs_session_poll(c->session, timeout, &err);
		if (rc < 0 && rc != -EINTR) {
			cli_say("gstrace: ", "reading events failed: %s", err.msg);
			status = EXIT_RUNTIME;
			break;
		}
		if (!flush_output(c->outf, &status))
			break;
		if (r->max_events && r->events >= r->max_events)
			break;
		if (r->agg_failed) {
			cli_say("gstrace: ", "out of memory counting the events");
			status = EXIT_RUNTIME;
			break;
		}
		if (c->agent && srv_agent_work(c->agent, &err)) {
			cli_say("gstrace: ", "the agent failed: %s", err.msg);
			status = EXIT_RUNTIME;
			break;
		}
		/* (the agent's drains count as they go) */
		if (interval && base_now_ns() >= next_table && c->cli.count_in_bpf && !c->agent &&
		    counts_from_session(c, &err)) {
			cli_say("gstrace: ", "%s", err.msg);
			status = EXIT_RUNTIME;
			break;
		}
		if (interval && base_now_ns() >= next_table) {
			if (c->agg && c->cli.aggregate)
				gs_aggregate_print_table(c->agg, c->outf,
							 (double)(base_now_ns() - start) / 1e9);
			if ((status = print_aggregations(c, false)))
				break;
			next_table += interval;
		}
		if (base_now_ns() >= next_tick) {
			cli_report_lost(c->script, c->session, &c->losses);
			next_tick = base_now_ns() + LOSS_REPORT_NS;
			seen = watch ? cli_watch_check(&w, true) : seen;
		} else if (watch) {
			seen = cli_watch_check(&w, false);
		}
		if ((c->cli.ncommand && cli_launch_ended(&c->launch)) || seen != CLI_WATCH_RUNNING) {
			drain(c->session);
			flush_output(c->outf, &status);
			if (seen == CLI_WATCH_EXECD)
				cli_say("gstrace: ", "process %d replaced its program (exec): the "
					"traced code is gone, so tracing ends; trace the new program "
					"with a new gstrace -p %d", (int)pid, (int)pid);
			*target_ended = true;
			break;
		}
	}
	cli_watch_stop(&w);
	if (status == 0)
		status = finish_counts(c, (double)(base_now_ns() - start) / 1e9);
	return status;
}

static int run(struct cli_ctx *c)
{
	struct gs_program_opts popts;
	struct run r = { .max_events = c->cli.max_events, .tally = &c->losses,
			 .session = &c->session };
	struct gs_error err = { 0 };
	uint64_t start_ns = (uint64_t)base_now_ns();
	bool dry = c->cli.dry_run || c->cli.dump_insns;
	pid_t pid = c->cli.pid;
	bool ended = false;
	int rc;

	if ((rc = cli_program_opts(c, &popts)))
		return rc;
	if ((rc = cli_load_script(c)) || (rc = cli_check_inputs(c)))
		return rc;
	if (c->cli.interval_ms && !c->cli.aggregate && !script_aggregates(c->script)) {
		cli_say("gstrace: ", "--interval prints the counts of --aggregate or of the "
			"script's @aggregations, and there are none: add --aggregate or an "
			"aggregation (or drop --interval)");
		return EXIT_USAGE;
	}
	/* A dry run of a command plans with the process the live run would
	 * have: started and stopped at its entry point, then killed. */
	if (c->cli.ncommand) {
		if ((rc = cli_launch_target(c)))
			return rc;
		pid = c->launch.traced_pid;
	}
	cli_pid_filter(&popts, pid);
	if (!dry)
		cli_prefetch_debug(c, pid);
	rc = cli_plan(c, &popts, pid);
	if (rc == 0 && dry)
		rc = cli_dry_run(c);
	else if (rc == 0 && cli_losses_init(&c->losses, c->script ? c->script->ntraces : 1,
					  c->cli.verbose, !c->cli.count_in_bpf)) {
		cli_say("gstrace: ", "out of memory counting the events");
		rc = EXIT_RUNTIME;
	} else if (rc == 0)
		rc = attach(c, &r, pid);
	if (rc == 0 && c->cli.verbose)
		print_phases(c, start_ns);
	if (rc == 0 && !dry && !stop_signal && c->cli.ncommand &&
	    cli_launch_resume(&c->launch, &err)) {
		cli_say("gstrace: ", "%s", err.msg);
		rc = EXIT_RUNTIME;
	}
	if (rc == 0 && !dry && !stop_signal)
		rc = event_loop(c, &r, pid, &ended);
	/* Probes first: nothing fires while the command is being stopped. */
	srv_agent_free(c->agent); /* it reads the session: before it goes */
	c->agent = NULL;
	cli_teardown(c->script, c->session, &c->losses);
	c->session = NULL;
	if (c->launch.pid) {
		if (ended && rc == 0)
			return cli_launch_exit_code(&c->launch);
		cli_launch_stop(&c->launch, dry ? SIGKILL : stop_signal ? stop_signal : SIGTERM);
	}
	return rc;
}

/* What the command line asks for, once parsed. */
static int dispatch(struct cli_ctx *c)
{
	int rc;

	if (c->cli.action == CLI_HELP) {
		cli_usage(stdout);
		return 0;
	}
	if (c->cli.action == CLI_VERSION) {
		printf("gstrace %s\n", GSTRACE_VERSION);
		return 0;
	}
	if (c->cli.action == CLI_CACHE_INFO || c->cli.action == CLI_CACHE_CLEAR)
		return cli_cache_cmd(&c->cli);
	if (c->cli.list_functions || c->cli.list_vars)
		return cli_list(&c->cli);
	raise_fd_limit();
	if (c->cli.tui) {
		rc = cli_tui(c);
		teardown(c);
		return rc;
	}
	install_signals();
	rc = run(c);
	teardown(c);
	return rc;
}

int main(int argc, char **argv)
{
	/* the words of --config FILE, which c.cli points into */
	struct cli_words words;
	struct cli_ctx c;
	char msg[GS_ERROR_MSG_MAX];
	int rc;

	memset(&c, 0, sizeof(c));
#ifdef M_ARENA_MAX
	/* One malloc arena for every thread: the debug-information worker's
	 * own arena grew a page at a time, an mprotect each (hundreds while
	 * it reads libc's DWARF), and the main thread planning rows meanwhile
	 * took about 5 ms longer to start (median of runs). */
	mallopt(M_ARENA_MAX, 1);
#endif
	if (cli_parse_config(argc, argv, &c.cli, &words, msg, sizeof(msg))) {
		cli_say("gstrace: ", "%s", msg);
		cli_words_free(&words);
		return EXIT_USAGE;
	}
	rc = dispatch(&c);
	cli_words_free(&words);
	return rc;
}
