/* A code object's line at an instruction offset, as CPython's
 * PyCode_Addr2Line computes it, for the three formats of its line table:
 * co_lnotab (3.8, 3.9), the PEP 626 co_linetable (3.10) and the location
 * table (3.11+). The table comes from a traced process's memory: every
 * read is bounded by its length, and a table that ends mid-entry or holds
 * a number too big is refused, never read past. */
#include <errno.h>
#include <limits.h>

#include <gs/python.h>

/* The table's remaining bytes. */
struct cursor {
	const uint8_t *p, *end;
};

/* A line or a line delta past what an int holds cannot come from
 * CPython, which keeps lines in ints. */
static bool line_ok(int64_t line)
{
	return line >= INT_MIN && line <= INT_MAX;
}

/* 3.8, 3.9: (address delta, signed line delta) byte pairs; the line of
 * an offset is the sum of the line deltas of the pairs whose address is
 * at or below it. Any offset has a line: past the end, the last one. */
static int lnotab_line(const uint8_t *t, size_t n, int first, uint32_t offset, int *line)
{
	int64_t l = first;
	uint64_t addr = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		addr += t[i];
		if (addr > offset)
			break;
		l += (int8_t)t[i + 1];
	}
	if (!line_ok(l))
		return -EINVAL;
	*line = (int)l;
	return 0;
}

/* One range of byte offsets [start, end) and its line (-1: none), as the
 * 3.10 and 3.11+ formats both describe a table. */
struct range {
	uint64_t start, end;
	int64_t computed; /* the running line, kept across no-line ranges */
	int64_t line;
};

/* 3.10: (byte length, signed line delta) pairs; a delta of -128 marks a
 * range with no line, leaving the running line as it was. */
static int next_range_310(struct cursor *c, struct range *r)
{
	int8_t delta;

	if (c->end - c->p < 2)
		return -ERANGE;
	r->start = r->end;
	r->end += c->p[0];
	delta = (int8_t)c->p[1];
	c->p += 2;
	if (delta == -128) {
		r->line = -1;
		return 0;
	}
	r->computed += delta;
	r->line = r->computed;
	return line_ok(r->line) ? 0 : -EINVAL;
}

/* The location table's varint: 6-bit groups, low first, bit 6 set while
 * more follow. More than 32 bits cannot be a line delta. */
static int read_varint(struct cursor *c, uint32_t *v)
{
	uint32_t val = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (c->p >= c->end || shift > 30)
			return -EINVAL;
		b = *c->p++;
		val |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	*v = val;
	return 0;
}

static int read_svarint(struct cursor *c, int64_t *v)
{
	uint32_t u;
	int rc = read_varint(c, &u);

	if (rc)
		return rc;
	*v = (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
	return 0;
}

/* The kinds of a 3.11+ entry, from bits 3-6 of its first byte. */
enum {
	LOC_SHORT_LAST = 9,  /* 0-9: same line, a column byte follows */
	LOC_ONE_LINE0 = 10,  /* 10-12: line + (code - 10), two column bytes */
	LOC_ONE_LINE2 = 12,
	LOC_NO_COLUMNS = 13, /* line + svarint */
	LOC_LONG = 14,       /* line + svarint, then end line and columns */
	LOC_NONE = 15,       /* no line */
};

static int line_delta_311(unsigned code, struct cursor *c, int64_t *delta)
{
	*delta = 0;
	if (code == LOC_NO_COLUMNS || code == LOC_LONG)
		return read_svarint(c, delta);
	if (code >= LOC_ONE_LINE0 && code <= LOC_ONE_LINE2)
		*delta = code - LOC_ONE_LINE0;
	return 0;
}

/* 3.11+: an entry is a first byte with bit 7 set (its kind and its length
 * in 2-byte code units), then the kind's operands; the next entry starts
 * at the next byte with bit 7 set, which is how CPython steps too. */
static int next_range_311(struct cursor *c, struct range *r)
{
	struct cursor operands;
	unsigned first, code;
	int64_t delta;
	int rc;

	if (c->p >= c->end)
		return -ERANGE;
	first = *c->p;
	code = (first >> 3) & 15;
	operands = (struct cursor){ c->p + 1, c->end };
	rc = line_delta_311(code, &operands, &delta);
	if (rc)
		return rc;
	r->computed += delta;
	r->line = code == LOC_NONE ? -1 : r->computed;
	r->start = r->end;
	r->end += ((first & 7) + 1) * 2;
	do
		c->p++;
	while (c->p < c->end && (*c->p & 128) == 0);
	return line_ok(r->computed) ? 0 : -EINVAL;
}

/* The range holding offset: ranges only grow, so one pass forward. A
 * table that ends first leaves the offset outside the code (-ERANGE). */
static int ranges_line(uint8_t minor, const uint8_t *t, size_t n, int first, uint32_t offset,
		       int *line)
{
	struct cursor c = { t, t + n };
	struct range r = { .start = 0, .end = 0, .computed = first, .line = -1 };

	while (r.end <= offset) {
		int rc = minor == 10 ? next_range_310(&c, &r) : next_range_311(&c, &r);

		if (rc)
			return rc;
	}
	*line = (int)r.line;
	return 0;
}

int gs_py_addr2line(uint8_t minor, const uint8_t *table, size_t n, int firstlineno, uint32_t offset,
		    int *line)
{
	if (minor < GS_PY_MINOR_FIRST || minor > GS_PY_MINOR_LAST)
		return -ENOTSUP;
	if (!table && n > 0)
		return -EINVAL;
	if (minor <= 9)
		return lnotab_line(table, n, firstlineno, offset, line);
	return ranges_line(minor, table, n, firstlineno, offset, line);
}
