/* Trace targets to probe addresses: `function`, `0xADDR`, `module:0xADDR`
 * and `file:line` become (module path, link-time address, file offset)
 * through the module file's ELF symbols, DWARF and line table (the
 * module-file cache finds its debug file), with the process's other modules
 * searched when the default module lacks a function. The runtime's
 * gs_target_resolve is this with its public types. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/modfile.h>
#include <libiberty/demangle.h>

#include "dwv_int.h"
#include "gdbview.h"
#include <gs/internal/modfile.h>
#include <gs/internal/dwarf.h>

static void loc_list_free(struct dwv_loc_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].function);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- the four target forms ----------------------------------------------- */

struct resolve_ctx {
	const char *input;
	const char *path;        /* the module, as named to the user */
	struct gs_modfile *file;
	Dwarf *dw;               /* from the file or its debug file; NULL: none */
	uint64_t bias;           /* DWARF address + bias = the file's address */
	struct gv_view view;     /* dw as gdb reads it, with the file's code */
	struct dwv_loc_list locs;
	struct gs_error *err;
	bool entry; /* functions at their entry (dwv_target_req.entry) */
	pid_t pid;  /* the traced process, or 0 */
	char *note; /* for dwv_target_res.note */
};

/* `name` is an IFUNC: its symbol is the resolver, run once when the symbol
 * is bound, not on each call. With a process, probe the implementation
 * its dynamic linker selected; else probe the resolver and say so. */
static int resolve_ifunc(struct resolve_ctx *c, const char *name, uint64_t resolver)
{
	const char *base = strrchr(c->path, '/');
	uint64_t impl;
	int n;

	base = base ? base + 1 : c->path;
	if (mf_ifunc_selected(c->file, c->path, c->pid, resolver, &impl)) {
		n = asprintf(&c->note, "`%s` is an IFUNC of %s: pid %d uses %s, which is traced",
			     name, base, (int)c->pid, gs_modfile_function_at(c->file, impl));
		resolver = impl;
	} else {
		n = asprintf(&c->note, "`%s` is an IFUNC of %s: what gets traced is its resolver, "
			     "which runs when the symbol is bound, not on each call; give -p PID to "
			     "trace the implementation that process selected, or name one (`nm %s "
			     "| grep %s` lists them)", name, base, c->path, name);
	}
	if (n < 0)
		c->note = NULL;
	if (dwv_loc_add(&c->locs, resolver, false, false, 0))
		return gs_errorf(c->err, -ENOMEM, "out of memory resolving `%s`", c->input);
	return 0;
}

/* A C++ or Rust name no function of the module has: say which functions
 * of that last part it has, or how to list names. */
static int unknown_qualified(struct resolve_ctx *c, const char *name)
{
	const struct mf_funcindex *x = NULL;
	struct dwv_qname q;
	char near[2048];
	int rc = mf_modfile_funcs(c->file, &x, NULL);

	if ((rc && rc != -ENOENT) || dwv_qname_parse(name, &q))
		return gs_errorf(c->err, -ENOMEM, "out of memory resolving `%s`", c->input);
	dwv_qname_near(c->dw, rc ? NULL : x, &q, near, sizeof(near));
	if (near[0])
		rc = gs_errorf(c->err, -ENOENT, "unknown function `%s` in %s: the functions named "
			       "`%s` there are %s; write one of these (a C++ overload with its "
			       "parameter list)", name, c->path, q.base, near);
	else
		rc = gs_errorf(c->err, -ENOENT, "unknown function `%s`: no function of %s is "
			       "named `%s` in its DWARF; `nm -C %s | grep '%s'` lists the names it "
			       "has", name, c->path, q.base, c->path, q.base);
	dwv_qname_free(&q);
	return rc;
}

/* Function name: DWARF definitions and inline instances; else symbols. */
static int resolve_function(struct resolve_ctx *c, const char *name)
{
	uint64_t addr[GS_MODFILE_SYMS_MAX], size[GS_MODFILE_SYMS_MAX];
	bool declared = false;
	size_t n;
	int rc;

	/* An IFUNC's DWARF function is its resolver too: the symbol decides. */
	n = gs_modfile_symbols_named(c->file, name, addr, size, GS_MODFILE_SYMS_MAX);
	if (n == 1 && gs_modfile_is_ifunc(c->file, addr[0]))
		return resolve_ifunc(c, name, addr[0]);
	if (c->dw) {
		const struct mf_funcindex *x = NULL;
		/* A mangled C++ name is the function it demangles to, each of its
		 * copies and constructor or destructor variants, as gdb reads it. */
		char *plain = base_has_prefix(name, "_Z") ? cplus_demangle(name, DMGL_PARAMS |
									  DMGL_ANSI) : NULL;

		rc = mf_modfile_funcs(c->file, &x, NULL);
		if (rc == 0 || rc == -ENOENT)
			rc = dwv_function_locs(&c->view, x, c->bias, plain ? plain : name, c->entry,
					       &c->locs.v, &c->locs.n, &declared);
		free(plain);
		if (rc)
			return gs_errorf(c->err, rc, "out of memory resolving `%s`", c->input);
		c->locs.cap = c->locs.n;
	}
	/* gdb's minimal symbols too, by the same rule over the symbol's range:
	 * an out-of-line copy whose DWARF is only an abstract DIE (gcc -O3
	 * inlined its one caller's call, kept the global) is its symbol. */
	n = gs_modfile_symbols_named(c->file, name, addr, size, GS_MODFILE_SYMS_MAX);
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = addr[i] - c->bias;
		struct gv_fn sym = { .lo = lo, .hi = lo + (size[i] ? size[i] : 1), .entry = lo,
				     .end = lo + (size[i] ? size[i] : 1) };
		uint64_t at = c->entry ? addr[i] : gv_break_at(&c->view, lo, &sym) + c->bias;

		if (dwv_loc_add(&c->locs, at, false, false, 0))
			return gs_errorf(c->err, -ENOMEM, "out of memory resolving `%s`", c->input);
	}
	if (c->locs.n)
		return 0;
	if (!c->dw && dwv_qname_is_qualified(name))
		return gs_errorf(c->err, -ENOENT, "`%s`: %s has no DWARF (no debug file found for "
				 "it), and qualified C++ and Rust names are read from DWARF; install "
				 "its debug file, or give the mangled name (`nm %s | c++filt` pairs "
				 "them)", name, c->path, c->path);
	if (!declared && dwv_qname_is_qualified(name))
		return unknown_qualified(c, name);
	if (declared)
		return gs_errorf(c->err, -ENOENT, "function `%s` has no code in %s (declared in its "
				 "DWARF, but inlined away or optimized out); probe a caller or a "
				 "file:line instead", name, c->path);
	return gs_errorf(c->err, -ENOENT, "unknown function `%s`: not in the symbol tables or "
			 "DWARF of %s%s; check the name (`nm -D %s` lists its symbols) or give "
			 "module:0xADDR", name, c->path, c->dw ? "" : " (no debug file found for it)",
			 c->path);
}

static int resolve_line(struct resolve_ctx *c, const char *file, int line)
{
	if (!c->dw)
		return gs_errorf(c->err, -ENOENT, "`%s`: %s has no DWARF line table; rebuild it "
				 "with -g, install its debug file, or give a function or 0xADDR",
				 c->input, c->path);
	return dwv_line_locs(&c->view, c->bias, c->path, c->input, file, line, &c->locs, c->err);
}

/* File offset of every location, and the function around it. */
static int place_locations(struct resolve_ctx *c)
{
	Elf *elf = gs_modfile_elf(c->file);
	size_t nph;
	char segs[256] = "";
	size_t used = 0;

	if (elf_getphdrnum(elf, &nph) != 0)
		return gs_errorf(c->err, -EINVAL, "%s has no readable program headers; is it a "
				 "linked executable or shared library?", c->path);
	for (size_t i = 0; i < c->locs.n; i++) {
		struct dwv_loc *l = &c->locs.v[i];
		bool placed = false;
		const char *fn;

		for (size_t k = 0; k < nph && !placed; k++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)k, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (i == 0 && used < sizeof(segs))
				used += (size_t)snprintf(segs + used, sizeof(segs) - used,
							 "%s0x%llx-0x%llx", used ? ", " : "",
							 (unsigned long long)ph.p_vaddr,
							 (unsigned long long)(ph.p_vaddr + ph.p_filesz));
			if (l->addr < ph.p_vaddr || l->addr - ph.p_vaddr >= ph.p_filesz)
				continue;
			if (!(ph.p_flags & PF_X))
				return gs_errorf(c->err, -EINVAL, "`%s`: 0x%llx is in a segment of %s "
						 "that is not executable; give the address of code "
						 "(`objdump -d %s`)", c->input,
						 (unsigned long long)l->addr, c->path, c->path);
			l->file_offset = ph.p_offset + (l->addr - ph.p_vaddr);
			placed = true;
		}
		if (!placed)
			return gs_errorf(c->err, -ERANGE, "`%s`: 0x%llx is outside every loadable "
					 "segment of %s (%s); give a link-time address as `nm` or "
					 "`objdump -d` show it, not a runtime address", c->input,
					 (unsigned long long)l->addr, c->path, segs);
		fn = gs_modfile_function_at(c->file, l->addr);
		if (fn && !(l->function = strdup(fn)))
			return gs_errorf(c->err, -ENOMEM, "out of memory resolving `%s`", c->input);
	}
	return 0;
}

static int cmp_loc(const void *a, const void *b)
{
	const struct dwv_loc *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Resolves p in one module file (named `path` to the user): 0 with
 * locations, -ENOENT when not found there. */
static int resolve_in(const struct dwv_target_req *p, const char *path, struct gs_modfile *file,
		      struct dwv_target_res *out, struct gs_error *err)
{
	struct resolve_ctx c = { .input = p->input, .path = path, .file = file, .err = err,
				 .entry = p->entry, .pid = p->pid };
	int rc;

	/* Only names need DWARF (found on first use, debug file included). */
	if (p->kind == DWV_TARGET_FUNCTION || p->kind == DWV_TARGET_FILE_LINE)
		c.dw = gs_modfile_dwarf(file, &c.bias);
	gv_view_init(&c.view, c.dw, gs_modfile_elf(file), c.bias);
	switch (p->kind) {
	case DWV_TARGET_FUNCTION:
		rc = resolve_function(&c, p->name);
		break;
	case DWV_TARGET_FILE_LINE:
		rc = resolve_line(&c, p->name, (int)p->line);
		break;
	default:
		rc = dwv_loc_add(&c.locs, p->address, false, false, 0);
		break;
	}
	gv_view_free(&c.view);
	if (rc == 0)
		rc = place_locations(&c);
	if (rc) {
		loc_list_free(&c.locs);
		free(c.note);
		return rc;
	}
	qsort(c.locs.v, c.locs.n, sizeof(*c.locs.v), cmp_loc);
	out->note = c.note;
	out->module = strdup(path);
	out->locs = c.locs.v;
	out->nlocs = c.locs.n;
	if (!out->module) {
		loc_list_free(&c.locs);
		out->locs = NULL;
		out->nlocs = 0;
		return gs_errorf(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* A function or line not in the default module: the first other module of
 * the process that has it, trying modules with a symbol of that name
 * before reading every module's DWARF. The default module's error stays
 * when none has it. */
static int resolve_elsewhere(const struct dwv_target_req *p, struct gs_modfiles *files,
			     const struct gs_modfile *skip, struct dwv_target_res *out)
{
	struct gs_proc_modules mods;
	struct gs_error ignored;
	int rc = -ENOENT;

	if (gs_proc_modules_load(p->pid, files, &mods, &ignored) != 0)
		return -ENOENT;
	for (int pass = p->kind == DWV_TARGET_FUNCTION ? 0 : 1; pass < 2 && rc; pass++) {
		for (size_t i = 0; i < mods.n && rc; i++) {
			const struct gs_proc_module *m = &mods.v[i];
			uint64_t addr, size;

			if (m->file == skip)
				continue;
			if (pass == 0 && !gs_modfile_symbols_named(m->file, p->name, &addr, &size, 1))
				continue;
			rc = resolve_in(p, m->open_path, m->file, out, &ignored);
		}
	}
	gs_proc_modules_free(&mods);
	return rc;
}

/* Opens the default module: -t PATH, `module:` of the pattern, or the
 * executable of the pid (read through /proc/PID/exe: the very file). */
static int open_module(const struct dwv_target_req *p, struct gs_modfiles *files, char **module,
		       struct gs_modfile **file, struct gs_error *err)
{
	const char *input = p->input;
	struct gs_modfile_src src = { .sz = sizeof(src) };
	struct gs_error why;
	char exe_link[64];
	struct stat exe;
	int rc;

	if (p->kind == DWV_TARGET_MODULE_ADDRESS)
		rc = mf_find_module(input, p->name, p->pid, files, module, err);
	else if (p->module)
		rc = (*module = strdup(p->module)) ? 0 : gs_errorf(err, -ENOMEM, "out of memory");
	else if (p->pid > 0)
		rc = mf_proc_exe(p->pid, module, &exe, err);
	else
		rc = gs_errorf(err, -EINVAL, "no binary to resolve `%s` in: give the program "
			       "(-t PATH) or a process (-p PID)", input);
	if (rc)
		return rc;
	src.path = *module;
	if (p->kind != DWV_TARGET_MODULE_ADDRESS && !p->module) {
		snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int)p->pid);
		src.open_path = exe_link;
		src.dev = exe.st_dev;
		src.ino = exe.st_ino;
	}
	rc = gs_modfile_open_src(files, &src, file, &why);
	return rc ? gs_errorf(err, rc, "`%s`: %s", input, why.msg) : 0;
}

int dwv_target_resolve(const struct dwv_target_req *p, struct dwv_target_res *out,
		       struct gs_error *err)
{
	struct gs_modfiles *files = p->files, *own = NULL;
	struct gs_modfile *file = NULL;
	char *module = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!files && (rc = gs_modfiles_new(NULL, &own, err)) != 0)
		return rc;
	if (!files)
		files = own;
	rc = open_module(p, files, &module, &file, err);
	if (rc == 0) {
		rc = resolve_in(p, module, file, out, err);
		if (rc == -ENOENT && p->pid > 0 &&
		    (p->kind == DWV_TARGET_FUNCTION || p->kind == DWV_TARGET_FILE_LINE)) {
			if (resolve_elsewhere(p, files, file, out) == 0) {
				gs_error_clear(err);
				rc = 0;
			} else if (err) {
				char first[GS_ERROR_MSG_MAX];

				snprintf(first, sizeof(first), "%s", err->msg);
				gs_errorf(err, rc, "%s; no other module of pid %d has it either", first,
					  (int)p->pid);
			}
		}
	}
	if (rc)
		dwv_target_res_free(out);
	free(module);
	gs_modfiles_free(own);
	return rc;
}

void dwv_target_res_free(struct dwv_target_res *r)
{
	for (size_t i = 0; i < r->nlocs; i++)
		free(r->locs[i].function);
	free(r->locs);
	free(r->module);
	free(r->note);
	memset(r, 0, sizeof(*r));
}
