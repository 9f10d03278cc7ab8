/* --script-output json: one object per event per line. Text items are
 * strings; values, expression errors and backtraces are objects with a
 * "kind". Strings are escaped here (RFC 8259), and bytes that are not UTF-8
 * become U+FFFD, so every line parses whatever the target's memory held. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/render.h>

#include "output_int.h"

static void json_strn(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		switch (c) {
		case '"': fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\b': fputs("\\b", f); i++; continue;
		case '\f': fputs("\\f", f); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		len = gs_render_utf8_len(s + i, n - i);
		if (!len) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) /* C1 controls, for terminals */
			fprintf(f, "\\u%04x", s[i + 1]);
		else
			fwrite(s + i, 1, len, f);
		i += len;
	}
	fputc('"', f);
}

/* A string, or null. */
static void json_str(FILE *f, const char *s)
{
	if (s)
		json_strn(f, s, strlen(s));
	else
		fputs("null", f);
}

static void json_key(FILE *f, bool *first, const char *key)
{
	if (!*first)
		fputc(',', f);
	*first = false;
	json_str(f, key);
	fputc(':', f);
}

/* The runtime's text of an item, as a JSON string. */
static void json_item_text(FILE *f, const struct gs_inst *in)
{
	char small[1024], *text = small;
	size_t n = gs_render_inst(in, small, sizeof(small));

	if (n >= sizeof(small) && (text = malloc(n + 1)) != NULL)
		gs_render_inst(in, text, n + 1);
	if (!text)
		text = small;
	json_str(f, text);
	if (text != small)
		free(text);
}

static void json_value(FILE *f, const struct gs_value *v)
{
	char small[1024], *text = small;
	size_t n = gs_render_value(v, 0, small, sizeof(small));
	bool first = true;

	if (n >= sizeof(small) && (text = malloc(n + 1)) != NULL)
		gs_render_value(v, 0, text, n + 1);
	if (!text)
		text = small;
	fputc('{', f);
	json_key(f, &first, "kind");
	json_str(f, "value");
	json_key(f, &first, "name");
	json_str(f, v->name);
	if (v->access_path_len) {
		json_key(f, &first, "path");
		json_strn(f, v->access_path, v->access_path_len);
	}
	json_key(f, &first, "type");
	json_str(f, v->type ? v->type->name : NULL);
	json_key(f, &first, "status");
	json_str(f, gs_var_status_label(v->status));
	json_key(f, &first, "value");
	json_str(f, text);
	fputc('}', f);
	if (text != small)
		free(text);
}

static void json_line(FILE *f, bool *first, const char *file, int line, int col)
{
	json_key(f, first, "file");
	json_str(f, file);
	json_key(f, first, "line");
	if (file && line > 0)
		fprintf(f, "%d", line);
	else
		fputs("null", f);
	json_key(f, first, "column");
	if (file && col > 0)
		fprintf(f, "%d", col);
	else
		fputs("null", f);
}

static void json_frame(FILE *f, unsigned i, uint8_t flags, const struct gs_backtrace_frame *fr,
		       const struct gs_frame *r)
{
	const struct gs_sym_info *s = r->sym;
	bool first = true;

	fputc('{', f);
	json_key(f, &first, "index");
	fprintf(f, "%u", i);
	json_key(f, &first, "function");
	json_str(f, s ? (s->function ? s->function : "<unknown function>") : NULL);
	json_key(f, &first, "params");
	json_str(f, s && s->from_dwarf ? s->params : NULL);
	json_line(f, &first, s ? s->file : NULL, s ? s->line : 0, s ? s->col : 0);
	json_key(f, &first, "module");
	json_str(f, r->resolved ? r->module : NULL);
	json_key(f, &first, "offset");
	if (r->resolved)
		fprintf(f, "%" PRIu64, r->pc);
	else
		fputs("null", f);
	json_key(f, &first, "pc");
	fprintf(f, "%" PRIu64, fr->pc);
	json_key(f, &first, "raw_ip");
	fprintf(f, "%" PRIu64, fr->raw_ip);
	json_key(f, &first, "cookie");
	fprintf(f, "\"0x%016" PRIx64 "\"", r->cookie);
	json_key(f, &first, "inline");
	fputc('[', f);
	for (size_t k = 0; s && s->from_dwarf && (flags & GS_BT_FLAG_INLINE) && k < s->ninlines;
	     k++) {
		const struct gs_sym_inline *in = &s->inlines[k];
		bool ifirst = true;

		if (k)
			fputc(',', f);
		fputc('{', f);
		json_key(f, &ifirst, "function");
		json_str(f, in->name);
		json_line(f, &ifirst, in->call_file, in->call_line, in->call_col);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void json_backtrace(struct cli_out *o, const struct gs_event *ev, const struct gs_inst *in)
{
	uint8_t status = gs_frames_status(o->frames, ev, in);
	const char *code_label = gs_bt_error_label(in->backtrace.error_code);
	bool first = true;

	fputc('{', o->f);
	json_key(o->f, &first, "kind");
	json_str(o->f, "backtrace");
	json_key(o->f, &first, "status");
	json_str(o->f, gs_bt_status_label(status));
	json_key(o->f, &first, "error");
	json_str(o->f, code_label);
	json_key(o->f, &first, "error_code");
	fprintf(o->f, "%u", in->backtrace.error_code);
	json_key(o->f, &first, "max_depth");
	fprintf(o->f, "%u", in->backtrace.requested_depth);
	json_key(o->f, &first, "raw");
	fputs(in->backtrace.flags & GS_BT_FLAG_RAW ? "true" : "false", o->f);
	json_key(o->f, &first, "frames");
	fputc('[', o->f);
	for (unsigned i = 0; i < in->backtrace.frame_count; i++) {
		struct gs_frame r;

		gs_frames_resolve(o->frames, ev, in, i, &r);
		if (i)
			fputc(',', o->f);
		json_frame(o->f, i, in->backtrace.flags, &in->backtrace.frames[i], &r);
	}
	fputs("]}", o->f);
}

void out_json_event(struct cli_out *o, const struct gs_event *ev)
{
	bool first = true, first_item = true;
	char ts[64];

	fputc('{', o->f);
	json_key(o->f, &first, "trace_id");
	fprintf(o->f, "%" PRIu64, ev->trace_id);
	json_key(o->f, &first, "timestamp_ns");
	fprintf(o->f, "%" PRIu64, ev->timestamp);
	json_key(o->f, &first, "timestamp");
	json_str(o->f, out_timestamp(o, ev->timestamp, ts, sizeof(ts)) ? ts : NULL);
	json_key(o->f, &first, "pid");
	fprintf(o->f, "%" PRIu32, ev->pid);
	json_key(o->f, &first, "tid");
	fprintf(o->f, "%" PRIu32, ev->tid);
	json_key(o->f, &first, "items");
	fputc('[', o->f);
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];

		if (in->type == GS_INST_END)
			continue;
		if (!first_item)
			fputc(',', o->f);
		first_item = false;
		switch (in->type) {
		case GS_INST_BACKTRACE:
			json_backtrace(o, ev, in);
			break;
		case GS_INST_PRINT_COMPLEX_VARIABLE:
		case GS_INST_PRINT_VARIABLE_INDEX:
			json_value(o->f, &in->variable);
			break;
		case GS_INST_EXPR_ERROR: {
			bool efirst = true;

			fputc('{', o->f);
			json_key(o->f, &efirst, "kind");
			json_str(o->f, "expr_error");
			json_key(o->f, &efirst, "text");
			json_item_text(o->f, in);
			fputc('}', o->f);
			break;
		}
		default:
			json_item_text(o->f, in);
			break;
		}
	}
	fputs("]}\n", o->f);
}
