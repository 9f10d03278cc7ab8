/* A JIT runtime's perf map (perfmap.c): an ordinary file names each
 * address as written, the newest line wins an overlap, a file that grows
 * is read on from where it stopped, a line without its newline waits for
 * it, binary garbage is skipped, and a 10 M line file stops at the entry
 * cap in bounded time. Files are real files under /tmp. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/internal/modfile.h>

#include "mf_int.h"

struct file {
	char path[64];
	int fd;
};

static int file_setup(void **state)
{
	struct file *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->path, sizeof(f->path), "/tmp/gs-perfmap-XXXXXX");
	f->fd = mkstemp(f->path);
	if (f->fd < 0)
		return -1;
	*state = f;
	return 0;
}

static int file_teardown(void **state)
{
	struct file *f = *state;

	close(f->fd);
	unlink(f->path);
	free(f);
	return 0;
}

static void append(struct file *f, const void *data, size_t len)
{
	assert_int_equal(write(f->fd, data, len), (ssize_t)len);
}

static void append_text(struct file *f, const char *text)
{
	append(f, text, strlen(text));
}

static const char *name_at(struct gs_perfmap *m, uint64_t addr, uint64_t *off)
{
	const char *name = gs_perfmap_lookup(m, addr, off);

	return name ? name : "(none)";
}

static void test_ordinary_file_names_each_range(void **state)
{
	struct file *f = *state;
	struct gs_perfmap *m;
	uint64_t off = 0;

	append_text(f, "7f0000001000 40 LazyCompile:*leaf /srv/app/x.js:1\n"
		       "7f0000002000 100 Builtin:ArgumentsAdaptorTrampoline\n"
		       "0x7f0000003000 0x20 Interpreted java.lang.String::hashCode()\n");
	m = gs_perfmap_open_path(f->path);
	assert_non_null(m);
	assert_int_equal(gs_perfmap_count(m), 3);
	assert_string_equal(name_at(m, 0x7f0000001000, &off), "LazyCompile:*leaf /srv/app/x.js:1");
	assert_int_equal(off, 0);
	assert_string_equal(name_at(m, 0x7f000000103f, &off), "LazyCompile:*leaf /srv/app/x.js:1");
	assert_int_equal(off, 0x3f);
	assert_string_equal(name_at(m, 0x7f0000001040, NULL), "(none)");
	assert_string_equal(name_at(m, 0x7f00000020ff, NULL), "Builtin:ArgumentsAdaptorTrampoline");
	assert_string_equal(name_at(m, 0x7f0000003010, NULL),
			    "Interpreted java.lang.String::hashCode()");
	assert_string_equal(name_at(m, 0x7f0000000fff, NULL), "(none)");
	gs_perfmap_free(m);
}

static void test_newest_line_wins_an_overlap(void **state)
{
	struct file *f = *state;
	struct gs_perfmap *m;
	uint64_t off;

	/* old covers [1000, 1100); new [1040, 1080) replaces its middle. */
	append_text(f, "1000 100 old\n1040 40 new\n");
	m = gs_perfmap_open_path(f->path);
	assert_non_null(m);
	assert_string_equal(name_at(m, 0x103f, NULL), "old");
	assert_string_equal(name_at(m, 0x1040, &off), "new");
	assert_int_equal(off, 0);
	assert_string_equal(name_at(m, 0x107f, NULL), "new");
	assert_string_equal(name_at(m, 0x1080, &off), "old");
	assert_int_equal(off, 0x80);
	/* Then code at the same place again (V8 reuses freed code space). */
	append_text(f, "1000 100 newest\n");
	assert_int_equal(gs_perfmap_refresh(m), 1);
	assert_string_equal(name_at(m, 0x1050, NULL), "newest");
	gs_perfmap_free(m);
}

static void test_growth_is_read_on_from_the_old_end(void **state)
{
	struct file *f = *state;
	struct gs_perfmap *m;

	append_text(f, "1000 10 first\n");
	m = gs_perfmap_open_path(f->path);
	assert_non_null(m);
	assert_int_equal(gs_perfmap_refresh(m), 0);
	append_text(f, "2000 10 second\n");
	assert_int_equal(gs_perfmap_refresh(m), 1);
	assert_int_equal(gs_perfmap_count(m), 2);
	assert_string_equal(name_at(m, 0x1001, NULL), "first");
	assert_string_equal(name_at(m, 0x2001, NULL), "second");
	/* Rewritten shorter: another file's content, read from the start. */
	assert_int_equal(ftruncate(f->fd, 0), 0);
	assert_int_equal(lseek(f->fd, 0, SEEK_SET), 0);
	append_text(f, "3000 1 x\n");
	assert_int_equal(gs_perfmap_refresh(m), 1);
	assert_int_equal(gs_perfmap_count(m), 1);
	assert_string_equal(name_at(m, 0x1001, NULL), "(none)");
	assert_string_equal(name_at(m, 0x3000, NULL), "x");
	gs_perfmap_free(m);
}

static void test_line_without_newline_waits_for_it(void **state)
{
	struct file *f = *state;
	struct gs_perfmap *m;

	append_text(f, "1000 10 done\n2000 10 half");
	m = gs_perfmap_open_path(f->path);
	assert_non_null(m);
	assert_int_equal(gs_perfmap_count(m), 1);
	assert_string_equal(name_at(m, 0x2000, NULL), "(none)");
	append_text(f, "way there\n");
	assert_int_equal(gs_perfmap_refresh(m), 1);
	assert_string_equal(name_at(m, 0x2000, NULL), "halfway there");
	gs_perfmap_free(m);
}

static void test_garbage_is_skipped(void **state)
{
	struct file *f = *state;
	unsigned char junk[4096];
	struct gs_perfmap *m;
	char longname[3000];

	srand(34);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)rand();
	append_text(f, "1000 10 before\n");
	append(f, junk, sizeof(junk));
	append_text(f, "\nnot hex 10 x\n2000 0 empty size\n3000 10\n"
		       "ffffffffffffffff 10 wraps\n4000 10 ctl\x01here\n"
		       "11111111111111111111 10 too long\n");
	memset(longname, 'n', sizeof(longname));
	append_text(f, "5000 10 ");
	append(f, longname, sizeof(longname));
	append_text(f, "\n6000 10 after\n");
	m = gs_perfmap_open_path(f->path);
	assert_non_null(m);
	assert_string_equal(name_at(m, 0x1000, NULL), "before");
	assert_string_equal(name_at(m, 0x6000, NULL), "after");
	assert_string_equal(name_at(m, 0x2000, NULL), "(none)");
	assert_string_equal(name_at(m, 0x3000, NULL), "(none)");
	assert_string_equal(name_at(m, 0x4000, NULL), "(none)");
	/* A name past the cap is cut, not dropped. */
	assert_int_equal(strlen(name_at(m, 0x5000, NULL)), GS_PERFMAP_MAX_NAME);
	gs_perfmap_free(m);
}

/* 10 M lines: reading stops at the entry cap, so time and memory are
 * bounded by the cap whatever the file's size. */
static void test_ten_million_lines_stop_at_the_cap(void **state)
{
	struct file *f = *state;
	static char chunk[1 << 20];
	struct gs_perfmap *m;
	struct timespec t0, t1;
	size_t len = 0, line = 0;
	double secs;

	while (line < 10u * 1000 * 1000) {
		len += (size_t)snprintf(chunk + len, sizeof(chunk) - len, "%zx 10 f%zu\n",
					 0x10000 + line * 0x10, line);
		line++;
		if (len > sizeof(chunk) - 64) {
			append(f, chunk, len);
			len = 0;
		}
	}
	append(f, chunk, len);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	m = gs_perfmap_open_path(f->path);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_non_null(m);
	assert_int_equal(gs_perfmap_count(m), GS_PERFMAP_MAX_ENTRIES);
	assert_string_equal(name_at(m, 0x10000 + 5 * 0x10 + 3, NULL), "f5");
	assert_string_equal(name_at(m, 0x10000 + (uint64_t)GS_PERFMAP_MAX_ENTRIES * 0x10, NULL),
			    "(none)");
	/* Growth past the cap reads nothing more. */
	append_text(f, "1 1 late\n");
	assert_int_equal(gs_perfmap_refresh(m), 0);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("2 M entries of 10 M lines read and indexed in %.2f s\n", secs);
	assert_true(secs < 30);
	gs_perfmap_free(m);
}

static void test_bytes_in_any_pieces_give_the_same_map(void **state)
{
	const char text[] = "1000 10 a b c\n2000 20 d\n";
	struct gs_perfmap *m = mf_perfmap_new();

	(void)state;
	assert_non_null(m);
	for (size_t i = 0; i < sizeof(text) - 1; i++)
		assert_int_equal(mf_perfmap_feed(m, text + i, 1), 0);
	assert_int_equal(mf_perfmap_index(m), 0);
	assert_string_equal(name_at(m, 0x1005, NULL), "a b c");
	assert_string_equal(name_at(m, 0x2010, NULL), "d");
	gs_perfmap_free(m);
}

static void test_missing_file_is_an_error(void **state)
{
	(void)state;
	errno = 0;
	assert_null(gs_perfmap_open_path("/tmp/gs-perfmap-none/perf-1.map"));
	assert_int_equal(errno, ENOENT);
}

/* This process's own map, found by pid through /proc/self/root. */
static void test_open_by_pid_reads_tmp_perf_pid_map(void **state)
{
	char path[64];
	struct gs_perfmap *m;
	FILE *out;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	out = fopen(path, "w");
	assert_non_null(out);
	fprintf(out, "abc000 100 Script:~ /srv/own.js:3\n");
	fclose(out);
	m = gs_perfmap_open(getpid());
	unlink(path);
	assert_non_null(m);
	assert_string_equal(name_at(m, 0xabc010, NULL), "Script:~ /srv/own.js:3");
	gs_perfmap_free(m);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, file_setup, file_teardown)
	const struct CMUnitTest tests[] = {
		T(test_ordinary_file_names_each_range),
		T(test_newest_line_wins_an_overlap),
		T(test_growth_is_read_on_from_the_old_end),
		T(test_line_without_newline_waits_for_it),
		T(test_garbage_is_skipped),
		T(test_ten_million_lines_stop_at_the_cap),
		cmocka_unit_test(test_bytes_in_any_pieces_give_the_same_map),
		cmocka_unit_test(test_missing_file_is_an_error),
		cmocka_unit_test(test_open_by_pid_reads_tmp_perf_pid_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
