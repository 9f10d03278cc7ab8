/* /proc/PID/maps parsing and grouping on hand-written text (spaces in
 * paths, " (deleted)", anonymous, [vdso]/[heap]/[stack], same path with
 * another inode, malformed lines) and the load bias / base / size of
 * docs/unwind.md's "Process maps and load bias" for PIE, non-PIE ET_EXEC
 * and shared-library layouts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gs/unwind.h>

#include "base.h"
#include "mf_int.h" /* the steps checked one by one */

#include "fixtures.h"

static const char sample_maps[] =
	"55d0c4a00000-55d0c4a01000 r--p 00000000 08:01 1311 /opt/my app/bin/tool\n"
	"55d0c4a01000-55d0c4a02000 r-xp 00001000 08:01 1311 /opt/my app/bin/tool\n"
	"55d0c4a02000-55d0c4a03000 r--p 00002000 08:01 1311 /opt/my app/bin/tool\n"
	"55d0c4a03000-55d0c4a04000 rw-p 00002000 08:01 1311 /opt/my app/bin/tool\n"
	"55d0c5000000-55d0c5021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f1e2c000000-7f1e2c028000 r--p 00000000 08:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f1e2c028000-7f1e2c1bd000 r-xp 00028000 08:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f1e2c1bd000-7f1e2c215000 r--p 001bd000 08:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f1e2c215000-7f1e2c21c000 rw-p 00214000 08:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f1e2c21c000-7f1e2c229000 rw-p 00000000 00:00 0 \n"
	"7f1e2c300000-7f1e2c301000 r-xp 00001000 00:1a 77 /tmp/plugin.so (deleted)\n"
	"7f1e2c400000-7f1e2c401000 r-xp 00001000 00:1a 78 /tmp/plugin.so\n"
	"7f1e2c500000-7f1e2c501000 r--p 00000000 00:05 5 /proc/self/status\n"
	"7f1e2c600000-7f1e2c601000 r--s 00000000 00:06 9 /sys/devices/x\n"
	"7f1e2c700000-7f1e2c701000 r--p 00000000 00:00 0\n"
	"7ffd4e6f1000-7ffd4e712000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffd4e7d4000-7ffd4e7d8000 r--p 00000000 00:00 0                          [vvar]\n"
	"7ffd4e7d8000-7ffd4e7da000 r-xp 00000000 00:00 0                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";

static void test_maps_parse_every_field_and_kind(void **state)
{
	struct gs_maps m;
	struct gs_error err = { 0 };
	const struct gs_map_entry *e;

	(void)state;
	if (gs_maps_parse(sample_maps, strlen(sample_maps), &m, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(m.n, 19);

	e = &m.entries[1];
	assert_int_equal(e->start, 0x55d0c4a01000ULL);
	assert_int_equal(e->end, 0x55d0c4a02000ULL);
	assert_int_equal(e->offset, 0x1000);
	assert_int_equal(e->dev_major, 8);
	assert_int_equal(e->dev_minor, 1);
	assert_int_equal(e->inode, 1311);
	assert_string_equal(e->perms, "r-xp");
	assert_int_equal(e->kind, GS_MAP_FILE);
	assert_string_equal(e->path, "/opt/my app/bin/tool");
	assert_false(e->deleted);

	assert_int_equal(m.entries[4].kind, GS_MAP_PSEUDO);
	assert_string_equal(m.entries[4].path, "[heap]");
	assert_int_equal(m.entries[9].kind, GS_MAP_ANON); /* trailing space, no path */
	assert_null(m.entries[9].path);
	assert_true(m.entries[10].deleted);
	assert_string_equal(m.entries[10].path, "/tmp/plugin.so");
	assert_int_equal(m.entries[10].dev_minor, 0x1a);
	assert_int_equal(m.entries[14].kind, GS_MAP_ANON); /* no space after inode */
	assert_string_equal(m.entries[17].path, "[vdso]");
	assert_int_equal(m.entries[18].start, 0xffffffffff600000ULL);
	gs_maps_free(&m);
}

static void test_maps_group_one_module_per_file(void **state)
{
	struct gs_maps m;
	struct mf_maps_module *mods;
	size_t n;

	(void)state;
	assert_int_equal(gs_maps_parse(sample_maps, strlen(sample_maps), &m, NULL), 0);
	assert_int_equal(mf_maps_group(&m, &mods, &n, NULL), 0);
	/* tool, libc, and the two plugin.so files (different inodes); no
	 * anonymous, [pseudo], /proc or /sys entries. */
	assert_int_equal(n, 4);
	assert_string_equal(mods[0].path, "/opt/my app/bin/tool");
	assert_int_equal(mods[0].nmaps, 4);
	assert_int_equal(mods[0].base, 0x55d0c4a00000ULL);
	assert_int_equal(mods[0].end, 0x55d0c4a04000ULL);
	assert_string_equal(mods[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_int_equal(mods[1].nmaps, 4);
	assert_int_equal(mods[1].maps[0], 5);
	assert_string_equal(mods[2].path, "/tmp/plugin.so");
	assert_true(mods[2].deleted);
	assert_int_equal(mods[2].inode, 77);
	assert_string_equal(mods[3].path, "/tmp/plugin.so");
	assert_false(mods[3].deleted);
	assert_int_equal(mods[3].inode, 78);
	mf_maps_modules_free(mods, n);
	gs_maps_free(&m);
}

static void test_maps_malformed_line_is_rejected_with_its_number(void **state)
{
	static const char *const bad[] = {
		"55d0-55d1 r-xp 0 08:01 1 /x\nnonsense\n",
		"55d0-55d1 r-xp 0 08:01 1 /x\n55d1-55d0 r-xp 0 08:01 1 /x\n", /* end < start */
		"55d0-55d1 r-xp 0 08:01 1 /x\n55d1-55d2 r-xp 0 0801 1 /x\n",   /* no ':' */
		"55d0-55d1 r-xp 0 08:01 1 /x\n55d1-55d2 r-x 0 08:01 1 /x\n",   /* perms */
		"55d0-55d1 r-xp 0 08:01 1 /x\n55d1-55d2 r-xp 0 08:01 1x /x\n", /* inode */
		"55d0-55d1 r-xp 0 08:01 1 /x\n10000000000000000-2 r-xp 0 08:01 1 /x\n",
	};
	struct gs_maps m;
	struct gs_error err = { 0 };

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad); i++) {
		assert_int_equal(gs_maps_parse(bad[i], strlen(bad[i]), &m, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "line 2"));
		assert_null(m.entries);
	}
	assert_int_equal(gs_maps_parse("", 0, &m, &err), 0);
	assert_int_equal(m.n, 0);
}

/* A PIE: text segment at vaddr 0x1000, mapped at 0x55d0c4a01000: the bias
 * is the load address; base and size span every mapping, data included. */
static void test_pie_bias_is_load_address(void **state)
{
	struct mf_elf_layout l = {
		.type = ET_DYN, .nloads = 4, .has_anchor = true, .anchor = 0x1040,
		.loads = {
			{ 0x0, 0x0, 0x628, 0x628 },
			{ 0x1000, 0x1000, 0x1f5, 0x1f5 },
			{ 0x2000, 0x2000, 0x154, 0x154 },
			{ 0x2de8, 0x3de8, 0x258, 0x260 }, /* RELRO data: unaligned vaddr */
		},
	};
	struct mf_map_candidate maps[] = {
		{ 0x55d0c4a00000, 0x55d0c4a01000, 0x0 },
		{ 0x55d0c4a01000, 0x55d0c4a02000, 0x1000 },
		{ 0x55d0c4a02000, 0x55d0c4a03000, 0x2000 },
		{ 0x55d0c4a03000, 0x55d0c4a04000, 0x2000 },
		{ 0x55d0c4a04000, 0x55d0c4a05000, 0x3000 },
	};
	struct gs_proc_module_offsets o;

	(void)state;
	assert_int_equal(mf_module_offsets_compute(&l, maps, 5, &o, NULL), 0);
	assert_int_equal(o.text, 0x55d0c4a00000ULL);
	assert_int_equal(o.rodata, o.text);
	assert_int_equal(o.data, o.text);
	assert_int_equal(o.bss, o.text);
	assert_int_equal(o.base, 0x55d0c4a00000ULL);
	assert_int_equal(o.size, 0x5000);
}

/* Non-PIE ET_EXEC: link addresses are runtime addresses, bias 0 is valid. */
static void test_non_pie_bias_is_zero(void **state)
{
	struct mf_elf_layout l = {
		.type = ET_EXEC, .nloads = 2, .has_anchor = true, .anchor = 0x401040,
		.loads = { { 0x0, 0x400000, 0x600, 0x600 }, { 0x1000, 0x401000, 0x200, 0x200 } },
	};
	struct mf_map_candidate maps[] = {
		{ 0x400000, 0x401000, 0x0 }, { 0x401000, 0x402000, 0x1000 },
	};
	struct gs_proc_module_offsets o;

	(void)state;
	assert_int_equal(mf_module_offsets_compute(&l, maps, 2, &o, NULL), 0);
	assert_int_equal(o.text, 0);
	assert_int_equal(o.base, 0x400000);
	assert_int_equal(o.size, 0x2000);
}

/* node as it runs: V8 maps node's text a second time (its embedded
 * builtins, beside its JIT code, at another bias). The module stays where
 * its bias puts it, so the anonymous JIT memory between is no module's. */
static void test_text_mapped_again_elsewhere_is_not_the_module(void **state)
{
	struct mf_elf_layout l = {
		.type = ET_EXEC, .nloads = 2, .has_anchor = true, .anchor = 0xb72000,
		.loads = { { 0x0, 0x400000, 0x76e000, 0x76e000 },
			   { 0x76f000, 0xb6f000, 0x1a92000, 0x1a92000 } },
	};
	struct mf_map_candidate maps[] = {
		{ 0x400000, 0xb6e000, 0x0 }, { 0xb6f000, 0x2601000, 0x76f000 },
		{ 0x7fdeb7e40000, 0x7fdeb7fd2000, 0x14c4000 },
	};
	struct gs_proc_module_offsets o;

	(void)state;
	assert_int_equal(mf_module_offsets_compute(&l, maps, 3, &o, NULL), 0);
	assert_int_equal(o.text, 0);
	assert_int_equal(o.base, 0x400000);
	assert_int_equal(o.size, 0x2601000 - 0x400000);
}

/* Only the text segment's mapping is known (others unmapped): still found. */
static void test_bias_needs_only_one_matching_segment(void **state)
{
	struct mf_elf_layout l = {
		.type = ET_DYN, .nloads = 2, .has_anchor = true, .anchor = 0x28000,
		.loads = { { 0x0, 0x0, 0x28000, 0x28000 }, { 0x28000, 0x28000, 0x195000, 0x195000 } },
	};
	struct mf_map_candidate maps[] = { { 0x7f1e2c028000, 0x7f1e2c1bd000, 0x28000 } };
	struct mf_map_candidate wrong[] = { { 0x7f1e2c028000, 0x7f1e2c1bd000, 0x99000 } };
	struct gs_proc_module_offsets o;
	struct gs_error err = { 0 };

	(void)state;
	assert_int_equal(mf_module_offsets_compute(&l, maps, 1, &o, NULL), 0);
	assert_int_equal(o.text, 0x7f1e2c000000ULL);
	assert_int_equal(mf_module_offsets_compute(&l, wrong, 1, &o, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "PT_LOAD"));
	assert_int_equal(mf_module_offsets_compute(&l, maps, 0, &o, NULL), -ENOENT);
}

static void read_layout(const char *name, struct mf_elf_layout *l)
{
	char path[4096];
	int fd;
	Elf *elf;

	fx_path(name, path, sizeof(path));
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(mf_elf_layout_read(elf, l, NULL), 0);
	elf_end(elf);
	close(fd);
}

/* Layouts read from the fixtures: PIE and shared library are ET_DYN with
 * the text section as anchor, the non-PIE build is ET_EXEC at 0x400000. */
static void test_fixture_layouts_have_type_loads_and_text_anchor(void **state)
{
	struct mf_elf_layout pie, nopie, lib;
	char path[4096];
	uint64_t main_addr, size;

	(void)state;
	read_layout("bt_O2_nofp", &pie);
	read_layout("bt_nopie", &nopie);
	read_layout("libbt_fixture.so", &lib);
	assert_int_equal(pie.type, ET_DYN);
	assert_int_equal(lib.type, ET_DYN);
	assert_int_equal(nopie.type, ET_EXEC);
	assert_true(pie.nloads >= 2 && nopie.nloads >= 2 && lib.nloads >= 2);
	assert_true(nopie.loads[0].vaddr >= 0x400000);
	assert_true(fx_symbol(fx_path("bt_O2_nofp", path, sizeof(path)), "main", &main_addr, &size));
	assert_true(pie.has_anchor);
	/* .text holds main; its segment is the executable one. */
	assert_true(pie.anchor <= main_addr);
}

/* /proc/PID/stat: the name is the process's choice, ')' and spaces too;
 * the fields are counted after the last ')'. */
static void test_proc_stat_fields_follow_the_last_paren(void **state)
{
	static const char line[] = "1234 (a) b) c (d)) Z 77 1234 1234 0 -1 2129984 100 0 0 0 0 "
				   "0 0 0 20 0 1 0 12345 1000 10\n";
	struct gs_proc_stat st;
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_proc_stat_parse(line, sizeof(line) - 1, &st, &err), 0);
	assert_string_equal(st.comm, "a) b) c (d)");
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.ppid, 77);
	assert_int_equal(st.flags, 2129984);
	assert_int_equal(st.start_time, 12345);
	assert_int_equal(gs_proc_stat_parse(line, 30, &st, &err), -EINVAL); /* cut short */
	assert_non_null(strstr(err.msg, "missing"));
	assert_int_equal(gs_proc_stat_parse("12 no paren S", 13, &st, &err), -EINVAL);
	assert_int_equal(gs_proc_stat_read(0, &st, &err), 0); /* this process */
	assert_int_equal(st.ppid, getppid());
}

/* Negative numbers down to -2^63 read as two's complement (the negation
 * used to be undefined there: UBSan stopped the fuzzer); below, refused. */
static void test_proc_stat_negative_numbers_at_the_edge(void **state)
{
	/* fields 3..9, 10..21, then 22 (starttime) */
	static const char min[] = "1 (x) S 2 0 0 0 0 -9223372036854775808 0 0 0 0 0 0 0 0 0 0 0 "
				  "0 -1\n";
	static const char below[] = "1 (x) S 2 0 0 0 0 -9223372036854775809 0 0 0 0 0 0 0 0 0 0 "
				    "0 0 0 5\n";
	struct gs_proc_stat st;
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_proc_stat_parse(min, sizeof(min) - 1, &st, &err), 0);
	assert_true(st.flags == (unsigned long)(1ull << 63));
	assert_true(st.start_time == ~0ull);
	assert_int_equal(gs_proc_stat_parse(below, sizeof(below) - 1, &st, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "field 9 is not a number"));
}

struct live_thread {
	pthread_barrier_t up, done;
	pid_t tid;
};

static void *live_thread(void *arg)
{
	struct live_thread *t = arg;

	t->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&t->up);
	pthread_barrier_wait(&t->done);
	return NULL;
}

/* A thread's id names its process; a process names itself; an id that
 * names nothing is returned as it is. */
static void test_proc_tgid_of_a_thread_is_its_process(void **state)
{
	struct live_thread t = { .tid = 0 };
	pthread_t th;

	(void)state;
	assert_int_equal(gs_proc_tgid(getpid()), getpid());
	pthread_barrier_init(&t.up, NULL, 2);
	pthread_barrier_init(&t.done, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, live_thread, &t), 0);
	pthread_barrier_wait(&t.up);
	assert_true(t.tid > 0 && t.tid != getpid());
	assert_int_equal(gs_proc_tgid(t.tid), getpid());
	pthread_barrier_wait(&t.done);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&t.up);
	pthread_barrier_destroy(&t.done);
	assert_int_equal(gs_proc_tgid(-1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_tgid_of_a_thread_is_its_process),
		cmocka_unit_test(test_maps_parse_every_field_and_kind),
		cmocka_unit_test(test_maps_group_one_module_per_file),
		cmocka_unit_test(test_maps_malformed_line_is_rejected_with_its_number),
		cmocka_unit_test(test_pie_bias_is_load_address),
		cmocka_unit_test(test_non_pie_bias_is_zero),
		cmocka_unit_test(test_text_mapped_again_elsewhere_is_not_the_module),
		cmocka_unit_test(test_bias_needs_only_one_matching_segment),
		cmocka_unit_test(test_fixture_layouts_have_type_loads_and_text_anchor),
		cmocka_unit_test(test_proc_stat_fields_follow_the_last_paren),
		cmocka_unit_test(test_proc_stat_negative_numbers_at_the_edge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
