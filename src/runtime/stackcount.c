/* Reading counts made in BPF (gs_program_opts.count_stacks): each key of a
 * program's stack_counts map is the tail of the event it stands for (from
 * the tgid on), so the event is rebuilt around it and decoded by the one
 * event decoder: userspace sees the Backtrace it would have seen had the
 * event been emitted, and counts it `count` times. A drain (the agent's)
 * removes each stack as it reads it, so the map holds only what came
 * since the last one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include <gs/internal/program.h>
#include <gs/decode.h>
#include <gs/runtime.h>

#include "rt_int.h"

/* The kernel-internal "not supported" a HASH's lookup-and-delete gives
 * before Linux 5.14. */
#define KERNEL_ENOTSUPP 524

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

/* How a drain takes one stack out of the map: bpf_map_lookup_and_delete_elem,
 * which the kernel does on a HASH from Linux 5.14; before, a lookup and a
 * delete, and a count BPF adds between the two is lost. 0, -ENOENT (not
 * there any more), or -errno. */
static int take(int fd, const void *key, uint64_t *count, bool *split)
{
	if (!*split) {
		if (bpf_map_lookup_and_delete_elem(fd, key, count) == 0)
			return 0;
		if (errno != EINVAL && errno != KERNEL_ENOTSUPP && errno != EOPNOTSUPP)
			return -errno;
		*split = true;
	}
	if (bpf_map_lookup_elem(fd, key, count) != 0)
		return -errno;
	/* gone meanwhile: counted once already */
	return bpf_map_delete_elem(fd, key) == 0 || errno == ENOENT ? 0 : -errno;
}

/* One program's map, read (or drained: each stack removed as it is read).
 * The next key is found before the current one goes, so the walk stays
 * linear; stacks BPF adds meanwhile wait for the next drain. 0, fn's
 * value, or -errno. */
static int read_counts(const struct gs_program *p, const struct gs_bpf_map *m,
		       struct gs_decoder *dec, bool drain, gs_stack_count_fn fn, void *arg,
		       struct gs_error *err)
{
	size_t size = KEY_AT + m->key_size + GS_END_INSTRUCTION_SIZE;
	uint8_t *ev = calloc(1, size), *key = malloc(m->key_size), *next = malloc(m->key_size);
	struct gs_end_instruction end = { .total_instructions = p->total_instructions };
	struct count_call call = { fn, arg, 0 };
	uint32_t magic = GS_MAGIC, end_head = GS_INST_END | 4u << 8;
	uint64_t trace_id = p->trace_id;
	bool split = false, more;
	int rc = 0;

	if (!ev || !key || !next) {
		free(ev);
		free(key);
		free(next);
		return gs_errorf(err, -ENOMEM, "out of memory reading %s", m->name);
	}
	memcpy(ev, &magic, 4);
	memcpy(ev + 4, &trace_id, 8);
	memcpy(ev + KEY_AT + m->key_size, &end_head, 4);
	memcpy(ev + KEY_AT + m->key_size + 4, &end, sizeof(end));
	more = bpf_map_get_next_key(m->fd, NULL, key) == 0;
	if (!more && errno != ENOENT)
		rc = gs_errorf(err, -errno, "cannot walk %s of trace %u: %s", m->name,
			       p->trace_id, strerror(errno));
	while (more && rc == 0) {
		bool has_next = bpf_map_get_next_key(m->fd, key, next) == 0;
		int got;

		if (!has_next && errno != ENOENT) {
			rc = gs_errorf(err, -errno, "cannot walk %s of trace %u: %s", m->name,
				       p->trace_id, strerror(errno));
			break;
		}
		got = drain ? take(m->fd, key, &call.count, &split) :
		      bpf_map_lookup_elem(m->fd, key, &call.count) == 0 ? 0 : -errno;
		if (got && got != -ENOENT) {
			rc = gs_errorf(err, got, "cannot %s %s of trace %u: %s",
				       drain ? "drain" : "read", m->name, p->trace_id,
				       strerror(-got));
			break;
		}
		/* a key removed meanwhile (by another drain) is skipped */
		if (got == 0) {
			memcpy(ev + KEY_AT, key, m->key_size);
			gs_decoder_reset(dec);
			rc = gs_decoder_feed(dec, ev, size, deliver, &call, err);
			rc = rc == 1 ? 0 : rc;
		}
		memcpy(key, next, m->key_size);
		more = has_next;
	}
	free(ev);
	free(key);
	free(next);
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

/* Every counting program's map, read or drained. */
static int each_count(const struct gs_session *s, bool drain, gs_stack_count_fn fn, void *arg,
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
		rc = read_counts(p, &maps->v[at], dec, drain, fn, arg, err);
		gs_decoder_free(dec);
	}
	return rc;
}

int gs_session_stack_counts(const struct gs_session *s, gs_stack_count_fn fn, void *arg,
			    struct gs_error *err)
{
	return each_count(s, false, fn, arg, err);
}

int gs_session_drain_stack_counts(struct gs_session *s, gs_stack_count_fn fn, void *arg,
				  struct gs_error *err)
{
	return each_count(s, true, fn, arg, err);
}
