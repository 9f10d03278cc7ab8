/* Builders of hand-written trace streams for the decoder tests: each call
 * appends one packed struct of gs/protocol.h (or a whole instruction) and
 * returns the offset it starts at, so a test can patch a field or name the
 * offset an error must report. Plus the small context every test shares. */
#ifndef GS_TEST_WIRE_H
#define GS_TEST_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <gs/context.h>
#include <gs/protocol.h>

#define WIRE_MAX (1 << 17)

struct wire {
	uint8_t buf[WIRE_MAX];
	size_t len;
};

size_t wire_bytes(struct wire *w, const void *p, size_t n);
/* Header and message. */
size_t wire_event(struct wire *w, uint64_t trace_id, uint64_t ts, uint32_t pid, uint32_t tid);
/* An instruction header alone. */
size_t wire_inst(struct wire *w, uint8_t type, uint16_t data_length);
size_t wire_string(struct wire *w, uint16_t index);
size_t wire_var(struct wire *w, uint16_t name, uint16_t type, uint8_t status, const char *path,
		const void *data, uint16_t data_len);
size_t wire_legacy_var(struct wire *w, uint16_t name, uint8_t kind, uint16_t type, uint8_t status,
		       const void *data, uint16_t data_len);
/* A PrintComplexFormat header and payload head; append args with
 * wire_arg(), then wire_close() sets data_length. */
size_t wire_format(struct wire *w, uint16_t fmt, uint8_t argc);
void wire_arg(struct wire *w, uint16_t name, uint16_t type, uint8_t status, const char *path,
	      const void *data, uint16_t data_len);
void wire_close(struct wire *w, size_t inst);
/* A Backtrace with `depth` slots, the first `count` from frames (may be NULL). */
size_t wire_backtrace(struct wire *w, uint8_t depth, uint8_t count, uint8_t flags,
		      uint8_t status, uint16_t code, const struct gs_backtrace_frame *frames);
size_t wire_expr_error(struct wire *w, uint16_t index, uint8_t code, uint8_t flags,
		       uint64_t addr);
size_t wire_end(struct wire *w, uint16_t total, uint8_t status);
/* A whole event: PrintString 0, then End. */
size_t wire_simple_event(struct wire *w, uint64_t trace_id, uint32_t pid);

void wire_set_u8(struct wire *w, size_t off, uint8_t v);
void wire_set_u16(struct wire *w, size_t off, uint16_t v);

/* Strings: 0 "hello", 1 "x={} hex={:x}", 2 "ptr->len > 0", 3 "ptr={:p}".
 * Names: 0 "count", 1 "ptr". Types (index: kind size name): 0 I32 4 "int",
 * 1 U64 8 "unsigned long", 2 POINTER 8 "char *", 3 BOOL 1 "_Bool". */
void wire_test_context(struct gs_trace_context *c);

#endif /* GS_TEST_WIRE_H */
