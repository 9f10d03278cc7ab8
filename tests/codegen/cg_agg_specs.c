/* Aggregation and $duration specs (docs/cli.md, "Aggregations"): one per
 * program shape the code generator writes for them. A quiet trace (only
 * aggregations: no event) keyed by a special; a return probe timing its
 * calls with $duration (its entry program too) into hist and lhist; and a
 * trace that prints as well, keyed by a string member and an int
 * parameter, with every other function. Part of gs_cg_value_cases
 * (golden, kernel). */
#include "base.h"
#include "cg_specs.h"

/* name again as a literal: clang takes no member of a const object as a constant */
#define AGG(a, name, keys, x) { .kind = GS_STMT_AGGREGATE, .text = (name), .args = (keys), \
	.nargs = BASE_ARRAY_SIZE(keys), .expr = (x), .agg = &(a) }
#define AGG0(a, name, x) { .kind = GS_STMT_AGGREGATE, .text = (name), .expr = (x), .agg = &(a) }

static const struct gs_expr pid = { .kind = GS_EXPR_SPECIAL, .special = GS_SPECIAL_PID,
				    .text = "$pid" };
static const struct gs_expr retval = { .kind = GS_EXPR_SPECIAL, .special = GS_SPECIAL_RETVAL,
				       .text = "$retval" };
static const struct gs_expr duration = { .kind = GS_EXPR_SPECIAL,
					 .special = GS_SPECIAL_DURATION, .text = "$duration" };
static const struct gs_expr thousand = { .kind = GS_EXPR_INT, .value = 1000, .text = "1000" };
static const struct gs_expr duration_us = { .kind = GS_EXPR_BINARY, .op = GS_OP_DIV,
					    .lhs = &duration, .rhs = &thousand,
					    .text = "$duration / 1000" };

/* trace f { @calls[$pid] = count(); } */
static const struct gs_agg_stmt a_calls = { "@calls", 0, GS_AGG_COUNT, 0, 0, 0 };
static const struct gs_expr *const by_pid[] = { &pid };
static const struct gs_stmt count_body[] = { AGG(a_calls, "@calls", by_pid, NULL) };
const struct gs_trace_spec gs_cga_count = { .trace_id = 1, .target = "f", .body = count_body,
					    .nbody = BASE_ARRAY_SIZE(count_body) };

/* trace f return { @lat[$retval] = hist($duration);
 *                  @us = lhist($duration / 1000, 0, 100, 10); } */
static const struct gs_agg_stmt a_lat = { "@lat", 0, GS_AGG_HIST, 0, 0, 0 };
static const struct gs_agg_stmt a_us = { "@us", 1, GS_AGG_LHIST, 0, 100, 10 };
static const struct gs_expr *const by_retval[] = { &retval };
static const struct gs_stmt latency_body[] = {
	AGG(a_lat, "@lat", by_retval, &duration),
	AGG0(a_us, "@us", &duration_us),
};
const struct gs_trace_spec gs_cga_latency = { .trace_id = 2, .target = "f",
					      .body = latency_body, .nbody = BASE_ARRAY_SIZE(latency_body),
					      .retprobe = true };
