/* Kernel suite: the Python walk (GS_BT_FLAG_PYTHON) on a real CPython.
 * The fixture (fixtures/py_calls.py, run by a pyenv build) calls getpid()
 * from inner <- middle <- outer <- <module> and prints those code objects'
 * addresses; a counted `bt python` at the C library's getpid must record
 * exactly them, innermost first, to the thread's first frame, with the
 * end of each C call of the interpreter marked as its version shows it.
 * py_procs is filled as the runtime fills it: the layout from libpython
 * (gs_py_identify, gs_py_layout_get) and _PyRuntime's address in the
 * process.
 * The thread's PyThreadState is found by the thread-list search. A case
 * whose pyenv version is not installed skips, saying so. */
#define _GNU_SOURCE /* pipe2 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <gs/internal/program.h>
#include <gs/internal/runtime.h>
#include <gs/python.h>
#include <gs/runtime.h>

#include "rt_fixture.h"
#include "rt_int.h"
#include "rt_trace.h"

#define TRACE_ID 7
#define DEPTH 32
#define CALLS 50
#define NCODES 4 /* inner, middle, outer, <module> */

struct py_version {
	const char *name; /* "3.10": pyenv's versions/3.10.* */
	uint8_t minor;
};

static const struct py_version versions[] = {
	{ "3.8", 8 }, { "3.9", 9 }, { "3.10", 10 }, { "3.11", 11 }, { "3.12", 12 }, { "3.13", 13 },
};

/* pyenv's build of v: its interpreter and libpython, or false. */
static bool find_python(const char *v, char *exe, char *lib, size_t size)
{
	char pattern[PATH_MAX];
	glob_t g;
	bool found;

	snprintf(pattern, sizeof(pattern), "/root/.pyenv/versions/%s.*/bin/python%s", v, v);
	found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	if (found) {
		snprintf(exe, size, "%s", g.gl_pathv[0]);
		snprintf(lib, size, "%.*s/lib/libpython%s.so.1.0",
			 (int)(strstr(g.gl_pathv[0], "/bin/") - g.gl_pathv[0]), g.gl_pathv[0], v);
	}
	globfree(&g);
	return found && access(lib, R_OK) == 0;
}

/* The fixture under exe: its stdin and stdout as rt_fixture's children
 * have them, the code addresses from its first line, then "ready". */
static bool spawn_python(const char *exe, struct rt_child *c, uint64_t codes[NCODES])
{
	const char *src = getenv("GS_SOURCE_DIR");
	char script[PATH_MAX], line[512];
	int in[2], out[2];

	snprintf(script, sizeof(script), "%s/tests/runtime/fixtures/py_calls.py", src ? src : ".");
	memset(c, 0, sizeof(*c));
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return false;
	c->pid = fork();
	if (c->pid < 0)
		return false;
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(exe, exe, script, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = fdopen(in[1], "w");
	c->out = fdopen(out[0], "r");
	return c->in && c->out && fgets(line, sizeof(line), c->out) &&
	       sscanf(line, "codes %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &codes[0],
		      &codes[1], &codes[2], &codes[3]) == NCODES &&
	       fgets(line, sizeof(line), c->out) && strcmp(line, "ready\n") == 0;
}

/* &_PyRuntime in pid: libpython's first mapping + the symbol's value. */
/* &_PyRuntime in pid: its link-time address (gs_py_identify) at lib's
 * load address (the mapping of its first page). */
static uint64_t runtime_address(pid_t pid, const char *lib, uint64_t value)
{
	char path[64], line[PATH_MAX + 128];
	uint64_t start = 0;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "r");
	while (maps && !start && fgets(line, sizeof(line), maps)) {
		unsigned long lo, off;

		if (strstr(line, strrchr(lib, '/')) &&
		    sscanf(line, "%lx-%*x %*s %lx", &lo, &off) == 2 && off == 0)
			start = lo;
	}
	if (maps)
		fclose(maps);
	return value && start ? start + value : 0;
}

/* The PythonStack instruction in each key of stack_counts: the one with
 * the most hits is the fixture's loop (a stray getpid elsewhere is one). */
static void check_counts(const struct rt_trace *t, const struct py_version *v,
			 const uint64_t codes[NCODES])
{
	const struct gs_bpf_map *m = &t->maps.v[t->prog->map_index[GS_MAP_STACK_COUNTS]];
	size_t at = sizeof(struct gs_stack_count_key) +
		    GS_BT_COMPACT_SIZE(DEPTH, DEPTH < GS_BT_WIRE_MODULES ? DEPTH : GS_BT_WIRE_MODULES);
	uint8_t *key = calloc(1, m->key_size), *best = calloc(1, m->key_size);
	uint64_t count, most = 0;
	struct gs_inst_header h;
	struct gs_python_stack ps;
	int rc;

	assert_int_equal(m->key_size, at + GS_STACK_COUNT_PYSTACK_SIZE(DEPTH));
	for (rc = bpf_map_get_next_key(m->fd, NULL, key); rc == 0;
	     rc = bpf_map_get_next_key(m->fd, key, key))
		if (bpf_map_lookup_elem(m->fd, key, &count) == 0 && count > most) {
			most = count;
			memcpy(best, key, m->key_size);
		}
	print_message("python %s: the most counted stack, %" PRIu64 " hits\n", v->name, most);
	assert_true(most >= CALLS);
	memcpy(&h, best + at, sizeof(h));
	memcpy(&ps, best + at + sizeof(h), sizeof(ps));
	assert_int_equal(h.inst_type, GS_INST_PYTHON_STACK);
	assert_int_equal(h.data_length, GS_PYTHON_STACK_SIZE(DEPTH));
	print_message("  status %u, %u frames, minor %u\n", ps.status, ps.frame_count, ps.minor);
	assert_int_equal(ps.requested_depth, DEPTH);
	assert_int_equal(ps.minor, v->minor);
	assert_int_equal(ps.status, GS_PY_COMPLETE);
	assert_int_equal(ps.frame_count, NCODES);
	for (size_t i = 0; i < DEPTH; i++) {
		struct gs_python_frame f;
		bool end;

		memcpy(&f, best + at + sizeof(h) + sizeof(ps) + 16 * i, sizeof(f));
		if (i >= NCODES) {
			assert_true(f.code == 0 && f.instr == 0); /* a counting key's tail */
			continue;
		}
		end = (f.instr & GS_PY_FRAME_CALL_END) != 0;
		print_message("  #%zu code 0x%" PRIx64 " instr 0x%" PRIx64 "%s\n", i, f.code,
			      (uint64_t)(f.instr & ~GS_PY_FRAME_CALL_END), end ? " (a C call's end)" : "");
		assert_int_equal(f.code, codes[i]);
		/* Before 3.11 each frame is a C call of its own; from 3.11 the
		 * four run in one, which <module>'s frame began. */
		assert_int_equal(end, v->minor < 11 || i == NCODES - 1);
	}
	free(key);
	free(best);
}

/* The loop walker's programs count nothing until bt_snapshot_gen.open
 * (the session opens it once the unwind maps are written). */
static void open_gate(const struct rt_trace *t)
{
	int fd = t->maps.v[t->prog->map_index[GS_MAP_BT_GEN]].fd;
	struct gs_bt_gen gen;
	uint32_t key = 0;

	assert_int_equal(bpf_map_lookup_elem(fd, &key, &gen), 0);
	gen.open = 1;
	assert_int_equal(bpf_map_update_elem(fd, &key, &gen, BPF_ANY), 0);
}

static void run_version(const struct py_version *v)
{
	struct gs_resolve_opts ro = { .sz = sizeof(ro) };
	struct gs_bt_plan_opts po = { .sz = sizeof(po) };
	static const struct gs_stmt body[] = {
		{ .kind = GS_STMT_BACKTRACE, .bt_flags = GS_BT_FLAG_PYTHON },
	};
	struct rt_trace_desc d = {
		.body = body, .nbody = 1, .trace_id = TRACE_ID,
		.opts = { .sz = sizeof(d.opts), .backtrace_depth = DEPTH,
			  .unwinder = GS_UNWINDER_LOOP, .count_stacks = true,
			  .unwind_rows_max = 1u << 20 }, /* libpython and libc */
		.attach = { .sz = sizeof(d.attach) },
	};
	char exe[PATH_MAX], lib[PATH_MAX];
	uint64_t codes[NCODES];
	struct gs_py_layout layout;
	struct gs_py_module py;
	struct gs_py_proc proc;
	struct gs_modfiles *files;
	struct gs_bt_plan plan;
	struct rt_child c;
	struct rt_trace tr;
	struct gs_target t;
	struct gs_error err;
	uint32_t key;

	if (rt_kernel_usable())
		skip();
	if (!find_python(v->name, exe, lib, sizeof(exe))) {
		print_message("skipped: no pyenv build of Python %s (with libpython)\n", v->name);
		skip();
	}
	if (rt_task_fsbase_offset(&d.opts.task_fsbase_offset, &err)) {
		print_message("skipped: %s\n", err.msg);
		skip();
	}
	if (gs_py_identify(lib, &py, &err) || gs_py_layout_get(lib, py.minor, &layout, NULL, &err))
		fail_msg("%s: %s", lib, err.msg);
	assert_int_equal(py.minor, v->minor);
	proc = layout.walk;
	assert_int_equal(gs_modfiles_new(NULL, &files, NULL), 0);
	assert_true(spawn_python(exe, &c, codes));
	proc.runtime = runtime_address(c.pid, lib, py.runtime);
	assert_true(proc.runtime != 0);
	ro.pid = c.pid;
	if (rt_resolve("getpid", &ro, &t, &err))
		fail_msg("%s", err.msg);
	po.pid = c.pid;
	po.files = files;
	if (gs_bt_plan_build(t.module, t.locs[0].addr, &po, &plan, &err))
		fail_msg("%s", err.msg);
	d.plan = &plan;
	d.module = t.module;
	d.file_offset = t.locs[0].file_offset;
	d.attach.pid = c.pid;
	d.fill_pid = c.pid;
	d.files = files;
	if (rt_trace_start(&tr, &d, &err))
		fail_msg("%s", err.msg);
	print_message("python %s (pid %d): getpid at %s+0x%" PRIx64 ", _PyRuntime at 0x%" PRIx64
		      ", main %zu insns (%u verified)\n", v->name, (int)c.pid, t.module,
		      t.locs[0].addr, proc.runtime, tr.prog->main.len,
		      tr.loaded.main_verified_insns);
	key = (uint32_t)c.pid;
	assert_int_equal(bpf_map_update_elem(tr.maps.v[tr.prog->map_index[GS_MAP_PY_PROCS]].fd,
					     &key, &proc, BPF_ANY), 0);
	open_gate(&tr);
	assert_true(rt_command(&c, "c %d", CALLS));
	check_counts(&tr, v, codes);
	rt_trace_stop(&tr);
	gs_target_free(&t);
	gs_bt_plan_fini(&plan);
	gs_modfiles_free(files);
	rt_stop(&c);
}

static void test_python_3_8(void **state)
{
	(void)state;
	run_version(&versions[0]);
}

static void test_python_3_9(void **state)
{
	(void)state;
	run_version(&versions[1]);
}

static void test_python_3_10_frame_objects(void **state)
{
	(void)state;
	run_version(&versions[2]);
}

static void test_python_3_11_entry_frames(void **state)
{
	(void)state;
	run_version(&versions[3]);
}

static void test_python_3_12_c_stack_shims(void **state)
{
	(void)state;
	run_version(&versions[4]);
}

static void test_python_3_13_current_frame(void **state)
{
	(void)state;
	run_version(&versions[5]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python_3_8),
		cmocka_unit_test(test_python_3_9),
		cmocka_unit_test(test_python_3_10_frame_objects),
		cmocka_unit_test(test_python_3_11_entry_frames),
		cmocka_unit_test(test_python_3_12_c_stack_shims),
		cmocka_unit_test(test_python_3_13_current_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
