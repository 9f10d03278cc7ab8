/* Messages are whole at any path length: the fixtures,
 * copied into a directory whose path is 200 bytes long, are refused with
 * sentences that name the file in full and end with their fix (a 512-byte
 * message buffer cut the CFI refusal at "... rebuild it, or drop the "):
 * a corrupt FDE under `bt`, a corrupt .eh_frame, an unknown function
 * (the path twice), -o into a directory that is not there, -t of a file
 * that is not there. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "faults.h"

#define LONG_DIR 200

/* dir: a new directory whose path is LONG_DIR bytes, made of components
 * under a fresh /tmp directory (*depth of them below it). */
static bool make_long_dir(char *dir, size_t size, int *depth)
{
	size_t n;

	snprintf(dir, size, "/tmp/gs-faults-XXXXXX");
	if (!mkdtemp(dir))
		return false;
	*depth = 0;
	while ((n = strlen(dir)) < LONG_DIR) {
		size_t part = LONG_DIR - n - 1 < 60 ? LONG_DIR - n - 1 : 60;

		if (part == 0)
			part = 1; /* never: a component needs a byte and its '/' */
		dir[n] = '/';
		memset(dir + n + 1, 'a' + *depth % 26, part);
		dir[n + 1 + part] = '\0';
		if (mkdir(dir, 0755))
			return false;
		++*depth;
	}
	return strlen(dir) == LONG_DIR;
}

static bool copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[65536];
	size_t n;
	bool ok = in && out;

	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	if (in)
		fclose(in);
	if (out)
		ok = fclose(out) == 0 && ok;
	return ok && chmod(to, 0755) == 0;
}

/* Refused with exit 2, the message naming path whole and ending with fix
 * (the end of its line: the script's excerpt or nothing follows). */
static void refused(struct e2e_ctx *c, const char *const *args, const char *path,
		    const char *fix)
{
	char end[256];

	snprintf(end, sizeof(end), "%s\n", fix);
	faults_run_refused(c, args, 2, (const char *const[]){ path, end, NULL });
}

static void s_messages_long_path(struct e2e_ctx *c)
{
	char dir[1024], hostile[PATH_MAX], corrupt[PATH_MAX], target[PATH_MAX];
	char out[PATH_MAX], gone[PATH_MAX];
	int depth = 0;

	if (!make_long_dir(dir, sizeof(dir), &depth)) {
		e2e_expect(c, false, "cannot make a directory of %d bytes", LONG_DIR);
		return;
	}
	snprintf(hostile, sizeof(hostile), "%s/hostile_cfi", dir);
	snprintf(corrupt, sizeof(corrupt), "%s/fault_target_corrupt", dir);
	snprintf(target, sizeof(target), "%s/fault_target", dir);
	snprintf(out, sizeof(out), "%s/no-such-dir/out.txt", dir);
	snprintf(gone, sizeof(gone), "%s/no-such-file", dir);
	if (!copy_file(e2e_fixture_path("hostile_cfi"), hostile) ||
	    !copy_file(e2e_fixture_path("fault_target"), target) || !faults_corrupt_copy(corrupt)) {
		e2e_expect(c, false, "cannot copy the fixtures into %s", dir);
	} else {
		refused(c, (const char *const[]){ "-t", hostile, "--dry-run", "-s",
						  "trace cfi_hostile_1 { bt; }", NULL },
			hostile, "the file is damaged or hostile: rebuild it, or drop the bt");
		refused(c, (const char *const[]){ "-t", corrupt, "--dry-run", "-s",
						  "trace fault_tick { bt; }", NULL },
			corrupt, "the file is damaged (reinstall or rebuild it) or drop the bt");
		refused(c, (const char *const[]){ "-t", target, "--dry-run", "-s",
						  "trace no_such_function { print \"x\"; }", NULL },
			target, "lists its symbols) or give module:0xADDR");
		refused(c, (const char *const[]){ "-t", target, "--dry-run", "-o", out, "-s",
						  "trace fault_tick { print \"x\"; }", NULL },
			out, "check the directory and permissions");
		refused(c, (const char *const[]){ "-t", gone, "--dry-run", "-s",
						  "trace fault_tick { print \"x\"; }", NULL },
			gone, "give the path of an executable or a shared library");
	}
	unlink(hostile);
	unlink(corrupt);
	unlink(target);
	for (int i = 0; i <= depth; i++) {
		rmdir(dir);
		*strrchr(dir, '/') = '\0';
	}
}

const struct e2e_scenario faults_messages_scenarios[] = {
	{ "messages-long-path", s_messages_long_path, 0 },
};
const size_t faults_messages_nscenarios = BASE_ARRAY_SIZE(faults_messages_scenarios);
