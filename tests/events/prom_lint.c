/* Prometheus' own checks of an exposition (prom_lint.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "prom_lint.h"

/* Runs `(cmd) < in` through the shell, its output into *out (malloc'd);
 * its exit status. */
static int run(const char *cmd, const char *in, char **out)
{
	char path[] = "/tmp/gs_prom_lint_XXXXXX", line[1024];
	int fd = mkstemp(path), status;
	size_t len = 0;
	FILE *p, *o = open_memstream(out, &len);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, in, strlen(in)), (ssize_t)strlen(in));
	close(fd);
	snprintf(line, sizeof(line), "(%s) < %s 2>&1", cmd, path);
	p = popen(line, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		fputs(line, o);
	status = pclose(p);
	fclose(o);
	unlink(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Fails unless cmd exits 0 with nothing to say about text. */
static void clean(const char *what, const char *cmd, const char *text)
{
	char *out = NULL;
	int rc = run(cmd, text, &out);

	if (rc != 0 || *out)
		fprintf(stderr, "%s on:\n%s\nsays (exit %d):\n%s", what, text, rc, out);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "");
	free(out);
}

void prom_lint(const char *text, bool openmetrics)
{
	const char *promtool = getenv("GS_PROMTOOL"), *om_check = getenv("GS_PROM_OM_CHECK");
	char cmd[1024], *out = NULL;
	int rc;

	if (!promtool || access(promtool, X_OK) != 0) {
		print_message("skipped: Prometheus' promtool is not installed (scripts/deps "
			      "installs Debian's prometheus)\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd), "%s check metrics", promtool);
	if (!openmetrics) {
		clean("promtool", cmd, text);
		return;
	}
	rc = om_check ? run(om_check, text, &out) : 77;
	if (rc == 77) {
		print_message("skipped the OpenMetrics check: %s\n",
			      out ? out : "no Python interpreter was found");
		free(out);
		return;
	}
	if (rc != 0)
		fprintf(stderr, "the OpenMetrics parser on:\n%s\nsays:\n%s", text, out);
	assert_int_equal(rc, 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s | %s check metrics", om_check, promtool);
	clean("the OpenMetrics parser and promtool", cmd, text);
}
