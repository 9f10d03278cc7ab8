/* Every malformed stream of the wire format (docs/protocol.md) and the
 * payload checks: the decoder fails with -EBADMSG, names the stream offset
 * of the offending byte and the reason, reads nothing out of bounds
 * (chunks are exact-size heap copies), and decodes the next chunk as a new
 * event. Offsets: magic at 0, message at 4, first instruction header at
 * 28, its payload at 32. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/decode.h>

#include "base.h"
#include "harness.h"

#define RB (1 << GS_DECODE_RINGBUF)
#define PERF (1 << GS_DECODE_PERF)

struct bad_case {
	const char *name;
	unsigned modes;
	void (*build)(struct wire *w);
	uint64_t offset;
	const char *reason;
};

static void prefix(struct wire *w)
{
	wire_event(w, 0, 1, 2, 3);
}

static void bad_magic(struct wire *w)
{
	wire_simple_event(w, 0, 1);
	wire_set_u8(w, 0, 0x54);
}

static void truncated_header(struct wire *w)
{
	wire_bytes(w, "\x53\x4c\x48", 3);
}

static void truncated_message(struct wire *w)
{
	wire_simple_event(w, 0, 1);
	w->len = 14;
}

static void truncated_inst_header(struct wire *w)
{
	wire_simple_event(w, 0, 1);
	w->len = 30;
}

static void truncated_payload(struct wire *w)
{
	wire_simple_event(w, 0, 1);
	w->len = 33;
}

static void no_end_instruction(struct wire *w)
{
	prefix(w);
	wire_string(w, 0);
}

static void data_length_past_end(struct wire *w)
{
	size_t at;

	prefix(w);
	at = wire_string(w, 0);
	wire_end(w, 1, 0);
	wire_set_u16(w, at + 1, 300);
}

static void data_length_past_max_event_size(struct wire *w)
{
	prefix(w);
	wire_inst(w, GS_INST_PRINT_COMPLEX_FORMAT, 65535);
}

static void unknown_type(struct wire *w)
{
	prefix(w);
	wire_inst(w, 0x04, 0);
	wire_end(w, 1, 0);
}

static void end_data_length_5(struct wire *w)
{
	prefix(w);
	wire_inst(w, GS_INST_END, 5);
	wire_bytes(w, NULL, 5);
}

static void string_data_length_1(struct wire *w)
{
	prefix(w);
	wire_inst(w, GS_INST_PRINT_STRING_INDEX, 1);
	wire_bytes(w, NULL, 1);
	wire_end(w, 1, 0);
}

static void expr_error_data_length_11(struct wire *w)
{
	prefix(w);
	wire_inst(w, GS_INST_EXPR_ERROR, 11);
	wire_bytes(w, NULL, 11);
	wire_end(w, 1, 0);
}

static void backtrace_data_length_7(struct wire *w)
{
	prefix(w);
	wire_inst(w, GS_INST_BACKTRACE, 7);
	wire_bytes(w, NULL, 7);
	wire_end(w, 1, 0);
}

static void frames_over_requested_depth(struct wire *w)
{
	prefix(w);
	wire_backtrace(w, 2, 3, 0, 0, 0, NULL);
	wire_end(w, 1, 0);
}

static void frames_over_data_length(struct wire *w)
{
	struct gs_backtrace_data d = { .requested_depth = 4, .frame_count = 3 };

	prefix(w);
	wire_inst(w, GS_INST_BACKTRACE, 8 + 2 * 32);
	wire_bytes(w, &d, sizeof(d));
	wire_bytes(w, NULL, 2 * 32);
	wire_end(w, 1, 0);
}

static void var_path_past_data_length(struct wire *w)
{
	prefix(w);
	wire_var(w, 0, 0, 0, "abc", "\1\2\3\4", 4);
	wire_set_u8(w, 36, 200); /* access_path_len */
	wire_end(w, 1, 0);
}

static void var_data_past_data_length(struct wire *w)
{
	prefix(w);
	wire_var(w, 0, 0, 0, "abc", "\1\2\3\4", 4);
	wire_set_u16(w, 38, 5); /* data_len: one byte too many */
	wire_end(w, 1, 0);
}

static void legacy_var_data_past_data_length(struct wire *w)
{
	prefix(w);
	wire_legacy_var(w, 0, GS_TYPE_I32, 0, 0, "\1\2\3\4", 4);
	wire_set_u16(w, 35, 6);
	wire_end(w, 1, 0);
}

static void format_arg_count_past_data_length(struct wire *w)
{
	size_t at;

	prefix(w);
	at = wire_format(w, 1, 2);
	wire_arg(w, 0, 0, 0, NULL, "\1\2\3\4", 4); /* at 36..48; the second would start at 48 */
	wire_close(w, at);
	wire_end(w, 1, 0);
}

static void format_arg_path_past_data_length(struct wire *w)
{
	size_t at;

	prefix(w);
	at = wire_format(w, 1, 1);
	wire_arg(w, 0, 0, 0, "ab", "\1\2\3\4", 4);
	wire_close(w, at);
	wire_set_u8(w, 40, 50); /* the arg's access_path_len */
	wire_end(w, 1, 0);
}

static void format_arg_data_past_data_length(struct wire *w)
{
	size_t at;

	prefix(w);
	at = wire_format(w, 1, 1);
	wire_arg(w, 0, 0, 0, "ab", "\1\2\3\4", 4);
	wire_close(w, at);
	wire_set_u16(w, 44, 100); /* the arg's data_len, after 6 + 2 path bytes */
	wire_end(w, 1, 0);
}

static void missing_string_index(struct wire *w)
{
	prefix(w);
	wire_string(w, 9);
	wire_end(w, 1, 0);
}

static void missing_format_string(struct wire *w)
{
	size_t at;

	prefix(w);
	at = wire_format(w, 9, 0);
	wire_close(w, at);
	wire_end(w, 1, 0);
}

static void missing_var_name(struct wire *w)
{
	prefix(w);
	wire_var(w, 5, 0, 0, NULL, "\1\2\3\4", 4);
	wire_end(w, 1, 0);
}

static void unknown_trace_id(struct wire *w)
{
	wire_simple_event(w, 2, 1);
}

static void bad_magic_after_good_event(struct wire *w)
{
	wire_simple_event(w, 0, 1);
	wire_simple_event(w, 0, 2);
	wire_set_u16(w, 42, 0);
}

static const struct bad_case cases[] = {
	{ "bad magic", RB | PERF, bad_magic, 0, "bad magic 0x43484c54 (expected 0x43484c53)" },
	{ "truncated header", RB | PERF, truncated_header, 0,
	  "ends inside the event header (3 bytes of the event, 4 needed)" },
	{ "truncated message", RB | PERF, truncated_message, 4,
	  "ends inside the event message (14 bytes of the event, 28 needed)" },
	{ "truncated instruction header", RB | PERF, truncated_inst_header, 28,
	  "ends inside an instruction header (30 bytes of the event, 32 needed)" },
	{ "truncated instruction", PERF, truncated_payload, 29,
	  "PrintStringIndex data_length 2 runs past the end of the record (33 bytes" },
	{ "truncated instruction", RB, truncated_payload, 29,
	  "PrintStringIndex data_length 2 runs past the end of the stream (33 bytes" },
	{ "no EndInstruction", RB | PERF, no_end_instruction, 34, "ends inside an instruction header" },
	{ "data_length past the end", RB | PERF, data_length_past_end, 29,
	  "PrintStringIndex data_length 300 runs past the end of the" },
	{ "data_length past max_event_size", RB | PERF, data_length_past_max_event_size, 29,
	  "PrintComplexFormat data_length 65535 takes the event past 32768 bytes" },
	{ "unknown instruction type", RB | PERF, unknown_type, 28, "unknown instruction type 0x04" },
	{ "EndInstruction data_length 5", RB | PERF, end_data_length_5, 29,
	  "EndInstruction data_length 5, expected 4" },
	{ "PrintStringIndex too short", RB | PERF, string_data_length_1, 29,
	  "PrintStringIndex data_length 1, expected at least 2" },
	{ "ExprError too short", RB | PERF, expr_error_data_length_11, 29,
	  "ExprError data_length 11, expected at least 12" },
	{ "Backtrace too short", RB | PERF, backtrace_data_length_7, 29,
	  "Backtrace data_length 7, expected at least 8" },
	{ "frame_count > requested_depth", RB | PERF, frames_over_requested_depth, 33,
	  "frame_count 3 exceeds requested_depth 2" },
	{ "frame_count > what data_length holds", RB | PERF, frames_over_data_length, 33,
	  "frame_count 3 exceeds the 2 frames data_length 72 holds" },
	{ "variable access path past data_length", RB | PERF, var_path_past_data_length, 36,
	  "PrintComplexVariable: access_path_len 200 runs past data_length 15" },
	{ "variable data past data_length", RB | PERF, var_data_past_data_length, 38,
	  "PrintComplexVariable: data_len 5 after a 3-byte access path runs past data_length 15" },
	{ "legacy variable data past data_length", RB | PERF, legacy_var_data_past_data_length, 35,
	  "PrintVariableIndex: data_len 6 runs past data_length 12" },
	{ "format arg_count past data_length", RB | PERF, format_arg_count_past_data_length, 48,
	  "PrintComplexFormat: argument 2 of 2 starts past data_length 16" },
	{ "format arg path past data_length", RB | PERF, format_arg_path_past_data_length, 40,
	  "argument 1 of 1: access_path_len 50 runs past data_length 18" },
	{ "format arg data past data_length", RB | PERF, format_arg_data_past_data_length, 44,
	  "argument 1 of 1: data_len 100 runs past data_length 18" },
	{ "missing string index", RB | PERF, missing_string_index, 32,
	  "PrintStringIndex: string index 9 is not in trace 0's table (4 strings)" },
	{ "missing format string", RB | PERF, missing_format_string, 32,
	  "PrintComplexFormat: string index 9 is not in trace 0's table (4 strings)" },
	{ "missing variable name", RB | PERF, missing_var_name, 32,
	  "PrintComplexVariable: variable name index 5 is not in trace 0's table (2 names)" },
	{ "unknown trace id", RB | PERF, unknown_trace_id, 4, "no trace context for trace id 2" },
	{ "offset counts from the stream start", RB, bad_magic_after_good_event, 42,
	  "bad magic 0x43480000" },
};

/* Decodes the case in one chunk; returns the result and fills h. */
static int run_case(struct harness *h, const struct bad_case *c, enum gs_decode_mode mode,
		    struct wire *w)
{
	int r;

	harness_init(h, mode);
	w->len = 0;
	c->build(w);
	r = harness_feed(h, w->buf, w->len);
	if (r >= 0)
		r = gs_decoder_finish(h->dec, &h->err);
	return r;
}

static void test_malformed_streams_name_offset_and_reason(void **state)
{
	struct wire *w = calloc(1, sizeof(*w)), *good = calloc(1, sizeof(*good));
	size_t failures = 0;

	(void)state;
	assert_non_null(w);
	assert_non_null(good);
	wire_simple_event(good, 1, 9);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++) {
		for (int mode = GS_DECODE_RINGBUF; mode <= GS_DECODE_PERF; mode++) {
			const struct bad_case *c = &cases[i];
			struct harness h;
			char where[64];
			int r, next;

			if (!(c->modes & 1u << mode))
				continue;
			r = run_case(&h, c, mode, w);
			snprintf(where, sizeof(where), "at offset %llu:",
				 (unsigned long long)c->offset);
			next = harness_feed(&h, good->buf, good->len);
			if (r != -EBADMSG || gs_decoder_error_offset(h.dec) != c->offset ||
			    !strstr(h.err.msg, c->reason) || !strstr(h.err.msg, where) || next != 1) {
				print_message("%s (%s): got %d at offset %llu, then %d: %s\n", c->name,
					      mode == GS_DECODE_PERF ? "perf" : "ringbuf", r,
					      (unsigned long long)gs_decoder_error_offset(h.dec), next,
					      h.err.msg);
				failures++;
			}
			harness_fini(&h);
		}
	}
	free(w);
	free(good);
	assert_int_equal(failures, 0);
}

static const struct bad_case *find_case(const char *name)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(cases); i++)
		if (strcmp(cases[i].name, name) == 0 && cases[i].modes & RB)
			return &cases[i];
	fail_msg("no case named %s", name);
	return NULL;
}

/* The same malformed event split at every byte: the same verdict. */
static void test_malformed_split_anywhere_gives_same_error(void **state)
{
	static const char *const picks[] = {
		"truncated header", "unknown instruction type", "frame_count > requested_depth",
		"variable access path past data_length", "format arg_count past data_length",
		"missing string index",
	};
	struct wire *w = calloc(1, sizeof(*w));

	(void)state;
	assert_non_null(w);
	for (size_t k = 0; k < BASE_ARRAY_SIZE(picks); k++) {
		const struct bad_case *c = find_case(picks[k]);

		w->len = 0;
		c->build(w);
		for (size_t cut = 0; cut <= w->len; cut++) {
			struct harness h;
			int r;

			harness_init(&h, GS_DECODE_RINGBUF);
			r = harness_feed_cuts(&h, w, &cut, 1);
			if (r != -EBADMSG || gs_decoder_error_offset(h.dec) != c->offset)
				fail_msg("%s cut at %zu: got %d at %llu: %s", c->name, cut, r,
					 (unsigned long long)gs_decoder_error_offset(h.dec), h.err.msg);
			harness_fini(&h);
		}
	}
	free(w);
}

static void test_error_message_says_event_is_dropped(void **state)
{
	struct harness h;
	struct wire *w = calloc(1, sizeof(*w));

	(void)state;
	assert_non_null(w);
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_simple_event(w, 0, 1);
	unknown_type(w);
	assert_int_equal(harness_feed(&h, w->buf, w->len), -EBADMSG);
	assert_int_equal(h.n, 1);
	assert_string_equal(h.err.msg, "malformed trace stream at offset 70: unknown instruction "
			    "type 0x04; the event at offset 42 is dropped");
	harness_fini(&h);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed_streams_name_offset_and_reason),
		cmocka_unit_test(test_malformed_split_anywhere_gives_same_error),
		cmocka_unit_test(test_error_message_says_event_is_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
