/* gstrace --tui: the target found (-p, -t, or a command launched and
 * stopped at its entry), the script given read, then the interactive mode
 * (src/tui) runs over them. A launched command reads nothing from the
 * terminal, and what it prints shows in the output panel. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/internal/tui.h>
#include <gs/modfile.h>
#include <gs/runtime.h>

#include "launch.h"
#include "prepare.h"
#include "say.h"
#include "targets.h"

struct tui_target {
	struct cli_ctx *c;
	pid_t pid;
	struct cli_watch watch;
	bool watching;
};

static int started(void *arg, struct gs_error *err)
{
	struct tui_target *t = arg;

	if (!t->c->cli.ncommand)
		return 0;
	return cli_launch_resume(&t->c->launch, err);
}

static bool target_ended(void *arg, char *msg, size_t size)
{
	struct tui_target *t = arg;

	if (t->c->cli.ncommand && cli_launch_ended(&t->c->launch)) {
		snprintf(msg, size, "the command (pid %d) ended with status %d", (int)t->pid,
			 cli_launch_exit_code(&t->c->launch));
		return true;
	}
	if (!t->watching)
		return false;
	switch (cli_watch_check(&t->watch, true)) {
	case CLI_WATCH_ENDED:
		snprintf(msg, size, "process %d exited", (int)t->pid);
		return true;
	case CLI_WATCH_EXECD:
		snprintf(msg, size, "process %d replaced its program (exec): the traced code "
			 "is gone", (int)t->pid);
		return true;
	default:
		return false;
	}
}

/* Launch mode: the command stopped at its entry, its stdin /dev/null and
 * its output into a pipe the output panel reads. */
static int launch(struct cli_ctx *c, int *out_fd)
{
	int fds[2], null = open("/dev/null", O_RDONLY | O_CLOEXEC), rc;

	if (null < 0 || pipe2(fds, O_CLOEXEC)) {
		cli_say("gstrace: ", "cannot set up the command's input and output: %s",
			strerror(errno));
		if (null >= 0)
			close(null);
		return EXIT_RUNTIME;
	}
	cli_launch_stdio(null, fds[1]);
	if (c->script) {
		rc = cli_launch_target(c);
	} else {
		struct gs_error err = { 0 };

		rc = cli_launch_start(c->cmd_path, c->cli.command, &c->launch, &err);
		if (rc) {
			cli_say("gstrace: ", "%s", err.msg);
			rc = err.code == -ECHILD ? cli_launch_exit_code(&c->launch) : EXIT_USAGE;
		} else {
			c->launch.traced_pid = c->launch.pid;
		}
	}
	cli_launch_stdio(-1, -1);
	close(null);
	close(fds[1]);
	if (rc)
		close(fds[0]);
	else
		*out_fd = fds[0];
	return rc;
}

int cli_tui(struct cli_ctx *c)
{
	struct gs_program_opts popts;
	struct gs_error err = { 0 };
	struct tui_target t = { .c = c, .pid = c->cli.pid, .watch = { .pidfd = -1 } };
	struct gs_tui_opts o = {
		.module = c->cli.target, .force_tracefs = getenv("GSTRACE_FORCE_TRACEFS") != NULL,
		.no_demangle = c->cli.no_demangle, .srcpaths = c->cli.srcpaths,
		.nsrcpaths = c->cli.nsrcpaths, .history = c->cli.tui_history,
		.started = started, .target_ended = target_ended, .arg = &t,
		.command_output_fd = -1,
	};
	char *exe = NULL;
	int rc;

	if (gs_bpf_permitted(&err) || gs_uprobe_supported(&err)) {
		cli_say("gstrace: ", "%s", err.msg);
		return EXIT_RUNTIME;
	}
	if ((rc = cli_program_opts(c, &popts)))
		return rc;
	if ((c->cli.script || c->cli.script_file) && (rc = cli_load_script(c)))
		return rc;
	if ((rc = cli_check_inputs(c)) || (rc = cli_open_files(c)))
		return rc;
	if (c->cli.ncommand) {
		if ((rc = launch(c, &o.command_output_fd)))
			return rc;
		t.pid = c->launch.traced_pid;
	}
	cli_pid_filter(&popts, t.pid);
	if (t.pid > 0 && !c->cli.ncommand) {
		cli_watch_start(&t.watch, t.pid);
		t.watching = true;
	}
	if (t.pid > 0)
		gs_proc_exe(t.pid, &exe, NULL);
	o.pid = t.pid;
	o.exe = exe ? exe : c->cli.target;
	o.program = &popts;
	o.files = c->files;
	o.script = c->cli.script_file ? c->script_text : c->cli.script;
	o.script_len = o.script ? strlen(o.script) : 0;
	o.script_name = c->cli.script_file ? c->cli.script_file : "script";
	rc = gs_tui_run(&o);
	if (t.watching)
		cli_watch_stop(&t.watch);
	if (c->launch.pid)
		cli_launch_stop(&c->launch, SIGTERM);
	free(exe);
	return rc;
}
