/* The source-file index of the interactive mode (gs/sources.h): the files
 * the modules' line tables name, found when a module is added; each
 * file's lines with code and its functions, read from the units that name
 * it the first time they are asked for. Never reads a source file. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include <gs/sources.h>

#include "dwv_int.h"

/* Bounds against hostile DWARF: units per module, DIE nesting and DIEs
 * walked per unit, links followed from a definition to its declaration. */
#define MAX_UNITS (1u << 20)
#define MAX_DEPTH 64
#define MAX_DIES (1u << 22)
#define MAX_LINKS 8

struct src_module {
	const char *path;
	Dwarf *dw; /* the module file's: it outlives the index */
};

/* A unit whose line table names a file. */
struct src_ref {
	uint32_t module;
	Dwarf_Off cu; /* the unit DIE's offset */
};

struct src_func {
	const char *name;
	uint32_t first, last;
};

struct src_file {
	const char *path;
	struct src_ref *refs;
	size_t nrefs, refs_cap;
	uint32_t *lines; /* malloc'd; NULL until read */
	size_t nlines;
	bool lines_read, funcs_read;
	struct src_func *funcs; /* malloc'd */
	size_t nfuncs;
};

struct gs_sources {
	struct gs_arena *arena;
	struct src_module *mods;
	size_t nmods, mods_cap;
	struct src_file **files; /* sorted by path after each module */
	size_t nfiles, files_cap;
	struct src_file **table; /* open addressing by path hash */
	size_t table_cap;
};

int gs_sources_new(struct gs_sources **out, struct gs_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return gs_errorf(err, -ENOMEM, "out of memory for the source-file index");
	return 0;
}

void gs_sources_free(struct gs_sources *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i]->lines);
		free(s->files[i]->funcs);
	}
	free(s->files);
	free(s->table);
	free(s->mods);
	base_arena_free(&s->arena);
	free(s);
}

/* ---- the file table ---- */

static size_t path_hash(const char *p)
{
	size_t h = 14695981039346656037ull;

	while (*p)
		h = (h ^ (unsigned char)*p++) * 1099511628211ull;
	return h;
}

static struct src_file **slot_of(struct gs_sources *s, const char *path)
{
	size_t mask = s->table_cap - 1, i = path_hash(path) & mask;

	while (s->table[i] && strcmp(s->table[i]->path, path) != 0)
		i = (i + 1) & mask;
	return &s->table[i];
}

/* Keeps the table at most half full. */
static int table_reserve(struct gs_sources *s)
{
	struct src_file **old = s->table;
	size_t old_cap = s->table_cap, cap = old_cap ? old_cap : 64;

	if (2 * (s->nfiles + 1) <= old_cap)
		return 0;
	while (2 * (s->nfiles + 1) > cap)
		cap *= 2;
	s->table = calloc(cap, sizeof(*s->table));
	if (!s->table) {
		s->table = old;
		return -ENOMEM;
	}
	s->table_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			*slot_of(s, old[i]->path) = old[i];
	free(old);
	return 0;
}

/* The file of path, made when new. NULL on ENOMEM. */
static struct src_file *file_of(struct gs_sources *s, const char *path)
{
	struct src_file **slot, *f;

	if (table_reserve(s) ||
	    base_grow((void **)&s->files, &s->files_cap, s->nfiles + 1, sizeof(*s->files)))
		return NULL;
	slot = slot_of(s, path);
	if (*slot)
		return *slot;
	f = base_arena_alloc(&s->arena, sizeof(*f));
	if (!f || !(f->path = base_arena_strdup(&s->arena, path)))
		return NULL;
	s->files[s->nfiles++] = f;
	*slot = f;
	return f;
}

static int add_ref(struct gs_sources *s, struct src_file *f, struct src_ref ref)
{
	if (f->nrefs && f->refs[f->nrefs - 1].module == ref.module && f->refs[f->nrefs - 1].cu == ref.cu)
		return 0;
	if (base_arena_grow(&s->arena, &f->refs, &f->refs_cap, f->nrefs, sizeof(*f->refs)))
		return -ENOMEM;
	f->refs[f->nrefs++] = ref;
	return 0;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp((*(struct src_file *const *)a)->path, (*(struct src_file *const *)b)->path);
}

/* ---- one unit's line table ---- */

/* A unit's line table and the path its rows' file names resolve against. */
struct unit {
	Dwarf_Die die;
	Dwarf_Lines *lines;
	size_t n;
	const char *comp_dir;
};

static bool unit_open(Dwarf *dw, Dwarf_Off off, struct unit *u)
{
	Dwarf_Attribute a;

	if (!dwarf_offdie(dw, off, &u->die) || dwarf_getsrclines(&u->die, &u->lines, &u->n) != 0)
		return false;
	u->comp_dir = dwarf_formstring(dwarf_attr(&u->die, DW_AT_comp_dir, &a));
	return true;
}

/* The path of a file name libdw gives a row, into buf. libdw has joined
 * a relative name with its directory, comp_dir for directory 0: a name
 * still relative comes from a relative directory, relative to comp_dir;
 * a name that starts with a relative comp_dir (glibc's "./malloc") has it
 * already. */
static int row_path(const struct unit *u, const char *name, char *buf, size_t size)
{
	const char *dir = u->comp_dir;
	size_t n = dir ? strlen(dir) : 0;

	if (dir && dir[0] != '/' && strncmp(name, dir, n) == 0 && name[n] == '/')
		dir = NULL;
	return dwv_src_path(dir, name, buf, size);
}

/* A row with code: not a sequence's end, a statement, a line. */
struct row {
	uint64_t addr;
	uint32_t line;
	const char *file; /* as libdw names it: one pointer per file entry */
};

static bool row_at(const struct unit *u, size_t i, struct row *r)
{
	Dwarf_Line *l = dwarf_onesrcline(u->lines, i);
	Dwarf_Addr addr;
	bool stmt = false, end = true;
	int line;

	if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &line) != 0 || line <= 0 ||
	    dwarf_linebeginstatement(l, &stmt) != 0 || dwarf_lineendsequence(l, &end) != 0 ||
	    !stmt || end || !(r->file = dwarf_linesrc(l, NULL, NULL)))
		return false;
	r->addr = addr;
	r->line = (uint32_t)line;
	return true;
}

/* Whether a row's file is path, remembered for the last file pointer seen
 * (rows of one file come in runs). */
struct file_match {
	const char *path, *last;
	bool is;
};

static bool file_is(struct file_match *m, const struct unit *u, const char *file)
{
	char buf[PATH_MAX];

	if (file != m->last) {
		m->last = file;
		m->is = row_path(u, file, buf, sizeof(buf)) >= 0 &&
			strcmp(buf, m->path) == 0;
	}
	return m->is;
}

/* The rows of the unit whose file is path, in the table's (address) order. */
struct file_rows {
	struct row *v;
	size_t n, cap;
};

static int rows_of(const struct unit *u, const char *path, struct file_rows *out)
{
	struct file_match m = { .path = path };
	struct row r;

	out->n = 0;
	for (size_t i = 0; i < u->n; i++) {
		if (!row_at(u, i, &r) || !file_is(&m, u, r.file))
			continue;
		if (base_grow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v)))
			return -ENOMEM;
		out->v[out->n++] = r;
	}
	return 0;
}

/* ---- adding a module ---- */

/* The files of one unit's rows, each once. */
static int add_unit(struct gs_sources *s, const struct unit *u, struct src_ref ref)
{
	const char **seen = NULL;
	size_t nseen = 0, cap = 0;
	char buf[PATH_MAX];
	struct row r;
	int rc = 0;

	for (size_t i = 0; i < u->n && !rc; i++) {
		struct src_file *f;
		size_t k = nseen;

		if (!row_at(u, i, &r))
			continue;
		while (k > 0 && seen[k - 1] != r.file)
			k--;
		if (k > 0)
			continue;
		if (base_grow((void **)&seen, &cap, nseen + 1, sizeof(*seen))) {
			rc = -ENOMEM;
			break;
		}
		seen[nseen++] = r.file;
		if (row_path(u, r.file, buf, sizeof(buf)) < 0)
			continue; /* longer than a path can be: not a file to browse */
		f = file_of(s, buf);
		rc = f ? add_ref(s, f, ref) : -ENOMEM;
	}
	free(seen);
	return rc;
}

static int add_module_entry(struct gs_sources *s, Dwarf *dw, const char *path, uint32_t *idx)
{
	struct src_module m = { .dw = dw, .path = base_arena_strdup(&s->arena, path) };

	if (!m.path || s->nmods >= UINT32_MAX ||
	    base_grow((void **)&s->mods, &s->mods_cap, s->nmods + 1, sizeof(*s->mods)))
		return -ENOMEM;
	*idx = (uint32_t)s->nmods;
	s->mods[s->nmods++] = m;
	return 0;
}

/* The units of module mod: 0, -ENOMEM, or -EINVAL when the first unit's
 * header does not read. A unit that does not read adds nothing; reading
 * stops at the first header that does not parse (libdw cannot find the
 * next one). */
static int add_units(struct gs_sources *s, Dwarf *dw, uint32_t mod)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t type;
	unsigned units = 0;
	int got = 0, rc = 0;

	while (!rc && (got = dwarf_get_units(dw, cu, &next, &version, &type, &cudie, NULL)) == 0 &&
	       units++ < MAX_UNITS) {
		struct unit u;

		cu = next;
		if (type == DW_UT_type || type == DW_UT_split_type ||
		    !unit_open(dw, dwarf_dieoffset(&cudie), &u))
			continue;
		rc = add_unit(s, &u, (struct src_ref){ mod, dwarf_dieoffset(&cudie) });
	}
	return rc ? rc : got < 0 && units == 0 ? -EINVAL : 0;
}

int dwv_sources_add_dwarf(struct gs_sources *s, Dwarf *dw, const char *path,
			  struct gs_error *err)
{
	uint32_t mod;
	int rc;

	if (!dw)
		return 0;
	if (add_module_entry(s, dw, path, &mod))
		return gs_errorf(err, -ENOMEM, "out of memory adding the source files of %s", path);
	rc = add_units(s, dw, mod);
	if (s->nfiles)
		qsort(s->files, s->nfiles, sizeof(*s->files), cmp_file);
	if (rc == -EINVAL)
		return gs_errorf(err, rc, "%s: its DWARF does not read (%s); rebuild it or "
				 "install its debug file again", path, dwarf_errmsg(-1));
	if (rc)
		return gs_errorf(err, rc, "out of memory adding the source files of %s", path);
	return 0;
}

int gs_sources_add_module(struct gs_sources *s, struct gs_modfile *m, struct gs_error *err)
{
	return dwv_sources_add_dwarf(s, gs_modfile_dwarf(m, NULL), gs_modfile_path(m), err);
}

/* ---- queries ---- */

size_t gs_sources_count(const struct gs_sources *s)
{
	return s->nfiles;
}

const char *gs_sources_path(const struct gs_sources *s, size_t i)
{
	return i < s->nfiles ? s->files[i]->path : NULL;
}

const char *gs_sources_module(const struct gs_sources *s, size_t i)
{
	if (i >= s->nfiles || !s->files[i]->nrefs)
		return NULL;
	return s->mods[s->files[i]->refs[0].module].path;
}

/* The index of the file whose path is path, or -1 (the list is sorted). */
static long find_exact(const struct gs_sources *s, const char *path)
{
	size_t lo = 0, hi = s->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->files[mid]->path, path);

		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

long gs_sources_find(const struct gs_sources *s, const char *path)
{
	long best = find_exact(s, path);
	size_t best_len = SIZE_MAX;

	if (best >= 0)
		return best;
	for (size_t i = 0; i < s->nfiles; i++) {
		const char *p = s->files[i]->path;
		size_t len = strlen(p);

		if (len < best_len && dwv_path_names(p, path)) {
			best = (long)i;
			best_len = len;
		}
	}
	return best;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int read_lines(struct gs_sources *s, struct src_file *f)
{
	struct file_rows rows = { 0 };
	uint32_t *v = NULL;
	size_t n = 0, cap = 0, k = 0;
	int rc = 0;

	for (size_t r = 0; r < f->nrefs && !rc; r++) {
		const struct src_module *m = &s->mods[f->refs[r].module];
		struct unit u;

		if (!unit_open(m->dw, f->refs[r].cu, &u) || (rc = rows_of(&u, f->path, &rows)))
			continue;
		if (base_grow((void **)&v, &cap, n + rows.n, sizeof(*v))) {
			rc = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < rows.n; i++)
			v[n++] = rows.v[i].line;
	}
	free(rows.v);
	if (rc) {
		free(v);
		return rc;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	if (k)
		base_shrink((void **)&v, &cap, k, sizeof(*v));
	f->lines = v;
	f->nlines = k;
	f->lines_read = true;
	return 0;
}

int gs_sources_lines(struct gs_sources *s, size_t i, const uint32_t **lines, size_t *n,
		     struct gs_error *err)
{
	int rc;

	*lines = NULL;
	*n = 0;
	if (i >= s->nfiles)
		return gs_errorf(err, -EINVAL, "source file %zu of %zu: no such file; take an index "
				 "below gs_sources_count()", i, s->nfiles);
	if (!s->files[i]->lines_read && (rc = read_lines(s, s->files[i])))
		return gs_errorf(err, rc, "out of memory reading the lines of %s",
				 s->files[i]->path);
	*lines = s->files[i]->lines;
	*n = s->files[i]->nlines;
	return 0;
}

/* ---- functions ---- */

/* The functions of one unit with code, and the qualified names of the
 * declarations inside namespaces and classes their definitions point to
 * (DW_AT_specification, DW_AT_abstract_origin). */
struct decl {
	Dwarf_Off off;
	const char *qualified;
};

struct def {
	Dwarf_Die die; /* of the unit's Dwarf or its split unit's */
	const char *qualified; /* from its own scopes, or NULL */
};

struct unit_funcs {
	struct gs_arena **arena;
	struct decl *decls;
	size_t ndecls, decls_cap;
	struct def *defs;
	size_t ndefs, defs_cap;
	size_t dies;
};

static bool is_scope(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

static bool has_code(Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;

	return !dwarf_hasattr(die, DW_AT_declaration) && dwarf_ranges(die, 0, &base, &lo, &hi) > 0;
}

/* prefix + name ("ns::Class::" + "method"); NULL when either is missing. */
static const char *qualify(struct gs_arena **a, const char *prefix, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);

	if (!prefix || !name)
		return NULL;
	return base_arena_format(a, "%s%s", prefix, name);
}

static int walk(struct unit_funcs *w, Dwarf_Die *parent, const char *prefix, unsigned depth)
{
	Dwarf_Die c;
	int rc = 0;

	if (depth > MAX_DEPTH || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (++w->dies > MAX_DIES)
			return 0;
		if (is_scope(tag)) {
			const char *name = dwarf_diename(&c);
			const char *inner = base_arena_format(w->arena, "%s%s::", prefix ? prefix : "",
							      name ? name : "(anonymous namespace)");

			if (!inner)
				return -ENOMEM;
			rc = walk(w, &c, inner, depth + 1);
		} else if (tag == DW_TAG_subprogram && has_code(&c)) {
			if (base_grow((void **)&w->defs, &w->defs_cap, w->ndefs + 1, sizeof(*w->defs)))
				return -ENOMEM;
			w->defs[w->ndefs++] = (struct def){ c,
							    qualify(w->arena, prefix, &c) };
			rc = walk(w, &c, prefix, depth + 1); /* nested functions */
		} else if (tag == DW_TAG_subprogram && prefix) {
			const char *q = qualify(w->arena, prefix, &c);

			if (q && base_grow((void **)&w->decls, &w->decls_cap, w->ndecls + 1,
					   sizeof(*w->decls)))
				return -ENOMEM;
			if (q)
				w->decls[w->ndecls++] = (struct decl){ dwarf_dieoffset(&c), q };
		}
	} while (!rc && dwarf_siblingof(&c, &c) == 0);
	return rc;
}

static int cmp_decl(const void *a, const void *b)
{
	Dwarf_Off x = ((const struct decl *)a)->off, y = ((const struct decl *)b)->off;

	return x < y ? -1 : x > y;
}

static const char *decl_name(const struct unit_funcs *w, Dwarf_Off off)
{
	struct decl key = { .off = off };
	const struct decl *d = w->ndecls ? bsearch(&key, w->decls, w->ndecls, sizeof(key), cmp_decl)
					 : NULL;

	return d ? d->qualified : NULL;
}

/* A C++ or Rust linkage name demangled (without its parameters, as frames
 * show functions), else as it is; NULL when there is none. */
static const char *linkage_name(struct gs_arena **a, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	char *d;
	const char *out;

	if (!raw)
		raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	if (!raw || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return raw;
	if (!(d = cplus_demangle(raw, DMGL_AUTO | DMGL_ANSI)))
		return raw;
	out = base_arena_strdup(a, d);
	free(d);
	return out;
}

/* A definition's name: qualified by its own scopes or those of the
 * declaration it completes, else its DWARF name, else its linkage name
 * demangled. */
static const char *def_name(const struct unit_funcs *w, const struct def *d)
{
	Dwarf_Die die = d->die, next = die;
	const char *name;

	if (d->qualified)
		return d->qualified;
	for (unsigned k = 0; k < MAX_LINKS; k++) {
		Dwarf_Attribute at;

		if (!dwarf_attr(&next, DW_AT_specification, &at) &&
		    !dwarf_attr(&next, DW_AT_abstract_origin, &at))
			break;
		if (!dwarf_formref_die(&at, &next))
			break;
		if ((name = decl_name(w, dwarf_dieoffset(&next))))
			return name;
	}
	if ((name = dwarf_diename(&die)))
		return name;
	return linkage_name(w->arena, &die);
}

/* The first row at or after addr (the rows are in address order). */
static size_t first_row_at(const struct file_rows *rows, uint64_t addr)
{
	size_t lo = 0, hi = rows->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The lines of the rows in die's ranges: false when there are none. */
static bool def_span(Dwarf_Die *die, const struct file_rows *rows, uint32_t *first, uint32_t *last)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	unsigned nranges = 0;

	*first = UINT32_MAX;
	*last = 0;
	while (nranges++ < 4096 && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		for (size_t i = first_row_at(rows, lo); i < rows->n && rows->v[i].addr < hi; i++) {
			if (rows->v[i].line < *first)
				*first = rows->v[i].line;
			if (rows->v[i].line > *last)
				*last = rows->v[i].line;
		}
	return *last != 0;
}

static int add_func(struct src_file *f, size_t *cap, const char *name, uint32_t first,
		    uint32_t last)
{
	if (base_grow((void **)&f->funcs, cap, f->nfuncs + 1, sizeof(*f->funcs)))
		return -ENOMEM;
	f->funcs[f->nfuncs++] = (struct src_func){ name, first, last };
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct src_func *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One function in two units (a header's inline one) is listed once. */
static void funcs_unique(struct src_file *f)
{
	size_t k = 0;

	if (!f->nfuncs)
		return;
	qsort(f->funcs, f->nfuncs, sizeof(*f->funcs), cmp_func);
	for (size_t i = 0; i < f->nfuncs; i++)
		if (k == 0 || cmp_func(&f->funcs[k - 1], &f->funcs[i]) != 0)
			f->funcs[k++] = f->funcs[i];
	f->nfuncs = k;
}

/* The DIE whose children are the unit's functions: a skeleton unit's
 * split unit (its .dwo), else the unit's own. */
static Dwarf_Die unit_root(const struct unit *u)
{
	Dwarf_Die sub = { 0 };
	uint8_t type;

	if (dwarf_cu_info(u->die.cu, NULL, &type, NULL, &sub, NULL, NULL, NULL) == 0 &&
	    type == DW_UT_skeleton && sub.addr)
		return sub;
	return u->die;
}

static int unit_funcs(struct gs_sources *s, struct src_file *f, size_t *cap,
		      const struct unit *u, const struct file_rows *rows)
{
	struct unit_funcs w = { .arena = &s->arena };
	Dwarf_Die root = unit_root(u);
	int rc = walk(&w, &root, NULL, 0);

	if (w.ndecls)
		qsort(w.decls, w.ndecls, sizeof(*w.decls), cmp_decl);
	for (size_t i = 0; i < w.ndefs && !rc; i++) {
		uint32_t first, last;
		const char *name;

		if (!def_span(&w.defs[i].die, rows, &first, &last) ||
		    !(name = def_name(&w, &w.defs[i])))
			continue;
		rc = add_func(f, cap, name, first, last);
	}
	free(w.decls);
	free(w.defs);
	return rc;
}

static int read_funcs(struct gs_sources *s, struct src_file *f)
{
	struct file_rows rows = { 0 };
	size_t cap = 0;
	int rc = 0;

	for (size_t r = 0; r < f->nrefs && !rc; r++) {
		const struct src_module *m = &s->mods[f->refs[r].module];
		struct unit u;

		if (!unit_open(m->dw, f->refs[r].cu, &u) || (rc = rows_of(&u, f->path, &rows)) ||
		    !rows.n)
			continue;
		rc = unit_funcs(s, f, &cap, &u, &rows);
	}
	free(rows.v);
	funcs_unique(f);
	f->funcs_read = true; /* on ENOMEM, with the functions read so far */
	return rc;
}

const char *gs_sources_function_at(struct gs_sources *s, size_t i, uint32_t line,
				   uint32_t *first, uint32_t *last)
{
	const struct src_func *best = NULL;
	struct src_file *f;

	if (i >= s->nfiles)
		return NULL;
	f = s->files[i];
	if (!f->funcs_read && read_funcs(s, f))
		return NULL;
	for (size_t k = 0; k < f->nfuncs; k++) {
		const struct src_func *fn = &f->funcs[k];

		if (fn->first <= line && line <= fn->last &&
		    (!best || fn->last - fn->first < best->last - best->first))
			best = fn;
	}
	if (!best)
		return NULL;
	if (first)
		*first = best->first;
	if (last)
		*last = best->last;
	return best->name;
}
