/* The interpreters the Python tests ask and how they are run (see
 * py_oracle.h). */
#include <stdio.h>

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
