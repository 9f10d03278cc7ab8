/* Target checks before the session starts, and the dry run. Resolution
 * here is the same gs_target_resolve the session calls; doing it first
 * turns a wrong target into an exit status 2 with the script's line and
 * caret, before any program is loaded or any process is touched. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/disasm.h>

#include "prepare.h"

bool gs_stmts_have_bt(const struct gs_stmt *body, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (body[i].kind == GS_STMT_BACKTRACE ||
		    (body[i].kind == GS_STMT_IF &&
		     (gs_stmts_have_bt(body[i].then_body, body[i].nthen) ||
		      gs_stmts_have_bt(body[i].else_body, body[i].nelse))))
			return true;
	return false;
}

/* A `bt` needs a CFI row at the probe: without one the walk cannot leave
 * frame 0, which is a property of the binary, known now. */
static int check_cfi(struct gs_cfi_cache *cache, const struct gs_target *t, struct gs_error *err)
{
	const struct gs_cfi_table *table;
	struct gs_unwind_row row;
	int rc = gs_cfi_cache_get(cache, t->module, 0, &table, err);

	if (rc)
		return rc;
	for (size_t i = 0; i < t->nlocs; i++) {
		if (gs_cfi_table_lookup(table, t->locs[i].addr, &row, NULL) == -ENOENT)
			return gs_errorf(err, -ENOENT, "no CFI (.eh_frame or .debug_frame) covers "
					 "0x%" PRIx64 " in %s, so bt cannot unwind from there; "
					 "rebuild it with -fasynchronous-unwind-tables or drop the bt",
					 t->locs[i].addr, t->module);
	}
	return 0;
}

int gs_prep_targets(const struct gs_script *s, const struct gs_resolve_opts *ro,
		    struct gs_prep *out, struct gs_error *err)
{
	struct gs_cfi_cache *cache = gs_cfi_cache_new();
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->targets = calloc(s->ntraces ? s->ntraces : 1, sizeof(*out->targets));
	out->bt = calloc(s->ntraces ? s->ntraces : 1, sizeof(*out->bt));
	if (!cache || !out->targets || !out->bt) {
		gs_cfi_cache_free(cache);
		gs_prep_free(out);
		return gs_errorf(err, -ENOMEM, "out of memory resolving the script's targets");
	}
	for (size_t i = 0; i < s->ntraces; i++) {
		const struct gs_script_trace *t = &s->traces[i];
		struct gs_error why;

		rc = gs_target_resolve(t->target, ro, &out->targets[i], &why);
		if (rc == 0) {
			out->n++;
			out->bt[i] = gs_stmts_have_bt(t->body, t->nbody);
			if (out->bt[i])
				rc = check_cfi(cache, &out->targets[i], &why);
		}
		if (rc) {
			gs_script_trace_errorf(s, t, err, rc, "%s", why.msg);
			break;
		}
	}
	gs_cfi_cache_free(cache);
	if (rc)
		gs_prep_free(out);
	return rc;
}

void gs_prep_free(struct gs_prep *p)
{
	for (size_t i = 0; i < p->n; i++)
		gs_target_free(&p->targets[i]);
	free(p->targets);
	free(p->bt);
	memset(p, 0, sizeof(*p));
}

/* ---- the dry run ------------------------------------------------------------ */

static const char *row_kind(uint8_t kind)
{
	return kind == GS_BT_ROW_USABLE ? "usable" :
	       kind == GS_BT_ROW_UNSUPPORTED ? "unsupported CFI" : "missing";
}

static void summary(FILE *f, const struct gs_program *p, const struct gs_bt_plan *plan)
{
	fprintf(f, "  program %s: %zu instructions, stack %d bytes\n", p->name, p->main.len,
		p->main.stack_max);
	if (p->has_step)
		fprintf(f, "  step program %s: %zu instructions, stack %d bytes\n", p->step_name,
			p->step.len, p->step.stack_max);
	fputs("  maps:", f);
	for (size_t m = 0; m < p->nmaps; m++)
		fprintf(f, "%s %s", m ? "," : "", p->maps[m].name);
	fputc('\n', f);
	if (plan)
		fprintf(f, "  backtrace: depth %u, %zu unwind rows of %zu modules, probe row %s\n",
			p->backtrace_depth, plan->rows.nrows, plan->rows.nmodules,
			row_kind(plan->probe.first_row_kind));
}

static int build_one(const struct gs_cli *cli, const struct gs_script *s, size_t i,
		     const struct gs_target *t, const struct gs_location *loc, bool bt,
		     const struct gs_program_opts *popts, pid_t pid, FILE *f, struct gs_error *err)
{
	struct gs_bt_plan_opts po = { .sz = sizeof(po), .pid = pid };
	struct gs_trace_spec spec;
	struct gs_bt_plan plan;
	struct gs_program *p = NULL;
	int rc = 0;

	memset(&plan, 0, sizeof(plan));
	gs_script_trace_spec(&s->traces[i], (uint32_t)i, &spec);
	spec.target = t->input;
	if (bt) {
		rc = gs_bt_plan_build(t->module, loc->addr, &po, &plan, err);
		if (rc)
			return rc;
		spec.bt = &plan.probe;
	}
	rc = gs_program_build(&spec, popts, &p, err);
	if (rc == 0) {
		if (cli->dry_run) {
			fprintf(f, "trace #%zu %s: %s 0x%" PRIx64 " (file offset 0x%" PRIx64 "%s)\n",
				i, t->input, t->module, loc->addr, loc->file_offset,
				loc->inlined ? ", inlined" : "");
			summary(f, p, bt ? &plan : NULL);
		}
		if (cli->dump_insns) {
			fprintf(f, "; trace #%zu %s at %s 0x%" PRIx64 ": program %s\n", i, t->input,
				t->module, loc->addr, p->name);
			gs_asm_dump(&p->main, f);
			if (p->has_step) {
				fprintf(f, "\n; step program %s\n", p->step_name);
				gs_asm_dump(&p->step, f);
			}
			fputc('\n', f);
		}
	}
	gs_program_free(p);
	gs_bt_plan_fini(&plan);
	return rc;
}

int gs_dry_run(const struct gs_cli *cli, const struct gs_script *s, const struct gs_prep *prep,
	       const struct gs_program_opts *popts, pid_t pid, FILE *f, struct gs_error *err)
{
	size_t probes = 0;

	for (size_t i = 0; i < prep->n; i++) {
		const struct gs_target *t = &prep->targets[i];

		for (size_t k = 0; k < t->nlocs; k++) {
			struct gs_error why;
			int rc = build_one(cli, s, i, t, &t->locs[k], prep->bt[i], popts, pid, f,
					   &why);

			if (rc)
				return gs_script_trace_errorf(s, &s->traces[i], err, rc, "%s", why.msg);
			probes++;
		}
	}
	if (cli->dry_run)
		fprintf(f, "dry run: %zu trace%s, %zu probe%s built; nothing loaded\n", prep->n,
			prep->n == 1 ? "" : "s", probes, probes == 1 ? "" : "s");
	return 0;
}
