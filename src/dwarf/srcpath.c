/* Source paths as the line tables name them: a file name joined with the
 * unit's comp_dir and normalized, so that one file compiled from two
 * directories or named "a/./b" and "a/c/../b" is one path; and the match
 * of a path against what a user typed (the whole path or a suffix of it
 * after a "/"). Shared by `trace FILE:LINE` and the source-file index. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "dwv_int.h"

bool dwv_path_names(const char *file, const char *want)
{
	size_t fl, wl;

	if (!file)
		return false;
	if (strcmp(file, want) == 0)
		return true;
	fl = strlen(file);
	wl = strlen(want);
	return fl > wl && file[fl - wl - 1] == '/' && strcmp(file + fl - wl, want) == 0;
}

/* Appends one component to out[0..*o) (size bytes), applying "." and "..":
 * ".." removes the last component, except at the root (dropped) or after
 * a leading run of ".." in a relative path (kept). */
static int push_component(char *out, size_t size, size_t *o, bool abs, const char *c, size_t n)
{
	if (n == 0 || (n == 1 && c[0] == '.'))
		return 0;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		size_t root = abs ? 1 : 0, start = *o;

		while (start > root && out[start - 1] != '/')
			start--;
		bool up = *o - start == 2 && out[start] == '.' && out[start + 1] == '.';
		if (*o > root && !up) {
			*o = start > root ? start - 1 : start; /* and the '/' before it */
			return 0;
		}
		if (abs)
			return 0; /* "/.." is "/" */
	}
	if (*o + n + 2 > size)
		return -ENAMETOOLONG;
	if (*o > 0 && out[*o - 1] != '/')
		out[(*o)++] = '/';
	memcpy(out + *o, c, n);
	*o += n;
	return 0;
}

static int push_path(char *out, size_t size, size_t *o, bool abs, const char *p)
{
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		int rc = push_component(out, size, o, abs, p, n);

		if (rc)
			return rc;
		p += n + (slash != NULL);
	}
	return 0;
}

int dwv_src_path(const char *comp_dir, const char *name, char *out, size_t size)
{
	bool rel = name[0] != '/';
	bool abs = !rel || (comp_dir && comp_dir[0] == '/');
	size_t o = 0;
	int rc;

	if (size < 2)
		return -ENAMETOOLONG;
	if (abs)
		out[o++] = '/';
	if (rel && comp_dir && (rc = push_path(out, size, &o, abs, comp_dir)))
		return rc;
	if ((rc = push_path(out, size, &o, abs, name)))
		return rc;
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return (int)o;
}
