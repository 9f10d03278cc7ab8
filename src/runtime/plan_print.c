/* The text forms of a trace plan: the --dry-run summary (where each probe
 * goes, its programs, maps with their sizes, and the rows its backtrace
 * will have) and the --dump-insns listing, indexed as the verifier log
 * counts (GS_DUMP_INDEXED). Both print the programs the session loads,
 * never a rebuild. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <gs/internal/program.h>
#include <gs/disasm.h>
#include <gs/render.h>
#include <gs/runtime.h>

#include "rt_int.h"

static const char *row_kind(uint8_t kind)
{
	return kind == GS_BT_ROW_USABLE ? "usable" :
	       kind == GS_BT_ROW_UNSUPPORTED ? "unsupported CFI" : "missing";
}

/* Whether the program's instructions refer to map m (the kernel lists a
 * program's maps from those references; the loop walker's bt_module_rows,
 * for one, only the runtime reads). */
static bool referenced(const struct gs_program *prog, size_t m)
{
	for (size_t i = 0; i < prog->main.nrelocs; i++)
		if (prog->main.relocs[i].map == m)
			return true;
	for (size_t i = 0; prog->has_step && i < prog->step->nrelocs; i++)
		if (prog->step->relocs[i].map == m)
			return true;
	for (size_t i = 0; prog->entry && i < prog->entry->nrelocs; i++)
		if (prog->entry->relocs[i].map == m)
			return true;
	return false;
}

static void print_map_list(const struct gs_program *prog, const char *title, bool used, FILE *f)
{
	bool first = true;

	for (size_t m = 0; m < prog->nmaps; m++) {
		const struct gs_map_spec *ms = &prog->maps[m];

		if (referenced(prog, m) != used)
			continue;
		fprintf(f, "%s%s", first ? title : ",", " ");
		if (ms->max_entries)
			fprintf(f, "%s[%u]", ms->name, ms->max_entries);
		else
			fprintf(f, "%s[per-cpu]", ms->name);
		first = false;
	}
	if (!first)
		fputc('\n', f);
}

static void print_maps(const struct gs_program *prog, FILE *f)
{
	print_map_list(prog, "  maps:", true, f);
	print_map_list(prog, "  maps the runtime alone uses:", false, f);
}

static void summary(const struct gs_plan *p, const struct gs_plan_trace *t,
		    const struct gs_plan_probe *pr, FILE *f)
{
	const struct gs_program *prog = pr->prog;
	const struct gs_location *loc = pr->loc;

	fprintf(f, "trace #%u %s%s: ", t->id, t->pattern.text, t->spec.retprobe ? " return" : "");
	gs_render_fputs(f, t->target.module, 0); /* a path the target chose */
	fprintf(f, " 0x%" PRIx64 " (file offset 0x%" PRIx64 "%s", loc->addr, loc->file_offset,
		loc->inlined ? ", inlined" : "");
	if (t->pattern.kind == GS_TARGET_FILE_LINE && loc->line > 0 &&
	    (uint32_t)loc->line != t->pattern.line)
		fprintf(f, ", line %d: line %u has no code", loc->line, t->pattern.line);
	if (loc->entry) {
		fprintf(f, ", line %d is the entry of `%s` (0x%" PRIx64 "): after its prologue, ",
			loc->line, loc->function ? loc->function : "its function", loc->entry);
		if (loc->body_line > 0)
			fprintf(f, "line %d, ", loc->body_line);
		fprintf(f, "as gdb's break %s", t->pattern.text);
	}
	fputs(")\n", f);
	fprintf(f, "  program %s: %zu instructions, stack %d bytes\n", prog->name, prog->main.len,
		prog->main.stack_max);
	if (prog->has_step)
		fprintf(f, "  step program %s: %zu instructions, stack %d bytes\n",
			prog->step_name, prog->step->len, prog->step->stack_max);
	if (prog->entry)
		fprintf(f, "  entry program %s ($duration, at the function's entry): %zu "
			"instructions, stack %d bytes\n", prog->entry_name, prog->entry->len,
			prog->entry->stack_max);
	fprintf(f, "  user memory: %s\n", prog->sleepable ?
		"faults pages in (sleepable: bpf_copy_from_user after a failed "
		"bpf_probe_read_user)" : "never faults (bpf_probe_read_user alone)");
	print_maps(prog, f);
	if (t->bt) {
		const struct gs_rowset *rows = pr->bt_probe.module_ranges ? gs_plan_shared_rows(p) :
					       pr->rows;

		fprintf(f, "  backtrace: depth %u, %zu unwind rows of %zu modules%s, probe row %s\n",
			prog->backtrace_depth, rows ? rows->nrows : 0, rows ? rows->nmodules : 0,
			pr->bt_probe.module_ranges ? " (module ranges)" : "",
			row_kind(pr->bt_probe.first_row_kind));
	}
}

/* A program of the listing: indexed, so that a verifier error's `insn N`
 * finds its line. */
static void dump_indexed(const struct gs_asm *a, FILE *f)
{
	if (gs_asm_dump_flags(a, GS_DUMP_INDEXED, f))
		fputs("; gs_asm_dump: out of memory\n", f);
}

static void listing(const struct gs_plan_trace *t, const struct gs_plan_probe *pr, FILE *f)
{
	const struct gs_program *prog = pr->prog;

	fprintf(f, "; trace #%u %s at ", t->id, t->pattern.text);
	gs_render_fputs(f, t->target.module, 0);
	fprintf(f, " 0x%" PRIx64 ": program %s\n", pr->loc->addr, prog->name);
	dump_indexed(&prog->main, f);
	if (prog->has_step) {
		fprintf(f, "\n; step program %s\n", prog->step_name);
		dump_indexed(prog->step, f);
	}
	if (prog->entry) {
		fprintf(f, "\n; entry program %s\n", prog->entry_name);
		dump_indexed(prog->entry, f);
	}
	fputc('\n', f);
}

/* The dlopen hook the session adds for a process with `bt` traces. */
static void print_dlhook(const struct gs_plan *p, unsigned what, FILE *f)
{
	bool bt = false, hold = rt_plan_holds_dlopen(p), doorbell = hold && gs_ringbuf_supported();
	struct rt_dlhook_site site;
	struct gs_asm a;

	for (size_t i = 0; i < gs_plan_trace_count(p); i++)
		bt = bt || gs_plan_trace_at(p, i)->bt;
	if (!bt || gs_plan_pid(p) <= 0 || rt_dlhook_locate(gs_plan_pid(p), &site, NULL))
		return;
	gs_asm_init(&a);
	if (rt_dlhook_program(&a, &site, hold, doorbell, NULL) == 0) {
		if (what & GS_PLAN_PRINT_SUMMARY) {
			fprintf(f, "dlopen hook: _dl_debug_state in %s (file offset 0x%" PRIx64 ")%s\n"
				"  program %s: %zu instructions\n  maps: %s[1]", site.path, site.off,
				hold ? ", holding the process until its maps are refreshed" : "",
				RT_DLHOOK_PROG, a.len, RT_DLHOOK_MAP);
			if (doorbell)
				fprintf(f, ", %s[%u]", RT_DLHOOK_DOORBELL, RT_DLHOOK_DOORBELL_SIZE);
			fputc('\n', f);
		}
		if (what & GS_PLAN_PRINT_INSNS) {
			fprintf(f, "; dlopen hook at _dl_debug_state of %s: program %s\n", site.path,
				RT_DLHOOK_PROG);
			dump_indexed(&a, f);
			fputc('\n', f);
		}
	}
	gs_asm_fini(&a);
	rt_dlhook_site_free(&site);
}

int gs_plan_print(const struct gs_plan *p, unsigned what, FILE *f)
{
	size_t ntraces = gs_plan_trace_count(p), nprobes = gs_plan_probe_count(p);

	for (size_t i = 0; i < ntraces; i++) {
		const struct gs_plan_trace *t = gs_plan_trace_at(p, i);

		for (size_t k = 0; k < t->nprobes; k++) {
			if (!t->probes[k].prog)
				return -EINVAL; /* not built */
			if (what & GS_PLAN_PRINT_SUMMARY)
				summary(p, t, &t->probes[k], f);
			if (what & GS_PLAN_PRINT_INSNS)
				listing(t, &t->probes[k], f);
		}
	}
	print_dlhook(p, what, f);
	if (what & GS_PLAN_PRINT_SUMMARY)
		fprintf(f, "dry run: %zu trace%s, %zu probe%s built; nothing loaded\n", ntraces,
			ntraces == 1 ? "" : "s", nprobes, nprobes == 1 ? "" : "s");
	return ferror(f) ? -EIO : 0;
}
