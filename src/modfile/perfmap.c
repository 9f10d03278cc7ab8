/* A JIT runtime's perf map (/tmp/perf-PID.map: `START SIZE NAME` a line,
 * hex without 0x, written by node --perf-basic-prof, Java's
 * Compiler.perfmap, .NET's PerfMapEnabled): read through the process's
 * root and its own pid, read on from where it stopped when it grows, and
 * indexed as disjoint segments where the latest line wins an overlap, as
 * perf does. The file is the target's: bounded in entries and name bytes,
 * a line kept only once its newline is written, a malformed line skipped
 * (docs/jit.md). */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/internal/modfile.h>

#include "base.h"
#include "mf_int.h"

/* A line's addresses (two u64 in hex, 0x allowed, and their spaces) fit in this. */
#define ADDR_BYTES 48
#define LINE_KEEP (ADDR_BYTES + GS_PERFMAP_MAX_NAME)
#define READ_CHUNK 65536

#define NAME_BLOCK (1u << 20)

struct pm_entry {
	uint64_t start, end;
	const char *name; /* in a name block */
};

/* Names live in blocks that never move, so a name given out stays valid
 * while the map grows; blocks of a file read anew are kept to the end. */
struct pm_block {
	struct pm_block *prev;
	size_t used;
	char text[];
};

/* [start, end) belongs to entry `entry`: the newest line covering it. */
struct pm_seg {
	uint64_t start, end;
	uint32_t entry;
};

struct gs_perfmap {
	char path[PATH_MAX];
	dev_t dev;
	ino_t ino;
	off_t fed;             /* bytes of the file given to the parser */
	struct timespec mtime; /* of the last read */
	char line[LINE_KEEP];  /* the line being read (its first LINE_KEEP bytes) */
	size_t linelen;
	bool truncated;        /* the line is longer than line[] */
	struct pm_entry *v;    /* in file order: index = age */
	size_t n, cap;
	struct pm_block *block; /* the newest; older ones by prev */
	size_t names_total;     /* name bytes kept, files read anew included: the cap */
	struct pm_seg *segs;
	size_t nsegs;
	bool indexed;          /* segs describe every entry */
	bool full;             /* a cap was reached: nothing more is read */
	size_t skipped;        /* malformed lines */
};

/* A hex number at *p (before end), then at least one space; false when
 * there is none, it overflows or no space follows. */
static bool hex_field(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0, d;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end && (d = base_hex_digit(*s)) >= 0; s++, digits++) {
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits || s == end || *s != ' ')
		return false;
	while (s < end && *s == ' ')
		s++;
	*p = s;
	*out = v;
	return true;
}

/* A name is text shown on a terminal: no control bytes (UTF-8 is fine). */
static bool name_ok(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return false;
	}
	return true;
}

static int add_entry(struct gs_perfmap *m, uint64_t start, uint64_t size, const char *name,
		     size_t len)
{
	char *text;

	if (m->n >= GS_PERFMAP_MAX_ENTRIES || m->names_total + len + 1 > GS_PERFMAP_MAX_NAME_BYTES) {
		m->full = true;
		return 0;
	}
	if (base_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)))
		return -ENOMEM;
	if (!m->block || m->block->used + len + 1 > NAME_BLOCK) {
		struct pm_block *b = malloc(sizeof(*b) + NAME_BLOCK);

		if (!b)
			return -ENOMEM;
		b->prev = m->block;
		b->used = 0;
		m->block = b;
	}
	text = m->block->text + m->block->used;
	memcpy(text, name, len);
	text[len] = '\0';
	m->block->used += len + 1;
	m->v[m->n++] = (struct pm_entry){ start, start + size, text };
	m->names_total += len + 1;
	m->indexed = false;
	return 0;
}

/* One complete line (without its newline): an entry, or skipped. */
static int parse_line(struct gs_perfmap *m, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	uint64_t start, size;
	size_t nlen;

	if (len && end[-1] == '\r')
		end--;
	if (!hex_field(&p, end, &start) || !hex_field(&p, end, &size) || !size ||
	    size > UINT64_MAX - start) {
		m->skipped++;
		return 0;
	}
	nlen = (size_t)(end - p);
	if (nlen > GS_PERFMAP_MAX_NAME)
		nlen = GS_PERFMAP_MAX_NAME;
	if (!name_ok(p, nlen)) {
		m->skipped++;
		return 0;
	}
	return add_entry(m, start, size, p, nlen);
}

int mf_perfmap_feed(struct gs_perfmap *m, const char *data, size_t len)
{
	while (len && !m->full) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) : len, keep = take;
		int rc;

		/* A line longer than line[] keeps its start: its name is cut. */
		if (keep > LINE_KEEP - m->linelen) {
			keep = LINE_KEEP - m->linelen;
			m->truncated = true;
		}
		memcpy(m->line + m->linelen, data, keep);
		m->linelen += keep;
		if (!nl)
			return 0; /* kept until its newline is written */
		rc = parse_line(m, m->line, m->linelen);
		m->linelen = 0;
		m->truncated = false;
		if (rc)
			return rc;
		data += take + 1;
		len -= take + 1;
	}
	return 0;
}

/* ---- the index: disjoint segments, the newest line winning ---------- */

static int by_start(const void *a, const void *b, void *ctx)
{
	const struct pm_entry *v = ctx;
	const struct pm_entry *x = &v[*(const uint32_t *)a], *y = &v[*(const uint32_t *)b];

	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A max-heap of entry indices: the newest (largest index) on top. */
static void heap_push(uint32_t *h, size_t *n, uint32_t e)
{
	size_t i = (*n)++;

	for (; i && h[(i - 1) / 2] < e; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = e;
}

static void heap_pop(uint32_t *h, size_t *n)
{
	uint32_t last = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= last)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

static int add_seg(struct gs_perfmap *m, size_t *cap, uint64_t start, uint64_t end, uint32_t e)
{
	struct pm_seg *last = m->nsegs ? &m->segs[m->nsegs - 1] : NULL;

	if (last && last->entry == e && last->end == start) {
		last->end = end;
		return 0;
	}
	if (base_grow((void **)&m->segs, cap, m->nsegs + 1, sizeof(*m->segs)))
		return -ENOMEM;
	m->segs[m->nsegs++] = (struct pm_seg){ start, end, e };
	return 0;
}

/* A sweep over every boundary: between two of them the newest entry still
 * open owns the range (entries that ended are dropped from the heap when
 * they come to the top). O(n log n) in time, O(n) in memory. */
static int build_index(struct gs_perfmap *m)
{
	uint32_t *order = malloc((m->n ? m->n : 1) * sizeof(*order));
	uint32_t *heap = malloc((m->n ? m->n : 1) * sizeof(*heap));
	uint64_t *pts = malloc((m->n ? 2 * m->n : 1) * sizeof(*pts));
	size_t npts = 0, nheap = 0, next = 0, cap = 0;
	int rc = 0;

	free(m->segs);
	m->segs = NULL;
	m->nsegs = 0;
	if (!order || !heap || !pts) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m->n; i++) {
		order[i] = (uint32_t)i;
		pts[npts++] = m->v[i].start;
		pts[npts++] = m->v[i].end;
	}
	qsort_r(order, m->n, sizeof(*order), by_start, m->v);
	qsort(pts, npts, sizeof(*pts), by_value);
	for (size_t k = 0; k + 1 < npts && !rc; k++) {
		if (pts[k] == pts[k + 1])
			continue;
		while (next < m->n && m->v[order[next]].start <= pts[k])
			heap_push(heap, &nheap, order[next++]);
		while (nheap && m->v[heap[0]].end <= pts[k])
			heap_pop(heap, &nheap);
		if (nheap)
			rc = add_seg(m, &cap, pts[k], pts[k + 1], heap[0]);
	}
	m->indexed = rc == 0;
out:
	free(order);
	free(heap);
	free(pts);
	return rc;
}

int mf_perfmap_index(struct gs_perfmap *m)
{
	return m->indexed ? 0 : build_index(m);
}

const char *gs_perfmap_lookup(const struct gs_perfmap *m, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;

	if (!m || !m->indexed)
		return NULL;
	hi = m->nsegs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->segs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= m->segs[lo - 1].end)
		return NULL;
	if (off)
		*off = addr - m->v[m->segs[lo - 1].entry].start;
	return m->v[m->segs[lo - 1].entry].name;
}

size_t gs_perfmap_count(const struct gs_perfmap *m)
{
	return m ? m->n : 0;
}

/* ---- the file ------------------------------------------------------- */

struct gs_perfmap *mf_perfmap_new(void)
{
	struct gs_perfmap *m = calloc(1, sizeof(*m));

	if (m)
		m->indexed = true; /* no entries: an empty index */
	return m;
}

static void reset(struct gs_perfmap *m)
{
	m->n = m->nsegs = m->linelen = m->skipped = 0;
	m->fed = 0;
	m->full = m->truncated = false;
	m->indexed = true;
}

/* The bytes of fd from m->fed to its end (or a cap), into the parser. */
static int read_on(struct gs_perfmap *m, int fd)
{
	char *buf = malloc(READ_CHUNK);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (!m->full && !rc) {
		ssize_t got = pread(fd, buf, READ_CHUNK, m->fed);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			break;
		}
		if (got == 0)
			break;
		m->fed += got;
		rc = mf_perfmap_feed(m, buf, (size_t)got);
	}
	free(buf);
	return rc;
}

int gs_perfmap_refresh(struct gs_perfmap *m)
{
	struct stat st;
	size_t before = m->n;
	int fd, rc;

	fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rc = S_ISREG(st.st_mode) ? -errno : -EINVAL;
		close(fd);
		return rc;
	}
	/* Another file (the process is gone and its pid reused) or one
	 * written anew: read from the start. */
	if (st.st_dev != m->dev || st.st_ino != m->ino || st.st_size < m->fed) {
		reset(m);
		m->dev = st.st_dev;
		m->ino = st.st_ino;
		before = 0;
	} else if (st.st_size == m->fed && st.st_mtim.tv_sec == m->mtime.tv_sec &&
		   st.st_mtim.tv_nsec == m->mtime.tv_nsec) {
		close(fd);
		return 0;
	}
	m->mtime = st.st_mtim;
	rc = m->full ? 0 : read_on(m, fd);
	close(fd);
	if (!rc)
		rc = mf_perfmap_index(m);
	return rc ? rc : m->n != before;
}

struct gs_perfmap *gs_perfmap_open_path(const char *path)
{
	struct gs_perfmap *m;
	int rc;

	if (strlen(path) >= sizeof(m->path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	m = mf_perfmap_new();
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	strcpy(m->path, path);
	m->ino = (ino_t)-1;
	rc = gs_perfmap_refresh(m);
	if (rc < 0) {
		gs_perfmap_free(m);
		errno = -rc;
		return NULL;
	}
	return m;
}

/* The pid of pid in its own PID namespace (the last NSpid field of its
 * status), or pid itself when the kernel does not say. */
static pid_t namespaced_pid(pid_t pid)
{
	char path[64], line[256];
	pid_t last = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return pid;
	while (fgets(line, sizeof(line), f)) {
		const char *p = base_after_prefix(line, "NSpid:");
		char *end;

		if (!p)
			continue;
		for (long v; (v = strtol(p, &end, 10)), end != p; p = end)
			if (v > 0 && v <= INT_MAX)
				last = (pid_t)v;
		break;
	}
	fclose(f);
	return last;
}

struct gs_perfmap *gs_perfmap_open(pid_t pid)
{
	char path[PATH_MAX], root[64];

	/* The process's /tmp, as it sees it (a container's), when its root
	 * can be read; else the host's /tmp under the host's pid. */
	snprintf(root, sizeof(root), "/proc/%d/root/tmp", (int)pid);
	if (access(root, R_OK | X_OK) == 0)
		snprintf(path, sizeof(path), "%s/perf-%d.map", root, (int)namespaced_pid(pid));
	else
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	return gs_perfmap_open_path(path);
}

void gs_perfmap_free(struct gs_perfmap *m)
{
	if (!m)
		return;
	free(m->v);
	while (m->block) {
		struct pm_block *prev = m->block->prev;

		free(m->block);
		m->block = prev;
	}
	free(m->segs);
	free(m);
}
