/* Kernel-test helper: one trace taken through every runtime step the way
 * the CLI will (build, create maps, fill the unwind maps, load, attach,
 * read), with the decoded events kept for the test to check. */
#ifndef GS_TEST_RT_TRACE_H
#define GS_TEST_RT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gs/internal/runtime.h>
#include <gs/runtime.h>

#define RT_MAX_EVENTS 4096

/* What a test checks of one event (the decoder's pointers die with it). */
struct rt_event {
	uint64_t trace_id;
	uint32_t pid, tid;
	size_t ninsts;
	char text[64];       /* the first PrintString, or "" */
	bool has_bt;
	uint8_t bt_status, bt_frames, bt_depth;
	uint16_t bt_error;
	struct gs_backtrace_frame frames[GS_BT_MAX_DEPTH];
};

struct rt_trace {
	struct gs_program *prog;
	struct gs_bpf_maps maps;
	struct gs_loaded loaded;
	struct gs_uprobe *probe;
	struct gs_reader *reader;
	struct gs_procfill fill;
	struct rt_event *events; /* RT_MAX_EVENTS */
	size_t nevents;
	pid_t only_pid;          /* > 0: keep only events of that pid */
};

/* Everything up to attached and reading; 0 or -errno with err set. A NULL
 * plan builds a trace without `bt` context. fill_pid > 0 fills the unwind
 * maps from that process. */
struct rt_trace_desc {
	const struct gs_stmt *body;
	size_t nbody;
	uint32_t trace_id;
	struct gs_program_opts opts;
	const struct gs_bt_plan *plan;
	const char *module;
	uint64_t file_offset;
	struct gs_uprobe_opts attach;
	pid_t fill_pid;
	struct gs_modfiles *files; /* the module-file cache the fill reads through (NULL: none) */
};
int rt_trace_start(struct rt_trace *t, const struct rt_trace_desc *d, struct gs_error *err);
/* Polls until `want` events were kept or timeout_ms passed; the count. */
size_t rt_trace_wait(struct rt_trace *t, size_t want, int timeout_ms);
/* Detaches and frees everything. */
void rt_trace_stop(struct rt_trace *t);

/* 0 when bpf() and uprobes work here; else prints why and returns -1. */
int rt_kernel_usable(void);

#endif /* GS_TEST_RT_TRACE_H */
