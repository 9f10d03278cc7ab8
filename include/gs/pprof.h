/* Stack profiles in pprof's format: decoded events' backtraces written as
 * one gzipped profile.proto (`go tool pprof`, speedscope, Grafana and the
 * other pprof readers take it), what `gstrace --pprof FILE` and
 * `--script-output pprof` are made of. Each sample is one stack with the
 * labels of its events and their count; each location a module address
 * with its function, file and line (an inlined pc: one location with a
 * line per call, innermost first); each mapping a module's executable
 * segment at its link-time addresses, with its file and GNU build id. No
 * libbpf. */
#ifndef GS_PPROF_H
#define GS_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gs/api.h>
#include <gs/decode.h>
#include <gs/error.h>
#include <gs/frames.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A string label of a sample (gs_pprof_opts.labels). */
struct gs_pprof_label {
	const char *key, *value;
};
/* Labels gs_pprof_opts.labels may give one sample. */
#define GS_PPROF_LABELS_MAX 32

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_pprof_opts {
	size_t sz;
	/* The frame resolver backtraces are symbolized with (borrowed: it
	 * outlives the profile; gs_printer_frames of the printer, so the
	 * profile names frames as the other outputs do). NULL: its own. */
	struct gs_frames *frames;
	/* The one sample value: its type and unit. NULL: "samples", "count". */
	const char *sample_type, *sample_unit;
	/* What one sample stands for, when it stands for a period (a sampling
	 * profile: "cpu", "nanoseconds", 10000000). NULL / 0: none written. */
	const char *period_type, *period_unit;
	int64_t period;
	/* When the profile starts (CLOCK_REALTIME ns; 0: not written) and how
	 * long it covers (gs_pprof_set_duration can tell it later). */
	int64_t time_ns;
	uint64_t duration_ns;
	/* String labels a sample has beside pid, tid and trace (a process's
	 * comm, exe, container id; an agent's own): called once per
	 * gs_pprof_add with its event, it fills at most max of out (strings
	 * valid during the call; another key than pid, tid or trace) and
	 * returns how many. A label whose value is NULL or empty is left
	 * out; values are kept escaped as gs_render_escaped escapes (pprof's
	 * strings must be UTF-8, and these come from targets). Samples with
	 * the same stack and labels merge. NULL: none. */
	size_t (*labels)(void *arg, const struct gs_event *ev, struct gs_pprof_label *out,
			 size_t max);
	void *labels_arg;
};

struct gs_pprof;

/* An empty profile in *out (opts may be NULL: every default; its strings
 * are copied), freed with gs_pprof_free() (NULL is fine). 0, or -EINVAL
 * (bad options) / -ENOMEM with err filled and *out NULL. */
GS_API int gs_pprof_new(const struct gs_pprof_opts *opts, struct gs_pprof **out,
			struct gs_error *err);
GS_API void gs_pprof_free(struct gs_pprof *p);
/* Adds every backtrace instruction of ev, n times (1 as an event arrives;
 * more for counts made in BPF). Samples with the same stack and the same
 * labels merge. The labels: `pid` and `tid` (numbers, each when not 0:
 * stacks counted in BPF merge a process's threads) and `trace` (the trace
 * id in decimal, a string label: proto3 cannot tell a number 0 from
 * none), then those of gs_pprof_opts.labels. A frame whose module is known keeps its module address (in a
 * caller, the return address minus one: the call being made) and its
 * mapping even without a symbol; one whose module is not known keeps its
 * raw address, without a mapping. What it keeps of ev is copied. 0, or
 * -ENOMEM. */
GS_API int gs_pprof_add(struct gs_pprof *p, const struct gs_event *ev, uint64_t n);
/* Forgets every sample (the tables of names, mappings and locations stay). */
GS_API void gs_pprof_clear_samples(struct gs_pprof *p);
/* How long the profile covers, in ns (Profile.duration_nanos). */
GS_API void gs_pprof_set_duration(struct gs_pprof *p, uint64_t duration_ns);
/* Distinct samples and the sum of their counts so far. */
GS_API size_t gs_pprof_samples(const struct gs_pprof *p);
GS_API uint64_t gs_pprof_total(const struct gs_pprof *p);
/* Writes the profile to f, gzipped (p is unchanged: it can be written
 * again). 0, -ENOMEM, or -EIO when f reports an error, with err filled. */
GS_API int gs_pprof_write(struct gs_pprof *p, FILE *f, struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_PPROF_H */
