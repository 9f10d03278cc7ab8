/* CPU samples in a trace plan (gs_plan_add_samples): one trace whose one
 * probe is every CPU's clock. Its program is a perf_event program built
 * from one `bt` with the sample scope the plan's target gives: the plan's
 * process, the processes running its module, or every process. Its rows
 * are written per process by the session (gs_procfill with add_rows), so
 * here only the row maps are sized: for a process, by the rows of every
 * module it maps now (twice over, as for probes: libraries come later);
 * otherwise gs_program_opts.unwind_rows_max, the caller's memory bound. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/runtime.h>
#include <gs/runtime.h>

#include "base.h"
#include "opts.h"
#include "rt_int.h"

/* Rows of the loop walker for every module pid maps now. */
static size_t process_rows(pid_t pid, struct gs_modfiles *files)
{
	struct gs_proc_modules mods;
	struct gs_error ignored;
	size_t rows = 0;

	if (gs_proc_modules_load(pid, files, &mods, &ignored))
		return 0;
	for (size_t i = 0; i < mods.n; i++) {
		const struct gs_cfi_table *t;

		if (mods.v[i].file && gs_modfile_cfi(mods.v[i].file, &t, &ignored) == 0)
			rows += t->nxrows > t->nrows ? t->nxrows : t->nrows;
	}
	gs_proc_modules_free(&mods);
	return rows;
}

static uint8_t scope_of(const struct gs_plan *p)
{
	return p->opts.pid > 0 ? GS_SAMPLE_PID : p->module ? GS_SAMPLE_KNOWN : GS_SAMPLE_ALL;
}

int gs_plan_add_samples(struct gs_plan *p, const struct gs_sample_opts *opts,
			struct gs_error *err)
{
	struct gs_sample_opts o;
	struct gs_plan_trace *t;
	int rc = OPTS_COPY(&o, opts, gs_sample_opts, err);

	if (rc)
		return rc;
	if (p->built)
		return gs_errorf(err, -EBUSY, "the trace plan is built already: add the samples "
				 "before gs_plan_build()");
	if (o.frequency == 0)
		o.frequency = GS_SAMPLE_DEFAULT_FREQUENCY;
	if (p->program.unwinder != GS_UNWINDER_LOOP)
		return gs_errorf(err, -EINVAL, "CPU samples unwind with the loop unwinder only "
				 "(bpf_loop, Linux 5.17+): drop the tail-call unwinder");
	if (base_grow((void **)&p->traces, &p->traces_cap, p->ntraces + 1, sizeof(*p->traces)))
		return gs_errorf(err, -ENOMEM, "out of memory adding the CPU samples");
	t = &p->traces[p->ntraces];
	memset(t, 0, sizeof(*t));
	t->id = o.trace_id;
	t->pattern = (struct gs_target_pattern){ .kind = GS_TARGET_FUNCTION, .text = "profile",
						 .name = "profile" };
	t->spec = (struct gs_trace_spec){ .trace_id = o.trace_id, .target = "profile",
					  .nbody = 1, .sample = scope_of(p) };
	t->sample_bt = (struct gs_stmt){ .kind = GS_STMT_BACKTRACE,
					 .bt_flags = o.kernel_stacks ? GS_BT_FLAG_KERNEL : 0 };
	t->sample_hz = o.frequency;
	t->sample_paused = o.paused;
	t->count_stacks = o.count_stacks;
	t->count_per_thread = o.per_thread;
	t->bt = true;
	t->target.input = strdup("profile");
	t->target.module = strdup(p->module ? p->module : p->opts.pid > 0 ? "process" : "all");
	t->target.locs = calloc(1, sizeof(*t->target.locs));
	t->probes = calloc(1, sizeof(*t->probes));
	if (!t->target.input || !t->target.module || !t->target.locs || !t->probes) {
		gs_target_free(&t->target);
		free(t->probes);
		return gs_errorf(err, -ENOMEM, "out of memory adding the CPU samples");
	}
	t->target.nlocs = t->nprobes = 1;
	t->probes[0].loc = &t->target.locs[0];
	/* Frame 0's module is found at run time like every other frame's. */
	t->probes[0].bt_probe = (struct gs_bt_probe){ .first_row_kind = GS_BT_ROW_USABLE,
						      .module_ranges = true };
	if (p->opts.pid > 0) {
		size_t rows = 2 * process_rows(p->opts.pid, p->files);

		if (rows > p->program.unwind_rows_max && rows <= UINT32_MAX)
			p->program.unwind_rows_max = (uint32_t)rows;
	}
	p->ntraces++;
	p->nprobes++;
	return 0;
}

bool gs_plan_trace_samples(const struct gs_plan_trace *t)
{
	return t->spec.sample != GS_SAMPLE_NONE;
}
