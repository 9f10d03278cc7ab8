/* The output formats gstrace writes, as one table: each row a name, when
 * it is written (per event as events arrive, once when a run ends, or at
 * each request of the agent, gstrace --serve), whether it is made of
 * backtraces, whether it is binary, the media type an HTTP answer gives
 * it, the file name ending that picks it and one line of help. The
 * command's --script-output and --help and the agent read it, so a new
 * format is a row here and its writer. (The print-format grammar of a
 * script's `print "{}"` is gs/format.h's, another thing.) */
#ifndef GS_FORMATS_H
#define GS_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

#include <gs/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The rows, in the table's order: ids 0 .. gs_output_format_count() - 1. */
enum gs_output_id {
	GS_OUTPUT_PRETTY = 0,      /* events as text, a header line each (gs/print.h) */
	GS_OUTPUT_PLAIN = 1,       /* events as text, the items alone (gs/print.h) */
	GS_OUTPUT_JSON = 2,        /* one JSON object per event per line (gs/print.h) */
	GS_OUTPUT_FOLDED = 3,      /* stacks and their counts (gs/fold.h) */
	GS_OUTPUT_PPROF = 4,       /* a gzipped pprof profile (gs/pprof.h) */
	GS_OUTPUT_PROMETHEUS = 5,  /* Prometheus text exposition 0.0.4 (/metrics) */
	GS_OUTPUT_OPENMETRICS = 6, /* OpenMetrics 1.0.0 text (/metrics, when asked by Accept) */
};

/* When a format is written. */
enum gs_output_when {
	GS_OUTPUT_STREAMING = 0, /* a record per event, as the events arrive */
	GS_OUTPUT_AT_EXIT = 1,   /* counted during the run, written once at its end */
	GS_OUTPUT_SERVED = 2,    /* read from the maps at each request of the agent */
};

/* One row. Rows are the library's (static, never freed); an embedder
 * reads them through the calls below, and fields are only ever added at
 * the end. */
struct gs_output_format {
	enum gs_output_id id;
	const char *name;         /* as --script-output takes it: "pretty", "pprof" */
	enum gs_output_when when;
	/* made of backtraces: a script without `bt` has nothing to write */
	bool needs_stacks;
	/* bytes, not text: written to a file (or an HTTP answer), never a
	 * terminal */
	bool binary;
	/* the bytes are a gzip stream already (pprof's .pb.gz): an HTTP answer
	 * sends them as they are, with no Content-Encoding */
	bool gzipped;
	/* the media type of an HTTP answer, with its parameters:
	 * "text/plain; version=0.0.4; charset=utf-8" */
	const char *content_type;
	/* the file name ending that picks this format for -o FILE when no
	 * format is given (".pb.gz"), or NULL */
	const char *extension;
	/* one line, as gstrace --help prints it (at most 50 columns) */
	const char *help;
};

/* The number of rows. */
GS_API size_t gs_output_format_count(void);
/* The row of id, or NULL when id is not one (an embedder's enum from a
 * newer header). */
GS_API const struct gs_output_format *gs_output_format(enum gs_output_id id);
/* The row called name (exactly, as --script-output takes it), or NULL;
 * name may be NULL. */
GS_API const struct gs_output_format *gs_output_format_find(const char *name);
/* The row whose extension ends path ("out.pb.gz": pprof), or NULL (path
 * may be NULL). */
GS_API const struct gs_output_format *gs_output_format_for_path(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* GS_FORMATS_H */
