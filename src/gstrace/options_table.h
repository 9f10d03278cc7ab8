/* The one table of gstrace's flags (options_table.c): the parser reads
 * a row's name, letter and value, --help prints its group, value and help
 * line, a config file (--config, config.c) takes its name as a key, and
 * cli-help checks that the man page and docs/cli.md name every row's long
 * option and no other. A new flag is one row here, one case in
 * options.c's apply() and its paragraphs in docs/gstrace.1 and
 * docs/cli.md. */
#ifndef CLI_OPTIONS_TABLE_H
#define CLI_OPTIONS_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include <gs/formats.h>

enum opt_id {
	O_PID, O_TARGET, O_SCRIPT, O_SCRIPT_FILE, O_DEPTH, O_FORMAT, O_TIMESTAMP,
	O_FORCE_PERF, O_DRY_RUN, O_DUMP_INSNS, O_MAX_EVENTS, O_DURATION, O_READY,
	O_OUTPUT, O_HELP, O_VERSION, O_UNWINDER, O_RINGBUF_SIZE, O_PERF_PAGES, O_AGGREGATE, O_COUNT_IN,
	O_INTERVAL, O_FLAMEGRAPH, O_PPROF, O_VERBOSE, O_DEBUG_DIRS, O_MAX_PROBES, O_LIST, O_LIST_VARS,
	O_MAX_STRING_LEN, O_MAX_ELEMENTS, O_MAX_NESTING, O_NO_DEMANGLE, O_NO_PY_LINES, O_PYTHON_FRAMES, O_FAULT_IN, O_TUI, O_TUI_HISTORY, O_SRCPATH,
	O_PROFILE, O_ALL, O_KERNEL_STACKS, O_UNWIND_MEMORY,
	O_MAX_KEYS, O_CACHE_DIR, O_CACHE_SIZE, O_CACHE_INFO, O_CACHE_CLEAR,
	O_SERVE, O_SERVE_TOKEN, O_SERVE_TLS_CERT, O_SERVE_TLS_KEY, O_SERVE_MAX_SERIES,
	O_SERVE_MAX_SECONDS, O_SERVE_LABEL, O_QUIET, O_CONFIG,
};

/* --help's headings, in the order it prints them. */
enum opt_group {
	G_TARGETS,
	G_SCRIPT,
	G_PROFILE,
	G_SERVE,
	G_OUTPUT,
	G_VALUES,
	G_INTERACTIVE,
	G_LISTING,
	G_STOPPING,
	G_BUFFERS,
	G_CACHE,
	G_OTHER,
	G_COUNT
};

/* --help puts a row's help line at this column, on the flag's own line
 * when the flag and its value leave room, else on the next: a help line
 * of at most CLI_HELP_WIDTH columns keeps --help within 80. */
#define CLI_HELP_COLUMN 30
#define CLI_HELP_WIDTH (80 - CLI_HELP_COLUMN)

struct opt {
	enum opt_id id;
	const char *name;    /* long name, without the dashes */
	char letter;         /* short name, or 0 */
	/* what the value is, as --help and "needs a value" show it; NULL: a
	 * switch */
	const char *value;
	enum opt_group group;
	const char *help;    /* --help's one line, at most CLI_HELP_WIDTH columns */
	/* the value may be left out (--profile [HZ]): then only a number in
	 * the next word is taken as the value */
	bool value_optional;
	/* given again, it adds a value (--srcpath, --serve-label) where
	 * another flag's last value replaces the ones before; a config file
	 * repeats it with a sequence */
	bool repeatable;
	/* the value is a row of the output formats' table (gs/formats.h)
	 * that the command writes: --help and the messages list the rows, so
	 * value is only their placeholder */
	bool value_formats;
};

extern const struct opt cli_opts[];
extern const size_t cli_nopts;

/* The row of a long name (len bytes of name: `--pid=3` gives "pid", 3),
 * or NULL. */
const struct opt *cli_opt_find(const char *name, size_t len);
/* What o's value is, as --help and "needs a value" show it ("PID",
 * "pretty|plain|json|folded|pprof"), into buf; NULL for a switch. */
const char *cli_opt_value(const struct opt *o, char *buf, size_t size);
/* The names of the formats --script-output takes (the table's rows the
 * command writes: not the agent's), separated by sep, the last two by
 * last: ("|", "|") or (", ", " or "). Into buf, which it returns. */
const char *cli_format_names(char *buf, size_t size, const char *sep, const char *last);

#endif /* CLI_OPTIONS_TABLE_H */
