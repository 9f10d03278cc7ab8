/* What `bt` knows at one probe before the program is built
 * (docs/protocol.md, "Backtraces"): the probe module's cookie, the
 * compile-time row of the probe pc, and the rows the unwind maps will hold:
 * every module of the process when a pid is known (frames resolve their
 * module at run time), else the probe module's only. Modules and their CFI tables are read once per run through
 * the module-file cache. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/runtime.h>
#include <gs/runtime.h>

#include "opts.h"

/* Rows of every ELF module pid maps (a module that cannot be read is left
 * out: its frames end the walk with NoUnwindRowsForPc); only counted when
 * by_fill. */
static int add_process_modules(struct gs_bt_plan *p, pid_t pid, struct gs_modfiles *files,
			       bool by_fill, struct gs_error *err)
{
	struct gs_proc_modules mods;
	int rc = gs_proc_modules_load(pid, files, &mods, err);

	for (size_t i = 0; rc == 0 && i < mods.n; i++) {
		const struct gs_proc_module *m = &mods.v[i];
		const struct gs_cfi_table *t;
		struct gs_error ignored;

		if (gs_modfile_cfi(m->file, &t, &ignored) != 0)
			continue;
		if (by_fill) {
			p->counted_rows += t->nrows;
			p->counted_xrows += t->nxrows;
		} else {
			rc = gs_rowset_add_x(&p->rows, m->id.cookie, t->rows, t->nrows, t->xrows,
					     t->nxrows, err);
		}
	}
	gs_proc_modules_free(&mods);
	return rc;
}

int gs_bt_plan_build(const char *module, uint64_t pc, const struct gs_bt_plan_opts *opts,
		     struct gs_bt_plan *out, struct gs_error *err)
{
	struct gs_modfiles *own = NULL, *files;
	struct gs_bt_plan_opts o;
	struct gs_modfile *file;
	const struct gs_cfi_table *t;
	struct gs_module_id id;
	enum gs_cfi_drop reason;
	int rc;

	memset(out, 0, sizeof(*out));
	gs_rowset_init(&out->rows);
	rc = OPTS_COPY(&o, opts, gs_bt_plan_opts, err);
	if (rc)
		return rc;
	files = o.files;
	if (!files && (rc = gs_modfiles_new(NULL, &own, err)) != 0)
		return rc;
	if (!files)
		files = own;
	rc = gs_modfile_open(files, module, &file, err);
	if (rc == 0)
		rc = gs_modfile_cfi(file, &t, err);
	if (rc)
		goto out;
	id = *gs_modfile_id(file);
	out->probe.cookie = id.cookie;
	out->probe.pc = pc;
	rc = gs_cfi_table_lookup(t, pc, &out->probe.first_row, &reason);
	out->probe.first_row_kind = rc == 0 ? GS_BT_ROW_USABLE :
				    rc == -EOPNOTSUPP ? GS_BT_ROW_UNSUPPORTED : GS_BT_ROW_MISSING;
	if (rc)
		memset(&out->probe.first_row, 0, sizeof(out->probe.first_row));
	rc = 0;
	if (o.pid > 0) {
		size_t counted;

		rc = add_process_modules(out, o.pid, files, o.rows_by_fill, err);
		counted = out->counted_rows;
		/* The probe module may not be mapped yet (a library loaded later). */
		if (rc == 0)
			rc = gs_rowset_add_x(&out->rows, id.cookie, t->rows, t->nrows, t->xrows,
					     t->nxrows, err);
		if (rc)
			goto out;
		out->probe.module_ranges = out->rows.nrows + counted > 0;
		if (counted > UINT32_MAX - out->rows.nrows)
			counted = UINT32_MAX - out->rows.nrows;
		out->probe.nrows = (uint32_t)(out->rows.nrows + counted);
	}
	if (out->rows.nrows == 0)
		rc = gs_rowset_add_x(&out->rows, id.cookie, t->rows, t->nrows, t->xrows,
					     t->nxrows, err);
	if (!out->probe.module_ranges)
		out->probe.nrows = (uint32_t)out->rows.nrows;
out:
	if (rc)
		gs_bt_plan_fini(out);
	gs_modfiles_free(own);
	return rc;
}

void gs_bt_plan_fini(struct gs_bt_plan *p)
{
	gs_rowset_fini(&p->rows);
	memset(&p->probe, 0, sizeof(p->probe));
}
