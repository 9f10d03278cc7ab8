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
};

/* Says on stderr how many events the kernel lost since the last call
 * (reading is going on). */
void cli_report_lost(const struct gs_script *s, struct gs_session *sess, struct cli_losses *l);
/* Detaches every probe (a one-line notice past 0.5 s), reports losses of
 * the reading time not yet said, and, only when reading lost events too,
 * how many were dropped after reading stopped; frees the session. */
void cli_teardown(const struct gs_script *s, struct gs_session *sess, struct cli_losses *l);

#endif /* CLI_STOP_H */
