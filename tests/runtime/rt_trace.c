/* Kernel-test helper (see rt_trace.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gs/internal/program.h>
#include "rt_trace.h"

static const struct gs_trace_context *context_of(void *arg, uint64_t trace_id)
{
	struct rt_trace *t = arg;

	return trace_id == t->prog->trace_id ? &t->prog->ctx : NULL;
}

static int keep(void *arg, const struct gs_event *ev)
{
	struct rt_trace *t = arg;
	struct rt_event *e;

	if ((t->only_pid > 0 && ev->pid != (uint32_t)t->only_pid) || t->nevents == RT_MAX_EVENTS)
		return 0;
	e = &t->events[t->nevents++];
	memset(e, 0, offsetof(struct rt_event, frames));
	e->trace_id = ev->trace_id;
	e->pid = ev->pid;
	e->tid = ev->tid;
	e->ninsts = ev->ninsts;
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type == GS_INST_PRINT_STRING_INDEX && !e->text[0])
			snprintf(e->text, sizeof(e->text), "%s", in->string.text);
		if (in->type == GS_INST_BACKTRACE && !e->has_bt) {
			e->has_bt = true;
			e->bt_status = in->backtrace.status;
			e->bt_frames = in->backtrace.frame_count;
			e->bt_depth = in->backtrace.requested_depth;
			e->bt_error = in->backtrace.error_code;
			memcpy(e->frames, in->backtrace.frames,
			       in->backtrace.frame_count * sizeof(e->frames[0]));
		}
	}
	return 0;
}

int rt_trace_start(struct rt_trace *t, const struct rt_trace_desc *d, struct gs_error *err)
{
	struct gs_trace_spec spec = {
		.trace_id = d->trace_id, .target = "test", .body = d->body, .nbody = d->nbody,
		.bt = d->plan ? &d->plan->probe : NULL,
	};
	GS_OPTS(gs_decoder_opts, dec, .lookup = context_of, .lookup_arg = t);
	GS_OPTS(gs_reader_opts, ro, .decoder = &dec, .on_event = keep, .arg = t);
	char *report = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	t->loaded.main_fd = t->loaded.step_fd = -1;
	gs_procfill_init(&t->fill, d->fill_pid, d->files);
	t->events = calloc(RT_MAX_EVENTS, sizeof(*t->events));
	if (!t->events)
		return gs_errorf(err, -ENOMEM, "out of memory");
	rc = gs_program_build(&spec, &d->opts, &t->prog, err);
	if (rc == 0)
		rc = gs_bpf_maps_create(t->prog, NULL, &t->maps, err);
	if (rc == 0 && d->fill_pid > 0)
		rc = gs_procfill_offsets(&t->fill, &t->maps, err);
	if (rc == 0 && d->plan)
		rc = gs_procfill_rows(&t->maps, d->plan, err);
	if (rc == 0)
		rc = gs_program_load(t->prog, &t->maps, NULL, &t->loaded, &report, err);
	if (report) {
		fprintf(stderr, "%s", report);
		free(report);
	}
	if (rc == 0)
		rc = gs_reader_new(&ro, &t->reader, err);
	if (rc == 0)
		rc = gs_reader_add(t->reader, &t->maps.v[t->prog->map_index[GS_MAP_OUTPUT]],
				   0, err);
	if (rc == 0)
		rc = gs_uprobe_attach(t->loaded.main_fd, d->module, d->file_offset, &d->attach,
				      &t->probe, err);
	return rc;
}

size_t rt_trace_wait(struct rt_trace *t, size_t want, int timeout_ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (t->nevents < want) {
		long spent;

		clock_gettime(CLOCK_MONOTONIC, &now);
		spent = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (spent >= timeout_ms)
			break;
		if (gs_reader_poll(t->reader, (int)(timeout_ms - spent), NULL) < 0)
			break;
	}
	return t->nevents;
}

void rt_trace_stop(struct rt_trace *t)
{
	gs_uprobe_detach(t->probe);
	gs_reader_free(t->reader);
	gs_loaded_close(&t->loaded);
	gs_bpf_maps_close(&t->maps);
	gs_program_free(t->prog);
	gs_procfill_fini(&t->fill);
	free(t->events);
	memset(t, 0, sizeof(*t));
}

int rt_kernel_usable(void)
{
	struct gs_error err;

	if (gs_bpf_permitted(&err) || gs_uprobe_supported(&err)) {
		printf("skipped: %s\n", err.msg);
		return -1;
	}
	return 0;
}
