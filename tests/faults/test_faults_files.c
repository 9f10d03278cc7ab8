/* gstrace's own files under attack: descriptors that must not reach a
 * launched command, output paths planted as symbolic links or as another
 * user's files in a sticky directory, and a cache directory that another
 * user can write. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "faults.h"

#define NOBODY 65534

/* A scratch directory of ours under /tmp, removed with everything in it. */
static bool scratch(char *dir, size_t size)
{
	snprintf(dir, size, "/tmp/gs-faults-files-XXXXXX");
	return mkdtemp(dir) != NULL;
}

static void scratch_remove(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* The whole (small) file, or "" when it cannot be read. */
static void slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* A command launched with -o and --flamegraph open sees stdin, stdout and
 * stderr only: none of gstrace's files, maps or links reach it (an
 * unprivileged command would write into root's output). */
static void s_launch_fds(struct e2e_ctx *c)
{
	char dir[64], out[PATH_MAX], svg[PATH_MAX], text[4096];
	struct e2e_run r;

	if (!scratch(dir, sizeof(dir))) {
		e2e_expect(c, false, "cannot make a scratch directory");
		return;
	}
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(svg, sizeof(svg), "%s/out.svg", dir);
	if (faults_gstrace_start(c, &r, (const char *const[]){
		    "-o", out, "--flamegraph", svg, "-s",
		    "trace fault_tick { print \"tick {}\", rdi; bt; }", "--",
		    e2e_fixture_path("fault_target"), "fds", NULL })) {
		faults_finish(c, &r, 30000);
		faults_expect_exit(c, &r, 0, NULL);
		e2e_expect(c, strstr(e2e_buf_str(&r.out), "\nfds 0 1 2\n") != NULL,
			   "the command was started with other descriptors than 0 1 2: %s",
			   e2e_buf_str(&r.out));
		slurp(out, text, sizeof(text));
		e2e_expect(c, strstr(text, "tick ") != NULL, "no event in %s: %s", out, text);
		e2e_run_free(&r);
	}
	scratch_remove(dir);
}

/* A scratch directory made sticky and world-writable, as /tmp is. */
static bool sticky_scratch(struct e2e_ctx *c, char *dir, size_t size)
{
	if (scratch(dir, size) && chmod(dir, 01777) == 0)
		return true;
	e2e_expect(c, false, "cannot make a sticky scratch directory");
	return false;
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "we");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, mode);
}

static void expect_text(struct e2e_ctx *c, const char *path, const char *want)
{
	char text[4096];

	slurp(path, text, sizeof(text));
	e2e_expect(c, strcmp(text, want) == 0, "%s was changed: '%s'", path, text);
}

/* Another user plants a symbolic link to root's file where root writes
 * -o or --flamegraph: refused with the reason, the file left as it was. */
static void s_output_symlink(struct e2e_ctx *c)
{
	static const char *const o_needles[] = { "-o ", "is a symbolic link", "real path",
						  NULL };
	static const char *const f_needles[] = { "--flamegraph ", "is a symbolic link", NULL };
	char dir[64], secret[PATH_MAX], link[PATH_MAX];

	if (!sticky_scratch(c, dir, sizeof(dir)))
		return;
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(link, sizeof(link), "%s/out.svg", dir);
	write_text(secret, "root only\n", 0600);
	if (symlink(secret, link) != 0 ||
	    lchown(link, NOBODY, NOBODY) != 0) {
		e2e_expect(c, false, "cannot plant the link: %s", strerror(errno));
	} else {
		faults_run_refused(c, (const char *const[]){
			"-t", e2e_fixture_path("fault_target"), "-o", link, "-s",
			"trace fault_tick { print \"x\"; }", NULL }, 2, o_needles);
		faults_run_refused(c, (const char *const[]){
			"-t", e2e_fixture_path("fault_target"), "--flamegraph", link, "-s",
			"trace fault_tick { bt; }", NULL }, 2, f_needles);
		expect_text(c, secret, "root only\n");
	}
	scratch_remove(dir);
}

/* A file of another user in a sticky directory (protected_regular's
 * case, whatever the sysctl says here): refused, and not emptied. */
static void s_output_foreign_file(struct e2e_ctx *c)
{
	static const char *const needles[] = { "-o ", "belongs to uid 65534",
					       "sticky directory", NULL };
	char dir[64], theirs[PATH_MAX];

	if (!sticky_scratch(c, dir, sizeof(dir)))
		return;
	snprintf(theirs, sizeof(theirs), "%s/out.txt", dir);
	write_text(theirs, "nobody's\n", 0666);
	if (chown(theirs, NOBODY, NOBODY) != 0)
		e2e_expect(c, false, "cannot chown %s: %s", theirs, strerror(errno));
	else
		faults_run_refused(c, (const char *const[]){
			"-t", e2e_fixture_path("fault_target"), "-o", theirs, "-s",
			"trace fault_tick { print \"x\"; }", NULL }, 2, needles);
	expect_text(c, theirs, "nobody's\n");
	scratch_remove(dir);
}

/* A regular file of our own in the same kind of directory is written:
 * emptied first, then the events. */
static void s_output_own_file(struct e2e_ctx *c)
{
	char dir[64], out[PATH_MAX], pid[16], text[8192];
	struct faults_objects o = { 0 };
	struct e2e_run fx, r;

	if (!sticky_scratch(c, dir, sizeof(dir)))
		return;
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	write_text(out, "a previous run\n", 0644);
	if (faults_loop_start(c, &fx, pid, sizeof(pid))) {
		if (faults_gstrace_start(c, &r, (const char *const[]){
			    "-p", pid, "-o", out, "--max-events", "2", "-s",
			    "trace fault_tick { print \"tick {}\", rdi; }", NULL })) {
			faults_wait_ready(c, &r, &o, 20000);
			faults_finish(c, &r, 20000);
			faults_expect_exit(c, &r, 0, NULL);
			faults_expect_released(c, &o);
			faults_objects_free(&o);
			e2e_run_free(&r);
		}
		faults_fixture_stop(&fx);
	}
	slurp(out, text, sizeof(text));
	e2e_expect(c, strstr(text, "tick ") != NULL && !strstr(text, "previous"),
		   "%s holds: %s", out, text);
	scratch_remove(dir);
}

static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

static size_t entries(const char *dir)
{
	char cmd[PATH_MAX + 32], buf[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	if ((p = popen(cmd, "r"))) {
		if (!fgets(buf, sizeof(buf), p))
			buf[0] = '\0';
		pclose(p);
	}
	return strtoul(buf, NULL, 10);
}

/* One launched run with a backtrace (rows and debug files go through the
 * cache): exit 0 and its event; stderr for the caller. */
static bool cached_run(struct e2e_ctx *c, struct e2e_run *r)
{
	if (!faults_gstrace_start(c, r, (const char *const[]){
		    "-s", "trace fault_tick { print \"tick {}\", rdi; bt; }", "--",
		    e2e_fixture_path("fault_target"), "fds", NULL }))
		return false;
	faults_finish(c, r, 30000);
	faults_expect_exit(c, r, 0, NULL);
	e2e_expect(c, strstr(e2e_buf_str(&r->out), "tick ") != NULL, "no event");
	return true;
}

/* `sudo -E` with $XDG_CACHE_HOME in a directory others can write: a
 * cache directory they can write is not used (one notice naming it, why
 * and the fix; the run goes on without it); one that gstrace creates
 * there itself is 0700 and used. */
static void s_cache_dir_unsafe(struct e2e_ctx *c)
{
	char xdg[64], cfi[PATH_MAX];
	struct e2e_run r;
	struct stat st;

	if (!sticky_scratch(c, xdg, sizeof(xdg)))
		return;
	unsetenv("GSTRACE_CFI_CACHE");
	unsetenv("GSTRACE_CACHE_DIR");
	setenv("XDG_CACHE_HOME", xdg, 1);
	snprintf(cfi, sizeof(cfi), "%s/gstrace", xdg);
	mkdir(cfi, 0700);
	snprintf(cfi, sizeof(cfi), "%s/gstrace/cfi", xdg);
	if (mkdir(cfi, 0700) != 0 || chmod(cfi, 0777) != 0) {
		e2e_expect(c, false, "cannot make %s", cfi);
	} else if (cached_run(c, &r)) {
		const char *err = e2e_buf_str(&r.err);

		e2e_expect(c, count_of(err, "notice: running without the on-disk cache") == 1,
			   "not one notice about the cache directory");
		e2e_expect(c, strstr(err, cfi) && strstr(err, "writable by others") &&
			   strstr(err, "chmod 700") && strstr(err, "GSTRACE_CACHE_DIR"),
			   "the notice does not name the directory, why and the fix");
		e2e_expect(c, entries(cfi) == 0, "%zu files were written into %s", entries(cfi),
			   cfi);
		e2e_run_free(&r);
	}
	/* absent: created 0700 and filled, without a word */
	rmdir(cfi);
	if (cached_run(c, &r)) {
		e2e_expect(c, !strstr(e2e_buf_str(&r.err), "notice"), "a notice about a cache "
			   "directory gstrace made itself");
		e2e_expect(c, stat(cfi, &st) == 0 && (st.st_mode & 07777) == 0700 &&
			   st.st_uid == geteuid(), "%s was not created 0700", cfi);
		e2e_expect(c, entries(cfi) > 0, "nothing was cached in %s", cfi);
		e2e_run_free(&r);
	}
	scratch_remove(xdg);
}

const struct e2e_scenario faults_files_scenarios[] = {
	{ "launch-fds", s_launch_fds, E2E_NEED_TRACING },
	{ "output-symlink", s_output_symlink, 0 },
	{ "output-foreign-file", s_output_foreign_file, 0 },
	{ "output-own-file", s_output_own_file, E2E_NEED_TRACING },
	{ "cache-dir-unsafe", s_cache_dir_unsafe, E2E_NEED_TRACING },
};
const size_t faults_files_nscenarios = BASE_ARRAY_SIZE(faults_files_scenarios);
