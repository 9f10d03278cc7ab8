/* The output panel's model (outbuf.h): a ring of escaped lines numbered by
 * seq, and a window over it that either follows the newest line or is
 * anchored on the seq of its top line, so that arriving lines do not move
 * it. Seqs are consecutive in the ring, so a seq finds its line in O(1);
 * unfiltered, a draw costs O(height). With a filter, finding the window
 * walks the ring over non-matching lines: O(history) at worst per draw. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "text.h"

#define OUTBUF_DEFAULT_LINES 10000

struct tui_outbuf {
	struct tui_line *ring;
	size_t cap, head, count; /* head: the oldest line's slot */
	uint64_t next_seq, dropped;
	uint32_t filter;
	bool follow, paused;
	uint64_t anchor;      /* the top line's seq when not following or paused */
	size_t last_height;   /* the last window's, to anchor a pause */
	uint64_t match;
	char *last_search;
};

struct tui_outbuf *tui_outbuf_new(size_t max_lines)
{
	struct tui_outbuf *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->cap = max_lines ? max_lines : OUTBUF_DEFAULT_LINES;
	o->ring = calloc(o->cap, sizeof(*o->ring));
	if (!o->ring) {
		free(o);
		return NULL;
	}
	o->next_seq = 1;
	o->follow = true;
	return o;
}

void tui_outbuf_clear(struct tui_outbuf *o)
{
	for (size_t i = 0; i < o->count; i++)
		free(o->ring[(o->head + i) % o->cap].text);
	o->head = o->count = 0;
	o->match = 0;
}

void tui_outbuf_free(struct tui_outbuf *o)
{
	if (!o)
		return;
	tui_outbuf_clear(o);
	free(o->ring);
	free(o->last_search);
	free(o);
}

static struct tui_line *at(const struct tui_outbuf *o, size_t i)
{
	return &o->ring[(o->head + i) % o->cap];
}

static uint64_t oldest_seq(const struct tui_outbuf *o)
{
	return o->count ? at(o, 0)->seq : o->next_seq;
}

static int push(struct tui_outbuf *o, uint32_t trace_id, enum tui_line_kind kind,
		const char *text, size_t len)
{
	char *esc = tui_escape(text, len, false);
	struct tui_line *l;

	if (!esc)
		return -ENOMEM;
	if (o->count == o->cap) {
		free(at(o, 0)->text);
		o->head = (o->head + 1) % o->cap;
		o->count--;
		o->dropped++;
	}
	l = at(o, o->count++);
	*l = (struct tui_line){ .seq = o->next_seq++, .trace_id = trace_id, .kind = kind,
				.text = esc };
	return 0;
}

int tui_outbuf_add(struct tui_outbuf *o, uint32_t trace_id, enum tui_line_kind kind,
		   const char *text, size_t len)
{
	size_t start = 0;

	for (;;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		int rc = push(o, trace_id, kind, text + start, end - start);

		if (rc)
			return rc;
		if (kind == TUI_LINE_HEADER)
			kind = TUI_LINE_EVENT;
		if (!nl || end + 1 == len)
			return 0;
		start = end + 1;
	}
}

uint64_t tui_outbuf_dropped(const struct tui_outbuf *o)
{
	return o->dropped;
}

size_t tui_outbuf_count(const struct tui_outbuf *o)
{
	return o->count;
}

const struct tui_line *tui_outbuf_line(const struct tui_outbuf *o, size_t i)
{
	return i < o->count ? at(o, i) : NULL;
}

/* ---- the window ------------------------------------------------------------ */

static bool shown(const struct tui_outbuf *o, size_t i)
{
	const struct tui_line *l = at(o, i);

	return !o->filter || !l->trace_id || l->trace_id == o->filter;
}

/* The first shown line at or after i (count when none). */
static size_t shown_from(const struct tui_outbuf *o, size_t i)
{
	while (i < o->count && !shown(o, i))
		i++;
	return i;
}

/* Moves from line i over delta shown lines (negative: back), stopping at
 * the first shown line and at limit going forward. */
static size_t step(const struct tui_outbuf *o, size_t i, long delta, size_t limit)
{
	if (!o->filter) {
		if (delta < 0)
			return (size_t)-delta >= i ? 0 : i - (size_t)-delta;
		return (size_t)delta >= limit - i ? limit : i + (size_t)delta;
	}
	for (; delta < 0; delta++) {
		size_t j = i;

		while (j > 0 && !shown(o, j - 1))
			j--;
		if (j == 0)
			break;
		i = j - 1;
	}
	for (; delta > 0 && i < limit; delta--)
		i = shown_from(o, i + 1) < limit ? shown_from(o, i + 1) : limit;
	return i;
}

/* The top line of the window that ends at the newest shown line. */
static size_t follow_top(const struct tui_outbuf *o, size_t height)
{
	size_t i = o->count, got = 0;

	if (!o->filter)
		return height >= o->count ? 0 : o->count - height;
	while (i > 0 && got < height)
		if (shown(o, --i))
			got++;
	return shown_from(o, i);
}

static bool anchored(const struct tui_outbuf *o)
{
	return !o->follow || o->paused;
}

/* The window's top line now; a dropped anchor clamps to the oldest line. */
static size_t top_index(const struct tui_outbuf *o, size_t height)
{
	uint64_t old = oldest_seq(o);

	if (!anchored(o))
		return follow_top(o, height);
	return shown_from(o, o->anchor < old ? 0 : (size_t)(o->anchor - old));
}

static void anchor_at(struct tui_outbuf *o, size_t i)
{
	o->anchor = oldest_seq(o) + i;
}

size_t tui_outbuf_window(struct tui_outbuf *o, size_t height, const struct tui_line **out)
{
	size_t n = 0;

	o->last_height = height;
	for (size_t i = top_index(o, height); i < o->count && n < height; i++)
		if (shown(o, i))
			out[n++] = at(o, i);
	return n;
}

void tui_outbuf_set_filter(struct tui_outbuf *o, uint32_t trace_id)
{
	o->filter = trace_id;
}

uint32_t tui_outbuf_filter(const struct tui_outbuf *o)
{
	return o->filter;
}

void tui_outbuf_follow(struct tui_outbuf *o, bool follow)
{
	if (!follow && !anchored(o))
		anchor_at(o, follow_top(o, o->last_height));
	o->follow = follow;
	if (follow)
		o->paused = false;
}

bool tui_outbuf_following(const struct tui_outbuf *o)
{
	return o->follow;
}

void tui_outbuf_pause(struct tui_outbuf *o, bool pause)
{
	/* The lines shown at the last draw stay: anchor on its top line. */
	if (pause && !anchored(o))
		anchor_at(o, follow_top(o, o->last_height));
	o->paused = pause;
}

bool tui_outbuf_paused(const struct tui_outbuf *o)
{
	return o->paused;
}

void tui_outbuf_scroll(struct tui_outbuf *o, long delta, size_t height)
{
	size_t top = top_index(o, height);
	/* Forward, the window stops where following would put it. */
	size_t last = follow_top(o, height);

	o->last_height = height;
	top = step(o, top, delta, last > top ? last : top);
	anchor_at(o, top);
	o->follow = false;
}

static bool line_has(const struct tui_outbuf *o, size_t i, const char *needle)
{
	return shown(o, i) && strstr(at(o, i)->text, needle);
}

/* The first line after top (before it when backward) holding needle;
 * count when none. */
static size_t find(const struct tui_outbuf *o, size_t top, const char *needle, bool backward)
{
	if (backward) {
		for (size_t i = top < o->count ? top : o->count; i-- > 0;)
			if (line_has(o, i, needle))
				return i;
		return o->count;
	}
	for (size_t i = top + 1; i < o->count; i++)
		if (line_has(o, i, needle))
			return i;
	return o->count;
}

/* needle, or the last one when empty, kept for the next repeat. */
static const char *remember(struct tui_outbuf *o, const char *needle)
{
	char *copy;

	if (!needle || !*needle)
		return o->last_search;
	copy = strdup(needle);
	if (!copy)
		return NULL;
	free(o->last_search);
	o->last_search = copy;
	return copy;
}

bool tui_outbuf_search(struct tui_outbuf *o, const char *needle, bool backward, size_t height)
{
	size_t top = top_index(o, height), i;

	needle = remember(o, needle);
	if (!needle)
		return false;
	o->last_height = height;
	i = find(o, top, needle, backward);
	if (i >= o->count)
		return false;
	anchor_at(o, i);
	o->match = at(o, i)->seq;
	o->follow = false;
	return true;
}

uint64_t tui_outbuf_match(const struct tui_outbuf *o)
{
	return o->match;
}
