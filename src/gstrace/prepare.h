/* The gstrace command's run before anything is loaded: the script read
 * and parsed, the flags' files, pids and commands checked, the one
 * module-file cache opened, the trace plan made, and the dry run printed.
 * main.c owns the context and tears it down. */
#ifndef GS_CLI_PREPARE_H
#define GS_CLI_PREPARE_H

#include <stdio.h>
#include <sys/types.h>

#include <gs/modfile.h>
#include <gs/pprof.h>
#include <gs/program.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include <gs/internal/serve.h>

#include "launch.h"
#include "options.h"
#include "stop.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* Everything main owns, torn down in one place. */
struct cli_ctx {
	struct cli cli;
	char *script_text;
	struct gs_script *script;
	char *cmd_path;
	struct cli_launch launch;
	struct gs_modfiles *files;
	struct gs_plan *plan;
	FILE *outf;
	struct gs_frames *frames; /* backtraces symbolized (printer, counting) */
	struct gs_printer *out;
	struct gs_aggregate *agg; /* counting (--aggregate, folded, --flamegraph) */
	FILE *flamef;
	struct gs_pprof *pprof;   /* --pprof, --script-output pprof */
	FILE *pproff;
	struct gs_session *session;
	const char *modules[2];
	size_t nmodules;
	struct cli_pick pick;  /* launch mode: which process to trace */
	struct cli_losses losses;
	struct srv_agent *agent; /* --serve */
};

/* Each returns 0, or the exit status after saying why on stderr. */
int cli_load_script(struct cli_ctx *c);
int cli_check_inputs(struct cli_ctx *c);
int cli_open_files(struct cli_ctx *c);
/* Starts reading the debug information of pid's modules on a worker when
 * the script symbolizes frames; nothing when it cannot. */
void cli_prefetch_debug(struct cli_ctx *c, pid_t pid);
int cli_plan(struct cli_ctx *c, const struct gs_program_opts *popts, pid_t pid);
int cli_dry_run(struct cli_ctx *c);
/* The program options the flags give (output buffer, unwinder, sizes,
 * fault-in). */
int cli_program_opts(struct cli_ctx *c, struct gs_program_opts *popts);
/* Launch mode: starts the command and stops the process to trace at its
 * entry point (the command itself, or what its wrappers run). */
int cli_launch_target(struct cli_ctx *c);
/* --tui (tui_mode.c): the interactive mode over the same target forms. */
int cli_tui(struct cli_ctx *c);

#endif /* GS_CLI_PREPARE_H */
