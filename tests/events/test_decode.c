/* The decoder on hand-written, well-formed streams: each instruction type
 * decodes to the fields it was built from; a ring buffer event split at
 * every byte boundary decodes as it does whole; residue carries over; perf
 * records drop their padding. Malformed streams: test_decode_malformed.c. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/decode.h>
#include <gs/fold.h>
#include <gs/render.h>

#include "harness.h"

static struct wire *wire_new(void)
{
	struct wire *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	return w;
}

/* Decodes w (one chunk) and returns the only event, or fails. */
static const struct gs_event *decode_one(struct harness *h, const struct wire *w)
{
	const struct gs_event *ev = NULL;

	assert_int_equal(gs_decoder_push(h->dec, w->buf, w->len, &h->err), 0);
	assert_int_equal(gs_decoder_next(h->dec, &ev, &h->err), 1);
	return ev;
}

static void expect_drained(struct harness *h)
{
	const struct gs_event *ev;

	assert_int_equal(gs_decoder_next(h->dec, &ev, &h->err), 0);
	assert_int_equal(gs_decoder_finish(h->dec, &h->err), 0);
}

static void test_message_fields_and_end(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_event *ev;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 1, 123456789, 4242, 4243);
	wire_end(w, 7, GS_EXEC_PARTIAL_FAILURE);
	ev = decode_one(&h, w);
	assert_int_equal(ev->trace_id, 1);
	assert_int_equal(ev->timestamp, 123456789);
	assert_int_equal(ev->pid, 4242);
	assert_int_equal(ev->tid, 4243);
	assert_int_equal(ev->stream_offset, 0);
	assert_int_equal(ev->size, GS_MIN_EVENT_SIZE);
	assert_ptr_equal(ev->ctx, &h.ctx[1]);
	assert_int_equal(ev->ninsts, 1);
	assert_int_equal(ev->insts[0].type, GS_INST_END);
	assert_int_equal(ev->insts[0].offset, 28);
	assert_int_equal(ev->insts[0].end.total_instructions, 7);
	assert_int_equal(ev->insts[0].end.execution_status, GS_EXEC_PARTIAL_FAILURE);
	expect_drained(&h);
	harness_fini(&h);
	free(w);
}

static void test_print_string_resolves_text(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_event *ev;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 0, 1, 2, 3);
	wire_string(w, 2);
	wire_end(w, 1, 0);
	ev = decode_one(&h, w);
	assert_int_equal(ev->ninsts, 2);
	assert_int_equal(ev->insts[0].type, GS_INST_PRINT_STRING_INDEX);
	assert_int_equal(ev->insts[0].string.index, 2);
	assert_string_equal(ev->insts[0].string.text, "ptr->len > 0");
	assert_int_equal(ev->insts[1].offset, 28 + 6);
	harness_fini(&h);
	free(w);
}

static void test_complex_variable_points_at_path_and_value(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_value *v;
	int32_t val = -5;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 0, 1, 2, 3);
	wire_var(w, 1, 0, GS_VAR_OK, "len", &val, sizeof(val));
	wire_end(w, 1, 0);
	v = &decode_one(&h, w)->insts[0].variable;
	assert_string_equal(v->name, "ptr");
	assert_int_equal(v->var_name_index, 1);
	assert_int_equal(v->type_index, 0);
	assert_non_null(v->type);
	assert_string_equal(v->type->name, "int");
	assert_int_equal(v->kind, GS_TYPE_I32);
	assert_int_equal(v->status, GS_VAR_OK);
	assert_int_equal(v->access_path_len, 3);
	assert_memory_equal(v->access_path, "len", 3);
	assert_int_equal(v->data_len, 4);
	assert_memory_equal(v->data, &val, 4);
	harness_fini(&h);
	free(w);
}

/* A runtime read reserves max(value, 12) bytes; a failed one fills only the
 * 12-byte error payload and the header's data_length covers the slot. */
static void test_complex_variable_with_reserved_slack(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_event *ev;
	struct gs_read_error_payload e = { .errno_value = -14, .addr = 0x1000 };
	size_t at;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 0, 1, 2, 3);
	at = wire_var(w, 0, 1, GS_VAR_READ_ERROR, NULL, &e, sizeof(e));
	wire_bytes(w, NULL, 4); /* slack up to a 16-byte slot */
	wire_set_u16(w, at + 1, 8 + 16);
	wire_end(w, 1, GS_EXEC_COMPLETE_FAILURE);
	ev = decode_one(&h, w);
	assert_int_equal(ev->ninsts, 2);
	assert_int_equal(ev->insts[0].variable.status, GS_VAR_READ_ERROR);
	assert_int_equal(ev->insts[0].variable.data_len, 12);
	assert_int_equal(ev->insts[1].type, GS_INST_END);
	harness_fini(&h);
	free(w);
}

static void test_legacy_variable_index_takes_kind_from_wire(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_value *v;
	uint16_t val = 65535;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 0, 1, 2, 3);
	wire_legacy_var(w, 0, GS_TYPE_U16, 999, GS_VAR_OK, &val, sizeof(val));
	wire_end(w, 1, 0);
	v = &decode_one(&h, w)->insts[0].variable;
	assert_string_equal(v->name, "count");
	assert_int_equal(v->kind, GS_TYPE_U16);
	assert_null(v->type); /* index 999 is not in the table: allowed */
	assert_int_equal(v->data_len, 2);
	assert_int_equal(v->access_path_len, 0);
	harness_fini(&h);
	free(w);
}

static void test_complex_format_walks_args(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_inst *in;
	int32_t a = 7;
	uint8_t slot[12] = { 0xff, 0xee };
	size_t at;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 0, 1, 2, 3);
	at = wire_format(w, 1, 2);
	wire_arg(w, 0, 0, GS_VAR_OK, NULL, &a, sizeof(a));
	wire_arg(w, 77, 1, GS_VAR_OK, "p.q", slot, sizeof(slot));
	wire_close(w, at);
	wire_end(w, 1, 0);
	in = &decode_one(&h, w)->insts[0];
	assert_int_equal(in->type, GS_INST_PRINT_COMPLEX_FORMAT);
	assert_string_equal(in->format.format, "x={} hex={:x}");
	assert_int_equal(in->format.arg_count, 2);
	assert_string_equal(in->format.args[0].name, "count");
	assert_int_equal(in->format.args[0].data_len, 4);
	assert_memory_equal(in->format.args[0].data, &a, 4);
	assert_null(in->format.args[1].name); /* unknown name: allowed for args */
	assert_int_equal(in->format.args[1].kind, GS_TYPE_U64);
	assert_int_equal(in->format.args[1].access_path_len, 3);
	assert_memory_equal(in->format.args[1].access_path, "p.q", 3);
	assert_int_equal(in->format.args[1].data_len, 12);
	assert_memory_equal(in->format.args[1].data, slot, 12);
	harness_fini(&h);
	free(w);
}

static void test_backtrace_keeps_only_valid_frames(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_inst *in;
	const struct gs_backtrace_frame frames[2] = {
		{ .module_cookie = 0x1122334455667788ULL, .pc = 0x1189, .raw_ip = 0x555555555189ULL },
		{ .module_cookie = 0x1122334455667788ULL, .pc = 0x2000, .raw_ip = 0x555555556000ULL },
	};

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 0, 1, 2, 3);
	wire_backtrace(w, 5, 2, GS_BT_FLAG_INLINE, GS_BT_READ_ERROR, GS_BT_ERROR_RETURN_ADDRESS_READ,
		       frames);
	wire_end(w, 1, 0);
	in = &decode_one(&h, w)->insts[0];
	assert_int_equal(in->type, GS_INST_BACKTRACE);
	assert_int_equal(in->backtrace.requested_depth, 5);
	assert_int_equal(in->backtrace.frame_count, 2);
	assert_int_equal(in->backtrace.flags, GS_BT_FLAG_INLINE);
	assert_int_equal(in->backtrace.status, GS_BT_READ_ERROR);
	assert_int_equal(in->backtrace.error_code, GS_BT_ERROR_RETURN_ADDRESS_READ);
	assert_int_equal(in->backtrace.frames[1].pc, 0x2000);
	assert_int_equal(in->backtrace.frames[1].raw_ip, 0x555555556000ULL);
	assert_int_equal(in->backtrace.frames[0].module_cookie, 0x1122334455667788ULL);
	harness_fini(&h);
	free(w);
}

/* A CPU sample's kernel stack: its frames as written, shown by address in
 * the plain rendering (no resolver) and folded outermost first with _[k];
 * frame_count past requested_depth is refused. */
static void test_kernel_stack_decodes_renders_and_folds(void **state)
{
	static const uint64_t addrs[3] = { 0xffffffff81000010ull, 0xffffffff81000020ull,
					   0xffffffff81000030ull };
	struct gs_kernel_stack ks = { .requested_depth = 4, .frame_count = 3 };
	uint64_t slots[4] = { addrs[0], addrs[1], addrs[2], 0 };
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_inst *in;
	char text[512], folded[256];
	size_t at;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 0, 1, 2, 3);
	wire_inst(w, GS_INST_KERNEL_STACK, sizeof(ks) + sizeof(slots));
	wire_bytes(w, &ks, sizeof(ks));
	wire_bytes(w, slots, sizeof(slots));
	wire_end(w, 1, 0);
	in = &decode_one(&h, w)->insts[0];
	assert_int_equal(in->type, GS_INST_KERNEL_STACK);
	assert_int_equal(in->kernel_stack.requested_depth, 4);
	assert_int_equal(in->kernel_stack.frame_count, 3);
	assert_memory_equal(in->kernel_stack.addrs, addrs, sizeof(addrs));
	gs_render_inst(in, text, sizeof(text));
	assert_string_equal(text, "kernel stack: 3 frames\n"
			    "  #0 0xffffffff81000010 [kernel]\n"
			    "  #1 0xffffffff81000020 [kernel]\n"
			    "  #2 0xffffffff81000030 [kernel]");
	gs_fold_kernel_stack(NULL, in, folded, sizeof(folded));
	assert_string_equal(folded, "0xffffffff81000030_[k];0xffffffff81000020_[k];"
			    "0xffffffff81000010_[k]");
	harness_fini(&h);
	/* more frames than the stack holds */
	harness_init(&h, GS_DECODE_RINGBUF);
	w->len = 0;
	ks.frame_count = 5;
	wire_event(w, 0, 1, 2, 3);
	at = wire_inst(w, GS_INST_KERNEL_STACK, sizeof(ks) + sizeof(slots));
	(void)at;
	wire_bytes(w, &ks, sizeof(ks));
	wire_bytes(w, slots, sizeof(slots));
	wire_end(w, 1, 0);
	assert_int_equal(gs_decoder_push(h.dec, w->buf, w->len, &h.err), 0);
	{
		const struct gs_event *ev;

		assert_true(gs_decoder_next(h.dec, &ev, &h.err) < 0);
		assert_non_null(strstr(h.err.msg, "KernelStack: frame_count 5 exceeds"));
	}
	harness_fini(&h);
	free(w);
}

static void test_expr_error_names_missing_index(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_event *ev;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_event(w, 0, 1, 2, 3);
	wire_expr_error(w, 2, GS_VAR_READ_ERROR, GS_EXPR_ERR_LEN_CLAMPED, 0xdeadbeef);
	wire_expr_error(w, 4321, GS_VAR_NULL_DEREF, 0, 0);
	wire_expr_error(w, 65535, GS_VAR_NULL_DEREF, 0, 0);
	wire_end(w, 3, 0);
	ev = decode_one(&h, w);
	assert_int_equal(ev->ninsts, 4);
	assert_string_equal(ev->insts[0].expr_error.expr, "ptr->len > 0");
	assert_int_equal(ev->insts[0].expr_error.error_code, GS_VAR_READ_ERROR);
	assert_int_equal(ev->insts[0].expr_error.flags, GS_EXPR_ERR_LEN_CLAMPED);
	assert_int_equal(ev->insts[0].expr_error.failing_addr, 0xdeadbeef);
	assert_string_equal(ev->insts[1].expr_error.expr, "<INVALID_EXPR_INDEX_4321>");
	assert_string_equal(ev->insts[2].expr_error.expr, "<INVALID_EXPR_INDEX_65535>");
	harness_fini(&h);
	free(w);
}

/* One event with every instruction type. */
static void build_rich_event(struct wire *w, uint64_t trace_id)
{
	const struct gs_backtrace_frame f = { .module_cookie = 42, .pc = 0x10, .raw_ip = 0x7f0010 };
	int32_t a = -3;
	uint64_t b = 0xabcdef;
	size_t at;

	wire_event(w, trace_id, 99, 10, 11);
	wire_string(w, 0);
	wire_var(w, 0, 0, GS_VAR_OK, NULL, &a, sizeof(a));
	at = wire_format(w, 1, 2);
	wire_arg(w, 0, 0, GS_VAR_OK, NULL, &a, sizeof(a));
	wire_arg(w, 1, 1, GS_VAR_OK, NULL, &b, sizeof(b));
	wire_close(w, at);
	wire_backtrace(w, 3, 1, 0, GS_BT_TRUNCATED, 0, &f);
	wire_expr_error(w, 2, GS_VAR_NULL_DEREF, 0, 0);
	wire_legacy_var(w, 1, GS_TYPE_U64, 1, GS_VAR_OK, &b, sizeof(b));
	wire_end(w, 6, GS_EXEC_SUCCESS);
}

static void test_ringbuf_split_at_every_boundary_decodes_identically(void **state)
{
	struct wire *w = wire_new();
	struct harness whole;

	(void)state;
	build_rich_event(w, 1);
	harness_init(&whole, GS_DECODE_RINGBUF);
	assert_int_equal(harness_feed_cuts(&whole, w, NULL, 0), 0);
	assert_int_equal(whole.n, 1);
	for (size_t cut = 0; cut <= w->len; cut++) {
		struct harness h;

		harness_init(&h, GS_DECODE_RINGBUF);
		assert_int_equal(harness_feed_cuts(&h, w, &cut, 1), 0);
		assert_int_equal(h.n, 1);
		assert_string_equal(h.summary[0], whole.summary[0]);
		harness_fini(&h);
	}
	harness_fini(&whole);
	free(w);
}

static void test_ringbuf_one_byte_chunks_decode_identically(void **state)
{
	struct wire *w = wire_new();
	struct harness whole, h;
	size_t *cuts;

	(void)state;
	build_rich_event(w, 0);
	wire_simple_event(w, 1, 77);
	cuts = calloc(w->len, sizeof(*cuts));
	assert_non_null(cuts);
	for (size_t i = 0; i + 1 < w->len; i++)
		cuts[i] = i + 1;
	harness_init(&whole, GS_DECODE_RINGBUF);
	harness_init(&h, GS_DECODE_RINGBUF);
	assert_int_equal(harness_feed_cuts(&whole, w, NULL, 0), 0);
	assert_int_equal(harness_feed_cuts(&h, w, cuts, w->len - 1), 0);
	assert_int_equal(h.n, 2);
	assert_string_equal(h.summary[0], whole.summary[0]);
	assert_string_equal(h.summary[1], whole.summary[1]);
	harness_fini(&whole);
	harness_fini(&h);
	free(cuts);
	free(w);
}

static void test_ringbuf_two_events_in_one_chunk(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	size_t second;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_simple_event(w, 0, 1);
	second = wire_simple_event(w, 1, 2);
	assert_int_equal(harness_feed(&h, w->buf, w->len), 2);
	assert_int_equal(h.n, 2);
	assert_non_null(strstr(h.summary[0], "trace=0 ts=1001 pid=1 tid=2 off=0 size=42 insts=2\n"));
	assert_non_null(strstr(h.summary[1], "pid=2 tid=3 off=42 "));
	assert_int_equal(second, 42);
	assert_int_equal(gs_decoder_finish(h.dec, &h.err), 0);
	harness_fini(&h);
	free(w);
}

/* Chunk 1: event A and the head of B; chunk 2: the rest of B and all of C. */
static void test_ringbuf_residue_carries_over(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	size_t b, c;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_simple_event(w, 0, 1);
	b = wire_simple_event(w, 0, 2);
	c = wire_simple_event(w, 1, 3);
	assert_int_equal(harness_feed(&h, w->buf, b + 10), 1);
	assert_int_equal(harness_feed(&h, w->buf + b + 10, w->len - b - 10), 2);
	assert_int_equal(h.n, 3);
	assert_non_null(strstr(h.summary[1], "pid=2 "));
	assert_non_null(strstr(h.summary[1], "off=42 "));
	assert_non_null(strstr(h.summary[2], "trace=1 "));
	assert_int_equal(c, 84);
	assert_int_equal(gs_decoder_finish(h.dec, &h.err), 0);
	harness_fini(&h);
	free(w);
}

static void test_perf_record_padding_is_discarded(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	size_t end;

	(void)state;
	harness_init(&h, GS_DECODE_PERF);
	wire_simple_event(w, 0, 1);
	end = w->len;
	wire_simple_event(w, 0, 2); /* a whole event as padding: still dropped */
	wire_bytes(w, "\x53\x4c\x48", 3);
	assert_int_equal(harness_feed(&h, w->buf, w->len), 1);
	assert_int_equal(harness_feed(&h, w->buf, end), 1);
	assert_int_equal(h.n, 2);
	assert_non_null(strstr(h.summary[0], "pid=1 tid=2 off=0 "));
	assert_non_null(strstr(h.summary[1], "pid=1 tid=2 off=87 ")); /* 42 + 42 + 3 */
	assert_int_equal(gs_decoder_finish(h.dec, &h.err), 0);
	harness_fini(&h);
	free(w);
}

static const struct gs_trace_context *lookup_odd(void *arg, uint64_t id)
{
	return id % 2 ? arg : NULL;
}

static void test_lookup_callback_picks_context_by_trace_id(void **state)
{
	struct gs_trace_context ctx;
	GS_OPTS(gs_decoder_opts, opts, .lookup = lookup_odd, .lookup_arg = &ctx);
	struct gs_decoder *d;
	struct wire *w = wire_new();
	const struct gs_event *ev;
	struct gs_error err;

	(void)state;
	wire_test_context(&ctx);
	assert_int_equal(gs_decoder_new(&opts, &d, &err), 0);
	wire_simple_event(w, 3, 1);
	wire_simple_event(w, 4, 1);
	assert_int_equal(gs_decoder_push(d, w->buf, w->len, &err), 0);
	assert_int_equal(gs_decoder_next(d, &ev, &err), 1);
	assert_ptr_equal(ev->ctx, &ctx);
	assert_int_equal(gs_decoder_next(d, &ev, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "no trace context for trace id 4"));
	gs_decoder_free(d);
	gs_context_fini(&ctx);
	free(w);
}

static int stop_after_first(void *arg, const struct gs_event *ev)
{
	(void)ev;
	++*(int *)arg;
	return -ECANCELED;
}

static void test_feed_stops_when_callback_returns_nonzero(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	int calls = 0;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_simple_event(w, 0, 1);
	wire_simple_event(w, 0, 2);
	assert_int_equal(gs_decoder_feed(h.dec, w->buf, w->len, stop_after_first, &calls, &h.err),
			 -ECANCELED);
	assert_int_equal(calls, 1);
	/* The rest of the chunk was dropped: the next chunk starts fresh. */
	assert_int_equal(harness_feed(&h, w->buf, 42), 1);
	assert_non_null(strstr(h.summary[0], "off=84 "));
	harness_fini(&h);
	free(w);
}

static void test_push_before_chunk_is_drained_is_busy(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_event *ev;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_simple_event(w, 0, 1);
	wire_simple_event(w, 0, 2);
	assert_int_equal(gs_decoder_push(h.dec, w->buf, w->len, &h.err), 0);
	assert_int_equal(gs_decoder_next(h.dec, &ev, &h.err), 1);
	assert_int_equal(gs_decoder_push(h.dec, w->buf, w->len, &h.err), -EBUSY);
	assert_int_equal(gs_decoder_finish(h.dec, &h.err), -EBUSY);
	assert_int_equal(gs_decoder_next(h.dec, &ev, &h.err), 1);
	assert_int_equal(ev->pid, 2);
	expect_drained(&h);
	harness_fini(&h);
	free(w);
}

static void test_reset_restarts_offsets_and_drops_partial(void **state)
{
	struct harness h;
	struct wire *w = wire_new();

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	wire_simple_event(w, 0, 1);
	assert_int_equal(harness_feed(&h, w->buf, 20), 0);
	gs_decoder_reset(h.dec);
	assert_int_equal(harness_feed(&h, w->buf, w->len), 1);
	assert_non_null(strstr(h.summary[0], "off=0 "));
	assert_int_equal(gs_decoder_finish(h.dec, &h.err), 0);
	harness_fini(&h);
	free(w);
}

static void test_empty_chunks_are_harmless(void **state)
{
	struct harness h;
	struct wire *w = wire_new();
	const struct gs_event *ev;

	(void)state;
	harness_init(&h, GS_DECODE_RINGBUF);
	assert_int_equal(gs_decoder_next(h.dec, &ev, &h.err), 0); /* nothing pushed yet */
	assert_int_equal(gs_decoder_feed(h.dec, NULL, 0, NULL, NULL, &h.err), 0);
	wire_simple_event(w, 0, 1);
	assert_int_equal(harness_feed(&h, w->buf, 10), 0);
	assert_int_equal(gs_decoder_feed(h.dec, NULL, 0, NULL, NULL, &h.err), 0);
	assert_int_equal(harness_feed(&h, w->buf + 10, w->len - 10), 1);
	assert_int_equal(gs_decoder_feed(h.dec, NULL, 0, NULL, NULL, &h.err), 0);
	assert_non_null(strstr(h.summary[0], "off=0 size=42 "));
	assert_int_equal(gs_decoder_finish(h.dec, &h.err), 0);
	harness_fini(&h);
	free(w);
}

static void test_bad_options_are_rejected(void **state)
{
	GS_OPTS(gs_decoder_opts, small, .max_event_size = 35);
	GS_OPTS(gs_decoder_opts, mode, .mode = 7);
	GS_OPTS(gs_decoder_opts, nulls, .ncontexts = 3);
	struct gs_decoder *d;
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_decoder_new(&small, &d, &err), -EINVAL);
	assert_null(d);
	assert_int_equal(gs_decoder_new(&mode, &d, &err), -EINVAL);
	assert_int_equal(gs_decoder_new(&nulls, &d, &err), -EINVAL);
	gs_decoder_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_fields_and_end),
		cmocka_unit_test(test_print_string_resolves_text),
		cmocka_unit_test(test_complex_variable_points_at_path_and_value),
		cmocka_unit_test(test_complex_variable_with_reserved_slack),
		cmocka_unit_test(test_legacy_variable_index_takes_kind_from_wire),
		cmocka_unit_test(test_complex_format_walks_args),
		cmocka_unit_test(test_backtrace_keeps_only_valid_frames),
		cmocka_unit_test(test_kernel_stack_decodes_renders_and_folds),
		cmocka_unit_test(test_expr_error_names_missing_index),
		cmocka_unit_test(test_ringbuf_split_at_every_boundary_decodes_identically),
		cmocka_unit_test(test_ringbuf_one_byte_chunks_decode_identically),
		cmocka_unit_test(test_ringbuf_two_events_in_one_chunk),
		cmocka_unit_test(test_ringbuf_residue_carries_over),
		cmocka_unit_test(test_perf_record_padding_is_discarded),
		cmocka_unit_test(test_lookup_callback_picks_context_by_trace_id),
		cmocka_unit_test(test_feed_stops_when_callback_returns_nonzero),
		cmocka_unit_test(test_push_before_chunk_is_drained_is_busy),
		cmocka_unit_test(test_reset_restarts_offsets_and_drops_partial),
		cmocka_unit_test(test_empty_chunks_are_harmless),
		cmocka_unit_test(test_bad_options_are_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
