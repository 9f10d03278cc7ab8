/* The Prometheus exposition (gs/prom.h): the writer's text in the
 * 0.0.4 format and in OpenMetrics 1.0.0 against what the specifications
 * say (prometheus.io's "Exposition formats", the OpenMetrics text
 * format's ABNF), what it refuses, and aggregation tables as families.
 * The exposition of every kind of table, in both formats, is linted by
 * Prometheus' own promtool (`promtool check metrics`) in
 * test_promtool_lints_every_kind_clean; OpenMetrics goes through the
 * strict parser of Prometheus' Python client first (prom_lint.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gs/context.h>
#include <gs/prom.h>

#include "agg_entries.h"
#include "prom_lint.h"

/* One exposition being written into a memory stream. */
struct expo {
	char *buf;
	size_t len;
	FILE *f;
	struct gs_prom *w;
};

static void expo_open(struct expo *x, enum gs_prom_format format)
{
	struct gs_error err = { 0 };

	*x = (struct expo){ 0 };
	x->f = open_memstream(&x->buf, &x->len);
	assert_non_null(x->f);
	assert_int_equal(gs_prom_new(x->f, format, &x->w, &err), 0);
}

/* The text written, finished; x is closed (free the text). */
static char *expo_close(struct expo *x)
{
	struct gs_error err = { 0 };

	assert_int_equal(gs_prom_finish(x->w, &err), 0);
	gs_prom_free(x->w);
	fclose(x->f);
	return x->buf;
}

static void expect(struct expo *x, const char *want)
{
	char *got = expo_close(x);

	assert_string_equal(got, want);
	free(got);
}

/* ---- the writer ---------------------------------------------------------- */

static void test_counter_is_named_by_its_total_in_text_and_by_itself_in_openmetrics(void **state)
{
	static const struct gs_prom_label l[] = { { "trace", "1" } };
	struct expo x;

	(void)state;
	for (int om = 0; om < 2; om++) {
		expo_open(&x, om ? GS_PROM_OPENMETRICS : GS_PROM_TEXT);
		assert_int_equal(gs_prom_family(x.w, "gstrace_events", GS_PROM_COUNTER, NULL,
						"Events read.", NULL), 0);
		assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, l, 1, GS_PROM_INT(42), NULL), 0);
		expect(&x, om ? "# TYPE gstrace_events counter\n"
				"# HELP gstrace_events Events read.\n"
				"gstrace_events_total{trace=\"1\"} 42\n"
				"# EOF\n" :
				"# TYPE gstrace_events_total counter\n"
				"# HELP gstrace_events_total Events read.\n"
				"gstrace_events_total{trace=\"1\"} 42\n");
	}
}

static void test_unit_line_in_openmetrics_only(void **state)
{
	struct expo x;

	(void)state;
	for (int om = 0; om < 2; om++) {
		expo_open(&x, om ? GS_PROM_OPENMETRICS : GS_PROM_TEXT);
		assert_int_equal(gs_prom_family(x.w, "process_cpu_seconds", GS_PROM_COUNTER,
						"seconds", "CPU time.", NULL), 0);
		assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, NULL, 0, GS_PROM_FLOAT(1.5),
						NULL), 0);
		expect(&x, om ? "# TYPE process_cpu_seconds counter\n"
				"# UNIT process_cpu_seconds seconds\n"
				"# HELP process_cpu_seconds CPU time.\n"
				"process_cpu_seconds_total 1.5\n"
				"# EOF\n" :
				"# TYPE process_cpu_seconds_total counter\n"
				"# HELP process_cpu_seconds_total CPU time.\n"
				"process_cpu_seconds_total 1.5\n");
	}
}

static void test_info_is_a_gauge_in_text(void **state)
{
	static const struct gs_prom_label l[] = { { "version", "1.3.0" } };
	struct expo x;

	(void)state;
	for (int om = 0; om < 2; om++) {
		expo_open(&x, om ? GS_PROM_OPENMETRICS : GS_PROM_TEXT);
		assert_int_equal(gs_prom_family(x.w, "gstrace_build", GS_PROM_INFO, NULL,
						"Build.", NULL), 0);
		assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, l, 1, GS_PROM_INT(1), NULL), 0);
		expect(&x, om ? "# TYPE gstrace_build info\n"
				"# HELP gstrace_build Build.\n"
				"gstrace_build_info{version=\"1.3.0\"} 1\n"
				"# EOF\n" :
				"# TYPE gstrace_build_info gauge\n"
				"# HELP gstrace_build_info Build.\n"
				"gstrace_build_info{version=\"1.3.0\"} 1\n");
	}
}

/* Label values escape \\, \" and \n (both formats); bytes that are not
 * UTF-8 become U+FFFD, UTF-8 stays. HELP escapes \\ and \n, and \" in
 * OpenMetrics only (0.0.4 knows no \" there). */
static void test_label_values_and_help_are_escaped(void **state)
{
	static const struct gs_prom_label l[] = { { "comm", "a\\b\"c\nd\xff\xc3\xa9" } };
	struct expo x;

	(void)state;
	for (int om = 0; om < 2; om++) {
		expo_open(&x, om ? GS_PROM_OPENMETRICS : GS_PROM_TEXT);
		assert_int_equal(gs_prom_family(x.w, "g", GS_PROM_GAUGE, NULL,
						"say \"hi\" \\ to\nall", NULL), 0);
		assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, l, 1, GS_PROM_INT(-3), NULL), 0);
		expect(&x, om ? "# TYPE g gauge\n"
				"# HELP g say \\\"hi\\\" \\\\ to\\nall\n"
				"g{comm=\"a\\\\b\\\"c\\nd\xef\xbf\xbd\xc3\xa9\"} -3\n"
				"# EOF\n" :
				"# TYPE g gauge\n"
				"# HELP g say \"hi\" \\\\ to\\nall\n"
				"g{comm=\"a\\\\b\\\"c\\nd\xef\xbf\xbd\xc3\xa9\"} -3\n");
	}
}

/* Integers exactly; floats as Go's strconv.FormatFloat(v, 'g', -1, 64)
 * writes them (the shortest that reads back, %e from 1e+06 and below
 * 1e-04), scaled integers as exact decimals in the same forms,
 * OpenMetrics adding ".0" where that has no '.' or 'e'. */
static void test_numbers_as_go_writes_them(void **state)
{
	static const struct {
		struct gs_prom_num v;
		const char *text, *om;
	} cases[] = {
		{ GS_PROM_INT(INT64_MAX), "9223372036854775807", "9223372036854775807" },
		{ GS_PROM_INT(INT64_MIN), "-9223372036854775808", "-9223372036854775808" },
		{ GS_PROM_FLOAT(0.5), "0.5", "0.5" },
		{ GS_PROM_FLOAT(0.1 + 0.2), "0.30000000000000004", "0.30000000000000004" },
		{ GS_PROM_FLOAT(100000), "100000", "100000.0" },
		{ GS_PROM_FLOAT(123456.7), "123456.7", "123456.7" },
		{ GS_PROM_FLOAT(1e6), "1e+06", "1e+06" },
		{ GS_PROM_FLOAT(1234567), "1.234567e+06", "1.234567e+06" },
		{ GS_PROM_FLOAT(0.0001), "0.0001", "0.0001" },
		{ GS_PROM_FLOAT(2.047e-6), "2.047e-06", "2.047e-06" },
		{ GS_PROM_FLOAT(-1.5), "-1.5", "-1.5" },
		{ GS_PROM_FLOAT(0), "0", "0.0" },
		{ GS_PROM_FLOAT(1e300), "1e+300", "1e+300" },
		{ GS_PROM_FLOAT(INFINITY), "+Inf", "+Inf" },
		{ GS_PROM_FLOAT(-INFINITY), "-Inf", "-Inf" },
		{ GS_PROM_FLOAT(NAN), "NaN", "NaN" },
		/* integers scaled by powers of ten: exact decimals, Go's forms */
		{ GS_PROM_SCALED(1500000001, -9), "1.500000001", "1.500000001" },
		{ GS_PROM_SCALED(2000000000, -9), "2", "2.0" },
		{ GS_PROM_SCALED(-5, -9), "-5e-09", "-5e-09" },
		{ GS_PROM_SCALED(0, -9), "0", "0.0" },
		{ GS_PROM_SCALED(123, -6), "0.000123", "0.000123" },
		{ GS_PROM_SCALED(15, 2), "1500", "1500.0" },
		{ GS_PROM_SCALED(1, 6), "1e+06", "1e+06" },
		{ GS_PROM_SCALED(INT64_MAX, -9), "9.223372036854775807e+09",
		  "9.223372036854775807e+09" },
		{ GS_PROM_SCALED(INT64_MIN, -9), "-9.223372036854775808e+09",
		  "-9.223372036854775808e+09" },
	};
	char want[128];
	struct expo x;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int om = 0; om < 2; om++) {
			expo_open(&x, om ? GS_PROM_OPENMETRICS : GS_PROM_TEXT);
			assert_int_equal(gs_prom_family(x.w, "g", GS_PROM_GAUGE, NULL, NULL, NULL), 0);
			assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, NULL, 0, cases[i].v,
							NULL), 0);
			snprintf(want, sizeof(want), "# TYPE g gauge\ng %s\n%s",
				 om ? cases[i].om : cases[i].text, om ? "# EOF\n" : "");
			expect(&x, want);
		}
	}
}

/* An integer bound is exact in 0.0.4 and OpenMetrics' canonical float. */
static void test_bucket_bounds(void **state)
{
	static const struct gs_prom_label l[] = { { "k0", "x" } };
	struct expo x;

	(void)state;
	for (int om = 0; om < 2; om++) {
		expo_open(&x, om ? GS_PROM_OPENMETRICS : GS_PROM_TEXT);
		assert_int_equal(gs_prom_family(x.w, "h", GS_PROM_HISTOGRAM, NULL, NULL, NULL), 0);
		assert_int_equal(gs_prom_bucket(x.w, l, 1, GS_PROM_INT(1023), 2, NULL), 0);
		assert_int_equal(gs_prom_bucket(x.w, l, 1, GS_PROM_FLOAT(0.25), 3, NULL), 0);
		assert_int_equal(gs_prom_bucket(x.w, l, 1, GS_PROM_FLOAT(INFINITY), 4, NULL), 0);
		assert_int_equal(gs_prom_sample(x.w, GS_PROM_SUM, l, 1, GS_PROM_INT(9), NULL), 0);
		assert_int_equal(gs_prom_sample(x.w, GS_PROM_COUNT, l, 1, GS_PROM_INT(4), NULL), 0);
		expect(&x, om ? "# TYPE h histogram\n"
				"h_bucket{k0=\"x\",le=\"1023.0\"} 2\n"
				"h_bucket{k0=\"x\",le=\"0.25\"} 3\n"
				"h_bucket{k0=\"x\",le=\"+Inf\"} 4\n"
				"h_sum{k0=\"x\"} 9\n"
				"h_count{k0=\"x\"} 4\n"
				"# EOF\n" :
				"# TYPE h histogram\n"
				"h_bucket{k0=\"x\",le=\"1023\"} 2\n"
				"h_bucket{k0=\"x\",le=\"0.25\"} 3\n"
				"h_bucket{k0=\"x\",le=\"+Inf\"} 4\n"
				"h_sum{k0=\"x\"} 9\n"
				"h_count{k0=\"x\"} 4\n");
	}
}

static void test_bad_names_and_labels_are_refused(void **state)
{
	static const struct gs_prom_label dash[] = { { "a-b", "1" } };
	static const struct gs_prom_label reserved[] = { { "__name__", "1" } };
	static const struct gs_prom_label twice[] = { { "a", "1" }, { "a", "2" } };
	static const struct gs_prom_label le[] = { { "le", "1" } };
	static const struct gs_prom_label novalue[] = { { "a", NULL } };
	struct gs_error err = { 0 };
	struct expo x;

	(void)state;
	expo_open(&x, GS_PROM_TEXT);
	assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, NULL, 0, GS_PROM_INT(1), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "gs_prom_family first"));
	assert_int_equal(gs_prom_family(x.w, "1abc", GS_PROM_GAUGE, NULL, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'1abc' is no Prometheus metric name"));
	assert_int_equal(gs_prom_family(x.w, "__x", GS_PROM_GAUGE, NULL, NULL, &err), -EINVAL);
	assert_int_equal(gs_prom_family(x.w, "a b", GS_PROM_GAUGE, NULL, NULL, &err), -EINVAL);
	assert_int_equal(gs_prom_family(x.w, "x", GS_PROM_GAUGE, "seconds", NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "does not end in _seconds"));
	assert_int_equal(gs_prom_family(x.w, "x_Seconds", GS_PROM_GAUGE, "Seconds", NULL, &err),
			 -EINVAL);
	assert_int_equal(gs_prom_family(x.w, "b_seconds", GS_PROM_INFO, "seconds", NULL, &err),
			 -EINVAL);
	assert_int_equal(gs_prom_family(x.w, "h", GS_PROM_HISTOGRAM, NULL, NULL, &err), 0);
	assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, NULL, 0, GS_PROM_INT(1), &err), -EINVAL);
	assert_int_equal(gs_prom_bucket(x.w, le, 1, GS_PROM_INT(1), 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "label 'le' of family h is its histogram's own"));
	assert_int_equal(gs_prom_family(x.w, "g", GS_PROM_GAUGE, NULL, NULL, &err), 0);
	assert_int_equal(gs_prom_bucket(x.w, NULL, 0, GS_PROM_INT(1), 1, &err), -EINVAL);
	assert_int_equal(gs_prom_sample(x.w, GS_PROM_SUM, NULL, 0, GS_PROM_INT(1), &err), -EINVAL);
	assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, dash, 1, GS_PROM_INT(1), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'a-b' is no Prometheus label name"));
	assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, reserved, 1, GS_PROM_INT(1), &err),
			 -EINVAL);
	assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, twice, 2, GS_PROM_INT(1), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "label 'a' is given twice"));
	assert_int_equal(gs_prom_sample(x.w, GS_PROM_VALUE, novalue, 1, GS_PROM_INT(1), &err),
			 -EINVAL);
	/* nothing of the refused calls reached the text */
	expect(&x, "# TYPE h histogram\n# TYPE g gauge\n");
	assert_true(gs_prom_label_name_ok("_x1"));
	assert_false(gs_prom_label_name_ok("a:b"));
	assert_false(gs_prom_label_name_ok(""));
}

/* OpenMetrics' rule: no family may write a sample name another family
 * could write (a gauge x_sum beside a histogram x, x_total beside a
 * counter x), and a family is written once. */
static void test_families_whose_samples_could_clash_are_refused(void **state)
{
	static const struct {
		const char *a;
		enum gs_prom_type ta;
		const char *b;
		enum gs_prom_type tb;
	} clashing[] = {
		{ "x", GS_PROM_HISTOGRAM, "x_sum", GS_PROM_GAUGE },
		{ "x", GS_PROM_HISTOGRAM, "x_bucket", GS_PROM_COUNTER },
		{ "x", GS_PROM_COUNTER, "x_total", GS_PROM_GAUGE },
		{ "x_created", GS_PROM_GAUGE, "x", GS_PROM_SUMMARY },
		{ "x", GS_PROM_COUNTER, "x", GS_PROM_GAUGE },
		{ "x", GS_PROM_GAUGE, "x", GS_PROM_GAUGE },
		{ "b", GS_PROM_INFO, "b_info", GS_PROM_GAUGE },
	};
	struct gs_error err = { 0 };
	struct expo x;

	(void)state;
	for (size_t i = 0; i < sizeof(clashing) / sizeof(clashing[0]); i++) {
		expo_open(&x, GS_PROM_TEXT);
		assert_int_equal(gs_prom_family(x.w, clashing[i].a, clashing[i].ta, NULL, NULL, &err),
				 0);
		assert_int_equal(gs_prom_family(x.w, clashing[i].b, clashing[i].tb, NULL, NULL, &err),
				 -EEXIST);
		free(expo_close(&x));
	}
	/* apart: a gauge x_count2, a counter x_sum beside a gauge x */
	expo_open(&x, GS_PROM_TEXT);
	assert_int_equal(gs_prom_family(x.w, "x", GS_PROM_GAUGE, NULL, NULL, NULL), 0);
	assert_int_equal(gs_prom_family(x.w, "x_sum", GS_PROM_COUNTER, NULL, NULL, NULL), 0);
	assert_int_equal(gs_prom_family(x.w, "x_count2", GS_PROM_GAUGE, NULL, NULL, NULL), 0);
	free(expo_close(&x));
}

/* A reserved family is written later by its owner; any other family
 * whose names could be its own is refused before. */
static void test_reserved_family_is_kept_for_its_owner(void **state)
{
	struct gs_error err = { 0 };
	struct expo x;

	(void)state;
	expo_open(&x, GS_PROM_TEXT);
	assert_int_equal(gs_prom_reserve(x.w, "gstrace_scrapes", GS_PROM_COUNTER, &err), 0);
	assert_int_equal(gs_prom_reserve(x.w, "gstrace_scrapes", GS_PROM_COUNTER, &err), -EEXIST);
	assert_int_equal(gs_prom_family(x.w, "gstrace_scrapes_total", GS_PROM_GAUGE, NULL, NULL,
					&err), -EEXIST);
	assert_non_null(strstr(err.msg, "family gstrace_scrapes (counter), reserved before it"));
	assert_int_equal(gs_prom_family(x.w, "gstrace_scrapes", GS_PROM_COUNTER, NULL, NULL, &err),
			 0);
	assert_int_equal(gs_prom_family(x.w, "gstrace_scrapes", GS_PROM_COUNTER, NULL, NULL, &err),
			 -EEXIST);
	expect(&x, "# TYPE gstrace_scrapes_total counter\n");
}

/* A write that fails (here a full device) is -EIO at the latest at the
 * end. */
static void test_failed_write_is_eio(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct gs_error err = { 0 };
	struct gs_prom *w;
	int rc = 0;

	(void)state;
	if (!f)
		skip();
	assert_int_equal(gs_prom_new(f, GS_PROM_OPENMETRICS, &w, &err), 0);
	assert_int_equal(gs_prom_family(w, "g", GS_PROM_GAUGE, NULL, NULL, &err), 0);
	for (int i = 0; i < 10000 && !rc; i++)
		rc = gs_prom_sample(w, GS_PROM_VALUE, NULL, 0, GS_PROM_INT(i), &err);
	if (!rc)
		rc = gs_prom_finish(w, &err);
	assert_int_equal(rc, -EIO);
	assert_non_null(strstr(err.msg, "writing the Prometheus exposition failed"));
	gs_prom_free(w);
	fclose(f);
}

/* ---- aggregation tables -------------------------------------------------- */

static char *render_agg(enum gs_prom_format format, const struct gs_agg_table *t,
			const struct gs_prom_agg_opts *o, size_t *written, size_t *left_out)
{
	struct gs_error err = { 0 };
	struct expo x;

	expo_open(&x, format);
	assert_int_equal(gs_prom_agg(x.w, t, o, written, left_out, &err), 0);
	return expo_close(&x);
}

static void expect_agg(enum gs_prom_format format, const struct gs_agg_table *t,
		       const struct gs_prom_agg_opts *o, const char *want)
{
	char *got = render_agg(format, t, o, NULL, NULL);

	assert_string_equal(got, want);
	free(got);
}

/* count() is a counter, one series per key, the greatest first; keys are
 * labels named as asked, valued with the printer's text of the key. */
static void test_count_is_a_counter_with_a_series_per_key(void **state)
{
	static const int64_t one[] = { 1 }, three[] = { 1, 1, 1 };
	static const char *const names[] = { "comm", "pid" };
	struct gs_agg_desc d = { .name = "@calls", .id = 2, .fn = GS_AGG_COUNT, .nkeys = 2,
				 .key_kind = { GS_AGG_KEY_STRING, GS_AGG_KEY_INT },
				 .key_off = { 0, GS_AGG_STRING_MAX } };
	struct gs_agg_entry e[2] = { 0 };
	struct gs_agg_table t = { &d, e, 2 };
	GS_OPTS(gs_prom_agg_opts, o, .key_labels = names);

	(void)state;
	agg_put_string(&e[0], &d, 0, "bash");
	agg_put_int(&e[0], &d, 1, 7);
	agg_sample(&e[0], &d, one, 1);
	agg_put_string(&e[1], &d, 0, "sshd");
	agg_put_int(&e[1], &d, 1, -1);
	agg_sample(&e[1], &d, three, 3);
	expect_agg(GS_PROM_TEXT, &t, &o,
		   "# TYPE gstrace_calls_total counter\n"
		   "# HELP gstrace_calls_total @calls: count()\n"
		   "gstrace_calls_total{comm=\"sshd\",pid=\"-1\"} 3\n"
		   "gstrace_calls_total{comm=\"bash\",pid=\"7\"} 1\n");
	expect_agg(GS_PROM_OPENMETRICS, &t, &o,
		   "# TYPE gstrace_calls counter\n"
		   "# HELP gstrace_calls @calls: count()\n"
		   "gstrace_calls_total{comm=\"sshd\",pid=\"-1\"} 3\n"
		   "gstrace_calls_total{comm=\"bash\",pid=\"7\"} 1\n"
		   "# EOF\n");
	agg_entries_free(e, 2);
}

/* A key's label value is the text gs_agg_print_text shows for it (a
 * target's bytes escaped as \xNN), then escaped for the format. */
static void test_key_label_is_the_printers_text(void **state)
{
	static const int64_t one[] = { 1 };
	static const struct gs_type_enumerator colors[] = { { "RED", 0 } };
	static const struct gs_type t_color = { .kind = GS_TYPE_ENUM, .size = 4,
						.name = "enum color", .byte_size = 4,
						.enumerators = colors, .nenumerators = 1 };
	struct gs_agg_desc d = { .name = "@m", .fn = GS_AGG_MAX, .nkeys = 4,
				 .key_kind = { GS_AGG_KEY_STRING, GS_AGG_KEY_POINTER,
					       GS_AGG_KEY_BOOL, GS_AGG_KEY_UINT },
				 .key_off = { 0, 64, 72, 80 }, .key_enum = { [3] = &t_color } };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	char *printed = NULL, *got;
	size_t len = 0;
	FILE *f;

	(void)state;
	agg_put_string(&e, &d, 0, "a\"b\\c\x01\xc3\xa9");
	agg_put_int(&e, &d, 1, 0x7fff1234);
	agg_put_int(&e, &d, 2, 1);
	agg_put_int(&e, &d, 3, 0);
	agg_sample(&e, &d, one, 1);
	f = open_memstream(&printed, &len);
	assert_int_equal(gs_agg_print_text(f, &t), 0);
	fclose(f);
	assert_string_equal(printed, "@m[a\"b\\c\\x01\\xc3\\xa9, 0x7fff1234, true, RED]: 1\n\n");
	got = render_agg(GS_PROM_TEXT, &t, NULL, NULL, NULL);
	assert_string_equal(got, "# TYPE gstrace_m gauge\n"
				 "# HELP gstrace_m @m: max()\n"
				 "gstrace_m{k0=\"a\\\"b\\\\c\\\\x01\\\\xc3\\\\xa9\",k1=\"0x7fff1234\","
				 "k2=\"true\",k3=\"RED\"} 1\n");
	free(printed);
	free(got);
	agg_entries_free(&e, 1);
}

/* sum() of nanoseconds in seconds: a counter named ..._seconds_total,
 * with the unit in OpenMetrics; a total below zero is no counter's: left
 * out, and counted. */
static void test_sum_in_seconds_leaves_out_totals_below_zero(void **state)
{
	static const int64_t busy[] = { 1500000000, 250000000 }, neg[] = { -5 };
	struct gs_agg_desc d = { .name = "@busy", .fn = GS_AGG_SUM, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_INT } };
	struct gs_agg_entry e[2] = { 0 };
	struct gs_agg_table t = { &d, e, 2 };
	GS_OPTS(gs_prom_agg_opts, o, .seconds = true);
	size_t written = 0, left_out = 0;
	char *got;

	(void)state;
	agg_put_int(&e[0], &d, 0, 1);
	agg_sample(&e[0], &d, busy, 2);
	agg_put_int(&e[1], &d, 0, 2);
	agg_sample(&e[1], &d, neg, 1);
	got = render_agg(GS_PROM_OPENMETRICS, &t, &o, &written, &left_out);
	assert_string_equal(got, "# TYPE gstrace_busy_seconds counter\n"
				 "# UNIT gstrace_busy_seconds seconds\n"
				 "# HELP gstrace_busy_seconds @busy: sum(), in seconds\n"
				 "gstrace_busy_seconds_total{k0=\"1\"} 1.75\n"
				 "# EOF\n");
	assert_int_equal(written, 1);
	assert_int_equal(left_out, 1);
	free(got);
	agg_entries_free(e, 2);
}

static void test_min_max_avg_are_gauges(void **state)
{
	static const int64_t v[] = { 3, 10, 4 };
	static const uint8_t fns[] = { GS_AGG_MIN, GS_AGG_MAX, GS_AGG_AVG };
	static const char *const want[] = {
		"# TYPE gstrace_v gauge\n# HELP gstrace_v @v: min()\ngstrace_v 3\n",
		"# TYPE gstrace_v gauge\n# HELP gstrace_v @v: max()\ngstrace_v 10\n",
		"# TYPE gstrace_v gauge\n# HELP gstrace_v @v: avg()\ngstrace_v 5\n",
	};

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct gs_agg_desc d = { .name = "@v", .fn = fns[i] };
		struct gs_agg_entry e = { 0 };
		struct gs_agg_table t = { &d, &e, 1 };

		agg_sample(&e, &d, v, 3);
		expect_agg(GS_PROM_TEXT, &t, NULL, want[i]);
	}
}

/* hist(): the buckets from the one below the lowest hit (0, ending at 0)
 * to the highest hit, [lo, hi) as le="hi-1", cumulative; every series of
 * the family has the same bounds. */
static void test_hist_buckets_are_cumulative_with_the_tables_bounds(void **state)
{
	static const int64_t a[] = { 1, 5, 5 }, b[] = { 2 };
	static const char *const names[] = { "comm" };
	struct gs_agg_desc d = { .name = "@sz", .fn = GS_AGG_HIST, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_STRING } };
	struct gs_agg_entry e[2] = { 0 };
	struct gs_agg_table t = { &d, e, 2 };
	GS_OPTS(gs_prom_agg_opts, o, .key_labels = names, .help = "Sizes.");

	(void)state;
	agg_put_string(&e[0], &d, 0, "a");
	agg_sample(&e[0], &d, a, 3);
	agg_put_string(&e[1], &d, 0, "b");
	agg_sample(&e[1], &d, b, 1);
	expect_agg(GS_PROM_TEXT, &t, &o,
		   "# TYPE gstrace_sz histogram\n"
		   "# HELP gstrace_sz Sizes.\n"
		   "gstrace_sz_bucket{comm=\"a\",le=\"0\"} 0\n"
		   "gstrace_sz_bucket{comm=\"a\",le=\"1\"} 1\n"
		   "gstrace_sz_bucket{comm=\"a\",le=\"3\"} 1\n"
		   "gstrace_sz_bucket{comm=\"a\",le=\"7\"} 3\n"
		   "gstrace_sz_bucket{comm=\"a\",le=\"+Inf\"} 3\n"
		   "gstrace_sz_sum{comm=\"a\"} 11\n"
		   "gstrace_sz_count{comm=\"a\"} 3\n"
		   "gstrace_sz_bucket{comm=\"b\",le=\"0\"} 0\n"
		   "gstrace_sz_bucket{comm=\"b\",le=\"1\"} 0\n"
		   "gstrace_sz_bucket{comm=\"b\",le=\"3\"} 1\n"
		   "gstrace_sz_bucket{comm=\"b\",le=\"7\"} 1\n"
		   "gstrace_sz_bucket{comm=\"b\",le=\"+Inf\"} 1\n"
		   "gstrace_sz_sum{comm=\"b\"} 2\n"
		   "gstrace_sz_count{comm=\"b\"} 1\n");
	agg_entries_free(e, 2);
}

/* hist() of nanoseconds: bounds in seconds too ([512, 1024) ns is
 * le="1.023e-06"); the last bucket ends at 2^63 - 1. */
static void test_hist_in_seconds(void **state)
{
	static const int64_t ns[] = { 1000, 3000 }, huge[] = { INT64_MAX };
	struct gs_agg_desc d = { .name = "@lat", .fn = GS_AGG_HIST };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	GS_OPTS(gs_prom_agg_opts, o, .seconds = true, .help = "Latency.");
	char *got;

	(void)state;
	agg_sample(&e, &d, ns, 2);
	expect_agg(GS_PROM_OPENMETRICS, &t, &o,
		   "# TYPE gstrace_lat_seconds histogram\n"
		   "# UNIT gstrace_lat_seconds seconds\n"
		   "# HELP gstrace_lat_seconds Latency.\n"
		   "gstrace_lat_seconds_bucket{le=\"5.11e-07\"} 0\n"
		   "gstrace_lat_seconds_bucket{le=\"1.023e-06\"} 1\n"
		   "gstrace_lat_seconds_bucket{le=\"2.047e-06\"} 1\n"
		   "gstrace_lat_seconds_bucket{le=\"4.095e-06\"} 2\n"
		   "gstrace_lat_seconds_bucket{le=\"+Inf\"} 2\n"
		   "gstrace_lat_seconds_sum 4e-06\n"
		   "gstrace_lat_seconds_count 2\n"
		   "# EOF\n");
	agg_entries_free(&e, 1);
	agg_sample(&e, &d, huge, 1);
	got = render_agg(GS_PROM_TEXT, &t, NULL, NULL, NULL);
	assert_non_null(strstr(got, "gstrace_lat_bucket{le=\"4611686018427387903\"} 0\n"
				    "gstrace_lat_bucket{le=\"9223372036854775807\"} 1\n"
				    "gstrace_lat_bucket{le=\"+Inf\"} 1\n"));
	free(got);
	agg_entries_free(&e, 1);
}

/* lhist(x, 0, 100, 10): below 0 is le="-1", [10, 20) le="19", 100 and up
 * +Inf only. OpenMetrics has no _sum beside a bound below zero, and its
 * parsers want no _count without _sum. */
static void test_lhist_with_values_below_min_and_above_max(void **state)
{
	static const int64_t v[] = { -5, 15, 250 };
	struct gs_agg_desc d = { .name = "@l", .fn = GS_AGG_LHIST, .lmin = 0, .lmax = 100,
				 .lstep = 10 };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	GS_OPTS(gs_prom_agg_opts, o, .help = "L.");

	(void)state;
	agg_sample(&e, &d, v, 3);
	expect_agg(GS_PROM_TEXT, &t, &o,
		   "# TYPE gstrace_l histogram\n"
		   "# HELP gstrace_l L.\n"
		   "gstrace_l_bucket{le=\"-1\"} 1\n"
		   "gstrace_l_bucket{le=\"9\"} 1\n"
		   "gstrace_l_bucket{le=\"19\"} 2\n"
		   "gstrace_l_bucket{le=\"29\"} 2\n"
		   "gstrace_l_bucket{le=\"39\"} 2\n"
		   "gstrace_l_bucket{le=\"49\"} 2\n"
		   "gstrace_l_bucket{le=\"59\"} 2\n"
		   "gstrace_l_bucket{le=\"69\"} 2\n"
		   "gstrace_l_bucket{le=\"79\"} 2\n"
		   "gstrace_l_bucket{le=\"89\"} 2\n"
		   "gstrace_l_bucket{le=\"99\"} 2\n"
		   "gstrace_l_bucket{le=\"+Inf\"} 3\n"
		   "gstrace_l_sum 260\n"
		   "gstrace_l_count 3\n");
	agg_entries_free(&e, 1);
	{
		static const int64_t w[] = { 35, 37 };

		agg_sample(&e, &d, w, 2);
		expect_agg(GS_PROM_OPENMETRICS, &t, &o,
			   "# TYPE gstrace_l histogram\n"
			   "# HELP gstrace_l L.\n"
			   "gstrace_l_bucket{le=\"29.0\"} 0\n"
			   "gstrace_l_bucket{le=\"39.0\"} 2\n"
			   "gstrace_l_bucket{le=\"+Inf\"} 2\n"
			   "gstrace_l_sum 72\n"
			   "gstrace_l_count 2\n"
			   "# EOF\n");
		agg_entries_free(&e, 1);
	}
	agg_sample(&e, &d, v, 3);
	expect_agg(GS_PROM_OPENMETRICS, &t, &o,
		   "# TYPE gstrace_l histogram\n"
		   "# HELP gstrace_l L.\n"
		   "gstrace_l_bucket{le=\"-1.0\"} 1\n"
		   "gstrace_l_bucket{le=\"9.0\"} 1\n"
		   "gstrace_l_bucket{le=\"19.0\"} 2\n"
		   "gstrace_l_bucket{le=\"29.0\"} 2\n"
		   "gstrace_l_bucket{le=\"39.0\"} 2\n"
		   "gstrace_l_bucket{le=\"49.0\"} 2\n"
		   "gstrace_l_bucket{le=\"59.0\"} 2\n"
		   "gstrace_l_bucket{le=\"69.0\"} 2\n"
		   "gstrace_l_bucket{le=\"79.0\"} 2\n"
		   "gstrace_l_bucket{le=\"89.0\"} 2\n"
		   "gstrace_l_bucket{le=\"99.0\"} 2\n"
		   "gstrace_l_bucket{le=\"+Inf\"} 3\n"
		   "# EOF\n");
	agg_entries_free(&e, 1);
}

/* stats(): a summary without quantiles; in OpenMetrics a sum below zero
 * (a counter's) is left out. */
static void test_stats_is_a_summary(void **state)
{
	static const int64_t v[] = { 2, 4 }, n[] = { -2, -4 };
	struct gs_agg_desc d = { .name = "@s", .fn = GS_AGG_STATS };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };

	(void)state;
	agg_sample(&e, &d, v, 2);
	expect_agg(GS_PROM_TEXT, &t, NULL,
		   "# TYPE gstrace_s summary\n# HELP gstrace_s @s: stats()\n"
		   "gstrace_s_sum 6\ngstrace_s_count 2\n");
	e.value = (struct gs_agg_value){ 0 };
	agg_sample(&e, &d, n, 2);
	expect_agg(GS_PROM_OPENMETRICS, &t, NULL,
		   "# TYPE gstrace_s summary\n# HELP gstrace_s @s: stats()\n"
		   "gstrace_s_count 2\n# EOF\n");
}

/* The cap keeps the series of the greatest values and counts the rest;
 * a histogram's key is as many series as it writes lines, and is written
 * whole or not at all. */
static void test_max_series_keeps_the_greatest(void **state)
{
	static const int64_t small[] = { 1 }, big[] = { 1, 2 };
	struct gs_agg_desc h = { .name = "@h", .fn = GS_AGG_HIST, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_INT } };
	struct gs_agg_entry he[2] = { 0 };
	struct gs_agg_table ht = { &h, he, 2 };
	GS_OPTS(gs_prom_agg_opts, ho, .max_series = 9, .help = "H.");
	static const int64_t one[] = { 1 }, two[] = { 1, 1 }, three[] = { 1, 1, 1 };
	struct gs_agg_desc d = { .name = "@c", .fn = GS_AGG_COUNT, .nkeys = 1,
				 .key_kind = { GS_AGG_KEY_INT } };
	struct gs_agg_entry e[3] = { 0 };
	struct gs_agg_table t = { &d, e, 3 };
	GS_OPTS(gs_prom_agg_opts, o, .max_series = 2, .help = "C.");
	size_t written = 0, left_out = 0;
	char *got;

	(void)state;
	agg_put_int(&e[0], &d, 0, 10);
	agg_sample(&e[0], &d, two, 2);
	agg_put_int(&e[1], &d, 0, 20);
	agg_sample(&e[1], &d, one, 1);
	agg_put_int(&e[2], &d, 0, 30);
	agg_sample(&e[2], &d, three, 3);
	got = render_agg(GS_PROM_TEXT, &t, &o, &written, &left_out);
	assert_string_equal(got, "# TYPE gstrace_c_total counter\n# HELP gstrace_c_total C.\n"
				 "gstrace_c_total{k0=\"30\"} 3\ngstrace_c_total{k0=\"10\"} 2\n");
	assert_int_equal(written, 2);
	assert_int_equal(left_out, 1);
	free(got);
	/* bounds 0, 1, 3, then +Inf, _sum, _count: 6 series a key */
	agg_put_int(&he[0], &h, 0, 1);
	agg_sample(&he[0], &h, small, 1);
	agg_put_int(&he[1], &h, 0, 2);
	agg_sample(&he[1], &h, big, 2);
	got = render_agg(GS_PROM_TEXT, &ht, &ho, &written, &left_out);
	assert_string_equal(got, "# TYPE gstrace_h histogram\n# HELP gstrace_h H.\n"
				 "gstrace_h_bucket{k0=\"2\",le=\"0\"} 0\n"
				 "gstrace_h_bucket{k0=\"2\",le=\"1\"} 1\n"
				 "gstrace_h_bucket{k0=\"2\",le=\"3\"} 2\n"
				 "gstrace_h_bucket{k0=\"2\",le=\"+Inf\"} 2\n"
				 "gstrace_h_sum{k0=\"2\"} 3\n"
				 "gstrace_h_count{k0=\"2\"} 2\n");
	assert_int_equal(written, 6);
	assert_int_equal(left_out, 6);
	free(got);
	agg_entries_free(he, 2);
}

/* Key label names: the caller's where one may be, else k<i> (k<i>_ when a
 * constant label has that name); constant labels first on every series. */
static void test_key_label_names_fall_back_to_k_i(void **state)
{
	static const int64_t one[] = { 1 };
	static const char *const names[] = { "comm", "le", NULL, "comm", "__x" };
	static const struct gs_prom_label env[] = { { "env", "prod" }, { "k2", "c" } };
	struct gs_agg_desc d = { .name = "@c", .fn = GS_AGG_COUNT, .nkeys = 5,
				 .key_kind = { GS_AGG_KEY_INT, GS_AGG_KEY_INT, GS_AGG_KEY_INT,
					       GS_AGG_KEY_INT, GS_AGG_KEY_INT },
				 .key_off = { 0, 8, 16, 24, 32 } };
	struct gs_agg_entry e = { 0 };
	struct gs_agg_table t = { &d, &e, 1 };
	GS_OPTS(gs_prom_agg_opts, o, .key_labels = names, .labels = env, .nlabels = 2,
		.help = "C.");

	(void)state;
	for (unsigned k = 0; k < 5; k++)
		agg_put_int(&e, &d, k, k);
	agg_sample(&e, &d, one, 1);
	expect_agg(GS_PROM_TEXT, &t, &o,
		   "# TYPE gstrace_c_total counter\n# HELP gstrace_c_total C.\n"
		   "gstrace_c_total{env=\"prod\",k2=\"c\",comm=\"0\",k1=\"1\",k2_=\"2\",k3=\"3\","
		   "k4=\"4\"} 1\n");
}

static void test_bad_agg_options_are_refused(void **state)
{
	static const struct gs_prom_label bad[] = { { "le", "1" } };
	struct gs_agg_desc d = { .name = "@c", .fn = GS_AGG_COUNT };
	struct gs_agg_table t = { &d, NULL, 0 };
	GS_OPTS(gs_prom_agg_opts, prefix, .prefix = "9x_");
	GS_OPTS(gs_prom_agg_opts, labels, .labels = bad, .nlabels = 1);
	struct gs_prom_agg_opts nosz = { 0 };
	struct gs_error err = { 0 };
	struct expo x;

	(void)state;
	expo_open(&x, GS_PROM_TEXT);
	assert_int_equal(gs_prom_agg(x.w, &t, &prefix, NULL, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "prefix '9x_'"));
	assert_int_equal(gs_prom_agg(x.w, &t, &labels, NULL, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "label 0 ('le')"));
	assert_int_equal(gs_prom_agg(x.w, &t, &nosz, NULL, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "GS_OPTS"));
	expect(&x, "");
}

/* A table whose name is taken (here reserved by the agent's own
 * gstrace_scrapes) gets its id; `@` and what no name holds become `_`;
 * a counter's own _total is not doubled. */
static void test_table_names(void **state)
{
	struct gs_agg_desc scrapes = { .name = "@scrapes", .id = 3, .fn = GS_AGG_COUNT };
	struct gs_agg_desc odd = { .name = "@a.b-c", .id = 4, .fn = GS_AGG_MAX };
	struct gs_agg_desc tot = { .name = "@reqs_total", .id = 5, .fn = GS_AGG_COUNT };
	struct gs_agg_table t1 = { &scrapes, NULL, 0 }, t2 = { &odd, NULL, 0 }, t3 = { &tot, NULL, 0 };
	GS_OPTS(gs_prom_agg_opts, o, .help = "h");
	struct gs_error err = { 0 };
	struct expo x;

	(void)state;
	expo_open(&x, GS_PROM_TEXT);
	assert_int_equal(gs_prom_reserve(x.w, "gstrace_scrapes", GS_PROM_COUNTER, &err), 0);
	assert_int_equal(gs_prom_agg(x.w, &t1, &o, NULL, NULL, &err), 0);
	assert_int_equal(gs_prom_agg(x.w, &t2, &o, NULL, NULL, &err), 0);
	assert_int_equal(gs_prom_agg(x.w, &t3, &o, NULL, NULL, &err), 0);
	expect(&x, "# TYPE gstrace_scrapes_3_total counter\n# HELP gstrace_scrapes_3_total h\n"
		   "# TYPE gstrace_a_b_c gauge\n# HELP gstrace_a_b_c h\n"
		   "# TYPE gstrace_reqs_total counter\n# HELP gstrace_reqs_total h\n");
}

/* ---- Prometheus' own lint ------------------------------------------------- */

/* Every kind of table, with keys, escapes and seconds, into one
 * exposition. */
static char *every_kind(enum gs_prom_format format, struct gs_agg_entry *e)
{
	static const int64_t lat[] = { 1200, 3400, 999999, 5 }, sizes[] = { -3, 0, 17, 4096 };
	static const char *const names[] = { "comm", "retval" };
	static const struct gs_prom_label env[] = { { "env", "prod \"eu\"" } };
	static const struct { const char *name; uint8_t fn; bool seconds; } kinds[] = {
		{ "@calls", GS_AGG_COUNT, false }, { "@bytes", GS_AGG_SUM, false },
		{ "@busy", GS_AGG_SUM, true },     { "@least", GS_AGG_MIN, false },
		{ "@most", GS_AGG_MAX, true },     { "@mean", GS_AGG_AVG, false },
		{ "@stat", GS_AGG_STATS, true },   { "@lat", GS_AGG_HIST, true },
		{ "@sizes", GS_AGG_HIST, false },  { "@lin", GS_AGG_LHIST, false },
	};
	struct gs_agg_desc d[sizeof(kinds) / sizeof(kinds[0])];
	struct gs_error err = { 0 };
	struct expo x;

	expo_open(&x, format);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		GS_OPTS(gs_prom_agg_opts, o, .key_labels = names, .seconds = kinds[i].seconds,
			.labels = env, .nlabels = 1);
		struct gs_agg_table t = { &d[i], &e[2 * i], 2 };

		d[i] = (struct gs_agg_desc){ .name = kinds[i].name, .id = (uint32_t)i,
					     .fn = kinds[i].fn, .nkeys = 2,
					     .key_kind = { GS_AGG_KEY_STRING, GS_AGG_KEY_INT },
					     .key_off = { 0, GS_AGG_STRING_MAX },
					     .lmin = -10, .lmax = 100, .lstep = 10 };
		agg_put_string(&e[2 * i], &d[i], 0, "nginx\n\"worker\"\\");
		agg_put_int(&e[2 * i], &d[i], 1, -1);
		agg_sample(&e[2 * i], &d[i], kinds[i].seconds ? lat : sizes, 4);
		agg_put_string(&e[2 * i + 1], &d[i], 0, "sshd");
		agg_put_int(&e[2 * i + 1], &d[i], 1, 0);
		agg_sample(&e[2 * i + 1], &d[i], lat, 2);
		assert_int_equal(gs_prom_agg(x.w, &t, &o, NULL, NULL, &err), 0);
	}
	return expo_close(&x);
}

/* promtool lints the 0.0.4 text; OpenMetrics goes through the strict
 * parser of Prometheus' Python client first (prom_lint.h). */
static void test_promtool_lints_every_kind_clean(void **state)
{
	struct gs_agg_entry e[20] = { 0 };
	char *text;

	(void)state;
	for (int om = 0; om < 2; om++) {
		text = every_kind(om ? GS_PROM_OPENMETRICS : GS_PROM_TEXT, e);
		prom_lint(text, om);
		free(text);
		agg_entries_free(e, 20);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_is_named_by_its_total_in_text_and_by_itself_in_openmetrics),
		cmocka_unit_test(test_unit_line_in_openmetrics_only),
		cmocka_unit_test(test_info_is_a_gauge_in_text),
		cmocka_unit_test(test_label_values_and_help_are_escaped),
		cmocka_unit_test(test_numbers_as_go_writes_them),
		cmocka_unit_test(test_bucket_bounds),
		cmocka_unit_test(test_bad_names_and_labels_are_refused),
		cmocka_unit_test(test_families_whose_samples_could_clash_are_refused),
		cmocka_unit_test(test_reserved_family_is_kept_for_its_owner),
		cmocka_unit_test(test_failed_write_is_eio),
		cmocka_unit_test(test_count_is_a_counter_with_a_series_per_key),
		cmocka_unit_test(test_key_label_is_the_printers_text),
		cmocka_unit_test(test_sum_in_seconds_leaves_out_totals_below_zero),
		cmocka_unit_test(test_min_max_avg_are_gauges),
		cmocka_unit_test(test_hist_buckets_are_cumulative_with_the_tables_bounds),
		cmocka_unit_test(test_hist_in_seconds),
		cmocka_unit_test(test_lhist_with_values_below_min_and_above_max),
		cmocka_unit_test(test_stats_is_a_summary),
		cmocka_unit_test(test_max_series_keeps_the_greatest),
		cmocka_unit_test(test_key_label_names_fall_back_to_k_i),
		cmocka_unit_test(test_bad_agg_options_are_refused),
		cmocka_unit_test(test_table_names),
		cmocka_unit_test(test_promtool_lints_every_kind_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
