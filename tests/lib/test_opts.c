/* Options structs on libbpf's model (docs/api.md), checked through public
 * calls of four layers: sz 0 is refused with a message naming the struct
 * and GS_OPTS, a byte set past the library's struct (a field of newer
 * headers) is refused, an older caller's shorter struct reads as defaults
 * past its sz, and NULL options are the defaults. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include <gs/internal/runtime.h>
#include <gs/decode.h>
#include <gs/render.h>
#include <gs/runtime.h>
#include <gs/script.h>

static const char script_text[] = "trace main { print \"hit\"; }";

/* A caller built against newer headers: the library's struct, then a field
 * it does not know. */
struct newer_script_opts {
	struct gs_script_opts known;
	uint64_t future_field;
};

static void test_gs_opts_sets_sz_and_fields(void **state)
{
	GS_OPTS(gs_plan_opts, o, .pid = 42);

	(void)state;
	assert_int_equal(o.sz, sizeof(struct gs_plan_opts));
	assert_int_equal(o.pid, 42);
	assert_null(o.module);
	assert_null(o.program);
}

static void test_sz_zero_is_refused_with_the_fix(void **state)
{
	struct gs_script_opts so = { .name = "x" };
	struct gs_decoder_opts dopts = { .mode = GS_DECODE_PERF };
	struct gs_plan_opts popts = { .pid = 1 };
	struct gs_program_opts prog = { .backtrace_depth = 4 };
	struct gs_trace_spec spec = { .target = "t" };
	struct gs_script *s = (struct gs_script *)1;
	struct gs_decoder *d = (struct gs_decoder *)1;
	struct gs_plan *p = (struct gs_plan *)1;
	struct gs_program *prog_out = (struct gs_program *)1;
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_script_parse(script_text, strlen(script_text), &so, &s, &err), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err.msg, "struct gs_script_opts has sz 0"));
	assert_non_null(strstr(err.msg, "GS_OPTS(gs_script_opts"));

	assert_int_equal(gs_decoder_new(&dopts, &d, &err), -EINVAL);
	assert_null(d);
	assert_non_null(strstr(err.msg, "struct gs_decoder_opts has sz 0"));

	assert_int_equal(gs_plan_new(&popts, &p, &err), -EINVAL);
	assert_null(p);
	assert_non_null(strstr(err.msg, "struct gs_plan_opts has sz 0"));

	assert_int_equal(gs_program_build(&spec, &prog, &prog_out, &err), -EINVAL);
	assert_null(prog_out);
	assert_non_null(strstr(err.msg, "struct gs_program_opts has sz 0"));
}

static int ignore_event(void *arg, const struct gs_event *ev)
{
	(void)arg;
	(void)ev;
	return 0;
}

static void test_options_nested_by_pointer_are_checked_too(void **state)
{
	struct gs_program_opts prog = { .backtrace_depth = 4 }; /* sz 0 */
	struct gs_decoder_opts dec = { .mode = GS_DECODE_PERF }; /* sz 0 */
	GS_OPTS(gs_plan_opts, popts, .program = &prog);
	GS_OPTS(gs_reader_opts, ropts, .decoder = &dec, .on_event = ignore_event);
	struct gs_reader *r;
	struct gs_plan *p;
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_plan_new(&popts, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "struct gs_program_opts has sz 0"));
	assert_int_equal(gs_reader_new(&ropts, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "struct gs_decoder_opts has sz 0"));
	dec.sz = sizeof(dec);
	assert_int_equal(gs_reader_new(&ropts, &r, &err), 0);
	gs_reader_free(r);
}

static void test_fields_of_newer_headers_are_refused(void **state)
{
	struct newer_script_opts n;
	struct gs_script *s;
	struct gs_error err;

	(void)state;
	memset(&n, 0, sizeof(n));
	n.known.sz = sizeof(n);
	n.future_field = 1;
	assert_int_equal(gs_script_parse(script_text, strlen(script_text), &n.known, &s, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "struct gs_script_opts sets byte"));
	assert_non_null(strstr(err.msg, "build against this library's headers"));

	/* The same struct with the unknown field left zero is fine. */
	n.future_field = 0;
	n.known.name = "newer";
	assert_int_equal(gs_script_parse(script_text, strlen(script_text), &n.known, &s, &err), 0);
	gs_script_free(s);
}

static void test_an_older_callers_shorter_struct_reads_defaults_past_sz(void **state)
{
	/* An older caller knew only sz and name; input_pid is garbage here
	 * and must not be read: with it, $input_pid would compile. */
	struct gs_script_opts old;
	const char text[] = "trace main { print $input_pid; }";
	struct gs_script *s;
	struct gs_error err;

	(void)state;
	memset(&old, 0x7f, sizeof(old));
	old.sz = offsetof(struct gs_script_opts, name) + sizeof(old.name);
	old.name = "old";
	assert_int_equal(gs_script_parse(text, strlen(text), &old, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "old:1:"));
	assert_non_null(strstr(err.msg, "$input_pid"));

	old.sz = sizeof(old);
	old.input_pid = 7;
	assert_int_equal(gs_script_parse(text, strlen(text), &old, &s, &err), 0);
	gs_script_free(s);
}

static void test_null_options_are_the_defaults(void **state)
{
	struct gs_script *s;
	struct gs_plan *p;
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_script_parse(script_text, strlen(script_text), NULL, &s, &err), 0);
	gs_script_free(s);
	assert_int_equal(gs_plan_new(NULL, &p, &err), 0);
	gs_plan_free(p);
}

static void test_render_with_sz_zero_renders_nothing(void **state)
{
	struct gs_render_opts ro = { .style = GS_RENDER_PLAIN }; /* sz 0 */
	struct gs_inst end = { .type = GS_INST_END };
	struct gs_event ev = { .insts = &end, .ninsts = 1 };
	char buf[64] = "unchanged";

	(void)state;
	errno = 0;
	assert_int_equal(gs_render_event(&ev, &ro, buf, sizeof(buf)), 0);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(buf, "");
	ro.sz = sizeof(ro);
	assert_true(gs_render_event(&ev, &ro, buf, sizeof(buf)) == 0); /* plain: END is empty */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gs_opts_sets_sz_and_fields),
		cmocka_unit_test(test_sz_zero_is_refused_with_the_fix),
		cmocka_unit_test(test_options_nested_by_pointer_are_checked_too),
		cmocka_unit_test(test_fields_of_newer_headers_are_refused),
		cmocka_unit_test(test_an_older_callers_shorter_struct_reads_defaults_past_sz),
		cmocka_unit_test(test_null_options_are_the_defaults),
		cmocka_unit_test(test_render_with_sz_zero_renders_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
