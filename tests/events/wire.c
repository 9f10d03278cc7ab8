/* Builders of hand-written trace streams for the decoder tests (wire.h). */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "wire.h"

size_t wire_bytes(struct wire *w, const void *p, size_t n)
{
	size_t at = w->len;

	if (w->len + n > WIRE_MAX)
		abort(); /* a test built a stream larger than the buffer */
	if (p)
		memcpy(w->buf + w->len, p, n);
	else
		memset(w->buf + w->len, 0, n);
	w->len += n;
	return at;
}

size_t wire_event(struct wire *w, uint64_t trace_id, uint64_t ts, uint32_t pid, uint32_t tid)
{
	struct gs_event_header h = { .magic = GS_MAGIC };
	struct gs_event_message m = { .trace_id = trace_id, .timestamp = ts, .pid = pid, .tid = tid };
	size_t at = wire_bytes(w, &h, sizeof(h));

	wire_bytes(w, &m, sizeof(m));
	return at;
}

size_t wire_inst(struct wire *w, uint8_t type, uint16_t data_length)
{
	struct gs_inst_header h = { .inst_type = type, .data_length = data_length, .reserved = 0xa5 };

	return wire_bytes(w, &h, sizeof(h));
}

size_t wire_string(struct wire *w, uint16_t index)
{
	struct gs_print_string_index d = { .string_index = index };
	size_t at = wire_inst(w, GS_INST_PRINT_STRING_INDEX, sizeof(d));

	wire_bytes(w, &d, sizeof(d));
	return at;
}

size_t wire_var(struct wire *w, uint16_t name, uint16_t type, uint8_t status, const char *path,
		const void *data, uint16_t data_len)
{
	uint8_t path_len = (uint8_t)(path ? strlen(path) : 0);
	struct gs_print_complex_variable d = {
		.var_name_index = name, .type_index = type, .access_path_len = path_len,
		.status = status, .data_len = data_len,
	};
	size_t at = wire_inst(w, GS_INST_PRINT_COMPLEX_VARIABLE,
			      (uint16_t)(sizeof(d) + path_len + data_len));

	wire_bytes(w, &d, sizeof(d));
	wire_bytes(w, path, path_len);
	wire_bytes(w, data, data_len);
	return at;
}

size_t wire_legacy_var(struct wire *w, uint16_t name, uint8_t kind, uint16_t type, uint8_t status,
		       const void *data, uint16_t data_len)
{
	struct gs_print_variable_index d = {
		.var_name_index = name, .type_encoding = kind, .data_len = data_len,
		.type_index = type, .status = status,
	};
	size_t at = wire_inst(w, GS_INST_PRINT_VARIABLE_INDEX, (uint16_t)(sizeof(d) + data_len));

	wire_bytes(w, &d, sizeof(d));
	wire_bytes(w, data, data_len);
	return at;
}

size_t wire_format(struct wire *w, uint16_t fmt, uint8_t argc)
{
	struct gs_print_complex_format d = { .format_string_index = fmt, .arg_count = argc };
	size_t at = wire_inst(w, GS_INST_PRINT_COMPLEX_FORMAT, 0);

	wire_bytes(w, &d, sizeof(d));
	return at;
}

void wire_arg(struct wire *w, uint16_t name, uint16_t type, uint8_t status, const char *path,
	      const void *data, uint16_t data_len)
{
	uint8_t path_len = (uint8_t)(path ? strlen(path) : 0);
	struct gs_format_arg a = {
		.var_name_index = name, .type_index = type, .access_path_len = path_len,
		.status = status,
	};

	wire_bytes(w, &a, sizeof(a));
	wire_bytes(w, path, path_len);
	wire_bytes(w, &data_len, sizeof(data_len));
	wire_bytes(w, data, data_len);
}

void wire_close(struct wire *w, size_t inst)
{
	wire_set_u16(w, inst + 1, (uint16_t)(w->len - inst - GS_INST_HEADER_SIZE));
}

size_t wire_backtrace(struct wire *w, uint8_t depth, uint8_t count, uint8_t flags,
		      uint8_t status, uint16_t code, const struct gs_backtrace_frame *frames)
{
	struct gs_backtrace_data d = {
		.requested_depth = depth, .frame_count = count, .flags = flags, .status = status,
		.error_code = code, .reserved = 0xeeee,
	};
	size_t at = wire_inst(w, GS_INST_BACKTRACE,
			      (uint16_t)(sizeof(d) + depth * sizeof(struct gs_backtrace_frame)));

	wire_bytes(w, &d, sizeof(d));
	for (unsigned i = 0; i < depth; i++) {
		struct gs_backtrace_frame stale;

		memset(&stale, 0xdd, sizeof(stale)); /* slots past frame_count: stale bytes */
		wire_bytes(w, frames && i < count ? &frames[i] : &stale, sizeof(stale));
	}
	return at;
}

size_t wire_expr_error(struct wire *w, uint16_t index, uint8_t code, uint8_t flags,
		       uint64_t addr)
{
	struct gs_expr_error d = {
		.string_index = index, .error_code = code, .flags = flags, .failing_addr = addr,
	};
	size_t at = wire_inst(w, GS_INST_EXPR_ERROR, sizeof(d));

	wire_bytes(w, &d, sizeof(d));
	return at;
}

size_t wire_end(struct wire *w, uint16_t total, uint8_t status)
{
	struct gs_end_instruction d = { .total_instructions = total, .execution_status = status };
	size_t at = wire_inst(w, GS_INST_END, sizeof(d));

	wire_bytes(w, &d, sizeof(d));
	return at;
}

size_t wire_simple_event(struct wire *w, uint64_t trace_id, uint32_t pid)
{
	size_t at = wire_event(w, trace_id, 1000 + pid, pid, pid + 1);

	wire_string(w, 0);
	wire_end(w, 1, GS_EXEC_SUCCESS);
	return at;
}

void wire_set_u8(struct wire *w, size_t off, uint8_t v)
{
	w->buf[off] = v;
}

void wire_set_u16(struct wire *w, size_t off, uint16_t v)
{
	memcpy(w->buf + off, &v, sizeof(v));
}

void wire_test_context(struct gs_trace_context *c)
{
	static const char *const strings[] = { "hello", "x={} hex={:x}", "ptr->len > 0", "ptr={:p}" };
	static const char *const names[] = { "count", "ptr" };

	gs_context_init(c);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(strings); i++)
		gs_context_string(c, strings[i], NULL);
	for (size_t i = 0; i < BASE_ARRAY_SIZE(names); i++)
		gs_context_var_name(c, names[i], NULL);
	gs_context_type(c, GS_TYPE_I32, 4, "int", NULL);
	gs_context_type(c, GS_TYPE_U64, 8, "unsigned long", NULL);
	gs_context_type(c, GS_TYPE_POINTER, 8, "char *", NULL);
	gs_context_type(c, GS_TYPE_BOOL, 1, "_Bool", NULL);
}
