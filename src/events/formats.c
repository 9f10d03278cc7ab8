/* The table of output formats (gs/formats.h says what a row holds): one
 * row per format the events layer writes, read by the command's flags and
 * --help and by the agent's answers. */
#include <string.h>

#include <gs/formats.h>

#include "base.h"

#define TEXT_PLAIN "text/plain; charset=utf-8"

static const struct gs_output_format formats[] = {
	{ GS_OUTPUT_PRETTY, "pretty", GS_OUTPUT_STREAMING, false, false, false, TEXT_PLAIN,
	  NULL, "events as text, a header line each (default)" },
	{ GS_OUTPUT_PLAIN, "plain", GS_OUTPUT_STREAMING, false, false, false, TEXT_PLAIN,
	  NULL, "events as text, the printed items alone" },
	{ GS_OUTPUT_JSON, "json", GS_OUTPUT_STREAMING, false, false, false, "application/jsonl",
	  NULL, "one JSON object per event per line" },
	{ GS_OUTPUT_FOLDED, "folded", GS_OUTPUT_AT_EXIT, true, false, false, TEXT_PLAIN,
	  NULL, "backtraces counted, folded lines at exit" },
	/* the profile's bytes are gzipped by its writer, as Go's pprof
	 * endpoint sends them */
	{ GS_OUTPUT_PPROF, "pprof", GS_OUTPUT_AT_EXIT, true, true, true, "application/octet-stream",
	  ".pb.gz", "backtraces as a pprof profile into -o FILE" },
	/* the exposition formats as Prometheus negotiates them */
	{ GS_OUTPUT_PROMETHEUS, "prometheus", GS_OUTPUT_SERVED, false, false, false,
	  "text/plain; version=0.0.4; charset=utf-8", NULL,
	  "Prometheus' text exposition 0.0.4" },
	{ GS_OUTPUT_OPENMETRICS, "openmetrics", GS_OUTPUT_SERVED, false, false, false,
	  "application/openmetrics-text; version=1.0.0; charset=utf-8", NULL,
	  "OpenMetrics 1.0.0 text, when Accept asks for it" },
};

/* A row's id is its index: the enum and the table cannot drift apart
 * unnoticed (tests/events/test_formats.c checks every row). */
_Static_assert(BASE_ARRAY_SIZE(formats) == GS_OUTPUT_OPENMETRICS + 1,
	       "a row for every enum gs_output_id");

size_t gs_output_format_count(void)
{
	return BASE_ARRAY_SIZE(formats);
}

const struct gs_output_format *gs_output_format(enum gs_output_id id)
{
	return (size_t)id < BASE_ARRAY_SIZE(formats) ? &formats[id] : NULL;
}

const struct gs_output_format *gs_output_format_find(const char *name)
{
	for (size_t i = 0; name && i < BASE_ARRAY_SIZE(formats); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const struct gs_output_format *gs_output_format_for_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(formats); i++) {
		const char *ext = formats[i].extension;
		size_t k = ext ? strlen(ext) : 0;

		if (ext && n >= k && strcmp(path + n - k, ext) == 0)
			return &formats[i];
	}
	return NULL;
}
