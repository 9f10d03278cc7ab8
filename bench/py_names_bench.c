/* Naming Python frames in user space: a live interpreter holding 10,000
 * distinct code objects, each named with its line once from a cold cache
 * (four process_vm_readv per code object), then again from a warm one
 * (one check read each). The interpreter is the newest pyenv python found,
 * else the system's python3. */
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gs/python.h>

#define COUNT 10000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The newest pyenv python3.X, else python3 on the PATH's usual place. */
static const char *interpreter(char *buf, size_t size)
{
	unsigned m;

	for (m = GS_PY_MINOR_LAST; m >= GS_PY_MINOR_FIRST; m--) {
		char pat[256];
		glob_t g;

		snprintf(pat, sizeof(pat), "/root/.pyenv/versions/3.%u.*/bin/python3.%u", m, m);
		if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
			snprintf(buf, size, "%s", g.gl_pathv[0]);
			globfree(&g);
			return buf;
		}
		globfree(&g);
	}
	return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : NULL;
}

/* The module holding pid's interpreter: a mapped libpython, else its exe. */
static void module_of(pid_t pid, char *out, size_t size)
{
	char path[64], line[4608];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libpython3.")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(out, size, "%s", p);
			fclose(f);
			return;
		}
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	snprintf(out, size, "%s", path);
}

/* A frame a few instructions into code, as the wire carries it, so each
 * name also computes a line from the table. */
static uint64_t instr_of(const struct gs_py_layout *l, uint64_t code)
{
	if (l->walk.style == GS_PY_STYLE_FRAME_OBJECT)
		return l->minor >= 10 ? 4 : 8;
	return code + l->code_adaptive + 8;
}

static double name_all(struct gs_py_namer *n, pid_t pid, const struct gs_py_layout *l,
		       const uint64_t *codes, size_t count)
{
	struct gs_py_name name;
	struct gs_error err;
	double t0 = now_s();
	size_t i;

	for (i = 0; i < count; i++)
		if (gs_py_name(n, pid, l, codes[i], instr_of(l, codes[i]), &name, &err) != 0) {
			fprintf(stderr, "py_names_bench: %s\n", err.msg);
			return -1;
		}
	return now_s() - t0;
}

int main(void)
{
	static uint64_t codes[COUNT];
	char python[4096], module[4608], line[64];
	int to[2], from[2];
	struct gs_py_module m;
	struct gs_py_layout l;
	struct gs_error err;
	struct gs_py_namer *n;
	size_t count = 0;
	double cold, warm;
	FILE *out;
	pid_t pid;

	if (!interpreter(python, sizeof(python))) {
		printf("# skipped: bt.python.user_ms.names_per_s: no python installed\n");
		return 0;
	}
	if (pipe(to) || pipe(from))
		return 1;
	pid = fork();
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(python, python, "-I", GS_BENCH_PY_SCRIPT, "10000", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	out = fdopen(from[0], "r");
	while (count < COUNT && fgets(line, sizeof(line), out) && strcmp(line, "READY\n") != 0)
		codes[count++] = strtoull(line, NULL, 10);
	module_of(pid, module, sizeof(module));
	if (count < COUNT || gs_py_identify(module, &m, &err) != 0 ||
	    gs_py_layout_get(module, m.minor, &l, NULL, &err) != 0) {
		printf("# skipped: bt.python.user_ms.names_per_s: %s\n",
		       count < COUNT ? "the interpreter made too few code objects" : err.msg);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 0;
	}
	n = gs_py_namer_new();
	cold = name_all(n, pid, &l, codes, count);
	warm = name_all(n, pid, &l, codes, count);
	gs_py_namer_free(n);
	close(to[1]);
	fclose(out);
	waitpid(pid, NULL, 0);
	if (cold <= 0 || warm <= 0)
		return 1;
	printf("# python 3.%u (%s), %zu distinct code objects\n", m.minor, module, count);
	printf("BENCH bt.python.user_ms.names_per_s %.0f names/s\n", count / cold);
	printf("BENCH bt.python.user_ms.names_per_s.warm %.0f names/s\n", count / warm);
	return 0;
}
