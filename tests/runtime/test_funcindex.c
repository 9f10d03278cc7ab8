/* The function-name index answers exactly as the walk of every unit it
 * stands for: the same DIEs for every name, in the same order, hence the
 * same locations (definitions past the prologue, entries, every inline
 * instance, same-named static functions of different units), on the
 * fixtures and on libpython and libc; and the copy kept on disk by build id
 * is the same index, refused when it is not of that DWARF or damaged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/modfile.h>
#include <gs/runtime.h>

#include "base.h"
#include "rt_fixture.h"
#include "dwv_int.h"     /* dwv_function_locs */
#include "gdbview.h"     /* the view it reads DWARF through */
#include <gs/internal/dwarf.h> /* struct dwv_loc */
#include "mf_int.h"      /* the index */

/* ---- the reference: the walk itself ---------------------------------------- */

struct die_ref {
	const char *name;
	uint64_t off;
	size_t seq;
};

struct walk {
	struct die_ref *v;
	size_t n, cap;
};

static int collect(Dwarf_Die *die, void *arg)
{
	struct walk *w = arg;
	const char *name = dwarf_diename(die);

	if (!name)
		return DWARF_CB_OK;
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->v = realloc(w->v, w->cap * sizeof(*w->v));
		assert_non_null(w->v);
	}
	w->v[w->n] = (struct die_ref){ name, dwarf_dieoffset(die), w->n };
	w->n++;
	return DWARF_CB_OK;
}

static int by_name(const void *a, const void *b)
{
	const struct die_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Every name's DIEs in the index are the walk's DIEs of that name, in walk
 * order, and the index has no other name. Returns how many names. */
static size_t check_same_dies(Dwarf *dw, const struct mf_funcindex *x)
{
	struct walk w = { 0 };
	size_t k = 0, names = 0;

	assert_int_equal(mf_funcindex_walk(dw, collect, &w), 0);
	qsort(w.v, w.n, sizeof(*w.v), by_name);
	while (k < w.n) {
		const uint64_t *offs;
		size_t n = mf_funcindex_find(x, w.v[k].name, &offs), i = 0;

		for (; k + i < w.n && strcmp(w.v[k + i].name, w.v[k].name) == 0; i++) {
			if (i >= n || offs[i] != w.v[k + i].off)
				fail_msg("`%s`: the index's DIE %zu is not the walk's (0x%llx)",
					 w.v[k].name, i, (unsigned long long)w.v[k + i].off);
		}
		if (i != n)
			fail_msg("`%s`: %zu DIEs in the index, %zu in the walk", w.v[k].name, n, i);
		names++;
		k += i;
	}
	assert_int_equal(names, mf_funcindex_count(x));
	free(w.v);
	return names;
}

static void free_locs(struct dwv_loc *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].function);
	free(v);
}

/* The locations of name through the index equal those of the walk. */
static void check_same_locs(Dwarf *dw, uint64_t bias, const struct mf_funcindex *x,
			    const char *name)
{
	for (int entry = 0; entry < 2; entry++) {
		struct dwv_loc *a, *b;
		struct gv_view v;
		size_t na, nb;
		bool da, db;

		gv_view_init(&v, dw, NULL, bias);
		assert_int_equal(dwv_function_locs(&v, x, bias, name, entry, &a, &na, &da), 0);
		assert_int_equal(dwv_function_locs(&v, NULL, bias, name, entry, &b, &nb, &db),
				 0);
		gv_view_free(&v);
		if (na != nb || da != db)
			fail_msg("`%s`: %zu locations through the index, %zu through the walk",
				 name, na, nb);
		for (size_t i = 0; i < na; i++)
			if (a[i].addr != b[i].addr || a[i].inlined != b[i].inlined ||
			    a[i].from_dwarf != b[i].from_dwarf || a[i].line != b[i].line)
				fail_msg("`%s`: location %zu is 0x%llx through the index, 0x%llx "
					 "through the walk", name, i, (unsigned long long)a[i].addr,
					 (unsigned long long)b[i].addr);
		free_locs(a, na);
		free_locs(b, nb);
	}
}

struct module {
	struct gs_modfiles *files;
	struct gs_modfile *file;
	Dwarf *dw;
	uint64_t bias;
	const struct mf_funcindex *x;
	bool from_disk;
};

static void open_module(const char *path, const char *cache_dir, struct module *m)
{
	struct gs_modfiles_opts o = { .sz = sizeof(o), .cfi_cache_dir = cache_dir };
	struct gs_error err;

	memset(m, 0, sizeof(*m));
	assert_int_equal(gs_modfiles_new(&o, &m->files, &err), 0);
	if (gs_modfile_open(m->files, path, &m->file, &err))
		fail_msg("%s", err.msg);
	m->dw = gs_modfile_dwarf(m->file, &m->bias);
	assert_non_null(m->dw);
	assert_int_equal(mf_modfile_funcs(m->file, &m->x, &m->from_disk), 0);
}

/* ---- fixtures ------------------------------------------------------------------ */

static void check_fixture(const char *name)
{
	char path[PATH_MAX];
	struct module m;

	rt_path(name, path, sizeof(path));
	open_module(path, NULL, &m);
	check_same_dies(m.dw, m.x);
	for (size_t i = 0; i < mf_funcindex_count(m.x); i++) {
		const uint64_t *offs;
		size_t n;

		check_same_locs(m.dw, m.bias, m.x, mf_funcindex_at(m.x, i, &offs, &n));
	}
	gs_modfiles_free(m.files);
}

static size_t count_of(const struct mf_funcindex *x, const char *name)
{
	const uint64_t *offs;

	return mf_funcindex_find(x, name, &offs);
}

static void test_index_answers_as_the_walk_on_fixtures(void **state)
{
	static const char *const fixtures[] = {
		"fx_names_O0", "fx_names_O2", "fx_names_dwarf4", "fx_names_clang",
		"rt_loop", "rt_loop_O0", "rt_loop_nopie", "librt_lib.so", "librt_dl.so",
	};
	char path[PATH_MAX];
	struct module m;

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(fixtures); i++)
		check_fixture(fixtures[i]);
	/* what the fixture is there for: two static helpers, the inline
	 * function's abstract DIE in each unit, the nested function */
	rt_path("fx_names_O2", path, sizeof(path));
	open_module(path, NULL, &m);
	assert_int_equal(count_of(m.x, "helper"), 2);
	assert_int_equal(count_of(m.x, "fx_twice"), 2);
	assert_int_equal(count_of(m.x, "nested"), 1);
	assert_int_equal(count_of(m.x, "no_such_function"), 0);
	gs_modfiles_free(m.files);
}

/* ---- large modules ---------------------------------------------------------------- */

/* pyenv's global python's libpython (its `version` file, as the values
 * benchmark uses), else the last one installed; false when none. */
static bool find_libpython(char *out, size_t size)
{
	const char *root = getenv("PYENV_ROOT") ? getenv("PYENV_ROOT") : "/root/.pyenv";
	char pattern[512], version[64] = "3.*";
	FILE *f;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/version", root);
	if ((f = fopen(pattern, "r"))) {
		if (fscanf(f, "%63s", version) != 1 || strncmp(version, "3.", 2) != 0)
			snprintf(version, sizeof(version), "3.*");
		fclose(f);
	}
	snprintf(pattern, sizeof(pattern), "%s/versions/%s/lib/libpython3.*.so.1.0", root,
		 version);
	if (glob(pattern, 0, NULL, &g) != 0)
		return false;
	snprintf(out, size, "%s", g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return access(out, R_OK) == 0;
}

/* The DIEs of every name; the locations of the names with the most DIEs
 * (inline functions, same-named statics), of a spread of others, and of
 * `extra`. */
static void check_large(const char *path, const char *const *extra)
{
	const char *most[8] = { 0 };
	size_t most_n[8] = { 0 }, nnames;
	struct module m;

	open_module(path, NULL, &m);
	nnames = check_same_dies(m.dw, m.x);
	print_message("# %s: %zu names, the same DIEs as the walk\n", path, nnames);
	for (size_t i = 0; i < nnames; i++) {
		const uint64_t *offs;
		size_t n, k = 8;
		const char *name = mf_funcindex_at(m.x, i, &offs, &n);

		while (k > 0 && n > most_n[k - 1])
			k--;
		if (k < 8) {
			memmove(&most[k + 1], &most[k], (7 - k) * sizeof(*most));
			memmove(&most_n[k + 1], &most_n[k], (7 - k) * sizeof(*most_n));
			most[k] = name;
			most_n[k] = n;
		}
	}
	for (size_t i = 0; i < 4 && most[i]; i++)
		check_same_locs(m.dw, m.bias, m.x, most[i]);
	for (size_t i = 0; i < nnames; i += nnames / 8 + 1) {
		const uint64_t *offs;
		size_t n;

		check_same_locs(m.dw, m.bias, m.x, mf_funcindex_at(m.x, i, &offs, &n));
	}
	for (size_t i = 0; extra[i]; i++) {
		assert_true(count_of(m.x, extra[i]) > 0);
		check_same_locs(m.dw, m.bias, m.x, extra[i]);
	}
	gs_modfiles_free(m.files);
}

static void test_index_answers_as_the_walk_on_libpython_and_libc(void **state)
{
	static const char *const py[] = { "insertdict", "PyDict_SetItem", NULL };
	static const char *const libc[] = { "__libc_malloc", "__memcpy_avx_unaligned_erms", NULL };
	struct gs_modfiles *files;
	struct gs_modfile *file;
	struct gs_error err;
	char path[PATH_MAX];
	bool any = false;

	(void)state;
	if (find_libpython(path, sizeof(path))) {
		check_large(path, py);
		any = true;
	}
	/* libc's DWARF is in its debug package (libc6-dbg), found by build id */
	assert_int_equal(gs_modfiles_new(NULL, &files, &err), 0);
	if (gs_modfile_open(files, "/lib/x86_64-linux-gnu/libc.so.6", &file, &err) == 0 &&
	    gs_modfile_dwarf(file, NULL)) {
		check_large("/lib/x86_64-linux-gnu/libc.so.6", libc);
		any = true;
	}
	gs_modfiles_free(files);
	if (!any)
		skip(); /* why: neither a pyenv libpython nor libc6-dbg is installed */
}

/* ---- on disk ---------------------------------------------------------------------- */

static void same_index(const struct mf_funcindex *a, const struct mf_funcindex *b)
{
	assert_int_equal(mf_funcindex_count(a), mf_funcindex_count(b));
	for (size_t i = 0; i < mf_funcindex_count(a); i++) {
		const uint64_t *oa, *ob;
		size_t na, nb;

		assert_string_equal(mf_funcindex_at(a, i, &oa, &na), mf_funcindex_at(b, i, &ob, &nb));
		assert_int_equal(na, nb);
		assert_memory_equal(oa, ob, na * sizeof(*oa));
	}
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	free(rt_run(cmd));
}

/* Opens path with the cache at dir: whether its index came from there,
 * and that it is the index built from its DWARF. */
static bool loaded_from(const char *dir, const char *path)
{
	struct module m, fresh;
	struct mf_funcindex *built;
	bool from_disk;

	open_module(path, dir, &m);
	open_module(path, NULL, &fresh);
	assert_int_equal(mf_funcindex_build(fresh.dw, &built), 0);
	same_index(m.x, built);
	same_index(fresh.x, built);
	from_disk = m.from_disk;
	mf_funcindex_free(built);
	gs_modfiles_free(fresh.files);
	gs_modfiles_free(m.files);
	return from_disk;
}

/* <dir>/<build id of path>.funcs */
static void cache_file(const char *dir, const char *path, char *out, size_t size)
{
	struct gs_modfiles *files;
	struct gs_modfile *file;
	const struct gs_module_id *id;
	size_t n;

	assert_int_equal(gs_modfiles_new(NULL, &files, NULL), 0);
	assert_int_equal(gs_modfile_open(files, path, &file, NULL), 0);
	id = gs_modfile_id(file);
	assert_true(id->build_id_len > 0);
	n = (size_t)snprintf(out, size, "%s/", dir);
	for (size_t i = 0; i < id->build_id_len; i++)
		n += (size_t)snprintf(out + n, size - n, "%02x", id->build_id[i]);
	snprintf(out + n, size - n, ".funcs");
	gs_modfiles_free(files);
}

static void test_index_on_disk_is_the_same_and_refused_when_not_of_that_dwarf(void **state)
{
	char dir[] = "/tmp/gs-funcs-cache-XXXXXX", a[PATH_MAX], b[PATH_MAX];
	char fa[PATH_MAX + 160], fb[PATH_MAX + 160], copy[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	rt_path("fx_names_O2", a, sizeof(a));
	rt_path("fx_names_O0", b, sizeof(b));
	assert_false(loaded_from(dir, a)); /* built, then written */
	cache_file(dir, a, fa, sizeof(fa));
	assert_int_equal(access(fa, R_OK), 0);
	assert_true(loaded_from(dir, a));

	/* cut short: refused, built and written again */
	run("truncate -s 200 %s", fa);
	assert_false(loaded_from(dir, a));
	assert_true(loaded_from(dir, a));
	/* the last name loses its NUL: malformed, refused */
	run("printf A | dd of=%s bs=1 seek=$(($(stat -c %%s %s) - 1)) conv=notrunc 2>/dev/null",
	    fa, fa);
	assert_false(loaded_from(dir, a));
	/* a copy whose DWARF changed after the link, its build id kept: the
	 * index of the original is refused for it, and then written for it */
	assert_true(loaded_from(dir, a));
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	run("cp %s %s && sed -i s/fx_twice/fx_twicf/g %s", a, copy, copy);
	assert_false(loaded_from(dir, copy));
	assert_true(loaded_from(dir, copy));
	assert_false(loaded_from(dir, a));
	/* another DWARF's index under this build id: its sections' hash differs */
	assert_false(loaded_from(dir, b));
	cache_file(dir, a, fa, sizeof(fa));
	cache_file(dir, b, fb, sizeof(fb));
	run("cp %s %s", fb, fa);
	assert_false(loaded_from(dir, a));
	assert_true(loaded_from(dir, a));
	run("rm -rf %s", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_answers_as_the_walk_on_fixtures),
		cmocka_unit_test(test_index_answers_as_the_walk_on_libpython_and_libc),
		cmocka_unit_test(test_index_on_disk_is_the_same_and_refused_when_not_of_that_dwarf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
