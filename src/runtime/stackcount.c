/* Reading counts made in BPF (gs_program_opts.count_stacks): each key of a
 * program's stack_counts map is the tail of the event it stands for (from
 * the tgid on), so the event is rebuilt around it and decoded by the one
 * event decoder: userspace sees the Backtrace it would have seen had the
 * event been emitted, and counts it `count` times. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include <gs/internal/program.h>
#include <gs/decode.h>
#include <gs/runtime.h>

#include "rt_int.h"

#define KEY_AT (sizeof(struct gs_event_header) + offsetof(struct gs_event_message, pid))

struct count_call {
	gs_stack_count_fn fn;
	void *arg;
	uint64_t count;
};

static int deliver(void *arg, const struct gs_event *ev)
{
	struct count_call *c = arg;

	return c->fn(c->arg, ev, c->count);
}

/* One program's map: 0, fn's value, or -errno. */
static int read_counts(const struct gs_program *p, const struct gs_bpf_map *m,
		       struct gs_decoder *dec, gs_stack_count_fn fn, void *arg,
		       struct gs_error *err)
{
	size_t size = KEY_AT + m->key_size + GS_END_INSTRUCTION_SIZE;
	uint8_t *ev = calloc(1, size), *key = malloc(m->key_size);
	struct gs_end_instruction end = { .total_instructions = p->total_instructions };
	struct count_call call = { fn, arg, 0 };
	uint32_t magic = GS_MAGIC, end_head = GS_INST_END | 4u << 8;
	uint64_t trace_id = p->trace_id;
	bool first = true;
	int rc = 0;

	if (!ev || !key) {
		free(ev);
		free(key);
		return gs_errorf(err, -ENOMEM, "out of memory reading %s", m->name);
	}
	memcpy(ev, &magic, 4);
	memcpy(ev + 4, &trace_id, 8);
	memcpy(ev + KEY_AT + m->key_size, &end_head, 4);
	memcpy(ev + KEY_AT + m->key_size + 4, &end, sizeof(end));
	while (rc == 0) {
		if (bpf_map_get_next_key(m->fd, first ? NULL : key, key) != 0) {
			if (errno != ENOENT)
				rc = gs_errorf(err, -errno, "cannot walk %s of trace %u: %s",
					       m->name, p->trace_id, strerror(errno));
			break;
		}
		first = false;
		/* a key removed meanwhile (never: BPF only adds) is skipped */
		if (bpf_map_lookup_elem(m->fd, key, &call.count) != 0)
			continue;
		memcpy(ev + KEY_AT, key, m->key_size);
		gs_decoder_reset(dec);
		rc = gs_decoder_feed(dec, ev, size, deliver, &call, err);
		rc = rc == 1 ? 0 : rc;
	}
	free(ev);
	free(key);
	return rc;
}

static const struct gs_trace_context *context_of(void *arg, uint64_t trace_id)
{
	const struct gs_session *s = arg;
	const struct gs_bpf_maps *maps;
	const struct gs_program *p;

	for (size_t i = 0; (p = rt_session_trace(s, i, &maps)); i++)
		if (p->trace_id == trace_id)
			return &p->ctx;
	return NULL;
}

int gs_session_stack_counts(const struct gs_session *s, gs_stack_count_fn fn, void *arg,
			    struct gs_error *err)
{
	GS_OPTS(gs_decoder_opts, dopts, .lookup = context_of, .lookup_arg = (void *)s);
	const struct gs_bpf_maps *maps;
	const struct gs_program *p;
	struct gs_decoder *dec;
	int rc = 0;

	for (size_t i = 0; rc == 0 && (p = rt_session_trace(s, i, &maps)); i++) {
		int at = p->map_index[GS_MAP_STACK_COUNTS];

		if (at < 0)
			continue;
		dopts.max_event_size = KEY_AT + maps->v[at].key_size + GS_END_INSTRUCTION_SIZE;
		if ((rc = gs_decoder_new(&dopts, &dec, err)))
			break;
		rc = read_counts(p, &maps->v[at], dec, fn, arg, err);
		gs_decoder_free(dec);
	}
	return rc;
}
