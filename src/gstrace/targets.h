/* Checks of what -p, -t and -o name, before anything is resolved: a pid
 * that cannot be traced (gone, a zombie, a kernel thread, a thread id, a
 * process whose executable the kernel hides) is refused with the fix; a -t
 * that the -p process does not map is refused when it is a program and
 * warned about when it is a library (it may still be loaded later). While
 * tracing, the -p process is watched for its end and for an exec. (-o and
 * the other files written: outfile.h.) */
#ifndef CLI_TARGETS_H
#define CLI_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

enum cli_verdict {
	CLI_TARGET_OK,
	CLI_TARGET_WARN,   /* trace, but say on stderr what msg says */
	CLI_TARGET_REFUSE, /* exit 2 with msg */
};

/* -p pid: a live user process that gstrace can read. */
enum cli_verdict cli_check_pid(pid_t pid, char *msg, size_t size);
/* -t path alone or with -p: a regular file; with a pid, one it maps. */
enum cli_verdict cli_check_target(pid_t pid, const char *path, char *msg, size_t size);

/* The -p process while it is traced. */
struct cli_watch {
	pid_t pid;
	int pidfd;         /* -1 without pidfd_open */
	struct stat exe;   /* the program it ran at the start */
	bool know_exe;
};

enum cli_watch_state {
	CLI_WATCH_RUNNING,
	CLI_WATCH_ENDED,   /* the process is gone */
	CLI_WATCH_EXECD,   /* it runs another program now: the probes are gone */
};

void cli_watch_start(struct cli_watch *w, pid_t pid);
/* Its end is cheap to ask each poll; an exec (a stat) once a second. */
enum cli_watch_state cli_watch_check(const struct cli_watch *w, bool exec_too);
void cli_watch_stop(struct cli_watch *w);

#endif /* CLI_TARGETS_H */
