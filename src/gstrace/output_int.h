/* Shared by the output files: the renderer's state, and one backtrace frame
 * resolved to its module and symbolized (frames.c) for the text and JSON
 * writers (output.c, output_json.c). Not part of output.h. */
#ifndef GS_CLI_OUTPUT_INT_H
#define GS_CLI_OUTPUT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <gs/unwind.h>

#include "output.h"

/* The module list of one process, as last read from /proc/PID/maps. */
struct out_pid {
	pid_t pid;
	struct gs_proc_modules mods;
	int *mod_of;       /* mods.v[i] -> index into gs_out.mods, -1: not yet */
	int64_t loaded_ns; /* 0: never read */
};

/* What the renderer learned about one module file. */
struct out_module {
	char *path;     /* the path the symbolizer opens */
	int sym;        /* symbolizer handle; -1: unreadable */
	bool elf_read;  /* entry / start looked up */
	bool has_entry, has_start;
	uint64_t entry, start; /* e_entry, the `_start` symbol */
};

/* A binary known up front, for the cookie fallback. */
struct out_static {
	const char *path;
	uint64_t cookie;
};

struct gs_out {
	struct gs_out_opts opts;
	FILE *f;
	struct gs_symbolizer *sym;
	struct out_pid *pids;
	size_t npids;
	struct out_module *mods;
	size_t nmods;
	struct out_static *statics;
	size_t nstatics;
	/* local timestamps: the second last formatted, and its text */
	int64_t boot_realtime_ns;
	int64_t cached_sec;
	char cached_prefix[32];
};

/* One frame as the writers show it. */
struct out_frame {
	bool resolved;      /* its module is known */
	const char *module; /* file name of the module */
	uint64_t pc;        /* module pc when resolved, else the frame's pc */
	uint64_t cookie;    /* module cookie when resolved, else the frame's */
	/* Symbolized at pc (frame 0) or pc - 1 (callers); NULL for raw
	 * backtraces or when nothing is known about the pc. */
	const struct gs_sym_info *sym;
};

/* Frees a module list (frames.c). */
void out_pid_clear(struct out_pid *p);

/* Resolves frame i of backtrace bt of ev. */
void out_resolve_frame(struct gs_out *o, const struct gs_event *ev, const struct gs_inst *bt,
		       unsigned i, struct out_frame *out);
/* The status to show (reference 11.3): UnsupportedCfi / NoUnwindRowsForPc
 * read as complete when the last frame is at the process entry. */
uint8_t out_display_status(struct gs_out *o, const struct gs_event *ev, const struct gs_inst *bt);

/* Timestamp text per --script-timestamp into buf; false for `none`. */
bool out_timestamp(struct gs_out *o, uint64_t ktime_ns, char *buf, size_t size);

/* JSON writer (output_json.c). */
void out_json_event(struct gs_out *o, const struct gs_event *ev);

#endif /* GS_CLI_OUTPUT_INT_H */
