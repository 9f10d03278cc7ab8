/* What the session's files share (session.c, session_procs.c): its state,
 * and the processes whose modules its pooled maps hold. Not part of the
 * runtime's API. */
#ifndef GS_RUNTIME_SESSION_INT_H
#define GS_RUNTIME_SESSION_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <gs/internal/runtime.h>
#include <gs/runtime.h>

#include "rt_int.h"

#define REFRESH_INTERVAL_NS 1000000000ll
/* CPU samples of a module's or of every process: how often /proc is looked
 * at for processes that started (their modules then reach the maps). */
#define SCAN_INTERVAL_NS 100000000ll

struct session_trace {
	const struct gs_program *prog; /* the plan's */
	struct gs_bpf_maps maps;
	struct gs_loaded loaded;
	struct gs_uprobe *probe;
	struct rt_sampler *sampler; /* CPU samples: the clock, not a probe */
	struct gs_uprobe *entry_probe; /* the entry program's, for $duration */
};

struct gs_session {
	struct gs_session_opts opts;
	const struct gs_plan *plan;
	pid_t pid;                   /* the plan's: 0 in target mode */
	struct gs_bpf_maps pool;     /* module and row maps every trace shares */
	struct gs_modfiles *files;   /* the plan's */
	struct gs_phase_times times;
	bool shared_rows_written;
	/* Processes whose modules the pool holds: the pid, or in target mode
	 * every process mapping one of bt_modules (bt or globals). */
	struct gs_procfill *fills;
	size_t nfills, fills_cap;
	char **bt_modules;
	size_t nbt_modules, bt_modules_cap;
	struct gs_reader *reader;
	struct session_trace *v;
	size_t n;
	int64_t last_refresh_ns;
	struct rt_dlhook *dlhook;    /* with a pid: _dl_debug_state calls, or NULL */
	bool dlhook_tried;
	char *report;
	bool multi;    /* programs load for, and attach through, uprobe_multi links */
	struct rt_warm *warm; /* do-nothing links made while verifying, or NULL */
	bool gate_open; /* bt_snapshot_gen.open is set: loop-walker programs emit */
	bool detached; /* gs_session_detach() ran */
	/* CPU samples (gs_plan_add_samples): their scope, and the processes
	 * already looked at by the quick scan for new ones. */
	uint8_t sample_scope;
	const char *sample_module;   /* GS_SAMPLE_KNOWN: the plan's module */
	int64_t last_scan_ns;
	pid_t *seen;
	size_t nseen, seen_cap;
	/* Fills the full module maps refused (the process left out), and
	 * whether the maps were full at the last fill: the scan tries no new
	 * process until one is forgotten. */
	uint64_t procs_skipped;
	bool maps_full;
};

/* session_procs.c: the processes whose modules the pool holds. */
/* Fills the pool with pid's modules, once per pid. */
int rt_session_fill_pid(struct gs_session *s, pid_t pid, struct gs_error *err);
/* Target mode: every process now mapping one of the bt modules. */
int rt_session_fill_targets(struct gs_session *s, struct gs_error *err);
/* A module whose mapping processes are filled (target mode). */
int rt_session_note_module(struct gs_session *s, const char *module, struct gs_error *err);
/* CPU samples of -t / --all: processes started since the last look. */
int rt_session_scan(struct gs_session *s, struct gs_error *err);
/* fills[i]'s maps read again (gs_procfill_refresh). Unless the session
 * has a pid, a process that is gone, or that the full maps cannot hold,
 * is forgotten and fills[i] replaced by the last: 1 then, else 0 or
 * -errno. */
int rt_session_refresh_fill(struct gs_session *s, size_t i, bool add_rows,
			    struct gs_error *err);
/* Every filled process's modules read again (at most once a second). */
int rt_session_refresh(struct gs_session *s, int64_t now, struct gs_error *err);

/* session_warm.c: the uprobe registration's grace period spent while the
 * programs verify. With uprobe_multi links: a thread links a do-nothing
 * program at the first probe's address until rt_warm_stop. */
void rt_warm_start(struct gs_session *s);
/* The thread stopped (before a real attach; w may be NULL). */
void rt_warm_stop(struct rt_warm *w);
/* Every probe attached: the do-nothing links released on a thread. */
void rt_warm_release(struct gs_session *s);
/* Stopped, released (waiting for it) and freed. */
void rt_warm_free(struct gs_session *s);

#endif /* GS_RUNTIME_SESSION_INT_H */
