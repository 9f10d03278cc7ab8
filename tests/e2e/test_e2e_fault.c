/* With the real gstrace: a `const char *` global pointing
 * into .rodata the process never touched prints the string gdb prints,
 * because the sleepable program faults its page in; without faults
 * (--fault-in off) the same read fails and leaves the page untouched; a
 * pointer into memory that is truly not there still reads as <read
 * error> at the address gdb cannot access. /proc/PID/pagemap shows the
 * page absent before and present after. Fixture: untouched_program. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

#define FIXTURE "untouched_program"
#define SCRIPT "trace untouched_probe { print \"S={:s} U={:s} C={:s}\", untouched_global, " \
	       "unmapped_global, untouched_crossing; }"
#define PAGEMAP_PRESENT (1ull << 63)

/* Whether addr's page is mapped in pid (a page table entry present or
 * swapped): -1 when pagemap cannot be read. */
static int page_mapped(pid_t pid, uint64_t addr)
{
	char path[64];
	uint64_t entry = 0;
	int fd;
	ssize_t got;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	got = pread(fd, &entry, sizeof(entry), (off_t)(addr / 4096 * sizeof(entry)));
	close(fd);
	if (got != (ssize_t)sizeof(entry))
		return -1;
	return (entry & (PAGEMAP_PRESENT | 1ull << 62)) != 0;
}

/* The text after `key` in s up to the end of its line, copied into out. */
static bool field(const char *s, const char *key, char *out, size_t size)
{
	const char *at = strstr(s, key);
	size_t len;

	if (!at)
		return false;
	at += strlen(key);
	len = strcspn(at, "\n");
	snprintf(out, size, "%.*s", (int)len, at);
	return true;
}

/* gdb's %s of the globals: the two strings, and the error for the other. */
static void gdb_strings(struct e2e_ctx *c, pid_t pid, char *str, size_t size, char *cross,
			char *err, size_t esize)
{
	static const char *const cmds[] = { "printf \"E2E-S=%s\\n\", untouched_global",
					     "printf \"E2E-C=%s\\n\", untouched_crossing",
					     "printf \"E2E-U=%s\\n\", unmapped_global", "detach" };
	char *argv[48], pidbuf[16];
	size_t n = e2e_gdb_print_argv(argv, pid, pidbuf, sizeof(pidbuf));
	struct e2e_run r;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(cmds); i++) {
		argv[n++] = "-ex";
		argv[n++] = (char *)cmds[i];
	}
	argv[n] = NULL;
	str[0] = cross[0] = err[0] = '\0';
	if (e2e_run_start(&r, argv)) {
		e2e_expect(c, false, "cannot start gdb");
		return;
	}
	e2e_run_finish(&r, 30000);
	e2e_note(c, "$ %s\n--- stdout\n%.2000s\n--- stderr\n%.2000s\n", e2e_buf_str(&r.cmdline),
		 e2e_buf_str(&r.out), e2e_buf_str(&r.err));
	e2e_expect(c, field(e2e_buf_str(&r.out), "E2E-S=", str, size),
		   "gdb printed no string for untouched_global");
	e2e_expect(c, field(e2e_buf_str(&r.out), "E2E-C=", cross, size),
		   "gdb printed no string for untouched_crossing");
	e2e_expect(c, field(e2e_buf_str(&r.err), "Cannot access memory at address ", err, esize),
		   "gdb read unmapped_global; it should be unmapped");
	e2e_run_free(&r);
}

static void trace(struct e2e_ctx *c, pid_t pid, const char *fault_in, struct e2e_run *r)
{
	struct e2e_trace tr = { .pid = pid, .script = SCRIPT, .output = "plain", .max_events = 1,
				.extra = { "--fault-in", fault_in, "--verbose" } };
	struct e2e_output out = { 0 };

	e2e_trace_run(c, &tr, r, &out);
	e2e_expect(c, e2e_run_exit_code(r) == 0, "--fault-in %s: exit %d", fault_in,
		   e2e_run_exit_code(r));
	e2e_output_free(&out);
}

static void s_untouched_rodata(struct e2e_ctx *c)
{
	struct e2e_fixture f;
	struct e2e_run off, on, dry;
	char s[256], u[256], gs[256], gc[256], gu[64], want[640];
	const char *addr;
	uint64_t str_addr;
	int lock;

	if (!e2e_fixture_start(&f, FIXTURE)) {
		e2e_expect(c, false, "fixture did not start");
		return;
	}
	lock = e2e_lock(FIXTURE, false);
	addr = strstr(e2e_buf_str(&f.out), "untouched 0x");
	str_addr = addr ? strtoull(addr + 10, NULL, 16) : 0;
	e2e_note(c, "untouched_global = 0x%" PRIx64 "\n", str_addr);
	if (!str_addr || page_mapped(f.pid, str_addr) != 0) {
		e2e_expect(c, false, "the string's page is %s before any probe: nothing to test",
			   str_addr ? "mapped" : "unknown");
		goto out;
	}

	/* Without faults: the read fails and the page stays out. */
	trace(c, f.pid, "off", &off);
	e2e_expect(c, field(e2e_buf_str(&off.out), "S=", s, sizeof(s)) &&
		   strncmp(s, "<read error: errno=-14", 22) == 0,
		   "--fault-in off read the untouched page (S=%s): the scenario tests nothing", s);
	e2e_expect(c, page_mapped(f.pid, str_addr) == 0, "--fault-in off mapped the page");

	/* The default faults it in, where the kernel has sleepable uprobes. */
	trace(c, f.pid, "auto", &on);
	if (strstr(e2e_buf_str(&on.err), "reads never fault (this kernel")) {
		c->skip = "this kernel has no sleepable uprobe programs (Linux 6.0+)";
		goto runs;
	}
	e2e_expect(c, strstr(e2e_buf_str(&on.err), "user memory: reads fault pages in") != NULL,
		   "--verbose does not say that reads fault pages in");
	e2e_expect(c, field(e2e_buf_str(&on.out), "S=", s, sizeof(s)), "no event");
	e2e_expect(c, page_mapped(f.pid, str_addr) == 1, "the page is still not mapped");
	gdb_strings(c, f.pid, gs, sizeof(gs), gc, gu, sizeof(gu));
	field(e2e_buf_str(&on.out), "U=", u, sizeof(u));
	snprintf(want, sizeof(want), "%s U=<read error: errno=-14 at %s> C=%s", gs, gu, gc);
	e2e_expect(c, strcmp(gs, "hello-global") == 0, "gdb printed \"%s\"", gs);
	e2e_expect(c, strcmp(gc, "cross-page") == 0, "gdb printed \"%s\"", gc);
	e2e_expect(c, strcmp(s, want) == 0, "gstrace printed S=%s, want S=%s (gdb: \"%s\", "
		   "cannot access %s)", s, want, gs, gu);

	{
		struct e2e_trace tr = { .pid = f.pid, .script = SCRIPT, .extra = { "--dry-run" } };
		struct e2e_output out = { 0 };

		e2e_trace_run(c, &tr, &dry, &out);
		e2e_expect(c, strstr(e2e_buf_str(&dry.out), "user memory: faults pages in") != NULL,
			   "--dry-run does not say that reads fault pages in");
		e2e_output_free(&out);
		e2e_run_free(&dry);
	}
runs:
	e2e_run_free(&on);
	e2e_run_free(&off);
out:
	e2e_unlock(lock);
	e2e_fixture_stop(&f);
}

const struct e2e_scenario e2e_fault_scenarios[] = {
	{ "untouched-rodata", s_untouched_rodata, E2E_NEED_TRACING | E2E_NEED_GDB },
};
const size_t e2e_fault_nscenarios = BASE_ARRAY_SIZE(e2e_fault_scenarios);
