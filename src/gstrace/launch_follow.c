/* Launch mode through wrappers (`-- sh -c 'exec ./prog'`, `-- python3`
 * under a pyenv shim, `-- env X=1 prog`): the command and every process it
 * forks are followed under ptrace; each image they exec is stopped at its
 * entry point (libraries mapped, none of its code run) and offered to the
 * caller's pick. The first picked stays stopped there for the probes;
 * every other process is detached and goes on as if never traced. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "launch.h"

#define AT_ENTRY_TYPE 9
#define FOLLOW_OPTIONS (PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK | \
			PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE)

struct tracee {
	pid_t pid;
	bool fresh;     /* a new child: its first stop is the attach SIGSTOP */
	bool bp;        /* an int3 at entry, over `word` */
	uint64_t entry;
	long word;
};

struct follow {
	struct tracee *v;
	size_t n, cap;
};

static struct tracee *find(struct follow *f, pid_t pid)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].pid == pid)
			return &f->v[i];
	return NULL;
}

static struct tracee *add(struct follow *f, pid_t pid)
{
	if (base_grow((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v)))
		return NULL;
	f->v[f->n] = (struct tracee){ .pid = pid };
	return &f->v[f->n++];
}

static void drop(struct follow *f, struct tracee *t)
{
	*t = f->v[--f->n];
}

static int entry_of(pid_t pid, uint64_t *entry)
{
	char path[64];
	uint64_t pair[2];
	int fd, rc = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	while (rc && read(fd, pair, sizeof(pair)) == (ssize_t)sizeof(pair) && pair[0] != 0)
		if (pair[0] == AT_ENTRY_TYPE) {
			*entry = pair[1];
			rc = 0;
		}
	close(fd);
	return rc;
}

/* A new image: an int3 over its entry point. */
static void set_bp(struct tracee *t)
{
	t->bp = false;
	if (entry_of(t->pid, &t->entry))
		return;
	errno = 0;
	t->word = ptrace(PTRACE_PEEKTEXT, t->pid, (void *)t->entry, 0);
	if (errno == 0 && ptrace(PTRACE_POKETEXT, t->pid, (void *)t->entry,
				 (void *)((t->word & ~0xffL) | 0xcc)) == 0)
		t->bp = true;
}

/* Puts the entry's byte back; rewinds the pc when the int3 was hit. */
static int clear_bp(struct tracee *t, bool hit)
{
#if defined(__x86_64__)
	struct user_regs_struct regs;

	if (!t->bp)
		return 0;
	t->bp = false;
	if (ptrace(PTRACE_POKETEXT, t->pid, (void *)t->entry, (void *)t->word))
		return -errno;
	if (!hit)
		return 0;
	if (ptrace(PTRACE_GETREGS, t->pid, 0, &regs))
		return -errno;
	regs.rip = t->entry;
	return ptrace(PTRACE_SETREGS, t->pid, 0, &regs) ? -errno : 0;
#else
	(void)t;
	(void)hit;
	return -ENOTSUP;
#endif
}

static bool at_bp(const struct tracee *t)
{
#if defined(__x86_64__)
	struct user_regs_struct regs;

	return t->bp && ptrace(PTRACE_GETREGS, t->pid, 0, &regs) == 0 && regs.rip == t->entry + 1;
#else
	(void)t;
	return false;
#endif
}

/* Lets every process but `keep` go: stopped (SIGSTOP, or a stop it was in
 * already), its entry byte restored, detached; a SIGSTOP the stop did not
 * consume is answered with SIGCONT. */
static void release_others(struct follow *f, pid_t keep)
{
	for (size_t i = 0; i < f->n; i++) {
		struct tracee *t = &f->v[i];
		int st;
		bool consumed = false;

		if (t->pid == keep)
			continue;
		kill(t->pid, SIGSTOP);
		for (;;) {
			if (waitpid(t->pid, &st, __WALL) != t->pid) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (WIFEXITED(st) || WIFSIGNALED(st))
				break;
			consumed = WSTOPSIG(st) == SIGSTOP && (st >> 16) == 0;
			clear_bp(t, at_bp(t));
			ptrace(PTRACE_DETACH, t->pid, 0, 0);
			if (!consumed)
				kill(t->pid, SIGCONT);
			break;
		}
	}
	/* children forked just now, not seen yet: stopped by their attach */
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL | WNOHANG);

		if (w <= 0)
			break;
		if (w != keep && WIFSTOPPED(st))
			ptrace(PTRACE_DETACH, w, 0, 0);
	}
}

/* Ends every process followed so far (the pick refused them all). */
static void kill_all(struct follow *f)
{
	for (size_t i = 0; i < f->n; i++)
		kill(f->v[i].pid, SIGKILL);
	for (size_t i = 0; i < f->n; i++)
		while (waitpid(f->v[i].pid, NULL, __WALL) < 0 && errno == EINTR)
			;
}

bool cli_maps_file(pid_t pid, const char *path)
{
	struct stat want;
	char maps[64], line[4608];
	bool found = false;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	if (stat(path, &want) || !(f = fopen(maps, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;

		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3)
			found = ino == (unsigned long long)want.st_ino &&
				makedev(maj, min) == want.st_dev;
	}
	fclose(f);
	return found;
}

int cli_launch_start_follow(const char *path, char *const *argv, cli_launch_pick_fn pick,
			   void *arg, struct cli_launch *l, struct gs_error *err)
{
	struct follow f = { 0 };
	struct tracee *t;
	bool first = true;
	int verdict = 0, rc = cli_launch_exec(path, argv, l, err);

	if (rc)
		return rc;
	l->traced = false;
	l->traced_pid = 0;
	ptrace(PTRACE_SETOPTIONS, l->pid, 0, (void *)(long)FOLLOW_OPTIONS);
	if (!(t = add(&f, l->pid)))
		goto nomem;
	set_bp(t);
	ptrace(PTRACE_CONT, l->pid, 0, 0);
	while (f.n) {
		int st, sig, event;
		pid_t w = waitpid(-1, &st, __WALL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = gs_errorf(err, -errno, "following %s: %s", path, strerror(errno));
			break;
		}
		if (!(t = find(&f, w))) {
			if (!(t = add(&f, w)))
				goto nomem;
			t->fresh = true;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == l->pid) {
				l->ended = true;
				l->status = st;
			}
			drop(&f, t);
			continue;
		}
		sig = WSTOPSIG(st);
		event = st >> 16;
		t->fresh = t->fresh && sig == SIGSTOP && !event;
		if (event == PTRACE_EVENT_EXEC) {
			set_bp(t);
			sig = 0;
		} else if (event) {
			sig = 0; /* fork, vfork, clone: the child shows up on its own */
		} else if (sig == SIGSTOP && t->fresh) {
			t->fresh = false; /* a new child's attach stop */
			sig = 0;
		} else if (sig == SIGTRAP && at_bp(t)) {
			sig = 0;
			if ((rc = clear_bp(t, true)) == 0 && (verdict = pick(arg, w)) > 0) {
				l->traced_pid = w;
				l->traced = true;
				l->followed = !first || w != l->pid;
				release_others(&f, w);
				free(f.v);
				return 0;
			}
			if (verdict < 0) {
				kill_all(&f);
				l->ended = true;
				free(f.v);
				return -ECANCELED;
			}
			/* a wrapper: after its exec it is looked at again */
			first = false;
		}
		ptrace(PTRACE_CONT, w, 0, (void *)(long)sig);
	}
	free(f.v);
	if (!l->ended)
		kill(l->pid, SIGKILL);
	if (rc)
		return rc;
	return gs_errorf(err, -ESRCH, "%s ended, and no process it started mapped the program to "
			 "trace; name it with -t PATH, or launch it without its wrapper", path);
nomem:
	release_others(&f, 0);
	free(f.v);
	return gs_errorf(err, -ENOMEM, "out of memory following %s", path);
}
