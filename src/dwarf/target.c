/* Trace targets to probe addresses: `function`, `0xADDR`, `module:0xADDR`
 * and `file:line` become (module path, link-time address, file offset)
 * through the module file's ELF symbols, DWARF and line table (the
 * module-file cache finds its debug file), with the process's other modules
 * searched when the default module lacks a function. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>

#include <gs/modfile.h>
#include <gs/runtime.h>

#include "../opts_int.h"
#include "rt_int.h"
#include "unwind_int.h"

struct loc_list {
	struct gs_location *v;
	size_t n, cap;
};

static int loc_add(struct loc_list *l, uint64_t addr, bool inlined, bool from_dwarf, int line)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].addr == addr)
			return 0;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 8;
		struct gs_location *nv = realloc(l->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n++] = (struct gs_location){ .addr = addr, .inlined = inlined,
					     .from_dwarf = from_dwarf, .line = line };
	return 0;
}

/* The location at addr probes after the prologue of the function entered
 * at `entry` (a file:line on its `{` or signature line). */
static void loc_moved(struct loc_list *l, uint64_t addr, uint64_t entry, int body_line)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].addr == addr) {
			l->v[i].entry = entry;
			l->v[i].body_line = body_line;
		}
}

static void loc_list_free(struct loc_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].function);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- DWARF functions ----------------------------------------------------- */

struct func_search {
	const char *name;
	Dwarf *dw;
	uint64_t bias; /* DWARF address + bias = the module's address */
	struct loc_list *out;
	int rc;
	bool declared; /* a DIE of that name exists, with or without code */
	bool entry;    /* the entry itself, no inline copies (return probes) */
};

static int inline_instance(Dwarf_Die *inst, void *arg)
{
	struct func_search *s = arg;
	uint64_t entry, end;

	if (rt_die_entry(inst, &entry, &end) && loc_add(s->out, entry + s->bias, true, true, 0))
		s->rc = -ENOMEM;
	return DWARF_CB_OK;
}

static int visit_func(Dwarf_Die *die, void *arg)
{
	struct func_search *s = arg;
	const char *name = dwarf_diename(die);
	uint64_t entry, end;

	if (!name || strcmp(name, s->name) != 0)
		return DWARF_CB_OK;
	s->declared = true;
	if (dwarf_func_inline(die) && !s->entry)
		dwarf_func_inline_instances(die, inline_instance, s);
	if (!dwarf_hasattr(die, DW_AT_declaration) && rt_die_entry(die, &entry, &end) &&
	    loc_add(s->out, (s->entry ? entry : rt_skip_prologue(s->dw, entry, end)) + s->bias,
		    false, true, 0))
		s->rc = -ENOMEM;
	return DWARF_CB_OK;
}

/* The index's DIEs of s->name, visited as the walk would visit them; false
 * (nothing visited) when one is not a definition of that name: the index
 * is not of this DWARF, and the caller walks instead. */
static bool visit_indexed(const struct mf_funcindex *x, struct func_search *s)
{
	const uint64_t *offs;
	size_t n = mf_funcindex_find(x, s->name, &offs);
	Dwarf_Die die;
	const char *name;

	for (size_t i = 0; i < n; i++)
		if (!dwarf_offdie(s->dw, offs[i], &die) || dwarf_tag(&die) != DW_TAG_subprogram ||
		    dwarf_hasattr(&die, DW_AT_declaration) || !(name = dwarf_diename(&die)) ||
		    strcmp(name, s->name) != 0)
			return false;
	for (size_t i = 0; i < n && s->rc == 0; i++)
		if (dwarf_offdie(s->dw, offs[i], &die))
			visit_func(&die, s);
	return true;
}

int rt_dwarf_function_locs(Dwarf *dw, const struct mf_funcindex *x, uint64_t bias,
			   const char *name, bool entry, struct gs_location **locs, size_t *n,
			   bool *declared)
{
	struct loc_list l = { 0 };
	struct func_search s = { .name = name, .dw = dw, .bias = bias, .out = &l,
				 .entry = entry };

	if (!x || !visit_indexed(x, &s))
		mf_funcindex_walk(dw, visit_func, &s);
	*declared = s.declared;
	if (s.rc) {
		loc_list_free(&l);
		return s.rc;
	}
	*locs = l.v;
	*n = l.n;
	return 0;
}

/* ---- the four target forms ----------------------------------------------- */

struct resolve_ctx {
	const char *input;
	const char *path;        /* the module, as named to the user */
	struct gs_modfile *file;
	Dwarf *dw;               /* from the file or its debug file; NULL: none */
	uint64_t bias;           /* DWARF address + bias = the file's address */
	struct loc_list locs;
	struct gs_error *err;
	bool entry; /* functions at their entry (gs_resolve_opts.entry) */
	pid_t pid;  /* the traced process, or 0 */
	char *note; /* for gs_target.note */
};

/* The GOT slot the module's R_X86_64_IRELATIVE relocation for the resolver
 * at `resolver` fills (libc calls its own IFUNCs through these), or 0. */
static uint64_t irelative_slot(Elf *elf, uint64_t resolver)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Rela r;

			if (gelf_getrela(data, (int)k, &r) && GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE &&
			    (uint64_t)r.r_addend == resolver)
				return r.r_offset;
		}
	}
	return 0;
}

/* The implementation pid's dynamic linker chose for the IFUNC whose
 * resolver is at `resolver`: read from the module's GOT in the process,
 * as a link-time address of the module. false when it cannot be known. */
static bool ifunc_selected(struct resolve_ctx *c, uint64_t resolver, uint64_t *impl)
{
	uint64_t slot = irelative_slot(gs_modfile_elf(c->file), resolver), value = 0;
	const struct gs_proc_module *m = NULL;
	struct gs_proc_modules mods;
	char mem[64];
	int fd;

	*impl = 0;
	if (!slot || c->pid <= 0 || gs_proc_modules_load(c->pid, NULL, &mods, NULL) != 0)
		return false;
	for (size_t i = 0; i < mods.n && !m; i++)
		if (strcmp(mods.v[i].open_path, c->path) == 0 || strcmp(mods.v[i].path, c->path) == 0)
			m = &mods.v[i];
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)c->pid);
	fd = m ? open(mem, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && pread(fd, &value, sizeof(value), (off_t)(slot + m->offsets.text)) !=
			       (ssize_t)sizeof(value))
		value = 0;
	if (fd >= 0)
		close(fd);
	if (m && value > m->offsets.text)
		*impl = value - m->offsets.text;
	gs_proc_modules_free(&mods);
	return *impl && gs_modfile_function_at(c->file, *impl);
}

/* `name` is an IFUNC: its symbol is the resolver, run once when the symbol
 * is bound, not on each call. With a process, probe the implementation
 * its dynamic linker selected; else probe the resolver and say so. */
static int resolve_ifunc(struct resolve_ctx *c, const char *name, uint64_t resolver)
{
	const char *base = strrchr(c->path, '/');
	uint64_t impl;
	int n;

	base = base ? base + 1 : c->path;
	if (ifunc_selected(c, resolver, &impl)) {
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
	if (loc_add(&c->locs, resolver, false, false, 0))
		return gs_errorf(c->err, -ENOMEM, "out of memory resolving `%s`", c->input);
	return 0;
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

		rc = mf_modfile_funcs(c->file, &x, NULL);
		if (rc == 0 || rc == -ENOENT)
			rc = rt_dwarf_function_locs(c->dw, x, c->bias, name, c->entry, &c->locs.v,
						    &c->locs.n, &declared);
		if (rc)
			return gs_errorf(c->err, rc, "out of memory resolving `%s`", c->input);
		c->locs.cap = c->locs.n;
	}
	if (c->locs.n)
		return 0;
	n = gs_modfile_symbols_named(c->file, name, addr, size, GS_MODFILE_SYMS_MAX);
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = addr[i] - c->bias;
		uint64_t at = c->dw && !c->entry ? rt_skip_prologue(c->dw, lo, lo + size[i]) + c->bias
						 : addr[i];

		if (loc_add(&c->locs, at, false, false, 0))
			return gs_errorf(c->err, -ENOMEM, "out of memory resolving `%s`", c->input);
	}
	if (c->locs.n)
		return 0;
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
	uint64_t *addrs;
	size_t n;
	int used, rc;

	if (!c->dw)
		return gs_errorf(c->err, -ENOENT, "`%s`: %s has no DWARF line table; rebuild it "
				 "with -g, install its debug file, or give a function or 0xADDR",
				 c->input, c->path);
	rc = rt_line_addrs(c->dw, c->path, c->input, file, line, &addrs, &n, &used, c->err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct rt_line_move mv;
		bool moved = rt_line_past_prologue(c->dw, addrs[i], &mv);

		rc = loc_add(&c->locs, (moved ? mv.body : addrs[i]) + c->bias, false, true, used);
		if (rc == 0 && moved)
			loc_moved(&c->locs, mv.body + c->bias, mv.entry + c->bias, mv.body_line);
	}
	free(addrs);
	if (rc)
		return gs_errorf(c->err, rc, "out of memory resolving `%s`", c->input);
	return 0;
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
		struct gs_location *l = &c->locs.v[i];
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
	const struct gs_location *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* ---- modules ------------------------------------------------------------- */

/* The executable of pid: a path naming it here (the one it was run as, else
 * that path under the process's root) and its identity from /proc/PID/exe.
 * A path counts only when stat shows a regular file with the same device
 * and inode: the process controls what its mount namespace shows there. */
static int proc_exe(pid_t pid, char **path, struct stat *exe, struct gs_error *err)
{
	char link[64], target[PATH_MAX], norm[PATH_MAX], rooted[PATH_MAX + 64];
	struct stat st;
	ssize_t n;

	*path = NULL;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0 || stat(link, exe) != 0) {
		int code = -errno;

		return gs_errorf(err, code, "cannot read the executable of pid %d (%s): %s",
				 (int)pid, link, code == -ENOENT ? "no such process; check the pid"
				 : code == -EACCES || code == -EPERM ? "permission denied; run as root"
				 : strerror(-code));
	}
	target[n] = '\0';
	if (mf_path_normalize(target, norm, sizeof(norm)) < 0)
		return gs_errorf(err, -ENAMETOOLONG, "the executable path of pid %d is too long",
				 (int)pid);
	snprintf(rooted, sizeof(rooted), "/proc/%d/root%s", (int)pid, norm);
	if (stat(norm, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == exe->st_dev &&
	    st.st_ino == exe->st_ino) {
		*path = strdup(norm);
	} else if (stat(rooted, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == exe->st_dev &&
		   st.st_ino == exe->st_ino) {
		*path = strdup(rooted);
	} else if (stat(rooted, &st) == 0) {
		return gs_errorf(err, -ESTALE, "the executable of pid %d (%s) is not the file its "
				 "mount namespace shows there (%s): give its path with -t", (int)pid,
				 norm, S_ISREG(st.st_mode) ? "another file" : "not a regular file");
	} else {
		return gs_errorf(err, -ENOENT, "the executable of pid %d (%s) is not reachable "
				 "(deleted or in another mount namespace); give its path with -t",
				 (int)pid, norm);
	}
	return *path ? 0 : gs_errorf(err, -ENOMEM, "out of memory");
}

int gs_proc_exe(pid_t pid, char **path, struct gs_error *err)
{
	struct stat exe;

	return proc_exe(pid, path, &exe, err);
}

/* `name` names `path`: equal, or a suffix after '/'. */
static bool path_matches(const char *path, const char *name)
{
	size_t pl = strlen(path), nl = strlen(name);

	return strcmp(path, name) == 0 ||
	       (pl > nl && path[pl - nl - 1] == '/' && strcmp(path + pl - nl, name) == 0);
}

/* The module `name` of `module:0xADDR`: an existing path, else the one
 * module the process maps whose path ends in it. */
static int find_module(const char *input, const char *name, pid_t pid,
		       struct gs_modfiles *files, char **out, struct gs_error *err)
{
	struct gs_proc_modules mods;
	const struct gs_proc_module *hit = NULL;
	size_t nhits = 0;
	int rc;

	*out = NULL;
	if (!pid || (strchr(name, '/') && access(name, F_OK) == 0)) {
		if (access(name, F_OK) != 0)
			return gs_errorf(err, -ENOENT, "`%s`: module %s does not exist; give its "
					 "path%s", input, name, pid ? "" : ", or -p PID to find it "
					 "among the libraries a process maps");
		*out = strdup(name);
		return *out ? 0 : -ENOMEM;
	}
	rc = gs_proc_modules_load(pid, files, &mods, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < mods.n; i++)
		if (path_matches(mods.v[i].path, name)) {
			hit = &mods.v[i];
			nhits++;
		}
	if (nhits == 1)
		*out = strdup(hit->open_path);
	gs_proc_modules_free(&mods);
	if (nhits == 0)
		return gs_errorf(err, -ENOENT, "`%s`: pid %d maps no module %s; give its full path "
				 "(see /proc/%d/maps)", input, (int)pid, name, (int)pid);
	if (nhits > 1)
		return gs_errorf(err, -EINVAL, "`%s`: %s matches %zu modules of pid %d; give more "
				 "of the path", input, name, nhits, (int)pid);
	return *out ? 0 : -ENOMEM;
}

/* Resolves p in one module file (named `path` to the user): 0 with
 * locations, -ENOENT when not found there. */
static int resolve_in(const char *input, const struct gs_target_pattern *p, const char *path,
		      struct gs_modfile *file, bool entry, pid_t pid, struct gs_target *out,
		      struct gs_error *err)
{
	struct resolve_ctx c = { .input = input, .path = path, .file = file, .err = err,
				 .entry = entry, .pid = pid };
	int rc;

	/* Only names need DWARF (found on first use, debug file included). */
	if (p->kind == GS_TARGET_FUNCTION || p->kind == GS_TARGET_FILE_LINE)
		c.dw = gs_modfile_dwarf(file, &c.bias);
	switch (p->kind) {
	case GS_TARGET_FUNCTION:
		rc = resolve_function(&c, p->name);
		break;
	case GS_TARGET_FILE_LINE:
		rc = resolve_line(&c, p->name, (int)p->line);
		break;
	default:
		rc = loc_add(&c.locs, p->address, false, false, 0);
		break;
	}
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
static int resolve_elsewhere(const char *input, const struct gs_target_pattern *p, pid_t pid,
			     struct gs_modfiles *files, const struct gs_modfile *skip, bool entry,
			     struct gs_target *out)
{
	struct gs_proc_modules mods;
	struct gs_error ignored;
	int rc = -ENOENT;

	if (gs_proc_modules_load(pid, files, &mods, &ignored) != 0)
		return -ENOENT;
	for (int pass = p->kind == GS_TARGET_FUNCTION ? 0 : 1; pass < 2 && rc; pass++) {
		for (size_t i = 0; i < mods.n && rc; i++) {
			const struct gs_proc_module *m = &mods.v[i];
			uint64_t addr, size;

			if (m->file == skip)
				continue;
			if (pass == 0 && !gs_modfile_symbols_named(m->file, p->name, &addr, &size, 1))
				continue;
			rc = resolve_in(input, p, m->open_path, m->file, entry, pid, out, &ignored);
		}
	}
	gs_proc_modules_free(&mods);
	return rc;
}

/* Opens the default module: -t PATH, `module:` of the pattern, or the
 * executable of the pid (read through /proc/PID/exe: the very file). */
static int open_module(const char *input, const struct gs_target_pattern *p,
		       const struct gs_resolve_opts *o, struct gs_modfiles *files, char **module,
		       struct gs_modfile **file, struct gs_error *err)
{
	struct gs_modfile_src src = { .sz = sizeof(src) };
	struct gs_error why;
	char exe_link[64];
	struct stat exe;
	int rc;

	if (p->kind == GS_TARGET_MODULE_ADDRESS)
		rc = find_module(input, p->name, o->pid, files, module, err);
	else if (o->module)
		rc = (*module = strdup(o->module)) ? 0 : gs_errorf(err, -ENOMEM, "out of memory");
	else if (o->pid > 0)
		rc = proc_exe(o->pid, module, &exe, err);
	else
		rc = gs_errorf(err, -EINVAL, "no binary to resolve `%s` in: give the program "
			       "(-t PATH) or a process (-p PID)", input);
	if (rc)
		return rc;
	src.path = *module;
	if (p->kind != GS_TARGET_MODULE_ADDRESS && !o->module) {
		snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int)o->pid);
		src.open_path = exe_link;
		src.dev = exe.st_dev;
		src.ino = exe.st_ino;
	}
	rc = gs_modfile_open_src(files, &src, file, &why);
	return rc ? gs_errorf(err, rc, "`%s`: %s", input, why.msg) : 0;
}

int gs_target_resolve(const struct gs_target_pattern *p, const struct gs_resolve_opts *opts,
		      struct gs_target *out, struct gs_error *err)
{
	const char *input = p ? p->text : NULL;
	struct gs_resolve_opts o;
	struct gs_modfiles *files, *own = NULL;
	struct gs_modfile *file = NULL;
	char *module = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = OPTS_COPY(&o, opts, gs_resolve_opts, err);
	if (rc)
		return rc;
	if (!input || (p->kind != GS_TARGET_ADDRESS && !p->name))
		return gs_errorf(err, -EINVAL, "gs_target_resolve: the target pattern is missing "
				 "its text or name; parse it with gs_target_pattern_parse()");
	files = o.files;
	if (!files && (rc = gs_modfiles_new(NULL, &own, err)) != 0)
		return rc;
	if (!files)
		files = own;
	rc = open_module(input, p, &o, files, &module, &file, err);
	if (rc == 0) {
		rc = resolve_in(input, p, module, file, o.entry, o.pid, out, err);
		if (rc == -ENOENT && o.pid > 0 &&
		    (p->kind == GS_TARGET_FUNCTION || p->kind == GS_TARGET_FILE_LINE)) {
			if (resolve_elsewhere(input, p, o.pid, files, file, o.entry, out) == 0) {
				gs_error_clear(err);
				rc = 0;
			} else if (err) {
				char first[GS_ERROR_MSG_MAX];

				snprintf(first, sizeof(first), "%s", err->msg);
				gs_errorf(err, rc, "%s; no other module of pid %d has it either", first,
					  (int)o.pid);
			}
		}
	}
	if (rc == 0 && !(out->input = strdup(input)))
		rc = gs_errorf(err, -ENOMEM, "out of memory");
	if (rc)
		gs_target_free(out);
	free(module);
	gs_modfiles_free(own);
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
