/* Kernel suite: the live session (gs/live.h) on a fixture calling live_a(n)
 * and live_b(n) in a loop. Traces are added, disabled, enabled, edited,
 * refused and removed while trace A runs, and A's numbers show no call
 * missed meanwhile; a saved session reads back as a script; freeing it
 * leaves no uprobe. Skips (exit 77) when bpf() or uprobes are not usable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gs/live.h>
#include <gs/map_abi.h>
#include <gs/render.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include "rt_fixture.h"
#include "rt_trace.h"

#define MAX_ID 8
#define A_ID 1

/* What the events said, by trace id; A's numbers checked one by one. */
struct live_seen {
	size_t n[MAX_ID];
	char fmt[MAX_ID][32];  /* the last event's format */
	uint64_t a_last;
	bool a_started;
	size_t a_gaps;         /* numbers A skipped while one format ran */
};

/* The format of a `print "fmt", v;` event and its value. */
static const char *event_format(const struct gs_event *ev, uint64_t *v)
{
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type != GS_INST_PRINT_COMPLEX_FORMAT)
			continue;
		*v = 0;
		if (in->format.arg_count) {
			char text[32];

			gs_render_value(&in->format.args[0], 0, text, sizeof(text));
			*v = strtoull(text, NULL, 0);
		}
		return in->format.format;
	}
	return "";
}

static int on_event(void *arg, const struct gs_event *ev)
{
	struct live_seen *s = arg;
	uint64_t v = 0;
	const char *fmt = event_format(ev, &v);

	if (ev->trace_id >= MAX_ID)
		fail_msg("an event of trace #%llu, never added", (unsigned long long)ev->trace_id);
	/* An edit of A detaches the old before attaching the new: calls in
	 * between are not traced, so the sequence starts again there. */
	if (ev->trace_id == A_ID && strcmp(fmt, s->fmt[A_ID]) != 0)
		s->a_started = false;
	if (ev->trace_id == A_ID) {
		if (s->a_started && v != s->a_last + 1)
			print_message("trace #1 went from %llu to %llu\n",
				      (unsigned long long)s->a_last, (unsigned long long)v);
		s->a_gaps += s->a_started && v != s->a_last + 1;
		s->a_last = v;
		s->a_started = true;
	}
	s->n[ev->trace_id]++;
	snprintf(s->fmt[ev->trace_id], sizeof(s->fmt[0]), "%s", fmt);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Polls for ms milliseconds. */
static void poll_for(struct gs_live *l, double ms)
{
	double end = now_ms() + ms;
	struct gs_error err;

	while (now_ms() < end)
		if (gs_live_poll(l, 50, &err) < 0)
			fail_msg("%s", err.msg);
}

/* Polls until trace id has `more` events more than now; false after 5 s. */
static bool wait_events(struct gs_live *l, const struct live_seen *s, uint32_t id, size_t more)
{
	size_t want = s->n[id] + more;
	double end = now_ms() + 5000;
	struct gs_error err;

	while (s->n[id] < want && now_ms() < end)
		if (gs_live_poll(l, 100, &err) < 0)
			fail_msg("%s", err.msg);
	return s->n[id] >= want;
}

static uint32_t add_one(struct gs_live *l, const char *text)
{
	struct gs_error err;
	uint32_t id = 0;
	size_t n = 0;

	if (gs_live_add(l, text, strlen(text), "test", false, &id, 1, &n, &err))
		fail_msg("%s: %s", text, err.msg);
	assert_int_equal(n, 1);
	return id;
}

static enum gs_live_state state_of(const struct gs_live *l, uint32_t id)
{
	struct gs_live_trace_info info;

	for (size_t i = 0; gs_live_trace_info(l, i, &info) == 0; i++)
		if (info.id == id)
			return info.state;
	fail_msg("no trace #%u", id);
	return GS_LIVE_DISABLED;
}

/* Disabled: nothing after the drain, while A goes on; enabled again: back. */
/* The programs write events without waking their reader until a quarter
 * of its buffer waits, so a caller that sleeps on gs_live_fd (the
 * interactive mode does) relies on the live session's tick: the
 * descriptor turns readable while A's events are still few, not once a
 * quarter of A's buffer (at least GS_OUTPUT_MIN_SIZE; A's records are
 * under 128 bytes) has filled. */
static void check_fd_readable_before_buffer_wakes(struct gs_live *l, struct live_seen *s)
{
	struct pollfd p = { .fd = gs_live_fd(l), .events = POLLIN };
	size_t before, quarter = GS_OUTPUT_MIN_SIZE / 4 / 128;
	struct gs_error err;
	bool quiet = false;

	/* read until nothing waits and nothing woke the descriptor */
	for (int i = 0; i < 1000 && !quiet; i++) {
		if (gs_live_poll(l, 0, &err) < 0)
			fail_msg("%s", err.msg);
		quiet = poll(&p, 1, 0) == 0;
	}
	assert_true(quiet);
	before = s->n[A_ID];
	assert_int_equal(poll(&p, 1, 30000), 1);
	if (gs_live_poll(l, 0, &err) < 0)
		fail_msg("%s", err.msg);
	if (s->n[A_ID] - before >= quarter)
		fail_msg("gs_live_fd turned readable with %zu events of trace #1 waiting: the "
			 "buffer's own wakeup, not the live session's tick",
			 s->n[A_ID] - before);
}

static void check_disable_enable(struct gs_live *l, struct live_seen *s, uint32_t b)
{
	struct gs_error err;
	size_t nb, na;

	assert_int_equal(gs_live_enable(l, b, false, &err), 0);
	assert_int_equal(state_of(l, b), GS_LIVE_DISABLED);
	nb = s->n[b];
	na = s->n[A_ID];
	poll_for(l, 300);
	assert_int_equal(s->n[b], nb);
	assert_true(s->n[A_ID] > na + 50);
	assert_int_equal(gs_live_enable(l, b, true, &err), 0);
	assert_int_equal(state_of(l, b), GS_LIVE_ENABLED);
	assert_true(wait_events(l, s, b, 20));
}

/* A script of two traces: two live traces, each with its own text. */
static void check_two_traces_split(struct gs_live *l, struct live_seen *s)
{
	static const char text[] = "trace live_b { print \"c\"; }\n\n// between\n"
				   "trace live_a return { print \"d\"; }\n";
	struct gs_live_trace_info info;
	struct gs_error err;
	uint32_t ids[2];
	size_t n;

	if (gs_live_add(l, text, strlen(text), "two", true, ids, 2, &n, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 3);
	assert_int_equal(ids[1], 4);
	assert_int_equal(gs_live_count(l), 4);
	assert_int_equal(gs_live_trace_info(l, 2, &info), 0);
	assert_int_equal(info.id, 3);
	assert_int_equal(info.state, GS_LIVE_DISABLED);
	assert_string_equal(info.source, "trace live_b { print \"c\"; }\n\n// between");
	assert_int_equal(gs_live_trace_info(l, 3, &info), 0);
	assert_string_equal(info.source, "trace live_a return { print \"d\"; }");
	assert_string_equal(info.target, "live_a");
	poll_for(l, 100);
	assert_int_equal(s->n[3] + s->n[4], 0);
}

/* A script whose second trace is wrong: nothing of it stays, and the
 * message points into the whole script (line 2). */
static void check_bad_script_refused(struct gs_live *l)
{
	static const char text[] = "trace live_b { print \"e\"; }\ntrace no_such_fn { print \"f\"; }";
	struct gs_error err;
	size_t n = 9;

	assert_true(gs_live_add(l, text, strlen(text), "bad.gs", false, NULL, 0, &n, &err) < 0);
	print_message("refused: %s\n", err.msg);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "bad.gs:2:7"));
	assert_non_null(strchr(err.msg, '^'));
	assert_int_equal(gs_live_count(l), 4);
	assert_true(gs_live_check(l, text, strlen(text), "bad.gs", &err) < 0);
	assert_non_null(strstr(err.msg, "no_such_fn"));
	assert_int_equal(gs_live_check(l, text, 27, "good.gs", &err), 0);
}

/* Edited: the new text's events under the same id; a wrong edit leaves
 * the old one running. */
static void check_edit(struct gs_live *l, struct live_seen *s)
{
	static const char edited[] = "trace live_a { print \"A2 {}\", v; }";
	static const char wrong[] = "trace no_such_fn { print \"x\"; }";
	static const char two[] = "trace live_a { print \"y\"; } trace live_b { print \"z\"; }";
	struct gs_live_trace_info info;
	struct gs_error err;
	double end = now_ms() + 5000;

	assert_int_equal(gs_live_edit(l, A_ID, edited, strlen(edited), &err), 0);
	while (strcmp(s->fmt[A_ID], "A2 {}") != 0 && now_ms() < end)
		poll_for(l, 50);
	assert_string_equal(s->fmt[A_ID], "A2 {}");
	assert_int_equal(gs_live_trace_info(l, 0, &info), 0);
	assert_int_equal(info.id, A_ID);
	assert_string_equal(info.source, edited);

	assert_true(gs_live_edit(l, A_ID, wrong, strlen(wrong), &err) < 0);
	print_message("wrong edit refused: %s\n", err.msg);
	assert_non_null(strchr(err.msg, '^'));
	assert_non_null(strstr(err.msg, "no_such_fn"));
	assert_int_equal(gs_live_edit(l, A_ID, two, strlen(two), &err), -EINVAL);
	assert_true(wait_events(l, s, A_ID, 50));
	assert_string_equal(s->fmt[A_ID], "A2 {}");
	assert_int_equal(gs_live_edit(l, 99, edited, strlen(edited), &err), -ENOENT);
}

/* The saved session parses back, disabled traces under a comment. */
static void check_save(const struct gs_live *l)
{
	struct gs_script *back;
	struct gs_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(gs_live_save(l, f), 0);
	fclose(f);
	print_message("saved:\n%s", text);
	if (gs_script_parse(text, len, NULL, &back, &err))
		fail_msg("the saved session does not parse back: %s", err.msg);
	assert_int_equal(back->ntraces, gs_live_count(l));
	assert_non_null(strstr(text, "// disabled: trace 3\n"));
	assert_non_null(strstr(text, "// disabled: trace 4\n"));
	gs_script_free(back);
	free(text);
}

/* No uprobe_events entry of this process is left (the tracefs path). */
static void check_no_uprobe_left(void)
{
	static const char *const files[] = { "/sys/kernel/tracing/uprobe_events",
					     "/sys/kernel/debug/tracing/uprobe_events" };
	char mine[32], line[512];

	snprintf(mine, sizeof(mine), "gs_p%d_", (int)getpid());
	for (size_t i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");

		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, mine))
				fail_msg("left in %s: %s", files[i], line);
		if (f)
			fclose(f);
	}
}

/* The whole life of a live session, attached through uprobe_multi links
 * or (force_tracefs) tracefs uprobe_events. */
static void live_session_life(bool force_tracefs)
{
	struct live_seen s = { 0 };
	struct gs_program_opts prog = { .sz = sizeof(prog) };
	struct gs_live_opts o = { .sz = sizeof(o), .program = &prog, .on_event = on_event,
				  .arg = &s, .force_tracefs = force_tracefs };
	struct gs_live_trace_info info;
	struct gs_live *l;
	struct gs_error err;
	struct rt_child c;
	char path[PATH_MAX];
	uint64_t lost = 1;
	uint32_t b;
	int fd;

	assert_true(rt_spawn(rt_path("live_loop", path, sizeof(path)), &c));
	o.pid = c.pid;
	prog.filter_pid = (uint32_t)c.pid;
	if (gs_live_new(&o, &l, &err))
		fail_msg("%s", err.msg);
	fd = gs_live_fd(l);
	assert_true(fd >= 0);

	assert_int_equal(add_one(l, "trace live_a { print \"a {}\", v; }"), A_ID);
	assert_true(wait_events(l, &s, A_ID, 20));
	check_fd_readable_before_buffer_wakes(l, &s);
	b = add_one(l, "trace live_b { print \"b {}\", v; }");
	assert_int_equal(b, 2);
	assert_true(wait_events(l, &s, b, 20));
	assert_true(wait_events(l, &s, A_ID, 20));
	check_disable_enable(l, &s, b);
	check_two_traces_split(l, &s);
	check_bad_script_refused(l);
	assert_int_equal(s.a_gaps, 0);
	check_edit(l, &s);

	assert_int_equal(gs_live_remove(l, b, &err), 0);
	assert_int_equal(gs_live_remove(l, b, &err), -ENOENT);
	assert_int_equal(gs_live_count(l), 3);
	{
		size_t nb = s.n[b];

		assert_true(wait_events(l, &s, A_ID, 100));
		assert_int_equal(s.n[b], nb);
	}
	assert_int_equal(s.a_gaps, 0);
	assert_int_equal(gs_live_fd(l), fd);
	assert_int_equal(gs_live_lost(l, &lost, &err), 0);
	assert_int_equal(lost, 0);
	assert_int_equal(gs_live_trace_info(l, 0, &info), 0);
	assert_int_equal(info.hits, s.n[A_ID]);
	assert_int_equal(info.nprobes, 1);
	assert_non_null(strstr(info.module, "live_loop"));
	assert_null(gs_live_trace_note(l, A_ID, 0));
	check_save(l);

	gs_live_free(l);
	check_no_uprobe_left();
	rt_stop(&c);
}

static void test_live_traces_come_and_go_while_others_run(void **state)
{
	(void)state;
	live_session_life(false);
}

static void test_live_through_tracefs_leaves_no_uprobe_event(void **state)
{
	(void)state;
	live_session_life(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_traces_come_and_go_while_others_run),
		cmocka_unit_test(test_live_through_tracefs_leaves_no_uprobe_event),
	};

	if (rt_kernel_usable())
		return 77; /* meson: skipped */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
