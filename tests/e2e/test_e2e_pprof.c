/* pprof profiles read back by `go tool pprof` (Debian's golang-go): one
 * run writes the folded stacks on stdout and --pprof FILE beside them,
 * counted in userspace or in BPF; -traces must give the same stacks (root
 * to leaf, inline calls included) with the same counts, and -top the same
 * total and the functions expected. Skipped, saying so, where go is
 * missing. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

static const char *go_binary(void)
{
	static const char *const where[] = { "/usr/bin/go", "/usr/lib/go/bin/go" };
	const char *env = getenv("GS_E2E_GO");

	if (env && access(env, X_OK) == 0)
		return env;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(where); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

/* `go tool pprof -symbolize=none <how> file`, its home and build cache in
 * dir (go writes there); stdout and stderr, malloc'd. */
static char *go_pprof(const char *go, const char *dir, const char *how, const char *file)
{
	char cmd[2048], chunk[4096];
	struct e2e_buf out = { 0 };
	char *text;
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "HOME='%s' GOCACHE='%s/cache' GOPATH='%s/go' GOFLAGS= '%s' "
		 "tool pprof -symbolize=none %s '%s' 2>&1", dir, dir, dir, go, how, file);
	if (!(p = popen(cmd, "r")))
		return strdup("");
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		e2e_buf_add(&out, chunk, n);
	pclose(p);
	text = strdup(e2e_buf_str(&out));
	e2e_buf_free(&out);
	return text;
}

/* ---- stacks in one form: `root;...;leaf count` lines, sorted --------------- */

struct stacks {
	struct stack {
		char *key;
		uint64_t n;
	} *v;
	size_t n;
	uint64_t total;
};

static void stacks_add(struct stacks *s, const char *key, uint64_t n)
{
	s->total += n;
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].key, key) == 0) {
			s->v[i].n += n;
			return;
		}
	}
	s->v = realloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n].key = strdup(key);
	s->v[s->n++].n = n;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct stack *)a)->key, ((const struct stack *)b)->key);
}

static char *stacks_text(struct stacks *s)
{
	struct e2e_buf b = { 0 };
	char *text;

	qsort(s->v, s->n, sizeof(*s->v), by_key);
	for (size_t i = 0; i < s->n; i++) {
		e2e_buf_printf(&b, "%s %" PRIu64 "\n", s->v[i].key, s->v[i].n);
		free(s->v[i].key);
	}
	free(s->v);
	text = strdup(e2e_buf_str(&b));
	e2e_buf_free(&b);
	return text;
}

/* A frame as both sides can name it: its function, or `?` for an address
 * no symbol covers (folded `module+0xpc`, pprof's bare address). */
static void put_frame(struct e2e_buf *b, const char *name, size_t len)
{
	bool address = (len > 2 && strncmp(name, "0x", 2) == 0) || memmem(name, len, "+0x", 3);

	if (b->len)
		e2e_buf_add(b, ";", 1);
	if (address)
		e2e_buf_add(b, "?", 1);
	else
		e2e_buf_add(b, name, len);
}

/* The folded output (`root;...;leaf count`). */
static char *folded_stacks(const char *text, uint64_t *total)
{
	struct stacks s = { 0 };

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		const char *sp = memrchr(line, ' ', len);

		if (sp) {
			struct e2e_buf key = { 0 };

			for (const char *f = line; f < sp;) {
				size_t flen = strcspn(f, ";");

				if (f + flen > sp)
					flen = (size_t)(sp - f);
				put_frame(&key, f, flen);
				f += flen + 1;
			}
			stacks_add(&s, e2e_buf_str(&key), strtoull(sp + 1, NULL, 10));
			e2e_buf_free(&key);
		}
		line += len + (line[len] == '\n');
	}
	*total = s.total;
	return stacks_text(&s);
}

/* `go tool pprof -traces`: per sample, label lines (`   key:  value`),
 * then the count and the leaf at column 13, then a caller per line, each
 * location's inline calls first; samples between `-----------+---` lines. */
static char *traces_stacks(const char *text, uint64_t *total)
{
	struct stacks s = { 0 };
	const char *frames[512];
	size_t lens[512], n = 0;
	uint64_t count = 0;
	bool in = false;

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		bool sep = strncmp(line, "-----------+", 12) == 0;

		if (sep && in && n) {
			struct e2e_buf key = { 0 };

			for (size_t i = n; i-- > 0;)
				put_frame(&key, frames[i], lens[i]);
			stacks_add(&s, e2e_buf_str(&key), count);
			e2e_buf_free(&key);
		}
		if (sep) {
			in = true;
			n = 0;
		} else if (in && len > 13 && line[10] != ':') {
			char field[12];

			snprintf(field, sizeof(field), "%.10s", line);
			if (strspn(field, " ") < strlen(field))
				count = strtoull(field, NULL, 10);
			if (n < 512) {
				/* pprof marks a location's inline calls */
				static const char mark[] = " (inline)";
				size_t flen = len - 13, k = sizeof(mark) - 1;

				if (flen > k && memcmp(line + 13 + flen - k, mark, k) == 0)
					flen -= k;
				frames[n] = line + 13;
				lens[n++] = flen;
			}
		}
		line += len + (line[len] == '\n');
	}
	*total = s.total;
	return stacks_text(&s);
}

/* ---- one run --------------------------------------------------------------- */

/* Traces fixture with script (a bt;) for 2 s, folded on stdout and
 * --pprof beside it, counted in count_in; then compares. inlined: a
 * frame -traces must mark as an inline call (NULL: none). */
static void folded_and_pprof(struct e2e_ctx *c, const char *fixture, const char *script,
			     const char *count_in, const char *const *names, size_t nnames,
			     const char *inlined)
{
	char dir[] = "/tmp/gs_e2e_pprof_XXXXXX", file[128], cmd[256];
	struct e2e_trace tr = {
		.script = script, .output = "folded", .duration = 2,
		.extra = { "--pprof", file, "--ringbuf-size", "16M", "--count-in", count_in },
	};
	char *traces = NULL, *top = NULL, *want = NULL, *got = NULL;
	const char *go = go_binary(), *of;
	uint64_t folded_total = 0, traces_total = 0, top_total = 0;
	struct e2e_fixture f;
	struct e2e_run r;
	struct e2e_output out = { 0 };
	int lock;

	if (!mkdtemp(dir)) {
		e2e_expect(c, false, "mkdtemp failed");
		return;
	}
	snprintf(file, sizeof(file), "%s/out.pb.gz", dir);
	lock = e2e_lock(fixture, false);
	if (!e2e_fixture_start(&f, fixture)) {
		e2e_expect(c, false, "fixture %s did not start", fixture);
		goto out;
	}
	tr.pid = f.pid;
	e2e_trace_run(c, &tr, &r, &out);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "exit %d", e2e_run_exit_code(&r));
	e2e_expect(c, strstr(e2e_buf_str(&r.err), "pprof profile of") != NULL,
		   "no message naming the profile written");
	want = folded_stacks(e2e_buf_str(&r.out), &folded_total);
	traces = go_pprof(go, dir, "-traces", file);
	top = go_pprof(go, dir, "-top", file);
	got = traces_stacks(traces, &traces_total);
	e2e_note(c, "--count-in %s: %" PRIu64 " folded stacks\n%s", count_in, folded_total, want);
	e2e_expect(c, folded_total >= 100, "only %" PRIu64 " stacks in 2 s", folded_total);
	e2e_expect(c, traces_total == folded_total, "go tool pprof -traces counts %" PRIu64
		   ", the folded output %" PRIu64 ":\n%s", traces_total, folded_total, traces);
	e2e_expect(c, strcmp(want, got) == 0, "the profile's stacks are not the folded ones:\n"
		   "%sfolded:\n%s", got, want);
	of = strstr(top, "% of ");
	if (of)
		top_total = strtoull(of + 5, NULL, 10);
	e2e_expect(c, top_total == folded_total, "go tool pprof -top totals %" PRIu64 ", folded "
		   "%" PRIu64 ":\n%s", top_total, folded_total, top);
	for (size_t i = 0; i < nnames; i++) {
		char inl[160];

		snprintf(cmd, sizeof(cmd), " %s\n", names[i]);
		snprintf(inl, sizeof(inl), " %s (inline)\n", names[i]);
		e2e_expect(c, strstr(top, cmd) || strstr(top, inl), "-top lacks %s:\n%s", names[i],
			   top);
	}
	if (inlined)
		e2e_expect(c, strstr(traces, inlined) != NULL, "-traces shows no `%s`:\n%s",
			   inlined, traces);
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
out:
	e2e_unlock(lock);
	free(want);
	free(got);
	free(traces);
	free(top);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		e2e_note(c, "could not remove %s\n", dir);
}

static bool have_go(struct e2e_ctx *c)
{
	if (go_binary())
		return true;
	c->skip = "no go here (Debian golang-go): go tool pprof reads the profiles back";
	return false;
}

/* prof_a -> prof_leaf three times a round, prof_b -> prof_leaf once. */
static void s_pprof_folded(struct e2e_ctx *c)
{
	static const char *const names[] = { "prof_leaf", "prof_a", "prof_b", "main" };

	if (!have_go(c))
		return;
	folded_and_pprof(c, "features_program", "trace prof_leaf { bt; }", "user", names, 4, NULL);
	folded_and_pprof(c, "features_program", "trace prof_leaf { bt; }", "bpf", names, 4, NULL);
}

/* Inside add3, inlined into wrapper: one location, two lines. */
static void s_pprof_inline(struct e2e_ctx *c)
{
	static const char *const names[] = { "add3", "wrapper", "main" };
	int line = e2e_source_line("inline_callsite_program.c", "/* ADD3_BODY */");
	char script[128];

	if (!have_go(c))
		return;
	snprintf(script, sizeof(script), "trace inline_callsite_program.c:%d { bt; }", line);
	folded_and_pprof(c, "inline_callsite_program", script, "user", names, 3, "add3 (inline)");
	folded_and_pprof(c, "inline_callsite_program", script, "bpf", names, 3, "add3 (inline)");
}

const struct e2e_scenario e2e_pprof_scenarios[] = {
	{ "pprof-folded", s_pprof_folded, E2E_NEED_TRACING },
	{ "pprof-inline", s_pprof_inline, E2E_NEED_TRACING },
};
const size_t e2e_pprof_nscenarios = BASE_ARRAY_SIZE(e2e_pprof_scenarios);
