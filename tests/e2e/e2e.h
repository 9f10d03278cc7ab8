/* The e2e harness: fixture processes, the real gstrace binary run with a
 * timeout, its output parsed into backtrace blocks, and gdb's `bt` at the
 * same pc as the reference. Scenarios live in test_e2e_*.c. */
#ifndef GS_E2E_H
#define GS_E2E_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- growable text (e2e_proc.c) ------------------------------------------ */

struct e2e_buf {
	char *s; /* always NUL-terminated once anything was appended */
	size_t len, cap;
};

void e2e_buf_add(struct e2e_buf *b, const char *s, size_t n);
void e2e_buf_printf(struct e2e_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void e2e_buf_free(struct e2e_buf *b);
/* b->s, or "" when nothing was appended. */
const char *e2e_buf_str(const struct e2e_buf *b);

/* ---- child processes (e2e_proc.c) ---------------------------------------- */

/* A child with stdout and stderr captured through pipes. */
struct e2e_run {
	pid_t pid;
	int out_fd, err_fd;
	struct e2e_buf out, err;
	struct e2e_buf cmdline; /* for messages */
	bool exited;
	int status;   /* waitpid status once exited */
	bool killed;  /* the harness had to signal it at the deadline */
	double secs;  /* from start to exit */
	double start;
};

/* Starts argv[0] (a path) with stdin from /dev/null. */
int e2e_run_start(struct e2e_run *r, char *const argv[]);
/* Reads output until `needle` appears in stderr (or stdout when
 * in_stdout), the child exits, or timeout_ms passes. */
bool e2e_run_wait_for(struct e2e_run *r, const char *needle, bool in_stdout, int timeout_ms);
/* Reads output until the child exits; past timeout_ms sends SIGINT, and
 * SIGKILL 3 s later (r->killed then). Returns true when it exited alone. */
bool e2e_run_finish(struct e2e_run *r, int timeout_ms);
/* Exit code, or 128 + signal, or -1 while it runs. */
int e2e_run_exit_code(const struct e2e_run *r);
void e2e_run_free(struct e2e_run *r);
double e2e_now(void);

/* ---- fixtures (e2e_fixture.c) -------------------------------------------- */

/* $GS_E2E_DIR/<name>: fixtures are built next to the test. */
const char *e2e_fixture_path(const char *name);
const char *e2e_gstrace_path(void);
/* Line of the fixture source `file` (in tests/e2e/fixtures) holding marker. */
int e2e_source_line(const char *file, const char *marker);

struct e2e_fixture {
	const char *name;
	pid_t pid;
	int out_fd;
	struct e2e_buf out;
};

/* Starts the fixture and waits for its "ready <pid>" line. */
bool e2e_fixture_start(struct e2e_fixture *f, const char *name);
/* Waits for a line of the fixture's stdout (e.g. "loaded"). */
bool e2e_fixture_wait_line(struct e2e_fixture *f, const char *line, int timeout_ms);
/* true while the process runs and is not stopped or a zombie. */
bool e2e_fixture_running(const struct e2e_fixture *f);
/* SIGUSR1: the fixture leaves its loop; returns its exit code or -1. */
int e2e_fixture_quit(struct e2e_fixture *f, int timeout_ms);
/* SIGKILL and reap (no-op when already reaped). */
void e2e_fixture_stop(struct e2e_fixture *f);

/* A uprobe at some offset of a file claims every int3 there, gdb's too (the
 * kernel then removes gdb's breakpoint and steps over it): scenarios in
 * parallel hold this lock on a fixture, shared while gstrace runs on it,
 * exclusive while gdb does. Returns an fd for e2e_unlock, or -1. */
int e2e_lock(const char *fixture, bool exclusive);
void e2e_unlock(int fd);

/* Why this machine cannot run the scenarios (NULL when it can). */
const char *e2e_why_no_tracing(void);
const char *e2e_why_no_gdb(void);
const char *e2e_why_no_gstrace(void);

/* ---- gstrace output (e2e_parse.c) ---------------------------------------- */

#define E2E_NAME_MAX 160
/* Frames a block or gdb's bt holds at most (depth 512 and gdb's frames past
 * it); the text form is for gdb's `bt N`. */
#define E2E_MAX_FRAMES 1024
#define E2E_MAX_FRAMES_TEXT "1024"

struct e2e_frame {
	unsigned index;
	bool inline_frame;          /* `#i.inline name ...` */
	bool raw;                   /* `#i 0xPC [..] raw=0x.. cookie=0x..` */
	char func[E2E_NAME_MAX];    /* name, "<unknown function>", or "0x.." in raw */
	char module[E2E_NAME_MAX];  /* the file name inside [...] before +0x */
	uint64_t offset;            /* +0x.. inside [...] */
	bool has_module;
	uint64_t raw_ip, cookie;
	char line[512];
};

struct e2e_block {
	size_t event;             /* index of its event */
	char status[48];          /* "truncated", "complete", ... */
	unsigned nframes, max;    /* from the header line */
	struct e2e_frame *frames; /* physical and inline, in printed order */
	size_t nf;
	char stopped[160];        /* text after "stopped: ", or "" */
	struct e2e_buf text;      /* the block's lines, for substring checks */
};

struct e2e_event {
	int pid, tid;             /* from the pretty header; 0 in plain output */
	struct e2e_buf text;
	size_t first_block, nblocks;
};

struct e2e_output {
	struct e2e_event *events;
	size_t nevents;
	struct e2e_block *blocks;
	size_t nblocks;
};

/* Pretty output: an event starts at each `[..] TraceID:N PID:P TID:T`
 * header. Plain output has no headers: it is all one event. */
void e2e_parse(const char *text, struct e2e_output *out);
void e2e_output_free(struct e2e_output *o);
/* Physical frames of b (inline pseudo-frames skipped) into v; count. */
size_t e2e_block_physical(const struct e2e_block *b, const struct e2e_frame **v, size_t max);

/* ---- gdb (e2e_gdb.c) ------------------------------------------------------ */

struct e2e_gdb_frame {
	char func[E2E_NAME_MAX]; /* "??" when gdb has no symbol */
	bool has_line;           /* " at file:line": gdb has DWARF for it */
	char from[E2E_NAME_MAX]; /* file name after " from ", or "" */
	uint64_t pc;
	bool inline_frame;       /* same pc as the next frame: an inlined call */
};

struct e2e_gdb_bt {
	struct e2e_gdb_frame f[E2E_MAX_FRAMES];
	size_t n;
	struct e2e_buf text; /* gdb's output */
};

/* Attaches gdb to pid, stops at `location` (a function or file:line),
 * takes `bt` past main with each frame's $pc, detaches. false + why. */
bool e2e_gdb_backtrace(pid_t pid, const char *location, struct e2e_gdb_bt *out,
		       struct e2e_buf *why);
void e2e_gdb_free(struct e2e_gdb_bt *g);
/* gdb in batch mode attached to pid (-p), printing values as the values
 * differentials read them (no pretty print, no symbols after addresses,
 * whole strings); fills argv[0..n) and returns n (at most 32). Add -ex
 * commands and a NULL. pidbuf keeps the pid's text. */
size_t e2e_gdb_print_argv(char **argv, pid_t pid, char *pidbuf, size_t size);
/* Ends such an argv at argv[n] (echo @@END, detach, NULL: argv needs room
 * for 5 more) and runs gdb to its end, 2 minutes at most, into run (free it
 * with e2e_run_free); false, with a failed expectation, when gdb cannot
 * start. The output has "@@END" when every command before ran. */
struct e2e_ctx;
bool e2e_gdb_run_batch(struct e2e_ctx *c, char **argv, size_t n, struct e2e_run *run);

/* ---- checks (e2e_check.c) ------------------------------------------------- */

/* A scenario's expectations: failures are collected, not fatal, so one run
 * reports all of them with the output they were checked on. */
struct e2e_ctx {
	const char *scenario;
	unsigned failures;
	struct e2e_buf log;
	const char *skip; /* set by a scenario that cannot run here: why */
};

void e2e_expect(struct e2e_ctx *c, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* e2e_fixture_start, where a fixture build this machine could not make (a
 * compiler it lacks: clang) makes the scenario a skip, and a start that
 * fails a failure. */
bool e2e_fixture_start_or_skip(struct e2e_ctx *c, struct e2e_fixture *f, const char *name);
void e2e_note(struct e2e_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Substring checks on the whole block text. */
bool e2e_block_has(const struct e2e_block *b, const char *needle);
/* The physical frames #0.. #n-1 carry these function names, in order. */
bool e2e_block_ordered(const struct e2e_block *b, const char *const *names, size_t n);
/* Any of the spec's "error stops" (invalid frame, read error, unsupported
 * CFI, no unwind rows for PC) on b's stopped line. */
bool e2e_block_error_stop(const struct e2e_block *b);
/* Two adjacent physical frames with the same [module+off]. */
bool e2e_block_adjacent_dup(const struct e2e_block *b);

/* The load bias of the module pid maps whose file name is `base`. */
bool e2e_module_bias(pid_t pid, const char *base, uint64_t *bias);

/* Runtime address of f in pid: raw_ip, or [module+off] rebased with the
 * process's maps. */
bool e2e_frame_runtime_pc(pid_t pid, const struct e2e_frame *f, uint64_t *pc);

/* Compares b with gdb's stop at the same function: physical frames by
 * name in order (past main, where gstrace has no name and gdb no DWARF,
 * by module), inline pseudo-frames when `inline_shown` (a symbolized block
 * that is not `noinline`), the frame count when b is complete, and, when
 * pid is the traced process, each frame's address (raw=, or [module+off]
 * rebased with the process's maps). Records every mismatch in c. */
void e2e_compare_gdb(struct e2e_ctx *c, const struct e2e_block *b, const struct e2e_gdb_bt *g,
		     bool inline_shown, pid_t pid);

/* ---- running gstrace (e2e_check.c) ---------------------------------------- */

#define E2E_READY "E2E-GSTRACE-READY"

struct e2e_trace {
	pid_t pid;            /* -p, 0: none */
	const char *target;   /* -t, or NULL */
	const char *script;   /* -s */
	unsigned depth;       /* --backtrace-depth, 0: the default */
	const char *output;   /* --script-output, NULL: the default (pretty) */
	unsigned max_events;  /* --max-events, 0: none */
	unsigned duration;    /* --duration, 0: none */
	bool perf;            /* --force-perf-event-array */
	const char *extra[8]; /* more arguments */
	const char *command;  /* launch mode: `-- command` after the script */
};

/* Starts gstrace with --emit-ready-marker E2E_READY and the options in t. */
bool e2e_trace_start(struct e2e_ctx *c, const struct e2e_trace *t, struct e2e_run *r);
/* Waits for gstrace to end (timeout_ms, then SIGINT/SIGKILL), logs its
 * command, exit code, time and output into c, and parses stdout. */
void e2e_trace_finish(struct e2e_ctx *c, struct e2e_run *r, int timeout_ms, struct e2e_output *out);
/* Start + finish. */
void e2e_trace_run(struct e2e_ctx *c, const struct e2e_trace *t, struct e2e_run *r,
		   struct e2e_output *out);

/* ---- a traced fixture and gdb's reference (e2e_traced.c) ------------------ */

/* One traced fixture: its process, the gstrace run, gdb's reference. */
struct e2e_traced {
	struct e2e_fixture f;
	struct e2e_run r;
	struct e2e_output out;
	struct e2e_gdb_bt g;
	bool have_gdb;
	/* Leading blocks allowed an error stop: those of the events that came
	 * before gstrace had the rows of a module mapped after it attached. */
	size_t settle;
	/* The fixture recurses: adjacent frames may share a return address. */
	bool recursion;
};

/* The block comes from the fixture process (its event header, or none). */
bool e2e_from_fixture(const struct e2e_traced *t, const struct e2e_block *b);
void e2e_traced_free(struct e2e_traced *t);
/* gdb's `bt` stopped at gstrace's frame #0 of the fixture (else `where`). */
void e2e_take_gdb(struct e2e_ctx *c, struct e2e_traced *t, const char *where);
/* Starts `fixture`, traces it (pid mode unless tr->target is set and
 * tr->pid is not -1) until max_events (default 3), then takes gdb's
 * reference at `where` (none when NULL). */
bool e2e_trace_fixture(struct e2e_ctx *c, struct e2e_traced *t, const char *fixture,
		       struct e2e_trace *tr, const char *where);
/* What every block must satisfy: the header's depth and count, no error
 * stop, no repeated frame, gdb's frames. inline_shown[k]: the k-th `bt`
 * of the trace shows inline frames. */
void e2e_check_blocks(struct e2e_ctx *c, struct e2e_traced *t, unsigned depth,
		      const bool *inline_shown, size_t nshown);

/* ---- scenarios (test_e2e_*.c, run by e2e_main.c) ------------------------- */

enum {
	E2E_NEED_TRACING = 1 << 0, /* root, uprobes */
	E2E_NEED_GDB = 1 << 1,
};

struct e2e_scenario {
	const char *name;
	void (*run)(struct e2e_ctx *c);
	unsigned needs;
};

/* A table of scenarios, and the runner main() hands them to (e2e_runner.c):
 * `prog SCENARIO` runs one as a cmocka test (exit 77, skipped, with the
 * reason when this machine cannot), `prog --list` names them all. */
struct e2e_table {
	const struct e2e_scenario *v;
	const size_t *n;
};
int e2e_main(int argc, char **argv, const char *suite, const struct e2e_table *t, size_t nt);

/* The tracefs uprobe_events text ("" where there is none); malloc'd. */
char *e2e_uprobe_events(void);

extern const struct e2e_scenario e2e_bt_scenarios[];
extern const size_t e2e_bt_nscenarios;
extern const struct e2e_scenario e2e_cli_scenarios[];
extern const size_t e2e_cli_nscenarios;
extern const struct e2e_scenario e2e_fault_scenarios[];
extern const size_t e2e_fault_nscenarios;
extern const struct e2e_scenario e2e_features_scenarios[];
extern const size_t e2e_features_nscenarios;
extern const struct e2e_scenario e2e_debug_scenarios[];
extern const size_t e2e_debug_nscenarios;
extern const struct e2e_scenario e2e_plan_scenarios[];
extern const size_t e2e_plan_nscenarios;
extern const struct e2e_scenario e2e_deep_scenarios[];
extern const size_t e2e_deep_nscenarios;
extern const struct e2e_scenario e2e_list_scenarios[];
extern const size_t e2e_list_nscenarios;
extern const struct e2e_scenario e2e_values_scenarios[];
extern const size_t e2e_values_nscenarios;
extern const struct e2e_scenario e2e_copies_scenarios[];
extern const size_t e2e_copies_nscenarios;
extern const struct e2e_scenario e2e_scriptvals_scenarios[];
extern const size_t e2e_scriptvals_nscenarios;
extern const struct e2e_scenario e2e_names_scenarios[];
extern const size_t e2e_names_nscenarios;
extern const struct e2e_scenario e2e_pprof_scenarios[];
extern const size_t e2e_pprof_nscenarios;
extern const struct e2e_scenario e2e_latency_scenarios[];
extern const size_t e2e_latency_nscenarios;
extern const struct e2e_scenario e2e_exprs_scenarios[];
extern const size_t e2e_exprs_nscenarios;
extern const struct e2e_scenario e2e_conditions_scenarios[];
extern const size_t e2e_conditions_nscenarios;
extern const struct e2e_scenario e2e_unwind_scenarios[];
extern const size_t e2e_unwind_nscenarios;
extern const struct e2e_scenario e2e_tls_scenarios[];
extern const size_t e2e_tls_nscenarios;

#endif /* GS_E2E_H */
