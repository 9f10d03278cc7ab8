/* Faults: files a traced program controls must never hang gstrace. A FIFO
 * given as the target (`-t ./fifo --dry-run`), and a FIFO an unprivileged
 * process bind-mounts over its own executable in a user + mount namespace
 * (with the executable's inode number: tmpfs numbers each instance from the
 * same start) against root's `gstrace -p PID`: each ends with exit 2 and a
 * message naming the file, within a second. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEADLINE_MS 1000
#define NOBODY 65534

struct outcome {
	int code;       /* exit code, -1: still running at the deadline (killed) */
	double ms;
	char err[4096]; /* stderr */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *gstrace(void)
{
	const char *p = getenv("GS_FAULTS_GSTRACE");

	return p ? p : "gstrace";
}

/* Runs gstrace with argv in dir; kills it at the deadline. */
static void run(const char *dir, char *const argv[], struct outcome *o)
{
	int ep[2], status;
	bool reaped;
	size_t len = 0;
	double t0 = now_ms();
	pid_t pid;

	memset(o, 0, sizeof(*o));
	assert_int_equal(pipe2(ep, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(ep[1], 2);
		if (chdir(dir) != 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(ep[1]);
	for (;;) {
		struct pollfd p = { .fd = ep[0], .events = POLLIN };
		int left = (int)(DEADLINE_MS - (now_ms() - t0));
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0)
			break;
		n = read(ep[0], o->err + len, sizeof(o->err) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	o->err[len] = '\0';
	/* stderr ends a moment before the process does. */
	while (!(reaped = waitpid(pid, &status, WNOHANG) == pid) && now_ms() - t0 < DEADLINE_MS)
		usleep(1000);
	o->ms = now_ms() - t0;
	if (!reaped) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		o->code = -1;
	} else {
		o->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	close(ep[0]);
	print_message("exit %d after %.0f ms: %s", o->code, o->ms, o->err);
}

static void test_fifo_target_dry_run_exits_2(void **state)
{
	char dir[] = "/tmp/gs-faults-XXXXXX", fifo[64], rm[96];
	char *argv[] = { (char *)gstrace(), "-t", "./fifo", "--dry-run", "-s",
			 "trace main { print \"x\"; }", NULL };
	struct outcome o;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	run(dir, argv, &o);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
	assert_int_equal(o.code, 2);
	assert_non_null(strstr(o.err, "./fifo is a FIFO"));
}

/* ---- the bind-mount attack ---------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		_exit(20);
	close(fd);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		_exit(21);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			_exit(22);
	close(in);
	close(out);
}

/* The unprivileged side: becomes nobody, enters a new user + mount
 * namespace, runs a copy of sleep from a tmpfs, then bind-mounts a FIFO
 * with the same inode number over that copy's path. Reports the sleeping
 * pid (or "E<errno>" when namespaces are not allowed) on fd. */
static void attacker(const char *dir, int fd)
{
	char a[PATH_MAX], b[PATH_MAX], prog[PATH_MAX + 8], fifo[PATH_MAX + 8], map[32], link[64];
	char seen[PATH_MAX];
	struct stat ps, fs;
	pid_t victim;

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		_exit(10);
	/* Changing uid made us undumpable (/proc/self would stay root's) and
	 * dropped the parent-death signal: set both again, so a failed test
	 * leaves nothing running. */
	prctl(PR_SET_DUMPABLE, 1);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(15);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		dprintf(fd, "E%d\n", errno);
		_exit(0);
	}
	snprintf(map, sizeof(map), "0 %d 1", NOBODY);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/setgroups", "deny");
	write_file("/proc/self/gid_map", map);
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(prog, sizeof(prog), "%s/prog", a);
	snprintf(fifo, sizeof(fifo), "%s/fifo", b);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("gs-faults", a, "tmpfs", 0, NULL) || mount("gs-faults", b, "tmpfs", 0, NULL))
		_exit(11);
	snprintf(seen, sizeof(seen), "%s/sleep", dir);
	copy_file(seen, prog);
	if (mkfifo(fifo, 0600) || stat(prog, &ps) || stat(fifo, &fs))
		_exit(12);
	victim = fork();
	if (victim == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(prog, "prog", "60", (char *)NULL);
		_exit(13);
	}
	/* Once it runs the copy, shadow the copy's path with the FIFO. */
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)victim);
	for (int i = 0; i < 1000; i++) {
		ssize_t n = readlink(link, seen, sizeof(seen) - 1);

		if (n > 0 && (seen[n] = '\0', strcmp(seen, prog) == 0))
			break;
		usleep(1000);
	}
	if (mount(fifo, prog, NULL, MS_BIND, NULL))
		_exit(14);
	dprintf(fd, "%d %llu %llu\n", (int)victim, (unsigned long long)ps.st_ino,
		(unsigned long long)fs.st_ino);
	pause();
	_exit(0);
}

static void test_fifo_bind_mounted_over_the_exe_exits_2(void **state)
{
	char dir[] = "/tmp/gs-faults-XXXXXX", path[PATH_MAX], line[128] = "", rm[96];
	unsigned long long prog_ino = 0, fifo_ino = 0;
	int sp[2], victim = 0, status;
	struct outcome o;
	pid_t child;
	ssize_t n;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: the attack is against root's gstrace; run as root\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(mkdir(path, 0777), 0);
	snprintf(path, sizeof(path), "%s/b", dir);
	assert_int_equal(mkdir(path, 0777), 0);
	snprintf(path, sizeof(path), "cp /bin/sleep '%s/sleep'", dir);
	assert_int_equal(system(path), 0);
	assert_int_equal(pipe2(sp, O_CLOEXEC), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int null = open("/dev/null", O_RDWR);

		/* Never hold the test runner's output open. */
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(sp[0]);
		attacker(dir, sp[1]);
	}
	close(sp[1]);
	n = read(sp[0], line, sizeof(line) - 1);
	close(sp[0]);
	if (n > 0)
		line[n] = '\0';
	if (line[0] == 'E' || n <= 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		print_message("skipped: no user + mount namespace for an unprivileged user "
			      "here (%s, step %d)\n", n > 0 ? strerror(atoi(line + 1)) : "setup failed",
			      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
		assert_int_equal(system(rm), 0);
		skip();
	}
	assert_int_equal(sscanf(line, "%d %llu %llu", &victim, &prog_ino, &fifo_ino), 3);
	print_message("pid %d runs an executable with inode %llu; the FIFO over its path has "
		      "inode %llu\n", victim, prog_ino, fifo_ino);
	{
		char pid[16];
		char *argv[] = { (char *)gstrace(), "-p", pid, "-s", "trace main { print \"x\"; }",
				 NULL };

		snprintf(pid, sizeof(pid), "%d", victim);
		run("/", argv, &o);
		kill(victim, SIGKILL);
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
		assert_int_equal(system(rm), 0);
		assert_int_equal(o.code, 2);
		assert_non_null(strstr(o.err, "not a regular file"));
		assert_non_null(strstr(o.err, pid));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_target_dry_run_exits_2),
		cmocka_unit_test(test_fifo_bind_mounted_over_the_exe_exits_2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
