/* A BPF ring buffer read through one mapping of its data. The kernel lets
 * a reader map the data twice in a row (libbpf does), so that a record
 * crossing the end reads in one piece; every page then counts twice in
 * the reader's resident memory, 8 MB for a 4 MiB ring. Here the data is
 * mapped once and the rare record that wraps is copied into a buffer.
 * Records as the kernel writes them (kernel/bpf/ringbuf.c): an 8-byte
 * header whose first word is the length with the BUSY (being written) and
 * DISCARD bits, then the sample, padded to 8 bytes; the producer position
 * sits in the page before the data, the consumer's in a page of its own. */
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt_int.h"

struct rt_ring {
	uint64_t *consumer;       /* the consumer position's page, writable */
	const uint8_t *ro;        /* the producer position's page, then the data */
	const uint8_t *data;
	size_t page, size, ro_len;
	uint8_t *bounce;          /* a wrapped record, in one piece */
	size_t bounce_cap;
};

int rt_ring_open(int map_fd, uint32_t size, struct rt_ring **out)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rt_ring *r;
	void *p;

	*out = NULL;
	if (page <= 0 || size == 0 || (size & (size - 1)) || size % (uint32_t)page)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->page = (size_t)page;
	r->size = size;
	r->ro_len = r->page + size;
	p = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	r->consumer = p;
	p = mmap(NULL, r->ro_len, PROT_READ, MAP_SHARED, map_fd, (off_t)r->page);
	if (p == MAP_FAILED)
		goto fail;
	r->ro = p;
	r->data = r->ro + r->page;
	*out = r;
	return 0;
fail:
	{
		int rc = -errno;

		rt_ring_free(r);
		return rc;
	}
}

void rt_ring_free(struct rt_ring *r)
{
	if (!r)
		return;
	if (r->consumer)
		munmap(r->consumer, r->page);
	if (r->ro)
		munmap((void *)r->ro, r->ro_len);
	free(r->bounce);
	free(r);
}

/* The sample of len bytes at data offset off: in place, or copied when it
 * runs past the end of the data; NULL when out of memory. */
static const void *sample_at(struct rt_ring *r, size_t off, size_t len)
{
	size_t first;

	if (off + len <= r->size)
		return r->data + off;
	if (len > r->bounce_cap) {
		uint8_t *b = realloc(r->bounce, len);

		if (!b)
			return NULL;
		r->bounce = b;
		r->bounce_cap = len;
	}
	first = r->size - off;
	memcpy(r->bounce, r->data + off, first);
	memcpy(r->bounce + first, r->data, len - first);
	return r->bounce;
}

int rt_ring_consume(struct rt_ring *r, int (*cb)(void *ctx, void *data, size_t size), void *ctx)
{
	uint64_t cons = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
	size_t mask = r->size - 1;
	bool more;

	do {
		uint64_t prod = __atomic_load_n((const uint64_t *)r->ro, __ATOMIC_ACQUIRE);

		more = false;
		while (cons < prod) {
			const uint32_t *hdr = (const uint32_t *)(r->data + (cons & mask));
			uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
			uint32_t n = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
			uint64_t next = cons + ((n + BPF_RINGBUF_HDR_SZ + 7) & ~7u);

			if (len & BPF_RINGBUF_BUSY_BIT)
				return 0; /* being written: the next poll reads it */
			more = true;
			if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
				const void *s = sample_at(r, (cons + BPF_RINGBUF_HDR_SZ) & mask, n);
				int rc = s ? cb(ctx, (void *)s, n) : -ENOMEM;

				if (rc < 0) {
					/* this record is taken: what it asked stops the rest */
					__atomic_store_n(r->consumer, next, __ATOMIC_RELEASE);
					return rc;
				}
			}
			cons = next;
			__atomic_store_n(r->consumer, cons, __ATOMIC_RELEASE);
		}
	} while (more);
	return 0;
}
