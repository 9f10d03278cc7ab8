/* Helpers of the runtime tests (see rt_fixture.h). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_fixture.h"

char *rt_path(const char *name, char *buf, size_t size)
{
	const char *dir = getenv("GS_RT_FIXTURES");

	snprintf(buf, size, "%s/%s", dir ? dir : ".", name);
	return buf;
}

char *rt_run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *out = NULL;
	size_t len = 0, cap = 0, n;

	if (!p)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *nv;

			cap = cap ? 2 * cap : 65536;
			nv = realloc(out, cap);
			if (!nv) {
				free(out);
				pclose(p);
				return NULL;
			}
			out = nv;
		}
		n = fread(out + len, 1, cap - len - 1, p);
		len += n;
	} while (n > 0);
	out[len] = '\0';
	pclose(p);
	return out;
}

bool rt_nm(const char *file, const char *sym, bool dynamic, uint64_t *value)
{
	char cmd[1024], *out, *line, *save = NULL;
	bool found = false;

	snprintf(cmd, sizeof(cmd), "nm %s '%s' 2>/dev/null", dynamic ? "-D" : "", file);
	out = rt_run(cmd);
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char type, name[256];
		uint64_t v;

		if (sscanf(line, "%" SCNx64 " %c %255s", &v, &type, name) == 3 &&
		    (type == 'T' || type == 't') && strcmp(name, sym) == 0) {
			*value = v;
			found = true;
		}
	}
	free(out);
	return found;
}

bool rt_addr2line(const char *file, uint64_t addr, char *buf, size_t size)
{
	char cmd[1024], *out;
	bool ok;

	snprintf(cmd, sizeof(cmd), "addr2line -s -e '%s' 0x%" PRIx64, file, addr);
	out = rt_run(cmd);
	ok = out && out[0] && out[0] != '?';
	if (ok) {
		out[strcspn(out, " \n")] = '\0';
		snprintf(buf, size, "%s", out);
	}
	free(out);
	return ok;
}

bool rt_objdump_bytes(const char *file, uint64_t addr, uint8_t *out, size_t n)
{
	char cmd[1024], *text, *line, *save = NULL;
	size_t got = 0;

	snprintf(cmd, sizeof(cmd), "objdump -d --start-address=0x%" PRIx64
		 " --stop-address=0x%" PRIx64 " '%s'", addr, addr + n + 16, file);
	text = rt_run(cmd);
	/* Lines "  1139:\t55                   \tpush   %rbp". */
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && got < n;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t'), *p;

		if (!tab || !strchr(line, ':') || strchr(line, ':') > tab)
			continue;
		p = tab + 1;
		while (got < n) {
			unsigned v;
			int used;

			while (*p == ' ')
				p++;
			if (*p == '\t' || !*p)
				break; /* the mnemonic follows the bytes after a tab */
			if (sscanf(p, "%2x%n", &v, &used) != 1 || used != 2 ||
			    (p[2] != ' ' && p[2] != '\t' && p[2]))
				break;
			out[got++] = (uint8_t)v;
			p += 2;
		}
	}
	free(text);
	return got == n;
}

int rt_source_line(const char *marker)
{
	const char *src = getenv("GS_SOURCE_DIR");
	char path[1024], line[1024];
	FILE *f;
	int n = 0, found = 0;

	snprintf(path, sizeof(path), "%s/tests/runtime/fixtures/rt_loop.c", src ? src : ".");
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker))
			found = n;
	}
	if (f)
		fclose(f);
	return found;
}

bool rt_spawn(const char *prog, struct rt_child *c)
{
	int in[2], out[2];
	char line[256];

	memset(c, 0, sizeof(*c));
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return false;
	c->pid = fork();
	if (c->pid < 0)
		return false;
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = fdopen(in[1], "w");
	c->out = fdopen(out[0], "r");
	return c->in && c->out && fgets(line, sizeof(line), c->out) && strcmp(line, "ready\n") == 0;
}

bool rt_command(struct rt_child *c, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vfprintf(c->in, fmt, ap);
	va_end(ap);
	fputc('\n', c->in);
	fflush(c->in);
	return fgets(line, sizeof(line), c->out) && strcmp(line, "done\n") == 0;
}

void rt_stop(struct rt_child *c)
{
	int status;

	if (c->in)
		fclose(c->in);
	if (c->out)
		fclose(c->out);
	if (c->pid > 0 && waitpid(c->pid, &status, 0) != c->pid)
		kill(c->pid, SIGKILL);
	memset(c, 0, sizeof(*c));
}

int rt_resolve(const char *input, const struct gs_resolve_opts *o, struct gs_target *t,
	       struct gs_error *err)
{
	struct gs_target_pattern *pat;
	int rc = gs_target_pattern_parse(input, &pat, err);

	if (rc) {
		memset(t, 0, sizeof(*t));
		return rc;
	}
	rc = gs_target_resolve(pat, o, t, err);
	free(pat);
	return rc;
}
