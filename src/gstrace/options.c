/* gstrace's command line: a parser over the table of flags
 * (options_table.c) that accepts `-p 12`, `-p12`, `--pid 12` and
 * `--pid=12`, stops at `--` (what follows is the command to launch), and
 * checks every value; the combinations are options_rules.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/formats.h>
#include <gs/program.h>
#include <gs/protocol.h>

#include "base.h"
#include "options.h"
#include "options_table.h"

#define MAX_DURATION_S 315360000ull /* ten years */
#define RINGBUF_MAX (1ull << 30)      /* 1 GiB: more is kernel memory nobody reads */
#define PERF_PAGES_MAX 65536u         /* per CPU: 256 MiB with 4 KiB pages */
#define CACHE_SIZE_MAX (1ull << 50)   /* 1 PiB: no disk is larger, a typo is */
#define SERVE_MAX_SERIES 1000000u     /* a scrape of more is hundreds of MB of text */
#define SERVE_MAX_SECONDS 3600u       /* an hour: a longer profile is a mistake */

/* One or more absolute directories separated by ':'. */
static bool dir_list(const char *v)
{
	for (const char *p = v;; p++) {
		if (*p != '/')
			return false;
		if (!(p = strchr(p, ':')))
			return true;
	}
}

/* Keyword values, in enum order (the formats are gs/formats.h's rows). */
static const char *const timestamps[] = { "local", "boot", "none" };
static const char *const unwinders[] = { "tailcall", "loop" }; /* enum gs_unwinder order */
static const char *const count_places[] = { "user", "bpf" };
static const char *const fault_modes[] = { "auto", "on", "off" }; /* enum cli_fault_in order */
static const char *const python_modes[] = { "auto", "off", "on" }; /* enum gs_python_frames */

/* A decimal number without sign or spaces, within [lo, hi]. */
static bool parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static uint64_t pow2_above(uint64_t n)
{
	uint64_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* Seconds as `5`, `0.5` or `2.125` (millisecond precision), more than 0. */
static bool parse_seconds(const char *s, uint64_t *ms)
{
	uint64_t whole = 0, frac = 0, scale = 100;
	const char *dot = strchr(s, '.');
	char head[24];
	size_t n = dot ? (size_t)(dot - s) : strlen(s);

	if (n >= sizeof(head) || (n == 0 && !dot))
		return false;
	memcpy(head, s, n);
	head[n] = '\0';
	if (n && !parse_uint(head, 0, MAX_DURATION_S, &whole))
		return false;
	if (dot) {
		if (!dot[1])
			return false;
		for (const char *p = dot + 1; *p; p++) {
			if (*p < '0' || *p > '9')
				return false;
			frac += (uint64_t)(*p - '0') * scale;
			scale /= 10;
		}
	}
	*ms = whole * 1000 + frac;
	return *ms > 0;
}

bool cli_parse_bytes(const char *v, uint64_t max, uint64_t *out)
{
	uint64_t n, scale = 1;
	size_t len = strlen(v);
	char digits[24];

	if (len && strchr("kKmMgG", v[len - 1])) {
		char u = (char)(v[len - 1] | 0x20);

		scale = u == 'k' ? 1ull << 10 : u == 'm' ? 1ull << 20 : 1ull << 30;
		len--;
	}
	if (len == 0 || len >= sizeof(digits))
		return false;
	memcpy(digits, v, len);
	digits[len] = '\0';
	if (!parse_uint(digits, 1, max, &n) || n > max / scale)
		return false;
	*out = n * scale;
	return true;
}

/* A ring buffer's size, checked against the kernel's rule for
 * BPF_MAP_TYPE_RINGBUF: a power of two and a multiple of the page size. */
static int parse_ringbuf_size(struct cli *c, const char *flag, const char *v, char *msg,
			      size_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), n;

	if (!cli_parse_bytes(v, RINGBUF_MAX, &n))
		return cli_usage_error(msg, size, "%s '%s' is not a size; give bytes, a power of two up "
				   "to 1G, as a number or with K, M or G (e.g. %s 4M)", flag, v, flag);
	if ((n & (n - 1)) || n % page)
		return cli_usage_error(msg, size, "%s %s: the kernel takes a ring buffer whose size "
				   "is a power of two and a multiple of the page size (%llu "
				   "bytes); give e.g. %s %lluK or %s 4M", flag, v,
				   (unsigned long long)page, flag,
				   (unsigned long long)(n < page ? page : pow2_above(n)) >> 10,
				   flag);
	c->ringbuf_size = (uint32_t)n;
	return 0;
}

/* A file name flag's value: not empty. */
static int need_file(const char *flag, const char *v, const char *what, char *msg, size_t size)
{
	if (*v)
		return 0;
	return cli_usage_error(msg, size, "%s needs a file name; give %s", flag, what);
}

static int keyword(const char *s, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, words[i]) == 0)
			return (int)i;
	return -1;
}

/* One flag with its value (NULL for switches); `flag` is the spelling the
 * user wrote, for messages. */
static int apply(struct cli *c, const struct opt *o, const char *flag, const char *v,
		 char *msg, size_t size)
{
	uint64_t n;
	int k;

	switch (o->id) {
	case O_PID:
		if (!parse_uint(v, 1, 0x7fffffff, &n))
			return cli_usage_error(msg, size, "%s '%s' is not a process id; give a positive "
					   "number (e.g. %s 1234)", flag, v, flag);
		c->pid = (pid_t)n;
		break;
	case O_TARGET:
		if (!*v)
			return cli_usage_error(msg, size, "%s needs a path; give the executable or "
					   "library to trace (e.g. %s /usr/bin/foo)", flag, flag);
		c->target = v;
		break;
	case O_SCRIPT:
		c->script = v;
		break;
	case O_SCRIPT_FILE:
		if (!*v)
			return cli_usage_error(msg, size, "%s needs a file name; give the script "
					   "file to read", flag);
		c->script_file = v;
		break;
	case O_DEPTH:
		if (!parse_uint(v, 1, GS_BT_LOOP_MAX_DEPTH, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give a number "
					   "from 1 to %d", flag, v, GS_BT_LOOP_MAX_DEPTH);
		c->backtrace_depth = (uint32_t)n;
		break;
	case O_UNWINDER:
		if ((k = keyword(v, unwinders, BASE_ARRAY_SIZE(unwinders))) < 0)
			return cli_usage_error(msg, size, "%s '%s' is not an unwinder; give loop or "
					   "tailcall", flag, v);
		c->unwinder = k;
		break;
	case O_PYTHON_FRAMES:
		/* auto, off, on: enum gs_python_frames order */
		if ((k = keyword(v, python_modes, BASE_ARRAY_SIZE(python_modes))) < 0)
			return cli_usage_error(msg, size, "%s '%s' is not a Python frames mode; give "
					   "auto, on or off", flag, v);
		c->python_frames = k;
		break;
	case O_NO_PY_LINES:
		c->no_py_lines = true;
		break;
	case O_FAULT_IN:
		if ((k = keyword(v, fault_modes, BASE_ARRAY_SIZE(fault_modes))) < 0)
			return cli_usage_error(msg, size, "%s '%s' is not a fault-in mode; give auto, "
					   "on or off", flag, v);
		c->fault_in = (enum cli_fault_in)k;
		break;
	case O_FORMAT: {
		const struct gs_output_format *f = gs_output_format_find(v);
		char names[128];

		cli_format_names(names, sizeof(names), ", ", " or ");
		if (f && !cli_format_writable(f))
			return cli_usage_error(msg, size, "%s '%s': the agent serves %s (gstrace "
					   "--serve ADDR:PORT, /metrics); give %s", flag, v,
					   f->name, names);
		if (!f)
			return cli_usage_error(msg, size, "%s '%s' is not an output format; give "
					   "%s", flag, v, names);
		c->format = (enum cli_format)f->id;
		c->format_set = true;
		break;
	}
	case O_TIMESTAMP:
		if ((k = keyword(v, timestamps, BASE_ARRAY_SIZE(timestamps))) < 0)
			return cli_usage_error(msg, size, "%s '%s' is not a timestamp style; give "
					   "local, boot or none", flag, v);
		c->timestamp = (enum cli_timestamp)k;
		break;
	case O_FORCE_PERF:
		c->force_perf = true;
		break;
	case O_NO_DEMANGLE:
		c->no_demangle = true;
		break;
	case O_DRY_RUN:
		c->dry_run = true;
		break;
	case O_DUMP_INSNS:
		c->dump_insns = true;
		break;
	case O_MAX_EVENTS:
		if (!parse_uint(v, 1, UINT64_MAX / 2, &n))
			return cli_usage_error(msg, size, "%s '%s' is not a count; give a whole number "
					   "of events, at least 1", flag, v);
		c->max_events = n;
		break;
	case O_DURATION:
		if (!parse_seconds(v, &c->duration_ms))
			return cli_usage_error(msg, size, "%s '%s' is not a duration; give seconds "
					   "greater than 0 (e.g. %s 5 or %s 0.5)", flag, v, flag, flag);
		break;
	case O_MAX_PROBES:
		if (!parse_uint(v, 1, CLI_MAX_PROBES_LIMIT, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give a number of "
					   "probes from 1 to %u", flag, v, CLI_MAX_PROBES_LIMIT);
		c->max_probes = (size_t)n;
		break;
	case O_READY:
		c->ready_marker = v;
		break;
	case O_OUTPUT:
		if (!*v)
			return cli_usage_error(msg, size, "%s needs a file name; give where to write "
					   "the events", flag);
		c->output = v;
		break;
	case O_RINGBUF_SIZE:
		return parse_ringbuf_size(c, flag, v, msg, size);
	case O_PERF_PAGES:
		/* libbpf's perf buffers, like perf -m, take a power of two */
		if (!parse_uint(v, 1, PERF_PAGES_MAX, &n) || (n & (n - 1)))
			return cli_usage_error(msg, size, "%s '%s' is not a page count the kernel takes; "
					   "give a power of two from 1 to %u pages per CPU (e.g. "
					   "%s 256)", flag, v, PERF_PAGES_MAX, flag);
		c->perf_pages = (uint32_t)n;
		break;
	case O_AGGREGATE:
		c->aggregate = true;
		break;
	case O_COUNT_IN:
		if ((k = keyword(v, count_places, BASE_ARRAY_SIZE(count_places))) < 0)
			return cli_usage_error(msg, size, "%s '%s' is not where to count; give bpf or "
					   "user", flag, v);
		c->count_in_bpf = k == 1;
		c->count_in_given = true;
		break;
	case O_INTERVAL:
		if (!parse_seconds(v, &c->interval_ms))
			return cli_usage_error(msg, size, "%s '%s' is not a duration; give seconds "
					   "greater than 0 (e.g. %s 1 or %s 0.5)", flag, v, flag, flag);
		break;
	case O_FLAMEGRAPH:
		if (!*v)
			return cli_usage_error(msg, size, "%s needs a file name; give where to write "
					   "the SVG (e.g. %s out.svg)", flag, flag);
		c->flamegraph = v;
		break;
	case O_PPROF:
		if (!*v)
			return cli_usage_error(msg, size, "%s needs a file name; give where to write "
					   "the profile (e.g. %s out.pb.gz)", flag, flag);
		c->pprof = v;
		break;
	case O_VERBOSE:
		c->verbose = true;
		break;
	case O_DEBUG_DIRS:
		if (!dir_list(v))
			return cli_usage_error(msg, size, "%s '%s' is not a list of directories; give "
					   "absolute paths separated by ':' (as gdb's "
					   "debug-file-directory)", flag, v);
		c->debug_dirs = v;
		break;
	case O_LIST:
		if (!*v)
			return cli_usage_error(msg, size, "%s needs a pattern; give a function name or a "
					   "glob (e.g. %s 'http_*')", flag, flag);
		c->list_functions = v;
		break;
	case O_LIST_VARS:
		if (!*v)
			return cli_usage_error(msg, size, "%s needs a target; give a function, file:line "
					   "or 0xADDR (e.g. %s main)", flag, flag);
		c->list_vars = v;
		break;
	case O_MAX_STRING_LEN:
		if (!parse_uint(v, 1, GS_DEFAULT_MAX_TRACE_EVENT_SIZE, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give the bytes a "
					   "string or dump keeps, 1 to %d (default %d; an event "
					   "holds at most %d)", flag, v, GS_DEFAULT_MAX_TRACE_EVENT_SIZE,
					   GS_DEFAULT_MAX_STRING_LEN, GS_DEFAULT_MAX_TRACE_EVENT_SIZE);
		c->max_string_len = (uint32_t)n;
		break;
	case O_MAX_KEYS:
		if (!parse_uint(v, 1, 1u << 24, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give the entries "
					   "the aggregations' map holds, 1 to %u (default %d)", flag,
					   v, 1u << 24, GS_AGG_DEFAULT_MAX_KEYS);
		c->max_keys = (uint32_t)n;
		break;
	case O_MAX_ELEMENTS:
		if (!parse_uint(v, 1, GS_VIEW_MAX_ELEMENTS, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give the elements of "
					   "a container (and characters of a string) to show, 1 to "
					   "%d (default %d, as gdb's print elements)", flag, v,
					   GS_VIEW_MAX_ELEMENTS, GS_VIEW_DEFAULT_ELEMENTS);
		c->max_elements = (uint32_t)n;
		break;
	case O_MAX_NESTING:
		if (!parse_uint(v, 1, GS_VIEW_MAX_DEPTH, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give how many "
					   "standard-library values inside each other are read, 1 "
					   "to %d (default %d)", flag, v, GS_VIEW_MAX_DEPTH,
					   GS_VIEW_DEFAULT_DEPTH);
		c->max_nesting = (uint32_t)n;
		break;
	case O_TUI:
		c->tui = true;
		break;
	case O_TUI_HISTORY:
		if (!parse_uint(v, 100, 10000000, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give the lines the "
					   "output panel keeps, 100 to 10000000 (default 10000)", flag, v);
		c->tui_history = (size_t)n;
		break;
	case O_SRCPATH:
		if (!*v || *v == '=' || (strchr(v, '=') && !strchr(v, '=')[1]))
			return cli_usage_error(msg, size, "%s '%s' is not a source path; give "
					   "FROM=TO (a build-time prefix and where those sources are "
					   "now) or a DIR to search (e.g. %s /build/src=/home/me/src)",
					   flag, v, flag);
		if (c->nsrcpaths == CLI_MAX_SRCPATHS)
			return cli_usage_error(msg, size, "more than %d %s flags; give at most %d "
					   "(add more with `srcpath` in the interactive mode)",
					   CLI_MAX_SRCPATHS, flag, CLI_MAX_SRCPATHS);
		c->srcpaths[c->nsrcpaths++] = v;
		break;
	case O_PROFILE:
		if (!v)
			c->profile_hz = PROFILE_DEFAULT_HZ;
		else if (!parse_uint(v, 1, PROFILE_MAX_HZ, &n))
			return cli_usage_error(msg, size, "%s '%s' is not a sampling frequency; give "
					   "samples a second per CPU, 1 to %d (e.g. %s 99)", flag, v,
					   PROFILE_MAX_HZ, flag);
		else
			c->profile_hz = (uint32_t)n;
		break;
	case O_ALL:
		c->all = true;
		break;
	case O_KERNEL_STACKS:
		c->kernel_stacks = true;
		break;
	case O_UNWIND_MEMORY:
		if (!parse_uint(v, 1, 65536, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give the megabytes "
					   "the unwind rows of the profiled processes may take, 1 to "
					   "65536 (default %d)", flag, v, PROFILE_DEFAULT_UNWIND_MB);
		c->unwind_memory_mb = (uint32_t)n;
		break;
	case O_CACHE_DIR:
		if (v[0] != '/')
			return cli_usage_error(msg, size, "%s '%s' is not an absolute directory; give "
					   "one (e.g. %s $HOME/.cache/gstrace/cfi)", flag, v, flag);
		c->cache_dir = v;
		break;
	case O_CACHE_SIZE:
		c->cache_off = strcmp(v, "off") == 0 || strcmp(v, "0") == 0;
		if (!c->cache_off && !cli_parse_bytes(v, CACHE_SIZE_MAX, &c->cache_size))
			return cli_usage_error(msg, size, "%s '%s' is not a size; give bytes as a "
					   "number or with K, M or G (e.g. %s 512M), or off", flag,
					   v, flag);
		break;
	case O_CACHE_INFO:
	case O_CACHE_CLEAR:
		k = o->id == O_CACHE_INFO ? CLI_CACHE_INFO : CLI_CACHE_CLEAR;
		/* the same one twice (a config file's and argv's) is one */
		if (c->action != CLI_RUN && c->action != (enum cli_action)k)
			return cli_usage_error(msg, size, "--cache-info and --cache-clear both given; "
					   "give one");
		c->action = (enum cli_action)k;
		break;
	case O_SERVE:
		if (srv_listen_parse(v, &c->serve_listen, msg, size))
			return -EINVAL;
		c->serve = v;
		break;
	case O_SERVE_TOKEN:
		if (need_file(flag, v, "the file holding the token, mode 0600", msg, size))
			return -EINVAL;
		c->serve_token = v;
		break;
	case O_SERVE_TLS_CERT:
		if (need_file(flag, v, "the certificate's PEM file", msg, size))
			return -EINVAL;
		c->serve_tls_cert = v;
		break;
	case O_SERVE_TLS_KEY:
		if (need_file(flag, v, "the private key's PEM file", msg, size))
			return -EINVAL;
		c->serve_tls_key = v;
		break;
	case O_SERVE_MAX_SERIES:
		if (!parse_uint(v, 1, SERVE_MAX_SERIES, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give the series "
					   "one scrape may hold, 1 to %u (default %d)", flag, v,
					   SERVE_MAX_SERIES, SRV_DEFAULT_MAX_SERIES);
		c->serve_max_series = (uint32_t)n;
		break;
	case O_SERVE_MAX_SECONDS:
		if (!parse_uint(v, 1, SERVE_MAX_SECONDS, &n))
			return cli_usage_error(msg, size, "%s '%s' is out of range; give the longest "
					   "profile a request may ask for, 1 to %u seconds (default "
					   "%d)", flag, v, SERVE_MAX_SECONDS, SRV_DEFAULT_MAX_SECONDS);
		c->serve_max_seconds = (uint32_t)n;
		break;
	case O_SERVE_LABEL:
		return cli_parse_serve_label(c, flag, v, msg, size);
	case O_QUIET:
		c->quiet = true;
		break;
	case O_CONFIG:
		if (need_file(flag, v, "the YAML file to read flags from", msg, size))
			return -EINVAL;
		c->config = v;
		break;
	case O_HELP:
		c->action = CLI_HELP;
		break;
	case O_VERSION:
		c->action = CLI_VERSION;
		break;
	}
	return 0;
}

static const struct opt *find_short(char letter)
{
	for (size_t i = 0; i < cli_nopts; i++)
		if (cli_opts[i].letter && cli_opts[i].letter == letter)
			return &cli_opts[i];
	return NULL;
}

void cli_defaults(struct cli *c)
{
	memset(c, 0, sizeof(*c));
	c->backtrace_depth = 128;
	c->unwinder = -1;
	c->max_probes = CLI_MAX_PROBES;
}

int cli_read_flags(int argc, char *const *argv, int first, struct cli *out, bool *dashdash,
		   char *msg, size_t size)
{
	char value_text[128];
	int rc;

	if (size)
		msg[0] = '\0';
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *value = NULL;
		const struct opt *o;
		char flag[40]; /* the flag as messages name it: `-p`, `--pid` */

		if (strcmp(a, "--") == 0) {
			*dashdash = true;
			out->command = argv + i + 1;
			out->ncommand = (size_t)(argc - i - 1);
			break;
		}
		if (a[0] == '-' && a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			o = cli_opt_find(a + 2, len);
			if (!o)
				return cli_usage_error(msg, size, "unknown option '--%.*s'; see gstrace "
						   "--help", (int)len, a + 2);
			if (eq && !o->value)
				return cli_usage_error(msg, size, "--%s takes no value; write it alone",
						   o->name);
			value = eq ? eq + 1 : NULL;
			snprintf(flag, sizeof(flag), "--%s", o->name);
		} else if (a[0] == '-' && a[1]) {
			o = find_short(a[1]);
			if (!o || (!o->value && a[2]))
				return cli_usage_error(msg, size, "unknown option '%s'; see gstrace --help", a);
			value = a[2] ? a + 2 : NULL;
			snprintf(flag, sizeof(flag), "-%c", a[1]);
		} else {
			return cli_usage_error(msg, size, "unexpected argument '%s'; a command to launch "
					   "goes after -- (gstrace -s SCRIPT -- CMD ARGS)", a);
		}
		/* --profile's frequency is optional: a number after it. */
		if (o->value_optional && !value && i + 1 < argc && argv[i + 1][0] >= '0' &&
		    argv[i + 1][0] <= '9')
			value = argv[++i];
		if (o->value && !o->value_optional && !value) {
			if (i + 1 >= argc)
				return cli_usage_error(msg, size, "%s needs a value: %s %s", flag, flag,
						   cli_opt_value(o, value_text,
								 sizeof(value_text)));
			value = argv[++i];
		}
		rc = apply(out, o, flag, value, msg, size);
		if (rc)
			return rc;
		if (out->action == CLI_HELP || out->action == CLI_VERSION)
			return 0;
	}
	return 0;
}

int cli_parse(int argc, char *const *argv, struct cli *out, char *msg, size_t size)
{
	bool dashdash = false;
	int rc;

	cli_defaults(out);
	rc = cli_read_flags(argc, argv, 1, out, &dashdash, msg, size);
	if (rc || out->action == CLI_HELP || out->action == CLI_VERSION)
		return rc;
	/* the line mode's outputs only: -l -o and --tui keep their own */
	if (out->action == CLI_RUN && !out->tui && !out->list_functions && !out->list_vars &&
	    (rc = cli_settle_pprof(out, msg, size)))
		return rc;
	rc = out->action == CLI_RUN ? cli_check(out, dashdash, msg, size) :
	     cli_check_cache_mode(out, dashdash, msg, size);
	/* A profile counts in BPF and prints the table unless told otherwise
	 * (a format written at exit: folded lines, or a pprof profile alone);
	 * a script beside it (with --serve) keeps its events and its own
	 * counting flags. */
	if (rc == 0 && out->profile_hz && !out->script && !out->script_file) {
		if (!out->count_in_given)
			out->count_in_bpf = true;
		if (cli_format(out)->when == GS_OUTPUT_STREAMING)
			out->aggregate = true;
	}
	return rc;
}
