/* --aggregate, --script-output folded and --flamegraph: events counted in
 * userspace as they are decoded, by their whole content (printed items and
 * symbolized backtraces, not time or thread) or by folded stack, and the
 * tables and folded lines made from the counts (the SVG flame graph is
 * gs_flamegraph_write's, gs/fold.h). */
#ifndef CLI_AGGREGATE_H
#define CLI_AGGREGATE_H

#include <stdbool.h>
#include <stdio.h>

#include <gs/decode.h>
#include <gs/error.h>
#include <gs/fold.h>
#include <gs/print.h>

struct cli_agg;

/* events: count whole events (--aggregate); stacks: count folded stacks
 * (folded output, flame graph). Frames are resolved through popts->frames
 * (borrowed); the table shows events as a printer with popts shows them
 * (pretty as plain, without the header). */
int cli_agg_new(const struct gs_printer_opts *popts, bool events, bool stacks,
		struct cli_agg **agg, struct gs_error *err);
void cli_agg_free(struct cli_agg *a);
/* Counts one event. 0, or -ENOMEM. */
int cli_agg_event(struct cli_agg *a, const struct gs_event *ev);
/* Counts an event n times (counts made in BPF). 0, or -ENOMEM. */
int cli_agg_event_n(struct cli_agg *a, const struct gs_event *ev, uint64_t n);
/* Forgets every count (before reading BPF's counts since the start again).
 * 0, or -ENOMEM. */
int cli_agg_clear(struct cli_agg *a);
struct gs_session;
/* --count-in bpf: the counts are the session's stack_counts maps, read
 * whole (since the start) into a cleared a. 0 or -errno with err set. */
int cli_agg_from_session(struct cli_agg *a, const struct gs_session *s, struct gs_error *err);
/* The --aggregate table so far, by count (text formats: a header line,
 * then per distinct event its count and its items; json: one object per
 * distinct event). */
void cli_agg_print(struct cli_agg *a, FILE *f, double elapsed_s);
/* `root;...;leaf count` per distinct stack, by count. */
void cli_agg_print_folded(struct cli_agg *a, FILE *f);
/* The folded stacks and their counts. */
const struct gs_counts *cli_agg_stacks(const struct cli_agg *a);

#endif /* CLI_AGGREGATE_H */
