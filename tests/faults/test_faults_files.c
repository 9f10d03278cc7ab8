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

const struct e2e_scenario faults_files_scenarios[] = {
	{ "launch-fds", s_launch_fds, E2E_NEED_TRACING },
};
const size_t faults_files_nscenarios =
	sizeof(faults_files_scenarios) / sizeof(faults_files_scenarios[0]);
