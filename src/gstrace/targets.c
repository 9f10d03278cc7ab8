/* What -p and -t name, checked before resolution so that a session that
 * could never see an event does not start silently: each refusal says what
 * the pid or file is and what to give instead. Names read from /proc (a
 * command name, a path) are the target's text and are escaped. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gs/render.h>
#include <gs/unwind.h>

#include "targets.h"

#define PF_KTHREAD 0x00200000u /* include/linux/sched.h */

__attribute__((format(printf, 4, 5)))
static enum cli_verdict say(enum cli_verdict v, char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return v;
}

/* What /proc/<pid>/stat and status tell about a pid. */
struct proc_info {
	char comm[80]; /* escaped */
	struct gs_proc_stat st;
	pid_t tgid;
};

static int proc_info(pid_t pid, struct proc_info *pi)
{
	int rc;

	memset(pi, 0, sizeof(*pi));
	rc = gs_proc_stat_read(pid, &pi->st, NULL);
	if (rc)
		return rc;
	gs_render_escaped(pi->st.comm, strlen(pi->st.comm), 0, pi->comm, sizeof(pi->comm));
	pi->tgid = gs_proc_tgid(pid);
	return 0;
}

enum cli_verdict cli_check_pid(pid_t pid, char *msg, size_t size)
{
	struct proc_info pi;
	char exe[64], link[PATH_MAX];
	int rc = proc_info(pid, &pi);

	if (rc == -ENOENT || rc == -ESRCH)
		return say(CLI_TARGET_REFUSE, msg, size, "-p %d: no such process; check the pid "
			   "(ps -e lists them)", (int)pid);
	if (rc)
		return say(CLI_TARGET_REFUSE, msg, size, "-p %d: cannot read /proc/%d/stat (%s); "
			   "check the pid", (int)pid, (int)pid, strerror(-rc));
	if (pi.tgid > 0 && pi.tgid != pid)
		return say(CLI_TARGET_REFUSE, msg, size, "-p %d: that is a thread (TID) of process "
			   "%d (%s), and gstrace traces whole processes; give its TGID: -p %d",
			   (int)pid, (int)pi.tgid, pi.comm, (int)pi.tgid);
	if (pi.st.flags & PF_KTHREAD)
		return say(CLI_TARGET_REFUSE, msg, size, "-p %d: pid %d (%s) is a kernel thread; "
			   "uprobes fire in user-space code only: give the pid of a user process",
			   (int)pid, (int)pid, pi.comm);
	if (pi.st.state == 'Z' || pi.st.state == 'X')
		return say(CLI_TARGET_REFUSE, msg, size, "-p %d: pid %d (%s) has exited and is a "
			   "zombie until its parent (pid %d) reaps it; nothing runs there to "
			   "trace: give a live process", (int)pid, (int)pid, pi.comm, (int)pi.st.ppid);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	if (readlink(exe, link, sizeof(link)) < 0 && (errno == EACCES || errno == EPERM)) {
		if (geteuid() == 0)
			return say(CLI_TARGET_REFUSE, msg, size, "-p %d: the kernel refuses even "
				   "root access to %s (%s): the process (%s) is outside gstrace's "
				   "user namespace or ptrace access to it is restricted (Yama, an "
				   "LSM); run gstrace in the process's own namespace", (int)pid,
				   exe, strerror(errno), pi.comm);
		return say(CLI_TARGET_REFUSE, msg, size, "-p %d: cannot read %s (%s): the process "
			   "(%s) is not yours; run as root", (int)pid, exe, strerror(errno),
			   pi.comm);
	}
	return CLI_TARGET_OK;
}

/* ELF type: 1 a program (ET_EXEC, or ET_DYN with an interpreter), 0 a
 * library or anything else, -errno when unreadable. */
static int is_program(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	if (eh.e_type == ET_EXEC)
		return 1;
	if (eh.e_type != ET_DYN || eh.e_phentsize != sizeof(ph))
		return 0;
	for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return 0;
		if (ph.p_type == PT_INTERP)
			return 1;
	}
	return 0;
}

/* pid maps a file with st's inode (the dev field of /proc/PID/maps is the
 * underlying one on overlay filesystems: inodes alone are compared). */
static bool maps_file(pid_t pid, const struct stat *st)
{
	struct gs_maps maps;
	bool found = false;

	if (gs_maps_read(pid, &maps, NULL) != 0)
		return true; /* cannot tell: do not complain */
	for (size_t i = 0; i < maps.n && !found; i++)
		found = maps.entries[i].kind == GS_MAP_FILE && maps.entries[i].inode == st->st_ino;
	gs_maps_free(&maps);
	return found;
}

enum cli_verdict cli_check_target(pid_t pid, const char *path, char *msg, size_t size)
{
	char exe[64], link[PATH_MAX], shown[PATH_MAX];
	struct stat st, exe_st;
	ssize_t len;
	int fd, program;

	/* A FIFO or a device is refused before anything opens it; the open
	 * never blocks, and what it opened must still be a regular file. */
	if (stat(path, &st) != 0)
		return say(CLI_TARGET_REFUSE, msg, size, "-t %s: %s; give the path of an "
			   "executable or a shared library", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return say(CLI_TARGET_REFUSE, msg, size, "-t %s: %s is %s, not a regular file; give "
			   "the path of an executable or a shared library", path, path,
			   S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			   S_ISCHR(st.st_mode) ? "a character device" : "a device or socket");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return say(CLI_TARGET_REFUSE, msg, size, "-t %s: %s; give the path of an "
			   "executable or a shared library", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return say(CLI_TARGET_REFUSE, msg, size, "-t %s: %s changed while it was opened, "
			   "and is not a regular file now; give a file that stays put", path,
			   path);
	}
	program = is_program(fd);
	close(fd);
	if (pid <= 0 || maps_file(pid, &st))
		return CLI_TARGET_OK;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	len = readlink(exe, link, sizeof(link) - 1);
	if (len < 0)
		snprintf(link, sizeof(link), "%s", exe);
	else
		link[len] = '\0';
	gs_render_escaped(link, strlen(link), 0, shown, sizeof(shown));
	if (program && stat(exe, &exe_st) == 0 &&
	    (exe_st.st_dev != st.st_dev || exe_st.st_ino != st.st_ino))
		return say(CLI_TARGET_REFUSE, msg, size, "-p %d -t %s: process %d runs another "
			   "program (%s), so no probe in %s would fire; give the pid of a process "
			   "running it, or -t %s alone to trace every process that does",
			   (int)pid, path, (int)pid, shown, path, path);
	return say(CLI_TARGET_WARN, msg, size, "warning: process %d does not map %s (yet): its "
		   "probes fire only once it loads that file (dlopen); check the path against "
		   "/proc/%d/maps", (int)pid, path, (int)pid);
}

/* ---- the -p process while it is traced ------------------------------------ */

static bool exe_id(pid_t pid, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return stat(path, st) == 0;
}

void cli_watch_start(struct cli_watch *w, pid_t pid)
{
	w->pid = pid;
#ifdef SYS_pidfd_open
	w->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
	w->pidfd = -1;
#endif
	w->know_exe = exe_id(pid, &w->exe);
}

enum cli_watch_state cli_watch_check(const struct cli_watch *w, bool exec_too)
{
	struct pollfd p = { .fd = w->pidfd, .events = POLLIN };
	struct stat now;

	if (w->pidfd >= 0 ? poll(&p, 1, 0) > 0 : kill(w->pid, 0) != 0 && errno != EPERM)
		return CLI_WATCH_ENDED;
	if (exec_too && w->know_exe && exe_id(w->pid, &now) &&
	    (now.st_dev != w->exe.st_dev || now.st_ino != w->exe.st_ino))
		return CLI_WATCH_EXECD;
	return CLI_WATCH_RUNNING;
}

void cli_watch_stop(struct cli_watch *w)
{
	if (w->pidfd >= 0)
		close(w->pidfd);
	w->pidfd = -1;
}
