/* Launch mode: the child asks to be traced and executes the command; the
 * exec stops it, gstrace puts a breakpoint on the entry point (AT_ENTRY of
 * its auxv) and continues it through the dynamic loader, so at the stop the
 * executable and every library it links are mapped and no program code has
 * run. Probes are attached there; PTRACE_DETACH lets the command go. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"

#define AT_ENTRY_TYPE 9 /* AT_ENTRY of <elf.h>: the program's entry point */
#define STOP_GRACE_MS 2000
#define CLOSE_RANGE_CLOEXEC_FLAG (1u << 2) /* CLOSE_RANGE_CLOEXEC, Linux 5.11 */
#define SWEEP_MAX_FDS 65536u /* without /proc: how far the sweep looks */

/* The directory entries of getdents64(2) (glibc declares no type). */
struct dirent64_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static void cloexec_fd(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags >= 0 && !(flags & FD_CLOEXEC))
		fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

void cli_fds_cloexec(bool try_close_range)
{
	char buf[4096];
	struct rlimit rl;
	long n;
	int dir;

#ifdef SYS_close_range
	if (try_close_range && syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC_FLAG) == 0)
		return;
#else
	(void)try_close_range;
#endif
	/* Older kernels: what /proc/self/fd lists, read with the raw system
	 * call (opendir may take a lock another thread held at the fork). */
	dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir >= 0) {
		while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				const struct dirent64_raw *d = (const void *)(buf + off);
				int fd = 0;
				const char *c = d->name;

				for (; *c >= '0' && *c <= '9' && fd < (1 << 24); c++)
					fd = fd * 10 + (*c - '0');
				if (!*c && c != d->name && fd > 2 && fd != dir)
					cloexec_fd(fd);
				off += d->reclen;
			}
		}
		close(dir);
		if (n == 0)
			return;
	}
	/* no /proc: every number up to the limit (or SWEEP_MAX_FDS) */
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > SWEEP_MAX_FDS)
		rl.rlim_cur = SWEEP_MAX_FDS;
	for (unsigned fd = 3; fd < rl.rlim_cur; fd++)
		cloexec_fd((int)fd);
}

static bool executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int cli_launch_find(const char *cmd, char **path, struct gs_error *err)
{
	const char *env = getenv("PATH"), *p;

	*path = NULL;
	if (!*cmd)
		return gs_errorf(err, -ENOENT, "empty command after --; give the program to launch");
	if (strchr(cmd, '/')) {
		if (!executable_file(cmd))
			return gs_errorf(err, -ENOENT, "cannot launch %s: %s; give the path of an "
					 "executable file", cmd,
					 access(cmd, F_OK) ? strerror(errno) : "not an executable file");
		*path = strdup(cmd);
		return *path ? 0 : gs_errorf(err, -ENOMEM, "out of memory");
	}
	for (p = env && *env ? env : "/usr/local/bin:/usr/bin:/bin"; p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *cand = malloc(n + strlen(cmd) + 3);

		if (!cand)
			return gs_errorf(err, -ENOMEM, "out of memory");
		/* an empty PATH element is the current directory */
		sprintf(cand, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", cmd);
		if (executable_file(cand)) {
			*path = cand;
			return 0;
		}
		free(cand);
		p = colon ? colon + 1 : NULL;
	}
	return gs_errorf(err, -ENOENT, "cannot launch %s: no such command in PATH; give its path "
			 "(e.g. ./%s)", cmd, cmd);
}

static int read_entry(pid_t pid, uint64_t *entry)
{
	char path[64];
	uint64_t pair[2];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (read(fd, pair, sizeof(pair)) == (ssize_t)sizeof(pair) && pair[0] != 0) {
		if (pair[0] == AT_ENTRY_TYPE) {
			*entry = pair[1];
			close(fd);
			return 0;
		}
	}
	close(fd);
	return -ENOENT;
}

static int wait_child(pid_t pid, int *status)
{
	for (;;) {
		if (waitpid(pid, status, 0) == pid)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

static void kill_child(struct cli_launch *l)
{
	kill(l->pid, SIGKILL);
	if (wait_child(l->pid, &l->status) == 0)
		l->ended = true;
	l->traced = false;
}

#if defined(__x86_64__)
/* From the exec stop to a stop at the entry point, its code restored. */
static int run_to_entry(struct cli_launch *l, const char *path, struct gs_error *err)
{
	struct user_regs_struct regs;
	uint64_t entry = 0;
	long word;
	int sig = 0, st, rc;

	ptrace(PTRACE_SETOPTIONS, l->pid, 0, (void *)(long)PTRACE_O_EXITKILL);
	rc = read_entry(l->pid, &entry);
	if (rc)
		return gs_errorf(err, rc, "cannot read the entry point of %s (pid %d): %s", path,
				 (int)l->pid, strerror(-rc));
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, l->pid, (void *)entry, 0);
	if (errno ||
	    ptrace(PTRACE_POKETEXT, l->pid, (void *)entry, (void *)((word & ~0xffL) | 0xcc)))
		return gs_errorf(err, -errno, "cannot set a breakpoint at the entry point of %s: "
				 "%s", path, strerror(errno));
	for (;;) {
		if (ptrace(PTRACE_CONT, l->pid, 0, (void *)(long)sig))
			return gs_errorf(err, -errno, "cannot run %s to its entry point: %s", path,
					 strerror(errno));
		if ((rc = wait_child(l->pid, &st)))
			return gs_errorf(err, rc, "waiting for %s: %s", path, strerror(-rc));
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			l->ended = true;
			l->traced = false;
			l->status = st;
			return gs_errorf(err, -ECHILD, "%s ended before reaching its entry point "
					 "(%s %d); check that it starts on its own", path,
					 WIFEXITED(st) ? "exit status" : "signal",
					 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		}
		sig = WSTOPSIG(st);
		if (sig != SIGTRAP)
			continue; /* the child's own signal: deliver it */
		if (ptrace(PTRACE_GETREGS, l->pid, 0, &regs))
			return gs_errorf(err, -errno, "cannot read the registers of %s: %s", path,
					 strerror(errno));
		if (regs.rip == entry + 1)
			break;
	}
	regs.rip = entry;
	if (ptrace(PTRACE_POKETEXT, l->pid, (void *)entry, (void *)word) ||
	    ptrace(PTRACE_SETREGS, l->pid, 0, &regs))
		return gs_errorf(err, -errno, "cannot restore the entry point of %s: %s", path,
				 strerror(errno));
	return 0;
}
#else
static int run_to_entry(struct cli_launch *l, const char *path, struct gs_error *err)
{
	(void)l;
	return gs_errorf(err, -ENOTSUP, "launch mode is implemented for x86_64 only; start %s "
			 "yourself and use -p PID", path);
}
#endif

static int stdio_in = -1, stdio_out = -1;

void cli_launch_stdio(int in_fd, int out_fd)
{
	stdio_in = in_fd;
	stdio_out = out_fd;
}

int cli_launch_exec(const char *path, char *const *argv, struct cli_launch *l,
		    struct gs_error *err)
{
	int fds[2], st, rc, child_errno = 0;
	ssize_t got;

	memset(l, 0, sizeof(*l));
	if (pipe2(fds, O_CLOEXEC))
		return gs_errorf(err, -errno, "cannot create a pipe: %s", strerror(errno));
	l->pid = fork();
	if (l->pid < 0) {
		rc = -errno;
		close(fds[0]);
		close(fds[1]);
		l->pid = 0;
		return gs_errorf(err, rc, "cannot fork to launch %s: %s", path, strerror(-rc));
	}
	if (l->pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(fds[0]);
		if ((stdio_in >= 0 && dup2(stdio_in, STDIN_FILENO) < 0) ||
		    (stdio_out >= 0 && (dup2(stdio_out, STDOUT_FILENO) < 0 ||
					dup2(stdio_out, STDERR_FILENO) < 0)))
			_exit(127);
		/* The sync pipe is close-on-exec already: nothing of ours is
		 * passed on, not even a descriptor some library opened without
		 * O_CLOEXEC (an unprivileged command writing into root's -o). */
		cli_fds_cloexec(true);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0)
			execv(path, argv);
		child_errno = errno;
		if (write(fds[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	do
		got = read(fds[0], &child_errno, sizeof(child_errno));
	while (got < 0 && errno == EINTR);
	close(fds[0]);
	if (got == (ssize_t)sizeof(child_errno)) {
		wait_child(l->pid, &l->status);
		l->ended = true;
		return gs_errorf(err, -child_errno, "cannot launch %s: %s", path,
				 strerror(child_errno));
	}
	/* The exec stop. */
	if ((rc = wait_child(l->pid, &st)))
		return gs_errorf(err, rc, "waiting for %s: %s", path, strerror(-rc));
	if (!WIFSTOPPED(st)) {
		l->ended = true;
		l->status = st;
		return gs_errorf(err, -ECHILD, "%s ended right after it started", path);
	}
	l->traced = true;
	l->traced_pid = l->pid;
	return 0;
}

int cli_launch_start(const char *path, char *const *argv, struct cli_launch *l,
		    struct gs_error *err)
{
	int rc = cli_launch_exec(path, argv, l, err);

	if (rc)
		return rc;
	rc = run_to_entry(l, path, err);
	if (rc && !l->ended)
		kill_child(l);
	return rc;
}

int cli_launch_resume(struct cli_launch *l, struct gs_error *err)
{
	if (!l->traced)
		return 0;
	if (ptrace(PTRACE_DETACH, l->traced_pid, 0, 0))
		return gs_errorf(err, -errno, "cannot let pid %d run: %s", (int)l->traced_pid,
				 strerror(errno));
	l->traced = false;
	return 0;
}

bool cli_launch_ended(struct cli_launch *l)
{
	if (!l->pid || l->ended)
		return l->ended;
	if (waitpid(l->pid, &l->status, WNOHANG) == l->pid &&
	    (WIFEXITED(l->status) || WIFSIGNALED(l->status)))
		l->ended = true;
	return l->ended;
}

void cli_launch_stop(struct cli_launch *l, int sig)
{
	struct timespec tick = { 0, 10 * 1000000 };

	if (!l->pid || cli_launch_ended(l))
		return;
	if (l->traced_pid && l->traced_pid != l->pid)
		kill(l->traced_pid, l->traced ? SIGKILL : sig);
	if (l->traced) {
		kill_child(l);
		return;
	}
	kill(l->pid, sig);
	for (int waited = 0; waited < STOP_GRACE_MS; waited += 10) {
		if (cli_launch_ended(l))
			return;
		nanosleep(&tick, NULL);
	}
	kill_child(l);
}

int cli_launch_exit_code(const struct cli_launch *l)
{
	if (WIFEXITED(l->status))
		return WEXITSTATUS(l->status);
	if (WIFSIGNALED(l->status))
		return 128 + WTERMSIG(l->status);
	return 1;
}
