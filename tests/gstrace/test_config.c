/* --config FILE (config.c): a YAML mapping of the long flags turned into
 * the words the parser reads before the command line's. Each key of the
 * option table is reachable, values are checked in their line, the
 * command line wins where both give a flag of one value, and every file
 * that is no config is refused naming the file, the line and the fix;
 * then the real binary, given such files, exits 2 with that line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "base.h"
#include "config.h"
#include "options.h"
#include "options_table.h"
#include "run_gstrace.h"

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gs-config-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* dir/name holding len bytes of text; its path in path. */
static void write_file(const char *name, const char *text, size_t len, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The words of text, as one line `w1 w2 ...`; fails on a refusal. */
static void words_ok(const char *text, const char *expect)
{
	struct cli_words w = { 0 };
	char msg[512], got[1024] = "";
	size_t n = 0;

	if (cli_config_words(text, strlen(text), "t.yaml", &w, msg, sizeof(msg)))
		fail_msg("refused `%s`: %s", text, msg);
	for (size_t i = 0; i < w.n; i++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s", i ? " " : "", w.v[i]);
	if (strcmp(got, expect) != 0)
		fail_msg("`%s` gave `%s`, not `%s`", text, got, expect);
	cli_words_free(&w);
}

/* The agent, every kind of value: an address, a number, a
 * switch, a path, a list of a repeatable flag; YAML's spellings of them
 * (quotes, a block scalar, a flow or block list, comments). */
static void test_keys_become_the_flags_words(void **state)
{
	(void)state;
	words_ok("serve: 127.0.0.1:9464\n"
		 "profile: 19\n"
		 "all: true\n"
		 "pid: 42\n"
		 "script-file: agent.gs\n"
		 "serve-label: [env=prod, team=db]\n"
		 "serve-max-series: 5000\n",
		 "--serve=127.0.0.1:9464 --profile=19 --all --pid=42 --script-file=agent.gs "
		 "--serve-label=env=prod --serve-label=team=db --serve-max-series=5000");
	words_ok("# an agent\n"
		 "---\n"
		 "serve: '[::1]:9464'   # loopback\n"
		 "serve-label:\n"
		 "  - env=prod\n"
		 "  - \"team=db two\"\n"
		 "script: |\n"
		 "  trace main {\n"
		 "    bt;\n"
		 "  }\n"
		 "...\n",
		 "--serve=[::1]:9464 --serve-label=env=prod --serve-label=team=db two "
		 "--script=trace main {\n  bt;\n}\n");
	/* true turns a flag on, false leaves it off; YAML 1.2's spellings */
	words_ok("all: false\ndry-run: FALSE\nquiet: True\nverbose: TRUE\n", "--quiet --verbose");
	/* --profile's value may be left out: true is the flag alone */
	words_ok("profile: true\n", "--profile");
	words_ok("profile: false\n", "");
	/* a value that reads as another YAML type stays its text: --fault-in's
	 * on, a number with a point */
	words_ok("fault-in: on\nduration: 0.5\nserve: :9464\n",
		 "--fault-in=on --duration=0.5 --serve=:9464");
	/* an empty list adds nothing; nothing at all is no flag */
	words_ok("serve-label: []\n", "");
	words_ok("", "");
	words_ok("# nothing yet\n", "");
	words_ok("---\n", "");
	words_ok("{}\n", "");
	words_ok("{pid: 3, all: false}\n", "--pid=3");
}

/* Every row of the option table is a key, spelled as its long flag:
 * given a value, none is an unknown key (the table is the only list). */
static void test_every_flag_of_the_table_is_a_key(void **state)
{
	(void)state;
	for (size_t i = 0; i < cli_nopts; i++) {
		const struct opt *o = &cli_opts[i];
		struct cli_words w = { 0 };
		char text[128], msg[512];
		int rc;

		snprintf(text, sizeof(text), "%s: true\n", o->name);
		rc = cli_config_words(text, strlen(text), "t.yaml", &w, msg, sizeof(msg));
		if (o->id == O_CONFIG) {
			assert_int_equal(rc, -EINVAL);
			assert_non_null(strstr(msg, "cannot name another"));
		} else if (rc) {
			/* refused for its value, not its name */
			if (strstr(msg, "unknown key") || !strstr(msg, o->name))
				fail_msg("key %s: %s", o->name, msg);
		} else {
			assert_int_equal(w.n, 1);
			assert_true(base_has_prefix(w.v[0], "--"));
			assert_true(base_has_prefix(w.v[0] + 2, o->name));
		}
		cli_words_free(&w);
		if (o->repeatable)
			assert_non_null(o->value); /* a list is of values */
	}
}

/* A file that is no config: the file, the line, the words of the fix. */
struct bad_config {
	const char *text;
	const char *says[3];
};

static const struct bad_config bad_configs[] = {
	{ "serve: 127.0.0.1:9464\nprofile: 19\nserv: x\n",
	  { "t.yaml:3: unknown key \"serv\": the keys are gstrace's long flags without \"--\" "
	    "(gstrace --help)" } },
	{ "p: 3\n", { "t.yaml:1: unknown key \"p\"", "-p is \"pid\"" } },
	{ "all: true\n--all: true\n", { "t.yaml:2: unknown key \"--all\"", "write \"all\"" } },
	{ "pid: 1\nserve:\n  addr: 127.0.0.1\n", { "t.yaml:3: serve holds a mapping",
						   "one scalar", "serve: ADDR:PORT" } },
	{ "pid: abc\n", { "t.yaml:1: --pid 'abc' is not a process id" } },
	{ "pid: 1\nserve: 127.0.0.1\n", { "t.yaml:2: --serve 127.0.0.1: no port" } },
	{ "serve-label: [env=prod, le=1]\n", { "t.yaml:1: --serve-label 'le=1'" } },
	{ "serve-label:\n  - env=prod\n  - [a]\n", { "t.yaml:3: a list of serve-label holds a "
						    "list or a mapping" } },
	{ "pid: [1, 2]\n", { "t.yaml:1: pid takes one value, not a list", "serve-label" } },
	{ "config: other.yaml\n", { "t.yaml:1: a config file cannot name another" } },
	{ "pid:\n", { "t.yaml:1: pid has no value", "pid: PID" } },
	{ "pid: ~\n", { "t.yaml:1: pid has no value" } },
	{ "all:\n", { "t.yaml:1: all has no value", "true or false" } },
	{ "dry-run: yes\n", { "t.yaml:1: dry-run: 'yes' is not true or false",
			      "`dry-run: true`" } },
	{ "all: 'true'\n", { "t.yaml:1: all: 'true' is not true or false" } },
	{ "pid: 1\n\npid: 2\n", { "t.yaml:3: pid given twice (lines 1 and 3)" } },
	{ "serve-label: [a=b]\nserve-label: [c=d]\n", { "t.yaml:2: serve-label given twice",
							"with a list" } },
	{ "pid: &p 1\ntarget: *p\n", { "t.yaml:2: the value of target is an alias" } },
	{ "script: \"a\\0b\"\n", { "t.yaml:1: the value of script holds a NUL byte" } },
	{ "pid: 1\n---\npid: 2\n", { "t.yaml:2: a second document" } },
	{ "- pid\n- 1\n", { "t.yaml:1: the file is not a mapping of flags" } },
	{ "just text\n", { "t.yaml:1: the file is not a mapping of flags" } },
	{ "? [a, b]\n: 1\n", { "t.yaml:1: a key is a flag's name" } },
	{ "pid: 1\nscript: \"abc\n", { "t.yaml:3: not YAML: found unexpected end of stream",
				       "key: value" } },
	{ "pid: 1\nscript: x\n\tall: true\n", { "t.yaml:3: not YAML", "tab" } },
	{ "pid: 1\nscript: \xc3\x28\n", { "t.yaml:2: not YAML", "UTF-8" } },
	{ "pid: 1\n  all: true\n", { "t.yaml:1: --pid '1 all' is not a process id" } },
	{ "{pid: 1, script: [a}\n", { "t.yaml:1: script takes one value, not a list" } },
	{ "serve-label: [a01=v, a02=v, a03=v, a04=v, a05=v, a06=v, a07=v, a08=v,\n"
	  "  a09=v, a10=v, a11=v, a12=v, a13=v, a14=v, a15=v, a16=v, a17=v]\n",
	  { "t.yaml:2: more than 16 --serve-label flags" } },
};

static void test_files_that_are_no_config_are_refused_at_their_line(void **state)
{
	size_t failures = 0;

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad_configs); i++) {
		const struct bad_config *b = &bad_configs[i];
		struct cli_words w = { 0 };
		char msg[512];
		int rc = cli_config_words(b->text, strlen(b->text), "t.yaml", &w, msg, sizeof(msg));

		cli_words_free(&w);
		if (rc != -EINVAL || strchr(msg, '\n')) {
			print_message("`%s`: %d, '%s'\n", b->text, rc, msg);
			failures++;
			continue;
		}
		for (size_t k = 0; k < BASE_ARRAY_SIZE(b->says) && b->says[k]; k++)
			if (!strstr(msg, b->says[k])) {
				print_message("`%s`: message '%s' lacks '%s'\n", b->text, msg,
					      b->says[k]);
				failures++;
			}
	}
	assert_int_equal(failures, 0);
}

/* Bytes past a NUL in the buffer are read too (the length is the file's),
 * and a NUL is no YAML. */
static void test_text_is_read_by_its_length(void **state)
{
	static const char text[] = "pid: 1\n\0all: true\n";
	struct cli_words w = { 0 };
	char msg[512];

	(void)state;
	assert_int_equal(cli_config_words(text, sizeof(text) - 1, "t.yaml", &w, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "t.yaml:2: not YAML"));
	cli_words_free(&w);
}

static int parse_with(const char *config_text, char **args, struct cli *c,
		      struct cli_words *keep, char *msg, size_t size)
{
	char path[128], *argv[32];
	int argc = 0;

	write_file("agent.yaml", config_text, strlen(config_text), path, sizeof(path));
	argv[argc++] = "gstrace";
	argv[argc++] = "--config";
	argv[argc++] = path;
	for (char **a = args; *a; a++)
		argv[argc++] = *a;
	argv[argc] = NULL;
	return cli_parse_config(argc, argv, c, keep, msg, size);
}

/* The file's flags come first and the command line's after them: the
 * command line's value of a flag that takes one wins; a repeatable flag's
 * values add up (a label given in both takes the command line's value);
 * flags the command line lacks are the file's. */
static void test_command_line_wins_over_the_file(void **state)
{
	static const char agent[] = "serve: 127.0.0.1:9464\n"
				    "pid: 42\n"
				    "script: trace main { }\n"
				    "serve-max-series: 5000\n"
				    "serve-label: [env=prod, team=db]\n"
				    "script-output: json\n"
				    "profile: 19\n";
	char *args[] = { "-p", "7", "--serve-max-series=100", "--serve-label", "env=dev",
			 "--script-output", "plain", "--profile", NULL };
	struct cli_words keep;
	struct cli c;
	char msg[512];

	(void)state;
	if (parse_with(agent, args, &c, &keep, msg, sizeof(msg)))
		fail_msg("refused: %s", msg);
	assert_int_equal(c.pid, 7);
	assert_string_equal(c.serve, "127.0.0.1:9464");
	assert_int_equal(c.serve_listen.port, 9464);
	assert_string_equal(c.script, "trace main { }");
	assert_int_equal(c.serve_max_series, 100);
	assert_int_equal(c.nserve_labels, 2);
	assert_string_equal(c.serve_labels[0], "env=dev");
	assert_string_equal(c.serve_labels[1], "team=db");
	assert_int_equal(c.format, CLI_PLAIN);
	assert_int_equal(c.profile_hz, 99); /* --profile alone: its default */
	assert_non_null(c.config);
	cli_words_free(&keep);

	/* the file alone makes the run */
	args[0] = NULL;
	if (parse_with("serve: :9464\nprofile: 19\nall: true\nquiet: true\n", args, &c, &keep,
		       msg, sizeof(msg)))
		fail_msg("refused: %s", msg);
	assert_true(c.all);
	assert_true(c.quiet);
	assert_int_equal(c.profile_hz, 19);
	cli_words_free(&keep);

	/* the rules see both: the file's --all with the command line's -p */
	args[0] = "-p";
	args[1] = "3";
	args[2] = NULL;
	assert_int_equal(parse_with("serve: :9464\nall: true\n", args, &c, &keep, msg,
				    sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "--serve samples one target"));
	cli_words_free(&keep);
}

/* --help and --version need no file; a bad flag of the command line is
 * told before the file is read. */
static void test_help_and_the_command_lines_errors_come_first(void **state)
{
	char *help[] = { "gstrace", "--config", "/nonexistent/a.yaml", "--help", NULL };
	char *bad[] = { "gstrace", "--config", "/nonexistent/a.yaml", "-p", "x", NULL };
	struct cli_words keep;
	struct cli c;
	char msg[512];

	(void)state;
	assert_int_equal(cli_parse_config(4, help, &c, &keep, msg, sizeof(msg)), 0);
	assert_int_equal(c.action, CLI_HELP);
	cli_words_free(&keep);
	assert_int_equal(cli_parse_config(5, bad, &c, &keep, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "-p 'x' is not a process id"));
	cli_words_free(&keep);
}

/* Files that cannot be a config: missing, a directory, over 1 MiB. */
static void test_files_that_cannot_be_read(void **state)
{
	char *argv[] = { "gstrace", "--config", NULL, NULL };
	struct cli_words keep;
	struct cli c;
	char msg[512], path[128];
	size_t big = CLI_CONFIG_MAX_BYTES + 1;
	char *text = malloc(big);

	(void)state;
	argv[2] = "/nonexistent/agent.yaml";
	assert_int_equal(cli_parse_config(3, argv, &c, &keep, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "--config /nonexistent/agent.yaml: cannot read it (No such "
				    "file or directory)"));
	cli_words_free(&keep);
	argv[2] = dir;
	assert_int_equal(cli_parse_config(3, argv, &c, &keep, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "cannot read it (Is a directory)"));
	cli_words_free(&keep);

	/* a comment of 1 MiB and a byte: YAML, but no config */
	assert_non_null(text);
	memset(text, 'x', big);
	text[0] = '#';
	write_file("big.yaml", text, big, path, sizeof(path));
	argv[2] = path;
	assert_int_equal(cli_parse_config(3, argv, &c, &keep, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "more than 1048576 bytes"));
	cli_words_free(&keep);
	/* 1 MiB exactly is read */
	write_file("edge.yaml", text, big - 1, path, sizeof(path));
	assert_int_equal(cli_parse_config(3, argv, &c, &keep, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "no script")); /* read: an empty config */
	cli_words_free(&keep);
	free(text);
}

/* ---- the binary ------------------------------------------------------------ */

/* Each bad file: exit 2, nothing on stdout, one line naming the file and
 * its line; a good file's flags reach the run (--version is one). */
static void test_binary_refuses_bad_files_with_one_line(void **state)
{
	size_t failures = 0;
	char path[128], line[160];
	char *args[] = { NULL, "--config", path, NULL };
	struct ran r = { 0 };

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad_configs); i++) {
		const char *says = strchr(bad_configs[i].says[0], ' ') + 1;
		char *nl;

		write_file("t.yaml", bad_configs[i].text, strlen(bad_configs[i].text), path,
			   sizeof(path));
		run_gstrace(args, &r);
		/* the message names the file as the command line did */
		snprintf(line, sizeof(line), "gstrace: %s:", path);
		nl = strchr(r.err, '\n');
		if (r.status != 2 || r.out[0] || !base_has_prefix(r.err, line) || !nl || nl[1] ||
		    !strstr(r.err, says)) {
			print_message("config `%s`: status %d, stdout '%s', stderr '%s'\n",
				      bad_configs[i].text, r.status, r.out, r.err);
			failures++;
		}
	}
	assert_int_equal(failures, 0);

	write_file("v.yaml", "version: true\n", 14, path, sizeof(path));
	run_gstrace(args, &r);
	assert_int_equal(r.status, 0);
	assert_true(base_has_prefix(r.out, "gstrace "));
	/* the rules of the run, after the file: off loopback needs a token */
	write_file("open.yaml", "serve: 0.0.0.0:9464\nprofile: 19\nall: true\n", 42, path,
		   sizeof(path));
	run_gstrace(args, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--serve 0.0.0.0:9464 listens beyond this host"));
	assert_non_null(strstr(r.err, "--serve-token FILE"));
	ran_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_become_the_flags_words),
		cmocka_unit_test(test_every_flag_of_the_table_is_a_key),
		cmocka_unit_test(test_files_that_are_no_config_are_refused_at_their_line),
		cmocka_unit_test(test_text_is_read_by_its_length),
		cmocka_unit_test(test_command_line_wins_over_the_file),
		cmocka_unit_test(test_help_and_the_command_lines_errors_come_first),
		cmocka_unit_test(test_files_that_cannot_be_read),
		cmocka_unit_test(test_binary_refuses_bad_files_with_one_line),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
