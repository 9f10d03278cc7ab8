/* The payload of each instruction type (docs/protocol.md, "One event"),
 * decoded once framing has found the whole event: each checked against its
 * data_length and the trace's context (strings, variable names, types),
 * values and frames laid out in the decoder's per-event storage, and the
 * table framing reads the types' names and sizes from. */
#include <stdio.h>
#include <string.h>

#include "decode_int.h"

/* A variable's fixed fields start like a format argument's, so one function
 * reads both. Payloads are read through the packed structs of protocol.h. */
_Static_assert(offsetof(struct gs_print_complex_variable, status) ==
	       offsetof(struct gs_format_arg, status), "variable and arg layouts differ");

/* ---- payload decoders: `off` is the payload's offset in the event ------- */

static void set_value(struct walk *w, struct gs_value *v, const struct gs_format_arg *fixed,
		      const uint8_t *path, const uint8_t *data, uint16_t data_len)
{
	v->var_name_index = fixed->var_name_index;
	v->type_index = fixed->type_index;
	v->access_path_len = fixed->access_path_len;
	v->status = fixed->status;
	v->name = gs_context_get_var_name(w->ctx, v->var_name_index);
	v->type = gs_context_get_type(w->ctx, v->type_index);
	v->kind = v->type ? v->type->kind : GS_TYPE_UNKNOWN;
	v->view_caps = &w->ctx->view_caps;
	v->access_path = (const char *)path;
	v->data = data;
	v->data_len = data_len;
}

static int missing_name(struct walk *w, size_t off, const char *inst, uint16_t index)
{
	return WBAD(w, off, "%s: variable name index %u is not in trace %llu's table "
		    "(%zu names)", inst, index, (unsigned long long)w->trace_id,
		    w->ctx->nvar_names);
}

static int missing_string(struct walk *w, size_t off, const char *inst, uint16_t index)
{
	return WBAD(w, off, "%s: string index %u is not in trace %llu's table (%zu strings)",
		    inst, index, (unsigned long long)w->trace_id, w->ctx->nstrings);
}

static int decode_string(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_print_string_index *h = (const void *)(w->p + off);

	(void)len;
	in->string.index = h->string_index;
	in->string.text = gs_context_get_string(w->ctx, h->string_index);
	if (!in->string.text)
		return missing_string(w, off, "PrintStringIndex", h->string_index);
	return 0;
}

static int decode_variable_index(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_print_variable_index *h = (const void *)(w->p + off);
	struct gs_value *v = &in->variable;

	if (sizeof(*h) + h->data_len > len)
		return WBAD(w, off + offsetof(struct gs_print_variable_index, data_len),
			    "PrintVariableIndex: data_len %u runs past data_length %u",
			    h->data_len, len);
	*v = (struct gs_value){
		.var_name_index = h->var_name_index,
		.type_index = h->type_index,
		.status = h->status,
		.kind = h->type_encoding,
		.name = gs_context_get_var_name(w->ctx, h->var_name_index),
		.type = gs_context_get_type(w->ctx, h->type_index),
		.access_path = "",
		.data = w->p + off + sizeof(*h),
		.data_len = h->data_len,
	};
	if (!v->name)
		return missing_name(w, off, "PrintVariableIndex", v->var_name_index);
	return 0;
}

static int decode_complex_variable(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_print_complex_variable *h = (const void *)(w->p + off);
	const uint8_t *path = w->p + off + sizeof(*h);

	if (sizeof(*h) + h->access_path_len > len)
		return WBAD(w, off + offsetof(struct gs_print_complex_variable, access_path_len),
			    "PrintComplexVariable: access_path_len %u runs past data_length %u",
			    h->access_path_len, len);
	if (sizeof(*h) + h->access_path_len + h->data_len > len)
		return WBAD(w, off + offsetof(struct gs_print_complex_variable, data_len),
			    "PrintComplexVariable: data_len %u after a %u-byte access path runs "
			    "past data_length %u", h->data_len, h->access_path_len, len);
	set_value(w, &in->variable, (const struct gs_format_arg *)h, path,
		  path + h->access_path_len, h->data_len);
	if (!in->variable.name)
		return missing_name(w, off, "PrintComplexVariable", h->var_name_index);
	return 0;
}

/* Arguments: a gs_format_arg, access_path_len path bytes, a u16 data_len,
 * then data_len bytes, each checked against the instruction's end. */
static int decode_format(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_print_complex_format *h = (const void *)(w->p + off);
	struct gs_decoder *d = w->d;
	size_t pos = off + sizeof(*h), end = off + len;
	unsigned argc = h->arg_count;

	in->format.format_index = h->format_string_index;
	in->format.arg_count = h->arg_count;
	in->format.format = gs_context_get_string(w->ctx, h->format_string_index);
	in->format.args = d->values + w->nvalues;
	if (!in->format.format)
		return missing_string(w, off, "PrintComplexFormat", h->format_string_index);
	for (unsigned i = 0; i < argc; i++) {
		const struct gs_format_arg *a = (const void *)(w->p + pos);
		const uint8_t *path = w->p + pos + sizeof(*a);
		size_t room = end - pos;
		uint16_t data_len;

		if (room < sizeof(*a))
			return WBAD(w, pos, "PrintComplexFormat: argument %u of %u starts past "
				    "data_length %u", i + 1, argc, len);
		room -= sizeof(*a);
		if (room < (size_t)a->access_path_len + GS_FORMAT_ARG_DATA_LEN_SIZE)
			return WBAD(w, pos + offsetof(struct gs_format_arg, access_path_len),
				    "PrintComplexFormat: argument %u of %u: access_path_len %u runs "
				    "past data_length %u", i + 1, argc, a->access_path_len, len);
		room -= a->access_path_len + GS_FORMAT_ARG_DATA_LEN_SIZE;
		data_len = le16(path + a->access_path_len);
		if (room < data_len)
			return WBAD(w, pos + sizeof(*a) + a->access_path_len, "PrintComplexFormat: "
				    "argument %u of %u: data_len %u runs past data_length %u",
				    i + 1, argc, data_len, len);
		/* Each argument takes at least 8 bytes, and values_cap was sized
		 * for one per 8 bytes of the event; this cannot fire. */
		if (w->nvalues >= d->values_cap)
			return WBAD(w, pos, "PrintComplexFormat: too many arguments");
		set_value(w, &d->values[w->nvalues++], a, path,
			  path + a->access_path_len + GS_FORMAT_ARG_DATA_LEN_SIZE, data_len);
		pos += GS_FORMAT_ARG_FIXED_HEADER_LEN + a->access_path_len + data_len;
	}
	return 0;
}

static int decode_backtrace(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_backtrace_data *h = (const void *)(w->p + off);
	size_t room = (len - sizeof(*h)) / sizeof(struct gs_backtrace_frame);
	size_t at = off + offsetof(struct gs_backtrace_data, frame_count);

	in->backtrace.requested_depth = h->requested_depth;
	in->backtrace.frame_count = h->frame_count;
	in->backtrace.flags = h->flags;
	in->backtrace.status = h->status;
	in->backtrace.error_code = h->error_code;
	in->backtrace.frames = (const struct gs_backtrace_frame *)(w->p + off + sizeof(*h));
	if (h->frame_count > h->requested_depth)
		return WBAD(w, at, "Backtrace: frame_count %u exceeds requested_depth %u",
			    h->frame_count, h->requested_depth);
	if (h->frame_count > room)
		return WBAD(w, at, "Backtrace: frame_count %u exceeds the %zu frames data_length "
			    "%u holds", h->frame_count, room, len);
	return 0;
}

/* The bpf_loop walker's form (protocol.h 1.8b): frame words expanded into
 * gs_backtrace_frames in the decoder's storage; reported as a Backtrace. */
static int decode_backtrace_compact(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_backtrace_compact *h = (const void *)(w->p + off);
	const uint8_t *table = w->p + off + sizeof(*h);
	size_t at = off + offsetof(struct gs_backtrace_compact, frame_count);
	size_t room = len - sizeof(*h);
	struct gs_backtrace_frame *out = w->d->frames + w->nframes;

	in->type = GS_INST_BACKTRACE;
	in->backtrace.requested_depth = h->requested_depth;
	in->backtrace.frame_count = h->frame_count;
	in->backtrace.flags = h->flags;
	in->backtrace.status = h->status;
	in->backtrace.error_code = h->error_code;
	in->backtrace.frames = out;
	if (h->module_count > h->module_slots)
		return WBAD(w, off + offsetof(struct gs_backtrace_compact, module_count),
			    "Backtrace: module_count %u exceeds module_slots %u", h->module_count,
			    h->module_slots);
	if ((size_t)h->module_slots * sizeof(struct gs_bt_wire_module) > room)
		return WBAD(w, off + offsetof(struct gs_backtrace_compact, module_slots),
			    "Backtrace: %u module slots run past data_length %u",
			    h->module_slots, len);
	room -= (size_t)h->module_slots * sizeof(struct gs_bt_wire_module);
	if (h->frame_count > h->requested_depth)
		return WBAD(w, at, "Backtrace: frame_count %u exceeds requested_depth %u",
			    h->frame_count, h->requested_depth);
	if (h->frame_count > room / 8)
		return WBAD(w, at, "Backtrace: frame_count %u exceeds the %zu frames data_length "
			    "%u holds", h->frame_count, room / 8, len);
	/* frames_cap has one slot per 8 bytes of the event: this always fits. */
	for (unsigned i = 0; i < h->frame_count; i++) {
		uint64_t word = le64(table + 16u * h->module_slots + 8u * i);
		uint64_t ip = word & ((1ull << GS_BT_WIRE_IP_BITS) - 1);
		unsigned m = (unsigned)(word >> GS_BT_WIRE_IP_BITS);

		out[i] = (struct gs_backtrace_frame){ .pc = ip, .raw_ip = ip };
		if (m < h->module_count) {
			out[i].module_cookie = le64(table + 16u * m);
			out[i].pc = ip - le64(table + 16u * m + 8);
		}
	}
	w->nframes += h->frame_count;
	return 0;
}

static int decode_expr_error(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_expr_error *h = (const void *)(w->p + off);
	char *text;

	(void)len;
	in->expr_error.string_index = h->string_index;
	in->expr_error.error_code = h->error_code;
	in->expr_error.flags = h->flags;
	in->expr_error.failing_addr = h->failing_addr;
	in->expr_error.expr = gs_context_get_string(w->ctx, h->string_index);
	if (in->expr_error.expr)
		return 0;
	/* text_cap holds one slot per ExprError framed. */
	text = w->d->text + w->ntext;
	w->ntext += INVALID_EXPR_TEXT_MAX;
	snprintf(text, INVALID_EXPR_TEXT_MAX, "<INVALID_EXPR_INDEX_%u>", h->string_index);
	in->expr_error.expr = text;
	return 0;
}

/* A CPU sample's kernel stack (protocol.h 1.8c). */
static int decode_kernel_stack(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_kernel_stack *h = (const void *)(w->p + off);

	in->kernel_stack.requested_depth = h->requested_depth;
	in->kernel_stack.frame_count = h->frame_count;
	in->kernel_stack.addrs = w->p + off + sizeof(*h);
	if (h->frame_count > h->requested_depth)
		return WBAD(w, off + offsetof(struct gs_kernel_stack, frame_count),
			    "KernelStack: frame_count %u exceeds requested_depth %u",
			    h->frame_count, h->requested_depth);
	if ((size_t)h->frame_count * 8 > len - sizeof(*h))
		return WBAD(w, off + offsetof(struct gs_kernel_stack, frame_count),
			    "KernelStack: %u frames run past data_length %u", h->frame_count, len);
	return 0;
}

/* The hit thread's Python frames (wire.h "Python stack"). */
static int decode_python_stack(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_python_stack *h = (const void *)(w->p + off);

	in->python_stack.requested_depth = h->requested_depth;
	in->python_stack.frame_count = h->frame_count;
	in->python_stack.status = h->status;
	in->python_stack.minor = h->minor;
	in->python_stack.frames = w->p + off + sizeof(*h);
	if (h->frame_count > h->requested_depth)
		return WBAD(w, off + offsetof(struct gs_python_stack, frame_count),
			    "PythonStack: frame_count %u exceeds requested_depth %u",
			    h->frame_count, h->requested_depth);
	if ((size_t)h->frame_count * sizeof(struct gs_python_frame) > len - sizeof(*h))
		return WBAD(w, off + offsetof(struct gs_python_stack, frame_count),
			    "PythonStack: %u frames run past data_length %u", h->frame_count, len);
	return 0;
}

static int decode_end(struct walk *w, size_t off, uint16_t len, struct gs_inst *in)
{
	const struct gs_end_instruction *h = (const void *)(w->p + off);

	(void)len;
	in->end.total_instructions = h->total_instructions;
	in->end.execution_status = h->execution_status;
	return 0;
}

const struct inst_kind ev_inst_kinds[256] = {
	[GS_INST_PRINT_STRING_INDEX] = { "PrintStringIndex",
		sizeof(struct gs_print_string_index), false, decode_string },
	[GS_INST_PRINT_VARIABLE_INDEX] = { "PrintVariableIndex",
		sizeof(struct gs_print_variable_index), false, decode_variable_index },
	[GS_INST_PRINT_COMPLEX_VARIABLE] = { "PrintComplexVariable",
		sizeof(struct gs_print_complex_variable), false, decode_complex_variable },
	[GS_INST_PRINT_COMPLEX_FORMAT] = { "PrintComplexFormat",
		sizeof(struct gs_print_complex_format), false, decode_format },
	[GS_INST_BACKTRACE] = { "Backtrace",
		sizeof(struct gs_backtrace_data), false, decode_backtrace },
	[GS_INST_BACKTRACE_COMPACT] = { "Backtrace",
		sizeof(struct gs_backtrace_compact), false, decode_backtrace_compact },
	[GS_INST_KERNEL_STACK] = { "KernelStack",
		sizeof(struct gs_kernel_stack), false, decode_kernel_stack },
	[GS_INST_PYTHON_STACK] = { "PythonStack",
		sizeof(struct gs_python_stack), false, decode_python_stack },
	[GS_INST_EXPR_ERROR] = { "ExprError",
		sizeof(struct gs_expr_error), false, decode_expr_error },
	[GS_INST_END] = { "EndInstruction",
		sizeof(struct gs_end_instruction), true, decode_end },
};
