/* An embedder that decodes events and prints them as gstrace does, linked
 * with the events layer alone (and what it needs: spec, unwind): no code
 * generator, assembler or runtime (lib-print-links-events-only checks the
 * binary against their archives). It decodes one hand-made event, a string
 * and a backtrace whose first frame is a function of this program, and
 * prints it through gs/print.h in each format, then counts it twice with
 * gs_aggregate (gs/fold.h). */
#define _GNU_SOURCE /* gettid */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/context.h>
#include <gs/decode.h>
#include <gs/fold.h>
#include <gs/print.h>
#include <gs/render.h>

#define HELLO "hello from an embedder"

/* The frame #0 of the event: a function of this program, with DWARF. */
__attribute__((noinline)) void print_only_leaf(void);
__attribute__((noinline)) void print_only_leaf(void)
{
	__asm__ volatile("");
}

struct fixture {
	struct gs_trace_context ctx;
	struct gs_decoder *d;
	const struct gs_event *ev;
	unsigned char bytes[256];
};

static size_t put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return n;
}

/* The wire bytes of one event: PrintStringIndex 0, a Backtrace of two
 * frames (print_only_leaf, then an address in no module) that stopped
 * truncated, EndInstruction. */
static size_t event_bytes(unsigned char *b)
{
	struct gs_event_header h = { GS_MAGIC };
	struct gs_event_message m = { .trace_id = 0, .timestamp = 1, .pid = (uint32_t)getpid(),
				      .tid = (uint32_t)gettid() };
	struct gs_inst_header print = { GS_INST_PRINT_STRING_INDEX,
					sizeof(struct gs_print_string_index), 0 };
	struct gs_print_string_index idx = { 0 };
	struct gs_inst_header bt = { GS_INST_BACKTRACE, sizeof(struct gs_backtrace_data) +
				     2 * sizeof(struct gs_backtrace_frame), 0 };
	struct gs_backtrace_data bd = { .requested_depth = 2, .frame_count = 2,
					.status = GS_BT_TRUNCATED };
	uint64_t leaf = (uint64_t)(uintptr_t)print_only_leaf;
	struct gs_backtrace_frame frames[2] = {
		{ .pc = leaf, .raw_ip = leaf }, { .pc = 0x10, .raw_ip = 0x10 },
	};
	struct gs_inst_header end = { GS_INST_END, sizeof(struct gs_end_instruction), 0 };
	struct gs_end_instruction e = { .total_instructions = 2 };
	size_t n = 0;

	n += put(b + n, &h, sizeof(h));
	n += put(b + n, &m, sizeof(m));
	n += put(b + n, &print, sizeof(print));
	n += put(b + n, &idx, sizeof(idx));
	n += put(b + n, &bt, sizeof(bt));
	n += put(b + n, &bd, sizeof(bd));
	n += put(b + n, frames, sizeof(frames));
	n += put(b + n, &end, sizeof(end));
	n += put(b + n, &e, sizeof(e));
	return n;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	const struct gs_trace_context *ctxs[1] = { &fx->ctx };
	struct gs_error err = { 0 };
	size_t n = event_bytes(fx->bytes);

	gs_context_init(&fx->ctx);
	GS_OPTS(gs_decoder_opts, dopts, .mode = GS_DECODE_PERF, .contexts = ctxs, .ncontexts = 1);
	assert_int_equal(gs_context_string(&fx->ctx, HELLO, &err), 0);
	assert_int_equal(gs_decoder_new(&dopts, &fx->d, &err), 0);
	assert_int_equal(gs_decoder_push(fx->d, fx->bytes, n, &err), 0);
	assert_int_equal(gs_decoder_next(fx->d, &fx->ev, &err), 1);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	gs_decoder_free(fx->d);
	gs_context_fini(&fx->ctx);
	free(fx);
	return 0;
}

/* What a printer with these options writes for ev (malloc'd). */
static char *print(const struct gs_event *ev, enum gs_print_format format)
{
	GS_OPTS(gs_printer_opts, popts, .format = format, .timestamp = GS_PRINT_TIME_NONE);
	struct gs_printer *p;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(gs_printer_new(&popts, &p, NULL), 0);
	assert_int_equal(gs_print_event(p, ev, f), 0);
	gs_printer_free(p);
	fclose(f);
	return text;
}

/* Line i (0-based) of text, without its newline, into buf. */
static const char *line(const char *text, int i, char *buf, size_t size)
{
	for (; i > 0 && text; i--)
		text = (text = strchr(text, '\n')) ? text + 1 : NULL;
	assert_non_null(text);
	snprintf(buf, size, "%.*s", (int)strcspn(text, "\n"), text);
	return buf;
}

static void test_plain_symbolizes_the_backtrace(void **state)
{
	struct fixture *fx = *state;
	char *got = print(fx->ev, GS_PRINT_PLAIN), l[512];

	assert_string_equal(line(got, 0, l, sizeof(l)), HELLO);
	assert_string_equal(line(got, 1, l, sizeof(l)), "backtrace: truncated, 2 frames (max 2)");
	line(got, 2, l, sizeof(l));
	assert_true(strncmp(l, "  #0 print_only_leaf at ", 24) == 0 ||
		    strncmp(l, "  #0 print_only_leaf() at ", 26) == 0);
	assert_non_null(strstr(l, "test_print_only.c:"));
	assert_non_null(strstr(l, " [test_lib_print_only+0x"));
	assert_string_equal(line(got, 3, l, sizeof(l)), "  #1 0x10 [0x10]");
	assert_string_equal(line(got, 4, l, sizeof(l)), "stopped: truncated");
	assert_string_equal(strstr(got, "stopped:"), "stopped: truncated\n"); /* the last line */
	free(got);
}

static void test_pretty_indents_under_the_header(void **state)
{
	struct fixture *fx = *state;
	char *got = print(fx->ev, GS_PRINT_PRETTY), l[512], want[128];

	snprintf(want, sizeof(want), "TraceID:0 PID:%u TID:%u", fx->ev->pid, fx->ev->tid);
	assert_string_equal(line(got, 0, l, sizeof(l)), want);
	assert_string_equal(line(got, 1, l, sizeof(l)), "  " HELLO);
	assert_string_equal(line(got, 2, l, sizeof(l)), "  backtrace: truncated, 2 frames (max 2)");
	assert_true(strncmp(line(got, 3, l, sizeof(l)), "    #0 print_only_leaf", 22) == 0);
	assert_string_equal(line(got, 4, l, sizeof(l)), "    #1 0x10 [0x10]");
	assert_string_equal(line(got, 5, l, sizeof(l)), "  stopped: truncated");
	free(got);
}

static void test_json_is_one_object(void **state)
{
	struct fixture *fx = *state;
	char *got = print(fx->ev, GS_PRINT_JSON), want[128];

	snprintf(want, sizeof(want), "{\"trace_id\":0,\"timestamp_ns\":1,\"timestamp\":null,"
		 "\"pid\":%u,\"tid\":%u,\"items\":[\"" HELLO "\",{\"kind\":\"backtrace\"",
		 fx->ev->pid, fx->ev->tid);
	assert_true(strncmp(got, want, strlen(want)) == 0);
	assert_non_null(strstr(got, "\"function\":\"print_only_leaf\""));
	assert_non_null(strstr(got, "\"module\":\"test_lib_print_only\""));
	assert_ptr_equal(strchr(got, '\n'), got + strlen(got) - 1);
	free(got);
}

static void test_aggregate_counts_and_folds(void **state)
{
	struct fixture *fx = *state;
	GS_OPTS(gs_printer_opts, popts, .format = GS_PRINT_PLAIN, .timestamp = GS_PRINT_TIME_NONE);
	GS_OPTS(gs_aggregate_opts, aopts, .events = true, .stacks = true, .print = &popts);
	struct gs_aggregate *a;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(gs_aggregate_new(&aopts, &a, NULL), 0);
	assert_int_equal(gs_aggregate_event(a, fx->ev, 1), 0);
	assert_int_equal(gs_aggregate_event(a, fx->ev, 1), 0);
	gs_aggregate_print_table(a, f, 1.0);
	gs_aggregate_print_folded(a, f);
	assert_int_equal(gs_counts_total(gs_aggregate_stacks(a)), 2);
	gs_aggregate_free(a);
	fclose(f);
	assert_true(strncmp(text, "@ 2 events, 1 distinct, in 1.0 s\n"
			    "2 (100.0%) TraceID:0\n" HELLO "\nbacktrace: truncated", 76) == 0);
	assert_non_null(strstr(text, "\n[unknown];print_only_leaf 2\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_symbolizes_the_backtrace),
		cmocka_unit_test(test_pretty_indents_under_the_header),
		cmocka_unit_test(test_json_is_one_object),
		cmocka_unit_test(test_aggregate_counts_and_folds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
