/* Which process launch mode traces: the command's own, or, when the
 * command is a wrapper (a script through its interpreter, a launcher such
 * as sh, env or nice), the first process it runs that maps -t PATH or has
 * every target of the script. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/runtime.h>

#include "base.h"
#include "launch.h"
#include "say.h"

/* Commands that run another program: launch mode follows what they run
 * when they lack the targets themselves (any script run through its #!
 * interpreter is one too). */
static const char *const launchers[] = {
	"sh", "bash", "dash", "zsh", "ksh", "env", "nice", "nohup", "setsid", "taskset",
	"stdbuf", "timeout", "time", "unshare", "nsenter", "chrt", "ionice", "sudo", "runuser",
	"xargs", "chroot", "pyenv",
};

static bool is_launcher(const struct cli_pick *c, pid_t pid)
{
	const char *base = strrchr(c->cmd_path, '/');
	char *exe = NULL, *cmd = realpath(c->cmd_path, NULL);
	bool script;

	/* the command is a script when its process runs another file */
	script = gs_proc_exe(pid, &exe, NULL) == 0 && cmd && strcmp(exe, cmd) != 0;
	free(exe);
	free(cmd);
	if (script)
		return true;
	base = base ? base + 1 : c->cmd_path;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(launchers); i++)
		if (strcmp(base, launchers[i]) == 0)
			return true;
	return false;
}

/* Launch mode's pick: the process maps -t PATH, or every target of the
 * script resolves in what it maps. A first image that does not is
 * followed (a notice says so) when it is a launcher or a script; else it
 * is picked with -t (PATH may be a library it loads later) and refused
 * without (the resolve error is shown). */
int cli_pick_image(void *arg, pid_t pid)
{
	struct cli_pick *c = arg;
	struct gs_resolve_opts ro = { .sz = sizeof(ro), .pid = pid };
	bool ok = true;

	if (c->target) {
		ok = cli_maps_file(pid, c->target);
	} else {
		for (size_t i = 0; ok && c->script && i < c->script->ntraces; i++) {
			struct gs_target t;
			struct gs_error why;

			ro.entry = c->script->traces[i].retprobe;
			ok = gs_target_resolve(&c->script->traces[i].target, &ro, &t, &why) == 0;
			if (ok)
				gs_target_free(&t);
			else if (!c->noticed)
				gs_script_trace_errorf(c->script, &c->script->traces[i], &c->first_miss,
						       why.code, "%s", why.msg);
		}
	}
	if (!ok && !c->noticed) {
		char *exe = NULL;

		/* not a wrapper: the targets are wrong, or (-t) PATH is a
		 * library it will dlopen: the plan says which */
		if (!is_launcher(c, pid))
			return c->target ? 1 : -1;
		gs_proc_exe(pid, &exe, NULL);
		cli_say("gstrace: ", "notice: %s (pid %d) %s; following what it runs until a "
			"process %s", exe ? exe : "the command", (int)pid,
			c->target ? "does not map the -t binary" : "lacks the script's targets",
			c->target ? "maps it" : "has them (-t PATH names the program)");
		free(exe);
		c->noticed = true;
	}
	return ok;
}
