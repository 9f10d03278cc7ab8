/* Parses gstrace's pretty and plain output (docs/cli.md, "Output") into
 * events and `backtrace: <status>, N frames (max D)` blocks of frame lines
 * (symbolized, `.inline` or raw) ending at `stopped: ...`. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

static bool is_header(const char *line)
{
	if (strncmp(line, "TraceID:", 8) == 0)
		return true;
	return line[0] == '[' && strstr(line, "] TraceID:") != NULL;
}

static struct e2e_event *new_event(struct e2e_output *o)
{
	struct e2e_event *ev;

	o->events = realloc(o->events, (o->nevents + 1) * sizeof(*o->events));
	if (!o->events)
		abort();
	ev = &o->events[o->nevents++];
	memset(ev, 0, sizeof(*ev));
	ev->first_block = o->nblocks;
	return ev;
}

/* "truncated, 5 frames (max 5)" */
static void parse_bt_header(struct e2e_block *b, const char *s)
{
	const char *comma = NULL;

	for (const char *p = strstr(s, ", "); p; p = strstr(p + 1, ", "))
		if (p[2] >= '0' && p[2] <= '9')
			comma = p;
	if (!comma) {
		snprintf(b->status, sizeof(b->status), "%s", s);
		return;
	}
	snprintf(b->status, sizeof(b->status), "%.*s", (int)(comma - s), s);
	sscanf(comma + 2, "%u", &b->nframes);
	if (strstr(comma, "(max "))
		sscanf(strstr(comma, "(max ") + 5, "%u", &b->max);
}

/* "[libfoo.so+0x1a2b]" at the end of the location part of a frame line. */
static void parse_module(struct e2e_frame *f, const char *line)
{
	const char *open = NULL, *close, *plus;

	for (const char *p = strstr(line, " ["); p; p = strstr(p + 1, " ["))
		open = p + 2;
	if (!open || !(close = strchr(open, ']')))
		return;
	plus = NULL;
	for (const char *p = open; p < close; p++)
		if (p[0] == '+' && p[1] == '0' && p[2] == 'x')
			plus = p;
	if (!plus) {
		/* unresolved module: [0x<pc>] */
		sscanf(open, "0x%" SCNx64, &f->offset);
		return;
	}
	snprintf(f->module, sizeof(f->module), "%.*s", (int)(plus - open), open);
	sscanf(plus + 3, "%" SCNx64, &f->offset);
	f->has_module = true;
}

static void parse_frame(struct e2e_block *b, const char *s)
{
	struct e2e_frame *f;
	const char *p = s + 1, *rest;
	size_t n;

	b->frames = realloc(b->frames, (b->nf + 1) * sizeof(*b->frames));
	if (!b->frames)
		abort();
	f = &b->frames[b->nf++];
	memset(f, 0, sizeof(*f));
	snprintf(f->line, sizeof(f->line), "%s", s);
	f->index = (unsigned)strtoul(p, (char **)&p, 10);
	if (strncmp(p, ".inline", 7) == 0) {
		f->inline_frame = true;
		p += 7;
	}
	rest = p + strspn(p, " ");
	if (rest[0] == '<' && strchr(rest, '>'))
		n = (size_t)(strchr(rest, '>') - rest) + 1;
	else
		n = strcspn(rest, "( ");
	snprintf(f->func, sizeof(f->func), "%.*s", (int)n, rest);
	parse_module(f, rest);
	if (strstr(rest, " raw=0x")) {
		f->raw = true;
		sscanf(strstr(rest, " raw=0x") + 7, "%" SCNx64, &f->raw_ip);
		if (strstr(rest, " cookie=0x"))
			sscanf(strstr(rest, " cookie=0x") + 10, "%" SCNx64, &f->cookie);
	}
}

void e2e_parse(const char *text, struct e2e_output *o)
{
	struct e2e_event *ev = NULL;
	struct e2e_block *b = NULL;

	memset(o, 0, sizeof(*o));
	while (text && *text) {
		size_t len = strcspn(text, "\n");
		char *line = strndup(text, len);
		const char *t = line + strspn(line, " ");

		text += len + (text[len] == '\n');
		if (is_header(line)) {
			const char *pid = strstr(line, " PID:"), *tid = strstr(line, " TID:");

			ev = new_event(o);
			ev->pid = pid ? atoi(pid + 5) : 0;
			ev->tid = tid ? atoi(tid + 5) : 0;
			b = NULL;
		} else if (!ev) {
			ev = new_event(o); /* plain output: no headers */
		}
		if (strncmp(t, "backtrace: ", 11) == 0) {
			o->blocks = realloc(o->blocks, (o->nblocks + 1) * sizeof(*o->blocks));
			if (!o->blocks)
				abort();
			b = &o->blocks[o->nblocks++];
			memset(b, 0, sizeof(*b));
			b->event = o->nevents - 1;
			ev->nblocks++;
			parse_bt_header(b, t + 11);
		} else if (b && t[0] == '#') {
			parse_frame(b, t);
		} else if (b && strncmp(t, "stopped: ", 9) == 0) {
			snprintf(b->stopped, sizeof(b->stopped), "%s", t + 9);
		} else {
			b = NULL;
		}
		if (b) {
			e2e_buf_add(&b->text, line, len);
			e2e_buf_add(&b->text, "\n", 1);
		}
		e2e_buf_add(&ev->text, line, len);
		e2e_buf_add(&ev->text, "\n", 1);
		if (b && b->stopped[0])
			b = NULL;
		free(line);
	}
}

void e2e_output_free(struct e2e_output *o)
{
	for (size_t i = 0; i < o->nevents; i++)
		e2e_buf_free(&o->events[i].text);
	for (size_t i = 0; i < o->nblocks; i++) {
		free(o->blocks[i].frames);
		e2e_buf_free(&o->blocks[i].text);
	}
	free(o->events);
	free(o->blocks);
	memset(o, 0, sizeof(*o));
}

size_t e2e_block_physical(const struct e2e_block *b, const struct e2e_frame **v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nf && n < max; i++)
		if (!b->frames[i].inline_frame)
			v[n++] = &b->frames[i];
	return n;
}
