/* Latency in BPF (docs/cli.md, "Aggregations"): latency_program's work()
 * and recurse() timed by $duration in return probes, counted, averaged and
 * put in histograms per returned value, against what the fixture measured
 * itself around each call (its truth file): counts exact, averages within
 * 5 %, each call's histogram bucket present; each level of a recursion its
 * own time; calls on several threads; and a thread cancelled inside work()
 * leaves no bogus entry and no wrong time for the calls after it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

#define FIXTURE "latency_program"
#define TOLERANCE 0.05
#define MAX_CALLS 64

#define SCRIPT                                                                              \
	"trace work return { @n[$retval] = count(); @avg[$retval] = avg($duration); "       \
	"@h[$retval] = hist($duration / 1000); @ph[g_phase] = count(); }\n"                 \
	"trace recurse return { @rn[$retval] = count(); @rec[$retval] = avg($duration); }"

/* What the fixture measured: per function and argument, each call's ns. */
struct truth {
	char fn[16];
	int arg;
	size_t n;
	double ns[MAX_CALLS];
};

static size_t read_truth(const char *path, struct truth *v, size_t max)
{
	FILE *f = fopen(path, "r");
	char fn[16];
	int arg;
	double ns;
	size_t n = 0;

	if (!f)
		return 0;
	while (fscanf(f, "%15s %d %lf", fn, &arg, &ns) == 3) {
		size_t i = 0;

		while (i < n && (strcmp(v[i].fn, fn) || v[i].arg != arg))
			i++;
		if (i == n && n < max) {
			memset(&v[n], 0, sizeof(v[n]));
			snprintf(v[n].fn, sizeof(v[n].fn), "%s", fn);
			v[n++].arg = arg;
		}
		if (i < n && v[i].n < MAX_CALLS)
			v[i].ns[v[i].n++] = ns;
	}
	fclose(f);
	return n;
}

static double mean(const struct truth *t)
{
	double s = 0;

	for (size_t i = 0; i < t->n; i++)
		s += t->ns[i];
	return t->n ? s / (double)t->n : 0;
}

/* The value of `@name[key]: V` in text, or -1 when there is no such line. */
static long long value_of(const char *text, const char *name, int key)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\n%s[%d]: ", name, key);
	p = strstr(text, want);
	return p ? strtoll(p + strlen(want), NULL, 10) : -1;
}

/* A bucket label's low bound: [0] [1] [2, 4) [4K, 8K) ... */
static double label_low(const char *s)
{
	char *end;
	double v = strtod(s + 1, &end);

	if (*end == 'K')
		v *= 1024;
	else if (*end == 'M')
		v *= 1048576;
	else if (*end == 'G')
		v *= 1073741824.0;
	return v;
}

/* Whether @h[key]'s histogram has a non-empty bucket holding us; sets
 * *total to the sum of its counts. */
static bool hist_holds(const char *text, int key, double us, long long *total)
{
	char want[64];
	const char *p;
	bool found = false;

	*total = 0;
	snprintf(want, sizeof(want), "\n@h[%d]: \n", key);
	p = strstr(text, want);
	if (!p)
		return false;
	for (p += strlen(want); *p == '[' || *p == '('; p = strchr(p, '\n') + 1) {
		double lo = *p == '(' ? -1 : label_low(p);
		double hi = *p == '(' ? 0 : lo < 2 ? lo + 1 : 2 * lo;
		long long count = strtoll(p + 16, NULL, 10);

		*total += count;
		if (count > 0 && us >= lo && us < hi)
			found = true;
		if (!strchr(p, '\n'))
			break;
	}
	return found;
}

/* Whether us is within the tolerance of a power of two (a bucket edge). */
static bool near_edge(double us)
{
	double e = 1;

	while (2 * e <= us)
		e *= 2;
	return us < e * (1 + TOLERANCE) || us > 2 * e * (1 - TOLERANCE);
}

static void check(struct e2e_ctx *c, const char *text, const struct truth *t, size_t nt)
{
	for (size_t i = 0; i < nt; i++) {
		const struct truth *x = &t[i];
		bool work = !strcmp(x->fn, "work");
		long long n = value_of(text, work ? "@n" : "@rn", x->arg);
		long long avg = value_of(text, work ? "@avg" : "@rec", x->arg);
		double want = mean(x), total_ok;
		long long total;

		e2e_expect(c, n == (long long)x->n, "%s(%d): %lld calls counted, the fixture made "
			   "%zu", x->fn, x->arg, n, x->n);
		e2e_expect(c, avg > 0 && ((double)avg > want ? (double)avg - want : want - (double)avg) <= TOLERANCE * want,
			   "%s(%d): average %lld ns, the fixture measured %.0f ns (within %.0f %%)",
			   x->fn, x->arg, avg, want, TOLERANCE * 100);
		e2e_note(c, "%s(%d): %lld calls, average %lld ns, fixture %.0f ns\n", x->fn, x->arg,
			 n, avg, want);
		if (!work)
			continue;
		for (size_t k = 0; k < x->n; k++) {
			double us = x->ns[k] / 1000;

			e2e_expect(c, hist_holds(text, x->arg, us, &total) || near_edge(us),
				   "work(%d): call %zu took %.0f us, and @h[%d] has no sample in its "
				   "bucket", x->arg, k, us, x->arg);
		}
		hist_holds(text, x->arg, 0, &total);
		total_ok = (double)total;
		e2e_expect(c, total_ok == (double)x->n, "@h[%d] holds %lld samples, not %zu",
			   x->arg, total, x->n);
	}
	/* an enum key by its enumerator's name: 10 + 6 + 4 calls, 3 threads x 4, 1 */
	e2e_expect(c, strstr(text, "\n@ph[PHASE_LAST]: 1\n@ph[PHASE_THREADS]: 12\n"
			     "@ph[PHASE_SINGLE]: 20\n") != NULL, "@ph by g_phase is not 1, 12, 20 "
		   "calls by name");
	/* the cancelled thread's work(1000) never returned */
	e2e_expect(c, value_of(text, "@n", 1000) < 0 && value_of(text, "@avg", 1000) < 0,
		   "the call of the cancelled thread was counted: no return, no duration");
}

/* Runs latency_program under gstrace -s script (extra: more options,
 * NULL-terminated): the fixture started, gstrace attached, the fixture
 * told to work and both finished. Its truth file is dir/truth. */
static bool traced_run(struct e2e_ctx *c, const char *script, char *const *extra,
		       const char *dir, struct e2e_run *gs)
{
	char truth_path[64], pid_s[16];
	struct e2e_run fx = { 0 };
	char *argv[16] = { (char *)e2e_gstrace_path(), "-p", pid_s, "-s", (char *)script,
			   "--emit-ready-marker", "GS_READY" };
	size_t n = 7;
	bool ok = false;

	for (; extra && *extra && n < 15; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	snprintf(truth_path, sizeof(truth_path), "%s/truth", dir);
	{
		char *fargv[] = { (char *)e2e_fixture_path(FIXTURE), truth_path, NULL };

		if (e2e_run_start(&fx, fargv) || !e2e_run_wait_for(&fx, "ready", true, 10000)) {
			e2e_expect(c, false, "%s did not start", FIXTURE);
			goto out;
		}
	}
	snprintf(pid_s, sizeof(pid_s), "%d", (int)fx.pid);
	if (e2e_run_start(gs, argv) || !e2e_run_wait_for(gs, "GS_READY", false, 30000)) {
		e2e_expect(c, false, "gstrace did not attach: %s", e2e_buf_str(&gs->err));
		goto out;
	}
	kill(fx.pid, SIGUSR1);
	e2e_expect(c, e2e_run_finish(&fx, 60000) && e2e_run_exit_code(&fx) == 0,
		   "%s did not finish by itself (exit %d)", FIXTURE, e2e_run_exit_code(&fx));
	/* the traced process is gone: gstrace prints the aggregations and ends */
	e2e_expect(c, e2e_run_finish(gs, 20000) && e2e_run_exit_code(gs) == 0,
		   "gstrace exited with %d: %s", e2e_run_exit_code(gs), e2e_buf_str(&gs->err));
	e2e_note(c, "gstrace printed:\n%s\n%s\n", e2e_buf_str(&gs->out), e2e_buf_str(&gs->err));
	ok = true;
out:
	if (fx.pid > 0 && !fx.exited)
		kill(fx.pid, SIGKILL);
	e2e_run_finish(&fx, 1000);
	e2e_run_free(&fx);
	return ok;
}

/* "\n" + text: value_of looks for "\n@name[", the first line too. */
static char *lines(const struct e2e_run *gs)
{
	const char *out = e2e_buf_str(&gs->out);
	size_t len = strlen(out);
	char *text = malloc(len + 2);

	if (text) {
		text[0] = '\n';
		memcpy(text + 1, out, len + 1);
	}
	return text;
}

static void s_latency(struct e2e_ctx *c)
{
	char dir[] = "/tmp/gs-latency-XXXXXX", truth_path[64];
	struct e2e_run gs = { 0 };
	struct truth t[16];
	size_t nt;
	char *text;

	if (!mkdtemp(dir)) {
		e2e_expect(c, false, "cannot make a temporary directory: %s", strerror(errno));
		return;
	}
	snprintf(truth_path, sizeof(truth_path), "%s/truth", dir);
	if (traced_run(c, SCRIPT, NULL, dir, &gs)) {
		nt = read_truth(truth_path, t, 16);
		e2e_expect(c, nt == 9, "the truth file has %zu function/argument pairs, not 9 "
			   "(work 1 3 5 7 20, recurse 1..4)", nt);
		if ((text = lines(&gs)))
			check(c, text, t, nt);
		free(text);
	}
	e2e_run_free(&gs);
	unlink(truth_path);
	rmdir(dir);
}

/* A map too small for the keys: those it holds are counted right, the
 * rest are said at exit, through the perf-event attach (the fallback). */
static void s_latency_full_map(struct e2e_ctx *c)
{
	char dir[] = "/tmp/gs-latency-XXXXXX", truth_path[64], want[128];
	char *extra[] = { "--max-keys", "3", NULL };
	struct e2e_run gs = { 0 };
	struct truth t[16];
	size_t nt, kept = 0;
	long long counted = 0, made = 0;
	char *text;

	if (!mkdtemp(dir)) {
		e2e_expect(c, false, "cannot make a temporary directory: %s", strerror(errno));
		return;
	}
	snprintf(truth_path, sizeof(truth_path), "%s/truth", dir);
	setenv("GSTRACE_NO_UPROBE_MULTI", "1", 1);
	if (traced_run(c, "trace work return { @n[$retval] = count(); }", extra, dir, &gs) &&
	    (text = lines(&gs))) {
		nt = read_truth(truth_path, t, 16);
		for (size_t i = 0; i < nt; i++) {
			long long n = strcmp(t[i].fn, "work") ? -1 : value_of(text, "@n", t[i].arg);

			made += strcmp(t[i].fn, "work") ? 0 : (long long)t[i].n;
			if (n < 0)
				continue;
			kept++;
			counted += n;
			e2e_expect(c, n == (long long)t[i].n, "work(%d): %lld calls counted, the "
				   "fixture made %zu", t[i].arg, n, t[i].n);
		}
		e2e_expect(c, kept == 3, "%zu keys kept in a map of 3", kept);
		snprintf(want, sizeof(want), "gstrace: %lld aggregation updates found the map full "
			 "(3 entries) and were not counted: raise --max-keys", made - counted);
		e2e_expect(c, strstr(e2e_buf_str(&gs.err), want) != NULL, "stderr lacks '%s'",
			   want);
		free(text);
	}
	unsetenv("GSTRACE_NO_UPROBE_MULTI");
	e2e_run_free(&gs);
	unlink(truth_path);
	rmdir(dir);
}

const struct e2e_scenario e2e_latency_scenarios[] = {
	{ "latency", s_latency, E2E_NEED_TRACING },
	{ "latency-full-map", s_latency_full_map, E2E_NEED_TRACING },
};
const size_t e2e_latency_nscenarios = BASE_ARRAY_SIZE(e2e_latency_scenarios);
