/* The interpreters the Python tests ask and how they are run (see
 * py_oracle.h). */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gs/python.h>

#include "py_oracle.h"
#include "pyenv_builds.h"

FILE *py_run(const char *python, const char *script, const char *args)
{
	char cmd[9000];

	snprintf(cmd, sizeof(cmd), "'%s' -I '%s/%s' %s", python, PY_SCRIPTS, script, args ? args : "");
	return popen(cmd, "r");
}

const char *py_interpreter(unsigned i, unsigned *minor)
{
	static char buf[4096];
	unsigned m, k = 0;

	for (m = GS_PY_MINOR_FIRST; m <= GS_PY_MINOR_LAST; m++) {
		const char *bin = pyenv_bin(m);

		if (!bin)
			continue;
		if (k++ == i) {
			*minor = m;
			snprintf(buf, sizeof(buf), "%s", bin);
			return buf;
		}
	}
	if (k == i && system_python311()) {
		*minor = 11;
		return system_python311();
	}
	return NULL;
}

int py_spawn(const char *python, const char *script, struct py_child *c)
{
	char path[4200];
	int to[2], from[2];

	snprintf(path, sizeof(path), "%s/%s", PY_SCRIPTS, script);
	if (pipe(to) != 0)
		return -1;
	if (pipe(from) != 0) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	c->pid = fork();
	if (c->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(python, python, "-I", path, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = to[1];
	c->out = fdopen(from[0], "r");
	return c->pid > 0 && c->out ? 0 : -1;
}

int py_child_end(struct py_child *c)
{
	int status = 0;

	close(c->in);
	fclose(c->out);
	if (waitpid(c->pid, &status, 0) != c->pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
