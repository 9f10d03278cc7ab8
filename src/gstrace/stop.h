/* The end of a run: losses reported while reading (and, apart, what was
 * dropped while the probes were being detached, after reading stopped),
 * and a teardown that says so on stderr when it takes longer than half a
 * second. */
#ifndef CLI_STOP_H
#define CLI_STOP_H

#include <stdint.h>

#include <gs/runtime.h>
#include <gs/script.h>

struct cli_losses {
	uint64_t reported; /* events lost while reading, said so far */
	uint64_t delivered; /* events read (before --max-events' limit) */
	uint64_t *per_trace; /* of those, per trace id (ntraces of them) */
	size_t ntraces;
	/* --max-events: once the limit is reached, what the kernel had lost
	 * then is all that was lost; what it drops later (nobody reads any
	 * more) and what is read later are events after the limit,
	 * discarded, counted apart and never reported as lost. */
	bool limit_reached;
	uint64_t lost_at_limit;
	uint64_t discarded; /* read after the limit */
	bool verbose;       /* say the discarded events, and the summary always */
	bool summary;       /* events come to userspace (not counted in BPF) */
};

/* Counting for ntraces traces (0 or -ENOMEM); cli_teardown frees it. */
int cli_losses_init(struct cli_losses *l, size_t ntraces, bool verbose, bool summary);
/* An event read: counted as delivered (for its trace) before the limit,
 * as discarded after. */
void cli_count_event(struct cli_losses *l, uint64_t trace_id);
/* --max-events' limit is reached: the kernel's losses so far are the
 * run's. */
void cli_limit_reached(struct cli_losses *l, struct gs_session *sess);
/* Says on stderr how many events the kernel lost since the last call
 * (reading is going on). */
void cli_report_lost(const struct gs_script *s, struct gs_session *sess, struct cli_losses *l);
/* Detaches every probe (a one-line notice past 0.5 s), reports losses of
 * the reading time not yet said, and, only when reading lost events too,
 * how many were dropped after reading stopped; then, when something was
 * lost (or with --verbose), the summary line of docs/cli.md ("Losses"),
 * and with --verbose past --max-events' limit how many events after it
 * were discarded. Frees the session. */
void cli_teardown(const struct gs_script *s, struct gs_session *sess, struct cli_losses *l);

#endif /* CLI_STOP_H */
