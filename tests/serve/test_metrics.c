/* /metrics without a kernel: what a real script (parsed by the script
 * layer) says about its maps (label names, seconds, the traces that write
 * them), the tables written with those names within the scrape's budget
 * of series, the --serve-label labels, gstrace's own health metrics from
 * figures, and this process's figures; the whole exposition, in both
 * formats, linted by Prometheus' own promtool. Reading the figures from a
 * live session (metrics.c) is the agent's end-to-end test. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <gs/prom.h>
#include <gs/script.h>

#include "agg_entries.h"
#include "prom_lint.h"
#include "serve_int.h"

static const char script_text[] =
	"trace foo return {\n"
	"    @lat[$pid, comm] = hist($duration);\n"
	"    @calls[$retval] = count();\n"
	"}\n"
	"trace bar {\n"
	"    let x = 5;\n"
	"    @calls[x] = count();\n"
	"    @bytes[size + 1] = sum(size);\n"
	"    @scrapes = count();\n"
	"}\n";

static struct gs_script *parse(void)
{
	struct gs_script *s = NULL;
	struct gs_error err = { 0 };
	int rc = gs_script_parse(script_text, strlen(script_text), NULL, &s, &err);

	if (rc)
		fail_msg("%s", err.msg);
	return s;
}

/* The map the script names so, from its statements. */
static const struct gs_agg_stmt *agg_named(const struct gs_script *s, const char *name)
{
	for (size_t i = 0; i < s->ntraces; i++)
		for (size_t j = 0; j < s->traces[i].nbody; j++)
			if (s->traces[i].body[j].kind == GS_STMT_AGGREGATE &&
			    !strcmp(s->traces[i].body[j].agg->name, name))
				return s->traces[i].body[j].agg;
	fail_msg("no %s in the script", name);
	return NULL;
}

static void test_labels_from_serve_label(void **state)
{
	static const char *const good[] = { "env=prod", "team=db=1", "empty=" };
	static const char *const bad[][2] = {
		{ "noequals", "write NAME=VALUE" },
		{ "a-b=1", "'a-b' cannot name a label" },
		{ "__x=1", "'__x' cannot name a label" },
		{ "le=1", "'le' cannot name a label" },
		{ "trace=1", "not le, quantile, trace, target, version, instance or job" },
		{ "job=x", "'job' cannot name a label" },
		{ "version=2", "'version' cannot name a label" },
	};
	static const char *const twice[] = { "a=1", "a=2" };
	const char *many[SRV_MAX_LABELS + 1];
	struct gs_error err = { 0 };
	struct srv_labels l;

	(void)state;
	assert_int_equal(srv_labels_parse(good, 3, &l, &err), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].name, "env");
	assert_string_equal(l.v[0].value, "prod");
	assert_string_equal(l.v[1].name, "team");
	assert_string_equal(l.v[1].value, "db=1");
	assert_string_equal(l.v[2].value, "");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(srv_labels_parse(&bad[i][0], 1, &l, &err), -EINVAL);
		assert_non_null(strstr(err.msg, bad[i][1]));
		assert_non_null(strstr(err.msg, "--serve-label"));
	}
	assert_int_equal(srv_labels_parse(twice, 2, &l, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "given twice"));
	for (size_t i = 0; i <= SRV_MAX_LABELS; i++)
		many[i] = "a=1";
	assert_int_equal(srv_labels_parse(many, SRV_MAX_LABELS + 1, &l, &err), -EINVAL);
}

/* Label names from keys that are plain names ($pid, a DWARF variable, a
 * let), where every statement writing the map agrees; $duration values
 * in seconds; the traces writing a map in its HELP. */
static void test_maps_from_a_script(void **state)
{
	struct gs_script *s = parse();
	struct srv_maps m;
	const struct srv_map *lat, *calls, *bytes;

	(void)state;
	assert_int_equal(srv_maps_from_script(s, &m, NULL), 0);
	assert_int_equal(m.n, 4);
	lat = srv_maps_find(&m, agg_named(s, "@lat")->id);
	calls = srv_maps_find(&m, agg_named(s, "@calls")->id);
	bytes = srv_maps_find(&m, agg_named(s, "@bytes")->id);
	assert_non_null(lat);
	assert_non_null(calls);
	assert_non_null(bytes);
	assert_string_equal(lat->keys[0], "pid");
	assert_string_equal(lat->keys[1], "comm");
	assert_true(lat->seconds);
	assert_string_equal(lat->help, "@lat[$pid, comm] = hist($duration), in seconds; written "
				       "by trace foo return");
	assert_null(calls->keys[0]); /* $retval in one trace, x in the other */
	assert_false(calls->seconds);
	assert_string_equal(calls->help, "@calls[$retval] = count(); written by traces foo "
					 "return, bar (one map: their values merged)");
	assert_null(bytes->keys[0]);
	assert_false(bytes->seconds);
	assert_string_equal(bytes->help, "@bytes[size + 1] = sum(size); written by trace bar");
	assert_null(srv_maps_find(&m, 999));
	srv_maps_free(&m);
	assert_int_equal(srv_maps_from_script(NULL, &m, NULL), 0);
	assert_int_equal(m.n, 0);
	gs_script_free(s);
}

/* The tables a session would hand over for the script (one entry each,
 * or two for @calls), described as the code generator describes them. */
struct tables {
	struct gs_agg_desc lat, calls, bytes, scrapes;
	struct gs_agg_entry lat_e[1], calls_e[2], bytes_e[1], scrapes_e[1];
	struct gs_agg_table t[4];
};

static void make_tables(const struct gs_script *s, struct tables *x)
{
	static const int64_t lat[] = { 1500, 2500, 2600 }, one[] = { 1 }, two[] = { 1, 1 },
			     sizes[] = { 100, 28 };

	memset(x, 0, sizeof(*x));
	x->lat = (struct gs_agg_desc){ .name = "@lat", .id = agg_named(s, "@lat")->id,
				       .fn = GS_AGG_HIST, .nkeys = 2,
				       .key_kind = { GS_AGG_KEY_INT, GS_AGG_KEY_STRING },
				       .key_off = { 0, 8 } };
	x->calls = (struct gs_agg_desc){ .name = "@calls", .id = agg_named(s, "@calls")->id,
					 .fn = GS_AGG_COUNT, .nkeys = 1,
					 .key_kind = { GS_AGG_KEY_INT } };
	x->bytes = (struct gs_agg_desc){ .name = "@bytes", .id = agg_named(s, "@bytes")->id,
					 .fn = GS_AGG_SUM, .nkeys = 1,
					 .key_kind = { GS_AGG_KEY_INT } };
	x->scrapes = (struct gs_agg_desc){ .name = "@scrapes", .id = agg_named(s, "@scrapes")->id,
					   .fn = GS_AGG_COUNT };
	agg_put_int(&x->lat_e[0], &x->lat, 0, 4242);
	agg_put_string(&x->lat_e[0], &x->lat, 1, "nginx");
	agg_sample(&x->lat_e[0], &x->lat, lat, 3);
	agg_put_int(&x->calls_e[0], &x->calls, 0, 0);
	agg_sample(&x->calls_e[0], &x->calls, two, 2);
	agg_put_int(&x->calls_e[1], &x->calls, 0, -2);
	agg_sample(&x->calls_e[1], &x->calls, one, 1);
	agg_put_int(&x->bytes_e[0], &x->bytes, 0, 101);
	agg_sample(&x->bytes_e[0], &x->bytes, sizes, 2);
	agg_sample(&x->scrapes_e[0], &x->scrapes, one, 1);
	x->t[0] = (struct gs_agg_table){ &x->lat, x->lat_e, 1 };
	x->t[1] = (struct gs_agg_table){ &x->calls, x->calls_e, 2 };
	x->t[2] = (struct gs_agg_table){ &x->bytes, x->bytes_e, 1 };
	x->t[3] = (struct gs_agg_table){ &x->scrapes, x->scrapes_e, 1 };
}

static void free_tables(struct tables *x)
{
	agg_entries_free(x->lat_e, 1);
	agg_entries_free(x->calls_e, 2);
	agg_entries_free(x->bytes_e, 1);
	agg_entries_free(x->scrapes_e, 1);
}

/* Health figures as a session of two traces gives them. */
static const struct srv_trace_health traces[] = {
	{ .id = 1, .target = "foo", .has_delivered = true, .delivered = 12,
	  .st = { .trace_id = 1, .programs = 2, .lost = 3, .stacks_dropped = 0,
		  .run_time_ns = 1500000, .run_cnt = 40 } },
	{ .id = 2, .target = "bar \"x\"", .has_delivered = true, .delivered = 0,
	  .st = { .trace_id = 2, .programs = 1, .run_time_ns = 0, .run_cnt = 0 } },
};

static const struct srv_health health = {
	.version = "1.3.0", .traces = traces, .ntraces = 2, .agg_dropped = 5,
	.map_bytes = 1048576, .samples = 77, .series_dropped = 1, .scrapes = 9,
	.process = { .cpu_seconds = 0.25, .resident_bytes = 8388608, .open_fds = 12,
		     .start_time_seconds = 1700000000.5 },
};

/* A scrape as srv_metrics_render writes it, from tables and figures:
 * health reserved, the tables within budget, the health. */
static char *scrape(const struct gs_script *s, enum gs_prom_format format, size_t budget,
		    const struct srv_labels *labels, uint64_t *left_out)
{
	struct gs_error err = { 0 };
	struct tables x;
	struct srv_maps m;
	struct gs_prom *w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct srv_scrape sc = { .maps = &m, .labels = labels, .budget = budget, .err = &err };

	make_tables(s, &x);
	assert_int_equal(srv_maps_from_script(s, &m, &err), 0);
	assert_int_equal(gs_prom_new(f, format, &w, &err), 0);
	sc.w = w;
	assert_int_equal(srv_health_reserve(w, &err), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(srv_scrape_table(&sc, &x.t[i]), 0);
	assert_int_equal(srv_health_write(w, &health, labels, &err), 0);
	assert_int_equal(gs_prom_finish(w, &err), 0);
	gs_prom_free(w);
	fclose(f);
	srv_maps_free(&m);
	free_tables(&x);
	if (left_out)
		*left_out = sc.left_out;
	return buf;
}

static const char health_text[] =
	"# TYPE gstrace_build_info gauge\n"
	"# HELP gstrace_build_info gstrace's version.\n"
	"gstrace_build_info{env=\"prod\",version=\"1.3.0\"} 1\n"
	"# TYPE gstrace_events_delivered_total counter\n"
	"# HELP gstrace_events_delivered_total Events of the trace read from the kernel.\n"
	"gstrace_events_delivered_total{env=\"prod\",trace=\"1\",target=\"foo\"} 12\n"
	"gstrace_events_delivered_total{env=\"prod\",trace=\"2\",target=\"bar \\\"x\\\"\"} 0\n"
	"# TYPE gstrace_events_lost_total counter\n"
	"# HELP gstrace_events_lost_total Events of the trace the kernel could not deliver "
	"(a full buffer).\n"
	"gstrace_events_lost_total{env=\"prod\",trace=\"1\"} 3\n"
	"gstrace_events_lost_total{env=\"prod\",trace=\"2\"} 0\n"
	"# TYPE gstrace_bpf_run_time_seconds_total counter\n"
	"# HELP gstrace_bpf_run_time_seconds_total Time the trace's BPF programs ran, while the "
	"kernel's run statistics are on.\n"
	"gstrace_bpf_run_time_seconds_total{env=\"prod\",trace=\"1\"} 0.0015\n"
	"gstrace_bpf_run_time_seconds_total{env=\"prod\",trace=\"2\"} 0\n"
	"# TYPE gstrace_bpf_runs_total counter\n"
	"# HELP gstrace_bpf_runs_total Runs of the trace's BPF programs, while the kernel's run "
	"statistics are on.\n"
	"gstrace_bpf_runs_total{env=\"prod\",trace=\"1\"} 40\n"
	"gstrace_bpf_runs_total{env=\"prod\",trace=\"2\"} 0\n"
	"# TYPE gstrace_stacks_dropped_total counter\n"
	"# HELP gstrace_stacks_dropped_total Stacks of the trace a full count map could not "
	"take.\n"
	"gstrace_stacks_dropped_total{env=\"prod\",trace=\"1\"} 0\n"
	"gstrace_stacks_dropped_total{env=\"prod\",trace=\"2\"} 0\n"
	"# TYPE gstrace_aggregation_updates_dropped_total counter\n"
	"# HELP gstrace_aggregation_updates_dropped_total Aggregation updates a full map could "
	"not take.\n"
	"gstrace_aggregation_updates_dropped_total{env=\"prod\"} 5\n"
	"# TYPE gstrace_bpf_map_memory_bytes gauge\n"
	"# HELP gstrace_bpf_map_memory_bytes Memory the kernel holds for the session's BPF "
	"maps.\n"
	"gstrace_bpf_map_memory_bytes{env=\"prod\"} 1048576\n"
	"# TYPE gstrace_profile_samples_total counter\n"
	"# HELP gstrace_profile_samples_total CPU samples the profiler drained from BPF.\n"
	"gstrace_profile_samples_total{env=\"prod\"} 77\n"
	"# TYPE gstrace_series_dropped_total counter\n"
	"# HELP gstrace_series_dropped_total Series scrapes left out: past --serve-max-series, "
	"or a counter below zero.\n"
	"gstrace_series_dropped_total{env=\"prod\"} 1\n"
	"# TYPE gstrace_scrapes_total counter\n"
	"# HELP gstrace_scrapes_total Scrapes of /metrics, this one included.\n"
	"gstrace_scrapes_total{env=\"prod\"} 9\n"
	"# TYPE process_cpu_seconds_total counter\n"
	"# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
	"process_cpu_seconds_total{env=\"prod\"} 0.25\n"
	"# TYPE process_resident_memory_bytes gauge\n"
	"# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
	"process_resident_memory_bytes{env=\"prod\"} 8388608\n"
	"# TYPE process_open_fds gauge\n"
	"# HELP process_open_fds Number of open file descriptors.\n"
	"process_open_fds{env=\"prod\"} 12\n"
	"# TYPE process_start_time_seconds gauge\n"
	"# HELP process_start_time_seconds Start time of the process since unix epoch in "
	"seconds.\n"
	"process_start_time_seconds{env=\"prod\"} 1.7000000005e+09\n";

/* The whole scrape: the tables with the script's label names and HELP,
 * @scrapes (a name of the agent's own) with its id, and the health. */
static void test_scrape_text(void **state)
{
	static const char *const env[] = { "env=prod" };
	struct gs_script *s = parse();
	struct srv_labels labels;
	char *got, want[8192];
	uint64_t left_out = 1;

	(void)state;
	assert_int_equal(srv_labels_parse(env, 1, &labels, NULL), 0);
	got = scrape(s, GS_PROM_TEXT, 100, &labels, &left_out);
	snprintf(want, sizeof(want),
		 "# TYPE gstrace_lat_seconds histogram\n"
		 "# HELP gstrace_lat_seconds @lat[$pid, comm] = hist($duration), in seconds; "
		 "written by trace foo return\n"
		 "gstrace_lat_seconds_bucket{env=\"prod\",pid=\"4242\",comm=\"nginx\",le=\"1.023e-06\"} 0\n"
		 "gstrace_lat_seconds_bucket{env=\"prod\",pid=\"4242\",comm=\"nginx\",le=\"2.047e-06\"} 1\n"
		 "gstrace_lat_seconds_bucket{env=\"prod\",pid=\"4242\",comm=\"nginx\",le=\"4.095e-06\"} 3\n"
		 "gstrace_lat_seconds_bucket{env=\"prod\",pid=\"4242\",comm=\"nginx\",le=\"+Inf\"} 3\n"
		 "gstrace_lat_seconds_sum{env=\"prod\",pid=\"4242\",comm=\"nginx\"} 6.6e-06\n"
		 "gstrace_lat_seconds_count{env=\"prod\",pid=\"4242\",comm=\"nginx\"} 3\n"
		 "# TYPE gstrace_calls_total counter\n"
		 "# HELP gstrace_calls_total @calls[$retval] = count(); written by traces foo "
		 "return, bar (one map: their values merged)\n"
		 "gstrace_calls_total{env=\"prod\",k0=\"0\"} 2\n"
		 "gstrace_calls_total{env=\"prod\",k0=\"-2\"} 1\n"
		 "# TYPE gstrace_bytes_total counter\n"
		 "# HELP gstrace_bytes_total @bytes[size + 1] = sum(size); written by trace bar\n"
		 "gstrace_bytes_total{env=\"prod\",k0=\"101\"} 128\n"
		 "# TYPE gstrace_scrapes_%u_total counter\n"
		 "# HELP gstrace_scrapes_%u_total @scrapes = count(); written by trace bar\n"
		 "gstrace_scrapes_%u_total{env=\"prod\"} 1\n"
		 "%s",
		 agg_named(s, "@scrapes")->id, agg_named(s, "@scrapes")->id,
		 agg_named(s, "@scrapes")->id, health_text);
	if (strcmp(got, want)) /* cmocka cuts long strings */
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", got, want);
	assert_string_equal(got, want);
	assert_int_equal(left_out, 0);
	free(got);
	gs_script_free(s);
}

/* The budget is the scrape's: the first tables spend it, the others'
 * series are left out and counted. */
static void test_scrape_budget_is_shared_by_the_tables(void **state)
{
	struct gs_script *s = parse();
	struct srv_labels none = { .n = 0 };
	uint64_t left_out = 0;
	char *got;

	(void)state;
	got = scrape(s, GS_PROM_TEXT, 7, &none, &left_out);
	/* @lat takes 6 (three bounds, +Inf, _sum, _count), @calls 1 of its 2
	 * (the greater); @bytes and @scrapes none, not even their family */
	assert_non_null(strstr(got, "gstrace_lat_seconds_count{pid=\"4242\",comm=\"nginx\"} 3\n"));
	assert_non_null(strstr(got, "gstrace_calls_total{k0=\"0\"} 2\n"
				    "# TYPE gstrace_build_info gauge\n"));
	assert_null(strstr(got, "k0=\"-2\""));
	assert_null(strstr(got, "gstrace_bytes_total"));
	assert_null(strstr(got, "@scrapes"));
	assert_int_equal(left_out, 3);
	free(got);
	gs_script_free(s);
}

/* A whole scrape, both formats, through Prometheus' promtool (and the
 * strict OpenMetrics parser of its Python client first): no lint
 * problem in the names gstrace chooses (base units, _total, no
 * abbreviations) nor in what the script's maps become. */
static void test_promtool_lints_a_scrape_clean(void **state)
{
	static const char *const env[] = { "env=prod" };
	struct gs_script *s = parse();
	struct srv_labels labels;
	char *text;

	(void)state;
	assert_int_equal(srv_labels_parse(env, 1, &labels, NULL), 0);
	for (int om = 0; om < 2; om++) {
		text = scrape(s, om ? GS_PROM_OPENMETRICS : GS_PROM_TEXT, 100, &labels, NULL);
		prom_lint(text, om);
		free(text);
	}
	gs_script_free(s);
}

/* This process's own figures, as plausible as the kernel makes them. */
static void test_process_figures(void **state)
{
	struct srv_process p;
	struct gs_error err = { 0 };
	volatile double spin = 0;
	double now = (double)time(NULL);

	(void)state;
	for (int i = 0; i < 20000000; i++)
		spin += i;
	assert_int_equal(srv_process_read(&p, &err), 0);
	assert_true(p.cpu_seconds > 0);
	assert_true(p.resident_bytes > 100 * 1024);
	assert_true(p.open_fds >= 3); /* stdin, stdout, stderr */
	assert_true(p.start_time_seconds <= now + 1);
	assert_true(p.start_time_seconds > now - 600); /* a test started minutes ago at most */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels_from_serve_label),
		cmocka_unit_test(test_maps_from_a_script),
		cmocka_unit_test(test_scrape_text),
		cmocka_unit_test(test_scrape_budget_is_shared_by_the_tables),
		cmocka_unit_test(test_promtool_lints_a_scrape_clean),
		cmocka_unit_test(test_process_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
