/* Reading events: each program's output map (a BPF ring buffer, or per-CPU
 * perf buffers) feeds its own decoder, and decoded events go to the
 * caller's callback. One epoll descriptor covers every source so a main
 * loop can wait on it with its own fds. Also the per-CPU loss counter. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <gs/runtime.h>

#include "base.h"
#include "opts.h"
#include "rt_int.h"

#define STOP_MARK (-ECANCELED) /* a callback asked to stop: unwinds the reading loop */
/* Programs submit events without waking the reader (until a quarter of the
 * buffer waits), so the reader looks on its own this often: a quiet trace
 * still prints within the tick. Until the first event, and at most for
 * FIRST_TICKS_MS, it looks every millisecond: a trace shows it is live
 * as soon as its probe fires. */
#define TICK_MS 5
#define FIRST_TICK_MS 1
#define FIRST_TICKS_MS 1000
/* Events one poll delivers at most: a producer faster than the reader
 * would keep libbpf's consume loop going forever, and the caller must get
 * back to its deadline and signals. The sources take turns first. */
#define POLL_BUDGET 4096

struct perf_sample_ctx;

struct source {
	struct gs_reader *r;
	struct gs_decoder *dec;
	struct rt_ring *rb;
	struct perf_buffer *pb;
	struct perf_sample_ctx *pctx;
};

struct perf_sample_ctx {
	struct source *s;
};

struct gs_reader {
	struct gs_reader_opts opts;
	struct gs_decoder_opts decoder; /* opts.decoder's copy (opts.decoder is NULL) */
	int epfd;
	struct source **v;
	size_t n, cap;
	int stop;       /* the non-zero value on_event returned */
	int delivered;  /* in the current poll */
	bool any;       /* an event was delivered */
	int64_t first_poll_ms;
	size_t turn;    /* the source read first in the next poll */
	struct gs_reader_stats stats;
};

int gs_reader_new(const struct gs_reader_opts *opts, struct gs_reader **out, struct gs_error *err)
{
	struct gs_reader *r;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return gs_errorf(err, -ENOMEM, "out of memory creating the event reader");
	rc = OPTS_COPY(&r->opts, opts, gs_reader_opts, err);
	if (!rc)
		rc = OPTS_COPY(&r->decoder, r->opts.decoder, gs_decoder_opts, err);
	if (!rc && !r->opts.on_event)
		rc = gs_errorf(err, -EINVAL, "gs_reader_new needs an on_event callback");
	if (rc) {
		free(r);
		return rc;
	}
	r->opts.decoder = NULL;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		int code = -errno;

		free(r);
		return gs_errorf(err, code, "epoll_create1 failed: %s", strerror(-code));
	}
	*out = r;
	return 0;
}

static int deliver(void *arg, const struct gs_event *ev)
{
	struct source *s = arg;
	struct gs_reader *r = s->r;
	int rc = r->opts.on_event(r->opts.arg, ev);

	r->stats.events++;
	r->delivered++;
	if (rc) {
		if (!r->stop)
			r->stop = rc; /* the first one: perf buffers keep delivering */
		return 1;
	}
	return 0;
}

/* One chunk (ring buffer record or perf sample) into the source's decoder. */
static int feed(struct source *s, const void *data, size_t size)
{
	struct gs_reader *r = s->r;
	struct gs_error e;
	int rc = gs_decoder_feed(s->dec, data, size, deliver, s, &e);

	if (r->stop)
		return STOP_MARK;
	if (rc < 0) {
		r->stats.decode_errors++;
		r->stats.last_decode_error = e;
	}
	return r->delivered >= POLL_BUDGET ? STOP_MARK : 0;
}

static int on_ring_record(void *ctx, void *data, size_t size)
{
	return feed(ctx, data, size);
}

/* A raw perf record: a sample (u32 size, then the bytes) or a lost count. */
static enum bpf_perf_event_ret on_perf_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct perf_sample_ctx *pc = ctx;
	struct source *s = pc->s;

	(void)cpu;
	if (h->type == PERF_RECORD_SAMPLE) {
		const struct { struct perf_event_header h; uint32_t size; uint8_t data[]; } *r =
			(const void *)h;

		if (feed(s, r->data, r->size) == STOP_MARK)
			return LIBBPF_PERF_EVENT_DONE;
	} else if (h->type == PERF_RECORD_LOST) {
		const struct { struct perf_event_header h; uint64_t id, lost; } *r = (const void *)h;

		s->r->stats.lost_samples += r->lost;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

static void source_free(struct source *s)
{
	if (!s)
		return;
	rt_ring_free(s->rb);
	perf_buffer__free(s->pb);
	free(s->pctx);
	gs_decoder_free(s->dec);
	free(s);
}

int gs_reader_add(struct gs_reader *r, const struct gs_bpf_map *output, uint32_t page_count,
		  struct gs_error *err)
{
	return gs_reader_add_decoding(r, output, page_count, NULL, err);
}

int gs_reader_add_decoding(struct gs_reader *r, const struct gs_bpf_map *output,
			   uint32_t page_count, const struct gs_decoder_opts *decoder,
			   struct gs_error *err)
{
	struct gs_decoder_opts dopts = r->decoder;

	if (decoder) {
		dopts.contexts = decoder->contexts;
		dopts.ncontexts = decoder->ncontexts;
		dopts.lookup = decoder->lookup;
		dopts.lookup_arg = decoder->lookup_arg;
	}
	struct epoll_event ev = { .events = EPOLLIN };
	struct source *s;
	int rc, fd;

	if (output->type != BPF_MAP_TYPE_RINGBUF && output->type != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
		return gs_errorf(err, -EINVAL, "map %s is neither a ring buffer nor a perf event "
				 "array; give the program's output map", output->name);
	if (base_grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)) ||
	    !(s = calloc(1, sizeof(*s))))
		return gs_errorf(err, -ENOMEM, "out of memory reading %s", output->name);
	s->r = r;
	dopts.mode = output->type == BPF_MAP_TYPE_RINGBUF ? GS_DECODE_RINGBUF : GS_DECODE_PERF;
	rc = gs_decoder_new(&dopts, &s->dec, err);
	if (rc)
		goto fail;
	if (output->type == BPF_MAP_TYPE_RINGBUF) {
		/* the map's fd polls readable when the programs wake it */
		rc = rt_ring_open(output->fd, output->max_entries, &s->rb);
		fd = output->fd;
	} else {
		/* The perf side of the same policy: wake the reader when a
		 * quarter of a CPU's buffer is written, not per sample. */
		size_t pages = page_count ? page_count : GS_DEFAULT_PERF_PAGE_COUNT;
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_BPF_OUTPUT,
			.size = sizeof(attr), .sample_type = PERF_SAMPLE_RAW,
			.sample_period = 1, .watermark = 1,
			.wakeup_watermark = (uint32_t)(pages * 4096 / 4),
		};
		struct perf_sample_ctx *pc = calloc(1, sizeof(*pc));

		if (pc) {
			pc->s = s;
			s->pctx = pc;
			s->pb = perf_buffer__new_raw(output->fd, pages, &attr, on_perf_event, pc, NULL);
		}
		rc = s->pb ? 0 : -errno;
		fd = s->pb ? perf_buffer__epoll_fd(s->pb) : -1;
	}
	if (rc) {
		gs_errorf(err, rc, "cannot open the %s buffers of map %s: %s%s",
			  s->pb || output->type == BPF_MAP_TYPE_PERF_EVENT_ARRAY ? "perf" : "ring",
			  output->name, strerror(-rc),
			  rc == -ENOMEM || rc == -EPERM ? "; fewer pages, or raise RLIMIT_MEMLOCK / "
			  "perf_event_mlock_kb" : "");
		goto fail;
	}
	ev.data.ptr = s;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		rc = gs_errorf(err, -errno, "cannot watch the buffers of %s: %s", output->name,
			       strerror(errno));
		goto fail;
	}
	r->v[r->n++] = s;
	return 0;
fail:
	source_free(s);
	return rc;
}

int rt_reader_wake_on(struct gs_reader *r, int fd, struct gs_error *err)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return gs_errorf(err, -errno, "cannot watch fd %d: %s", fd, strerror(errno));
	return 0;
}

static int consume(struct source *s)
{
	int rc = s->rb ? rt_ring_consume(s->rb, on_ring_record, s) : perf_buffer__consume(s->pb);

	return rc < 0 ? rc : 0;
}

/* Waits in ticks: a wakeup comes only once a quarter of a buffer waits, so
 * every source is read after each tick whether it signalled or not. */
int gs_reader_poll(struct gs_reader *r, int timeout_ms, struct gs_error *err)
{
	int64_t deadline = timeout_ms < 0 ? INT64_MAX : base_now_ms() + timeout_ms;
	struct epoll_event evs[16];

	r->stop = 0;
	r->delivered = 0;
	if (!r->first_poll_ms)
		r->first_poll_ms = base_now_ms();
	for (;;) {
		int tick = !r->any && base_now_ms() - r->first_poll_ms < FIRST_TICKS_MS ? FIRST_TICK_MS
										   : TICK_MS;
		int64_t left = deadline == INT64_MAX ? tick : deadline - base_now_ms();
		int n = epoll_wait(r->epfd, evs, (int)BASE_ARRAY_SIZE(evs),
				   left <= 0 ? 0 : left < tick ? (int)left : tick);
		bool woken = false;

		for (int i = 0; i < n; i++)
			woken |= evs[i].data.ptr == NULL; /* rt_reader_wake_on's */
		if (n < 0)
			return errno == EINTR ? -EINTR :
				gs_errorf(err, -errno, "waiting for events failed: %s", strerror(errno));
		for (size_t k = 0; k < r->n && !r->stop && r->delivered < POLL_BUDGET; k++) {
			int rc = consume(r->v[(r->turn + k) % r->n]);

			if (rc && rc != STOP_MARK)
				return gs_errorf(err, rc, "reading events failed: %s", strerror(-rc));
		}
		r->turn = r->n ? (r->turn + 1) % r->n : 0;
		r->any |= r->delivered > 0;
		if (r->stop || r->delivered || woken || left <= 0 || base_now_ms() >= deadline)
			return r->stop ? r->stop : r->delivered;
	}
}

int gs_reader_fd(const struct gs_reader *r)
{
	return r->epfd;
}

void gs_reader_stats(const struct gs_reader *r, struct gs_reader_stats *out)
{
	*out = r->stats;
}

void gs_reader_free(struct gs_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		source_free(r->v[i]);
	free(r->v);
	if (r->epfd >= 0)
		close(r->epfd);
	free(r);
}

int gs_loss_read(const struct gs_bpf_map *loss, uint64_t *total, struct gs_error *err)
{
	int ncpus = libbpf_num_possible_cpus();
	uint32_t key = 0;
	uint64_t *vals;
	int rc;

	*total = 0;
	if (ncpus <= 0)
		return gs_errorf(err, ncpus < 0 ? ncpus : -EINVAL, "cannot count the possible CPUs "
				 "to read %s", loss->name);
	if (loss->type != BPF_MAP_TYPE_PERCPU_ARRAY || loss->value_size != sizeof(uint64_t))
		return gs_errorf(err, -EINVAL, "map %s is not a per-CPU array of u64 counters",
				 loss->name);
	vals = calloc((size_t)ncpus, sizeof(*vals));
	if (!vals)
		return gs_errorf(err, -ENOMEM, "out of memory reading %s", loss->name);
	rc = bpf_map_lookup_elem(loss->fd, &key, vals);
	if (rc == 0)
		for (int i = 0; i < ncpus; i++)
			*total += vals[i];
	free(vals);
	if (rc)
		return gs_errorf(err, rc, "cannot read %s: %s", loss->name, strerror(-rc));
	return 0;
}
