/* The faults suite: the real gstrace against hostile and failing targets
 * (escape sequences in DWARF, SIGKILL in tracefs mode, a thousand probes,
 * limits, mis-targeting, targets that exit, exec, fork, churn libraries or
 * run flat out, outputs that fail). Built on the e2e harness (processes,
 * gstrace runs, output parsing); what is added here: what a gstrace run
 * left in the kernel, a JSON line checker, and the scenario table. */
#ifndef GS_FAULTS_H
#define GS_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "e2e.h"

/* ---- what a run holds in the kernel (faults_kernel.c) --------------------- */

/* BPF object ids a gstrace process holds, read from /proc/PID/fdinfo while
 * it runs: what its exit must release. */
struct faults_objects {
	pid_t pid;
	uint32_t *progs, *maps, *links;
	size_t nprogs, nmaps, nlinks;
};

/* Reads the ids of every program, map and link pid holds. */
bool faults_objects_read(pid_t pid, struct faults_objects *o);
void faults_objects_free(struct faults_objects *o);
/* After the process ended: expects every id gone (the kernel frees them
 * after an RCU grace period: looked at for up to 3 s) and no tracefs
 * uprobe entry named after the pid. Records failures in c. */
void faults_expect_released(struct e2e_ctx *c, const struct faults_objects *o);
/* Expects that a run that ended (or was refused) left no tracefs entry. */
void faults_expect_no_events_of(struct e2e_ctx *c, pid_t gstrace_pid);

/* ---- runs (faults_run.c) ---------------------------------------------------- */

/* A fixture of this suite started with arguments (argv[0] is the fixture
 * name in $GS_E2E_DIR, or a path), waited for until it says "ready". */
bool faults_fixture_start(struct e2e_run *r, const char *const *argv);
/* fault_target in `loop` mode, started; its pid as text in pid. Records a
 * failure in c when it does not start. */
bool faults_loop_start(struct e2e_ctx *c, struct e2e_run *fx, char *pid, size_t size);
/* SIGKILL and reap a fixture (nothing when it ended already). */
void faults_fixture_stop(struct e2e_run *fx);
/* gstrace with these arguments (the binary is put first), the ready
 * marker asked for; false when it could not start. */
bool faults_gstrace_start(struct e2e_ctx *c, struct e2e_run *r, const char *const *args);
/* Waits for the ready marker; snapshots the run's kernel objects. */
bool faults_wait_ready(struct e2e_ctx *c, struct e2e_run *r, struct faults_objects *o,
		       int timeout_ms);
/* Waits for the end (stopping it past timeout_ms), logs it. */
void faults_finish(struct e2e_ctx *c, struct e2e_run *r, int timeout_ms);
/* Expects exit `code`, and each needle on stderr; with code 0, no error
 * ("cannot", "failed", "error") on stderr. */
void faults_expect_exit(struct e2e_ctx *c, const struct e2e_run *r, int code,
			const char *const *needles);
/* Runs gstrace to its end: refused inputs. */
void faults_run_refused(struct e2e_ctx *c, const char *const *args, int code,
			const char *const *needles);

/* A copy of fault_target at path with its .eh_frame overwritten
 * (test_faults_input.c). */
bool faults_corrupt_copy(const char *path);

/* ---- output (faults_json.c) ---------------------------------------------------- */

/* One JSON value and nothing else on the line (RFC 8259 syntax). */
bool faults_json_valid(const char *s, size_t n);

/* ---- scenarios ------------------------------------------------------------------ */

/* One table per test_faults_*.c; faults_main.c runs them by name. */
extern const struct e2e_scenario faults_output_scenarios[];
extern const size_t faults_output_nscenarios;
extern const struct e2e_scenario faults_teardown_scenarios[];
extern const size_t faults_teardown_nscenarios;
extern const struct e2e_scenario faults_input_scenarios[];
extern const size_t faults_input_nscenarios;
extern const struct e2e_scenario faults_target_scenarios[];
extern const size_t faults_target_nscenarios;
extern const struct e2e_scenario faults_events_scenarios[];
extern const size_t faults_events_nscenarios;
extern const struct e2e_scenario faults_scale_scenarios[];
extern const size_t faults_scale_nscenarios;
extern const struct e2e_scenario faults_files_scenarios[];
extern const size_t faults_files_nscenarios;
extern const struct e2e_scenario faults_messages_scenarios[];
extern const size_t faults_messages_nscenarios;

#endif /* GS_FAULTS_H */
