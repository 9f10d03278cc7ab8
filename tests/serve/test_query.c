/* The query string and the Accept headers of a request (src/serve/query.c,
 * accept.c): what each says, and every malformed one refused with a
 * message that names the key and the rule and none of the bytes sent. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "serve_int.h"

static int parse(const char *q, uint32_t max, struct srv_query *out, char *msg, size_t size)
{
	return srv_query_parse(q, strlen(q), max, out, msg, size);
}

static void test_query_seconds_and_debug(void **state)
{
	static const struct {
		const char *query;
		bool has_seconds;
		uint32_t seconds;
		bool debug;
	} cases[] = {
		{ "", false, 0, false },
		{ "seconds=30", true, 30, false },
		{ "seconds=1", true, 1, false },
		{ "seconds=300", true, 300, false },
		{ "seconds=007", true, 7, false },
		{ "debug=1", false, 0, true },
		{ "debug=0", false, 0, false },
		{ "debug=1&seconds=5", true, 5, true },
		/* percent-encoded keys and values mean what they decode to */
		{ "%73econds=%32", true, 2, false },
		/* keys of pprof clients of their own: ignored */
		{ "seconds=3&gc=1&x=%41+b&&", true, 3, false },
		{ "&&&", false, 0, false },
		{ "Seconds=9", false, 0, false }, /* keys are case-sensitive */
		{ "seconds2=9", false, 0, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srv_query q;
		char msg[160];
		int rc = parse(cases[i].query, 300, &q, msg, sizeof(msg));

		if (rc)
			fail_msg("?%s refused: %s", cases[i].query, msg);
		assert_int_equal(q.has_seconds, cases[i].has_seconds);
		assert_int_equal(q.seconds, cases[i].seconds);
		assert_int_equal(q.debug, cases[i].debug);
	}
}

static void test_query_malformed_refused_without_echo(void **state)
{
	static const struct {
		const char *query;
		const char *says;
	} cases[] = {
		{ "seconds=0", "from 1 to 300" },
		{ "seconds=301", "from 1 to 300" },
		{ "seconds=99999999999999999999999", "from 1 to 300" },
		{ "seconds=-1", "from 1 to 300" },
		{ "seconds=+1", "from 1 to 300" },
		{ "seconds=%2B1", "from 1 to 300" },
		{ "seconds=1.5", "from 1 to 300" },
		{ "seconds=1e2", "from 1 to 300" },
		{ "seconds=", "from 1 to 300" },
		{ "seconds", "from 1 to 300" },
		{ "seconds=%201", "from 1 to 300" },
		{ "seconds=1%00", "from 1 to 300" },
		{ "seconds=1&seconds=2", "given twice" },
		{ "debug=1&debug=1", "given twice" },
		{ "debug=yes", "whole number" },
		{ "x=%zz", "malformed" },
		{ "x=%4", "malformed" },
		{ "x=%", "malformed" },
		{ "%<script>=1", "malformed" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srv_query q;
		char msg[160];
		int rc = parse(cases[i].query, 300, &q, msg, sizeof(msg));

		if (rc != -EINVAL)
			fail_msg("?%s: %d, not -EINVAL", cases[i].query, rc);
		if (!strstr(msg, cases[i].says))
			fail_msg("?%s: \"%s\" does not say \"%s\"", cases[i].query, msg,
				 cases[i].says);
		assert_null(strchr(msg, '\n'));
		assert_null(strstr(msg, "script"));
		assert_null(strstr(msg, "zz"));
	}
}

static void test_query_not_nul_terminated(void **state)
{
	/* the parser reads len bytes: what follows is not the query's */
	static const char buf[] = "seconds=12seconds=x";
	struct srv_query q;
	char msg[160];

	(void)state;
	assert_int_equal(srv_query_parse(buf, 10, 300, &q, msg, sizeof(msg)), 0);
	assert_int_equal(q.seconds, 12);
	assert_int_equal(srv_query_parse(buf, 0, 300, &q, msg, sizeof(msg)), 0);
	assert_false(q.has_seconds);
	assert_int_equal(srv_query_parse(NULL, 5, 300, &q, msg, sizeof(msg)), 0);
}

static void test_query_message_fits_small_buffer(void **state)
{
	struct srv_query q;
	char msg[8];

	(void)state;
	memset(msg, 'x', sizeof(msg));
	assert_int_equal(parse("seconds=0", 300, &q, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(strlen(msg), sizeof(msg) - 1);
	assert_int_equal(parse("seconds=0", 300, &q, NULL, 0), -EINVAL);
}

static void test_accept_openmetrics(void **state)
{
	static const struct {
		const char *accept;
		bool openmetrics;
	} cases[] = {
		{ NULL, false },
		{ "", false },
		{ "*/*", false },
		{ "text/plain", false },
		{ "application/openmetrics-text", true },
		/* what Prometheus sends */
		{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", true },
		{ "application/openmetrics-text; version=0.0.1; q=0.2, text/plain;version=0.0.4;"
		  "q=0.5, */*;q=0.1", false },
		{ "text/plain;version=0.0.4;q=0.3,application/openmetrics-text;q=0.9", true },
		{ "application/openmetrics-text;q=0", false },
		{ "Application/OpenMetrics-Text ; Q=1", true },
		{ "application/openmetrics-text;q=abc", false },
		{ "application/openmetrics-text;q=2", false },
		/* equal weights: the one named first */
		{ "text/plain, application/openmetrics-text", false },
		{ "application/openmetrics-text, text/plain", true },
		{ "text/plain;q=0.5, application/openmetrics-text;q=0.2, "
		  "application/openmetrics-text;q=0.5", false },
		{ ";;;,,,;q=;=", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (srv_accept_openmetrics(cases[i].accept) != cases[i].openmetrics)
			fail_msg("Accept: %s: openmetrics should be %d",
				 cases[i].accept ? cases[i].accept : "(none)",
				 cases[i].openmetrics);
}

static void test_accept_gzip(void **state)
{
	static const struct {
		const char *coding;
		bool gzip;
	} cases[] = {
		{ NULL, false },
		{ "", false },
		{ "identity", false },
		{ "gzip", true },
		{ "gzip, deflate, br", true },
		{ "deflate, GZIP;q=0.5", true },
		{ "x-gzip", true },
		{ "gzip;q=0", false },
		{ "gzip;q=0.000", false },
		{ "*", true },
		{ "*;q=0", false },
		{ "gzip;q=0, *", false },
		{ "br, *;q=0.1", true },
		{ "gzipx", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (srv_accept_gzip(cases[i].coding) != cases[i].gzip)
			fail_msg("Accept-Encoding: %s: gzip should be %d",
				 cases[i].coding ? cases[i].coding : "(none)", cases[i].gzip);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_seconds_and_debug),
		cmocka_unit_test(test_query_malformed_refused_without_echo),
		cmocka_unit_test(test_query_not_nul_terminated),
		cmocka_unit_test(test_query_message_fits_small_buffer),
		cmocka_unit_test(test_accept_openmetrics),
		cmocka_unit_test(test_accept_gzip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
