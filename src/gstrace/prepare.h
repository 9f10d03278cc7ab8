/* Before anything is loaded: every trace of the script resolved to its
 * addresses and checked, so a wrong target (unknown function, missing
 * file, no CFI where `bt` must unwind) is a usage error pointing at the
 * script; and the dry run that builds the programs without loading them. */
#ifndef GS_CLI_PREPARE_H
#define GS_CLI_PREPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <gs/runtime.h>

#include "options.h"
#include <gs/script.h>

/* The resolved targets of a script, one per trace. */
struct gs_prep {
	struct gs_target *targets;
	bool *bt; /* the trace's body has a bt */
	size_t n;
};

/* Resolves every trace with ro; when a trace has a `bt`, checks that CFI
 * covers each of its addresses. -errno with err formatted at the trace's
 * position in the script. */
int gs_prep_targets(const struct gs_script *s, const struct gs_resolve_opts *ro,
		    struct gs_prep *out, struct gs_error *err);
void gs_prep_free(struct gs_prep *p);

/* Whether statements (and the branches of their ifs) contain a bt. */
bool gs_stmts_have_bt(const struct gs_stmt *body, size_t n);

/* --dry-run / --dump-insns: builds every address of every trace with the
 * program options the session would use and prints the summary and/or
 * the instructions to f. 0, or -errno with err set. */
int gs_dry_run(const struct gs_cli *cli, const struct gs_script *s, const struct gs_prep *prep,
	       const struct gs_program_opts *popts, pid_t pid, FILE *f, struct gs_error *err);

#endif /* GS_CLI_PREPARE_H */
