/* gstrace: parse the command line and the script, check the targets, open
 * a session (or launch the command first), attach every trace, then print
 * events until SIGINT/SIGTERM, --max-events, --duration or the target's
 * end. Every exit path detaches everything. Exit status: 0 success, 1
 * runtime failure, 2 bad usage or bad input. */
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

#include <gs/modfile.h>
#include <gs/render.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include "aggregate.h"
#include "launch.h"
#include "list.h"
#include "options.h"
#include "output.h"
#include "say.h"
#include "stop.h"
#include "targets.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define POLL_MS 100
#define LOSS_REPORT_NS 1000000000ll
#define SCRIPT_FILE_MAX (16u << 20)

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* What the event callback needs. */
struct run {
	struct cli_out *out;
	struct cli_agg *agg;  /* counting (--aggregate, folded, --flamegraph) */
	bool print_events;    /* each event as it comes */
	bool agg_failed;
	uint64_t events, max_events; /* events that printed something */
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

static int on_event(void *arg, const struct gs_event *ev)
{
	struct run *r = arg;

	/* perf buffers deliver the rest of a CPU's buffer after a stop */
	if (r->max_events && r->events >= r->max_events)
		return 1;
	if (r->print_events)
		cli_out_event(r->out, ev);
	if (r->agg && cli_agg_event(r->agg, ev)) {
		r->agg_failed = true;
		return 1;
	}
	r->events += printed_something(ev);
	return r->max_events && r->events >= r->max_events;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
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

/* The whole script file, NUL-terminated, or NULL with err set. */
static char *read_file(const char *path, size_t *len, struct gs_error *err)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		gs_errorf(err, -errno, "cannot read script file %s: %s; check the path", path,
			  strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			char *nt = cap < SCRIPT_FILE_MAX ? realloc(text, cap ? 2 * cap : 8192) : NULL;

			if (!nt) {
				gs_errorf(err, -EFBIG, "script file %s is too large (over %u bytes)",
					  path, SCRIPT_FILE_MAX);
				break;
			}
			text = nt;
			cap = cap ? 2 * cap : 8192;
		}
		got = fread(text + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				gs_errorf(err, -EIO, "cannot read script file %s: %s", path,
					  strerror(errno));
			else {
				text[n] = '\0';
				*len = n;
				fclose(f);
				return text;
			}
			break;
		}
	}
	fclose(f);
	free(text);
	return NULL;
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

/* Everything main owns, torn down in one place. */
struct ctx {
	struct cli cli;
	char *script_text;
	struct gs_script *script;
	char *cmd_path;
	struct cli_launch launch;
	struct gs_modfiles *files;
	struct gs_plan *plan;
	FILE *outf;
	struct cli_out *out;
	struct cli_agg *agg;
	FILE *flamef;
	struct gs_session *session;
	const char *modules[2];
	size_t nmodules;
	struct cli_pick pick;  /* launch mode: which process to trace */
	struct cli_losses losses;
};

static void teardown(struct ctx *c)
{
	cli_teardown(c->script, c->session, &c->losses);
	c->session = NULL;
	cli_agg_free(c->agg);
	cli_out_free(c->out);
	if (c->flamef)
		fclose(c->flamef);
	if (c->outf && c->outf != stdout)
		fclose(c->outf);
	gs_plan_free(c->plan);
	gs_modfiles_free(c->files);
	gs_script_free(c->script);
	free(c->script_text);
	free(c->cmd_path);
}

static int load_script(struct ctx *c)
{
	struct gs_script_opts so = { .sz = sizeof(so), .input_pid = (uint32_t)c->cli.pid };
	struct gs_error err = { 0 };
	const char *text = c->cli.script;
	size_t len = text ? strlen(text) : 0;

	if (c->cli.script_file) {
		c->script_text = read_file(c->cli.script_file, &len, &err);
		if (!c->script_text) {
			cli_say("gstrace: ", "%s", err.msg);
			return EXIT_USAGE;
		}
		text = c->script_text;
		so.name = c->cli.script_file;
	}
	if (gs_script_parse(text, len, &so, &c->script, &err)) {
		cli_say("", "%s", err.msg);
		return err.code == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	/* More traces than probes allowed: refused before any is resolved. */
	if (c->script->ntraces > c->cli.max_probes) {
		gs_script_trace_errorf(c->script, &c->script->traces[c->cli.max_probes], &err,
				       -E2BIG, "trace #%zu is one more than the %zu probes allowed "
				       "(--max-probes); raise the limit with --max-probes N, or trace "
				       "fewer functions", c->cli.max_probes, c->cli.max_probes);
		cli_say("", "%s", err.msg);
		return EXIT_USAGE;
	}
	return 0;
}

static bool script_has_bt(const struct gs_script *s)
{
	for (size_t i = 0; i < s->ntraces; i++)
		if (gs_stmts_count_bt(s->traces[i].body, s->traces[i].nbody))
			return true;
	return false;
}

/* --count-in bpf counts stacks: every trace must be one `bt` and nothing
 * else, and the walker the loop one (the kernel has bpf_loop). */
static int check_count_in_bpf(struct ctx *c)
{
	for (size_t i = 0; i < c->script->ntraces; i++) {
		const struct gs_script_trace *t = &c->script->traces[i];

		if (t->nbody != 1 || t->body[0].kind != GS_STMT_BACKTRACE) {
			cli_say("gstrace: ", "--count-in bpf counts stacks only, and trace #%zu "
				"(%s) is not exactly one bt; (write trace FN { bt; }, or count in "
				"userspace: --count-in user)", i, t->target.text ? t->target.text : "?");
			return EXIT_USAGE;
		}
	}
	if (c->cli.unwinder < 0 && !gs_bpf_loop_supported()) {
		cli_say("gstrace: ", "--count-in bpf needs the loop unwinder, and this kernel "
			"has no bpf_loop (Linux 5.17+): count in userspace (--count-in user)");
		return EXIT_USAGE;
	}
	return 0;
}

/* Files, pids and commands the flags name: what cannot be traced is
 * refused with the fix, what may trace nothing is warned about. */
static int check_inputs(struct ctx *c)
{
	struct gs_error err = { 0 };
	enum cli_verdict v;
	char msg[1024];
	int rc;

	if ((c->cli.format == CLI_FOLDED || c->cli.flamegraph) && !script_has_bt(c->script)) {
		fprintf(stderr, "gstrace: %s counts backtraces, and the script takes none; add "
			"bt; to a trace (e.g. trace FN { bt; })\n", c->cli.flamegraph ?
			"--flamegraph" : "--script-output folded");
		return EXIT_USAGE;
	}
	if (c->cli.count_in_bpf && (rc = check_count_in_bpf(c)))
		return rc;
	if (c->cli.pid && cli_check_pid(c->cli.pid, msg, sizeof(msg)) == CLI_TARGET_REFUSE) {
		cli_say("gstrace: ", "%s", msg);
		return EXIT_USAGE;
	}
	if (c->cli.target) {
		v = cli_check_target(c->cli.pid, c->cli.target, msg, sizeof(msg));
		if (v != CLI_TARGET_OK)
			cli_say("gstrace: ", "%s", msg);
		if (v == CLI_TARGET_REFUSE)
			return EXIT_USAGE;
	}
	if (c->cli.ncommand && cli_launch_find(c->cli.command[0], &c->cmd_path, &err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_USAGE;
	}
	if (c->cli.target)
		c->modules[c->nmodules++] = c->cli.target;
	if (c->cmd_path)
		c->modules[c->nmodules++] = c->cmd_path;
	if (c->cli.flamegraph && !c->cli.dry_run && !c->cli.dump_insns &&
	    !(c->flamef = fopen(c->cli.flamegraph, "w"))) {
		fprintf(stderr, "gstrace: --flamegraph %s: %s; check the directory and "
			"permissions\n", c->cli.flamegraph, strerror(errno));
		return EXIT_USAGE;
	}
	if (!c->cli.output) {
		c->outf = stdout;
	} else if (cli_open_output(c->cli.output, &c->outf, msg, sizeof(msg)) != CLI_TARGET_OK) {
		cli_say("gstrace: ", "%s", msg);
		return EXIT_USAGE;
	}
	/* Events are flushed after every read of the buffers: a pipe or file
	 * takes them in large writes, a terminal line by line as before. */
	if (!isatty(fileno(c->outf)))
		setvbuf(c->outf, NULL, _IOFBF, 1 << 16);
	return 0;
}

/* A file:line target on a line without code probes the next line with
 * code: say which, once per trace, so a user does not read the wrong line. */
static void notice_moved_lines(const struct gs_plan *p)
{
	for (size_t i = 0; i < gs_plan_trace_count(p); i++) {
		const struct gs_plan_trace *t = gs_plan_trace_at(p, i);
		int used = t->target.nlocs ? t->target.locs[0].line : 0;

		if (t->pattern.kind == GS_TARGET_FILE_LINE && used > 0 &&
		    (uint32_t)used != t->pattern.line)
			fprintf(stderr, "gstrace: notice: trace #%u (%s): line %u has no code; "
				"probing line %d, the next line with code\n", t->id, t->pattern.text,
				t->pattern.line, used);
	}
}

/* One module-file cache for the run: resolution, rows and frames. */
static int open_files(struct ctx *c)
{
	struct gs_modfiles_opts mo = { .sz = sizeof(mo), .debug_dirs = c->cli.debug_dirs };
	struct gs_error err = { 0 };
	char cache[4096];

	if (c->files)
		return 0;
	mo.cfi_cache_dir = cli_cache_dir(cache, sizeof(cache));
	if (gs_modfiles_new(&mo, &c->files, &err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return err.code == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	return 0;
}

/* The debug information the frames will be symbolized with, read on the
 * module-file cache's worker while the trace is planned, loaded and
 * attached: inflating libc's debug file alone takes tens of milliseconds,
 * which the first event would otherwise wait for. */
static void prefetch_debug(struct ctx *c, pid_t pid)
{
	struct gs_proc_modules mods;
	bool wanted = false;

	for (size_t i = 0; i < c->script->ntraces && !wanted; i++)
		wanted = gs_stmts_count_bt_symbolized(c->script->traces[i].body,
						      c->script->traces[i].nbody) > 0;
	if (!wanted || pid <= 0 || open_files(c) || gs_proc_modules_load(pid, c->files, &mods, NULL))
		return;
	for (size_t i = 0; i < mods.n; i++)
		if (mods.v[i].file)
			gs_modfile_prefetch_debug(mods.v[i].file);
	gs_proc_modules_free(&mods);
}

/* The one trace plan of the run: every target resolved, `bt` planned and
 * every program built, before anything is loaded. A wrong target is a
 * usage error shown at its place in the script. */
static int plan(struct ctx *c, const struct gs_program_opts *popts, pid_t pid)
{
	struct gs_plan_opts po = { .sz = sizeof(po), .pid = pid, .module = c->cli.target,
				   .program = popts, .max_probes = c->cli.max_probes };
	struct gs_error err = { 0 };
	int rc = open_files(c);

	if (rc)
		return rc;
	po.files = c->files;

	/* A command not launched (dry run without a pid) is the default module. */
	if (!po.module && pid <= 0)
		po.module = c->cmd_path;
	if (gs_plan_from_script(c->script, &po, &c->plan, &err) == 0) {
		notice_moved_lines(c->plan);
		for (size_t i = 0; i < gs_plan_trace_count(c->plan); i++) {
			const struct gs_plan_trace *t = gs_plan_trace_at(c->plan, i);

			if (t->target.note)
				fprintf(stderr, "gstrace: trace #%u (%s): %s\n", t->id,
					t->pattern.text, t->target.note);
		}
		return 0;
	}
	cli_say(strncmp(err.msg, "trace #", 7) ? "" : "gstrace: ", "%s", err.msg);
	return err.code == -ENOMEM || err.code == -EFAULT ? EXIT_RUNTIME : EXIT_USAGE;
}

/* --verbose: where start-up time went, phase by phase, on one line. */
static void print_phases(struct ctx *c, uint64_t start_ns)
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
		(double)((uint64_t)now_ns() - start_ns) / 1e6);
}

static int dry_run(struct ctx *c)
{
	unsigned what = (c->cli.dry_run ? GS_PLAN_PRINT_SUMMARY : 0) |
			(c->cli.dump_insns ? GS_PLAN_PRINT_INSNS : 0);

	if (gs_plan_print(c->plan, what, c->outf) || fflush(c->outf)) {
		cli_say("gstrace: ", "cannot write the %s: %s",
			c->cli.dry_run ? "dry-run summary" : "instruction listing", strerror(errno));
		return EXIT_RUNTIME;
	}
	return 0;
}

/* Test switches (docs/cli.md, "Environment"): attach through tracefs, or
 * through perf events where uprobe_multi links would be used. */
static bool env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

/* Session, probes, ready marker. */
static int attach(struct ctx *c, struct run *r, pid_t pid)
{
	struct cli_out_opts oo = {
		.format = c->cli.format, .timestamp = c->cli.timestamp, .pid = pid,
		.modules = c->modules, .nmodules = c->nmodules, .files = c->files,
		.no_demangle = c->cli.no_demangle,
	};
	struct gs_session_opts so = {
		.sz = sizeof(so), .on_event = on_event, .arg = r,
		.force_tracefs = env_flag("GSTRACE_FORCE_TRACEFS"),
		.no_multi_link = env_flag("GSTRACE_NO_UPROBE_MULTI"),
	};
	struct gs_error err = { 0 };
	const char *report;

	if (gs_bpf_permitted(&err) || gs_uprobe_supported(&err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_RUNTIME;
	}
	if (cli_out_new(&oo, c->outf, &c->out, &err) || gs_session_new(&so, &c->session, &err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_RUNTIME;
	}
	r->out = c->out;
	r->print_events = !c->cli.aggregate && c->cli.format != CLI_FOLDED;
	if ((c->cli.aggregate || c->cli.format == CLI_FOLDED || c->cli.flamegraph) &&
	    cli_agg_new(c->out, c->cli.aggregate, c->cli.format == CLI_FOLDED ||
			c->cli.flamegraph, &c->agg, &err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_RUNTIME;
	}
	r->agg = c->agg;
	if (pid > 0)
		cli_out_preload(c->out, pid);
	if (stop_signal)
		return 0;
	if (gs_session_start(c->session, c->plan, &err) < 0) {
		cli_say(strncmp(err.msg, "trace #", 7) ? "" : "gstrace: ", "%s", err.msg);
		report = gs_session_report(c->session);
		if (report && report[0]) {
			gs_render_fputs(stderr, report, GS_RENDER_KEEP_NEWLINES);
			if (report[strlen(report) - 1] != '\n')
				fputc('\n', stderr);
		}
		return EXIT_RUNTIME;
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

/* What counting made, once tracing ends: the --aggregate table, the folded
 * stacks, the flame graph. 0 or an exit status. */
static int finish_counts(struct ctx *c, double elapsed_s)
{
	const struct gs_counts *stacks;
	struct gs_error err = { 0 };
	int status = 0;

	if (c->cli.count_in_bpf) {
		/* every probe off first: the counts read are the final ones */
		gs_session_detach(c->session);
		if (cli_agg_from_session(c->agg, c->session, &err)) {
			cli_say("gstrace: ", "%s", err.msg);
			return EXIT_RUNTIME;
		}
	}
	stacks = c->agg ? cli_agg_stacks(c->agg) : NULL;
	if (c->cli.aggregate)
		cli_agg_print(c->agg, c->outf, elapsed_s);
	if (c->cli.format == CLI_FOLDED)
		cli_agg_print_folded(c->agg, c->outf);
	flush_output(c->outf, &status);
	if (c->flamef) {
		char title[160];

		snprintf(title, sizeof(title), "gstrace: %" PRIu64 " stacks, %.1f s",
			 gs_counts_total(stacks), elapsed_s);
		if (cli_flamegraph_write(stacks, title, c->flamef) || fclose(c->flamef)) {
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
	return status;
}

/* Prints events until something ends the trace. 0 or an exit status;
 * *target_ended tells whether the target's end was the reason.
 * --duration counts from here: every probe is attached. */
static int event_loop(struct ctx *c, struct run *r, pid_t pid, bool *target_ended)
{
	int64_t start = now_ns(), next_tick = start + LOSS_REPORT_NS;
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
		int64_t now = now_ns();
		int timeout = POLL_MS, rc;
		struct gs_error err = { 0 };

		if (deadline && now >= deadline)
			break;
		if (deadline && (deadline - now) / 1000000 < timeout)
			timeout = (int)((deadline - now) / 1000000) + 1;
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
		if (interval && now_ns() >= next_table && c->cli.count_in_bpf &&
		    cli_agg_from_session(c->agg, c->session, &err)) {
			cli_say("gstrace: ", "%s", err.msg);
			status = EXIT_RUNTIME;
			break;
		}
		if (interval && now_ns() >= next_table) {
			cli_agg_print(c->agg, c->outf, (double)(now_ns() - start) / 1e9);
			next_table += interval;
		}
		if (now_ns() >= next_tick) {
			cli_report_lost(c->script, c->session, &c->losses);
			next_tick = now_ns() + LOSS_REPORT_NS;
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
		status = finish_counts(c, (double)(now_ns() - start) / 1e9);
	return status;
}

/* Starts the command and stops the process to trace at its entry point:
 * the command itself, or what its wrappers run. 0 or an exit status. */
static int launch(struct ctx *c)
{
	struct gs_error err = { 0 };
	char *exe = NULL;

	int rc;

	c->pick = (struct cli_pick){ .cmd_path = c->cmd_path, .target = c->cli.target,
				     .script = c->script };
	rc = cli_launch_start_follow(c->cmd_path, c->cli.command, cli_pick_image, &c->pick,
				    &c->launch, &err);

	if (rc == -ECANCELED) { /* the command's own image lacks the targets */
		cli_say("", "%s", c->pick.first_miss.msg);
		return EXIT_USAGE;
	}
	if (rc) {
		if (err.code == -ESRCH && c->pick.first_miss.msg[0])
			cli_say("", "%s\ngstrace: %s", c->pick.first_miss.msg, err.msg);
		else
			cli_say("gstrace: ", "%s", err.msg);
		/* ended before its entry: its own status; else we could not start it */
		return err.code == -ECHILD ? cli_launch_exit_code(&c->launch) : EXIT_USAGE;
	}
	if (!c->launch.followed)
		return 0;
	/* frames fall back on the traced image, not the wrapper */
	if (gs_proc_exe(c->launch.traced_pid, &exe, NULL) == 0) {
		for (size_t i = 0; i < c->nmodules; i++)
			if (c->modules[i] == c->cmd_path)
				c->modules[i] = exe;
		free(c->cmd_path);
		c->cmd_path = exe;
	}
	cli_say("gstrace: ", "tracing pid %d (%s), started by %s (pid %d)",
		(int)c->launch.traced_pid, c->cmd_path, c->cli.command[0], (int)c->launch.pid);
	return 0;
}

static int run(struct ctx *c)
{
	struct gs_program_opts popts = {
		.sz = sizeof(popts),
		.output = c->cli.force_perf || !gs_ringbuf_supported() ? GS_OUTPUT_PERF
								  : GS_OUTPUT_RINGBUF,
		.backtrace_depth = c->cli.backtrace_depth,
		.unwinder = c->cli.unwinder >= 0 ? (enum gs_unwinder)c->cli.unwinder :
			    gs_bpf_loop_supported() ? GS_UNWINDER_LOOP : GS_UNWINDER_TAILCALL,
		.ringbuf_size = c->cli.ringbuf_size,
		.perf_page_count = c->cli.perf_pages,
		.max_string_len = c->cli.max_string_len,
		.count_stacks = c->cli.count_in_bpf,
	};
	struct run r = { .max_events = c->cli.max_events };
	struct gs_error err = { 0 };
	uint64_t start_ns = (uint64_t)now_ns();
	bool dry = c->cli.dry_run || c->cli.dump_insns;
	pid_t pid = c->cli.pid;
	bool ended = false;
	int rc;

	if (!c->cli.force_perf && popts.output == GS_OUTPUT_PERF) {
		if (c->cli.ringbuf_size) {
			cli_say("gstrace: ", "--ringbuf-size: this kernel has no BPF ring buffer "
				"(Linux 5.8+); size the perf buffers with --perf-pages N instead");
			return EXIT_USAGE;
		}
		cli_say("gstrace: ", "this kernel has no BPF ring buffer (Linux 5.8+): events "
			"go through perf buffers (--force-perf-event-array)");
	}
	if ((rc = load_script(c)) || (rc = check_inputs(c)))
		return rc;
	/* A dry run of a command plans with the process the live run would
	 * have: started and stopped at its entry point, then killed. */
	if (c->cli.ncommand) {
		if ((rc = launch(c)))
			return rc;
		pid = c->launch.traced_pid;
	}
	cli_pid_filter(&popts, pid);
	if (!dry)
		prefetch_debug(c, pid);
	rc = plan(c, &popts, pid);
	if (rc == 0 && dry)
		rc = dry_run(c);
	else if (rc == 0)
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
	cli_teardown(c->script, c->session, &c->losses);
	c->session = NULL;
	if (c->launch.pid) {
		if (ended && rc == 0)
			return cli_launch_exit_code(&c->launch);
		cli_launch_stop(&c->launch, dry ? SIGKILL : stop_signal ? stop_signal : SIGTERM);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct ctx c;
	char msg[512];
	int rc;

	memset(&c, 0, sizeof(c));
#ifdef M_ARENA_MAX
	/* One malloc arena for every thread: the debug-information worker's
	 * own arena grew a page at a time, an mprotect each (hundreds while
	 * it reads libc's DWARF), and the main thread planning rows meanwhile
	 * took about 5 ms longer to start (median of runs). */
	mallopt(M_ARENA_MAX, 1);
#endif
	if (cli_parse(argc, argv, &c.cli, msg, sizeof(msg))) {
		cli_say("gstrace: ", "%s", msg);
		return EXIT_USAGE;
	}
	if (c.cli.action == CLI_HELP) {
		cli_usage(stdout);
		return 0;
	}
	if (c.cli.action == CLI_VERSION) {
		printf("gstrace %s\n", GSTRACE_VERSION);
		return 0;
	}
	if (c.cli.list_functions || c.cli.list_vars)
		return cli_list(&c.cli);
	install_signals();
	raise_fd_limit();
	rc = run(&c);
	teardown(&c);
	return rc;
}
