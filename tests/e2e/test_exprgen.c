#define _GNU_SOURCE /* asprintf */
/* exprgen.c alone: the same seed gives the same expressions, other seeds
 * other ones, and every expression that needs no process (globals only)
 * is accepted by gdb on the fixture file and printed with the value the
 * generator's model of C gives it. argv[1]: the values_exprs fixture. */
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

#include "exprgen.h"

#define SEEDS 12
#define PER_SEED 80

static const char *fixture;

static void t_deterministic(void **state)
{
	struct exprgen a, b, c;
	struct exprgen_expr x, y, z;
	unsigned differ = 0;

	(void)state;
	exprgen_seed(&a, 7);
	exprgen_seed(&b, 7);
	exprgen_seed(&c, 8);
	for (int i = 0; i < 500; i++) {
		exprgen_next(&a, &x);
		exprgen_next(&b, &y);
		exprgen_next(&c, &z);
		assert_string_equal(x.script, y.script);
		assert_string_equal(x.gdb, y.gdb);
		assert_string_equal(x.value, y.value);
		assert_string_equal(x.tags, y.tags);
		differ += strcmp(x.script, z.script) != 0;
		/* balanced: nothing was cut */
		assert_true(strlen(x.script) + 1 < EXPRGEN_TEXT);
		assert_true(strlen(x.gdb) + 1 < EXPRGEN_TEXT);
	}
	assert_true(differ > 400);
}

/* gdb -batch on the file with one -ex per command; its stdout. */
static char *run_gdb(char **cmds, size_t n)
{
	char **argv = calloc(2 * n + 16, sizeof(*argv));
	size_t a = 0, len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	int fd[2];
	pid_t pid;
	ssize_t got;

	argv[a++] = "/usr/bin/env";
	argv[a++] = "gdb";
	argv[a++] = "-nx";
	argv[a++] = "-batch";
	argv[a++] = "-iex";
	argv[a++] = "set width 0";
	for (size_t i = 0; i < n; i++) {
		argv[a++] = "-ex";
		argv[a++] = cmds[i];
	}
	argv[a++] = (char *)fixture;
	argv[a] = NULL;
	if (pipe(fd))
		return NULL;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while ((got = read(fd[0], out + len, cap - len - 1)) > 0) {
		len += (size_t)got;
		if (cap - len < 4096)
			out = realloc(out, cap *= 2);
	}
	out[len] = '\0';
	close(fd[0]);
	waitpid(pid, NULL, 0);
	free(argv);
	return out;
}

static void canon(const char *v, char *out, size_t size)
{
	long ev;
	size_t n = strlen(v);

	if (n > 4 && v[n - 1] == '\'' && strstr(v, " '")) /* 65 'A' */
		n = (size_t)(strstr(v, " '") - v);
	snprintf(out, size, "%.*s", (int)n, v);
	if (!strcmp(out, "true") || !strcmp(out, "false"))
		snprintf(out, size, "%d", out[0] == 't');
	else if (exprgen_enumerator(out, &ev))
		snprintf(out, size, "%ld", ev);
}

static void t_gdb_agrees(void **state)
{
	struct exprgen_expr *e = calloc(SEEDS * PER_SEED, sizeof(*e));
	char **cmds = calloc(2 * SEEDS * PER_SEED, sizeof(*cmds));
	size_t n = 0, ncmd = 0, checked = 0, bad = 0;
	char *out, *line;
	long cur = -1;

	(void)state;
	if (!fixture || system("gdb --version >/dev/null 2>&1") != 0)
		skip();
	for (unsigned s = 1; s <= SEEDS; s++) {
		struct exprgen g;

		exprgen_seed(&g, s);
		for (int i = 0; i < PER_SEED; i++) {
			exprgen_next(&g, &e[n]);
			if (e[n].live || !e[n].value[0])
				continue;
			if (asprintf(&cmds[ncmd++], "echo @@%zu\\n", n) < 0 ||
			    asprintf(&cmds[ncmd++], "print %s", e[n].gdb) < 0)
				fail();
			n++;
		}
	}
	out = run_gdb(cmds, ncmd);
	assert_non_null(out);
	for (char *save = NULL, *p = strtok_r(out, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		line = p;
		if (!strncmp(line, "@@", 2)) {
			if (cur >= 0) {
				print_error("gdb printed nothing for %s\n", e[cur].gdb);
				bad++;
			}
			cur = strtol(line + 2, NULL, 10);
		} else if (cur >= 0 && line[0] == '$' && strstr(line, " = ")) {
			char v[256];

			canon(strstr(line, " = ") + 3, v, sizeof(v));
			if (strcmp(v, e[cur].value)) {
				print_error("gdb: %s = %s; the model: %s (tags %s)\n", e[cur].gdb, v,
					    e[cur].value, e[cur].tags);
				bad++;
			}
			checked++;
			cur = -1;
		}
	}
	if (cur >= 0) {
		print_error("gdb printed nothing for %s\n", e[cur].gdb);
		bad++;
	}
	print_message("%zu expressions evaluated by gdb, %zu disagree\n", checked, bad);
	assert_int_equal(bad, 0);
	assert_int_equal(checked, n);
	for (size_t i = 0; i < ncmd; i++)
		free(cmds[i]);
	free(cmds);
	free(e);
	free(out);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_deterministic),
		cmocka_unit_test(t_gdb_agrees),
	};

	fixture = argc > 1 ? argv[1] : NULL;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
