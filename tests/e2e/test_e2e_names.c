/* C++ and Rust names in trace targets and scripts: qualified
 * names, every overload of one, one overload by its signature, a template
 * instance, and a bare member name read through `this`, on names_cxx_program
 * (g++ -O0); a Rust module function and a generic one on names_rust_program
 * (Debian's rustc, legacy mangling) and names_rust_v0_program (v0). Once
 * traced, the C++ fixture runs 5 loops, each calling scale(int),
 * scale(double), maxof<int>(3, 4), maxof<long>, sum(1) and shifted(100)
 * (its parameter x hides the member) on Point{7, 11} once; the Rust one
 * calls ident(i) then lv_path_probe(i) with its loop counter i. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

static size_t count(const char *out, const char *line)
{
	size_t n = 0;

	for (const char *p = out; (p = strstr(p, line)); p += strlen(line))
		n++;
	return n;
}

/* Runs script on fixture f (started) until max events; true when gstrace
 * ended well, its output in r either way. */
static bool traced(struct e2e_ctx *c, const char *script, unsigned max, struct e2e_run *r,
		   struct e2e_fixture *f)
{
	struct e2e_trace t = { .script = script, .max_events = max, .pid = f->pid };
	struct e2e_output parsed;

	e2e_trace_run(c, &t, r, &parsed);
	e2e_output_free(&parsed);
	e2e_expect(c, e2e_run_exit_code(r) == 0, "gstrace exited %d: %s", e2e_run_exit_code(r),
		   e2e_buf_str(&r->err));
	return e2e_run_exit_code(r) == 0;
}

/* Starts fixture, or says why not: false. */
static bool started(struct e2e_ctx *c, const char *fixture, const char *why_missing,
		    struct e2e_fixture *f)
{
	if (access(e2e_fixture_path(fixture), X_OK) != 0) {
		c->skip = why_missing;
		return false;
	}
	e2e_expect(c, e2e_fixture_start(f, fixture), "fixture %s did not start", fixture);
	return f->pid > 0;
}

/* The fixture's 5 loops, started once every trace is attached: 30 events
 * (the traces' events may come in any order). */
static void s_names_cxx(struct e2e_ctx *c)
{
	static const char script[] =
		"trace geo::Point::scale { print \"scale\"; }\n"
		"trace geo::Point::scale(double) { print f; }\n"
		"trace geo::maxof<int> { print a; print b; }\n"
		"trace geo::Point::sum { print this->x; print x; print y + k; print *this; }\n"
		"trace geo::Point::shifted { print x; print this->x; print y; }\n";
	static const struct {
		const char *line;
		size_t n;
	} want[] = {
		{ "\n  scale\n", 10 },
		{ "\n  f = 0.5\n", 5 },
		{ "\n  a = 3\n  b = 4\n", 5 },
		{ "\n  this->x = 7\n  x = 7\n  y + k = 12\n  *this = {x = 7, y = 11}\n", 5 },
		{ "\n  x = 100\n  this->x = 7\n  y = 11\n", 5 },
	};
	struct e2e_trace t = { .script = script, .max_events = 30 };
	struct e2e_fixture f;
	struct e2e_output parsed;
	struct e2e_run r;
	const char *out;

	if (!started(c, "names_cxx_program", "no g++ on this machine: the C++ names fixture "
		     "was not built", &f))
		return;
	t.pid = f.pid;
	if (e2e_trace_start(c, &t, &r)) {
		e2e_expect(c, e2e_run_wait_for(&r, E2E_READY, false, 20000),
			   "gstrace printed no ready marker");
		kill(f.pid, SIGUSR2);
		e2e_trace_finish(c, &r, 30000, &parsed);
		e2e_output_free(&parsed);
		out = e2e_buf_str(&r.out);
		e2e_expect(c, e2e_run_exit_code(&r) == 0, "gstrace exited %d: %s",
			   e2e_run_exit_code(&r), e2e_buf_str(&r.err));
		for (size_t i = 0; i < BASE_ARRAY_SIZE(want); i++)
			e2e_expect(c, count(out, want[i].line) == want[i].n, "%zu times, not %zu: %s",
				   count(out, want[i].line), want[i].n, want[i].line + 1);
		e2e_run_free(&r);
	}
	e2e_fixture_stop(&f);
}

/* lv_path_probe(v) gets the loop's counter: consecutive values; the
 * generic ident gets the same values, named as v0 demangles its instance
 * or (legacy, which drops type parameters) by its path: every instance. */
static void s_names_rust(struct e2e_ctx *c)
{
	bool v0 = strcmp(c->scenario, "names-rust-v0") == 0;
	const char *script = v0 ? "trace mycrate::inner::lv_path_probe { print v; }\n"
				  "trace mycrate::inner::ident::<u64> { print \"ident {}\", v; }\n"
				: "trace mycrate::inner::lv_path_probe { print v; }\n"
				  "trace mycrate::inner::ident { print \"ident {}\", v; }\n";
	const char *fixture = v0 ? "names_rust_v0_program" : "names_rust_program";
	struct e2e_fixture f;
	struct e2e_run r;

	if (!started(c, fixture, "Debian's rustc (/usr/bin/rustc) is not installed: the Rust "
		     "names fixture was not built", &f))
		return;
	if (traced(c, script, 10, &r, &f)) {
		const char *out = e2e_buf_str(&r.out), *p = out;
		long prev = -1;
		size_t n = 0;

		while ((p = strstr(p, "\n  v = "))) {
			long v = strtol(p + 7, NULL, 10);

			e2e_expect(c, prev < 0 || v == prev + 1, "v = %ld after %ld", v, prev);
			prev = v;
			n++;
			p += 7;
		}
		/* ten events of the two traces (attached one after the other
		 * while the loop runs, so not always five each) */
		e2e_expect(c, n >= 1 && n < 10 && count(out, "\n  ident ") == 10 - n,
			   "%zu hits of lv_path_probe and %zu of ident, not 10 of both: %s", n,
			   count(out, "\n  ident "), out);
	}
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
}

#define NEEDS E2E_NEED_TRACING

const struct e2e_scenario e2e_names_scenarios[] = {
	{ "names-cxx", s_names_cxx, NEEDS },
	{ "names-rust", s_names_rust, NEEDS },
	{ "names-rust-v0", s_names_rust, NEEDS },
};
const size_t e2e_names_nscenarios = BASE_ARRAY_SIZE(e2e_names_scenarios);
