/* Which file a target names, read from /proc: a process's executable
 * (the path this process can name it by, checked against /proc/PID/exe)
 * and the module a process maps whose path ends in a given name. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "mf_int.h"

/* The executable of pid: a path naming it here (the one it was run as, else
 * that path under the process's root) and its identity from /proc/PID/exe.
 * A path counts only when stat shows a regular file with the same device
 * and inode: the process controls what its mount namespace shows there. */
int mf_proc_exe(pid_t pid, char **path, struct stat *exe, struct gs_error *err)
{
	char link[64], target[PATH_MAX], norm[PATH_MAX], rooted[PATH_MAX + 64];
	struct stat st;
	ssize_t n;

	*path = NULL;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0 || stat(link, exe) != 0) {
		int code = -errno;

		return gs_errorf(err, code, "cannot read the executable of pid %d (%s): %s",
				 (int)pid, link, code == -ENOENT ? "no such process; check the pid"
				 : code == -EACCES || code == -EPERM ? "permission denied; run as root"
				 : strerror(-code));
	}
	target[n] = '\0';
	if (mf_path_normalize(target, norm, sizeof(norm)) < 0)
		return gs_errorf(err, -ENAMETOOLONG, "the executable path of pid %d is too long",
				 (int)pid);
	snprintf(rooted, sizeof(rooted), "/proc/%d/root%s", (int)pid, norm);
	if (stat(norm, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == exe->st_dev &&
	    st.st_ino == exe->st_ino) {
		*path = strdup(norm);
	} else if (stat(rooted, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == exe->st_dev &&
		   st.st_ino == exe->st_ino) {
		*path = strdup(rooted);
	} else if (stat(rooted, &st) == 0) {
		return gs_errorf(err, -ESTALE, "the executable of pid %d (%s) is not the file its "
				 "mount namespace shows there (%s): give its path with -t", (int)pid,
				 norm, S_ISREG(st.st_mode) ? "another file" : "not a regular file");
	} else {
		return gs_errorf(err, -ENOENT, "the executable of pid %d (%s) is not reachable "
				 "(deleted or in another mount namespace); give its path with -t",
				 (int)pid, norm);
	}
	return *path ? 0 : gs_errorf(err, -ENOMEM, "out of memory");
}

int gs_proc_exe(pid_t pid, char **path, struct gs_error *err)
{
	struct stat exe;

	return mf_proc_exe(pid, path, &exe, err);
}

/* `name` names `path`: equal, or a suffix after '/'. */
static bool path_matches(const char *path, const char *name)
{
	size_t pl = strlen(path), nl = strlen(name);

	return strcmp(path, name) == 0 ||
	       (pl > nl && path[pl - nl - 1] == '/' && strcmp(path + pl - nl, name) == 0);
}

/* The module `name` of `module:0xADDR`: an existing path, else the one
 * module the process maps whose path ends in it. */
int mf_find_module(const char *input, const char *name, pid_t pid, struct gs_modfiles *files,
		   char **out, struct gs_error *err)
{
	struct gs_proc_modules mods;
	const struct gs_proc_module *hit = NULL;
	size_t nhits = 0;
	int rc;

	*out = NULL;
	if (!pid || (strchr(name, '/') && access(name, F_OK) == 0)) {
		if (access(name, F_OK) != 0)
			return gs_errorf(err, -ENOENT, "`%s`: module %s does not exist; give its "
					 "path%s", input, name, pid ? "" : ", or -p PID to find it "
					 "among the libraries a process maps");
		*out = strdup(name);
		return *out ? 0 : -ENOMEM;
	}
	rc = gs_proc_modules_load(pid, files, &mods, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < mods.n; i++)
		if (path_matches(mods.v[i].path, name)) {
			hit = &mods.v[i];
			nhits++;
		}
	if (nhits == 1)
		*out = strdup(hit->open_path);
	gs_proc_modules_free(&mods);
	if (nhits == 0)
		return gs_errorf(err, -ENOENT, "`%s`: pid %d maps no module %s; give its full path "
				 "(see /proc/%d/maps)", input, (int)pid, name, (int)pid);
	if (nhits > 1)
		return gs_errorf(err, -EINVAL, "`%s`: %s matches %zu modules of pid %d; give more "
				 "of the path", input, name, nhits, (int)pid);
	return *out ? 0 : -ENOMEM;
}

