/* --aggregate, --script-output folded and --flamegraph: events counted in
 * userspace as they are decoded, by their whole content (printed items and
 * symbolized backtraces, not time or thread) or by folded stack, and the
 * tables, folded lines and SVG flame graph made from the counts. */
#ifndef CLI_AGGREGATE_H
#define CLI_AGGREGATE_H

#include <stdbool.h>
#include <stdio.h>

#include <gs/decode.h>
#include <gs/error.h>
#include <gs/fold.h>

#include "output.h"

struct cli_agg;

/* events: count whole events (--aggregate); stacks: count folded stacks
 * (folded output, flame graph). Renders through out (its format). */
int cli_agg_new(struct cli_out *out, bool events, bool stacks, struct cli_agg **agg,
		struct gs_error *err);
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

/* An interactive flame graph (plain JavaScript inside the SVG: click to
 * zoom, Ctrl-F or the Search button to highlight by regular expression,
 * no network) of folded stacks. 0 or -errno (the file could not be
 * written). */
int cli_flamegraph_write(const struct gs_counts *stacks, const char *title, FILE *f);

#endif /* CLI_AGGREGATE_H */
