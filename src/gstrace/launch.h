/* Launch mode (`gstrace ... -- CMD ARGS`): start the command stopped at
 * its entry point, with its libraries mapped, so probes can be attached
 * before it runs any of its own code; then let it run, notice its end,
 * and stop it when tracing ends first. */
#ifndef CLI_LAUNCH_H
#define CLI_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include <gs/error.h>
#include <gs/program.h>
#include <gs/script.h>

struct cli_launch {
	pid_t pid;   /* 0: nothing launched */
	/* The process stopped at its entry point to be traced: pid, or one
	 * that a wrapper (a shell, env, a pyenv shim) forked or exec'd. */
	pid_t traced_pid;
	bool followed; /* traced_pid's image is not the command's first one */
	bool traced; /* traced_pid still under ptrace, stopped at its entry */
	bool ended;  /* reaped: status is its wait status */
	int status;
};

/* The file execvp would run for `cmd` (searching PATH when it has no '/'),
 * malloc'd into *path. -ENOENT / -EACCES with a message. */
int cli_launch_find(const char *cmd, char **path, struct gs_error *err);

/* Forks and executes path with argv under ptrace, and runs the dynamic
 * loader up to the program's entry point, where the child stays stopped.
 * On failure (exec failed, or the child ended before its entry: l->ended
 * says so) err says why. */
int cli_launch_start(const char *path, char *const *argv, struct cli_launch *l,
		    struct gs_error *err);

/* Whether a process stopped at its entry point (its libraries mapped) is
 * the one to trace: 1 yes, 0 follow what it runs, -1 give up (every
 * process is killed and cli_launch_start_follow returns -ECANCELED, with no
 * message: the pick says why). */
typedef int (*cli_launch_pick_fn)(void *arg, pid_t pid);

/* cli_launch_start() through wrappers: follows every exec and fork of the
 * command and its children, stops each new image at its entry point and
 * asks pick; the first picked stays stopped there (traced_pid), every other
 * process is let go. -ESRCH with a message when none was picked before
 * they all ended. */
int cli_launch_start_follow(const char *path, char *const *argv, cli_launch_pick_fn pick,
			   void *arg, struct cli_launch *l, struct gs_error *err);
/* fork + PTRACE_TRACEME + execv, up to the exec stop (launch.c; shared
 * with launch_follow.c). */
int cli_launch_exec(const char *path, char *const *argv, struct cli_launch *l,
		    struct gs_error *err);

/* Marks every descriptor above 2 close-on-exec: the launched command gets
 * stdin, stdout and stderr only. Between fork and exec (async-signal-safe):
 * close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11) when try_close_range,
 * else each entry of /proc/self/fd, else every number up to the limit. */
void cli_fds_cloexec(bool try_close_range);

/* pid maps the file at path (same device and inode). */
bool cli_maps_file(pid_t pid, const char *path);

/* The launched command's stdin and its stdout and stderr from now on
 * (the interactive mode's: the terminal is the screen's); -1: ours. */
void cli_launch_stdio(int in_fd, int out_fd);

/* Lets the stopped child run (ends the ptrace). */
int cli_launch_resume(struct cli_launch *l, struct gs_error *err);
/* true once the child has ended (reaps it without waiting). */
bool cli_launch_ended(struct cli_launch *l);
/* Ends a child that still runs: `sig`, then SIGKILL after two seconds;
 * reaps it. Nothing when it already ended. */
void cli_launch_stop(struct cli_launch *l, int sig);
/* Exit status for gstrace from the child's wait status: its exit code,
 * or 128 + the signal that killed it. */
int cli_launch_exit_code(const struct cli_launch *l);

/* The pick of launch mode (launch_pick.c), a cli_launch_pick_fn over a
 * struct cli_pick: 1 for a process that maps `target` (-t) or has every
 * target of `script`; a first image that does not is followed (a notice on
 * stderr) when it is a wrapper, picked with -t, else refused (-1, the
 * resolve error in first_miss). */
struct cli_pick {
	const char *cmd_path;   /* the command as found in PATH */
	const char *target;     /* -t PATH, or NULL */
	const struct gs_script *script;
	bool noticed;           /* a wrapper is being followed: said so */
	struct gs_error first_miss; /* why the first image was not picked */
};

int cli_pick_image(void *arg, pid_t pid);

/* The PID filter and $pid/$tid namespace for a traced process (pidns.c):
 * in a PID namespace of its own, its pid there and that namespace; else
 * the host TGID, or ours when gstrace is not in the initial namespace. */
void cli_pid_filter(struct gs_program_opts *p, pid_t pid);

#endif /* CLI_LAUNCH_H */
