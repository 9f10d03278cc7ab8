/* A live session: traces added, edited, enabled, disabled and removed
 * while the others keep running. Each trace is planned, loaded and
 * attached on its own (its own plan and session over one module-file
 * cache), so a change loads, attaches or detaches that trace's programs
 * only; one descriptor and one poll read every trace's events. The
 * interactive mode (gstrace --tui) is built on it; an embedder can do the
 * same. Owned by the runtime layer. */
#ifndef GS_LIVE_H
#define GS_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <gs/api.h>
#include <gs/decode.h>
#include <gs/error.h>
#include <gs/modfile.h>
#include <gs/program.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Options (GS_OPTS); on_event is required, zero is the default of the rest. */
struct gs_live_opts {
	size_t sz;
	pid_t pid;          /* -p (or a launched command's pid); 0: target mode */
	const char *module; /* -t: the binary targets refer to (target mode) */
	/* Options every trace's programs are built with (copied; NULL: the
	 * defaults). Its filter_pid and pid namespace are the caller's to set. */
	const struct gs_program_opts *program;
	/* The module-file cache every plan reads through (borrowed: it
	 * outlives the live session). NULL: the session's own. */
	struct gs_modfiles *files;
	bool force_tracefs;
	bool no_multi_link;
	bool hold_on_dlopen;
	gs_event_fn on_event; /* every trace's decoded events */
	void *arg;
};

struct gs_live;

/* The state of one trace. */
enum gs_live_state {
	GS_LIVE_ENABLED = 0,  /* attached */
	GS_LIVE_DISABLED = 1, /* planned and built, nothing attached */
};

/* What gs_live_trace_info() gives (strings owned by the live session,
 * valid until the trace is edited or removed). */
struct gs_live_trace_info {
	uint32_t id;            /* the trace id its events carry: 1, 2, ... never reused */
	enum gs_live_state state;
	const char *source;     /* its script text: `trace TARGET { ... }` */
	const char *target;     /* the target as written */
	const char *module;     /* resolved: the module path */
	size_t nprobes;         /* addresses attached (or to attach) */
	uint64_t hits;          /* events delivered for it so far */
};

/* A live session with no trace yet in *out, freed with gs_live_free()
 * (NULL is fine). opts is required (on_event); opts->program and module
 * are copied. Needs no privileges until a trace is attached. 0, or
 * -EINVAL (no on_event, bad options), -ENOMEM, or the -errno of epoll and
 * timerfd, with err filled and *out NULL. */
GS_API int gs_live_new(const struct gs_live_opts *opts, struct gs_live **out,
		       struct gs_error *err);
/* Checks a script without loading anything: parsed, every trace's target
 * resolved and its values planned, programs built. text is len bytes
 * (read during the call only); name is what messages show before
 * line:column (NULL: "script"). 0, or -EINVAL/-ENOENT with err in the
 * script's message form (line:column, source line, caret). */
GS_API int gs_live_check(struct gs_live *l, const char *text, size_t len, const char *name,
			 struct gs_error *err);
/* Adds every trace of a script (each becomes one live trace with an id of
 * its own), loaded and attached unless start_disabled. On error nothing of
 * the script stays; err as gs_live_check's, or the verifier's message (its
 * report: gs_live_report()). text and name as gs_live_check's (each
 * trace keeps a copy of its own text). Attaching needs root (or CAP_BPF
 * and CAP_PERFMON): -EPERM or -EACCES otherwise. ids (may be NULL) gets
 * up to max_ids ids; *nids (may be NULL) how many traces were added. */
GS_API int gs_live_add(struct gs_live *l, const char *text, size_t len, const char *name,
		       bool start_disabled, uint32_t *ids, size_t max_ids, size_t *nids,
		       struct gs_error *err);
/* Replaces trace id's script with text (one trace): the new one is
 * planned and built first; only then is the old detached and the new
 * attached, in its state, under the same id. On error the old stays as it
 * was: -ENOENT for an unknown id, -EINVAL for text that is not exactly one
 * trace, else as gs_live_add. */
GS_API int gs_live_edit(struct gs_live *l, uint32_t id, const char *text, size_t len,
			struct gs_error *err);
/* Attaches (enable) or detaches (disable) trace id; its events already
 * buffered are still delivered. 0, or -ENOENT for an unknown id. */
GS_API int gs_live_enable(struct gs_live *l, uint32_t id, bool enable, struct gs_error *err);
/* Detaches and frees trace id. 0 or -ENOENT. */
GS_API int gs_live_remove(struct gs_live *l, uint32_t id, struct gs_error *err);

/* The traces, in id order: their count, and the i-th's info in *out (0,
 * or -ENOENT when i >= the count). */
GS_API size_t gs_live_count(const struct gs_live *l);
GS_API int gs_live_trace_info(const struct gs_live *l, size_t i, struct gs_live_trace_info *out);
/* The i-th resolution note of trace id (gs_plan_trace_note), NULL past the
 * last or for an unknown id; valid until the trace is edited or removed. */
GS_API const char *gs_live_trace_note(const struct gs_live *l, uint32_t id, size_t i);

/* Reads every enabled trace's events (and refreshes their unwind maps as
 * gs_session_poll does): waits up to timeout_ms (-1: forever) for the
 * first. The number of events, the first non-zero on_event value (which
 * ends the poll), -EINTR when a signal interrupted the wait (err not
 * filled), or -errno with err filled. */
GS_API int gs_live_poll(struct gs_live *l, int timeout_ms, struct gs_error *err);
/* Readable when events may wait: the programs wake it only once a
 * quarter of a buffer waits, so while a trace is enabled it is also
 * readable every 5 ms (every millisecond until a new trace's first event,
 * for at most a second); call gs_live_poll then. Stays the same
 * descriptor while traces come and go. */
GS_API int gs_live_fd(const struct gs_live *l);
/* Events lost in the kernel so far, over every trace that ever ran, in
 * *total. 0, or -errno of a map read with err filled. */
GS_API int gs_live_lost(const struct gs_live *l, uint64_t *total, struct gs_error *err);
/* The verifier report of the last rejected load, or NULL; owned by l,
 * valid until the next rejected load or gs_live_free. */
GS_API const char *gs_live_report(const struct gs_live *l);
/* Writes every trace as one script gstrace --script-file reads back, a
 * blank line between traces (disabled ones too, each preceded by a
 * `// disabled: trace N` comment line, so reading it back enables every
 * trace). 0 or -errno. */
GS_API int gs_live_save(const struct gs_live *l, FILE *f);
/* The module-file cache (its own, valid until gs_live_free, or the
 * options'). */
GS_API struct gs_modfiles *gs_live_modfiles(const struct gs_live *l);
/* Detaches every trace and frees everything (NULL is fine); a cache
 * given in the options stays the caller's. */
GS_API void gs_live_free(struct gs_live *l);

#ifdef __cplusplus
}
#endif

#endif /* GS_LIVE_H */
