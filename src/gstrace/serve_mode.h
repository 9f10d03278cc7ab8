/* The agent beside a run (--serve, docs/agent.md): what the command hands
 * the serve layer once its session has started. */
#ifndef CLI_SERVE_MODE_H
#define CLI_SERVE_MODE_H

#include "prepare.h"

/* Starts c->agent over c's session, plan, script and frames; the stacks
 * the agent drains from BPF also go to on_counts (NULL: nowhere). 0, or
 * the exit status after saying why on stderr. */
int cli_serve_start(struct cli_ctx *c, gs_stack_count_fn on_counts, void *arg);

#endif /* CLI_SERVE_MODE_H */
