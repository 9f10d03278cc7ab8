/* The command line of gstrace (docs/cli.md): argv -> struct cli,
 * or one line saying which flag or value is wrong and how to fix it. The
 * parser only reads argv; files, pids and commands are checked by main. */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <gs/formats.h>
#include <gs/internal/serve.h>

#ifndef GSTRACE_VERSION
#define GSTRACE_VERSION "unknown"
#endif

/* Probes (one program, its maps and an attachment each) a run may have
 * unless --max-probes says otherwise. */
#define CLI_MAX_PROBES 4096
#define CLI_MAX_PROBES_LIMIT 1000000
/* --profile: samples a second per CPU by default and at most (the
 * kernel's perf_event_max_sample_rate may allow fewer), and what the unwind
 * rows of -t / --all may take by default. */
#define PROFILE_DEFAULT_HZ 99
#define PROFILE_MAX_HZ 100000
#define PROFILE_DEFAULT_UNWIND_MB 64
/* ... and the module entries of -t / --all (proc_module_offsets; the
 * walker's module snapshots take four times as many): room for about 500
 * processes mapping modules at once, as a busy host has, for ~6 MB of
 * kernel memory (the library's default, 4096, holds about 128). */
#define PROFILE_MODULE_ENTRIES 16384
/* --srcpath flags one run takes */
#define CLI_MAX_SRCPATHS 16

enum cli_action {
	CLI_RUN,
	CLI_HELP,
	CLI_VERSION,
	CLI_CACHE_INFO,  /* --cache-info: what the on-disk cache holds */
	CLI_CACHE_CLEAR, /* --cache-clear: remove its files */
};

/* --script-output: a row of the events layer's table of formats
 * (gs/formats.h), which says what each is (when it is written, whether it
 * needs stacks, whether it is binary); the command's rules and main read
 * its columns (cli_format()), these names only pick a writer. */
enum cli_format {
	CLI_PRETTY = GS_OUTPUT_PRETTY,
	CLI_PLAIN = GS_OUTPUT_PLAIN,
	CLI_JSON = GS_OUTPUT_JSON,
	CLI_FOLDED = GS_OUTPUT_FOLDED, /* stacks and their counts at exit (aggregate.c) */
	CLI_PPROF = GS_OUTPUT_PPROF,   /* a pprof profile into the -o file at exit (gs/pprof.h) */
};

enum cli_timestamp {
	CLI_TS_LOCAL,
	CLI_TS_BOOT,
	CLI_TS_NONE,
};

/* --fault-in: whether reads of user memory fault pages in (sleepable
 * uprobe programs). */
enum cli_fault_in {
	CLI_FAULT_AUTO, /* where the kernel can and the output and unwinder allow it */
	CLI_FAULT_ON,
	CLI_FAULT_OFF,
};

struct cli {
	enum cli_action action;
	pid_t pid;                /* -p; 0 when absent */
	const char *target;       /* -t PATH */
	const char *script;       /* -s TEXT */
	const char *script_file;  /* --script-file FILE */
	char *const *command;     /* after `--`: NULL-terminated, ncommand words */
	size_t ncommand;
	uint32_t backtrace_depth; /* 1..512 */
	int unwinder;             /* enum gs_unwinder, or -1: loop where the kernel has it */
	enum cli_fault_in fault_in; /* --fault-in */
	enum cli_format format;
	bool format_set;          /* --script-output given (else -o FILE.pb.gz picks pprof) */
	enum cli_timestamp timestamp;
	bool force_perf;
	bool dry_run;
	bool no_demangle; /* --no-demangle: C++/Rust names as the linker sees them */
	bool no_py_lines; /* --no-py-lines: folded Python frames without lines */
	int python_frames; /* --python-frames: enum gs_python_frames */
	bool dump_insns;
	uint64_t max_events;      /* 0: no limit */
	size_t max_probes;        /* traces and probe addresses; CLI_MAX_PROBES */
	uint64_t duration_ms;     /* 0: no limit */
	const char *ready_marker; /* NULL: none */
	const char *output;       /* -o FILE; NULL: stdout */
	uint32_t ringbuf_size;    /* --ringbuf-size; 0: the default */
	uint32_t perf_pages;      /* --perf-pages; 0: the default */
	bool aggregate;           /* --aggregate: count identical events */
	bool count_in_bpf;        /* --count-in bpf: stacks counted in a BPF map */
	bool count_in_given;      /* --count-in was given (--profile counts in BPF without) */
	uint64_t interval_ms;     /* --interval: print the counts this often */
	uint32_t max_keys;        /* --max-keys: gs_aggs entries; 0: the default */
	const char *flamegraph;   /* --flamegraph FILE.svg */
	const char *pprof;        /* --pprof FILE, or -o FILE of --script-output pprof */
	bool verbose;             /* phase timings on stderr */
	uint32_t profile_hz;      /* --profile [HZ]: CPU samples, no script; 0: none */
	bool all;                 /* --all: every process (--profile) */
	bool kernel_stacks;       /* --kernel-stacks: the kernel stack above (--profile) */
	uint32_t unwind_memory_mb; /* --unwind-memory MB: rows of --all / -t (--profile) */
	const char *debug_dirs;   /* --debug-file-directory; NULL: the default */
	const char *list_functions; /* -l PATTERN: list, trace nothing */
	const char *list_vars;    /* --list-vars TARGET: list, trace nothing */
	uint32_t max_string_len;  /* --max-string-len; 0: the default (256) */
	uint32_t max_elements;    /* --max-elements; 0: the default (200) */
	uint32_t max_nesting;     /* --max-nesting; 0: the default (4) */
	bool tui;                 /* --tui: the interactive mode (docs/tui.md) */
	size_t tui_history;       /* --tui-history LINES; 0: the default */
	/* --srcpath FROM=TO (a build path prefix mapped) or DIR (a directory
	 * searched), in the order given */
	const char *srcpaths[CLI_MAX_SRCPATHS];
	size_t nsrcpaths;
	const char *cache_dir;    /* --cache-dir DIR; NULL: from the environment */
	uint64_t cache_size;      /* --cache-size in bytes; 0: not given */
	bool cache_off;           /* --cache-size off (or 0): no on-disk cache */
	/* the agent (--serve, docs/agent.md); the serve layer checks the
	 * files when it starts (include/gs/internal/serve.h) */
	const char *serve;        /* --serve ADDR:PORT as given; NULL: no agent */
	struct srv_listen serve_listen; /* its address, parsed */
	const char *serve_token;  /* --serve-token FILE */
	const char *serve_tls_cert; /* --serve-tls-cert FILE */
	const char *serve_tls_key;  /* --serve-tls-key FILE */
	uint32_t serve_max_series;  /* --serve-max-series; 0: SRV_DEFAULT_MAX_SERIES */
	uint32_t serve_max_seconds; /* --serve-max-seconds; 0: SRV_DEFAULT_MAX_SECONDS */
	/* --serve-label NAME=VALUE, in the order given, names checked and
	 * each given once */
	const char *serve_labels[SRV_MAX_LABELS];
	size_t nserve_labels;
	bool quiet;               /* --quiet: no events or tables on the terminal */
	const char *config;       /* --config FILE: its flags come before argv's */
};

/* Whether the command writes format f (--script-output takes it): every
 * row but those the agent serves; NULL is none. */
static inline bool cli_format_writable(const struct gs_output_format *f)
{
	return f && f->when != GS_OUTPUT_SERVED;
}

/* The row of the table of formats c->format is. */
static inline const struct gs_output_format *cli_format(const struct cli *c)
{
	return gs_output_format((enum gs_output_id)c->format);
}

/* Whether c's format is written at exit from stacks counted as text
 * lines into the output (folded): the counting table of gs/fold.h makes
 * it, and it shares the output with --aggregate's table. */
static inline bool cli_format_folds(const struct cli *c)
{
	const struct gs_output_format *f = cli_format(c);

	return f->when == GS_OUTPUT_AT_EXIT && f->needs_stacks && !f->binary;
}

/* Parses argv (argv[argc] must be NULL, as main gets it). 0 and *out, or
 * -EINVAL with one line in msg (no newline) naming the flag or value and
 * the fix. --help and --version set the action and skip the other checks;
 * --cache-info and --cache-clear take only --cache-dir and --cache-size.
 * --config is only noted (c->config): cli_parse_config reads the file. */
int cli_parse(int argc, char *const *argv, struct cli *out, char *msg, size_t size);

/* The parser's steps, for a config file's flags (config.c): a struct cli
 * with every default; the flags of argv[first..argc) applied to c, up to
 * `--` (then *dashdash and the command), without the rules. A flag given
 * again replaces its value, but for a repeatable row's, which adds one.
 * 0, or -EINVAL with msg as cli_parse. */
void cli_defaults(struct cli *c);
int cli_read_flags(int argc, char *const *argv, int first, struct cli *c, bool *dashdash,
		   char *msg, size_t size);

/* Bytes as `1048576`, `256K`, `4M` or `1G` (powers of 1024), 1 to max:
 * true and *out. */
bool cli_parse_bytes(const char *v, uint64_t max, uint64_t *out);

/* The --help text: the usage lines, then every row of the option table
 * (options_table.c) under its group's heading. */
void cli_usage(FILE *f);

/* ---- within the parser: its refusal (options_error.c) ---- */

/* msg gets the formatted line; -EINVAL. */
__attribute__((format(printf, 3, 4)))
int cli_usage_error(char *msg, size_t size, const char *fmt, ...);

/* ---- within the parser: its rules (options_rules.c) ---- */

/* The combinations of a run's flags; of --cache-info/--cache-clear's. */
int cli_check(const struct cli *c, bool dashdash, char *msg, size_t size);
int cli_check_cache_mode(const struct cli *c, bool dashdash, char *msg, size_t size);
/* --serve-label's value v (flag: as the user wrote it) added to c, or a
 * name given before given its new value (options_label.c). */
int cli_parse_serve_label(struct cli *c, const char *flag, const char *v, char *msg,
			  size_t size);
/* -o FILE.pb.gz or --script-output pprof: the profile's file in c->pprof. */
int cli_settle_pprof(struct cli *c, char *msg, size_t size);

#endif /* CLI_OPTIONS_H */
