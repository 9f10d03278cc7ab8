/* The table of output formats (gs/formats.h): each row where its id says,
 * named once, with the columns the command and the agent read; the media
 * types are those Prometheus and pprof clients negotiate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gs/formats.h>

static void test_every_row_sits_at_its_id_and_is_named_once(void **state)
{
	size_t n = gs_output_format_count();

	(void)state;
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++) {
		const struct gs_output_format *f = gs_output_format((enum gs_output_id)i);

		assert_non_null(f);
		assert_int_equal(f->id, i);
		assert_non_null(f->name);
		assert_non_null(f->content_type);
		assert_non_null(f->help);
		assert_true(strlen(f->help) <= 50); /* --help's column */
		assert_ptr_equal(gs_output_format_find(f->name), f);
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(gs_output_format((enum gs_output_id)k)->name,
						f->name);
		/* a format picked by a file name is written to that file */
		if (f->extension)
			assert_int_not_equal(f->when, GS_OUTPUT_SERVED);
		/* gzipped bytes are binary */
		if (f->gzipped)
			assert_true(f->binary);
	}
	assert_null(gs_output_format((enum gs_output_id)n));
	assert_null(gs_output_format((enum gs_output_id)-1));
}

/* The columns --script-output's rules read, row by row as the command
 * behaved when they were comparisons of names. */
static void test_columns_of_the_commands_formats(void **state)
{
	static const struct {
		enum gs_output_id id;
		const char *name;
		enum gs_output_when when;
		bool stacks, binary;
	} rows[] = {
		{ GS_OUTPUT_PRETTY, "pretty", GS_OUTPUT_STREAMING, false, false },
		{ GS_OUTPUT_PLAIN, "plain", GS_OUTPUT_STREAMING, false, false },
		{ GS_OUTPUT_JSON, "json", GS_OUTPUT_STREAMING, false, false },
		{ GS_OUTPUT_FOLDED, "folded", GS_OUTPUT_AT_EXIT, true, false },
		{ GS_OUTPUT_PPROF, "pprof", GS_OUTPUT_AT_EXIT, true, true },
		{ GS_OUTPUT_PROMETHEUS, "prometheus", GS_OUTPUT_SERVED, false, false },
		{ GS_OUTPUT_OPENMETRICS, "openmetrics", GS_OUTPUT_SERVED, false, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct gs_output_format *f = gs_output_format(rows[i].id);

		assert_string_equal(f->name, rows[i].name);
		assert_int_equal(f->when, rows[i].when);
		assert_int_equal(f->needs_stacks, rows[i].stacks);
		assert_int_equal(f->binary, rows[i].binary);
	}
}

/* What an HTTP answer of each says it is: Prometheus' text format 0.0.4
 * and OpenMetrics 1.0.0 as the exposition documents name them, a pprof
 * profile as Go's net/http/pprof sends it (gzipped bytes, octet-stream). */
static void test_media_types_are_the_ones_clients_negotiate(void **state)
{
	(void)state;
	assert_string_equal(gs_output_format(GS_OUTPUT_PROMETHEUS)->content_type,
			    "text/plain; version=0.0.4; charset=utf-8");
	assert_string_equal(gs_output_format(GS_OUTPUT_OPENMETRICS)->content_type,
			    "application/openmetrics-text; version=1.0.0; charset=utf-8");
	assert_string_equal(gs_output_format(GS_OUTPUT_PPROF)->content_type,
			    "application/octet-stream");
	assert_true(gs_output_format(GS_OUTPUT_PPROF)->gzipped);
	assert_false(gs_output_format(GS_OUTPUT_PROMETHEUS)->gzipped);
	assert_string_equal(gs_output_format(GS_OUTPUT_JSON)->content_type, "application/jsonl");
}

static void test_lookup_by_name_and_by_file_name(void **state)
{
	(void)state;
	assert_null(gs_output_format_find(NULL));
	assert_null(gs_output_format_find(""));
	assert_null(gs_output_format_find("Pretty"));
	assert_null(gs_output_format_find("pprof "));
	assert_int_equal(gs_output_format_find("openmetrics")->id, GS_OUTPUT_OPENMETRICS);

	assert_int_equal(gs_output_format_for_path("cpu.pb.gz")->id, GS_OUTPUT_PPROF);
	assert_int_equal(gs_output_format_for_path("/tmp/a/b.pb.gz")->id, GS_OUTPUT_PPROF);
	/* the ending alone is a hidden file's name, and still picks it (as
	 * -o .pb.gz always did) */
	assert_int_equal(gs_output_format_for_path(".pb.gz")->id, GS_OUTPUT_PPROF);
	assert_null(gs_output_format_for_path("cpu.pb"));
	assert_null(gs_output_format_for_path("cpu.gz"));
	assert_null(gs_output_format_for_path("cpu.pb.gz.txt"));
	assert_null(gs_output_format_for_path("out.txt"));
	assert_null(gs_output_format_for_path(""));
	assert_null(gs_output_format_for_path(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row_sits_at_its_id_and_is_named_once),
		cmocka_unit_test(test_columns_of_the_commands_formats),
		cmocka_unit_test(test_media_types_are_the_ones_clients_negotiate),
		cmocka_unit_test(test_lookup_by_name_and_by_file_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
