/* gs_target_resolve: a parsed target pattern and the resolve options handed
 * to the dwarf layer's target resolution (src/dwarf/target.c, which reads
 * the module files), its answer copied into the public gs_target. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/runtime.h>

#include "opts.h"
#include <gs/internal/dwarf.h>
#include "rt_int.h"

static enum dwv_target_kind kind_of(enum gs_target_kind k)
{
	switch (k) {
	case GS_TARGET_FUNCTION:
		return DWV_TARGET_FUNCTION;
	case GS_TARGET_MODULE_ADDRESS:
		return DWV_TARGET_MODULE_ADDRESS;
	case GS_TARGET_FILE_LINE:
		return DWV_TARGET_FILE_LINE;
	default:
		return DWV_TARGET_ADDRESS;
	}
}

/* Moves res into out: the strings change hands, the locations are copied. */
static int take(struct dwv_target_res *res, const char *input, struct gs_target *out)
{
	out->locs = calloc(res->nlocs ? res->nlocs : 1, sizeof(*out->locs));
	out->input = strdup(input);
	if (!out->locs || !out->input)
		return -ENOMEM;
	for (size_t i = 0; i < res->nlocs; i++) {
		const struct dwv_loc *l = &res->locs[i];

		out->locs[i] = (struct gs_location){
			.addr = l->addr, .file_offset = l->file_offset, .inlined = l->inlined,
			.from_dwarf = l->from_dwarf, .function = l->function, .line = l->line,
			.entry = l->entry, .body_line = l->body_line,
		};
		res->locs[i].function = NULL;
	}
	out->nlocs = res->nlocs;
	out->module = res->module;
	out->note = res->note;
	res->module = res->note = NULL;
	return 0;
}

int gs_target_resolve(const struct gs_target_pattern *p, const struct gs_resolve_opts *opts,
		      struct gs_target *out, struct gs_error *err)
{
	const char *input = p ? p->text : NULL;
	struct gs_resolve_opts o;
	struct dwv_target_req req;
	struct dwv_target_res res;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = OPTS_COPY(&o, opts, gs_resolve_opts, err);
	if (rc)
		return rc;
	if (!input || (p->kind != GS_TARGET_ADDRESS && !p->name))
		return gs_errorf(err, -EINVAL, "gs_target_resolve: the target pattern is missing "
				 "its text or name; parse it with gs_target_pattern_parse()");
	req = (struct dwv_target_req){
		.kind = kind_of(p->kind), .input = input, .name = p->name,
		.address = p->address, .line = p->line, .module = o.module, .pid = o.pid,
		.entry = o.entry, .files = o.files,
	};
	rc = dwv_target_resolve(&req, &res, err);
	if (rc)
		return rc;
	if (take(&res, input, out) != 0)
		rc = gs_errorf(err, -ENOMEM, "out of memory");
	dwv_target_res_free(&res);
	if (rc)
		gs_target_free(out);
	return rc;
}

void gs_target_free(struct gs_target *t)
{
	for (size_t i = 0; i < t->nlocs; i++)
		free(t->locs[i].function);
	free(t->locs);
	free(t->module);
	free(t->input);
	free(t->note);
	memset(t, 0, sizeof(*t));
}
