/* What a user can trace, without another tool: `gstrace -l PATTERN` lists
 * the functions matching a glob (DWARF and symbols, with file:line) in the
 * target module or every module of a process (through each module's
 * function index: the functions `trace NAME` resolves); `--list-vars
 * TARGET` the variables visible at each address a trace target resolves
 * to, with their type and where they live. Names from the target are escaped. */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/dwarf.h>
#include <gs/modfile.h>
#include <gs/render.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include <gs/internal/dwarf.h>
#include "rt_int.h"

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* Target text in a column of width w (escaped; padded after). */
static void put_col(FILE *f, const char *s, int w)
{
	char buf[512];

	gs_render_escaped(s, strlen(s), 0, buf, sizeof(buf));
	fprintf(f, "%-*s", w, buf);
}

/* ---- -l PATTERN ------------------------------------------------------------------- */

/* The functions of one module matching glob; how many. */
static size_t list_module(const struct rt_dwarf_module *m, const char *display, const char *glob,
			  FILE *f, struct gs_error *err)
{
	struct gs_dwarf_function *v;
	size_t n, width = 8;
	char where[64];

	if (dwv_module_functions(m->d, m->file, glob, &v, &n, err))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i].name) > width)
			width = strlen(v[i].name) < 40 ? strlen(v[i].name) : 40;
	if (n) {
		gs_render_fputs(f, display, 0);
		fputs(":\n", f);
	}
	for (size_t i = 0; i < n; i++) {
		fputs("  ", f);
		put_col(f, v[i].name, (int)width);
		if (v[i].file)
			snprintf(where, sizeof(where), "%.40s:%" PRIu32, base_name(v[i].file),
				 v[i].line);
		else
			snprintf(where, sizeof(where), "-");
		fputs("  ", f);
		put_col(f, where, 24);
		if (v[i].inlined_only)
			fputs("  inlined only\n", f);
		else
			fprintf(f, "  0x%" PRIx64 "%s\n", v[i].addr,
				v[i].from_symbol ? "  (symbol, no DWARF)" : "");
	}
	free(v);
	return n;
}

int gs_list_functions(const char *glob, const struct gs_list_opts *opts, FILE *f,
		      struct gs_error *err)
{
	struct gs_list_opts o = { 0 };
	struct rt_dwarf_cache *cache;
	struct gs_proc_modules mods = { 0 };
	size_t found = 0;
	int rc = 0;

	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	cache = rt_dwarf_cache_new(o.files);
	if (!cache)
		return gs_errorf(err, -ENOMEM, "out of memory listing functions");
	if (!o.module && o.pid > 0)
		rc = gs_proc_modules_load(o.pid, rt_dwarf_cache_files(cache), &mods, err);
	else if (!o.module)
		rc = gs_errorf(err, -EINVAL, "listing functions needs a module (-t PATH) or a "
			       "process (-p PID)");
	for (size_t i = 0; rc == 0 && i < (o.module ? 1 : mods.n); i++) {
		const char *path = o.module ? o.module : mods.v[i].open_path;
		const struct rt_dwarf_module *m;
		struct gs_error why;

		rc = rt_dwarf_module(cache, path, o.module ? 0 : mods.v[i].id.cookie, &m, &why);
		if (rc == -ENOMEM) {
			gs_errorf(err, rc, "%s", why.msg);
			break;
		}
		if (rc && o.module) {
			gs_errorf(err, rc, "%s", why.msg);
			break;
		}
		rc = 0;
		if (m)
			found += list_module(m, o.module ? o.module : mods.v[i].path, glob, f, &why);
	}
	if (rc == 0 && !found)
		rc = gs_errorf(err, -ENOENT, "no function matches '%s' in %s; the pattern is a glob "
			       "(e.g. 'http_*'), matched against whole names", glob,
			       o.module ? o.module : "the modules of the process");
	gs_proc_modules_free(&mods);
	rt_dwarf_cache_free(cache);
	return rc;
}

/* ---- --list-vars TARGET ------------------------------------------------------------- */

static const char *const scope_names[] = { "param", "local", "static", "global" };

/* A thread-local's location, with how pid's threads find it, or why it
 * is <optimized out> (rt_tls_check). */
static void describe(const struct gs_var *v, struct rt_tls_check *tls, struct gs_modfiles *files,
		     char *loc, size_t size)
{
	struct gs_var_loc none = { .why = GS_LOC_WHY_NONE };
	char desc[160] = "";
	size_t n;

	for (uint32_t i = 0; i < v->loc.npieces; i++)
		if (v->loc.pieces[i].base == GS_LOC_BASE_TLS) {
			none.why = rt_tls_check(tls, files, v->loc.cookie, desc, sizeof(desc));
			break;
		}
	if (none.why) {
		gs_dwarf_describe_location(&none, loc, size);
		return;
	}
	n = gs_dwarf_describe_location(&v->loc, loc, size);
	if (v->loc.npieces && tls->tried && n < size)
		snprintf(loc + n, size - n, "%s", desc);
}

static void list_scope(const struct gs_dwarf_scope *s, const char *module, uint64_t addr,
		       bool inlined, struct rt_tls_check *tls, struct gs_modfiles *files, FILE *f)
{
	size_t wname = 4, wtype = 4;
	char loc[256];

	fputs(s->function ? "" : "(no function) ", f);
	if (s->function)
		gs_render_fputs(f, s->function, 0);
	fprintf(f, " at %s+0x%" PRIx64 "%s", base_name(module), addr, inlined ? " (inlined)" : "");
	if (s->cu_name) {
		fputs(" in ", f);
		gs_render_fputs(f, base_name(s->cu_name), 0);
	}
	fputs(":\n", f);
	for (size_t i = 0; i < s->nvars; i++) {
		size_t a = strlen(s->vars[i].name), b = strlen(s->vars[i].type->name);

		wname = a > wname ? (a < 32 ? a : 32) : wname;
		wtype = b > wtype ? (b < 40 ? b : 40) : wtype;
	}
	for (size_t i = 0; i < s->nvars; i++) {
		const struct gs_var *v = &s->vars[i];

		describe(v, tls, files, loc, sizeof(loc));
		fprintf(f, "  %-6s  ", scope_names[v->scope & 3]);
		put_col(f, v->name, (int)wname);
		fputs("  ", f);
		put_col(f, v->type->name, (int)wtype);
		fputs("  ", f);
		gs_render_fputs(f, loc, 0);
		fputc('\n', f);
	}
	if (!s->nvars)
		fputs("  (no variables)\n", f);
}

int gs_list_vars(const char *target, const struct gs_list_opts *opts, FILE *f,
		 struct gs_error *err)
{
	struct gs_list_opts o = { 0 };
	struct gs_resolve_opts ro = { .sz = sizeof(ro) };
	struct gs_target_pattern *pat = NULL;
	const struct rt_dwarf_module *m;
	struct rt_dwarf_cache *cache;
	struct gs_target t = { 0 };
	struct rt_tls_check tls = { 0 };
	int rc;

	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	cache = rt_dwarf_cache_new(o.files);
	if (!cache)
		return gs_errorf(err, -ENOMEM, "out of memory listing variables");
	tls.pid = o.pid;
	/* one opening of each module serves the resolution and the DWARF */
	ro.module = o.module;
	ro.pid = o.pid;
	ro.files = rt_dwarf_cache_files(cache);
	rc = gs_target_pattern_parse(target, &pat, err);
	if (rc == 0) {
		rc = gs_target_resolve(pat, &ro, &t, err);
		free(pat);
	}
	if (rc) {
		rt_dwarf_cache_free(cache);
		return rc;
	}
	rc = rt_dwarf_module(cache, t.module, 0, &m, err);
	if (rc == 0 && !m->d)
		rc = gs_errorf(err, -ENOENT, "%s", rt_dwarf_module_why(m));
	for (size_t i = 0; rc == 0 && i < t.nlocs; i++) {
		const struct gs_dwarf_scope *s;

		if (i)
			fputc('\n', f);
		rc = gs_dwarf_scope_at(m->d, t.locs[i].addr, &s, err);
		if (rc == 0)
			list_scope(s, t.module, t.locs[i].addr, t.locs[i].inlined, &tls,
				   rt_dwarf_cache_files(cache), f);
	}
	rt_tls_check_fini(&tls);
	rt_dwarf_cache_free(cache);
	gs_target_free(&t);
	return rc;
}
