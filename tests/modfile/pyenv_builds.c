/* Finding the CPython builds the Python tests run against (see
 * pyenv_builds.h). */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pyenv_builds.h"

static const char *first_match(const char *pattern, char *out, size_t size)
{
	glob_t g;
	const char *r = NULL;

	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
		snprintf(out, size, "%s", g.gl_pathv[0]);
		r = out;
	}
	globfree(&g);
	return r;
}

static const char *root(void)
{
	const char *r = getenv("PYENV_ROOT");

	return r && *r ? r : "/root/.pyenv";
}

const char *pyenv_lib(unsigned minor)
{
	static char buf[4096];
	char pat[4200];

	snprintf(pat, sizeof(pat), "%s/versions/3.%u.*/lib/libpython3.%u%s.so.1.0", root(), minor,
		 minor, minor < 8 ? "m" : "");
	return first_match(pat, buf, sizeof(buf));
}

const char *pyenv_bin(unsigned minor)
{
	static char buf[4096];
	char pat[4200];

	snprintf(pat, sizeof(pat), "%s/versions/3.%u.*/bin/python3.%u", root(), minor, minor);
	return first_match(pat, buf, sizeof(buf));
}

const char *system_python311(void)
{
	return access("/usr/bin/python3.11", X_OK) == 0 ? "/usr/bin/python3.11" : NULL;
}
