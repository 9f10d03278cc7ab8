/* The source-file index (gs/sources.h) on the fixtures: the fixture's .c
 * file is listed by the absolute path it was compiled as and found by its
 * name; its lines with code are exactly the statement rows objdump's own
 * DWARF reader decodes for it (no libdw); a line inside a function gives
 * that function and its span; a C++ method is named with its namespace and
 * class; a header with code is a file; split DWARF gives its functions;
 * a module without DWARF adds nothing, and one whose DWARF does not read
 * is an error that names it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>
#include <gelf.h>

#include <gs/sources.h>

#include "base.h"
#include "dwv_int.h"

/* The variants checked: every one the build made (tests/dwarf/meson.build:
 * gcc -O0 to -O3 and clang -O2, DWARF 4 and 5, a .debug_types section). */
static const char *variants[32];
static size_t nvariants;

static int setup(void **state)
{
	static char buf[1024];
	const char *env = getenv("GS_DWARF_VARIANTS");

	(void)state;
	snprintf(buf, sizeof(buf), "%s", env ? env : "");
	for (char *v = strtok(buf, " "); v && nvariants < 32; v = strtok(NULL, " "))
		variants[nvariants++] = v;
	return nvariants ? 0 : -1;
}

struct loaded {
	struct gs_modfiles *files;
	struct gs_sources *s;
};

static void fixture_path(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("GS_DWARF_FIXTURES");

	snprintf(buf, size, "%s/%s", dir ? dir : ".", name);
}

/* false when the build did not make this fixture (no clang). */
static bool load(struct loaded *l, const char *name)
{
	char path[PATH_MAX];
	struct gs_modfile *m;
	struct gs_error err;
	FILE *f;

	fixture_path(path, sizeof(path), name);
	if (!(f = fopen(path, "rb")))
		return false;
	fclose(f);
	assert_int_equal(gs_modfiles_new(NULL, &l->files, &err), 0);
	assert_int_equal(gs_modfile_open(l->files, path, &m, &err), 0);
	assert_int_equal(gs_sources_new(&l->s, &err), 0);
	if (gs_sources_add_module(l->s, m, &err))
		fail_msg("%s: %s", path, err.msg);
	return true;
}

static void unload(struct loaded *l)
{
	gs_sources_free(l->s);
	gs_modfiles_free(l->files);
}

/* The line of the fixture source that holds `text` (1-based), or 0. */
static uint32_t line_of(const char *file, const char *text)
{
	char path[PATH_MAX], buf[512];
	uint32_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/dwarf/fixtures/%s", getenv("GS_SOURCE_DIR"), file);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, text)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The statement lines of `base` in the fixture, as objdump decodes its
 * line table: rows "NAME LINE 0xADDR [VIEW] x" whose NAME is base or ends
 * in "/" base. Sorted, unique. */
static uint32_t *objdump_lines(const char *fixture, const char *base, size_t *n)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64], row[1024];
	uint32_t *v = calloc(1 << 16, sizeof(*v));
	size_t k = 0, bl = strlen(base);
	FILE *p;

	*n = 0;
	fixture_path(path, sizeof(path), fixture);
	snprintf(cmd, sizeof(cmd), "objdump --dwarf=decodedline '%s' 2>/dev/null", path);
	assert_non_null(v);
	if (!(p = popen(cmd, "r")))
		return v;
	while (fgets(row, sizeof(row), p) && *n < (1 << 16)) {
		char name[512], addr[64], *last;
		unsigned long line;
		size_t nl;

		if (sscanf(row, "%511s %lu %63s", name, &line, addr) != 3 || strncmp(addr, "0x", 2) ||
		    line == 0)
			continue;
		nl = strlen(name);
		if (!(nl == bl || (nl > bl && name[nl - bl - 1] == '/')) ||
		    strcmp(name + nl - bl, base) != 0)
			continue;
		row[strcspn(row, "\n")] = '\0';
		last = strrchr(row, ' ');
		if (last && strcmp(last, " x") == 0)
			v[(*n)++] = (uint32_t)line;
	}
	pclose(p);
	qsort(v, *n, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < *n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*n = k;
	return v;
}

static void test_fixture_source_is_listed_by_its_compiled_path(void **state)
{
	char want[PATH_MAX], real[PATH_MAX];

	(void)state;
	snprintf(want, sizeof(want), "%s/tests/dwarf/fixtures/vals.c", getenv("GS_SOURCE_DIR"));
	assert_non_null(realpath(want, real));
	for (size_t v = 0; v < nvariants; v++) {
		struct loaded l;
		long i;

		if (!load(&l, variants[v]))
			continue;
		i = gs_sources_find(l.s, "vals.c");
		assert_true(i >= 0);
		assert_string_equal(gs_sources_path(l.s, (size_t)i), real);
		assert_int_equal(gs_sources_find(l.s, real), i);
		assert_int_equal(gs_sources_find(l.s, "fixtures/vals.c"), i);
		assert_int_equal(gs_sources_find(l.s, "als.c"), -1);
		assert_non_null(strstr(gs_sources_module(l.s, (size_t)i), variants[v]));
		for (size_t k = 1; k < gs_sources_count(l.s); k++)
			assert_true(strcmp(gs_sources_path(l.s, k - 1), gs_sources_path(l.s, k)) < 0);
		unload(&l);
	}
}

static void test_lines_are_the_statement_rows_objdump_decodes(void **state)
{
	uint32_t call = line_of("vals.c", "sink(r, total);");

	(void)state;
	assert_true(call > 0);
	for (size_t v = 0; v < nvariants; v++) {
		const uint32_t *lines;
		uint32_t *want;
		struct loaded l;
		size_t n, nwant;
		long i;

		if (!load(&l, variants[v]))
			continue;
		i = gs_sources_find(l.s, "vals.c");
		assert_true(i >= 0);
		assert_int_equal(gs_sources_lines(l.s, (size_t)i, &lines, &n, NULL), 0);
		assert_non_null(bsearch(&call, lines, n, sizeof(*lines), cmp_u32));
		want = objdump_lines(variants[v], "vals.c", &nwant);
		assert_true(nwant > 0);
		assert_int_equal(n, nwant);
		assert_memory_equal(lines, want, n * sizeof(*lines));
		free(want);
		unload(&l);
	}
}

static void test_line_gives_the_function_it_is_in(void **state)
{
	uint32_t call = line_of("vals.c", "sink(r, total);");
	uint32_t head = line_of("vals.c", "int use_record(record_t *r, int scale)");
	uint32_t end = line_of("vals.c", "return total + s_points[1].y;") + 1;

	(void)state;
	for (size_t v = 0; v < nvariants; v++) {
		uint32_t first = 0, last = 0;
		struct loaded l;
		const char *fn;
		long i;

		if (!load(&l, variants[v]))
			continue;
		i = gs_sources_find(l.s, "vals.c");
		fn = gs_sources_function_at(l.s, (size_t)i, call, &first, &last);
		assert_non_null(fn);
		assert_string_equal(fn, "use_record");
		assert_true(head <= first && first <= call);
		assert_true(call <= last && last <= end);
		assert_null(gs_sources_function_at(l.s, (size_t)i, 1, &first, &last));
		unload(&l);
	}
}

static void test_split_dwarf_functions_are_read_from_the_dwo(void **state)
{
	uint32_t call = line_of("vals.c", "sink(r, total);"), first, last;
	const uint32_t *lines;
	struct loaded l;
	size_t n;
	long i;

	(void)state;
	assert_true(load(&l, "vals_split"));
	assert_true((i = gs_sources_find(l.s, "vals.c")) >= 0);
	assert_int_equal(gs_sources_lines(l.s, (size_t)i, &lines, &n, NULL), 0);
	assert_non_null(bsearch(&call, lines, n, sizeof(*lines), cmp_u32));
	assert_string_equal(gs_sources_function_at(l.s, (size_t)i, call, &first, &last),
			    "use_record");
	unload(&l);
}

static void test_cpp_method_is_qualified_and_header_code_is_a_file(void **state)
{
	uint32_t body = line_of("sources_fix.cc", "return twice(w) * h;");
	uint32_t twice = line_of("sources_fix.h", "return x * 2;");
	const uint32_t *lines;
	uint32_t first, last;
	struct loaded l;
	size_t n;
	long cc, h;

	(void)state;
	if (!load(&l, "sources_fix"))
		skip();
	cc = gs_sources_find(l.s, "sources_fix.cc");
	h = gs_sources_find(l.s, "sources_fix.h");
	assert_true(cc >= 0 && h >= 0);
	assert_string_equal(gs_sources_function_at(l.s, (size_t)cc, body, &first, &last),
			    "geo::Box::area");
	assert_string_equal(gs_sources_function_at(l.s, (size_t)h, twice, &first, &last),
			    "geo::twice");
	assert_int_equal(gs_sources_lines(l.s, (size_t)h, &lines, &n, NULL), 0);
	assert_non_null(bsearch(&twice, lines, n, sizeof(*lines), cmp_u32));
	unload(&l);
}

static void test_paths_join_comp_dir_and_normalize(void **state)
{
	static const struct {
		const char *comp_dir, *name, *want;
	} cases[] = {
		{ "/build", "../src/a.c", "/src/a.c" },
		{ "/build", "/usr/include/stdio.h", "/usr/include/stdio.h" },
		{ NULL, "a/./b/../c", "a/c" },
		{ "/w/", "x//y/./z.c", "/w/x/y/z.c" },
		{ "/", "../../a.c", "/a.c" },
		{ "rel", "../../a.c", "../a.c" },
		{ NULL, "../x/../../a.c", "../../a.c" },
		{ "/a/b", ".", "/a/b" },
		{ NULL, "./", "." },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		assert_true(dwv_src_path(cases[i].comp_dir, cases[i].name, out, sizeof(out)) > 0);
		assert_string_equal(out, cases[i].want);
	}
	assert_int_equal(dwv_src_path("/a", "bcdef", out, 4), -ENAMETOOLONG);
}

/* A fixture's bytes with the version of its first unit's header made
 * one no reader knows. */
static char *image_with_bad_unit(const char *name, size_t *len)
{
	char path[PATH_MAX];
	Elf_Scn *scn = NULL;
	char *img;
	FILE *f;
	Elf *elf;

	fixture_path(path, sizeof(path), name);
	assert_non_null(f = fopen(path, "rb"));
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	assert_non_null(img = malloc(*len));
	assert_int_equal(fread(img, 1, *len, f), *len);
	fclose(f);
	elf_version(EV_CURRENT);
	assert_non_null(elf = elf_memory(img, *len));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		size_t shstrndx;
		const char *sname;

		assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
		if (gelf_getshdr(scn, &sh) && (sname = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(sname, ".debug_info") == 0) {
			img[sh.sh_offset + 4] = 0x7f; /* after the 32-bit unit length */
			img[sh.sh_offset + 5] = 0;
		}
	}
	elf_end(elf);
	return img;
}

static void test_dwarf_that_does_not_read_is_einval_naming_the_module(void **state)
{
	struct gs_sources *s;
	struct gs_error err;
	size_t len;
	char *img = image_with_bad_unit("vals_gcc_O0_dw5", &len);
	Elf *elf = elf_memory(img, len);
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);

	(void)state;
	assert_non_null(dw);
	assert_int_equal(gs_sources_new(&s, NULL), 0);
	assert_int_equal(dwv_sources_add_dwarf(s, dw, "/x/broken.so", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/x/broken.so"));
	assert_int_equal(gs_sources_count(s), 0);
	gs_sources_free(s);
	dwarf_end(dw);
	elf_end(elf);
	free(img);
}

static void test_module_without_dwarf_adds_nothing(void **state)
{
	struct loaded l;

	(void)state;
	assert_true(load(&l, "vals_stripped"));
	assert_int_equal(gs_sources_count(l.s), 0);
	assert_int_equal(gs_sources_find(l.s, "vals.c"), -1);
	unload(&l);
}

static void test_two_modules_share_a_file_once(void **state)
{
	char path[PATH_MAX];
	struct gs_modfile *a, *b;
	struct loaded l;
	size_t n;

	(void)state;
	assert_true(load(&l, "vals_gcc_O0_dw5"));
	n = gs_sources_count(l.s);
	fixture_path(path, sizeof(path), "vals_gcc_O2_dw4");
	assert_int_equal(gs_modfile_open(l.files, path, &b, NULL), 0);
	assert_int_equal(gs_sources_add_module(l.s, b, NULL), 0);
	fixture_path(path, sizeof(path), "vals_gcc_O0_dw5");
	assert_int_equal(gs_modfile_open(l.files, path, &a, NULL), 0);
	/* vals.c once, and its first module the one added first */
	assert_int_equal(gs_sources_count(l.s), n);
	assert_string_equal(gs_sources_module(l.s, (size_t)gs_sources_find(l.s, "vals.c")),
			    gs_modfile_path(a));
	unload(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_source_is_listed_by_its_compiled_path),
		cmocka_unit_test(test_lines_are_the_statement_rows_objdump_decodes),
		cmocka_unit_test(test_line_gives_the_function_it_is_in),
		cmocka_unit_test(test_split_dwarf_functions_are_read_from_the_dwo),
		cmocka_unit_test(test_cpp_method_is_qualified_and_header_code_is_a_file),
		cmocka_unit_test(test_paths_join_comp_dir_and_normalize),
		cmocka_unit_test(test_module_without_dwarf_adds_nothing),
		cmocka_unit_test(test_dwarf_that_does_not_read_is_einval_naming_the_module),
		cmocka_unit_test(test_two_modules_share_a_file_once),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
