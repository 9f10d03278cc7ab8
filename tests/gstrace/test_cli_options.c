/* gstrace's command line (docs/cli.md): every flag in each of its
 * spellings lands in struct cli, every bad value and bad combination
 * gives one line naming the flag and the fix; then the real binary, run
 * with bad usage, exits 2 with that line and does nothing else. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gs/program.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/internal/serve.h>

#include "base.h"
#include "options.h"
#include "run_gstrace.h"

#define MAX_ARGS 40

/* Splits a command line on spaces (no quoting) into argv. */
static int split(const char *line, char *buf, size_t size, char **argv)
{
	int argc = 0;
	char *save = NULL, *tok;

	snprintf(buf, size, "%s", line);
	argv[argc++] = "gstrace";
	for (tok = strtok_r(buf, " ", &save); tok && argc < MAX_ARGS - 1;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return argc;
}

static int parse(const char *line, struct cli *cli, char *msg, size_t size)
{
	static char buf[512];
	static char *argv[MAX_ARGS];
	int argc = split(line, buf, sizeof(buf), argv);

	return cli_parse(argc, argv, cli, msg, size);
}

static struct cli parse_ok(const char *line)
{
	struct cli cli;
	char msg[512];

	if (parse(line, &cli, msg, sizeof(msg)))
		fail_msg("`gstrace %s` was refused: %s", line, msg);
	return cli;
}

static void test_defaults_are_the_documented_ones(void **state)
{
	struct cli c = parse_ok("-p 42 -s x");

	(void)state;
	assert_int_equal(c.action, CLI_RUN);
	assert_int_equal(c.pid, 42);
	assert_string_equal(c.script, "x");
	assert_null(c.script_file);
	assert_null(c.target);
	assert_int_equal(c.ncommand, 0);
	assert_int_equal(c.backtrace_depth, 128);
	assert_int_equal(c.format, CLI_PRETTY);
	assert_int_equal(c.timestamp, CLI_TS_LOCAL);
	assert_false(c.force_perf);
	assert_false(c.dry_run);
	assert_false(c.dump_insns);
	assert_int_equal(c.max_events, 0);
	assert_int_equal(c.duration_ms, 0);
	assert_null(c.ready_marker);
	assert_null(c.output);
}

static void test_every_flag_sets_its_field(void **state)
{
	struct cli c = parse_ok("-p 7 -t /bin/true --script-file f.gs --backtrace-depth 5 "
				   "--script-output json --script-timestamp boot "
				   "--force-perf-event-array --dry-run --dump-insns --max-events 3 "
				   "--duration 2.5 --emit-ready-marker READY -o out.txt");

	(void)state;
	assert_int_equal(c.pid, 7);
	assert_string_equal(c.target, "/bin/true");
	assert_string_equal(c.script_file, "f.gs");
	assert_int_equal(c.backtrace_depth, 5);
	assert_int_equal(c.format, CLI_JSON);
	assert_int_equal(c.timestamp, CLI_TS_BOOT);
	assert_true(c.force_perf);
	assert_true(c.dry_run);
	assert_true(c.dump_insns);
	assert_int_equal(c.max_events, 3);
	assert_int_equal(c.duration_ms, 2500);
	assert_string_equal(c.ready_marker, "READY");
	assert_string_equal(c.output, "out.txt");
}

/* Listing needs no script; the string cap is a number of bytes. */
static void test_listing_and_string_cap(void **state)
{
	struct cli c = parse_ok("-l http_* -p 12");

	(void)state;
	assert_string_equal(c.list_functions, "http_*");
	assert_int_equal(c.pid, 12);
	assert_null(c.script);
	c = parse_ok("--list-vars demo.c:43 -t /bin/true");
	assert_string_equal(c.list_vars, "demo.c:43");
	assert_string_equal(c.target, "/bin/true");
	c = parse_ok("-p 1 -s x --max-string-len 1024");
	assert_int_equal(c.max_string_len, 1024);
	c = parse_ok("-p 1 -s x");
	assert_int_equal(c.max_string_len, 0);
}

/* The cache's place and cap; its two modes take nothing of a run. */
static void test_cache_flags_and_modes(void **state)
{
	struct cli c = parse_ok("-p 1 -s x --cache-dir /tmp/c --cache-size 512M");

	(void)state;
	assert_string_equal(c.cache_dir, "/tmp/c");
	assert_int_equal(c.cache_size, 512ull << 20);
	assert_false(c.cache_off);
	c = parse_ok("-p 1 -s x --cache-size=2G");
	assert_int_equal(c.cache_size, 2ull << 30);
	c = parse_ok("-p 1 -s x --cache-size 4096");
	assert_int_equal(c.cache_size, 4096);
	assert_true(parse_ok("-p 1 -s x --cache-size off").cache_off);
	assert_true(parse_ok("-p 1 -s x --cache-size 0").cache_off);
	c = parse_ok("-p 1 -s x");
	assert_null(c.cache_dir);
	assert_int_equal(c.cache_size, 0);
	assert_false(c.cache_off);
	assert_int_equal(parse_ok("--cache-info").action, CLI_CACHE_INFO);
	c = parse_ok("--cache-clear --cache-dir /tmp/c");
	assert_int_equal(c.action, CLI_CACHE_CLEAR);
	assert_string_equal(c.cache_dir, "/tmp/c");
	assert_int_equal(parse_ok("--cache-info --cache-size 1G").action, CLI_CACHE_INFO);
}

static void test_tui_takes_no_script_and_its_own_flags(void **state)
{
	struct cli c = parse_ok("--tui -p 12");

	(void)state;
	assert_true(c.tui);
	assert_null(c.script);
	assert_int_equal(c.tui_history, 0);
	c = parse_ok("--tui --tui-history 500 --srcpath /b=/s --srcpath /d -t /bin/true");
	assert_int_equal(c.tui_history, 500);
	assert_int_equal(c.nsrcpaths, 2);
	assert_string_equal(c.srcpaths[0], "/b=/s");
	assert_string_equal(c.srcpaths[1], "/d");
	c = parse_ok("--tui -s x -- /bin/true");
	assert_int_equal(c.ncommand, 1);
}

static void test_long_short_attached_and_equals_spellings_agree(void **state)
{
	static const char *const lines[] = {
		"-p 9 -t /x -s s -o o", "-p9 -t/x -ss -oo", "--pid 9 --target /x --script s --output o",
		"--pid=9 --target=/x --script=s --output=o",
	};

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(lines); i++) {
		struct cli c = parse_ok(lines[i]);

		assert_int_equal(c.pid, 9);
		assert_string_equal(c.target, "/x");
		assert_string_equal(c.script, "s");
		assert_string_equal(c.output, "o");
	}
}

static void test_keywords_and_ranges_at_their_edges(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("-p 1 -s x --backtrace-depth 1").backtrace_depth, 1);
	assert_int_equal(parse_ok("-p 1 -s x --backtrace-depth=128").backtrace_depth, 128);
	assert_int_equal(parse_ok("-p 1 -s x --backtrace-depth=512").backtrace_depth, 512);
	assert_int_equal(parse_ok("-p 1 -s x --unwinder tailcall").unwinder, GS_UNWINDER_TAILCALL);
	assert_int_equal(parse_ok("-p 1 -s x --unwinder=loop").unwinder, GS_UNWINDER_LOOP);
	assert_int_equal(parse_ok("-p 1 -s x").fault_in, CLI_FAULT_AUTO);
	assert_int_equal(parse_ok("-p 1 -s x --fault-in on").fault_in, CLI_FAULT_ON);
	assert_int_equal(parse_ok("-p 1 -s x --fault-in=off").fault_in, CLI_FAULT_OFF);
	assert_int_equal(parse_ok("-p 1 -s x --fault-in off --force-perf-event-array").fault_in,
			 CLI_FAULT_OFF);
	assert_int_equal(parse_ok("-p 1 -s x --script-output plain").format, CLI_PLAIN);
	assert_int_equal(parse_ok("-p 1 -s x --script-output pretty").format, CLI_PRETTY);
	assert_int_equal(parse_ok("-p 1 -s x --script-timestamp none").timestamp, CLI_TS_NONE);
	assert_int_equal(parse_ok("-p 1 -s x --script-timestamp local").timestamp,
			 CLI_TS_LOCAL);
	assert_int_equal(parse_ok("-p 1 -s x --duration 0.001").duration_ms, 1);
	assert_int_equal(parse_ok("-p 1 -s x --duration .5").duration_ms, 500);
	assert_int_equal(parse_ok("-p 1 -s x --duration 10").duration_ms, 10000);
	assert_int_equal(parse_ok("-p 1 -s x --max-events 1").max_events, 1);
}

static void test_command_after_dashdash_is_launch_mode(void **state)
{
	struct cli c = parse_ok("-s x --max-events 2 -- ./prog -p 3 --dry-run");

	(void)state;
	assert_int_equal(c.ncommand, 4);
	assert_string_equal(c.command[0], "./prog");
	assert_string_equal(c.command[1], "-p");
	assert_string_equal(c.command[3], "--dry-run");
	assert_null(c.command[4]);
	/* flags of the command stay the command's */
	assert_int_equal(c.pid, 0);
	assert_false(c.dry_run);
	assert_int_equal(parse_ok("-t /lib/x.so -s x -- ./prog").ncommand, 1);
}

static void test_help_and_version_win_over_missing_flags(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("-h").action, CLI_HELP);
	assert_int_equal(parse_ok("--help").action, CLI_HELP);
	assert_int_equal(parse_ok("--version").action, CLI_VERSION);
	assert_int_equal(parse_ok("-p 3 --version").action, CLI_VERSION);
}

/* Bad usage: the command line and words the one-line message must hold. */
struct bad_case {
	const char *line;
	const char *says[3];
};

static const struct bad_case bad_cases[] = {
	{ "-p 1 -s x --max-string-len 0", { "--max-string-len '0'", "1 to 32768" } },
	{ "-p 1 -s x --max-string-len 40000", { "--max-string-len '40000'", "1 to 32768" } },
	{ "-l", { "-l needs a value" } },
	{ "--tui", { "--tui needs a target", "-p PID" } },
	{ "--tui -p 1 --dry-run", { "--dry-run is a flag of the line mode", "save output" } },
	{ "--tui -p 1 --script-output json", { "--script-output is a flag of the line mode" } },
	{ "--tui -p 1 --tui-history 5", { "--tui-history '5'", "100 to 10000000" } },
	{ "-p 1 -s x --tui-history 500", { "--tui-history is a setting of the interactive",
					   "add --tui" } },
	{ "--tui -p 1 --srcpath =/x", { "--srcpath '=/x' is not a source path", "FROM=TO" } },
	{ "--tui -p 1 -- /bin/true", { "-p and a command after -- both given" } },
	{ "-l main", { "-l needs where to look", "-p PID or -t PATH" } },
	{ "--list-vars main", { "--list-vars needs where to look" } },
	{ "-l main -t /x -s x", { "-l lists and traces nothing", "alone" } },
	{ "-l main --list-vars f -p 1", { "-l and --list-vars both given" } },
	{ "--list-vars f -p 1 -- /bin/true", { "--list-vars lists and traces nothing" } },
	{ "-p 1 -s x --ringbuf-size 5000", { "--ringbuf-size 5000", "power of two",
					     "page size" } },
	{ "-p 1 -s x --ringbuf-size 1024", { "--ringbuf-size 1024", "power of two" } },
	{ "-p 1 -s x --ringbuf-size 3M", { "--ringbuf-size 3M", "power of two" } },
	{ "-p 1 -s x --ringbuf-size 2G", { "--ringbuf-size '2G'", "up to 1G" } },
	{ "-p 1 -s x --ringbuf-size lots", { "--ringbuf-size 'lots'", "not a size" } },
	{ "-p 1 -s x --ringbuf-size 4M --force-perf-event-array", { "--perf-pages" } },
	{ "-p 1 -s x --perf-pages 64", { "--perf-pages", "--ringbuf-size" } },
	{ "-p 1 -s x --force-perf-event-array --perf-pages 48", { "--perf-pages '48'",
								 "power of two" } },
	{ "-p 1 -s x --force-perf-event-array --perf-pages 0", { "--perf-pages '0'" } },
	{ "-p 1 -s x --interval 1", { "--interval", "--aggregate" } },
	{ "-p 1 -s x --aggregate --interval 0", { "--interval '0'", "duration" } },
	{ "-p 1 -s x --max-keys 0", { "--max-keys '0'", "1 to 16777216", "default 4096" } },
	{ "-p 1 -s x --max-keys many", { "--max-keys 'many'" } },
	{ "-p 1 -s x --aggregate --script-output folded", { "--aggregate", "folded" } },
	{ "-p 1 -s x --count-in kernel", { "--count-in 'kernel'", "bpf or user" } },
	{ "-p 1 -s x --count-in bpf", { "--count-in bpf", "--aggregate", "folded" } },
	{ "-p 1 -s x --count-in bpf --aggregate --max-events 5", { "--max-events", "--duration" } },
	{ "-p 1 -s x --count-in bpf --aggregate --unwinder tailcall", { "loop unwinder" } },
	{ "-p 1 -s x --fault-in yes", { "--fault-in 'yes'", "auto, on or off" } },
	{ "-p 1 -s x --fault-in on --force-perf-event-array", { "--fault-in on", "ring buffer",
								  "--force-perf-event-array" } },
	{ "-p 1 -s x --fault-in on --unwinder tailcall", { "--fault-in on", "loop unwinder" } },
	{ "-p 1 -s x --script-output flame", { "'flame'", "folded" } },
	{ "-p 1 -s x --flamegraph=", { "--flamegraph needs a file name" } },
	{ "-p abc -s x", { "-p 'abc'", "process id", "positive number" } },
	{ "-p 0 -s x", { "-p '0'", "process id" } },
	{ "-p -5 -s x", { "-p '-5'", "process id" } },
	{ "--pid=12x -s x", { "--pid '12x'", "process id" } },
	{ "-p 99999999999 -s x", { "-p '99999999999'" } },
	{ "-p", { "-p needs a value", "PID" } },
	{ "-t", { "-t needs a value", "PATH" } },
	{ "--target= -s x", { "--target needs a path" } },
	{ "-p 1 -s", { "-s needs a value", "SCRIPT" } },
	{ "-p 1 --script-file", { "--script-file needs a value", "FILE" } },
	{ "-p 1 --script-file=", { "--script-file needs a file name" } },
	{ "-p 1 -s x --backtrace-depth 0", { "--backtrace-depth '0'", "1 to 512" } },
	{ "-p 1 -s x --backtrace-depth 513", { "--backtrace-depth '513'", "1 to 512" } },
	{ "-p 1 -s x --backtrace-depth five", { "--backtrace-depth 'five'", "1 to 512" } },
	{ "-p 1 -s x --backtrace-depth", { "--backtrace-depth needs a value", "N (1..512)" } },
	{ "-p 1 -s x --unwinder fast", { "--unwinder 'fast'", "loop or tailcall" } },
	{ "-p 1 -s x --script-output xml", { "--script-output 'xml'",
					       "pretty, plain, json, folded or pprof" } },
	{ "-p 1 -s x --output-format xml", { "--output-format 'xml'", "pprof" } },
	{ "-p 1 -s x --script-output pprof", { "--script-output pprof", "-o FILE.pb.gz" } },
	{ "-p 1 -s x --output-format pprof", { "pprof", "-o FILE.pb.gz", "--pprof" } },
	{ "-p 1 -s x --script-output pprof -o a.pb.gz --pprof b.pb.gz", { "-o a.pb.gz",
									  "--pprof b.pb.gz",
									  "give one" } },
	{ "-p 1 -s x --pprof=", { "--pprof needs a file name", "out.pb.gz" } },
	{ "-p 1 --tui --pprof x.pb.gz", { "--pprof", "line mode" } },
	{ "-p 1 -s x --script-output", { "--script-output needs a value", "pretty|plain|json" } },
	{ "-p 1 -s x --script-timestamp utc", { "--script-timestamp 'utc'", "local, boot or none" } },
	{ "-p 1 -s x --script-timestamp", { "--script-timestamp needs a value" } },
	{ "-p 1 -s x --max-events 0", { "--max-events '0'", "at least 1" } },
	{ "-p 1 -s x --max-events -1", { "--max-events '-1'" } },
	{ "-p 1 -s x --max-events", { "--max-events needs a value" } },
	{ "-p 1 -s x --duration 0", { "--duration '0'", "greater than 0" } },
	{ "-p 1 -s x --duration 1s", { "--duration '1s'", "seconds" } },
	{ "-p 1 -s x --duration 1.", { "--duration '1.'" } },
	{ "-p 1 -s x --duration -2", { "--duration '-2'" } },
	{ "-p 1 -s x --duration", { "--duration needs a value", "SECONDS" } },
	{ "-p 1 -s x --emit-ready-marker", { "--emit-ready-marker needs a value", "TEXT" } },
	{ "-p 1 -s x -o", { "-o needs a value", "FILE" } },
	{ "-p 1 -s x --output=", { "--output needs a file name" } },
	{ "-p 1 -s x --dry-run=yes", { "--dry-run takes no value" } },
	{ "-p 1 -s x --force-perf-event-array=1", { "--force-perf-event-array takes no value" } },
	{ "-p 1 -s x --bogus", { "unknown option '--bogus'", "--help" } },
	{ "-p 1 -s x --bogus=3", { "unknown option '--bogus'" } },
	{ "-p 1 -s x -z", { "unknown option '-z'" } },
	{ "-p 1 -s x -hx", { "unknown option '-hx'" } },
	{ "-p 1 -s x stray", { "unexpected argument 'stray'", "after --" } },
	{ "-p 1", { "no script", "-s SCRIPT", "--script-file FILE" } },
	{ "-p 1 -s x --script-file f", { "-s and --script-file both given" } },
	{ "-s x", { "no target", "-p PID, -t PATH or -- CMD" } },
	{ "-s x --", { "nothing after --" } },
	{ "-p 1 -s x -- ./prog", { "-p and a command after -- both given" } },
	{ "--profile", { "--profile needs a target", "--all" } },
	{ "--profile -p 1 -t /bin/true", { "--profile samples one target" } },
	{ "--profile -p 1 --all", { "--profile samples one target" } },
	{ "--profile -p 1 -s x", { "takes no script", "drop -s" } },
	{ "--profile 0 -p 1", { "--profile '0'", "1 to 100000" } },
	{ "--profile=1000001 -p 1", { "--profile '1000001'", "1 to 100000" } },
	{ "--profile -p 1 --unwinder tailcall", { "loop unwinder" } },
	{ "--profile -p 1 --max-events 3", { "--max-events", "--duration" } },
	{ "--profile -p 1 --tui", { "line mode", "--tui" } },
	{ "--all -p 1 -s x", { "--all", "add --profile" } },
	{ "-p 1 -s x --kernel-stacks", { "--kernel-stacks", "add --profile" } },
	{ "--profile --all --unwind-memory 0", { "--unwind-memory '0'", "1 to 65536" } },
	{ "-p 1 -s x --cache-size 5X", { "--cache-size '5X' is not a size", "512M", "off" } },
	{ "-p 1 -s x --cache-size -1", { "--cache-size '-1' is not a size" } },
	{ "-p 1 -s x --cache-size 2000000G", { "--cache-size '2000000G'" } },
	{ "-p 1 -s x --cache-size", { "--cache-size needs a value", "SIZE|off" } },
	{ "-p 1 -s x --cache-dir cache", { "--cache-dir 'cache' is not an absolute",
					   "give one" } },
	{ "--cache-info -p 1", { "--cache-info works on the on-disk cache", "alone" } },
	{ "--cache-clear -s x", { "--cache-clear works on the on-disk cache", "alone" } },
	{ "--cache-clear -- /bin/true", { "--cache-clear works on the on-disk cache" } },
	{ "--cache-info --cache-clear", { "--cache-info and --cache-clear both given" } },
	{ "--cache-info --cache-size off", { "--cache-info with --cache-size off",
					     "drop --cache-size off" } },
	{ "--cache-info --serve :9464", { "--cache-info works on the on-disk cache" } },
	/* the agent: its address, its settings, and what it runs */
	{ "--serve 127.0.0.1 -p 1", { "--serve 127.0.0.1", "no port", "ADDR:PORT" } },
	{ "--serve localhost:0 -p 1", { "--serve localhost:0", "1 to 65535" } },
	{ "--serve example.com:80 -p 1", { "--serve example.com:80", "not resolved" } },
	{ "--serve ::1:9464 -p 1", { "--serve ::1:9464", "[ADDR]:PORT" } },
	{ "--serve 0.0.0.0:9464 -p 1", { "--serve 0.0.0.0:9464 listens beyond this host",
					 "--serve-token FILE", "--serve 127.0.0.1:9464" } },
	{ "--serve [::]:9464 --profile --all", { "--serve [::]:9464 listens beyond this host",
						 "--serve-token FILE" } },
	{ "--serve 10.1.2.3:80 -p 1 -s x", { "10.1.2.3:80 listens beyond", "--serve-token" } },
	{ "--serve", { "--serve needs a value", "ADDR:PORT" } },
	{ "--serve :9464", { "--serve needs a target", "-p PID", "--all" } },
	{ "--serve :9464 -p 1 -t /bin/true", { "--serve samples one target", "--all" } },
	{ "--serve :9464 --all -- ./prog", { "--serve samples one target" } },
	{ "--serve :9464 -p 1 --aggregate", { "--aggregate is a flag of what a script or "
					      "--profile counts", "add --profile [HZ]" } },
	{ "--serve :9464 -p 1 --max-events 3", { "--max-events is a flag", "drop --max-events" } },
	{ "--serve :9464 -p 1 --flamegraph f.svg", { "--flamegraph is a flag" } },
	{ "--serve :9464 -p 1 -o p.pb.gz", { "-o is a flag" } },
	{ "--serve :9464 -p 1 --pprof p.pb.gz", { "--pprof is a flag" } },
	{ "--serve :9464 --all --script-output folded", { "--script-output is a flag" } },
	{ "--serve :9464 -p 1 --tui", { "--serve runs an agent", "--tui takes the terminal",
					"drop one" } },
	{ "--serve :9464 -p 1 -s x --dry-run", { "--serve", "--dry-run loads nothing" } },
	{ "--serve :9464 -p 1 -s x --dump-insns", { "--serve", "--dump-insns loads nothing" } },
	{ "--serve :9464 -l main -p 1", { "--serve", "-l lists and traces nothing" } },
	{ "--serve :9464 --list-vars main -p 1", { "--serve", "--list-vars lists" } },
	{ "--serve :9464 -s x --all", { "--all samples every process", "-p PID, -t PATH or -- CMD",
					"drop --all" } },
	{ "--serve :9464 --profile 19 -s x --all", { "--all samples every process" } },
	{ "--serve :9464 --profile -s x", { "no target", "-p PID" } },
	{ "--serve :9464 --profile -p 1 -s x --unwinder tailcall", { "loop unwinder" } },
	{ "--serve :9464 -s x -p 1 -- ./prog", { "-p and a command after -- both given" } },
	{ "--serve :9464 -p 1 -s x --script-file f", { "-s and --script-file both given" } },
	{ "--serve-token t -p 1 -s x", { "--serve-token is a setting of the agent",
					 "add --serve ADDR:PORT" } },
	{ "--serve-tls-cert c.pem --serve-tls-key k.pem -p 1 -s x",
	  { "--serve-tls-cert is a setting of the agent" } },
	{ "--serve-tls-key k.pem -p 1 -s x", { "--serve-tls-key is a setting of the agent" } },
	{ "--serve-max-series 5 -p 1 -s x", { "--serve-max-series is a setting of the agent" } },
	{ "--serve-max-seconds 5 -p 1 -s x", { "--serve-max-seconds is a setting of the agent" } },
	{ "--serve-label a=b --profile -p 1", { "--serve-label is a setting of the agent" } },
	{ "--serve :9464 -p 1 --serve-tls-cert c.pem", { "--serve-tls-cert without "
							 "--serve-tls-key", "both or neither" } },
	{ "--serve :9464 -p 1 --serve-tls-key k.pem", { "--serve-tls-key without "
							"--serve-tls-cert" } },
	{ "--serve :9464 -p 1 --serve-token=", { "--serve-token needs a file name", "0600" } },
	{ "--serve :9464 -p 1 --serve-tls-cert=", { "--serve-tls-cert needs a file name" } },
	{ "--serve :9464 -p 1 --serve-max-series 0", { "--serve-max-series '0'", "1 to 1000000",
						      "default 10000" } },
	{ "--serve :9464 -p 1 --serve-max-series 1000001", { "--serve-max-series '1000001'" } },
	{ "--serve :9464 -p 1 --serve-max-seconds 3601", { "--serve-max-seconds '3601'",
							  "1 to 3600", "default 300" } },
	{ "--serve :9464 -p 1 --serve-max-seconds 1m", { "--serve-max-seconds '1m'" } },
	{ "--serve :9464 -p 1 --serve-label env", { "--serve-label 'env' is not NAME=VALUE",
						    "env=prod" } },
	{ "--serve :9464 -p 1 --serve-label le=1", { "--serve-label 'le=1'", "not le, quantile" } },
	{ "--serve :9464 -p 1 --serve-label trace=x", { "--serve-label 'trace=x'",
							 "not le, quantile, trace" } },
	{ "--serve :9464 -p 1 --serve-label quantile=1", { "--serve-label 'quantile=1'" } },
	{ "--serve :9464 -p 1 --serve-label instance=a", { "--serve-label 'instance=a'",
							   "instance or job" } },
	{ "--serve :9464 -p 1 --serve-label job=a", { "--serve-label 'job=a'" } },
	{ "--serve :9464 -p 1 --serve-label __name__=a", { "--serve-label '__name__=a'", "__" } },
	{ "--serve :9464 -p 1 --serve-label 1st=a", { "--serve-label '1st=a'", "digit" } },
	{ "--serve :9464 -p 1 --serve-label a-b=a", { "--serve-label 'a-b=a'" } },
	{ "--serve :9464 -p 1 --serve-label =a", { "--serve-label '=a'" } },
	{ "--serve :9464 -p 1 --serve-label env=", { "--serve-label env: the value is empty",
						     "printable text" } },
	{ "--serve :9464 -p 1 --serve-label=a01=v --serve-label=a02=v --serve-label=a03=v "
	  "--serve-label=a04=v --serve-label=a05=v --serve-label=a06=v --serve-label=a07=v "
	  "--serve-label=a08=v --serve-label=a09=v --serve-label=a10=v --serve-label=a11=v "
	  "--serve-label=a12=v --serve-label=a13=v --serve-label=a14=v --serve-label=a15=v "
	  "--serve-label=a16=v --serve-label=a17=v", { "more than 16 --serve-label flags" } },
	{ "--quiet -p 1 -s x -o f", { "--quiet prints nothing on the terminal", "-o f",
				      "give one" } },
	{ "--quiet -p 1 -s x --aggregate --interval 1", { "--quiet", "--interval" } },
	{ "--quiet --tui -p 1", { "--quiet and --tui" } },
	{ "--quiet -p 1 -s x --dry-run", { "--quiet and --dry-run", "drop --quiet" } },
	{ "--quiet -l main -p 1", { "--quiet and -l" } },
	{ "-p 1 -s x --quiet=1", { "--quiet takes no value" } },
	{ "-p 1 -s x --script-output prometheus", { "--script-output 'prometheus'",
						    "the agent serves prometheus",
						    "pretty, plain, json, folded or pprof" } },
	{ "-p 1 -s x --output-format openmetrics", { "the agent serves openmetrics", "/metrics" } },
	{ "-p 1 -s x --config", { "--config needs a value", "FILE" } },
	{ "-p 1 -s x --config=", { "--config needs a file name", "YAML" } },
};

/* Sizes the kernel takes for a ring buffer (a power of two, a multiple of
 * the page size) in the spellings users write; perf pages a power of two. */
static void test_buffer_sizes_follow_the_kernels_rules(void **state)
{
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	char line[128];

	(void)state;
	assert_int_equal(parse_ok("-p 1 -s x --ringbuf-size 4M").ringbuf_size, 4u << 20);
	assert_int_equal(parse_ok("-p 1 -s x --ringbuf-size=256k").ringbuf_size, 256u << 10);
	assert_int_equal(parse_ok("-p 1 -s x --ringbuf-size 1G").ringbuf_size, 1u << 30);
	snprintf(line, sizeof(line), "-p 1 -s x --ringbuf-size %u", page);
	assert_int_equal(parse_ok(line).ringbuf_size, page);
	assert_int_equal(parse_ok("-p 1 -s x --force-perf-event-array --perf-pages 1").perf_pages,
			 1);
	assert_int_equal(parse_ok("-p 1 -s x --force-perf-event-array --perf-pages 1024")
				 .perf_pages, 1024);
	assert_true(parse_ok("-p 1 -s x --aggregate --interval 0.5").aggregate);
	assert_true(parse_ok("-p 1 -s x --script-output folded --count-in bpf").count_in_bpf);
	assert_false(parse_ok("-p 1 -s x --aggregate --count-in user").count_in_bpf);
	assert_int_equal(parse_ok("-p 1 -s x --aggregate --interval 0.5").interval_ms, 500);
	/* aggregations in the script print every interval too (a script file
	 * is checked once read) */
	assert_int_equal(parse_ok("-p 1 -s @n=count(); --interval 2").interval_ms, 2000);
	assert_int_equal(parse_ok("-p 1 --script-file f --interval 1").interval_ms, 1000);
	assert_int_equal(parse_ok("-p 1 -s x --max-keys 100").max_keys, 100);
	assert_int_equal(parse_ok("-p 1 -s x --script-output folded").format, CLI_FOLDED);
	assert_string_equal(parse_ok("-p 1 -s x --flamegraph out.svg").flamegraph, "out.svg");
}

/* pprof: beside any output (--pprof), or as the output into -o's file,
 * chosen by --script-output / --output-format or by -o FILE.pb.gz. */
static void test_pprof_output_choices(void **state)
{
	struct cli c;

	(void)state;
	c = parse_ok("-p 1 -s x --pprof out.pb.gz --script-output folded --count-in bpf");
	assert_string_equal(c.pprof, "out.pb.gz");
	assert_int_equal(c.format, CLI_FOLDED);
	assert_true(c.count_in_bpf);
	c = parse_ok("-p 1 -s x --pprof p --count-in bpf");
	assert_string_equal(c.pprof, "p");
	c = parse_ok("-p 1 -s x -o out.pb.gz");
	assert_int_equal(c.format, CLI_PPROF);
	assert_string_equal(c.pprof, "out.pb.gz");
	assert_null(c.output);
	c = parse_ok("-p 1 -s x --output-format pprof -o prof.bin --count-in bpf");
	assert_int_equal(c.format, CLI_PPROF);
	assert_string_equal(c.pprof, "prof.bin");
	/* an explicit format wins over the file name */
	c = parse_ok("-p 1 -s x --script-output plain -o out.pb.gz");
	assert_int_equal(c.format, CLI_PLAIN);
	assert_string_equal(c.output, "out.pb.gz");
	assert_null(c.pprof);
	/* a listing's -o is the listing's file, whatever its name */
	c = parse_ok("-l main -p 1 -o list.pb.gz");
	assert_string_equal(c.output, "list.pb.gz");
	assert_null(c.pprof);
}

/* --profile: an optional frequency, one target, and what it prints. */
static void test_profile_choices(void **state)
{
	struct cli c;

	(void)state;
	c = parse_ok("--profile -p 7");
	assert_int_equal(c.profile_hz, 99);
	assert_true(c.count_in_bpf);
	assert_true(c.aggregate); /* the table by default */
	c = parse_ok("--profile 999 --all --script-output folded --kernel-stacks");
	assert_int_equal(c.profile_hz, 999);
	assert_true(c.all);
	assert_true(c.kernel_stacks);
	assert_false(c.aggregate);
	assert_int_equal(c.format, CLI_FOLDED);
	c = parse_ok("--profile=50 -t /bin/true --unwind-memory 16");
	assert_int_equal(c.profile_hz, 50);
	assert_int_equal(c.unwind_memory_mb, 16);
	/* a number after it is its frequency, a word is not */
	c = parse_ok("--profile -p 3 --count-in user");
	assert_int_equal(c.profile_hz, 99);
	assert_false(c.count_in_bpf);
	c = parse_ok("--profile -- ./prog 5");
	assert_int_equal(c.profile_hz, 99);
	assert_int_equal(c.ncommand, 2);
	c = parse_ok("--profile -p 1 -o cpu.pb.gz");
	assert_int_equal(c.format, CLI_PPROF);
	assert_false(c.aggregate);
}

/* --serve: any run mode (a script, --profile, both, or the profile
 * endpoint alone) on loopback, or off it with a token; its settings land
 * in their fields. */
static void test_serve_choices(void **state)
{
	struct cli c;

	(void)state;
	c = parse_ok("--serve 127.0.0.1:9464 -p 7 -s x");
	assert_string_equal(c.serve, "127.0.0.1:9464");
	assert_int_equal(c.serve_listen.port, 9464);
	assert_string_equal(c.serve_listen.text, "127.0.0.1:9464");
	assert_true(srv_listen_loopback(&c.serve_listen));
	assert_int_equal(c.profile_hz, 0);
	assert_false(c.quiet);
	/* the profile endpoint alone: one target, --all among them */
	c = parse_ok("--serve :9464 --all");
	assert_true(c.all);
	assert_string_equal(c.serve_listen.text, "127.0.0.1:9464");
	assert_false(c.aggregate);
	assert_false(c.count_in_bpf);
	c = parse_ok("--serve :9464 -t /bin/true --kernel-stacks --unwind-memory 16");
	assert_true(c.kernel_stacks);
	assert_int_equal(c.unwind_memory_mb, 16);
	c = parse_ok("--serve :9464 -- ./prog arg");
	assert_int_equal(c.ncommand, 2);
	/* --profile with it: as without (counted in BPF, the table at exit) */
	c = parse_ok("--profile 19 --all --serve localhost:9464 --quiet");
	assert_int_equal(c.profile_hz, 19);
	assert_true(c.count_in_bpf);
	assert_true(c.aggregate);
	assert_true(c.quiet);
	/* both: a script's events print as they do alone */
	c = parse_ok("--serve :9464 --profile 19 -p 3 -s x");
	assert_int_equal(c.profile_hz, 19);
	assert_string_equal(c.script, "x");
	assert_false(c.count_in_bpf);
	assert_false(c.aggregate);
	c = parse_ok("--serve :9464 --profile --script-file f -t /bin/true");
	assert_string_equal(c.script_file, "f");
	/* off loopback with a token; IPv6 */
	c = parse_ok("--serve 0.0.0.0:9464 --serve-token tok -p 1");
	assert_string_equal(c.serve_token, "tok");
	assert_false(srv_listen_loopback(&c.serve_listen));
	c = parse_ok("--serve [::1]:9464 -p 1");
	assert_true(srv_listen_loopback(&c.serve_listen));
	assert_string_equal(c.serve_listen.text, "[::1]:9464");
	c = parse_ok("--serve [::1]:9464 -p 1 --serve-tls-cert c.pem --serve-tls-key=k.pem "
		     "--serve-max-series 5000 --serve-max-seconds=60");
	assert_string_equal(c.serve_tls_cert, "c.pem");
	assert_string_equal(c.serve_tls_key, "k.pem");
	assert_int_equal(c.serve_max_series, 5000);
	assert_int_equal(c.serve_max_seconds, 60);
	assert_int_equal(parse_ok("--serve :1 -p 1 --serve-max-series 1000000").serve_max_series,
			 1000000);
	assert_int_equal(parse_ok("--serve :1 -p 1 --serve-max-seconds 3600").serve_max_seconds,
			 3600);
	assert_int_equal(parse_ok("--serve :1 -p 1").serve_max_series, 0); /* the default */
}

/* --serve-label: in the order given; a name given again takes its last
 * value (so the command line's wins over a config file's); sixteen at
 * most; any printable UTF-8 value, no control character. */
static void test_serve_labels(void **state)
{
	static const char *const bad_values[] = { "env=a\tb", "env=a\nb", "env=\x7f", "env=\xff",
						  "env=\xc3(", "env=\xed\xa0\x80" /* a surrogate */ };
	char *argv[8], msg[512];
	struct cli c;

	(void)state;
	c = parse_ok("--serve :9464 -p 1 --serve-label env=prod --serve-label team=db "
		     "--serve-label=_x9=with=equals --serve-label env=dev");
	assert_int_equal(c.nserve_labels, 3);
	assert_string_equal(c.serve_labels[0], "env=dev");
	assert_string_equal(c.serve_labels[1], "team=db");
	assert_string_equal(c.serve_labels[2], "_x9=with=equals");
	c = parse_ok("--serve :9464 -p 1 --serve-label region=eu-w\xc3\xa9st");
	assert_string_equal(c.serve_labels[0], "region=eu-w\xc3\xa9st");
	/* sixteen fill the table; a seventeenth name does not fit, a name
	 * given again does */
	c = parse_ok("--serve :9464 -p 1 --serve-label=a01=v --serve-label=a02=v "
		     "--serve-label=a03=v --serve-label=a04=v --serve-label=a05=v "
		     "--serve-label=a06=v --serve-label=a07=v --serve-label=a08=v "
		     "--serve-label=a09=v --serve-label=a10=v --serve-label=a11=v "
		     "--serve-label=a12=v --serve-label=a13=v --serve-label=a14=v "
		     "--serve-label=a15=v --serve-label=a16=v --serve-label=a01=w");
	assert_int_equal(c.nserve_labels, SRV_MAX_LABELS);
	assert_string_equal(c.serve_labels[0], "a01=w");
	/* control characters and bytes that are not UTF-8: argv as a shell
	 * would give it */
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad_values); i++) {
		argv[0] = "gstrace";
		argv[1] = "--serve=:9464";
		argv[2] = "-p1";
		argv[3] = "--serve-label";
		argv[4] = (char *)bad_values[i];
		argv[5] = NULL;
		assert_int_equal(cli_parse(5, argv, &c, msg, sizeof(msg)), -EINVAL);
		assert_non_null(strstr(msg, "--serve-label env: the value is empty or holds "
				       "control characters or bytes that are not UTF-8"));
	}
}

static void test_bad_usage_names_the_flag_and_the_fix(void **state)
{
	size_t failures = 0;

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct cli cli;
		char msg[512];
		int rc = parse(b->line, &cli, msg, sizeof(msg));

		if (rc != -EINVAL) {
			print_message("`%s`: expected -EINVAL, got %d\n", b->line, rc);
			failures++;
			continue;
		}
		if (!msg[0] || strchr(msg, '\n')) {
			print_message("`%s`: not one line: '%s'\n", b->line, msg);
			failures++;
		}
		for (size_t k = 0; k < BASE_ARRAY_SIZE(b->says) && b->says[k]; k++) {
			if (!strstr(msg, b->says[k])) {
				print_message("`%s`: message '%s' lacks '%s'\n", b->line, msg,
					      b->says[k]);
				failures++;
			}
		}
	}
	assert_int_equal(failures, 0);
}

/* ---- the binary ------------------------------------------------------------ */

/* Runs the gstrace binary with line's arguments ('_' in the value of -s
 * stands for a space: the split does not quote). */
static void run_line(const char *line, struct ran *r)
{
	char buf[512], *argv[MAX_ARGS];

	split(line, buf, sizeof(buf), argv);
	for (int i = 1; argv[i] && argv[i + 1]; i++)
		if (strcmp(argv[i], "-s") == 0)
			for (char *u = argv[i + 1]; (u = strchr(u, '_')); )
				*u = ' ';
	run_gstrace(argv, r);
}

static void test_binary_exits_2_with_one_line_on_bad_usage(void **state)
{
	size_t failures = 0;

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad_cases); i++) {
		struct ran r = { 0 };
		char *nl;

		run_line(bad_cases[i].line, &r);
		nl = strchr(r.err, '\n');
		if (r.status != 2 || r.out[0] || !base_has_prefix(r.err, "gstrace: ") || !nl || nl[1] ||
		    !strstr(r.err, bad_cases[i].says[0])) {
			print_message("`gstrace %s`: status %d, stdout '%s', stderr '%s'\n",
				      bad_cases[i].line, r.status, r.out, r.err);
			failures++;
		}
		ran_free(&r);
	}
	assert_int_equal(failures, 0);
}

static void test_binary_bad_input_exits_2_naming_it(void **state)
{
	static const struct bad_case inputs[] = {
		{ "-p 2147483647 -s trace_main_{}", { "-p 2147483647: no such process" } },
		{ "-t /nonexistent/bin -s trace_x_{}", { "-t /nonexistent/bin", "No such file" } },
		{ "-p 1 --script-file /nonexistent/s.gs", { "cannot read script file" } },
		{ "-s trace_x_{} -- /nonexistent/prog", { "cannot launch /nonexistent/prog" } },
		{ "-s trace_x_{} -- gstrace-no-such-command", { "no such command in PATH" } },
	};
	size_t failures = 0;

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(inputs); i++) {
		char line[256];
		struct ran r = { 0 };

		snprintf(line, sizeof(line), "%s", inputs[i].line);
		run_line(line, &r);
		if (r.status != 2 || !strstr(r.err, inputs[i].says[0]) ||
		    (inputs[i].says[1] && !strstr(r.err, inputs[i].says[1]))) {
			print_message("`gstrace %s`: status %d, stderr '%s'\n", line, r.status, r.err);
			failures++;
		}
		ran_free(&r);
	}
	assert_int_equal(failures, 0);
}

static void test_binary_script_error_shows_position_and_caret(void **state)
{
	struct ran r = { 0 };

	(void)state;
	run_line("-p 1 -s trace", &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "script:1:"));
	assert_non_null(strstr(r.err, "^"));
	assert_string_equal(r.out, "");
	ran_free(&r);
}

static void test_binary_help_and_version(void **state)
{
	struct ran r = { 0 };

	(void)state;
	run_line("--version", &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "gstrace " GSTRACE_VERSION "\n");
	run_line("--help", &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: gstrace"));
	assert_non_null(strstr(r.out, "--backtrace-depth"));
	assert_string_equal(r.err, "");
	ran_free(&r);
}

/* A cache directory with one file of each kind and a file of someone
 * else's: --cache-info counts the cache's, --cache-clear removes them. */
static void test_binary_cache_info_and_clear(void **state)
{
	static const struct { const char *name; size_t size; } files[] = {
		{ "aa01.cfi", 1000 }, { "bb02.funcs", 2000 }, { "cc03.debug", 3000 },
		{ "notes.txt", 10 },
	};
	char root[] = "/tmp/gs-cli-cache-XXXXXX", dir[64], line[256], p[128];
	struct ran r = { 0 };

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/c", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(files); i++) {
		FILE *f;

		snprintf(p, sizeof(p), "%s/%s", dir, files[i].name);
		assert_non_null(f = fopen(p, "w"));
		for (size_t k = 0; k < files[i].size; k++)
			fputc('x', f);
		fclose(f);
	}
	snprintf(line, sizeof(line), "--cache-info --cache-dir %s --cache-size 1M", dir);
	run_line(line, &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	snprintf(line, sizeof(line), "directory: %s (--cache-dir)\n", dir);
	assert_non_null(strstr(r.out, line));
	assert_non_null(strstr(r.out, "cap: 1.0 MiB (--cache-size)\n"));
	assert_non_null(strstr(r.out, "total: 5.9 KiB in 3 files\n"));
	assert_non_null(strstr(r.out, "cfi: 1 file, 1000 B\n"));
	assert_non_null(strstr(r.out, "index: 1 file, 2.0 KiB\n"));
	assert_non_null(strstr(r.out, "debug: 1 file, 2.9 KiB\n"));
	assert_non_null(strstr(r.out, "oldest use: "));

	/* the variables, and the old name's off losing to the new name */
	setenv("GSTRACE_CACHE_DIR", dir, 1);
	setenv("GSTRACE_CACHE_SIZE", "64M", 1);
	run_line("--cache-info", &r);
	assert_int_equal(r.status, 0);
	snprintf(line, sizeof(line), "directory: %s (GSTRACE_CACHE_DIR)\n", dir);
	assert_non_null(strstr(r.out, line));
	assert_non_null(strstr(r.out, "cap: 64.0 MiB (GSTRACE_CACHE_SIZE)\n"));
	setenv("GSTRACE_CACHE_SIZE", "lots", 1);
	run_line("--cache-info", &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "GSTRACE_CACHE_SIZE='lots' is not a size"));
	assert_non_null(strstr(r.out, "cap: 256.0 MiB (default)\n"));
	unsetenv("GSTRACE_CACHE_SIZE");
	unsetenv("GSTRACE_CACHE_DIR");
	run_line("--cache-info", &r); /* the test's GSTRACE_CFI_CACHE=off */
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "no cache directory (GSTRACE_CFI_CACHE)"));

	snprintf(line, sizeof(line), "--cache-clear --cache-dir %s", dir);
	run_line(line, &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "removed 3 files (5.9 KiB)"));
	assert_non_null(strstr(r.out, "cfi 1, index 1, debug 1, temporary 0\n"));
	snprintf(p, sizeof(p), "%s/notes.txt", dir);
	assert_int_equal(access(p, F_OK), 0);
	snprintf(line, sizeof(line), "--cache-info --cache-dir %s", dir);
	run_line(line, &r);
	assert_non_null(strstr(r.out, "total: 0 B in 0 files\n"));

	/* a directory others can write is refused, naming the fix */
	assert_int_equal(chmod(dir, 0777), 0);
	run_line(line, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "chmod 700"));
	ran_free(&r);
	snprintf(line, sizeof(line), "rm -rf %s", root);
	assert_int_equal(system(line), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_the_documented_ones),
		cmocka_unit_test(test_every_flag_sets_its_field),
		cmocka_unit_test(test_listing_and_string_cap),
		cmocka_unit_test(test_tui_takes_no_script_and_its_own_flags),
		cmocka_unit_test(test_long_short_attached_and_equals_spellings_agree),
		cmocka_unit_test(test_keywords_and_ranges_at_their_edges),
		cmocka_unit_test(test_command_after_dashdash_is_launch_mode),
		cmocka_unit_test(test_help_and_version_win_over_missing_flags),
		cmocka_unit_test(test_buffer_sizes_follow_the_kernels_rules),
		cmocka_unit_test(test_bad_usage_names_the_flag_and_the_fix),
		cmocka_unit_test(test_pprof_output_choices),
		cmocka_unit_test(test_profile_choices),
		cmocka_unit_test(test_serve_choices),
		cmocka_unit_test(test_serve_labels),
		cmocka_unit_test(test_binary_exits_2_with_one_line_on_bad_usage),
		cmocka_unit_test(test_binary_bad_input_exits_2_naming_it),
		cmocka_unit_test(test_binary_script_error_shows_position_and_caret),
		cmocka_unit_test(test_binary_help_and_version),
		cmocka_unit_test(test_binary_cache_info_and_clear),
		cmocka_unit_test(test_cache_flags_and_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
