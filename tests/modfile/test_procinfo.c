/* What names a process in a profile (procinfo.c): the container id in a
 * /proc/PID/cgroup text, as each runtime spells its cgroups and as a
 * hostile one might, then a live process's names: this one's, a child's
 * that chose a name of terminal escapes, and one that is gone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gs/internal/modfile.h>

#define ID "4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

struct cgroup_case {
	const char *name;
	const char *text;
	const char *want; /* NULL: none */
};

static const struct cgroup_case cases[] = {
	{ "docker, systemd driver (v2)",
	  "0::/system.slice/docker-" ID ".scope\n", ID },
	{ "docker, cgroupfs driver (v1, every hierarchy)",
	  "12:pids:/docker/" ID "\n11:memory:/docker/" ID "\n0::/docker/" ID "\n", ID },
	{ "containerd under kubelet, systemd driver",
	  "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1234_5678.slice/"
	  "cri-containerd-" ID ".scope\n", ID },
	{ "cri-o", "0::/kubepods.slice/kubepods-burstable.slice/crio-" ID ".scope\n", ID },
	{ "cri-o without .scope", "0::/machine.slice/crio-" ID "\n", ID },
	{ "podman", "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID
	  ".scope/container\n", ID },
	{ "kubepods, cgroupfs driver", "0::/kubepods/burstable/pod1234/" ID "\n", ID },
	{ "a container in a container: the inner one",
	  "0::/docker/" ID "/docker/" ID2 "\n", ID2 },
	{ "the first line that names one", "1:name=systemd:/user.slice\n0::/docker/" ID "\n", ID },
	{ "no newline at the end", "0::/docker/" ID, ID },
	{ "a ':' inside the path", "0::/a:b/docker-" ID ".scope", ID },
	{ "the host", "0::/user.slice/user-1000.slice/session-2.scope\n", NULL },
	{ "init", "0::/init.scope\n", NULL },
	{ "empty", "", NULL },
	{ "conmon is not the container", "0::/machine.slice/libpod-conmon-" ID ".scope\n", NULL },
	{ "uppercase is no id", "0::/docker/4F1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B1C\n",
	  NULL },
	{ "65 digits", "0::/docker/" ID "0\n", NULL },
	{ "a prefix without an id", "0::/docker-.scope\n", NULL },
	{ "a line with one colon", "0:/docker/" ID "\n", NULL },
	{ "no colon", "/docker/" ID "\n", NULL },
	{ "a terminal escape around it", "0::/\x1b[31mdocker-" ID ".scope\n", NULL },
	{ "an escape as a directory before it", "0::/\x1b[31m/docker/" ID "\n", ID },
	{ ".scope alone", "0::/.scope\n", NULL },
};

static void check(const struct cgroup_case *c, const char *text, size_t len)
{
	char id[GS_CONTAINER_ID_LEN + 1];
	int rc = gs_cgroup_container_id(text, len, id, sizeof(id));

	if (c->want) {
		if (rc != 0)
			fail_msg("%s: no id (%d)", c->name, rc);
		assert_string_equal(id, c->want);
	} else {
		if (rc != -ENOENT)
			fail_msg("%s: found \"%s\" (%d)", c->name, id, rc);
		assert_string_equal(id, "");
	}
}

static void test_container_ids_of_every_runtime(void **state)
{
	const struct cgroup_case short_id = { "63 digits", NULL, NULL };
	char text[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(&cases[i], cases[i].text, strlen(cases[i].text));
	snprintf(text, sizeof(text), "0::/docker/%.63s\n", ID);
	check(&short_id, text, strlen(text));
}

/* The parser reads len bytes, not to a NUL: a text cut inside the id
 * names none, and one cut just after it names it. */
static void test_container_id_reads_len_bytes_only(void **state)
{
	static const char text[] = "0::/docker/" ID "/more";
	const struct cgroup_case cut = { "cut inside the id", NULL, NULL };
	const struct cgroup_case whole = { "cut after the id", NULL, ID };
	char id[GS_CONTAINER_ID_LEN + 1];
	size_t at = strlen("0::/docker/") + GS_CONTAINER_ID_LEN;

	(void)state;
	check(&cut, text, at - 1);
	check(&whole, text, at);
	/* no room for the id and its NUL */
	assert_int_equal(gs_cgroup_container_id(text, sizeof(text) - 1, id, GS_CONTAINER_ID_LEN),
			 -ENOSPC);
}

static void test_this_process(void **state)
{
	struct gs_procinfo info;
	char exe[PATH_MAX], comm[16];
	ssize_t n;

	(void)state;
	/* a name of its own (under valgrind, comm is the tool's) */
	snprintf(comm, sizeof(comm), "gs-info-%d", (int)(getpid() % 10000));
	assert_int_equal(prctl(PR_SET_NAME, comm), 0);
	assert_int_equal(gs_procinfo_read(getpid(), &info), 0);
	assert_string_equal(info.comm, comm);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_string_equal(info.exe, exe);
	/* wherever the tests run: none, or an id */
	assert_true(info.container[0] == '\0' || strlen(info.container) == GS_CONTAINER_ID_LEN);
	assert_int_equal(gs_procinfo_read(0, &info), -EINVAL);
}

/* A process names itself as it likes; it is read raw, and once reaped it
 * is gone. */
static void test_a_child_that_names_itself_then_goes(void **state)
{
	static const char name[] = "\x1b[31m)(\xff";
	struct gs_procinfo info;
	int ready[2], status;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		(void)!write(ready[1], "r", 1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(gs_procinfo_read(pid, &info), 0);
	assert_string_equal(info.comm, name);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(gs_procinfo_read(pid, &info), -ENOENT);
	close(ready[0]);
	close(ready[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container_ids_of_every_runtime),
		cmocka_unit_test(test_container_id_reads_len_bytes_only),
		cmocka_unit_test(test_this_process),
		cmocka_unit_test(test_a_child_that_names_itself_then_goes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
