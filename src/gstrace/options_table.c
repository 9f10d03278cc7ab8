/* gstrace's flags, one row each (options_table.h says what a row holds),
 * and --help printed from them, grouped as the man page groups them
 * (docs/gstrace.1 says more): a flag cannot be parsed yet left out of
 * --help. */
#include <stdio.h>
#include <string.h>

#include <gs/formats.h>

#include "base.h"
#include "options.h"
#include "options_table.h"

const struct opt cli_opts[] = {
	{ O_PID, "pid", 'p', "PID", G_TARGETS, "trace this process only" },
	{ O_TARGET, "target", 't', "PATH", G_TARGETS,
	  "resolve targets in PATH; alone: all that map it" },

	{ O_SCRIPT, "script", 's', "SCRIPT", G_SCRIPT,
	  "e.g. 'trace foo { print \"x={}\", $pid; bt; }'" },
	{ O_SCRIPT_FILE, "script-file", 0, "FILE", G_SCRIPT, "read the script from FILE" },

	{ O_PROFILE, "profile", 0, "HZ", G_PROFILE,
	  "sample CPUs HZ times a second (default 99)", .value_optional = true },
	{ O_ALL, "all", 0, NULL, G_PROFILE, "with --profile or --serve: every process" },
	{ O_KERNEL_STACKS, "kernel-stacks", 0, NULL, G_PROFILE,
	  "the kernel stack above each sample too" },
	{ O_UNWIND_MEMORY, "unwind-memory", 0, "MB", G_PROFILE,
	  "memory the unwind rows may take (default 64)" },

	{ O_SERVE, "serve", 0, "ADDR:PORT", G_SERVE,
	  "serve /metrics and /debug/pprof over HTTP" },
	{ O_SERVE_TOKEN, "serve-token", 0, "FILE", G_SERVE,
	  "the bearer token requests need (a 0600 file)" },
	{ O_SERVE_TLS_CERT, "serve-tls-cert", 0, "FILE", G_SERVE,
	  "HTTPS with this certificate (PEM)" },
	{ O_SERVE_TLS_KEY, "serve-tls-key", 0, "FILE", G_SERVE,
	  "and this private key of it (PEM)" },
	{ O_SERVE_MAX_SERIES, "serve-max-series", 0, "N", G_SERVE,
	  "series a scrape may hold (default 10000)" },
	{ O_SERVE_MAX_SECONDS, "serve-max-seconds", 0, "N", G_SERVE,
	  "the longest profile ?seconds= (default 300)" },
	{ O_SERVE_LABEL, "serve-label", 0, "NAME=VALUE", G_SERVE,
	  "a label on every series (repeatable)", .repeatable = true },

	{ O_FORMAT, "script-output", 0, "FORMAT", G_OUTPUT,
	  "what events print as (default pretty)", .value_formats = true },
	{ O_FORMAT, "output-format", 0, "FORMAT", G_OUTPUT,
	  "the same as --script-output", .value_formats = true },
	{ O_TIMESTAMP, "script-timestamp", 0, "local|boot|none", G_OUTPUT,
	  "pretty output's event time (default local)" },
	{ O_OUTPUT, "output", 'o', "FILE", G_OUTPUT, "write events to FILE instead of stdout" },
	{ O_AGGREGATE, "aggregate", 0, NULL, G_OUTPUT,
	  "count identical events, print them at exit" },
	{ O_INTERVAL, "interval", 0, "SECONDS", G_OUTPUT,
	  "also print the counts so far every SECONDS" },
	{ O_COUNT_IN, "count-in", 0, "bpf|user", G_OUTPUT,
	  "where stacks are counted (default user)" },
	{ O_MAX_KEYS, "max-keys", 0, "N", G_OUTPUT,
	  "entries of @aggregations' map (default 4096)" },
	{ O_FLAMEGRAPH, "flamegraph", 0, "FILE.svg", G_OUTPUT,
	  "a flame graph of the backtraces at exit" },
	{ O_PPROF, "pprof", 0, "FILE.pb.gz", G_OUTPUT,
	  "the backtraces at exit as a pprof profile" },
	{ O_NO_DEMANGLE, "no-demangle", 0, NULL, G_OUTPUT,
	  "C++ and Rust names as the linker sees them" },
	{ O_NO_PY_LINES, "no-py-lines", 0, NULL, G_OUTPUT,
	  "folded Python frames by function, not line" },
	{ O_QUIET, "quiet", 0, NULL, G_OUTPUT,
	  "no events or tables on the terminal" },

	{ O_DEPTH, "backtrace-depth", 0, "N (1..512)", G_VALUES,
	  "frames per backtrace (default 128)" },
	{ O_UNWINDER, "unwinder", 0, "loop|tailcall", G_VALUES,
	  "backtrace walker (default loop, Linux 5.17+)" },
	{ O_PYTHON_FRAMES, "python-frames", 0, "auto|on|off", G_VALUES,
	  "Python functions in backtraces (default auto)" },
	{ O_FAULT_IN, "fault-in", 0, "auto|on|off", G_VALUES,
	  "reads fault pages in, as gdb's (default auto)" },
	{ O_MAX_STRING_LEN, "max-string-len", 0, "N", G_VALUES,
	  "bytes a {:s} or {:x.N} keeps (default 256)" },
	{ O_MAX_ELEMENTS, "max-elements", 0, "N", G_VALUES,
	  "elements of a container shown (default 200)" },
	{ O_MAX_NESTING, "max-nesting", 0, "N", G_VALUES,
	  "containers inside containers read (default 4)" },

	{ O_TUI, "tui", 0, NULL, G_INTERACTIVE,
	  "the interactive mode (docs/tui.md)" },
	{ O_TUI_HISTORY, "tui-history", 0, "LINES", G_INTERACTIVE,
	  "output lines kept (default 10000)" },
	{ O_SRCPATH, "srcpath", 0, "FROM=TO|DIR", G_INTERACTIVE,
	  "where the sources are now (repeatable)", .repeatable = true },

	{ O_LIST, "list", 'l', "PATTERN", G_LISTING,
	  "functions matching a glob, with file:line" },
	{ O_LIST_VARS, "list-vars", 0, "TARGET", G_LISTING,
	  "the variables visible at a trace target" },

	{ O_MAX_EVENTS, "max-events", 0, "N", G_STOPPING,
	  "stop after N events that printed something" },
	{ O_DURATION, "duration", 0, "SECONDS", G_STOPPING,
	  "stop after SECONDS (e.g. 5 or 0.5) of tracing" },

	{ O_FORCE_PERF, "force-perf-event-array", 0, NULL, G_BUFFERS,
	  "per-CPU perf buffers, not the ring buffer" },
	{ O_RINGBUF_SIZE, "ringbuf-size", 0, "BYTES", G_BUFFERS,
	  "ring buffer size, a power of two (e.g. 4M)" },
	{ O_PERF_PAGES, "perf-pages", 0, "N", G_BUFFERS,
	  "pages per CPU of the perf buffers, a power of 2" },

	{ O_CACHE_DIR, "cache-dir", 0, "DIR", G_CACHE,
	  "where it is (default ~/.cache/gstrace/cfi)" },
	{ O_CACHE_SIZE, "cache-size", 0, "SIZE|off", G_CACHE,
	  "what it may hold (default 256M)" },
	{ O_CACHE_INFO, "cache-info", 0, NULL, G_CACHE, "show what it holds, by kind" },
	{ O_CACHE_CLEAR, "cache-clear", 0, NULL, G_CACHE, "remove its files" },

	{ O_DRY_RUN, "dry-run", 0, NULL, G_OTHER,
	  "resolve and build, print a summary, load nothing" },
	{ O_DUMP_INSNS, "dump-insns", 0, NULL, G_OTHER,
	  "print the BPF instructions, load nothing" },
	{ O_MAX_PROBES, "max-probes", 0, "N", G_OTHER,
	  "probe addresses a script may have (default 4096)" },
	{ O_READY, "emit-ready-marker", 0, "TEXT", G_OTHER,
	  "print TEXT on stderr once every probe is attached" },
	{ O_VERBOSE, "verbose", 0, NULL, G_OTHER,
	  "start-up time per phase, buffer sizes, counts" },
	{ O_DEBUG_DIRS, "debug-file-directory", 0, "DIRS", G_OTHER,
	  "debug-file roots, ':'-separated (/usr/lib/debug)" },
	{ O_CONFIG, "config", 0, "FILE", G_OTHER,
	  "flags from a YAML file (keys: the long flags)" },
	{ O_HELP, "help", 'h', NULL, G_OTHER, "this text" },
	{ O_VERSION, "version", 0, NULL, G_OTHER, "print the version" },
};
const size_t cli_nopts = BASE_ARRAY_SIZE(cli_opts);

static const char *const headings[G_COUNT] = {
	[G_TARGETS] = "targets",
	[G_SCRIPT] = "script",
	[G_PROFILE] = "CPU profiles",
	[G_SERVE] = "the agent (docs/agent.md)",
	[G_OUTPUT] = "output",
	[G_VALUES] = "backtraces and values",
	[G_INTERACTIVE] = "interactive",
	[G_LISTING] = "listing (trace nothing)",
	[G_STOPPING] = "stopping",
	[G_BUFFERS] = "event buffers",
	[G_CACHE] = "the on-disk cache",
	[G_OTHER] = "other",
};

/* One line of a group: the flag left, its help at CLI_HELP_COLUMN (on the
 * next line when the flag reaches that far). */
static void print_row(FILE *f, const char *flag, const char *help)
{
	int n = fprintf(f, "%s", flag);

	if (n + 2 > CLI_HELP_COLUMN) {
		fputc('\n', f);
		n = 0;
	}
	fprintf(f, "%*s%s\n", CLI_HELP_COLUMN - n, "", help);
}

const struct opt *cli_opt_find(const char *name, size_t len)
{
	for (size_t i = 0; i < cli_nopts; i++)
		if (strlen(cli_opts[i].name) == len && strncmp(cli_opts[i].name, name, len) == 0)
			return &cli_opts[i];
	return NULL;
}

const char *cli_format_names(char *buf, size_t size, const char *sep, const char *last)
{
	size_t n = 0, left = 0, count = gs_output_format_count();

	for (size_t i = 0; i < count; i++)
		left += cli_format_writable(gs_output_format((enum gs_output_id)i));
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < count && n < size; i++) {
		const struct gs_output_format *f = gs_output_format((enum gs_output_id)i);

		if (!cli_format_writable(f))
			continue;
		left--;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", f->name,
				      left > 1 ? sep : left == 1 ? last : "");
	}
	return buf;
}

const char *cli_opt_value(const struct opt *o, char *buf, size_t size)
{
	if (!o->value)
		return NULL;
	if (!o->value_formats)
		return o->value;
	return cli_format_names(buf, size, "|", "|");
}

static void print_opt(FILE *f, const struct opt *o)
{
	char flag[CLI_HELP_COLUMN + 64], value[128];
	int n;

	n = o->letter ? snprintf(flag, sizeof(flag), "  -%c, --%s", o->letter, o->name) :
			snprintf(flag, sizeof(flag), "      --%s", o->name);
	if (o->value)
		snprintf(flag + n, sizeof(flag) - (size_t)n, o->value_optional ? " [%s]" : " %s",
			 cli_opt_value(o, value, sizeof(value)));
	print_row(f, flag, o->help);
}

/* The rows of the formats' table written when, under a line saying
 * where they are chosen. */
static void print_formats(FILE *f, const char *title, bool served)
{
	char name[64];

	fprintf(f, "  %s:\n", title);
	for (size_t i = 0; i < gs_output_format_count(); i++) {
		const struct gs_output_format *fmt = gs_output_format((enum gs_output_id)i);

		if (cli_format_writable(fmt) == served)
			continue;
		snprintf(name, sizeof(name), "    %s", fmt->name);
		print_row(f, name, fmt->help);
	}
}

void cli_usage(FILE *f)
{
	fputs("usage: gstrace [options] -p PID (-s SCRIPT | --script-file FILE)\n"
	      "       gstrace [options] -t PATH (-s SCRIPT | --script-file FILE)\n"
	      "       gstrace [options] -p PID -t PATH (-s SCRIPT | --script-file FILE)\n"
	      "       gstrace [options] (-s SCRIPT | --script-file FILE) -- CMD [ARGS...]\n"
	      "       gstrace --tui [options] (-p PID | -t PATH | -- CMD [ARGS...])\n"
	      "       gstrace (-l PATTERN | --list-vars TARGET) (-p PID | -t PATH)\n"
	      "       gstrace --profile [HZ] (-p PID | -t PATH | --all | -- CMD [ARGS...])\n"
	      "       gstrace --serve ADDR:PORT [--profile [HZ]] [-s SCRIPT |\n"
	      "               --script-file FILE] (-p PID | -t PATH | --all | -- CMD [ARGS...])\n"
	      "       gstrace --config FILE [options]\n"
	      "       gstrace (--cache-info | --cache-clear) [--cache-dir DIR]\n"
	      "\n"
	      "Attaches uprobes to functions of running programs and prints, per hit, what\n"
	      "the script asks for: values and DWARF-unwound user backtraces.\n"
	      "\n", f);
	for (int g = 0; g < G_COUNT; g++) {
		fprintf(f, "%s:\n", headings[g]);
		for (size_t i = 0; i < cli_nopts; i++)
			if (cli_opts[i].group == (enum opt_group)g)
				print_opt(f, &cli_opts[i]);
		/* the command to launch is no flag, but it is a target */
		if (g == G_TARGETS)
			print_row(f, "  -- CMD [ARGS...]", "launch CMD, trace it, exit with its status");
		if (g == G_SERVE)
			print_formats(f, "what /metrics answers in", true);
		if (g == G_OUTPUT)
			print_formats(f, "formats of --script-output", false);
	}
	fputs("\n"
	      "Exit status: 0 success, 1 runtime failure, 2 bad usage or bad input.\n"
	      "See gstrace(1) for the script language and the output formats.\n", f);
}
