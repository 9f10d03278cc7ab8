/* Script values as C has them, at main_probe of the
 * values_lib fixture (values_lib_main.c, values_lib.c, built by gcc -O0
 * and clang -O2): string equality on a char[4] parameter's member and on a
 * char * global of another module, through a `let` of a string; pointer
 * arithmetic on another module's array, on a char * and on a void *; casts
 * to a qualified struct type only the library defines, to an array type and
 * to bool, of a pointer to an array or struct type (the object it points
 * to, as GhostScope reads it); memcmp with a length known at run time. The expected values are
 * the fixture's own constants (main_probe(5, &r), r->code = "abc",
 * lib_name = "libvalues", lib_table[2] = {3, 9}, lib_only_g = {-77, 12,
 * "only"}). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

static const char script[] =
	"trace main_probe {\n"
	"  let want = \"abc\";\n"
	"  print r->code == want;\n"
	"  print r->code != \"abd\";\n"
	"  print r->code == \"ab\";\n"
	"  print lib_name == \"libvalues\";\n"
	"  print lib_name + 3 == \"values\";\n"
	"  print lib_name == \"libvalue\";\n"
	"  print (lib_table + 2)->y;\n"
	"  print *(lib_table + 1);\n"
	"  print &lib_table[2] - lib_table;\n"
	"  print cast(cast(&lib_only_g, \"void *\") + 8, \"short *\")[0];\n"
	"  print cast(cast(&lib_only_g, \"void *\"), \"const volatile struct lib_only *\")->wide;\n"
	"  print cast(r->code, \"uint8_t[4]\");\n"
	"  print cast(&lib_table, \"int[6]\");\n"
	"  print cast(cast(&lib_origin, \"void *\"), \"struct lpoint\").y;\n"
	"  print cast(x * 51, \"bool\");\n"
	"  print cast(x, \"long unsigned int\") - 6;\n"
	"  print \"{} {} {}\", want, memcmp(r->code, \"abX\", x - 3), memcmp(r->code, \"abX\", x - 2);\n"
	"  if (1 || *cast(0, \"int *\")) { print \"short-circuit\"; }\n"
	"}\n";

static const char *const expected[] = {
	"  r->code == want = true",
	"  r->code != \"abd\" = true",
	"  r->code == \"ab\" = false",
	"  lib_name == \"libvalues\" = true",
	"  lib_name + 3 == \"values\" = true",
	"  lib_name == \"libvalue\" = false",
	"  (lib_table + 2)->y = 9",
	"  *(lib_table + 1) = {x = 2, y = 4}",
	"  &lib_table[2] - lib_table = 2",
	"  cast(cast(&lib_only_g, \"void *\") + 8, \"short *\")[0] = 12",
	"  cast(cast(&lib_only_g, \"void *\"), \"const volatile struct lib_only *\")->wide = -77",
	"  cast(r->code, \"uint8_t[4]\") = \"abc\"", /* gdb too: unsigned char */
	/* a pointer cast to an array or struct type: the object it points to */
	"  cast(&lib_table, \"int[6]\") = {1, 1, 2, 4, 3, 9}",
	"  cast(cast(&lib_origin, \"void *\"), \"struct lpoint\").y = 9",
	"  cast(x * 51, \"bool\") = true",
	"  cast(x, \"long unsigned int\") - 6 = 18446744073709551615",
	"  \"abc\" 1 0",
	"  short-circuit",
};

static void s_script_values(struct e2e_ctx *c)
{
	char name[64];
	struct e2e_fixture f;
	struct e2e_trace t = { .script = script, .max_events = 1 };
	struct e2e_output parsed;
	struct e2e_run r;
	const char *out;

	snprintf(name, sizeof(name), "values_lib_%s", c->scenario + strlen("script-values-"));
	for (char *s = name; *s; s++)
		*s = *s == '-' ? '_' : *s;
	if (access(e2e_fixture_path(name), X_OK) != 0) {
		c->skip = "this fixture build needs a compiler this machine lacks (clang)";
		return;
	}
	if (!e2e_fixture_start(&f, name)) {
		e2e_expect(c, false, "fixture %s did not start", name);
		return;
	}
	t.pid = f.pid;
	e2e_trace_run(c, &t, &r, &parsed);
	out = e2e_buf_str(&r.out);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "gstrace exited %d", e2e_run_exit_code(&r));
	for (size_t i = 0; i < BASE_ARRAY_SIZE(expected); i++)
		e2e_expect(c, strstr(out, expected[i]) != NULL, "missing line: %s", expected[i]);
	e2e_output_free(&parsed);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
}

/* types_dup: struct dup is {int a} in libtypes_dup_a.so and {long a, b}
 * in libtypes_dup_b.so; struct same is alike in both; the probe's module
 * defines neither. */
static void s_cast_two_modules(struct e2e_ctx *c)
{
	static const char differ[] = "trace dup_probe { print cast(k, \"struct dup *\"); }";
	static const char alike[] =
		"trace dup_probe { print cast(&dup_a, \"struct same *\")->x; print k; }";
	struct e2e_fixture f;
	struct e2e_trace t = { .script = differ, .max_events = 1 };
	struct e2e_output parsed;
	struct e2e_run r;
	const char *err;

	if (!e2e_fixture_start(&f, "types_dup")) {
		e2e_expect(c, false, "fixture types_dup did not start");
		return;
	}
	t.pid = f.pid;
	e2e_trace_run(c, &t, &r, &parsed);
	err = e2e_buf_str(&r.err);
	e2e_expect(c, e2e_run_exit_code(&r) == 2, "a type two modules define differently: exit %d, "
		   "not 2", e2e_run_exit_code(&r));
	e2e_expect(c, strstr(err, "type 'struct dup *' is ambiguous: defined differently in") &&
		   strstr(err, "libtypes_dup_a.so") && strstr(err, "libtypes_dup_b.so"),
		   "the message names both modules");
	e2e_output_free(&parsed);
	e2e_run_free(&r);

	t.script = alike;
	e2e_trace_run(c, &t, &r, &parsed);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "a type alike in both modules: exit %d",
		   e2e_run_exit_code(&r));
	/* dup_a = { 3 }: its int seen as struct same's x */
	e2e_expect(c, strstr(e2e_buf_str(&r.out), "  cast(&dup_a, \"struct same *\")->x = 3\n") &&
		   strstr(e2e_buf_str(&r.out), "  k = 7\n"), "the value through the other module's type");
	e2e_output_free(&parsed);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
}

/* Standard-library values in expressions at view_probe
 * of views_exprs_program (g++ -O0 -std=c++20): v = {1, 2, 3}, s =
 * "alice", up = {42, -7}, vs = {"zero", "one", a long string}, sp = {5,
 * 6}, vp = {{1, 10}, {2, 20}}, all by reference. An index past the length is the value's error, as a read
 * that failed. */
static const char views_script[] =
	"trace view_probe {\n"
	"  print v[1];\n"
	"  print v[9];\n"
	"  if s == \"alice\" { print \"yes\"; }\n"
	"  if s == \"alic\" { print \"prefix only\"; }\n"
	"  print s != \"bob\";\n"
	"  print len(v);\n"
	"  print *up;\n"
	"  print vs[1][0];\n"
	"  print vs[2] == \"a string longer than the small buffer\";\n"
	"  print len(s);\n"
	"  print \"{} {} {}\", v[2], len(vs), v[1] + v[2];\n"
	"  print \"[{:s}] [{:s}] [{:s}]\", s, vs[2], vs[0];\n"
	"  print sp->y;\n"
	"  print (*sp).x;\n"
	"  print vp[1].y;\n"
	"  if v[9] == 0 { print \"zero\"; }\n"
	"  print vs[len(vs) - 1][0];\n"
	"  if len(vp) == 2 && vp[0].x == 1 { print \"two\"; }\n"
	"}\n";

static const char *const views_expected[] = {
	"  v[1] = 2\n",
	"  yes\n",
	"  s != \"bob\" = true\n",
	"  len(v) = 3\n",
	"  vs[1][0] = 111 'o'\n",
	"  vs[2] == \"a string longer than the small buffer\" = true\n",
	"  len(s) = 5\n",
	"  3 3 5\n",
	"  [alice] [a string longer than the small buffer] [zero]\n",
	"  sp->y = 6\n",
	"  (*sp).x = 5\n",
	"  vp[1].y = 20\n",
	"  ExprError: v[9] == 0 (access error at 0x0000000000000009)\n",
	"  vs[len(vs) - 1][0] = 97 'a'\n",
	"  two\n",
};

/* Starts `fixture` (c->skip = why_missing when it was not built), traces
 * it with t for one event and expects each of the n lines; the run stays
 * in *r and *parsed (and the process in *f) for more checks. False when
 * nothing ran. */
static bool traced_lines(struct e2e_ctx *c, struct e2e_fixture *f, const char *fixture,
			 const char *why_missing, struct e2e_trace *t, const char *const *lines,
			 size_t n, struct e2e_run *r, struct e2e_output *parsed)
{
	const char *out;

	if (access(e2e_fixture_path(fixture), X_OK) != 0) {
		c->skip = why_missing;
		return false;
	}
	if (!e2e_fixture_start(f, fixture)) {
		e2e_expect(c, false, "fixture %s did not start", fixture);
		return false;
	}
	t->pid = f->pid;
	e2e_trace_run(c, t, r, parsed);
	out = e2e_buf_str(&r->out);
	e2e_expect(c, e2e_run_exit_code(r) == 0, "gstrace exited %d", e2e_run_exit_code(r));
	for (size_t i = 0; i < n; i++)
		e2e_expect(c, strstr(out, lines[i]) != NULL, "missing line: %s", lines[i]);
	return true;
}

static void s_views_exprs(struct e2e_ctx *c)
{
	struct e2e_fixture f;
	struct e2e_trace t = { .script = views_script, .max_events = 1 };
	struct e2e_output parsed;
	struct e2e_run r;
	const char *out;

	if (!traced_lines(c, &f, "views_exprs_program", "the C++ fixture needs g++, which this "
			  "machine lacks", &t, views_expected, BASE_ARRAY_SIZE(views_expected), &r,
			  &parsed))
		return;
	out = e2e_buf_str(&r.out);
	e2e_expect(c, !strstr(out, "prefix only"), "\"alic\" matched \"alice\"");
	/* out of range: the value's error, as a failed read shows it */
	e2e_expect(c, strstr(out, "  v[9] = <address computation failed>\n") != NULL,
		   "v[9] is not an error");
	/* up is a std::unique_ptr<S> &: the reference is its referent, and *
	 * and -> on the unique_ptr reach the S, as gdb's do */
	e2e_expect(c, strstr(out, "  *up = {x = 42, y = -7}\n") != NULL,
		   "*up is not the S the unique_ptr holds");
	e2e_output_free(&parsed);
	e2e_run_free(&r);
	t.script = "trace view_probe { print up->x; print (*up).y; print up; }";
	e2e_trace_run(c, &t, &r, &parsed);
	out = e2e_buf_str(&r.out);
	e2e_expect(c, strstr(out, "  up->x = 42\n") && strstr(out, "  (*up).y = -7\n"),
		   "up->x, (*up).y");
	e2e_expect(c, strstr(out, "  up = std::unique_ptr<S> = {get() = 0x") != NULL,
		   "up does not print as the unique_ptr it refers to");
	e2e_output_free(&parsed);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
}

/* The same in Rust (views_exprs_rust.rs, rustc -g -C opt-level=0): v =
 * vec![1, 2, 3], s = "alice", t = "bob" (a &str into the binary's
 * read-only data, no NUL after it), sl = [7, 8, 9], b = Box(S {4, 5}),
 * all by reference (a Box is a plain pointer in DWARF). */
static const char rust_script[] =
	"trace view_probe {\n"
	"  print v[1];\n"
	"  print v[5];\n"
	"  print len(v);\n"
	"  print s == \"alice\";\n"
	"  print t == \"bob\";\n"
	"  print t != \"bo\";\n"
	"  print sl[2];\n"
	"  print len(sl);\n"
	"  print (*b).x;\n"
	"  print (*b)->y;\n"
	"  print \"[{:s}] [{:s}]\", s, t;\n"
	"}\n";

static const char *const rust_expected[] = {
	"  v[1] = 2\n",
	"  v[5] = <address computation failed>\n",
	"  len(v) = 3\n",
	"  s == \"alice\" = true\n",
	"  t == \"bob\" = true\n",
	"  t != \"bo\" = true\n",
	"  sl[2] = 9\n",
	"  len(sl) = 3\n",
	"  (*b).x = 4\n",
	"  (*b)->y = 5\n",
	"  [alice] [bob]\n",
};

static void s_views_exprs_rust(struct e2e_ctx *c)
{
	struct e2e_fixture f;
	struct e2e_trace t = { .script = rust_script, .max_events = 1 };
	struct e2e_output parsed;
	struct e2e_run r;

	if (!traced_lines(c, &f, "views_exprs_rust", "the Rust fixture needs rustc, which this "
			  "machine lacks", &t, rust_expected, BASE_ARRAY_SIZE(rust_expected), &r, &parsed))
		return;
	e2e_output_free(&parsed);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
}

#define NEEDS E2E_NEED_TRACING

const struct e2e_scenario e2e_scriptvals_scenarios[] = {
	{ "script-values-gcc-O0-dw5", s_script_values, NEEDS },
	{ "script-values-clang-O2-dw5", s_script_values, NEEDS },
	{ "cast-type-two-modules", s_cast_two_modules, NEEDS },
	{ "views-exprs", s_views_exprs, NEEDS },
	{ "views-exprs-rust", s_views_exprs_rust, NEEDS },
};
const size_t e2e_scriptvals_nscenarios = BASE_ARRAY_SIZE(e2e_scriptvals_scenarios);
