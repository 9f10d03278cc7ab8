/* A CPython str read from another process as UTF-8: the compact forms
 * names and file names take (ASCII, or one, two or four bytes a code
 * point, the characters right after the header), checked against their
 * state bits and bounded in length. Control characters become '?', so a
 * hostile name cannot break a line of output. */
#include <errno.h>
#include <string.h>

#include <gs/python.h>

#include "mf_int.h"

/* PyASCIIObject.state's bits (the same from 3.8 to 3.13). */
#define STATE_KIND(s) (((s) >> 2) & 7)
#define STATE_COMPACT(s) (((s) >> 5) & 1)
#define STATE_ASCII(s) (((s) >> 6) & 1)
#define STATE_READY(s) (((s) >> 7) & 1) /* until 3.11; 3.12 reuses the bit */

/* Header and the longest string kept, in one read. */
#define READ_MAX (128 + 4 * MF_PY_STR_MAX)

struct utf8_out {
	char *p, *end; /* end: room for the NUL kept */
	bool full;
};

static void put(struct utf8_out *o, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x20 || cp == 0x7f || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		cp = '?';
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	if (o->full || (size_t)(o->end - o->p) < n) {
		o->full = true;
		return;
	}
	memcpy(o->p, b, n);
	o->p += n;
}

static uint32_t code_point(const uint8_t *data, unsigned kind, size_t i)
{
	uint16_t u16;
	uint32_t u32;

	if (kind == 1)
		return data[i];
	if (kind == 2) {
		memcpy(&u16, data + 2 * i, 2);
		return u16;
	}
	memcpy(&u32, data + 4 * i, 4);
	return u32;
}

/* Where the characters start and how wide each is, from the state bits;
 * false for a form this reader does not take (legacy, not ready). */
static bool form_of(const struct gs_py_layout *l, uint32_t state, size_t *data, unsigned *kind)
{
	*kind = STATE_KIND(state);
	if (!STATE_COMPACT(state) || (l->minor <= 11 && !STATE_READY(state)))
		return false;
	if (STATE_ASCII(state)) {
		*data = l->unicode_ascii_data;
		return *kind == 1;
	}
	*data = l->unicode_compact_data;
	return *kind == 1 || *kind == 2 || *kind == 4;
}

int mf_py_str_read(pid_t pid, const struct gs_py_layout *l, uint64_t addr, char *out, size_t cap)
{
	uint8_t buf[READ_MAX];
	struct utf8_out o = { out, out + cap - 1, false };
	ssize_t got;
	int64_t length;
	uint32_t state;
	size_t data, n, i;
	unsigned kind;

	if (cap < 8 || l->unicode_compact_data + 0u > 128 || l->unicode_state + 4u > 128 ||
	    l->unicode_length + 8u > 128)
		return -EINVAL;
	got = mf_proc_read(pid, addr, buf, sizeof(buf));
	if (got < 0)
		return (int)got;
	if ((size_t)got < l->unicode_compact_data)
		return -EFAULT;
	memcpy(&state, buf + l->unicode_state, 4);
	memcpy(&length, buf + l->unicode_length, 8);
	if (!form_of(l, state, &data, &kind) || length < 0)
		return -EINVAL;
	n = (uint64_t)length > MF_PY_STR_MAX ? MF_PY_STR_MAX : (size_t)length;
	if ((size_t)got < data + n * kind)
		return -EFAULT;
	for (i = 0; i < n; i++) {
		uint32_t cp = code_point(buf + data, kind, i);

		if (STATE_ASCII(state) && cp >= 0x80)
			return -EINVAL;
		put(&o, cp);
	}
	if (n < (uint64_t)length || o.full) {
		/* cut: say so, over the last characters when out is full */
		while (o.p > out && (size_t)(o.end - o.p) < 3)
			do
				o.p--;
			while (o.p > out && ((uint8_t)*o.p & 0xc0) == 0x80);
		memcpy(o.p, "...", 3);
		o.p += 3;
	}
	*o.p = '\0';
	return 0;
}
