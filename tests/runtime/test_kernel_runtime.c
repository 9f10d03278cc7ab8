/* Kernel suite of the runtime: maps created and written through the
 * batching writer, a verifier rejection reported at its instruction, and
 * uprobes on a live fixture process read through the ring buffer and perf
 * buffers, for one pid and for every process, through the PMU and the
 * tracefs fallback; detach leaves nothing behind. Skips (exit 77) when
 * bpf() or uprobes are not usable. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <gs/internal/program.h>
#include <gs/disasm.h>
#include <gs/runtime.h>

#include "rt_fixture.h"
#include "rt_trace.h"

#define TRACE_ID 7
#define WAIT_MS 5000

static const struct gs_stmt hit_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "hit" },
};

/* rt_leaf of the fixture, resolved for a running child. */
static void resolve_leaf(pid_t pid, const char *fn, struct gs_target *t)
{
	struct gs_resolve_opts o = { .sz = sizeof(o), .pid = pid };
	struct gs_error err;

	if (rt_resolve(fn, &o, t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t->nlocs, 1);
}

static void start_hit_trace(struct rt_trace *tr, struct rt_child *c, enum gs_output_kind out,
			    pid_t scope, bool tracefs)
{
	struct gs_target t;
	struct gs_error err;
	struct rt_trace_desc d = {
		.body = hit_body, .nbody = 1, .trace_id = TRACE_ID,
		.opts = { .sz = sizeof(d.opts), .output = out },
		.attach = { .sz = sizeof(d.attach), .pid = scope, .force_tracefs = tracefs },
	};
	char path[PATH_MAX];

	assert_true(rt_spawn(rt_path("rt_loop", path, sizeof(path)), c));
	resolve_leaf(c->pid, "rt_leaf", &t);
	d.module = t.module;
	d.file_offset = t.locs[0].file_offset;
	if (rt_trace_start(tr, &d, &err))
		fail_msg("%s", err.msg);
	tr->only_pid = c->pid;
	gs_target_free(&t);
}

static void check_hits(const struct rt_trace *tr, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(tr->events[i].trace_id, TRACE_ID);
		assert_int_equal(tr->events[i].pid, (uint32_t)pid);
		assert_int_equal(tr->events[i].tid, (uint32_t)pid); /* single-threaded */
		assert_string_equal(tr->events[i].text, "hit");
		assert_int_equal(tr->events[i].ninsts, 2); /* the print, EndInstruction */
	}
}

/* After detach the probe fds are closed and hits produce nothing. */
static void detach_and_check(struct rt_trace *tr, struct rt_child *c)
{
	int fds[8];
	size_t nfds = tr->probe->nfds < 8 ? tr->probe->nfds : 8;

	memcpy(fds, tr->probe->fds, nfds * sizeof(*fds));
	gs_uprobe_detach(tr->probe);
	tr->probe = NULL;
	for (size_t i = 0; i < nfds; i++)
		assert_true(fcntl(fds[i], F_GETFD) < 0 && errno == EBADF);
	tr->nevents = 0;
	assert_true(rt_command(c, "c 3"));
	assert_int_equal(rt_trace_wait(tr, 1, 300), 0);
}

static void test_ringbuf_events_of_one_pid(void **state)
{
	struct rt_trace tr;
	struct rt_child c;
	uint64_t lost = 1;
	struct gs_error err;
	struct gs_reader_stats st;

	(void)state;
	start_hit_trace(&tr, &c, GS_OUTPUT_RINGBUF, 0, false);
	assert_non_null(tr.probe);
	assert_null(tr.probe->tracefs_event); /* the PMU is there on this kernel */
	assert_true(rt_command(&c, "c 5"));
	assert_int_equal(rt_trace_wait(&tr, 5, WAIT_MS), 5);
	check_hits(&tr, 5, c.pid);
	/* The program does not filter: only the uprobe's pid scope does. */
	tr.only_pid = 0;
	assert_int_equal(gs_loss_read(&tr.maps.v[tr.prog->map_index[GS_MAP_LOSS]], &lost, &err), 0);
	assert_int_equal(lost, 0);
	gs_reader_stats(tr.reader, &st);
	assert_int_equal(st.decode_errors, 0);
	detach_and_check(&tr, &c);
	rt_trace_stop(&tr);
	rt_stop(&c);
}

/* A poll delivers at most 4096 events however many wait: a producer
 * faster than the reader would otherwise keep the caller in libbpf's
 * consume loop, past its deadline and its signals. The next poll goes on
 * where it stopped; nothing is lost. */
static void test_one_poll_delivers_a_bounded_number_of_events(void **state)
{
	struct rt_trace tr;
	struct rt_child c;
	struct gs_target t;
	struct gs_error err;
	struct gs_reader_stats st;
	struct rt_trace_desc d = {
		.body = hit_body, .nbody = 1, .trace_id = TRACE_ID,
		.opts = { .sz = sizeof(d.opts), .output = GS_OUTPUT_RINGBUF,
			  .ringbuf_size = 1u << 20 },
		.attach = { .sz = sizeof(d.attach) },
	};
	char path[PATH_MAX];
	uint64_t lost = 1;

	(void)state;
	assert_true(rt_spawn(rt_path("rt_loop", path, sizeof(path)), &c));
	resolve_leaf(c.pid, "rt_leaf", &t);
	d.module = t.module;
	d.file_offset = t.locs[0].file_offset;
	d.attach.pid = c.pid;
	if (rt_trace_start(&tr, &d, &err))
		fail_msg("%s", err.msg);
	gs_target_free(&t);
	assert_true(rt_command(&c, "c 6000")); /* all in the buffer, none read */
	assert_int_equal(gs_reader_poll(tr.reader, 0, NULL), 4096);
	assert_int_equal(gs_reader_poll(tr.reader, 0, NULL), 6000 - 4096);
	gs_reader_stats(tr.reader, &st);
	assert_int_equal(st.events, 6000);
	assert_int_equal(gs_loss_read(&tr.maps.v[tr.prog->map_index[GS_MAP_LOSS]], &lost, &err), 0);
	assert_int_equal(lost, 0);
	rt_trace_stop(&tr);
	rt_stop(&c);
}

static void test_perf_buffer_events_of_one_pid(void **state)
{
	struct rt_trace tr;
	struct rt_child c;
	struct gs_reader_stats st;
	const struct gs_bpf_map *out;

	(void)state;
	start_hit_trace(&tr, &c, GS_OUTPUT_PERF, 0, false);
	out = &tr.maps.v[tr.prog->map_index[GS_MAP_OUTPUT]];
	assert_int_equal(out->type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	assert_int_equal(out->max_entries, (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
	assert_true(rt_command(&c, "c 5"));
	assert_int_equal(rt_trace_wait(&tr, 5, WAIT_MS), 5);
	check_hits(&tr, 5, c.pid);
	gs_reader_stats(tr.reader, &st);
	assert_int_equal(st.lost_samples, 0);
	assert_int_equal(st.decode_errors, 0);
	detach_and_check(&tr, &c);
	rt_trace_stop(&tr);
	rt_stop(&c);
}

/* pid -1 needs a CPU in perf_event_open; the program must still run for
 * hits on every CPU (the child runs on the last one, the event is on CPU
 * 0), and once per hit (one event per CPU would run it once per event). */
static void test_every_process_once_per_hit(void **state)
{
	struct rt_trace tr;
	struct rt_child c;
	cpu_set_t last;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	start_hit_trace(&tr, &c, GS_OUTPUT_RINGBUF, -1, false);
	assert_int_equal(tr.probe->nfds, 1);
	CPU_ZERO(&last);
	CPU_SET(ncpus - 1, &last);
	assert_int_equal(sched_setaffinity(c.pid, sizeof(last), &last), 0);
	for (int round = 0; round < 4; round++)
		assert_true(rt_command(&c, "c 10"));
	assert_int_equal(rt_trace_wait(&tr, 40, WAIT_MS), 40);
	assert_int_equal(rt_trace_wait(&tr, 41, 300), 40); /* and no duplicate */
	check_hits(&tr, 40, c.pid);
	detach_and_check(&tr, &c);
	rt_trace_stop(&tr);
	rt_stop(&c);
}

static bool uprobe_events_mention(const char *dir, const char *needle)
{
	char cmd[256], *out;
	bool found;

	snprintf(cmd, sizeof(cmd), "cat %s/uprobe_events", dir);
	out = rt_run(cmd);
	found = out && strstr(out, needle);
	free(out);
	return found;
}

static void test_tracefs_fallback_leaves_no_uprobe(void **state)
{
	struct rt_trace tr;
	struct rt_child c;
	char event[128], dir[64];
	const char *slash;

	(void)state;
	start_hit_trace(&tr, &c, GS_OUTPUT_RINGBUF, 0, true);
	assert_non_null(tr.probe->tracefs_event);
	slash = strchr(tr.probe->tracefs_event, '/');
	snprintf(event, sizeof(event), "%s", slash + 1);
	snprintf(dir, sizeof(dir), "%s", tr.probe->tracefs_dir);
	print_message("tracefs event %s in %s\n", tr.probe->tracefs_event, dir);
	assert_true(uprobe_events_mention(dir, event));
	assert_true(rt_command(&c, "c 4"));
	assert_int_equal(rt_trace_wait(&tr, 4, WAIT_MS), 4);
	check_hits(&tr, 4, c.pid);
	detach_and_check(&tr, &c);
	assert_false(uprobe_events_mention(dir, event));
	rt_trace_stop(&tr);
	rt_stop(&c);
}

/* A full ring buffer makes bpf_ringbuf_output fail: every hit is either
 * delivered or counted in event_loss_counters. */
static void test_loss_counter_counts_what_was_not_delivered(void **state)
{
	struct gs_target t;
	struct gs_error err;
	struct rt_trace tr;
	struct rt_child c;
	char path[PATH_MAX];
	uint64_t lost = 0;
	struct rt_trace_desc d = {
		.body = hit_body, .nbody = 1, .trace_id = TRACE_ID,
		.opts = { .sz = sizeof(d.opts), .ringbuf_size = 4096 },
		.attach = { .sz = sizeof(d.attach) },
	};

	(void)state;
	assert_true(rt_spawn(rt_path("rt_loop", path, sizeof(path)), &c));
	resolve_leaf(c.pid, "rt_leaf", &t);
	d.module = t.module;
	d.file_offset = t.locs[0].file_offset;
	d.attach.pid = c.pid;
	if (rt_trace_start(&tr, &d, &err))
		fail_msg("%s", err.msg);
	assert_true(rt_command(&c, "c 1000")); /* not read meanwhile */
	rt_trace_wait(&tr, 1000, 500);
	assert_int_equal(gs_loss_read(&tr.maps.v[tr.prog->map_index[GS_MAP_LOSS]], &lost, &err), 0);
	print_message("delivered %zu, lost %llu\n", tr.nevents, (unsigned long long)lost);
	assert_true(lost > 0);
	assert_int_equal(tr.nevents + lost, 1000);
	rt_trace_stop(&tr);
	gs_target_free(&t);
	rt_stop(&c);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Many probes detached at once: every one released (timing printed only). */
static void test_detach_many_probes(void **state)
{
	enum { N = 12 };
	struct gs_uprobe *v[N];
	struct gs_uprobe_opts uo = { .sz = sizeof(uo) };
	struct gs_target t;
	struct gs_error err;
	struct rt_trace tr;
	struct rt_child c;
	double t0, seq = 0, par = 0;

	(void)state;
	start_hit_trace(&tr, &c, GS_OUTPUT_RINGBUF, 0, false);
	resolve_leaf(c.pid, "rt_mid", &t);
	uo.pid = c.pid;
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < N; i++)
			if (gs_uprobe_attach(tr.loaded.main_fd, t.module, t.locs[0].file_offset, &uo,
					     &v[i], &err))
				fail_msg("%s", err.msg);
		t0 = now_s();
		if (round == 0) {
			for (int i = 0; i < N; i++)
				gs_uprobe_detach(v[i]);
			seq = now_s() - t0;
		} else {
			gs_uprobes_detach(v, N);
			par = now_s() - t0;
			for (int i = 0; i < N; i++)
				assert_null(v[i]);
		}
	}
	print_message("detaching %d uprobes: %.3f s one by one, %.3f s on threads\n", N, seq, par);
	gs_target_free(&t);
	detach_and_check(&tr, &c);
	rt_trace_stop(&tr);
	rt_stop(&c);
}

/* A program the verifier refuses: the message names the instruction, its
 * disassembly and note; the report adds the log's last lines. */
static void test_rejection_names_the_instruction(void **state)
{
	struct gs_asm a;
	struct gs_bpf_maps none = { 0 };
	struct gs_error err;
	char *report = NULL;
	int fd;

	(void)state;
	gs_asm_init(&a);
	gs_asm_note(&a, "setup");
	gs_asm_emit(&a, GS_MOV64_REG(GS_R6, GS_R1));
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R2, 2));
	gs_asm_ld_imm64(&a, GS_R3, 0x1122334455667788ull);
	gs_asm_note(&a, "read past the end of pt_regs");
	gs_asm_emit(&a, GS_LDX_MEM(BPF_DW, GS_R0, GS_R6, 4096));
	gs_asm_note(&a, "return");
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), 0);
	assert_true(gs_asm_load(&a, "gs_bad", &none, NULL, &fd, &report, &err) < 0);
	assert_int_equal(fd, -1);
	print_message("%s\n---\n%s", err.msg, report);
	assert_non_null(strstr(err.msg, "gs_bad"));
	assert_non_null(strstr(err.msg, "instruction 4 "));
	assert_non_null(strstr(err.msg, "r0 = *(u64 *)(r6 +4096)"));
	assert_non_null(strstr(err.msg, "read past the end of pt_regs"));
	assert_non_null(strstr(err.msg, "invalid bpf_context access"));
	assert_non_null(report);
	assert_non_null(strstr(report, "=>     4: "));
	assert_non_null(strstr(report, "r3 = 0x1122334455667788"));
	assert_non_null(strstr(report, "last 15 lines of the verifier log"));
	free(report);
	gs_asm_fini(&a);
}

/* Rows written through the writer land in the kernel map, in bulk; a
 * second program's maps share the pooled ones. */
static void test_writer_and_pool(void **state)
{
	static const struct gs_stmt bt_body[] = { { .kind = GS_STMT_BACKTRACE } };
	struct gs_bt_probe probe = { .cookie = 0x1234, .pc = 0x1000,
				     .first_row_kind = GS_BT_ROW_MISSING, .nrows = 3000,
				     .module_ranges = true };
	struct gs_trace_spec spec = { .trace_id = 1, .body = bt_body, .nbody = 1, .bt = &probe };
	struct gs_program *p;
	struct gs_bpf_maps pool = { 0 }, m1, m2;
	struct gs_map_writer w;
	struct gs_rowset rows;
	struct gs_unwind_row *src, got;
	struct gs_module_row_range range;
	struct bpf_map_info i1, i2;
	uint32_t len = sizeof(i1), used = 0;
	struct gs_error err;
	const struct gs_bpf_map *a, *b;

	(void)state;
	if (gs_program_build(&spec, NULL, &p, &err))
		fail_msg("%s", err.msg);
	if (gs_bpf_maps_create(p, &pool, &m1, &err) || gs_bpf_maps_create(p, &pool, &m2, &err))
		fail_msg("%s", err.msg);
	/* Shared: the same kernel map behind both programs' fds. */
	a = gs_bpf_maps_find(&m1, "proc_module_offsets");
	b = gs_bpf_maps_find(&m2, "proc_module_offsets");
	assert_non_null(a);
	assert_int_not_equal(a->fd, b->fd);
	memset(&i1, 0, sizeof(i1));
	memset(&i2, 0, sizeof(i2));
	assert_int_equal(bpf_obj_get_info_by_fd(a->fd, &i1, &len), 0);
	len = sizeof(i2);
	assert_int_equal(bpf_obj_get_info_by_fd(b->fd, &i2, &len), 0);
	assert_int_equal(i1.id, i2.id);
	/* Not shared: each trace's event buffer. */
	a = gs_bpf_maps_find(&m1, "event_accum_buffer");
	b = gs_bpf_maps_find(&m2, "event_accum_buffer");
	len = sizeof(i1);
	assert_int_equal(bpf_obj_get_info_by_fd(a->fd, &i1, &len), 0);
	len = sizeof(i2);
	assert_int_equal(bpf_obj_get_info_by_fd(b->fd, &i2, &len), 0);
	assert_int_not_equal(i1.id, i2.id);

	src = calloc(3000, sizeof(*src));
	for (uint32_t i = 0; i < 3000; i++)
		src[i] = (struct gs_unwind_row){ .pc_start = 16 * i, .pc_end = 16 * i + 16,
						 .cfa_offset = 8 + i, .cfa_register = 7,
						 .ra_kind = GS_RECOVERY_AT_CFA_OFFSET, .ra_offset = -8 };
	gs_rowset_init(&rows);
	assert_int_equal(gs_rowset_add(&rows, 0x1234, src, 3000, NULL), 0);
	gs_bpf_maps_writer(&m1, &w);
	if (gs_rowset_write(&rows, &w, &used, 65536, &err) || gs_bpf_maps_flush(&m1, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(used, 3000);
	/* Read back through the other program's fds: the pool's map. */
	b = gs_bpf_maps_find(&m2, "bt_unwind_rows");
	for (uint32_t i = 0; i < 3000; i += 997) {
		assert_int_equal(bpf_map_lookup_elem(b->fd, &i, &got), 0);
		assert_memory_equal(&got, &src[i], sizeof(got));
	}
	b = gs_bpf_maps_find(&m2, "bt_module_row_ranges");
	assert_int_equal(bpf_map_lookup_elem(b->fd, &probe.cookie, &range), 0);
	assert_int_equal(range.row_start, 0);
	assert_int_equal(range.row_end, 3000);
	/* Writing again adds nothing: the module is there already. */
	assert_int_equal(gs_rowset_write(&rows, &w, &used, 65536, &err), 0);
	assert_int_equal(used, 3000);
	gs_rowset_fini(&rows);
	free(src);
	gs_bpf_maps_close(&m1);
	gs_bpf_maps_close(&m2);
	gs_bpf_maps_close(&pool);
	gs_program_free(p);
}

/* The feature probes answer for this kernel as its version says: the
 * ring buffer came in 5.8, bpf_loop in 5.17. */
static void test_feature_probes_follow_the_kernel_version(void **state)
{
	struct utsname u;
	int major = 0, minor = 0;

	(void)state;
	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &major, &minor), 2);
	assert_int_equal(gs_ringbuf_supported(), major > 5 || (major == 5 && minor >= 8));
	assert_int_equal(gs_bpf_loop_supported(), major > 5 || (major == 5 && minor >= 17));
	/* probed once: the same answer again */
	assert_int_equal(gs_ringbuf_supported(), gs_ringbuf_supported());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feature_probes_follow_the_kernel_version),
		cmocka_unit_test(test_writer_and_pool),
		cmocka_unit_test(test_rejection_names_the_instruction),
		cmocka_unit_test(test_ringbuf_events_of_one_pid),
		cmocka_unit_test(test_one_poll_delivers_a_bounded_number_of_events),
		cmocka_unit_test(test_perf_buffer_events_of_one_pid),
		cmocka_unit_test(test_every_process_once_per_hit),
		cmocka_unit_test(test_tracefs_fallback_leaves_no_uprobe),
		cmocka_unit_test(test_loss_counter_counts_what_was_not_delivered),
		cmocka_unit_test(test_detach_many_probes),
	};

	if (rt_kernel_usable())
		return 77; /* meson: skipped */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
