/* The module-file cache: a file is opened once whatever name reaches it; a
 * FIFO is refused without blocking; debug information read ahead on the
 * worker is what the cache answers with; and a stripped module's debug
 * information is found in each place gdb looks (debug link beside it, in
 * .debug/, under a debug root, a build-id directory, MiniDebugInfo,
 * debuginfod over file://), while a debug file whose CRC or build id does
 * not match is not used. Split fixtures are made here with objcopy from
 * the -g builds of tests/unwind/meson.build. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <gs/modfile.h>
#include <gs/unwind.h>

#include "base.h"
#include "fixtures.h"
#include "mf_int.h"

/* A function only the full symbol table has: stripped away with .symtab. */
#define FN "hot_bt_leaf"

struct tmp {
	char dir[64];
};

static const char *objcopy(void)
{
	return getenv("GS_OBJCOPY") ? getenv("GS_OBJCOPY") : "objcopy";
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

static void tmp_make(struct tmp *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/gs-modfile-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
}

static void tmp_remove(struct tmp *t)
{
	run("rm -rf '%s'", t->dir);
}

/* Splits fixture `name` into DIR/prog (stripped) and DIR/prog.debug; with
 * `link`, the stripped file carries a .gnu_debuglink to prog.debug. */
static void split(const struct tmp *t, const char *name, bool link)
{
	char src[4096];

	fx_path(name, src, sizeof(src));
	run("'%s' --only-keep-debug '%s' '%s/prog.debug'", objcopy(), src, t->dir);
	run("'%s' --strip-all '%s' '%s/prog'", objcopy(), src, t->dir);
	if (link)
		run("cd '%s' && '%s' --add-gnu-debuglink=prog.debug prog", t->dir, objcopy());
}

static bool finds_debug_as(const struct tmp *t, const char *dirs, char *where, size_t size,
			   bool prefetch);

/* Opens DIR/prog in a fresh cache (debug roots `dirs`) and reports whether
 * its DWARF and its full symbol table were found, and where; the same
 * answer when they were read ahead on the cache's worker first. */
static bool finds_debug(const struct tmp *t, const char *dirs, char *where, size_t size)
{
	char ahead[256] = "";
	bool found = finds_debug_as(t, dirs, where, size, false);

	assert_int_equal(finds_debug_as(t, dirs, ahead, sizeof(ahead), true), found);
	if (where)
		assert_string_equal(ahead, where);
	return found;
}

static bool finds_debug_as(const struct tmp *t, const char *dirs, char *where, size_t size,
			   bool prefetch)
{
	struct gs_modfiles_opts o = { .sz = sizeof(o), .debug_dirs = dirs };
	struct gs_modfiles *c;
	struct gs_modfile *m;
	struct gs_error err;
	uint64_t addr, sz, bias = 1;
	char path[128];
	bool dwarf, sym;

	snprintf(path, sizeof(path), "%s/prog", t->dir);
	assert_int_equal(gs_modfiles_new(&o, &c, &err), 0);
	if (gs_modfile_open(c, path, &m, &err))
		fail_msg("%s", err.msg);
	if (prefetch)
		gs_modfile_prefetch_debug(m);
	dwarf = gs_modfile_dwarf(m, &bias) != NULL;
	sym = gs_modfile_symbols_named(m, FN, &addr, &sz, 1) == 1;
	if (where)
		snprintf(where, size, "%s", gs_modfile_debug_path(m) ? gs_modfile_debug_path(m) : "");
	if (dwarf)
		assert_int_equal(bias, 0);
	assert_int_equal(dwarf, sym); /* one debug file gives both */
	gs_modfiles_free(c);
	return dwarf;
}

static void test_one_open_for_every_name_of_a_file(void **state)
{
	struct gs_modfiles *c;
	struct gs_modfile *a, *b, *d;
	struct tmp t;
	char src[4096], link[128];

	(void)state;
	tmp_make(&t);
	fx_path("bt_O2_nofp", src, sizeof(src));
	snprintf(link, sizeof(link), "%s/alias", t.dir);
	assert_int_equal(symlink(src, link), 0);
	assert_int_equal(gs_modfiles_new(NULL, &c, NULL), 0);
	assert_int_equal(gs_modfile_open(c, src, &a, NULL), 0);
	assert_int_equal(gs_modfile_open(c, link, &b, NULL), 0);
	assert_int_equal(gs_modfile_open(c, src, &d, NULL), 0);
	assert_ptr_equal(a, b);
	assert_ptr_equal(a, d);
	assert_int_equal(gs_modfiles_opened(c), 1);
	assert_string_equal(gs_modfile_path(a), src);
	gs_modfiles_free(c);
	tmp_remove(&t);
}

static void test_copies_with_one_build_id_share_their_cfi_rows(void **state)
{
	const struct gs_cfi_table *ta, *tb;
	struct gs_modfiles *c;
	struct gs_modfile *a, *b;
	struct tmp t;
	char src[4096], copy[128];

	(void)state;
	tmp_make(&t);
	fx_path("bt_O2_nofp", src, sizeof(src));
	snprintf(copy, sizeof(copy), "%s/copy", t.dir);
	run("cp '%s' '%s'", src, copy);
	assert_int_equal(gs_modfiles_new(NULL, &c, NULL), 0);
	assert_int_equal(gs_modfile_open(c, src, &a, NULL), 0);
	assert_int_equal(gs_modfile_open(c, copy, &b, NULL), 0);
	assert_ptr_not_equal(a, b);
	assert_int_equal(gs_modfile_id(a)->cookie, gs_modfile_id(b)->cookie);
	assert_int_equal(gs_modfile_cfi(a, &ta, NULL), 0);
	assert_int_equal(gs_modfile_cfi(b, &tb, NULL), 0);
	assert_ptr_equal(ta, tb);
	assert_true(ta->nrows > 0);
	gs_modfiles_free(c);
	tmp_remove(&t);
}

/* A file replaced after the cache opened it is not read again by the
 * prefetch: the cache answers from the file it opened. */
static void test_prefetch_reads_only_the_file_the_cache_opened(void **state)
{
	struct gs_modfiles *c;
	struct gs_modfile *m;
	struct tmp t;
	char src[4096], path[128];
	uint64_t addr, size;

	(void)state;
	tmp_make(&t);
	fx_path("bt_O2_nofp", src, sizeof(src));
	snprintf(path, sizeof(path), "%s/prog", t.dir);
	run("cp '%s' '%s'", src, path);
	assert_int_equal(gs_modfiles_new(NULL, &c, NULL), 0);
	assert_int_equal(gs_modfile_open(c, path, &m, NULL), 0);
	run("cp /bin/true '%s/new' && mv '%s/new' '%s'", t.dir, t.dir, path);
	gs_modfile_prefetch_debug(m);
	assert_non_null(gs_modfile_dwarf(m, NULL));
	assert_int_equal(gs_modfile_symbols_named(m, FN, &addr, &size, 1), 1);
	assert_int_equal(gs_modfiles_opened(c), 1);
	gs_modfiles_free(c);
	tmp_remove(&t);
}

/* Freed while the worker may still read: it is joined, nothing leaks. */
static void test_cache_freed_while_prefetching(void **state)
{
	static const char *const names[] = { "bt_O2_nofp", "bt_O0_fp", "bt_O2_fp" };
	struct gs_modfiles *c;
	struct gs_modfile *m;
	char src[4096];

	(void)state;
	assert_int_equal(gs_modfiles_new(NULL, &c, NULL), 0);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(names); i++) {
		fx_path(names[i], src, sizeof(src));
		assert_int_equal(gs_modfile_open(c, src, &m, NULL), 0);
		gs_modfile_prefetch_debug(m);
		gs_modfile_prefetch_debug(m); /* asked twice: read once */
	}
	gs_modfiles_free(c);
}

static void test_fifo_is_refused_without_blocking(void **state)
{
	struct gs_modfile_src src = { .sz = sizeof(src) };
	struct gs_modfiles *c;
	struct gs_modfile *m;
	struct gs_error err;
	struct tmp t;
	char fifo[128];

	(void)state;
	tmp_make(&t);
	snprintf(fifo, sizeof(fifo), "%s/fifo", t.dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10); /* a blocking open would hang here: fail instead */
	assert_int_equal(gs_modfiles_new(NULL, &c, NULL), 0);
	assert_int_equal(gs_modfile_open(c, fifo, &m, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "a FIFO"));
	assert_int_equal(gs_modfile_open(c, t.dir, &m, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "a directory"));
	/* Given through another name, the identity must still match. */
	src.path = "/bin/sh";
	src.open_path = "/bin/sh";
	src.ino = 1;
	assert_int_equal(gs_modfile_open_src(c, &src, &m, &err), -ESTALE);
	alarm(0);
	assert_int_equal(gs_modfiles_opened(c), 0);
	gs_modfiles_free(c);
	tmp_remove(&t);
}

/* Splits the fixture with a debug link, moves the debug file into `sub`
 * ("" or ".debug") and checks that it is the one found. */
static void link_found_in(const char *sub)
{
	char where[256], want[160];
	struct tmp t;

	tmp_make(&t);
	split(&t, "bt_O2_nofp", true);
	snprintf(want, sizeof(want), "%s/%s%sprog.debug", t.dir, sub, sub[0] ? "/" : "");
	if (sub[0])
		run("mkdir '%s/%s' && mv '%s/prog.debug' '%s'", t.dir, sub, t.dir, want);
	assert_true(finds_debug(&t, "/nonexistent", where, sizeof(where)));
	assert_string_equal(where, want);
	tmp_remove(&t);
}

static void test_debug_link_beside_the_module(void **state)
{
	(void)state;
	link_found_in("");
}

static void test_debug_link_in_the_dot_debug_directory(void **state)
{
	(void)state;
	link_found_in(".debug");
}

/* ROOT/<the module's directory>/<link>: gdb's /usr/lib/debug/usr/bin/x.debug. */
static void test_debug_link_under_a_debug_root(void **state)
{
	char root[128];
	struct tmp t;

	(void)state;
	tmp_make(&t);
	split(&t, "bt_O2_nofp", true);
	snprintf(root, sizeof(root), "%s/root", t.dir);
	run("mkdir -p '%s%s' && mv '%s/prog.debug' '%s%s/'", root, t.dir, t.dir, root, t.dir);
	assert_false(finds_debug(&t, "/nonexistent", NULL, 0));
	assert_true(finds_debug(&t, root, NULL, 0));
	tmp_remove(&t);
}

/* The build id of DIR/prog (opened in a fresh cache), and as hex. */
static void prog_build_id(const struct tmp *t, struct gs_module_id *id, char *hex)
{
	struct gs_modfiles *c;
	struct gs_modfile *m;
	char path[128];

	snprintf(path, sizeof(path), "%s/prog", t->dir);
	assert_int_equal(gs_modfiles_new(NULL, &c, NULL), 0);
	assert_int_equal(gs_modfile_open(c, path, &m, NULL), 0);
	*id = *gs_modfile_id(m);
	gs_modfiles_free(c);
	for (size_t i = 0; i < id->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id->build_id[i]);
	hex[2 * id->build_id_len] = '\0';
}

/* ROOT/.build-id/xx/rest.debug for a module with a build id and no link. */
static void test_build_id_directory_under_a_debug_root(void **state)
{
	char root[128], hex[2 * GS_BUILD_ID_MAX + 1];
	struct gs_module_id id;
	struct tmp t;

	(void)state;
	tmp_make(&t);
	split(&t, "bt_O2_nofp", false);
	prog_build_id(&t, &id, hex);
	assert_true(id.build_id_len > 1);
	snprintf(root, sizeof(root), "%s/root", t.dir);
	run("mkdir -p '%s/.build-id/%.2s' && mv '%s/prog.debug' '%s/.build-id/%.2s/%s.debug'",
	    root, hex, t.dir, root, hex, hex + 2);
	assert_false(finds_debug(&t, "/nonexistent", NULL, 0));
	assert_true(finds_debug(&t, root, NULL, 0));
	tmp_remove(&t);
}

/* Without a build id only the CRC ties the debug file to the module: a
 * debug file that was changed after the link was made is not used. */
static void test_debug_file_with_a_wrong_crc_is_not_used(void **state)
{
	struct tmp t;

	(void)state;
	tmp_make(&t);
	split(&t, "bt_nobuildid", true);
	assert_true(finds_debug(&t, "/nonexistent", NULL, 0));
	/* Same DWARF, one more byte: another CRC. */
	run("printf x >> '%s/prog.debug'", t.dir);
	assert_false(finds_debug(&t, "/nonexistent", NULL, 0));
	tmp_remove(&t);
}

/* The debug file of another build under the linked name is not used. */
static void test_debug_file_of_another_build_is_not_used(void **state)
{
	char other[4096];
	struct tmp t;

	(void)state;
	tmp_make(&t);
	split(&t, "bt_O2_nofp", true);
	fx_path("bt_O2_fp", other, sizeof(other));
	run("'%s' --only-keep-debug '%s' '%s/prog.debug'", objcopy(), other, t.dir);
	assert_false(finds_debug(&t, "/nonexistent", NULL, 0));
	tmp_remove(&t);
}

/* A module whose debug link names a FIFO beside it: refused, no hang. */
static void test_fifo_as_debug_link_is_skipped_without_blocking(void **state)
{
	struct tmp t;
	char fifo[128];

	(void)state;
	tmp_make(&t);
	split(&t, "bt_O2_nofp", true);
	snprintf(fifo, sizeof(fifo), "%s/prog.debug", t.dir);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);
	assert_false(finds_debug(&t, "/nonexistent", NULL, 0));
	alarm(0);
	tmp_remove(&t);
}

/* .gnu_debugdata: an xz-compressed ELF with the function symbols .dynsym
 * lacks (Fedora's MiniDebugInfo): names without DWARF. */
static void test_minidebuginfo_gives_function_symbols(void **state)
{
	struct gs_modfiles *c;
	struct gs_modfile *m;
	char src[4096], path[128];
	uint64_t addr, size, want, want_size;
	struct tmp t;

	(void)state;
	if (system("command -v xz >/dev/null") != 0) {
		print_message("skipped: xz (xz-utils) is not installed to make MiniDebugInfo\n");
		skip();
	}
	tmp_make(&t);
	fx_path("bt_O2_nofp", src, sizeof(src));
	assert_true(fx_symbol(src, FN, &want, &want_size));
	run("cd '%s' && '%s' --only-keep-debug '%s' full.debug && "
	    "'%s' -S --remove-section .comment --keep-symbol=" FN " full.debug mini && "
	    "xz -q mini && '%s' --strip-all '%s' prog && "
	    "'%s' --add-section .gnu_debugdata=mini.xz prog", t.dir, objcopy(), src, objcopy(),
	    objcopy(), src, objcopy());
	snprintf(path, sizeof(path), "%s/prog", t.dir);
	assert_int_equal(gs_modfiles_new(NULL, &c, NULL), 0);
	assert_int_equal(gs_modfile_open(c, path, &m, NULL), 0);
	assert_null(gs_modfile_dwarf(m, NULL));
	assert_int_equal(gs_modfile_symbols_named(m, FN, &addr, &size, 1), 1);
	assert_int_equal(addr, want);
	assert_string_equal(gs_modfile_function_at(m, want + 1), FN);
	gs_modfiles_free(c);
	tmp_remove(&t);
}

/* debuginfod, served from a local directory over file:// (no network): the
 * client libdwfl loads when libdebuginfod is installed. */
static void test_debuginfod_over_file_url(void **state)
{
	char url[128], cache[128], hex[2 * GS_BUILD_ID_MAX + 1];
	struct gs_module_id id;
	void *lib = dlopen("libdebuginfod.so.1", RTLD_LAZY);
	struct tmp t;

	(void)state;
	if (!lib) {
		print_message("skipped: libdebuginfod.so.1 is not installed: libdwfl has no "
			      "debuginfod client to load\n");
		skip();
	}
	dlclose(lib);
	tmp_make(&t);
	split(&t, "bt_O2_nofp", false);
	prog_build_id(&t, &id, hex);
	run("mkdir -p '%s/srv/buildid/%s' '%s/cache' && mv '%s/prog.debug' "
	    "'%s/srv/buildid/%s/debuginfo'", t.dir, hex, t.dir, t.dir, t.dir, hex);
	assert_false(finds_debug(&t, "/nonexistent", NULL, 0));
	snprintf(url, sizeof(url), "file://%s/srv", t.dir);
	snprintf(cache, sizeof(cache), "%s/cache", t.dir);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	assert_true(finds_debug(&t, "/nonexistent", NULL, 0));
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	tmp_remove(&t);
}

/* What a fresh cache with debug root ROOT and cache directory CACHE reads
 * for DIR/prog through the worker: whether its DWARF came from the
 * inflated copy (the file libdw mapped is the copy's size, not the debug
 * file's), and that it names FN's subprogram and symbol either way. */
static bool reads_inflated_copy(const struct tmp *t, const char *root, const char *cache,
				uint64_t copy_size)
{
	struct gs_modfiles_opts o = { .sz = sizeof(o), .debug_dirs = root,
				      .cfi_cache_dir = cache };
	struct gs_modfiles *c;
	struct gs_modfile *m;
	uint64_t addr, sz, bias;
	size_t mapped = 0;
	char path[128];
	Dwarf *dw;
	Dwarf_Die cu, fn;
	bool found = false;

	snprintf(path, sizeof(path), "%s/prog", t->dir);
	assert_int_equal(gs_modfiles_new(&o, &c, NULL), 0);
	assert_int_equal(gs_modfile_open(c, path, &m, NULL), 0);
	gs_modfile_prefetch_debug(m);
	dw = gs_modfile_dwarf(m, &bias);
	assert_non_null(dw);
	assert_int_equal(gs_modfile_symbols_named(m, FN, &addr, &sz, 1), 1);
	for (Dwarf_Off off = 0, next; !found; off = next) {
		size_t hsize;

		if (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) != 0 ||
		    !dwarf_offdie(dw, off + hsize, &cu))
			break;
		if (dwarf_child(&cu, &fn) != 0)
			continue;
		do
			found = dwarf_tag(&fn) == DW_TAG_subprogram && dwarf_diename(&fn) &&
				strcmp(dwarf_diename(&fn), FN) == 0;
		while (!found && dwarf_siblingof(&fn, &fn) == 0);
	}
	assert_true(found);
	elf_rawfile(dwarf_getelf(dw), &mapped);
	/* the debug file's own name, whichever file was read */
	assert_non_null(strstr(gs_modfile_debug_path(m), "/.build-id/"));
	gs_modfiles_free(c);
	return copy_size && mapped == copy_size;
}

static uint64_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Writes DIR/other.debug, sealed with the trailer of a copy of the debug
 * file at debug with that build id, over copy. */
static void seal_as_copy(const char *debug, const uint8_t *id, size_t len, const char *dir,
			 const char *copy)
{
	uint8_t trailer[MF_DEBUGCACHE_TRAILER_SIZE];
	struct mf_debugcache_src src;
	char img[4096];
	FILE *f;
	int fd = open(debug, O_RDONLY);

	assert_true(fd >= 0);
	assert_true(mf_debugcache_src_of(fd, &src));
	close(fd);
	snprintf(img, sizeof(img), "%s/other.debug", dir);
	mf_debugcache_seal(trailer, size_of(img), &src, id, len);
	run("cp '%s' '%s'", img, copy);
	f = fopen(copy, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(trailer, 1, sizeof(trailer), f), sizeof(trailer));
	assert_int_equal(fclose(f), 0);
}

/* A debug file with compressed sections is stored inflated in the cache
 * directory by the worker, and read from there by the next cache; a copy
 * whose trailer does not name that debug file (damaged, or the debug file
 * changed since), of another build, or cut short is not used, and is
 * written again. */
static void test_compressed_debug_file_is_read_from_its_inflated_copy(void **state)
{
	char root[128], cache[160], copy[320], debug[320], other[4096];
	char hex[2 * GS_BUILD_ID_MAX + 1];
	struct gs_module_id id;
	uint64_t size;
	struct tmp t;

	(void)state;
	tmp_make(&t);
	split(&t, "bt_O2_nofp", false);
	prog_build_id(&t, &id, hex);
	snprintf(root, sizeof(root), "%s/root", t.dir);
	snprintf(cache, sizeof(cache), "%s/cache", t.dir);
	snprintf(copy, sizeof(copy), "%s/%s.debug", cache, hex);
	snprintf(debug, sizeof(debug), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	run("mkdir -p '%s/.build-id/%.2s' && '%s' --compress-debug-sections=zlib "
	    "'%s/prog.debug' '%s'", root, hex, objcopy(), t.dir, debug);

	/* first read: libdw inflates, the worker stores the copy */
	assert_false(reads_inflated_copy(&t, root, cache, 0));
	size = size_of(copy);
	assert_true(size > size_of(debug));
	assert_true(reads_inflated_copy(&t, root, cache, size));
	/* without a cache directory: the debug file itself */
	assert_false(reads_inflated_copy(&t, root, NULL, size));

	/* a byte of the trailer changed: refused, then stored again */
	run("printf 'X' | dd of='%s' bs=1 seek=%llu conv=notrunc status=none", copy,
	    (unsigned long long)size - 100);
	assert_false(reads_inflated_copy(&t, root, cache, size));
	assert_true(reads_inflated_copy(&t, root, cache, size));
	/* cut short */
	run("truncate -s %llu '%s'", (unsigned long long)size - 1, copy);
	assert_false(reads_inflated_copy(&t, root, cache, size - 1));
	assert_true(reads_inflated_copy(&t, root, cache, size));
	/* the debug file changed since (another modification time) */
	run("touch -d '2001-02-03' '%s'", debug);
	assert_false(reads_inflated_copy(&t, root, cache, size));
	assert_true(reads_inflated_copy(&t, root, cache, size));
	/* the image of another build, sealed with the trailer this debug file
	 * would give it: refused for its build id */
	fx_path("bt_O3_nofp", other, sizeof(other));
	run("'%s' --only-keep-debug '%s' '%s/other.debug'", objcopy(), other, t.dir);
	seal_as_copy(debug, id.build_id, id.build_id_len, t.dir, copy);
	assert_false(reads_inflated_copy(&t, root, cache, size_of(copy)));
	/* the same sealing of its own image is accepted (the check above
	 * failed on the build id alone) */
	run("cp '%s' '%s/other.debug'", debug, t.dir);
	seal_as_copy(debug, id.build_id, id.build_id_len, t.dir, copy);
	assert_true(reads_inflated_copy(&t, root, cache, size_of(copy)));
	tmp_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_open_for_every_name_of_a_file),
		cmocka_unit_test(test_copies_with_one_build_id_share_their_cfi_rows),
		cmocka_unit_test(test_prefetch_reads_only_the_file_the_cache_opened),
		cmocka_unit_test(test_cache_freed_while_prefetching),
		cmocka_unit_test(test_fifo_is_refused_without_blocking),
		cmocka_unit_test(test_debug_link_beside_the_module),
		cmocka_unit_test(test_debug_link_in_the_dot_debug_directory),
		cmocka_unit_test(test_debug_link_under_a_debug_root),
		cmocka_unit_test(test_build_id_directory_under_a_debug_root),
		cmocka_unit_test(test_debug_file_with_a_wrong_crc_is_not_used),
		cmocka_unit_test(test_debug_file_of_another_build_is_not_used),
		cmocka_unit_test(test_fifo_as_debug_link_is_skipped_without_blocking),
		cmocka_unit_test(test_minidebuginfo_gives_function_symbols),
		cmocka_unit_test(test_debuginfod_over_file_url),
		cmocka_unit_test(test_compressed_debug_file_is_read_from_its_inflated_copy),
	};

	/* Nothing here may reach a real debuginfod server. */
	unsetenv("DEBUGINFOD_URLS");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
