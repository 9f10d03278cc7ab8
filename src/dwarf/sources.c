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

#include "sources_int.h"

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

bool src_unit_open(Dwarf *dw, Dwarf_Off off, struct unit *u)
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

int src_rows_of(const struct unit *u, const char *path, struct file_rows *out)
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
		    !src_unit_open(dw, dwarf_dieoffset(&cudie), &u))
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

struct path_key {
	const struct gs_sources *s;
	const char *path;
};

static bool path_before(const void *ctx, size_t i)
{
	const struct path_key *k = ctx;

	return strcmp(k->s->files[i]->path, k->path) < 0;
}

/* The index of the file whose path is path, or -1 (the list is sorted). */
static long find_exact(const struct gs_sources *s, const char *path)
{
	struct path_key k = { s, path };
	size_t i = base_lower_bound(0, s->nfiles, &k, path_before);

	return i < s->nfiles && !strcmp(s->files[i]->path, path) ? (long)i : -1;
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

		if (!src_unit_open(m->dw, f->refs[r].cu, &u) || (rc = src_rows_of(&u, f->path, &rows)))
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
