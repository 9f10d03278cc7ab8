/* The profile endpoint's bookkeeping, without a kernel: when a tick
 * drains, which profiles it answers and in what order, when the clock
 * stops (and that --profile keeps it), the cap on open profiles, counts
 * fed to the open profiles only; and the names samples carry: this
 * process's, a child's renamed after the TTL, one gone, and the cache's
 * bound when processes come and go. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve_int.h"

#define S(x) ((int64_t)((x) * 1e9)) /* seconds as ns */
#define T0 S(1000)                  /* a start far from 0 */

static struct gs_pprof *new_pprof(void)
{
	struct gs_pprof *p;

	assert_int_equal(gs_pprof_new(NULL, &p, NULL), 0);
	return p;
}

static void open_at(struct srv_profiles *b, struct srv_request *r, double at, uint32_t seconds)
{
	assert_int_equal(srv_profiles_open(b, r, new_pprof(), T0 + S(at), seconds), 0);
	b->clock_on = true; /* as profile.c starts it */
}

static void due_at(const struct srv_profiles *b, double at, bool drain, size_t expired,
		   bool clock_off)
{
	struct srv_due d;

	srv_profiles_due(b, T0 + S(at), &d);
	if (d.drain != drain || d.expired != expired || d.clock_off != clock_off)
		fail_msg("at %.2f s: drain %d expired %zu clock_off %d, expected %d %zu %d", at,
			 d.drain, d.expired, d.clock_off, drain, expired, clock_off);
}

/* Takes the first open profile, checks it is r's, and frees it. */
static void take(struct srv_profiles *b, const struct srv_request *r)
{
	struct srv_profile pr;

	assert_true(srv_profiles_take(b, &pr));
	assert_ptr_equal(pr.req, r);
	gs_pprof_free(pr.pprof);
}

static void test_one_profile_drains_each_second_then_stops_the_clock(void **state)
{
	struct srv_profiles b = { .last_drain_ns = T0 };
	struct srv_request r = { .seconds = 2 };

	(void)state;
	due_at(&b, 10, false, 0, false); /* nothing open, no --profile: idle */
	open_at(&b, &r, 0, 2);
	due_at(&b, 0.5, false, 0, false);
	due_at(&b, 1.0, true, 0, false);
	b.last_drain_ns = T0 + S(1.0);
	due_at(&b, 1.9, false, 0, false);
	/* its end: the last drain, its answer, and the clock off */
	due_at(&b, 2.0, true, 1, true);
	due_at(&b, 2.05, true, 1, true);
	take(&b, &r);
	b.clock_on = false;
	due_at(&b, 9, false, 0, false);
	srv_profiles_fini(&b);
}

/* Two requests overlap: the shorter, asked later, is answered first; the
 * clock runs until the last is. Same end: arrival order. */
static void test_overlapping_profiles_answer_by_end(void **state)
{
	struct srv_profiles b = { .last_drain_ns = T0 };
	struct srv_request a = { .seconds = 3 }, c = { .seconds = 1 }, d = { .seconds = 1 },
			   e = { .seconds = 1 };

	(void)state;
	open_at(&b, &a, 0, 3);
	open_at(&b, &c, 0.5, 1);
	open_at(&b, &d, 0.5, 1);
	assert_int_equal(b.n, 3);
	due_at(&b, 1.5, true, 2, false);
	take(&b, &c);
	take(&b, &d);
	b.last_drain_ns = T0 + S(1.5);
	due_at(&b, 2.0, false, 0, false);
	due_at(&b, 2.5, true, 0, false);
	open_at(&b, &e, 2.0, 1); /* ends with a */
	due_at(&b, 3.0, true, 2, true);
	take(&b, &a);
	take(&b, &e);
	assert_false(srv_profiles_take(&b, &(struct srv_profile){ 0 }));
	srv_profiles_fini(&b);
}

/* --profile: the clock always runs, and with no profile open the counts
 * are still drained every few seconds, so the map never fills. */
static void test_profiling_drains_when_idle_and_keeps_the_clock(void **state)
{
	struct srv_profiles b = { .last_drain_ns = T0, .profiling = true, .clock_on = true };
	struct srv_request r = { .seconds = 1 };
	int64_t idle_s = SRV_DRAIN_IDLE_NS / 1000000000ll;

	(void)state;
	due_at(&b, 1, false, 0, false);
	due_at(&b, (double)idle_s - 0.1, false, 0, false);
	due_at(&b, (double)idle_s, true, 0, false);
	open_at(&b, &r, 0, 1);
	due_at(&b, 1, true, 1, false); /* answered; the clock stays on */
	take(&b, &r);
	srv_profiles_fini(&b);
}

static void test_open_profiles_are_capped(void **state)
{
	struct srv_profiles b = { .last_drain_ns = T0 };
	struct srv_request r[SRV_MAX_PROFILES + 1];
	struct gs_pprof *extra = new_pprof();

	(void)state;
	for (size_t i = 0; i < SRV_MAX_PROFILES; i++)
		open_at(&b, &r[i], 0, 30);
	assert_int_equal(srv_profiles_open(&b, &r[SRV_MAX_PROFILES], extra, T0, 30), -EBUSY);
	gs_pprof_free(extra);
	srv_profiles_fini(&b);
	assert_int_equal(b.n, 0);
}

/* A drained count goes into every profile open, and only those. */
static void test_counts_feed_the_open_profiles(void **state)
{
	struct gs_backtrace_frame frames[2] = { { .pc = 0x1000, .raw_ip = 0x1000 },
						{ .pc = 0x2005, .raw_ip = 0x2005 } };
	struct gs_inst insts[2] = {
		{ .type = GS_INST_BACKTRACE,
		  .backtrace = { .requested_depth = 2, .frame_count = 2, .frames = frames } },
		{ .type = GS_INST_END },
	};
	struct gs_event ev = { .trace_id = 9, .pid = 1, .insts = insts, .ninsts = 2 };
	struct srv_profiles b = { .last_drain_ns = T0 };
	struct srv_request early = { .seconds = 1 }, late = { .seconds = 5 };
	struct srv_profile pr;

	(void)state;
	assert_int_equal(srv_profiles_feed(&b, &ev, 7), 0); /* none open: nowhere */
	assert_int_equal(b.fed, 0);
	open_at(&b, &early, 0, 1);
	open_at(&b, &late, 0, 5);
	assert_int_equal(srv_profiles_feed(&b, &ev, 3), 0);
	assert_true(srv_profiles_take(&b, &pr));
	assert_ptr_equal(pr.req, &early);
	assert_int_equal(gs_pprof_total(pr.pprof), 3);
	gs_pprof_free(pr.pprof);
	assert_int_equal(srv_profiles_feed(&b, &ev, 2), 0);
	assert_int_equal(gs_pprof_total(b.v[0].pprof), 5);
	assert_int_equal(gs_pprof_samples(b.v[0].pprof), 1);
	assert_int_equal(b.fed, 5);
	srv_profiles_fini(&b);
}

/* ---- the names ---- */

static void test_names_of_this_process(void **state)
{
	struct srv_proclabels *l = srv_proclabels_new();
	const struct srv_procnames *n;
	char exe[PATH_MAX], comm[16];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	assert_non_null(l);
	assert_true(len > 0);
	exe[len] = '\0';
	/* a name of its own (under valgrind, comm is the tool's) */
	snprintf(comm, sizeof(comm), "gs-names-%d", (int)(getpid() % 10000));
	assert_int_equal(prctl(PR_SET_NAME, comm), 0);
	assert_non_null(n = srv_proclabels_get(l, getpid(), T0));
	assert_string_equal(n->comm, comm);
	assert_string_equal(n->exe, exe);
	assert_true(n->container[0] == '\0' || strlen(n->container) == 64);
	assert_null(srv_proclabels_get(l, 0, T0));
	assert_int_equal(srv_proclabels_count(l), 1);
	srv_proclabels_free(l);
}

struct child {
	pid_t pid;
	int cmd[2], ack[2];
};

/* A child that renames itself on each byte it reads. */
static void spawn(struct child *c)
{
	char name[16];
	unsigned char k = 0;

	assert_int_equal(pipe(c->cmd), 0);
	assert_int_equal(pipe(c->ack), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid)
		return;
	for (;;) {
		char b;

		if (read(c->cmd[0], &b, 1) != 1)
			_exit(0);
		snprintf(name, sizeof(name), "renamed-%u", k++ % 10u);
		prctl(PR_SET_NAME, name);
		(void)!write(c->ack[1], "a", 1);
	}
}

static void rename_child(struct child *c)
{
	char b;

	assert_int_equal(write(c->cmd[1], "r", 1), 1);
	assert_int_equal(read(c->ack[0], &b, 1), 1);
}

/* A name is read once per TTL: a rename shows after it; a process gone
 * is remembered as gone, then forgotten by the sweep. */
static void test_names_are_read_again_after_the_ttl(void **state)
{
	struct srv_proclabels *l = srv_proclabels_new();
	const struct srv_procnames *n;
	double ttl = (double)SRV_PROCLABELS_TTL_NS / 1e9;
	struct child c;
	int status;

	(void)state;
	spawn(&c);
	rename_child(&c);
	assert_non_null(n = srv_proclabels_get(l, c.pid, T0));
	assert_string_equal(n->comm, "renamed-0");
	rename_child(&c);
	assert_non_null(n = srv_proclabels_get(l, c.pid, T0 + S(ttl / 2)));
	assert_string_equal(n->comm, "renamed-0"); /* kept */
	assert_non_null(n = srv_proclabels_get(l, c.pid, T0 + S(ttl)));
	assert_string_equal(n->comm, "renamed-1"); /* read again */

	kill(c.pid, SIGKILL);
	assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
	assert_non_null(srv_proclabels_get(l, c.pid, T0 + S(ttl) + 1)); /* within its TTL */
	assert_int_equal(srv_proclabels_sweep(l, T0 + S(2 * ttl) - 1), 1);
	assert_int_equal(srv_proclabels_sweep(l, T0 + S(2 * ttl)), 0);
	assert_null(srv_proclabels_get(l, c.pid, T0 + S(2 * ttl)));
	assert_int_equal(srv_proclabels_count(l), 1); /* remembered as gone */
	assert_int_equal(srv_proclabels_sweep(l, T0 + S(3 * ttl)), 0);
	close(c.cmd[0]);
	close(c.cmd[1]);
	close(c.ack[0]);
	close(c.ack[1]);
	srv_proclabels_free(l);
}

/* Processes that come and go (pids no process has: above any pid_max)
 * never grow the cache past its bound; the oldest goes first, and the
 * newest are still known. */
static void test_names_stay_bounded(void **state)
{
	struct srv_proclabels *l = srv_proclabels_new();
	const pid_t base = 1 << 23; /* past PID_MAX_LIMIT (4194304) */
	const size_t n = SRV_PROCLABELS_MAX * 3;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_null(srv_proclabels_get(l, base + (pid_t)i, T0 + (int64_t)i));
		assert_true(srv_proclabels_count(l) <= SRV_PROCLABELS_MAX);
	}
	assert_int_equal(srv_proclabels_count(l), SRV_PROCLABELS_MAX);
	/* this process, the newest: the oldest gone one makes room */
	assert_non_null(srv_proclabels_get(l, getpid(), T0 + (int64_t)n));
	assert_int_equal(srv_proclabels_count(l), SRV_PROCLABELS_MAX);
	assert_non_null(srv_proclabels_get(l, getpid(), T0 + (int64_t)n + 1));
	assert_int_equal(srv_proclabels_count(l), SRV_PROCLABELS_MAX);
	assert_int_equal(srv_proclabels_sweep(l, T0 + (int64_t)n + SRV_PROCLABELS_TTL_NS), 0);
	srv_proclabels_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_profile_drains_each_second_then_stops_the_clock),
		cmocka_unit_test(test_overlapping_profiles_answer_by_end),
		cmocka_unit_test(test_profiling_drains_when_idle_and_keeps_the_clock),
		cmocka_unit_test(test_open_profiles_are_capped),
		cmocka_unit_test(test_counts_feed_the_open_profiles),
		cmocka_unit_test(test_names_of_this_process),
		cmocka_unit_test(test_names_are_read_again_after_the_ttl),
		cmocka_unit_test(test_names_stay_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
