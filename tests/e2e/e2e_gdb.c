/* gdb as the ground truth: attach to a fixture, stop at a function or
 * file:line, `bt` past main plus each frame's $pc (an inlined frame has the
 * pc of the frame that follows it, a function of its own), detach so the
 * fixture runs on. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "e2e.h"

#define PCS_MARK "E2E-GDB-PCS"

/* "#3  0x000055.. in hot_bt_probe (...) at f.c:52" or "#0  add3 (...) at ..."
 * or "#7  0x.. in ?? () from /lib/x86_64-linux-gnu/libc.so.6". */
static bool parse_bt_line(const char *line, struct e2e_gdb_frame *f)
{
	const char *p = line + 1, *from;
	size_t n;

	if (line[0] != '#' || line[1] < '0' || line[1] > '9')
		return false;
	p += strspn(p, "0123456789");
	p += strspn(p, " ");
	if (strncmp(p, "0x", 2) == 0 && strstr(p, " in ")) {
		p = strstr(p, " in ") + 4;
	}
	/* "<signal handler called>": gdb's name for a signal trampoline */
	n = p[0] == '<' && strchr(p, '>') ? (size_t)(strchr(p, '>') - p) + 1 : strcspn(p, " (");
	snprintf(f->func, sizeof(f->func), "%.*s", (int)n, p);
	f->has_line = strstr(p, ") at ") != NULL;
	from = strstr(p, ") from ");
	if (from) {
		const char *base = strrchr(from + 7, '/');

		snprintf(f->from, sizeof(f->from), "%s", base ? base + 1 : from + 7);
		f->from[strcspn(f->from, " \n")] = '\0';
	}
	return true;
}

static void parse_gdb(struct e2e_gdb_bt *g)
{
	const char *s = e2e_buf_str(&g->text);
	const char *pcs = strstr(s, PCS_MARK "\n");
	size_t npc = 0;

	g->n = 0;
	/* the bt lines: from the first "#0  " line up to the marker */
	for (const char *line = s; *line && (!pcs || line < pcs);) {
		size_t len = strcspn(line, "\n");

		if (line[0] == '#' && g->n < BASE_ARRAY_SIZE(g->f)) {
			char *one = strndup(line, len);
			struct e2e_gdb_frame f = { 0 };

			if (parse_bt_line(one, &f)) {
				if (strncmp(one, "#0 ", 3) == 0)
					g->n = 0; /* a bt before this one */
				g->f[g->n++] = f;
			}
			free(one);
		}
		line += len + (line[len] == '\n');
	}
	if (!pcs)
		return;
	for (const char *line = pcs; *line;) {
		size_t len = strcspn(line, "\n");
		uint64_t pc;

		if (line[0] == '$' && strstr(line, " = 0x") && npc < g->n &&
		    sscanf(strstr(line, " = 0x") + 5, "%" SCNx64, &pc) == 1)
			g->f[npc++].pc = pc;
		line += len + (line[len] == '\n');
	}
	/* A recursion repeats the pc of one call site frame after frame: only a
	 * different function at the same pc was inlined there. */
	for (size_t i = 0; i + 1 < npc; i++)
		g->f[i].inline_frame = g->f[i].pc == g->f[i + 1].pc &&
				       strcmp(g->f[i].func, g->f[i + 1].func) != 0;
}

bool e2e_gdb_backtrace(pid_t pid, const char *location, struct e2e_gdb_bt *g, struct e2e_buf *why)
{
	char pidstr[16], brk[256];
	char *argv[] = {
		"/usr/bin/env", "gdb", "-nx", "-batch",
		"-iex", "set debuginfod enabled off",
		"-iex", "set pagination off",
		"-iex", "set width 0",
		"-iex", "set confirm off",
		"-iex", "set print frame-arguments none",
		"-iex", "set backtrace past-main on",
		/* the signal fixtures' timers: run the handler, do not stop */
		"-iex", "handle SIGUSR1 nostop noprint pass",
		"-iex", "handle SIGALRM nostop noprint pass",
		/* a function of a library the fixture dlopens later */
		"-iex", "set breakpoint pending on",
		"-p", pidstr,
		"-ex", brk,
		"-ex", "continue",
		"-ex", "bt " E2E_MAX_FRAMES_TEXT,
		"-ex", "echo " PCS_MARK "\\n",
		"-ex", "frame apply all -q p/x $pc",
		"-ex", "delete",
		"-ex", "detach",
		NULL,
	};
	struct e2e_run r;
	bool ok;

	memset(g, 0, sizeof(*g));
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	snprintf(brk, sizeof(brk), "break %s", location);
	if (e2e_run_start(&r, argv)) {
		e2e_buf_printf(why, "cannot start gdb\n");
		return false;
	}
	ok = e2e_run_finish(&r, 30000);
	e2e_buf_add(&g->text, e2e_buf_str(&r.out), r.out.len);
	e2e_buf_add(&g->text, e2e_buf_str(&r.err), r.err.len);
	parse_gdb(g);
	if (!ok || !strstr(e2e_buf_str(&r.out), "Breakpoint 1, ") || g->n == 0) {
		e2e_buf_printf(why, "gdb did not stop at %s in pid %d (%s, exit %d):\n%s\n",
			       location, (int)pid, ok ? "exited" : "timed out",
			       e2e_run_exit_code(&r), e2e_buf_str(&g->text));
		e2e_run_free(&r);
		return false;
	}
	e2e_run_free(&r);
	return true;
}

void e2e_gdb_free(struct e2e_gdb_bt *g)
{
	e2e_buf_free(&g->text);
	g->n = 0;
}

bool e2e_gdb_run_batch(struct e2e_ctx *c, char **argv, size_t n, struct e2e_run *run)
{
	argv[n++] = "-ex";
	argv[n++] = "echo @@END\\n";
	argv[n++] = "-ex";
	argv[n++] = "detach";
	argv[n] = NULL;
	if (e2e_run_start(run, argv)) {
		e2e_expect(c, false, "cannot start gdb");
		return false;
	}
	e2e_run_finish(run, 120000);
	return true;
}

size_t e2e_gdb_print_argv(char **argv, pid_t pid, char *pidbuf, size_t size)
{
	static const char *const settings[] = {
		"set debuginfod enabled off", "set pagination off", "set width 0",
		"set confirm off", "set print pretty off", "set print repeats unlimited",
		"set print elements unlimited", "set print null-stop on",
		"set print symbol off", "set print union on", "set print frame-arguments none",
	};
	size_t n = 0;

	snprintf(pidbuf, size, "%d", (int)pid);
	argv[n++] = "/usr/bin/env";
	argv[n++] = "gdb";
	argv[n++] = "-nx";
	argv[n++] = "-batch";
	for (size_t i = 0; i < BASE_ARRAY_SIZE(settings); i++) {
		argv[n++] = "-iex";
		argv[n++] = (char *)settings[i];
	}
	argv[n++] = "-p";
	argv[n++] = pidbuf;
	return n;
}
