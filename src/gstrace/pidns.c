/* PID namespaces: the PID filter of a traced process and the namespace in
 * which $pid and $tid are seen (docs/protocol.md, "PID filter in a
 * namespace"; docs/cli.md, "PID namespaces"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base.h"
#include "launch.h"

#define INIT_PID_NS_INO 4026531836ull /* the initial PID namespace: PROC_PID_INIT_INO */

/* The pid of a process in its own PID namespace: the last NSpid field of
 * its status, or 0 when the kernel does not say. */
static uint32_t innermost_pid(pid_t pid)
{
	char path[64], line[256];
	uint32_t last = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *p = base_after_prefix(line, "NSpid:");
		char *end;

		if (!p)
			continue;
		for (unsigned long v; (v = strtoul(p, &end, 10)), end != p; p = end)
			last = (uint32_t)v;
		break;
	}
	fclose(f);
	return last;
}

/* The PID filter and the namespace of $pid/$tid. A target in a PID namespace
 * of its own (a container, `unshare --pid`) is filtered by its pid there, and
 * $pid/$tid show that namespace's numbers ($host_pid stays the host's). Else
 * the host TGID, or the TGID seen in our namespace when we do not run in the
 * initial one (-p numbers are ours). */
void cli_pid_filter(struct gs_program_opts *p, pid_t pid)
{
	struct stat self, target;
	char path[64];
	uint32_t inner;

	p->filter_pid = (uint32_t)pid;
	if (pid <= 0 || stat("/proc/self/ns/pid", &self) != 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &target) == 0 && (target.st_ino != self.st_ino ||
					 target.st_dev != self.st_dev) &&
	    (inner = innermost_pid(pid)) != 0) {
		p->filter_pid = inner;
		p->pid_ns_dev = target.st_dev;
		p->pid_ns_ino = target.st_ino;
		return;
	}
	if (self.st_ino != INIT_PID_NS_INO) {
		p->pid_ns_dev = self.st_dev;
		p->pid_ns_ino = self.st_ino;
	}
}
