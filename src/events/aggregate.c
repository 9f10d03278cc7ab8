/* Userspace counting of decoded events (gs_aggregate, gs/fold.h) and what
 * is printed from the counts: the --aggregate table and the folded lines.
 * A key is what an event shows once symbolized: its trace, each printed
 * item's text, and per backtrace the status and each frame's module and
 * module pc (so the same stack in two processes of one binary, at other
 * load addresses, counts once). The first event of a key is rendered by
 * the table's printer and kept for the table. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/fold.h>
#include <gs/render.h>

#include "base.h"
#include "opts.h"

#define FOLD_MAX 65536

struct gs_aggregate {
	struct gs_frames *frames;
	struct gs_printer *table; /* plain or json: the table's text of an event */
	enum gs_print_format format; /* the table's, as asked */
	struct gs_counts *events; /* NULL unless opts.events (--aggregate) */
	struct gs_counts *stacks; /* NULL unless opts.stacks (folded, flame graph) */
	char *key, *fold;
	size_t key_len, key_cap;
	bool no_py_lines;
};

int gs_aggregate_new(const struct gs_aggregate_opts *opts, struct gs_aggregate **out,
		     struct gs_error *err)
{
	struct gs_aggregate_opts ao;
	struct gs_printer_opts to;
	struct gs_aggregate *a;
	int rc;

	*out = NULL;
	rc = OPTS_COPY(&ao, opts, gs_aggregate_opts, err);
	if (rc == 0 && ao.print)
		rc = OPTS_COPY(&to, ao.print, gs_printer_opts, err);
	else if (rc == 0)
		to = (struct gs_printer_opts){ .sz = sizeof(to), .format = GS_PRINT_PLAIN };
	if (rc)
		return rc;
	if (!(a = calloc(1, sizeof(*a))))
		return gs_errorf(err, -ENOMEM, "out of memory for the event counts");
	a->format = to.format;
	a->no_py_lines = ao.no_py_lines;
	if (to.format == GS_PRINT_PRETTY)
		to.format = GS_PRINT_PLAIN;
	rc = gs_printer_new(&to, &a->table, err);
	if (rc) {
		gs_aggregate_free(a);
		return rc;
	}
	a->frames = gs_printer_frames(a->table);
	a->fold = malloc(FOLD_MAX);
	a->events = ao.events ? gs_counts_new() : NULL;
	a->stacks = ao.stacks ? gs_counts_new() : NULL;
	if (!a->fold || (ao.events && !a->events) || (ao.stacks && !a->stacks)) {
		gs_aggregate_free(a);
		return gs_errorf(err, -ENOMEM, "out of memory for the event counts");
	}
	*out = a;
	return 0;
}

void gs_aggregate_free(struct gs_aggregate *a)
{
	if (!a)
		return;
	gs_counts_free(a->events);
	gs_counts_free(a->stacks);
	gs_printer_free(a->table);
	free(a->key);
	free(a->fold);
	free(a);
}

static bool key_put(struct gs_aggregate *a, const void *p, size_t n)
{
	if (base_grow((void **)&a->key, &a->key_cap, a->key_len + n, 1))
		return false;
	memcpy(a->key + a->key_len, p, n);
	a->key_len += n;
	return true;
}

/* The backtrace part of a key: status, flags, then per frame it shows its
 * kind and what names it: a native frame's module file and module pc (or
 * the raw pc when the module is unknown), a Python frame's function, file
 * and line, a kernel or JIT frame's address. */
static bool key_frame(struct gs_aggregate *a, const struct gs_stack_frame *f)
{
	const struct gs_frame *r = &f->native;
	bool ok = key_put(a, &f->kind, 1);

	switch (f->kind) {
	case GS_FRAME_PYTHON:
		ok = ok && key_put(a, f->function ? f->function : "", f->function ?
				   strlen(f->function) + 1 : 1);
		ok = ok && key_put(a, f->file ? f->file : "", f->file ? strlen(f->file) + 1 : 1);
		return ok && key_put(a, f->function ? (const void *)&f->line : &f->addr,
				     f->function ? sizeof(f->line) : sizeof(f->addr));
	case GS_FRAME_KERNEL:
		return ok && key_put(a, &f->addr, sizeof(f->addr));
	default:
		if (r->resolved && r->path)
			ok = ok && key_put(a, r->path, strlen(r->path) + 1);
		else
			ok = ok && key_put(a, "", 1);
		return ok && key_put(a, &r->pc, sizeof(r->pc));
	}
}

static bool key_backtrace(struct gs_aggregate *a, const struct gs_event *ev,
			  const struct gs_inst *in)
{
	uint8_t head[3] = { gs_frames_status(a->frames, ev, in), in->backtrace.flags,
			    (uint8_t)in->backtrace.requested_depth };
	struct gs_stack st;
	bool ok = key_put(a, head, sizeof(head));

	gs_frames_stack(a->frames, ev, in, &st);
	for (size_t i = st.kernel; ok && i < st.count; i++)
		ok = key_frame(a, &st.frames[i]);
	return ok;
}

static bool event_key(struct gs_aggregate *a, const struct gs_event *ev)
{
	char small[1024];
	bool ok;

	a->key_len = 0;
	ok = key_put(a, &ev->trace_id, sizeof(ev->trace_id));
	for (size_t i = 0; ok && i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];
		uint8_t type = (uint8_t)in->type;

		/* a PythonStack is its backtrace's: in key_backtrace */
		if (in->type == GS_INST_END || in->type == GS_INST_PYTHON_STACK)
			continue;
		ok = key_put(a, &type, 1);
		if (ok && in->type == GS_INST_BACKTRACE) {
			ok = key_backtrace(a, ev, in);
		} else if (ok) {
			size_t n = gs_render_inst(in, small, sizeof(small));

			/* a longer item is told apart by its first KiB and length */
			ok = key_put(a, small, n < sizeof(small) ? n + 1 : sizeof(small)) &&
			     key_put(a, &n, sizeof(n));
		}
	}
	return ok;
}

/* The text the table shows for an event: its items as plain output shows
 * them (json: the whole object), without the header's time and thread. */
static char *render(struct gs_aggregate *a, const struct gs_event *ev)
{
	FILE *mem;
	char *text = NULL;
	size_t len = 0;

	if (!(mem = open_memstream(&text, &len)))
		return NULL;
	gs_print_event(a->table, ev, mem);
	if (fclose(mem) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int count_event(struct gs_aggregate *a, const struct gs_event *ev, uint64_t n)
{
	bool is_new;
	long idx;
	char *text;
	int rc;

	if (!event_key(a, ev))
		return -ENOMEM;
	idx = gs_counts_add(a->events, a->key, a->key_len, n, &is_new);
	if (idx < 0)
		return (int)idx;
	if (!is_new)
		return 0;
	if (!(text = render(a, ev)))
		return -ENOMEM;
	rc = gs_counts_set_text(a->events, idx, text);
	free(text);
	return rc;
}

static int count_stacks(struct gs_aggregate *a, const struct gs_event *ev, uint64_t count)
{
	for (size_t i = 0; i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];
		struct gs_stack st;
		size_t n;

		if (in->type != GS_INST_BACKTRACE)
			continue;
		/* a sample's kernel frames go on from its user leaf */
		gs_frames_stack(a->frames, ev, in, &st);
		if (!st.count)
			continue;
		n = gs_fold_stack(&st, 0, !a->no_py_lines, a->fold, FOLD_MAX);
		if (n >= FOLD_MAX)
			n = FOLD_MAX - 1;
		if (gs_counts_add(a->stacks, a->fold, n, count, NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

int gs_aggregate_event(struct gs_aggregate *a, const struct gs_event *ev, uint64_t n)
{
	int rc = 0;

	if (a->events)
		rc = count_event(a, ev, n);
	if (rc == 0 && a->stacks)
		rc = count_stacks(a, ev, n);
	return rc;
}

int gs_aggregate_clear(struct gs_aggregate *a)
{
	bool events = a->events != NULL, stacks = a->stacks != NULL;

	gs_counts_free(a->events);
	gs_counts_free(a->stacks);
	a->events = events ? gs_counts_new() : NULL;
	a->stacks = stacks ? gs_counts_new() : NULL;
	return (events && !a->events) || (stacks && !a->stacks) ? -ENOMEM : 0;
}

static void json_count(FILE *f, const struct gs_count *e, uint64_t total)
{
	const char *t = e->text ? e->text : "null\n";
	size_t n = strlen(t);

	while (n && t[n - 1] == '\n')
		n--;
	fprintf(f, "{\"count\":%" PRIu64 ",\"total\":%" PRIu64 ",\"event\":%.*s}\n", e->count,
		total, (int)n, t);
}

void gs_aggregate_print_table(const struct gs_aggregate *a, FILE *f, double elapsed_s)
{
	uint64_t total = gs_counts_total(a->events);
	size_t n = gs_counts_size(a->events);
	struct gs_count *v = gs_counts_sorted(a->events);
	bool json = a->format == GS_PRINT_JSON;
	bool pretty = a->format == GS_PRINT_PRETTY;

	if (json)
		fprintf(f, "{\"table\":{\"events\":%" PRIu64 ",\"distinct\":%zu,\"seconds\":%.3f}}\n",
			total, n, elapsed_s);
	else
		fprintf(f, "@ %" PRIu64 " event%s, %zu distinct, in %.1f s\n", total,
			total == 1 ? "" : "s", n, elapsed_s);
	for (size_t i = 0; v && i < n; i++) {
		const char *t = v[i].text ? v[i].text : "";
		uint64_t trace;

		if (json) {
			json_count(f, &v[i], total);
			continue;
		}
		memcpy(&trace, v[i].key, sizeof(trace));
		fprintf(f, "%" PRIu64 " (%.1f%%) TraceID:%" PRIu64 "\n", v[i].count,
			100.0 * (double)v[i].count / (double)total, trace);
		/* items under their count: plain as they are, pretty indented */
		while (*t) {
			size_t len = strcspn(t, "\n");

			fprintf(f, "%s%.*s\n", pretty ? "  " : "", (int)len, t);
			t += len + (t[len] == '\n');
		}
	}
	free(v);
}

void gs_aggregate_print_folded(const struct gs_aggregate *a, FILE *f)
{
	size_t n = gs_counts_size(a->stacks);
	struct gs_count *v = gs_counts_sorted(a->stacks);

	for (size_t i = 0; v && i < n; i++)
		fprintf(f, "%.*s %" PRIu64 "\n", (int)v[i].len, (const char *)v[i].key, v[i].count);
	free(v);
}

const struct gs_counts *gs_aggregate_stacks(const struct gs_aggregate *a)
{
	return a->stacks;
}
