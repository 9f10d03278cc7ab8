/* Before anything is loaded: the script read and parsed (--max-probes
 * checked), the flags' targets checked (refused with the fix, or warned
 * about), the output opened, the module-file cache, the debug-information
 * prefetch, and the one trace plan that the live run and --dry-run share. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/runtime.h>

#include "base.h"
#include "cachedir.h"
#include "outfile.h"
#include "prepare.h"
#include "say.h"
#include "targets.h"

#define SCRIPT_FILE_MAX (16u << 20)

/* The whole script file, NUL-terminated, or NULL with err set. */
static char *read_file(const char *path, size_t *len, struct gs_error *err)
{
	FILE *f = fopen(path, "rbe");
	char *text = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		gs_errorf(err, -errno, "cannot read script file %s: %s; check the path", path,
			  strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		/* 8 KiB, then doubling, up to SCRIPT_FILE_MAX. */
		if (cap - n < 4096 &&
		    (cap >= SCRIPT_FILE_MAX || base_grow((void **)&text, &cap, n + 8192, 1))) {
			gs_errorf(err, -EFBIG, "script file %s is too large (over %u bytes)", path,
				  SCRIPT_FILE_MAX);
			break;
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

static int load_script(struct cli_ctx *c)
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

int cli_load_script(struct cli_ctx *c)
{
	/* CPU samples take no script; the agent serves one or none */
	bool none = !c->cli.script && !c->cli.script_file;

	return none && (c->cli.profile_hz || c->cli.serve) ? 0 : load_script(c);
}

static bool script_has_bt(const struct gs_script *s)
{
	for (size_t i = 0; i < s->ntraces; i++)
		if (gs_stmts_count_bt(s->traces[i].body, s->traces[i].nbody))
			return true;
	return false;
}

/* Files, pids and commands the flags name: what cannot be traced is
 * refused with the fix, what may trace nothing is warned about. */
int cli_check_inputs(struct cli_ctx *c)
{
	struct gs_error err = { 0 };
	enum cli_verdict v;
	char msg[GS_ERROR_MSG_MAX];

	if ((cli_format(&c->cli)->needs_stacks || c->cli.flamegraph || c->cli.pprof) &&
	    c->script && !script_has_bt(c->script)) {
		fprintf(stderr, "gstrace: %s%s counts backtraces, and the script takes none; add "
			"bt; to a trace (e.g. trace FN { bt; })\n", c->cli.flamegraph ?
			"--flamegraph" : c->cli.pprof ? "--pprof" : "--script-output ",
			c->cli.flamegraph || c->cli.pprof ? "" : cli_format(&c->cli)->name);
		return EXIT_USAGE;
	}
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
	    cli_open_write("--flamegraph", c->cli.flamegraph, &c->flamef, msg, sizeof(msg))) {
		cli_say("gstrace: ", "%s", msg);
		return EXIT_USAGE;
	}
	if (c->cli.pprof && !c->cli.dry_run && !c->cli.dump_insns &&
	    cli_open_binary(cli_format(&c->cli)->binary ? "-o" : "--pprof", c->cli.pprof,
			    &c->pproff, msg, sizeof(msg))) {
		cli_say("gstrace: ", "%s", msg);
		return EXIT_USAGE;
	}
	if (!c->cli.output) {
		c->outf = stdout;
	} else if (cli_open_write("-o", c->cli.output, &c->outf, msg, sizeof(msg))) {
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
		const struct gs_target_pattern *pat = gs_plan_trace_pattern(t);
		const struct gs_target *target = gs_plan_trace_target(t);
		int used = target->nlocs ? target->locs[0].line : 0;

		if (pat->kind == GS_TARGET_FILE_LINE && used > 0 && (uint32_t)used != pat->line)
			fprintf(stderr, "gstrace: notice: trace #%u (%s): line %u has no code; "
				"probing line %d, the next line with code\n", gs_plan_trace_id(t),
				pat->text, pat->line, used);
	}
}

/* One module-file cache for the run: resolution, rows and frames. */
int cli_open_files(struct cli_ctx *c)
{
	struct gs_modfiles_opts mo = { .sz = sizeof(mo), .debug_dirs = c->cli.debug_dirs };
	struct gs_error err = { 0 };
	struct cli_cache cache;

	if (c->files)
		return 0;
	mo.cfi_cache_dir = cli_cache_dir(&c->cli, &cache);
	mo.cache_max_bytes = cache.max_bytes;
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
void cli_prefetch_debug(struct cli_ctx *c, pid_t pid)
{
	struct gs_proc_modules mods;
	bool wanted = false;

	wanted = !c->script; /* CPU samples: their stacks are symbolized */
	for (size_t i = 0; c->script && i < c->script->ntraces && !wanted; i++)
		wanted = gs_stmts_count_bt_symbolized(c->script->traces[i].body,
						      c->script->traces[i].nbody) > 0;
	if (!wanted || pid <= 0 || cli_open_files(c) || gs_proc_modules_load(pid, c->files, &mods, NULL))
		return;
	for (size_t i = 0; i < mods.n; i++)
		if (mods.v[i].file)
			gs_modfile_prefetch_debug(mods.v[i].file);
	gs_proc_modules_free(&mods);
}

/* --verbose: the output buffers' size and where it came from. */
static void say_output_size(const struct cli_ctx *c)
{
	const struct gs_program_opts *o = gs_plan_program_opts(c->plan);
	bool perf = o->output == GS_OUTPUT_PERF;
	uint64_t bytes = perf ? (uint64_t)o->perf_page_count * 4096u : o->ringbuf_size;
	size_t probes = gs_plan_probe_count(c->plan);
	bool given = perf ? c->cli.perf_pages != 0 : c->cli.ringbuf_size != 0;
	uint32_t largest = gs_plan_largest_event(c->plan);

	if (!c->cli.verbose)
		return;
	fprintf(stderr, "gstrace: output: %s of %" PRIu64 " %s %s (%zu probe%s, ",
		perf ? "perf buffers" : "a ring buffer",
		bytes % (1u << 20) ? bytes >> 10 : bytes >> 20, bytes % (1u << 20) ? "KiB" : "MiB",
		perf ? "per CPU and probe" : "per probe", probes, probes == 1 ? "" : "s");
	if (largest)
		fprintf(stderr, "largest event %u bytes): ", largest);
	else
		fputs("no events: all counted in BPF): ", stderr);
	if (given)
		fprintf(stderr, "as %s says\n", perf ? "--perf-pages" : "--ringbuf-size");
	else
		fprintf(stderr, "room for %u of the largest event, %u KiB to %u MiB, %u MiB in "
			"all\n", GS_OUTPUT_EVENTS, GS_OUTPUT_MIN_SIZE >> 10, GS_OUTPUT_MAX_SIZE >> 20,
			GS_OUTPUT_TOTAL_MAX >> 20);
}

/* Notes of the plan's traces (a line moved to where code is) on stderr. */
static void say_notes(const struct gs_plan *plan)
{
	for (size_t i = 0; i < gs_plan_trace_count(plan); i++) {
		const struct gs_plan_trace *t = gs_plan_trace_at(plan, i);
		const char *note;

		for (size_t k = 0; (note = gs_plan_trace_note(t, k)); k++)
			fprintf(stderr, "gstrace: trace #%u (%s): %s\n", gs_plan_trace_id(t),
				gs_plan_trace_pattern(t)->text, note);
	}
}

/* --profile, and the agent's profile endpoint (--serve): the plan of CPU
 * samples, its rows bounded by --unwind-memory where processes come and go
 * (-t, --all). With --serve the sampler counts in BPF beside the script's
 * traces (which keep their events), each thread apart (a profile's `tid`
 * label), its clock stopped until a profile is asked for unless --profile
 * runs it the whole time. */
static int plan_samples(struct cli_ctx *c, struct gs_plan_opts *po)
{
	struct gs_program_opts popts = *po->program;
	struct gs_sample_opts so = {
		.sz = sizeof(so), .kernel_stacks = c->cli.kernel_stacks,
		.frequency = c->cli.profile_hz ? c->cli.profile_hz : GS_SAMPLE_DEFAULT_FREQUENCY,
		.count_stacks = c->cli.serve != NULL, .per_thread = c->cli.serve != NULL,
		.paused = c->cli.serve && !c->cli.profile_hz,
		.trace_id = c->script ? po->first_trace_id + (uint32_t)c->script->ntraces : 0,
	};
	uint64_t mb = c->cli.unwind_memory_mb ? c->cli.unwind_memory_mb :
		      PROFILE_DEFAULT_UNWIND_MB;
	struct gs_error err = { 0 };
	int rc;

	/* a row, its share of the page index and of the large rules */
	if (po->pid <= 0) {
		popts.unwind_rows_max = (uint32_t)((mb << 20) / (sizeof(struct gs_bt_row) + 1 +
						   sizeof(struct gs_bt_rules) / 16));
		popts.proc_offsets_max = PROFILE_MODULE_ENTRIES;
	}
	po->program = &popts;
	po->module = c->cli.all ? NULL : po->module;
	rc = gs_plan_new(po, &c->plan, &err);
	if (rc == 0 && c->script)
		rc = gs_plan_add_script(c->plan, c->script, &err);
	if (rc == 0)
		rc = gs_plan_add_samples(c->plan, &so, &err);
	if (rc == 0)
		rc = gs_plan_build(c->plan, &err);
	if (rc == 0) {
		if (c->script)
			notice_moved_lines(c->plan);
		say_notes(c->plan);
		say_output_size(c);
		return 0;
	}
	cli_say(base_has_prefix(err.msg, "trace #") ? "gstrace: " : "", "%s", err.msg);
	return err.code == -ENOMEM || err.code == -EFAULT ? EXIT_RUNTIME : EXIT_USAGE;
}

/* The one trace plan of the run: every target resolved, `bt` planned and
 * every program built, before anything is loaded. A wrong target is a
 * usage error shown at its place in the script. */
int cli_plan(struct cli_ctx *c, const struct gs_program_opts *popts, pid_t pid)
{
	/* A launched command is ours: it may stop at each dlopen (no shell
	 * waits on it with job control) until its new modules are known. */
	struct gs_plan_opts po = { .sz = sizeof(po), .pid = pid, .module = c->cli.target,
				   .program = popts, .max_probes = c->cli.max_probes,
				   .hold_on_dlopen = c->cli.ncommand > 0,
				   .python_frames = (enum gs_python_frames)c->cli.python_frames };
	struct gs_error err = { 0 };
	int rc = cli_open_files(c);

	if (rc)
		return rc;
	po.files = c->files;

	/* A command not launched (dry run without a pid) is the default module. */
	if (!po.module && pid <= 0)
		po.module = c->cmd_path;
	if (c->cli.profile_hz || c->cli.serve)
		return plan_samples(c, &po);
	if (gs_plan_from_script(c->script, &po, &c->plan, &err) == 0) {
		notice_moved_lines(c->plan);
		say_notes(c->plan);
		say_output_size(c);
		return 0;
	}
	cli_say(base_has_prefix(err.msg, "trace #") ? "gstrace: " : "", "%s", err.msg);
	return err.code == -ENOMEM || err.code == -EFAULT ? EXIT_RUNTIME : EXIT_USAGE;
}

int cli_dry_run(struct cli_ctx *c)
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

/* Starts the command and stops the process to trace at its entry point:
 * the command itself, or what its wrappers run. 0 or an exit status. */
int cli_launch_target(struct cli_ctx *c)
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

/* Whether reads fault pages in (--fault-in): where the kernel loads
 * sleepable uprobe programs, and the output and the unwinder can be in one. */
static int fault_in(const struct cli_ctx *c, struct gs_program_opts *popts)
{
	bool kernel = gs_sleepable_uprobe_supported();

	if (c->cli.fault_in == CLI_FAULT_ON && !kernel) {
		cli_say("gstrace: ", "--fault-in on: this kernel does not load sleepable uprobe "
			"programs (Linux 6.0+), which fault pages in; drop --fault-in on (a page "
			"the process never touched then reads as <read error>)");
		return EXIT_USAGE;
	}
	popts->fault_in = c->cli.fault_in != CLI_FAULT_OFF && kernel &&
			  popts->output == GS_OUTPUT_RINGBUF && popts->unwinder == GS_UNWINDER_LOOP;
	if (c->cli.verbose && !c->cli.profile_hz) /* a profile reads no values */
		cli_say("gstrace: ", "user memory: %s", popts->fault_in ?
			"reads fault pages in (sleepable uprobe programs: bpf_copy_from_user "
			"after a failed bpf_probe_read_user)" :
			c->cli.fault_in == CLI_FAULT_OFF ? "reads never fault (--fault-in off)" :
			!kernel ? "reads never fault (this kernel has no sleepable uprobes, "
			"Linux 6.0+)" : "reads never fault (sleepable programs need the ring "
			"buffer and the loop unwinder)");
	return 0;
}

/* The program options the flags give: output buffer, unwinder, sizes,
 * whether reads fault pages in. 0 or an exit status. */
int cli_program_opts(struct cli_ctx *c, struct gs_program_opts *popts)
{
	*popts = (struct gs_program_opts){
		.sz = sizeof(*popts),
		.output = c->cli.force_perf || !gs_ringbuf_supported() ? GS_OUTPUT_PERF
								  : GS_OUTPUT_RINGBUF,
		.backtrace_depth = c->cli.backtrace_depth,
		.unwinder = c->cli.unwinder >= 0 ? (enum gs_unwinder)c->cli.unwinder :
			    gs_bpf_loop_supported() ? GS_UNWINDER_LOOP : GS_UNWINDER_TAILCALL,
		.ringbuf_size = c->cli.ringbuf_size,
		.perf_page_count = c->cli.perf_pages,
		.max_string_len = c->cli.max_string_len,
		.max_elements = c->cli.max_elements,
		.max_view_depth = c->cli.max_nesting,
		.count_stacks = c->cli.count_in_bpf,
		.agg_max_keys = c->cli.max_keys,
	};
	if (!c->cli.force_perf && popts->output == GS_OUTPUT_PERF) {
		if (c->cli.ringbuf_size) {
			cli_say("gstrace: ", "--ringbuf-size: this kernel has no BPF ring buffer "
				"(Linux 5.8+); size the perf buffers with --perf-pages N instead");
			return EXIT_USAGE;
		}
		cli_say("gstrace: ", "this kernel has no BPF ring buffer (Linux 5.8+): events "
			"go through perf buffers (--force-perf-event-array)");
	}
	return fault_in(c, popts);
}
